//! Errors: [`EcsError`], what went wrong in a world operation, in words a
//! user can act on; [`BoxedError`] and [`Result`](type@Result), what a
//! fallible system or observer returns; and the world's handler of those
//! ([`ErrorHandler`], [`ErrorContext`]).

mod boxed;
mod handler;

pub use boxed::{BoxedError, Result};
pub use handler::{ErrorContext, ErrorHandler, ignore, panic, warn};

use core::fmt;

use crate::entity::Entity;
use crate::names::short_name;

/// The error of a fallible world operation. Every operation that returns one
/// has changed nothing when it does; its `Display` says what was wrong and, where
/// there is one, the fix.
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(Component, Debug)] struct Fuel(u32);
/// let mut world = World::new();
/// let ship = world.spawn(Fuel(3));
/// world.despawn(ship)?;
/// match world.insert(ship, Fuel(9)) {
///     Err(EcsError::NoSuchEntity(e)) => assert_eq!(e, ship),
///     other => panic!("expected NoSuchEntity, got {other:?}"),
/// }
/// let probe = world.spawn(());
/// let error = world.remove::<Fuel>(probe).unwrap_err();
/// assert!(matches!(error, EcsError::MissingComponent { .. }));
/// assert!(error.to_string().contains("Fuel"));
/// # Ok::<(), EcsError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EcsError {
    /// The entity is not alive in this world: it was despawned, the world was
    /// cleared, or the handle was forged or belongs to another world.
    NoSuchEntity(Entity),
    /// The entity is alive but lacks a component the operation needs.
    MissingComponent {
        /// The entity.
        entity: Entity,
        /// The type name of the missing component, in full
        /// (`core::any::type_name`); messages print its last path segment.
        component: &'static str,
    },
    /// The entity is alive but does not match the query (it lacks a fetched
    /// component or fails a filter).
    QueryMismatch {
        /// The entity.
        entity: Entity,
        /// The query as a user writes it: `Query<&mut Position, With<Player>>`.
        query: &'static str,
    },
    /// `single` found no entity matching the query.
    NoEntities {
        /// The query as a user writes it: `Query<&mut Position, With<Player>>`.
        query: &'static str,
    },
    /// `single` found more than one entity matching the query.
    MultipleEntities {
        /// The query as a user writes it: `Query<&mut Position, With<Player>>`.
        query: &'static str,
    },
    /// `get_many_mut` was given the same entity twice: the two items would alias.
    AliasedMutability(Entity),
    /// A system run by `run_system_once` needs a resource (`Res<T>`, `ResMut<T>`)
    /// that is not in the world; the type name of the resource, in full
    /// (`core::any::type_name`); messages print its last path segment.
    MissingResource(&'static str),
    /// A relationship (`ChildOf(target)`, …) was refused: its target is not
    /// alive, is the entity itself, or is one of the entity's descendants (the
    /// link would make a cycle). Nothing was changed.
    InvalidRelationship {
        /// The entity that would hold the relationship ([`Entity::PLACEHOLDER`]
        /// for one being spawned).
        entity: Entity,
        /// The target it would point at.
        target: Entity,
        /// The relationship's type name, in full; messages print its last segment.
        relationship: &'static str,
        /// What is wrong with the link.
        problem: RelationshipProblem,
    },
    /// [`World::snapshot`](crate::World::snapshot) found an entity holding a
    /// component that is neither `Copy` nor `Clone` and not skipped.
    NotSnapshottable {
        /// The component's type name, in full; messages print its last segment.
        component: &'static str,
    },
    /// [`World::restore`](crate::World::restore) was given a snapshot whose
    /// taking failed or panicked part-way. Nothing was changed.
    IncompleteSnapshot,
    /// [`World::restore`](crate::World::restore) was asked to restore into a
    /// world with observers: a snapshot holds none (a world with observers
    /// cannot be snapshotted), and restoring would drop them without their
    /// hooks. Nothing was changed.
    RestoreOverObservers {
        /// How many observers the world has.
        observers: usize,
    },
    /// The world has no component with this id (never registered here, or an
    /// id from another world's registration).
    UnknownComponent {
        /// The id's index ([`ComponentId::index`](crate::ComponentId::index)).
        index: usize,
    },
    /// The component has no schema to read it by (`#[component(describe)]`),
    /// or is a per-field component, which cannot be viewed whole.
    NotDescribed {
        /// The component's type name, in full; messages print its last segment.
        component: &'static str,
    },
    /// A query built at run time names a component twice where one use
    /// writes it: two references to one value would alias.
    AliasedComponent {
        /// The component's type name, in full; messages print its last segment.
        component: &'static str,
    },
    /// An observer by component id was asked for an event that is not a
    /// lifecycle event (`Add`, `Insert`, `Discard`, `Remove`, `Despawn`).
    NotLifecycle {
        /// The event's type name.
        event: &'static str,
    },
    /// A system that declared its access by component id used a component
    /// beyond it (see [`DeclaredSystem`](crate::system::DeclaredSystem)).
    Undeclared {
        /// The component's name.
        component: &'static str,
        /// `true` when it was to be written, `false` when read.
        write: bool,
    },
    /// A Rust component's hooks are its type's: they cannot be set by id.
    HooksOfRustComponent {
        /// The component's type name.
        component: &'static str,
    },
    /// A bundle put together at run time names one component twice.
    DuplicateComponent {
        /// The component's name, in full; messages print its last segment.
        component: &'static str,
    },
    /// A relationship cannot be inserted or removed by id: only its type keeps
    /// the target's list in step.
    RelationshipById {
        /// The component's name, in full; messages print its last segment.
        component: &'static str,
    },
    /// The value was made for another component than the one it is given to.
    ValueOfOtherComponent {
        /// The component the value was given to.
        component: &'static str,
        /// The component the value was made for.
        value: &'static str,
    },
    /// The component is immutable (a relationship or its target): it changes by
    /// inserting a new value, which runs its hooks, never in place.
    Immutable {
        /// The component's type name, in full; messages print its last segment.
        component: &'static str,
    },
    /// No system is registered under this [`SystemId`](crate::system::SystemId):
    /// it was unregistered, or the id is another world's.
    UnknownSystem,
    /// A registered system was asked to run while it is running (it ran
    /// itself, directly or through other systems). It did not run again.
    SystemAlreadyRunning {
        /// The system's name.
        system: &'static str,
    },
}

/// Why a relationship was refused (see [`EcsError::InvalidRelationship`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelationshipProblem {
    /// The target is not alive.
    DeadTarget,
    /// The target is the entity itself.
    SelfTarget,
    /// The target is a descendant of the entity through the same relationship.
    Cycle,
}

impl fmt::Display for EcsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoSuchEntity(entity) => write!(
                f,
                "entity {entity} does not exist: it was despawned (or the world cleared), \
                 or the handle is stale, forged or from another world"
            ),
            Self::MissingComponent { entity, component } => {
                write!(f, "entity {entity} has no `{}` component", short_name(component))
            }
            Self::QueryMismatch { entity, query } => {
                write!(
                    f,
                    "entity {entity} exists but does not match the query `{query}` (a component is missing or a filter fails)"
                )
            }
            Self::NoEntities { query } => write!(f, "no entity matches the query `{query}`, which expects exactly one"),
            Self::MultipleEntities { query } => {
                write!(f, "more than one entity matches the query `{query}`, which expects exactly one")
            }
            Self::AliasedMutability(entity) => write!(
                f,
                "entity {entity} was asked for twice in one `get_many_mut`: its two mutable items would alias"
            ),
            Self::MissingResource(resource) => write!(
                f,
                "the resource `{}` is not in the world; add it with `world.insert_resource(…)`, \
                 or take `Option<Res<…>>` where it may be missing",
                short_name(resource)
            ),
            Self::UnknownComponent { index } => write!(
                f,
                "this world has no component with id {index}: register it here first (an id from another world's \
                 registration does not carry over)"
            ),
            Self::NotDescribed { component } => write!(
                f,
                "component `{}` cannot be read by schema: describe it with `#[component(describe)]` (a per-field \
                 component is read field by field with `world.fields`)",
                short_name(component)
            ),
            Self::AliasedComponent { component } => write!(
                f,
                "the query writes component `{}` and also uses it otherwise: a value may be borrowed mutably \
                 only once and not also shared",
                short_name(component)
            ),
            Self::Undeclared { component, write } => write!(
                f,
                "component `{}` is not declared {} by this system: declare it when the system is made",
                short_name(component),
                if *write { "written" } else { "read" }
            ),
            Self::NotLifecycle { event } => write!(
                f,
                "`{}` is not a lifecycle event: observers by component id watch `Add`, `Insert`, `Discard`, \
                 `Remove` or `Despawn`",
                short_name(event)
            ),
            Self::HooksOfRustComponent { component } => write!(
                f,
                "component `{}` is a Rust type: declare its hooks with `#[component(on_add = …)]`",
                short_name(component)
            ),
            Self::DuplicateComponent { component } => write!(
                f,
                "component `{}` is given twice: an entity holds one value of each component",
                short_name(component)
            ),
            Self::RelationshipById { component } => write!(
                f,
                "component `{}` is a relationship: insert or remove it through its type, which keeps the \
                 target's list in step",
                short_name(component)
            ),
            Self::ValueOfOtherComponent { component, value } => write!(
                f,
                "a value of component `{}` cannot be given to component `{}`",
                short_name(value),
                short_name(component)
            ),
            Self::Immutable { component } => write!(
                f,
                "component `{}` is immutable: insert a new value instead, which runs its hooks",
                short_name(component)
            ),
            Self::UnknownSystem => {
                write!(f, "no system is registered under this id: it was unregistered, or the id is another world's")
            }
            Self::SystemAlreadyRunning { system } => write!(
                f,
                "system `{system}` was asked to run while it is running (it runs itself, directly or through \
                 other systems); it did not run again"
            ),
            Self::NotSnapshottable { component } => {
                let component = short_name(component);
                write!(
                    f,
                    "cannot snapshot the world: `{component}` is neither `Copy` nor `Clone`; derive `Clone` \
                     (or `Clone, Copy`) for `{component}`, or leave it out of snapshots with \
                     `#[component(snapshot = \"skip\")]` (a generic component says `#[component(snapshot = \"clone\")]`)"
                )
            }
            Self::IncompleteSnapshot => write!(
                f,
                "this snapshot is incomplete (taking it failed or panicked part-way), so it cannot be restored; \
                 take a new one"
            ),
            Self::RestoreOverObservers { observers } => write!(
                f,
                "cannot restore a snapshot into a world with observers ({observers} here): snapshots hold no \
                 observers, and restoring would drop them without their hooks; restore before adding observers, \
                 or save and load the world (`ecs_core::serialize`), which keeps them"
            ),
            Self::InvalidRelationship { entity, target, relationship, problem } => {
                let relationship = short_name(relationship);
                match problem {
                    RelationshipProblem::DeadTarget => write!(
                        f,
                        "`{relationship}({target})` was refused: entity {target} does not exist (despawned or stale), \
                         and a relationship may only point at a live entity"
                    ),
                    RelationshipProblem::SelfTarget => write!(
                        f,
                        "`{relationship}({target})` was refused on entity {entity}: an entity cannot be related to itself"
                    ),
                    RelationshipProblem::Cycle => write!(
                        f,
                        "`{relationship}({target})` was refused on entity {entity}: {target} is a descendant of {entity} \
                         through `{relationship}`, so the link would make a cycle; unlink {target} first"
                    ),
                }
            }
        }
    }
}

impl std::error::Error for EcsError {}
