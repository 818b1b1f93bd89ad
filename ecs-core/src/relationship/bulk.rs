//! Editing all of an entity's related entities at once, bevy_ecs's names:
//! `despawn_related::<Children>()`, `detach_all_related::<ChildOf>()` (0.17's
//! `clear_related`) and the hierarchy's `despawn_children`,
//! `detach_all_children` (0.17's `clear_children`), `remove_children`,
//! `insert_children`, on [`EntityWorldMut`] and [`EntityCommands`].

use super::{ChildOf, Children, Relationship, RelationshipTarget};
use crate::command::EntityCommands;
use crate::entity::Entity;
use crate::panics::{catch_each, resume_deferred};
use crate::world::{EntityWorldMut, World};

impl World {
    /// The sources `target`'s `S` lists, copied (none when it has no `S`).
    fn sources_of<S: RelationshipTarget>(&self, target: Entity) -> Vec<Entity> {
        self.get::<S>(target).map(|list| list.sources().to_vec()).unwrap_or_default()
    }

    /// Despawns every source `target`'s `S` lists (and, through a linked
    /// despawn, what hangs below them). A despawn a hook stops by panicking
    /// does not stop the others; the first panic goes on after.
    fn despawn_sources<S: RelationshipTarget>(&mut self, target: Entity) {
        let sources = self.sources_of::<S>(target);
        resume_deferred(catch_each(sources.into_iter(), |source| {
            let _ = self.despawn(source);
        }));
    }

    /// Removes `R` from every source listed on `target`, which keeps them.
    fn detach_sources<R: Relationship>(&mut self, target: Entity) {
        let sources = self.sources_of::<R::Target>(target);
        resume_deferred(catch_each(sources.into_iter(), |source| {
            if self.get::<R>(source).is_some_and(|r| r.get() == target) {
                let _ = self.remove::<R>(source);
            }
        }));
    }
}

impl EntityWorldMut<'_> {
    /// Despawns every entity this entity's `S` lists: `despawn_related::<Children>()`
    /// despawns its children (and their descendants); the entity stays.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// let mut world = World::new();
    /// let ship = world.spawn(());
    /// let turret = world.spawn(ChildOf(ship));
    /// let barrel = world.spawn(ChildOf(turret));
    /// world.entity_mut(ship)?.despawn_related::<Children>();
    /// assert!(world.contains(ship));
    /// assert!(!world.contains(turret) && !world.contains(barrel));
    /// # Ok::<(), EcsError>(())
    /// ```
    pub fn despawn_related<S: RelationshipTarget>(&mut self) -> &mut Self {
        let target = self.id();
        self.world_mut().despawn_sources::<S>(target);
        self
    }

    /// Takes `R` off every entity related to this one through it (they stay,
    /// unlinked): `detach_all_related::<ChildOf>()` makes its children roots.
    pub fn detach_all_related<R: Relationship>(&mut self) -> &mut Self {
        let target = self.id();
        self.world_mut().detach_sources::<R>(target);
        self
    }

    /// Despawns this entity's children and their descendants; the entity stays.
    pub fn despawn_children(&mut self) -> &mut Self {
        self.despawn_related::<Children>()
    }

    /// Unlinks every child of this entity (they stay, as roots).
    pub fn detach_all_children(&mut self) -> &mut Self {
        self.detach_all_related::<ChildOf>()
    }

    /// [`detach_all_children`](Self::detach_all_children), by bevy 0.17's name.
    pub fn clear_children(&mut self) -> &mut Self {
        self.detach_all_children()
    }

    /// [`detach_all_related`](Self::detach_all_related), by bevy 0.17's name.
    pub fn clear_related<R: Relationship>(&mut self) -> &mut Self {
        self.detach_all_related::<R>()
    }

    /// Unlinks each of `children` that is a child of this entity.
    pub fn remove_children(&mut self, children: &[Entity]) -> &mut Self {
        for &child in children {
            self.remove_child(child);
        }
        self
    }

    /// Makes `children` children of this entity, in order, from position
    /// `index` among its children (clamped to the end).
    ///
    /// # Panics
    /// As [`add_child`](Self::add_child).
    #[track_caller]
    pub fn insert_children(&mut self, index: usize, children: &[Entity]) -> &mut Self {
        for (offset, &child) in children.iter().enumerate() {
            self.insert_child(index.saturating_add(offset), child);
        }
        self
    }
}

impl EntityCommands<'_, '_> {
    /// Despawns every entity this entity's `S` lists, when the commands are
    /// applied (see [`EntityWorldMut::despawn_related`]).
    pub fn despawn_related<S: RelationshipTarget>(&mut self) -> &mut Self {
        let target = self.id();
        self.commands().run(move |world| world.despawn_sources::<S>(target));
        self
    }

    /// Takes `R` off every entity related to this one through it, when the
    /// commands are applied (see [`EntityWorldMut::detach_all_related`]).
    pub fn detach_all_related<R: Relationship>(&mut self) -> &mut Self {
        let target = self.id();
        self.commands().run(move |world| world.detach_sources::<R>(target));
        self
    }

    /// Despawns this entity's children and their descendants, when the
    /// commands are applied; the entity stays.
    pub fn despawn_children(&mut self) -> &mut Self {
        self.despawn_related::<Children>()
    }

    /// Unlinks every child of this entity, when the commands are applied.
    pub fn detach_all_children(&mut self) -> &mut Self {
        self.detach_all_related::<ChildOf>()
    }

    /// [`detach_all_children`](Self::detach_all_children), by bevy 0.17's name.
    pub fn clear_children(&mut self) -> &mut Self {
        self.detach_all_children()
    }

    /// [`detach_all_related`](Self::detach_all_related), by bevy 0.17's name.
    pub fn clear_related<R: Relationship>(&mut self) -> &mut Self {
        self.detach_all_related::<R>()
    }

    /// Unlinks each of `children` that is a child of this entity.
    pub fn remove_children(&mut self, children: &[Entity]) -> &mut Self {
        for &child in children {
            self.remove_child(child);
        }
        self
    }

    /// Makes `children` children of this entity, in order, from position
    /// `index`; each refused link is reported.
    pub fn insert_children(&mut self, index: usize, children: &[Entity]) -> &mut Self {
        for (offset, &child) in children.iter().enumerate() {
            self.insert_child(index.saturating_add(offset), child);
        }
        self
    }
}
