//! One row of a dynamic query: [`DynamicRow`] and [`DynamicRowMut`], each
//! component read (and written) through its schema or as its Rust type.

use super::{DynamicQuery, Term};
use crate::archetype::Archetype;
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::error::EcsError;
use crate::storage::Tick;
use crate::world::{ComponentMut, ComponentRef, World};

/// One row of a [`DynamicQuery`], read-only.
pub struct DynamicRow<'w, 'q> {
    pub(super) world: &'w World,
    pub(super) archetype: &'w Archetype,
    pub(super) row: usize,
    pub(super) query: &'q DynamicQuery,
}

impl<'w> DynamicRow<'w, '_> {
    /// The row's entity.
    pub fn entity(&self) -> Entity {
        self.archetype.entities()[self.row]
    }

    /// Component `id` through its schema; `None` when an optional component
    /// is absent.
    ///
    /// # Panics
    /// When the query does not fetch `id`, or the component has no schema
    /// (read it with [`get_typed`](Self::get_typed)).
    #[track_caller]
    pub fn get(&self, id: ComponentId) -> Option<ComponentRef<'w>> {
        assert!(
            self.query.term(id).is_some(),
            "the query does not fetch component {}",
            self.world.components().name(id)
        );
        match self.world.get_by_id(self.entity(), id) {
            Ok(view) => Some(view),
            Err(EcsError::MissingComponent { .. }) => None,
            Err(error) => panic!("{error}"),
        }
    }

    /// Component `id` as its Rust type `T`; `None` when an optional component
    /// is absent, or `T` is not its type.
    pub fn get_typed<T: crate::Component + crate::component::WholeComponent>(&self, id: ComponentId) -> Option<&'w T> {
        self.query.term(id)?;
        if crate::component::component_id::<T>() != id {
            return None;
        }
        self.world.get::<T>(self.entity())
    }
}

/// One row of a [`DynamicQuery`], with its written components writable: one
/// row at a time, and one writable view of it at a time.
pub struct DynamicRowMut<'w, 'q> {
    pub(super) world: &'w World,
    pub(super) archetype: &'w Archetype,
    pub(super) row: usize,
    /// What writes are stamped with. The visit holds the query's written
    /// components exclusively: through `&mut World`, or as a system whose
    /// access the schedule checked.
    pub(super) tick: Tick,
    pub(super) query: &'q DynamicQuery,
}

impl DynamicRowMut<'_, '_> {
    /// The row's entity.
    pub fn entity(&self) -> Entity {
        self.archetype.entities()[self.row]
    }

    /// The row read-only, for as long as `self` is borrowed: reads go through
    /// it, so no writable view of the row is out meanwhile.
    fn read(&self) -> DynamicRow<'_, '_> {
        DynamicRow { world: self.world, archetype: self.archetype, row: self.row, query: self.query }
    }

    /// Component `id` through its schema, read-only.
    ///
    /// # Panics
    /// As for [`DynamicRow::get`].
    #[track_caller]
    pub fn get(&self, id: ComponentId) -> Option<ComponentRef<'_>> {
        self.read().get(id)
    }

    /// Component `id` as its Rust type `T`, read-only; `None` as for
    /// [`DynamicRow::get_typed`].
    pub fn get_typed<T: crate::Component + crate::component::WholeComponent>(&self, id: ComponentId) -> Option<&T> {
        self.read().get_typed(id)
    }

    /// Component `id` through its schema, writable; each write marks it
    /// changed. `None` when an optional component is absent.
    ///
    /// # Panics
    /// When the query does not write `id`, or the component has no schema.
    #[track_caller]
    pub fn get_mut(&mut self, id: ComponentId) -> Option<ComponentMut<'_>> {
        let components = self.world.components();
        assert!(
            matches!(self.query.term(id), Some((_, Term::Write))),
            "the query does not write component {}",
            components.name(id)
        );
        let info = components.get(id).expect("a built query's components are its world's");
        if info.kind().is_none() {
            panic!("{}", EcsError::NotDescribed { component: info.name() });
        }
        let column = self.archetype.column(id)?;
        if !column.holds(self.row) {
            return None;
        }
        // SAFETY: the row holds a value (checked) of a component with a schema
        // that the query writes, below the column's length. The visit holds
        // the query's written components exclusively (see `tick`), hands out
        // one row at a time, and `&mut self` makes this the row's only view
        // meanwhile; a kept tick is the row's own.
        unsafe {
            let (ptr, bases, ticks, summary) = column.get_tracked_raw_shared(self.row);
            let view = ComponentRef::of_row(info, ptr, bases, self.row);
            Some(ComponentMut::tracked(view, ticks.map(|t| &mut *t.as_ptr()), summary, self.tick))
        }
    }
}
