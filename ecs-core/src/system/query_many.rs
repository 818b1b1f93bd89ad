//! [`Query::iter_many`] and [`Query::iter_many_mut`]: the items of a list of
//! entities (a parent's children, a target's sources), in the list's order,
//! skipping the entities the query does not match.

use core::borrow::Borrow;

use super::param::Query;
use crate::entity::Entity;
use crate::query::{QueryData, QueryFilter, ReadOnlyQueryData};

impl<'w, Q: QueryData, F: QueryFilter> Query<'w, Q, F> {
    /// The items of `entities`, in their order, skipping the entities the
    /// query does not match (dead ones included): `q.iter_many(children)`. An
    /// entity listed twice yields its item twice. For read-only queries; see
    /// [`iter_many_mut`](Self::iter_many_mut) to write.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Mass(f32);
    /// fn total_mass(parents: Query<&Children>, masses: Query<&Mass>) -> f32 {
    ///     parents.iter().flat_map(|children| masses.iter_many(children)).map(|m| m.0).sum()
    /// }
    /// let mut world = World::new();
    /// let ship = world.spawn(());
    /// world.spawn((Mass(2.0), ChildOf(ship)));
    /// world.spawn((Mass(3.0), ChildOf(ship)));
    /// world.spawn(ChildOf(ship)); // no mass: skipped
    /// assert_eq!(world.run_system_once(total_mass)?, 5.0);
    /// # Ok::<(), EcsError>(())
    /// ```
    pub fn iter_many<I>(&self, entities: I) -> QueryManyIter<'_, 'w, Q, F, I::IntoIter>
    where
        Q: ReadOnlyQueryData,
        I: IntoIterator<Item: Borrow<Entity>>,
    {
        QueryManyIter { query: self, entities: entities.into_iter() }
    }

    /// The items of `entities` with the query's mutable access, one at a time:
    /// [`fetch_next`](QueryManyIterMut::fetch_next) lends each item until the
    /// next call (an entity listed twice would otherwise give two `&mut` to
    /// it), or [`for_each`](QueryManyIterMut::for_each) visits them all.
    /// Entities the query does not match are skipped.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Health(u32);
    /// fn heal_children(parents: Query<&Children>, mut health: Query<&mut Health>) {
    ///     for children in &parents {
    ///         let mut kids = health.iter_many_mut(children);
    ///         while let Some(h) = kids.fetch_next() {
    ///             h.0 += 10;
    ///         }
    ///     }
    /// }
    /// let mut world = World::new();
    /// let parent = world.spawn(());
    /// let kid = world.spawn((Health(1), ChildOf(parent)));
    /// world.run_system_once(heal_children)?;
    /// assert_eq!(world.get::<Health>(kid).map(|h| h.0), Some(11));
    /// # Ok::<(), EcsError>(())
    /// ```
    pub fn iter_many_mut<I>(&mut self, entities: I) -> QueryManyIterMut<'_, 'w, Q, F, I::IntoIter>
    where
        I: IntoIterator<Item: Borrow<Entity>>,
    {
        QueryManyIterMut { query: self, entities: entities.into_iter() }
    }
}

/// The iterator of [`Query::iter_many`].
pub struct QueryManyIter<'q, 'w, Q: QueryData, F: QueryFilter, I> {
    query: &'q Query<'w, Q, F>,
    entities: I,
}

impl<'q, Q: ReadOnlyQueryData, F: QueryFilter, I: Iterator<Item: Borrow<Entity>>> Iterator
    for QueryManyIter<'q, '_, Q, F, I>
{
    type Item = Q::Item<'q>;

    #[inline]
    fn next(&mut self) -> Option<Q::Item<'q>> {
        let query = self.query;
        self.entities.by_ref().find_map(|entity| query.get_or_none(*entity.borrow()))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, self.entities.size_hint().1)
    }
}

/// The lending iterator of [`Query::iter_many_mut`].
pub struct QueryManyIterMut<'q, 'w, Q: QueryData, F: QueryFilter, I> {
    query: &'q mut Query<'w, Q, F>,
    entities: I,
}

impl<Q: QueryData, F: QueryFilter, I: Iterator<Item: Borrow<Entity>>> QueryManyIterMut<'_, '_, Q, F, I> {
    /// The next matching entity's item, lent until the next call.
    #[inline]
    pub fn fetch_next(&mut self) -> Option<Q::Item<'_>> {
        let query = &*self.query;
        for entity in self.entities.by_ref() {
            // SAFETY: the item borrows `self`, which holds the query mutably,
            // for as long as it lives.
            if let Some(item) = unsafe { query.get_mut_lent(*entity.borrow()) } {
                return Some(item);
            }
        }
        None
    }

    /// Calls `f` with each matching entity's item, in order.
    pub fn for_each(mut self, mut f: impl FnMut(Q::Item<'_>)) {
        while let Some(item) = self.fetch_next() {
            f(item);
        }
    }
}
