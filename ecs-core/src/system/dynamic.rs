//! [`DynamicSystem`]: a system over a [`DynamicQuery`], whose access is the
//! query's, fixed when the query is built, so the schedule checks it against
//! every other system exactly as it checks typed queries and runs the two side
//! by side when they do not conflict. Typed system parameters may sit beside
//! the query in the same function ([`DynamicSystem::with_params`]); a conflict
//! between them is refused when the system is made, with the message a typed
//! query gets.

use core::any::TypeId;
use core::marker::PhantomData;

use super::function::{FunctionSystem, SystemParamFunction};
use super::param::{SystemParam, SystemParamItem};
use super::{IntoSystem, System, SystemAccess, SystemMeta};
use crate::query::{DynamicArchetype, DynamicQuery, DynamicRow, DynamicRowMut};
use crate::storage::Tick;
use crate::world::World;

/// What a [`DynamicSystem`]'s function gets on each run: its query, to visit
/// row by row or an archetype at a time (column and field slices, written ones
/// writable).
pub struct DynamicSystemQuery<'w, 's> {
    world: &'w World,
    query: &'s DynamicQuery,
    /// The system's last run: `added` and `changed` terms see what is newer.
    last_run: Tick,
    /// This run's tick, which writes are stamped with.
    tick: Tick,
}

impl<'w> DynamicSystemQuery<'w, '_> {
    /// Calls `f` with every row the query matches, read-only (see
    /// [`DynamicQuery::for_each`]). `&mut self`: a visit's views end with it,
    /// before the next can write.
    pub fn for_each(&mut self, f: impl FnMut(DynamicRow<'_, '_>)) {
        // SAFETY: the system's access is the query's, which the schedule (or
        // `run_system`'s `&mut World`) keeps every other access clear of for
        // the run this value lives in.
        unsafe { self.query.for_each_shared(self.world, (self.last_run, self.tick), f) }
    }

    /// Calls `f` with every row the query matches, its written components
    /// writable (see [`DynamicRowMut::get_mut`]), each write stamped changed.
    pub fn for_each_mut(&mut self, f: impl FnMut(DynamicRowMut<'_, '_>)) {
        // SAFETY: as in `for_each`; `&mut self` keeps any other visit of this
        // query (whose views could alias these) from running meanwhile.
        unsafe { self.query.for_each_mut_shared(self.world, (self.last_run, self.tick), f) }
    }

    /// Calls `f` with each matching archetype (see
    /// [`DynamicQuery::for_each_archetype_mut`]); written components are
    /// writable when the query writes them. `&mut self`: `f` cannot start
    /// another visit, whose views would alias this one's.
    pub fn for_each_archetype(&mut self, f: impl FnMut(DynamicArchetype<'w, '_>)) {
        // SAFETY: as in `for_each`.
        unsafe { self.query.for_each_archetype_shared(self.world, self.tick, f) }
    }

    /// [`for_each_archetype`](Self::for_each_archetype) with the archetypes
    /// shared out among the worker threads.
    pub fn par_for_each_archetype(&mut self, f: impl Fn(DynamicArchetype<'_, '_>) + Sync) {
        // SAFETY: as in `for_each_archetype`; each archetype is visited once,
        // on one thread.
        unsafe { self.query.par_for_each_archetype_shared(self.world, self.tick, &f) }
    }

    /// The world's components, to read names and schemas (nothing writes them
    /// while systems run).
    pub fn components(&self) -> &'w crate::component::Components {
        self.world.components()
    }
}

/// A function a [`DynamicSystem`] runs: the query first, then any system
/// parameters (`Res`, typed `Query`s, `Commands`, …), as a function system
/// takes them. Implemented for functions and closures of up to eight
/// parameters after the query; closures name their parameters' types:
/// `|q: &mut DynamicSystemQuery, score: Res<Score>| …`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a dynamic system's function",
    label = "not a dynamic system's function",
    note = "a dynamic system's function takes `&mut DynamicSystemQuery` first, then up to eight system parameters \
            (`Query`, `Res`, `ResMut`, `Local`, `Commands`, …), each with its type written out"
)]
pub trait DynamicSystemFunction<Marker>: Send + Sync + 'static {
    /// The parameters after the query, as a tuple.
    type Param: SystemParam;
    /// Calls the function.
    fn run(&mut self, query: &mut DynamicSystemQuery<'_, '_>, params: SystemParamItem<'_, Self::Param>);
}

macro_rules! impl_dynamic_system_function {
    ($($param:ident),*) => {
        #[allow(non_snake_case, reason = "parameters are named after their types")]
        impl<Func, $($param: SystemParam),*> DynamicSystemFunction<fn($($param,)*)> for Func
        where
            Func: Send + Sync + 'static,
            for<'a> &'a mut Func: FnMut(&mut DynamicSystemQuery<'_, '_>, $($param),*)
                + FnMut(&mut DynamicSystemQuery<'_, '_>, $(SystemParamItem<'_, $param>),*),
        {
            type Param = ($($param,)*);

            #[inline]
            fn run(&mut self, query: &mut DynamicSystemQuery<'_, '_>, params: SystemParamItem<'_, ($($param,)*)>) {
                // Called through a helper naming the item types, so that the
                // compiler picks the `FnMut(items)` bound above.
                #[allow(clippy::too_many_arguments)]
                fn call<$($param,)*>(
                    mut f: impl FnMut(&mut DynamicSystemQuery<'_, '_>, $($param,)*),
                    query: &mut DynamicSystemQuery<'_, '_>,
                    $($param: $param,)*
                ) {
                    f(query, $($param,)*)
                }
                let ($($param,)*) = params;
                call(self, query, $($param),*)
            }
        }
    };
}

impl_dynamic_system_function!();
impl_dynamic_system_function!(P0);
impl_dynamic_system_function!(P0, P1);
impl_dynamic_system_function!(P0, P1, P2);
impl_dynamic_system_function!(P0, P1, P2, P3);
impl_dynamic_system_function!(P0, P1, P2, P3, P4);
impl_dynamic_system_function!(P0, P1, P2, P3, P4, P5);
impl_dynamic_system_function!(P0, P1, P2, P3, P4, P5, P6);
impl_dynamic_system_function!(P0, P1, P2, P3, P4, P5, P6, P7);

/// The world and the system's last and this run's ticks, for a system that
/// reaches the world through something that checks its access itself. Records
/// no access of its own and is not public: the two systems that take it,
/// [`DynamicSystem`] (its query) and [`DeclaredSystem`](super::DeclaredSystem)
/// (its declaration), record their access in the system's meta before their
/// other parameters'.
pub(super) struct Visit;

// SAFETY: `get_param` hands out the world only to `RunQuery::run`, which
// touches it through the query's visits alone (its components: recorded in the
// system's meta by `DynamicSystem::with_params` before this parameter's empty
// access) and `components()` (written by nothing while systems run), and to
// `RunDeclared::run`, which touches it only through a `DeclaredWorld` (every
// access checked against the declaration `DeclaredSystem::new` recorded first).
unsafe impl SystemParam for Visit {
    type State = ();
    type Item<'w> = (&'w World, Tick, Tick);
    fn access(_: &mut SystemMeta) {}
    fn init_state(_: &mut World) {}
    unsafe fn get_param<'w>(_: &'w mut (), meta: &SystemMeta, world: &'w World) -> (&'w World, Tick, Tick) {
        (world, meta.last_run, meta.this_run)
    }
    const DEFERRED: bool = false;
}

/// The user's function and its query, as a function system's function.
struct RunQuery<M, F> {
    query: DynamicQuery,
    func: F,
    marker: PhantomData<fn() -> M>,
}

impl<M: 'static, F: DynamicSystemFunction<M>> SystemParamFunction<(IsDynamic, M)> for RunQuery<M, F> {
    type In = ();
    type Param = (Visit, F::Param);
    type Out = ();
    #[inline]
    fn run(&mut self, (): (), ((world, last_run, tick), params): SystemParamItem<'_, (Visit, F::Param)>) {
        let mut query = DynamicSystemQuery { world, query: &self.query, last_run, tick };
        self.func.run(&mut query, params);
    }
}

/// A system whose work is a [`DynamicQuery`] built at run time (a script's or
/// a tool's system), beside any typed system parameters: its access is the
/// query's and theirs, so a schedule runs it beside typed systems when they do
/// not conflict, and a conflict between the query and its own parameters is
/// refused when it is made, with the message a typed query gets.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// use ecs_core::system::{DynamicSystem, DynamicSystemQuery, Schedule};
///
/// #[derive(Component, Clone, Copy)]
/// #[component(describe, layout = "soa")]
/// struct Body { x: f32, y: f32 }
/// struct Wind(f32);
///
/// let mut world = World::new();
/// world.spawn(Body { x: 1.0, y: 2.0 });
/// world.insert_resource(Wind(0.5));
/// let body = world.register_component::<Body>();
///
/// // The query alone:
/// let query = world.dynamic_query().write(body).build(&world)?;
/// let mut schedule = Schedule::new();
/// schedule.add_systems(DynamicSystem::new("drift", query, move |q| {
///     q.for_each_archetype(|a| a.field_mut::<f32>(body, "x").unwrap().iter_mut().for_each(|x| *x += 1.0))
/// }));
/// // Beside typed parameters:
/// let query = world.dynamic_query().write(body).build(&world)?;
/// schedule.add_systems(DynamicSystem::with_params(
///     "blow",
///     query,
///     move |q: &mut DynamicSystemQuery, wind: Res<Wind>| {
///         q.for_each_archetype(|a| a.field_mut::<f32>(body, "y").unwrap().iter_mut().for_each(|y| *y += wind.0))
///     },
/// ));
/// schedule.run(&mut world);
/// let b = world.query::<&Body>().iter().next().map(|b| (*b.x, *b.y));
/// assert_eq!(b, Some((2.0, 2.5)));
/// # Ok::<(), EcsError>(())
/// ```
pub struct DynamicSystem<M: 'static, F: DynamicSystemFunction<M>> {
    query_world: crate::world::WorldId,
    system: FunctionSystem<(IsDynamic, M), RunQuery<M, F>>,
}

impl<F> DynamicSystem<fn(), F>
where
    F: FnMut(&mut DynamicSystemQuery<'_, '_>) + Send + Sync + 'static,
{
    /// A system named `name` that runs `func` with `query` each run.
    #[track_caller]
    pub fn new(name: &str, query: DynamicQuery, func: F) -> Self {
        Self::with_params(name, query, func)
    }
}

impl<M: 'static, F: DynamicSystemFunction<M>> DynamicSystem<M, F> {
    /// A system named `name` that runs `func` with `query` and `func`'s other
    /// parameters each run.
    ///
    /// # Panics
    /// When a parameter conflicts with the query or with another parameter
    /// (a typed `Query<&Health>` beside a query that writes `Health`): the
    /// message names the system, both parameters and what they share.
    #[track_caller]
    pub fn with_params(name: &str, query: DynamicQuery, func: F) -> Self {
        let name = crate::names::intern(name);
        let mut meta = SystemMeta::new(name);
        let parts = query.access();
        let access = SystemAccess::query(parts.components.clone(), parts.with.clone(), parts.without.clone());
        meta.add_param(query.description(), access);
        let query_world = query.world_id();
        let func = RunQuery { query, func, marker: PhantomData };
        Self { query_world, system: FunctionSystem::with_meta(func, meta) }
    }
}

// SAFETY: the inner function system's access is the query's (every component
// its terms and filters read or write, built with the same rules as a typed
// query's, recorded first) and its parameters' (checked against it), fixed at
// `with_params`; the query is touched only through its visits (`Visit`).
unsafe impl<M: 'static, F: DynamicSystemFunction<M>> System for DynamicSystem<M, F> {
    fn name(&self) -> &'static str {
        self.system.name()
    }
    fn access(&self) -> &SystemAccess {
        self.system.access()
    }
    fn is_exclusive(&self) -> bool {
        false
    }
    fn label(&self) -> TypeId {
        TypeId::of::<F>()
    }
    fn initialize(&mut self, world: &mut World) {
        assert!(
            self.query_world == world.id(),
            "the dynamic system `{}` was built with a query of another World",
            self.system.name()
        );
        self.system.initialize(world);
    }
    unsafe fn run_unchecked(&mut self, world: &World) {
        // SAFETY: forwarded.
        unsafe { self.system.run_unchecked(world) }
    }
    unsafe fn run_unchecked_at(&mut self, world: &World, this_run: Tick) {
        // SAFETY: forwarded.
        unsafe { self.system.run_unchecked_at(world, this_run) }
    }
    fn run_exclusive(&mut self, world: &mut World) {
        self.initialize(world);
        self.system.run_exclusive(world);
    }
    fn apply(&mut self, world: &mut World) {
        self.system.apply(world);
    }
    fn has_deferred(&self) -> bool {
        self.system.has_deferred()
    }
}

/// Marks [`DynamicSystem`]'s [`IntoSystem`] impl.
#[doc(hidden)]
pub struct IsDynamic;

// Not offered as a fix in errors about functions that are not systems.
#[diagnostic::do_not_recommend]
impl<M: 'static, F: DynamicSystemFunction<M>> IntoSystem<(IsDynamic, M)> for DynamicSystem<M, F> {
    type System = Self;
    fn into_system(self) -> Self {
        self
    }
}
