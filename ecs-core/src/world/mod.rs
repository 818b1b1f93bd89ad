//! [`World`]: the typed API over entities, components and archetypes.
//!
//! - `mod.rs`: the world, lookups (`get`, `has`, …), `clear` and invariants.
//! - `structural.rs`: the only place rows move between archetypes (spawn, insert,
//!   remove, despawn).
//! - `spawn_batch.rs`: [`SpawnBatch`], spawning many entities of one bundle type.
//! - `entity_ref.rs`: [`EntityRef`], a read-only view of one entity.
//! - `entity_mut.rs`: [`EntityWorldMut`], one entity with the world borrowed
//!   mutably, for chained changes; `spawn_empty`.
//! - `change.rs`: [`Mut`] and [`Ref`], a value with its change ticks.
//! - `deferred.rs`: [`DeferredWorld`], the world as hooks and observers see it.
//! - `lifecycle.rs`: running hooks and observers around structural changes,
//!   and the work they defer (commands, pending relationship links).
//! - `ticks.rs`: clamping change ticks so that they never wrap into looking new.
//! - `locals.rs`: systems' `Local`s, kept where a save can reach them.
//! - `by_id.rs`: components by id, read and written through their schema.
//!
//! Floors above add their own `World` methods in their folders: queries
//! (`query/world.rs`, `query/per_field_world.rs`, `World::get_many_mut`),
//! snapshots (`snapshot/world.rs`), loading (`serialize/load.rs`); see
//! `docs/architecture.md`.

mod by_id;
mod change;
mod column_batch;
mod deferred;
mod dynamic_value;
mod entity_builder;
mod entity_mut;
mod entity_ref;
mod held_ids;
mod lifecycle;
pub(crate) mod locals;
mod spawn_batch;
mod structural;
mod structural_by_id;
mod ticks;

pub use by_id::{ComponentMut, ComponentRef, FieldError, FieldHandle, FieldPath, FieldValue, Shape};
pub(crate) use change::TicksMut;
pub use change::{Mut, Ref};
pub use column_batch::{
    BatchIncomplete, BatchWriter, ColumnBatch, ColumnBatchBuilder, ColumnBatchType, SpawnColumnBatchIter,
};
pub use deferred::DeferredWorld;
pub use dynamic_value::DynamicValue;
pub use entity_builder::{BuiltEntityClone, EntityBuilder, EntityBuilderClone};
pub use entity_mut::{EntityWorldMut, SpawnReturnsEntity};
pub use entity_ref::EntityRef;
pub use spawn_batch::SpawnBatch;
#[cfg(feature = "serde")]
pub(crate) use structural_by_id::Bytes;
pub use structural_by_id::RegisterError;

use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use crate::archetype::{ArchetypeId, Archetypes, Row};
use crate::bundle::{Bundle, BundleId, BundleInfo, BundleKey, Bundles, SpawnTarget};
use crate::component::{Component, Components, MutableComponent, WholeComponent, component_id, is_sparse};
use crate::entity::{Entities, Entity, EntityLocation};
use crate::error::EcsError;
use crate::panics::resume_deferred;
use crate::resource::Resources;
use crate::storage::{ComponentTicks, Tick};

/// The container of all entities and their components.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
///
/// #[derive(Component, Clone, Copy, Debug, PartialEq)]
/// struct Position { x: f32, y: f32 }
/// #[derive(Component)]
/// struct Frozen;
///
/// let mut world = World::new();
/// let a = world.spawn(Position { x: 1.0, y: 2.0 });
/// world.spawn_batch((0..100).map(|i| Position { x: i as f32, y: 0.0 }));
/// world.insert(a, Frozen)?;                        // moves `a` along the edge +Frozen
/// assert!(world.has::<Frozen>(a));
/// world.remove::<Frozen>(a)?;                      // and back along -Frozen
/// assert_eq!(world.len(), 101);
/// world.despawn(a)?;
/// assert_eq!(world.despawn(a), Err(EcsError::NoSuchEntity(a)));
/// # Ok::<(), EcsError>(())
/// ```
pub struct World {
    id: WorldId,
    pub(crate) entities: Entities,
    pub(crate) components: Components,
    pub(crate) archetypes: Archetypes,
    pub(crate) bundles: Bundles,
    pub(crate) resources: Resources,
    command_error: Option<CommandErrorHandler>,
    /// What becomes of an error a system or an observer returns.
    error_handler: crate::error::ErrorHandler,
    /// Ids of registered systems reserved through `&self` by
    /// `Commands::register_system` since the registry last grew.
    pub(crate) reserved_systems: AtomicU32,
    /// Registered systems' slots reserved that way and not yet filled.
    pub(crate) unfilled_systems: u32,
    /// Atomic so that a read-only query run on `&World` can still start a new tick.
    pub(crate) change_tick: AtomicU32,
    /// When stored ticks were last clamped (see `ticks.rs`).
    pub(crate) last_tick_check: Tick,
    /// Every observer (see `crate::observer`).
    pub(crate) observers: crate::observer::Observers,
    /// The trigger being handled, while an observer runs.
    pub(crate) trigger_context: Option<crate::observer::CurrentTrigger>,
    /// Commands of hooks and observers, waiting for the operation in progress.
    pub(crate) deferred: lifecycle::Deferred,
    /// Relationship links waiting for their target's list (see `relationship`).
    pub(crate) pending_links: lifecycle::PendingLinks,
    /// Entities that lost components, for `RemovedComponents`.
    pub(crate) removed: crate::event::RemovedLogs,
    /// How to update each registered event type's buffer.
    pub(crate) message_updates: Vec<MessageType>,
    /// Resources snapshots include (see `register_snapshot_resource`).
    pub(crate) snapshot_resources: Vec<crate::resource::ResourceSaver>,
    /// Each system's last run, by the slot it got when initialized for this
    /// world: kept here, not in the system, so that a snapshot holds it and a
    /// restore makes change detection report what it reported the first time.
    pub(crate) system_ticks: Vec<AtomicU32>,
    /// The next slot to hand out; slots below `system_ticks.len()` and above
    /// this one were restored from a snapshot for systems not yet initialized.
    pub(crate) next_system_slot: usize,
    /// Every system's `Local`s and message cursors (see `locals.rs`).
    pub(crate) locals: locals::Locals,
}

/// One registered message type: how to update its buffer, and what a save
/// needs to know of it.
#[cfg_attr(not(feature = "serde"), allow(dead_code, reason = "read by saves (feature `serde`)"))]
pub(crate) struct MessageType {
    /// `TypeId` of the buffer resource, `Messages<M>`.
    pub(crate) buffer: core::any::TypeId,
    /// The message type's name, for errors.
    pub(crate) name: &'static str,
    pub(crate) update: fn(&mut World),
    /// How many messages the buffer holds.
    pub(crate) in_flight: fn(&World) -> usize,
}

/// What the world does with a skipped command's error.
type CommandErrorHandler = Box<dyn FnMut(&EcsError) + Send + Sync>;

/// A process-unique id of a [`World`], so that a `QueryState` can refuse a world it
/// was not made for.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct WorldId(u64);

impl WorldId {
    fn next() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        Self(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

impl Default for World {
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Debug for World {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("World")
            .field("entities", &self.entities.len())
            .field("archetypes", &self.archetypes.len())
            .finish_non_exhaustive()
    }
}

impl World {
    /// A slot for a system's last-run tick (see `system_ticks`), starting at 0
    /// (a first run sees everything as added and changed).
    pub(crate) fn new_system_slot(&mut self) -> usize {
        let slot = self.next_system_slot;
        self.next_system_slot += 1;
        if slot == self.system_ticks.len() {
            self.system_ticks.push(AtomicU32::new(0));
        }
        slot
    }

    /// When the system holding `slot` last ran.
    #[inline]
    pub(crate) fn system_last_run(&self, slot: usize) -> Tick {
        Tick::new(self.system_ticks[slot].load(Ordering::Relaxed))
    }

    /// Records a run of the system holding `slot`. Only that system writes its
    /// slot, so systems running side by side never touch the same one.
    #[inline]
    pub(crate) fn set_system_last_run(&self, slot: usize, tick: Tick) {
        self.system_ticks[slot].store(tick.get(), Ordering::Relaxed);
    }

    /// An empty world.
    #[inline]
    pub fn new() -> Self {
        Self {
            id: WorldId::next(),
            entities: Entities::default(),
            components: Components::default(),
            archetypes: Archetypes::new(),
            bundles: Bundles::default(),
            resources: Resources::default(),
            command_error: None,
            error_handler: crate::error::panic,
            reserved_systems: AtomicU32::new(0),
            unfilled_systems: 0,
            change_tick: AtomicU32::new(1),
            last_tick_check: Tick::new(1),
            observers: Default::default(),
            pending_links: Default::default(),
            trigger_context: None,
            deferred: Default::default(),
            removed: Default::default(),
            message_updates: Vec::new(),
            snapshot_resources: Vec::new(),
            system_ticks: Vec::new(),
            next_system_slot: 0,
            locals: Default::default(),
        }
    }

    /// The number of live entities.
    #[inline]
    pub fn len(&self) -> usize {
        self.entities.len() as usize
    }

    /// `true` when no entity is alive.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// `true` when `entity` is alive in this world.
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.entities.contains(entity)
    }

    /// Where the entity's components are, or `None` when it is not alive.
    #[inline]
    pub fn location(&self, entity: Entity) -> Option<EntityLocation> {
        self.entities.get(entity)
    }

    /// The entity index.
    #[inline]
    pub(crate) fn entities(&self) -> &Entities {
        &self.entities
    }

    /// The components this world has registered.
    #[inline]
    pub fn components(&self) -> &Components {
        &self.components
    }

    /// Registers component `T` in this world (as its first spawn would) and
    /// returns its id, as bevy_ecs's `register_component` does.
    pub fn register_component<T: Component>(&mut self) -> crate::component::ComponentId {
        self.components.register::<T>()
    }

    /// The id of the component this world knows as `name` (see
    /// [`Components::id_by_name`]).
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)]
    /// #[component(describe)]
    /// struct Health(i32);
    /// let mut world = World::new();
    /// world.spawn(Health(3));
    /// let id = world.component_id_by_name("Health").unwrap();
    /// let info = world.components().get(id).unwrap();
    /// assert!(info.kind().is_some(), "listed with its schema");
    /// ```
    pub fn component_id_by_name(&self, name: &str) -> Option<crate::component::ComponentId> {
        self.components.id_by_name(name)
    }

    /// Every archetype, with the archetype and component indices.
    #[inline]
    pub fn archetypes(&self) -> &Archetypes {
        &self.archetypes
    }

    /// This world's unique id.
    #[inline]
    pub fn id(&self) -> WorldId {
        self.id
    }

    /// The current tick: written into columns by spawns and inserts.
    #[inline]
    pub fn change_tick(&self) -> Tick {
        Tick::new(self.change_tick.load(Ordering::Relaxed))
    }

    /// Starts a new tick and returns the one that was current: a query run stamps
    /// its writes with it, and every later change is newer than it.
    #[inline]
    pub fn increment_change_tick(&self) -> Tick {
        Tick::new(self.change_tick.fetch_add(1, Ordering::Relaxed))
    }

    /// [`increment_change_tick`](Self::increment_change_tick) through `&mut self`:
    /// a plain add, where the shared form needs a locked one (~20 cycles, paid by
    /// every query run).
    #[inline]
    pub(crate) fn increment_change_tick_mut(&mut self) -> Tick {
        self.reserve_change_ticks_mut(1)
    }

    /// Starts `count` ticks at once through `&mut self` and returns the first: the
    /// runs that use them are stamped `first`, `first + 1`, … A schedule takes
    /// a batch's ticks this way before the batch runs, so that its systems, which
    /// only have `&World`, need no locked add (which also waits for every store
    /// the previous system left pending).
    #[inline]
    pub(crate) fn reserve_change_ticks_mut(&mut self, count: u32) -> Tick {
        let tick = self.change_tick.get_mut();
        let current = *tick;
        *tick = current.wrapping_add(count);
        Tick::new(current)
    }

    /// A shared reference to the entity's `T`, or `None` when the entity is not alive
    /// or has no `T`.
    ///
    /// O(1) and hash-free: entity index -> `T`'s column in the entity's archetype
    /// (a table per component, by archetype) -> row. In a loop over many entities,
    /// a query borrow ([`query`](Self::query), then `get`) is faster: it prepares
    /// the column once.
    #[inline]
    pub fn get<T: Component + WholeComponent>(&self, entity: Entity) -> Option<&T> {
        // `T`'s column table first, before the entity's slot: a type never
        // stored misses the tables before any lookup, and reads that come before
        // the first branch on the entity are made once for a whole loop of
        // `get`s (see `Archetypes::columns_for`).
        let columns = self.archetypes.columns_for::<T>()?;
        let location = self.entities.get_maybe_dead(entity)?;
        // A dead slot's location names no archetype: a miss here.
        let column = columns.column(location.archetype)?;
        // SAFETY: the column of `T`'s id stores `T`s; it exists in the location's
        // archetype, so the location is a live entity's current one (the slot
        // matched the handle's generation) and its row is below the column's
        // length.
        unsafe { crate::archetype::value_in(column, location.row.index()) }
    }

    /// The `T` of the entity at `location`: `T`'s column there, then the row.
    /// `EntityRef::get`'s path.
    ///
    /// # Safety
    /// `location` is a live entity's current location or names no archetype
    /// (a free or reserved slot's: the column lookup then misses).
    #[inline(always)]
    pub(crate) unsafe fn get_at<T: Component + WholeComponent>(&self, location: EntityLocation) -> Option<&T> {
        let column = self.archetypes.columns_for::<T>()?.column(location.archetype)?;
        // SAFETY: the column of `T`'s id stores `T`s; it exists in the
        // location's archetype, so the location is a live entity's (caller) and
        // its row is below the column's length.
        unsafe { crate::archetype::value_in(column, location.row.index()) }
    }

    /// The entity's `T`, mutably, or `None` when the entity is not alive or has no
    /// `T`. The component is marked changed when written through the [`Mut`]
    /// (not when only read), so `Changed<T>` sees exactly the writes.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Fuel(u32);
    /// let mut world = World::new();
    /// let ship = world.spawn(Fuel(3));
    /// let mut changed = world.query_state_filtered::<Entity, Changed<Fuel>>();
    /// changed.iter(&world).count(); // sees the spawn
    /// assert_eq!(world.get_mut::<Fuel>(ship).unwrap().0, 3); // a read
    /// assert_eq!(changed.iter(&world).count(), 0);
    /// world.get_mut::<Fuel>(ship).unwrap().0 -= 1; // a write
    /// assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [ship]);
    /// ```
    #[inline]
    pub fn get_mut<T: Component + MutableComponent + WholeComponent>(&mut self, entity: Entity) -> Option<Mut<'_, T>> {
        self.get_mut_internal(entity)
    }

    /// [`get_mut`](Self::get_mut) for any component, immutable ones included: for
    /// the crate's own upkeep of relationships and observers, which keeps their
    /// rules.
    #[inline]
    pub(crate) fn get_mut_internal<T: Component + WholeComponent>(&mut self, entity: Entity) -> Option<Mut<'_, T>> {
        // In `get`'s order, for the same reason.
        let columns = self.archetypes.columns_for_mut::<T>()?;
        let location = self.entities.get_maybe_dead(entity)?;
        let this_run = Tick::new(*self.change_tick.get_mut());
        // As in `get`: a dead slot's location misses.
        let column = columns.column(location.archetype)?;
        let row = location.row.index();
        // SAFETY: as in `get`: the row is in bounds (the column exists in a live
        // entity's archetype); a sparse column's row is checked for a value
        // first, a table column's rows all hold one; the column of `T`'s id
        // stores whole `T`s (`WholeComponent`). `&mut self` makes the borrow
        // unique.
        unsafe {
            if is_sparse::<T>() && !column.is_present(row) {
                return None;
            }
            let (value, ticks, summary) = column.get_tracked_mut::<T>(row);
            let ticks = change::TicksMut { ticks, summary: Some(summary), last_run: Tick::new(0), this_run };
            Some(Mut::new(value, ticks))
        }
    }

    /// `true` when the entity is alive and has a `T`.
    #[inline]
    pub fn has<T: Component>(&self, entity: Entity) -> bool {
        self.entities
            .get(entity)
            .and_then(|l| Some((self.archetypes.get(l.archetype)?, l.row.index())))
            .is_some_and(|(a, row)| a.has_at(component_id::<T>(), row))
    }

    /// Stores a resource, returning the one of the same type it replaces.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// struct DeltaTime(f32);
    /// let mut world = World::new();
    /// world.insert_resource(DeltaTime(1.0 / 60.0));
    /// world.resource_mut::<DeltaTime>().0 = 0.5;
    /// assert_eq!(world.resource::<DeltaTime>().0, 0.5);
    /// assert!(world.remove_resource::<DeltaTime>().is_some());
    /// assert!(world.get_resource::<DeltaTime>().is_none());
    /// assert!(!world.contains_resource::<DeltaTime>());
    /// ```
    ///
    /// The resource counts as changed (for [`Res::is_changed`] and
    /// [`resource_changed`]) from now; a new one also as added.
    ///
    /// [`Res::is_changed`]: crate::system::Res::is_changed
    /// [`resource_changed`]: crate::system::resource_changed
    pub fn insert_resource<R: Send + Sync + 'static>(&mut self, value: R) -> Option<R> {
        let now = self.change_tick();
        self.resources.insert(value, now)
    }

    /// Inserts `R`'s initial value (its `Default`, or [`FromWorld::from_world`])
    /// unless an `R` is already stored, which is kept as it is: bevy's
    /// `init_resource`.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Default)] struct Score(u32);
    /// /// Made from what the world holds.
    /// struct Spawned(usize);
    /// impl FromWorld for Spawned {
    ///     fn from_world(world: &mut World) -> Self { Spawned(world.len()) }
    /// }
    /// let mut world = World::new();
    /// world.spawn(());
    /// world.init_resource::<Score>();
    /// world.resource_mut::<Score>().0 = 3;
    /// world.init_resource::<Score>(); // already there: kept
    /// world.init_resource::<Spawned>();
    /// assert_eq!((world.resource::<Score>().0, world.resource::<Spawned>().0), (3, 1));
    /// ```
    pub fn init_resource<R: FromWorld + Send + Sync + 'static>(&mut self) {
        if !self.contains_resource::<R>() {
            let value = R::from_world(self);
            // `from_world` may have inserted one itself; that one stays.
            if !self.contains_resource::<R>() {
                self.insert_resource(value);
            }
        }
    }

    /// The resource `R`, mutably, inserted first from `make` when there is
    /// none (bevy_ecs's name).
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// struct Hits(u32);
    /// let mut world = World::new();
    /// world.get_resource_or_insert_with(|| Hits(0)).0 += 1;
    /// world.get_resource_or_insert_with(|| Hits(100)).0 += 1; // there: kept
    /// assert_eq!(world.resource::<Hits>().0, 2);
    /// ```
    pub fn get_resource_or_insert_with<R: Send + Sync + 'static>(&mut self, make: impl FnOnce() -> R) -> &mut R {
        if !self.contains_resource::<R>() {
            self.insert_resource(make());
        }
        self.resource_mut::<R>()
    }

    /// The resource `R`, mutably, made by [`init_resource`](Self::init_resource)
    /// first when there is none (bevy_ecs's name).
    pub fn get_resource_or_init<R: FromWorld + Send + Sync + 'static>(&mut self) -> &mut R {
        self.init_resource::<R>();
        self.resource_mut::<R>()
    }

    /// The resource of type `R`.
    ///
    /// # Panics
    /// When no `R` is stored; the message names `R`. Use
    /// [`get_resource`](Self::get_resource) where it may be missing.
    #[inline]
    #[track_caller]
    pub fn resource<R: Send + Sync + 'static>(&self) -> &R {
        self.get_resource().unwrap_or_else(|| missing_resource::<R>())
    }

    /// The resource of type `R`, mutably. It counts as changed from now (for
    /// [`resource_changed`](crate::system::resource_changed)), written or not.
    ///
    /// # Panics
    /// When no `R` is stored; the message names `R`. Use
    /// [`get_resource_mut`](Self::get_resource_mut) where it may be missing.
    #[inline]
    #[track_caller]
    pub fn resource_mut<R: Send + Sync + 'static>(&mut self) -> &mut R {
        self.get_resource_mut().unwrap_or_else(|| missing_resource::<R>())
    }

    /// The resource of type `R`, if stored.
    #[inline]
    pub fn get_resource<R: Send + Sync + 'static>(&self) -> Option<&R> {
        self.resources.get()
    }

    /// The resource of type `R`, mutably, if stored; marked changed as by
    /// [`resource_mut`](Self::resource_mut).
    #[inline]
    pub fn get_resource_mut<R: Send + Sync + 'static>(&mut self) -> Option<&mut R> {
        let now = self.change_tick();
        self.resources.get_mut(now)
    }

    /// Runs `f` with the world and the resource `R` both borrowed mutably: the
    /// resource is taken out for the call and put back after it, also when `f`
    /// panics. The resource comes as a [`Mut`], which marks it changed only if
    /// `f` writes it.
    ///
    /// # Panics
    /// When no `R` is stored, or when `f` stores another `R` meanwhile (the messages
    /// name `R`; in the second case `f`'s value is dropped and the taken one put
    /// back).
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Gold(u32);
    /// struct Bank { total: u32 }
    /// let mut world = World::new();
    /// world.insert_resource(Bank { total: 0 });
    /// world.spawn_batch((1..=3).map(Gold));
    /// world.resource_scope(|world, mut bank: Mut<Bank>| {
    ///     for gold in world.query_mut::<&mut Gold>() {
    ///         bank.total += core::mem::take(&mut gold.0);
    ///     }
    /// });
    /// assert_eq!(world.resource::<Bank>().total, 6);
    /// ```
    #[track_caller]
    pub fn resource_scope<R: Send + Sync + 'static, U>(&mut self, f: impl FnOnce(&mut World, Mut<'_, R>) -> U) -> U {
        /// Puts the resource back when the scope ends, by return or by unwinding.
        struct PutBack<'a, R: Send + Sync + 'static> {
            world: &'a mut World,
            value: Option<R>,
            ticks: ComponentTicks,
        }
        impl<R: Send + Sync + 'static> Drop for PutBack<'_, R> {
            fn drop(&mut self) {
                if let Some(value) = self.value.take() {
                    let replaced = self.world.insert_resource(value);
                    // Put back with the ticks it was taken with, changed where
                    // `f` wrote it (through `Mut`).
                    self.world.resources.set_ticks::<R>(self.ticks);
                    if replaced.is_some() && !std::thread::panicking() {
                        panic!(
                            "the resource `{}` was stored again during `resource_scope`, which had taken it out; \
                             the value stored meanwhile is dropped",
                            crate::names::type_name::<R>()
                        );
                    }
                }
            }
        }
        let (value, ticks) = self.resources.remove::<R>().unwrap_or_else(|| missing_resource::<R>());
        let mut scope = PutBack { world: self, value: Some(value), ticks };
        let PutBack { world, value, ticks } = &mut scope;
        let now = world.change_tick();
        let ticks = change::TicksMut { ticks: Some(ticks), summary: None, last_run: Tick::new(0), this_run: now };
        f(world, Mut::new(value.as_mut().expect("taken out above"), ticks))
    }

    /// Removes and returns the resource of type `R`.
    pub fn remove_resource<R: Send + Sync + 'static>(&mut self) -> Option<R> {
        self.resources.remove().map(|(value, _)| value)
    }

    /// `true` when a resource of type `R` is stored.
    #[inline]
    pub fn contains_resource<R: Send + Sync + 'static>(&self) -> bool {
        self.resources.contains::<R>()
    }

    /// The resource with its ticks (for `Res`).
    #[inline]
    pub(crate) fn resource_with_ticks<R: Send + Sync + 'static>(&self) -> Option<(&R, ComponentTicks)> {
        self.resources.get_with_ticks()
    }

    /// When the resource `R` was inserted and last written, if stored.
    pub fn resource_ticks<R: Send + Sync + 'static>(&self) -> Option<ComponentTicks> {
        self.resources.ticks::<R>()
    }

    /// The resource and its ticks, mutably, through a shared world (for system
    /// parameters).
    ///
    /// # Safety
    /// No other borrow of the resource or its ticks exists while the returned ones
    /// are used.
    #[inline]
    #[expect(clippy::mut_from_ref, reason = "resources sit in cells; exclusivity is the caller's promise")]
    pub(crate) unsafe fn resource_unchecked_mut<R: Send + Sync + 'static>(
        &self,
    ) -> Option<(&mut R, &mut ComponentTicks)> {
        // SAFETY: forwarded.
        unsafe { self.resources.get_unchecked_mut() }
    }

    /// Sets what happens when a deferred command is skipped because its entity no
    /// longer exists, or when [`spawn`](Self::spawn) drops a relationship whose
    /// target is not alive. The default prints one line to stderr.
    pub fn set_command_error_handler(&mut self, handler: impl FnMut(&EcsError) + Send + Sync + 'static) {
        self.command_error = Some(Box::new(handler));
    }

    /// Sets what becomes of an error a system or an observer returns (one
    /// returning [`Result`](type@crate::error::Result)): [`panic`](fn@crate::error::panic)
    /// by default, as in bevy_ecs, or [`warn`](crate::error::warn),
    /// [`ignore`](crate::error::ignore) or a function of your own.
    ///
    /// # Example
    /// ```
    /// use ecs_core::prelude::*;
    /// use ecs_core::error::{self, ErrorContext};
    ///
    /// fn load_level(level: Option<Res<Level>>) -> Result {
    ///     let _level = level.ok_or("no level is loaded")?;
    ///     Ok(())
    /// }
    /// struct Level;
    ///
    /// let mut world = World::new();
    /// world.set_error_handler(error::warn); // prints "ecs: system `…load_level` failed: no level is loaded"
    /// let mut schedule = Schedule::new();
    /// schedule.add_systems(load_level);
    /// schedule.run(&mut world);
    /// ```
    #[doc(alias = "default_error_handler")]
    pub fn set_error_handler(&mut self, handler: crate::error::ErrorHandler) {
        self.error_handler = handler;
    }

    /// What becomes of an error a system or an observer returns (see
    /// [`set_error_handler`](Self::set_error_handler)).
    #[inline]
    pub fn error_handler(&self) -> crate::error::ErrorHandler {
        self.error_handler
    }

    pub(crate) fn report_command_error(&mut self, error: &EcsError) {
        self.report_error(error, "command skipped");
    }

    /// Hands `error` to the error handler; without one, prints it after `what`
    /// happened instead.
    pub(crate) fn report_error(&mut self, error: &EcsError, what: &str) {
        match &mut self.command_error {
            Some(handler) => handler(error),
            None => eprintln!("ecs: {what}: {error}"),
        }
    }

    /// Reserves a handle for an entity spawned later (by a command).
    pub(crate) fn reserve_entity(&self) -> Entity {
        self.entities.reserve_entity()
    }

    /// Frees entity handles reserved by `Commands::spawn` whose commands were never
    /// applied (their queue was dropped). Call it only when every queue that could
    /// still spawn a reserved handle has been applied.
    pub fn release_reserved_entities(&mut self) {
        self.entities.release_reserved();
    }

    /// Frees one handle reserved by `Commands::spawn` whose command will never
    /// run; a no-op for any other handle.
    pub(crate) fn release_reserved_entity(&mut self, entity: Entity) {
        self.entities.release_one_reserved(entity);
    }

    /// A read-only view of a live entity.
    #[inline]
    pub fn entity(&self, entity: Entity) -> Option<EntityRef<'_>> {
        let location = self.entities.get(entity)?;
        Some(EntityRef::new(self, entity, location))
    }

    /// Every live entity, archetype by archetype.
    pub fn iter(&self) -> impl Iterator<Item = EntityRef<'_>> + '_ {
        self.archetypes.iter().flat_map(move |archetype| {
            archetype.entities().iter().enumerate().map(move |(row, &entity)| {
                EntityRef::new(self, entity, EntityLocation { archetype: archetype.id(), row: Row::new(row) })
            })
        })
    }

    /// Despawns every entity, dropping all components. Every handle issued so far
    /// becomes stale. Archetypes and cached edges are kept for reuse.
    ///
    /// # Panics
    /// Re-raises the first panic of a component's `Drop`, after every other
    /// component has been dropped and the world is empty and consistent.
    pub fn clear(&mut self) {
        if self.components.lifecycle_active() {
            self.clear_observed();
        }
        resume_deferred(self.clear_deferring_panic());
    }

    fn clear_deferring_panic(&mut self) -> crate::panics::DeferredPanic {
        self.entities.clear();
        self.drop_components()
    }

    /// Drops every component value, leaving the archetypes empty, and returns the
    /// first panic of a `Drop`. The entity index is left to the caller.
    fn drop_components(&mut self) -> crate::panics::DeferredPanic {
        let mut panic = None;
        for archetype in self.archetypes.iter_mut() {
            archetype.entities.clear();
            for column in archetype.columns.iter_mut() {
                column.clear(&mut panic);
            }
        }
        panic
    }

    /// The bundle id of `B` in this world, registering `B` (and its components) on
    /// first use. One indexed load for a single component; one `TypeId` map lookup
    /// otherwise.
    #[inline]
    fn bundle_id<B: Bundle>(&mut self) -> BundleId {
        let key = B::__key();
        match self.bundles.find(key) {
            Some(id) => id,
            None => self.register_bundle::<B>(key),
        }
    }

    /// # Panics
    /// When the bundle holds a component type more than once.
    #[cold]
    #[inline(never)]
    fn register_bundle<B: Bundle>(&mut self, key: BundleKey) -> BundleId {
        let mut components = Vec::new();
        B::register(&mut self.components, &mut |id| components.push(id));
        self.add_bundle(key, components, crate::names::type_name::<B>)
    }

    /// The part of [`register_bundle`](Self::register_bundle) that does not
    /// depend on the bundle's type: compiled once, not once per bundle type
    /// of the user's program.
    ///
    /// # Panics
    /// When `components` holds a component more than once (`name` names the
    /// bundle then).
    #[inline(never)]
    fn add_bundle(
        &mut self,
        key: BundleKey,
        components: Vec<crate::component::ComponentId>,
        name: fn() -> &'static str,
    ) -> BundleId {
        let mut sorted = components.clone();
        sorted.sort_unstable();
        if let Some(pair) = sorted.windows(2).find(|w| w[0] == w[1]) {
            panic!(
                "bundle `{}` contains the component `{}` more than once; \
                 an entity can hold only one value of each component type",
                name(),
                self.components.name(pair[0])
            );
        }
        let sparse = components.iter().copied().filter(|&c| self.is_sparse(c)).collect();
        self.bundles.insert(key, BundleInfo { components: components.into(), sparse, spawn: None })
    }

    /// The archetype that entities spawned with exactly this bundle live in,
    /// created on first use.
    #[inline]
    fn spawn_archetype(&mut self, bundle: BundleId) -> ArchetypeId {
        match &self.bundles.get(bundle).spawn {
            Some(target) => target.archetype,
            None => self.create_spawn_archetype(bundle),
        }
    }

    #[cold]
    #[inline(never)]
    fn create_spawn_archetype(&mut self, bundle: BundleId) -> ArchetypeId {
        let info = self.bundles.get(bundle);
        let mut key: Vec<_> = info.components.iter().copied().filter(|&c| !self.is_sparse(c)).collect();
        key.sort_unstable();
        let id = self.archetypes.get_or_create(&key, &self.components);
        let components = info.components.clone();
        let columns = components
            .iter()
            .map(|&c| match self.components.get(c).filter(|i| i.is_sparse()) {
                Some(sparse) => self.archetypes.add_sparse_column(id, sparse) as u32,
                None => {
                    self.archetypes.get(id).and_then(|a| a.column_index(c)).expect("bundle data is in the key") as u32
                }
            })
            .collect();
        self.bundles.get_mut(bundle).spawn = Some(SpawnTarget { archetype: id, columns });
        id
    }

    /// `true` when a registered component is stored per row (see
    /// [`ComponentInfo::is_sparse`]).
    ///
    /// [`ComponentInfo::is_sparse`]: crate::ComponentInfo::is_sparse
    #[inline]
    pub(crate) fn is_sparse(&self, component: crate::component::ComponentId) -> bool {
        self.components.get(component).is_some_and(|i| i.is_sparse())
    }

    /// Checks every internal invariant and describes the first one broken. Meant for
    /// tests, which call it after every step:
    /// - the entity index's free list and live set are disjoint and counted right;
    /// - every live entity's record points at a row holding that entity;
    /// - every archetype's columns have as many rows as its entity column;
    /// - the archetype lengths add up to [`len`](Self::len);
    /// - the archetype and component indices match the archetypes;
    /// - every cached edge leads to the archetype its bundle implies.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.entities.check_invariants()?;
        self.archetypes.check_invariants(&self.components)?;
        for (entity, location) in self.entities.iter() {
            let archetype = self
                .archetypes
                .get(location.archetype)
                .ok_or_else(|| format!("{entity} is in missing archetype {:?}", location.archetype))?;
            if archetype.entities().get(location.row.index()) != Some(&entity) {
                return Err(format!("{entity}'s record {location:?} points at another row"));
            }
        }
        let mut total = 0;
        for archetype in self.archetypes.iter() {
            total += archetype.len();
            for (row, &entity) in archetype.entities().iter().enumerate() {
                let expected = EntityLocation { archetype: archetype.id(), row: Row::new(row) };
                if self.entities.get(entity) != Some(expected) {
                    return Err(format!("{entity} sits in {expected:?} but its record disagrees"));
                }
            }
            self.check_edges(archetype.id())?;
        }
        if total != self.len() {
            return Err(format!("archetypes hold {total} rows but {} entities are live", self.len()));
        }
        Ok(())
    }

    fn check_edges(&self, id: ArchetypeId) -> Result<(), String> {
        let source = self.archetypes.get(id).expect("checked by caller");
        for (bundle, edge) in source.edges.inserts() {
            let info = self.bundles.get(bundle);
            let mut expected: Vec<_> =
                source.key().iter().chain(info.components.iter()).copied().filter(|&c| !self.is_sparse(c)).collect();
            expected.sort_unstable();
            expected.dedup();
            if self.archetypes.find(&expected) != Some(edge.target) {
                return Err(format!("insert edge {id:?} + {bundle:?} leads to {:?}", edge.target));
            }
        }
        for (bundle, edge) in source.edges.removes() {
            let info = self.bundles.get(bundle);
            if let crate::archetype::RemoveEdge::Target(target) = edge {
                let expected: Vec<_> = source.key().iter().filter(|c| !info.components.contains(c)).copied().collect();
                if self.archetypes.find(&expected) != Some(target) {
                    return Err(format!("remove edge {id:?} - {bundle:?} leads to {target:?}"));
                }
            }
        }
        Ok(())
    }
}

impl Drop for World {
    fn drop(&mut self) {
        // Drop all components with one deferred panic, so that a panicking `Drop`
        // cannot stop the other components from being dropped. The entity index
        // needs no bookkeeping: it is freed as a whole.
        resume_deferred(self.drop_components());
    }
}

/// The panic of [`World::resource`] and friends for a missing resource.
#[cold]
#[track_caller]
fn missing_resource<R>() -> ! {
    panic!(
        "the resource `{}` is not in the world; add it with `world.insert_resource(…)`, \
         or use `get_resource` where it may be missing",
        crate::names::type_name::<R>()
    )
}

/// A value made from the world: what [`World::init_resource`] inserts. Every
/// `Default` type is one; implement it for a resource whose first value depends
/// on what the world holds.
pub trait FromWorld {
    /// The value, made from `world`.
    fn from_world(world: &mut World) -> Self;
}

impl<T: Default> FromWorld for T {
    fn from_world(_: &mut World) -> Self {
        T::default()
    }
}
