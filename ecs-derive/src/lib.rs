//! Derive macros for `ecs-core`. Use them through `ecs_core` (`use ecs_core::prelude::*;`),
//! which re-exports them; the generated code names `::ecs_core` paths.
//!
//! Each entry point is a shim: `read` reads the item, `validate` turns it into
//! a checked, spanned description (every error points at the offending field,
//! attribute or keyword), and `expand` turns that description into code.
//!
//! The crate depends on nothing but `proc_macro`: the compiler has already
//! parsed the item, so reading it takes a few hundred lines rather than `syn`,
//! and templates are lexed by the compiler itself (`tokens`). Every build of
//! a program using `ecs_core` waits for this crate, so its build time is the
//! head of theirs.

mod error;
mod expand;
mod meta;
mod read;
mod relation;
mod require;
mod tokens;
mod validate;

use proc_macro::TokenStream;

/// Implements `Component` for a struct or enum. Generic types are supported; a type
/// that is not `Send + Sync + 'static` is refused.
///
/// Attributes: `#[component(crate = "path")]` names the `ecs_core` crate when it is
/// re-exported under another path; `#[component(storage = "sparse")]` stores the
/// component per row instead of in the archetype's key, so adding and removing it
/// moves nothing (see `ecs_core::StorageType`); `#[component(changes = false)]`
/// opts out of change detection (no ticks kept; `Changed<T>`/`Added<T>` on it do
/// not compile); `#[component(on_add = f, on_insert = g, on_discard = h,
/// on_remove = i, on_despawn = j)]` declares hooks, each a
/// `fn(DeferredWorld, HookContext)` (see `ecs_core::component::ComponentHooks`);
/// `#[require(A, B = expr, C(1))]` names components an entity gains with this
/// one when it lacks them (made by `Default`, by the expression after `=`, or
/// by the constructor written), inserted right after this one's values,
/// before its hooks run.
#[proc_macro_derive(Component, attributes(component, relationship, relationship_target, entities, require))]
pub fn derive_component(input: TokenStream) -> TokenStream {
    derive(input, |input| validate::component(input).map(expand::component))
}

/// Implements `Describe` for a struct whose fields are all describable (`bool`,
/// the integer and float types, `Entity`, `String`, arrays of these, other
/// described types) or for an enum whose variants hold no data: the type's
/// schema, field by field, for code that reads and writes it without knowing
/// the Rust type (see `ecs_core::component::Describe`). A component says
/// `#[component(describe)]` instead, which also lists it with its schema.
///
/// Attribute: `#[describe(crate = "path")]` names the `ecs_core` crate when it
/// is re-exported under another path.
#[proc_macro_derive(Describe, attributes(describe))]
pub fn derive_describe(input: TokenStream) -> TokenStream {
    derive(input, |input| validate::describe_derive(input).map(expand::describe))
}

/// Implements `Event` for a struct or enum, so that it can be triggered for
/// observers (`world.trigger(e)`, `On<E>`). The type must be `Send + Sync + 'static`.
///
/// Attribute: `#[event(crate = "path")]` names the `ecs_core` crate when it is
/// re-exported under another path.
#[proc_macro_derive(Event, attributes(event))]
pub fn derive_event(input: TokenStream) -> TokenStream {
    derive(input, |input| validate::event(input).map(expand::event))
}

/// Implements `Event` and `EntityEvent` for a struct that holds the entity it
/// targets: in its field `entity: Entity`, or in the one field marked
/// `#[event_target]`. `world.trigger(e)` then runs the event's observers and
/// the entity observers of that entity. The type must be `Send + Sync + 'static`.
///
/// Attribute `#[entity_event(…)]`:
/// - `propagate`: after the target's observers, the event may go on to its
///   parent (along `ChildOf`), then the parent's, while an observer asks
///   (`on.propagate(true)`); `propagate = Relationship` goes along another
///   relationship;
/// - `auto_propagate` (with `propagate`): it goes on unless an observer stops
///   it (`on.propagate(false)`);
/// - `crate = "path"` names the `ecs_core` crate when it is re-exported under
///   another path.
#[proc_macro_derive(EntityEvent, attributes(entity_event, event_target))]
pub fn derive_entity_event(input: TokenStream) -> TokenStream {
    derive(input, |input| validate::entity_event(input).map(expand::entity_event))
}

/// Implements `Message` for a struct or enum, so that it can be written to the
/// buffer `Messages<M>` (`world.write_message(m)`, `MessageWriter`) and read by
/// `MessageReader`s. The type must be `Send + Sync + 'static`.
///
/// Attribute: `#[message(crate = "path")]` names the `ecs_core` crate when it is
/// re-exported under another path.
#[proc_macro_derive(Message, attributes(message))]
pub fn derive_message(input: TokenStream) -> TokenStream {
    derive(input, |input| validate::message(input).map(expand::message))
}

/// Implements the marker trait `Resource` for a struct or enum. Resources need
/// no derive (any `Send + Sync + 'static` value is one); this is for code
/// written for bevy_ecs and for generic code bounded by `R: Resource`. The type
/// must be `Send + Sync + 'static`.
///
/// Attribute: `#[resource(crate = "path")]` names the `ecs_core` crate when it
/// is re-exported under another path.
#[proc_macro_derive(Resource, attributes(resource))]
pub fn derive_resource(input: TokenStream) -> TokenStream {
    derive(input, |input| validate::resource(input).map(expand::resource))
}

/// Implements `Bundle` for a struct whose fields are components or bundles.
///
/// Attribute: `#[bundle(crate = path)]` names the `ecs_core` crate when it is
/// re-exported under another path.
#[proc_macro_derive(Bundle, attributes(bundle))]
pub fn derive_bundle(input: TokenStream) -> TokenStream {
    derive(input, |input| validate::bundle(input).map(expand::bundle))
}

/// Implements `QueryData` for a struct of query items, so a query can yield named
/// fields instead of a tuple.
///
/// The struct has exactly one lifetime, the world borrow, and named fields of type
/// `&'w T`, `&'w mut T`, `Option<&'w T>`, `Option<&'w mut T>`, `Entity` or another
/// derived query. A derived query whose fields are all read-only is read-only.
///
/// Named after the trait it implements (as in bevy_ecs), so that it is not
/// mistaken for the system parameter `Query<Q, F>`.
///
/// Attribute: `#[query(crate = path)]` names the `ecs_core` crate when it is
/// re-exported under another path.
#[proc_macro_derive(QueryData, attributes(query))]
pub fn derive_query_data(input: TokenStream) -> TokenStream {
    derive(input, |input| validate::query(input).map(expand::query))
}

/// Implements `SystemParam` for a struct whose fields are system parameters, so a
/// system can take a group of them as one argument.
///
/// The struct has exactly one lifetime, the world borrow, used by every field:
/// `struct Physics<'w> { bodies: Query<'w, (&'static mut Position, &'static Velocity)>, g: Res<'w, Gravity> }`.
///
/// Attribute: `#[system_param(crate = path)]` names the `ecs_core` crate when it is
/// re-exported under another path.
#[proc_macro_derive(SystemParam, attributes(system_param))]
pub fn derive_system_param(input: TokenStream) -> TokenStream {
    derive(input, |input| validate::system_param(input).map(expand::system_param))
}

/// Implements `SystemSet` for a unit struct or an enum, so that systems can be
/// grouped (`.in_set(Physics)`) and the group ordered
/// (`schedule.configure_sets(Physics.before(Render))`). The type also needs
/// `Debug`, `PartialEq` and `Eq`: sets are compared by value and named by their
/// `Debug` form in messages.
///
/// Attribute: `#[system_set(crate = "path")]` names the `ecs_core` crate when it is
/// re-exported under another path.
#[proc_macro_derive(SystemSet, attributes(system_set))]
pub fn derive_system_set(input: TokenStream) -> TokenStream {
    derive(input, |input| validate::system_set(input).map(expand::system_set))
}

/// Reads the input, then checks and expands it; an error anywhere becomes
/// `compile_error!`s at the user's tokens.
fn derive(input: TokenStream, expand: impl FnOnce(&read::Input) -> error::Result<TokenStream>) -> TokenStream {
    read::read(input).and_then(|input| expand(&input)).unwrap_or_else(error::Error::into_compile_error)
}
