//! [`SystemParam`]: what a system function can take, and the parameters:
//! [`Query`], [`Res`], [`ResMut`], `Option<Res<T>>`, `Option<ResMut<T>>`,
//! [`Local`], [`Commands`] and `&World`, plus tuples of them.

use core::ops::{Deref, DerefMut};

use super::{SystemAccess, SystemMeta};
use crate::command::{CommandQueue, Commands};
use crate::entity::Entity;
use crate::error::EcsError;
use crate::panics::run_in_order;
use crate::query::{
    FetchContext, Miss, QueryCombinationIter, QueryData, QueryFilter, QueryIter, QueryState, ReadOnlyQueryData,
    SingleFetches,
};
use crate::storage::{ComponentTicks, Tick};
use crate::world::World;

/// A value a system function can take as a parameter.
///
/// # Safety
/// [`access`](Self::access) must record everything
/// [`get_param`](Self::get_param) lets the system read or write; the scheduler runs
/// systems side by side based on it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a system parameter",
    label = "this parameter cannot be given to a system",
    note = "system parameters are `Query<Q, F>`, `Res<T>`, `ResMut<T>`, `Option<Res<T>>`, `Option<ResMut<T>>`, \
            `Local<T>`, `Commands`, `&World`, tuples of them, or a `#[derive(SystemParam)]` struct; \
            a system taking `&mut World` must take nothing else"
)]
pub unsafe trait SystemParam: Sized {
    /// What the parameter keeps between runs (a query's cache, a `Local` value,
    /// a command queue).
    type State: Send + Sync + 'static;
    /// The parameter as the function receives it.
    type Item<'w>;

    /// Records the parameter's access in `meta`, which refuses a conflict with the
    /// system's earlier parameters. Needs no world: it runs when the system is made.
    /// Tracks its caller, so that a refusal points at the user's `add_systems`.
    #[track_caller]
    fn access(meta: &mut SystemMeta);

    /// Makes the state, once the system meets its world.
    fn init_state(world: &mut World) -> Self::State;

    /// The parameter for one run.
    ///
    /// # Safety
    /// The caller holds the access recorded by [`access`](Self::access) on `world`
    /// for `'w`, and `state` was made for `world`.
    unsafe fn get_param<'w>(state: &'w mut Self::State, meta: &SystemMeta, world: &'w World) -> Self::Item<'w>;

    /// Whether [`apply`](Self::apply) may have work to do. `false` promises that
    /// `apply` does nothing, so systems and observers skip the call (an observer
    /// runs once per trigger); the default `true` is always correct.
    const DEFERRED: bool = true;

    /// Applies deferred work (commands) at a sync point.
    ///
    /// An observer's parameters are applied as soon as it has run, which may
    /// be in the middle of the spawn, insert, remove or despawn that triggered
    /// it, while that operation's hooks and observers are still running: there
    /// `apply` should queue structural changes and new hooks, observers or
    /// removal logs as commands (as [`Commands`](crate::command::Commands) does
    /// while the world defers them) rather than make them on the spot, or the
    /// operation under way may not see them.
    fn apply(_state: &mut Self::State, _world: &mut World) {}

    /// Whether [`check_run`](Self::check_run) may skip the system. `false`
    /// (the default) promises it never does, so systems do not ask.
    const SKIPS: bool = false;

    /// Whether the system should run this time: an `Err` skips the run
    /// ([`Single`](super::Single) does not match exactly one entity, [`Populated`](super::Populated) matches
    /// none). Asked before every run when [`SKIPS`](Self::SKIPS) is `true`. A
    /// skipped system does not run and its last run stays the one before; a
    /// skipped run condition reads as `false`; `run_system_once` returns the
    /// error.
    ///
    /// # Safety
    /// As for [`get_param`](Self::get_param): the caller holds the recorded
    /// access on `world` for the call, and `state` was made for `world`.
    unsafe fn check_run(_state: &mut Self::State, _meta: &SystemMeta, _world: &World) -> Result<(), EcsError> {
        Ok(())
    }

    /// Whether [`get_param`](Self::get_param) can succeed on `world`: `Res<T>` and
    /// `ResMut<T>` need their resource. [`World::run_system_once`] checks it to
    /// report [`EcsError::MissingResource`] instead of panicking.
    fn validate(_state: &Self::State, _world: &World) -> Result<(), EcsError> {
        Ok(())
    }
}

/// A [`SystemParam`] that only reads: what a run condition may take.
///
/// # Safety
/// The parameter's recorded access is read-only, and its item writes nothing
/// another system could observe (a [`Local`] writes only its own state; a save
/// may read it, kept apart from the system by its cell).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a read-only system parameter",
    label = "a run condition may only read",
    note = "run conditions may take `Query` of read-only items (`&T`, `Option<&T>`, `Entity`), `Res<T>`, \
            `Option<Res<T>>`, `Local<T>` and `&World`; use `Res` instead of `ResMut`, `&T` instead of `&mut T`, \
            and move writes (and `Commands`) into a system"
)]
pub unsafe trait ReadOnlySystemParam: SystemParam {}

/// The type of a parameter `P` as a function receives it.
pub type SystemParamItem<'w, P> = <P as SystemParam>::Item<'w>;

/// A query as a system parameter: iterate with [`iter`](Self::iter) or
/// [`iter_mut`](Self::iter_mut). `Changed` and `Added` mean "since this system last
/// ran".
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(Component)] struct Position(f32);
/// #[derive(Component)] struct Velocity(f32);
/// #[derive(Component)] struct Anchored;
/// fn movement(mut q: Query<(&mut Position, &Velocity), Without<Anchored>>) {
///     for (p, v) in q.iter_mut() { p.0 += v.0; }
/// }
/// let mut world = World::new();
/// let ship = world.spawn((Position(0.0), Velocity(2.0)));
/// let buoy = world.spawn((Position(0.0), Velocity(2.0), Anchored));
/// Schedule::new().add_systems(movement).run(&mut world);
/// assert_eq!(world.get::<Position>(ship).map(|p| p.0), Some(2.0));
/// assert_eq!(world.get::<Position>(buoy).map(|p| p.0), Some(0.0));
/// ```
pub struct Query<'w, Q: QueryData, F: QueryFilter = ()> {
    world: &'w World,
    state: &'w QueryState<Q, F>,
    ctx: FetchContext,
    /// The only matched archetype's fetches, when exactly one archetype matched
    /// and an earlier run called `get`: [`get`](Self::get) then skips the
    /// state's tables (see [`QueryState::single_fetches`]).
    single: Option<SingleFetches<'w, Q, F>>,
}

/// `for item in &query`: [`Query::iter`], for read-only queries.
impl<'a, Q: ReadOnlyQueryData, F: QueryFilter> IntoIterator for &'a Query<'_, Q, F> {
    type Item = Q::Item<'a>;
    type IntoIter = QueryIter<'a, 'a, Q, F>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// `for item in &mut query`: [`Query::iter_mut`], for any query.
impl<'a, Q: QueryData, F: QueryFilter> IntoIterator for &'a mut Query<'_, Q, F> {
    type Item = Q::Item<'a>;
    type IntoIter = QueryIter<'a, 'a, Q, F>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl<'w, Q: QueryData, F: QueryFilter> Query<'w, Q, F> {
    /// The world, the state and the tick window, for the crate's own walks
    /// (hierarchy propagation), which keep `Query`'s access rules.
    pub(crate) fn parts(&self) -> (&'w World, &'w QueryState<Q, F>, FetchContext) {
        (self.world, self.state, self.ctx)
    }

    /// Iterates the matching entities (read-only queries).
    pub fn iter(&self) -> QueryIter<'_, '_, Q, F>
    where
        Q: ReadOnlyQueryData,
    {
        // SAFETY: read-only, within the system's recorded access.
        unsafe { self.state.iter_unchecked(self.world, self.ctx) }
    }

    /// Iterates the matching entities with the query's mutable access.
    pub fn iter_mut(&mut self) -> QueryIter<'_, '_, Q, F> {
        // SAFETY: `&mut self` keeps this query's items unique; the scheduler keeps
        // other systems off what it writes.
        unsafe { self.state.iter_unchecked(self.world, self.ctx) }
    }

    /// Each combination of `K` distinct matching entities once (read-only
    /// queries): `n` entities give `n·(n−1)/2` pairs. See [`QueryCombinationIter`].
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Position(f32);
    /// #[derive(Default)] struct Collisions(u32);
    /// fn collide(q: Query<&Position>, mut hits: ResMut<Collisions>) {
    ///     for [a, b] in q.iter_combinations() {
    ///         if (a.0 - b.0).abs() < 1.0 { hits.0 += 1; }
    ///     }
    /// }
    /// let mut world = World::new();
    /// world.insert_resource(Collisions::default());
    /// world.spawn_batch([0.0, 0.5, 9.0].map(Position)).for_each(drop);
    /// world.run_system_once(collide)?;
    /// assert_eq!(world.resource::<Collisions>().0, 1);
    /// # Ok::<(), EcsError>(())
    /// ```
    pub fn iter_combinations<const K: usize>(&self) -> QueryCombinationIter<'_, Q, K>
    where
        Q: ReadOnlyQueryData,
    {
        // SAFETY: read-only, within the system's recorded access.
        unsafe { self.state.combinations_unchecked(self.world, self.ctx) }
    }

    /// Each combination of `K` distinct matching entities once, with the query's
    /// mutable access, through a lending iterator: step it with
    /// [`fetch_next`](QueryCombinationIter::fetch_next).
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Mass(f32);
    /// #[derive(Component, Default)] struct Force(f32);
    /// fn gravity(mut bodies: Query<(&Mass, &mut Force)>) {
    ///     let mut pairs = bodies.iter_combinations_mut();
    ///     while let Some([(ma, fa), (mb, fb)]) = pairs.fetch_next() {
    ///         let f = ma.0 * mb.0;
    ///         fa.0 += f;
    ///         fb.0 += f;
    ///     }
    /// }
    /// let mut world = World::new();
    /// world.spawn_batch([1.0, 2.0, 3.0].map(|m| (Mass(m), Force::default()))).for_each(drop);
    /// world.run_system_once(gravity)?;
    /// let forces: Vec<f32> = world.query::<&Force>().iter().map(|f| f.0).collect();
    /// assert_eq!(forces, [5.0, 8.0, 9.0]);
    /// # Ok::<(), EcsError>(())
    /// ```
    pub fn iter_combinations_mut<const K: usize>(&mut self) -> QueryCombinationIter<'_, Q, K> {
        // SAFETY: `&mut self` keeps this query's items unique; the scheduler keeps
        // other systems off what it writes.
        unsafe { self.state.combinations_unchecked(self.world, self.ctx) }
    }

    /// Calls `f` for every matching entity (read-only queries), in parallel on
    /// the worker pool (see [`QueryState::par_for_each`]); bevy's
    /// `par_iter().for_each`. Through `&self`, so other read-only queries of the
    /// system can be used inside `f`, for example to walk up a hierarchy from
    /// each changed entity.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// use std::sync::atomic::{AtomicU32, Ordering};
    /// #[derive(Component)] struct Hp(u32);
    /// #[derive(Default)] struct Total(AtomicU32);
    /// fn total(hp: Query<&Hp>, sum: Res<Total>) {
    ///     hp.par_for_each(|hp| { sum.0.fetch_add(hp.0, Ordering::Relaxed); });
    /// }
    /// let mut world = World::new();
    /// world.insert_resource(Total::default());
    /// world.spawn_batch((1..=100).map(Hp)).for_each(drop);
    /// world.run_system_once(total)?;
    /// assert_eq!(world.resource::<Total>().0.load(Ordering::Relaxed), 5050);
    /// # Ok::<(), EcsError>(())
    /// ```
    pub fn par_for_each(&self, f: impl Fn(Q::Item<'_>) + Send + Sync)
    where
        Q: ReadOnlyQueryData,
        Q::State: Sync,
    {
        // SAFETY: as in `iter`: the items are read-only, so they may be alive on
        // several threads at once and beside other shared items of this query.
        unsafe { self.state.par_for_each_unchecked(self.world, self.ctx, &f) }
    }

    /// Calls `f` for every matching entity, in parallel on the worker pool (see
    /// [`QueryState::par_for_each`]).
    pub fn par_for_each_mut(&mut self, f: impl Fn(Q::Item<'_>) + Send + Sync)
    where
        Q::State: Sync,
    {
        // SAFETY: as in `iter_mut`; tasks cover disjoint rows.
        unsafe { self.state.par_for_each_unchecked(self.world, self.ctx, &f) }
    }

    /// The item of one entity (read-only queries).
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] or [`EcsError::QueryMismatch`].
    #[inline]
    pub fn get(&self, entity: Entity) -> Result<Q::Item<'_>, EcsError>
    where
        Q: ReadOnlyQueryData,
    {
        // SAFETY: as in `iter`.
        unsafe { self.find(entity) }.map(Q::shrink).map_err(|miss| miss.error::<Q, F>(entity))
    }

    /// `true` when `entity` is alive and matches the query (bevy_ecs's
    /// `contains`). No item is made, so this works through `&self` on a query
    /// that writes, and marks nothing changed.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Health(u32);
    /// #[derive(Component)] struct Undead;
    /// fn heal(mut living: Query<&mut Health, Without<Undead>>, targets: Query<Entity, With<Health>>) {
    ///     for target in &targets {
    ///         if living.contains(target) {
    ///             living.get_mut(target).unwrap().0 += 1;
    ///         }
    ///     }
    /// }
    /// let mut world = World::new();
    /// let knight = world.spawn(Health(1));
    /// let ghoul = world.spawn((Health(1), Undead));
    /// world.run_system_once(heal)?;
    /// assert_eq!((world.get::<Health>(knight).unwrap().0, world.get::<Health>(ghoul).unwrap().0), (2, 1));
    /// # Ok::<(), EcsError>(())
    /// ```
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        // SAFETY: the query's access covers the ticks its row filters read;
        // nothing is fetched.
        unsafe { self.state.yields(self.world, entity, self.ctx) }
    }

    /// `get` and `get_mut`, with the reason for a miss not yet an error.
    ///
    /// # Safety
    /// The caller has the access `get` (shared) or `get_mut` (`&mut self`) has.
    #[inline]
    unsafe fn find(&self, entity: Entity) -> Result<Q::Item<'w>, Miss> {
        // SAFETY: the access is the caller's; the single fetches were made from
        // this world for `'w` (`get_param`).
        unsafe {
            match &self.single {
                Some(single) => single.find(self.world, entity),
                None => {
                    self.state.note_get();
                    self.state.find_with(self.world, entity, self.ctx)
                }
            }
        }
    }

    /// [`get`](Self::get) without an error for a miss: for walks that end on
    /// one every time (a root's parent), where naming the query would cost more
    /// than the lookup.
    #[inline]
    pub(crate) fn get_or_none(&self, entity: Entity) -> Option<Q::Item<'_>>
    where
        Q: ReadOnlyQueryData,
    {
        // SAFETY: as in `iter`.
        unsafe { self.find(entity) }.ok().map(Q::shrink)
    }

    /// [`get_mut`](Self::get_mut) without an error for a miss, lent through a
    /// shared borrow (for `iter_many_mut`, whose loop returns the item it
    /// finds).
    ///
    /// # Safety
    /// The caller holds the query mutably for as long as the item lives.
    #[inline]
    pub(crate) unsafe fn get_mut_lent(&self, entity: Entity) -> Option<Q::Item<'_>> {
        // SAFETY: the caller's `&mut` to the query is what `get_mut` has.
        unsafe { self.find(entity) }.ok().map(Q::shrink)
    }

    /// The item of one entity, with the query's mutable access.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] or [`EcsError::QueryMismatch`].
    #[inline]
    pub fn get_mut(&mut self, entity: Entity) -> Result<Q::Item<'_>, EcsError> {
        // SAFETY: as in `iter_mut`.
        unsafe { self.find(entity) }.map(Q::shrink).map_err(|miss| miss.error::<Q, F>(entity))
    }

    /// The item of the only matching entity (read-only queries): the player, the
    /// camera.
    ///
    /// # Errors
    /// [`EcsError::NoEntities`] when none matches, [`EcsError::MultipleEntities`]
    /// when more than one does.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Player;
    /// #[derive(Component)] struct Position(f32);
    /// fn follow_player(players: Query<&Position, With<Player>>, mut camera: ResMut<Camera>) {
    ///     if let Ok(p) = players.single() {
    ///         camera.0 = p.0;
    ///     }
    /// }
    /// struct Camera(f32);
    /// let mut world = World::new();
    /// world.insert_resource(Camera(0.0));
    /// world.spawn((Player, Position(4.0)));
    /// world.spawn(Position(9.0));
    /// Schedule::new().add_systems(follow_player).run(&mut world);
    /// assert_eq!(world.get_resource::<Camera>().map(|c| c.0), Some(4.0));
    /// ```
    pub fn single(&self) -> Result<Q::Item<'_>, EcsError>
    where
        Q: ReadOnlyQueryData,
    {
        // SAFETY: as in `iter`.
        unsafe { self.state.single_unchecked(self.world, self.ctx) }
    }

    /// [`single`](Self::single) with the query's mutable access.
    ///
    /// # Errors
    /// As for [`single`](Self::single).
    pub fn single_mut(&mut self) -> Result<Q::Item<'_>, EcsError> {
        // SAFETY: as in `iter_mut`; one item is handed out.
        unsafe { self.state.single_unchecked(self.world, self.ctx) }
    }

    /// `true` when no entity matches; stops at the first match.
    pub fn is_empty(&self) -> bool {
        // SAFETY: reads only ticks (`QueryData`'s contract), within the system's
        // recorded access.
        unsafe { self.state.is_empty_unchecked(self.world, self.ctx) }
    }

    /// The number of matching entities. Without per-row filters (sparse components
    /// or tags, `Changed`, `Added`) no row is visited: it adds up archetype lengths.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Enemy;
    /// #[derive(Default)] struct Wave(u32);
    /// fn next_wave(enemies: Query<Entity, With<Enemy>>, mut wave: ResMut<Wave>) {
    ///     if enemies.is_empty() { wave.0 += 1; }
    ///     assert_eq!(enemies.count() == 0, enemies.is_empty());
    /// }
    /// let mut world = World::new();
    /// world.insert_resource(Wave::default());
    /// Schedule::new().add_systems(next_wave).run(&mut world);
    /// assert_eq!(world.get_resource::<Wave>().map(|w| w.0), Some(1));
    /// ```
    pub fn count(&self) -> usize {
        // SAFETY: as in `is_empty`.
        unsafe { self.state.count_unchecked(self.world, self.ctx) }
    }

    /// The items of several entities at once (read-only queries; an entity may be
    /// named twice).
    ///
    /// # Errors
    /// The first entity's error, as for [`get`](Self::get).
    pub fn get_many<const N: usize>(&self, entities: [Entity; N]) -> Result<[Q::Item<'_>; N], EcsError>
    where
        Q: ReadOnlyQueryData,
    {
        // SAFETY: as in `iter`.
        unsafe { self.state.get_many_unchecked(self.world, entities, self.ctx, false) }
    }

    /// The items of several distinct entities at once, with the query's mutable
    /// access: two ships trading cargo. Nothing is handed out (or marked changed)
    /// unless every entity matches.
    ///
    /// # Errors
    /// [`EcsError::AliasedMutability`] when an entity is named twice; otherwise the
    /// first entity's error, as for [`get`](Self::get).
    pub fn get_many_mut<const N: usize>(&mut self, entities: [Entity; N]) -> Result<[Q::Item<'_>; N], EcsError> {
        // SAFETY: as in `iter_mut`; the entities are checked distinct, so each
        // row's item is handed out once.
        unsafe { self.state.get_many_unchecked(self.world, entities, self.ctx, true) }
    }
}

// SAFETY: records the query's component access with its disjointness proof; items
// come from the query state only.
unsafe impl<Q: QueryData + 'static, F: QueryFilter + 'static> SystemParam for Query<'_, Q, F> {
    const DEFERRED: bool = false;
    type State = QueryState<Q, F>;
    type Item<'w> = Query<'w, Q, F>;

    fn access(meta: &mut SystemMeta) {
        let (access, clauses) = QueryState::<Q, F>::describe();
        meta.add_param_named_by(crate::names::query_name::<Q, F>, SystemAccess::query_clauses(access, clauses));
    }

    fn init_state(world: &mut World) -> QueryState<Q, F> {
        QueryState::new(world)
    }

    #[inline(always)]
    unsafe fn get_param<'w>(state: &'w mut QueryState<Q, F>, meta: &SystemMeta, world: &'w World) -> Query<'w, Q, F> {
        state.update_archetypes(world);
        state.set_last_run(meta.this_run);
        let ctx = FetchContext::new(meta.last_run, meta.this_run);
        // SAFETY: the system holds the query's access for `'w` (the caller's
        // contract), during which no archetype can change.
        let single = unsafe { state.single_fetches(world, ctx) };
        Query { world, state, ctx, single }
    }
}

// SAFETY: a read-only query records reads only and hands out shared items.
unsafe impl<Q: ReadOnlyQueryData + 'static, F: QueryFilter + 'static> ReadOnlySystemParam for Query<'_, Q, F> {}

/// A shared borrow of a resource. A system with a `Res<T>` whose resource is
/// missing panics, naming the system and `T`; take `Option<Res<T>>` to allow that.
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(Component)] struct Position(f32);
/// struct Gravity(f32);
/// fn fall(mut q: Query<&mut Position>, gravity: Res<Gravity>) {
///     for p in q.iter_mut() { p.0 -= gravity.0; }
/// }
/// let mut world = World::new();
/// world.insert_resource(Gravity(9.8));
/// let body = world.spawn(Position(100.0));
/// Schedule::new().add_systems(fall).run(&mut world);
/// assert_eq!(world.get::<Position>(body).map(|p| p.0), Some(90.2));
/// ```
pub struct Res<'w, T: Send + Sync + 'static> {
    value: &'w T,
    ticks: ComponentTicks,
    last_run: Tick,
    this_run: Tick,
}

impl<T: Send + Sync + 'static> Res<'_, T> {
    /// `true` when the resource was inserted since the system last ran.
    pub fn is_added(&self) -> bool {
        self.ticks.added.is_newer_than(self.last_run, self.this_run)
    }

    /// `true` when the resource was inserted or written (through [`ResMut`] or
    /// `World::resource_mut`) since the system last ran.
    pub fn is_changed(&self) -> bool {
        self.ticks.changed.is_newer_than(self.last_run, self.this_run)
    }
}

impl<T: Send + Sync + 'static> Deref for Res<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.value
    }
}

/// A mutable borrow of a resource. Missing resources panic as for [`Res`]. Writing
/// through it (any `&mut` use) marks the resource changed.
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(Default)] struct Score(u32);
/// fn score(mut score: ResMut<Score>) { score.0 += 10; }
/// let mut world = World::new();
/// world.insert_resource(Score::default());
/// Schedule::new().add_systems(score).run(&mut world);
/// assert_eq!(world.resource::<Score>().0, 10);
/// ```
pub struct ResMut<'w, T: Send + Sync + 'static> {
    value: &'w mut T,
    ticks: &'w mut ComponentTicks,
    last_run: Tick,
    this_run: Tick,
}

impl<T: Send + Sync + 'static> ResMut<'_, T> {
    /// `true` when the resource was inserted since the system last ran.
    pub fn is_added(&self) -> bool {
        self.ticks.added.is_newer_than(self.last_run, self.this_run)
    }

    /// `true` when the resource was inserted or written since the system last ran
    /// (by this system too: a write through this borrow counts).
    pub fn is_changed(&self) -> bool {
        self.ticks.changed.is_newer_than(self.last_run, self.this_run)
    }
}

impl<T: Send + Sync + 'static> Deref for ResMut<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T: Send + Sync + 'static> DerefMut for ResMut<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.ticks.changed = self.this_run;
        self.value
    }
}

#[track_caller]
fn missing_resource<T>(meta: &SystemMeta) -> ! {
    panic!(
        "system `{}` (added at {}) needs the resource `{}`, which is not in the world; \
         add it with `world.insert_resource(…)` (or `world.init_resource::<…>()`) before running, \
         or take `Option<Res<…>>`",
        meta.name(),
        meta.location(),
        crate::names::type_name::<T>()
    )
}

fn res<'w, T: Send + Sync + 'static>((value, ticks): (&'w T, ComponentTicks), meta: &SystemMeta) -> Res<'w, T> {
    Res { value, ticks, last_run: meta.last_run, this_run: meta.this_run }
}

fn res_mut<'w, T: Send + Sync + 'static>(
    (value, ticks): (&'w mut T, &'w mut ComponentTicks),
    meta: &SystemMeta,
) -> ResMut<'w, T> {
    ResMut { value, ticks, last_run: meta.last_run, this_run: meta.this_run }
}

// SAFETY: records a read of `T`; hands out a shared borrow of it.
unsafe impl<T: Send + Sync + 'static> SystemParam for Res<'_, T> {
    const DEFERRED: bool = false;
    type State = ();
    type Item<'w> = Res<'w, T>;

    fn access(meta: &mut SystemMeta) {
        meta.add_param_named_by(crate::names::type_name::<Res<'static, T>>, SystemAccess::read_resource::<T>());
    }
    fn init_state(_: &mut World) {}
    unsafe fn get_param<'w>(_: &'w mut (), meta: &SystemMeta, world: &'w World) -> Res<'w, T> {
        let found = world.resource_with_ticks::<T>().unwrap_or_else(|| missing_resource::<T>(meta));
        res(found, meta)
    }
    fn validate(_: &(), world: &World) -> Result<(), EcsError> {
        present::<T>(world)
    }
}

// SAFETY: records a read; hands out a shared borrow.
unsafe impl<T: Send + Sync + 'static> ReadOnlySystemParam for Res<'_, T> {}
// SAFETY: as for `Res`.
unsafe impl<T: Send + Sync + 'static> ReadOnlySystemParam for Option<Res<'_, T>> {}

/// `Ok` when the resource `T` is stored.
fn present<T: Send + Sync + 'static>(world: &World) -> Result<(), EcsError> {
    match world.contains_resource::<T>() {
        true => Ok(()),
        false => Err(EcsError::MissingResource(core::any::type_name::<T>())),
    }
}

// SAFETY: as for `Res`, optional.
unsafe impl<T: Send + Sync + 'static> SystemParam for Option<Res<'_, T>> {
    const DEFERRED: bool = false;
    type State = ();
    type Item<'w> = Option<Res<'w, T>>;

    fn access(meta: &mut SystemMeta) {
        meta.add_param_named_by(crate::names::type_name::<Option<Res<'static, T>>>, SystemAccess::read_resource::<T>());
    }
    fn init_state(_: &mut World) {}
    unsafe fn get_param<'w>(_: &'w mut (), meta: &SystemMeta, world: &'w World) -> Option<Res<'w, T>> {
        world.resource_with_ticks::<T>().map(|found| res(found, meta))
    }
}

// SAFETY: records a write of `T`; hands out the only borrow of it and its ticks
// (the scheduler keeps every other user of `T` apart).
unsafe impl<T: Send + Sync + 'static> SystemParam for ResMut<'_, T> {
    const DEFERRED: bool = false;
    type State = ();
    type Item<'w> = ResMut<'w, T>;

    fn access(meta: &mut SystemMeta) {
        meta.add_param_named_by(crate::names::type_name::<ResMut<'static, T>>, SystemAccess::write_resource::<T>());
    }
    fn init_state(_: &mut World) {}
    unsafe fn get_param<'w>(_: &'w mut (), meta: &SystemMeta, world: &'w World) -> ResMut<'w, T> {
        // SAFETY: the caller holds write access to `T` (recorded above).
        let found = unsafe { world.resource_unchecked_mut::<T>() };
        res_mut(found.unwrap_or_else(|| missing_resource::<T>(meta)), meta)
    }
    fn validate(_: &(), world: &World) -> Result<(), EcsError> {
        present::<T>(world)
    }
}

// SAFETY: as for `ResMut`, optional.
unsafe impl<T: Send + Sync + 'static> SystemParam for Option<ResMut<'_, T>> {
    const DEFERRED: bool = false;
    type State = ();
    type Item<'w> = Option<ResMut<'w, T>>;

    fn access(meta: &mut SystemMeta) {
        meta.add_param_named_by(
            crate::names::type_name::<Option<ResMut<'static, T>>>,
            SystemAccess::write_resource::<T>(),
        );
    }
    fn init_state(_: &mut World) {}
    unsafe fn get_param<'w>(_: &'w mut (), meta: &SystemMeta, world: &'w World) -> Option<ResMut<'w, T>> {
        // SAFETY: the caller holds write access to `T` (recorded above).
        unsafe { world.resource_unchecked_mut::<T>() }.map(|found| res_mut(found, meta))
    }
}

/// A value private to one system, kept between its runs (starts as `T::default()`).
/// Two systems made from one function each have their own.
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(Default)] struct Log(Vec<u32>);
/// fn every_other_frame(mut frame: Local<u32>, mut log: ResMut<Log>) {
///     *frame += 1;
///     if *frame % 2 == 0 { log.0.push(*frame); }
/// }
/// let mut world = World::new();
/// world.insert_resource(Log::default());
/// let mut schedule = Schedule::new();
/// schedule.add_systems(every_other_frame);
/// for _ in 0..5 { schedule.run(&mut world); }
/// assert_eq!(world.resource::<Log>().0, [2, 4]);
/// ```
pub struct Local<'w, T: Default + Send + Sync + 'static> {
    value: &'w mut T,
    /// The cell's state, set back to free when the run ends.
    cell: &'w crate::world::locals::LocalCell<T>,
}

impl<T: Default + Send + Sync + 'static> Drop for Local<'_, T> {
    fn drop(&mut self) {
        self.cell.release();
    }
}

impl<T: Default + Send + Sync + 'static> Deref for Local<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T: Default + Send + Sync + 'static> DerefMut for Local<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.value
    }
}

/// A [`Local`]'s state: its cell, shared with the world so that a save can
/// reach the value (the `serialize` module, feature `serde`). Not `Clone`: one
/// system owns it.
pub struct LocalState<T>(std::sync::Arc<crate::world::locals::LocalCell<T>>);

impl<T: Default + Send + Sync + 'static> LocalState<T> {
    /// The state of a parameter's own machinery kept like a `Local` (a
    /// message reader's cursor): saved when its type is registered for saving,
    /// left out quietly otherwise.
    pub(crate) fn internal(world: &mut World) -> Self {
        LocalState(world.locals.create(T::default(), true))
    }
}

// SAFETY: touches only its own state (its cell, which no other system holds;
// saves read it only while the system does not hold it).
unsafe impl<T: Default + Send + Sync + 'static> SystemParam for Local<'_, T> {
    const DEFERRED: bool = false;
    type State = LocalState<T>;
    type Item<'w> = Local<'w, T>;

    fn access(meta: &mut SystemMeta) {
        meta.add_param_named_by(crate::names::type_name::<Local<'static, T>>, SystemAccess::default());
    }
    fn init_state(world: &mut World) -> LocalState<T> {
        LocalState(world.locals.create(T::default(), false))
    }
    unsafe fn get_param<'w>(state: &'w mut LocalState<T>, _: &SystemMeta, _: &'w World) -> Local<'w, T> {
        let cell = &*state.0;
        // SAFETY: the state is this system's (not `Clone`, made by its
        // `init_state`), and `&mut` to it means no earlier run's `Local`, which
        // borrowed it, is alive.
        Local { value: unsafe { cell.hold() }, cell }
    }
}

// SAFETY: writes only its own state, which no other system sees (a save reads
// it only while the system does not hold it).
unsafe impl<T: Default + Send + Sync + 'static> ReadOnlySystemParam for Local<'_, T> {}

// SAFETY: records nothing; commands only reserve entity handles (atomically) and
// write to the system's own queue; they run at a sync point with `&mut World`.
unsafe impl SystemParam for Commands<'_> {
    type State = CommandQueue;
    type Item<'w> = Commands<'w>;

    fn access(meta: &mut SystemMeta) {
        meta.add_param("Commands", SystemAccess::default());
    }
    fn init_state(_: &mut World) -> CommandQueue {
        CommandQueue::default()
    }
    unsafe fn get_param<'w>(state: &'w mut CommandQueue, _: &SystemMeta, world: &'w World) -> Commands<'w> {
        Commands::new(state, world)
    }
    fn apply(state: &mut CommandQueue, world: &mut World) {
        state.apply(world);
    }
}

// SAFETY: records a read of everything.
unsafe impl SystemParam for &World {
    const DEFERRED: bool = false;
    type State = ();
    type Item<'w> = &'w World;

    fn access(meta: &mut SystemMeta) {
        meta.add_param("&World", SystemAccess::read_world());
    }
    fn init_state(_: &mut World) {}
    unsafe fn get_param<'w>(_: &'w mut (), _: &SystemMeta, world: &'w World) -> &'w World {
        world
    }
}

// SAFETY: records a read of everything; hands out a shared world.
unsafe impl ReadOnlySystemParam for &World {}

macro_rules! tuple_param {
    ($($name:ident $index:tt),*) => {
        // SAFETY: every element records and hands out its own access.
        #[allow(unused_variables, clippy::unused_unit, reason = "the empty tuple takes nothing")]
        unsafe impl<$($name: SystemParam),*> SystemParam for ($($name,)*) {
            type State = ($($name::State,)*);
            type Item<'w> = ($($name::Item<'w>,)*);
            const DEFERRED: bool = false $(|| $name::DEFERRED)*;

            fn access(meta: &mut SystemMeta) {
                $($name::access(meta);)*
            }
            fn init_state(world: &mut World) -> Self::State {
                ($($name::init_state(world),)*)
            }
            #[inline(always)]
            unsafe fn get_param<'w>(state: &'w mut Self::State, meta: &SystemMeta, world: &'w World) -> Self::Item<'w> {
                // SAFETY: forwarded; each element gets its own part of the state.
                ($(unsafe { $name::get_param(&mut state.$index, meta, world) },)*)
            }
            fn apply(state: &mut Self::State, world: &mut World) {
                if !Self::DEFERRED {
                    return;
                }
                // Every element applies its deferred work even if one panics.
                run_in_order(0 $(+ { let _ = $index; 1 })*, |i| match i {
                    $($index => $name::apply(&mut state.$index, world),)*
                    _ => unreachable!("one step per element"),
                });
            }
            fn validate(state: &Self::State, world: &World) -> Result<(), EcsError> {
                $($name::validate(&state.$index, world)?;)*
                Ok(())
            }
            const SKIPS: bool = false $(|| $name::SKIPS)*;
            #[allow(unused_variables, reason = "the empty tuple checks nothing")]
            unsafe fn check_run(state: &mut Self::State, meta: &SystemMeta, world: &World) -> Result<(), EcsError> {
                $(if $name::SKIPS {
                    // SAFETY: forwarded.
                    unsafe { $name::check_run(&mut state.$index, meta, world) }?;
                })*
                Ok(())
            }
        }

        // SAFETY: every element is read-only.
        unsafe impl<$($name: ReadOnlySystemParam),*> ReadOnlySystemParam for ($($name,)*) {}
    };
}

tuple_param!();
tuple_param!(P0 0);
tuple_param!(P0 0, P1 1);
tuple_param!(P0 0, P1 1, P2 2);
tuple_param!(P0 0, P1 1, P2 2, P3 3);
tuple_param!(P0 0, P1 1, P2 2, P3 3, P4 4);
tuple_param!(P0 0, P1 1, P2 2, P3 3, P4 4, P5 5);
tuple_param!(P0 0, P1 1, P2 2, P3 3, P4 4, P5 5, P6 6);
tuple_param!(P0 0, P1 1, P2 2, P3 3, P4 4, P5 5, P6 6, P7 7);
tuple_param!(P0 0, P1 1, P2 2, P3 3, P4 4, P5 5, P6 6, P7 7, P8 8);
tuple_param!(P0 0, P1 1, P2 2, P3 3, P4 4, P5 5, P6 6, P7 7, P8 8, P9 9);
tuple_param!(P0 0, P1 1, P2 2, P3 3, P4 4, P5 5, P6 6, P7 7, P8 8, P9 9, P10 10);
tuple_param!(P0 0, P1 1, P2 2, P3 3, P4 4, P5 5, P6 6, P7 7, P8 8, P9 9, P10 10, P11 11);
tuple_param!(P0 0, P1 1, P2 2, P3 3, P4 4, P5 5, P6 6, P7 7, P8 8, P9 9, P10 10, P11 11, P12 12);
tuple_param!(P0 0, P1 1, P2 2, P3 3, P4 4, P5 5, P6 6, P7 7, P8 8, P9 9, P10 10, P11 11, P12 12, P13 13);
tuple_param!(P0 0, P1 1, P2 2, P3 3, P4 4, P5 5, P6 6, P7 7, P8 8, P9 9, P10 10, P11 11, P12 12, P13 13, P14 14);
tuple_param!(
    P0 0, P1 1, P2 2, P3 3, P4 4, P5 5, P6 6, P7 7, P8 8, P9 9, P10 10, P11 11, P12 12, P13 13, P14 14, P15 15
);
