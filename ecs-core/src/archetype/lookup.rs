//! A world's lookup caches: copies of a few column tables' headers. The first,
//! `LookupCache`, is kept inline in the [`Archetypes`](super::Archetypes), at
//! entries a component type picks at compile time; the second, `ViewCache`
//! (at the end), is keyed by component id for lookups by id.
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
use crate::component::{Component, ComponentId, ComponentInfo};

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

/// Entries of a world's [`ViewCache`].
const VIEW_ENTRIES: usize = 8;

/// A second cache, keyed by component id: the column tables of a few
/// components whose values can be viewed by id without asking anything of
/// their columns (described components stored whole in tables), for
/// [`World::get_by_id`](crate::World::get_by_id).
///
/// The typed cache's entries sit at constant offsets; a lookup by id has only
/// a run-time id, so here every entry is always initialised (a free one holds
/// an empty table) and a lookup reads its entry's id and header before
/// anything branches: reads of one address a loop of lookups of one
/// component may hoist, with the component's size, out of the loop.
///
/// The entries live behind a pointer, to a shared empty set until the first
/// component is filed: a new world neither allocates nor initialises them.
#[derive(Debug)]
pub(crate) struct ViewCache(NonNull<ViewEntries>);

/// Invariant: where `ids[i]` is `index + 1` of a component, `headers[i]` is
/// the current header of that component's column table (refreshed after
/// every change to it, as the typed cache's), every column in it is a table
/// column of whole values (neither sparse nor per-field) of `sizes[i]` bytes,
/// and the component has a schema and is registered in the world (its
/// columns were made from its info there). Elsewhere `headers[i]` is empty.
#[derive(Debug)]
struct ViewEntries {
    ids: [usize; VIEW_ENTRIES],
    headers: [Header; VIEW_ENTRIES],
    sizes: [usize; VIEW_ENTRIES],
}

const EMPTY_HEADER: Header = Header { first: 0, columns: NonNull::dangling(), len: 0, single: None };

/// The entries of every cache that has filed nothing. Never written.
static NO_VIEWS: ViewEntries =
    ViewEntries { ids: [0; VIEW_ENTRIES], headers: [EMPTY_HEADER; VIEW_ENTRIES], sizes: [0; VIEW_ENTRIES] };

// SAFETY: `NO_VIEWS` holds no pointer to anything (dangling, empty headers)
// and is never written; other entries are as `ViewCache`'s below.
unsafe impl Sync for ViewEntries {}
// SAFETY: as for `LookupCache`: pointers into column tables owned by the same
// `Archetypes`, read through `&self` and written through `&mut self`; the
// entries are the cache's own (boxed) or the shared, never written empty set.
unsafe impl Send for ViewCache {}
// SAFETY: as for `Send`.
unsafe impl Sync for ViewCache {}

impl ViewCache {
    /// An empty cache: no allocation.
    #[inline]
    pub(crate) const fn new() -> Self {
        // SAFETY: a static's address is not null. (Only ever read through.)
        Self(unsafe { NonNull::new_unchecked((&raw const NO_VIEWS).cast_mut()) })
    }

    #[inline(always)]
    fn entries(&self) -> &ViewEntries {
        // SAFETY: the pointer is to `NO_VIEWS` or to the cache's own box,
        // written only through `&mut self`.
        unsafe { self.0.as_ref() }
    }

    /// The entries, to write: made the cache's own first.
    fn entries_mut(&mut self) -> &mut ViewEntries {
        if core::ptr::eq(self.0.as_ptr(), &NO_VIEWS) {
            let own = Box::new(ViewEntries { ids: NO_VIEWS.ids, headers: NO_VIEWS.headers, sizes: NO_VIEWS.sizes });
            self.0 = NonNull::from(Box::leak(own));
        }
        // SAFETY: the cache's own box (made above if need be), borrowed
        // through `&mut self`.
        unsafe { self.0.as_mut() }
    }

    /// The entry `component` would use: whether it holds it, and its header
    /// and size, read either way (it is always initialised: see the type's
    /// comment).
    #[inline(always)]
    fn entry(&self, component: ComponentId) -> (bool, Header, usize) {
        let entries = self.entries();
        let entry = component.index() % VIEW_ENTRIES;
        let hit = entries.ids[entry] == component.index().wrapping_add(1);
        (hit, entries.headers[entry], entries.sizes[entry])
    }

    /// The column table of `component` and the size of its values, if its
    /// entry holds it.
    #[inline(always)]
    pub(crate) fn get(&self, component: ComponentId) -> Option<(ColumnsOf<'_>, usize)> {
        let (hit, header, size) = self.entry(component);
        // SAFETY: every header is a current table's (invariant) or the empty
        // one (a dangling, aligned pointer and length 0: an empty slice);
        // the slice lives, unchanged, while `self` is borrowed shared.
        let columns = unsafe { core::slice::from_raw_parts(header.columns.as_ptr(), header.len) };
        hit.then(|| (ColumnsOf::new(header.first, columns, header.single), size))
    }

    /// What the entry of `component` holds, if it holds it, as raw parts
    /// (`first`, the column slice's pointer and length, its one column, the
    /// size of values), for checks that must not trust them.
    #[allow(clippy::type_complexity, reason = "a header's parts, for one checker")]
    pub(crate) fn raw(
        &self,
        component: ComponentId,
    ) -> Option<(usize, *const Option<ColumnPtr>, usize, Option<ColumnPtr>, usize)> {
        let (hit, header, size) = self.entry(component);
        hit.then_some((header.first, header.columns.as_ptr().cast_const(), header.len, header.single, size))
    }

    /// Files the current header of `component`'s table (`first`, `columns`)
    /// unless another component holds the entry. `size` is the size of its
    /// values when it can be viewed without asking its columns (it has a
    /// schema, and its columns are table columns of whole values); `None`
    /// frees the entry if the component held it.
    pub(crate) fn refresh(
        &mut self,
        component: ComponentId,
        first: usize,
        columns: &[Option<ColumnPtr>],
        size: Option<usize>,
    ) {
        let entry = component.index() % VIEW_ENTRIES;
        let id = component.index().wrapping_add(1);
        let held = self.entries().ids[entry];
        if held != id && (held != 0 || size.is_none()) {
            return;
        }
        let entries = self.entries_mut();
        match size {
            Some(size) => {
                let single = if let [only] = columns { *only } else { None };
                entries.headers[entry] =
                    Header { first, columns: NonNull::from(columns).cast(), len: columns.len(), single };
                entries.sizes[entry] = size;
                entries.ids[entry] = id;
            }
            None => {
                entries.headers[entry] = EMPTY_HEADER;
                entries.ids[entry] = 0;
            }
        }
    }
}

impl Drop for ViewCache {
    fn drop(&mut self) {
        if !core::ptr::eq(self.0.as_ptr(), &NO_VIEWS) {
            // SAFETY: not the shared set, so the cache's own box, leaked by
            // `entries_mut` and freed once, here.
            drop(unsafe { Box::from_raw(self.0.as_ptr()) });
        }
    }
}
