//! The parent/child hierarchy: [`ChildOf`] and [`Children`], one instance of the
//! generic relationship, and the conveniences bevy_ecs users expect.

use super::{RelationshipSources, RelationshipTarget};
use crate::bundle::Bundle;
use crate::command::{Commands, EntityCommands};
use crate::entity::Entity;
use crate::error::EcsError;
use crate::world::{EntityWorldMut, World};

/// The parent of an entity: the source of truth of the hierarchy. Insert it to
/// link (or relink) a child; remove it to unlink. The parent's [`Children`]
/// follows. Immutable: replace it with `insert`.
///
/// Children of different parents share one archetype: `ChildOf` is one
/// component type whatever its parent.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// let mut world = World::new();
/// let ship = world.spawn(());
/// let turret = world.spawn(ChildOf(ship));
/// assert_eq!(world.parent(turret), Some(ship));
/// assert_eq!(world.children(ship), [turret]);
/// world.despawn(ship)?; // takes the turret with it
/// assert!(!world.contains(turret));
/// # Ok::<(), EcsError>(())
/// ```
#[derive(crate::Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[component(__do_not_recommend)]
#[relationship(target = Children)]
pub struct ChildOf(pub Entity);

impl ChildOf {
    /// The parent.
    #[inline]
    pub fn parent(&self) -> Entity {
        self.0
    }
}

/// The children of an entity, in the order they were linked: kept in step with
/// their [`ChildOf`] by hooks, and removed when the last child leaves.
/// Despawning the parent despawns the children (and theirs). It derefs to
/// `[Entity]` and cannot be edited by hand; reorder with
/// [`EntityWorldMut::insert_child`].
#[derive(crate::Component, PartialEq, Eq)]
#[component(__do_not_recommend)]
#[relationship_target(relationship = ChildOf)]
pub struct Children(RelationshipSources);

impl core::ops::Deref for Children {
    type Target = [Entity];
    #[inline]
    fn deref(&self) -> &[Entity] {
        &self.0
    }
}

/// Compares with plain lists: `assert_eq!(*world.get::<Children>(p).unwrap(), [a, b])`.
impl PartialEq<[Entity]> for Children {
    fn eq(&self, other: &[Entity]) -> bool {
        self.0 == *other
    }
}

impl<const N: usize> PartialEq<[Entity; N]> for Children {
    fn eq(&self, other: &[Entity; N]) -> bool {
        self.0 == *other
    }
}

impl PartialEq<Vec<Entity>> for Children {
    fn eq(&self, other: &Vec<Entity>) -> bool {
        self.0 == *other
    }
}

impl PartialEq<&[Entity]> for Children {
    fn eq(&self, other: &&[Entity]) -> bool {
        self.0 == *other
    }
}

impl core::fmt::Debug for Children {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("Children").field(&self.0).finish()
    }
}

impl<'a> IntoIterator for &'a Children {
    type Item = &'a Entity;
    type IntoIter = core::slice::Iter<'a, Entity>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// Spawns children of one parent, from [`EntityWorldMut::with_children`].
pub struct ChildSpawner<'w> {
    world: &'w mut World,
    parent: Entity,
}

impl ChildSpawner<'_> {
    /// Spawns a child with `bundle` (and `ChildOf(parent)`).
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> EntityWorldMut<'_> {
        let child = self.world.spawn((bundle, ChildOf(self.parent)));
        EntityWorldMut::new(self.world, child)
    }

    /// The parent the children are spawned under.
    pub fn parent(&self) -> Entity {
        self.parent
    }
}

/// Spawns children of one parent through commands, from
/// [`EntityCommands::with_children`]: bevy's `ChildSpawnerCommands`.
pub struct ChildSpawnerCommands<'a, 'w> {
    commands: &'a mut Commands<'w>,
    parent: Entity,
}

impl<'w> ChildSpawnerCommands<'_, 'w> {
    /// Spawns a child with `bundle` (and `ChildOf(parent)`) when the commands
    /// are applied; its handle is usable at once.
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> EntityCommands<'_, 'w> {
        self.commands.spawn((bundle, ChildOf(self.parent)))
    }

    /// The parent the children are spawned under.
    pub fn parent(&self) -> Entity {
        self.parent
    }
}

impl World {
    /// The parent of `entity` (its [`ChildOf`]), if it has one.
    #[inline]
    pub fn parent(&self, entity: Entity) -> Option<Entity> {
        self.get::<ChildOf>(entity).map(ChildOf::parent)
    }

    /// The children of `entity`, in order; empty when it has none (or is dead).
    #[inline]
    pub fn children(&self, entity: Entity) -> &[Entity] {
        self.get::<Children>(entity).map_or(&[], |c| c.sources())
    }

    /// Links `child` under `parent` (both sides updated; a child with another
    /// parent moves).
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] for a dead child; [`EcsError::InvalidRelationship`]
    /// for a dead parent, `child == parent`, or a parent that descends from the
    /// child. Nothing changes then.
    pub fn set_parent(&mut self, child: Entity, parent: Entity) -> Result<(), EcsError> {
        self.insert(child, ChildOf(parent))
    }

    /// Unlinks `child` from its parent (if it has one).
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] when `child` is not alive.
    pub fn remove_parent(&mut self, child: Entity) -> Result<(), EcsError> {
        if !self.contains(child) {
            return Err(EcsError::NoSuchEntity(child));
        }
        let _ = self.remove::<ChildOf>(child);
        Ok(())
    }

    /// Despawns `entity` and every descendant (what [`despawn`](Self::despawn)
    /// does for the hierarchy anyway; named for readers).
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] when `entity` is not alive.
    pub fn despawn_recursive(&mut self, entity: Entity) -> Result<(), EcsError> {
        self.despawn(entity)
    }

    /// Moves `child` (a child of `parent`) to position `index` among its siblings.
    fn move_child(&mut self, parent: Entity, child: Entity, index: usize) {
        if let Some(mut children) = self.get_mut_internal::<Children>(parent) {
            children.__sources_mut().__move_to(child, index);
        }
    }
}

impl EntityWorldMut<'_> {
    /// Spawns children with `f`: `parent.with_children(|c| { c.spawn(Wheel); })`.
    pub fn with_children(&mut self, f: impl FnOnce(&mut ChildSpawner<'_>)) -> &mut Self {
        let parent = self.id();
        f(&mut ChildSpawner { world: self.world_mut(), parent });
        self
    }

    /// Makes `child` a child of this entity (last among its children).
    ///
    /// # Panics
    /// When the link is refused: `child` is dead, is this entity, or is one of
    /// its ancestors ([`World::set_parent`] returns the error instead).
    #[track_caller]
    pub fn add_child(&mut self, child: Entity) -> &mut Self {
        let parent = self.id();
        if let Err(error) = self.world_mut().set_parent(child, parent) {
            panic!("{error}");
        }
        self
    }

    /// Makes each of `children` a child of this entity, in order.
    ///
    /// # Panics
    /// As [`add_child`](Self::add_child).
    #[track_caller]
    pub fn add_children(&mut self, children: &[Entity]) -> &mut Self {
        children.iter().for_each(|&child| {
            self.add_child(child);
        });
        self
    }

    /// Makes `child` a child of this entity at position `index` among its
    /// children (clamped to the end).
    ///
    /// # Panics
    /// As [`add_child`](Self::add_child).
    #[track_caller]
    pub fn insert_child(&mut self, index: usize, child: Entity) -> &mut Self {
        let parent = self.id();
        if self.world().parent(child) != Some(parent) {
            self.add_child(child);
        }
        self.world_mut().move_child(parent, child, index);
        self
    }

    /// Unlinks `child` if it is a child of this entity.
    pub fn remove_child(&mut self, child: Entity) -> &mut Self {
        let parent = self.id();
        if self.world().parent(child) == Some(parent) {
            let _ = self.world_mut().remove::<ChildOf>(child);
        }
        self
    }

    /// Makes this entity a child of `parent` (the other side of
    /// [`add_child`](Self::add_child)).
    ///
    /// # Panics
    /// As [`add_child`](Self::add_child).
    #[track_caller]
    pub fn set_parent(&mut self, parent: Entity) -> &mut Self {
        let child = self.id();
        if let Err(error) = self.world_mut().set_parent(child, parent) {
            panic!("{error}");
        }
        self
    }

    /// Unlinks this entity from its parent.
    pub fn remove_parent(&mut self) -> &mut Self {
        let child = self.id();
        let _ = self.world_mut().remove::<ChildOf>(child);
        self
    }
}

impl EntityCommands<'_, '_> {
    /// Spawns a child with `bundle` (see [`EntityWorldMut::with_children`]).
    pub fn with_child<B: Bundle>(&mut self, bundle: B) -> &mut Self {
        let parent = self.id();
        self.commands().spawn((bundle, ChildOf(parent)));
        self
    }

    /// Spawns children with `f`, as [`EntityWorldMut::with_children`] does,
    /// through commands: `commands.entity(ship).with_children(|c| { c.spawn(Turret); })`.
    /// A child whose parent is dead by the time the commands are applied is
    /// reported (the link is refused) and not spawned.
    ///
    /// # Example
    /// ```
    /// use ecs_core::prelude::*;
    /// #[derive(Component)] struct Turret;
    /// fn arm(mut commands: Commands, ships: Query<Entity, Without<Children>>) {
    ///     for ship in ships.iter() {
    ///         commands.entity(ship).with_children(|c| {
    ///             c.spawn(Turret);
    ///             c.spawn(Turret);
    ///         });
    ///     }
    /// }
    /// let mut world = World::new();
    /// let ship = world.spawn(());
    /// world.run_system_once(arm)?;
    /// assert_eq!(world.children(ship).len(), 2);
    /// # Ok::<(), EcsError>(())
    /// ```
    pub fn with_children(&mut self, f: impl FnOnce(&mut ChildSpawnerCommands<'_, '_>)) -> &mut Self {
        let parent = self.id();
        f(&mut ChildSpawnerCommands { commands: self.commands(), parent });
        self
    }

    /// Makes each of `children` a child of this entity, in order; each refused
    /// link is reported.
    pub fn add_children(&mut self, children: &[Entity]) -> &mut Self {
        for &child in children {
            self.add_child(child);
        }
        self
    }

    /// Makes `child` a child of this entity; a refused link is reported.
    pub fn add_child(&mut self, child: Entity) -> &mut Self {
        let parent = self.id();
        self.commands().add(move |world| world.set_parent(child, parent));
        self
    }

    /// Makes `child` a child of this entity at `index`; a refused link is reported.
    pub fn insert_child(&mut self, index: usize, child: Entity) -> &mut Self {
        let parent = self.id();
        self.commands().add(move |world| {
            world.set_parent(child, parent)?;
            world.move_child(parent, child, index);
            Ok(())
        });
        self
    }

    /// Unlinks `child` if it is a child of this entity.
    pub fn remove_child(&mut self, child: Entity) -> &mut Self {
        let parent = self.id();
        self.commands().add(move |world| {
            if world.parent(child) == Some(parent) {
                world.remove_parent(child)?;
            }
            Ok(())
        });
        self
    }

    /// Makes this entity a child of `parent`; a refused link is reported.
    pub fn set_parent(&mut self, parent: Entity) -> &mut Self {
        let child = self.id();
        self.commands().add(move |world| world.set_parent(child, parent));
        self
    }

    /// Unlinks this entity from its parent.
    pub fn remove_parent(&mut self) -> &mut Self {
        let child = self.id();
        self.commands().add(move |world| world.remove_parent(child));
        self
    }
}
