//! `#[derive(Component)]` expansion.

use proc_macro::{Ident, Span, TokenStream, TokenTree};

use crate::read::{Generics, Member};
use crate::relation::{EntityFields, Relation};
use crate::tokens::code;
use crate::validate::{ComponentDef, Snapshot};

pub fn component(def: ComponentDef<'_>) -> TokenStream {
    let ComponentDef {
        ident,
        generics,
        krate,
        sparse,
        mut hooks,
        changes,
        immutable,
        hidden,
        entities,
        snapshot,
        pod,
        split,
        vis,
        describe,
        required,
    } = def;
    // Writable by id exactly when `MutableComponent` is implemented below (not
    // immutable, not a relationship or target).
    let writable = !immutable && matches!(entities.relation, Relation::None);
    let describe_bound = describe.is_some() && !generics.is_empty();
    let (describe_impl, kind) = match describe {
        Some(describe) => (
            crate::expand::describe(describe),
            code!(
                "const __KIND: ::core::option::Option<$krate::component::FieldKind> =
                    ::core::option::Option::Some(<Self as $krate::component::Describe>::KIND);",
                krate
            ),
        ),
        None => (TokenStream::new(), TokenStream::new()),
    };
    let kind = code!("$kind const __MUTABLE: bool = $writable;", kind, writable);
    let is_target = matches!(entities.relation, Relation::Target { .. });
    let relation = relation_items(&krate, ident, generics, &entities, &mut hooks, hidden);
    let immutable = immutable || !matches!(entities.relation, Relation::None);
    let hidden = do_not_recommend(hidden);
    let impl_generics = generics.impl_generics();
    let ty_generics = generics.ty_generics();
    // `Self: Component` rather than the component's own bounds: a type that
    // fails them (not `Send`, say) is then reported through its `Component` impl,
    // naming the field at fault, instead of as "not a bundle".
    let bundle_where = generics.where_clause(&[code!("Self: $krate::Component", krate)]);
    let mut bounds = Vec::new();
    if describe_bound {
        // `__KIND` names `Self`'s schema, which a generic type has when its
        // parameters describe themselves.
        bounds.push(code!("Self: $krate::component::Describe", krate));
    }
    let id_cell = if generics.is_empty() {
        // A `static` inside a generic impl would be shared by every instantiation, so
        // only non-generic types get the cached id.
        let lookup_hash = proc_macro::Literal::u32_unsuffixed(name_hash(&ident.to_string()));
        code!(
            "#[inline(always)]
            fn __id_cell() -> ::core::option::Option<&'static $krate::__private::ComponentIdCell<Self>> {
                static __ECS_COMPONENT_ID: $krate::__private::ComponentIdCell<$ident> =
                    $krate::__private::ComponentIdCell::new();
                ::core::option::Option::Some(&__ECS_COMPONENT_ID)
            }
            const __LOOKUP_HASH: ::core::option::Option<u32> = ::core::option::Option::Some($lookup_hash);",
            krate,
            ident,
            lookup_hash
        )
    } else {
        // Bounds on the type's own parameters are carried over; whether an
        // instantiation is `Send + Sync + 'static` is checked where it is used.
        bounds.push(code!("Self: ::core::marker::Send + ::core::marker::Sync + 'static"));
        TokenStream::new()
    };
    // Spanned at the type's name, so "`Rc<u8>` cannot be sent between threads safely …
    // required by a bound in `Component`" points at the user's type.
    let impl_head = code!(ident.span() => "impl $impl_generics $krate::Component for $ident $ty_generics", impl_generics, krate, ident, ty_generics);
    let storage = if sparse {
        code!("const STORAGE: $krate::StorageType = $krate::StorageType::Sparse;", krate)
    } else {
        TokenStream::new()
    };
    let hooks = if hooks.is_empty() {
        TokenStream::new()
    } else {
        // Each function is spanned at its path, so a wrong signature is reported
        // there ("expected fn pointer `fn(DeferredWorld<'_>, HookContext)`").
        let fields: Vec<TokenStream> = hooks
            .iter()
            .map(|(key, function)| {
                code!(first_span(function) => "$key: ::core::option::Option::Some($function),", key, function)
            })
            .collect();
        code!(
            "#[allow(clippy::needless_update, reason = \"a component may declare all five hooks\")]
            const HOOKS: $krate::component::ComponentHooks = $krate::component::ComponentHooks {
                $fields
                ..$krate::component::ComponentHooks::NONE
            };",
            krate,
            fields
        )
    };
    let changes_item = if changes { TokenStream::new() } else { code!("const CHANGES: bool = false;") };
    let fields_fn = if split.is_some() {
        code!(
            "#[inline(always)]
            fn __fields() -> ::core::option::Option<$krate::component::FieldLayout> {
                ::core::option::Option::Some($krate::component::FieldLayout::of::<Self>())
            }",
            krate
        )
    } else {
        TokenStream::new()
    };
    // The marker impls below do not need a declared snapshot strategy's bound
    // (`Self: Copy`, …); only the `Component` impl gets it.
    let where_clause = generics.where_clause(&bounds);
    let snapshot = snapshot_strategy(&krate, generics.is_empty(), is_target, snapshot, pod, &mut bounds);
    let component_where = generics.where_clause(&bounds);
    let tracked = if changes {
        code!(
            "#[automatically_derived]
            $hidden
            impl $impl_generics $krate::component::ChangeTracked for $ident $ty_generics $where_clause {}",
            hidden,
            impl_generics,
            krate,
            ident,
            ty_generics,
            where_clause
        )
    } else {
        TokenStream::new()
    };
    let mutable = if immutable {
        TokenStream::new()
    } else {
        // SAFETY (of the emitted impl): neither a relationship nor a relationship
        // target (those are immutable, so this impl is not emitted for them).
        code!(
            "#[automatically_derived]
            $hidden
            unsafe impl $impl_generics $krate::component::MutableComponent for $ident $ty_generics $where_clause {}",
            hidden,
            impl_generics,
            krate,
            ident,
            ty_generics,
            where_clause
        )
    };
    let (views, layout_impls) = match &split {
        Some(fields) => crate::expand::split::per_field(&krate, ident, vis, fields, immutable),
        // SAFETY (of the emitted impl): `__fields` is the default `None`: values
        // are stored whole.
        None => (
            TokenStream::new(),
            code!(
                "#[automatically_derived]
                $hidden
                unsafe impl $impl_generics $krate::component::WholeComponent for $ident $ty_generics $where_clause {}",
                hidden,
                impl_generics,
                krate,
                ident,
                ty_generics,
                where_clause
            ),
        ),
    };
    let RelationItems { mut component_items, impls } = relation;
    component_items.extend(required_items(&krate, &required));
    // The `Bundle` impl is not `do_not_recommend`: rustc would then report a
    // generic component that fails its bounds as "not a bundle" rather than
    // name the bound (and `#![no_implicit_prelude]` crates cannot name
    // `diagnostic`). It is sound because its items visit this one component in
    // every method, as the type registered for it.
    code!(
        "$views
        const _: () = {
            #[automatically_derived]
            $hidden
            $impl_head $component_where {
                $storage
                $changes_item
                $hooks
                $id_cell
                $component_items
                $snapshot
                $fields_fn
                $kind
            }
            #[automatically_derived]
            unsafe impl $impl_generics $krate::Bundle for $ident $ty_generics $bundle_where {
                $krate::__component_bundle_items!();
            }
            $tracked
            $mutable
            $impls
            $layout_impls
        };
        $describe_impl",
        views,
        hidden,
        impl_head,
        component_where,
        storage,
        changes_item,
        hooks,
        id_cell,
        component_items,
        snapshot,
        fields_fn,
        impl_generics,
        krate,
        ident,
        ty_generics,
        bundle_where,
        tracked,
        mutable,
        impls,
        layout_impls,
        kind,
        describe_impl
    )
}

/// `#[diagnostic::do_not_recommend]` for the crate's own components.
fn do_not_recommend(hidden: bool) -> TokenStream {
    if hidden { code!("#[diagnostic::do_not_recommend]") } else { TokenStream::new() }
}

/// `Component::snapshot_strategy`: the declared strategy, or for an undeclared
/// one, the first of copy / clone / unsupported the type allows (see
/// `ecs_core::component::SnapshotStrategy`). A generic component declaring one gets the
/// matching bound on its impl, added to `bounds`.
fn snapshot_strategy(
    krate: &TokenStream,
    concrete: bool,
    is_target: bool,
    snapshot: Option<(Snapshot, Span)>,
    pod: Option<Span>,
    bounds: &mut Vec<TokenStream>,
) -> TokenStream {
    let s = code!("$krate::component::SnapshotStrategy", krate);
    let mut bound = |span: Span, bound: TokenStream| {
        if !concrete {
            bounds.push(code!(span => "Self: $bound", bound));
        }
    };
    let body = match (snapshot, pod) {
        (_, Some(span)) => {
            bound(span, code!("$krate::bytemuck::Pod", krate));
            code!(span => "$s::pod()", s)
        }
        (Some((Snapshot::Skip, span)), None) => code!(span => "$s::skip()", s),
        (Some((Snapshot::Copy, span)), None) => {
            bound(span, code!("::core::marker::Copy"));
            code!(span => "$s::copy()", s)
        }
        (Some((Snapshot::Clone, span)), None) => {
            bound(span, code!("::core::clone::Clone"));
            code!(span => "$s::cloned()", s)
        }
        (None, None) if is_target => code!("$s::relationship_target()", s),
        (None, None) => code!(
            "#[allow(unused_imports)]
            use $krate::__private::{ProbeClone as _, ProbeCopy as _, ProbeNone as _};
            (&&&$krate::__private::Probe::<Self>::NEW).__snapshot_strategy()",
            krate
        ),
    };
    // `#[inline]`: compiled where the component is registered, not eagerly
    // in every crate that derives one.
    code!(
        "#[inline]
        fn snapshot_strategy() -> $s<Self> {
            $body
        }",
        s,
        body
    )
}

/// `#[require(…)]`: the items of `Component` that insert what is required.
fn required_items(krate: &TokenStream, required: &[crate::require::Required]) -> TokenStream {
    if required.is_empty() {
        return TokenStream::new();
    }
    let p = code!("$krate::__private", krate);
    let mut inserts = TokenStream::new();
    for entry in required {
        let ty = &entry.ty;
        let value = match &entry.value {
            Some(value) => value.clone(),
            None => code!(entry.span => "<$ty as ::core::default::Default>::default()", ty),
        };
        // Spanned at the entry: a type that is not a component, or a value
        // of another type, is reported on the attribute.
        inserts.extend(code!(entry.span =>
            "$p::insert_required::<$ty>(__world, __entity, || -> $ty { $value });", p, ty, value));
    }
    code!(
        "const __REQUIRES: bool = true;
        fn __insert_required(__world: &mut $krate::World, __entity: $krate::Entity) {
            $inserts
        }",
        krate,
        inserts
    )
}

/// What a relationship, a relationship target or `#[entities]` fields add: items
/// inside the `Component` impl, and impls beside it.
struct RelationItems {
    component_items: TokenStream,
    impls: TokenStream,
}

fn relation_items(
    krate: &TokenStream,
    ident: &Ident,
    generics: &Generics,
    entities: &EntityFields,
    hooks: &mut Vec<(Ident, TokenStream)>,
    hidden: bool,
) -> RelationItems {
    let hidden = do_not_recommend(hidden);
    let impl_generics = generics.impl_generics();
    let ty_generics = generics.ty_generics();
    let where_clause = generics.where_clause(&[]);
    let r = code!("$krate::relationship", krate);
    let p = code!("$krate::__private", krate);
    let mut mapped: Vec<&Member> = entities.entities.iter().collect();
    let mut component_items = TokenStream::new();
    let mut impls = TokenStream::new();
    let mut hook = |key: &str, path: TokenStream| hooks.push((Ident::new(key, ident.span()), path));
    match &entities.relation {
        Relation::None => {}
        Relation::Source { target, field, others } => {
            mapped.push(field);
            hook("on_insert", code!("$p::relationship_on_insert::<Self>", p));
            hook("on_discard", code!("$p::relationship_on_discard::<Self>", p));
            component_items.extend(code!(
                "const __RELINK: ::core::option::Option<fn(&mut $krate::World, $krate::Entity)> =
                    ::core::option::Option::Some($p::relationship_relink::<Self>);
                const __LINKS: bool = true;
                fn __check_links(
                    &self,
                    __world: &$krate::World,
                    __entity: ::core::option::Option<$krate::Entity>,
                ) -> ::core::result::Result<(), $krate::EcsError> {
                    $p::check_link::<Self>(__world, __entity, self.$field)
                }
                #[inline]
                fn __replace_link(
                    self,
                    __world: &mut $krate::World,
                    __entity: $krate::Entity,
                ) -> ::core::result::Result<(), Self> {
                    $p::relationship_replace::<Self>(__world, __entity, self)
                }",
                krate,
                p,
                field
            ));
            let span = first_span(target);
            let defaults: Vec<TokenStream> =
                others.iter().map(|other| code!("$other: ::core::default::Default::default(),", other)).collect();
            // SAFETY (of the emitted impl): `get` reads the `Entity` field, nothing else.
            impls.extend(code!(span =>
                "#[automatically_derived]
                $hidden
                unsafe impl $impl_generics $r::Relationship for $ident $ty_generics $where_clause {
                    type Target = $target;
                    #[inline]
                    fn get(&self) -> $krate::Entity {
                        self.$field
                    }
                    #[allow(clippy::init_numbered_fields, reason = \"the struct may be a tuple struct\")]
                    fn from(__target: $krate::Entity) -> Self {
                        Self { $field: __target, $defaults }
                    }
                }",
                hidden,
                impl_generics,
                r,
                ident,
                ty_generics,
                where_clause,
                target,
                krate,
                field,
                defaults
            ));
        }
        Relation::Target { relationship, field, linked } => {
            mapped.push(field);
            hook("on_insert", code!("$p::target_on_insert::<Self>", p));
            hook("on_discard", code!("$p::target_on_discard::<Self>", p));
            hook("on_despawn", code!("$p::target_on_despawn::<Self>", p));
            component_items.extend(code!(
                "const __RELINK: ::core::option::Option<fn(&mut $krate::World, $krate::Entity)> =
                    ::core::option::Option::Some($p::target_relink::<Self>);",
                krate,
                p
            ));
            let span = first_span(relationship);
            impls.extend(code!(span =>
                "#[automatically_derived]
                $hidden
                impl $impl_generics $r::RelationshipTarget for $ident $ty_generics $where_clause {
                    type Relationship = $relationship;
                    const LINKED_SPAWN: bool = $linked;
                    #[inline]
                    fn sources(&self) -> &[$krate::Entity] {
                        $r::RelationshipSourceCollection::as_slice(&self.$field)
                    }
                    fn __sources(&self) -> &dyn $r::RelationshipSourceCollection {
                        &self.$field
                    }
                    fn __sources_mut(&mut self) -> &mut dyn $r::RelationshipSourceCollection {
                        &mut self.$field
                    }
                    #[allow(clippy::init_numbered_fields, reason = \"the struct may be a tuple struct\")]
                    fn __from_sources(__sources: ::std::vec::Vec<$krate::Entity>) -> Self {
                        Self { $field: $r::RelationshipSourceCollection::__from_vec(__sources) }
                    }
                }",
                hidden,
                impl_generics,
                r,
                ident,
                ty_generics,
                where_clause,
                relationship,
                linked,
                krate,
                field
            ));
        }
    }
    if mapped.is_empty() {
        // Lets a load skip the component when it looks for entities to remap.
        component_items.extend(code!("const __MAPS_ENTITIES: bool = false;"));
    } else {
        let maps: Vec<TokenStream> = mapped
            .iter()
            .map(|member| code!("$krate::entity::MapEntities::map_entities(&mut self.$member, __map);", krate, member))
            .collect();
        let visits: Vec<TokenStream> = mapped
            .iter()
            .map(|member| code!("$krate::entity::MapEntities::visit_entities(&self.$member, __f);", krate, member))
            .collect();
        component_items.extend(code!(
            "fn map_entities(&mut self, __map: &mut dyn ::core::ops::FnMut($krate::Entity) -> $krate::Entity) {
                $maps
            }
            fn visit_entities(&self, __f: &mut dyn ::core::ops::FnMut($krate::Entity)) {
                $visits
            }",
            krate,
            maps,
            visits
        ));
    }
    RelationItems { component_items, impls }
}

/// The first token's span, as `syn` reports a path's span on stable.
fn first_span(tokens: &TokenStream) -> Span {
    tokens.clone().into_iter().next().as_ref().map_or_else(Span::call_site, TokenTree::span)
}

/// FNV-1a of a type's name: `Component::__LOOKUP_HASH`, which spreads the
/// types a loop looks up over the entries of a world's lookup cache. Types of
/// the same name only share an entry (the later one then takes the slower path).
fn name_hash(name: &str) -> u32 {
    name.bytes().fold(0x811c_9dc5_u32, |hash, byte| (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193))
}
