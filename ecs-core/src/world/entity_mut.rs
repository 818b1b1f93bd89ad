//! [`EntityWorldMut`]: one live entity with the whole world borrowed mutably, for
//! chains of structural changes (`world.entity_mut(e)?.insert(a).remove::<B>()`).
//!
//! The handle keeps the entity, not its location: every call looks the location up
//! again, so it stays right across the handle's own moves between archetypes.
//! Only [`despawn`](EntityWorldMut::despawn), which consumes the handle, can end
//! the entity, and the handle gives no `&mut World` out, so the entity is alive for
//! as long as the handle exists.

use crate::bundle::Bundle;
use crate::component::{Component, ComponentId};
use crate::entity::{Entity, EntityLocation};
use crate::error::EcsError;
use crate::world::{EntityRef, World};

/// One live entity of a mutably borrowed world. Made by [`World::entity_mut`] and
/// [`World::spawn_empty`].
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
///
/// #[derive(Component, Debug, PartialEq)] struct Position(f32);
/// #[derive(Component, Debug, PartialEq)] struct Velocity(f32);
/// #[derive(Component)] struct Frozen;
///
/// let mut world = World::new();
/// let e = world.spawn_empty().insert((Position(0.0), Velocity(2.0))).insert(Frozen).id();
///
/// let mut ship = world.entity_mut(e)?;
/// ship.remove::<Frozen>();
/// let v = ship.get::<Velocity>().unwrap().0;
/// ship.get_mut::<Position>().unwrap().0 += v;
/// assert_eq!(ship.take::<Velocity>(), Ok(Velocity(2.0)));
/// assert!(ship.contains::<Position>() && !ship.contains::<Velocity>());
/// ship.despawn();
/// assert!(world.entity_mut(e).is_err(), "a despawned entity has no handle");
/// # Ok::<(), EcsError>(())
/// ```
pub struct EntityWorldMut<'w> {
    world: &'w mut World,
    entity: Entity,
}

impl<'w> EntityWorldMut<'w> {
    /// # Panics
    /// (Debug builds) when the entity is not alive.
    pub(crate) fn new(world: &'w mut World, entity: Entity) -> Self {
        debug_assert!(world.contains(entity));
        Self { world, entity }
    }

    /// The entity's handle.
    #[inline]
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// Where the entity's components are now.
    #[inline]
    pub fn location(&self) -> EntityLocation {
        self.world.location(self.entity).expect("the entity of an EntityWorldMut is alive")
    }

    /// The world, read-only (the handle keeps the only mutable borrow).
    #[inline]
    pub fn world(&self) -> &World {
        self.world
    }

    /// A read-only view of the entity.
    #[inline]
    pub fn as_ref(&self) -> EntityRef<'_> {
        self.world.entity(self.entity).expect("the entity of an EntityWorldMut is alive")
    }

    /// The entity's `T`, if it has one.
    #[inline]
    pub fn get<T: Component + crate::component::WholeComponent>(&self) -> Option<&T> {
        self.world.get::<T>(self.entity)
    }

    /// The entity's `T` mutably, if it has one; marks it changed.
    #[inline]
    pub fn get_mut<T: Component + crate::component::MutableComponent + crate::component::WholeComponent>(
        &mut self,
    ) -> Option<crate::Mut<'_, T>> {
        self.world.get_mut::<T>(self.entity)
    }

    /// `true` when the entity has a `T`.
    #[inline]
    pub fn contains<T: Component>(&self) -> bool {
        self.world.has::<T>(self.entity)
    }

    /// Adds the components of `bundle`, replacing (and dropping) those the entity
    /// already has (see [`World::insert`]).
    ///
    /// # Panics
    /// When a replaced value's `Drop` panics (after the insert is complete), or
    /// when the bundle holds a relationship that is refused (a dead target, the
    /// entity itself, a cycle; [`World::insert`] returns that as an error).
    #[track_caller]
    pub fn insert<B: Bundle>(&mut self, bundle: B) -> &mut Self {
        if let Err(error) = self.world.insert(self.entity, bundle) {
            panic!("{error}");
        }
        self
    }

    /// Inserts `value` as component `id` (see [`World::insert_by_id`]).
    ///
    /// # Errors
    /// As for [`World::insert_by_id`]; nothing changes then.
    pub fn insert_by_id(&mut self, id: ComponentId, value: super::DynamicValue) -> Result<&mut Self, EcsError> {
        self.world.insert_by_id(self.entity, id, value)?;
        Ok(self)
    }

    /// Removes component `id` and drops its value (see [`World::remove_by_id`]).
    ///
    /// # Errors
    /// As for [`World::remove_by_id`]; nothing changes then.
    pub fn remove_by_id(&mut self, id: ComponentId) -> Result<&mut Self, EcsError> {
        self.world.remove_by_id(self.entity, id)?;
        Ok(self)
    }

    /// Removes and drops whichever components of `B` the entity has, as bevy_ecs
    /// does: `remove::<(Burning, Wet)>()` on an entity that is only burning
    /// removes `Burning`. ([`take`](Self::take), which returns the values, needs
    /// them all, as [`World::remove`] does.)
    pub fn remove<B: Bundle>(&mut self) -> &mut Self {
        // All present: one move. Otherwise one component at a time.
        if self.world.remove::<B>(self.entity).is_err() {
            B::__remove_present(self.world, self.entity);
        }
        self
    }

    /// Removes the components of `B` and returns them.
    ///
    /// # Errors
    /// [`EcsError::MissingComponent`] naming the first component of `B` the entity
    /// lacks; nothing is removed then.
    pub fn take<B: Bundle>(&mut self) -> Result<B, EcsError> {
        self.world.remove::<B>(self.entity)
    }

    /// The world, for the crate's own entity-scoped helpers.
    pub(crate) fn world_mut(&mut self) -> &mut World {
        self.world
    }

    /// Despawns the entity, dropping its components (see [`World::despawn`]).
    ///
    /// # Panics
    /// When a component's `Drop` panics (after the entity is gone and every other
    /// component is dropped).
    pub fn despawn(self) {
        self.world.despawn(self.entity).expect("the entity of an EntityWorldMut is alive");
    }
}

impl core::fmt::Debug for EntityWorldMut<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&self.as_ref(), f)
    }
}

impl World {
    /// The live entity `entity`, with the world borrowed mutably for chained
    /// changes (see [`EntityWorldMut`]).
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] when the entity is not alive.
    #[inline]
    pub fn entity_mut(&mut self, entity: Entity) -> Result<EntityWorldMut<'_>, EcsError> {
        if !self.contains(entity) {
            return Err(EcsError::NoSuchEntity(entity));
        }
        Ok(EntityWorldMut::new(self, entity))
    }

    /// Spawns an entity with no component and returns its handle, to build it up
    /// with [`insert`](EntityWorldMut::insert).
    #[inline]
    pub fn spawn_empty(&mut self) -> EntityWorldMut<'_> {
        let entity = self.spawn(());
        EntityWorldMut::new(self, entity)
    }
}

/// What a bevy user writes after `world.spawn(…)`, refused with a message that
/// says why: here `spawn` returns the [`Entity`] (see the guide), so these
/// methods of `EntityWorldMut` do not exist on it. Each is bounded by a trait
/// nothing implements, so calling one is a compile error naming the fix.
#[diagnostic::on_unimplemented(
    message = "`World::spawn` returns the new `Entity`, not an `EntityWorldMut`",
    label = "this is an `Entity`: it has no `EntityWorldMut` methods",
    note = "keep the id (`let e = world.spawn(bundle);`) and change the entity through the world: \
            `world.entity_mut(e)?.insert(…)`, or spawn with `world.spawn_empty()`, which returns an \
            `EntityWorldMut`: `world.spawn_empty().insert(bundle).with_children(…)`"
)]
pub trait SpawnReturnsEntity<Args> {}

#[doc(hidden)]
impl Entity {
    /// Not a method: see [`SpawnReturnsEntity`].
    pub fn insert<B>(self, _bundle: B) -> Self
    where
        Self: SpawnReturnsEntity<B>,
    {
        self
    }

    /// Not a method: see [`SpawnReturnsEntity`].
    pub fn with_children<F>(self, _spawn: F) -> Self
    where
        Self: SpawnReturnsEntity<F>,
    {
        self
    }

    /// Not a method: see [`SpawnReturnsEntity`].
    pub fn with_child<B>(self, _bundle: B) -> Self
    where
        Self: SpawnReturnsEntity<B>,
    {
        self
    }

    /// Not a method: see [`SpawnReturnsEntity`].
    pub fn observe<O>(self, _observer: O) -> Self
    where
        Self: SpawnReturnsEntity<O>,
    {
        self
    }

    /// Not a method: see [`SpawnReturnsEntity`].
    pub fn remove<B>(self) -> Self
    where
        Self: SpawnReturnsEntity<B>,
    {
        self
    }
}
