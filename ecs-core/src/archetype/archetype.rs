//! [`Archetype`]: the table of all entities that have exactly one set of components.
//!
//! ```text
//!  components:  [ Position(3), Velocity(7), Name(9) ]      sorted ComponentIds
//!  entities:    [ e4, e0, e9 ]                             row -> Entity
//!  columns:     [ Position col | Velocity col | Name col ]  same order as components
//!  column_of:   [ -, -, -, 0, -, -, -, 1, -, 2 ]            ComponentId -> column (sparse)
//! ```
//! Invariant: every column and `entities` have the same length, and row `r` of each
//! column belongs to `entities[r]`.

use super::{ArchetypeId, Edges};
use crate::component::{ComponentId, Components};
use crate::entity::Entity;
use crate::storage::Column;

const NO_COLUMN: u32 = u32::MAX;

/// All entities with exactly one set of component types, stored column by column.
#[derive(Debug)]
pub struct Archetype {
    pub(crate) id: ArchetypeId,
    pub(crate) components: Box<[ComponentId]>,
    pub(crate) entities: Vec<Entity>,
    pub(crate) columns: Box<[Column]>,
    /// Rows every column and `entities` can hold without reallocating. All columns
    /// grow together, so one comparison tells whether a push needs to grow.
    capacity: usize,
    /// Indexed by `ComponentId`; `NO_COLUMN` where the archetype lacks the component.
    /// Sized to the largest id of the archetype, so a lookup past it is a miss.
    column_of: Box<[u32]>,
    pub(crate) edges: Edges,
}

impl Archetype {
    /// # Panics
    /// When a component is not registered in `registry`, or `components` is not
    /// sorted and free of duplicates.
    pub(crate) fn new(id: ArchetypeId, components: Box<[ComponentId]>, registry: &Components) -> Self {
        assert!(components.windows(2).all(|w| w[0] < w[1]), "archetype type must be sorted and unique");
        let columns = components
            .iter()
            .map(|&c| Column::new(registry.get(c).expect("archetype component is registered")))
            .collect();
        let mut column_of = vec![NO_COLUMN; components.last().map_or(0, |c| c.index() + 1)];
        for (column, component) in components.iter().enumerate() {
            column_of[component.index()] = column as u32;
        }
        Self {
            id,
            components,
            entities: Vec::new(),
            columns,
            capacity: 0,
            column_of: column_of.into_boxed_slice(),
            edges: Edges::default(),
        }
    }

    /// This archetype's id.
    #[inline]
    pub fn id(&self) -> ArchetypeId {
        self.id
    }

    /// The archetype's component ids, sorted.
    #[inline]
    pub fn components(&self) -> &[ComponentId] {
        &self.components
    }

    /// The entity in each row.
    #[inline]
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// The number of entities (rows).
    #[inline]
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// `true` when the archetype holds no entity.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// The column index of a component, in O(1).
    #[inline]
    pub fn column_index(&self, component: ComponentId) -> Option<usize> {
        match self.column_of.get(component.index()) {
            Some(&column) if column != NO_COLUMN => Some(column as usize),
            _ => None,
        }
    }

    /// `true` when the archetype's entities have the component.
    #[inline]
    pub fn has(&self, component: ComponentId) -> bool {
        self.column_index(component).is_some()
    }

    /// The column of a component.
    #[inline]
    pub fn column(&self, component: ComponentId) -> Option<&Column> {
        // SAFETY: `column_of` only maps to indices of `columns` (built together in
        // `new`, never changed).
        self.column_index(component).map(|c| unsafe { self.columns.get_unchecked(c) })
    }

    /// The column of a component, mutably.
    #[inline]
    pub(crate) fn column_mut(&mut self, component: ComponentId) -> Option<&mut Column> {
        // SAFETY: as in `column`.
        self.column_index(component).map(|c| unsafe { self.columns.get_unchecked_mut(c) })
    }

    /// The columns, in the order of [`components`](Self::components).
    #[inline]
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// Makes room for `additional` more rows in every column and the entity column.
    #[inline]
    pub(crate) fn reserve(&mut self, additional: usize) {
        if self.capacity - self.entities.len() < additional {
            self.grow(additional);
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, additional: usize) {
        let required = self.entities.len().checked_add(additional).expect("archetype capacity overflow");
        let capacity = required.max(self.capacity.saturating_mul(2)).max(8);
        for column in self.columns.iter_mut() {
            column.grow_to(capacity);
        }
        self.entities.reserve_exact(capacity - self.entities.len());
        self.capacity = capacity;
    }

    /// Swap-removes `row` from the entity column and returns the entity that moved into
    /// it, if any. The component columns must already have been swap-removed.
    #[inline]
    pub(crate) fn swap_remove_entity(&mut self, row: usize) -> Option<Entity> {
        self.entities.swap_remove(row);
        self.entities.get(row).copied()
    }

    /// Checks that all columns have as many rows as the entity column.
    pub(crate) fn check_invariants(&self) -> Result<(), String> {
        if self.entities.capacity() < self.capacity || self.columns.iter().any(|c| c.capacity() < self.capacity) {
            return Err(format!("archetype {:?}: a column is smaller than the capacity {}", self.id, self.capacity));
        }
        for (column, component) in self.columns.iter().zip(self.components.iter()) {
            column.check_invariants().map_err(|e| format!("archetype {:?}, {component:?}: {e}", self.id))?;
            if column.len() != self.entities.len() {
                return Err(format!(
                    "archetype {:?}: column {component:?} has {} rows, entities {}",
                    self.id,
                    column.len(),
                    self.entities.len()
                ));
            }
        }
        for (c, component) in self.components.iter().enumerate() {
            if self.column_index(*component) != Some(c) {
                return Err(format!("archetype {:?}: lookup of {component:?} is wrong", self.id));
            }
        }
        let mapped = self.column_of.iter().filter(|&&c| c != NO_COLUMN).count();
        if mapped != self.components.len() {
            return Err(format!("archetype {:?}: lookup maps {mapped} components", self.id));
        }
        Ok(())
    }
}
