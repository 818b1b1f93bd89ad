//! Events: values that announce that something happened, triggered for
//! observers.
//!
//! An [`Event`] is triggered ([`World::trigger`], [`World::trigger_targets`],
//! [`Commands::trigger`](crate::command::Commands::trigger)): every
//! [observer](crate::observer) of the event runs at once, in the triggering call.
//! Values buffered for systems to read later are [messages](crate::message).
//!
//! The crate triggers the lifecycle events [`Add`], [`Insert`], [`Discard`],
//! [`Remove`] and [`Despawn`] itself, for every component, when observers watch
//! them (see [`ComponentHooks`](crate::component::ComponentHooks) for the order),
//! and logs removals for [`RemovedComponents`].
//!
//! [`World::trigger`]: crate::World::trigger
//! [`World::trigger_targets`]: crate::World::trigger_targets

mod removed;

pub(crate) use removed::RemovedLogs;
pub use removed::{RemovedById, RemovedComponents};

use core::marker::PhantomData;

use crate::bundle::Bundle;
use crate::component::Lifecycle;
use crate::entity::Entity;

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
/// world.add_observer(|trigger: On<GameOver>, mut last: ResMut<Final>| last.0 = trigger.score);
/// world.trigger(GameOver { score: 7 });
/// assert_eq!(world.resource::<Final>().0, 7);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an event",
    label = "`{Self}` does not implement `Event`",
    note = "add `#[derive(Event)]` to the definition of `{Self}`"
)]
pub trait Event: Send + Sync + 'static {
    /// The entity a trigger of the event targets by itself: the target field
    /// of an [`EntityEvent`] (its derive sets it); `None` for other events.
    #[doc(hidden)]
    #[inline]
    fn __event_target(&self) -> Option<Entity> {
        None
    }

    /// Makes `target` the entity the event names, before a trigger for it:
    /// an [`EntityEvent`]'s target field (its derive sets it); nothing for
    /// other events.
    #[doc(hidden)]
    #[inline]
    fn __set_event_target(&mut self, _target: Entity) {}

    /// Whether the event goes on from its target to another entity after the
    /// target's observers (`#[entity_event(propagate)]`): `None` when it does
    /// not; `Some(true)` when it goes on unless an observer stops it
    /// (`auto_propagate`), `Some(false)` when an observer must ask.
    #[doc(hidden)]
    #[inline(always)]
    fn __propagates() -> Option<bool>
    where
        Self: Sized,
    {
        None
    }

    /// Where the event goes on to from `entity` (its parent, for `ChildOf`).
    #[doc(hidden)]
    #[inline]
    fn __propagate_to(_world: &crate::World, _entity: Entity) -> Option<Entity>
    where
        Self: Sized,
    {
        None
    }
}

/// An [`Event`] that names the entity it targets, in a field:
/// `#[derive(EntityEvent)]` on a struct with a field `entity: Entity` (or the
/// field marked `#[event_target]`). [`World::trigger`](crate::World::trigger)
/// runs the event's observers and the entity observers of that entity, as
/// [`trigger_targets`](crate::World::trigger_targets) does with a target given
/// beside the event (which then writes each target into the event's field in
/// turn); the observer reads it as `event.entity` or
/// [`On::target`](crate::observer::On::target).
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
///
/// #[derive(EntityEvent)]
/// struct Hit { entity: Entity, damage: i32 }
/// #[derive(Component)] struct Health(i32);
///
/// let mut world = World::new();
/// let goblin = world.spawn(Health(10));
/// let orc = world.spawn(Health(30));
/// world.entity_mut(goblin)?.observe(|hit: On<Hit>, mut q: Query<&mut Health>| {
///     q.get_mut(hit.entity).unwrap().0 -= hit.damage;
/// });
/// world.trigger(Hit { entity: goblin, damage: 4 });
/// world.trigger(Hit { entity: orc, damage: 4 }); // no observer on the orc
/// assert_eq!(world.get::<Health>(goblin).unwrap().0, 6);
/// assert_eq!(world.get::<Health>(orc).unwrap().0, 30);
/// # Ok::<(), EcsError>(())
/// ```
pub trait EntityEvent: Event {
    /// The entity the event targets.
    fn event_target(&self) -> Entity;
    /// The entity the event targets, to change it before a trigger.
    fn event_target_mut(&mut self) -> &mut Entity;
}

/// What an observer watches: an event, and for lifecycle events the
/// components. Every [`Event`] is a pattern of itself; the lifecycle patterns
/// [`Add<B>`], [`Insert<B>`], [`Discard<B>`], [`Remove<B>`] and [`Despawn<B>`]
/// name their event and the components of `B` (`On<Add<Health>>`; `On<Add>` for
/// every component).
pub trait EventPattern: Send + Sync + 'static {
    /// The event observed.
    type Event: Event;
    /// The components whose lifecycle events are observed (`()`: all, or not
    /// a lifecycle event).
    type Bundle: Bundle;
}

impl<E: Event> EventPattern for E {
    type Event = E;
    type Bundle = ();
}

macro_rules! lifecycle_event {
    ($(#[$doc:meta])* $pattern:ident, $event:ident, $what:literal) => {
        $(#[$doc])*
        ///
        /// `On<
        #[doc = $what]
        /// <Health>>` (or `On<
        #[doc = $what]
        /// , Health>`) observes `Health`; `On<
        #[doc = $what]
        /// >` every component. The observer reads the event as the unit value
        #[doc = concat!("[`", stringify!($event), "`];")]
        /// `target()` is the entity, `component()` the component.
        pub struct $pattern<B: Bundle = ()>(PhantomData<fn() -> B>);

        impl<B: Bundle> EventPattern for $pattern<B> {
            type Event = $event;
            type Bundle = B;
        }

        #[doc = concat!("The event of [`", stringify!($pattern), "`], as observers read it.")]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $event;

        impl Event for $event {}
    };
}

lifecycle_event!(
    /// Triggered when an entity gains a component it did not have (spawn or insert),
    /// after the value is in place.
    Add, AddEvent, "Add"
);
lifecycle_event!(
    /// Triggered after every insert of a component, new or replacing.
    Insert, InsertEvent, "Insert"
);
lifecycle_event!(
    /// Triggered before a component's value is replaced or removed (the old value
    /// is still readable). bevy_ecs called it `Replace` before 0.20.
    Discard, DiscardEvent, "Discard"
);
lifecycle_event!(
    /// Triggered before a component is removed from an entity, or the entity is
    /// despawned (the value is still readable).
    Remove, RemoveEvent, "Remove"
);
lifecycle_event!(
    /// Triggered for each component of an entity about to be despawned.
    Despawn, DespawnEvent, "Despawn"
);

/// The lifecycle event of a kind, as a value observers can borrow.
pub(crate) fn lifecycle_value(kind: Lifecycle) -> (core::any::TypeId, fn() -> &'static str, &'static dyn Event) {
    fn of<E: Event>(value: &'static E) -> (core::any::TypeId, fn() -> &'static str, &'static dyn Event) {
        (core::any::TypeId::of::<E>(), core::any::type_name::<E>, value)
    }
    match kind {
        Lifecycle::Add => of(&AddEvent),
        Lifecycle::Insert => of(&InsertEvent),
        Lifecycle::Discard => of(&DiscardEvent),
        Lifecycle::Remove => of(&RemoveEvent),
        Lifecycle::Despawn => of(&DespawnEvent),
    }
}
