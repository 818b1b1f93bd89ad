//! [`DeclaredSystem`]: a system whose access is a list of component ids it
//! reads and writes, declared when it is made (a script's system, a tool's),
//! and [`DeclaredWorld`], the world as such a system sees it: every read and
//! write checked against the declaration, an error naming the component
//! beyond it.
//!
//! The schedule checks the declaration against every other system, as it
//! checks typed queries, so declared systems run beside typed ones that touch
//! other components. The function takes system parameters after the
//! `DeclaredWorld` (`Commands` for structural changes, `Res`, …), checked
//! against the declaration when the system is made.

use core::any::TypeId;
use core::marker::PhantomData;

use super::dynamic::Visit;
use super::function::{FunctionSystem, SystemParamFunction};
use super::param::{SystemParam, SystemParamItem};
use super::{IntoSystem, System, SystemAccess, SystemMeta};
use crate::component::{ComponentId, Components};
use crate::entity::Entity;
use crate::error::EcsError;
use crate::query::{Access, DynamicArchetype, DynamicQuery, DynamicRow, DynamicRowMut};
use crate::storage::Tick;
use crate::world::{ComponentMut, ComponentRef, World};

/// The world as a [`DeclaredSystem`] sees it for one run: components read
/// and written by id, each checked against the system's declaration.
pub struct DeclaredWorld<'w> {
    world: &'w World,
    reads: &'w [ComponentId],
    writes: &'w [ComponentId],
    last_run: Tick,
    this_run: Tick,
}

impl<'w> DeclaredWorld<'w> {
    fn readable(&self, id: ComponentId) -> bool {
        self.reads.contains(&id) || self.writes.contains(&id)
    }

    fn check(&self, id: ComponentId, write: bool) -> Result<(), EcsError> {
        let declared = if write { self.writes.contains(&id) } else { self.readable(id) };
        if declared {
            return Ok(());
        }
        let component = self.world.components().get(id).map_or("an unknown component", |info| info.name());
        Err(EcsError::Undeclared { component, write })
    }

    /// `true` when the entity is alive.
    pub fn contains(&self, entity: Entity) -> bool {
        self.world.contains(entity)
    }

    /// `true` when the entity has component `id`. Presence is the
    /// entity's archetype, which no running system changes: any component may
    /// be asked about.
    pub fn has(&self, entity: Entity, id: ComponentId) -> bool {
        self.world.entity(entity).is_some_and(|e| e.contains_id(id))
    }

    /// The id of the world the system runs in.
    pub fn world_id(&self) -> crate::world::WorldId {
        self.world.id()
    }

    /// The world's components: names and schemas.
    pub fn components(&self) -> &'w Components {
        self.world.components()
    }

    /// Component `id` of `entity`, read through its schema.
    ///
    /// # Errors
    /// [`EcsError::Undeclared`] when the system declared `id` neither read
    /// nor written; otherwise as [`World::get_by_id`].
    pub fn get_by_id(&self, entity: Entity, id: ComponentId) -> Result<ComponentRef<'_>, EcsError> {
        self.check(id, false)?;
        self.world.get_by_id(entity, id)
    }

    /// Component `id` of `entity`, written through its schema; each write is
    /// stamped changed.
    ///
    /// # Errors
    /// [`EcsError::Undeclared`] when the system did not declare `id`
    /// written; otherwise as [`World::get_mut_by_id`].
    pub fn get_mut_by_id(&mut self, entity: Entity, id: ComponentId) -> Result<ComponentMut<'_>, EcsError> {
        self.check(id, true)?;
        // SAFETY: the system declared `id` written, and the schedule keeps
        // every other system's access clear of it for the run; `&mut self`
        // makes this the run's only view.
        unsafe { self.world.get_mut_by_id_shared(entity, id, self.this_run) }
    }

    /// A value of component `id` with every field at its default, to build
    /// and insert through `Commands` (see [`DynamicValue::new`](crate::world::DynamicValue::new)).
    ///
    /// # Errors
    /// As for `DynamicValue::new`.
    pub fn new_value(&self, id: ComponentId) -> Result<crate::world::DynamicValue, EcsError> {
        crate::world::DynamicValue::new(self.world, id)
    }

    /// Builds a query over this world (see [`World::dynamic_query`]); its
    /// components are checked against the declaration when it is visited.
    ///
    /// # Errors
    /// As for [`DynamicQueryBuilder::build`](crate::query::DynamicQueryBuilder::build).
    pub fn build_query(&self, builder: crate::query::DynamicQueryBuilder) -> Result<DynamicQuery, EcsError> {
        builder.build(self.world)
    }

    /// Refuses a query that uses a component beyond the declaration.
    fn admit(&self, query: &DynamicQuery) -> Result<(), EcsError> {
        match query.beyond(|id| self.readable(id), |id| self.writes.contains(&id)) {
            Some((id, write)) => self.check(id, write),
            None => Ok(()),
        }
    }

    /// Visits the rows of `query` (read-only; see
    /// [`DynamicQuery::for_each`]); `added`/`changed` terms see what is newer
    /// than the system's last run.
    ///
    /// # Errors
    /// [`EcsError::Undeclared`] when the query reads or writes a component
    /// the system did not declare; nothing is visited then.
    pub fn for_each(&mut self, query: &DynamicQuery, f: impl FnMut(DynamicRow<'_, '_>)) -> Result<(), EcsError> {
        self.admit(query)?;
        // SAFETY: the query's components are within the declaration (checked),
        // which the schedule keeps every other access clear of for the run;
        // `&mut self` keeps this system's other views out meanwhile.
        unsafe { query.for_each_shared(self.world, (self.last_run, self.this_run), f) };
        Ok(())
    }

    /// [`for_each`](Self::for_each) with the query's written components
    /// writable, each write stamped.
    ///
    /// # Errors
    /// As for `for_each`.
    pub fn for_each_mut(&mut self, query: &DynamicQuery, f: impl FnMut(DynamicRowMut<'_, '_>)) -> Result<(), EcsError> {
        self.admit(query)?;
        // SAFETY: as in `for_each`.
        unsafe { query.for_each_mut_shared(self.world, (self.last_run, self.this_run), f) };
        Ok(())
    }

    /// Visits the archetypes of `query` (see
    /// [`DynamicQuery::for_each_archetype_mut`]): column and field slices,
    /// written ones writable.
    ///
    /// # Errors
    /// As for `for_each`.
    pub fn for_each_archetype(
        &mut self,
        query: &DynamicQuery,
        f: impl FnMut(DynamicArchetype<'_, '_>),
    ) -> Result<(), EcsError> {
        self.admit(query)?;
        // SAFETY: as in `for_each`.
        unsafe { query.for_each_archetype_shared(self.world, self.this_run, f) };
        Ok(())
    }
}

/// A function a [`DeclaredSystem`] runs: its [`DeclaredWorld`] first, then
/// any system parameters (`Commands`, `Res`, typed `Query`s of other
/// components, …). Implemented for functions and closures of up to eight
/// parameters after the world; closures name their parameters' types.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a declared system's function",
    label = "not a declared system's function",
    note = "a declared system's function takes `&mut DeclaredWorld` first, then up to eight system parameters \
            (`Commands`, `Res`, `ResMut`, `Local`, `Query`, …), each with its type written out"
)]
pub trait DeclaredSystemFunction<Marker>: Send + Sync + 'static {
    /// The parameters after the world, as a tuple.
    type Param: SystemParam;
    /// Calls the function.
    fn run(&mut self, world: &mut DeclaredWorld<'_>, params: SystemParamItem<'_, Self::Param>);
}

macro_rules! impl_declared_system_function {
    ($($param:ident),*) => {
        #[allow(non_snake_case, reason = "parameters are named after their types")]
        impl<Func, $($param: SystemParam),*> DeclaredSystemFunction<fn($($param,)*)> for Func
        where
            Func: Send + Sync + 'static,
            for<'a> &'a mut Func: FnMut(&mut DeclaredWorld<'_>, $($param),*)
                + FnMut(&mut DeclaredWorld<'_>, $(SystemParamItem<'_, $param>),*),
        {
            type Param = ($($param,)*);

            #[inline]
            fn run(&mut self, world: &mut DeclaredWorld<'_>, params: SystemParamItem<'_, ($($param,)*)>) {
                // Called through a helper naming the item types, so that the
                // compiler picks the `FnMut(items)` bound above.
                #[allow(clippy::too_many_arguments)]
                fn call<$($param,)*>(
                    mut f: impl FnMut(&mut DeclaredWorld<'_>, $($param,)*),
                    world: &mut DeclaredWorld<'_>,
                    $($param: $param,)*
                ) {
                    f(world, $($param,)*)
                }
                let ($($param,)*) = params;
                call(self, world, $($param),*)
            }
        }
    };
}

impl_declared_system_function!();
impl_declared_system_function!(P0);
impl_declared_system_function!(P0, P1);
impl_declared_system_function!(P0, P1, P2);
impl_declared_system_function!(P0, P1, P2, P3);
impl_declared_system_function!(P0, P1, P2, P3, P4);
impl_declared_system_function!(P0, P1, P2, P3, P4, P5);
impl_declared_system_function!(P0, P1, P2, P3, P4, P5, P6);
impl_declared_system_function!(P0, P1, P2, P3, P4, P5, P6, P7);

struct RunDeclared<M, F> {
    reads: Vec<ComponentId>,
    writes: Vec<ComponentId>,
    func: F,
    marker: PhantomData<fn() -> M>,
}

/// Marks [`DeclaredSystem`]'s function.
#[doc(hidden)]
pub struct IsDeclared;

impl<M: 'static, F: DeclaredSystemFunction<M>> SystemParamFunction<(IsDeclared, M)> for RunDeclared<M, F> {
    type In = ();
    type Param = (Visit, F::Param);
    type Out = ();
    fn run(&mut self, (): (), ((world, last_run, this_run), params): SystemParamItem<'_, Self::Param>) {
        let mut declared = DeclaredWorld { world, reads: &self.reads, writes: &self.writes, last_run, this_run };
        self.func.run(&mut declared, params);
    }
}

/// A system that declares the components it reads and writes by id when it
/// is made, and reaches them through a [`DeclaredWorld`]; its other
/// parameters (`Commands` for structural changes, applied at the schedule's
/// next sync point) are checked against the declaration when it is made.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// use ecs_core::system::{DeclaredSystem, DeclaredWorld, Schedule};
///
/// #[derive(Component)]
/// #[component(describe)]
/// struct Health { hp: i32 }
///
/// let mut world = World::new();
/// let e = world.spawn(Health { hp: 1 });
/// let health = world.register_component::<Health>();
/// let mut schedule = Schedule::new();
/// schedule.add_systems(DeclaredSystem::new("heal", &world, &[], &[health], move |w: &mut DeclaredWorld| {
///     let mut view = w.get_mut_by_id(e, health).unwrap();
///     let hp = view.get::<i32>("hp").unwrap();
///     view.set("hp", hp + 1).unwrap();
/// }));
/// schedule.run(&mut world);
/// assert_eq!(world.get::<Health>(e).map(|h| h.hp), Some(2));
/// ```
pub struct DeclaredSystem<M: 'static, F: DeclaredSystemFunction<M>> {
    system: FunctionSystem<(IsDeclared, M), RunDeclared<M, F>>,
}

impl<M: 'static, F: DeclaredSystemFunction<M>> DeclaredSystem<M, F> {
    /// A system named `name` that reads `reads` and writes `writes` (ids of
    /// `world`'s components) and runs `func` each run.
    ///
    /// # Panics
    /// When an id is not a component of `world`, or a parameter conflicts
    /// with the declaration (a typed `Query<&T>` beside a declared write of
    /// `T`): the message names the system and both.
    #[track_caller]
    pub fn new(name: &str, world: &World, reads: &[ComponentId], writes: &[ComponentId], func: F) -> Self {
        let components = world.components();
        let name_of = |id: ComponentId| {
            components
                .get(id)
                .map(|info| info.name())
                .unwrap_or_else(|| panic!("component {} is not this world's", id.index()))
        };
        let mut access = Access::default();
        for &id in reads.iter().filter(|id| !writes.contains(id)) {
            access.add_read(id, name_of(id));
        }
        for &id in writes {
            access.add_write(id, name_of(id));
        }
        let describe: Vec<String> = reads
            .iter()
            .map(|&id| format!("&{}", name_of(id)))
            .chain(writes.iter().map(|&id| format!("&mut {}", name_of(id))))
            .collect();
        let mut meta = SystemMeta::new(crate::names::intern(name));
        meta.add_param(
            crate::names::intern(&format!("declared ({})", describe.join(", "))),
            SystemAccess::query(access, Vec::new(), Vec::new()),
        );
        let func = RunDeclared { reads: reads.to_vec(), writes: writes.to_vec(), func, marker: PhantomData };
        Self { system: FunctionSystem::with_meta(func, meta) }
    }
}

// SAFETY: the inner function system's access is the declaration (recorded
// first) and its parameters' (checked against it); the function reaches the
// world only through a `DeclaredWorld`, which checks every access against the
// declaration, and its parameters.
unsafe impl<M: 'static, F: DeclaredSystemFunction<M>> System for DeclaredSystem<M, F> {
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
        self.system.run_exclusive(world);
    }
    fn apply(&mut self, world: &mut World) {
        self.system.apply(world);
    }
    fn has_deferred(&self) -> bool {
        self.system.has_deferred()
    }
}

// Not offered as a fix in errors about functions that are not systems.
#[diagnostic::do_not_recommend]
impl<M: 'static, F: DeclaredSystemFunction<M>> IntoSystem<(IsDeclared, M)> for DeclaredSystem<M, F> {
    type System = Self;
    fn into_system(self) -> Self {
        self
    }
}
