//! Events: values that announce that something happened, triggered for
//! observers.
//!
//! An [`Event`] is triggered ([`World::trigger`], [`World::trigger_targets`],
//! [`Commands::trigger`](crate::command::Commands::trigger)): every
//! [observer](crate::observer) of the event runs at once, in the triggering call.
//! Values buffered for systems to read later are [messages](crate::message).
//!
//! The crate triggers the lifecycle events [`OnAdd`], [`OnInsert`], [`OnReplace`],
//! [`OnRemove`] and [`OnDespawn`] itself, for every component, when observers watch
//! them (see [`ComponentHooks`](crate::component::ComponentHooks) for the order),
//! and logs removals for [`RemovedComponents`].
//!
//! [`World::trigger`]: crate::World::trigger
//! [`World::trigger_targets`]: crate::World::trigger_targets

mod removed;

pub use removed::RemovedComponents;
pub(crate) use removed::RemovedLogs;

use crate::component::Lifecycle;

/// A value that can be triggered for observers. Derive it: `#[derive(Event)]`.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
///
/// #[derive(Event)]
/// struct GameOver { score: u32 }
/// #[derive(Default)] struct Final(u32);
///
/// let mut world = World::new();
/// world.insert_resource(Final::default());
/// world.add_observer(|trigger: Trigger<GameOver>, mut last: ResMut<Final>| last.0 = trigger.score);
/// world.trigger(GameOver { score: 7 });
/// assert_eq!(world.resource::<Final>().0, 7);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an event",
    label = "`{Self}` does not implement `Event`",
    note = "add `#[derive(Event)]` to the definition of `{Self}`"
)]
pub trait Event: Send + Sync + 'static {}

macro_rules! lifecycle_event {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name;

        impl Event for $name {}
    };
}

lifecycle_event!(
    /// Triggered when an entity gains a component it did not have (spawn or insert),
    /// after the value is in place; `Trigger<OnAdd, Health>` observes `Health`.
    OnAdd
);
lifecycle_event!(
    /// Triggered after every insert of a component, new or replacing.
    OnInsert
);
lifecycle_event!(
    /// Triggered before a component's value is replaced or removed (the old value
    /// is still readable).
    OnReplace
);
lifecycle_event!(
    /// Triggered before a component is removed from an entity, or the entity is
    /// despawned (the value is still readable).
    OnRemove
);
lifecycle_event!(
    /// Triggered for each component of an entity about to be despawned.
    OnDespawn
);

/// The lifecycle event of a kind, as a value observers can borrow.
pub(crate) fn lifecycle_value(kind: Lifecycle) -> (core::any::TypeId, &'static str, &'static dyn Event) {
    fn of<E: Event>(value: &'static E) -> (core::any::TypeId, &'static str, &'static dyn Event) {
        (core::any::TypeId::of::<E>(), core::any::type_name::<E>(), value)
    }
    match kind {
        Lifecycle::Add => of(&OnAdd),
        Lifecycle::Insert => of(&OnInsert),
        Lifecycle::Replace => of(&OnReplace),
        Lifecycle::Remove => of(&OnRemove),
        Lifecycle::Despawn => of(&OnDespawn),
    }
}
