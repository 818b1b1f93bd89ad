//! [`QueryState`]: a query's cached matching, reused across runs.
//!
//! ```text
//!  matched:   [ A3,    A7,    A9    ]           archetypes that match, in creation order
//!  columns:   [ c, c | c, c | c, c ]            STRIDE cached entries per match (column pointers)
//!  position:  [ -, -, -, 0, -, -, -, 1, -, 2 ]  ArchetypeId -> index in `matched` (sparse)
//!  seen:      10                                archetypes examined so far
//! ```
//! Archetypes are never removed, so a match stays a match: when the world has new
//! archetypes, only those are examined, by walking the component index of the
//! query's most selective required component (or all new archetypes when the query
//! requires none). The cached entries point into archetypes' column tables, which
//! move when an archetype gains a sparse column: when the world's column
//! generation changed, every entry is cached anew (matching stays as it was).

use core::marker::PhantomData;

use super::Access;
use super::combinations::QueryCombinationIter;
use super::fetch::{CachedColumn, FetchContext, QueryData, ReadOnlyQueryData};
use super::filter::QueryFilter;
use super::iter::QueryIter;
use super::wide::WideChoice;
use crate::archetype::{Archetype, ArchetypeId, Archetypes};
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::error::EcsError;
use crate::parallel::Adaptive;
use crate::storage::Tick;
use crate::world::{World, WorldId};

const NOT_MATCHED: u32 = u32::MAX;

/// A query's cached state: the archetypes it matches and where their columns are, and
/// when it last ran (for [`Added`](super::Added) and [`Changed`](super::Changed)).
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
///
/// #[derive(Component)] struct Position(f32);
/// #[derive(Component)] struct Velocity(f32);
/// #[derive(Component)] struct Frozen;
///
/// let mut world = World::new();
/// world.spawn((Position(0.0), Velocity(1.0)));
/// world.spawn((Position(0.0), Velocity(1.0), Frozen));
///
/// let mut movement = world.query_state_filtered::<(&mut Position, &Velocity), Without<Frozen>>();
/// for _ in 0..3 {
///     movement.iter_mut(&mut world).for_each(|(p, v)| p.0 += v.0);
/// }
/// movement.for_each_chunk(&mut world, |(p, v): (&mut [Position], &[Velocity])| {
///     for (p, v) in p.iter_mut().zip(v) { p.0 += v.0; }
/// });
/// let moved: Vec<f32> = world.query::<&Position>().iter().map(|p| p.0).collect();
/// assert_eq!(moved.iter().sum::<f32>(), 4.0);
/// ```
pub struct QueryState<Q: QueryData, F: QueryFilter = ()> {
    world: WorldId,
    data: Q::State,
    filter: F::State,
    access: Access,
    /// The required component whose archetype list is walked to find matches.
    selective: Option<ComponentId>,
    seen: usize,
    /// The world's column generation when `columns` was filled.
    generation: u64,
    matched: Vec<ArchetypeId>,
    columns: Vec<CachedColumn>,
    position: Vec<u32>,
    last_run: Tick,
    /// Whether `par_for_each` runs inline or in parallel, as measured.
    parallel: Adaptive,
    /// Whether `par_for_each` runs its AVX2 copy, as measured.
    wide: WideChoice,
    /// Set by a system's `Query::get` that went through the tables: from then
    /// on the system's queries come with their only archetype's fetches ready
    /// (see [`single_fetches`](Self::single_fetches)), which a system that never
    /// calls `get` does not pay for.
    gets: core::sync::atomic::AtomicBool,
    marker: PhantomData<fn() -> (Q, F)>,
}

impl<Q: QueryData, F: QueryFilter> QueryState<Q, F> {
    /// Prepares the query for `world` and matches its archetypes.
    ///
    /// # Panics
    /// When the query borrows a component mutably twice, or mutably and shared
    /// (`(&mut A, &A)`): that would alias. The message names the component.
    #[track_caller]
    pub fn new(world: &World) -> Self {
        let (data, filter, access) = Self::checked_access();
        for &component in access.watched() {
            world.archetypes().track_changes(component);
        }
        let mut state = Self {
            world: world.id(),
            data,
            filter,
            access,
            selective: None,
            seen: 0,
            generation: world.archetypes().column_generation(),
            matched: Vec::new(),
            columns: Vec::new(),
            position: Vec::new(),
            last_run: Tick::new(0),
            parallel: Adaptive::new(),
            wide: WideChoice::default(),
            gets: core::sync::atomic::AtomicBool::new(false),
            marker: PhantomData,
        };
        state.selective = state.most_selective(world.archetypes());
        state.update_archetypes(world);
        state
    }

    /// The query's component ids and access, refusing aliasing.
    ///
    /// # Panics
    /// As for [`new`](Self::new).
    #[track_caller]
    fn checked_access() -> (Q::State, F::State, Access) {
        let data = Q::init_state();
        let filter = F::init_state();
        let mut access = Access::default();
        Q::access(&data, &mut access);
        F::access(&filter, &mut access);
        if let Some(conflict) = access.conflicts().first() {
            panic!(
                "query `{}` is refused: {conflict}; a query may borrow a component mutably only once \
                 and not also share it — split it into two queries",
                crate::names::query_name::<Q, F>()
            );
        }
        (data, filter, access)
    }

    /// The access and disjointness proof of this query type, without a world (see
    /// [`access`](Self::access) and [`disjointness`](Self::disjointness)).
    ///
    /// # Panics
    /// When the query aliases a component, as for [`new`](Self::new).
    #[track_caller]
    pub fn describe() -> (Access, Vec<ComponentId>, Vec<ComponentId>) {
        let (data, filter, access) = Self::checked_access();
        let (mut with, mut without) = (Vec::new(), Vec::new());
        Q::required(&data, &mut |c| with.push(c));
        F::required(&filter, &mut |c| with.push(c));
        F::included(&filter, &mut |c| with.push(c));
        F::excluded(&filter, &mut |c| without.push(c));
        (access, with, without)
    }

    /// What the query reads and writes.
    pub fn access(&self) -> &Access {
        &self.access
    }

    /// Components every yielded row has, and components no yielded row has: two
    /// queries with a component in one's first list and the other's second never
    /// yield the same row, so they may run side by side even if one writes what
    /// the other reads.
    pub fn disjointness(&self) -> (Vec<ComponentId>, Vec<ComponentId>) {
        let (mut with, mut without) = (Vec::new(), Vec::new());
        Q::required(&self.data, &mut |c| with.push(c));
        F::required(&self.filter, &mut |c| with.push(c));
        F::included(&self.filter, &mut |c| with.push(c));
        F::excluded(&self.filter, &mut |c| without.push(c));
        (with, without)
    }

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

    /// [`get_mut`](Self::get_mut) through a shared world with a given tick
    /// window, with the reason for a miss (see [`Miss`]).
    ///
    /// # Safety
    /// As for [`iter_unchecked`](Self::iter_unchecked).
    pub(crate) unsafe fn find_with<'w>(
        &self,
        world: &'w World,
        entity: Entity,
        ctx: FetchContext,
    ) -> Result<Q::Item<'w>, Miss> {
        self.validate_world(world);
        // SAFETY: forwarded.
        unsafe { self.find_at(world, entity, ctx) }
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

    /// [`par_for_each`](Self::par_for_each) through a shared world with a given
    /// tick window.
    ///
    /// # Safety
    /// As for [`iter_unchecked`](Self::iter_unchecked).
    pub(crate) unsafe fn par_for_each_unchecked<'w>(
        &self,
        world: &'w World,
        ctx: FetchContext,
        f: &(impl Fn(Q::Item<'w>) + Send + Sync),
    ) where
        Q::State: Sync,
    {
        self.validate_world(world);
        super::par::for_each(world.archetypes(), self, ctx, f);
    }

    /// What running `par_for_each` inline or in parallel was measured to cost.
    pub(crate) fn parallel(&self) -> &Adaptive {
        &self.parallel
    }

    /// Which copy of `par_for_each`'s loops (AVX2 or baseline) was measured to
    /// be faster.
    pub(crate) fn wide(&self) -> &WideChoice {
        &self.wide
    }

    /// Sets when the query last ran (systems drive this).
    pub(crate) fn set_last_run(&mut self, tick: Tick) {
        self.last_run = tick;
    }

    /// The number of archetypes the query matches.
    pub fn matched_archetypes(&self) -> usize {
        self.matched.len()
    }

    fn most_selective(&self, archetypes: &Archetypes) -> Option<ComponentId> {
        let mut best: Option<(usize, ComponentId)> = None;
        let mut consider = |id: ComponentId| {
            let count = archetypes.containing(id).len();
            if best.is_none_or(|(c, _)| count < c) {
                best = Some((count, id));
            }
        };
        Q::required(&self.data, &mut consider);
        F::required(&self.filter, &mut consider);
        best.map(|(_, id)| id)
    }

    #[track_caller]
    fn validate_world(&self, world: &World) {
        assert!(
            self.world == world.id(),
            "a QueryState for `{}` was used with a World other than the one that created it",
            crate::names::query_name::<Q, F>()
        );
    }

    /// Examines archetypes created since the last call, and caches the column
    /// entries anew if an archetype gained a column. Every iteration calls this.
    ///
    /// # Panics
    /// When `world` is not the world the state was made for.
    #[track_caller]
    #[inline]
    pub fn update_archetypes(&mut self, world: &World) {
        self.validate_world(world);
        let archetypes = world.archetypes();
        if archetypes.len() != self.seen || archetypes.column_generation() != self.generation {
            self.match_new_archetypes(archetypes);
        }
    }

    /// Considers the archetypes from `seen` on: off the inlined path, which every
    /// run takes and which almost never finds a new archetype.
    #[cold]
    #[inline(never)]
    fn match_new_archetypes(&mut self, archetypes: &Archetypes) {
        if archetypes.column_generation() != self.generation {
            self.columns.clear();
            for &id in &self.matched {
                let archetype = archetypes.get(id).expect("matched archetype exists");
                Self::push_entries(&self.data, &self.filter, archetype, &mut self.columns);
            }
            // Only once every entry is current: were a `columns` call to panic,
            // the next update would start over rather than trust a partial cache.
            self.generation = archetypes.column_generation();
        }
        let seen = self.seen;
        self.seen = archetypes.len();
        match self.selective {
            Some(component) => {
                let holding = archetypes.containing(component);
                let start = holding.partition_point(|entry| entry.archetype.index() < seen);
                for entry in &holding[start..] {
                    self.consider(archetypes.get(entry.archetype).expect("indexed archetype exists"));
                }
            }
            None => {
                for archetype in archetypes.iter().skip(seen) {
                    self.consider(archetype);
                }
            }
        }
    }

    fn consider(&mut self, archetype: &Archetype) {
        if !(Q::matches(&self.data, archetype) && F::matches(&self.filter, archetype)) {
            return;
        }
        Self::push_entries(&self.data, &self.filter, archetype, &mut self.columns);
        let index = archetype.id().index();
        if self.position.len() <= index {
            self.position.resize(index + 1, NOT_MATCHED);
        }
        self.position[index] = self.matched.len() as u32;
        self.matched.push(archetype.id());
    }

    /// Caches the `STRIDE` entries of a matched archetype: the query's, then the
    /// filter's (on matching and on re-caching alike).
    fn push_entries(data: &Q::State, filter: &F::State, archetype: &Archetype, out: &mut Vec<CachedColumn>) {
        let before = out.len();
        Q::columns(data, archetype, out);
        F::columns(filter, archetype, out);
        debug_assert_eq!(out.len() - before, Self::STRIDE);
    }

    pub(crate) const STRIDE: usize = Q::COLUMNS + F::COLUMNS;

    pub(crate) fn matched(&self) -> &[ArchetypeId] {
        &self.matched
    }

    /// The cached entries of the `index`-th matched archetype.
    #[inline]
    pub(crate) fn columns_of(&self, index: usize) -> &[CachedColumn] {
        &self.columns[index * Self::STRIDE..(index + 1) * Self::STRIDE]
    }

    /// The cached entries of every matched archetype, `STRIDE` each, in the order
    /// of [`matched`](Self::matched).
    #[inline]
    pub(crate) fn all_columns(&self) -> &[CachedColumn] {
        &self.columns
    }

    /// Starts a run: the window of ticks it compares against.
    #[inline]
    fn begin_run(&mut self, world: &World) -> FetchContext {
        self.begin_run_at(world.increment_change_tick())
    }

    /// [`begin_run`](Self::begin_run) with exclusive access to the world.
    #[inline]
    fn begin_run_mut(&mut self, world: &mut World) -> FetchContext {
        self.begin_run_at(world.increment_change_tick_mut())
    }

    #[inline]
    fn begin_run_at(&mut self, this_run: Tick) -> FetchContext {
        let ctx = FetchContext::new(self.last_run, this_run);
        self.last_run = ctx.this_run;
        ctx
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
    fn prepare_mut(&mut self, world: &mut World) -> FetchContext {
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

    /// Calls `f` for every matching entity, in parallel on the crate's
    /// [worker pool](crate::parallel). Work is split over archetypes and, for
    /// large archetypes, over row ranges; every entity is visited exactly once.
    /// Where this query measured one thread to be faster (small work, busy
    /// machine), it runs inline: the choice is re-checked as the work changes.
    ///
    /// On x86-64 CPUs with AVX2 (when the crate is not already compiled for it),
    /// the loop is compiled twice, for the baseline and with AVX2's 32-byte
    /// vectors, and the query keeps the copy it measured to be faster (a plain
    /// loop over a few columns usually gains; a body calling a large function
    /// the compiler did not inline may lose). Both leave the same values.
    /// `for_each` and `for` loops always run the baseline copy.
    #[track_caller]
    pub fn par_for_each<'w>(&mut self, world: &'w mut World, f: impl Fn(Q::Item<'w>) + Send + Sync)
    where
        Q::State: Sync,
    {
        world.check_change_ticks_if_due();
        self.update_archetypes(world);
        let ctx = self.begin_run_mut(world);
        super::par::for_each(world.archetypes(), self, ctx, &f);
    }

    /// The query's item for one entity.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] when the entity is not alive;
    /// [`EcsError::QueryMismatch`] when it does not match the query.
    #[track_caller]
    pub fn get<'w>(&mut self, world: &'w World, entity: Entity) -> Result<Q::Item<'w>, EcsError>
    where
        Q: ReadOnlyQueryData,
    {
        self.update_archetypes(world);
        // SAFETY: read-only query on a shared world.
        unsafe { self.get_unchecked(world, entity) }
    }

    /// The query's item for one entity, with mutable access where the query asks.
    ///
    /// # Errors
    /// As for [`get`](Self::get).
    #[track_caller]
    pub fn get_mut<'w>(&mut self, world: &'w mut World, entity: Entity) -> Result<Q::Item<'w>, EcsError> {
        world.check_change_ticks_if_due();
        self.update_archetypes(world);
        // SAFETY: `world` is borrowed mutably for `'w`; one item is handed out.
        unsafe { self.get_unchecked(world, entity) }
    }

    /// # Safety
    /// The caller has the query's access to `world` for `'w`, and archetypes are
    /// up to date.
    unsafe fn get_unchecked<'w>(&self, world: &'w World, entity: Entity) -> Result<Q::Item<'w>, EcsError> {
        let ctx = FetchContext::new(self.last_run, world.change_tick());
        // SAFETY: forwarded.
        unsafe { self.get_at(world, entity, ctx) }
    }

    /// # Safety
    /// As for `get_unchecked`.
    #[inline]
    unsafe fn get_at<'w>(&self, world: &'w World, entity: Entity, ctx: FetchContext) -> Result<Q::Item<'w>, EcsError> {
        // SAFETY: forwarded.
        unsafe { self.find_at(world, entity, ctx) }.map_err(|miss| miss.error::<Q, F>(entity))
    }

    /// [`get_at`](Self::get_at) with the reason for a miss, not yet an error.
    ///
    /// # Safety
    /// As for `get_unchecked`.
    #[inline]
    pub(crate) unsafe fn find_at<'w>(
        &self,
        world: &'w World,
        entity: Entity,
        ctx: FetchContext,
    ) -> Result<Q::Item<'w>, Miss> {
        // SAFETY: forwarded; the fetch is made once, checked, then fetched from.
        unsafe {
            self.locate(world, entity, ctx, |fetch, row| {
                Q::mark_written(fetch, row..row + 1);
                Q::fetch(fetch, row)
            })
        }
    }

    /// Notes that a system's `Query::get` went through the tables (see
    /// [`single_fetches`](Self::single_fetches)).
    #[inline]
    pub(crate) fn note_get(&self) {
        self.gets.store(true, core::sync::atomic::Ordering::Relaxed);
    }

    /// The fetches of the only matched archetype, when exactly one matched and
    /// [`note_get`](Self::note_get) was called: a system's `Query` makes them
    /// once per run so that its `get` goes from the entity's location straight
    /// to the data (as [`QueryBorrow`](super::QueryBorrow) does), without the
    /// state's tables in between. Made up front, not on first use: a lazy cell's
    /// check and call inside the caller's loop cost more than the tables save.
    ///
    /// # Safety
    /// As for [`fetch_of`](Self::fetch_of); the fetches are used only while the
    /// world's archetypes cannot change (`'w`).
    pub(crate) unsafe fn single_fetches<'w>(
        &self,
        world: &'w World,
        ctx: FetchContext,
    ) -> Option<SingleFetches<'w, Q, F>> {
        if !self.gets.load(core::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        let [only] = self.matched.as_slice() else { return None };
        // SAFETY: forwarded.
        let (fetch, filter) = unsafe { self.fetches_of(world, 0, ctx) };
        Some(SingleFetches { archetype: *only, fetch, filter })
    }

    /// Calls `then` with the fetch of the archetype and the row of an entity the
    /// query yields. A continuation rather than a returned `(fetch, row)`: the
    /// fetch then stays in registers instead of passing through a `Result`.
    ///
    /// # Safety
    /// The state is up to date with `world`, and the caller may read the ticks
    /// the query's row filters read (any of the query's access, or a shared world);
    /// fetching from the fetch needs the query's whole access for `'w`.
    #[inline(always)]
    unsafe fn locate<'w, R>(
        &self,
        world: &'w World,
        entity: Entity,
        ctx: FetchContext,
        then: impl FnOnce(&Q::Fetch<'w>, usize) -> R,
    ) -> Result<R, Miss> {
        let location = world.location(entity).ok_or(Miss::Dead)?;
        let Some(index) = self.matched_index(location.archetype) else { return Err(Miss::Mismatch) };
        let archetype = world.archetypes().get(location.archetype).expect("live entity's archetype exists");
        let row = location.row.index();
        let mut columns = self.columns_of(index);
        // SAFETY: the archetype matched and these are its cached entries, current (the
        // state is up to date); the row is the live entity's; making fetches and
        // asking their row filters reads only ticks (`QueryData`'s contract).
        unsafe {
            let fetch = Q::fetch_archetype(archetype, &mut columns, ctx);
            let filter = F::fetch_archetype(archetype, &mut columns, ctx);
            if !(Q::filter_row(&fetch, row) && F::filter(&filter, row)) {
                return Err(Miss::Mismatch);
            }
            Ok(then(&fetch, row))
        }
    }

    /// The item of row `row` of the `index`-th matched archetype, stamped as
    /// written where the query writes.
    ///
    /// # Safety
    /// The row is one the query yields (see `locate`), the state is up to date, the
    /// caller has the query's access to `world` for `'w`, and no other live item of
    /// this query refers to the row.
    unsafe fn fetch_at<'w>(&self, world: &'w World, index: usize, row: usize, ctx: FetchContext) -> Q::Item<'w> {
        // SAFETY: forwarded from the caller.
        unsafe {
            let fetch = self.fetch_of(world, index, ctx);
            Q::mark_written(&fetch, row..row + 1);
            Q::fetch(&fetch, row)
        }
    }

    /// The fetch of the `index`-th matched archetype.
    ///
    /// # Safety
    /// `index` is below the number of matched archetypes, the state is up to date,
    /// and the caller has the query's access to `world` for `'w`.
    pub(crate) unsafe fn fetch_of<'w>(&self, world: &'w World, index: usize, ctx: FetchContext) -> Q::Fetch<'w> {
        let archetype = world.archetypes().get(self.matched[index]).expect("matched archetype exists");
        let mut columns = self.columns_of(index);
        // SAFETY: the archetype matched and these are its cached entries, current
        // (the state is up to date); the access is the caller's.
        unsafe { Q::fetch_archetype(archetype, &mut columns, ctx) }
    }

    /// The index in [`matched`](Self::matched) of an archetype, if the query
    /// matches it.
    #[inline]
    pub(crate) fn matched_index(&self, archetype: ArchetypeId) -> Option<usize> {
        match self.position.get(archetype.index()) {
            Some(&index) if index != NOT_MATCHED => Some(index as usize),
            _ => None,
        }
    }

    /// The data and filter fetches of the `index`-th matched archetype, for a
    /// caller that decides rows itself (`Q::filter_row`, `F::filter`).
    ///
    /// # Safety
    /// As for [`fetch_of`](Self::fetch_of).
    pub(crate) unsafe fn fetches_of<'w>(
        &self,
        world: &'w World,
        index: usize,
        ctx: FetchContext,
    ) -> (Q::Fetch<'w>, F::Fetch<'w>) {
        let archetype = world.archetypes().get(self.matched[index]).expect("matched archetype exists");
        let mut columns = self.columns_of(index);
        // SAFETY: the archetype matched and these are its cached entries, current
        // (the state is up to date); the access is the caller's. The filter's
        // entries follow the data's, as in `locate`.
        unsafe {
            let fetch = Q::fetch_archetype(archetype, &mut columns, ctx);
            (fetch, F::fetch_archetype(archetype, &mut columns, ctx))
        }
    }

    /// Calls `f` with the matched-archetype index and row of each row the query
    /// yields, in iteration order, until `f` returns `false`. Fetches no item.
    ///
    /// # Safety
    /// As for [`locate`](Self::locate).
    pub(crate) unsafe fn visit_matches(
        &self,
        world: &World,
        ctx: FetchContext,
        mut f: impl FnMut(usize, usize) -> bool,
    ) {
        let archetypes = world.archetypes();
        for (index, &id) in self.matched.iter().enumerate() {
            let archetype = archetypes.get(id).expect("matched archetype exists");
            if archetype.is_empty() {
                continue;
            }
            let mut columns = self.columns_of(index);
            // SAFETY: as in `locate`; every row is below the archetype's length.
            unsafe {
                let fetch = Q::fetch_archetype(archetype, &mut columns, ctx);
                let filter = F::fetch_archetype(archetype, &mut columns, ctx);
                if !F::ARCHETYPAL && !F::may_pass(&filter) {
                    continue;
                }
                let len = archetype.len();
                let mut row = 0;
                while row < len {
                    let yields = (Q::DENSE && F::ARCHETYPAL) || (Q::filter_row(&fetch, row) && F::filter(&filter, row));
                    if !yields {
                        // Where the next row may pass (`max`: never back).
                        row = F::skip(&filter, row + 1, len).max(row + 1);
                        continue;
                    }
                    if !f(index, row) {
                        return;
                    }
                    row += 1;
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

    /// The item of the only row the query yields.
    ///
    /// # Safety
    /// As for [`fetch_at`](Self::fetch_at), for whichever row that is.
    pub(crate) unsafe fn single_unchecked<'w>(
        &self,
        world: &'w World,
        ctx: FetchContext,
    ) -> Result<Q::Item<'w>, EcsError> {
        let query = crate::names::query_name::<Q, F>();
        let (mut first, mut more) = (None, false);
        // SAFETY: forwarded.
        unsafe {
            self.visit_matches(world, ctx, |index, row| {
                more = first.is_some();
                first.get_or_insert((index, row));
                !more
            })
        };
        match first {
            None => Err(EcsError::NoEntities { query }),
            Some(_) if more => Err(EcsError::MultipleEntities { query }),
            // SAFETY: the row is one the query yields; it is the only item handed out.
            Some((index, row)) => Ok(unsafe { self.fetch_at(world, index, row, ctx) }),
        }
    }

    /// The items of several entities at once.
    ///
    /// # Safety
    /// As for [`fetch_at`](Self::fetch_at), for every entity; when `distinct` is
    /// `false`, the query only reads (an entity may then be asked for twice).
    pub(crate) unsafe fn get_many_unchecked<'w, const N: usize>(
        &self,
        world: &'w World,
        entities: [Entity; N],
        ctx: FetchContext,
        distinct: bool,
    ) -> Result<[Q::Item<'w>; N], EcsError> {
        if distinct {
            for (i, entity) in entities.iter().enumerate() {
                if entities[..i].contains(entity) {
                    return Err(EcsError::AliasedMutability(*entity));
                }
            }
        }
        // Every entity is checked before any item is made (and stamped as written).
        for &entity in &entities {
            // SAFETY: forwarded.
            unsafe { self.locate(world, entity, ctx, |_, _| ()) }.map_err(|miss| miss.error::<Q, F>(entity))?;
        }
        // SAFETY: each entity was located above, so it yields a row; the rows are
        // distinct (checked above) unless the query only reads (caller), so no two
        // items alias.
        Ok(entities.map(|entity| unsafe {
            self.locate(world, entity, ctx, |fetch, row| {
                Q::mark_written(fetch, row..row + 1);
                Q::fetch(fetch, row)
            })
            .expect("located above")
        }))
    }

    /// The item of the only entity the query matches (read-only queries). Like
    /// [`get`](Self::get), it does not count as a run for `Changed`/`Added`.
    ///
    /// # Errors
    /// [`EcsError::NoEntities`] when no entity matches, [`EcsError::MultipleEntities`]
    /// when more than one does.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Player(&'static str);
    /// let mut world = World::new();
    /// let mut players = world.query_state::<&Player>();
    /// assert!(matches!(players.single(&world), Err(EcsError::NoEntities { .. })));
    /// world.spawn(Player("one"));
    /// assert_eq!(players.single(&world).map(|p| p.0), Ok("one"));
    /// world.spawn(Player("two"));
    /// assert!(matches!(players.single(&world), Err(EcsError::MultipleEntities { .. })));
    /// ```
    #[track_caller]
    pub fn single<'w>(&mut self, world: &'w World) -> Result<Q::Item<'w>, EcsError>
    where
        Q: ReadOnlyQueryData,
    {
        self.update_archetypes(world);
        let ctx = FetchContext::new(self.last_run, world.change_tick());
        // SAFETY: read-only query on a shared world; the state is up to date.
        unsafe { self.single_unchecked(world, ctx) }
    }

    /// [`single`](Self::single) with mutable access where the query asks.
    ///
    /// # Errors
    /// As for [`single`](Self::single).
    #[track_caller]
    pub fn single_mut<'w>(&mut self, world: &'w mut World) -> Result<Q::Item<'w>, EcsError> {
        world.check_change_ticks_if_due();
        self.update_archetypes(world);
        let ctx = FetchContext::new(self.last_run, world.change_tick());
        // SAFETY: `world` is borrowed mutably for `'w`; one item is handed out.
        unsafe { self.single_unchecked(world, ctx) }
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

    /// The items of several entities at once (read-only queries; an entity may be
    /// named twice).
    ///
    /// # Errors
    /// The first entity's error, as for [`get`](Self::get).
    #[track_caller]
    pub fn get_many<'w, const N: usize>(
        &mut self,
        world: &'w World,
        entities: [Entity; N],
    ) -> Result<[Q::Item<'w>; N], EcsError>
    where
        Q: ReadOnlyQueryData,
    {
        self.update_archetypes(world);
        let ctx = FetchContext::new(self.last_run, world.change_tick());
        // SAFETY: read-only query on a shared world; the state is up to date.
        unsafe { self.get_many_unchecked(world, entities, ctx, false) }
    }

    /// The items of several distinct entities at once, with mutable access where
    /// the query asks. Nothing is handed out (or marked changed) unless every
    /// entity matches.
    ///
    /// # Errors
    /// [`EcsError::AliasedMutability`] when an entity is named twice; otherwise the
    /// first entity's error, as for [`get`](Self::get).
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Health(i32);
    /// let mut world = World::new();
    /// let (a, b) = (world.spawn(Health(10)), world.spawn(Health(3)));
    /// let mut health = world.query_state::<&mut Health>();
    /// let [ha, hb] = health.get_many_mut(&mut world, [a, b])?;
    /// core::mem::swap(&mut ha.0, &mut hb.0);
    /// assert_eq!(world.get::<Health>(a).map(|h| h.0), Some(3));
    /// assert_eq!(health.get_many_mut(&mut world, [a, a]).err(), Some(EcsError::AliasedMutability(a)));
    /// # Ok::<(), EcsError>(())
    /// ```
    #[track_caller]
    pub fn get_many_mut<'w, const N: usize>(
        &mut self,
        world: &'w mut World,
        entities: [Entity; N],
    ) -> Result<[Q::Item<'w>; N], EcsError> {
        world.check_change_ticks_if_due();
        self.update_archetypes(world);
        let ctx = FetchContext::new(self.last_run, world.change_tick());
        // SAFETY: `world` is borrowed mutably for `'w`; the entities are checked
        // distinct, so each row's item is handed out once.
        unsafe { self.get_many_unchecked(world, entities, ctx, true) }
    }
}

impl<Q: QueryData, F: QueryFilter> core::fmt::Debug for QueryState<Q, F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("QueryState")
            .field("query", &core::any::type_name::<Q>())
            .field("filter", &core::any::type_name::<F>())
            .field("matched_archetypes", &self.matched.len())
            .finish_non_exhaustive()
    }
}

/// The fetches of a query's only matched archetype (see
/// [`QueryState::single_fetches`]).
pub(crate) struct SingleFetches<'w, Q: QueryData, F: QueryFilter> {
    archetype: ArchetypeId,
    fetch: Q::Fetch<'w>,
    filter: F::Fetch<'w>,
}

impl<'w, Q: QueryData, F: QueryFilter> SingleFetches<'w, Q, F> {
    /// The item of `entity`, stamped as written where the query writes; a miss
    /// says why there is none.
    ///
    /// # Safety
    /// The fetches came from `world` in this `'w`; the caller has the query's
    /// access for `'w` and no other live item of this query refers to the row.
    #[inline]
    pub(crate) unsafe fn find(&self, world: &'w World, entity: Entity) -> Result<Q::Item<'w>, Miss> {
        let location = world.entities().get_maybe_dead(entity).ok_or(Miss::Dead)?;
        // A dead or reserved slot names no archetype: not this one either.
        if location.archetype != self.archetype {
            return Err(Miss::of(world, entity));
        }
        // SAFETY: the slot names the matched archetype, so it holds a live entity
        // of it (see `get_maybe_dead`) and its row is below the length; the
        // fetches are that archetype's (caller); the access is the caller's.
        unsafe { item_at::<Q, F>(&self.fetch, &self.filter, location.row.index()) }
    }
}

/// The last step of a `get` that found the fetches of the entity's archetype:
/// the item of `row` if the row filters pass, stamped as written where the
/// query writes.
///
/// # Safety
/// The fetches are of the archetype holding a live entity in `row`; the caller
/// has the query's access for `'w`, and no other live item refers to the row.
#[inline(always)]
pub(crate) unsafe fn item_at<'w, Q: QueryData, F: QueryFilter>(
    fetch: &Q::Fetch<'w>,
    filter: &F::Fetch<'w>,
    row: usize,
) -> Result<Q::Item<'w>, Miss> {
    // SAFETY: forwarded; the row is checked against the filters before it is
    // fetched.
    unsafe {
        if !(Q::filter_row(fetch, row) && F::filter(filter, row)) {
            return Err(Miss::Mismatch);
        }
        Q::mark_written(fetch, row..row + 1);
        Ok(Q::fetch(fetch, row))
    }
}

/// Why a query has no item for an entity, before it becomes an [`EcsError`]:
/// naming the query for the error interns a string, which costs more than the
/// lookup, and walks such as `iter_ancestors` end on a miss every time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Miss {
    /// The entity is not alive.
    Dead,
    /// The entity is alive but does not match.
    Mismatch,
}

impl Miss {
    /// The miss of an entity whose slot named none of a query's archetypes:
    /// dead, or alive elsewhere.
    #[cold]
    pub(crate) fn of(world: &World, entity: Entity) -> Miss {
        if world.contains(entity) { Miss::Mismatch } else { Miss::Dead }
    }

    /// The error a public `get` returns for this miss.
    #[cold]
    pub(crate) fn error<Q: QueryData, F: QueryFilter>(self, entity: Entity) -> EcsError {
        match self {
            Miss::Dead => EcsError::NoSuchEntity(entity),
            Miss::Mismatch => EcsError::QueryMismatch { entity, query: crate::names::query_name::<Q, F>() },
        }
    }
}
