//! [`RemovedComponents<T>`]: the entities that lost a `T`.

use crate::component::{Component, ComponentId, REMOVED_LOG, component_id};
use crate::entity::Entity;
use crate::message::{Message, MessageCursor, Messages};
use crate::system::{ReadOnlySystemParam, SystemAccess, SystemMeta, SystemParam};
use crate::world::World;

/// One logged removal (the state of a [`RemovedComponents`] names it).
pub struct Removed(Entity);

impl Message for Removed {}

/// Per component, the entities that lost it in the last two updates. A
/// component's log exists (and removals of it are recorded) once some
/// [`RemovedComponents`] parameter asked for it, so other components pay nothing.
#[derive(Default)]
pub(crate) struct RemovedLogs {
    logs: Vec<Option<Messages<Removed>>>,
}

impl RemovedLogs {
    pub(crate) fn log(&mut self, component: ComponentId, entity: Entity) {
        if let Some(Some(log)) = self.logs.get_mut(component.index()) {
            log.write(Removed(entity));
        }
    }

    fn get(&self, component: ComponentId) -> Option<&Messages<Removed>> {
        self.logs.get(component.index()).and_then(Option::as_ref)
    }

    fn start(&mut self, component: ComponentId) {
        if self.logs.len() <= component.index() {
            self.logs.resize_with(component.index() + 1, || None);
        }
        self.logs[component.index()].get_or_insert_with(Messages::default);
    }

    /// Advances every log by one update (with the world's events).
    pub(crate) fn update(&mut self) {
        self.logs.iter_mut().flatten().for_each(Messages::update);
    }
}

/// The entities that lost their `T` (removed, or despawned) since this system
/// last ran: a system parameter. Like a [`MessageReader`](crate::message::MessageReader),
/// it keeps its own cursor, and sees removals of the last two updates of
/// [`World::update_messages`] (a schedule does one per run).
///
/// Entities may be dead by the time they are read: check with
/// `world.contains(e)` or a query's `get`.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// use ecs_core::event::RemovedComponents;
///
/// #[derive(Component)] struct Enemy;
/// #[derive(Default)] struct Gone(Vec<Entity>);
/// fn mourn(mut removed: RemovedComponents<Enemy>, mut gone: ResMut<Gone>) {
///     gone.0.extend(removed.read());
/// }
/// let mut world = World::new();
/// world.insert_resource(Gone::default());
/// let mut schedule = Schedule::new();
/// schedule.add_systems(mourn);
/// let (a, b) = (world.spawn(Enemy), world.spawn(Enemy));
/// schedule.run(&mut world); // the log starts with the system
/// world.despawn(a)?;
/// world.remove::<Enemy>(b)?;
/// schedule.run(&mut world);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Gone>().0, [a, b], "each once");
/// # Ok::<(), EcsError>(())
/// ```
pub struct RemovedComponents<'w, T: Component> {
    cursor: &'w mut MessageCursor<Removed>,
    log: Option<&'w Messages<Removed>>,
    marker: core::marker::PhantomData<fn() -> T>,
}

impl<T: Component> RemovedComponents<'_, T> {
    /// The entities that lost `T` and were not read yet, in order.
    pub fn read(&mut self) -> impl DoubleEndedIterator<Item = Entity> + ExactSizeIterator + '_ {
        static NONE: Messages<Removed> = Messages::new();
        let log = self.log.unwrap_or(&NONE);
        self.cursor.read(log).map(|removed| removed.0)
    }

    /// How many removals are not read yet.
    pub fn len(&self) -> usize {
        self.log.map_or(0, |log| self.cursor.len(log))
    }

    /// `true` when every removal is read.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Marks every removal read.
    pub fn clear(&mut self) {
        if let Some(log) = self.log {
            self.cursor.clear(log);
        }
    }
}

// SAFETY: records no access: the logs are written only by structural changes,
// which need `&mut World`, so no system runs meanwhile; the cursor is the
// parameter's own state.
unsafe impl<T: Component> SystemParam for RemovedComponents<'_, T> {
    const DEFERRED: bool = false;
    type State = (ComponentId, MessageCursor<Removed>);
    type Item<'w> = RemovedComponents<'w, T>;

    fn access(meta: &mut SystemMeta) {
        meta.add_param_named_by(crate::names::type_name::<RemovedComponents<'static, T>>, SystemAccess::default());
    }
    fn init_state(world: &mut World) -> Self::State {
        let id = component_id::<T>();
        world.components.add_lifecycle(id, REMOVED_LOG);
        world.removed.start(id);
        (id, MessageCursor::default())
    }
    unsafe fn get_param<'w>(state: &'w mut Self::State, _: &SystemMeta, world: &'w World) -> RemovedComponents<'w, T> {
        let log = world.removed.get(state.0);
        RemovedComponents { cursor: &mut state.1, log, marker: core::marker::PhantomData }
    }
}

// SAFETY: reads the world's removal log and writes only its own cursor.
unsafe impl<T: Component> ReadOnlySystemParam for RemovedComponents<'_, T> {}

/// The entities that lost component `id` (removed, or despawned), read by id:
/// [`RemovedComponents`] for code that names components at run time (a
/// script's system, a tool). Made by [`World::removed_by_id`], which starts the
/// component's removal log; keeps its own cursor, and sees removals of the
/// last two updates of [`World::update_messages`].
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// #[derive(Component)] struct Enemy;
/// let mut world = World::new();
/// let id = world.register_component::<Enemy>();
/// let mut removed = world.removed_by_id(id)?;
/// let e = world.spawn(Enemy);
/// world.despawn(e)?;
/// assert_eq!(removed.read(&world).collect::<Vec<_>>(), [e]);
/// assert_eq!(removed.read(&world).count(), 0, "each removal is read once");
/// # Ok::<(), EcsError>(())
/// ```
pub struct RemovedById {
    id: ComponentId,
    cursor: MessageCursor<Removed>,
}

impl RemovedById {
    /// The component watched.
    pub fn id(&self) -> ComponentId {
        self.id
    }

    /// The entities that lost the component and were not read yet, in order.
    pub fn read<'a>(
        &'a mut self,
        world: &'a World,
    ) -> impl DoubleEndedIterator<Item = Entity> + ExactSizeIterator + 'a {
        static NONE: Messages<Removed> = Messages::new();
        let log = world.removed.get(self.id).unwrap_or(&NONE);
        self.cursor.read(log).map(|removed| removed.0)
    }
}

impl World {
    /// Starts logging removals of component `id` and returns a reader of them
    /// (see [`RemovedById`]).
    ///
    /// # Errors
    /// [`EcsError::UnknownComponent`](crate::EcsError::UnknownComponent) when
    /// this world has no component `id`.
    pub fn removed_by_id(&mut self, id: ComponentId) -> Result<RemovedById, crate::EcsError> {
        if self.components.get(id).is_none() {
            return Err(crate::EcsError::UnknownComponent { index: id.index() });
        }
        self.components.add_lifecycle(id, REMOVED_LOG);
        self.removed.start(id);
        Ok(RemovedById { id, cursor: MessageCursor::default() })
    }
}
