//! [`SystemState`]: system parameters fetched from a world by hand, outside
//! any system (tools, tests, exclusive code that wants a query and a resource
//! at once).

use super::SystemMeta;
use super::param::{ReadOnlySystemParam, SystemParam};
use crate::world::{World, WorldId};

/// The state of system parameters `P` (a tuple of them, or one), made once
/// for a world and fetched from it whenever wanted, as a system's are when it
/// runs: `Local`s keep their values between fetches, and each fetch is a run
/// for change detection (`Changed<T>` sees what changed since the previous
/// fetch; the first sees everything).
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// use ecs_core::system::SystemState;
/// #[derive(Component)] struct Health(i32);
/// #[derive(Default)] struct Round(u32);
/// let mut world = World::new();
/// world.init_resource::<Round>();
/// world.spawn(Health(3));
/// let mut state: SystemState<(Query<&mut Health>, ResMut<Round>, Commands)> = SystemState::new(&mut world);
/// let (mut healths, mut round, mut commands) = state.get_mut(&mut world);
/// for health in &mut healths {
///     health.0 -= 1;
/// }
/// round.0 += 1;
/// commands.spawn(Health(10));
/// state.apply(&mut world); // the spawn
/// let mut read: SystemState<Query<&Health>> = SystemState::new(&mut world);
/// let total: i32 = read.get(&world).iter().map(|h| h.0).sum();
/// assert_eq!(total, 12);
/// ```
pub struct SystemState<P: SystemParam + 'static> {
    world: WorldId,
    meta: SystemMeta,
    state: P::State,
}

impl<P: SystemParam + 'static> SystemState<P> {
    /// Makes the parameters' state for `world`.
    ///
    /// # Panics
    /// When two of the parameters conflict (`Query<&mut T>` beside
    /// `Query<&T>`, `ResMut<R>` beside `Res<R>`).
    #[track_caller]
    pub fn new(world: &mut World) -> Self {
        let mut meta = SystemMeta::new(core::any::type_name::<P>());
        P::access(&mut meta);
        let state = P::init_state(world);
        Self { world: world.id(), meta, state }
    }

    /// The parameters of read-only `P`, fetched from `world` as one run.
    ///
    /// # Panics
    /// When `world` is not the world the state was made for, or a parameter
    /// cannot be fetched: a missing resource, a [`Single`](super::Single) or
    /// [`Populated`](super::Populated) whose query does not match as it needs.
    #[track_caller]
    pub fn get<'w>(&'w mut self, world: &'w World) -> P::Item<'w>
    where
        P: ReadOnlySystemParam,
    {
        // SAFETY: the parameters only read (`ReadOnlySystemParam`), and `world`
        // is borrowed shared for as long as their items live, so nothing
        // writes what they read meanwhile.
        unsafe { self.fetch(world) }
    }

    /// The parameters, fetched from `world` as one run. Their commands wait
    /// for [`apply`](Self::apply).
    ///
    /// # Panics
    /// As for [`get`](Self::get).
    #[track_caller]
    pub fn get_mut<'w>(&'w mut self, world: &'w mut World) -> P::Item<'w> {
        // SAFETY: `world` is borrowed exclusively for as long as the items live.
        unsafe { self.fetch(world) }
    }

    /// Applies what the parameters deferred (the commands of a `Commands`).
    ///
    /// # Panics
    /// When `world` is not the world the state was made for.
    #[track_caller]
    pub fn apply(&mut self, world: &mut World) {
        self.check_world(world);
        P::apply(&mut self.state, world);
    }

    /// # Safety
    /// The caller holds the parameters' access to `world` for `'w`.
    #[track_caller]
    unsafe fn fetch<'w>(&'w mut self, world: &'w World) -> P::Item<'w> {
        self.check_world(world);
        let name = self.meta.name();
        let fail =
            |error: crate::EcsError| -> ! { panic!("`SystemState<{name}>` cannot fetch its parameters: {error}") };
        if let Err(error) = P::validate(&self.state, world) {
            fail(error);
        }
        self.meta.this_run = world.increment_change_tick();
        if P::SKIPS {
            // SAFETY: the caller's.
            if let Err(error) = unsafe { P::check_run(&mut self.state, &self.meta, world) } {
                fail(error);
            }
        }
        // SAFETY: the caller's; the state was made for this world (checked).
        let item = unsafe { P::get_param(&mut self.state, &self.meta, world) };
        self.meta.last_run = self.meta.this_run;
        item
    }

    #[track_caller]
    fn check_world(&self, world: &World) {
        assert!(self.world == world.id(), "`SystemState<{}>` was made for another world", self.meta.name());
    }
}
