//! [`QueryData`]: what a query fetches for each matched row, and its implementations
//! for `&T`, `&mut T`, `Option<&T>`, `Option<&mut T>` and [`Entity`].
//!
//! A fetch works in two steps, as in hecs: once per archetype,
//! [`fetch_archetype`](QueryData::fetch_archetype) turns cached column entries into
//! base pointers; then, per row, [`fetch`](QueryData::fetch) is a pointer offset with
//! no lookup and no branch, which lets the compiler vectorize the loop.

use core::marker::PhantomData;
use core::ops::Range;
use core::ptr::NonNull;

use super::Access;
use crate::archetype::Archetype;
use crate::component::{Component, ComponentId, MutableComponent, WholeComponent, component_id, is_sparse};
use crate::entity::Entity;
use crate::storage::{Column, ComponentTicks, Tick};

/// Marks the cached entries of an archetype that lacks an optional component.
pub(crate) const NO_COLUMN: u32 = u32::MAX;

/// One entry a query caches per matched archetype: where a table component's
/// column is, or a number (a sparse component's id, an `Option`'s flag).
///
/// A column entry points into the archetype's table of columns, so a run reaches
/// the data pointer and length of each archetype in two loads, instead of through
/// the archetype id, the archetype and a column index. The table only moves when
/// the archetype gains a sparse column, which bumps the world's column generation;
/// a [`QueryState`](super::QueryState) caches its entries anew when that changed.
#[derive(Clone, Copy, Debug)]
pub struct CachedColumn(*const Column);

// SAFETY: the pointer is only dereferenced by query code that holds the access the
// query recorded on the world owning the column (see `QueryData::fetch_archetype`);
// moving or sharing the cache between threads is moving or sharing the plain
// numbers it holds.
unsafe impl Send for CachedColumn {}
// SAFETY: as above.
unsafe impl Sync for CachedColumn {}

impl CachedColumn {
    /// An entry naming no column: filler, never read.
    pub(crate) const NONE: Self = Self(core::ptr::null());

    /// The entry of column `index` of `archetype`.
    ///
    /// # Panics
    /// When the archetype has no column `index`.
    pub(crate) fn table(archetype: &Archetype, index: usize) -> Self {
        Self(archetype.column_ptr(index))
    }

    /// An entry holding a number.
    pub(crate) const fn number(value: u32) -> Self {
        Self(core::ptr::without_provenance(value as usize))
    }

    /// The number an entry made by [`number`](Self::number) holds.
    #[inline(always)]
    pub(crate) fn get(self) -> u32 {
        self.0.addr() as u32
    }

    /// The column an entry made by [`table`](Self::table) points to.
    ///
    /// # Safety
    /// The entry was made by `table` for an archetype that has gained no column
    /// since, and the caller has the access its query recorded for as long as `'w`.
    #[inline(always)]
    pub(crate) unsafe fn column<'w>(self) -> &'w Column {
        // SAFETY: the column table has not moved since the pointer was taken
        // (caller), so the pointer is not null (telling the compiler so spares a
        // fetch's `Option` its test) and points to a live `Column`, which nothing
        // writes while the world is borrowed for the query.
        unsafe {
            core::hint::assert_unchecked(!self.0.is_null());
            &*self.0
        }
    }
}

/// The ticks a query run compares against: rows changed after `last_run` (and not
/// after `this_run`) count as changed; writes are stamped with `this_run`.
#[derive(Clone, Copy, Debug)]
pub struct FetchContext {
    /// When the query last ran (0 for a query that never ran: everything is new).
    pub last_run: Tick,
    /// The tick of this run.
    pub this_run: Tick,
}

impl FetchContext {
    /// The window of a run at `this_run` for a query that last ran at `last_run`.
    /// A `last_run` older than [`MAX_CHANGE_AGE`](crate::storage::MAX_CHANGE_AGE)
    /// is clamped to that age, as stored ticks are, so that an old query never sees
    /// wrapped-around ticks as new.
    #[inline]
    pub fn new(last_run: Tick, this_run: Tick) -> Self {
        Self { last_run: last_run.clamp_age(this_run), this_run }
    }
}

/// [`QueryData::LEADING_TABLE_COLUMN`] of a sequence of query items (a tuple, or
/// the fields of a `#[derive(QueryData)]` struct), given each item's
/// `(COLUMNS, LEADING_TABLE_COLUMN)`: that of the first item caching any entry.
#[doc(hidden)]
pub const fn leading_table_column(items: &[(usize, bool)]) -> bool {
    let mut i = 0;
    while i < items.len() {
        if items[i].0 > 0 {
            return items[i].1;
        }
        i += 1;
    }
    false
}

/// Data a query can fetch per row.
///
/// Implemented for `&T`, `&mut T`, `Option<&T>`, `Option<&mut T>`, [`Entity`], tuples
/// of up to 16 of these, and structs with `#[derive(QueryData)]`.
///
/// # Safety
/// - [`access`](Self::access) must record every component the fetch reads (as a
///   read) and writes (as a write); the aliasing check and the scheduler rely on it.
/// - [`columns`](Self::columns) must push exactly [`COLUMNS`](Self::COLUMNS)
///   entries, and [`fetch_archetype`](Self::fetch_archetype) must consume exactly
///   as many, in the same order.
/// - [`matches`](Self::matches) must be `false` for an archetype lacking a
///   component that `fetch_archetype` requires.
/// - When [`LEADING_TABLE_COLUMN`](Self::LEADING_TABLE_COLUMN) is `true`, the
///   first entry [`columns`](Self::columns) pushes for every matched archetype
///   must be one of the archetype's table columns.
/// - Making a fetch ([`fetch_archetype`](Self::fetch_archetype)) and asking
///   [`filter_row`](Self::filter_row) and [`run_end`](Self::run_end) read no
///   component data and write nothing (ticks at most are read), so that the crate
///   may count or locate rows holding only a shared borrow of the world.
/// - A fetch writes only components that implement
///   [`MutableComponent`](crate::component::MutableComponent): the crate reads
///   immutable relationship components outside declared access.
/// - Every row the query yields has each component
///   [`included`](Self::included) reports (two queries are run side by side on
///   that proof), and a component whose presence or ticks decide row by row
///   which rows are yielded (a tag or sparse one) is recorded in
///   [`access`](Self::access) as such (the crate's own fetches do; a
///   hand-written fetch reports no such component in `included`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be fetched by a query",
    label = "not a query item",
    note = "query items are `&T`, `&mut T`, `Option<&T>`, `Option<&mut T>` and `Entity` (with `T: Component`), \
            tuples of them, or a `#[derive(QueryData)]` struct"
)]
pub unsafe trait QueryData {
    /// What the query yields per row.
    type Item<'w>;
    /// What chunk iteration yields per archetype.
    type Slice<'w>;
    /// The per-archetype state: base pointers. `Send + Sync`, because fetches are
    /// made and used on the threads of parallel iteration and kept in a
    /// [`QueryBorrow`](crate::query::QueryBorrow), which is shared between threads.
    type Fetch<'w>: Clone + Send + Sync;
    /// What the query resolves once: component ids.
    type State: Send + Sync + 'static;
    /// How many entries the query caches per matched archetype.
    const COLUMNS: usize;
    /// `true` when the first cached entry is always a table column of the
    /// archetype, whose length is the archetype's: iteration then reads the length
    /// next to the data pointer instead of from the archetype.
    const LEADING_TABLE_COLUMN: bool = false;
    /// How many arrays a row's item reads: one per cached column, except a
    /// per-field component, which reads one per field. A loop over one array
    /// is unrolled by hand; over several it is left plain, for the compiler to
    /// vectorize behind its run-time overlap check. Only shapes loops.
    #[doc(hidden)]
    const ARRAYS: usize = Self::COLUMNS;

    /// Resolves component ids.
    fn init_state() -> Self::State;
    /// Records the components read and written.
    fn access(state: &Self::State, access: &mut Access);
    /// `true` when the archetype has everything the fetch requires.
    fn matches(state: &Self::State, archetype: &Archetype) -> bool;
    /// Reports each component an archetype must have to match.
    fn required(state: &Self::State, f: &mut impl FnMut(ComponentId));
    /// Reports each component every row the query yields has, sparse ones
    /// included (`&T` of a tag yields only rows with the tag): half of the
    /// proof that two queries never yield the same row. By default, the
    /// [`required`](Self::required) ones.
    fn included(state: &Self::State, f: &mut impl FnMut(ComponentId)) {
        Self::required(state, f);
    }
    /// Pushes [`COLUMNS`](Self::COLUMNS) entries for a matched archetype.
    fn columns(state: &Self::State, archetype: &Archetype, out: &mut Vec<CachedColumn>);

    /// Builds the per-archetype fetch from the cached entries.
    ///
    /// # Safety
    /// The archetype matched, `columns` starts with the entries
    /// [`columns`](Self::columns) pushed for it, the archetype has gained no
    /// column since, and the caller has the access [`access`](Self::access)
    /// recorded for as long as `'w`.
    unsafe fn fetch_archetype<'w>(
        archetype: &'w Archetype,
        columns: &mut &[CachedColumn],
        ctx: FetchContext,
    ) -> Self::Fetch<'w>;

    /// The item of one row.
    ///
    /// # Safety
    /// `row` is below the archetype's length, and no other live item of this query
    /// refers to the same row.
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, row: usize) -> Self::Item<'w>;

    /// Shortens an item's world borrow (items are covariant in it, but the
    /// compiler cannot see that through the associated type): lending iterators
    /// such as [`QueryCombinationIter::fetch_next`](super::QueryCombinationIter::fetch_next)
    /// hand out items that borrow the iterator.
    fn shrink<'long: 'short, 'short>(item: Self::Item<'long>) -> Self::Item<'short>;

    /// The columns of a row range, as slices.
    ///
    /// # Safety
    /// `rows` is within the archetype, and no other live item or slice of this query
    /// overlaps it.
    unsafe fn slice<'w>(fetch: &Self::Fetch<'w>, rows: Range<usize>) -> Self::Slice<'w>;

    /// `false` when rows of a matched archetype differ: some yield no item (a
    /// sparse component lacks), so [`filter_row`](Self::filter_row) must be asked
    /// per row, or rows differ in shape (an `Option` of a sparse component is
    /// `Some` in some rows, `None` in others), so one slice cannot cover the
    /// archetype and chunk iteration asks [`run_end`](Self::run_end).
    const DENSE: bool = true;

    /// `true` when the row yields an item. Only consulted when
    /// [`DENSE`](Self::DENSE) is `false`.
    ///
    /// # Safety
    /// `row` is below the archetype's length.
    #[inline(always)]
    unsafe fn filter_row(_fetch: &Self::Fetch<'_>, _row: usize) -> bool {
        true
    }

    /// Where the run of rows starting at `rows.start` that one
    /// [`slice`](Self::slice) may cover ends, at most `rows.end`: every row of
    /// `rows.start..end` passes [`filter_row`](Self::filter_row), and the rows
    /// agree in shape (an `Option`'s inner item is there in all of them or in none).
    /// Only consulted when [`DENSE`](Self::DENSE) is `false`.
    ///
    /// Implementations must return a value in `rows.start + 1..=rows.end` with that
    /// property; chunk iteration hands out `slice(rows.start..end)` on it.
    ///
    /// # Safety
    /// `rows` is non-empty and within the archetype, and `rows.start` passes
    /// [`filter_row`](Self::filter_row).
    #[inline(always)]
    unsafe fn run_end(fetch: &Self::Fetch<'_>, rows: Range<usize>) -> usize {
        // SAFETY: `run_while` asks only rows of `rows`, within the archetype (caller).
        run_while(rows, |row| unsafe { Self::filter_row(fetch, row) })
    }

    /// Stamps the rows handed out mutably as changed at the run's tick.
    ///
    /// # Safety
    /// As for [`slice`](Self::slice).
    #[inline(always)]
    unsafe fn mark_written(_fetch: &Self::Fetch<'_>, _rows: Range<usize>) {}

    /// `false` when [`mark_written`](Self::mark_written) does nothing for this
    /// fetch's archetype (nothing written, or no `Changed` query watching what
    /// is): a `for` loop then hands its rows out with nothing but a compare on
    /// each row's path. `true`, the default, is always correct; a `false`
    /// where `mark_written` would stamp loses changes.
    #[inline(always)]
    fn stamps(_fetch: &Self::Fetch<'_>) -> bool {
        true
    }

    /// Stamps the rows handed out as a [`slice`](Self::slice): what
    /// [`mark_written`](Self::mark_written) does, except for items that stamp
    /// their row themselves when written ([`Mut`](crate::Mut)), whose slices are
    /// plain `&mut [T]`.
    ///
    /// # Safety
    /// As for [`slice`](Self::slice).
    #[inline(always)]
    unsafe fn mark_sliced(fetch: &Self::Fetch<'_>, rows: Range<usize>) {
        // SAFETY: forwarded.
        unsafe { Self::mark_written(fetch, rows) }
    }
}

/// A [`QueryData`] that only reads, so it can run on a shared `&World`.
///
/// # Safety
/// [`QueryData::access`] records no write, and items give no mutable access.
#[diagnostic::on_unimplemented(
    message = "`{Self}` writes components, so it must be iterated mutably",
    label = "this query is not read-only",
    note = "in a system, write `query.iter_mut()` (or `for item in &mut query`, `query.get_mut(entity)`) \
            on a `mut query: Query<…>` parameter",
    note = "on a `World`, use `world.query_mut::<…>()` (or a `QueryState` with `iter_mut(&mut world)`)"
)]
pub unsafe trait ReadOnlyQueryData: QueryData {}

/// The fetch of `&T`: the column's base pointer (and, for a sparse component, its ticks, which
/// say which rows have it).
pub struct ReadFetch<'w, T> {
    data: NonNull<T>,
    tag: Presence,
    marker: PhantomData<&'w T>,
}

// SAFETY: a `ReadFetch` hands out `&T` (and reads a sparse column's ticks, which
// nothing writes while the query runs); sending or sharing it is sending or sharing
// `&[T]`, which needs `T: Sync`.
unsafe impl<T: Sync> Send for ReadFetch<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for ReadFetch<'_, T> {}

impl<T> Clone for ReadFetch<'_, T> {
    fn clone(&self) -> Self {
        Self { data: self.data, tag: self.tag, marker: PhantomData }
    }
}

/// Where a sparse column's ticks are, if the archetype has the column: which rows
/// hold the component.
#[derive(Clone, Copy)]
pub struct Presence(pub(crate) Option<NonNull<ComponentTicks>>);

// SAFETY: a `Presence` only reads a column's ticks, which are plain integers that
// nothing writes while a query holding the column's access runs.
unsafe impl Send for Presence {}
// SAFETY: as above.
unsafe impl Sync for Presence {}

impl Presence {
    /// Resolves the sparse column of `archetype` from the component id that
    /// `columns` cached (sparse columns can be added to an archetype after a query
    /// matched it).
    #[inline]
    pub(crate) fn resolve(archetype: &Archetype, cached: CachedColumn) -> Self {
        Self(archetype.column(ComponentId::new(cached.get())).map(|c| c.ticks_ptr()))
    }

    /// `true` when the row holds the component.
    ///
    /// # Safety
    /// `row` is below the archetype's length.
    #[inline(always)]
    pub(crate) unsafe fn at(self, row: usize) -> bool {
        // SAFETY: `row` is in bounds (caller) of the sparse column's ticks.
        self.0.is_some_and(|ticks| unsafe { ticks.add(row).read().added } != Tick::ABSENT)
    }
}

/// Takes the next cached entry and resolves the component's column: for a data
/// component the cached column (always there), for a sparse one the cached
/// component id, looked up now (the column may be missing, or added since the
/// query matched the archetype).
///
/// # Safety
/// The entry was cached by [`push_column::<T>`](push_column) for this archetype,
/// which has gained no column since, and the caller has the query's access for
/// `'w`.
#[inline(always)]
pub(crate) unsafe fn take_column<'w, T: Component>(
    archetype: &'w Archetype,
    columns: &mut &[CachedColumn],
) -> Option<&'w Column> {
    let cached = next_column(columns);
    if is_sparse::<T>() {
        archetype.column(ComponentId::new(cached.get()))
    } else {
        // SAFETY: a data component's entry points to its column in this archetype,
        // whose table has not moved since (caller).
        Some(unsafe { cached.column() })
    }
}

/// Archetype-level matching of a component a fetch or filter needs: a data
/// component must have a column; a sparse one is checked per row instead.
#[inline]
pub(crate) fn matches_component<T: Component>(id: ComponentId, archetype: &Archetype) -> bool {
    is_sparse::<T>() || archetype.has(id)
}

/// Reports a table component as required for matching (sparse ones are per row).
#[inline]
pub(crate) fn require_component<T: Component>(id: ComponentId, f: &mut impl FnMut(ComponentId)) {
    if !is_sparse::<T>() {
        f(id);
    }
}

/// Pushes the cached entry of a component: its column, or for a sparse one its
/// component id (resolved per run, see [`take_column`]).
pub(crate) fn push_column<T: Component>(id: ComponentId, archetype: &Archetype, out: &mut Vec<CachedColumn>) {
    if is_sparse::<T>() {
        out.push(CachedColumn::number(id.index() as u32));
    } else {
        let index = archetype.column_index(id).expect("matched archetype has the component");
        out.push(CachedColumn::table(archetype, index));
    }
}

/// The fetch of `&mut T`: the column's base pointer, and the column itself for
/// stamping its ticks.
pub struct WriteFetch<'w, T> {
    data: NonNull<T>,
    /// Read only when `track` is set (the column exists then). Its ticks pointer
    /// is taken there, not up front: that load would sit on every archetype's
    /// step for a stamp that is off unless a `Changed` query watches `T`.
    column: NonNull<Column>,
    tag: Presence,
    this_run: Tick,
    /// A `Changed` query watches `T`: stamp the rows handed out.
    track: bool,
    marker: PhantomData<&'w mut T>,
}

// SAFETY: a `WriteFetch` hands out `&mut T` to distinct rows (each row once, the
// caller's duty under `QueryData::fetch`) and stamps those rows' ticks: sending it
// is sending `&mut [T]` (`T: Send`), and sharing it lets other threads take items
// of other rows, which is sending them (`T: Send`) or reading them (`T: Sync`).
unsafe impl<T: Send + Sync> Send for WriteFetch<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Sync for WriteFetch<'_, T> {}

impl<T> Clone for WriteFetch<'_, T> {
    fn clone(&self) -> Self {
        Self {
            data: self.data,
            column: self.column,
            tag: self.tag,
            this_run: self.this_run,
            track: self.track,
            marker: PhantomData,
        }
    }
}

/// The end of the run from `rows.start` (non-empty `rows`) over which `holds` stays
/// true for every row after the first, at most `rows.end`.
#[inline(always)]
fn run_while(rows: Range<usize>, mut holds: impl FnMut(usize) -> bool) -> usize {
    let mut end = rows.start + 1;
    while end < rows.end && holds(end) {
        end += 1;
    }
    end
}

/// `true` when an `Option<Q>`'s inner item is there in the run `rows`: always for a
/// dense `Q`; otherwise the run's first row tells, since chunk iteration keeps runs
/// within one `run_end` (all rows have it or none has).
///
/// # Safety
/// `rows` is within the archetype.
#[inline(always)]
unsafe fn inner_holds<Q: QueryData>(fetch: &Q::Fetch<'_>, rows: &Range<usize>) -> bool {
    // SAFETY: `rows.start < rows.end`, within the archetype (caller).
    Q::DENSE || (!rows.is_empty() && unsafe { Q::filter_row(fetch, rows.start) })
}

/// Takes the next cached entry.
#[inline(always)]
pub(crate) fn next_column(columns: &mut &[CachedColumn]) -> CachedColumn {
    let (&first, rest) = columns.split_first().expect("a query consumes exactly the columns it cached");
    *columns = rest;
    first
}

// SAFETY: records a read of `T`; caches one column, which it consumes; matches only
// archetypes holding `T`.
unsafe impl<T: Component + WholeComponent> QueryData for &T {
    type Item<'w> = &'w T;
    type Slice<'w> = &'w [T];
    type Fetch<'w> = ReadFetch<'w, T>;
    type State = ComponentId;
    const COLUMNS: usize = 1;
    const LEADING_TABLE_COLUMN: bool = !is_sparse::<T>();

    #[inline]
    fn init_state() -> ComponentId {
        component_id::<T>()
    }
    fn access(state: &ComponentId, access: &mut Access) {
        access.add_read(*state, crate::names::type_name::<T>());
        if is_sparse::<T>() {
            // Which rows it yields is decided row by row, from the presence.
            access.add_per_row(*state);
        }
    }
    const DENSE: bool = !is_sparse::<T>();

    #[inline]
    fn matches(state: &ComponentId, archetype: &Archetype) -> bool {
        matches_component::<T>(*state, archetype)
    }
    fn required(state: &ComponentId, f: &mut impl FnMut(ComponentId)) {
        require_component::<T>(*state, f);
    }
    fn included(state: &ComponentId, f: &mut impl FnMut(ComponentId)) {
        f(*state);
    }
    fn columns(state: &ComponentId, archetype: &Archetype, out: &mut Vec<CachedColumn>) {
        push_column::<T>(*state, archetype, out);
    }
    #[inline(always)]
    unsafe fn fetch_archetype<'w>(
        archetype: &'w Archetype,
        columns: &mut &[CachedColumn],
        _: FetchContext,
    ) -> ReadFetch<'w, T> {
        // SAFETY: the entry was cached for this archetype by `columns`.
        let column = unsafe { take_column::<T>(archetype, columns) };
        ReadFetch {
            data: column.map_or(NonNull::dangling(), |c| c.data_ptr().cast()),
            tag: Presence(if is_sparse::<T>() { column.map(|c| c.ticks_ptr()) } else { None }),
            marker: PhantomData,
        }
    }
    #[inline(always)]
    unsafe fn filter_row(fetch: &Self::Fetch<'_>, row: usize) -> bool {
        // SAFETY: `row` is in bounds (caller).
        !is_sparse::<T>() || unsafe { fetch.tag.at(row) }
    }
    #[inline(always)]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, row: usize) -> &'w T {
        // SAFETY: `row` is in bounds (caller) of a column of `T`s, shared for `'w`.
        unsafe { fetch.data.add(row).as_ref() }
    }
    fn shrink<'long: 'short, 'short>(item: &'long T) -> &'short T {
        item
    }
    #[inline(always)]
    unsafe fn slice<'w>(fetch: &Self::Fetch<'w>, rows: Range<usize>) -> &'w [T] {
        // SAFETY: `rows` is in bounds (caller) of a column of `T`s, shared for `'w`.
        unsafe { core::slice::from_raw_parts(fetch.data.add(rows.start).as_ptr(), rows.len()) }
    }
    #[inline(always)]
    fn stamps(_: &Self::Fetch<'_>) -> bool {
        false
    }
}

// SAFETY: only reads. Bounded through `QueryData` rather than `Component`, so that
// a non-component type is reported as "not a component", not as "not read-only".
unsafe impl<'a, T: 'static> ReadOnlyQueryData for &'a T where &'a T: QueryData {}

// SAFETY: records a write of `T`; caches one column, which it consumes; matches only
// archetypes holding `T`.
unsafe impl<T: Component + MutableComponent + WholeComponent> QueryData for &mut T {
    type Item<'w> = &'w mut T;
    type Slice<'w> = &'w mut [T];
    type Fetch<'w> = WriteFetch<'w, T>;
    type State = ComponentId;
    const COLUMNS: usize = 1;
    const LEADING_TABLE_COLUMN: bool = !is_sparse::<T>();

    #[inline]
    fn init_state() -> ComponentId {
        component_id::<T>()
    }
    fn access(state: &ComponentId, access: &mut Access) {
        access.add_write(*state, crate::names::type_name::<T>());
        if is_sparse::<T>() {
            // Which rows it yields is decided row by row, from the presence.
            access.add_per_row(*state);
        }
    }
    const DENSE: bool = !is_sparse::<T>();

    #[inline]
    fn matches(state: &ComponentId, archetype: &Archetype) -> bool {
        matches_component::<T>(*state, archetype)
    }
    fn required(state: &ComponentId, f: &mut impl FnMut(ComponentId)) {
        require_component::<T>(*state, f);
    }
    fn included(state: &ComponentId, f: &mut impl FnMut(ComponentId)) {
        f(*state);
    }
    fn columns(state: &ComponentId, archetype: &Archetype, out: &mut Vec<CachedColumn>) {
        push_column::<T>(*state, archetype, out);
    }
    #[inline(always)]
    unsafe fn fetch_archetype<'w>(
        archetype: &'w Archetype,
        columns: &mut &[CachedColumn],
        ctx: FetchContext,
    ) -> WriteFetch<'w, T> {
        // SAFETY: the entry was cached for this archetype by `columns`.
        let column = unsafe { take_column::<T>(archetype, columns) };
        WriteFetch {
            data: column.map_or(NonNull::dangling(), |c| c.data_ptr().cast()),
            column: column.map_or(NonNull::dangling(), NonNull::from),
            tag: Presence(if is_sparse::<T>() { column.map(|c| c.ticks_ptr()) } else { None }),
            this_run: ctx.this_run,
            track: column.is_some_and(|c| c.tracks_changes()),
            marker: PhantomData,
        }
    }
    #[inline(always)]
    unsafe fn filter_row(fetch: &Self::Fetch<'_>, row: usize) -> bool {
        // SAFETY: `row` is in bounds (caller).
        !is_sparse::<T>() || unsafe { fetch.tag.at(row) }
    }
    #[inline(always)]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, row: usize) -> &'w mut T {
        // SAFETY: `row` is in bounds (caller); the caller's write access and the
        // one-item-per-row rule make the reference unique.
        unsafe { fetch.data.add(row).as_mut() }
    }
    fn shrink<'long: 'short, 'short>(item: &'long mut T) -> &'short mut T {
        item
    }
    #[inline(always)]
    unsafe fn slice<'w>(fetch: &Self::Fetch<'w>, rows: Range<usize>) -> &'w mut [T] {
        // SAFETY: as in `fetch`, for a range.
        unsafe { core::slice::from_raw_parts_mut(fetch.data.add(rows.start).as_ptr(), rows.len()) }
    }
    #[inline(always)]
    unsafe fn mark_written(fetch: &Self::Fetch<'_>, rows: Range<usize>) {
        if !fetch.track {
            return;
        }
        // Laid out off the straight path: a `for` loop stamps row by row, and with
        // the stamp in line every row paid a second taken branch.
        cold_path();
        // SAFETY: `track` is only set for an existing column that tracks changes
        // (so keeps ticks), which outlives `'w`; `rows` is in bounds (caller),
        // which has write access to them.
        unsafe { stamp_rows(fetch.column.as_ref(), rows, fetch.this_run) };
    }
    #[inline(always)]
    fn stamps(fetch: &Self::Fetch<'_>) -> bool {
        fetch.track
    }
}

/// Stamps `rows` of `column` changed at `tick`, and its "last changed" summary:
/// what a write handed out without a [`Mut`](crate::Mut) records.
///
/// # Safety
/// The column keeps ticks, `rows` is within its length, and the caller has
/// write access to those rows (no other reference to their ticks is live).
#[inline]
pub(crate) unsafe fn stamp_rows(column: &Column, rows: Range<usize>, tick: Tick) {
    // SAFETY: the tick array holds the rows (caller), written by nothing else now.
    let ticks = unsafe { core::slice::from_raw_parts_mut(column.ticks_ptr().add(rows.start).as_ptr(), rows.len()) };
    for row in ticks {
        row.changed = tick;
    }
    crate::storage::stamp_summary(column.last_change_cell(), tick);
}

// SAFETY: records the inner fetch's access; caches one (possibly `NO_COLUMN`) entry
// per inner column; matches every archetype and only fetches where the inner matches.
unsafe impl<Q: QueryData> QueryData for Option<Q> {
    type Item<'w> = Option<Q::Item<'w>>;
    type Slice<'w> = Option<Q::Slice<'w>>;
    type Fetch<'w> = Option<Q::Fetch<'w>>;
    type State = Q::State;
    const COLUMNS: usize = 1 + Q::COLUMNS;
    // Every row yields (`Some` or `None`), but where the inner query is not dense
    // its rows differ in shape, so one slice cannot cover an archetype: chunk
    // iteration then splits runs where `run_end` says.
    const DENSE: bool = Q::DENSE;

    fn init_state() -> Q::State {
        Q::init_state()
    }
    fn access(state: &Q::State, access: &mut Access) {
        Q::access(state, access);
    }
    #[inline]
    fn matches(_: &Q::State, _: &Archetype) -> bool {
        true
    }
    fn required(_: &Q::State, _: &mut impl FnMut(ComponentId)) {}
    fn columns(state: &Q::State, archetype: &Archetype, out: &mut Vec<CachedColumn>) {
        if Q::matches(state, archetype) {
            out.push(CachedColumn::number(1));
            Q::columns(state, archetype, out);
        } else {
            out.extend(core::iter::repeat_n(CachedColumn::number(NO_COLUMN), 1 + Q::COLUMNS));
        }
    }
    #[inline(always)]
    unsafe fn fetch_archetype<'w>(
        archetype: &'w Archetype,
        columns: &mut &[CachedColumn],
        ctx: FetchContext,
    ) -> Option<Q::Fetch<'w>> {
        if next_column(columns).get() == NO_COLUMN {
            *columns = &columns[Q::COLUMNS..];
            None
        } else {
            // SAFETY: the inner query matched this archetype (flag above) and its
            // cached columns follow.
            Some(unsafe { Q::fetch_archetype(archetype, columns, ctx) })
        }
    }
    #[inline(always)]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, row: usize) -> Self::Item<'w> {
        // SAFETY: forwarded; the inner item exists where its row filter passes.
        fetch.as_ref().and_then(|f| unsafe { Q::filter_row(f, row).then(|| Q::fetch(f, row)) })
    }
    fn shrink<'long: 'short, 'short>(item: Self::Item<'long>) -> Self::Item<'short> {
        item.map(Q::shrink)
    }
    #[inline(always)]
    unsafe fn run_end(fetch: &Self::Fetch<'_>, rows: Range<usize>) -> usize {
        let Some(f) = fetch else { return rows.end };
        // SAFETY: `rows` is non-empty and within the archetype (caller).
        unsafe {
            if Q::filter_row(f, rows.start) {
                // The inner item is there at `start`: as far as the inner run goes.
                Q::run_end(f, rows)
            } else {
                // It is not: as far as it stays missing (`None` for the whole run).
                run_while(rows, |row| !Q::filter_row(f, row))
            }
        }
    }
    #[inline(always)]
    unsafe fn slice<'w>(fetch: &Self::Fetch<'w>, rows: Range<usize>) -> Option<Q::Slice<'w>> {
        // SAFETY: `rows` is within the archetype (caller), and `inner_holds` says the
        // inner item is there in every row of it.
        fetch.as_ref().and_then(|f| unsafe { inner_holds::<Q>(f, &rows).then(|| Q::slice(f, rows)) })
    }
    #[inline(always)]
    unsafe fn mark_written(fetch: &Self::Fetch<'_>, rows: Range<usize>) {
        if let Some(f) = fetch {
            // SAFETY: as in `slice`: only rows that hold the inner item are stamped.
            unsafe {
                if inner_holds::<Q>(f, &rows) {
                    Q::mark_written(f, rows)
                }
            }
        }
    }
    #[inline(always)]
    unsafe fn mark_sliced(fetch: &Self::Fetch<'_>, rows: Range<usize>) {
        if let Some(f) = fetch {
            // SAFETY: as in `mark_written`.
            unsafe {
                if inner_holds::<Q>(f, &rows) {
                    Q::mark_sliced(f, rows)
                }
            }
        }
    }
    #[inline(always)]
    fn stamps(fetch: &Self::Fetch<'_>) -> bool {
        fetch.as_ref().is_some_and(Q::stamps)
    }
}

// SAFETY: forwards to a read-only inner query.
unsafe impl<Q: ReadOnlyQueryData> ReadOnlyQueryData for Option<Q> {}

/// The fetch of [`Entity`]: the archetype's entity column.
#[derive(Clone)]
pub struct EntityFetch<'w>(&'w [Entity]);

// SAFETY: reads no component; caches nothing; matches everything.
unsafe impl QueryData for Entity {
    type Item<'w> = Entity;
    type Slice<'w> = &'w [Entity];
    type Fetch<'w> = EntityFetch<'w>;
    type State = ();
    const COLUMNS: usize = 0;

    fn init_state() {}
    fn access(_: &(), _: &mut Access) {}
    #[inline]
    fn matches(_: &(), _: &Archetype) -> bool {
        true
    }
    fn required(_: &(), _: &mut impl FnMut(ComponentId)) {}
    fn columns(_: &(), _: &Archetype, _: &mut Vec<CachedColumn>) {}
    #[inline(always)]
    unsafe fn fetch_archetype<'w>(
        archetype: &'w Archetype,
        _: &mut &[CachedColumn],
        _: FetchContext,
    ) -> EntityFetch<'w> {
        EntityFetch(archetype.entities())
    }
    #[inline(always)]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, row: usize) -> Self::Item<'w> {
        // SAFETY: `row` is below the archetype's length (caller).
        unsafe { *fetch.0.get_unchecked(row) }
    }
    fn shrink<'long: 'short, 'short>(item: Entity) -> Entity {
        item
    }
    #[inline(always)]
    unsafe fn slice<'w>(fetch: &Self::Fetch<'w>, rows: Range<usize>) -> &'w [Entity] {
        // SAFETY: `rows` is within the archetype (caller).
        unsafe { fetch.0.get_unchecked(rows) }
    }
    #[inline(always)]
    fn stamps(_: &Self::Fetch<'_>) -> bool {
        false
    }
}

// SAFETY: only reads entity ids.
unsafe impl ReadOnlyQueryData for Entity {}

/// Marks the branch that calls it as unlikely (`core::hint::cold_path` is newer
/// than the crate's minimum Rust version): a call to a `#[cold]` function
/// weights the branch before the call is inlined away.
#[cold]
#[inline]
fn cold_path() {}
