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

use super::fetch::{CachedColumn, FetchContext, QueryData};
use super::filter::QueryFilter;
use super::wide::WideChoice;
use super::{Access, Clauses};
use crate::archetype::{Archetype, ArchetypeId, Archetypes};
use crate::component::ComponentId;
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
// In declaration order: what a system's run reads comes first, on as few
// cache lines as it takes (an observer on each of many entities runs as many
// states, each cold).
#[repr(C)]
pub struct QueryState<Q: QueryData, F: QueryFilter = ()> {
    pub(super) world: WorldId,
    pub(super) seen: usize,
    /// The world's column generation when `columns` was filled.
    pub(super) generation: u64,
    pub(super) matched: Vec<ArchetypeId>,
    /// The first matched archetype and its entries, kept in the state itself
    /// (when they fit): a system's `get` on a query of one archetype then reads
    /// nothing from the heap (see [`single_fetches`](Self::single_fetches)),
    /// which with an observer on each of many entities is a miss a run.
    pub(super) first: Option<FirstMatch>,
    pub(super) last_run: Tick,
    /// Set by a system's `Query::get` that went through the tables: from then
    /// on the system's queries come with their only archetype's fetches ready
    /// (see [`single_fetches`](Self::single_fetches)), which a system that never
    /// calls `get` does not pay for.
    pub(super) gets: core::sync::atomic::AtomicBool,
    pub(super) data: Q::State,
    pub(super) filter: F::State,
    pub(super) columns: Vec<CachedColumn>,
    /// The required component whose archetype list is walked to find matches.
    pub(super) selective: Option<ComponentId>,
    pub(super) position: Vec<u32>,
    pub(super) access: Access,
    /// Whether `par_for_each` runs inline or in parallel, as measured.
    pub(super) parallel: Adaptive,
    /// Whether `par_for_each` runs its AVX2 copy, as measured.
    pub(super) wide: WideChoice,
    pub(super) marker: PhantomData<fn() -> (Q, F)>,
}

/// How many cached entries [`FirstMatch`] holds: queries of up to this many
/// columns (most a system calls `get` on) keep their first match inline.
const FIRST_ENTRIES: usize = 4;

/// A copy of a query state's first matched archetype and its cached entries
/// (the first `STRIDE` of `columns`), renewed with them.
#[derive(Clone, Copy)]
pub(super) struct FirstMatch {
    pub(super) archetype: ArchetypeId,
    pub(super) columns: [CachedColumn; FIRST_ENTRIES],
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
            first: None,
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
    pub(super) fn checked_access() -> (Q::State, F::State, Access) {
        let data = Q::init_state();
        let filter = F::init_state();
        let mut access = Access::default();
        Q::access(&data, &mut access);
        F::access(&filter, &mut access);
        if !access.conflicts().is_empty() {
            refuse_aliasing(&access, crate::names::query_name::<Q, F>);
        }
        (data, filter, access)
    }

    /// The access and disjointness proof of this query type, without a world (see
    /// [`access`](Self::access) and [`disjointness`](Self::disjointness)).
    ///
    /// # Panics
    /// When the query aliases a component, as for [`new`](Self::new).
    #[track_caller]
    pub(crate) fn describe() -> (Access, Clauses) {
        let (data, filter, access) = Self::checked_access();
        let mut clauses = Clauses::new();
        Q::included(&data, &mut |c| clauses.with(c));
        F::clauses(&filter, &mut clauses);
        (access, clauses)
    }

    /// What the query reads and writes.
    pub fn access(&self) -> &Access {
        &self.access
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

    pub(super) fn most_selective(&self, archetypes: &Archetypes) -> Option<ComponentId> {
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
    #[inline]
    pub(super) fn validate_world(&self, world: &World) {
        if self.world != world.id() {
            Self::wrong_world();
        }
    }

    /// The panic of [`validate_world`](Self::validate_world), out of line so
    /// that the check stays small where it is inlined.
    #[cold]
    #[inline(never)]
    #[track_caller]
    fn wrong_world() -> ! {
        panic!(
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
    pub(super) fn match_new_archetypes(&mut self, archetypes: &Archetypes) {
        // Dropped until renewed below: were anything here to panic, `get` would
        // read the entries (current once the generation is) rather than a copy
        // of entries that moved.
        self.first = None;
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
        self.first = match self.matched.first() {
            Some(&archetype) if Self::STRIDE <= FIRST_ENTRIES => {
                let mut columns = [CachedColumn::NONE; FIRST_ENTRIES];
                columns[..Self::STRIDE].copy_from_slice(self.columns_of(0));
                Some(FirstMatch { archetype, columns })
            }
            _ => None,
        };
    }

    pub(super) fn consider(&mut self, archetype: &Archetype) {
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
    pub(super) fn push_entries(data: &Q::State, filter: &F::State, archetype: &Archetype, out: &mut Vec<CachedColumn>) {
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
    pub(super) fn begin_run(&mut self, world: &World) -> FetchContext {
        self.begin_run_at(world.increment_change_tick())
    }

    /// [`begin_run`](Self::begin_run) with exclusive access to the world.
    #[inline]
    pub(super) fn begin_run_mut(&mut self, world: &mut World) -> FetchContext {
        self.begin_run_at(world.increment_change_tick_mut())
    }

    #[inline]
    pub(super) fn begin_run_at(&mut self, this_run: Tick) -> FetchContext {
        let ctx = FetchContext::new(self.last_run, this_run);
        self.last_run = ctx.this_run;
        ctx
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

/// The panic of a query type that borrows a component mutably and also
/// otherwise: out of line and untyped, so that each query type of a program
/// carries a call, not the message's formatting.
#[cold]
#[inline(never)]
#[track_caller]
fn refuse_aliasing(access: &Access, name: fn() -> &'static str) -> ! {
    panic!(
        "query `{}` is refused: {}; a query may borrow a component mutably only once \
         and not also share it — split it into two queries",
        name(),
        access.conflicts()[0]
    );
}
