//! Function systems: `fn movement(q: Query<…>, dt: Res<DeltaTime>)` as a
//! [`System`], and exclusive `fn(&mut World)` systems.

use core::any::TypeId;
use core::marker::PhantomData;

use super::input::SystemInput;
use super::output::SystemOutput;
use super::param::{SystemParam, SystemParamItem};
use super::{System, SystemAccess, SystemMeta};
use crate::error::ErrorContext;
use crate::world::{World, WorldId};

/// Something that can become a [`System`]: a function of system parameters, a
/// function of `&mut World`, or a system. `Marker` tells the implementations apart.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a system",
    label = "not a system",
    note = "a system is a function whose parameters are all system parameters (`Query`, `Res`, `ResMut`, \
            `Option<Res>`, `Local`, `Commands`, `&World`, at most 16), or a function taking only `&mut World`; \
            either returns `()` or `Result` (its error goes to the world's error handler)"
)]
pub trait IntoSystem<Marker>: Sized {
    /// The system made.
    type System: System;
    /// Makes the system, recording and checking its parameters' access.
    ///
    /// # Panics
    /// When two parameters conflict (see [`SystemMeta::add_param`]).
    fn into_system(self) -> Self::System;
}

/// A function whose parameters are all [`SystemParam`]s, after an optional
/// [`In<T>`](super::In) input, as a callable.
pub trait SystemParamFunction<Marker>: Send + Sync + 'static {
    /// The input: `()` for a function without one, [`In<T>`](super::In) for a
    /// function whose first parameter is one.
    type In: SystemInput;
    /// The parameters, as a tuple.
    type Param: SystemParam;
    /// What the function returns: `()` for a system, `bool` for a run condition,
    /// anything for [`World::run_system_once`].
    type Out;
    /// Calls the function.
    fn run(&mut self, input: Self::In, params: SystemParamItem<'_, Self::Param>) -> Self::Out;
}

/// A function system: the function, its parameters' state and its metadata.
///
/// In declaration order: what every run reads (the meta's ticks at its end,
/// the slot, the state's start) sits together, on few cache lines (an
/// observer on each of many entities runs as many systems, each cold).
#[repr(C)]
pub struct FunctionSystem<Marker, F: SystemParamFunction<Marker>> {
    meta: SystemMeta,
    /// Where the world keeps this system's last run (none for a one-off run).
    slot: Option<usize>,
    state: Option<(WorldId, <F::Param as SystemParam>::State)>,
    func: F,
    marker: PhantomData<fn() -> Marker>,
}

/// A system's name: its function's path, as `core::any::type_name` gives it
/// (`game::movement`).
pub(crate) fn system_name<F>() -> &'static str {
    core::any::type_name::<F>()
}

/// The machinery every function system shares, whatever it returns: a system
/// (`()`), a run condition (`bool`), or a `run_system_once` call (anything).
impl<Marker: 'static, F: SystemParamFunction<Marker>> FunctionSystem<Marker, F> {
    /// The system, its parameters' access recorded.
    ///
    /// # Panics
    /// When two parameters conflict (see [`SystemMeta::add_param`]).
    #[track_caller]
    pub(crate) fn new(func: F) -> Self {
        Self::with_meta(func, SystemMeta::new(system_name::<F>()))
    }

    /// [`new`](Self::new) with `meta` holding access recorded already (a
    /// dynamic system's query), which the parameters are checked against.
    ///
    /// # Panics
    /// As for `new`.
    #[track_caller]
    pub(crate) fn with_meta(func: F, mut meta: SystemMeta) -> Self {
        <F::Param as SystemParam>::access(&mut meta);
        FunctionSystem { func, state: None, slot: None, meta, marker: PhantomData }
    }

    pub(crate) fn meta(&self) -> &SystemMeta {
        &self.meta
    }

    /// Makes the parameters' state for `world`, unless it is made already, and
    /// a slot in the world for the system's last run.
    pub(crate) fn init(&mut self, world: &mut World) {
        self.init_with(world, true);
    }

    /// [`init`](Self::init) for a system run once: the world keeps no slot for it.
    pub(crate) fn init_once(&mut self, world: &mut World) {
        self.init_with(world, false);
    }

    /// The check every run makes (an observer's `run` asks each time): kept
    /// small enough to inline, the making itself out of line.
    #[inline]
    fn init_with(&mut self, world: &mut World, slotted: bool) {
        if self.state.as_ref().is_none_or(|(id, _)| *id != world.id()) {
            self.make_state(world, slotted);
        }
    }

    #[cold]
    #[inline(never)]
    fn make_state(&mut self, world: &mut World, slotted: bool) {
        let mark = world.locals.mark();
        self.state = Some((world.id(), <F::Param as SystemParam>::init_state(world)));
        self.meta.last_run = crate::storage::Tick::new(0);
        self.slot = slotted.then(|| world.new_system_slot());
        if let Some(slot) = self.slot {
            world.locals.claim(mark, slot, self.meta.name());
        }
    }

    /// Whether the parameters can be made on `world` (see
    /// [`SystemParam::validate`]); `Ok` before [`init`](Self::init).
    pub(crate) fn validate(&self, world: &World) -> Result<(), crate::EcsError> {
        match &self.state {
            Some((_, state)) => <F::Param as SystemParam>::validate(state, world),
            None => Ok(()),
        }
    }

    /// [`call`](Self::call), with the reason a run was skipped (for
    /// a registered system's run, which returns it), given `input`.
    ///
    /// # Safety
    /// As for [`call`](Self::call).
    pub(crate) unsafe fn call_reporting(&mut self, input: F::In, world: &World) -> Result<F::Out, crate::EcsError> {
        let this_run = world.increment_change_tick();
        // SAFETY: forwarded.
        unsafe { self.run_at(input, world, this_run, core::convert::identity) }
    }

    /// One run given `input`, at the tick `this_run`; `None` when skipped.
    ///
    /// # Safety
    /// As for [`call`](Self::call).
    #[inline]
    pub(crate) unsafe fn call_at(
        &mut self,
        input: F::In,
        world: &World,
        this_run: crate::storage::Tick,
    ) -> Option<F::Out> {
        // The reason is dropped here: what a skipped run returns stays as small
        // as `Option<Out>` on every system's path.
        // SAFETY: forwarded.
        unsafe { self.run_at(input, world, this_run, |_| ()) }.ok()
    }

    /// One run at the tick `this_run`; `Err(skipped(reason))` when a
    /// parameter skipped it.
    ///
    /// # Safety
    /// As for [`call`](Self::call).
    #[inline(always)]
    pub(super) unsafe fn run_at<E>(
        &mut self,
        input: F::In,
        world: &World,
        this_run: crate::storage::Tick,
        skipped: impl FnOnce(crate::EcsError) -> E,
    ) -> Result<F::Out, E> {
        let (id, state) = self.state.as_mut().expect("the schedule initializes systems before running them");
        assert_eq!(*id, world.id(), "system `{}` was initialized for another world", self.meta.name());
        self.meta.this_run = this_run;
        if let Some(slot) = self.slot {
            // The world's record wins: a restore may have rewound it.
            self.meta.last_run = world.system_last_run(slot);
        }
        if <F::Param as SystemParam>::SKIPS {
            // SAFETY: as below. A skipped run leaves the last run as it was.
            unsafe { <F::Param as SystemParam>::check_run(state, &self.meta, world) }.map_err(skipped)?;
        }
        // SAFETY: the caller holds the system's access; the state is this world's.
        let params = unsafe { <F::Param as SystemParam>::get_param(state, &self.meta, world) };
        let out = self.func.run(input, params);
        self.meta.last_run = self.meta.this_run;
        if let Some(slot) = self.slot {
            world.set_system_last_run(slot, this_run);
        }
        Ok(out)
    }

    /// Applies the parameters' deferred work (commands).
    #[inline]
    pub(crate) fn apply_deferred(&mut self, world: &mut World) {
        if !<F::Param as SystemParam>::DEFERRED {
            return;
        }
        if let Some((_, state)) = &mut self.state {
            <F::Param as SystemParam>::apply(state, world);
        }
    }
}

/// The runs of a function without input.
impl<Marker: 'static, F: SystemParamFunction<Marker, In = ()>> FunctionSystem<Marker, F> {
    /// Calls the function with its parameters, as one run; `None` when a
    /// parameter skipped the run (see [`SystemParam::check_run`]).
    ///
    /// # Safety
    /// The caller holds the access the parameters recorded on `world`, for the
    /// call.
    #[inline]
    pub(crate) unsafe fn call(&mut self, world: &World) -> Option<F::Out> {
        let this_run = world.increment_change_tick();
        // SAFETY: forwarded.
        unsafe { self.call_at((), world, this_run) }
    }

    /// [`call`](Self::call) with the world borrowed mutably (an observer's run):
    /// the tick is taken with a plain add instead of a locked one.
    #[inline]
    pub(crate) fn call_mut(&mut self, world: &mut World) -> Option<F::Out> {
        let this_run = world.increment_change_tick_mut();
        // SAFETY: `&mut World` excludes every other access for the call.
        unsafe { self.call_at((), world, this_run) }
    }
}

impl<Marker: 'static, F: SystemParamFunction<Marker, In = ()>> IntoSystem<(Marker, ())> for F
where
    F::Out: SystemOutput,
{
    type System = FunctionSystem<Marker, F>;

    #[track_caller]
    fn into_system(self) -> Self::System {
        FunctionSystem::new(self)
    }
}

// SAFETY: the access is the parameters' own (`SystemParam::access`, an unsafe
// trait promising it covers `get_param`), recorded once in `into_system` and never
// changed; the system never needs `&mut World`.
unsafe impl<Marker: 'static, F: SystemParamFunction<Marker, In = ()>> System for FunctionSystem<Marker, F>
where
    F::Out: SystemOutput,
{
    fn name(&self) -> &'static str {
        self.meta.name()
    }
    fn access(&self) -> &SystemAccess {
        self.meta.access()
    }
    fn is_exclusive(&self) -> bool {
        false
    }
    fn label(&self) -> TypeId {
        TypeId::of::<F>()
    }
    fn initialize(&mut self, world: &mut World) {
        self.init(world);
    }
    unsafe fn run_unchecked(&mut self, world: &World) {
        // A skipped run is not an error: the system waits for its entity.
        // SAFETY: forwarded.
        if let Some(out) = unsafe { self.call(world) } {
            out.__handle(world, || ErrorContext::System { name: self.meta.name() });
        }
    }
    unsafe fn run_unchecked_at(&mut self, world: &World, this_run: crate::storage::Tick) {
        // SAFETY: forwarded.
        if let Some(out) = unsafe { self.call_at((), world, this_run) } {
            out.__handle(world, || ErrorContext::System { name: self.meta.name() });
        }
    }
    fn run_exclusive(&mut self, world: &mut World) {
        self.initialize(world);
        if let Some(out) = self.call_mut(world) {
            out.__handle(world, || ErrorContext::System { name: self.meta.name() });
        }
        self.apply(world);
    }
    fn apply(&mut self, world: &mut World) {
        self.apply_deferred(world);
    }
    fn has_deferred(&self) -> bool {
        <F::Param as SystemParam>::DEFERRED
    }
}

macro_rules! impl_system_function {
    ($($param:ident),*) => {
        #[allow(non_snake_case, reason = "parameters are named after their types")]
        impl<Out, Func, $($param: SystemParam),*> SystemParamFunction<fn($($param,)*) -> Out> for Func
        where
            Func: Send + Sync + 'static,
            for<'a> &'a mut Func: FnMut($($param),*) -> Out + FnMut($(SystemParamItem<'_, $param>),*) -> Out,
        {
            type In = ();
            type Param = ($($param,)*);
            type Out = Out;

            #[inline]
            fn run(&mut self, _: (), params: SystemParamItem<'_, ($($param,)*)>) -> Out {
                // Calling through a helper with the item types named explicitly lets
                // the compiler pick the `FnMut(items)` bound above. Always inlined:
                // as a generic function of its own it lands in another codegen unit
                // than its caller, and the call of the function behind it (a small
                // observer's whole body) then stays a call.
                #[allow(clippy::too_many_arguments)]
                #[inline(always)]
                fn call<Out, $($param,)*>(mut f: impl FnMut($($param,)*) -> Out, $($param: $param,)*) -> Out {
                    f($($param,)*)
                }
                let ($($param,)*) = params;
                call(self, $($param),*)
            }
        }
    };
}

impl_system_function!();
impl_system_function!(P0);
impl_system_function!(P0, P1);
impl_system_function!(P0, P1, P2);
impl_system_function!(P0, P1, P2, P3);
impl_system_function!(P0, P1, P2, P3, P4);
impl_system_function!(P0, P1, P2, P3, P4, P5);
impl_system_function!(P0, P1, P2, P3, P4, P5, P6);
impl_system_function!(P0, P1, P2, P3, P4, P5, P6, P7);
impl_system_function!(P0, P1, P2, P3, P4, P5, P6, P7, P8);
impl_system_function!(P0, P1, P2, P3, P4, P5, P6, P7, P8, P9);
impl_system_function!(P0, P1, P2, P3, P4, P5, P6, P7, P8, P9, P10);
impl_system_function!(P0, P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11);
impl_system_function!(P0, P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12);
impl_system_function!(P0, P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12, P13);
impl_system_function!(P0, P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12, P13, P14);
impl_system_function!(P0, P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12, P13, P14, P15);

/// An exclusive system: a function of `&mut World` (returning `()` or a
/// [`Result`](type@crate::error::Result)). It runs alone, after the commands
/// of earlier systems are applied.
pub struct ExclusiveSystem<F, Out = ()> {
    func: F,
    name: &'static str,
    access: SystemAccess,
    out: PhantomData<fn() -> Out>,
}

/// Marks the [`IntoSystem`] implementation for `fn(&mut World)`.
pub struct IsExclusive<Out = ()>(PhantomData<fn() -> Out>);

impl<Out: SystemOutput + 'static, F: FnMut(&mut World) -> Out + Send + Sync + 'static> IntoSystem<IsExclusive<Out>>
    for F
{
    type System = ExclusiveSystem<F, Out>;

    fn into_system(self) -> ExclusiveSystem<F, Out> {
        ExclusiveSystem { func: self, name: system_name::<F>(), access: SystemAccess::read_world(), out: PhantomData }
    }
}

// SAFETY: exclusive (always): it only ever runs through `run_exclusive`, with
// `&mut World`; `run_unchecked` touches nothing.
unsafe impl<Out: SystemOutput + 'static, F: FnMut(&mut World) -> Out + Send + Sync + 'static> System
    for ExclusiveSystem<F, Out>
{
    fn name(&self) -> &'static str {
        self.name
    }
    fn access(&self) -> &SystemAccess {
        &self.access
    }
    fn is_exclusive(&self) -> bool {
        true
    }
    fn label(&self) -> TypeId {
        TypeId::of::<F>()
    }
    fn initialize(&mut self, _: &mut World) {}
    unsafe fn run_unchecked(&mut self, _: &World) {
        unreachable!("exclusive systems run through `run_exclusive`")
    }
    fn run_exclusive(&mut self, world: &mut World) {
        let out = (self.func)(world);
        out.__handle(world, || ErrorContext::System { name: self.name });
    }
    fn apply(&mut self, _: &mut World) {}
    fn has_deferred(&self) -> bool {
        false
    }
}
