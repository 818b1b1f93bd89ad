//! Validation: from the derive's [`Input`] to a checked description, with
//! every error spanned at the user's token that causes it.

use proc_macro::{Ident, Span, TokenStream};

use crate::error::{Error, Errors, Result};
use crate::meta::NestedMeta;
use crate::read::{Fields, Generics, Input, Kind, Member, ParamKind, Ty};

/// A type to implement `Component` for.
pub struct ComponentDef<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub krate: TokenStream,
    /// `#[component(storage = "sparse")]`.
    pub sparse: bool,
    /// `#[component(on_add = f, …)]`: each hook's key (`on_add`, `on_insert`,
    /// `on_discard`, `on_remove`, `on_despawn`) and function path.
    pub hooks: Vec<(Ident, TokenStream)>,
    /// `false` for `#[component(changes = false)]`.
    pub changes: bool,
    /// `#[component(immutable)]` (relationships and their targets always are).
    pub immutable: bool,
    /// The crate's own components: `#[diagnostic::do_not_recommend]` on the impl.
    pub hidden: bool,
    /// `#[relationship]`, `#[relationship_target]` and `#[entities]`.
    pub entities: crate::relation::EntityFields,
    /// `#[component(snapshot = "copy" | "clone" | "skip")]`, spanned at the value.
    pub snapshot: Option<(Snapshot, Span)>,
    /// `#[component(pod)]`, spanned at the key.
    pub pod: Option<Span>,
    /// `#[component(layout = "soa")]`: the fields, each stored in its own array.
    pub split: Option<Vec<SplitField<'a>>>,
    /// The type's visibility, given to the views of a per-field component.
    pub vis: &'a TokenStream,
    /// `#[component(describe)]`: the schema to generate.
    pub describe: Option<DescribeDef<'a>>,
    /// `#[require(…)]`: the components gained with this one.
    pub required: Vec<crate::require::Required>,
}

/// A field of a per-field component.
pub struct SplitField<'a> {
    pub member: Member,
    pub vis: &'a TokenStream,
    pub ty: &'a Ty,
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
    pub lifetime: &'a TokenStream,
    pub krate: TokenStream,
    pub fields: Vec<(&'a Ident, &'a Ty)>,
}

/// A struct to implement `Bundle` for.
pub struct BundleDef<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub krate: TokenStream,
    pub fields: Vec<(Member, &'a Ty)>,
}

/// A type to implement `Event` for.
pub struct EventDef<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub krate: TokenStream,
}

/// Each lifetime parameter's span and name (`'a`).
fn lifetimes(generics: &Generics) -> impl Iterator<Item = (Span, String)> + '_ {
    generics.params.iter().filter(|p| p.kind == ParamKind::Lifetime).map(|p| (p.span, p.name.to_string()))
}

pub fn event(input: &Input) -> Result<EventDef<'_>> {
    marker(input, "Event", "event", "observers run later and on other threads")
}

/// A type to implement `EntityEvent` (and `Event`) for, and the field
/// holding the entity it targets.
pub struct EntityEventDef<'a> {
    pub event: EventDef<'a>,
    pub target: Member,
    /// The target field's type, where a wrong one is reported.
    pub target_ty: &'a Ty,
    /// `#[entity_event(propagate)]`: the relationship whose target the event
    /// goes on to (`ChildOf` unless named).
    pub propagate: Option<TokenStream>,
    /// `#[entity_event(auto_propagate)]`: it goes on unless an observer stops it.
    pub auto_propagate: bool,
}

/// `#[derive(EntityEvent)]`: a struct whose target is its field named
/// `entity`, or the one field marked `#[event_target]`.
pub fn entity_event(input: &Input) -> Result<EntityEventDef<'_>> {
    let mut errors = Errors::default();
    let mut propagate = None;
    let mut auto_propagate = None;
    let keys = "the keys are `crate = \"path\"`, `propagate` (on to the entity's parent, along `ChildOf`), \
                `propagate = Relationship` (along another relationship) and `auto_propagate`";
    let event = errors.keep(marker_with(
        input,
        "EntityEvent",
        "entity_event",
        "observers run later and on other threads",
        keys,
        |meta| {
            if meta.is_ident("propagate") {
                let along = if meta.has_value() {
                    meta.value()?.path().map_err(|error| {
                        Error::new(
                            error.span(),
                            "`propagate` takes the relationship the event goes along: `propagate = ChildOf` (a path, \
                         not `&'static ChildOf`)",
                        )
                    })?
                } else {
                    "ChildOf".parse().expect("a path")
                };
                propagate = Some((along, meta.span()));
                return Ok(true);
            }
            if meta.is_ident("auto_propagate") {
                auto_propagate = Some(meta.span());
                return Ok(true);
            }
            Ok(false)
        },
    ));
    if let (Some(span), None) = (auto_propagate, &propagate) {
        errors.push(Error::new(
            span,
            "`auto_propagate` makes the event go on by itself, which needs `propagate` too: \
             `#[entity_event(propagate, auto_propagate)]`",
        ));
    }
    if input.kind != Kind::Struct {
        errors.push(Error::new(
            input.kind_span,
            "an `EntityEvent` is a struct holding the entity it targets in a field (`entity: Entity`, or a field \
             marked `#[event_target]`)",
        ));
        return Err(errors.finish().expect_err("an error was just pushed"));
    }
    let fields = input.fields.list();
    let marked: Vec<usize> =
        (0..fields.len()).filter(|&i| fields[i].attrs.iter().any(|a| a.is("event_target"))).collect();
    let found = match marked.as_slice() {
        [only] => Some(*only),
        [_, second, ..] => {
            errors
                .push(Error::new(fields[*second].span, "an event has one target: one field can be `#[event_target]`"));
            None
        }
        [] => {
            let named = fields.iter().position(|f| f.ident.as_ref().is_some_and(|i| i.to_string() == "entity"));
            if named.is_none() {
                errors.push(Error::new(
                    input.ident.span(),
                    format!(
                        "`{}` names no target entity: add a field `entity: Entity`, or mark the field holding the \
                         target with `#[event_target]`",
                        input.ident
                    ),
                ));
            }
            named
        }
    };
    errors.finish()?;
    let index = found.expect("no error");
    let event = event.expect("no error");
    // `ChildOf` from the crate the event names.
    let propagate = propagate.map(|(along, _)| {
        if along.to_string() == "ChildOf" {
            let krate = &event.krate;
            crate::tokens::code!("$krate::relationship::ChildOf", krate)
        } else {
            along
        }
    });
    Ok(EntityEventDef {
        event,
        target: fields[index].member(index),
        target_ty: &fields[index].ty,
        propagate,
        auto_propagate: auto_propagate.is_some(),
    })
}

pub fn message(input: &Input) -> Result<EventDef<'_>> {
    marker(input, "Message", "message", "readers run later and on other threads")
}

pub fn resource(input: &Input) -> Result<EventDef<'_>> {
    marker(input, "Resource", "resource", "systems on other threads borrow it")
}

/// A marker trait's type: no lifetime parameters; `#[attribute(crate = …)]`.
fn marker<'a>(input: &'a Input, name: &str, attribute: &str, why: &str) -> Result<EventDef<'a>> {
    marker_with(input, name, attribute, why, "the only key is `crate = \"path\"`", |_| Ok(false))
}

/// [`marker`] whose attribute takes other keys too, read by `other` (see
/// [`attribute_with`]).
fn marker_with<'a>(
    input: &'a Input,
    name: &str,
    attribute: &str,
    why: &str,
    keys: &str,
    other: impl FnMut(&mut NestedMeta<'_>) -> Result<bool>,
) -> Result<EventDef<'a>> {
    let mut errors = Errors::default();
    for (span, lifetime) in lifetimes(&input.generics) {
        errors.push(Error::new(
            span,
            format!(
                "a `{name}` must be `Send + Sync + 'static` ({why}): remove the lifetime `{lifetime}` and store \
                 owned data (or an `Entity`) instead"
            ),
        ));
    }
    let krate = errors.keep(attribute_with(input, attribute, keys, other));
    errors.finish()?;
    Ok(EventDef { ident: &input.ident, generics: &input.generics, krate: krate.expect("no error") })
}

/// A type to implement `SystemSet` for.
pub struct SystemSetDef<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub krate: TokenStream,
}

pub fn system_set(input: &Input) -> Result<SystemSetDef<'_>> {
    let mut errors = Errors::default();
    if input.kind == Kind::Union {
        errors.push(Error::new(
            input.kind_span,
            "`SystemSet` cannot be derived for a union: a set is compared by value; use a unit struct or an enum",
        ));
    }
    for (span, lifetime) in lifetimes(&input.generics) {
        errors.push(Error::new(
            span,
            format!("a `SystemSet` is kept by the schedule, so it must be `'static`: remove the lifetime `{lifetime}`"),
        ));
    }
    let krate = errors.keep(crate_attribute(input, "system_set"));
    errors.finish()?;
    Ok(SystemSetDef { ident: &input.ident, generics: &input.generics, krate: krate.expect("no error") })
}

pub fn component(input: &Input) -> Result<ComponentDef<'_>> {
    let mut errors = Errors::default();
    if input.kind == Kind::Union {
        errors.push(Error::new(
            input.kind_span,
            "`Component` cannot be derived for a union: the world could not know which field to drop; \
             wrap the union in a struct that knows",
        ));
    }
    for (span, lifetime) in lifetimes(&input.generics) {
        errors.push(Error::new(
            span,
            format!(
                "`Component` requires `Send + Sync + 'static`, so a component cannot borrow: \
                 remove the lifetime `{lifetime}` and store owned data (or an `Entity`) instead"
            ),
        ));
    }
    let attributes = errors.keep(component_attributes(input));
    let entities = errors.keep(crate::relation::parse(input));
    if let (Some(attributes), Some(entities)) = (&attributes, &entities) {
        let reserved: &[&str] = match entities.relation {
            crate::relation::Relation::None => &[],
            crate::relation::Relation::Source { .. } => &["on_insert", "on_discard"],
            crate::relation::Relation::Target { .. } => &["on_insert", "on_discard", "on_despawn"],
        };
        if let (false, Some((Snapshot::Skip, span))) =
            (matches!(entities.relation, crate::relation::Relation::None), attributes.snapshot)
        {
            errors.push(Error::new(
                span,
                "a relationship (or its target) cannot be left out of snapshots: a restore would bring back \
                 the other side alone, listing links that are not there; derive `Clone` (or `Clone, Copy`) \
                 instead",
            ));
        }
        for (key, _) in &attributes.hooks {
            let key = key.to_string();
            if reserved.contains(&key.as_str()) {
                let event = key[3..].split('_').map(|w| w[..1].to_uppercase() + &w[1..]).collect::<String>();
                errors.push(Error::new(
                    attributes.hooks.iter().find(|(k, _)| k.to_string() == key).expect("listed").0.span(),
                    format!(
                        "`{key}` is taken by the relationship's upkeep (it keeps both sides in step); \
                         observe `On{event}` for this component instead"
                    ),
                ));
            }
        }
    }
    let describe = match &attributes {
        Some(ComponentAttributes { describe: true, krate, .. }) => errors.keep(describe(input, krate.clone())),
        _ => None,
    };
    let split = match (&attributes, &entities) {
        (Some(ComponentAttributes { split: Some(span), sparse, .. }), Some(entities)) => {
            errors.keep(split_fields(input, *span, *sparse, entities))
        }
        _ => None,
    };
    let required = errors.keep(crate::require::parse(input));
    errors.finish()?;
    let ComponentAttributes { krate, sparse, hooks, changes, immutable, hidden, snapshot, pod, split: _, describe: _ } =
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
        describe,
        required: required.expect("no error"),
    })
}

/// The fields of a `#[component(layout = "soa")]` type (`span` is the
/// layout's value): a struct with at least one field, none borrowing, not
/// generic, stored in tables, not a relationship.
fn split_fields<'a>(
    input: &'a Input,
    span: Span,
    sparse: bool,
    entities: &crate::relation::EntityFields,
) -> Result<Vec<SplitField<'a>>> {
    match input.kind {
        Kind::Struct => {}
        Kind::Enum => {
            return Err(Error::new(
                input.kind_span,
                "`layout = \"soa\"` stores each field of a struct in its own array, but an enum's variants \
                 share one place: remove the attribute, or make the component a struct",
            ));
        }
        Kind::Union => {
            return Err(Error::new(
                input.kind_span,
                "`layout = \"soa\"` stores each field of a struct in its own array, but a union's fields \
                 overlap: make the component a struct",
            ));
        }
    }
    let fields = input.fields.list();
    let mut errors = Errors::default();
    refuse_packed(
        input,
        &mut errors,
        "`layout = \"soa\"` reads each field in place, and a packed struct's fields may be unaligned: \
         remove `packed` (each field gets its own array anyway)",
    );
    for field in fields {
        if let Some((span, lifetime)) = field.ty.borrowed_lifetime() {
            errors.push(Error::new(
                span,
                format!(
                    "a per-field component's fields live in the world's arrays, so they must own their data \
                     (`'static`): `{}` borrows for `{lifetime}`",
                    field.ty.text()
                ),
            ));
        }
    }
    errors.finish()?;
    if fields.is_empty() {
        return Err(Error::new(span, "`layout = \"soa\"` splits a struct's fields, and this one has none"));
    }
    if !input.generics.is_empty() {
        return Err(Error::new(
            input.generics.span,
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
        .map(|(i, field)| SplitField { member: field.member(i), vis: &field.vis, ty: &field.ty })
        .collect())
}

pub fn bundle(input: &Input) -> Result<BundleDef<'_>> {
    let mut errors = Errors::default();
    let krate = errors.keep(crate_attribute(input, "bundle"));
    match input.kind {
        Kind::Struct => {}
        Kind::Enum => {
            return Err(Error::new(
                input.kind_span,
                "`Bundle` cannot be derived for an enum: a bundle always holds all of its components; \
                 derive `Component` to store the enum as one component",
            ));
        }
        Kind::Union => {
            return Err(Error::new(input.kind_span, "`Bundle` cannot be derived for a union; use a struct"));
        }
    }
    let fields: Vec<(Member, &Ty)> =
        input.fields.list().iter().enumerate().map(|(i, f)| (f.member(i), &f.ty)).collect();
    for (i, (member, ty)) in fields.iter().enumerate() {
        let written = ty.text();
        if let Some((first, _)) = fields[..i].iter().find(|(_, t)| t.text() == written) {
            errors.push(Error::new(
                ty.span(),
                format!(
                    "fields `{}` and `{}` both have type `{written}`: an entity holds at most one value \
                     of each component type",
                    first.display(),
                    member.display()
                ),
            ));
        }
    }
    errors.finish()?;
    Ok(BundleDef { ident: &input.ident, generics: &input.generics, krate: krate.expect("no error"), fields })
}

/// The named fields of a struct deriving `what`, or the error for any other shape.
fn named_fields<'a>(input: &'a Input, what: &str, example: &str) -> Result<Vec<(&'a Ident, &'a Ty)>> {
    match (input.kind, &input.fields) {
        (Kind::Struct, Fields::Named(fields, _)) => {
            Ok(fields.iter().map(|f| (f.ident.as_ref().expect("named field"), &f.ty)).collect())
        }
        (Kind::Struct, fields) => Err(Error::new(fields.span(), format!("`{what}` needs named fields: `{example}`"))),
        (Kind::Enum, _) => Err(Error::new(input.kind_span, format!("`{what}` cannot be derived for an enum"))),
        (Kind::Union, _) => Err(Error::new(input.kind_span, format!("`{what}` cannot be derived for a union"))),
    }
}

/// The one lifetime parameter of a query or system parameter struct.
fn one_lifetime<'a>(input: &'a Input, what: &str, example: &str) -> Result<&'a TokenStream> {
    let mut lifetimes = input.generics.params.iter().filter(|p| p.kind == ParamKind::Lifetime);
    match (lifetimes.next(), lifetimes.next()) {
        (Some(lifetime), None) => Ok(&lifetime.name),
        _ => Err(Error::new(
            input.ident.span(),
            format!("`{what}` needs exactly one lifetime parameter, the world borrow: `{example}`"),
        )),
    }
}

pub fn query(input: &Input) -> Result<QueryDef<'_>> {
    let mut errors = Errors::default();
    let krate = errors.keep(crate_attribute(input, "query"));
    let fields = named_fields(input, "QueryData", "struct Movement<'w> { pos: &'w mut Position, vel: &'w Velocity }")?;
    let lifetime = one_lifetime(input, "QueryData", "struct Movement<'w> { … }")?;
    let lifetime_name = lifetime.to_string().trim_start_matches('\'').trim().to_string();
    if let Some(param) = input.generics.params.iter().find(|p| p.kind == ParamKind::Type) {
        errors.push(Error::new(param.span, "`QueryData` structs cannot have type parameters"));
    }
    if let Some(param) = input.generics.params.iter().find(|p| p.kind == ParamKind::Const) {
        errors.push(Error::new(param.span, "`QueryData` structs cannot have const parameters"));
    }
    let mut borrows: Vec<(&Ident, String, bool)> = Vec::new();
    for &(ident, ty) in &fields {
        let Some(reference) = ty.component_borrow() else { continue };
        let borrowed = reference.elem.text();
        let mutable = reference.mutable;
        match &reference.lifetime {
            Some((name, _)) if *name == lifetime_name => {}
            other => errors.push(Error::new(
                other.as_ref().map_or(reference.and_span, |(_, span)| *span),
                format!(
                    "field `{ident}` must borrow for the query lifetime: write `&{lifetime} {}{}`",
                    if mutable { "mut " } else { "" },
                    borrowed
                ),
            )),
        }
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
    pub lifetime: &'a TokenStream,
    pub krate: TokenStream,
    pub fields: Vec<(&'a Ident, &'a Ty)>,
}

pub fn system_param(input: &Input) -> Result<SystemParamDef<'_>> {
    let mut errors = Errors::default();
    let krate = errors.keep(crate_attribute(input, "system_param"));
    let fields =
        named_fields(input, "SystemParam", "struct Physics<'w> { bodies: Query<'w, …>, g: Res<'w, Gravity> }")?;
    let lifetime = one_lifetime(input, "SystemParam", "struct Physics<'w> { … }")?;
    if let Some(param) = input.generics.params.iter().find(|p| p.kind == ParamKind::Type) {
        errors.push(Error::new(param.span, "`SystemParam` structs cannot have type parameters"));
    }
    for (_, ty) in &fields {
        for reference in ty.borrowed_query_items() {
            let (name, span) = reference.lifetime.as_ref().expect("filtered on a named lifetime");
            let mutability = if reference.mutable { "mut " } else { "" };
            let item = reference.elem.text();
            errors.push(Error::new(
                *span,
                format!(
                    "query items in a `SystemParam` struct borrow for `'static`: write `&'static {mutability}{item}` \
                     (the query's own `'{name}` already carries the borrow of the world; the item type only names \
                     what is fetched)"
                ),
            ));
        }
    }
    errors.finish()?;
    Ok(SystemParamDef { ident: &input.ident, lifetime, krate: krate.expect("no error"), fields })
}

/// Reads `#[component(crate = "path", storage = "table" | "sparse")]`, refusing any
/// other key or storage.
struct ComponentAttributes {
    krate: TokenStream,
    sparse: bool,
    hooks: Vec<(Ident, TokenStream)>,
    changes: bool,
    immutable: bool,
    hidden: bool,
    snapshot: Option<(Snapshot, Span)>,
    pod: Option<Span>,
    /// `layout = "soa"`, spanned at the value.
    split: Option<Span>,
    /// `describe`.
    describe: bool,
}

/// The hook keys of `#[component(...)]`, in the order bevy_ecs documents them.
const HOOK_KEYS: [&str; 5] = ["on_add", "on_insert", "on_discard", "on_remove", "on_despawn"];

fn component_attributes(input: &Input) -> Result<ComponentAttributes> {
    let mut sparse = false;
    let mut hooks: Vec<(Ident, TokenStream)> = Vec::new();
    let mut changes = true;
    let mut immutable = false;
    let mut hidden = false;
    let mut snapshot = None;
    let mut pod = None;
    let mut split = None;
    let mut describe = false;
    let keys = "the keys are `crate = \"path\"`, `storage = \"table\" | \"sparse\"`, `layout = \"aos\" | \"soa\"`, \
                `changes = false`, `immutable`, `describe`, `snapshot = \"copy\" | \"clone\" | \"skip\"`, `pod` and the hooks `on_add`, `on_insert`, `on_discard`, `on_remove`, `on_despawn` (each `= path::to_fn`)";
    let krate = attribute_with(input, "component", keys, |meta| {
        if let Some(key) = HOOK_KEYS.iter().find(|k| meta.is_ident(k)) {
            let ident = meta.path[0].clone();
            if hooks.iter().any(|(seen, _)| seen.to_string() == *key) {
                return Err(meta.error(format!("`{key}` is given twice; a component has one `{key}` hook")));
            }
            let function = meta.value()?.path().map_err(|error| {
                Error::new(
                    error.span(),
                    format!("`{key}` takes the path of a function `fn(DeferredWorld, HookContext)`: `{key} = my_hook`"),
                )
            })?;
            hooks.push((ident, function));
            return Ok(true);
        }
        if meta.is_ident("on_replace") {
            return Err(meta.error(
                "the hook `on_replace` is called `on_discard` (bevy_ecs renamed it in 0.20): `on_discard = my_hook`",
            ));
        }
        // Unlisted: the crate's own components, kept out of users' error messages.
        if meta.is_ident("__do_not_recommend") {
            hidden = true;
            return Ok(true);
        }
        if meta.is_ident("immutable") {
            immutable = true;
            return Ok(true);
        }
        if meta.is_ident("describe") {
            describe = true;
            return Ok(true);
        }
        if meta.is_ident("pod") {
            pod = Some(meta.span());
            return Ok(true);
        }
        if meta.is_ident("snapshot") {
            let (value, span) = meta.value()?.lit_str()?;
            let strategy = match value.as_str() {
                "copy" => Snapshot::Copy,
                "clone" => Snapshot::Clone,
                "skip" => Snapshot::Skip,
                other => {
                    return Err(Error::new(
                        span,
                        format!(
                            "unknown snapshot strategy `{other}`; use `\"copy\"` (a `Copy` type, copied with \
                             `memcpy`), `\"clone\"` (a `Clone` type) or `\"skip\"` (left out of snapshots)"
                        ),
                    ));
                }
            };
            snapshot = Some((strategy, span));
            return Ok(true);
        }
        if meta.is_ident("layout") {
            let (value, span) = meta.value()?.lit_str()?;
            split = match value.as_str() {
                "aos" => None,
                "soa" => Some(span),
                other => {
                    return Err(Error::new(
                        span,
                        format!(
                            "unknown layout `{other}`; use `\"aos\"` (the default: each value whole) or \
                             `\"soa\"` (each field in its own array)"
                        ),
                    ));
                }
            };
            return Ok(true);
        }
        if meta.is_ident("changes") {
            changes = meta.value()?.lit_bool()?;
            return Ok(true);
        }
        if !meta.is_ident("storage") {
            return Ok(false);
        }
        let (storage, span) = meta.value()?.lit_str()?;
        sparse = match storage.as_str() {
            "table" => false,
            "sparse" => true,
            other => {
                return Err(Error::new(
                    span,
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
    Ok(ComponentAttributes { krate, sparse, hooks, changes, immutable, hidden, snapshot, pod, split, describe })
}

/// Reads `#[name(crate = path)]`, refusing any other key. Defaults to `::ecs_core`.
fn crate_attribute(input: &Input, name: &str) -> Result<TokenStream> {
    attribute_with(input, name, "the only key is `crate = \"path\"`", |_| Ok(false))
}

/// Reads `#[name(crate = path, ...)]`: `crate` here, every other key through
/// `other`, which returns `false` for a key it does not know (refused, naming
/// `keys`). Returns the crate path, `::ecs_core` by default.
fn attribute_with(
    input: &Input,
    name: &str,
    keys: &str,
    mut other: impl FnMut(&mut NestedMeta<'_>) -> Result<bool>,
) -> Result<TokenStream> {
    let mut krate: TokenStream = "::ecs_core".parse().expect("a path");
    let mut errors = Errors::default();
    for attr in input.attrs.iter().filter(|a| a.is(name)) {
        let result = crate::meta::parse_nested(attr, |meta| {
            if meta.is_ident("crate") {
                krate = meta.value()?.path_in_string()?;
                Ok(())
            } else if other(meta)? {
                Ok(())
            } else {
                Err(meta.error(format!("unknown key `{}` in `#[{name}(...)]`; {keys}", meta.path_text())))
            }
        });
        if let Err(error) = result {
            errors.push(error);
        }
    }
    errors.finish()?;
    Ok(krate)
}

/// A type to implement `Describe` for: its fields, or its variants.
pub struct DescribeDef<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub krate: TokenStream,
    pub shape: DescribeShape<'a>,
}

/// What a described type is made of.
pub enum DescribeShape<'a> {
    /// A struct's fields (none for a unit struct): how to reach each, its name
    /// in the schema, its type.
    Struct(Vec<(Member, String, &'a Ty)>),
    /// A field-less enum's variant names.
    Enum(Vec<Ident>),
}

/// `#[derive(Describe)]` (or `#[component(describe)]`): a struct, or an enum
/// whose variants hold no data; no lifetimes.
pub fn describe<'a>(input: &'a Input, krate: TokenStream) -> Result<DescribeDef<'a>> {
    let mut errors = Errors::default();
    refuse_packed(
        input,
        &mut errors,
        "a described type's fields are read and written in place, and a packed struct's fields may be \
         unaligned: remove `packed`",
    );
    for (span, lifetime) in lifetimes(&input.generics) {
        errors.push(Error::new(
            span,
            format!("a described type is `'static` (its schema is): remove the lifetime `{lifetime}`"),
        ));
    }
    let shape = match input.kind {
        Kind::Union => {
            errors.push(Error::new(
                input.kind_span,
                "`Describe` cannot be derived for a union: which field holds a value is not known",
            ));
            None
        }
        Kind::Enum => errors.keep(fieldless_variants(input)).map(DescribeShape::Enum),
        Kind::Struct => Some(DescribeShape::Struct(
            input
                .fields
                .list()
                .iter()
                .enumerate()
                .map(|(index, field)| {
                    let name = field.ident.as_ref().map_or_else(|| index.to_string(), raw_name);
                    (field.member(index), name, &field.ty)
                })
                .collect(),
        )),
    };
    errors.finish()?;
    Ok(DescribeDef { ident: &input.ident, generics: &input.generics, krate, shape: shape.expect("no error") })
}

/// The field's name as a schema spells it: `r#type` is `type`.
fn raw_name(ident: &Ident) -> String {
    let name = ident.to_string();
    name.strip_prefix("r#").map_or(name.clone(), str::to_owned)
}

/// The variants of an enum, each of which must hold no data.
fn fieldless_variants(input: &Input) -> Result<Vec<Ident>> {
    use proc_macro::TokenTree;
    let body = input.enum_body.as_ref().expect("an enum has a body");
    let mut variants = Vec::new();
    let mut errors = Errors::default();
    let mut tokens = body.stream().into_iter().peekable();
    while tokens.peek().is_some() {
        // Attributes (`#[…]`, doc comments) before the variant.
        while matches!(tokens.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '#') {
            tokens.next();
            tokens.next();
        }
        let Some(TokenTree::Ident(name)) = tokens.next() else { break };
        match tokens.peek() {
            Some(TokenTree::Group(group)) => {
                errors.push(Error::new(
                    group.span(),
                    format!(
                        "`Describe` describes enums whose variants hold no data; `{name}` holds some: describe a \
                         struct instead, or give the data its own component"
                    ),
                ));
            }
            _ => variants.push(name),
        }
        // Skip to the next top-level comma (past `= discriminant` and a group).
        for token in tokens.by_ref() {
            if matches!(&token, TokenTree::Punct(p) if p.as_char() == ',') {
                break;
            }
        }
    }
    errors.finish()?;
    Ok(variants)
}

/// `#[derive(Describe)]`'s own attribute: `#[describe(crate = path)]`.
pub fn describe_derive(input: &Input) -> Result<DescribeDef<'_>> {
    let krate = crate_attribute(input, "describe")?;
    describe(input, krate)
}

/// Refuses `#[repr(packed)]` (any `repr` list naming `packed`), spanned at the
/// attribute: code that reads fields in place needs them aligned.
fn refuse_packed(input: &Input, errors: &mut Errors, message: &str) {
    for attr in input.attrs.iter().filter(|a| a.is("repr")) {
        let packed = match &attr.meta {
            crate::read::Meta::List(group) => group.stream().to_string().contains("packed"),
            _ => false,
        };
        if packed {
            errors.push(Error::new(attr.span(), message));
        }
    }
}
