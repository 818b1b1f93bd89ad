//! Observer systems: a function whose first parameter is a [`On`], as
//! something the world can run.

use super::On;
use crate::bundle::Bundle;
use crate::error::ErrorContext;
use crate::event::EventPattern;
use crate::system::{FunctionSystem, SystemOutput, SystemParam, SystemParamFunction};
use crate::world::World;

/// An observer as the world runs it.
pub(crate) trait ObserverRunner: Send + Sync + 'static {
    /// Runs the observer once for the trigger the world holds, and hands the
    /// commands it queued to the world (which runs them once the trigger is
    /// complete).
    fn run(&mut self, world: &mut World);

    /// Makes the parameters' state and the system's slot in `world`: done when
    /// the observer is added, so that observers take their slots (and their
    /// `Local`s their places) in the order they are added, whenever they first
    /// run, and a save's system state goes back to the same observer.
    fn init(&mut self, world: &mut World);
}

impl<Marker: 'static, F: SystemParamFunction<Marker, In = ()>> ObserverRunner for FunctionSystem<Marker, F>
where
    F::Out: SystemOutput,
{
    // `#[inline]` places a copy of this in the codegen unit of the observer's
    // vtable, next to the observer's function, which can then be inlined here.
    #[inline]
    fn run(&mut self, world: &mut World) {
        /// Hands the commands to the world when the run ends, by a panic too:
        /// what the observer queued before it panicked goes to the world's
        /// queue (applied before the panic leaves a structural change, or with
        /// the world's next operation after a trigger), instead of waiting in
        /// its state for a next run that may never come.
        struct Apply<'a, Marker: 'static, F: SystemParamFunction<Marker, In = ()>> {
            system: &'a mut FunctionSystem<Marker, F>,
            world: &'a mut World,
        }
        impl<Marker: 'static, F: SystemParamFunction<Marker, In = ()>> Drop for Apply<'_, Marker, F> {
            #[inline]
            fn drop(&mut self) {
                if !<F::Param as SystemParam>::DEFERRED {
                    return;
                }
                if !std::thread::panicking() {
                    self.system.apply_deferred(self.world);
                } else {
                    // While observers run the world defers, so the crate's own
                    // parameters only move their commands; a hand-written
                    // parameter's `apply` that panics too is not let abort.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        self.system.apply_deferred(self.world);
                    }));
                }
            }
        }
        self.init(world);
        let run = Apply { system: self, world };
        // A skipped run (a `Single` with no single match) is not an error.
        if let Some(out) = run.system.call_mut(run.world) {
            out.__handle(run.world, || ErrorContext::Observer { name: run.system.meta().name() });
        }
        // Dropping `run`: the world is deferring while observers run, so the
        // commands join its queue.
    }

    fn init(&mut self, world: &mut World) {
        FunctionSystem::init(self, world);
    }
}

/// Something that can become an observer of the event `E` (for lifecycle
/// events, of the components of `B`): a function or closure whose first
/// parameter is a [`On<E, B>`](On) and whose others (at most 15) are
/// system parameters.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an observer",
    label = "not an observer of this event",
    note = "an observer is a function whose first parameter is a `On<E>` (or `On<E, Component>` for \
            `Add`, `Insert`, `Discard`, `Remove`, `Despawn`) and whose others are system parameters \
            (`Query`, `Res`, `ResMut`, `Local`, `Commands`, …)"
)]
pub trait IntoObserverSystem<P: EventPattern, B: Bundle, Marker>: Send + Sync + 'static {
    /// Makes the observer.
    fn into_runner(self) -> BoxedObserver;
}

/// An observer made by [`IntoObserverSystem`], ready for a world to register.
pub struct BoxedObserver(pub(crate) Box<dyn ObserverRunner>);

impl core::fmt::Debug for BoxedObserver {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BoxedObserver").finish_non_exhaustive()
    }
}

macro_rules! impl_observer_function {
    ($($param:ident),*) => {
        impl<P: EventPattern, B: Bundle, Out: SystemOutput + 'static, Func, $($param: SystemParam + 'static),*>
            IntoObserverSystem<P, B, fn(On<'static, P, B>, $($param,)*) -> Out> for Func
        where
            Func: SystemParamFunction<fn(On<'static, P, B>, $($param,)*) -> Out, In = (), Out = Out>,
        {
            // Never inlined: the vtable made here, and with it the copy of the
            // observer's `run`, then stay in the codegen unit of the observer's
            // own function (this impl's self type), where `run` can inline it.
            #[track_caller]
            #[inline(never)]
            fn into_runner(self) -> BoxedObserver {
                BoxedObserver(Box::new(FunctionSystem::new(self)))
            }
        }
    };
}

impl_observer_function!();
impl_observer_function!(P1);
impl_observer_function!(P1, P2);
impl_observer_function!(P1, P2, P3);
impl_observer_function!(P1, P2, P3, P4);
impl_observer_function!(P1, P2, P3, P4, P5);
impl_observer_function!(P1, P2, P3, P4, P5, P6);
impl_observer_function!(P1, P2, P3, P4, P5, P6, P7);
impl_observer_function!(P1, P2, P3, P4, P5, P6, P7, P8);
impl_observer_function!(P1, P2, P3, P4, P5, P6, P7, P8, P9);
impl_observer_function!(P1, P2, P3, P4, P5, P6, P7, P8, P9, P10);
impl_observer_function!(P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11);
impl_observer_function!(P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12);
impl_observer_function!(P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12, P13);
impl_observer_function!(P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12, P13, P14);
impl_observer_function!(P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12, P13, P14, P15);
