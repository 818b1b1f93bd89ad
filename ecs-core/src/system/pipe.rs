//! Piping: `a.pipe(b)` is one system that runs `a`, then `b` given `a`'s
//! output as its [`In<T>`](super::In).

use core::any::TypeId;

use super::function::{FunctionSystem, SystemParamFunction};
use super::input::{In, SystemInput};
use super::output::SystemOutput;
use super::{IntoSystem, System, SystemAccess};
use crate::error::{EcsError, ErrorContext};
use crate::storage::Tick;
use crate::world::World;

mod sealed {
    pub trait Sealed {}
}

/// One stage of a pipe: a function system (with or without input), or a pipe.
/// Sealed: a schedule trusts a stage's access, as it does a [`System`]'s.
pub trait PipeStage: sealed::Sealed + Send + Sync + 'static {
    /// What the stage takes: `()` or [`In<T>`].
    type In: SystemInput;
    /// What the stage returns.
    type Out;
    #[doc(hidden)]
    fn __name(&self) -> &'static str;
    #[doc(hidden)]
    fn __access(&self) -> &SystemAccess;
    #[doc(hidden)]
    fn __initialize(&mut self, world: &mut World);
    /// [`__initialize`](Self::__initialize) for one run: the world keeps no
    /// slot for the stage's last run.
    #[doc(hidden)]
    fn __initialize_once(&mut self, world: &mut World);
    #[doc(hidden)]
    fn __validate(&self, world: &World) -> Result<(), EcsError>;
    /// One run; the reason when a parameter skipped it.
    ///
    /// # Safety
    /// The stage is initialized for `world`, and the caller holds its access.
    #[doc(hidden)]
    unsafe fn __run(&mut self, input: Self::In, world: &World, this_run: Tick) -> Result<Self::Out, EcsError>;
    #[doc(hidden)]
    fn __apply(&mut self, world: &mut World);
    #[doc(hidden)]
    fn __has_deferred(&self) -> bool;
}

impl<Marker: 'static, F: SystemParamFunction<Marker>> sealed::Sealed for FunctionSystem<Marker, F> {}

impl<Marker: 'static, F: SystemParamFunction<Marker>> PipeStage for FunctionSystem<Marker, F> {
    type In = F::In;
    type Out = F::Out;

    fn __name(&self) -> &'static str {
        self.meta().name()
    }
    fn __access(&self) -> &SystemAccess {
        self.meta().access()
    }
    fn __initialize(&mut self, world: &mut World) {
        self.init(world);
    }
    fn __initialize_once(&mut self, world: &mut World) {
        self.init_once(world);
    }
    fn __validate(&self, world: &World) -> Result<(), EcsError> {
        self.validate(world)
    }
    #[inline]
    unsafe fn __run(&mut self, input: F::In, world: &World, this_run: Tick) -> Result<F::Out, EcsError> {
        // SAFETY: forwarded.
        unsafe { self.run_at(input, world, this_run, core::convert::identity) }
    }
    fn __apply(&mut self, world: &mut World) {
        self.apply_deferred(world);
    }
    fn __has_deferred(&self) -> bool {
        <F::Param as super::SystemParam>::DEFERRED
    }
}

/// `a.pipe(b)`: runs `a`, then `b` with `a`'s output. Made by
/// [`SystemPipe::pipe`]; a system when the first stage takes no input and
/// the last returns `()` or a `Result` (whose error goes to the world's error
/// handler, under the last stage's name).
///
/// Its access is both stages' together; as the stages run one after the
/// other, one may write what the other reads. A stage skipped by its
/// parameters (a `Single` without its entity) skips the rest of the pipe.
pub struct PipeSystem<A, B> {
    a: A,
    b: B,
    access: SystemAccess,
}

impl<A, B> sealed::Sealed for PipeSystem<A, B> {}

impl<A: PipeStage, B: PipeStage<In = In<A::Out>>> PipeStage for PipeSystem<A, B> {
    type In = A::In;
    type Out = B::Out;

    fn __name(&self) -> &'static str {
        self.b.__name()
    }
    fn __access(&self) -> &SystemAccess {
        &self.access
    }
    fn __initialize(&mut self, world: &mut World) {
        self.a.__initialize(world);
        self.b.__initialize(world);
    }
    fn __initialize_once(&mut self, world: &mut World) {
        self.a.__initialize_once(world);
        self.b.__initialize_once(world);
    }
    fn __validate(&self, world: &World) -> Result<(), EcsError> {
        self.a.__validate(world)?;
        self.b.__validate(world)
    }
    #[inline]
    unsafe fn __run(&mut self, input: A::In, world: &World, this_run: Tick) -> Result<B::Out, EcsError> {
        // SAFETY: both stages are initialized with the pipe; the caller holds
        // the pipe's access, which holds each stage's, and the stages run one
        // after the other (`a`'s output owns nothing of the world's).
        let mid = unsafe { self.a.__run(input, world, this_run) }?;
        // SAFETY: as above.
        unsafe { self.b.__run(In(mid), world, this_run) }
    }
    fn __apply(&mut self, world: &mut World) {
        // Both, even when the first panics: no stage keeps commands for a
        // later run.
        let (a, b) = (&mut self.a, &mut self.b);
        crate::panics::run_in_order(2, |stage| if stage == 0 { a.__apply(world) } else { b.__apply(world) });
    }
    fn __has_deferred(&self) -> bool {
        self.a.__has_deferred() || self.b.__has_deferred()
    }
}

// SAFETY: the access is both stages' (each a function system's, recorded
// when it was made and never changed, or a pipe's, the same), joined when
// the pipe is made; a run holding it holds each stage's, and the stages run
// in turn. A pipe is never exclusive: its stages are function systems.
unsafe impl<A, B> System for PipeSystem<A, B>
where
    A: PipeStage<In = ()>,
    B: PipeStage<In = In<A::Out>>,
    B::Out: SystemOutput,
{
    fn name(&self) -> &'static str {
        self.__name()
    }
    fn access(&self) -> &SystemAccess {
        &self.access
    }
    fn is_exclusive(&self) -> bool {
        false
    }
    fn label(&self) -> TypeId {
        TypeId::of::<Self>()
    }
    fn initialize(&mut self, world: &mut World) {
        self.__initialize(world);
    }
    unsafe fn run_unchecked(&mut self, world: &World) {
        let this_run = world.increment_change_tick();
        // SAFETY: forwarded.
        unsafe { self.run_unchecked_at(world, this_run) }
    }
    unsafe fn run_unchecked_at(&mut self, world: &World, this_run: Tick) {
        // SAFETY: forwarded (initialized, access held).
        // A skipped stage is not an error: the pipe waits, as a system does.
        if let Ok(out) = unsafe { self.__run((), world, this_run) } {
            out.__handle(world, || ErrorContext::System { name: self.b.__name() });
        }
    }
    fn run_exclusive(&mut self, world: &mut World) {
        self.initialize(world);
        let this_run = world.increment_change_tick_mut();
        // SAFETY: initialized just above; `&mut World` excludes every other access.
        unsafe { self.run_unchecked_at(world, this_run) };
        self.apply(world);
    }
    fn apply(&mut self, world: &mut World) {
        self.__apply(world);
    }
    fn has_deferred(&self) -> bool {
        self.__has_deferred()
    }
}

/// Marks the [`IntoSystem`] implementation for pipes.
pub struct IsPipe;

// Not offered as a hint when a function is not a system.
#[diagnostic::do_not_recommend]
impl<A, B> IntoSystem<IsPipe> for PipeSystem<A, B>
where
    A: PipeStage<In = ()>,
    B: PipeStage<In = In<A::Out>>,
    B::Out: SystemOutput,
{
    type System = Self;

    fn into_system(self) -> Self {
        self
    }
}

/// Something a pipe can begin or continue with: a function of system
/// parameters (taking an [`In<T>`] first or not), or a pipe.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be piped",
    label = "not a system that can be piped",
    note = "a pipe joins functions of system parameters (`Query`, `Res`, `Local`, `Commands`, …); each one after \
            the first takes the one before's output as its first parameter, `In<T>`"
)]
pub trait SystemPipe<Marker>: Sized {
    /// The stage made.
    type Stage: PipeStage;

    /// Makes the stage.
    fn into_stage(self) -> Self::Stage;

    /// One system that runs `self`, then `next` given `self`'s output as its
    /// [`In<T>`]: bevy_ecs's `pipe`.
    ///
    /// # Panics
    /// When two parameters of one stage conflict (stages may share data: they
    /// run in turn).
    ///
    /// # Example
    /// ```
    /// use ecs_core::prelude::*;
    ///
    /// #[derive(Component)] struct Enemy;
    /// #[derive(Default)] struct Alarm(bool);
    ///
    /// fn count_enemies(enemies: Query<(), With<Enemy>>) -> usize {
    ///     enemies.iter().count()
    /// }
    /// fn sound_alarm(In(enemies): In<usize>, mut alarm: ResMut<Alarm>) {
    ///     alarm.0 = enemies > 2;
    /// }
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Alarm>();
    /// world.spawn_batch((0..3).map(|_| Enemy));
    /// let mut schedule = Schedule::new();
    /// schedule.add_systems(count_enemies.pipe(sound_alarm));
    /// schedule.run(&mut world);
    /// assert!(world.resource::<Alarm>().0);
    /// ```
    #[track_caller]
    fn pipe<M, B>(self, next: B) -> PipeSystem<Self::Stage, B::Stage>
    where
        B: SystemPipe<M>,
        B::Stage: PipeStage<In = In<<Self::Stage as PipeStage>::Out>>,
    {
        let (a, b) = (self.into_stage(), next.into_stage());
        let mut access = a.__access().clone();
        access.extend(b.__access());
        PipeSystem { a, b, access }
    }
}

impl<Marker: 'static, F: SystemParamFunction<Marker>> SystemPipe<(Marker,)> for F {
    type Stage = FunctionSystem<Marker, F>;

    #[track_caller]
    fn into_stage(self) -> Self::Stage {
        FunctionSystem::new(self)
    }
}

impl<A: PipeStage, B: PipeStage<In = In<A::Out>>> SystemPipe<IsPipe> for PipeSystem<A, B> {
    type Stage = Self;

    fn into_stage(self) -> Self {
        self
    }
}

impl<A, B> PipeSystem<A, B>
where
    A: PipeStage,
    B: PipeStage<In = In<A::Out>>,
{
    /// One run outside any schedule given `input` (for `run_system_once` and
    /// `run_system_once_with`), its commands applied.
    pub(crate) fn run_once(self, input: A::In, world: &mut World) -> Result<B::Out, EcsError> {
        super::run_once::run_stage_once(self, input, world)
    }
}

impl<A, B> super::RunSystemOnce<IsPipe> for PipeSystem<A, B>
where
    A: PipeStage<In = ()>,
    B: PipeStage<In = In<A::Out>>,
{
    type Out = B::Out;

    fn run_once(self, world: &mut World) -> Result<B::Out, EcsError> {
        PipeSystem::run_once(self, (), world)
    }
}

impl<T: 'static, A, B> super::RunSystemOnceWith<IsPipe> for PipeSystem<A, B>
where
    A: PipeStage<In = In<T>>,
    B: PipeStage<In = In<A::Out>>,
{
    type Input = T;
    type Out = B::Out;

    fn run_once_with(self, input: T, world: &mut World) -> Result<B::Out, EcsError> {
        PipeSystem::run_once(self, In(input), world)
    }
}
