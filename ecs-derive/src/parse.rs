//! Parsing and validation: from `syn::DeriveInput` to a checked description, with
//! every error spanned at the user's token that causes it.

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Error, GenericParam, Generics, Ident, Member, Path, Type};

/// A type to implement `Component` for.
pub struct ComponentDef<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub krate: Path,
    /// `#[component(storage = "sparse")]`.
    pub sparse: bool,
    /// `#[component(on_add = f, …)]`: each hook's key (`on_add`, `on_insert`,
    /// `on_replace`, `on_remove`, `on_despawn`) and function path.
    pub hooks: Vec<(Ident, Path)>,
    /// `false` for `#[component(changes = false)]`.
    pub changes: bool,
    /// `#[component(immutable)]` (relationships and their targets always are).
    pub immutable: bool,
    /// The crate's own components: `#[diagnostic::do_not_recommend]` on the impl.
    pub hidden: bool,
    /// `#[relationship]`, `#[relationship_target]` and `#[entities]`.
    pub entities: crate::relation::EntityFields,
    /// `#[component(snapshot = "copy" | "clone" | "skip")]`, spanned at the value.
    pub snapshot: Option<(Snapshot, proc_macro2::Span)>,
    /// `#[component(pod)]`, spanned at the key.
    pub pod: Option<proc_macro2::Span>,
    /// `#[component(layout = "soa")]`: the fields, each stored in its own array.
    pub split: Option<Vec<SplitField<'a>>>,
    /// The type's visibility, given to the views of a per-field component.
    pub vis: &'a syn::Visibility,
}

/// A field of a per-field component.
pub struct SplitField<'a> {
    pub member: Member,
    pub vis: &'a syn::Visibility,
    pub ty: &'a Type,
}

/// A component's declared snapshot strategy.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Snapshot {
    Copy,
    Clone,
    Skip,
}

/// A struct to implement `QueryData` for: one lifetime, named fields.
pub struct QueryDef<'a> {
    pub ident: &'a Ident,
    pub lifetime: &'a syn::Lifetime,
    pub krate: Path,
    pub fields: Vec<(&'a Ident, &'a Type)>,
}

/// A struct to implement `Bundle` for.
pub struct BundleDef<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub krate: Path,
    pub fields: Vec<(Member, &'a Type)>,
}

/// A type to implement `Event` for.
pub struct EventDef<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub krate: Path,
}

pub fn event(input: &DeriveInput) -> syn::Result<EventDef<'_>> {
    let mut errors = Errors::default();
    for param in &input.generics.params {
        if let GenericParam::Lifetime(lifetime) = param {
            errors.push(Error::new(
                lifetime.span(),
                format!(
                    "an `Event` must be `Send + Sync + 'static` (observers and readers run later and on other \
                     threads): remove the lifetime `{}` and store owned data (or an `Entity`) instead",
                    lifetime.lifetime
                ),
            ));
        }
    }
    let krate = errors.keep(crate_attribute(input, "event"));
    errors.finish()?;
    Ok(EventDef { ident: &input.ident, generics: &input.generics, krate: krate.expect("no error") })
}

/// A type to implement `SystemSet` for.
pub struct SystemSetDef<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub krate: Path,
}

pub fn system_set(input: &DeriveInput) -> syn::Result<SystemSetDef<'_>> {
    let mut errors = Errors::default();
    if let Data::Union(data) = &input.data {
        errors.push(Error::new(
            data.union_token.span,
            "`SystemSet` cannot be derived for a union: a set is compared by value; use a unit struct or an enum",
        ));
    }
    for param in &input.generics.params {
        if let GenericParam::Lifetime(lifetime) = param {
            errors.push(Error::new(
                lifetime.span(),
                format!(
                    "a `SystemSet` is kept by the schedule, so it must be `'static`: remove the lifetime `{}`",
                    lifetime.lifetime
                ),
            ));
        }
    }
    let krate = errors.keep(crate_attribute(input, "system_set"));
    errors.finish()?;
    Ok(SystemSetDef { ident: &input.ident, generics: &input.generics, krate: krate.expect("no error") })
}

pub fn component(input: &DeriveInput) -> syn::Result<ComponentDef<'_>> {
    let mut errors = Errors::default();
    if let Data::Union(data) = &input.data {
        errors.push(Error::new(
            data.union_token.span,
            "`Component` cannot be derived for a union: the world could not know which field to drop; \
             wrap the union in a struct that knows",
        ));
    }
    for param in &input.generics.params {
        if let GenericParam::Lifetime(lifetime) = param {
            errors.push(Error::new(
                lifetime.span(),
                format!(
                    "`Component` requires `Send + Sync + 'static`, so a component cannot borrow: \
                     remove the lifetime `{}` and store owned data (or an `Entity`) instead",
                    lifetime.lifetime
                ),
            ));
        }
    }
    let attributes = errors.keep(component_attributes(input));
    let entities = errors.keep(crate::relation::parse(input));
    if let (Some(attributes), Some(entities)) = (&attributes, &entities) {
        let reserved: &[&str] = match entities.relation {
            crate::relation::Relation::None => &[],
            crate::relation::Relation::Source { .. } => &["on_insert", "on_replace"],
            crate::relation::Relation::Target { .. } => &["on_insert", "on_replace", "on_despawn"],
        };
        for (key, _) in &attributes.hooks {
            if reserved.iter().any(|r| key == r) {
                errors.push(Error::new(
                    key.span(),
                    format!(
                        "`{key}` is taken by the relationship's upkeep (it keeps both sides in step); \
                         observe `On{}` for this component instead",
                        &key.to_string()[3..].split('_').map(|w| w[..1].to_uppercase() + &w[1..]).collect::<String>()
                    ),
                ));
            }
        }
    }
    let split = match (&attributes, &entities) {
        (Some(ComponentAttributes { split: Some(span), sparse, .. }), Some(entities)) => {
            errors.keep(split_fields(input, *span, *sparse, entities))
        }
        _ => None,
    };
    errors.finish()?;
    let ComponentAttributes { krate, sparse, hooks, changes, immutable, hidden, snapshot, pod, split: _ } =
        attributes.expect("no error");
    let entities = entities.expect("no error");
    Ok(ComponentDef {
        ident: &input.ident,
        generics: &input.generics,
        krate,
        sparse,
        hooks,
        changes,
        immutable,
        hidden,
        entities,
        snapshot,
        pod,
        split,
        vis: &input.vis,
    })
}

/// The fields of a `#[component(layout = "soa")]` type (`span` is the
/// layout's value): a struct with at least one field, none borrowing, not
/// generic, stored in tables, not a relationship.
fn split_fields<'a>(
    input: &'a DeriveInput,
    span: proc_macro2::Span,
    sparse: bool,
    entities: &crate::relation::EntityFields,
) -> syn::Result<Vec<SplitField<'a>>> {
    let fields = match &input.data {
        Data::Struct(data) => &data.fields,
        Data::Enum(data) => {
            return Err(Error::new(
                data.enum_token.span,
                "`layout = \"soa\"` stores each field of a struct in its own array, but an enum's variants \
                 share one place: remove the attribute, or make the component a struct",
            ));
        }
        Data::Union(data) => {
            return Err(Error::new(
                data.union_token.span,
                "`layout = \"soa\"` stores each field of a struct in its own array, but a union's fields \
                 overlap: make the component a struct",
            ));
        }
    };
    let mut errors = Errors::default();
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("repr")) {
        if attr.meta.to_token_stream().to_string().contains("packed") {
            errors.push(Error::new(
                attr.meta.span(),
                "`layout = \"soa\"` reads each field in place, and a packed struct's fields may be unaligned: \
                 remove `packed` (each field gets its own array anyway)",
            ));
        }
    }
    for field in fields {
        if let Some((span, lifetime)) = borrowed_lifetime(&field.ty) {
            errors.push(Error::new(
                span,
                format!(
                    "a per-field component's fields live in the world's arrays, so they must own their data \
                     (`'static`): `{}` borrows for `{lifetime}`",
                    field.ty.to_token_stream()
                ),
            ));
        }
    }
    errors.finish()?;
    if fields.is_empty() {
        return Err(Error::new(span, "`layout = \"soa\"` splits a struct's fields, and this one has none"));
    }
    if !input.generics.params.is_empty() {
        return Err(Error::new(
            input.generics.span(),
            "`layout = \"soa\"` is not supported on a generic component: its views are generated for one \
             concrete type; make the component concrete (or use the default layout)",
        ));
    }
    if sparse {
        return Err(Error::new(
            span,
            "`layout = \"soa\"` is for table components iterated in bulk; a sparse component is stored \
             per row (`storage = \"sparse\"`): choose one",
        ));
    }
    if !matches!(entities.relation, crate::relation::Relation::None) {
        return Err(Error::new(
            span,
            "a relationship (or its target) is read whole by the hierarchy's upkeep, so it cannot use \
             `layout = \"soa\"`",
        ));
    }
    Ok(fields
        .iter()
        .enumerate()
        .map(|(i, field)| SplitField {
            member: field.ident.clone().map_or_else(|| Member::Unnamed(i.into()), Member::Named),
            vis: &field.vis,
            ty: &field.ty,
        })
        .collect())
}

/// The first lifetime other than `'static` in a type: `'` then its name, in
/// the type's tokens (at any depth).
fn borrowed_lifetime(ty: &Type) -> Option<(proc_macro2::Span, String)> {
    fn find(tokens: proc_macro2::TokenStream) -> Option<(proc_macro2::Span, String)> {
        let mut tokens = tokens.into_iter().peekable();
        while let Some(token) = tokens.next() {
            match token {
                proc_macro2::TokenTree::Group(group) => {
                    if let Some(found) = find(group.stream()) {
                        return Some(found);
                    }
                }
                proc_macro2::TokenTree::Punct(punct) if punct.as_char() == '\'' => {
                    if let Some(proc_macro2::TokenTree::Ident(name)) = tokens.peek() {
                        if name != "static" {
                            return Some((punct.span(), format!("'{name}")));
                        }
                    }
                }
                _ => {}
            }
        }
        None
    }
    find(ty.to_token_stream())
}

pub fn bundle(input: &DeriveInput) -> syn::Result<BundleDef<'_>> {
    let mut errors = Errors::default();
    let krate = errors.keep(crate_attribute(input, "bundle"));
    let fields = match &input.data {
        Data::Struct(data) => &data.fields,
        Data::Enum(data) => {
            return Err(Error::new(
                data.enum_token.span,
                "`Bundle` cannot be derived for an enum: a bundle always holds all of its components; \
                 derive `Component` to store the enum as one component",
            ));
        }
        Data::Union(data) => {
            return Err(Error::new(data.union_token.span, "`Bundle` cannot be derived for a union; use a struct"));
        }
    };
    let fields: Vec<_> = fields
        .iter()
        .enumerate()
        .map(|(i, f)| (f.ident.clone().map_or_else(|| Member::from(i), Member::Named), &f.ty))
        .collect();
    for (i, (member, ty)) in fields.iter().enumerate() {
        let written = ty.to_token_stream().to_string();
        if let Some((first, _)) = fields[..i].iter().find(|(_, t)| t.to_token_stream().to_string() == written) {
            errors.push(Error::new(
                ty.span(),
                format!(
                    "fields `{}` and `{}` both have type `{written}`: an entity holds at most one value \
                     of each component type",
                    display(first),
                    display(member)
                ),
            ));
        }
    }
    errors.finish()?;
    Ok(BundleDef { ident: &input.ident, generics: &input.generics, krate: krate.expect("no error"), fields })
}

pub fn query(input: &DeriveInput) -> syn::Result<QueryDef<'_>> {
    let mut errors = Errors::default();
    let krate = errors.keep(crate_attribute(input, "query"));
    let named = match &input.data {
        Data::Struct(syn::DataStruct { fields: syn::Fields::Named(named), .. }) => named,
        Data::Struct(data) => {
            return Err(Error::new(
                data.fields.span(),
                "`QueryData` needs named fields: `struct Movement<'w> { pos: &'w mut Position, vel: &'w Velocity }`",
            ));
        }
        Data::Enum(data) => return Err(Error::new(data.enum_token.span, "`QueryData` cannot be derived for an enum")),
        Data::Union(data) => {
            return Err(Error::new(data.union_token.span, "`QueryData` cannot be derived for a union"));
        }
    };
    let mut lifetimes = input.generics.lifetimes();
    let lifetime = match (lifetimes.next(), lifetimes.next()) {
        (Some(lifetime), None) => &lifetime.lifetime,
        _ => {
            return Err(Error::new(
                input.generics.span().join(input.ident.span()).unwrap_or(input.ident.span()),
                "`QueryData` needs exactly one lifetime parameter, the world borrow: `struct Movement<'w> { … }`",
            ));
        }
    };
    if let Some(param) = input.generics.type_params().next() {
        errors.push(Error::new(param.span(), "`QueryData` structs cannot have type parameters"));
    }
    if let Some(param) = input.generics.const_params().next() {
        errors.push(Error::new(param.span(), "`QueryData` structs cannot have const parameters"));
    }
    let fields: Vec<_> = named.named.iter().map(|f| (f.ident.as_ref().expect("named field"), &f.ty)).collect();
    let mut borrows: Vec<(&Ident, String, bool)> = Vec::new();
    for &(ident, ty) in &fields {
        let Some((reference, borrowed)) = component_borrow(ty) else { continue };
        match &reference.lifetime {
            Some(l) if l.ident == lifetime.ident => {}
            other => errors.push(Error::new(
                other.as_ref().map_or(reference.and_token.span, |l| l.span()),
                format!(
                    "field `{ident}` must borrow for the query lifetime: write `&{lifetime} {}{}`",
                    if reference.mutability.is_some() { "mut " } else { "" },
                    borrowed
                ),
            )),
        }
        let mutable = reference.mutability.is_some();
        if let Some((first, _, first_mut)) = borrows.iter().find(|(_, t, m)| *t == borrowed && (*m || mutable)) {
            let (what, second) = if mutable { ("mutably", "again") } else { ("", "") };
            let message = if *first_mut && !mutable {
                format!(
                    "field `{ident}` borrows `{borrowed}`, which field `{first}` already borrows mutably; a query may borrow a component mutably only once"
                )
            } else {
                format!(
                    "field `{ident}` borrows `{borrowed}` {what} {second}, but field `{first}` already borrows it; a query may borrow a component mutably only once"
                )
            };
            errors.push(Error::new(ident.span(), message.replace("  ", " ")));
        }
        borrows.push((ident, borrowed, mutable));
    }
    errors.finish()?;
    Ok(QueryDef { ident: &input.ident, lifetime, krate: krate.expect("no error"), fields })
}

/// A struct to implement `SystemParam` for: one lifetime, named fields.
pub struct SystemParamDef<'a> {
    pub ident: &'a Ident,
    pub lifetime: &'a syn::Lifetime,
    pub krate: Path,
    pub fields: Vec<(&'a Ident, &'a Type)>,
}

pub fn system_param(input: &DeriveInput) -> syn::Result<SystemParamDef<'_>> {
    let mut errors = Errors::default();
    let krate = errors.keep(crate_attribute(input, "system_param"));
    let named = match &input.data {
        Data::Struct(syn::DataStruct { fields: syn::Fields::Named(named), .. }) => named,
        Data::Struct(data) => {
            return Err(Error::new(
                data.fields.span(),
                "`SystemParam` needs named fields: `struct Physics<'w> { bodies: Query<'w, …>, g: Res<'w, Gravity> }`",
            ));
        }
        Data::Enum(data) => {
            return Err(Error::new(data.enum_token.span, "`SystemParam` cannot be derived for an enum"));
        }
        Data::Union(data) => {
            return Err(Error::new(data.union_token.span, "`SystemParam` cannot be derived for a union"));
        }
    };
    let mut lifetimes = input.generics.lifetimes();
    let lifetime = match (lifetimes.next(), lifetimes.next()) {
        (Some(lifetime), None) => &lifetime.lifetime,
        _ => {
            return Err(Error::new(
                input.ident.span(),
                "`SystemParam` needs exactly one lifetime parameter, the world borrow: `struct Physics<'w> { … }`",
            ));
        }
    };
    if let Some(param) = input.generics.type_params().next() {
        errors.push(Error::new(param.span(), "`SystemParam` structs cannot have type parameters"));
    }
    for field in &named.named {
        for reference in borrowed_query_items(&field.ty) {
            let lifetime = reference.lifetime.as_ref().expect("filtered on a named lifetime");
            let mutability = if reference.mutability.is_some() { "mut " } else { "" };
            let item = reference.elem.to_token_stream().to_string();
            errors.push(Error::new(
                lifetime.span(),
                format!(
                    "query items in a `SystemParam` struct borrow for `'static`: write `&'static {mutability}{item}` \
                     (the query's own `{lifetime}` already carries the borrow of the world; the item type only names \
                     what is fetched)"
                ),
            ));
        }
    }
    errors.finish()?;
    let fields = named.named.iter().map(|f| (f.ident.as_ref().expect("named field"), &f.ty)).collect();
    Ok(SystemParamDef { ident: &input.ident, lifetime, krate: krate.expect("no error"), fields })
}

/// The references with a named lifetime other than `'static` inside the type
/// arguments of a `Query<…>` (at any depth: tuples, `Option`, filters).
fn borrowed_query_items(ty: &Type) -> Vec<&syn::TypeReference> {
    fn collect<'a>(ty: &'a Type, in_query: bool, out: &mut Vec<&'a syn::TypeReference>) {
        match ty {
            Type::Reference(reference) => {
                if in_query && reference.lifetime.as_ref().is_some_and(|l| l.ident != "static") {
                    out.push(reference);
                }
                collect(&reference.elem, in_query, out);
            }
            Type::Tuple(tuple) => tuple.elems.iter().for_each(|t| collect(t, in_query, out)),
            Type::Paren(inner) => collect(&inner.elem, in_query, out),
            Type::Group(inner) => collect(&inner.elem, in_query, out),
            Type::Path(path) => {
                for segment in &path.path.segments {
                    let query = in_query || segment.ident == "Query";
                    if let syn::PathArguments::AngleBracketed(args) = &segment.arguments {
                        for arg in &args.args {
                            if let syn::GenericArgument::Type(t) = arg {
                                collect(t, query, out);
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    collect(ty, false, &mut out);
    out
}

/// For `&'a T`, `&'a mut T` or `Option<…>` of them: the reference and `T` as written.
fn component_borrow(ty: &Type) -> Option<(&syn::TypeReference, String)> {
    match ty {
        Type::Reference(reference) => Some((reference, reference.elem.to_token_stream().to_string())),
        Type::Path(path) => {
            let last = path.path.segments.last()?;
            if last.ident != "Option" {
                return None;
            }
            match &last.arguments {
                syn::PathArguments::AngleBracketed(args) => match args.args.first()? {
                    syn::GenericArgument::Type(inner) => component_borrow(inner),
                    _ => None,
                },
                _ => None,
            }
        }
        Type::Paren(inner) => component_borrow(&inner.elem),
        _ => None,
    }
}

fn display(member: &Member) -> String {
    match member {
        Member::Named(ident) => ident.to_string(),
        Member::Unnamed(index) => index.index.to_string(),
    }
}

/// Reads `#[component(crate = "path", storage = "table" | "sparse")]`, refusing any
/// other key or storage.
struct ComponentAttributes {
    krate: Path,
    sparse: bool,
    hooks: Vec<(Ident, Path)>,
    changes: bool,
    immutable: bool,
    hidden: bool,
    snapshot: Option<(Snapshot, proc_macro2::Span)>,
    pod: Option<proc_macro2::Span>,
    /// `layout = "soa"`, spanned at the value.
    split: Option<proc_macro2::Span>,
}

/// The hook keys of `#[component(...)]`, in the order bevy_ecs documents them.
const HOOK_KEYS: [&str; 5] = ["on_add", "on_insert", "on_replace", "on_remove", "on_despawn"];

fn component_attributes(input: &DeriveInput) -> syn::Result<ComponentAttributes> {
    let mut sparse = false;
    let mut hooks: Vec<(Ident, Path)> = Vec::new();
    let mut changes = true;
    let mut immutable = false;
    let mut hidden = false;
    let mut snapshot = None;
    let mut pod = None;
    let mut split = None;
    let keys = "the keys are `crate = \"path\"`, `storage = \"table\" | \"sparse\"`, `layout = \"aos\" | \"soa\"`, \
                `changes = false`, `immutable`, `snapshot = \"copy\" | \"clone\" | \"skip\"`, `pod` and the hooks `on_add`, `on_insert`, `on_replace`, `on_remove`, `on_despawn` (each `= path::to_fn`)";
    let krate = attribute_with(input, "component", keys, |meta| {
        if let Some(key) = HOOK_KEYS.iter().find(|k| meta.path.is_ident(k)) {
            let ident = meta.path.get_ident().expect("a hook key is an identifier").clone();
            if hooks.iter().any(|(seen, _)| seen == key) {
                return Err(meta.error(format!("`{key}` is given twice; a component has one `{key}` hook")));
            }
            let function = meta.value()?.parse::<Path>().map_err(|error| {
                Error::new(
                    error.span(),
                    format!("`{key}` takes the path of a function `fn(DeferredWorld, HookContext)`: `{key} = my_hook`"),
                )
            })?;
            hooks.push((ident, function));
            return Ok(true);
        }
        // Unlisted: the crate's own components, kept out of users' error messages.
        if meta.path.is_ident("__do_not_recommend") {
            hidden = true;
            return Ok(true);
        }
        if meta.path.is_ident("immutable") {
            immutable = true;
            return Ok(true);
        }
        if meta.path.is_ident("pod") {
            pod = Some(meta.path.span());
            return Ok(true);
        }
        if meta.path.is_ident("snapshot") {
            let value = meta.value()?.parse::<syn::LitStr>()?;
            let strategy = match value.value().as_str() {
                "copy" => Snapshot::Copy,
                "clone" => Snapshot::Clone,
                "skip" => Snapshot::Skip,
                other => {
                    return Err(Error::new(
                        value.span(),
                        format!(
                            "unknown snapshot strategy `{other}`; use `\"copy\"` (a `Copy` type, copied with \
                             `memcpy`), `\"clone\"` (a `Clone` type) or `\"skip\"` (left out of snapshots)"
                        ),
                    ));
                }
            };
            snapshot = Some((strategy, value.span()));
            return Ok(true);
        }
        if meta.path.is_ident("layout") {
            let value = meta.value()?.parse::<syn::LitStr>()?;
            split = match value.value().as_str() {
                "aos" => None,
                "soa" => Some(value.span()),
                other => {
                    return Err(Error::new(
                        value.span(),
                        format!(
                            "unknown layout `{other}`; use `\"aos\"` (the default: each value whole) or \
                             `\"soa\"` (each field in its own array)"
                        ),
                    ));
                }
            };
            return Ok(true);
        }
        if meta.path.is_ident("changes") {
            let value = meta.value()?.parse::<syn::LitBool>()?;
            changes = value.value;
            return Ok(true);
        }
        if !meta.path.is_ident("storage") {
            return Ok(false);
        }
        let storage = meta.value()?.parse::<syn::LitStr>()?;
        sparse = match storage.value().as_str() {
            "table" => false,
            "sparse" => true,
            other => {
                return Err(Error::new(
                    storage.span(),
                    format!(
                        "unknown storage `{other}`; use `\"table\"` (the default: fastest to iterate) \
                         or `\"sparse\"` (fastest to add and remove)"
                    ),
                ));
            }
        };
        Ok(true)
    })?;
    if let (Some(pod_span), Some((strategy, _))) = (pod, snapshot) {
        if strategy != Snapshot::Copy {
            return Err(Error::new(
                pod_span,
                "`pod` components are copied with `memcpy`; remove `snapshot = …` or make it `\"copy\"`",
            ));
        }
    }
    Ok(ComponentAttributes { krate, sparse, hooks, changes, immutable, hidden, snapshot, pod, split })
}

/// Reads `#[name(crate = path)]`, refusing any other key. Defaults to `::ecs_core`.
fn crate_attribute(input: &DeriveInput, name: &str) -> syn::Result<Path> {
    attribute_with(input, name, "the only key is `crate = \"path\"`", |_| Ok(false))
}

/// Reads `#[name(crate = path, ...)]`: `crate` here, every other key through
/// `other`, which returns `false` for a key it does not know (refused, naming
/// `keys`). Returns the crate path, `::ecs_core` by default.
fn attribute_with(
    input: &DeriveInput,
    name: &str,
    keys: &str,
    mut other: impl FnMut(&syn::meta::ParseNestedMeta<'_>) -> syn::Result<bool>,
) -> syn::Result<Path> {
    let mut krate: Path = syn::parse_quote!(::ecs_core);
    let mut errors = Errors::default();
    for attr in input.attrs.iter().filter(|a| a.path().is_ident(name)) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                krate = meta.value()?.parse::<syn::LitStr>()?.parse()?;
                Ok(())
            } else if other(&meta)? {
                Ok(())
            } else {
                Err(meta.error(format!("unknown key `{}` in `#[{name}(...)]`; {keys}", meta.path.to_token_stream())))
            }
        });
        if let Err(error) = result {
            errors.push(error);
        }
    }
    errors.finish()?;
    Ok(krate)
}

/// Several errors reported at once, so the user fixes them in one pass.
#[derive(Default)]
struct Errors(Option<Error>);

impl Errors {
    fn push(&mut self, error: Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    fn keep<T>(&mut self, result: syn::Result<T>) -> Option<T> {
        result.map_err(|e| self.push(e)).ok()
    }

    fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}
