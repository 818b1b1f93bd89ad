//! [`DynamicSystem`]: a system over a [`DynamicQuery`], whose access is the
//! query's, fixed when the query is built, so the schedule checks it against
//! every other system exactly as it checks typed queries and runs the two side
//! by side when they do not conflict.

use core::any::TypeId;

use super::{System, SystemAccess};
use crate::query::{DynamicArchetype, DynamicQuery};
use crate::storage::Tick;
use crate::world::World;

/// What a [`DynamicSystem`]'s function gets on each run: its query, to visit
/// an archetype at a time (column and field slices, written ones writable).
pub struct DynamicSystemQuery<'w, 's> {
    world: &'w World,
    query: &'s DynamicQuery,
    tick: Tick,
}

impl<'w> DynamicSystemQuery<'w, '_> {
    /// Calls `f` with each matching archetype (see
    /// [`DynamicQuery::for_each_archetype_mut`]); written components are
    /// writable when the query writes them. `&mut self`: `f` cannot start
    /// another visit, whose views would alias this one's.
    pub fn for_each_archetype(&mut self, f: impl FnMut(DynamicArchetype<'w, '_>)) {
        // SAFETY: the system's access is the query's, which the schedule (or
        // `run_system`'s `&mut World`) keeps every other access clear of for
        // the run this value lives in.
        unsafe { self.query.for_each_archetype_shared(self.world, self.tick, f) }
    }

    /// [`for_each_archetype`](Self::for_each_archetype) with the archetypes
    /// shared out among the worker threads.
    pub fn par_for_each_archetype(&mut self, f: impl Fn(DynamicArchetype<'_, '_>) + Sync) {
        // SAFETY: as in `for_each_archetype`; each archetype is visited once,
        // on one thread.
        unsafe { self.query.par_for_each_archetype_shared(self.world, self.tick, &f) }
    }

    /// The world, to read what is not written anywhere (names, schemas).
    pub fn components(&self) -> &'w crate::component::Components {
        self.world.components()
    }
}

/// A system whose work is a [`DynamicQuery`] built at run time (a script's or
/// a tool's system): its access is the query's, so a schedule runs it beside
/// typed systems when they do not conflict and refuses it at `add_systems`
/// when they would alias, with the same message as for typed queries.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// use ecs_core::system::{DynamicSystem, Schedule};
///
/// #[derive(Component, Clone, Copy)]
/// #[component(describe, layout = "soa")]
/// struct Body { x: f32, y: f32 }
///
/// let mut world = World::new();
/// world.spawn(Body { x: 1.0, y: 2.0 });
/// let body = world.register_component::<Body>();
/// let query = world.dynamic_query().write(body).build(&world)?;
/// let mut schedule = Schedule::new();
/// schedule.add_systems(DynamicSystem::new("drift", query, move |q| {
///     q.for_each_archetype(|a| a.field_mut::<f32>(body, "x").unwrap().iter_mut().for_each(|x| *x += 1.0))
/// }));
/// schedule.run(&mut world);
/// assert_eq!(world.query::<&Body>().iter().next().map(|b| *b.x), Some(2.0));
/// # Ok::<(), EcsError>(())
/// ```
pub struct DynamicSystem<F> {
    name: &'static str,
    query: DynamicQuery,
    access: SystemAccess,
    func: F,
}

impl<F: FnMut(&mut DynamicSystemQuery<'_, '_>) + Send + Sync + 'static> DynamicSystem<F> {
    /// A system named `name` that runs `func` with `query` each run.
    pub fn new(name: &str, query: DynamicQuery, func: F) -> Self {
        let parts = query.access();
        let access = SystemAccess::query(parts.components.clone(), parts.with.clone(), parts.without.clone());
        Self { name: crate::names::intern(name), query, access, func }
    }
}

// SAFETY: the access is the query's (every component its terms and filters
// read or write, built with the same rules as a typed query's), fixed at
// `new`, and `run_unchecked` touches the world only through the query's
// archetype visits (which touch only those components) and `components()`
// (which nothing writes while systems run). Not exclusive.
unsafe impl<F: FnMut(&mut DynamicSystemQuery<'_, '_>) + Send + Sync + 'static> System for DynamicSystem<F> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn access(&self) -> &SystemAccess {
        &self.access
    }

    fn is_exclusive(&self) -> bool {
        false
    }

    fn label(&self) -> TypeId {
        TypeId::of::<F>()
    }

    fn initialize(&mut self, world: &mut World) {
        assert!(
            self.query.world_id() == world.id(),
            "the dynamic system `{}` was built with a query of another World",
            self.name
        );
    }

    unsafe fn run_unchecked(&mut self, world: &World) {
        let tick = world.increment_change_tick();
        // SAFETY: forwarded.
        unsafe { self.run_unchecked_at(world, tick) }
    }

    unsafe fn run_unchecked_at(&mut self, world: &World, this_run: Tick) {
        let mut query = DynamicSystemQuery { world, query: &self.query, tick: this_run };
        (self.func)(&mut query);
    }

    fn run_exclusive(&mut self, world: &mut World) {
        // SAFETY: `&mut World`: nothing else touches the world.
        unsafe { self.run_unchecked(world) }
    }

    fn apply(&mut self, _: &mut World) {}

    fn has_deferred(&self) -> bool {
        false
    }
}

/// Marks [`DynamicSystem`]'s [`IntoSystem`](super::IntoSystem) impl.
#[doc(hidden)]
pub struct IsDynamic;

// Not offered as a fix in errors about functions that are not systems.
#[diagnostic::do_not_recommend]
impl<F: FnMut(&mut DynamicSystemQuery<'_, '_>) + Send + Sync + 'static> super::IntoSystem<IsDynamic>
    for DynamicSystem<F>
{
    type System = Self;
    fn into_system(self) -> Self {
        self
    }
}
