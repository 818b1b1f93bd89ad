//! [`EntityRef`]: a read-only view of one live entity.

use crate::archetype::Archetype;
use crate::component::{Component, ComponentInfo, component_id};
use crate::entity::{Entity, EntityLocation};
use crate::world::World;

/// A read-only view of one live entity, from [`World::entity`] or [`World::iter`].
#[derive(Clone, Copy)]
pub struct EntityRef<'w> {
    world: &'w World,
    entity: Entity,
    location: EntityLocation,
}

impl<'w> EntityRef<'w> {
    pub(crate) fn new(world: &'w World, entity: Entity, location: EntityLocation) -> Self {
        Self { world, entity, location }
    }

    /// The world the entity lives in.
    #[inline]
    pub(crate) fn world_ref(&self) -> &'w World {
        self.world
    }

    /// The entity's handle.
    #[inline]
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// The archetype holding the entity.
    #[inline]
    pub fn archetype(&self) -> &'w Archetype {
        self.world.archetypes().get(self.location.archetype).expect("a live entity's archetype exists")
    }

    /// The entity's `T`, if it has one.
    #[inline]
    pub fn get<T: Component + crate::component::WholeComponent>(&self) -> Option<&'w T> {
        // SAFETY: an `EntityRef` holds a live entity's location, current while
        // the world is borrowed shared for `'w`.
        unsafe { self.world.get_at(self.location) }
    }

    /// `true` when the entity has a `T`.
    #[inline]
    pub fn contains<T: Component>(&self) -> bool {
        self.archetype().has_at(component_id::<T>(), self.location.row.index())
    }

    /// `true` when the entity has component `id` (typed or defined at run
    /// time), as bevy's `EntityRef::contains_id`.
    #[inline]
    pub fn contains_id(&self, id: crate::component::ComponentId) -> bool {
        self.archetype().has_at(id, self.location.row.index())
    }

    /// The infos of the entity's components: data components in id order, then tags.
    pub fn components(&self) -> impl Iterator<Item = &'w ComponentInfo> + 'w {
        let components = self.world.components();
        let archetype = self.archetype();
        let row = self.location.row.index();
        archetype
            .components()
            .iter()
            .filter(move |&&c| archetype.has_at(c, row))
            .filter_map(move |&c| components.get(c))
    }
}

impl core::fmt::Debug for EntityRef<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("EntityRef")
            .field("entity", &self.entity)
            .field("components", &self.components().map(ComponentInfo::name).collect::<Vec<_>>())
            .finish()
    }
}
