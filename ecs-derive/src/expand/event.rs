//! `#[derive(Event)]`, `#[derive(Message)]` and `#[derive(Resource)]` expansion:
//! the marker impl.

use proc_macro::TokenStream;

use crate::tokens::code;
use crate::validate::EventDef;

pub fn event(def: EventDef<'_>) -> TokenStream {
    marker(def, code!("event::Event"))
}

pub fn message(def: EventDef<'_>) -> TokenStream {
    marker(def, code!("message::Message"))
}

pub fn resource(def: EventDef<'_>) -> TokenStream {
    marker(def, code!("Resource"))
}

/// `impl $krate::$path for Type {}`, with the bounds a generic type needs.
fn marker(def: EventDef<'_>, path: TokenStream) -> TokenStream {
    let EventDef { ident, generics, krate } = def;
    let impl_generics = generics.impl_generics();
    let ty_generics = generics.ty_generics();
    // Whether an instantiation is `Send + Sync + 'static` is checked where it is used.
    let bounds = if generics.is_empty() {
        Vec::new()
    } else {
        vec![code!("Self: ::core::marker::Send + ::core::marker::Sync + 'static")]
    };
    let where_clause = generics.where_clause(&bounds);
    // Spanned at the type's name, so "`Rc<u8>` cannot be shared between threads
    // safely … required by a bound in `Event`" points at the user's type.
    let impl_head = code!(ident.span() => "impl $impl_generics $krate::$path for $ident $ty_generics",
        impl_generics, krate, path, ident, ty_generics);
    code!(
        "const _: () = {
            #[automatically_derived]
            $impl_head $where_clause {}
        };",
        impl_head,
        where_clause
    )
}
