//! [`QueryIter`]: the iterator over a query's matching entities.
//!
//! Per matched archetype the fetch resolves base pointers once; per row it is a
//! pointer offset. `next` stamps each row it hands out through `&mut T` as changed
//! where some `Changed` query watches the column (elsewhere a row costs a compare
//! and the item); `fold` (`for_each`) stamps a whole archetype in one tight loop.
//!
//! A `for` loop is only as fast as the iterator's fields staying in registers:
//! were they in memory, every row would store and reload the row counter after
//! the loop body's writes. So the iterator has no `Drop`, and `next` and what
//! it calls with the iterator's address are always inlined.

use core::ptr::NonNull;

use super::combinations::QueryCombinationIter;
use super::fetch::{CachedColumn, FetchContext, QueryData, ReadOnlyQueryData};
use super::filter::QueryFilter;
use super::state::QueryState;

use crate::archetype::{Archetype, ArchetypeId, Archetypes};
use crate::world::World;

/// A query state the iterator either borrows (from a `QueryState`) or owns (for a
/// one-off `world.query_mut()`).
pub(crate) enum StateRef<'s, Q: QueryData, F: QueryFilter> {
    Borrowed(&'s QueryState<Q, F>),
    Owned(OwnedState<Q, F>),
}

/// A query state on the heap, owned through a raw pointer rather than a `Box`:
/// the iterator keeps slices into it ([`StateSlice`]), and moving a `Box`
/// asserts unique access to what it points to, which would leave those
/// slices dangling in the language's aliasing model.
pub(crate) struct OwnedState<Q: QueryData, F: QueryFilter>(NonNull<QueryState<Q, F>>);

impl<Q: QueryData, F: QueryFilter> OwnedState<Q, F> {
    fn new(state: QueryState<Q, F>) -> Self {
        Self(NonNull::from(Box::leak(Box::new(state))))
    }
}

impl<Q: QueryData, F: QueryFilter> Drop for OwnedState<Q, F> {
    fn drop(&mut self) {
        // SAFETY: made by `Box::leak` in `new` and freed only here, once; the
        // iterator's slices into it die with the iterator, which this drop ends.
        drop(unsafe { Box::from_raw(self.0.as_ptr()) });
    }
}

// SAFETY: owns a `QueryState` as a `Box` would, and only reads it.
unsafe impl<Q: QueryData, F: QueryFilter> Send for OwnedState<Q, F> where QueryState<Q, F>: Send {}
// SAFETY: as above.
unsafe impl<Q: QueryData, F: QueryFilter> Sync for OwnedState<Q, F> where QueryState<Q, F>: Sync {}

impl<'s, Q: QueryData, F: QueryFilter> From<&'s mut QueryState<Q, F>> for StateRef<'s, Q, F> {
    fn from(state: &'s mut QueryState<Q, F>) -> Self {
        Self::Borrowed(state)
    }
}

impl<'s, Q: QueryData, F: QueryFilter> From<&'s QueryState<Q, F>> for StateRef<'s, Q, F> {
    #[inline]
    fn from(state: &'s QueryState<Q, F>) -> Self {
        Self::Borrowed(state)
    }
}

impl<Q: QueryData, F: QueryFilter> StateRef<'_, Q, F> {
    #[inline]
    fn get(&self) -> &QueryState<Q, F> {
        match self {
            Self::Borrowed(state) => state,
            // SAFETY: the state lives until `OwnedState` drops, and is only
            // read while it is owned.
            Self::Owned(state) => unsafe { state.0.as_ref() },
        }
    }
}

/// A slice of the query state an iterator keeps alive: a `&[T]` without its
/// lifetime, since an owned state's slices borrow from the iterator's own box.
struct StateSlice<T>(NonNull<[T]>);

// SAFETY: only ever read, as a `&[T]` is, which is `Send` and `Sync` for `T: Sync`.
unsafe impl<T: Sync> Send for StateSlice<T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for StateSlice<T> {}

/// Iterates the entities matching a query, yielding `Q::Item`s.
///
/// Made by [`QueryState::iter`], [`QueryState::iter_mut`], [`World::query`]
/// (`.iter()`) and [`World::query_mut`].
///
/// [`World::query`]: crate::World::query
/// [`World::query_mut`]: crate::World::query_mut
pub struct QueryIter<'w, 's, Q: QueryData, F: QueryFilter = ()> {
    /// Every archetype of the world, indexed by id.
    archetypes: &'w [Archetype],
    /// Keeps the state alive (and owns it for one-off queries); the loops read
    /// its matched archetypes and cached entries through `matched` and `columns`.
    state: StateRef<'s, Q, F>,
    /// The state's matched archetypes and their cached entries (`STRIDE` each),
    /// copied out of the state: read through the state, their pointers and
    /// lengths were reloaded after every row whose loop body stored anything
    /// (the compiler cannot tell the state's memory from the row's), where the
    /// iterator's own fields stay in registers.
    matched: StateSlice<ArchetypeId>,
    columns: StateSlice<CachedColumn>,
    ctx: FetchContext,
    /// The next index into the state's matched archetypes.
    next: usize,
    /// Rows below this one are handed out with nothing to ask or stamp: the
    /// current archetype's length where every row yields and none is stamped
    /// (see [`QueryData::stamps`]), else 0.
    plain: usize,
    /// Set while `row < len`: the current archetype's fetches.
    fetch: Option<(Q::Fetch<'w>, F::Fetch<'w>)>,
    row: usize,
    len: usize,
}

impl<'w, 's, Q: QueryData, F: QueryFilter> QueryIter<'w, 's, Q, F> {
    /// Every row of a matched archetype yields an item: no per-row check.
    const DENSE: bool = Q::DENSE && F::ARCHETYPAL;

    /// # Safety
    /// The caller holds the query's access to the world owning `archetypes` for
    /// `'w`, the state belongs to that world and is up to date with it
    /// ([`QueryState::update_archetypes`] since its last structural change), so
    /// its cached column entries point into the world's current column tables.
    pub(crate) unsafe fn new(archetypes: &'w Archetypes, state: StateRef<'s, Q, F>, ctx: FetchContext) -> Self {
        let (matched, columns) = {
            let state = state.get();
            (StateSlice(NonNull::from(state.matched())), StateSlice(NonNull::from(state.all_columns())))
        };
        Self {
            archetypes: archetypes.as_slice(),
            state,
            matched,
            columns,
            ctx,
            next: 0,
            plain: 0,
            fetch: None,
            row: 0,
            len: 0,
        }
    }

    /// The state's matched archetypes.
    #[inline(always)]
    fn matched(&self) -> &[ArchetypeId] {
        // SAFETY: points into the state `self.state` keeps alive (borrowed for
        // `'s`, or owned through a raw pointer), which nothing changes while
        // the iterator lives (a borrowed state is borrowed shared for `'s`, an
        // owned one is only read).
        unsafe { self.matched.0.as_ref() }
    }

    /// The cached entries of every matched archetype, `STRIDE` each.
    #[inline(always)]
    fn all_columns(&self) -> &[CachedColumn] {
        // SAFETY: as in `matched`.
        unsafe { self.columns.0.as_ref() }
    }

    /// Moves to the next non-empty matched archetype; `false` at the end.
    ///
    /// Always inlined, as `next` is: were the iterator's address handed to a
    /// call the compiler does not inline, a `for` loop would keep its fields
    /// in memory and reload them after every row's writes.
    #[inline(always)]
    fn advance(&mut self) -> bool {
        let stride = QueryState::<Q, F>::STRIDE;
        while self.next < self.matched().len() {
            let index = self.next;
            self.next += 1;
            let archetype = self.archetypes.get(self.matched()[index].index()).expect("matched archetype exists");
            if archetype.is_empty() {
                continue;
            }
            let mut columns = &self.all_columns()[index * stride..(index + 1) * stride];
            // SAFETY: the archetype matched and these are its cached entries, current
            // (the state is up to date); the access is the caller's (see `new`).
            let fetch = unsafe {
                (
                    Q::fetch_archetype(archetype, &mut columns, self.ctx),
                    F::fetch_archetype(archetype, &mut columns, self.ctx),
                )
            };
            // `Changed`/`Added` where nothing is new: no row would pass.
            if !F::ARCHETYPAL && !F::may_pass(&fetch.1) {
                continue;
            }
            let len = archetype.len();
            self.plain = if Self::DENSE && !Q::stamps(&fetch.0) { len } else { 0 };
            self.fetch = Some(fetch);
            self.row = 0;
            self.len = len;
            return true;
        }
        self.fetch = None;
        self.plain = 0;
        self.row = 0;
        self.len = 0;
        false
    }
}

impl<'w, Q: QueryData, F: QueryFilter> Iterator for QueryIter<'w, '_, Q, F> {
    type Item = Q::Item<'w>;

    // Always inlined: a `for` loop calling `next` would keep the iterator in
    // memory, reloading and storing its row on every row.
    #[inline(always)]
    fn next(&mut self) -> Option<Q::Item<'w>> {
        loop {
            let row = self.row;
            // The plain rows: a compare and the item, nothing else on the path.
            if row < self.plain {
                self.row = row + 1;
                // SAFETY: `fetch` is set whenever `row < len`, and `plain <= len`;
                // each row is handed out once, and needs no stamp (`plain`).
                return Some(unsafe { Q::fetch(&self.fetch.as_ref().unwrap_unchecked().0, row) });
            }
            if row < self.len {
                // SAFETY: `fetch` is set whenever `row < len`.
                let (fetch, filter) = unsafe { self.fetch.as_ref().unwrap_unchecked() };
                // SAFETY: `row < len`; each row is handed out once, so the rows
                // `skip` reads, after `row`, are not handed out yet.
                unsafe {
                    if Self::DENSE || (Q::filter_row(fetch, row) && F::filter(filter, row)) {
                        self.row = row + 1;
                        Q::mark_written(fetch, row..row + 1);
                        return Some(Q::fetch(fetch, row));
                    }
                    // A row failed: where the next may pass (`max`: never back).
                    self.row = F::skip(filter, row + 1, self.len).max(row + 1);
                }
                continue;
            }
            if !self.advance() {
                return None;
            }
        }
    }

    // Always inlined: each `for_each` closure makes its own instance anyway, and
    // in line the iterator's fields never go through memory and the check for a
    // half-walked archetype folds away.
    #[inline(always)]
    fn fold<B, G: FnMut(B, Self::Item) -> B>(self, init: B, g: G) -> B {
        self.fold_archetypes::<B, G, true>(init, g)
    }

    /// Without per-row filters, the remaining rows add up without visiting any;
    /// with them, the rows are visited but none is marked written: counting
    /// hands out nothing to write through.
    fn count(self) -> usize {
        if Self::DENSE { self.size_hint().0 } else { self.fold_archetypes::<usize, _, false>(0, |n, _| n + 1) }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let rest: usize =
            self.matched()[self.next..].iter().filter_map(|&id| self.archetypes.get(id.index())).map(|a| a.len()).sum();
        let upper = self.len - self.row + rest;
        (if Self::DENSE { upper } else { 0 }, Some(upper))
    }
}

impl<'w, Q: QueryData, F: QueryFilter> QueryIter<'w, '_, Q, F> {
    /// `fold`'s loops: the rest of the archetype `next` was in, then one tight
    /// loop per remaining archetype. `STAMP`: the rows handed to `g` are
    /// marked written (`false` only where `g` drops them unused).
    #[inline(always)]
    pub(super) fn fold_archetypes<B, G: FnMut(B, Q::Item<'w>) -> B, const STAMP: bool>(
        mut self,
        init: B,
        mut g: G,
    ) -> B {
        let mut acc = init;
        // The rest of the archetype `next` was in the middle of.
        if let Some((fetch, filter)) = &self.fetch {
            // SAFETY: `row..len` are the archetype's rows not yet visited, each
            // handed out once.
            unsafe {
                if Self::DENSE {
                    for row in self.row..self.len {
                        if STAMP {
                            Q::mark_written(fetch, row..row + 1);
                        }
                        acc = g(acc, Q::fetch(fetch, row));
                    }
                } else {
                    acc = filtered_rows::<Q, F, B, STAMP>(fetch, filter, self.row..self.len, acc, &mut g);
                }
            }
        }
        self.fetch = None;
        // Every remaining archetype, each with one tight loop.
        let matched = self.matched();
        let ctx = self.ctx;
        // Bound here, not reached through `self` at each step: a pointer read
        // through a field is reloaded after every row store.
        let (archetypes, all_columns) = (self.archetypes, self.all_columns());
        let stride = QueryState::<Q, F>::STRIDE;
        debug_assert_eq!(all_columns.len(), matched.len() * stride);
        for index in self.next..matched.len() {
            // SAFETY: `index < matched.len()`; matched archetypes exist in the world
            // the state belongs to, and the state caches `stride` entries per
            // matched archetype, these being the archetype's and current (see
            // `new`); with `LEADING_TABLE_COLUMN` the first is a table column of the
            // archetype, as long as it; the access is the caller's (see `new`); each
            // row is handed out once.
            unsafe {
                // When the query leads with a table column the archetype is never
                // read (these loads are dead code): the step is the cached pointer
                // and, behind it, the column's data pointer and length. Resolving
                // the next archetype ahead of this one's rows cost more than it
                // saved once the step was that short (measured on fragmented_iter).
                let archetype = archetypes.get_unchecked(matched.get_unchecked(index).index());
                let mut columns = all_columns.get_unchecked(index * stride..(index + 1) * stride);
                let len =
                    if Q::LEADING_TABLE_COLUMN { columns.get_unchecked(0).column().len() } else { archetype.len() };
                let fetch = Q::fetch_archetype(archetype, &mut columns, ctx);
                let filter = F::fetch_archetype(archetype, &mut columns, ctx);
                if !F::ARCHETYPAL && !F::may_pass(&filter) {
                    continue;
                }
                if Self::DENSE {
                    // The whole archetype at once; a panic in `g` then over-reports
                    // rows as changed, never misses one.
                    if STAMP {
                        Q::mark_written(&fetch, 0..len);
                    }
                    if Q::ARRAYS == 1 {
                        acc = fold_rows(0..len, acc, |acc, row| g(acc, Q::fetch(&fetch, row)));
                    } else {
                        for row in 0..len {
                            acc = g(acc, Q::fetch(&fetch, row));
                        }
                    }
                } else {
                    acc = filtered_rows::<Q, F, B, STAMP>(&fetch, &filter, 0..len, acc, &mut g);
                }
            }
        }
        self.next = matched.len();
        acc
    }
}

impl<'w, 's, Q: QueryData, F: QueryFilter> QueryIter<'w, 's, Q, F> {
    /// The query state iterated.
    pub(crate) fn state(&self) -> &QueryState<Q, F> {
        self.state.get()
    }

    /// An iterator that owns its query state (for one-off queries).
    ///
    /// # Safety
    /// As for [`new`](Self::new).
    pub(crate) unsafe fn owned(archetypes: &'w Archetypes, state: QueryState<Q, F>, ctx: FetchContext) -> Self {
        // SAFETY: forwarded.
        unsafe { Self::new(archetypes, StateRef::Owned(OwnedState::new(state)), ctx) }
    }
}

/// [`QueryIter::fold`] compiled with AVX2, for `par_for_each` (see
/// [`super::wide`]).
///
/// # Safety
/// The CPU supports AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn fold_wide<'w, Q: QueryData, F: QueryFilter, B, G: FnMut(B, Q::Item<'w>) -> B>(
    iter: QueryIter<'w, '_, Q, F>,
    init: B,
    g: G,
) -> B {
    iter.fold_archetypes::<B, G, true>(init, g)
}

/// Folds `step` over `rows` in blocks of sixteen, then at most one of eight and
/// one of four, then one by one: for a query of one column each block's calls
/// inline into straight-line code the compiler vectorizes, so a short archetype
/// (tens of rows) runs few loop trips and no scalar tail beyond its last `len % 4`
/// rows: fragmented_iter (26 archetypes of 20 rows) measured each step, sixteen,
/// then eight, then four, as a saving. Only for one column: with two, the compiler
/// cannot tell the columns apart within a block and emits scalar code, several
/// times slower than the plain loop it vectorizes behind a run-time overlap check
/// (`(&mut A, &mut B)`).
#[inline(always)]
fn fold_rows<B>(rows: core::ops::Range<usize>, mut acc: B, mut step: impl FnMut(B, usize) -> B) -> B {
    let mut row = rows.start;
    while rows.end - row >= 16 {
        acc = step(acc, row);
        acc = step(acc, row + 1);
        acc = step(acc, row + 2);
        acc = step(acc, row + 3);
        acc = step(acc, row + 4);
        acc = step(acc, row + 5);
        acc = step(acc, row + 6);
        acc = step(acc, row + 7);
        acc = step(acc, row + 8);
        acc = step(acc, row + 9);
        acc = step(acc, row + 10);
        acc = step(acc, row + 11);
        acc = step(acc, row + 12);
        acc = step(acc, row + 13);
        acc = step(acc, row + 14);
        acc = step(acc, row + 15);
        row += 16;
    }
    if rows.end - row >= 8 {
        acc = step(acc, row);
        acc = step(acc, row + 1);
        acc = step(acc, row + 2);
        acc = step(acc, row + 3);
        acc = step(acc, row + 4);
        acc = step(acc, row + 5);
        acc = step(acc, row + 6);
        acc = step(acc, row + 7);
        row += 8;
    }
    if rows.end - row >= 4 {
        acc = step(acc, row);
        acc = step(acc, row + 1);
        acc = step(acc, row + 2);
        acc = step(acc, row + 3);
        row += 4;
    }
    while row < rows.end {
        acc = step(acc, row);
        row += 1;
    }
    acc
}

/// Folds the rows of `rows` that pass the query's row filters, stamping each
/// as written where the query writes (with `STAMP`), skipping runs the filter
/// rules out.
///
/// # Safety
/// `rows` are rows of the archetype the fetches were made for, the caller has
/// the query's access, and no row is handed out twice.
#[inline(always)]
pub(crate) unsafe fn filtered_rows<'w, Q: QueryData, F: QueryFilter, B, const STAMP: bool>(
    fetch: &Q::Fetch<'w>,
    filter: &F::Fetch<'w>,
    rows: core::ops::Range<usize>,
    mut acc: B,
    mut g: impl FnMut(B, Q::Item<'w>) -> B,
) -> B {
    let end = rows.end;
    // SAFETY: every row asked for or fetched is in `rows` (caller); `skip` is
    // asked only about rows after the last one handed out.
    unsafe {
        let mut row = rows.start;
        while row < end {
            if Q::filter_row(fetch, row) && F::filter(filter, row) {
                if STAMP {
                    Q::mark_written(fetch, row..row + 1);
                }
                acc = g(acc, Q::fetch(fetch, row));
                row += 1;
            } else {
                // Only after a row failed: where rows pass, the loop stays the
                // plain one. `max`: never back to a row handed out.
                row = F::skip(filter, row + 1, end).max(row + 1);
            }
        }
    }
    acc
}

impl<Q: QueryData, F: QueryFilter> QueryState<Q, F> {
    /// Iterates with the given tick window, through a shared world, without
    /// touching the state's own `last_run` (systems keep theirs).
    ///
    /// # Safety
    /// The caller has the query's access to `world` for `'w` (no other borrow of
    /// what it writes, nothing writing what it reads), and archetypes are up to date.
    #[inline]
    pub(crate) unsafe fn iter_unchecked<'w, 's>(
        &'s self,
        world: &'w World,
        ctx: FetchContext,
    ) -> QueryIter<'w, 's, Q, F> {
        self.validate_world(world);
        // SAFETY: forwarded.
        unsafe { QueryIter::new(world.archetypes(), self.into(), ctx) }
    }

    /// Iterates the matching entities of a shared world. Read-only queries only.
    #[track_caller]
    #[inline]
    pub fn iter<'w, 's>(&'s mut self, world: &'w World) -> QueryIter<'w, 's, Q, F>
    where
        Q: ReadOnlyQueryData,
    {
        self.update_archetypes(world);
        let ctx = self.begin_run(world);
        // SAFETY: the query only reads (`ReadOnlyQueryData`), and `world` is borrowed
        // shared for `'w`, so nothing writes the data meanwhile.
        unsafe { QueryIter::new(world.archetypes(), self.into(), ctx) }
    }

    /// Iterates the matching entities, with mutable access where the query asks.
    #[track_caller]
    #[inline]
    pub fn iter_mut<'w, 's>(&'s mut self, world: &'w mut World) -> QueryIter<'w, 's, Q, F> {
        let ctx = self.prepare_mut(world);
        // SAFETY: `world` is borrowed mutably for `'w`, so the query's access is
        // exclusive, and `new` refused aliasing within the query.
        unsafe { QueryIter::new(world.archetypes(), self.into(), ctx) }
    }

    /// What every run through `&mut World` does before iterating, kept out of
    /// line: the caller's loop then starts from an iterator the compiler sees
    /// whole, with less of the run's set-up competing for its registers.
    #[track_caller]
    #[inline(never)]
    pub(super) fn prepare_mut(&mut self, world: &mut World) -> FetchContext {
        world.check_change_ticks_if_due();
        self.update_archetypes(world);
        self.begin_run_mut(world)
    }

    /// Each combination of `K` distinct matching entities once, as `[item; K]`
    /// (read-only queries): `n` entities give `n·(n−1)/2` pairs. See
    /// [`QueryCombinationIter`].
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Position(f32);
    /// let mut world = World::new();
    /// world.spawn_batch([0.0, 1.0, 4.0].map(Position)).for_each(drop);
    /// let mut positions = world.query_state::<&Position>();
    /// let closest = positions
    ///     .iter_combinations::<2>(&world)
    ///     .map(|[a, b]| (a.0 - b.0).abs())
    ///     .fold(f32::INFINITY, f32::min);
    /// assert_eq!(closest, 1.0);
    /// ```
    #[track_caller]
    pub fn iter_combinations<'w, const K: usize>(&mut self, world: &'w World) -> QueryCombinationIter<'w, Q, K>
    where
        Q: ReadOnlyQueryData,
    {
        self.update_archetypes(world);
        let ctx = self.begin_run(world);
        // SAFETY: read-only query on a world borrowed shared for `'w`; the state is
        // up to date.
        unsafe { QueryCombinationIter::new(self, world, ctx) }
    }

    /// [`iter_combinations`](Self::iter_combinations) with mutable access: a
    /// lending iterator, stepped with
    /// [`fetch_next`](QueryCombinationIter::fetch_next), so that one step's `&mut`
    /// items are gone before the next step's exist.
    #[track_caller]
    pub fn iter_combinations_mut<'w, const K: usize>(
        &mut self,
        world: &'w mut World,
    ) -> QueryCombinationIter<'w, Q, K> {
        world.check_change_ticks_if_due();
        self.update_archetypes(world);
        let ctx = self.begin_run_mut(world);
        // SAFETY: `world` is borrowed mutably for `'w`, so the query's access is
        // exclusive; the state is up to date.
        unsafe { QueryCombinationIter::new(self, world, ctx) }
    }

    /// [`iter_combinations_mut`](Self::iter_combinations_mut) through a shared
    /// world with a given tick window.
    ///
    /// # Safety
    /// As for [`iter_unchecked`](Self::iter_unchecked).
    pub(crate) unsafe fn combinations_unchecked<'w, const K: usize>(
        &self,
        world: &'w World,
        ctx: FetchContext,
    ) -> QueryCombinationIter<'w, Q, K> {
        self.validate_world(world);
        // SAFETY: forwarded.
        unsafe { QueryCombinationIter::new(self, world, ctx) }
    }

    /// Calls `f` with one slice per fetched column for each matched archetype: the
    /// loop body sees plain arrays, which the compiler can vectorize.
    ///
    /// With archetypal filters (`With`/`Without` of data components, `Or`s of them)
    /// that is one call per non-empty archetype. Where rows of one archetype differ
    /// (a sparse component or tag, `Changed`, `Added`), `f` is called once per run of consecutive
    /// matching rows instead.
    #[track_caller]
    pub fn for_each_chunk<'w>(&mut self, world: &'w mut World, mut f: impl FnMut(Q::Slice<'w>)) {
        world.check_change_ticks_if_due();
        self.update_archetypes(world);
        let ctx = self.begin_run_mut(world);
        let archetypes = world.archetypes();
        for (index, &id) in self.matched.iter().enumerate() {
            let archetype = archetypes.get(id).expect("matched archetype exists");
            let len = archetype.len();
            if len == 0 {
                continue;
            }
            let mut columns = self.columns_of(index);
            // SAFETY: the archetype matched and these are its cached entries, current
            // (the state is up to date); `world` is borrowed mutably for `'w`; runs of
            // rows never overlap, so each row is handed out once; a run starts at a
            // row passing `filter_row` and ends within `run_end`, as `slice` needs.
            unsafe {
                let fetch = Q::fetch_archetype(archetype, &mut columns, ctx);
                let filter = F::fetch_archetype(archetype, &mut columns, ctx);
                if !F::ARCHETYPAL && !F::may_pass(&filter) {
                    continue;
                }
                if Q::DENSE && F::ARCHETYPAL {
                    Q::mark_sliced(&fetch, 0..len);
                    f(Q::slice(&fetch, 0..len));
                    continue;
                }
                let mut row = 0;
                while row < len {
                    if !(Q::filter_row(&fetch, row) && F::filter(&filter, row)) {
                        // Where the next row may pass (`max`: never back).
                        row = F::skip(&filter, row + 1, len).max(row + 1);
                        continue;
                    }
                    // A run is as long as the query's rows agree in shape (`run_end`:
                    // each `Option` is `Some` throughout or `None` throughout) and
                    // the filter passes.
                    let start = row;
                    let end = if Q::DENSE { len } else { Q::run_end(&fetch, start..len) };
                    row += 1;
                    while row < end && F::filter(&filter, row) {
                        row += 1;
                    }
                    Q::mark_sliced(&fetch, start..row);
                    f(Q::slice(&fetch, start..row));
                }
            }
        }
    }

    /// The number of rows the query yields. Without row filters (sparse
    /// components, `Changed`, `Added`) it adds up archetype lengths, visiting no row.
    ///
    /// # Safety
    /// As for [`locate`](Self::locate).
    pub(crate) unsafe fn count_unchecked(&self, world: &World, ctx: FetchContext) -> usize {
        if Q::DENSE && F::ARCHETYPAL {
            let archetypes = world.archetypes();
            return self.matched.iter().map(|&id| archetypes.get(id).map_or(0, Archetype::len)).sum();
        }
        let mut count = 0;
        // SAFETY: forwarded.
        unsafe {
            self.visit_matches(world, ctx, |_, _| {
                count += 1;
                true
            })
        };
        count
    }

    /// `true` when the query yields no row; stops at the first it finds.
    ///
    /// # Safety
    /// As for [`locate`](Self::locate).
    pub(crate) unsafe fn is_empty_unchecked(&self, world: &World, ctx: FetchContext) -> bool {
        let mut empty = true;
        // SAFETY: forwarded.
        unsafe {
            self.visit_matches(world, ctx, |_, _| {
                empty = false;
                false
            })
        };
        empty
    }

    /// The number of entities the query matches. Without per-row filters (sparse
    /// components or tags, `Changed`, `Added`) no row is visited: it adds up the
    /// lengths of the matched archetypes. Does not count as a run.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Enemy;
    /// #[derive(Component)] struct Health(u32);
    /// let mut world = World::new();
    /// world.spawn_batch((0..3).map(|_| (Enemy, Health(1))));
    /// world.spawn(Health(10));
    /// let mut enemies = world.query_state_filtered::<&mut Health, With<Enemy>>();
    /// assert_eq!(enemies.count(&world), 3);
    /// assert!(!enemies.is_empty(&world));
    /// ```
    #[track_caller]
    pub fn count(&mut self, world: &World) -> usize {
        self.update_archetypes(world);
        let ctx = FetchContext::new(self.last_run, world.change_tick());
        // SAFETY: counting reads only ticks (`QueryData`'s contract: making fetches
        // and asking row filters reads no component data), which nothing writes
        // while `world` is borrowed shared.
        unsafe { self.count_unchecked(world, ctx) }
    }

    /// `true` when no entity matches the query; stops at the first match. Does
    /// not count as a run.
    #[track_caller]
    pub fn is_empty(&mut self, world: &World) -> bool {
        self.update_archetypes(world);
        let ctx = FetchContext::new(self.last_run, world.change_tick());
        // SAFETY: as in `count`.
        unsafe { self.is_empty_unchecked(world, ctx) }
    }
}
