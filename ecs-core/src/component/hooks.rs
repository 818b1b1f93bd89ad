//! Component hooks: functions a component type declares to run when a value of it
//! is added, inserted, replaced, removed or despawned, and the per-component
//! lifecycle flags that let structural changes of components without hooks or
//! observers skip all of it.

use super::ComponentId;
use crate::entity::Entity;
use crate::world::DeferredWorld;

/// A component hook: `fn(world: DeferredWorld, ctx: HookContext)`.
///
/// The hook sees the world with the entity still (or already) holding the value —
/// read and write components and resources, queue commands, trigger events — but
/// cannot move entities between archetypes: its commands run once the structural
/// change that called it is complete.
pub type ComponentHook = for<'w> fn(DeferredWorld<'w>, HookContext);

/// Which entity and component a hook or lifecycle observer runs for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HookContext {
    /// The entity gaining, replacing or losing the component.
    pub entity: Entity,
    /// The component.
    pub component_id: ComponentId,
}

/// The hooks of a component type, declared with
/// `#[component(on_add = f, on_insert = g, on_discard = h, on_remove = i, on_despawn = j)]`.
///
/// When they run, for every structural change (the order is bevy_ecs's):
/// - a component the entity did not have is inserted (spawn, insert):
///   `on_add`, then `on_insert`, with the new value in place;
/// - a component the entity has is inserted again: `on_discard` with the old
///   value still readable, then `on_insert` with the new one;
/// - a component is removed: `on_discard`, then `on_remove`, with the value still
///   readable;
/// - an entity is despawned: `on_despawn`, `on_discard`, then `on_remove`, for
///   every component it has.
///
/// Within one structural change all components' hooks of one kind run before any
/// of the next kind, and observers of the same lifecycle event run right after
/// the hooks (`on_add`, `on_insert`) or right before them (`on_discard`,
/// `on_remove`, `on_despawn`), so that an observer always sees the value.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// use ecs_core::component::HookContext;
/// use ecs_core::world::DeferredWorld;
///
/// #[derive(Default)] struct Alive(u32);
/// #[derive(Component)]
/// #[component(on_add = count_in, on_remove = count_out)]
/// struct Health(u32);
///
/// fn count_in(mut world: DeferredWorld, _: HookContext) { world.resource_mut::<Alive>().0 += 1; }
/// fn count_out(mut world: DeferredWorld, ctx: HookContext) {
///     assert!(world.get::<Health>(ctx.entity).is_some(), "still readable in on_remove");
///     world.resource_mut::<Alive>().0 -= 1;
/// }
///
/// let mut world = World::new();
/// world.insert_resource(Alive::default());
/// let a = world.spawn(Health(3));
/// world.spawn(Health(5));
/// assert_eq!(world.resource::<Alive>().0, 2);
/// world.despawn(a)?;
/// assert_eq!(world.resource::<Alive>().0, 1);
/// # Ok::<(), EcsError>(())
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ComponentHooks {
    /// Runs when an entity gains the component.
    pub on_add: Option<ComponentHook>,
    /// Runs after every insert of the component, new or replacing.
    pub on_insert: Option<ComponentHook>,
    /// Runs before a value of the component is replaced or removed.
    pub on_discard: Option<ComponentHook>,
    /// Runs before the component is removed from an entity (or the entity despawned).
    pub on_remove: Option<ComponentHook>,
    /// Runs before an entity holding the component is despawned.
    pub on_despawn: Option<ComponentHook>,
}

impl ComponentHooks {
    /// No hooks.
    pub const NONE: Self = Self { on_add: None, on_insert: None, on_discard: None, on_remove: None, on_despawn: None };

    /// `true` when any hook is set.
    pub const fn any(&self) -> bool {
        self.on_add.is_some()
            || self.on_insert.is_some()
            || self.on_discard.is_some()
            || self.on_remove.is_some()
            || self.on_despawn.is_some()
    }

    /// The hook of one lifecycle event.
    #[inline]
    pub(crate) fn get(&self, event: Lifecycle) -> Option<ComponentHook> {
        match event {
            Lifecycle::Add => self.on_add,
            Lifecycle::Insert => self.on_insert,
            Lifecycle::Discard => self.on_discard,
            Lifecycle::Remove => self.on_remove,
            Lifecycle::Despawn => self.on_despawn,
        }
    }

    /// The lifecycle flags of the hooks present.
    pub(crate) fn flags(&self) -> u8 {
        Lifecycle::ALL.iter().filter(|&&event| self.get(event).is_some()).fold(0, |flags, event| flags | event.flag())
    }
}

/// The five lifecycle events of a component on an entity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lifecycle {
    Add,
    Insert,
    Discard,
    Remove,
    Despawn,
}

impl Lifecycle {
    pub(crate) const ALL: [Lifecycle; 5] =
        [Lifecycle::Add, Lifecycle::Insert, Lifecycle::Discard, Lifecycle::Remove, Lifecycle::Despawn];

    /// This event's bit in a component's lifecycle flags.
    #[inline]
    pub(crate) const fn flag(self) -> u8 {
        1 << self as u8
    }
}

/// A component's lifecycle flag meaning "record removals for `RemovedComponents`".
pub(crate) const REMOVED_LOG: u8 = 1 << 5;

/// A component's lifecycle flag meaning "gaining it inserts the components it
/// requires" (`#[require(…)]`).
pub(crate) const REQUIRES: u8 = 1 << 6;
