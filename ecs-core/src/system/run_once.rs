//! Running a system once, outside a schedule: [`World::run_system_once`], for
//! tests, tools and one-off setup.

use core::marker::PhantomData;

use super::{FunctionSystem, PipeStage, Schedule, SystemParamFunction};
use crate::error::EcsError;
use crate::world::World;

/// Something [`World::run_system_once`] can run: a function of system parameters
/// returning anything, or a function of `&mut World`. `Marker` tells the
/// implementations apart.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be run as a system",
    label = "not a system",
    note = "`run_system_once` runs a function whose parameters are all system parameters (`Query`, `Res`, \
            `ResMut`, `Option<Res>`, `Local`, `Commands`, `&World`, at most 16), or a function taking only \
            `&mut World`"
)]
pub trait RunSystemOnce<Marker>: Sized {
    /// What the system returns.
    type Out;
    /// Runs the system once on `world`, then applies its commands.
    ///
    /// # Errors
    /// [`EcsError::MissingResource`] when a `Res<T>` or `ResMut<T>` parameter's
    /// resource is missing, and the error of a parameter that skips the run (a
    /// [`Single`](crate::system::Single) without exactly one match); the
    /// system does not run then.
    fn run_once(self, world: &mut World) -> Result<Self::Out, EcsError>;
}

/// Marks the [`RunSystemOnce`] implementation for functions of `&mut World`.
pub struct IsExclusiveOnce<Out>(PhantomData<fn() -> Out>);

impl<Marker: 'static, F: SystemParamFunction<Marker, In = ()>> RunSystemOnce<(Marker, F::Out)> for F {
    type Out = F::Out;

    #[track_caller]
    fn run_once(self, world: &mut World) -> Result<F::Out, EcsError> {
        run_function_once(self, (), world)
    }
}

/// Something [`World::run_system_once_with`] can run: a function whose first
/// parameter is an [`In<T>`](super::In) and whose others are system parameters.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be run as a system with an input",
    label = "not a system taking `In<T>` first",
    note = "`run_system_once_with` runs a function whose first parameter is `In<T>` and whose others are system \
            parameters (`Query`, `Res`, `ResMut`, `Local`, `Commands`, …)"
)]
pub trait RunSystemOnceWith<Marker>: Sized {
    /// What the system takes, as its [`In<T>`](super::In).
    type Input;
    /// What the system returns.
    type Out;
    /// Runs the system once on `world` given `input`, then applies its
    /// commands.
    ///
    /// # Errors
    /// As for [`RunSystemOnce::run_once`].
    fn run_once_with(self, input: Self::Input, world: &mut World) -> Result<Self::Out, EcsError>;
}

impl<Marker: 'static, T: 'static, F: SystemParamFunction<Marker, In = super::In<T>>> RunSystemOnceWith<(Marker, F::Out)>
    for F
{
    type Input = T;
    type Out = F::Out;

    #[track_caller]
    fn run_once_with(self, input: T, world: &mut World) -> Result<F::Out, EcsError> {
        run_function_once(self, super::In(input), world)
    }
}

/// One run of a function system made for it, its commands applied.
#[track_caller]
fn run_function_once<Marker: 'static, F: SystemParamFunction<Marker>>(
    function: F,
    input: F::In,
    world: &mut World,
) -> Result<F::Out, EcsError> {
    run_stage_once(FunctionSystem::new(function), input, world)
}

/// One run of `stage` (a function system or a pipe) made for it, given
/// `input`, its commands applied.
pub(super) fn run_stage_once<S: PipeStage>(mut stage: S, input: S::In, world: &mut World) -> Result<S::Out, EcsError> {
    world.check_change_ticks_if_due();
    // A first run: everything reads as added and changed, as for a system's
    // first run in a schedule.
    stage.__initialize_once(world);
    stage.__validate(world)?;
    let this_run = world.increment_change_tick_mut();
    // SAFETY: the stage was just initialized for this world; `&mut World`
    // excludes every other access.
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { stage.__run(input, world, this_run) }));
    match ran {
        Ok(out) => {
            stage.__apply(world);
            world.release_reserved();
            out
        }
        Err(panic) => {
            // The stage's commands are dropped with its state, as a panicking
            // system's are in a schedule; handles they reserved are freed.
            drop(stage);
            world.release_reserved();
            std::panic::resume_unwind(panic)
        }
    }
}

impl<Out, F: FnOnce(&mut World) -> Out> RunSystemOnce<IsExclusiveOnce<Out>> for F {
    type Out = Out;

    fn run_once(self, world: &mut World) -> Result<Out, EcsError> {
        Ok(self(world))
    }
}

impl World {
    /// Runs `system` once on this world and applies its commands: a function of
    /// system parameters (returning anything) or of `&mut World`. `Changed` and
    /// `Added` see everything, as in a system's first run.
    ///
    /// # Errors
    /// [`EcsError::MissingResource`] when a `Res<T>` or `ResMut<T>` parameter's
    /// resource is missing, and the error of a parameter that skips the run (a
    /// [`Single`](crate::system::Single) without exactly one match); the
    /// system does not run then.
    ///
    /// # Panics
    /// When two of the system's parameters conflict, or when the system panics
    /// (its commands are dropped).
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Health(i32);
    /// fn reaper(q: Query<(Entity, &Health)>, mut commands: Commands) {
    ///     for (e, h) in q.iter() {
    ///         if h.0 <= 0 { commands.despawn(e); }
    ///     }
    /// }
    /// let mut world = World::new();
    /// world.spawn(Health(0));
    /// world.spawn(Health(5));
    /// world.run_system_once(reaper)?;
    /// let alive = world.run_system_once(|q: Query<&Health>| q.count())?;
    /// assert_eq!(alive, 1);
    /// struct Missing;
    /// assert!(world.run_system_once(|_: Res<Missing>| ()).is_err());
    /// # Ok::<(), EcsError>(())
    /// ```
    #[track_caller]
    pub fn run_system_once<M, S: RunSystemOnce<M>>(&mut self, system: S) -> Result<S::Out, EcsError> {
        system.run_once(self)
    }

    /// [`run_system_once`](Self::run_system_once) for a system taking an
    /// [`In<T>`](crate::system::In) first: runs it once given `input`.
    ///
    /// # Errors
    /// As for [`run_system_once`](Self::run_system_once).
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// fn double(In(x): In<u32>) -> u32 { x * 2 }
    /// let mut world = World::new();
    /// assert_eq!(world.run_system_once_with(double, 21)?, 42);
    /// # Ok::<(), EcsError>(())
    /// ```
    #[track_caller]
    pub fn run_system_once_with<M, S: RunSystemOnceWith<M>>(
        &mut self,
        system: S,
        input: S::Input,
    ) -> Result<S::Out, EcsError> {
        system.run_once_with(input, self)
    }
}

impl Schedule {
    /// Runs `system` once on `world`, outside any schedule: the same as
    /// [`World::run_system_once`].
    ///
    /// # Errors
    /// As for [`World::run_system_once`].
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Default)] struct Frames(u32);
    /// fn count_frame(mut frames: ResMut<Frames>) { frames.0 += 1; }
    /// let mut world = World::new();
    /// world.insert_resource(Frames::default());
    /// Schedule::run_system_once(&mut world, count_frame)?;
    /// assert_eq!(world.resource::<Frames>().0, 1);
    /// # Ok::<(), EcsError>(())
    /// ```
    #[track_caller]
    pub fn run_system_once<M, S: RunSystemOnce<M>>(world: &mut World, system: S) -> Result<S::Out, EcsError> {
        system.run_once(world)
    }
}
