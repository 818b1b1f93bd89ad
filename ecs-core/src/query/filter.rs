//! Query filters: [`With`], [`Without`], [`Or`], [`Added`], [`Changed`] and tuples of
//! them (all must hold).
//!
//! `With`, `Without` and `Or`s of them are *archetypal*: they are decided once per
//! archetype when the query matches, and cost nothing per row. `Added` and `Changed`
//! read the per-row ticks of a column.

use core::marker::PhantomData;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicU32, Ordering};

use super::fetch::{
    CachedColumn, FetchContext, NO_COLUMN, Presence, matches_component, push_column, require_component, take_column,
};
use super::{Access, Clauses};
use crate::archetype::Archetype;
use crate::component::{ChangeTracked, Component, ComponentId, component_id, is_sparse};
use crate::storage::{ComponentTicks, RUN_SHIFT, Tick};

/// A condition on the entities a query visits.
///
/// # Safety
/// - [`access`](Self::access) records every component whose data or ticks the filter
///   reads.
/// - [`columns`](Self::columns) pushes exactly [`COLUMNS`](Self::COLUMNS) entries and
///   [`fetch_archetype`](Self::fetch_archetype) consumes as many, in order.
/// - When [`ARCHETYPAL`](Self::ARCHETYPAL) is `true`, [`filter`](Self::filter)
///   returns `true` for every row of a matched archetype.
/// - Every passing row has every component [`required`](Self::required) and
///   [`included`](Self::included) report and none [`excluded`](Self::excluded)
///   reports, and satisfies one of the clauses [`clauses`](Self::clauses)
///   leaves (two queries are run side by side on that proof); a component a
///   proof names whose presence is decided row by row (a tag or sparse one) is
///   recorded in [`access`](Self::access) as a presence read.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a query filter",
    label = "not a filter",
    note = "filters are `With<T>`, `Without<T>`, `Or<(…)>`, `Added<T>`, `Changed<T>` and tuples of them"
)]
pub unsafe trait QueryFilter {
    /// Per-archetype state; `Send + Sync` for the reasons given at
    /// [`QueryData::Fetch`](super::QueryData::Fetch).
    type Fetch<'w>: Clone + Send + Sync;
    /// Component ids, resolved once.
    type State: Send + Sync + 'static;
    /// How many entries the filter caches per matched archetype.
    const COLUMNS: usize;
    /// `true` when the filter is decided per archetype and never per row.
    const ARCHETYPAL: bool;

    /// Resolves component ids.
    fn init_state() -> Self::State;
    /// Records the components whose data or ticks are read.
    fn access(state: &Self::State, access: &mut Access);
    /// `true` when some rows of the archetype may pass.
    fn matches(state: &Self::State, archetype: &Archetype) -> bool;
    /// Reports each component an archetype must have to match.
    fn required(state: &Self::State, f: &mut impl FnMut(ComponentId));
    /// Reports components every passing row has (`With<T>`, sparse included): half of
    /// the proof that two queries never yield the same row.
    fn included(_state: &Self::State, _f: &mut impl FnMut(ComponentId)) {}
    /// Reports components no passing row has (`Without<T>`): the other half.
    fn excluded(_state: &Self::State, _f: &mut impl FnMut(ComponentId)) {}
    /// Narrows `clauses` to the rows that pass (see [`Clauses`]). By default,
    /// every component [`required`](Self::required) or
    /// [`included`](Self::included) joins every clause's `with`, and every
    /// [`excluded`](Self::excluded) one its `without`; `Or` makes one clause
    /// per branch.
    fn clauses(state: &Self::State, clauses: &mut Clauses) {
        Self::required(state, &mut |c| clauses.with(c));
        Self::included(state, &mut |c| clauses.with(c));
        Self::excluded(state, &mut |c| clauses.without(c));
    }
    /// Pushes [`COLUMNS`](Self::COLUMNS) entries for a matched archetype.
    fn columns(state: &Self::State, archetype: &Archetype, out: &mut Vec<CachedColumn>);
    /// Builds the per-archetype state.
    ///
    /// # Safety
    /// As for [`QueryData::fetch_archetype`](super::QueryData::fetch_archetype).
    unsafe fn fetch_archetype<'w>(
        archetype: &'w Archetype,
        columns: &mut &[CachedColumn],
        ctx: FetchContext,
    ) -> Self::Fetch<'w>;
    /// `true` when the row passes.
    ///
    /// # Safety
    /// `row` is below the archetype's length.
    unsafe fn filter(fetch: &Self::Fetch<'_>, row: usize) -> bool;

    /// `false` when no row of the archetype can pass, known without visiting
    /// them (`Changed<T>` where nothing in `T`'s column changed since the
    /// query last ran): iteration then skips the archetype. Only asked for
    /// filters that are not [`ARCHETYPAL`](Self::ARCHETYPAL); must never be
    /// `false` while some row would pass [`filter`](Self::filter).
    #[inline(always)]
    fn may_pass(_fetch: &Self::Fetch<'_>) -> bool {
        true
    }

    /// The first row of `row..end` that may pass [`filter`](Self::filter), or
    /// `end`: every row before it fails. Loops over rows ask it instead of
    /// stepping one row at a time, so a filter that can rule out a block of
    /// rows faster than row by row skips them (the tick filters test sixteen
    /// ticks at once without a branch per row: a few changed rows among many).
    /// The default skips nothing. Returning a row that fails, or `row` itself,
    /// is always correct; returning past a row that passes loses it. Callers
    /// never step backwards on an answer below `row` (it cannot make a row
    /// visited twice).
    ///
    /// # Safety
    /// `row..end` are rows of the archetype the fetch was made for (`row` at
    /// most `end`, `end` at most its length) that the query has not handed out
    /// yet, and nothing writes their ticks during the call (the query's own
    /// writes stamp rows already handed out, and a parallel run's other tasks
    /// have their own ranges).
    #[inline(always)]
    unsafe fn skip(_fetch: &Self::Fetch<'_>, row: usize, _end: usize) -> usize {
        row
    }
}

/// Only entities that have a `T` (without fetching it).
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(Component)] struct Position(f32);
/// #[derive(Component)] struct Player;
/// let mut world = World::new();
/// world.spawn((Position(1.0), Player));
/// world.spawn(Position(2.0));
/// let players: Vec<f32> = world.query_filtered::<&Position, With<Player>>().map(|p| p.0).collect();
/// assert_eq!(players, [1.0]);
/// ```
pub struct With<T>(PhantomData<fn() -> T>);

/// Only entities that do not have a `T`. In systems, `Without` also proves two
/// queries disjoint: `Query<&mut Position, With<Player>>` next to
/// `Query<&mut Position, Without<Player>>` is accepted.
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(Component)] struct Position(f32);
/// #[derive(Component)] struct Frozen;
/// fn thaw_or_move(mut moving: Query<&mut Position, Without<Frozen>>, frozen: Query<&mut Position, With<Frozen>>) {
///     for p in moving.iter_mut() { p.0 += 1.0; }
///     assert_eq!(frozen.count(), 1);
/// }
/// let mut world = World::new();
/// let a = world.spawn(Position(0.0));
/// let b = world.spawn((Position(0.0), Frozen));
/// world.run_system_once(thaw_or_move)?;
/// assert_eq!((world.get::<Position>(a).unwrap().0, world.get::<Position>(b).unwrap().0), (1.0, 0.0));
/// # Ok::<(), EcsError>(())
/// ```
pub struct Without<T>(PhantomData<fn() -> T>);

/// Entities for which at least one of the filters in the tuple holds:
/// `Or<(With<A>, Changed<B>)>`.
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(Component)] struct Health(u32);
/// #[derive(Component)] struct Poisoned;
/// #[derive(Component)] struct Burning;
/// let mut world = World::new();
/// world.spawn((Health(10), Poisoned));
/// world.spawn((Health(10), Burning));
/// world.spawn(Health(10));
/// let hurting = world.query_filtered::<&Health, Or<(With<Poisoned>, With<Burning>)>>().count();
/// assert_eq!(hurting, 2);
/// ```
pub struct Or<T>(PhantomData<fn() -> T>);

/// Entities whose `T` was added (spawned or inserted) since the query last ran
/// (in a system: since the system last ran).
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(Component)] struct Enemy;
/// let mut world = World::new();
/// let mut arrivals = world.query_state_filtered::<Entity, Added<Enemy>>();
/// let first = world.spawn(Enemy);
/// assert_eq!(arrivals.iter(&world).collect::<Vec<_>>(), [first]);
/// assert_eq!(arrivals.iter(&world).count(), 0); // seen already
/// let second = world.spawn(Enemy);
/// assert_eq!(arrivals.iter(&world).collect::<Vec<_>>(), [second]);
/// ```
pub struct Added<T>(PhantomData<fn() -> T>);

/// Entities whose `T` was added or changed since the query last ran (in a
/// system: since the system last ran).
///
/// What counts as a change, by the kind of access:
///
/// | access | marks `T` changed |
/// |---|---|
/// | `world.spawn`, `insert` of a `T` the entity lacked | yes (added, and so changed) |
/// | `insert` replacing an existing `T` | yes |
/// | `Mut<T>` item, `world.get_mut`, `EntityWorldMut::get_mut` | only when written (`DerefMut`), not when only read |
/// | `&mut T` item (`for`, `for_each`, `par_for_each`, `get_mut`, chunks) | every row handed out, written or not, once some `Changed<T>` query exists in the world; rows handed out before any existed are not marked |
/// | `&T`, `Ref<T>`, `Has<T>`, `With<T>` | never |
/// | a `T` moved to another archetype (insert or remove of another component) | no: it keeps its ticks |
/// | `World::restore` | the ticks the snapshot saved (and every system's last run with them) |
///
/// Use `Mut<T>` where a loop writes only some of the rows it visits, so that
/// `Changed<T>` reports exactly those; `&mut T` is the faster item when a loop
/// writes (nearly) every row. A component declared `#[component(changes =
/// false)]` keeps no ticks and cannot be used with `Changed`.
///
/// Cost: an archetype where nothing changed in the window is skipped without
/// reading a row. After writes through `world.get_mut` (and the other
/// single-entity `get_mut`s), which stamp the run of 256 rows they wrote in,
/// only those runs are read: a frame that changes a few rows among millions
/// costs a few runs.
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(Component)] struct Health(u32);
/// let mut world = World::new();
/// let a = world.spawn(Health(10));
/// world.spawn(Health(10));
/// let mut changed = world.query_state_filtered::<Entity, Changed<Health>>();
/// assert_eq!(changed.iter(&world).count(), 2); // added counts as changed
/// world.get_mut::<Health>(a).unwrap().0 -= 1;
/// assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [a]);
/// ```
pub struct Changed<T>(PhantomData<fn() -> T>);

macro_rules! presence_filter {
    ($name:ident, $has:literal) => {
        // SAFETY: reads no data (a sparse column's presence ticks at most, recorded
        // as a filter read); caches one entry only for a sparse one, which it consumes; for a
        // data component every row of a matched archetype passes.
        unsafe impl<T: Component> QueryFilter for $name<T> {
            type Fetch<'w> = Option<Presence>;
            type State = ComponentId;
            const COLUMNS: usize = if is_sparse::<T>() { 1 } else { 0 };
            // A table component is decided per archetype; a sparse one per row.
            const ARCHETYPAL: bool = !is_sparse::<T>();

            fn init_state() -> ComponentId {
                component_id::<T>()
            }
            fn access(state: &ComponentId, access: &mut Access) {
                if is_sparse::<T>() {
                    access.add_presence_read(*state, crate::names::type_name::<T>());
                }
            }
            #[inline]
            fn matches(state: &ComponentId, archetype: &Archetype) -> bool {
                is_sparse::<T>() || archetype.has(*state) == $has
            }
            fn required(state: &ComponentId, f: &mut impl FnMut(ComponentId)) {
                if $has && !is_sparse::<T>() {
                    f(*state);
                }
            }
            fn included(state: &ComponentId, f: &mut impl FnMut(ComponentId)) {
                if $has {
                    f(*state);
                }
            }
            fn excluded(state: &ComponentId, f: &mut impl FnMut(ComponentId)) {
                if !$has {
                    f(*state);
                }
            }
            fn columns(state: &ComponentId, _: &Archetype, out: &mut Vec<CachedColumn>) {
                if is_sparse::<T>() {
                    out.push(CachedColumn::number(state.index() as u32));
                }
            }
            #[inline(always)]
            unsafe fn fetch_archetype<'w>(
                archetype: &'w Archetype,
                columns: &mut &[CachedColumn],
                _: FetchContext,
            ) -> Self::Fetch<'w> {
                is_sparse::<T>().then(|| Presence::resolve(archetype, super::fetch::next_column(columns)))
            }
            #[inline(always)]
            unsafe fn filter(fetch: &Self::Fetch<'_>, row: usize) -> bool {
                match fetch {
                    // SAFETY: `row` is below the archetype's length (caller).
                    Some(tag) => (unsafe { tag.at(row) }) == $has,
                    None => true,
                }
            }
        }
    };
}

presence_filter!(With, true);
presence_filter!(Without, false);

/// The fetch of [`Added`] and [`Changed`]: the column's ticks and the run's window.
pub struct TickFetch<'w> {
    /// `None` when the archetype has no column for the sparse component.
    ticks: Option<NonNull<ComponentTicks>>,
    /// Empty: every row may pass. Else (`Changed` where only some runs of
    /// rows were stamped in the window, see `Column::runs`): rows of runs
    /// not stamped in it do not pass, and are skipped without being read.
    runs: &'w [AtomicU32],
    ctx: FetchContext,
    marker: PhantomData<&'w ComponentTicks>,
}

// SAFETY: a `TickFetch` only reads a column's ticks, which nothing writes while the
// query holding the filter's read access runs.
unsafe impl Send for TickFetch<'_> {}
// SAFETY: as above.
unsafe impl Sync for TickFetch<'_> {}

impl Clone for TickFetch<'_> {
    fn clone(&self) -> Self {
        Self { ticks: self.ticks, runs: self.runs, ctx: self.ctx, marker: PhantomData }
    }
}

macro_rules! tick_filter {
    ($name:ident, $field:ident, $summary:ident, $watch:literal, $runs:literal) => {
        // SAFETY: records a read of `T` (its ticks); caches and consumes one column;
        // matches only archetypes holding `T`; not archetypal. `may_pass` is `false`
        // only when the column's summary (no row's tick is newer) is outside the
        // run's window, so no row's tick is in it.
        unsafe impl<T: Component + ChangeTracked> QueryFilter for $name<T> {
            type Fetch<'w> = TickFetch<'w>;
            type State = ComponentId;
            const COLUMNS: usize = 1;
            const ARCHETYPAL: bool = false;

            fn init_state() -> ComponentId {
                component_id::<T>()
            }
            fn access(state: &ComponentId, access: &mut Access) {
                access.add_filter_read(*state, crate::names::type_name::<T>());
                access.add_tick_scan(*state);
                if $watch {
                    access.watch_changes(*state);
                }
            }
            #[inline]
            fn matches(state: &ComponentId, archetype: &Archetype) -> bool {
                matches_component::<T>(*state, archetype)
            }
            fn required(state: &ComponentId, f: &mut impl FnMut(ComponentId)) {
                require_component::<T>(*state, f);
            }
            fn columns(state: &ComponentId, archetype: &Archetype, out: &mut Vec<CachedColumn>) {
                push_column::<T>(*state, archetype, out);
            }
            #[inline(always)]
            unsafe fn fetch_archetype<'w>(
                archetype: &'w Archetype,
                columns: &mut &[CachedColumn],
                ctx: FetchContext,
            ) -> TickFetch<'w> {
                // SAFETY: the entry was cached for this archetype by `columns`.
                let column = unsafe { take_column::<T>(archetype, columns) };
                // Without ticks (a component that opted out) nothing passes; with
                // nothing new in the column since the last run, nothing does either,
                // and the summary says so without reading a row.
                // Where only runs stamped in the window may hold a passing row
                // (`Changed` after single-row writes), those runs alone are read.
                let mut runs: &[AtomicU32] = &[];
                let ticks = column.filter(|c| c.keeps_ticks()).and_then(|c| {
                    if c.$summary().is_newer_than(ctx.last_run, ctx.this_run) {
                        return Some(c.ticks_ptr());
                    }
                    if $runs && c.runs().iter().any(|run| stamped_in(run, ctx)) {
                        runs = c.runs();
                        return Some(c.ticks_ptr());
                    }
                    None
                });
                TickFetch { ticks, runs, ctx, marker: PhantomData }
            }
            #[inline(always)]
            fn may_pass(fetch: &TickFetch<'_>) -> bool {
                fetch.ticks.is_some()
            }
            #[inline(always)]
            unsafe fn filter(fetch: &TickFetch<'_>, row: usize) -> bool {
                let Some(ticks) = fetch.ticks else { return false };
                // A copy, not a reference: `filter` is also asked about single rows
                // (a `get`), whose earlier items may still be alive.
                // SAFETY: `row` is below the archetype's length (caller), so its ticks
                // are initialised.
                let ticks = unsafe { ticks.add(row).read() };
                passes::<T>(&ticks, |t: &ComponentTicks| t.$field, fetch.ctx)
            }
            #[inline(always)]
            unsafe fn skip(fetch: &TickFetch<'_>, row: usize, end: usize) -> usize {
                let Some(ticks) = fetch.ticks else { return end };
                // The ticks of rows `from..to`, called only with `row <= from <=
                // to <= end`.
                let all = |from: usize, to: usize| {
                    // SAFETY: `row..end` are rows of the fetch's archetype (caller),
                    // so the ticks of `from..to` within them are initialised;
                    // nothing writes them while the slice lives (both the
                    // caller's): the query's access keeps other writers out, and
                    // its own items only stamp rows handed out.
                    unsafe { core::slice::from_raw_parts(ticks.as_ptr().add(from), to - from) }
                };
                if fetch.runs.is_empty() {
                    return row + first_passing::<T>(all(row, end), |t: &ComponentTicks| t.$field, fetch.ctx);
                }
                // Run by run: a run not stamped in the window holds no
                // passing row (`Column::runs`'s invariant, the column's own
                // summary being outside the window), nor do rows past the runs.
                let mut row = row;
                while row < end {
                    let run = row >> RUN_SHIFT;
                    let Some(stamp) = fetch.runs.get(run) else { return end };
                    let run_end = ((run + 1) << RUN_SHIFT).min(end);
                    if stamped_in(stamp, fetch.ctx) {
                        let found =
                            row + first_passing::<T>(all(row, run_end), |t: &ComponentTicks| t.$field, fetch.ctx);
                        if found < run_end {
                            return found;
                        }
                    }
                    row = run_end;
                }
                end
            }
        }
    };
}

/// `true` when `ticks` pass a tick filter reading `field` (`added` or `changed`).
#[inline(always)]
fn passes<T: Component>(ticks: &ComponentTicks, field: impl Fn(&ComponentTicks) -> Tick, ctx: FetchContext) -> bool {
    // An absent row (sparse columns only) has `added == ABSENT`, and its
    // `changed` is stale: it must not pass.
    // `&`, not `&&`: no branch, so that a block of rows is tested in vector steps.
    (!is_sparse::<T>() | (ticks.added != Tick::ABSENT)) & field(ticks).is_newer_than(ctx.last_run, ctx.this_run)
}

/// The index of the first of `ticks` that passes, or `ticks.len()`. The row
/// asked for is tried alone first (where rows pass often, that is the answer),
/// then blocks of sixteen are tested without a branch per row (on x86-64 the
/// compiler does part of the test in vector steps), and only a block with a
/// passing row is searched.
#[inline(always)]
fn first_passing<T: Component>(
    ticks: &[ComponentTicks],
    field: impl Fn(&ComponentTicks) -> Tick + Copy,
    ctx: FetchContext,
) -> usize {
    const BLOCK: usize = 16;
    match ticks.first() {
        None => return 0,
        Some(first) if passes::<T>(first, field, ctx) => return 0,
        Some(_) => {}
    }
    let mut start = 1;
    while let Some(block) = ticks.get(start..start + BLOCK) {
        let block: &[ComponentTicks; BLOCK] = block.try_into().expect("a block's length");
        // A count, not `any`: the compiler turns `||`, a fold of `bool`s and
        // even an `|` of integers back into one branch per row.
        let passing = block.iter().fold(0u32, |n, t| n + u32::from(passes::<T>(t, field, ctx)));
        if passing != 0 {
            break;
        }
        start += BLOCK;
    }
    let rest = &ticks[start..];
    start + rest.iter().position(|t| passes::<T>(t, field, ctx)).unwrap_or(rest.len())
}

/// `true` when a run's change stamp is in the run's window.
#[inline]
fn stamped_in(stamp: &AtomicU32, ctx: FetchContext) -> bool {
    Tick::new(stamp.load(Ordering::Relaxed)).is_newer_than(ctx.last_run, ctx.this_run)
}

tick_filter!(Added, added, last_add, false, false);
tick_filter!(Changed, changed, last_change_outside_runs, true, true);

// SAFETY: no condition at all: reads nothing, caches nothing, every row passes.
unsafe impl QueryFilter for () {
    type Fetch<'w> = ();
    type State = ();
    const COLUMNS: usize = 0;
    const ARCHETYPAL: bool = true;
    fn init_state() {}
    fn access(_: &(), _: &mut Access) {}
    #[inline]
    fn matches(_: &(), _: &Archetype) -> bool {
        true
    }
    fn required(_: &(), _: &mut impl FnMut(ComponentId)) {}
    fn columns(_: &(), _: &Archetype, _: &mut Vec<CachedColumn>) {}
    #[inline(always)]
    unsafe fn fetch_archetype<'w>(_: &'w Archetype, _: &mut &[CachedColumn], _: FetchContext) -> Self::Fetch<'w> {}
    #[inline(always)]
    unsafe fn filter(_: &(), _: usize) -> bool {
        true
    }
}

macro_rules! tuple_filter {
    ($($name:ident $index:tt),+) => {
        // SAFETY: every element's access and columns are forwarded in order; a row
        // passes when all elements pass; archetypal when all elements are.
        unsafe impl<$($name: QueryFilter),+> QueryFilter for ($($name,)+) {
            type Fetch<'w> = ($($name::Fetch<'w>,)+);
            type State = ($($name::State,)+);
            const COLUMNS: usize = 0 $(+ $name::COLUMNS)+;
            const ARCHETYPAL: bool = true $(&& $name::ARCHETYPAL)+;

            fn init_state() -> Self::State {
                ($($name::init_state(),)+)
            }
            fn access(state: &Self::State, access: &mut Access) {
                $($name::access(&state.$index, access);)+
            }
            #[inline]
            fn matches(state: &Self::State, archetype: &Archetype) -> bool {
                true $(&& $name::matches(&state.$index, archetype))+
            }
            fn required(state: &Self::State, f: &mut impl FnMut(ComponentId)) {
                $($name::required(&state.$index, f);)+
            }
            fn included(state: &Self::State, f: &mut impl FnMut(ComponentId)) {
                $($name::included(&state.$index, f);)+
            }
            fn excluded(state: &Self::State, f: &mut impl FnMut(ComponentId)) {
                $($name::excluded(&state.$index, f);)+
            }
            fn clauses(state: &Self::State, clauses: &mut Clauses) {
                $($name::clauses(&state.$index, clauses);)+
            }
            fn columns(state: &Self::State, archetype: &Archetype, out: &mut Vec<CachedColumn>) {
                $($name::columns(&state.$index, archetype, out);)+
            }
            #[inline(always)]
            unsafe fn fetch_archetype<'w>(archetype: &'w Archetype, columns: &mut &[CachedColumn], ctx: FetchContext) -> Self::Fetch<'w> {
                // SAFETY: forwarded, in order.
                ($(unsafe { $name::fetch_archetype(archetype, columns, ctx) },)+)
            }
            #[inline(always)]
            unsafe fn filter(fetch: &Self::Fetch<'_>, row: usize) -> bool {
                // SAFETY: forwarded.
                true $(&& unsafe { $name::filter(&fetch.$index, row) })+
            }
            #[inline(always)]
            fn may_pass(fetch: &Self::Fetch<'_>) -> bool {
                true $(&& $name::may_pass(&fetch.$index))+
            }
            #[inline(always)]
            unsafe fn skip(fetch: &Self::Fetch<'_>, row: usize, end: usize) -> usize {
                // Each element's first possible row is at or before the first row
                // all pass, so asking them in turn from the last answer is too.
                // SAFETY: forwarded; each answer is clamped to `row..=end`.
                $(let row = unsafe { $name::skip(&fetch.$index, row, end) }.clamp(row, end);)+
                row
            }
        }

        // SAFETY: each element's access and columns are forwarded in order (an
        // element that does not match the archetype caches `NO_COLUMN` placeholders
        // behind a flag); a row passes when some matching element passes it;
        // archetypal when all elements are.
        unsafe impl<$($name: QueryFilter),+> QueryFilter for Or<($($name,)+)> {
            type Fetch<'w> = ($(Option<$name::Fetch<'w>>,)+);
            type State = ($($name::State,)+);
            const COLUMNS: usize = 0 $(+ 1 + $name::COLUMNS)+;
            const ARCHETYPAL: bool = true $(&& $name::ARCHETYPAL)+;

            fn init_state() -> Self::State {
                ($($name::init_state(),)+)
            }
            fn access(state: &Self::State, access: &mut Access) {
                $($name::access(&state.$index, access);)+
            }
            #[inline]
            fn matches(state: &Self::State, archetype: &Archetype) -> bool {
                false $(|| $name::matches(&state.$index, archetype))+
            }
            fn required(_: &Self::State, _: &mut impl FnMut(ComponentId)) {}
            fn clauses(state: &Self::State, clauses: &mut Clauses) {
                let before = core::mem::take(clauses);
                let mut any: Option<Clauses> = None;
                $(
                    let mut branch = before.clone();
                    $name::clauses(&state.$index, &mut branch);
                    match &mut any {
                        Some(any) => any.or(branch),
                        None => any = Some(branch),
                    }
                )+
                *clauses = any.expect("an `Or` has a branch");
            }
            fn columns(state: &Self::State, archetype: &Archetype, out: &mut Vec<CachedColumn>) {
                $(
                    if $name::matches(&state.$index, archetype) {
                        out.push(CachedColumn::number(1));
                        $name::columns(&state.$index, archetype, out);
                    } else {
                        out.extend(core::iter::repeat_n(CachedColumn::number(NO_COLUMN), 1 + $name::COLUMNS));
                    }
                )+
            }
            #[inline(always)]
            unsafe fn fetch_archetype<'w>(archetype: &'w Archetype, columns: &mut &[CachedColumn], ctx: FetchContext) -> Self::Fetch<'w> {
                ($({
                    let (&flag, rest) = columns.split_first().expect("filter consumes the columns it cached");
                    *columns = rest;
                    if flag.get() == NO_COLUMN {
                        *columns = &columns[$name::COLUMNS..];
                        None
                    } else {
                        // SAFETY: this element matched the archetype (flag) and its
                        // cached columns follow.
                        Some(unsafe { $name::fetch_archetype(archetype, columns, ctx) })
                    }
                },)+)
            }
            #[inline(always)]
            unsafe fn filter(fetch: &Self::Fetch<'_>, row: usize) -> bool {
                // SAFETY: forwarded.
                false $(|| fetch.$index.as_ref().is_some_and(|f| unsafe { $name::filter(f, row) }))+
            }
            #[inline(always)]
            unsafe fn skip(fetch: &Self::Fetch<'_>, row: usize, end: usize) -> usize {
                // The first row some element may pass; an element that does not
                // match the archetype passes none.
                // SAFETY: forwarded.
                end $(.min(fetch.$index.as_ref().map_or(end, |f| unsafe { $name::skip(f, row, end) }.max(row))))+
            }
            #[inline(always)]
            fn may_pass(fetch: &Self::Fetch<'_>) -> bool {
                false $(|| fetch.$index.as_ref().is_some_and(|f| $name::may_pass(f)))+
            }
        }
    };
}

tuple_filter!(F0 0);
tuple_filter!(F0 0, F1 1);
tuple_filter!(F0 0, F1 1, F2 2);
tuple_filter!(F0 0, F1 1, F2 2, F3 3);
tuple_filter!(F0 0, F1 1, F2 2, F3 3, F4 4);
tuple_filter!(F0 0, F1 1, F2 2, F3 3, F4 4, F5 5);
tuple_filter!(F0 0, F1 1, F2 2, F3 3, F4 4, F5 5, F6 6);
tuple_filter!(F0 0, F1 1, F2 2, F3 3, F4 4, F5 5, F6 6, F7 7);
