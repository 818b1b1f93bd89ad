//! Queries from the world: one-off [`World::query`] / [`World::query_mut`], and
//! [`World::query_state`] for a query that runs every frame.

use super::World;
use crate::entity::Entity;
use crate::error::EcsError;
use crate::query::{FetchContext, QueryData, QueryFilter, QueryIter, QueryState, ReadOnlyQueryData};
use crate::storage::Tick;

impl World {
    /// A read-only query over a shared world. Only read-only items (`&T`,
    /// `Option<&T>`, `Entity`, …) compile here; use [`query_mut`](Self::query_mut) to
    /// write.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Position(f32);
    /// #[derive(Component)] struct Name(&'static str);
    /// let mut world = World::new();
    /// world.spawn((Position(1.0), Name("a")));
    /// world.spawn(Position(2.0));
    /// for (e, pos, name) in world.query::<(Entity, &Position, Option<&Name>)>().iter() {
    ///     println!("{e:?} at {} named {:?}", pos.0, name.map(|n| n.0));
    /// }
    /// ```
    #[track_caller]
    pub fn query<Q: QueryData + ReadOnlyQueryData>(&self) -> QueryBorrow<'_, Q> {
        QueryBorrow::new(self)
    }

    /// [`query`](Self::query) with a filter.
    #[track_caller]
    pub fn query_filtered<Q: ReadOnlyQueryData, F: QueryFilter>(&self) -> QueryBorrow<'_, Q, F> {
        QueryBorrow::new(self)
    }

    /// A one-off query with mutable access, iterated directly.
    ///
    /// # Panics
    /// When the query aliases a component (`(&mut A, &A)`).
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Position(f32);
    /// #[derive(Component)] struct Velocity(f32);
    /// let mut world = World::new();
    /// world.spawn((Position(0.0), Velocity(2.0)));
    /// for (pos, vel) in world.query_mut::<(&mut Position, &Velocity)>() {
    ///     pos.0 += vel.0;
    /// }
    /// ```
    #[track_caller]
    pub fn query_mut<Q: QueryData>(&mut self) -> QueryIter<'_, '_, Q> {
        self.query_mut_filtered::<Q, ()>()
    }

    /// [`query_mut`](Self::query_mut) with a filter.
    #[track_caller]
    pub fn query_mut_filtered<Q: QueryData, F: QueryFilter>(&mut self) -> QueryIter<'_, '_, Q, F> {
        self.check_change_ticks_if_due();
        let state = QueryState::<Q, F>::new(self);
        let ctx = FetchContext::new(Tick::new(0), self.increment_change_tick_mut());
        // SAFETY: `self` is borrowed mutably for the iterator's lifetime, the state
        // was just made for this world (archetypes up to date), and `new` refused
        // aliasing.
        unsafe { QueryIter::owned(self.archetypes(), state, ctx) }
    }

    /// A reusable query: caches its matched archetypes and remembers when it last
    /// ran, for [`Added`](crate::Added) and [`Changed`](crate::Changed). With a
    /// filter: [`query_state_filtered`](Self::query_state_filtered).
    ///
    /// # Panics
    /// When the query aliases a component (`(&mut A, &A)`).
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Position(f32);
    /// let mut world = World::new();
    /// world.spawn(Position(1.0));
    /// let mut positions = world.query_state::<&mut Position>();
    /// for _frame in 0..3 {
    ///     positions.iter_mut(&mut world).for_each(|p| p.0 *= 2.0);
    /// }
    /// assert_eq!(positions.single_mut(&mut world).map(|p| p.0), Ok(8.0));
    /// ```
    #[track_caller]
    pub fn query_state<Q: QueryData>(&self) -> QueryState<Q> {
        QueryState::new(self)
    }

    /// [`query_state`](Self::query_state) with a filter.
    ///
    /// # Panics
    /// When the query aliases a component (`(&mut A, &A)`).
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Position(f32);
    /// #[derive(Component)] struct Frozen;
    /// let mut world = World::new();
    /// world.spawn(Position(1.0));
    /// world.spawn((Position(1.0), Frozen));
    /// let mut moving = world.query_state_filtered::<&mut Position, Without<Frozen>>();
    /// moving.iter_mut(&mut world).for_each(|p| p.0 += 1.0);
    /// let mut changed = world.query_state_filtered::<&Position, Changed<Position>>();
    /// assert_eq!(changed.iter(&world).map(|p| p.0).sum::<f32>(), 3.0);
    /// ```
    #[track_caller]
    pub fn query_state_filtered<Q: QueryData, F: QueryFilter>(&self) -> QueryState<Q, F> {
        QueryState::new(self)
    }
}

/// A read-only query over a shared world, from [`World::query`].
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
/// ```
pub struct QueryBorrow<'w, Q: QueryData, F: QueryFilter = ()> {
    world: &'w World,
    state: QueryState<Q, F>,
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
    fn new(world: &'w World) -> Self {
        let state = QueryState::new(world);
        let mut fetches = Self::fetches(world, &state);
        // With one match, `get` never reads the table, so its entry moves out.
        let single = match state.matched() {
            [only] => fetches[only.index()].take().map(|f| (only.index(), f)),
            _ => None,
        };
        Self { world, state, fetches, single }
    }

    /// Iterates the matching entities.
    pub fn iter(&self) -> QueryIter<'w, '_, Q, F> {
        let ctx = FetchContext::new(Tick::new(0), self.world.increment_change_tick());
        // SAFETY: read-only query; the world is borrowed shared for `'w`; the state
        // was made for this world and nothing can add archetypes while it is borrowed.
        unsafe { QueryIter::new(self.world.archetypes(), (&self.state).into(), ctx) }
    }

    /// The query's item for one entity.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] or [`EcsError::QueryMismatch`].
    #[inline]
    pub fn get(&self, entity: Entity) -> Result<Q::Item<'w>, EcsError> {
        let mismatch = || match self.world.location(entity) {
            Some(_) => EcsError::QueryMismatch { entity, query: core::any::type_name::<(Q, F)>() },
            None => EcsError::NoSuchEntity(entity),
        };
        let location = self.world.entities().get_maybe_dead(entity).ok_or(EcsError::NoSuchEntity(entity))?;
        let (fetch, filter) = match &self.single {
            Some((only, fetches)) if *only == location.archetype.index() => fetches,
            Some(_) => return Err(mismatch()),
            // A free or reserved slot's archetype id is beyond the table: a miss.
            None => match self.fetches.get(location.archetype.index()) {
                Some(Some(fetches)) => fetches,
                _ => return Err(mismatch()),
            },
        };
        let row = location.row.index();
        // SAFETY: the slot names a real archetype, so it holds a live entity (see
        // `get_maybe_dead`); the fetches are of that archetype and `row` is the
        // entity's row, below its length; the query only reads, and the world is
        // borrowed shared for `'w`.
        unsafe {
            if !(Q::filter_row(fetch, row) && F::filter(filter, row)) {
                return Err(mismatch());
            }
            Ok(Q::fetch(fetch, row))
        }
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

impl<'w, Q: ReadOnlyQueryData + 'w, F: QueryFilter + 'w> IntoIterator for QueryBorrow<'w, Q, F> {
    type Item = Q::Item<'w>;
    type IntoIter = QueryIter<'w, 'w, Q, F>;

    fn into_iter(self) -> Self::IntoIter {
        let ctx = FetchContext::new(Tick::new(0), self.world.increment_change_tick());
        // SAFETY: as in `iter`.
        unsafe { QueryIter::owned(self.world.archetypes(), self.state, ctx) }
    }
}
