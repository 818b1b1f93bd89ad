//! Systems the world keeps and runs by id (bevy_ecs's one-shot systems):
//! [`World::register_system`], [`World::run_system`],
//! [`World::unregister_system`] and [`World::run_system_cached`].
//!
//! A registered system keeps its state between runs, as a system in a
//! schedule does: its `Local`s, and the tick of its last run, so `Changed<T>`
//! and `Added<T>` see what changed since then. The world keeps the systems in
//! a resource of its own; a run takes the system out of it, so that the system
//! may use the whole world (and run other registered systems), and puts it
//! back after.

use core::any::{Any, TypeId};
use core::marker::PhantomData;

use super::{FunctionSystem, SystemInput, SystemParamFunction};
use crate::error::EcsError;
use crate::hashers::TypeIdMap;
use crate::world::{World, WorldId};

/// The id of a system registered with [`World::register_system`]: run it with
/// [`World::run_system`] (or [`Commands::run_system`](crate::command::Commands::run_system)).
/// `I` is the system's input (`()`, or [`In<T>`](super::In) for a system
/// taking one, run with [`World::run_system_with`]) and `O` its output. Ids are not reused: once its system is unregistered, an id
/// names nothing.
pub struct SystemId<I = (), O = ()> {
    world: WorldId,
    index: u32,
    generation: u32,
    marker: PhantomData<fn(I) -> O>,
}

impl<I, O> Clone for SystemId<I, O> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<I, O> Copy for SystemId<I, O> {}

impl<I, O> PartialEq for SystemId<I, O> {
    fn eq(&self, other: &Self) -> bool {
        (self.world, self.index, self.generation) == (other.world, other.index, other.generation)
    }
}

impl<I, O> Eq for SystemId<I, O> {}

impl<I, O> core::hash::Hash for SystemId<I, O> {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        (self.world, self.index, self.generation).hash(state);
    }
}

impl<I, O> core::fmt::Debug for SystemId<I, O> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "SystemId({}v{})", self.index, self.generation)
    }
}

/// A system the world keeps, run by id, given `I`, returning `O`.
trait Registered<I, O>: Send + Sync {
    fn run(&mut self, input: I, world: &mut World) -> Result<O, EcsError>;
    fn name(&self) -> &'static str;
}

/// A registered system, boxed, as [`IntoRegisteredSystem`] makes it.
#[doc(hidden)]
pub struct RegisteredBox<I, O>(Box<dyn Registered<I, O>>);

/// Something [`World::register_system`] can keep: a function whose parameters
/// are all system parameters, returning anything, or a function of
/// `&mut World`. `Marker` tells the implementations apart.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be registered as a system",
    label = "not a system",
    note = "a registered system is a function whose parameters are all system parameters (`Query`, `Res`, \
            `ResMut`, `Option<Res>`, `Local`, `Commands`, `&World`, at most 16), or a function taking only \
            `&mut World`"
)]
pub trait IntoRegisteredSystem<Marker>: Send + Sync + 'static {
    /// What the system takes: `()`, or [`In<T>`](super::In).
    type In: SystemInput;
    /// What the system returns.
    type Out: 'static;
    #[doc(hidden)]
    fn __into_registered(self) -> RegisteredBox<Self::In, Self::Out>;
}

/// A function system, registered.
struct RegisteredFunction<Marker: 'static, F: SystemParamFunction<Marker>>(FunctionSystem<Marker, F>);

impl<Marker: 'static, F: SystemParamFunction<Marker>> Registered<F::In, F::Out> for RegisteredFunction<Marker, F>
where
    FunctionSystem<Marker, F>: Send + Sync,
{
    fn run(&mut self, input: F::In, world: &mut World) -> Result<F::Out, EcsError> {
        world.check_change_ticks_if_due();
        // Slotted, as a schedule's system: a restore rewinds its last run and
        // saves keep its `Local`s.
        self.0.init(world);
        self.0.validate(world)?;
        let system = &mut self.0;
        // SAFETY: `&mut World` excludes every other access for the call; the
        // state was made for this world (`init`).
        let ran =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { system.call_reporting(input, world) }));
        // Its commands are applied, after a panic too: they are never kept
        // for a later run, nor lost.
        match ran {
            Ok(out) => {
                self.0.apply_deferred(world);
                out
            }
            Err(panic) => {
                drop(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.0.apply_deferred(world))));
                std::panic::resume_unwind(panic)
            }
        }
    }

    fn name(&self) -> &'static str {
        self.0.meta().name()
    }
}

/// Marks the [`IntoRegisteredSystem`] implementation for functions of `&mut World`.
pub struct IsExclusiveRegistered<Out>(PhantomData<fn() -> Out>);

/// A function of `&mut World`, registered.
struct RegisteredExclusive<F>(F);

impl<O, F: FnMut(&mut World) -> O + Send + Sync> Registered<(), O> for RegisteredExclusive<F> {
    fn run(&mut self, (): (), world: &mut World) -> Result<O, EcsError> {
        Ok((self.0)(world))
    }

    fn name(&self) -> &'static str {
        core::any::type_name::<F>()
    }
}

impl<Marker: 'static, F: SystemParamFunction<Marker>> IntoRegisteredSystem<(Marker, F::Out)> for F
where
    F::Out: 'static,
    FunctionSystem<Marker, F>: Send + Sync,
{
    type In = F::In;
    type Out = F::Out;

    #[track_caller]
    fn __into_registered(self) -> RegisteredBox<F::In, F::Out> {
        RegisteredBox(Box::new(RegisteredFunction(FunctionSystem::new(self))))
    }
}

impl<O: 'static, F: FnMut(&mut World) -> O + Send + Sync + 'static> IntoRegisteredSystem<IsExclusiveRegistered<O>>
    for F
{
    type In = ();
    type Out = O;

    fn __into_registered(self) -> RegisteredBox<(), O> {
        RegisteredBox(Box::new(RegisteredExclusive(self)))
    }
}

/// Why a capturing closure is refused by the cached runs.
const CAPTURING: &str = "run_system_cached keeps one system per function type: pass a function, or a closure that \
                         captures nothing (register a capturing closure with register_system)";

/// Where a registered system lives.
struct Slot {
    generation: u32,
    /// The system, a `RegisteredBox<O>`; `None` once the slot is free, or,
    /// for an id of the slot's generation, while it runs (taken out: a run
    /// asked meanwhile is refused).
    system: Option<Box<dyn Any + Send + Sync>>,
    /// Its name, for the error of a run asked while it runs.
    name: &'static str,
    /// Reserved by `Commands::register_system` for a system its command has
    /// not put in yet: runs of the id are refused as unknown until then.
    reserved: bool,
}

/// The world's registered systems (a resource of the crate's own).
#[derive(Default)]
struct RegisteredSystems {
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// [`World::run_system_cached`]'s systems, by the function's type.
    cached: TypeIdMap<(u32, u32)>,
}

impl World {
    /// An id for a system that a command registers later
    /// ([`Commands::register_system`](crate::command::Commands::register_system)):
    /// a fresh slot past those the world has, counted through `&self` as
    /// entity reservations are.
    pub(crate) fn reserve_system_id<I, O>(&self) -> SystemId<I, O> {
        let registered = self.get_resource::<RegisteredSystems>().map_or(0, |systems| systems.slots.len());
        let offset = self.reserved_systems.fetch_add(1, core::sync::atomic::Ordering::Relaxed) as usize;
        let index = registered
            .checked_add(offset)
            .and_then(|index| u32::try_from(index).ok())
            .expect("fewer than 2^32 registered systems");
        SystemId { world: self.id(), index, generation: 0, marker: PhantomData }
    }

    /// The registry, with every reserved id made a slot, marked reserved:
    /// called before the slot list grows otherwise, so a reserved index is
    /// never handed out twice.
    fn flush_reserved_systems(&mut self) -> &mut RegisteredSystems {
        let pending = core::mem::take(self.reserved_systems.get_mut());
        self.unfilled_systems += pending;
        let systems = self.get_resource_or_init::<RegisteredSystems>();
        for _ in 0..pending {
            systems.slots.push(Slot { generation: 0, system: None, name: "", reserved: true });
        }
        systems
    }

    /// The name of the registered system `id` (`""` for an id that names none).
    pub(crate) fn registered_system_name<I, O>(&self, id: SystemId<I, O>) -> &'static str {
        self.get_resource::<RegisteredSystems>()
            .and_then(|systems| systems.slots.get(id.index as usize))
            .filter(|slot| slot.generation == id.generation)
            .map_or("", |slot| slot.name)
    }

    /// Frees the slots reserved by `Commands::register_system` whose command
    /// never ran (its queue was dropped), as `release_reserved_entities` does
    /// entity handles; the same moments call both (see [`release_reserved`](Self::release_reserved)).
    fn release_reserved_systems(&mut self) {
        // Two plain reads at every sync point; the walk only after a dropped
        // `register_system` command.
        if *self.reserved_systems.get_mut() == 0 && self.unfilled_systems == 0 {
            return;
        }
        let systems = self.flush_reserved_systems();
        for index in 0..systems.slots.len() {
            if systems.slots[index].reserved {
                systems.retire(index as u32);
            }
        }
        self.unfilled_systems = 0;
    }

    /// Frees what commands reserved and never used: entity handles and
    /// registered systems' ids. Call it only when every queue that could
    /// still use them has been applied (a schedule's sync point).
    pub(crate) fn release_reserved(&mut self) {
        self.release_reserved_entities();
        self.release_reserved_systems();
    }

    /// Puts `system` into the slot reserved for `id` (the command of
    /// `Commands::register_system`).
    ///
    /// # Errors
    /// [`EcsError::UnknownSystem`] when the id was unregistered meanwhile
    /// (the system is dropped).
    pub(crate) fn fill_reserved_system<I: 'static, O: 'static>(
        &mut self,
        id: SystemId<I, O>,
        system: RegisteredBox<I, O>,
    ) -> Result<(), EcsError> {
        let name = system.0.name();
        let system: Box<dyn Any + Send + Sync> = Box::new(system);
        let systems = self.flush_reserved_systems();
        let slot = systems.slot(id).filter(|slot| slot.reserved).ok_or(EcsError::UnknownSystem)?;
        (slot.system, slot.name, slot.reserved) = (Some(system), name, false);
        self.unfilled_systems -= 1;
        Ok(())
    }
}

impl RegisteredSystems {
    /// Ends the slot at `index`: a new generation, so its ids name nothing,
    /// and back on the free list. A generation that came all the way round
    /// would name old ids again: such a slot is never reused.
    fn retire(&mut self, index: u32) {
        let slot = &mut self.slots[index as usize];
        slot.reserved = false;
        slot.generation = slot.generation.wrapping_add(1);
        if slot.generation != 0 {
            self.free.push(index);
        }
    }

    /// The live slot `id` names.
    fn slot<I, O>(&mut self, id: SystemId<I, O>) -> Option<&mut Slot> {
        self.slots.get_mut(id.index as usize).filter(|slot| slot.generation == id.generation)
    }
}

impl World {
    /// Keeps `system` in the world, to be run by the id returned, as often as
    /// wanted ([`run_system`](Self::run_system)), until
    /// [`unregister_system`](Self::unregister_system). It keeps its state between
    /// runs: `Local`s, and the tick of its last run (`Changed<T>` sees what
    /// changed since).
    ///
    /// # Panics
    /// When two of the system's parameters conflict.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Enemy;
    /// fn spawn_wave(mut commands: Commands, mut wave: Local<u32>) {
    ///     *wave += 1;
    ///     for _ in 0..*wave { commands.spawn(Enemy); }
    /// }
    /// let mut world = World::new();
    /// let id = world.register_system(spawn_wave);
    /// world.run_system(id)?;
    /// world.run_system(id)?; // its `Local` remembers the first wave
    /// assert_eq!(world.query::<&Enemy>().iter().count(), 3);
    /// world.unregister_system(id)?;
    /// assert!(world.run_system(id).is_err());
    /// # Ok::<(), EcsError>(())
    /// ```
    #[track_caller]
    pub fn register_system<M, S: IntoRegisteredSystem<M>>(&mut self, system: S) -> SystemId<S::In, S::Out> {
        let RegisteredBox(boxed) = system.__into_registered();
        let name = boxed.name();
        let system: Box<dyn Any + Send + Sync> = Box::new(RegisteredBox(boxed));
        let world = self.id();
        let systems = self.flush_reserved_systems();
        let index = match systems.free.pop() {
            Some(index) => {
                let slot = &mut systems.slots[index as usize];
                (slot.system, slot.name) = (Some(system), name);
                index
            }
            None => {
                let index = u32::try_from(systems.slots.len()).expect("fewer than 2^32 registered systems");
                systems.slots.push(Slot { generation: 0, system: Some(system), name, reserved: false });
                index
            }
        };
        SystemId { world, index, generation: systems.slots[index as usize].generation, marker: PhantomData }
    }

    /// Runs the registered system `id` now, then applies its commands, and
    /// returns what it returned.
    ///
    /// # Errors
    /// [`EcsError::UnknownSystem`] when `id` names no system of this world;
    /// [`EcsError::SystemAlreadyRunning`] when the system is running (it asked
    /// for itself); the error of a parameter that skips the run (a missing
    /// resource, a [`Single`](crate::system::Single) without exactly one match).
    /// The system does not run then.
    ///
    /// # Panics
    /// When the system panics (its commands are applied first; it stays
    /// registered).
    pub fn run_system<O: 'static>(&mut self, id: SystemId<(), O>) -> Result<O, EcsError> {
        self.run_system_with(id, ())
    }

    /// [`run_system`](Self::run_system) for a system taking an
    /// [`In<T>`](super::In): runs it given `input`.
    ///
    /// # Errors
    /// As for [`run_system`](Self::run_system).
    ///
    /// # Panics
    /// As for [`run_system`](Self::run_system).
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Coin(u32);
    /// fn drop_coins(In(count): In<u32>, mut commands: Commands) -> u32 {
    ///     for value in 0..count { commands.spawn(Coin(value)); }
    ///     count
    /// }
    /// let mut world = World::new();
    /// let drop_coins = world.register_system(drop_coins);
    /// assert_eq!(world.run_system_with(drop_coins, 3)?, 3);
    /// assert_eq!(world.query::<&Coin>().iter().count(), 3);
    /// # Ok::<(), EcsError>(())
    /// ```
    pub fn run_system_with<I: SystemInput, O: 'static>(
        &mut self,
        id: SystemId<I, O>,
        input: I::Inner,
    ) -> Result<O, EcsError> {
        if id.world != self.id() {
            return Err(EcsError::UnknownSystem);
        }
        let systems = self.get_resource_mut::<RegisteredSystems>().ok_or(EcsError::UnknownSystem)?;
        let slot = systems.slot(id).filter(|slot| !slot.reserved).ok_or(EcsError::UnknownSystem)?;
        // A live slot without its system: the system is running.
        let Some(taken) = slot.system.take() else {
            return Err(EcsError::SystemAlreadyRunning { system: slot.name });
        };
        // An id is made only by `register_system` on this world, for a system
        // returning `O`: the type matches. Checked all the same, as the
        // slot's contents are only `Any`.
        let mut system = match taken.downcast::<RegisteredBox<I, O>>() {
            Ok(system) => system,
            Err(other) => {
                slot.system = Some(other);
                return Err(EcsError::UnknownSystem);
            }
        };
        let input = I::wrap(input);
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| system.0.run(input, self)));
        // Back in its slot, unless it was unregistered meanwhile, or the run
        // swapped this world for another (then it is dropped here).
        if id.world == self.id()
            && let Some(slot) = self.get_resource_mut::<RegisteredSystems>().and_then(|systems| systems.slot(id))
            && slot.system.is_none()
        {
            slot.system = Some(system);
        }
        match ran {
            Ok(out) => out,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }

    /// Drops the registered system `id`; the id then names nothing. A system
    /// may unregister itself while it runs (it is dropped when its run ends).
    ///
    /// # Errors
    /// [`EcsError::UnknownSystem`] when `id` names no system of this world.
    pub fn unregister_system<I, O>(&mut self, id: SystemId<I, O>) -> Result<(), EcsError> {
        if id.world != self.id() {
            return Err(EcsError::UnknownSystem);
        }
        let systems = self.get_resource_mut::<RegisteredSystems>().ok_or(EcsError::UnknownSystem)?;
        let slot = systems.slot(id).ok_or(EcsError::UnknownSystem)?;
        let system = slot.system.take();
        let was_reserved = slot.reserved;
        systems.retire(id.index);
        systems.cached.retain(|_, &mut (index, _)| index != id.index);
        if was_reserved {
            self.unfilled_systems -= 1;
        }
        // Dropped last: its drop may not find the registry borrowed.
        drop(system);
        Ok(())
    }

    /// Runs `system`, registered the first time it is asked for and kept
    /// since, by its type: each call of the same function runs the same
    /// registered system, with its state. `system` must be a function item or
    /// a closure capturing nothing (a compile error otherwise: two closures
    /// of one type capturing different values would share one state).
    ///
    /// # Errors
    /// As for [`run_system`](Self::run_system).
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// fn count(mut runs: Local<u32>) -> u32 {
    ///     *runs += 1;
    ///     *runs
    /// }
    /// let mut world = World::new();
    /// assert_eq!(world.run_system_cached(count)?, 1);
    /// assert_eq!(world.run_system_cached(count)?, 2);
    /// # Ok::<(), EcsError>(())
    /// ```
    #[track_caller]
    pub fn run_system_cached<M, S: IntoRegisteredSystem<M, In = ()>>(&mut self, system: S) -> Result<S::Out, EcsError> {
        // Asserted here, not only in the call below: the compiler reports the
        // instantiation that fails, which is then the caller's line.
        const { assert!(size_of::<S>() == 0, "{}", CAPTURING) }
        self.run_cached(system, ())
    }

    /// [`run_system_cached`](Self::run_system_cached) for a system taking an
    /// [`In<T>`](super::In): runs it given `input`.
    ///
    /// # Errors
    /// As for [`run_system`](Self::run_system).
    #[track_caller]
    pub fn run_system_cached_with<M, S: IntoRegisteredSystem<M>>(
        &mut self,
        system: S,
        input: <S::In as SystemInput>::Inner,
    ) -> Result<S::Out, EcsError> {
        const { assert!(size_of::<S>() == 0, "{}", CAPTURING) }
        self.run_cached(system, input)
    }

    /// The body of the cached runs, which check `S` captures nothing.
    #[track_caller]
    fn run_cached<M, S: IntoRegisteredSystem<M>>(
        &mut self,
        system: S,
        input: <S::In as SystemInput>::Inner,
    ) -> Result<S::Out, EcsError> {
        let key = TypeId::of::<S>();
        let world = self.id();
        let cached = self.get_resource_mut::<RegisteredSystems>().and_then(|systems| systems.cached.get(&key).copied());
        let id = match cached {
            Some((index, generation)) => SystemId { world, index, generation, marker: PhantomData },
            None => {
                let id = self.register_system(system);
                self.resource_mut::<RegisteredSystems>().cached.insert(key, (id.index, id.generation));
                id
            }
        };
        self.run_system_with(id, input)
    }
}
