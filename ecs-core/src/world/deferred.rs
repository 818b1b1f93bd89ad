//! [`DeferredWorld`]: the world as hooks see it, in the middle of a structural
//! change.

use core::ops::Deref;

use super::{Mut, World};
use crate::command::{CommandQueue, Commands};
use crate::component::Component;
use crate::entity::Entity;
use crate::event::Event;
use crate::observer::TriggerTargets;

/// The world, for a component hook: read anything (it dereferences to
/// [`World`]), write components and resources, queue [`Commands`] and trigger
/// events — but not move entities between archetypes, since the structural
/// change that runs the hook is not complete. The commands run once it is.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// use ecs_core::component::HookContext;
/// use ecs_core::world::DeferredWorld;
///
/// #[derive(Component)] struct Armor(u32);
/// #[derive(Component)]
/// #[component(on_add = give_armor)]
/// struct Knight;
/// fn give_armor(mut world: DeferredWorld, ctx: HookContext) {
///     world.commands().entity(ctx.entity).insert(Armor(10));
/// }
///
/// let mut world = World::new();
/// let k = world.spawn(Knight);
/// assert_eq!(world.get::<Armor>(k).map(|a| a.0), Some(10));
/// ```
pub struct DeferredWorld<'w> {
    world: &'w mut World,
    /// Commands queued through [`commands`](Self::commands), handed to the
    /// world's deferred queue when this is dropped.
    queue: CommandQueue,
}

impl<'w> DeferredWorld<'w> {
    pub(crate) fn new(world: &'w mut World) -> Self {
        Self { world, queue: CommandQueue::default() }
    }

    /// The world itself, for the crate's own hooks (which keep its rules).
    pub(crate) fn world_mut_internal(&mut self) -> &mut World {
        self.world
    }

    /// The entity's `T`, mutably, if it has one; marked changed when written
    /// through.
    pub fn get_mut<T: Component + crate::component::MutableComponent + crate::component::WholeComponent>(
        &mut self,
        entity: Entity,
    ) -> Option<Mut<'_, T>> {
        self.world.get_mut::<T>(entity)
    }

    /// The resource `R`, mutably (marked changed).
    ///
    /// # Panics
    /// When no `R` is stored.
    #[track_caller]
    pub fn resource_mut<R: Send + Sync + 'static>(&mut self) -> &mut R {
        self.world.resource_mut::<R>()
    }

    /// The resource `R`, mutably, if stored (marked changed).
    pub fn get_resource_mut<R: Send + Sync + 'static>(&mut self) -> Option<&mut R> {
        self.world.get_resource_mut::<R>()
    }

    /// Commands, applied once the structural change running the hook is complete.
    pub fn commands(&mut self) -> Commands<'_> {
        Commands::new(&mut self.queue, self.world)
    }

    /// Triggers `event` now: its observers run before this returns (their own
    /// structural changes wait, like this hook's commands).
    pub fn trigger<E: Event>(&mut self, event: E) {
        // The world's own trigger: from a hook the world is mid-operation, so
        // the observers' commands wait for it as this hook's do.
        self.world.trigger(event);
    }

    /// Triggers `event` for each target now (see [`World::trigger_targets`]).
    pub fn trigger_targets<E: Event>(&mut self, event: E, targets: impl TriggerTargets) {
        self.world.trigger_targets(event, targets);
    }
}

impl Deref for DeferredWorld<'_> {
    type Target = World;
    fn deref(&self) -> &World {
        self.world
    }
}

impl Drop for DeferredWorld<'_> {
    fn drop(&mut self) {
        if !self.queue.is_empty() {
            self.world.deferred.queue.append(&mut self.queue);
        }
    }
}

impl core::fmt::Debug for DeferredWorld<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DeferredWorld").field("world", &self.world).finish_non_exhaustive()
    }
}
