//! Queries from the world: one-off [`World::query`] / [`World::query_mut`], and
//! [`World::query_state`] for a query that runs every frame.

use super::{FetchContext, QueryBorrow, QueryData, QueryFilter, QueryIter, QueryState, ReadOnlyQueryData};
use crate::component::{Component, MutableComponent, WholeComponent};
use crate::entity::Entity;
use crate::error::EcsError;
use crate::storage::Tick;
use crate::world::World;

impl World {
    /// Mutable references to the `T` of several distinct entities at once: two
    /// ships trading fuel.
    ///
    /// # Errors
    /// [`EcsError::AliasedMutability`] when an entity is named twice,
    /// [`EcsError::NoSuchEntity`] for a dead one, [`EcsError::MissingComponent`] for
    /// one without a `T`. Nothing is handed out (or marked changed) then.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Fuel(u32);
    /// let mut world = World::new();
    /// let (a, b) = (world.spawn(Fuel(10)), world.spawn(Fuel(0)));
    /// let [from, to] = world.get_many_mut::<Fuel, 2>([a, b])?;
    /// to.0 += 4;
    /// from.0 -= 4;
    /// assert_eq!(world.get::<Fuel>(b).map(|f| f.0), Some(4));
    /// assert_eq!(world.get_many_mut::<Fuel, 2>([a, a]).err(), Some(EcsError::AliasedMutability(a)));
    /// # Ok::<(), EcsError>(())
    /// ```
    pub fn get_many_mut<T: Component + MutableComponent + WholeComponent, const N: usize>(
        &mut self,
        entities: [Entity; N],
    ) -> Result<[&mut T; N], EcsError> {
        let mut state = crate::query::QueryState::<&mut T>::new(self);
        state.get_many_mut(self, entities).map_err(|error| match error {
            EcsError::QueryMismatch { entity, .. } => {
                EcsError::MissingComponent { entity, component: core::any::type_name::<T>() }
            }
            other => other,
        })
    }

    /// A read-only query over a shared world. Only read-only items (`&T`,
    /// `Option<&T>`, `Entity`, …) compile here; use [`query_mut`](Self::query_mut) to
    /// write.
    ///
    /// Like [`query_mut`](Self::query_mut), the result is an iterator; it also
    /// answers [`get`](QueryBorrow::get), [`single`](QueryBorrow::single) and fresh
    /// passes with [`iter`](QueryBorrow::iter).
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
