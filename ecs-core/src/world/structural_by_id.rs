//! Structural changes by component id: inserting, removing and spawning
//! components whose values come as bytes laid out by their schema (a
//! [`DynamicValue`](super::DynamicValue), an
//! [`EntityBuilder`](super::EntityBuilder)) rather than as Rust values. The
//! same archetype moves as the typed paths, with the same hooks, observers
//! and removal logs.

use core::alloc::Layout;
use core::ptr::NonNull;

use super::held_ids::HeldIds;
use super::{DynamicValue, World};
use crate::archetype::Row;
use crate::bundle::{BundleId, BundleInfo};
use crate::component::{ComponentDescriptor, ComponentHooks, ComponentId, ComponentInfo, Lifecycle};
use crate::entity::{Entity, EntityLocation};
use crate::error::EcsError;
use crate::panics::{DeferredPanic, defer_panic, resume_deferred};
use crate::storage::OwningPtr;

/// Why [`World::register_dynamic`] refused a component.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegisterError {
    /// The world has a component of that name with another definition.
    NameTaken {
        /// The name.
        name: String,
        /// The component the world has, as its schema reads (or its type).
        registered: String,
        /// The definition refused.
        requested: String,
    },
}

impl core::fmt::Display for RegisterError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            RegisterError::NameTaken { name, registered, requested } => write!(
                f,
                "a component named `{name}` is already registered as `{registered}`; it cannot also be `{requested}`"
            ),
        }
    }
}

impl std::error::Error for RegisterError {}

/// How a component reads in an error: its schema, or its type.
fn definition(info: &ComponentInfo) -> String {
    let storage = if info.fields().is_some() {
        " (per field)"
    } else if info.is_sparse() {
        " (sparse)"
    } else {
        ""
    };
    match info.kind() {
        Some(kind) => format!("{}{storage}", kind.definition()),
        None => format!("{}{storage}", info.name()),
    }
}

/// A block of memory for one value of a layout, freed (never dropped) with
/// the block: the caller says what the bytes hold.
pub(crate) struct Bytes {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: the block is plain memory owned by this handle; what it holds is
// the owner's business (values of components, which are `Send + Sync`).
unsafe impl Send for Bytes {}
// SAFETY: as for `Send`.
unsafe impl Sync for Bytes {}

impl Bytes {
    /// An uninitialised block for one value of `layout`.
    pub(crate) fn new(layout: Layout) -> Self {
        if layout.size() == 0 {
            // Aligned and never dereferenced for a zero-sized value.
            let ptr = NonNull::new(core::ptr::without_provenance_mut(layout.align())).expect("alignment is non-zero");
            return Self { ptr, layout };
        }
        // SAFETY: the size is non-zero.
        let raw = unsafe { std::alloc::alloc(layout) };
        let ptr = NonNull::new(raw).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        Self { ptr, layout }
    }

    pub(crate) fn ptr(&self) -> NonNull<u8> {
        self.ptr
    }
}

impl Drop for Bytes {
    fn drop(&mut self) {
        if self.layout.size() != 0 {
            // SAFETY: allocated in `new` with this layout, freed once.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) };
        }
    }
}

impl World {
    /// Registers a component defined at run time (see
    /// [`ComponentDescriptor`]) and returns its id. Registering the same
    /// definition again returns the same id, in this world and in every other
    /// of the process.
    ///
    /// # Errors
    /// [`RegisterError::NameTaken`] when this world has another component of
    /// that name (runtime or Rust), naming both definitions.
    ///
    /// # Example
    /// ```
    /// use ecs_core::prelude::*;
    /// use ecs_core::component::{ComponentDescriptor, FieldKind, SchemaBuilder};
    /// use ecs_core::world::DynamicValue;
    ///
    /// let mut world = World::new();
    /// let schema = SchemaBuilder::new("Mana").field("points", FieldKind::F32).build()?;
    /// let mana = world.register_dynamic(&ComponentDescriptor::new("Mana", schema))?;
    ///
    /// let mut value = DynamicValue::new(&world, mana)?;
    /// value.set("points", 12.5f32)?;
    /// let e = world.spawn(());
    /// world.entity_mut(e)?.insert_by_id(mana, value)?;
    /// assert_eq!(world.get_by_id(e, mana)?.get::<f32>("points"), Ok(12.5));
    ///
    /// let other = SchemaBuilder::new("Mana").field("points", FieldKind::I32).build()?;
    /// assert!(world.register_dynamic(&ComponentDescriptor::new("Mana", other)).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn register_dynamic(&mut self, descriptor: &ComponentDescriptor) -> Result<ComponentId, RegisterError> {
        let info = ComponentInfo::dynamic(descriptor);
        if self.components.get(info.id()).is_some() {
            return Ok(info.id());
        }
        if let Some(other) = self.components.named(descriptor.name()) {
            return Err(RegisterError::NameTaken {
                name: descriptor.name().to_owned(),
                registered: definition(other),
                requested: definition(&info),
            });
        }
        self.components.register_info(&info);
        Ok(info.id())
    }

    /// Sets the hooks of the runtime component `id` in this world (a Rust
    /// component's hooks are its type's, declared with `#[component(on_add =
    /// …)]`). They run as a typed component's do, by id and by type alike.
    ///
    /// # Errors
    /// [`EcsError::UnknownComponent`]; [`EcsError::HooksOfRustComponent`]
    /// for a component defined by a Rust type.
    ///
    /// # Example
    /// ```
    /// use ecs_core::prelude::*;
    /// use ecs_core::component::{ComponentDescriptor, ComponentHooks, FieldKind, SchemaBuilder};
    /// use ecs_core::world::{DeferredWorld, DynamicValue};
    ///
    /// #[derive(Default)] struct Spawned(u32);
    /// fn count(mut world: DeferredWorld, _: HookContext) {
    ///     world.resource_mut::<Spawned>().0 += 1;
    /// }
    /// let mut world = World::new();
    /// world.insert_resource(Spawned::default());
    /// let schema = SchemaBuilder::new("Loot").field("gold", FieldKind::U32).build()?;
    /// let loot = world.register_dynamic(&ComponentDescriptor::new("Loot", schema))?;
    /// world.set_component_hooks_by_id(loot, ComponentHooks { on_add: Some(count), ..Default::default() })?;
    /// let e = world.spawn(());
    /// world.insert_by_id(e, loot, DynamicValue::new(&world, loot)?)?;
    /// assert_eq!(world.resource::<Spawned>().0, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_component_hooks_by_id(&mut self, id: ComponentId, hooks: ComponentHooks) -> Result<(), EcsError> {
        let info = self.components.get(id).ok_or(EcsError::UnknownComponent { index: id.index() })?;
        if !info.is_dynamic() {
            return Err(EcsError::HooksOfRustComponent { component: info.name() });
        }
        self.components.set_hooks(id, hooks);
        Ok(())
    }

    /// Inserts `value` as component `id` of `entity` (replacing the value it
    /// has), with hooks and observers, as a typed insert does.
    ///
    /// # Errors
    /// [`EcsError::ValueOfOtherComponent`] when `value` was made for another
    /// component, [`EcsError::UnknownComponent`], [`EcsError::NoSuchEntity`];
    /// nothing changes then and the value is dropped.
    pub fn insert_by_id(&mut self, entity: Entity, id: ComponentId, value: DynamicValue) -> Result<(), EcsError> {
        let info = self.components.get(id).ok_or(EcsError::UnknownComponent { index: id.index() })?;
        if value.id() != id {
            return Err(EcsError::ValueOfOtherComponent { component: info.name(), value: value.info().name() });
        }
        let bundle = self.bundle_of_ids(&[id])?;
        let mut pending = Pending { values: [Owned::of(value)], moved: false };
        let ptr = pending.values[0].bytes.ptr();
        // SAFETY: the bundle is this world's, of the one component the value
        // holds (its id checked above; a value of an id holds that component,
        // laid out by its info, the same in every world); `pending.moved` says
        // who owns the value, whatever unwinds.
        unsafe { self.insert_raw(entity, bundle, &[ptr], &mut pending.moved) }
    }

    /// Inserts several values into `entity` at once, each as the component
    /// it was made for: one move to the archetype that holds them all, so a
    /// hook or observer of one already sees the others there, as with a
    /// typed bundle. A component the entity has is replaced.
    ///
    /// # Errors
    /// [`EcsError::UnknownComponent`], [`EcsError::DuplicateComponent`] (two
    /// values of one component), [`EcsError::RelationshipById`],
    /// [`EcsError::NoSuchEntity`]; nothing changes then and the values are
    /// dropped.
    ///
    /// # Example
    /// ```
    /// use ecs_core::prelude::*;
    /// use ecs_core::world::DynamicValue;
    /// #[derive(Component, Default)]
    /// #[component(describe)]
    /// struct Hp { hp: i32 }
    /// #[derive(Component, Default)]
    /// #[component(describe)]
    /// struct Armor { points: u8 }
    ///
    /// let mut world = World::new();
    /// let (hp, armor) = (world.register_component::<Hp>(), world.register_component::<Armor>());
    /// let e = world.spawn_empty().id();
    /// let mut a = DynamicValue::new(&world, hp)?;
    /// a.set("hp", 30i32)?;
    /// let b = DynamicValue::new(&world, armor)?;
    /// world.insert_by_ids(e, vec![a, b])?;
    /// assert_eq!(world.get::<Hp>(e).map(|h| h.hp), Some(30));
    /// assert!(world.get::<Armor>(e).is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn insert_by_ids(&mut self, entity: Entity, values: Vec<DynamicValue>) -> Result<(), EcsError> {
        let ids: Vec<ComponentId> = values.iter().map(DynamicValue::id).collect();
        // Its components in the order of `ids` (bundles found by id list are
        // kept by that exact list), so the values below line up with them.
        let bundle = self.bundle_of_ids(&ids)?;
        let mut pending = Pending { values: values.into_iter().map(Owned::of).collect::<Vec<_>>(), moved: false };
        let ptrs: Vec<NonNull<u8>> = pending.values.iter().map(|owned| owned.bytes.ptr()).collect();
        // SAFETY: the bundle is this world's, of the values' components in
        // their order (found or made from their ids above; a value of an id
        // holds that component, laid out by its info, the same in every
        // world); `pending.moved` says who owns the values, whatever unwinds.
        unsafe { self.insert_raw(entity, bundle, &ptrs, &mut pending.moved) }
    }

    /// Removes component `id` from `entity` and drops its value, with hooks,
    /// observers and removal logs, as a typed remove does.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`], [`EcsError::UnknownComponent`],
    /// [`EcsError::RelationshipById`], [`EcsError::MissingComponent`];
    /// nothing changes then.
    pub fn remove_by_id(&mut self, entity: Entity, id: ComponentId) -> Result<(), EcsError> {
        self.remove_raw(entity, id)
    }

    /// The bundle of exactly `components` (in this order), registered the
    /// first time.
    ///
    /// # Errors
    /// [`EcsError::UnknownComponent`] for an id this world has not
    /// registered, [`EcsError::DuplicateComponent`] for an id given twice,
    /// [`EcsError::RelationshipById`] for a relationship.
    pub(crate) fn bundle_of_ids(&mut self, components: &[ComponentId]) -> Result<BundleId, EcsError> {
        if let Some(id) = self.bundles.find_ids(components) {
            return Ok(id);
        }
        for (i, &id) in components.iter().enumerate() {
            let info = self.components.get(id).ok_or(EcsError::UnknownComponent { index: id.index() })?;
            if info.is_relationship() {
                return Err(EcsError::RelationshipById { component: info.name() });
            }
            if components[..i].contains(&id) {
                return Err(EcsError::DuplicateComponent { component: info.name() });
            }
        }
        let sparse = components.iter().copied().filter(|&c| self.is_sparse(c)).collect();
        Ok(self.bundles.insert_ids(BundleInfo { components: components.into(), sparse, spawn: None }))
    }

    /// Spawns an entity holding the values at `value_of(i)`, one per
    /// component of `bundle`, in its order, moved into the columns.
    ///
    /// # Safety
    /// `bundle` is this world's (from [`bundle_of_ids`](Self::bundle_of_ids));
    /// `value_of(i)` is an owned, valid value of its `i`th component, aligned,
    /// which the caller forgets (never reads or drops again) once this returns.
    ///
    /// Hooks and observers do not run here: the caller forgets the values
    /// first, then calls [`after_spawn_raw`](Self::after_spawn_raw), so that a
    /// panicking hook finds every value owned by the world alone.
    ///
    /// Generic over where the values lie (inlined into each caller), so a
    /// builder hands over its buffer's offsets without listing pointers.
    #[inline]
    pub(crate) unsafe fn spawn_raw(&mut self, bundle: BundleId, value_of: impl Fn(usize) -> NonNull<u8>) -> Entity {
        let archetype = self.spawn_archetype(bundle);
        self.archetypes.get_mut(archetype).reserve(1);
        let tick = self.change_tick();
        let info = self.bundles.get(bundle);
        let target = info.spawn.as_ref().expect("made by spawn_archetype");
        let archetype = self.archetypes.get_mut(target.archetype);
        let row = archetype.len();
        let entity = self.entities.alloc(EntityLocation { archetype: target.archetype, row: Row::new(row) });
        for (position, &column) in target.columns.iter().enumerate() {
            let value = value_of(position);
            let size = archetype.columns[column as usize].item_layout().size();
            // SAFETY: the column is the component's (the spawn target's list),
            // with room for a row (reserved above); `push_slot` hands out its
            // uninitialised slot, which the copy fills at once with the owned
            // value (caller), whose size is the component's.
            unsafe {
                let slot = archetype.columns[column as usize].push_slot(tick);
                crate::storage::copy_item(value.as_ptr(), slot.as_ptr(), size);
            }
        }
        // SAFETY: every column of the bundle got its row above; the others are
        // sparse ones padded here; the archetype has room for the entity.
        unsafe {
            archetype.settle_split();
            archetype.pad_sparse(row);
            archetype.push_entity_unchecked(entity);
        }
        entity
    }

    /// Runs `Add` and `Insert` for `entity`, spawned by
    /// [`spawn_raw`](Self::spawn_raw) with `bundle`.
    pub(crate) fn after_spawn_raw(&mut self, bundle: BundleId, entity: Entity) {
        if self.components.lifecycle_active() {
            let components = HeldIds::new(&self.bundles.get(bundle).components);
            if !components.iter().all(|&c| self.components.lifecycle(c) == 0) {
                self.with_lifecycle(Some(entity), |world| {
                    world.insert_required(entity, &components);
                    world.run_lifecycle(Lifecycle::Add, entity, &components);
                    world.run_lifecycle(Lifecycle::Insert, entity, &components);
                });
            }
        }
    }

    /// Inserts the values at `values`, one per component of `bundle`, into
    /// the live `entity` (a component it has is replaced, the old value
    /// dropped), with hooks and observers.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`]; nothing is moved then.
    ///
    /// # Safety
    /// `bundle` and `values` as for [`spawn_raw`](Self::spawn_raw). `moved`
    /// is set the moment the values move into the world (a replaced one is
    /// then dropped in its place): from then on the caller forgets them, even
    /// when a hook or observer unwinds out of this call; while it is unset
    /// they are still the caller's.
    pub(crate) unsafe fn insert_raw(
        &mut self,
        entity: Entity,
        bundle: BundleId,
        values: &[NonNull<u8>],
        moved: &mut bool,
    ) -> Result<(), EcsError> {
        let location = self.entities.get(entity).ok_or(EcsError::NoSuchEntity(entity))?;
        let components = HeldIds::new(&self.bundles.get(bundle).components);
        if !self.components.lifecycle_active() || components.iter().all(|&c| self.components.lifecycle(c) == 0) {
            // SAFETY: forwarded.
            resume_deferred(unsafe { self.insert_raw_unobserved(location, entity, bundle, values, moved) });
            return Ok(());
        }
        let archetype = self.archetypes.get(location.archetype).expect("live archetype");
        let row = location.row.index();
        let split = components.partition(|c| archetype.has_at(c, row));
        self.with_lifecycle(Some(entity), |world| {
            world.run_lifecycle(Lifecycle::Discard, entity, split.held());
            // Hooks cannot despawn or move the entity: it is where it was.
            let location = world.entities.get(entity).expect("hooks keep the entity alive");
            // A replaced value whose drop panics leaves the new values in
            // place: the insert hooks and observers still run, then the first
            // panic goes on.
            // SAFETY: forwarded.
            let mut dropped = unsafe { world.insert_raw_unobserved(location, entity, bundle, values, moved) };
            defer_panic(&mut dropped, || {
                world.insert_required(entity, &components);
                world.run_lifecycle(Lifecycle::Add, entity, split.rest());
                world.run_lifecycle(Lifecycle::Insert, entity, &components);
            });
            resume_deferred(dropped);
        });
        Ok(())
    }

    /// [`insert_raw`](Self::insert_raw) without hooks and observers, for an
    /// entity live at `location`; returns the panic of a replaced value's drop
    /// (the insert complete) for the caller to resume.
    ///
    /// # Safety
    /// As for `insert_raw`.
    #[must_use]
    unsafe fn insert_raw_unobserved(
        &mut self,
        location: EntityLocation,
        entity: Entity,
        bundle: BundleId,
        values: &[NonNull<u8>],
        moved: &mut bool,
    ) -> DeferredPanic {
        let source_id = location.archetype;
        let target_id = match self.archetypes.get_mut(source_id).edges.insert(bundle) {
            Some(edge) => edge.target,
            None => self.insert_edge(source_id, bundle),
        };
        let row = location.row.index();
        let tick = self.change_tick();
        let mut panic = None;
        let target_row = if target_id == source_id {
            row
        } else {
            self.archetypes.sync_sparse(source_id, target_id, &self.components);
            let (source, target) = self.archetypes.pair_mut(source_id, target_id);
            target.reserve(1);
            let target_row = target.len();
            // SAFETY: `row` is live in the source; the target has room, every
            // source component (an insert only adds) and every sparse one.
            let swapped = unsafe { source.move_row(row, target, tick) };
            self.relocate(
                entity,
                swapped,
                location,
                EntityLocation { archetype: target_id, row: Row::new(target_row) },
            );
            target_row
        };
        let source = self.archetypes.get(source_id).expect("live archetype");
        let edge = source.edges.insert(bundle).expect("edge cached above");
        let writes = edge.writes.clone();
        let target = self.archetypes.get_mut(target_id);
        // Nothing below unwinds before every value is in its column (a drop
        // of a replaced value is deferred): the values are the world's now.
        *moved = true;
        for (write, &value) in writes.iter().zip(values) {
            let column = &mut target.columns[write.column as usize];
            // SAFETY: the column stores this bundle component's type; the value
            // is an owned one of it (caller). An existing value (a present
            // sparse row, or a component the source had) is replaced, its old
            // value dropped; a new one is pushed into the reserved room.
            unsafe {
                let value = OwningPtr::new(value);
                if write.sparse {
                    column.put(target_row, value, tick, &mut panic);
                } else if write.existed || target_id == source_id {
                    column.replace(target_row, value, tick, &mut panic);
                } else {
                    column.push_unchecked(value, tick);
                }
            }
        }
        panic
    }

    /// Removes component `id` from the live `entity` and drops its value, with
    /// hooks, observers and removal logs.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`], [`EcsError::UnknownComponent`],
    /// [`EcsError::RelationshipById`], [`EcsError::MissingComponent`];
    /// nothing changes then.
    pub(crate) fn remove_raw(&mut self, entity: Entity, id: ComponentId) -> Result<(), EcsError> {
        let location = self.entities.get(entity).ok_or(EcsError::NoSuchEntity(entity))?;
        let bundle = self.bundle_of_ids(&[id])?;
        let info = *self.components.get(id).expect("checked by bundle_of_ids");
        let archetype = self.archetypes.get(location.archetype).expect("live archetype");
        if !archetype.has_at(id, location.row.index()) {
            return Err(EcsError::MissingComponent { entity, component: info.name() });
        }
        if self.components.lifecycle(id) != 0 {
            self.with_lifecycle(Some(entity), |world| {
                world.run_lifecycle(Lifecycle::Discard, entity, &[id]);
                world.run_lifecycle(Lifecycle::Remove, entity, &[id]);
                world.remove_raw_unobserved(entity, bundle, &info);
            });
        } else {
            self.remove_raw_unobserved(entity, bundle, &info);
        }
        Ok(())
    }

    /// Removes `component` from `entity` and drops it, with no hook, observer
    /// or removal log: what a load does with a relationship list saved empty
    /// (`serialize::load`). Nothing happens when the entity does not hold it.
    #[cfg(feature = "serde")]
    pub(crate) fn discard_unobserved(&mut self, entity: Entity, component: ComponentId) {
        let Some(info) = self.components.get(component).copied() else { return };
        let Some(location) = self.entities.get(entity) else { return };
        if !self.archetypes.get(location.archetype).is_some_and(|a| a.has_at(component, location.row.index())) {
            return;
        }
        let bundle = self.bundle_of_ids(&[component]).expect("a registered component that is not a relationship");
        self.remove_raw_unobserved(entity, bundle, &info);
    }

    /// The move of [`remove_raw`](Self::remove_raw), for an entity that holds
    /// the component (checked by the caller; hooks cannot take it away).
    fn remove_raw_unobserved(&mut self, entity: Entity, bundle: BundleId, info: &ComponentInfo) {
        let location = self.entities.get(entity).expect("hooks keep the entity alive");
        let id = info.id();
        let source_id = location.archetype;
        let sparse = info.is_sparse();
        let target_id = if sparse {
            source_id
        } else {
            let edge = match self.archetypes.get_mut(source_id).edges.remove(bundle) {
                Some(edge) => edge,
                None => self.remove_edge(source_id, bundle),
            };
            let crate::archetype::RemoveEdge::Target(target) = edge else {
                unreachable!("the entity holds the component")
            };
            target
        };
        if target_id != source_id {
            self.archetypes.sync_sparse(source_id, target_id, &self.components);
            // Room first: once the value is copied out, nothing may unwind
            // before its row is moved.
            self.archetypes.get_mut(target_id).reserve(1);
        }
        let row = location.row.index();
        let held = Bytes::new(info.layout());
        let column = self.archetypes.get_mut(source_id).column_mut(id).expect("the entity holds the component");
        // SAFETY: the row holds a value of the component (checked by the
        // caller); its bytes move into `held`, and below the column forgets
        // the row's value (the row moves without it, or is marked absent).
        unsafe {
            let value = column.take_unchecked(row);
            core::ptr::copy_nonoverlapping(value.as_ptr(), held.ptr().as_ptr(), info.layout().size());
        }
        if sparse {
            // SAFETY: the value moved out above.
            unsafe { self.archetypes.get_mut(source_id).column_mut(id).expect("present").set_absent(row) };
        } else {
            let now = self.change_tick();
            let (source, target) = self.archetypes.pair_mut(source_id, target_id);
            let target_row = target.len();
            // SAFETY: `row` is live; the target has room and every sparse
            // column; the one component it lacks moved out above.
            let swapped = unsafe { source.move_row(row, target, now) };
            self.relocate(
                entity,
                swapped,
                location,
                EntityLocation { archetype: target_id, row: Row::new(target_row) },
            );
        }
        if let Some(glue) = info.drop_glue() {
            let mut panic = None;
            // SAFETY: `held` holds the owned value, moved out of the world above
            // and dropped once, here.
            defer_panic(&mut panic, || unsafe { glue.run(OwningPtr::new(held.ptr())) });
            drop(held);
            resume_deferred(panic);
        }
    }
}

/// A value taken out of its [`DynamicValue`] for an insert: its block and
/// how to drop it.
struct Owned {
    bytes: Bytes,
    glue: Option<&'static crate::storage::DropGlue>,
}

impl Owned {
    fn of(value: DynamicValue) -> Self {
        let glue = value.info().drop_glue();
        Self { bytes: value.forget_value(), glue }
    }
}

/// Owns the values of an insert by id until they move into the world:
/// each dropped by its glue if the insert stops (or a hook unwinds) before
/// that.
struct Pending<V: AsRef<[Owned]>> {
    values: V,
    moved: bool,
}

impl<V: AsRef<[Owned]>> Drop for Pending<V> {
    fn drop(&mut self) {
        if self.moved {
            return;
        }
        for owned in self.values.as_ref() {
            if let Some(glue) = owned.glue {
                // SAFETY: not moved: each block still holds its owned, valid
                // value (taken out of its `DynamicValue`), dropped once, here.
                unsafe { glue.run(OwningPtr::new(owned.bytes.ptr())) };
            }
        }
    }
}
