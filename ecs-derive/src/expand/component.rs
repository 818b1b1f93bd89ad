//! `#[derive(Component)]` expansion.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use crate::parse::ComponentDef;

pub fn component(def: ComponentDef<'_>) -> TokenStream {
    let ComponentDef { ident, generics, krate, sparse } = def;
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
    quote! {
        const _: () = {
            #[automatically_derived]
            #impl_head #where_clause {
                #storage
                #id_cell
            }
        };
    }
}
