//! `#[derive(Component)]` expansion.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::parse::{ComponentDef, Snapshot};
use crate::relation::{EntityFields, Relation};

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
    } = def;
    let is_target = matches!(entities.relation, Relation::Target { .. });
    let relation = relation_items(&krate, ident, generics, &entities, &mut hooks, hidden);
    let immutable = immutable || !matches!(entities.relation, Relation::None);
    let hidden = if hidden {
        quote! { #[diagnostic::do_not_recommend] }
    } else {
        TokenStream::new()
    };
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let mut where_clause = where_clause.cloned().unwrap_or_else(|| syn::parse_quote!(where));
    // `Self: Component` rather than the component's own bounds: a type that
    // fails them (not `Send`, say) is then reported through its `Component` impl,
    // naming the field at fault, instead of as "not a bundle".
    let mut bundle_where = where_clause.clone();
    bundle_where.predicates.push(syn::parse_quote!(Self: #krate::Component));
    let id_cell = if generics.params.is_empty() {
        // A `static` inside a generic impl would be shared by every instantiation, so
        // only non-generic types get the cached id.
        quote! {
            #[inline(always)]
            fn __id_cell() -> ::core::option::Option<&'static #krate::__private::ComponentIdCell<Self>> {
                static __ECS_COMPONENT_ID: #krate::__private::ComponentIdCell<#ident> =
                    #krate::__private::ComponentIdCell::new();
                ::core::option::Option::Some(&__ECS_COMPONENT_ID)
            }
        }
    } else {
        // Bounds on the type's own parameters are carried over; whether an
        // instantiation is `Send + Sync + 'static` is checked where it is used.
        where_clause.predicates.push(syn::parse_quote!(Self: ::core::marker::Send + ::core::marker::Sync + 'static));
        TokenStream::new()
    };
    // Spanned at the type's name, so "`Rc<u8>` cannot be sent between threads safely …
    // required by a bound in `Component`" points at the user's type.
    let impl_head = quote_spanned! {ident.span()=>
        impl #impl_generics #krate::Component for #ident #ty_generics
    };
    let storage = if sparse {
        quote! { const STORAGE: #krate::StorageType = #krate::StorageType::Sparse; }
    } else {
        TokenStream::new()
    };
    let hooks = if hooks.is_empty() {
        TokenStream::new()
    } else {
        // Each function is spanned at its path, so a wrong signature is reported
        // there ("expected fn pointer `fn(DeferredWorld<'_>, HookContext)`").
        let fields = hooks.iter().map(|(key, function)| {
            quote_spanned! {function.span()=> #key: ::core::option::Option::Some(#function) }
        });
        quote! {
            #[allow(clippy::needless_update, reason = "a component may declare all five hooks")]
            const HOOKS: #krate::component::ComponentHooks = #krate::component::ComponentHooks {
                #(#fields,)*
                ..#krate::component::ComponentHooks::NONE
            };
        }
    };
    let tracked = if changes {
        quote! {
            #[automatically_derived]
            #hidden
            impl #impl_generics #krate::component::ChangeTracked for #ident #ty_generics #where_clause {}
        }
    } else {
        TokenStream::new()
    };
    let changes = if changes {
        TokenStream::new()
    } else {
        quote! { const CHANGES: bool = false; }
    };
    let mutable = if immutable {
        TokenStream::new()
    } else {
        quote! {
            #[automatically_derived]
            // SAFETY: neither a relationship nor a relationship target (those
            // are immutable, so this impl is not emitted for them).
            unsafe impl #impl_generics #krate::component::MutableComponent for #ident #ty_generics #where_clause {}
        }
    };
    let (fields_fn, (views, layout_impls)) = match &split {
        Some(fields) => (
            quote! {
                #[inline(always)]
                fn __fields() -> ::core::option::Option<#krate::component::FieldLayout> {
                    ::core::option::Option::Some(#krate::component::FieldLayout::of::<Self>())
                }
            },
            crate::expand::split::per_field(&krate, ident, vis, fields, immutable),
        ),
        None => (
            TokenStream::new(),
            (
                TokenStream::new(),
                quote! {
                    #[automatically_derived]
                    #hidden
                    // SAFETY: `__fields` is the default `None`: values are stored whole.
                    unsafe impl #impl_generics #krate::component::WholeComponent for #ident #ty_generics #where_clause {}
                },
            ),
        ),
    };
    let snapshot = snapshot_strategy(&krate, &generics.params.is_empty(), is_target, snapshot, pod, &mut where_clause);
    let RelationItems { component_items, impls } = relation;
    quote! {
        #views
        const _: () = {
            #[automatically_derived]
            #hidden
            #impl_head #where_clause {
                #storage
                #changes
                #hooks
                #id_cell
                #component_items
                #snapshot
                #fields_fn
            }
            #[automatically_derived]
            // Not `do_not_recommend`: rustc would then report a generic component
            // that fails its bounds as "not a bundle" rather than name the bound
            // (and `#![no_implicit_prelude]` crates cannot name `diagnostic`).
            // SAFETY: the items visit this one component in every method, as the
            // type registered for it.
            unsafe impl #impl_generics #krate::Bundle for #ident #ty_generics #bundle_where {
                #krate::__component_bundle_items!();
            }
            #tracked
            #mutable
            #impls
            #layout_impls
        };
    }
}

/// `Component::snapshot_strategy`: the declared strategy, or for an undeclared
/// one, the first of copy / clone / unsupported the type allows (see
/// `ecs_core::snapshot::strategy`). A generic component declaring one gets the
/// matching bound on its impl.
fn snapshot_strategy(
    krate: &syn::Path,
    concrete: &bool,
    is_target: bool,
    snapshot: Option<(Snapshot, proc_macro2::Span)>,
    pod: Option<proc_macro2::Span>,
    where_clause: &mut syn::WhereClause,
) -> TokenStream {
    let s = quote! { #krate::component::SnapshotStrategy };
    let mut bound = |span: proc_macro2::Span, bound: TokenStream| {
        if !*concrete {
            where_clause.predicates.push(syn::parse_quote_spanned!(span=> Self: #bound));
        }
    };
    let body = match (snapshot, pod) {
        (_, Some(span)) => {
            bound(span, quote! { #krate::bytemuck::Pod });
            quote_spanned! {span=> #s::pod() }
        }
        (Some((Snapshot::Skip, span)), None) => quote_spanned! {span=> #s::skip() },
        (Some((Snapshot::Copy, span)), None) => {
            bound(span, quote! { ::core::marker::Copy });
            quote_spanned! {span=> #s::copy() }
        }
        (Some((Snapshot::Clone, span)), None) => {
            bound(span, quote! { ::core::clone::Clone });
            quote_spanned! {span=> #s::cloned() }
        }
        (None, None) if is_target => quote! { #s::relationship_target() },
        (None, None) => quote! {
            #[allow(unused_imports)]
            use #krate::__private::{ProbeClone as _, ProbeCopy as _, ProbeNone as _};
            (&&&#krate::__private::Probe::<Self>::NEW).__snapshot_strategy()
        },
    };
    // `#[inline]`: compiled where the component is registered, not eagerly
    // in every crate that derives one.
    quote! {
        #[inline]
        fn snapshot_strategy() -> #s<Self> {
            #body
        }
    }
}

/// What a relationship, a relationship target or `#[entities]` fields add: items
/// inside the `Component` impl, and impls beside it.
struct RelationItems {
    component_items: TokenStream,
    impls: TokenStream,
}

fn relation_items(
    krate: &syn::Path,
    ident: &syn::Ident,
    generics: &syn::Generics,
    entities: &EntityFields,
    hooks: &mut Vec<(syn::Ident, syn::Path)>,
    hidden: bool,
) -> RelationItems {
    let hidden = if hidden {
        quote! { #[diagnostic::do_not_recommend] }
    } else {
        TokenStream::new()
    };
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let r = quote! { #krate::relationship };
    let mut mapped: Vec<&syn::Member> = entities.entities.iter().collect();
    let mut component_items = TokenStream::new();
    let mut impls = TokenStream::new();
    let mut hook = |key: &str, path: syn::Path| hooks.push((syn::Ident::new(key, ident.span()), path));
    match &entities.relation {
        Relation::None => {}
        Relation::Source { target, field, others } => {
            mapped.push(field);
            hook("on_insert", syn::parse_quote!(#r::relationship_on_insert::<Self>));
            hook("on_replace", syn::parse_quote!(#r::relationship_on_replace::<Self>));
            component_items.extend(quote! {
                const __LINKS: bool = true;
                fn __check_links(
                    &self,
                    __world: &#krate::World,
                    __entity: ::core::option::Option<#krate::Entity>,
                ) -> ::core::result::Result<(), #krate::EcsError> {
                    #r::check_link::<Self>(__world, __entity, self.#field)
                }
            });
            let target_span = target.span();
            impls.extend(quote_spanned! {target_span=>
                #[automatically_derived]
                // SAFETY: `get` reads the `Entity` field, nothing else.
                #hidden
                unsafe impl #impl_generics #r::Relationship for #ident #ty_generics #where_clause {
                    type Target = #target;
                    #[inline]
                    fn get(&self) -> #krate::Entity {
                        self.#field
                    }
                    #[allow(clippy::init_numbered_fields, reason = "the struct may be a tuple struct")]
                    fn from(__target: #krate::Entity) -> Self {
                        Self { #field: __target, #(#others: ::core::default::Default::default(),)* }
                    }
                }
            });
        }
        Relation::Target { relationship, field, linked } => {
            mapped.push(field);
            hook("on_insert", syn::parse_quote!(#r::target_on_insert::<Self>));
            hook("on_replace", syn::parse_quote!(#r::target_on_replace::<Self>));
            hook("on_despawn", syn::parse_quote!(#r::target_on_despawn::<Self>));
            let span = relationship.span();
            impls.extend(quote_spanned! {span=>
                #[automatically_derived]
                #hidden
                impl #impl_generics #r::RelationshipTarget for #ident #ty_generics #where_clause {
                    type Relationship = #relationship;
                    const LINKED_SPAWN: bool = #linked;
                    #[inline]
                    fn sources(&self) -> &[#krate::Entity] {
                        #r::RelationshipSourceCollection::as_slice(&self.#field)
                    }
                    fn __sources(&self) -> &dyn #r::RelationshipSourceCollection {
                        &self.#field
                    }
                    fn __sources_mut(&mut self) -> &mut dyn #r::RelationshipSourceCollection {
                        &mut self.#field
                    }
                    #[allow(clippy::init_numbered_fields, reason = "the struct may be a tuple struct")]
                    fn __from_sources(__sources: ::std::vec::Vec<#krate::Entity>) -> Self {
                        Self { #field: #r::RelationshipSourceCollection::__from_vec(__sources) }
                    }
                }
            });
        }
    }
    if mapped.is_empty() {
        // Lets a load skip the component when it looks for entities to remap.
        component_items.extend(quote! { const __MAPS_ENTITIES: bool = false; });
    } else {
        component_items.extend(quote! {
            fn map_entities(&mut self, __map: &mut dyn ::core::ops::FnMut(#krate::Entity) -> #krate::Entity) {
                #(#krate::entity::MapEntities::map_entities(&mut self.#mapped, __map);)*
            }
        });
    }
    RelationItems { component_items, impls }
}
