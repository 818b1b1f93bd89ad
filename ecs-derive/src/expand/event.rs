//! `#[derive(Event)]` expansion: the marker impl.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use crate::parse::EventDef;

pub fn event(def: EventDef<'_>) -> TokenStream {
    let EventDef { ident, generics, krate } = def;
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let mut where_clause = where_clause.cloned().unwrap_or_else(|| syn::parse_quote!(where));
    if !generics.params.is_empty() {
        // Whether an instantiation is `Send + Sync + 'static` is checked where it is used.
        where_clause.predicates.push(syn::parse_quote!(Self: ::core::marker::Send + ::core::marker::Sync + 'static));
    }
    // Spanned at the type's name, so "`Rc<u8>` cannot be shared between threads
    // safely … required by a bound in `Event`" points at the user's type.
    let impl_head = quote_spanned! {ident.span()=>
        impl #impl_generics #krate::event::Event for #ident #ty_generics
    };
    quote! {
        const _: () = {
            #[automatically_derived]
            #impl_head #where_clause {}
        };
    }
}
