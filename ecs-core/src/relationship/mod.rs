//! Relationships between entities: a component on the *source* entity names
//! its *target* ([`ChildOf`]`(parent)`), and a component on the target lists
//! its sources ([`Children`]), kept in step by hooks whichever way a link is
//! made or broken. The parent/child hierarchy is one instance; declare others
//! with the derive:
//!
//! ```
//! use ecs_core::prelude::*;
//!
//! #[derive(Component)]
//! #[relationship(target = Followers)]
//! struct Following(Entity);
//!
//! #[derive(Component, Default)]
//! #[relationship_target(relationship = Following, unlink)]
//! struct Followers(RelationshipSources);
//!
//! let mut world = World::new();
//! let star = world.spawn(());
//! let fan = world.spawn(Following(star));
//! assert_eq!(world.get::<Followers>(star).map(|f| f.0.to_vec()), Some(vec![fan]));
//! world.despawn(star)?;
//! // `unlink`: the fan stays, without its dangling link.
//! assert!(world.contains(fan) && !world.has::<Following>(fan));
//! # Ok::<(), EcsError>(())
//! ```
//!
//! # Rules
//! - The relationship component is the source of truth; the target component
//!   lists its sources in the order they were linked, and cannot be edited by
//!   hand (both are immutable components: change a link by inserting a new
//!   relationship, which runs the hooks). It holds them in a
//!   [`RelationshipSources`] or, as bevy_ecs's targets do, a `Vec<Entity>`
//!   ([`RelationshipSourceCollection`]); a list inserted by hand keeps only the
//!   sources that point at its entity, and one replacing another unlinks the
//!   sources it does not name.
//! - A link to a dead entity, to the entity itself, or to one of its own
//!   descendants is refused with [`EcsError::InvalidRelationship`](crate::EcsError::InvalidRelationship) and changes
//!   nothing (a command reports it; `World::spawn` spawns the entity without the
//!   link and reports it, as bevy_ecs does, and `World::try_spawn` returns it).
//! - Despawning a target despawns its sources (linked despawn, the default;
//!   the hierarchy's policy) or, with `unlink`, removes their relationship.
//!   Removing the target component by hand unlinks its sources. Nothing is
//!   left pointing at a dead entity.
//! - Relationships do not fragment storage: `ChildOf` is one component type,
//!   so children of different parents share an archetype.
//! - While a hook or observer runs inside a structural change, a target that
//!   had no list yet gets it when that change completes (the list is created by
//!   a command, as every structural change made by a hook is).

mod bulk;
mod hierarchy;
mod propagate;
#[cfg(feature = "serde")]
mod serde;
mod snapshot;
mod sources;
mod spawn_related;
mod traverse;
mod upkeep;

pub use hierarchy::{ChildOf, ChildSpawner, ChildSpawnerCommands, Children};
pub use sources::{RelationshipSourceCollection, RelationshipSources};
pub use spawn_related::SpawnRelated;
pub use traverse::{Ancestors, Descendants, DescendantsBreadthFirst};
pub(crate) mod upkeep_hooks {
    //! The hooks and checks `#[derive(Component)]` installs on relationships,
    //! reached by generated code through `ecs_core::__private`.
    pub use super::upkeep::{
        check_link, relationship_on_discard, relationship_on_insert, relationship_relink, relationship_replace,
        target_on_despawn, target_on_discard, target_on_insert, target_relink,
    };
}

use crate::component::Component;
use crate::entity::Entity;

/// A component on a *source* entity that points at a *target* entity, with
/// [`Target`](Self::Target) on the target listing every source. Derive it:
/// `#[derive(Component)] #[relationship(target = Followers)] struct Following(Entity);`
/// (a struct with one `Entity` field, or several fields with the target marked
/// `#[relationship]`; the others need `Default` for [`from`](Self::from)).
///
/// # Safety
/// [`get`](Self::get) returns the `Entity` stored in the component, the same
/// value on every call for the same component value (a plain read of a field, no
/// interior mutability). Hierarchy traversal that hands out mutable items in
/// parallel relies on each entity having exactly one target. Neither `Self` nor
/// [`Target`](Self::Target) implements
/// [`MutableComponent`](crate::component::MutableComponent) or sets
/// `Component::__MUTABLE`: traversal reads both outside any query's
/// declared access. The derive upholds all of this for the types it derives;
/// a target whose `Component` impl is written by hand is checked where
/// propagation relies on it (a hidden const, evaluated at compile time).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a relationship",
    label = "not a relationship component",
    note = "declare it with `#[derive(Component)] #[relationship(target = TargetComponent)] struct {Self}(Entity);`"
)]
pub unsafe trait Relationship: Component + crate::component::WholeComponent + Sized {
    /// The component on the target that lists the sources.
    type Target: RelationshipTarget<Relationship = Self>;

    /// The target entity.
    fn get(&self) -> Entity;

    /// A relationship pointing at `target` (other fields at their defaults).
    fn from(target: Entity) -> Self;

    /// Evaluated, at compile time, where the crate reads a relationship and
    /// its target outside any query's declared access (propagation): fails
    /// the build when either can be written by id. The derive cannot see the
    /// target's `Component` impl, which may be written by hand and set
    /// `Component::__MUTABLE`; this checks the contract above for it.
    #[doc(hidden)]
    const __WRITTEN_STRUCTURALLY_ONLY: () = assert!(
        !<Self as Component>::__MUTABLE && !<Self::Target as Component>::__MUTABLE,
        "a relationship and its target must not be writable by id (`Component::__MUTABLE`): propagation reads them \
         outside any query's access"
    );
}

/// The component on a *target* entity that lists the sources pointing at it
/// through [`Relationship`](Self::Relationship). Derive it:
/// `#[derive(Component, Default)] #[relationship_target(relationship = Following)] struct Followers(RelationshipSources);`
/// (or `struct Followers(Vec<Entity>);`, see [`RelationshipSourceCollection`]).
/// Add `unlink` to keep the sources alive when the target is despawned (the
/// default despawns them with it).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a relationship target",
    label = "not the target side of a relationship",
    note = "declare it with `#[derive(Component, Default)] #[relationship_target(relationship = YourRelationship)] \
            struct {Self}(RelationshipSources);`"
)]
pub trait RelationshipTarget: Component + crate::component::WholeComponent + Sized {
    /// The relationship on the sources.
    type Relationship: Relationship<Target = Self>;

    /// `true` when despawning the target despawns its sources (the default);
    /// `false` (`unlink`) when it only removes their relationship.
    const LINKED_SPAWN: bool;

    /// The sources, in the order they were linked.
    fn sources(&self) -> &[Entity];

    /// The list itself, for the world's upkeep (serialization).
    #[doc(hidden)]
    fn __sources(&self) -> &dyn RelationshipSourceCollection;

    /// The list itself, for the world's upkeep. Changing it by hand makes it
    /// disagree with the relationships; the derive provides it.
    #[doc(hidden)]
    fn __sources_mut(&mut self) -> &mut dyn RelationshipSourceCollection;

    /// A target listing `sources`, for the world's upkeep.
    #[doc(hidden)]
    fn __from_sources(sources: Vec<Entity>) -> Self;
}
