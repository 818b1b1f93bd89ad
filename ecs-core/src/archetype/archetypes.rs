//! [`Archetypes`]: every archetype of a world, the archetype index and the component index.

use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::Mutex;

use super::lookup::{LookupCache, LookupKey, ViewCache};
use super::{Archetype, ArchetypeId};
use crate::component::{Component, ComponentId, ComponentInfo, Components, known_component_index};
use crate::parallel::annotate;
use crate::storage::Column;

/// An entry of the component index: an archetype holding the component, and the
/// component's column in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArchetypeColumn {
    /// The archetype.
    pub archetype: ArchetypeId,
    /// The component's column index in that archetype.
    pub column: usize,
}

/// Every archetype of a world. Archetypes are never removed, so ids stay valid and
/// cached edges and queries never go stale.
#[derive(Debug)]
pub struct Archetypes {
    archetypes: Vec<Archetype>,
    /// The archetype index: used only when an edge is still empty. The empty
    /// archetype is not in it (`find` answers it directly), so that a new world
    /// allocates no table and hashes nothing.
    by_components: crate::hashers::IdMap<Box<[ComponentId]>, ArchetypeId>,
    /// The component index, indexed by `ComponentId`.
    by_component: Vec<Vec<ArchetypeColumn>>,
    /// The column of each component in each archetype, indexed by `ComponentId`
    /// then `ArchetypeId`: `world.get` goes from the entity's location straight
    /// to the column, where the archetype's own map would add two dependent
    /// loads (the archetype, then its map) to every random access.
    column_tables: Vec<ColumnTable>,
    /// Copies of a few column tables' headers, inline so that a loop of
    /// lookups may read them once (see `lookup.rs`).
    lookups: LookupCache,
    /// The same, by component id, for views by id (see `lookup.rs`).
    views: ViewCache,
    /// Components some `Changed` query watches; columns made later start tracking.
    tracked: Mutex<Vec<ComponentId>>,
    /// How many columns were added to existing archetypes: each may have moved
    /// that archetype's column table, which query states point into.
    column_generation: u64,
}

impl Archetypes {
    #[inline]
    pub(crate) fn new() -> Self {
        // Nothing allocated: the empty archetype is made by the first
        // `get_or_create`, so a world that never spawns (tools, tests) costs
        // no allocation.
        Self {
            archetypes: Vec::new(),
            by_components: crate::hashers::IdMap::default(),
            by_component: Vec::new(),
            column_tables: Vec::new(),
            lookups: LookupCache::new(),
            views: ViewCache::new(),
            tracked: Mutex::new(Vec::new()),
            column_generation: 0,
        }
    }

    /// The number of archetypes, the empty one included once it exists (it is
    /// made with the first archetype, or when an entity first needs it).
    #[inline]
    pub fn len(&self) -> usize {
        self.archetypes.len()
    }

    /// `true` until the world's first archetype is made.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.archetypes.is_empty()
    }

    /// The archetype with this id.
    #[inline]
    pub fn get(&self, id: ArchetypeId) -> Option<&Archetype> {
        self.archetypes.get(id.index())
    }

    /// Changes whenever an existing archetype gains a column, which may move its
    /// table of columns: pointers to columns taken before are then stale.
    #[inline]
    pub(crate) fn column_generation(&self) -> u64 {
        self.column_generation
    }

    /// Every archetype, indexed by [`ArchetypeId`].
    #[inline]
    pub(crate) fn as_slice(&self) -> &[Archetype] {
        &self.archetypes
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, id: ArchetypeId) -> &mut Archetype {
        &mut self.archetypes[id.index()]
    }

    /// Two distinct archetypes, mutably.
    ///
    /// # Panics
    /// When `a == b`.
    #[inline]
    pub(crate) fn pair_mut(&mut self, a: ArchetypeId, b: ArchetypeId) -> (&mut Archetype, &mut Archetype) {
        let len = self.archetypes.len();
        assert!(a != b && a.index() < len && b.index() < len, "pair_mut({a:?}, {b:?}) of {len} archetypes");
        let base = self.archetypes.as_mut_ptr();
        // SAFETY: both indices are in bounds and distinct (asserted), so the two
        // references are to different elements and never alias.
        unsafe { (&mut *base.add(a.index()), &mut *base.add(b.index())) }
    }

    /// Every archetype, in creation order.
    #[inline]
    pub fn iter(&self) -> core::slice::Iter<'_, Archetype> {
        self.archetypes.iter()
    }

    pub(crate) fn iter_mut(&mut self) -> core::slice::IterMut<'_, Archetype> {
        self.archetypes.iter_mut()
    }

    /// The archetype with exactly these data components (sorted, unique), if it exists.
    pub fn find(&self, components: &[ComponentId]) -> Option<ArchetypeId> {
        if components.is_empty() {
            return (!self.archetypes.is_empty()).then_some(ArchetypeId::EMPTY);
        }
        self.by_components.get(components).copied()
    }

    /// The component index: every archetype holding `component`, with its column.
    #[inline]
    pub fn containing(&self, component: ComponentId) -> &[ArchetypeColumn] {
        self.by_component.get(component.index()).map_or(&[], Vec::as_slice)
    }

    /// Gives archetype `id` a column for a sparse component (if it has none) and
    /// indexes it.
    pub(crate) fn add_sparse_column(&mut self, id: ArchetypeId, info: &ComponentInfo) -> usize {
        let archetype = &mut self.archetypes[id.index()];
        if let Some(column) = archetype.column_index(info.id()) {
            return column;
        }
        let column = archetype.add_sparse_column(info);
        self.column_generation += 1;
        if self.tracked.get_mut().unwrap_or_else(|e| e.into_inner()).contains(&info.id()) {
            archetype.columns()[column].track_changes();
        }
        let component = info.id();
        if self.by_component.len() <= component.index() {
            self.by_component.resize_with(component.index() + 1, Vec::new);
        }
        self.by_component[component.index()].push(ArchetypeColumn { archetype: id, column });
        // The push may have moved every column of the archetype.
        let key = LookupKey::of_info(info);
        let described = info.kind().is_some();
        self.index_columns(id, |c| if c == component { (key, described) } else { (None, false) });
        column
    }

    /// Points the column tables at each column of archetype `id`: after it is
    /// made, and after its table of columns may have moved.
    ///
    /// `key_of` gives the lookup key of a component whose table this makes,
    /// and whether it has a schema; a table keeps what it was made with.
    fn index_columns(&mut self, id: ArchetypeId, key_of: impl Fn(ComponentId) -> (Option<LookupKey>, bool)) {
        let archetype = &mut self.archetypes[id.index()];
        for index in 0..archetype.components.len() {
            let component = archetype.components[index];
            if self.column_tables.len() <= component.index() {
                self.column_tables.resize_with(component.index() + 1, ColumnTable::default);
            }
            let plain = {
                let column = &archetype.columns[index];
                (!column.is_sparse() && !column.is_split()).then(|| column.item_layout().size())
            };
            let column = archetype.column_ptr_mut(index);
            let table = &mut self.column_tables[component.index()];
            if table.columns.is_empty() {
                (table.lookup, table.described) = key_of(component);
            }
            table.set(id, column);
            // The table's header may have changed (a longer or moved slice, an
            // earlier first archetype): the caches' copies follow at once.
            if let Some(key) = table.lookup {
                self.lookups.refresh(key, table.first, &table.columns);
            }
            // Every column of a component is of one kind (its storage and
            // layout are the component's), so this one speaks for the table.
            if table.described {
                self.views.refresh(component, table.first, &table.columns, plain);
            }
        }
    }

    /// The column table of `component` and the size of its values, when the
    /// by-id cache holds it: a described component whose columns are all
    /// table columns of whole values (see `lookup.rs`'s `ViewCache`).
    #[inline(always)]
    pub(crate) fn viewable_columns(&self, component: ComponentId) -> Option<(ColumnsOf<'_>, usize)> {
        self.views.get(component)
    }

    /// `T`'s column table: from the lookup cache when `T` has its entry there,
    /// else by `T`'s id (`None` when no archetype ever had a `T`).
    ///
    /// Every read before the first branch on data is constant for a loop of
    /// lookups: the cache entry is a field at a fixed offset, so the compiler
    /// may read it ahead of a branch on the entity (see `lookup.rs`).
    #[inline(always)]
    pub(crate) fn columns_for<T: Component>(&self) -> Option<ColumnsOf<'_>> {
        if let Some(columns) = LookupKey::of::<T>().and_then(|key| self.lookups.get(key)) {
            return Some(columns);
        }
        self.columns_at(known_component_index::<T>())
    }

    /// [`columns_for`](Self::columns_for) for one column to be borrowed mutably.
    #[inline(always)]
    pub(crate) fn columns_for_mut<T: Component>(&mut self) -> Option<ColumnsOfMut<'_>> {
        let columns = self.columns_for::<T>()?;
        Some(ColumnsOfMut(columns, PhantomData))
    }

    /// [`columns_of`](Self::columns_of) for one column to be borrowed mutably.
    #[inline(always)]
    pub(crate) fn columns_of_mut(&mut self, component: ComponentId) -> Option<ColumnsOfMut<'_>> {
        let columns = self.columns_of(component)?;
        Some(ColumnsOfMut(columns, PhantomData))
    }

    /// The column of `component` in archetype `archetype`, if it has one; a
    /// miss for any archetype id beyond the last (a dead entity's location).
    #[inline]
    pub(crate) fn column_at(&self, component: ComponentId, archetype: ArchetypeId) -> Option<&Column> {
        self.columns_of(component)?.column(archetype)
    }

    /// [`column_at`](Self::column_at), mutably.
    #[inline(always)]
    pub(crate) fn column_at_mut(&mut self, component: ComponentId, archetype: ArchetypeId) -> Option<&mut Column> {
        self.columns_of_mut(component)?.column(archetype)
    }

    /// `component`'s column table, copied out to be indexed later by archetype
    /// (`None` when no archetype ever had the component).
    ///
    /// A lookup that reads the table before anything that can branch (the
    /// entity's slot) lets the compiler keep the table in registers for a whole
    /// loop of lookups: `World::get` does.
    #[inline(always)]
    pub(crate) fn columns_of(&self, component: ComponentId) -> Option<ColumnsOf<'_>> {
        self.columns_at(component.index())
    }

    /// [`columns_of`](Self::columns_of) by a component's index, which may be
    /// one no table reaches (`known_component_index` of a type never stored):
    /// then `None`.
    #[inline(always)]
    pub(crate) fn columns_at(&self, index: usize) -> Option<ColumnsOf<'_>> {
        let table = self.column_tables.get(index)?;
        Some(ColumnsOf { first: table.first, columns: &table.columns, single: table.single })
    }

    /// Gives `target` a column for every sparse column of `source`, so that a row
    /// can move from `source` to `target` with all its sparse components.
    #[inline(always)]
    pub(crate) fn sync_sparse(&mut self, source: ArchetypeId, target: ArchetypeId, registry: &Components) {
        // Most archetypes have no sparse columns: decide that without a call.
        if !self.archetypes[source.index()].sparse_columns().is_empty() {
            self.sync_sparse_slow(source, target, registry);
        }
    }

    #[cold]
    #[inline(never)]
    fn sync_sparse_slow(&mut self, source: ArchetypeId, target: ArchetypeId, registry: &Components) {
        let from = &self.archetypes[source.index()];
        let to = &self.archetypes[target.index()];
        if from.sparse_columns().iter().all(|&t| to.has(from.components()[t as usize])) {
            return;
        }
        let missing: Vec<ComponentId> =
            from.sparse_columns().iter().map(|&t| from.components()[t as usize]).filter(|&c| !to.has(c)).collect();
        for component in missing {
            self.add_sparse_column(target, registry.get(component).expect("sparse component is registered"));
        }
    }

    /// The archetype with exactly these data components, created if needed.
    ///
    /// `components` must be sorted, unique, free of sparse components and
    /// registered in `registry`.
    pub(crate) fn get_or_create(&mut self, components: &[ComponentId], registry: &Components) -> ArchetypeId {
        if let Some(id) = self.find(components) {
            return id;
        }
        if self.archetypes.is_empty() {
            // The empty archetype comes first, whichever is asked for: its id is 0.
            self.archetypes.push(Archetype::new(ArchetypeId::EMPTY, Box::default(), registry));
            if components.is_empty() {
                return ArchetypeId::EMPTY;
            }
        }
        let id = ArchetypeId::new(self.archetypes.len());
        let archetype = Archetype::new(id, components.into(), registry);
        for component in self.tracked.get_mut().unwrap_or_else(|e| e.into_inner()).iter() {
            if let Some(column) = archetype.column(*component) {
                column.track_changes();
            }
        }
        for (column, &component) in components.iter().enumerate() {
            if self.by_component.len() <= component.index() {
                self.by_component.resize_with(component.index() + 1, Vec::new);
            }
            self.by_component[component.index()].push(ArchetypeColumn { archetype: id, column });
        }
        self.by_components.insert(components.into(), id);
        self.archetypes.push(archetype);
        self.index_columns(id, |c| {
            let info = registry.get(c);
            (info.and_then(LookupKey::of_info), info.is_some_and(|info| info.kind().is_some()))
        });
        id
    }

    /// Makes mutable query passes stamp the rows of `component` they hand out, in
    /// every archetype now and later. Called when a `Changed` query is made.
    pub(crate) fn track_changes(&self, component: ComponentId) {
        let mut tracked = annotate::lock(&self.tracked);
        if tracked.contains(&component) {
            return;
        }
        tracked.push(component);
        for entry in self.containing(component) {
            self.archetypes[entry.archetype.index()].columns()[entry.column].track_changes();
        }
    }

    /// Checks each archetype, the archetype index and the component index.
    pub(crate) fn check_invariants(&self, registry: &Components) -> Result<(), String> {
        if self.by_components.len() + usize::from(!self.archetypes.is_empty()) != self.archetypes.len() {
            return Err("archetype index and archetype list differ in size".into());
        }
        for (index, archetype) in self.archetypes.iter().enumerate() {
            if archetype.id().index() != index {
                return Err(format!("archetype at {index} has id {:?}", archetype.id()));
            }
            archetype.check_invariants()?;
            if self.find(archetype.key()) != Some(archetype.id()) {
                return Err(format!("archetype index misses {:?}", archetype.id()));
            }
            for (column, &component) in archetype.components().iter().enumerate() {
                let entry = ArchetypeColumn { archetype: archetype.id(), column };
                if !self.containing(component).contains(&entry) {
                    return Err(format!("component index misses {entry:?} for {component:?}"));
                }
            }
        }
        for archetype in &self.archetypes {
            for &component in archetype.components() {
                let expected = archetype.column(component).map(|c| c as *const Column);
                if self.column_at(component, archetype.id()).map(|c| c as *const Column) != expected {
                    return Err(format!("column table of {component:?} is stale for {:?}", archetype.id()));
                }
            }
        }
        for (index, table) in self.column_tables.iter().enumerate() {
            let Some(cached) = table.lookup.and_then(|key| self.lookups.get(key)) else { continue };
            let single_ok = match (cached.single, table.columns.as_slice()) {
                (None, _) => true,
                (Some(single), [Some(only)]) => single.0 == only.0,
                (Some(_), _) => false,
            };
            if cached.first != table.first || !core::ptr::eq(cached.columns, table.columns.as_slice()) || !single_ok {
                return Err(format!("lookup cache entry of component {index} is stale"));
            }
        }
        for (index, table) in self.column_tables.iter().enumerate() {
            let component = ComponentId::new(index as u32);
            // Compared as raw parts before anything is read through them.
            let Some((first, columns, len, single, size)) = self.views.raw(component) else { continue };
            let single_ok = match (single, table.columns.as_slice()) {
                (None, [_]) => false,
                (None, _) => true,
                (Some(single), [Some(only)]) => single.0 == only.0,
                (Some(_), _) => false,
            };
            if first != table.first || columns != table.columns.as_ptr() || len != table.columns.len() || !single_ok {
                return Err(format!("by-id cache entry of component {index} is stale"));
            }
            let described = registry.get(component).is_some_and(|info| info.kind().is_some());
            let plain = table.columns.iter().flatten().all(|c| {
                // SAFETY: the table's pointers are current (checked above).
                let column = unsafe { c.0.as_ref() };
                !column.is_sparse() && !column.is_split() && column.item_layout().size() == size
            });
            if !described || !plain {
                return Err(format!("by-id cache holds component {index}, which cannot be viewed without asking"));
            }
        }
        let indexed: usize = self.by_component.iter().map(Vec::len).sum();
        let held: usize = self.archetypes.iter().map(|a| a.components().len()).sum();
        if indexed != held {
            return Err(format!("component index has {indexed} entries for {held} archetype columns"));
        }
        Ok(())
    }
}

/// One component's columns, by archetype id, from the first archetype that has
/// it (components made late do not pay for the archetypes before them).
#[derive(Debug, Default)]
struct ColumnTable {
    first: usize,
    columns: Vec<Option<ColumnPtr>>,
    /// `columns[0]` while the table has exactly one entry (kept by `set`):
    /// a lookup by id then takes the lookup cache's one-archetype path (see
    /// `lookup.rs`'s `Header::single`).
    single: Option<ColumnPtr>,
    /// The component's lookup key, if it has one (see `lookup.rs`).
    lookup: Option<LookupKey>,
    /// The component has a schema: the by-id cache may hold the table.
    described: bool,
}

impl ColumnTable {
    fn set(&mut self, archetype: ArchetypeId, column: NonNull<Column>) {
        let id = archetype.index();
        if self.columns.is_empty() {
            self.first = id;
        } else if id < self.first {
            let before = self.first - id;
            self.columns.splice(0..0, core::iter::repeat_n(None, before));
            self.first = id;
        }
        let offset = id - self.first;
        if self.columns.len() <= offset {
            self.columns.resize(offset + 1, None);
        }
        self.columns[offset] = Some(ColumnPtr(column));
        self.single = if let [only] = self.columns[..] { only } else { None };
    }
}

/// One component's column table, borrowed from the [`Archetypes`]: see
/// [`Archetypes::columns_of`].
#[derive(Clone, Copy)]
pub(crate) struct ColumnsOf<'a> {
    first: usize,
    columns: &'a [Option<ColumnPtr>],
    /// `columns[0]` when the table has that one entry (`None` says nothing:
    /// the table is then read as usual).
    single: Option<ColumnPtr>,
}

impl<'a> ColumnsOf<'a> {
    /// A table header from its parts (the lookup cache's copy); `single` is
    /// `None` or the one entry of `columns`.
    #[inline(always)]
    pub(super) fn new(first: usize, columns: &'a [Option<ColumnPtr>], single: Option<ColumnPtr>) -> Self {
        debug_assert!(single.is_none() || columns.len() == 1);
        Self { first, columns, single }
    }

    /// The entry of archetype `archetype`, if it has the component; a miss for
    /// any archetype id beyond the last (a dead entity's location).
    #[inline(always)]
    fn entry(self, archetype: ArchetypeId) -> Option<ColumnPtr> {
        // Loop-invariant in a loop of lookups, so the compiler makes one loop
        // per case.
        if let Some(only) = self.single {
            return (archetype.index() == self.first).then_some(only);
        }
        // Ids below `first` wrap to huge offsets: a miss, like ids past the end.
        self.columns.get(archetype.index().wrapping_sub(self.first)).copied().flatten()
    }

    /// The component's column in archetype `archetype`, if it has one (see
    /// [`entry`](Self::entry)).
    #[inline(always)]
    pub(crate) fn column(self, archetype: ArchetypeId) -> Option<&'a Column> {
        let column = self.entry(archetype)?;
        // SAFETY: the table's pointers are current (`index_columns` runs whenever
        // an archetype is made or its columns move, and archetypes are never
        // removed; `single` is a copy the lookup cache refreshes with them,
        // see `LookupCache`'s invariant), and the column is borrowed for `'a`, a shared borrow of the
        // `Archetypes` that own it and the table.
        Some(unsafe { column.0.as_ref() })
    }
}

/// One component's column table, borrowed from the [`Archetypes`] mutably, to
/// borrow one of its columns mutably: see [`Archetypes::columns_for_mut`].
pub(crate) struct ColumnsOfMut<'a>(ColumnsOf<'a>, PhantomData<&'a mut Column>);

impl<'a> ColumnsOfMut<'a> {
    /// The component's column in archetype `archetype`, mutably.
    #[inline(always)]
    pub(crate) fn column(self, archetype: ArchetypeId) -> Option<&'a mut Column> {
        let column = self.0.entry(archetype)?;
        // SAFETY: current, as in `ColumnsOf::column`; the pointer came from the
        // columns' own buffer (`column_ptr_mut`), and the view holds a unique
        // borrow of the `Archetypes` for `'a` and is consumed here, so this is
        // the only borrow of any column.
        Some(unsafe { &mut *column.0.as_ptr() })
    }
}

/// A pointer to a column of one of the archetypes that own the table.
#[derive(Clone, Copy, Debug)]
pub(super) struct ColumnPtr(NonNull<Column>);

// SAFETY: the pointer is into columns the same `Archetypes` owns, and is only
// dereferenced through `ColumnsOf` (made from `&self`, a shared borrow, as for
// the archetypes themselves) or `ColumnsOfMut` (from `&mut self`); it moves between
// threads with its owner and follows its borrows, like a `&Column`/`&mut Column`
// would (`Column` is `Send + Sync`).
unsafe impl Send for ColumnPtr {}
// SAFETY: as for `Send`.
unsafe impl Sync for ColumnPtr {}
