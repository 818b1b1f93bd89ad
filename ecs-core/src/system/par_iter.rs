//! `query.par_iter().for_each(…)`: bevy_ecs's spelling of a query's parallel
//! walk, the same walk as [`Query::par_for_each`].

use super::param::Query;
use crate::query::{QueryData, QueryFilter, ReadOnlyQueryData};

/// A read-only query's parallel walk, from [`Query::par_iter`]: call
/// [`for_each`](Self::for_each).
pub struct QueryParIter<'q, 'w, Q: QueryData, F: QueryFilter> {
    query: &'q Query<'w, Q, F>,
}

/// A query's parallel walk that writes, from [`Query::par_iter_mut`]: call
/// [`for_each`](Self::for_each).
pub struct QueryParIterMut<'q, 'w, Q: QueryData, F: QueryFilter> {
    query: &'q mut Query<'w, Q, F>,
}

impl<Q: ReadOnlyQueryData, F: QueryFilter> QueryParIter<'_, '_, Q, F>
where
    Q::State: Sync,
{
    /// Calls `f` for every matching entity, in parallel on the worker pool
    /// ([`Query::par_for_each`]).
    pub fn for_each(self, f: impl Fn(Q::Item<'_>) + Send + Sync) {
        self.query.par_for_each(f);
    }
}

impl<Q: QueryData, F: QueryFilter> QueryParIterMut<'_, '_, Q, F>
where
    Q::State: Sync,
{
    /// Calls `f` for every matching entity, in parallel on the worker pool
    /// ([`Query::par_for_each_mut`]).
    pub fn for_each(self, f: impl Fn(Q::Item<'_>) + Send + Sync) {
        self.query.par_for_each_mut(f);
    }
}

impl<'w, Q: QueryData, F: QueryFilter> Query<'w, Q, F> {
    /// The parallel walk of a read-only query: `query.par_iter().for_each(|item| …)`,
    /// the same as [`par_for_each`](Self::par_for_each).
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// use std::sync::atomic::{AtomicU32, Ordering};
    /// #[derive(Component)] struct Hp(u32);
    /// #[derive(Default)] struct Total(AtomicU32);
    /// fn total(hp: Query<&Hp>, sum: Res<Total>) {
    ///     hp.par_iter().for_each(|hp| { sum.0.fetch_add(hp.0, Ordering::Relaxed); });
    /// }
    /// let mut world = World::new();
    /// world.insert_resource(Total::default());
    /// world.spawn_batch((1..=100).map(Hp)).for_each(drop);
    /// world.run_system_once(total)?;
    /// assert_eq!(world.resource::<Total>().0.load(Ordering::Relaxed), 5050);
    /// # Ok::<(), EcsError>(())
    /// ```
    pub fn par_iter(&self) -> QueryParIter<'_, 'w, Q, F>
    where
        Q: ReadOnlyQueryData,
    {
        QueryParIter { query: self }
    }

    /// The parallel walk of any query: `query.par_iter_mut().for_each(|item| …)`,
    /// the same as [`par_for_each_mut`](Self::par_for_each_mut).
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Position(f32);
    /// #[derive(Component)] struct Velocity(f32);
    /// fn movement(mut q: Query<(&mut Position, &Velocity)>) {
    ///     q.par_iter_mut().for_each(|(p, v)| p.0 += v.0);
    /// }
    /// let mut world = World::new();
    /// world.spawn_batch((0..1000).map(|_| (Position(0.0), Velocity(2.0)))).for_each(drop);
    /// world.run_system_once(movement)?;
    /// assert!(world.query::<&Position>().iter().all(|p| p.0 == 2.0));
    /// # Ok::<(), EcsError>(())
    /// ```
    pub fn par_iter_mut(&mut self) -> QueryParIterMut<'_, 'w, Q, F> {
        QueryParIterMut { query: self }
    }
}
