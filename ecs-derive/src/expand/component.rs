//! `#[derive(Component)]` expansion.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::parse::ComponentDef;

pub fn component(def: ComponentDef<'_>) -> TokenStream {
    let ComponentDef { ident, generics, krate, sparse, hooks, changes } = def;
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let mut where_clause = where_clause.cloned().unwrap_or_else(|| syn::parse_quote!(where));
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
    quote! {
        const _: () = {
            #[automatically_derived]
            #impl_head #where_clause {
                #storage
                #changes
                #hooks
                #id_cell
            }
            #tracked
        };
    }
}
