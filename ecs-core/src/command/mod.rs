//! Deferred structural changes: [`Commands`] records spawns, inserts, removes,
//! despawns and arbitrary closures through a shared world, and a [`CommandQueue`]
//! applies them in order later, with `&mut World`.
//!
//! A spawned entity's handle is reserved at once (see `Entities::reserve_entity`),
//! so later commands, and later systems, can use it. A command whose entity no
//! longer exists is skipped and reported to the world's command error handler
//! (by default a line on stderr); it never panics, and the generation check keeps
//! it from touching an entity that reused the index.

mod systems;

use crate::bundle::Bundle;
use crate::entity::Entity;
use crate::error::EcsError;
use crate::event::{Event, EventPattern};
use crate::observer::{IntoObserverSystem, TriggerTargets};
use crate::panics::{catch_each, resume_deferred};
use crate::world::World;

type Command = Box<dyn Queued>;

/// A command in a queue: what it does when applied, and what it must still do
/// when the world abandons it unapplied (see [`CommandQueue::abandon`]).
trait Queued: Send + Sync {
    fn apply(self: Box<Self>, world: &mut World) -> Result<(), EcsError>;

    /// Nothing, for a command of the user's: dropping it is what abandoning means.
    fn abandon(self: Box<Self>, _world: &mut World, _upkeep: bool) {}
}

/// A user's command.
struct Plain<F>(F);

impl<F: FnOnce(&mut World) -> Result<(), EcsError> + Send + Sync> Queued for Plain<F> {
    #[inline]
    fn apply(self: Box<Self>, world: &mut World) -> Result<(), EcsError> {
        (self.0)(world)
    }
}

/// The crate's own upkeep (a relationship's list made or dropped): it keeps
/// the world consistent, so it runs even when its queue is abandoned.
struct Upkeep<F>(F);

impl<F: FnOnce(&mut World) + Send + Sync> Queued for Upkeep<F> {
    #[inline]
    fn apply(self: Box<Self>, world: &mut World) -> Result<(), EcsError> {
        (self.0)(world);
        Ok(())
    }

    fn abandon(self: Box<Self>, world: &mut World, upkeep: bool) {
        if upkeep {
            (self.0)(world);
        }
    }
}

/// `Commands::spawn`'s command: abandoned, it frees the handle it reserved,
/// which would otherwise name no entity and never be reused until the next
/// `release_reserved_entities`.
struct Spawn<F> {
    entity: Entity,
    spawn: F,
}

impl<F: FnOnce(&mut World) -> Result<(), EcsError> + Send + Sync> Queued for Spawn<F> {
    #[inline]
    fn apply(self: Box<Self>, world: &mut World) -> Result<(), EcsError> {
        (self.spawn)(world)
    }

    fn abandon(self: Box<Self>, world: &mut World, _upkeep: bool) {
        world.release_reserved_entity(self.entity);
    }
}

/// Commands recorded for later application.
#[derive(Default)]
pub struct CommandQueue {
    commands: Vec<Command>,
}

impl core::fmt::Debug for CommandQueue {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CommandQueue").field("len", &self.commands.len()).finish()
    }
}

impl CommandQueue {
    /// The number of commands waiting.
    pub fn len(&self) -> usize {
        self.commands.len()
    }

    /// `true` when no command waits.
    pub fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    /// Queues a command.
    pub(crate) fn push(&mut self, command: impl FnOnce(&mut World) -> Result<(), EcsError> + Send + Sync + 'static) {
        self.commands.push(Box::new(Plain(command)));
    }

    /// Queues the crate's own upkeep, which runs even when the queue is
    /// abandoned.
    pub(crate) fn push_upkeep(&mut self, upkeep: impl FnOnce(&mut World) + Send + Sync + 'static) {
        self.commands.push(Box::new(Upkeep(upkeep)));
    }

    /// Empties the queue without applying it, leaving the world as whole as
    /// applying would have: the crate's upkeep among the commands runs when
    /// `upkeep` is set, and each handle a dropped `spawn` reserved is freed.
    /// The user's commands are dropped. Every command is seen to even when
    /// one panics; the first panic is returned.
    pub(crate) fn abandon(&mut self, world: &mut World, upkeep: bool) -> crate::panics::DeferredPanic {
        catch_each(self.commands.drain(..), |command| command.abandon(world, upkeep))
    }

    /// Moves every command of `other` to the end of this queue.
    pub fn append(&mut self, other: &mut CommandQueue) {
        self.commands.append(&mut other.commands);
    }

    /// Applies every command in order, reporting (not panicking on) commands whose
    /// entity is gone.
    ///
    /// A command that panics (say, a component's `Drop` during a despawn) does not
    /// stop the queue: every later command still runs, so every handle `spawn`
    /// reserved becomes a live entity; then the first panic is resumed. The queue
    /// is empty afterwards either way.
    ///
    /// Handles reserved by `spawn` commands that are never applied (their queue was
    /// dropped) stay reserved until [`World::release_reserved_entities`]; a schedule
    /// calls it at every sync point.
    ///
    /// # Panics
    /// With the first panic of a command (or of the command error handler), after
    /// the whole queue ran.
    ///
    /// While the world is in the middle of an operation that runs hooks or
    /// observers (which is where their commands are applied from), the commands
    /// join the world's own queue instead, and run once that operation is
    /// complete.
    pub fn apply(&mut self, world: &mut World) {
        if world.is_deferring() {
            world.deferred.queue.append(self);
            return;
        }
        resume_deferred(catch_each(self.commands.drain(..), |command| {
            if let Err(error) = command.apply(world) {
                world.report_command_error(&error);
            }
        }));
    }
}

/// Commands for one entity, from [`Commands::entity`] or [`Commands::spawn`]:
/// each call records a command, applied in order with the queue.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// use ecs_core::command::{CommandQueue, Commands};
///
/// #[derive(Component, Debug, PartialEq)] struct Health(i32);
/// #[derive(Component)] struct Shield;
/// #[derive(Component)] struct Poisoned;
/// let mut world = World::new();
/// let hero = world.spawn((Health(10), Poisoned));
/// let mut queue = CommandQueue::default();
/// let mut commands = Commands::new(&mut queue, &world);
/// let minion = commands.spawn(Health(3)).insert(Shield).id();
/// commands.entity(hero).remove::<Poisoned>().insert(Shield);
/// queue.apply(&mut world);
/// assert!(world.has::<Shield>(minion) && world.has::<Shield>(hero));
/// assert!(!world.has::<Poisoned>(hero));
/// ```
pub struct EntityCommands<'a, 'w> {
    commands: &'a mut Commands<'w>,
    entity: Entity,
}

impl<'w> EntityCommands<'_, 'w> {
    /// The entity's handle.
    #[inline]
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// Inserts `bundle` into the entity (see [`World::insert`]).
    pub fn insert<B: Bundle>(&mut self, bundle: B) -> &mut Self {
        self.commands.insert(self.entity, bundle);
        self
    }

    /// Removes the components of `B` from the entity and drops them (see
    /// [`World::remove`]).
    pub fn remove<B: Bundle>(&mut self) -> &mut Self {
        self.commands.remove::<B>(self.entity);
        self
    }

    /// Despawns the entity (see [`World::despawn`]).
    pub fn despawn(&mut self) {
        self.commands.despawn(self.entity);
    }

    /// [`insert`](Self::insert), skipped without a report when the entity is
    /// gone by the time it is applied (bevy_ecs's `try_insert`).
    pub fn try_insert<B: Bundle>(&mut self, bundle: B) -> &mut Self {
        let entity = self.entity;
        self.commands.add(move |world| skip_if_gone(entity, world.insert(entity, bundle)));
        self
    }

    /// [`remove`](Self::remove), skipped without a report when the entity is
    /// gone.
    pub fn try_remove<B: Bundle>(&mut self) -> &mut Self {
        let entity = self.entity;
        self.commands.add(move |world| {
            skip_if_gone(
                entity,
                world.entity_mut(entity).map(|mut e| {
                    e.remove::<B>();
                }),
            )
        });
        self
    }

    /// [`despawn`](Self::despawn), skipped without a report when the entity is
    /// already gone (two systems despawning the same enemy, say).
    pub fn try_despawn(&mut self) {
        let entity = self.entity;
        self.commands.add(move |world| skip_if_gone(entity, world.despawn(entity)));
    }

    /// Adds an entity observer (see [`EntityWorldMut::observe`](crate::EntityWorldMut::observe)).
    pub fn observe<P: EventPattern, B: Bundle, M>(&mut self, observer: impl IntoObserverSystem<P, B, M>) -> &mut Self {
        let entity = self.entity;
        self.commands.add(move |world| {
            world.entity_mut(entity)?.observe(observer);
            Ok(())
        });
        self
    }

    /// Triggers `event` targeting this entity (see [`World::trigger_targets`]).
    pub fn trigger<E: Event>(&mut self, event: E) -> &mut Self {
        self.commands.trigger_targets(event, self.entity);
        self
    }

    /// The [`Commands`] these were made from, for commands about other entities.
    pub fn commands(&mut self) -> &mut Commands<'w> {
        self.commands
    }
}

impl core::fmt::Debug for EntityCommands<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("EntityCommands").field("entity", &self.entity).finish_non_exhaustive()
    }
}

/// Records structural changes to apply later. Made from a [`CommandQueue`] and the
/// world the commands are for; in systems, a parameter.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// use ecs_core::command::{CommandQueue, Commands};
///
/// #[derive(Component)] struct Health(i32);
/// let mut world = World::new();
/// let doomed = world.spawn(Health(0));
/// let mut queue = CommandQueue::default();
/// let mut commands = Commands::new(&mut queue, &world);
/// let child = commands.spawn(Health(10)).id(); // the handle is usable at once
/// commands.insert(child, Health(11));
/// commands.despawn(doomed);
/// queue.apply(&mut world);
/// assert_eq!(world.get::<Health>(child).map(|h| h.0), Some(11));
/// assert!(!world.contains(doomed));
/// ```
///
/// As a system parameter, the schedule applies the commands at the next sync
/// point (or the end of the run):
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(Component)] struct Health(i32);
/// #[derive(Component)] struct Corpse;
/// fn reaper(q: Query<(Entity, &Health)>, mut commands: Commands) {
///     for (e, h) in q.iter() {
///         if h.0 <= 0 { commands.entity(e).remove::<Health>().insert(Corpse); }
///     }
/// }
/// let mut world = World::new();
/// let dead = world.spawn(Health(0));
/// Schedule::new().add_systems(reaper).run(&mut world);
/// assert!(world.has::<Corpse>(dead) && !world.has::<Health>(dead));
/// ```
pub struct Commands<'w> {
    queue: &'w mut CommandQueue,
    world: &'w World,
}

impl<'w> Commands<'w> {
    /// Commands for `world`, recorded into `queue`.
    pub fn new(queue: &'w mut CommandQueue, world: &'w World) -> Self {
        Self { queue, world }
    }

    /// Spawns an entity with `bundle`, returning its [`EntityCommands`] for more
    /// commands (`.id()` is the handle). The handle is valid at once for other
    /// commands; the entity exists once the queue is applied.
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> EntityCommands<'_, 'w> {
        let entity = self.world.reserve_entity();
        let spawn = move |world: &mut World| world.spawn_reserved_entity(entity, bundle);
        self.queue.commands.push(Box::new(Spawn { entity, spawn }));
        EntityCommands { commands: self, entity }
    }

    /// Spawns an entity with no components, returning its [`EntityCommands`]
    /// (`commands.spawn_empty().insert(a)`).
    pub fn spawn_empty(&mut self) -> EntityCommands<'_, 'w> {
        self.spawn(())
    }

    /// Spawns an entity for each bundle of `bundles` (see
    /// [`World::spawn_batch`]); their handles are not known until the queue is
    /// applied (use [`spawn`](Self::spawn) for a handle at once).
    pub fn spawn_batch<I>(&mut self, bundles: I)
    where
        I: IntoIterator + Send + Sync + 'static,
        I::Item: Bundle,
    {
        self.run(move |world| {
            world.spawn_batch(bundles);
        });
    }

    /// Inserts (or replaces) a resource (see [`World::insert_resource`]).
    pub fn insert_resource<R: Send + Sync + 'static>(&mut self, resource: R) {
        self.run(move |world| {
            world.insert_resource(resource);
        });
    }

    /// Inserts `R`'s [`FromWorld`](crate::FromWorld) value unless the world
    /// has one (see [`World::init_resource`]).
    pub fn init_resource<R: crate::FromWorld + Send + Sync + 'static>(&mut self) {
        self.run(|world| world.init_resource::<R>());
    }

    /// Removes and drops a resource, if there is one (see
    /// [`World::remove_resource`]).
    pub fn remove_resource<R: Send + Sync + 'static>(&mut self) {
        self.run(|world| {
            world.remove_resource::<R>();
        });
    }

    /// Commands for `entity`, chained: `commands.entity(e).insert(a).remove::<B>()`.
    /// Nothing is checked now: each command is skipped and reported when it is
    /// applied if the entity is gone by then, as every command is.
    pub fn entity(&mut self, entity: Entity) -> EntityCommands<'_, 'w> {
        EntityCommands { commands: self, entity }
    }

    /// Inserts `bundle` into the entity (see [`World::insert`]).
    pub fn insert<B: Bundle>(&mut self, entity: Entity, bundle: B) {
        self.add(move |world| world.insert(entity, bundle));
    }

    /// Removes and drops whichever components of `B` the entity has, as
    /// [`EntityWorldMut::remove`](crate::EntityWorldMut::remove) and bevy_ecs do
    /// (`remove::<(Burning, Wet)>()` on an entity that is only burning removes
    /// `Burning`). Skipped, and reported, when the entity is gone.
    pub fn remove<B: Bundle>(&mut self, entity: Entity) {
        self.add(move |world| {
            world.entity_mut(entity)?.remove::<B>();
            Ok(())
        });
    }

    /// Despawns the entity (see [`World::despawn`]).
    pub fn despawn(&mut self, entity: Entity) {
        self.add(move |world| world.despawn(entity));
    }

    /// Triggers `event` for its observers (see [`World::trigger`]).
    pub fn trigger<E: Event>(&mut self, event: E) {
        self.run(move |world| world.trigger(event));
    }

    /// Triggers `event` for each target (see [`World::trigger_targets`]).
    pub fn trigger_targets<E: Event>(&mut self, event: E, targets: impl TriggerTargets + Send + Sync + 'static) {
        self.run(move |world| world.trigger_targets(event, targets));
    }

    /// Adds an observer (see [`World::add_observer`]) when the commands are applied.
    pub fn add_observer<P: EventPattern, B: Bundle, M>(&mut self, observer: impl IntoObserverSystem<P, B, M>) {
        self.run(move |world| {
            world.add_observer(observer);
        });
    }

    /// Writes a message (see [`World::write_message`]).
    pub fn write_message<M: crate::message::Message>(&mut self, message: M) {
        self.run(move |world| world.write_message(message));
    }

    /// Runs any closure on the world. Its error, if any, is reported like a
    /// command's.
    pub fn add(&mut self, command: impl FnOnce(&mut World) -> Result<(), EcsError> + Send + Sync + 'static) {
        self.queue.push(command);
    }

    /// Queues a closure on the world, bevy_ecs's name for a custom command:
    /// one that returns nothing, or a `Result` whose error is reported like
    /// a command's ([`add`](Self::add)).
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Default)] struct Spawned(u32);
    /// fn spawner(mut commands: Commands) {
    ///     commands.queue(|world: &mut World| world.resource_mut::<Spawned>().0 += 1);
    ///     commands.queue(|world: &mut World| world.despawn(Entity::PLACEHOLDER)); // reported
    /// }
    /// let mut world = World::new();
    /// world.init_resource::<Spawned>();
    /// world.run_system_once(spawner)?;
    /// assert_eq!(world.resource::<Spawned>().0, 1);
    /// # Ok::<(), EcsError>(())
    /// ```
    pub fn queue<O: CommandOutput>(&mut self, command: impl FnOnce(&mut World) -> O + Send + Sync + 'static) {
        self.add(move |world| command(world).into_result());
    }

    /// Runs a closure on the world that cannot fail.
    pub fn run(&mut self, f: impl FnOnce(&mut World) + Send + Sync + 'static) {
        self.add(move |world| {
            f(world);
            Ok(())
        });
    }
}

/// What a command queued with [`Commands::queue`] may return: nothing, or a
/// `Result` whose error is reported.
pub trait CommandOutput {
    /// The outcome as a command's.
    fn into_result(self) -> Result<(), EcsError>;
}

impl CommandOutput for () {
    fn into_result(self) -> Result<(), EcsError> {
        Ok(())
    }
}

impl<T> CommandOutput for Result<T, EcsError> {
    fn into_result(self) -> Result<(), EcsError> {
        self.map(drop)
    }
}

/// A command's outcome with its own entity missing not counted as an error
/// (the `try_` commands); any other error is still reported.
fn skip_if_gone(entity: Entity, result: Result<(), EcsError>) -> Result<(), EcsError> {
    match result {
        Err(EcsError::NoSuchEntity(missing)) if missing == entity => Ok(()),
        other => other,
    }
}
