//! Parallel iteration on the rayon thread pool.

use rayon::prelude::*;

use super::fetch::{FetchContext, QueryData};
use super::filter::QueryFilter;
use super::state::QueryState;
use crate::archetype::Archetypes;

/// Rows below this are not worth a task of their own.
const MIN_BATCH: usize = 64;

/// Visits every matching row once, splitting archetypes into row ranges of about
/// `total / (4 * threads)` rows so that both large and many small archetypes spread
/// over the pool.
pub(super) fn for_each<'w, Q: QueryData, F: QueryFilter>(
    archetypes: &'w Archetypes,
    state: &QueryState<Q, F>,
    ctx: FetchContext,
    f: &(impl Fn(Q::Item<'w>) + Send + Sync),
) where
    Q::State: Sync,
{
    let total: usize = state.matched().iter().filter_map(|&id| archetypes.get(id)).map(|a| a.len()).sum();
    let batch = (total / (4 * rayon::current_num_threads().max(1))).max(MIN_BATCH);
    let mut tasks = Vec::new();
    for (index, &id) in state.matched().iter().enumerate() {
        let len = archetypes.get(id).map_or(0, |a| a.len());
        let mut start = 0;
        while start < len {
            let end = (start + batch).min(len);
            tasks.push((index, start, end));
            start = end;
        }
    }
    let run = |&(index, start, end): &(usize, usize, usize)| {
        let archetype = archetypes.get(state.matched()[index]).expect("matched archetype exists");
        let mut columns = state.columns_of(index);
        // SAFETY: the archetype matched and these are its cached entries, current (the
        // state is up to date); the caller borrows the world mutably for `'w`; tasks
        // cover disjoint row ranges, so no two items (or tick stamps) of this query
        // refer to the same row.
        unsafe {
            let fetch = Q::fetch_archetype(archetype, &mut columns, ctx);
            let filter = F::fetch_archetype(archetype, &mut columns, ctx);
            if !F::ARCHETYPAL && !F::may_pass(&filter) {
                return;
            }
            for row in start..end {
                if (Q::DENSE && F::ARCHETYPAL) || (Q::filter_row(&fetch, row) && F::filter(&filter, row)) {
                    Q::mark_written(&fetch, row..row + 1);
                    f(Q::fetch(&fetch, row));
                }
            }
        }
    };
    if tasks.len() <= 1 {
        tasks.iter().for_each(run);
    } else {
        tasks.par_iter().for_each(run);
    }
}
