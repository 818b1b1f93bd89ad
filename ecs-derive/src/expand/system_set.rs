//! `#[derive(SystemSet)]` expansion: the marker impl; equality and the name come
//! from the type's own `PartialEq` and `Debug`.

use proc_macro::TokenStream;

use crate::tokens::code;
use crate::validate::SystemSetDef;

pub fn system_set(def: SystemSetDef<'_>) -> TokenStream {
    let SystemSetDef { ident, generics, krate } = def;
    let impl_generics = generics.impl_generics();
    let ty_generics = generics.ty_generics();
    let where_clause = generics.where_clause(&[]);
    // Spanned at the type's name, so "`Physics` doesn't implement `Debug` … required
    // by a bound in `SystemSet`" points at the user's type.
    let impl_head = code!(ident.span() => "impl $impl_generics $krate::system::SystemSet for $ident $ty_generics",
        impl_generics, krate, ident, ty_generics);
    code!(
        "const _: () = {
            #[automatically_derived]
            $impl_head $where_clause {}
        };",
        impl_head,
        where_clause
    )
}
