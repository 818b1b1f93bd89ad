//! Parallel iteration on the crate's worker pool, or inline where the query
//! measured that to be faster (see [`crate::parallel`]).

use super::fetch::{FetchContext, QueryData};
use super::filter::QueryFilter;
use super::iter::QueryIter;
use super::state::QueryState;
use crate::archetype::Archetypes;
use crate::parallel::{Mode, for_each_index, threads};
use crate::world::World;

/// Rows below this are not worth a task of their own.
const MIN_BATCH: usize = 64;

/// Visits every matching row once: inline, archetype after archetype, or in
/// parallel, with archetypes split into row ranges of about `total / (4 *
/// threads)` rows so that both large and many small archetypes spread over the
/// pool; the query's [`Adaptive`](crate::parallel::Adaptive) picks which.
pub(super) fn for_each<'w, Q: QueryData, F: QueryFilter>(
    archetypes: &'w Archetypes,
    state: &QueryState<Q, F>,
    ctx: FetchContext,
    f: &(impl Fn(Q::Item<'w>) + Send + Sync),
) where
    Q::State: Sync,
{
    state.parallel().run(|mode| visit(archetypes, state, ctx, f, mode));
}

/// [`for_each`] in the mode chosen.
fn visit<'w, Q: QueryData, F: QueryFilter>(
    archetypes: &'w Archetypes,
    state: &QueryState<Q, F>,
    ctx: FetchContext,
    f: &(impl Fn(Q::Item<'w>) + Send + Sync),
    mode: Mode,
) where
    Q::State: Sync,
{
    let mut tasks = Vec::new();
    if mode == Mode::Parallel {
        let total: usize = state.matched().iter().filter_map(|&id| archetypes.get(id)).map(|a| a.len()).sum();
        let batch = (total / (4 * threads())).max(MIN_BATCH);
        for (index, &id) in state.matched().iter().enumerate() {
            let len = archetypes.get(id).map_or(0, |a| a.len());
            let mut start = 0;
            while start < len {
                let end = (start + batch).min(len);
                tasks.push((index, start, end));
                start = end;
            }
        }
    }
    let run = |&(index, start, end): &(usize, usize, usize), wide: bool| {
        let archetype = archetypes.get(state.matched()[index]).expect("matched archetype exists");
        let mut columns = state.columns_of(index);
        // SAFETY: the archetype matched and these are its cached entries, current (the
        // state is up to date); the caller holds the query's access for `'w`; tasks
        // cover disjoint row ranges, so no two items (or tick stamps) of this query
        // refer to the same row; `wide` is `true` only where `avx2` found AVX2.
        unsafe {
            let fetch = Q::fetch_archetype(archetype, &mut columns, ctx);
            let filter = F::fetch_archetype(archetype, &mut columns, ctx);
            if !F::ARCHETYPAL && !F::may_pass(&filter) {
                return;
            }
            #[cfg(target_arch = "x86_64")]
            if wide {
                rows_wide::<Q, F>(&fetch, &filter, start..end, f);
                return;
            }
            #[cfg(not(target_arch = "x86_64"))]
            let _ = wide;
            rows::<Q, F>(&fetch, &filter, start..end, f);
        }
    };
    match mode {
        // SAFETY: what `run` relies on is what the iterator needs: the state is
        // current and belongs to the world of `archetypes` (callers update it
        // first), and the caller holds the query's access to it for `'w`. The
        // iterator hands out each row once.
        Mode::Inline => {
            // SAFETY: as above.
            let iter = unsafe { QueryIter::new(archetypes, state.into(), ctx) };
            #[cfg(target_arch = "x86_64")]
            if super::wide::avx2() {
                let run = state.wide().begin();
                if run.wide {
                    // SAFETY: the CPU has AVX2 (`avx2` checked it).
                    unsafe { super::iter::fold_wide(iter, (), |(), item| f(item)) }
                } else {
                    iter.for_each(f);
                }
                state.wide().end(run);
                return;
            }
            iter.for_each(f);
        }
        // The copy inline runs measured to be faster (see `query::wide`); not
        // timed here: a parallel run's time varies with the other threads more
        // than with the copy.
        Mode::Parallel => {
            let wide = super::wide::avx2() && state.wide().current();
            for_each_index(tasks.len(), &|task| run(&tasks[task], wide));
        }
    }
}

/// A task's rows: `f` for each row of `rows` that passes the filters.
///
/// # Safety
/// The fetches were made for one archetype of a world whose query access the
/// caller holds, `rows` are rows of it, and no other call hands them out.
#[inline(always)]
unsafe fn rows<'w, Q: QueryData, F: QueryFilter>(
    fetch: &Q::Fetch<'w>,
    filter: &F::Fetch<'w>,
    rows: core::ops::Range<usize>,
    f: &(impl Fn(Q::Item<'w>) + Send + Sync),
) {
    // SAFETY: the caller's (above).
    unsafe {
        if Q::DENSE && F::ARCHETYPAL {
            // Every row is handed out: stamp the range at once, which keeps
            // the loop free of the per-row check (and vectorizable).
            Q::mark_written(fetch, rows.clone());
            for row in rows {
                f(Q::fetch(fetch, row));
            }
        } else {
            super::iter::filtered_rows::<Q, F, (), true>(fetch, filter, rows, (), |(), item| f(item));
        }
    }
}

/// [`rows`] compiled with AVX2 (see [`super::wide`]).
///
/// # Safety
/// The CPU supports AVX2, and as for `rows`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn rows_wide<'w, Q: QueryData, F: QueryFilter>(
    fetch: &Q::Fetch<'w>,
    filter: &F::Fetch<'w>,
    range: core::ops::Range<usize>,
    f: &(impl Fn(Q::Item<'w>) + Send + Sync),
) {
    // SAFETY: forwarded.
    unsafe { rows::<Q, F>(fetch, filter, range, f) }
}

impl<Q: QueryData, F: QueryFilter> QueryState<Q, F> {
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
}
