//! [`Single`] and [`Populated`]: query parameters that skip their system when
//! the query does not match what the system needs, as in bevy.

use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};

use super::SystemMeta;
use super::param::{Query, ReadOnlySystemParam, SystemParam};
use crate::error::EcsError;
use crate::query::{FetchContext, QueryData, QueryFilter, QueryState, ReadOnlyQueryData};
use crate::world::World;

/// The item of the one entity a query matches: a system parameter. When no
/// entity or more than one matches, the system does not run (and a run
/// condition taking it reads as `false`); `run_system_once` returns
/// [`EcsError::NoEntities`] or [`EcsError::MultipleEntities`]. For "the
/// player, if there is exactly one" without skipping, take a [`Query`] and
/// call [`single`](Query::single).
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(Component)] struct Player;
/// #[derive(Component)] struct Health(i32);
/// fn regenerate(mut player: Single<&mut Health, With<Player>>) {
///     player.0 += 1;
/// }
/// let mut world = World::new();
/// let mut schedule = Schedule::new();
/// schedule.add_systems(regenerate);
/// schedule.run(&mut world); // no player yet: skipped
/// let player = world.spawn((Player, Health(5)));
/// schedule.run(&mut world);
/// assert_eq!(world.get::<Health>(player).map(|h| h.0), Some(6));
/// ```
pub struct Single<'w, D: QueryData, F: QueryFilter = ()> {
    item: D::Item<'w>,
    marker: PhantomData<fn() -> F>,
}

impl<'w, D: QueryData, F: QueryFilter> Single<'w, D, F> {
    /// The item.
    pub fn into_inner(self) -> D::Item<'w> {
        self.item
    }
}

impl<'w, D: QueryData, F: QueryFilter> Deref for Single<'w, D, F> {
    type Target = D::Item<'w>;
    fn deref(&self) -> &Self::Target {
        &self.item
    }
}

impl<D: QueryData, F: QueryFilter> DerefMut for Single<'_, D, F> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.item
    }
}

impl<'w, D: QueryData, F: QueryFilter> core::fmt::Debug for Single<'w, D, F>
where
    D::Item<'w>: core::fmt::Debug,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("Single").field(&self.item).finish()
    }
}

/// The fetch context of one run, and the state brought up to date.
fn prepare<D: QueryData, F: QueryFilter>(
    state: &mut QueryState<D, F>,
    meta: &SystemMeta,
    world: &World,
) -> FetchContext {
    state.update_archetypes(world);
    state.set_last_run(meta.this_run);
    FetchContext::new(meta.last_run, meta.this_run)
}

/// How many rows the query yields, counting up to two. Fetches nothing.
///
/// # Safety
/// The caller holds the query's access on `world`.
unsafe fn count_to_two<D: QueryData, F: QueryFilter>(state: &QueryState<D, F>, world: &World, ctx: FetchContext) -> u8 {
    let mut count = 0;
    // SAFETY: forwarded; the visit reads presence and ticks only.
    unsafe {
        state.visit_matches(world, ctx, |_, _| {
            count += 1;
            count < 2
        })
    };
    count
}

// SAFETY: records the access of `Query<D, F>` (the same proof included) and
// hands out one item of it, as `Query::single_mut` does.
unsafe impl<D: QueryData + 'static, F: QueryFilter + 'static> SystemParam for Single<'_, D, F> {
    const DEFERRED: bool = false;
    const SKIPS: bool = true;
    type State = QueryState<D, F>;
    type Item<'w> = Single<'w, D, F>;

    fn access(meta: &mut SystemMeta) {
        <Query<'static, D, F> as SystemParam>::access(meta);
    }

    fn init_state(world: &mut World) -> QueryState<D, F> {
        QueryState::new(world)
    }

    unsafe fn check_run(state: &mut QueryState<D, F>, meta: &SystemMeta, world: &World) -> Result<(), EcsError> {
        let ctx = prepare(state, meta, world);
        let query = crate::names::query_name::<D, F>();
        // SAFETY: the caller holds the query's access (`check_run`'s contract).
        match unsafe { count_to_two(state, world, ctx) } {
            0 => Err(EcsError::NoEntities { query }),
            1 => Ok(()),
            _ => Err(EcsError::MultipleEntities { query }),
        }
    }

    unsafe fn get_param<'w>(state: &'w mut QueryState<D, F>, meta: &SystemMeta, world: &'w World) -> Single<'w, D, F> {
        let ctx = prepare(state, meta, world);
        // SAFETY: the caller holds the query's access for `'w`; one item is
        // handed out.
        match unsafe { state.single_unchecked(world, ctx) } {
            Ok(item) => Single { item, marker: PhantomData },
            // `check_run` ran just before, with the same access held.
            Err(error) => panic!("system `{}`: {error}", meta.name()),
        }
    }
}

// SAFETY: a read-only query's single item only reads.
unsafe impl<D: ReadOnlyQueryData + 'static, F: QueryFilter + 'static> ReadOnlySystemParam for Single<'_, D, F> {}

/// A [`Query`] that matches at least one entity: a system parameter. When none
/// matches, the system does not run (a run condition taking it reads as
/// `false`). Derefs to the query.
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(Component)] struct Enemy;
/// #[derive(Default)] struct Waves(u32);
/// fn next_wave(enemies: Populated<Entity, With<Enemy>>, mut waves: ResMut<Waves>) {
///     waves.0 += enemies.iter().count() as u32;
/// }
/// let mut world = World::new();
/// world.insert_resource(Waves::default());
/// let mut schedule = Schedule::new();
/// schedule.add_systems(next_wave);
/// schedule.run(&mut world); // no enemy: skipped
/// world.spawn(Enemy);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Waves>().0, 1);
/// ```
pub struct Populated<'w, D: QueryData, F: QueryFilter = ()>(Query<'w, D, F>);

impl<'w, D: QueryData, F: QueryFilter> Populated<'w, D, F> {
    /// The query.
    pub fn into_inner(self) -> Query<'w, D, F> {
        self.0
    }
}

/// `for item in &populated`, as for a [`Query`].
impl<'a, D: ReadOnlyQueryData, F: QueryFilter> IntoIterator for &'a Populated<'_, D, F> {
    type Item = D::Item<'a>;
    type IntoIter = crate::query::QueryIter<'a, 'a, D, F>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// `for item in &mut populated`, as for a [`Query`].
impl<'a, D: QueryData, F: QueryFilter> IntoIterator for &'a mut Populated<'_, D, F> {
    type Item = D::Item<'a>;
    type IntoIter = crate::query::QueryIter<'a, 'a, D, F>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter_mut()
    }
}

impl<'w, D: QueryData, F: QueryFilter> Deref for Populated<'w, D, F> {
    type Target = Query<'w, D, F>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl<D: QueryData, F: QueryFilter> DerefMut for Populated<'_, D, F> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

// SAFETY: exactly `Query<D, F>`'s access and items.
unsafe impl<D: QueryData + 'static, F: QueryFilter + 'static> SystemParam for Populated<'_, D, F> {
    const DEFERRED: bool = false;
    const SKIPS: bool = true;
    type State = QueryState<D, F>;
    type Item<'w> = Populated<'w, D, F>;

    fn access(meta: &mut SystemMeta) {
        <Query<'static, D, F> as SystemParam>::access(meta);
    }

    fn init_state(world: &mut World) -> QueryState<D, F> {
        QueryState::new(world)
    }

    unsafe fn check_run(state: &mut QueryState<D, F>, meta: &SystemMeta, world: &World) -> Result<(), EcsError> {
        let ctx = prepare(state, meta, world);
        // SAFETY: the caller holds the query's access (`check_run`'s contract).
        match unsafe { count_to_two(state, world, ctx) } {
            0 => Err(EcsError::NoEntities { query: crate::names::query_name::<D, F>() }),
            _ => Ok(()),
        }
    }

    unsafe fn get_param<'w>(
        state: &'w mut QueryState<D, F>,
        meta: &SystemMeta,
        world: &'w World,
    ) -> Populated<'w, D, F> {
        // SAFETY: forwarded.
        Populated(unsafe { <Query<'w, D, F> as SystemParam>::get_param(state, meta, world) })
    }
}

// SAFETY: as for `Query`.
unsafe impl<D: ReadOnlyQueryData + 'static, F: QueryFilter + 'static> ReadOnlySystemParam for Populated<'_, D, F> {}
