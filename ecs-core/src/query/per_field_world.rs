//! Reading one entity's per-field component (`#[component(layout = "soa")]`)
//! through its views, and reading any `Clone` component out whole.

use super::fetch::stamp_rows;
use super::per_field::{lanes_of, refuse_tag};
use crate::component::{Component, MutableComponent, PerField, known_component_id};
use crate::entity::Entity;
use crate::world::{EntityRef, EntityWorldMut, World};

impl World {
    /// The entity's per-field component as its read view (`TRef`: one reference
    /// per field), or `None` when the entity is not alive or has no `T`: what
    /// [`get`](Self::get) is for a component stored whole.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)]
    /// #[component(layout = "soa")]
    /// struct Particle { x: f32, vx: f32 }
    /// let mut world = World::new();
    /// let e = world.spawn(Particle { x: 1.0, vx: 0.5 });
    /// let p = world.fields::<Particle>(e).unwrap();
    /// assert_eq!((*p.x, *p.vx), (1.0, 0.5));
    /// ```
    #[inline]
    pub fn fields<T: PerField>(&self, entity: Entity) -> Option<T::Ref<'_>> {
        refuse_tag::<T>();
        let location = self.entities.get(entity)?;
        let column = self.archetypes.get(location.archetype)?.column(known_component_id::<T>()?)?;
        // SAFETY: `T`'s column; a live entity's row is below every column's
        // length, and holds a value: `T` is a table component (`PerField`'s
        // contract; a tag is refused above), which every row of the archetype
        // has; `&self` keeps the world unwritten while the view lives.
        unsafe { Some(T::row(lanes_of::<T>(column), location.row.index())) }
    }

    /// The entity's per-field component as its write view (`TMut`: one `&mut`
    /// per field), or `None` when the entity is not alive or has no `T`. Marks
    /// the component changed (a write view has no wrapper to tell a read from
    /// a write, as `&mut T` in a query).
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)]
    /// #[component(layout = "soa")]
    /// struct Particle { x: f32, vx: f32 }
    /// let mut world = World::new();
    /// let e = world.spawn(Particle { x: 1.0, vx: 0.5 });
    /// let p = world.fields_mut::<Particle>(e).unwrap();
    /// *p.x += *p.vx;
    /// assert_eq!(*world.fields::<Particle>(e).unwrap().x, 1.5);
    /// ```
    #[inline]
    pub fn fields_mut<T: PerField + MutableComponent>(&mut self, entity: Entity) -> Option<T::Mut<'_>> {
        refuse_tag::<T>();
        let id = known_component_id::<T>()?;
        let location = self.entities.get(entity)?;
        let now = self.change_tick();
        let column = self.archetypes.get_mut(location.archetype).column_mut(id)?;
        let row = location.row.index();
        if column.keeps_ticks() {
            // SAFETY: the column keeps ticks (checked); `row` is below the length
            // (a live entity's row); `&mut self` makes the access unique.
            unsafe { stamp_rows(column, row..row + 1, now) };
        }
        // SAFETY: as in `fields`; `&mut self` makes the view the only access.
        unsafe { Some(T::row_mut(lanes_of::<T>(column), row)) }
    }

    /// A clone of the entity's `T`, or `None` when the entity is not alive or
    /// has no `T`. Works for every `Clone` component; for a per-field one it is
    /// the way to read the whole value (its fields are gathered, then cloned).
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component, Clone, PartialEq, Debug)]
    /// #[component(layout = "soa")]
    /// struct Particle { x: f32, vx: f32 }
    /// let mut world = World::new();
    /// let e = world.spawn(Particle { x: 1.0, vx: 0.5 });
    /// assert_eq!(world.get_cloned::<Particle>(e), Some(Particle { x: 1.0, vx: 0.5 }));
    /// ```
    pub fn get_cloned<T: Component + Clone>(&self, entity: Entity) -> Option<T> {
        let location = self.entities.get(entity)?;
        let column = self.archetypes.get(location.archetype)?.column(known_component_id::<T>()?)?;
        // SAFETY: the column of `T`'s id holds `T`s; `with_row` hands over a
        // value it holds (in place, or gathered), borrowed for the call.
        column.with_row(location.row.index(), |value| unsafe { value.deref::<T>() }.clone())
    }
}

impl<'w> EntityRef<'w> {
    /// The entity's per-field component as its read view (see [`World::fields`]).
    #[inline]
    pub fn fields<T: PerField>(&self) -> Option<T::Ref<'w>> {
        self.world_ref().fields::<T>(self.id())
    }

    /// A clone of the entity's `T` (see [`World::get_cloned`]).
    #[inline]
    pub fn get_cloned<T: Component + Clone>(&self) -> Option<T> {
        self.world_ref().get_cloned::<T>(self.id())
    }
}

impl EntityWorldMut<'_> {
    /// The entity's per-field component as its read view (see [`World::fields`]).
    #[inline]
    pub fn fields<T: PerField>(&self) -> Option<T::Ref<'_>> {
        self.world().fields::<T>(self.id())
    }

    /// The entity's per-field component as its write view, marked changed (see
    /// [`World::fields_mut`]).
    #[inline]
    pub fn fields_mut<T: PerField + MutableComponent>(&mut self) -> Option<T::Mut<'_>> {
        let entity = self.id();
        self.world_mut().fields_mut::<T>(entity)
    }

    /// A clone of the entity's `T` (see [`World::get_cloned`]).
    #[inline]
    pub fn get_cloned<T: Component + Clone>(&self) -> Option<T> {
        self.world().get_cloned::<T>(self.id())
    }
}
