//! `ecs-core`: a typed archetype Entity Component System.
//!
//! Entities are 64-bit handles; their components live in archetypes (one table per
//! distinct set of component types) as type-erased, contiguous columns, so that a loop
//! over a component is a loop over an array. Adding or removing a component moves the
//! entity's row along a cached edge of the archetype graph — except for tags and
//! components declared `#[component(storage = "sparse")]`, which are stored per row
//! and added or removed in place (see [`StorageType`]).
//!
//! The modules, from the bottom up:
//! - [`entity`]: the [`Entity`] handle and the entity index (`Entities`).
//! - [`component`]: the [`Component`] trait and the component registry.
//! - `storage` (internal): type-erased pointers and the [`Column`](archetype::Column)
//!   array; its ticks are public in [`change_detection`].
//! - [`archetype`]: archetypes, their edges, the archetype and component indices.
//! - [`bundle`]: [`Bundle`], a group of components spawned or inserted together.
//! - [`query`]: typed queries over the archetypes: items, filters, cached state.
//! - [`world`]: [`World`], the typed API over all of the above.
//! - [`system`]: systems (plain functions of [`Query`](system::Query),
//!   [`Res`](system::Res), [`Commands`](command::Commands), …) and the
//!   [`Schedule`](system::Schedule) that runs them, in parallel where their
//!   access allows.
//! - [`command`]: [`Commands`](command::Commands), structural changes queued by
//!   systems and applied at the schedule's sync points.
//! - [`event`] and [`observer`]: reacting to change — events triggered for
//!   observers or buffered for readers, component hooks, removal logs.
//! - [`relationship`]: `ChildOf`/`Children` hierarchies and user-declared
//!   relationships, kept consistent on both sides.
//! - `serialize` (feature `serde`): saving worlds to files and loading them,
//!   keeping or remapping entity ids.
//! - [`snapshot`]: saving and restoring a whole world, for rollback, with the
//!   determinism contract.
//! - [`parallel`]: the worker pool, and how each place that could go parallel
//!   measures whether that is faster.
//! - [`panics`]: what happens when user code panics, and which traits are trusted.
//! - [`guide`]: coming from bevy_ecs or hecs.
//!
//! # A tour
//! Entities are spawned from bundles, systems are plain functions, a schedule
//! runs them each frame, and commands change entities between systems:
//! ```
//! use ecs_core::prelude::*;
//!
//! #[derive(Component, Clone, Copy, Debug, PartialEq)]
//! struct Position(f32, f32);
//! #[derive(Component, Clone, Copy)]
//! struct Velocity(f32, f32);
//! #[derive(Component)]
//! struct Fuel(f32);
//! /// A resource: any `Send + Sync + 'static` type.
//! struct Gravity(f32);
//!
//! // A system: its parameters say what it reads and writes.
//! fn fall(gravity: Res<Gravity>, mut query: Query<&mut Velocity>) {
//!     for velocity in &mut query {
//!         velocity.1 -= gravity.0;
//!     }
//! }
//!
//! fn movement(mut query: Query<(&mut Position, &Velocity)>) {
//!     for (position, velocity) in &mut query {
//!         position.0 += velocity.0;
//!         position.1 += velocity.1;
//!     }
//! }
//!
//! // Structural changes from a system go through `Commands`, applied after it.
//! fn burn(mut query: Query<(Entity, &mut Fuel)>, mut commands: Commands) {
//!     for (entity, fuel) in &mut query {
//!         fuel.0 -= 1.0;
//!         if fuel.0 <= 0.0 {
//!             commands.entity(entity).remove::<Fuel>();
//!         }
//!     }
//! }
//!
//! let mut world = World::new();
//! world.insert_resource(Gravity(0.5));
//! let rocket = world.spawn((Position(0.0, 0.0), Velocity(1.0, 2.0), Fuel(2.0)));
//! let rock = world.spawn((Position(5.0, 5.0), Velocity(0.0, 0.0)));
//!
//! let mut schedule = Schedule::new();
//! schedule.add_systems((fall, movement, burn).chain());
//! for _ in 0..2 {
//!     schedule.run(&mut world);
//! }
//! assert_eq!(world.get::<Position>(rocket), Some(&Position(2.0, 2.5)));
//! assert_eq!(world.get::<Position>(rock), Some(&Position(0.0 + 5.0, 5.0 - 1.5)));
//! assert!(!world.has::<Fuel>(rocket), "out of fuel after two frames");
//!
//! // Queries also run directly on the world.
//! let moving = world.query::<&Velocity>().iter().filter(|v| v.0 != 0.0).count();
//! assert_eq!(moving, 1);
//! ```
//!
//! # Example
//! ```
//! use ecs_core::prelude::*;
//!
//! #[derive(Component, Debug, PartialEq)]
//! struct Position(f32, f32);
//! #[derive(Component)]
//! struct Name(String);
//!
//! let mut world = World::new();
//! let ship = world.spawn((Position(0.0, 0.0), Name("ship".into())));
//! world.get_mut::<Position>(ship).unwrap().0 += 1.0;
//! assert_eq!(world.get::<Position>(ship), Some(&Position(1.0, 0.0)));
//! let name: Name = world.remove::<Name>(ship)?;
//! assert_eq!(name.0, "ship");
//! world.despawn(ship)?;
//! assert!(world.get::<Position>(ship).is_none());
//! # Ok::<(), EcsError>(())
//! ```

extern crate self as ecs_core;

pub mod archetype;
pub mod bundle;
pub mod command;
pub mod component;
pub mod entity;
pub mod error;
pub mod event;
pub mod guide;
mod hashers;
pub mod message;
mod names;
pub mod observer;
pub mod panics;
pub mod parallel;
pub mod query;
pub mod relationship;
mod resource;
#[cfg(feature = "serde")]
pub mod serialize;
pub mod snapshot;
mod storage;
pub mod system;
pub mod world;

pub use archetype::{Archetype, ArchetypeId};
pub use bundle::Bundle;
pub use component::{Component, ComponentId, ComponentInfo, Describe, StorageType};
pub use ecs_derive::{
    Bundle, Component, Describe, EntityEvent, Event, Message, QueryData, Resource, SystemParam, SystemSet,
};
pub use entity::Entity;
pub use error::{EcsError, RelationshipProblem};
pub use event::{EntityEvent, Event};
pub use message::Message;
pub use query::{Added, Changed, Or, QueryState, With, Without};
pub use resource::Resource;
pub use world::{DeferredWorld, EntityRef, EntityWorldMut, FromWorld, Mut, Ref, World};

/// Change ticks, and the values that carry them (as in bevy_ecs's
/// `change_detection`).
pub mod change_detection {
    pub use crate::storage::{CHECK_TICK_THRESHOLD, ComponentTicks, MAX_CHANGE_AGE, Tick};
    pub use crate::world::{Mut, Ref};
}

/// Re-exported: plain-old-data components implement its `Pod` and `Zeroable`.
///
/// To derive them, depend on `bytemuck` with its `derive` feature
/// (`bytemuck = { version = "1", features = ["derive"] }`): the derives name
/// `::bytemuck` in what they expand to, so they need that dependency anyway, and
/// this crate does not turn the feature on itself because every user would then
/// compile bytemuck's derive crate before this one, deriving or not.
pub use bytemuck;

/// The names almost every user of the crate needs: `use ecs_core::prelude::*;`.
pub mod prelude {
    pub use crate::bytemuck::{Pod, Zeroable};
    pub use crate::command::{Commands, EntityCommands};
    pub use crate::component::HookContext;
    pub use crate::component::Name;
    pub use crate::event::{Add, Despawn, Discard, Insert, Remove, RemovedComponents};
    pub use crate::message::on_message;
    pub use crate::message::{MessageReader, MessageWriter, Messages};
    pub use crate::observer::On;
    pub use crate::query::{Added, AnyOf, Changed, Has, Or, QueryState, With, Without};
    pub use crate::relationship::{ChildOf, Children, RelationshipSources, SpawnRelated};
    pub use crate::system::{
        In, IntoScheduleConfigs, IntoSetConfig, IntoSetConfigs, IntoSystemConfig, Local, Populated, Query, Res, ResMut,
        Schedule, SetGroup, Single, SystemCondition, SystemPipe, SystemSet, any_with_component, not, resource_added,
        resource_changed, resource_equals, resource_exists, run_once,
    };
    pub use crate::{
        Bundle, Component, DeferredWorld, Describe, EcsError, Entity, EntityEvent, EntityRef, EntityWorldMut, Event,
        FromWorld, Message, Mut, QueryData, Ref, SystemParam, SystemSet, World,
    };
    // bevy_ecs's prelude has them too: `-> Result` for a fallible system.
    pub use crate::error::{BoxedError, Result};
    // The derive only: a game's own type named `Resource` (wood, stone…)
    // stays unambiguous beside this glob; the trait is `ecs_core::Resource`.
    pub use crate::{children, related};
    pub use ecs_derive::Resource;
}

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

/// Every chapter of the book in `docs/`, its examples compiled and run as
/// doctests so that none goes stale.
#[cfg(doctest)]
mod book {
    #[doc = include_str!("../../docs/storage.md")]
    struct Storage;
    #[doc = include_str!("../../docs/queries.md")]
    struct Queries;
    #[doc = include_str!("../../docs/systems.md")]
    struct Systems;
    #[doc = include_str!("../../docs/reacting.md")]
    struct Reacting;
    #[doc = include_str!("../../docs/relationships.md")]
    struct Relationships;
    // Its saving and loading examples need the `serde` feature.
    #[cfg(feature = "serde")]
    #[doc = include_str!("../../docs/save-load.md")]
    struct SaveLoad;
    #[doc = include_str!("../../docs/performance.md")]
    struct Performance;
    #[doc = include_str!("../../docs/coming-from.md")]
    struct ComingFrom;
    #[doc = include_str!("../../docs/schemas.md")]
    struct Schemas;
    #[doc = include_str!("../../docs/architecture.md")]
    struct Architecture;
}

/// Items the derive macros name in generated code. Not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::bundle::BundleKey;
    pub use crate::component::snapshot_strategy::{Probe, ProbeClone, ProbeCopy, ProbeNone};
    pub use crate::component::{ComponentIdCell, Components};
    pub use crate::query::fetch::leading_table_column;
    pub use crate::relationship::upkeep_hooks::*;
    pub use crate::storage::{MAPPED_FROM, OwningPtr, growth_copied_bytes};

    /// Inserts the `T` that `make` makes into `entity` unless it has one (for
    /// derived `#[require(…)]`); a refused insert is reported to the world's
    /// error handler.
    pub fn insert_required<T: crate::Component + crate::Bundle>(
        world: &mut crate::World,
        entity: crate::Entity,
        make: impl FnOnce() -> T,
    ) {
        if world.contains(entity) && !world.has::<T>(entity) {
            match world.insert(entity, make()) {
                // Its own requirements, in their turn (`World::insert_required`).
                Ok(()) => world.deferred.required_added.push(crate::component::component_id::<T>()),
                Err(error) => world.report_error(&error, "a required component was not inserted"),
            }
        }
    }

    /// The target field of a derived `EntityEvent`, read and written through
    /// this trait so that a field of another type is reported once, at its
    /// type, in words.
    #[diagnostic::on_unimplemented(
        message = "the target field of an `EntityEvent` must be an `Entity`, not `{Self}`",
        label = "not an `Entity`",
        note = "an entity event targets the entity in its field `entity` (or the field marked `#[event_target]`)"
    )]
    pub trait EventTargetField {
        /// The entity.
        fn get(&self) -> crate::Entity;
        /// The entity, to write.
        fn get_mut(&mut self) -> &mut crate::Entity;
    }

    impl EventTargetField for crate::Entity {
        #[inline]
        fn get(&self) -> crate::Entity {
            *self
        }
        #[inline]
        fn get_mut(&mut self) -> &mut crate::Entity {
            self
        }
    }

    /// Where a propagating entity event goes on to from `entity`: the target
    /// of its relationship `R`, if it has one (for `#[entity_event(propagate = R)]`).
    #[inline]
    pub fn propagate_along<R: crate::relationship::Relationship>(
        world: &crate::World,
        entity: crate::Entity,
    ) -> Option<crate::Entity> {
        world.get::<R>(entity).map(crate::relationship::Relationship::get)
    }

    /// Calls `step(0)` … `step(count - 1)` in order, each even if an earlier one
    /// panicked, then resumes the first panic (for derived `SystemParam::apply`).
    pub fn run_in_order(count: usize, step: impl FnMut(usize)) {
        crate::panics::run_in_order(count, step);
    }
}
