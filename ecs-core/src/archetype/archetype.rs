//! [`Archetype`]: the table of all entities that have exactly one set of data
//! components (and any sparse components and tags).
//!
//! ```text
//!  key:         [ Position(3), Velocity(7) ]                sorted data ComponentIds
//!  components:  [ Position(3), Velocity(7), Frozen(9) ]     one per column: key, then sparse
//!  entities:    [ e4, e0, e9 ]                              row -> Entity
//!  columns:     [ Position | Velocity | Frozen (ticks) ]    same order as components
//!  column_of:   [ -, -, -, 0, -, -, -, 1, -, 2 ]             ComponentId -> column (sparse)
//! ```
//! Invariant: every column and `entities` have the same length, and row `r` of each
//! column belongs to `entities[r]`.
//!
//! Tags (zero-sized components without drop glue) carry no data, so they do not
//! split archetypes: a tag column holds only ticks, and a row whose `added` tick is
//! `Tick::ABSENT` lacks the tag. Sparse components (`#[component(storage =
//! "sparse")]`) are stored the same way, with data: a row either holds a value or
//! is absent. These *sparse columns* are appended when an entity of the archetype
//! first gets the component, and never removed, so column indices stay valid (the
//! table of columns itself may move then: see `Archetypes::column_generation`).

use super::{ArchetypeId, Edges};
use crate::component::{Component, ComponentId, Components, is_sparse};
use crate::entity::Entity;
use crate::storage::{Column, Tick};

const NO_COLUMN: u32 = u32::MAX;

/// All entities with exactly one set of component types, stored column by column.
#[derive(Debug)]
pub struct Archetype {
    pub(crate) id: ArchetypeId,
    /// The data components: the archetype's identity.
    key: Box<[ComponentId]>,
    /// The component of each column: `key`, then sparse components (tags
    /// included) in the order they were added.
    pub(crate) components: Vec<ComponentId>,
    pub(crate) entities: crate::storage::GrowVec<Entity>,
    pub(crate) columns: Vec<Column>,
    /// The indices of the sparse columns.
    sparse: Vec<u32>,
    /// Some column is per-field (see [`Column::is_split`]): after a bundle
    /// write, values in staging must [`settle`](Column::settle). A flag, not a
    /// list, to keep the archetype's hot fields together.
    split: bool,
    /// Rows every column and `entities` can hold without reallocating. All columns
    /// grow together, so one comparison tells whether a push needs to grow.
    capacity: usize,
    /// Indexed by `ComponentId`; `NO_COLUMN` where the archetype lacks the component.
    /// Sized to the largest id of the archetype, so a lookup past it is a miss.
    column_of: Vec<u32>,
    pub(crate) edges: Edges,
}

impl Archetype {
    /// # Panics
    /// When a component is not registered in `registry`, is sparse, or `key` is not
    /// sorted and free of duplicates.
    pub(crate) fn new(id: ArchetypeId, key: Box<[ComponentId]>, registry: &Components) -> Self {
        assert!(key.windows(2).all(|w| w[0] < w[1]), "archetype type must be sorted and unique");
        let columns: Vec<Column> = key
            .iter()
            .map(|&c| {
                let info = registry.get(c).expect("archetype component is registered");
                assert!(!info.is_sparse(), "sparse components are not part of an archetype's key");
                info.new_column()
            })
            .collect();
        let split = columns.iter().any(Column::is_split);
        let mut column_of = vec![NO_COLUMN; key.last().map_or(0, |c| c.index() + 1)];
        for (column, component) in key.iter().enumerate() {
            column_of[component.index()] = column as u32;
        }
        Self {
            id,
            components: key.to_vec(),
            key,
            entities: crate::storage::GrowVec::new(),
            columns,
            sparse: Vec::new(),
            split,
            capacity: 0,
            column_of,
            edges: Edges::default(),
        }
    }

    /// Adds a column for a sparse component, with every existing row marked absent,
    /// and returns its index. Returns the existing column's index if there is one.
    pub(crate) fn add_sparse_column(&mut self, info: &crate::component::ComponentInfo) -> usize {
        debug_assert!(info.is_sparse());
        if let Some(column) = self.column_index(info.id()) {
            return column;
        }
        let mut column = info.new_column();
        column.grow_to(self.capacity);
        for _ in 0..self.entities.len() {
            // SAFETY: grown to the archetype's capacity, which exceeds its length.
            unsafe { column.push_absent() };
        }
        let index = self.columns.len();
        self.split |= column.is_split();
        self.columns.push(column);
        self.components.push(info.id());
        self.sparse.push(index as u32);
        if self.column_of.len() <= info.id().index() {
            self.column_of.resize(info.id().index() + 1, NO_COLUMN);
        }
        self.column_of[info.id().index()] = index as u32;
        index
    }

    /// Pushes "absent" into every sparse column that has no value for the row
    /// being added (`len` rows filled where the entity column has `len`).
    ///
    /// # Safety
    /// Room was reserved for the row.
    #[inline]
    pub(crate) unsafe fn pad_sparse(&mut self, len: usize) {
        for &sparse in &self.sparse {
            let column = &mut self.columns[sparse as usize];
            if column.len() == len {
                // SAFETY: room reserved (caller).
                unsafe { column.push_absent() };
            }
        }
    }

    /// Scatters the values just written to the staging room of per-field
    /// columns (see [`Column::settle`]): after every `Bundle::write` into slots
    /// from `push_slot`.
    #[inline(always)]
    pub(crate) fn settle_split(&mut self) {
        if self.split {
            self.settle_split_columns();
        }
    }

    #[cold]
    #[inline(never)]
    fn settle_split_columns(&mut self) {
        for column in &mut self.columns {
            column.settle();
        }
    }

    /// The data components that identify the archetype, sorted.
    #[inline]
    pub fn key(&self) -> &[ComponentId] {
        &self.key
    }

    /// The indices of the sparse columns.
    #[inline]
    pub(crate) fn sparse_columns(&self) -> &[u32] {
        &self.sparse
    }

    /// `true` when the entity in `row` has the component: the archetype has its
    /// column and, for a sparse component or tag, the row is marked present.
    #[inline]
    pub fn has_at(&self, component: ComponentId, row: usize) -> bool {
        match self.column(component) {
            // SAFETY: checked `row < len`.
            Some(column) if row < column.len() => !column.is_sparse() || unsafe { column.is_present(row) },
            _ => false,
        }
    }

    /// This archetype's id.
    #[inline]
    pub fn id(&self) -> ArchetypeId {
        self.id
    }

    /// The component of each column: the data components (sorted), then the
    /// sparse components and tags some entity of the archetype has had. Use
    /// [`has_at`](Self::has_at) for those of one entity.
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

    /// `true` when the archetype has a column for the component: for a table
    /// component, every entity of the archetype has it; for a sparse component or
    /// tag, see [`has_at`](Self::has_at).
    #[inline]
    pub fn has(&self, component: ComponentId) -> bool {
        self.column_index(component).is_some()
    }

    /// The column of a component.
    #[inline]
    pub fn column(&self, component: ComponentId) -> Option<&Column> {
        // SAFETY: `column_of` only maps to indices of `columns`: both are built
        // together in `new`, and `add_sparse_column` pushes the column before it
        // maps the component to it; nothing removes a column.
        self.column_index(component).map(|c| unsafe { self.columns.get_unchecked(c) })
    }

    /// A pointer to column `index` that stays valid until the archetype gains a
    /// column (only that moves the table). It is the vector's own buffer pointer,
    /// not derived from a reference to the columns, so later `&mut` borrows of a
    /// column do not invalidate it for reads once they end.
    ///
    /// # Panics
    /// When there is no column `index`.
    pub(crate) fn column_ptr(&self, index: usize) -> *const Column {
        assert!(index < self.columns.len(), "column {index} of {} columns", self.columns.len());
        self.columns.as_ptr().wrapping_add(index)
    }

    /// [`column_ptr`](Self::column_ptr), for writing: from the vector's own
    /// mutable buffer pointer, so that writes through it are allowed while no
    /// reference to the columns is live. Valid until the archetype gains a
    /// column.
    ///
    /// # Panics
    /// When there is no column `index`.
    pub(crate) fn column_ptr_mut(&mut self, index: usize) -> core::ptr::NonNull<Column> {
        assert!(index < self.columns.len(), "column {index} of {} columns", self.columns.len());
        // SAFETY: in bounds (asserted) of a vector's buffer, which is never null.
        unsafe { core::ptr::NonNull::new_unchecked(self.columns.as_mut_ptr().add(index)) }
    }

    /// The column of a component, mutably.
    #[inline]
    pub(crate) fn column_mut(&mut self, component: ComponentId) -> Option<&mut Column> {
        // SAFETY: as in `column`.
        self.column_index(component).map(|c| unsafe { self.columns.get_unchecked_mut(c) })
    }

    /// The bytes one row takes over all the archetype's arrays: its entity,
    /// and each column's value and change ticks.
    pub(crate) fn row_bytes(&self) -> usize {
        let ticks = |c: &Column| if c.keeps_ticks() { size_of::<crate::storage::ComponentTicks>() } else { 0 };
        self.columns.iter().map(|c| c.item_layout().size() + ticks(c)).sum::<usize>() + size_of::<Entity>()
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
        // Rows grow in steps of the widest array once it is large (see
        // `growth::next_capacity`), doubling before.
        let widest = self.columns.iter().map(|c| c.item_layout().size()).fold(size_of::<Entity>(), usize::max);
        let capacity = crate::storage::next_capacity(self.capacity, required, widest).max(8);
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

    /// Appends `entity` to the entity column, its columns already written.
    ///
    /// # Safety
    /// The archetype has room for the row (see [`reserve`](Self::reserve)).
    #[inline(always)]
    pub(crate) unsafe fn push_entity_unchecked(&mut self, entity: Entity) {
        let len = self.entities.len();
        debug_assert!(len < self.capacity && len < self.entities.capacity());
        // SAFETY: the entity column's capacity is at least the archetype's, which
        // exceeds its length (caller), so the slot is allocated.
        unsafe {
            self.entities.as_mut_ptr().add(len).write(entity);
            self.entities.set_len(len + 1);
        }
    }

    /// Moves the entity in `row` to a new last row of `target` and swap-removes
    /// `row` here. Each column's value goes to `target`'s column of the same
    /// component, or is forgotten where `target` has none (the caller has moved it
    /// out); `target`'s sparse columns the entity brings nothing to are padded
    /// absent, and its columns for components new to the entity are left one row
    /// short, for the caller to push. Returns the entity swapped into `row`, if any.
    ///
    /// Not generic, so every insert and remove shares one copy of the loop.
    ///
    /// # Safety
    /// `row < self.len()`; `target` is another archetype with room for one more row
    /// (see [`reserve`](Self::reserve)) and a column for each of this archetype's
    /// sparse components; every value here of a component `target` lacks has been
    /// moved out.
    #[inline]
    pub(crate) unsafe fn move_row(&mut self, row: usize, target: &mut Archetype, now: Tick) -> Option<Entity> {
        debug_assert!(row < self.entities.len() && target.entities.len() < target.capacity);
        let target_row = target.entities.len();
        if !self.split {
            for (column, &component) in self.columns.iter_mut().zip(self.components.iter()) {
                match target.column_index(component) {
                    // SAFETY: `row` is live; `to` indexes `target.columns` (from its
                    // own lookup), a column of the same component, which has room
                    // (caller); no column here is per-field (`split` is empty).
                    Some(to) => unsafe {
                        column.swap_remove_into_whole(row, target.columns.get_unchecked_mut(to), now)
                    },
                    // SAFETY: `row` is live and its value was moved out (caller);
                    // a whole column, as above.
                    None => unsafe { column.swap_remove_forget_whole(row) },
                }
            }
        } else {
            // SAFETY: as for the loop above, for columns of any kind.
            unsafe { self.move_columns(row, target, now) };
        }
        // SAFETY: room for the row (caller).
        unsafe { target.pad_sparse(target_row) };
        let entities = &mut self.entities;
        let last = entities.len() - 1;
        // SAFETY: `row <= last < len` (caller), so both reads are in bounds; the
        // entity column has room for one more row in `target` (its capacity is
        // the archetype's, caller), so the write below is in bounds.
        unsafe {
            let entity = *entities.get_unchecked(row);
            let swapped = *entities.get_unchecked(last);
            *entities.get_unchecked_mut(row) = swapped;
            entities.set_len(last);
            target.entities.as_mut_ptr().add(target_row).write(entity);
            target.entities.set_len(target_row + 1);
            (row != last).then_some(swapped)
        }
    }

    /// The column loop of [`move_row`](Self::move_row) for an archetype with
    /// per-field columns, off its path.
    ///
    /// # Safety
    /// As for `move_row`.
    #[cold]
    #[inline(never)]
    unsafe fn move_columns(&mut self, row: usize, target: &mut Archetype, now: Tick) {
        for (column, &component) in self.columns.iter_mut().zip(self.components.iter()) {
            match target.column_index(component) {
                // SAFETY: as in `move_row`.
                Some(to) => unsafe { column.swap_remove_into(row, target.columns.get_unchecked_mut(to), now) },
                // SAFETY: as in `move_row`.
                None => unsafe { column.swap_remove_forget(row) },
            }
        }
    }

    /// `true` when some column is per-field (see [`Column::is_split`]).
    #[inline(always)]
    pub(crate) fn has_split(&self) -> bool {
        self.split
    }

    /// `true` when a bundle whose spawn target is `columns` fills whole rows
    /// here: it writes every column (its targets are distinct, so as many
    /// targets as columns is all of them), none of them per-field. Its rows can
    /// then be written into spare slots ([`Column::spare_slot`]) and counted
    /// together ([`commit_rows`](Self::commit_rows)).
    pub(crate) fn takes_whole_rows(&self, columns: &[u32]) -> bool {
        !self.split && columns.len() == self.columns.len()
    }

    /// Counts `rows` rows past the length as pushed at `tick`: the caller wrote
    /// each row's entity into the entity column's spare capacity and its values
    /// into every column's spare slots.
    ///
    /// # Safety
    /// `len + rows <= capacity`; no column is per-field; for each of those rows,
    /// the entity slot holds its entity and every column's slot a value of its
    /// type.
    pub(crate) unsafe fn commit_rows(&mut self, rows: usize, tick: Tick) {
        for column in &mut self.columns {
            // SAFETY: forwarded (caller).
            unsafe { column.commit_rows(rows, tick) };
        }
        // SAFETY: the slots hold entities, within the capacity (caller).
        unsafe { self.entities.set_len(self.entities.len() + rows) };
    }

    /// Rows every array can hold without reallocating.
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// Appends rows for `entities`: each column takes every row of the column
    /// `sources` lists for its component (moved out, left empty), and a sparse
    /// column `sources` lacks gets absent rows.
    ///
    /// # Safety
    /// Every column in `sources` holds the same component type as this
    /// archetype's column of that component (made from the same
    /// `ComponentInfo`), with `entities.len()` rows; `sources` has one for
    /// every table component.
    #[cfg(feature = "serde")]
    pub(crate) unsafe fn append_rows(&mut self, entities: &[Entity], sources: &mut [(ComponentId, &mut Column)]) {
        // An empty archetype takes the loaded columns whole (their allocations
        // included) rather than copying every row into its own.
        let take = self.entities.is_empty();
        if !take {
            self.reserve(entities.len());
        }
        for (column, &component) in self.columns.iter_mut().zip(&self.components) {
            match sources.iter_mut().find(|(id, _)| *id == component).map(|(_, c)| &mut **c) {
                Some(src) if take => {
                    debug_assert_eq!(src.len(), entities.len());
                    column.swap_contents(src);
                }
                Some(src) => {
                    debug_assert_eq!(src.len(), entities.len());
                    // SAFETY: the same component type (caller).
                    unsafe { column.append_moved(src) };
                }
                None => column.push_absent_rows(entities.len()),
            }
        }
        self.entities.extend_from_slice(entities);
        if take {
            // Every array holds at least the archetype's capacity (its invariant).
            let capacity = self.capacity.max(entities.len());
            for column in &mut self.columns {
                column.grow_to(capacity);
            }
            self.entities.reserve_exact(capacity - self.entities.len());
            self.capacity = capacity;
        }
    }

    /// Drops every row (panics of `Drop` caught into `panic`), keeping the
    /// allocations.
    pub(crate) fn clear_rows(&mut self, panic: &mut crate::panics::DeferredPanic) {
        self.entities.clear();
        for column in &mut self.columns {
            column.clear(panic);
        }
    }

    /// The last step of a restore, once every column holds `entities.len()` rows:
    /// the entity column becomes `entities`, and every array grows to the
    /// archetype's capacity (a column swapped in whole may be smaller).
    pub(crate) fn restore_entities(&mut self, entities: &[Entity]) {
        self.entities.clear();
        self.entities.extend_from_slice(entities);
        let capacity = self.capacity.max(entities.len());
        for column in &mut self.columns {
            column.grow_to(capacity);
        }
        if self.entities.capacity() < capacity {
            self.entities.reserve_exact(capacity - self.entities.len());
        }
        self.capacity = capacity;
    }

    /// Exchanges the entity column with `entities`, once every column was
    /// swapped with a saved one of as many rows; the capacity becomes what every
    /// array can hold (swapped-in arrays may be smaller, and are not grown: a
    /// swap copies nothing).
    pub(crate) fn swap_entities(&mut self, entities: &mut crate::storage::GrowVec<Entity>) {
        core::mem::swap(&mut self.entities, entities);
        debug_assert!(self.columns.iter().all(|c| c.len() == self.entities.len()));
        self.capacity = self.columns.iter().map(Column::capacity).fold(self.entities.capacity(), usize::min);
    }

    /// The columns, mutably (a restore rewrites them whole; it never adds or
    /// removes one, so the component lookup stays right).
    pub(crate) fn columns_mut(&mut self) -> &mut [Column] {
        &mut self.columns
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
        if self.key[..] != self.components[..self.key.len()] || self.sparse.len() + self.key.len() != self.columns.len()
        {
            return Err(format!("archetype {:?}: key and sparse columns disagree with the columns", self.id));
        }
        let sparse_is_flagged = |(c, column): (usize, &Column)| column.is_sparse() == (c >= self.key.len());
        if !self.columns.iter().enumerate().all(sparse_is_flagged) {
            return Err(format!("archetype {:?}: a key column is sparse or a sparse column is not", self.id));
        }
        if mapped != self.components.len() {
            return Err(format!("archetype {:?}: lookup maps {mapped} components", self.id));
        }
        Ok(())
    }
}

/// The `T` in row `row` of `T`'s column, if it holds one: a typed offset (no
/// run-time item size), the presence check only for a sparse `T`. The shared
/// path of `World::get` and `EntityRef::get`.
///
/// # Safety
/// `column` is `T`'s column in some archetype and `row` the row of a live
/// entity of that archetype (below its length).
#[inline]
pub(crate) unsafe fn value_in<T: Component + crate::component::WholeComponent>(
    column: &Column,
    row: usize,
) -> Option<&T> {
    // SAFETY: `row` is in bounds (caller); a table column's rows all hold values,
    // a sparse one's where `is_present` says (checked first); `T`'s column stores
    // whole `T`s (`WholeComponent`: not per-field), so a typed offset reaches the
    // row's value.
    unsafe {
        if is_sparse::<T>() && !column.is_present(row) {
            return None;
        }
        Some(column.data_ptr().cast::<T>().add(row).as_ref())
    }
}
