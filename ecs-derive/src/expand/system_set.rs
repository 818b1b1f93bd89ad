//! `#[derive(SystemSet)]` expansion: the marker impl; equality and the name come
//! from the type's own `PartialEq` and `Debug`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use crate::parse::SystemSetDef;

pub fn system_set(def: SystemSetDef<'_>) -> TokenStream {
    let SystemSetDef { ident, generics, krate } = def;
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    // Spanned at the type's name, so "`Physics` doesn't implement `Debug` … required
    // by a bound in `SystemSet`" points at the user's type.
    let impl_head = quote_spanned! {ident.span()=>
        impl #impl_generics #krate::system::SystemSet for #ident #ty_generics
    };
    quote! {
        const _: () = {
            #[automatically_derived]
            #impl_head #where_clause {}
        };
    }
}
