//! Observers: systems that run the moment an event is triggered.
//!
//! `world.add_observer(|trigger: On<Hit>, mut q: Query<&mut Health>| …)` makes
//! an observer of the event `Hit`; `world.trigger(Hit(3))` (or
//! `world.trigger_targets(Hit(3), enemy)`, or the same through
//! [`Commands`](crate::command::Commands)) runs every observer of it before it
//! returns. An observer is a system: its parameters are any system parameters
//! after the [`On`], which hands it the event and its target.
//!
//! - **Lifecycle events.** [`Add`](crate::event::Add),
//!   [`Insert`](crate::event::Insert), [`Discard`](crate::event::Discard),
//!   [`Remove`](crate::event::Remove) and [`Despawn`](crate::event::Despawn)
//!   are triggered by the world itself, once per component, targeting the entity:
//!   `On<Add<Health>>` observes `Health` being added, `On<Add>` any
//!   component. See [`ComponentHooks`](crate::component::ComponentHooks) for the
//!   order of hooks and observers.
//! - **Entity observers.** `world.entity_mut(e)?.observe(|trigger: On<Hit>| …)`
//!   runs only for events targeting `e`, and is removed when `e` is despawned.
//! - **Observers are entities.** [`World::add_observer`] returns the observer's
//!   entity (it holds an [`Observer`] component); despawning it removes the
//!   observer.
//! - **Structural changes are deferred.** An observer changes the world's
//!   structure through `Commands`; those run once the triggering call (or the
//!   structural change that triggered a lifecycle event) is complete, in rounds:
//!   commands queued while applying a round form the next. Observers that keep
//!   triggering each other without end are stopped after
//!   [`MAX_OBSERVER_ROUNDS`] rounds (or [`MAX_TRIGGER_DEPTH`] nested triggers) by a
//!   panic naming the event, never by a stack overflow; the world stays
//!   consistent: the cycle's remaining commands are dropped, but not the
//!   world's own relationship upkeep among them, and the handles their spawns
//!   reserved are freed.
//!
//! Unlike bevy_ecs, an observer that triggers an event does so through `Commands`
//! (or a hook's `DeferredWorld`), so it never re-enters itself on the stack.
//!
//! # Example
//! ```
//! use ecs_core::prelude::*;
//!
//! #[derive(Component)] struct Health(i32);
//! #[derive(Event)] struct Hit(i32);
//!
//! let mut world = World::new();
//! let orc = world.spawn(Health(5));
//! world.add_observer(|trigger: On<Hit>, mut healths: Query<&mut Health>, mut commands: Commands| {
//!     let target = trigger.target();
//!     let health = healths.get_mut(target).unwrap();
//!     health.0 -= trigger.0;
//!     if health.0 <= 0 {
//!         commands.entity(target).despawn();
//!     }
//! });
//! world.trigger_targets(Hit(3), orc);
//! assert_eq!(world.get::<Health>(orc).map(|h| h.0), Some(2));
//! world.trigger_targets(Hit(3), orc);
//! assert!(!world.contains(orc));
//! ```

mod runner;
mod targets;
mod trigger;

pub(crate) use runner::ObserverRunner;
pub use runner::{BoxedObserver, IntoObserverSystem};
pub(crate) use trigger::{CurrentTrigger, TriggerContext};
pub use trigger::{On, TriggerTargets};

use core::any::TypeId;

use crate::bundle::Bundle;
use crate::component::{ComponentId, HookContext, Lifecycle};
use crate::entity::Entity;
use crate::event::{AddEvent, DespawnEvent, DiscardEvent, Event, EventPattern, InsertEvent, RemoveEvent};
use crate::world::{DeferredWorld, World};

/// How many rounds of commands queued by observers and hooks one structural
/// change or trigger may cause before the world calls it a runaway cycle.
pub const MAX_OBSERVER_ROUNDS: u32 = 1024;

/// How deep triggers may nest (a hook triggering an event whose observer's
/// lifecycle event runs a hook that triggers …) before the world calls it a
/// runaway cycle.
pub const MAX_TRIGGER_DEPTH: u32 = 64;

/// The component of an observer's entity: despawn the entity (or remove this
/// component) to remove the observer.
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(Event)] struct Ping;
/// #[derive(Default)] struct Pings(u32);
/// let mut world = World::new();
/// world.insert_resource(Pings::default());
/// let observer = world.add_observer(|_: On<Ping>, mut n: ResMut<Pings>| n.0 += 1);
/// assert!(world.get::<ecs_core::observer::Observer>(observer).is_some());
/// world.trigger(Ping);
/// world.despawn(observer)?;
/// world.trigger(Ping);
/// assert_eq!(world.resource::<Pings>().0, 1);
/// # Ok::<(), EcsError>(())
/// ```
#[derive(Debug)]
pub struct Observer {
    slot: u32,
    event: &'static str,
}

// Written out rather than derived, so that "the trait `Component` is implemented
// for `Observer`" never shows up in a user's error message.
#[diagnostic::do_not_recommend]
impl crate::Component for Observer {
    const HOOKS: crate::component::ComponentHooks = crate::component::ComponentHooks {
        on_remove: Some(Observer::unregister),
        ..crate::component::ComponentHooks::NONE
    };
}

crate::component_bundle!(Observer);

impl Observer {
    /// The name of the event type the observer watches.
    pub fn event_name(&self) -> &'static str {
        self.event
    }

    fn unregister(mut world: DeferredWorld, ctx: HookContext) {
        let Some(slot) = world.get::<Observer>(ctx.entity).map(|o| o.slot) else { return };
        world.world_mut_internal().observers.unregister(slot, ctx.entity);
    }
}

/// On an entity with entity observers: their entities, despawned with it.
#[derive(Debug, Default)]
pub(crate) struct ObservedBy(pub(crate) Vec<Entity>);

#[diagnostic::do_not_recommend]
impl crate::Component for ObservedBy {
    const STORAGE: crate::StorageType = crate::StorageType::Sparse;
    const HOOKS: crate::component::ComponentHooks = crate::component::ComponentHooks {
        on_remove: Some(ObservedBy::despawn_observers),
        ..crate::component::ComponentHooks::NONE
    };
}

crate::component_bundle!(ObservedBy);

impl ObservedBy {
    fn despawn_observers(mut world: DeferredWorld, ctx: HookContext) {
        let observers = world.get::<ObservedBy>(ctx.entity).map(|o| o.0.clone()).unwrap_or_default();
        let mut commands = world.commands();
        for observer in observers {
            // An observer despawned by hand already is skipped quietly.
            commands.run(move |world| {
                let _ = world.despawn(observer);
            });
        }
    }
}

/// One registered observer, as a trigger reads it: small, so that the slots
/// of observers triggered one after another (an observer on each of many
/// entities) share cache lines. What registration needs is in [`Watch`].
struct Slot {
    /// The observer's entity (holding its [`Observer`] component).
    entity: Entity,
    /// The system; taken out while it runs.
    runner: Option<Box<dyn ObserverRunner>>,
}

/// What an observer watches, beside its [`Slot`].
struct Watch {
    event: TypeId,
    /// Components watched (lifecycle events); empty for "any".
    components: Box<[ComponentId]>,
    /// The only entity it observes, for entity observers.
    target: Option<Entity>,
}

impl Watch {
    /// A free slot's: nothing.
    fn vacant() -> Self {
        Watch { event: TypeId::of::<()>(), components: Box::new([]), target: None }
    }
}

/// The observers of one event type, by what they watch.
struct EventObservers {
    /// The event type.
    event: TypeId,
    /// Observers of every trigger of the event.
    global: Vec<u32>,
    /// Observers of a lifecycle event for given components, by component index.
    by_component: Vec<Vec<u32>>,
    /// Entity observers, by target.
    by_target: targets::TargetObservers,
}

/// Which list of an [`EventObservers`] to walk.
#[derive(Clone, Copy)]
enum List {
    Global,
    Component(ComponentId),
    Target(Entity),
}

/// Every observer of a world.
#[derive(Default)]
pub(crate) struct Observers {
    slots: Vec<Option<Slot>>,
    /// What the observer in the slot of the same index watches (stale for a
    /// free slot).
    watches: Vec<Watch>,
    free: Vec<u32>,
    /// The index in `lists` of each observed event type.
    events: crate::hashers::TypeIdMap<usize>,
    lists: Vec<EventObservers>,
    /// The index in `lists` of the event looked up last: a game triggers the
    /// same event many times in a row, and comparing one `TypeId` is cheaper
    /// than a hash probe. Lists are never removed, so a stale index stays in
    /// bounds and merely misses.
    last_index: usize,
    /// The name of the event triggered last, for the runaway-cycle message.
    pub(crate) last_event: Option<fn() -> &'static str>,
    /// The lifecycle events some observer ever watched, as `Lifecycle` flags:
    /// asked on every observed insert, despawn and remove, so a world whose
    /// observers watch other events pays no hash probe there.
    lifecycle_watched: u8,
}

impl Observers {
    fn register(&mut self, slot: Slot, watch: Watch) -> u32 {
        let next = self.lists.len();
        let event = *self.events.entry(watch.event).or_insert(next);
        if event == next {
            for kind in Lifecycle::ALL {
                if crate::event::lifecycle_value(kind).0 == watch.event {
                    self.lifecycle_watched |= kind.flag();
                }
            }
            self.lists.push(EventObservers {
                event: watch.event,
                global: Vec::new(),
                by_component: Vec::new(),
                by_target: targets::TargetObservers::default(),
            });
        }
        let event = &mut self.lists[event];
        let index = match self.free.pop() {
            Some(index) => index,
            None => {
                assert!(self.slots.len() < targets::MAX_SLOTS, "fewer than 2^31 observers");
                self.slots.push(None);
                self.watches.push(Watch::vacant());
                self.slots.len() as u32 - 1
            }
        };
        match (watch.target, watch.components.is_empty()) {
            (Some(target), _) => event.by_target.insert(target, index),
            (None, true) => event.global.push(index),
            (None, false) => {
                for &component in watch.components.iter() {
                    if event.by_component.len() <= component.index() {
                        event.by_component.resize_with(component.index() + 1, Vec::new);
                    }
                    event.by_component[component.index()].push(index);
                }
            }
        }
        self.slots[index as usize] = Some(slot);
        self.watches[index as usize] = watch;
        index
    }

    /// Removes the observer in `index` if it belongs to `entity`.
    fn unregister(&mut self, index: u32, entity: Entity) {
        let Some(slot) = self.slots.get_mut(index as usize).filter(|s| s.as_ref().is_some_and(|s| s.entity == entity))
        else {
            return;
        };
        // Dropped once the lists are mended: dropping the system runs the
        // drops of what its closure holds.
        let _slot = slot.take();
        self.free.push(index);
        let watch = core::mem::replace(&mut self.watches[index as usize], Watch::vacant());
        let Some(&event) = self.events.get(&watch.event) else { return };
        let event = &mut self.lists[event];
        let forget = |list: &mut Vec<u32>| list.retain(|&i| i != index);
        match watch.target {
            Some(target) => event.by_target.remove(target, index),
            None => {
                forget(&mut event.global);
                for component in watch.components.iter() {
                    if let Some(list) = event.by_component.get_mut(component.index()) {
                        forget(list);
                    }
                }
            }
        }
    }

    /// The index of the observers of an event type, if some observer ever
    /// watched it.
    #[inline]
    fn index_of(&mut self, event: TypeId) -> Option<usize> {
        let last = self.last_index;
        if self.lists.get(last).is_some_and(|list| list.event == event) {
            return Some(last);
        }
        let index = self.events.get(&event).copied()?;
        self.last_index = index;
        Some(index)
    }

    /// `true` when some observer ever watched the lifecycle event `kind`.
    #[inline]
    pub(crate) fn watches_lifecycle(&self, kind: Lifecycle) -> bool {
        self.lifecycle_watched & kind.flag() != 0
    }

    /// `true` when some observer ever watched what replacing a held value
    /// triggers ([`Discard`](crate::event::Discard) of the old one,
    /// [`Insert`](crate::event::Insert) of the new one): until then, a
    /// replace needs only the component's hooks.
    #[inline]
    pub(crate) fn watches_replace(&self) -> bool {
        self.lifecycle_watched & (Lifecycle::Discard.flag() | Lifecycle::Insert.flag()) != 0
    }

    /// Observer `i` of a list, and the list's length.
    #[inline]
    fn nth(&self, event: usize, list: List, i: usize) -> Option<(u32, usize)> {
        let event = &self.lists[event];
        let list = match list {
            List::Global => &event.global,
            List::Component(c) => event.by_component.get(c.index())?,
            List::Target(t) => event.by_target.get(t),
        };
        Some((*list.get(i)?, list.len()))
    }

    /// The number of registered observers.
    pub(crate) fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

/// An observer's run in progress: when it ends, normally or by a panic, the
/// world's outer trigger context comes back and the runner returns to its slot
/// (unless the observer was despawned meanwhile). A guard rather than
/// `catch_unwind`: the normal path costs only the restoring stores.
struct Running<'w> {
    world: &'w mut World,
    index: u32,
    observer: Entity,
    runner: Option<Box<dyn ObserverRunner>>,
    outer: Option<CurrentTrigger>,
}

impl Running<'_> {
    /// Puts back what the run took.
    #[inline(always)]
    fn restore(&mut self) {
        self.world.trigger_context = self.outer.take();
        if let Some(Some(slot)) = self.world.observers.slots.get_mut(self.index as usize) {
            if slot.entity == self.observer && slot.runner.is_none() {
                slot.runner = self.runner.take();
            }
        }
    }

    /// The end of a run that returned: [`restore`](Self::restore) inline, where
    /// the drop glue (kept for unwinding) is a call on every observer's path.
    #[inline(always)]
    fn end(mut self) {
        self.restore();
        // A runner whose slot went meanwhile is dropped here, not leaked.
        let runner = self.runner.take();
        core::mem::forget(self);
        drop(runner);
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.restore();
    }
}

/// A list's only observer (`Ok`), or `Err` when it has several: `None` when empty.
#[inline(always)]
fn one_or_more(list: &[u32]) -> Option<Result<u32, ()>> {
    match *list {
        [] => None,
        [only] => Some(Ok(only)),
        _ => Some(Err(())),
    }
}

/// The lifecycle kind of an event type, if it is one of the five.
fn lifecycle_of(event: TypeId) -> Option<Lifecycle> {
    [
        (TypeId::of::<AddEvent>(), Lifecycle::Add),
        (TypeId::of::<InsertEvent>(), Lifecycle::Insert),
        (TypeId::of::<DiscardEvent>(), Lifecycle::Discard),
        (TypeId::of::<RemoveEvent>(), Lifecycle::Remove),
        (TypeId::of::<DespawnEvent>(), Lifecycle::Despawn),
    ]
    .into_iter()
    .find_map(|(id, kind)| (id == event).then_some(kind))
}

impl World {
    /// Adds an observer of the event `E` (for lifecycle events, of components `B`)
    /// and returns its entity; despawn that to remove the observer.
    ///
    /// The observer is a function (or closure) whose first parameter is a
    /// [`On<E, B>`](On) and whose others are any system parameters.
    ///
    /// # Example
    /// ```
    /// use ecs_core::prelude::*;
    /// use ecs_core::event::Add;
    ///
    /// #[derive(Component)] struct Name(&'static str);
    /// #[derive(Component)] struct Health(u32);
    /// #[derive(Default)] struct Log(Vec<&'static str>);
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Log::default());
    /// world.add_observer(|trigger: On<Add, Health>, names: Query<&Name>, mut log: ResMut<Log>| {
    ///     log.0.push(names.get(trigger.target()).map_or("?", |n| n.0));
    /// });
    /// world.spawn((Name("orc"), Health(3)));
    /// world.spawn(Name("tree"));
    /// assert_eq!(world.resource::<Log>().0, ["orc"]);
    /// ```
    pub fn add_observer<P: EventPattern, B: Bundle, M>(
        &mut self,
        observer: impl IntoObserverSystem<P, B, M>,
    ) -> Entity {
        self.spawn_observer::<P::Event, (P::Bundle, B)>(observer.into_runner().0, None)
    }

    /// Adds an observer of a lifecycle event of the components `ids` (typed or
    /// defined at run time): `On<Add>`, `On<Insert>`, `On<Discard>`,
    /// `On<Remove>` or `On<Despawn>` with no component named in the type;
    /// `trigger.component()` says which. Returns the observer's entity.
    ///
    /// # Errors
    /// [`EcsError::UnknownComponent`](crate::EcsError::UnknownComponent) for an
    /// id this world has not registered;
    /// [`EcsError::NotLifecycle`](crate::EcsError::NotLifecycle) for an event
    /// that is not a lifecycle event. Nothing is added then.
    ///
    /// # Example
    /// ```
    /// use ecs_core::prelude::*;
    /// use ecs_core::component::{ComponentDescriptor, FieldKind, SchemaBuilder};
    /// use ecs_core::world::DynamicValue;
    ///
    /// #[derive(Default)] struct Added(u32);
    /// let mut world = World::new();
    /// world.insert_resource(Added::default());
    /// let schema = SchemaBuilder::new("Mana").field("points", FieldKind::F32).build()?;
    /// let mana = world.register_dynamic(&ComponentDescriptor::new("Mana", schema))?;
    /// world.add_observer_by_id(&[mana], |_: On<Add>, mut added: ResMut<Added>| added.0 += 1)?;
    /// let e = world.spawn(());
    /// world.insert_by_id(e, mana, DynamicValue::new(&world, mana)?)?;
    /// assert_eq!(world.resource::<Added>().0, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_observer_by_id<P: EventPattern<Bundle = ()>, B: Bundle, M>(
        &mut self,
        ids: &[ComponentId],
        observer: impl IntoObserverSystem<P, B, M>,
    ) -> Result<Entity, crate::EcsError> {
        if let Some(&unknown) = ids.iter().find(|&&id| self.components.get(id).is_none()) {
            return Err(crate::EcsError::UnknownComponent { index: unknown.index() });
        }
        if lifecycle_of(TypeId::of::<P::Event>()).is_none() {
            return Err(crate::EcsError::NotLifecycle { event: crate::names::type_name::<P::Event>() });
        }
        let mut components = Vec::new();
        B::register(&mut self.components, &mut |id| components.push(id));
        components.extend_from_slice(ids);
        Ok(self.spawn_observer_of::<P::Event>(observer.into_runner().0, None, components))
    }

    /// Registers an observer system, spawning its entity.
    pub(crate) fn spawn_observer<E: Event, B: Bundle>(
        &mut self,
        runner: Box<dyn ObserverRunner>,
        target: Option<Entity>,
    ) -> Entity {
        let mut components = Vec::new();
        B::register(&mut self.components, &mut |id| components.push(id));
        self.spawn_observer_of::<E>(runner, target, components)
    }

    /// Registers an observer system of the lifecycle events of `components`
    /// (all, when empty), spawning its entity.
    fn spawn_observer_of<E: Event>(
        &mut self,
        mut runner: Box<dyn ObserverRunner>,
        target: Option<Entity>,
        components: Vec<ComponentId>,
    ) -> Entity {
        runner.init(self);
        let event = TypeId::of::<E>();
        if let Some(kind) = lifecycle_of(event) {
            // Structural changes of the watched components (or, with none named,
            // of all) must now stop to trigger it.
            if components.is_empty() {
                self.components.add_global_lifecycle(kind.flag());
            } else {
                for &component in &components {
                    self.components.add_lifecycle(component, kind.flag());
                }
            }
        }
        let entity = self.spawn_empty().id();
        let slot = self
            .observers
            .register(Slot { entity, runner: Some(runner) }, Watch { event, components: components.into(), target });
        self.insert(entity, Observer { slot, event: crate::names::type_name::<E>() })
            .expect("the observer's entity was just spawned");
        entity
    }

    /// Triggers `event`: runs every observer of `E` that is not an entity
    /// observer, before returning; for an [`EntityEvent`](crate::event::EntityEvent),
    /// also the entity observers of the entity it names, and, for one that
    /// propagates (`#[entity_event(propagate)]`), those of each entity it goes
    /// on to (see [`On::propagate`]). Structural changes the observers queue
    /// run afterwards, before this returns.
    ///
    /// # Panics
    /// When an observer panics (the world stays consistent), or when observers
    /// keep triggering each other (see [`MAX_OBSERVER_ROUNDS`]).
    pub fn trigger<E: Event>(&mut self, mut event: E) {
        if E::__propagates().is_some()
            && let Some(target) = event.__event_target()
        {
            return self.with_deferred(|world| world.run_propagating(&mut event, target));
        }
        self.trigger_with(&event, event.__event_target());
    }

    /// Triggers `event` for each target entity: observers of `E`, and the entity
    /// observers of each target, run once per target.
    /// [`On::target`] tells which.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Event)] struct Hit(u32);
    /// #[derive(Default)] struct Damage(u32);
    /// let mut world = World::new();
    /// world.insert_resource(Damage::default());
    /// let (a, b) = (world.spawn(()), world.spawn(()));
    /// world.entity_mut(a)?.observe(|hit: On<Hit>, mut d: ResMut<Damage>| d.0 += hit.0);
    /// world.trigger_targets(Hit(2), [a, b]);
    /// world.trigger_targets(Hit(5), b);
    /// assert_eq!(world.resource::<Damage>().0, 2, "only hits on `a` reach `a`'s observer");
    /// # Ok::<(), EcsError>(())
    /// ```
    pub fn trigger_targets<E: Event>(&mut self, mut event: E, targets: impl TriggerTargets) {
        targets.for_each_target(&mut |target| {
            // An `EntityEvent` names each target in turn.
            event.__set_event_target(target);
            if E::__propagates().is_some() {
                self.with_deferred(|world| world.run_propagating(&mut event, target));
            } else {
                self.trigger_with(&event, Some(target));
            }
        });
    }

    /// Runs the observers of an event that propagates, for `target`, then for
    /// each entity it goes on to while an observer lets it (or, for
    /// `auto_propagate`, none stops it), writing each into the event. Call it
    /// within [`with_deferred`](World::with_deferred): the commands of every
    /// entity's observers run once the whole propagation is done, as in
    /// bevy_ecs.
    pub(crate) fn run_propagating<E: Event>(&mut self, event: &mut E, target: Entity) {
        let auto = E::__propagates() == Some(true);
        let propagation = trigger::Propagation { go_on: core::sync::atomic::AtomicBool::new(auto), original: target };
        let mut target = target;
        // A walk through the world's entities takes fewer hops than it has
        // entities; one that takes as many has come round on itself (a
        // cycle of links, which a loaded save may hold): it stops there.
        let mut hops = 0;
        loop {
            propagation.go_on.store(auto, core::sync::atomic::Ordering::Relaxed);
            let ctx = TriggerContext::new(&*event, Some(target), None).propagating(&propagation);
            self.run_observers(&ctx);
            if !propagation.go_on.load(core::sync::atomic::Ordering::Relaxed) {
                return;
            }
            let Some(next) = E::__propagate_to(self, target) else { return };
            hops += 1;
            if hops >= self.len() {
                return;
            }
            event.__set_event_target(next);
            target = next;
        }
    }

    /// Runs the observers of `event` (for `target`), then the commands they queued.
    ///
    /// No `catch_unwind` here (unlike a structural change's lifecycle passes,
    /// `with_lifecycle`): it kept the trigger from inlining into its callers,
    /// a measurable share of a trigger. A panicking observer's commands wait
    /// in the world's queue for its next operation instead.
    fn trigger_with<E: Event>(&mut self, event: &E, target: Option<Entity>) {
        let ctx = TriggerContext::new(event, target, None);
        self.with_deferred(|world| world.run_observers(&ctx));
    }

    /// Runs the observers a trigger reaches: those of every trigger of its event,
    /// those of its component, and the entity observers of its target. Call it
    /// within [`with_deferred`](World::with_deferred).
    pub(crate) fn run_observers(&mut self, ctx: &TriggerContext) {
        let Some(event) = self.observers.index_of(ctx.event_type) else { return };
        self.observers.last_event = Some(ctx.event_name);
        if self.defer_depth() > MAX_TRIGGER_DEPTH {
            let event = crate::names::short_name((ctx.event_name)());
            panic!(
                "observers and hooks kept triggering each other: {MAX_TRIGGER_DEPTH} triggers nested while \
                 triggering `{}`; an observer or hook of `{}` probably triggers it again (directly or through \
                 other events)",
                event, event
            );
        }
        // Most events have observers of one kind only, and most lists hold
        // one observer (an entity's of an event, an event's only one): an
        // empty list costs a test here, a list of one runs here, and only
        // longer ones take the walk's call. Each list is read after the one
        // before has run, as the walk reads it.
        match one_or_more(&self.observers.lists[event].global) {
            None => {}
            Some(Ok(only)) => self.run_one(ctx, false, only),
            Some(Err(())) => self.run_list(ctx, event, List::Global),
        }
        if let Some(component) = ctx.component {
            let lists = &self.observers.lists[event];
            match one_or_more(lists.by_component.get(component.index()).map_or(&[], Vec::as_slice)) {
                None => {}
                Some(Ok(only)) => self.run_one(ctx, false, only),
                Some(Err(())) => self.run_list(ctx, event, List::Component(component)),
            }
        }
        if let Some(target) = ctx.target {
            match one_or_more(self.observers.lists[event].by_target.get(target)) {
                None => {}
                Some(Ok(only)) => self.run_one(ctx, true, only),
                Some(Err(())) => self.run_list(ctx, event, List::Target(target)),
            }
        }
    }

    /// Runs each observer of one list. The list is read again before each
    /// observer but the last (whose read also gave the length): nothing an
    /// observer does synchronously can change it, so reading it afresh is an
    /// optimisation, never a safety argument, and stopping at the length read
    /// misses nothing.
    fn run_list(&mut self, ctx: &TriggerContext, event: usize, list: List) {
        let mut i = 0;
        while let Some((index, len)) = self.observers.nth(event, list, i) {
            i += 1;
            self.run_one(ctx, matches!(list, List::Target(_)), index);
            // The last observer ends the loop without another read.
            if i >= len {
                return;
            }
        }
    }

    /// Runs observer `index` for `ctx`, unless it is gone, running, or (an
    /// entity observer of a lifecycle event) watches other components.
    #[inline]
    fn run_one(&mut self, ctx: &TriggerContext, entity_observer: bool, index: u32) {
        // An entity observer of a lifecycle event watches its components only.
        if let (true, Some(component)) = (entity_observer, ctx.component) {
            let watched = &self.observers.watches[index as usize].components;
            if !watched.is_empty() && !watched.contains(&component) {
                return;
            }
        }
        let Some(slot) = self.observers.slots[index as usize].as_mut() else { return };
        let observer = slot.entity;
        // Taken out while it runs (an observer never re-enters itself: its
        // own triggers go through commands).
        let Some(runner) = slot.runner.take() else { return };
        let outer = self.trigger_context.replace(CurrentTrigger::new(ctx, observer));
        let mut running = Running { world: self, index, observer, runner: Some(runner), outer };
        let Running { world, runner, .. } = &mut running;
        runner.as_mut().expect("set above").run(world);
        running.end();
    }

    /// The number of observers in this world.
    pub fn observer_count(&self) -> usize {
        self.observers.len()
    }
}

impl crate::world::EntityWorldMut<'_> {
    /// Adds an entity observer: it runs only for events targeting this entity
    /// (`trigger_targets(event, entity)`, and lifecycle events of its components),
    /// and is despawned with the entity. Returns the entity, for chaining.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// use ecs_core::event::Remove;
    /// #[derive(Component)] struct Shield(u32);
    /// #[derive(Default)] struct Broken(u32);
    /// let mut world = World::new();
    /// world.insert_resource(Broken::default());
    /// let knight = world.spawn(Shield(3));
    /// world.entity_mut(knight)?.observe(|_: On<Remove, Shield>, mut b: ResMut<Broken>| b.0 += 1);
    /// world.remove::<Shield>(knight)?;
    /// assert_eq!(world.resource::<Broken>().0, 1);
    /// assert_eq!(world.observer_count(), 1);
    /// world.despawn(knight)?;
    /// assert_eq!(world.observer_count(), 0, "removed with its entity");
    /// # Ok::<(), EcsError>(())
    /// ```
    pub fn observe<P: EventPattern, B: Bundle, M>(&mut self, observer: impl IntoObserverSystem<P, B, M>) -> &mut Self {
        let target = self.id();
        let world = self.world_mut();
        let observer = world.spawn_observer::<P::Event, (P::Bundle, B)>(observer.into_runner().0, Some(target));
        match world.get_mut_internal::<ObservedBy>(target) {
            Some(mut observed) => observed.0.push(observer),
            None => {
                world.insert(target, ObservedBy(vec![observer])).expect("the entity of an EntityWorldMut is alive");
            }
        }
        self
    }
}
