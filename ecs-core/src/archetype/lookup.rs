//! A world's lookup cache: copies of a few column tables' headers, kept inline
//! in the [`Archetypes`](super::Archetypes), at entries a component type picks
//! at compile time.
//!
//! Why: a loop of `world.entity(e)?.get::<T>()` first branches on whether `e`
//! is alive, and only then looks up `T`. The usual path to `T`'s column table
//! starts from `T`'s id, which lives in a `static` written when `T` is first
//! registered; the compiler may not read it ahead of that branch, so every
//! entity paid for the id, the table and its bounds again. An entry of this
//! cache sits at a fixed offset in the world (the entry index is a constant of
//! `T`) and is an ordinary field, which the compiler may read before the branch
//! and keep in registers for the whole loop: the lookup then costs what
//! `World::get`'s does.
//!
//! An entry is keyed by the address of the type's id cell: a `static` of the
//! type's own (typed, so no other type can name it). It is filled the first
//! time its type's column table is made, if no other type has it, and refreshed
//! each time that table changes; a type whose entry is taken, or that has no
//! cell (a generic component), takes the registry's path.

use std::mem::MaybeUninit;
use std::ptr::NonNull;

use super::archetypes::{ColumnPtr, ColumnsOf};
use crate::component::{Component, ComponentInfo};

/// Entries per world. Small, as the cache is part of every world; types that
/// collide keep working, through the registry.
const ENTRIES: usize = 8;

/// Which entry a component type uses and the key it is filed under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LookupKey {
    entry: usize,
    /// The address of the type's id cell; never 0.
    cell: usize,
}

impl LookupKey {
    /// `T`'s key: constant for a derived, non-generic component (`None` for
    /// others).
    #[inline(always)]
    pub(crate) fn of<T: Component>() -> Option<Self> {
        let cell = T::__id_cell()?;
        let hash = T::__LOOKUP_HASH?;
        Some(Self::from_parts(core::ptr::from_ref(cell).addr(), hash))
    }

    /// The key of the component `info` describes.
    #[inline]
    pub(crate) fn of_info(info: &ComponentInfo) -> Option<Self> {
        info.lookup_parts().map(|(cell, hash)| Self::from_parts(cell, hash))
    }

    #[inline(always)]
    fn from_parts(cell: usize, hash: u32) -> Self {
        Self { entry: hash as usize % ENTRIES, cell }
    }
}

/// A copy of a `ColumnTable`'s `first` and of its column slice's pointer and
/// length, and of its one column while it has one.
#[derive(Clone, Copy, Debug)]
struct Header {
    first: usize,
    columns: NonNull<Option<ColumnPtr>>,
    len: usize,
    /// `columns[0]` while the table has exactly one entry (the component is in
    /// one archetype, a common case): a lookup then compares the entity's
    /// archetype with `first` and goes straight to the column, one dependent
    /// load and a few instructions fewer than through the table.
    single: Option<ColumnPtr>,
}

/// The cache itself. Invariant: where `cells[i]` is not 0, `headers[i]` is
/// initialized and is the current header (with `single` its current one
/// entry, if it has exactly one) of the column table of the component
/// whose key has that cell; [`refresh`](Self::refresh) is called after every
/// change to a table.
#[derive(Debug)]
pub(crate) struct LookupCache {
    /// Each entry's key (0 while it is free): the only part a new world clears.
    cells: [usize; ENTRIES],
    /// Written with the entry's key.
    headers: [MaybeUninit<Header>; ENTRIES],
}

// SAFETY: the pointers are into column tables owned by the same `Archetypes`,
// read only through `&self` (as the tables themselves are) and written only
// through `&mut self`; they follow their owner across threads like a
// `&[Option<ColumnPtr>]` would (`ColumnPtr` is `Send + Sync`).
unsafe impl Send for LookupCache {}
// SAFETY: as for `Send`.
unsafe impl Sync for LookupCache {}

impl LookupCache {
    /// An empty cache: no allocation, as a new world allocates nothing.
    #[inline]
    pub(crate) const fn new() -> Self {
        Self { cells: [0; ENTRIES], headers: [MaybeUninit::uninit(); ENTRIES] }
    }

    /// The column table filed under `key`, if its entry holds it.
    #[inline(always)]
    pub(crate) fn get(&self, key: LookupKey) -> Option<ColumnsOf<'_>> {
        if self.cells[key.entry] != key.cell {
            return None;
        }
        // SAFETY: a filled entry's header is initialized and holds the
        // current pointer and length of the column slice of the table filed
        // under its key (this type's invariant, kept by `refresh`), a slice the
        // `Archetypes` owning `self` owns: it lives, unchanged, as long as
        // `self` is borrowed shared.
        let (header, columns) = unsafe {
            let header = self.headers[key.entry].assume_init_ref();
            (header, core::slice::from_raw_parts(header.columns.as_ptr(), header.len))
        };
        Some(ColumnsOf::new(header.first, columns, header.single))
    }

    /// Files a table's current header (`first` and its `columns`) under `key`,
    /// the key of the table's component, unless another type holds the entry.
    pub(crate) fn refresh(&mut self, key: LookupKey, first: usize, columns: &[Option<ColumnPtr>]) {
        let cell = &mut self.cells[key.entry];
        if *cell == 0 || *cell == key.cell {
            let single = if let [only] = columns { *only } else { None };
            let header = Header { first, columns: NonNull::from(columns).cast(), len: columns.len(), single };
            self.headers[key.entry] = MaybeUninit::new(header);
            *cell = key.cell;
        }
    }
}
