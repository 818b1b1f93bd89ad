//! [`QueryBorrow`]: a read-only query over a shared world, from
//! [`World::query`]: an iterator that also answers random access.

use super::by_entity::{Miss, item_at};
use super::fetch::{FetchContext, QueryData, ReadOnlyQueryData};
use super::filter::QueryFilter;
use super::{QueryCombinationIter, QueryIter, QueryState};
use crate::entity::Entity;
use crate::error::EcsError;
use crate::storage::Tick;
use crate::world::World;

/// A read-only query over a shared world, from [`World::query`].
///
/// It is an iterator over the matches, as [`World::query_mut`]'s result is, and
/// also gives random access ([`get`](Self::get), [`single`](Self::single)) and
/// fresh passes ([`iter`](Self::iter), `for x in &borrow`) while it lives.
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(Component)] struct Position(f32);
/// let mut world = World::new();
/// let targets: Vec<Entity> = world.spawn_batch((0..4).map(|i| Position(i as f32))).collect();
/// let positions = world.query::<&Position>();
/// let sum: f32 = targets.iter().map(|&e| positions.get(e).unwrap().0).sum();
/// assert_eq!(sum, 6.0);
/// assert_eq!(positions.iter().count(), 4);
/// assert_eq!(world.query::<&Position>().map(|p| p.0).sum::<f32>(), 6.0);
/// ```
pub struct QueryBorrow<'w, Q: QueryData, F: QueryFilter = ()> {
    world: &'w World,
    /// The pass `next` continues; it owns the query state.
    cursor: QueryIter<'w, 'w, Q, F>,
    /// The fetches of each matched archetype, indexed by `ArchetypeId`, resolved
    /// when the borrow is made (as the matching is), so that [`get`](Self::get) is
    /// an entity lookup, an array index and a pointer offset.
    fetches: FetchTable<'w, Q, F>,
    /// The only matched archetype's index and fetches, when exactly one matched:
    /// `get` then skips the table, whose load would sit between the entity lookup
    /// and the data on every call.
    single: Option<(usize, Fetches<'w, Q, F>)>,
}

type Fetches<'w, Q, F> = (<Q as QueryData>::Fetch<'w>, <F as QueryFilter>::Fetch<'w>);
type FetchTable<'w, Q, F> = Box<[Option<Fetches<'w, Q, F>>]>;

impl<'w, Q: ReadOnlyQueryData, F: QueryFilter> QueryBorrow<'w, Q, F> {
    #[track_caller]
    pub(crate) fn new(world: &'w World) -> Self {
        let state = QueryState::new(world);
        let mut fetches = Self::fetches(world, &state);
        // With one match, `get` never reads the table, so its entry moves out.
        let single = match state.matched() {
            [only] => fetches[only.index()].take().map(|f| (only.index(), f)),
            _ => None,
        };
        // SAFETY: as in `iter`.
        let cursor = unsafe { QueryIter::owned(world.archetypes(), state, Self::ctx(world)) };
        Self { world, cursor, fetches, single }
    }

    /// A fresh tick window: everything counts as added and changed.
    fn ctx(world: &World) -> FetchContext {
        FetchContext::new(Tick::new(0), world.increment_change_tick())
    }

    fn state(&self) -> &QueryState<Q, F> {
        self.cursor.state()
    }

    /// Iterates the matching entities from the start (a new pass; the borrow
    /// itself, as an iterator, keeps its own position).
    pub fn iter(&self) -> QueryIter<'w, '_, Q, F> {
        // SAFETY: read-only query; the world is borrowed shared for `'w`; the state
        // was made for this world and nothing can add archetypes while it is borrowed.
        unsafe { QueryIter::new(self.world.archetypes(), self.state().into(), Self::ctx(self.world)) }
    }

    /// Each combination of `K` distinct matching entities once, as `[item; K]`.
    /// See [`QueryCombinationIter`].
    pub fn iter_combinations<const K: usize>(&self) -> QueryCombinationIter<'w, Q, K> {
        // SAFETY: as in `iter`.
        unsafe { self.state().combinations_unchecked(self.world, Self::ctx(self.world)) }
    }

    /// The item of the only matching entity.
    ///
    /// # Errors
    /// [`EcsError::NoEntities`] when none matches, [`EcsError::MultipleEntities`]
    /// when more than one does.
    pub fn single(&self) -> Result<Q::Item<'w>, EcsError> {
        // SAFETY: as in `iter`.
        unsafe { self.state().single_unchecked(self.world, Self::ctx(self.world)) }
    }

    /// `true` when no entity matches; stops at the first match.
    pub fn is_empty(&self) -> bool {
        // SAFETY: as in `iter`.
        unsafe { self.state().is_empty_unchecked(self.world, Self::ctx(self.world)) }
    }

    /// `true` when `entity` is alive and matches the query (bevy_ecs's
    /// `contains`).
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.get(entity).is_ok()
    }

    /// The query's item for one entity.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] or [`EcsError::QueryMismatch`].
    #[inline]
    pub fn get(&self, entity: Entity) -> Result<Q::Item<'w>, EcsError> {
        let miss = || Miss::of(self.world, entity).error::<Q, F>(entity);
        let location = self.world.entities().get_maybe_dead(entity).ok_or(EcsError::NoSuchEntity(entity))?;
        let (fetch, filter) = match &self.single {
            Some((only, fetches)) if *only == location.archetype.index() => fetches,
            Some(_) => return Err(miss()),
            // A free or reserved slot's archetype id is beyond the table: a miss.
            None => match self.fetches.get(location.archetype.index()) {
                Some(Some(fetches)) => fetches,
                _ => return Err(miss()),
            },
        };
        // SAFETY: the slot names a real archetype, so it holds a live entity (see
        // `get_maybe_dead`); the fetches are of that archetype and the row is the
        // entity's; the query only reads, and the world is borrowed shared for `'w`.
        unsafe { item_at::<Q, F>(fetch, filter, location.row.index()) }.map_err(|m| m.error::<Q, F>(entity))
    }

    fn fetches(world: &'w World, state: &QueryState<Q, F>) -> FetchTable<'w, Q, F> {
        let archetypes = world.archetypes();
        let ctx = FetchContext::new(Tick::new(0), world.change_tick());
        let mut fetches: FetchTable<'w, Q, F> = (0..archetypes.len()).map(|_| None).collect();
        for (index, &id) in state.matched().iter().enumerate() {
            let archetype = archetypes.get(id).expect("matched archetype exists");
            let mut columns = state.columns_of(index);
            // SAFETY: the archetype matched and these are its cached entries, current
            // (the state is up to date); the query only reads a world borrowed shared
            // for `'w`, in which no column can move or grow.
            fetches[id.index()] = Some(unsafe {
                (Q::fetch_archetype(archetype, &mut columns, ctx), F::fetch_archetype(archetype, &mut columns, ctx))
            });
        }
        fetches
    }
}

impl<'w, Q: ReadOnlyQueryData, F: QueryFilter> Iterator for QueryBorrow<'w, Q, F> {
    type Item = Q::Item<'w>;

    #[inline]
    fn next(&mut self) -> Option<Q::Item<'w>> {
        self.cursor.next()
    }

    #[inline]
    fn fold<B, G: FnMut(B, Self::Item) -> B>(self, init: B, g: G) -> B {
        self.cursor.fold(init, g)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.cursor.size_hint()
    }

    fn count(self) -> usize {
        self.cursor.count()
    }
}

impl<'a, 'w, Q: ReadOnlyQueryData, F: QueryFilter> IntoIterator for &'a QueryBorrow<'w, Q, F> {
    type Item = Q::Item<'w>;
    type IntoIter = QueryIter<'w, 'a, Q, F>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
