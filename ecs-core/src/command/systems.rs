//! Commands that run, or drop, systems the world keeps
//! ([`World::register_system`]).

use super::Commands;
use crate::error::ErrorContext;
use crate::system::{IntoRegisteredSystem, SystemId, SystemInput, SystemOutput};
use crate::world::World;

impl Commands<'_> {
    /// Runs the registered system `id` when the commands are applied (see
    /// [`World::run_system`]). A system returning `Result` hands its error to
    /// the world's [error handler](World::set_error_handler); a run refused
    /// (an unknown id) is reported like a command's.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// use ecs_core::system::SystemId;
    /// #[derive(Default)] struct Score(u32);
    /// struct Bonus(SystemId);
    /// fn award(mut score: ResMut<Score>) { score.0 += 10; }
    /// fn on_combo(bonus: Res<Bonus>, mut commands: Commands) { commands.run_system(bonus.0); }
    /// let mut world = World::new();
    /// world.init_resource::<Score>();
    /// let award = world.register_system(award);
    /// world.insert_resource(Bonus(award));
    /// world.run_system_once(on_combo)?;
    /// assert_eq!(world.resource::<Score>().0, 10);
    /// # Ok::<(), EcsError>(())
    /// ```
    pub fn run_system<O: SystemOutput + 'static>(&mut self, id: SystemId<(), O>) {
        self.add(move |world| world.run_system(id).map(|out| handled(world, id, out)));
    }

    /// Runs the registered system `id`, which takes an
    /// [`In<T>`](crate::system::In), given `input`, when the commands are
    /// applied (see [`World::run_system_with`]).
    pub fn run_system_with<I, O>(&mut self, id: SystemId<I, O>, input: I::Inner)
    where
        I: SystemInput,
        I::Inner: Send + Sync + 'static,
        O: SystemOutput + 'static,
    {
        self.add(move |world| world.run_system_with(id, input).map(|out| handled(world, id, out)));
    }

    /// Registers `system` when the commands are applied (see
    /// [`World::register_system`]), returning its id at once: a run of it
    /// queued after this command finds it; a run asked before (or after the
    /// command was dropped unapplied) is refused as
    /// [`EcsError::UnknownSystem`](crate::EcsError::UnknownSystem).
    ///
    /// # Panics
    /// When two of the system's parameters conflict (here, as the system is
    /// made).
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// use ecs_core::system::SystemId;
    /// #[derive(Default)] struct Score(u32);
    /// struct Bonus(SystemId);
    /// fn setup(mut commands: Commands) {
    ///     let bonus = commands.register_system(|mut score: ResMut<Score>| score.0 += 10);
    ///     commands.insert_resource(Bonus(bonus));
    ///     commands.run_system(bonus);
    /// }
    /// let mut world = World::new();
    /// world.init_resource::<Score>();
    /// world.run_system_once(setup)?;
    /// assert_eq!(world.resource::<Score>().0, 10);
    /// let bonus = world.resource::<Bonus>().0;
    /// world.run_system(bonus)?;
    /// assert_eq!(world.resource::<Score>().0, 20);
    /// # Ok::<(), EcsError>(())
    /// ```
    #[track_caller]
    pub fn register_system<M, S: IntoRegisteredSystem<M>>(&mut self, system: S) -> SystemId<S::In, S::Out> {
        let system = system.__into_registered();
        let id = self.world.reserve_system_id();
        self.add(move |world| world.fill_reserved_system(id, system));
        id
    }

    /// Runs `system` when the commands are applied, registered by its type
    /// (see [`World::run_system_cached`]).
    #[track_caller]
    pub fn run_system_cached<M: 'static, S: IntoRegisteredSystem<M, In = ()>>(&mut self, system: S)
    where
        S::Out: SystemOutput,
    {
        self.add(move |world: &mut World| {
            let name = core::any::type_name::<S>();
            world.run_system_cached(system).map(|out| out.__handle(world, || ErrorContext::System { name }))
        });
    }

    /// Drops the registered system `id` when the commands are applied (see
    /// [`World::unregister_system`]).
    pub fn unregister_system<I: 'static, O: 'static>(&mut self, id: SystemId<I, O>) {
        self.add(move |world| world.unregister_system(id));
    }
}

/// Hands what a system run by a command returned to the world's error
/// handler, naming the system: no caller is there to take a `Result`.
fn handled<I, O: SystemOutput + 'static>(world: &World, id: SystemId<I, O>, out: O) {
    out.__handle(world, || ErrorContext::System { name: world.registered_system_name(id) });
}
