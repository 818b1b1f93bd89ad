//! Run conditions: read-only systems returning `bool` that decide whether a system
//! runs (`schedule.add_systems(spawn_wave.run_if(no_enemies_left))`), the helpers
//! [`resource_exists`], [`resource_changed`], [`resource_added`], and the
//! combinators [`not`], [`SystemCondition::and`] and [`SystemCondition::or`].

use super::param::ReadOnlySystemParam;
use super::{FunctionSystem, Query, Res, SystemAccess, SystemParamFunction};
use crate::component::Component;
use crate::query::With;
use crate::world::World;

/// A run condition as the schedule keeps it: evaluated right before its system
/// would run, under the system's access (the schedule adds the condition's access
/// to the system's, so it counts for conflicts).
///
/// Made from a function by [`SystemCondition`]; implement it by hand only for a condition
/// no function can express.
///
/// # Safety
/// [`access`](Self::access) records everything [`evaluate`](Self::evaluate) reads,
/// writes nothing, and is complete when the condition is made (a schedule plans
/// from it before it calls [`initialize`](Self::initialize)) and never changes: the
/// schedule evaluates conditions side by side with other systems on the strength
/// of it.
pub unsafe trait ConditionSystem: Send + Sync + 'static {
    /// The condition's name (its function's path).
    fn name(&self) -> String;
    /// What the condition reads.
    fn access(&self) -> &SystemAccess;
    /// Prepares the condition's state for `world` (once per world).
    fn initialize(&mut self, world: &mut World);
    /// Evaluates the condition.
    ///
    /// # Safety
    /// The condition is initialized for `world`, and nothing writes what its
    /// [`access`](Self::access) reads meanwhile.
    unsafe fn evaluate(&mut self, world: &World) -> bool;
}

/// Something that can decide whether a system runs: a function whose parameters
/// are all read-only ([`ReadOnlySystemParam`]) and which returns `bool`, or a
/// combination of conditions.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// use ecs_core::system::{not, resource_exists};
///
/// #[derive(Component)] struct Enemy;
/// struct Paused;
/// #[derive(Default)] struct Wave(u32);
///
/// fn no_enemies_left(enemies: Query<Entity, With<Enemy>>) -> bool {
///     enemies.is_empty()
/// }
/// fn spawn_wave(mut wave: ResMut<Wave>, mut commands: Commands) {
///     wave.0 += 1;
///     commands.spawn(Enemy);
/// }
///
/// let mut world = World::new();
/// world.insert_resource(Wave::default());
/// let mut schedule = Schedule::new();
/// schedule.add_systems(spawn_wave.run_if(no_enemies_left.and(not(resource_exists::<Paused>))));
/// schedule.run(&mut world); // no enemies: a wave comes
/// schedule.run(&mut world); // one enemy left: nothing
/// assert_eq!(world.resource::<Wave>().0, 1);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a run condition",
    label = "not a run condition",
    note = "a run condition is a function returning `bool` whose parameters only read (`Query` of `&T`, `Res<T>`, \
            `Option<Res<T>>`, `Local<T>`, `&World`), or `not(c)`, `a.and(b)`, `a.or(b)` of conditions",
    note = "a condition may not write: take `Res<T>` instead of `ResMut<T>` and `&T` instead of `&mut T`, \
            and do the writing (and any `Commands`) in a system"
)]
pub trait SystemCondition<Marker>: Sized {
    /// The condition made.
    type System: ConditionSystem;

    /// Makes the condition.
    ///
    /// # Panics
    /// When two parameters conflict (see [`SystemMeta::add_param`](crate::system::SystemMeta::add_param)).
    fn into_condition(self) -> Self::System;

    /// A condition that holds when both hold. `other` is evaluated only when this
    /// one holds (as `&&`), so a stateful `other` (such as [`resource_changed`])
    /// sees only those runs.
    fn and<M, C: SystemCondition<M>>(self, other: C) -> And<Self::System, C::System> {
        And::new(self.into_condition(), other.into_condition())
    }

    /// A condition that holds when either holds. `other` is evaluated only when
    /// this one does not hold (as `||`).
    fn or<M, C: SystemCondition<M>>(self, other: C) -> Or<Self::System, C::System> {
        Or::new(self.into_condition(), other.into_condition())
    }
}

/// Marks the [`SystemCondition`] implementation for functions.
pub struct IsFunctionCondition;
/// Marks the [`SystemCondition`] implementation for conditions already made.
pub struct IsConditionSystem;

impl<Marker: 'static, F> SystemCondition<(IsFunctionCondition, Marker)> for F
where
    F: SystemParamFunction<Marker, In = (), Out = bool>,
    F::Param: ReadOnlySystemParam,
{
    type System = FunctionSystem<Marker, F>;

    #[track_caller]
    fn into_condition(self) -> Self::System {
        FunctionSystem::new(self)
    }
}

impl<C: ConditionSystem> SystemCondition<IsConditionSystem> for C {
    type System = C;

    fn into_condition(self) -> C {
        self
    }
}

// SAFETY: the access is the parameters' own (`SystemParam::access`, an unsafe trait
// promising it covers `get_param`), recorded once when the condition is made and
// never changed; `ReadOnlySystemParam` (an unsafe trait) promises it only reads.
unsafe impl<Marker: 'static, F> ConditionSystem for FunctionSystem<Marker, F>
where
    F: SystemParamFunction<Marker, In = (), Out = bool>,
    F::Param: ReadOnlySystemParam,
{
    fn name(&self) -> String {
        self.meta().name().to_owned()
    }
    fn access(&self) -> &SystemAccess {
        self.meta().access()
    }
    fn initialize(&mut self, world: &mut World) {
        self.init(world);
    }
    unsafe fn evaluate(&mut self, world: &World) -> bool {
        // A condition whose parameters skip the run (a `Single` without its one
        // match) reads as `false`, as in bevy.
        // SAFETY: the caller keeps writers off what the condition reads.
        unsafe { self.call(world) }.unwrap_or(false)
    }
}

/// The condition `a && b` (`OR = false`, from [`SystemCondition::and`]) or `a || b`
/// (`OR = true`, from [`SystemCondition::or`]); `b` is evaluated only when `a` does
/// not decide.
pub struct Combined<A, B, const OR: bool> {
    a: A,
    b: B,
    access: SystemAccess,
}

/// The condition `a && b`, from [`SystemCondition::and`].
pub type And<A, B> = Combined<A, B, false>;
/// The condition `a || b`, from [`SystemCondition::or`].
pub type Or<A, B> = Combined<A, B, true>;

impl<A: ConditionSystem, B: ConditionSystem, const OR: bool> Combined<A, B, OR> {
    fn new(a: A, b: B) -> Self {
        let mut access = a.access().clone();
        access.extend(b.access());
        Self { a, b, access }
    }
}

// SAFETY: the access is the union of both conditions' (each truthful by their
// contract), computed once; evaluating runs only the two.
unsafe impl<A: ConditionSystem, B: ConditionSystem, const OR: bool> ConditionSystem for Combined<A, B, OR> {
    fn name(&self) -> String {
        format!("{} {} {}", self.a.name(), if OR { "or" } else { "and" }, self.b.name())
    }
    fn access(&self) -> &SystemAccess {
        &self.access
    }
    fn initialize(&mut self, world: &mut World) {
        self.a.initialize(world);
        self.b.initialize(world);
    }
    unsafe fn evaluate(&mut self, world: &World) -> bool {
        // SAFETY: forwarded; the caller's guarantee covers both accesses.
        unsafe {
            let a = self.a.evaluate(world);
            if a == OR { a } else { self.b.evaluate(world) }
        }
    }
}

/// The condition `!c`, from [`not`].
pub struct Not<C>(C);

// SAFETY: the inner condition's access and evaluation, negated.
unsafe impl<C: ConditionSystem> ConditionSystem for Not<C> {
    fn name(&self) -> String {
        format!("not {}", self.0.name())
    }
    fn access(&self) -> &SystemAccess {
        self.0.access()
    }
    fn initialize(&mut self, world: &mut World) {
        self.0.initialize(world);
    }
    unsafe fn evaluate(&mut self, world: &World) -> bool {
        // SAFETY: forwarded.
        !unsafe { self.0.evaluate(world) }
    }
}

/// A condition that holds when `condition` does not:
/// `.run_if(not(resource_exists::<Paused>))`.
pub fn not<M, C: SystemCondition<M>>(condition: C) -> Not<C::System> {
    Not(condition.into_condition())
}

/// A run condition: `true` when the resource `R` is in the world.
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// use ecs_core::system::resource_exists;
/// struct Paused;
/// #[derive(Default)] struct Ticks(u32);
/// fn tick(mut ticks: ResMut<Ticks>) { ticks.0 += 1; }
/// let mut world = World::new();
/// world.insert_resource(Ticks::default());
/// let mut schedule = Schedule::new();
/// schedule.add_systems(tick.run_if(resource_exists::<Paused>));
/// schedule.run(&mut world);
/// world.insert_resource(Paused);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Ticks>().0, 1);
/// ```
pub fn resource_exists<R: Send + Sync + 'static>(resource: Option<Res<R>>) -> bool {
    resource.is_some()
}

/// A run condition: `true` the first time it is evaluated, `false` after
/// (bevy_ecs's `run_once`): setup that runs in a schedule's first run.
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(Default)] struct Setups(u32);
/// fn setup(mut setups: ResMut<Setups>) { setups.0 += 1; }
/// let mut world = World::new();
/// world.init_resource::<Setups>();
/// let mut schedule = Schedule::new();
/// schedule.add_systems(setup.run_if(run_once));
/// for _ in 0..3 { schedule.run(&mut world); }
/// assert_eq!(world.resource::<Setups>().0, 1);
/// ```
pub fn run_once(mut has_run: super::Local<bool>) -> bool {
    !core::mem::replace(&mut *has_run, true)
}

/// A run condition: `true` when the resource `R` was inserted or written since the
/// condition last ran (the first time: since it was inserted). `false` when `R`
/// is missing.
///
/// Unlike bevy's, a missing resource reads as "not changed" instead of a panic:
/// a condition is asked a yes-or-no question, and "no resource" answers it.
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// use ecs_core::system::resource_changed;
/// struct Settings { volume: u8 }
/// #[derive(Default)] struct Applied(u32);
/// fn apply_settings(settings: Res<Settings>, mut applied: ResMut<Applied>) {
///     let _ = settings.volume;
///     applied.0 += 1;
/// }
/// let mut world = World::new();
/// world.insert_resource(Settings { volume: 5 });
/// world.insert_resource(Applied::default());
/// let mut schedule = Schedule::new();
/// schedule.add_systems(apply_settings.run_if(resource_changed::<Settings>));
/// schedule.run(&mut world); // inserted: applied
/// schedule.run(&mut world); // unchanged: skipped
/// world.resource_mut::<Settings>().volume = 7;
/// schedule.run(&mut world); // changed: applied
/// assert_eq!(world.resource::<Applied>().0, 2);
/// ```
pub fn resource_changed<R: Send + Sync + 'static>(resource: Option<Res<R>>) -> bool {
    resource.is_some_and(|r| r.is_changed())
}

/// A run condition: `true` when the resource `R` was inserted since the condition
/// last ran. `false` when `R` is missing.
pub fn resource_added<R: Send + Sync + 'static>(resource: Option<Res<R>>) -> bool {
    resource.is_some_and(|r| r.is_added())
}

/// A run condition: `true` when some entity has the component `T`.
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(Component)] struct Enemy;
/// #[derive(Default)] struct Fights(u32);
/// fn fight(mut fights: ResMut<Fights>) { fights.0 += 1; }
/// let mut world = World::new();
/// world.insert_resource(Fights::default());
/// let mut schedule = Schedule::new();
/// schedule.add_systems(fight.run_if(any_with_component::<Enemy>));
/// schedule.run(&mut world); // no enemy: skipped
/// world.spawn(Enemy);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Fights>().0, 1);
/// ```
pub fn any_with_component<T: Component>(entities: Query<(), With<T>>) -> bool {
    !entities.is_empty()
}

/// A run condition: `true` when the resource `R` is in the world and equals
/// `value`: `.run_if(resource_equals(GameState::Playing))`.
pub fn resource_equals<R: PartialEq + Send + Sync + 'static>(
    value: R,
) -> impl FnMut(Option<Res<R>>) -> bool + Send + Sync + 'static {
    move |resource: Option<Res<R>>| resource.is_some_and(|r| *r == value)
}
