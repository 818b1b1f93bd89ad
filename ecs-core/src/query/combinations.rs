//! [`QueryCombinationIter`]: every unordered `K`-subset of a query's matches
//! (pairs for collisions and gravity, triples for constraints), each exactly once.
//!
//! The matches are listed once when the iterator is made (one position per row),
//! then walked with `K` ascending cursors in lexicographic order: the items of one
//! combination are always `K` different rows, so with a mutable query they never
//! alias. Mutable items go through [`fetch_next`](QueryCombinationIter::fetch_next),
//! which lends them only until the next call.

use core::marker::PhantomData;

use super::fetch::{FetchContext, QueryData, ReadOnlyQueryData};
use super::filter::QueryFilter;
use super::state::QueryState;
use crate::world::World;

/// Iterates each combination of `K` distinct matching entities once, as
/// `[Q::Item; K]` in iteration order (the first item's row comes first).
///
/// Made by `iter_combinations` (read-only queries: an [`Iterator`] too) and
/// `iter_combinations_mut` (only [`fetch_next`](Self::fetch_next)) on
/// [`Query`](crate::system::Query) and [`QueryState`]. `K = 0` yields nothing.
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(Component)] struct Position(f32);
/// #[derive(Component, Default)] struct Pull(f32);
/// let mut world = World::new();
/// world.spawn_batch([0.0, 1.0, 3.0].map(|x| (Position(x), Pull::default()))).for_each(drop);
/// let mut bodies = world.query_state::<(&Position, &mut Pull)>();
/// let mut pairs = bodies.iter_combinations_mut::<2>(&mut world);
/// while let Some([(pa, a), (pb, b)]) = pairs.fetch_next() {
///     let d = pb.0 - pa.0;
///     a.0 += d;
///     b.0 -= d;
/// }
/// let pulls: Vec<f32> = world.query::<&Pull>().iter().map(|p| p.0).collect();
/// assert_eq!(pulls, [4.0, 1.0, -5.0]);
/// ```
pub struct QueryCombinationIter<'w, Q: QueryData, const K: usize> {
    /// The fetch of each matched archetype with rows.
    fetches: Vec<Q::Fetch<'w>>,
    /// Every row the query yields, as (index into `fetches`, row).
    rows: Vec<(usize, usize)>,
    /// Indices into `rows`, strictly ascending, of the last combination handed out.
    cursors: [usize; K],
    started: bool,
    marker: PhantomData<&'w World>,
}

impl<'w, Q: QueryData, const K: usize> QueryCombinationIter<'w, Q, K> {
    /// # Safety
    /// The caller holds the query's access to `world` for `'w`, and the state is
    /// up to date with it.
    pub(crate) unsafe fn new<F: QueryFilter>(state: &QueryState<Q, F>, world: &'w World, ctx: FetchContext) -> Self {
        let mut fetches: Vec<Q::Fetch<'w>> = Vec::new();
        let mut rows = Vec::new();
        let mut current = None;
        // SAFETY: forwarded from the caller.
        unsafe {
            state.visit_matches(world, ctx, |index, row| {
                if current != Some(index) {
                    current = Some(index);
                    fetches.push(state.fetch_of(world, index, ctx));
                }
                rows.push((fetches.len() - 1, row));
                true
            });
        }
        Self { fetches, rows, cursors: [0; K], started: false, marker: PhantomData }
    }

    /// Moves the cursors to the next combination; `false` when there is none.
    fn advance(&mut self) -> bool {
        let n = self.rows.len();
        if K == 0 || K > n {
            return false;
        }
        if !self.started {
            self.started = true;
            for (i, cursor) in self.cursors.iter_mut().enumerate() {
                *cursor = i;
            }
            return true;
        }
        // The last cursor that can still move right, leaving room for those after it.
        let Some(j) = (0..K).rev().find(|&j| self.cursors[j] < n - K + j) else {
            return false;
        };
        self.cursors[j] += 1;
        for i in j + 1..K {
            self.cursors[i] = self.cursors[i - 1] + 1;
        }
        true
    }

    /// The items at the cursors.
    ///
    /// # Safety
    /// No item handed out earlier at any of these rows is still live, unless the
    /// query only reads.
    unsafe fn items(&self) -> [Q::Item<'w>; K] {
        core::array::from_fn(|i| {
            let (fetch, row) = self.rows[self.cursors[i]];
            let fetch = &self.fetches[fetch];
            // SAFETY: the row is one the query yields, in this fetch's archetype;
            // the `K` cursors are distinct, so within the combination each row's
            // item is handed out once; earlier items are the caller's concern.
            unsafe {
                Q::mark_written(fetch, row..row + 1);
                Q::fetch(fetch, row)
            }
        })
    }

    /// The next combination, borrowed until the next call: the mutable form, whose
    /// items may not outlive the step (a combination's `&mut` items would alias the
    /// next one's).
    #[allow(clippy::should_implement_trait, reason = "a lending iterator cannot implement `Iterator`")]
    pub fn fetch_next(&mut self) -> Option<[Q::Item<'_>; K]> {
        if !self.advance() {
            return None;
        }
        // SAFETY: the items borrow `self` mutably, so the previous step's are dead.
        let items = unsafe { self.items() };
        Some(items.map(Q::shrink))
    }

    /// How many combinations there are in all (`n` choose `K`, saturating), from
    /// the start.
    pub fn total(&self) -> usize {
        let n = self.rows.len();
        if K == 0 || K > n {
            return 0;
        }
        binomial(n, K)
    }

    /// How many combinations are still to come: all of them before the first
    /// step; after it, those that follow the current one in lexicographic
    /// order, `sum C(n - 1 - c_i, K - i)` over the cursors `c_i`.
    fn remaining(&self) -> usize {
        if !self.started {
            return self.total();
        }
        let n = self.rows.len();
        (0..K).fold(0usize, |sum, i| sum.saturating_add(binomial(n - 1 - self.cursors[i], K - i)))
    }
}

/// C(n, k), saturating at `usize::MAX`.
fn binomial(n: usize, k: usize) -> usize {
    if k > n {
        return 0;
    }
    // C(n, k) = prod (n - k + i) / i, exact at each step.
    (1..=k).try_fold(1usize, |acc, i| acc.checked_mul(n - k + i).map(|v| v / i)).unwrap_or(usize::MAX)
}

impl<'w, Q: ReadOnlyQueryData, const K: usize> Iterator for QueryCombinationIter<'w, Q, K> {
    type Item = [Q::Item<'w>; K];

    fn next(&mut self) -> Option<Self::Item> {
        // SAFETY: the query only reads, so earlier items may live on.
        self.advance().then(|| unsafe { self.items() })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let remaining = self.remaining();
        (remaining, Some(remaining))
    }
}
