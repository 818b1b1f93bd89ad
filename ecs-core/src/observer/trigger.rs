//! [`On`]: the observer's first parameter, and what the world keeps while
//! an observer runs.

use core::any::TypeId;
use core::marker::PhantomData;
use core::ops::Deref;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicBool, Ordering};

use crate::bundle::Bundle;
use crate::component::{ComponentId, Lifecycle};
use crate::entity::Entity;
use crate::event::{Event, EventPattern};
use crate::system::{SystemAccess, SystemMeta, SystemParam};
use crate::world::World;

/// A trigger being handled.
#[derive(Clone, Copy)]
pub(crate) struct TriggerContext {
    /// Points at a value of the type `event_type` names.
    event: NonNull<()>,
    pub(crate) event_type: TypeId,
    /// The event type's full path, asked only for messages (a function: one
    /// word to copy on every trigger, not a string's two).
    pub(crate) event_name: fn() -> &'static str,
    pub(crate) target: Option<Entity>,
    pub(crate) component: Option<ComponentId>,
    /// For an event that propagates: whether it goes on, and where it began.
    /// Points at a value on the stack of the trigger call, as `event` does.
    propagation: Option<NonNull<Propagation>>,
}

/// The state of an event going from entity to entity (`#[entity_event(propagate)]`).
pub(crate) struct Propagation {
    /// Whether it goes on after the current entity's observers.
    pub(crate) go_on: AtomicBool,
    /// The entity it was triggered for.
    pub(crate) original: Entity,
}

// SAFETY: the pointers are only ever used as shared references (`E: Event` is
// `Sync`; `Propagation` is `Sync`, its one written field an atomic), while the
// trigger call that made them is running; the rest is plain data.
unsafe impl Send for TriggerContext {}
// SAFETY: as above.
unsafe impl Sync for TriggerContext {}

/// What the world holds while an observer runs: the trigger, by pointer (copying
/// it for every observer would cost more than the observer's own work), and the
/// observer.
#[derive(Clone, Copy)]
pub(crate) struct CurrentTrigger {
    /// Valid while this value is the world's `trigger_context`: the trigger call
    /// that set it borrows the context for as long, and restores the outer value
    /// before returning or unwinding (`observer::Running`).
    ctx: NonNull<TriggerContext>,
    observer: Entity,
}

// SAFETY: points at a `TriggerContext`, which is `Send + Sync` (above), and is
// only read.
unsafe impl Send for CurrentTrigger {}
// SAFETY: as above.
unsafe impl Sync for CurrentTrigger {}

impl CurrentTrigger {
    /// `ctx`, handled by `observer`.
    pub(crate) fn new(ctx: &TriggerContext, observer: Entity) -> Self {
        Self { ctx: NonNull::from(ctx), observer }
    }
}

impl TriggerContext {
    /// The context of triggering `event`, which must outlive every use of it
    /// (the world keeps it only while the trigger call runs).
    pub(crate) fn new<E: Event>(event: &E, target: Option<Entity>, component: Option<ComponentId>) -> Self {
        Self {
            event: NonNull::from(event).cast(),
            event_type: TypeId::of::<E>(),
            event_name: core::any::type_name::<E>,
            target,
            component,
            propagation: None,
        }
    }

    /// [`new`](Self::new) for an event propagating as `propagation` says, which
    /// must outlive every use of the context, as the event must.
    pub(crate) fn propagating(mut self, propagation: &Propagation) -> Self {
        self.propagation = Some(NonNull::from(propagation));
        self
    }

    /// The context of a lifecycle event of `component` on `entity`.
    pub(crate) fn lifecycle(kind: Lifecycle, entity: Entity, component: ComponentId) -> Self {
        let (event_type, event_name, value) = crate::event::lifecycle_value(kind);
        Self {
            event: NonNull::from(value).cast(),
            event_type,
            event_name,
            target: Some(entity),
            component: Some(component),
            propagation: None,
        }
    }
}

/// The event an observer is running for: its first parameter.
///
/// `On<E>` observes the event `E`; for lifecycle events,
/// `On<Add, Health>` observes `Health` (or any of a bundle's components),
/// and `On<Add>` every component. It dereferences to the event.
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(Event)] struct Explode { radius: f32 }
/// #[derive(Default)] struct Blasts(Vec<(Entity, f32)>);
/// let mut world = World::new();
/// world.insert_resource(Blasts::default());
/// world.add_observer(|trigger: On<Explode>, mut blasts: ResMut<Blasts>| {
///     blasts.0.push((trigger.target(), trigger.radius));
/// });
/// let barrel = world.spawn(());
/// world.trigger_targets(Explode { radius: 2.0 }, barrel);
/// world.trigger(Explode { radius: 9.0 });
/// assert_eq!(world.resource::<Blasts>().0, [(barrel, 2.0), (Entity::PLACEHOLDER, 9.0)]);
/// ```
pub struct On<'w, P: EventPattern, B: Bundle = ()> {
    event: &'w P::Event,
    target: Option<Entity>,
    component: Option<ComponentId>,
    observer: Entity,
    propagation: Option<&'w Propagation>,
    marker: PhantomData<fn() -> B>,
}

impl<'w, P: EventPattern, B: Bundle> On<'w, P, B> {
    /// The event.
    pub fn event(&self) -> &'w P::Event {
        self.event
    }

    /// The entity the event targets: the entity whose component changed, for
    /// lifecycle events; [`Entity::PLACEHOLDER`] for an event triggered without
    /// a target.
    pub fn target(&self) -> Entity {
        self.target.unwrap_or(Entity::PLACEHOLDER)
    }

    /// The entity the event targets, or `None` for an event triggered without one.
    pub fn get_target(&self) -> Option<Entity> {
        self.target
    }

    /// The component a lifecycle event is about (`None` for other events).
    pub fn component(&self) -> Option<ComponentId> {
        self.component
    }

    /// The observer's own entity (despawn it to stop observing).
    pub fn observer(&self) -> Entity {
        self.observer
    }

    /// For an event that propagates (`#[entity_event(propagate)]`): whether it
    /// goes on, after this entity's observers, to the next entity (the
    /// parent, for `ChildOf`). It goes on by default when the event is
    /// `#[entity_event(auto_propagate)]`, and stops otherwise; the last
    /// observer to call this on an entity decides. No effect on an event that
    /// does not propagate.
    ///
    /// # Example
    /// ```
    /// use ecs_core::prelude::*;
    ///
    /// #[derive(EntityEvent)]
    /// #[entity_event(propagate, auto_propagate)]
    /// struct Click { entity: Entity }
    /// #[derive(Default)] struct Clicked(Vec<(Entity, Entity)>);
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Clicked>();
    /// let window = world.spawn(());
    /// let panel = world.spawn(ChildOf(window));
    /// let button = world.spawn(ChildOf(panel));
    /// world.add_observer(|mut click: On<Click>, mut clicked: ResMut<Clicked>| {
    ///     clicked.0.push((click.entity, click.original_event_target()));
    ///     if click.entity == click.original_event_target() {
    ///         return; // the button itself: let it bubble
    ///     }
    ///     click.propagate(false); // the panel takes it
    /// });
    /// world.trigger(Click { entity: button });
    /// assert_eq!(world.resource::<Clicked>().0, [(button, button), (panel, button)]);
    /// ```
    pub fn propagate(&mut self, should: bool) {
        if let Some(propagation) = self.propagation {
            propagation.go_on.store(should, Ordering::Relaxed);
        }
    }

    /// The entity the event was triggered for, before it propagated on from
    /// it (the same as [`target`](Self::target) for an event that does not
    /// propagate).
    pub fn original_event_target(&self) -> Entity {
        match self.propagation {
            Some(propagation) => propagation.original,
            None => self.target(),
        }
    }
}

impl<P: EventPattern, B: Bundle> Deref for On<'_, P, B> {
    type Target = P::Event;
    fn deref(&self) -> &P::Event {
        self.event
    }
}

impl<P: EventPattern, B: Bundle> core::fmt::Debug for On<'_, P, B>
where
    P::Event: core::fmt::Debug,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("On")
            .field("event", self.event)
            .field("target", &self.target)
            .field("observer", &self.observer)
            .finish()
    }
}

// SAFETY: records no access: the event is not part of the world, and the rest
// of the trigger is plain data copied from the world's trigger context.
unsafe impl<P: EventPattern, B: Bundle> SystemParam for On<'_, P, B> {
    const DEFERRED: bool = false;
    type State = ();
    type Item<'w> = On<'w, P, B>;

    fn access(meta: &mut SystemMeta) {
        meta.add_param_named_by(crate::names::type_name::<On<'static, P, B>>, SystemAccess::default());
    }
    fn init_state(_: &mut World) {}
    #[inline]
    unsafe fn get_param<'w>(_: &'w mut (), meta: &SystemMeta, world: &'w World) -> On<'w, P, B> {
        // The system's name is read on the panic's path only: loaded here, it
        // would cost every trigger a read of a line of the system's state that
        // nothing else on this path touches.
        let Some(current) = world.trigger_context else { not_an_observer(meta, crate::names::type_name::<P::Event>()) };
        // SAFETY: the world's current trigger points at a live context (the
        // invariant of `CurrentTrigger::ctx`).
        let ctx = unsafe { current.ctx.as_ref() };
        if ctx.event_type != TypeId::of::<P::Event>() {
            not_an_observer(meta, crate::names::type_name::<P::Event>())
        }
        // SAFETY: the context's pointer points at a `P::Event` (its type id was checked
        // just now), which lives as long as the trigger call that set the context.
        // That call is still on the stack: the context is set only while it runs
        // and restored before it returns or unwinds (`observer::Running`). The
        // system being given this parameter runs inside that call — usually the
        // observer itself, but possibly a system the observer runs in turn (it
        // then sees the observer's trigger) — and its item cannot outlive its
        // run, so the event outlives the item.
        let event = unsafe { ctx.event.cast::<P::Event>().as_ref() };
        // SAFETY: as for the event: the propagation state lives on the stack
        // of the trigger call that set the context.
        let propagation = ctx.propagation.map(|p| unsafe { p.as_ref() });
        On {
            event,
            target: ctx.target,
            component: ctx.component,
            observer: current.observer,
            propagation,
            marker: PhantomData,
        }
    }
}

/// The panic of a system given a [`On`] outside an observer.
#[cold]
#[inline(never)]
fn not_an_observer(meta: &SystemMeta, event: &str) -> ! {
    let system = meta.name();
    panic!(
        "system `{system}` takes a `On<{event}>`, which only observers are given: add it with \
         `world.add_observer(…)` or `world.entity_mut(e)?.observe(…)`, not as a system"
    );
}

/// The entities [`World::trigger_targets`] triggers an event for: one `Entity`, an
/// array, a `Vec` or a slice of them.
pub trait TriggerTargets {
    /// Calls `f` with each target, in order.
    fn for_each_target(&self, f: &mut dyn FnMut(Entity));
}

impl TriggerTargets for Entity {
    // Inlined into `trigger_targets`, the call through `dyn FnMut` becomes a
    // direct one.
    #[inline]
    fn for_each_target(&self, f: &mut dyn FnMut(Entity)) {
        f(*self);
    }
}

impl<const N: usize> TriggerTargets for [Entity; N] {
    fn for_each_target(&self, f: &mut dyn FnMut(Entity)) {
        self.iter().for_each(|&e| f(e));
    }
}

impl TriggerTargets for [Entity] {
    fn for_each_target(&self, f: &mut dyn FnMut(Entity)) {
        self.iter().for_each(|&e| f(e));
    }
}

impl TriggerTargets for Vec<Entity> {
    fn for_each_target(&self, f: &mut dyn FnMut(Entity)) {
        self.iter().for_each(|&e| f(e));
    }
}

impl<T: TriggerTargets + ?Sized> TriggerTargets for &T {
    fn for_each_target(&self, f: &mut dyn FnMut(Entity)) {
        (**self).for_each_target(f);
    }
}
