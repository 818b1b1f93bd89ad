//! `#[derive(Event)]`, `#[derive(Message)]` and `#[derive(Resource)]` expansion:
//! the marker impl; `#[derive(EntityEvent)]`'s, `Event` with its target.

use proc_macro::TokenStream;

use crate::tokens::code;
use crate::validate::{EntityEventDef, EventDef};

pub fn event(def: EventDef<'_>) -> TokenStream {
    marker(def, code!("event::Event"))
}

/// `Event`, whose trigger targets the entity in the target field, and
/// `EntityEvent`, which reads and writes that field.
pub fn entity_event(def: EntityEventDef<'_>) -> TokenStream {
    let EntityEventDef { event, target, target_ty, propagate, auto_propagate } = def;
    let (event_head, where_clause) = impl_head(&event, code!("event::Event"));
    let (entity_event_head, _) = impl_head(&event, code!("event::EntityEvent"));
    let krate = event.krate;
    // Through a trait only `Entity` has, named at the field's type: a target
    // of another type is one error there (the two accessors' errors are the
    // same diagnostic, which the compiler shows once).
    let ty = target_ty;
    // Where the event goes on to, for `#[entity_event(propagate)]`: a bound
    // on the relationship named, so a type that is not one is reported there.
    let propagation = match propagate {
        Some(along) => {
            let auto: TokenStream = if auto_propagate { "true" } else { "false" }.parse().expect("a literal");
            code!(
                "#[inline(always)]
                fn __propagates() -> ::core::option::Option<bool> {
                    ::core::option::Option::Some($auto)
                }
                #[inline]
                fn __propagate_to(
                    __world: &$krate::World,
                    __entity: $krate::Entity,
                ) -> ::core::option::Option<$krate::Entity> {
                    $krate::__private::propagate_along::<$along>(__world, __entity)
                }",
                auto,
                krate,
                along
            )
        }
        None => TokenStream::new(),
    };
    let read = code!("<$ty as $krate::__private::EventTargetField>::get(&self.$target)", ty, krate, target);
    let write = code!("<$ty as $krate::__private::EventTargetField>::get_mut(&mut self.$target)", ty, krate, target);
    code!(
        "const _: () = {
            #[automatically_derived]
            $event_head $where_clause {
                #[inline]
                fn __event_target(&self) -> ::core::option::Option<$krate::Entity> {
                    ::core::option::Option::Some(<Self as $krate::event::EntityEvent>::event_target(self))
                }
                #[inline]
                fn __set_event_target(&mut self, __target: $krate::Entity) {
                    *<Self as $krate::event::EntityEvent>::event_target_mut(self) = __target;
                }
                $propagation
            }
            #[automatically_derived]
            $entity_event_head $where_clause {
                #[inline]
                fn event_target(&self) -> $krate::Entity {
                    $read
                }
                #[inline]
                fn event_target_mut(&mut self) -> &mut $krate::Entity {
                    $write
                }
            }
        };",
        event_head,
        where_clause,
        krate,
        entity_event_head,
        read,
        write,
        propagation
    )
}

pub fn message(def: EventDef<'_>) -> TokenStream {
    marker(def, code!("message::Message"))
}

pub fn resource(def: EventDef<'_>) -> TokenStream {
    marker(def, code!("Resource"))
}

/// `impl $krate::$path for Type {}`, with the bounds a generic type needs.
fn marker(def: EventDef<'_>, path: TokenStream) -> TokenStream {
    let (impl_head, where_clause) = impl_head(&def, path);
    code!(
        "const _: () = {
            #[automatically_derived]
            $impl_head $where_clause {}
        };",
        impl_head,
        where_clause
    )
}

/// `impl $krate::$path for Type` and its where clause, with the bounds a
/// generic type needs.
fn impl_head(def: &EventDef<'_>, path: TokenStream) -> (TokenStream, TokenStream) {
    let EventDef { ident, generics, krate } = def;
    let impl_generics = generics.impl_generics();
    let ty_generics = generics.ty_generics();
    // Whether an instantiation is `Send + Sync + 'static` is checked where it is used.
    let bounds = if generics.is_empty() {
        Vec::new()
    } else {
        vec![code!("Self: ::core::marker::Send + ::core::marker::Sync + 'static")]
    };
    // Spanned at the type's name, so "`Rc<u8>` cannot be shared between threads
    // safely … required by a bound in `Event`" points at the user's type.
    let head = code!(ident.span() => "impl $impl_generics $krate::$path for $ident $ty_generics",
        impl_generics, krate, path, ident, ty_generics);
    (head, generics.where_clause(&bounds))
}
