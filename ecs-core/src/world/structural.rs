//! Structural changes: the only place where rows are created, moved between
//! archetypes, or destroyed.
//!
//! Moving an entity (insert or remove) follows the four steps of the archetype
//! design: find the destination by the cached edge, push a row there, move the
//! overlapping columns' bytes (no clone, no drop), and swap-remove the source row,
//! fixing the record of the entity that was swapped into it.
//!
//! User code (a component's `Drop`) only ever runs once the world is consistent for
//! that step, and its panic is deferred to the end of the operation, so a panicking
//! `Drop` never leaves a column half-moved or a record dangling.

use super::World;
use crate::archetype::{ArchetypeId, BundleWrite, InsertEdge, RemoveEdge, Row};
use crate::bundle::{Bundle, BundleId, BundleKey};
use crate::component::ComponentId;
use crate::entity::{Entity, EntityLocation};
use crate::error::EcsError;
use crate::panics::{DeferredPanic, resume_deferred};

impl World {
    /// Spawns an entity with the components of `bundle` and returns its handle.
    ///
    /// A relationship whose target is not alive (`ChildOf(despawned)`, a parent
    /// despawned earlier in the frame) is left out, as in bevy_ecs: the entity
    /// is spawned with the rest of the bundle, and the error
    /// ([`EcsError::InvalidRelationship`]) goes to the world's
    /// [error handler](Self::set_command_error_handler). [`try_spawn`](Self::try_spawn)
    /// returns it instead.
    ///
    /// # Panics
    /// When the bundle holds a component type twice.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Speed(f32);
    /// let mut world = World::new();
    /// let e = world.spawn((Speed(1.0),));
    /// assert!(world.has::<Speed>(e));
    /// ```
    #[inline]
    #[track_caller]
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> Entity {
        // `B::__HOOKED`: hooks of components registered by this very call.
        if B::__HOOKED || self.components.lifecycle_active() {
            return self.spawn_observed(bundle);
        }
        self.spawn_unobserved(bundle)
    }

    /// [`spawn`](Self::spawn), refusing a bundle whose relationship names an
    /// entity that is not alive.
    ///
    /// # Errors
    /// [`EcsError::InvalidRelationship`] naming the relationship and the dead
    /// target; nothing is spawned and the bundle is dropped.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Barrel;
    /// let mut world = World::new();
    /// let turret = world.spawn(());
    /// world.despawn(turret)?;
    /// assert!(world.try_spawn((Barrel, ChildOf(turret))).is_err());
    /// assert!(world.is_empty());
    /// # Ok::<(), EcsError>(())
    /// ```
    #[track_caller]
    pub fn try_spawn<B: Bundle>(&mut self, bundle: B) -> Result<Entity, EcsError> {
        if B::__LINKS {
            bundle.__check_links(self, None)?;
        }
        Ok(self.spawn(bundle))
    }

    /// [`spawn`](Self::spawn) without hooks, observers or removal logs.
    #[inline]
    pub(super) fn spawn_unobserved<B: Bundle>(&mut self, bundle: B) -> Entity {
        let bundle_id = self.bundle_id::<B>();
        let archetype = self.spawn_archetype(bundle_id);
        self.archetypes.get_mut(archetype).reserve(1);
        // SAFETY: `bundle_id` is `B`'s id in this world and one row was reserved.
        unsafe { self.spawn_into_room(bundle, bundle_id) }
    }

    /// Spawns into room already reserved in the bundle's archetype.
    ///
    /// # Safety
    /// `bundle_id` is `B`'s id in this world, its spawn archetype exists (see
    /// `spawn_archetype`) and has room for one more row in every column (see
    /// `Archetype::reserve`).
    #[inline(always)]
    pub(super) unsafe fn spawn_into_room<B: Bundle>(&mut self, bundle: B, bundle_id: BundleId) -> Entity {
        // SAFETY: forwarded from the caller.
        unsafe { self.push_row(bundle, bundle_id, |entities, location| entities.alloc(location)) }
    }

    /// Writes a new row of `bundle` into its spawn archetype for the entity that
    /// `entity_at` issues for the row's location.
    ///
    /// # Safety
    /// As for `spawn_into_room`.
    #[inline(always)]
    unsafe fn push_row<B: Bundle>(
        &mut self,
        bundle: B,
        bundle_id: BundleId,
        entity_at: impl FnOnce(&mut crate::entity::Entities, EntityLocation) -> Entity,
    ) -> Entity {
        let tick = self.change_tick();
        let target = self.bundles.get(bundle_id).spawn.as_ref().expect("caller created the spawn archetype");
        let archetype = self.archetypes.get_mut(target.archetype);
        let row = Row::new(archetype.len());
        let entity = entity_at(&mut self.entities, EntityLocation { archetype: target.archetype, row });
        // SAFETY: `target` is `B`'s spawn target, whose archetype this is; it has
        // room for the row (caller).
        unsafe { write_row(archetype, &target.columns, bundle, tick, entity) };
        entity
    }

    /// Spawns a handle reserved by `Commands`.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] when the handle is not reserved and unspawned.
    pub(crate) fn spawn_reserved_entity<B: Bundle>(&mut self, entity: Entity, bundle: B) -> Result<(), EcsError> {
        self.entities.flush();
        if !self.entities.is_reserved(entity) {
            return Err(EcsError::NoSuchEntity(entity));
        }
        if B::__LINKS {
            bundle.__check_links(self, None)?;
        }
        let bundle_id = self.bundle_id::<B>();
        let archetype = self.spawn_archetype(bundle_id);
        self.archetypes.get_mut(archetype).reserve(1);
        // SAFETY: `bundle_id` is `B`'s id, its spawn archetype exists and has room.
        unsafe {
            self.push_row(bundle, bundle_id, |entities, location| {
                let spawned = entities.spawn_reserved(entity, location);
                debug_assert!(spawned, "checked reserved above");
                entity
            });
        }
        if B::__HOOKED || self.components.lifecycle_active() {
            self.after_spawn::<B>(entity);
        }
        Ok(())
    }

    /// Adds the components of `bundle` to a live entity. A component the entity
    /// already has is replaced in place (the old value is dropped); the others move
    /// the entity to the archetype that has them all.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] when the entity is not alive; the bundle is dropped.
    ///
    /// # Panics
    /// When the bundle holds a component type twice, or when dropping a replaced value
    /// panics (the panic is re-raised once the world is consistent: the new values
    /// are in place and their insert hooks and observers have run).
    #[inline]
    pub fn insert<B: Bundle>(&mut self, entity: Entity, bundle: B) -> Result<(), EcsError> {
        if B::__HOOKED || self.components.lifecycle_active() {
            return self.insert_observed(entity, bundle);
        }
        self.insert_unobserved(entity, bundle)
    }

    /// [`insert`](Self::insert) without hooks, observers or removal logs.
    #[inline]
    pub(super) fn insert_unobserved<B: Bundle>(&mut self, entity: Entity, bundle: B) -> Result<(), EcsError> {
        self.insert_deferring(entity, bundle).map(resume_deferred)
    }

    /// [`insert_unobserved`](Self::insert_unobserved), returning the panic of a
    /// replaced value's drop (the insert complete, the world consistent) for
    /// the caller to resume once it has run what follows the insert.
    #[inline]
    pub(super) fn insert_deferring<B: Bundle>(&mut self, entity: Entity, bundle: B) -> Result<DeferredPanic, EcsError> {
        // Decided at compile time: a lone sparse component has a path of its own,
        // short enough to inline at the call site.
        if B::__SPARSE { self.insert_sparse(entity, bundle) } else { self.insert_moving(entity, bundle) }
    }

    /// [`insert`](Self::insert) along an edge of the archetype graph.
    fn insert_moving<B: Bundle>(&mut self, entity: Entity, bundle: B) -> Result<DeferredPanic, EcsError> {
        let location = self.entities.get(entity).ok_or(EcsError::NoSuchEntity(entity))?;
        let bundle_id = self.bundle_id::<B>();
        let source_id = location.archetype;
        let target_id = match self.archetypes.get_mut(source_id).edges.insert(bundle_id) {
            Some(edge) => edge.target,
            None => self.insert_edge(source_id, bundle_id),
        };
        let row = location.row.index();
        let tick = self.change_tick();
        let mut panic = None;

        if target_id == source_id {
            let source = self.archetypes.get_mut(source_id);
            let edge = source.edges.insert(bundle_id).expect("edge cached above");
            let mut writes = edge.writes.iter();
            let columns = &mut source.columns;
            bundle.take(&mut |value| {
                let write = writes.next().expect("bundle yields as many values as it registered");
                let column = &mut columns[write.column as usize];
                // SAFETY: `write.column` holds this bundle component's type (a sparse
                // column for a sparse component), and `row` is the live entity's row.
                unsafe {
                    if write.sparse {
                        column.put(row, value, tick, &mut panic);
                    } else {
                        column.replace(row, value, tick, &mut panic);
                    }
                }
            });
            return Ok(panic);
        }

        self.archetypes.sync_sparse(source_id, target_id, &self.components);
        let (source, target) = self.archetypes.pair_mut(source_id, target_id);
        target.reserve(1);
        let target_row = target.len();
        // SAFETY: `row` is live in the source; the target has room (reserved above),
        // every source component (an insert only adds) and every sparse one (synced
        // above).
        let swapped = unsafe { source.move_row(row, target, tick) };
        let edge = source.edges.insert(bundle_id).expect("edge cached above");
        let mut writes = edge.writes.iter();
        let columns = &mut target.columns;
        if edge.replaces {
            bundle.take(&mut |value| {
                let write = writes.next().expect("bundle yields as many values as it registered");
                let column = &mut columns[write.column as usize];
                // SAFETY: the column stores this bundle component's type; existing
                // values (and sparse rows, padded above) are at `target_row`, new ones
                // are pushed into reserved room.
                unsafe {
                    if write.sparse {
                        column.put(target_row, value, tick, &mut panic);
                    } else if write.existed {
                        column.replace(target_row, value, tick, &mut panic);
                    } else {
                        column.push_unchecked(value, tick);
                    }
                }
            });
        } else {
            // SAFETY: every bundle component is new data for the entity; each slot is
            // in the column of that component (so has its type), the columns have
            // room, and `write` fills each slot at once.
            unsafe {
                bundle.write(&mut || {
                    let write = writes.next().expect("bundle writes as many values as it registered");
                    columns[write.column as usize].push_slot(tick)
                });
            }
            target.settle_split();
        }
        self.relocate(entity, swapped, location, EntityLocation { archetype: target_id, row: Row::new(target_row) });
        Ok(panic)
    }

    /// Removes the components of `B` from a live entity and returns them.
    ///
    /// # Errors
    /// - [`EcsError::NoSuchEntity`] when the entity is not alive;
    /// - [`EcsError::MissingComponent`] naming the first component of `B` the entity
    ///   lacks. Nothing is removed then.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component, Debug, PartialEq)] struct Fuel(u32);
    /// #[derive(Component)] struct Cargo;
    /// let mut world = World::new();
    /// let e = world.spawn((Fuel(3), Cargo));
    /// assert_eq!(world.remove::<Fuel>(e), Ok(Fuel(3)));
    /// assert!(matches!(world.remove::<(Fuel, Cargo)>(e), Err(EcsError::MissingComponent { .. })));
    /// assert!(world.has::<Cargo>(e), "a failed remove removes nothing");
    /// ```
    #[inline]
    pub fn remove<B: Bundle>(&mut self, entity: Entity) -> Result<B, EcsError> {
        if self.components.lifecycle_active() {
            return self.remove_observed(entity);
        }
        self.remove_unobserved(entity)
    }

    /// [`remove`](Self::remove) without hooks, observers or removal logs.
    #[inline]
    pub(super) fn remove_unobserved<B: Bundle>(&mut self, entity: Entity) -> Result<B, EcsError> {
        // As in `insert`.
        if B::__SPARSE { self.remove_sparse(entity) } else { self.remove_moving(entity) }
    }

    /// [`remove`](Self::remove) along an edge of the archetype graph.
    fn remove_moving<B: Bundle>(&mut self, entity: Entity) -> Result<B, EcsError> {
        let location = self.entities.get(entity).ok_or(EcsError::NoSuchEntity(entity))?;
        let bundle_id = self.bundle_id::<B>();
        let source_id = location.archetype;
        let edge = match self.archetypes.get_mut(source_id).edges.remove(bundle_id) {
            Some(edge) => edge,
            None => self.remove_edge(source_id, bundle_id),
        };
        let target_id = match edge {
            RemoveEdge::Target(target) => target,
            RemoveEdge::Missing(component) => {
                return Err(EcsError::MissingComponent { entity, component: self.components.name(component) });
            }
        };
        let row = location.row.index();
        let info = self.bundles.get(bundle_id);
        if !info.sparse.is_empty() {
            let source = self.archetypes.get(source_id).expect("live archetype");
            if let Some(&missing) = info.sparse.iter().find(|&&c| !source.has_at(c, row)) {
                // A sparse component of the bundle that this entity lacks.
                return Err(EcsError::MissingComponent { entity, component: self.components.name(missing) });
            }
        }
        if target_id != source_id {
            self.archetypes.sync_sparse(source_id, target_id, &self.components);
            // Room first: once the values are read out below, nothing may unwind
            // before their row is moved or marked absent.
            self.archetypes.get_mut(target_id).reserve(1);
        }
        let sparse = &info.sparse;
        // SAFETY: the entity is live at `row` of the source, which holds every
        // component of `B` there (table ones by the edge, sparse ones checked
        // above). Each value is read once; below, its column either forgets it
        // (the row moves without it) or marks the row absent, never dropping it.
        let bundle = unsafe { read_row::<B>(self.archetypes.get_mut(source_id), &info.components, row) };
        if target_id == source_id {
            // Only sparse components are removed: the table components are the same
            // on both sides of the edge.
            let source = self.archetypes.get_mut(source_id);
            for &component in sparse.iter() {
                // SAFETY: `row` is the live entity's row; its value moved out above.
                unsafe { source.column_mut(component).expect("checked present above").set_absent(row) };
            }
            return Ok(bundle);
        }

        let now = self.change_tick();
        let (source, target) = self.archetypes.pair_mut(source_id, target_id);
        let target_row = target.len();
        // SAFETY: `row` is live; the target has room (reserved above) and every
        // sparse column (synced above); the values of the components it lacks were
        // moved into `bundle` above.
        let swapped = unsafe { source.move_row(row, target, now) };
        // SAFETY: `target_row` is the entity's new row, and the removed sparse
        // values it carries were moved into `bundle` above.
        unsafe {
            for &component in sparse.iter() {
                target.column_mut(component).expect("synced sparse columns").set_absent(target_row);
            }
        }
        self.relocate(entity, swapped, location, EntityLocation { archetype: target_id, row: Row::new(target_row) });
        Ok(bundle)
    }

    /// Despawns a live entity, dropping its components.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] when the entity is not alive.
    ///
    /// # Panics
    /// When a component's `Drop` panics. The entity is gone by then and every other
    /// component of it is still dropped; the first panic is re-raised afterwards.
    pub fn despawn(&mut self, entity: Entity) -> Result<(), EcsError> {
        if self.components.lifecycle_active() {
            return self.despawn_observed(entity);
        }
        self.despawn_unobserved(entity)
    }

    /// [`despawn`](Self::despawn) without hooks, observers or removal logs.
    #[inline]
    pub(super) fn despawn_unobserved(&mut self, entity: Entity) -> Result<(), EcsError> {
        let location = self.entities.free(entity).ok_or(EcsError::NoSuchEntity(entity))?;
        let archetype = self.archetypes.get_mut(location.archetype);
        let row = location.row.index();
        let mut panic = None;
        if archetype.has_split() {
            for column in archetype.columns.iter_mut() {
                // SAFETY: `row` is the despawned entity's live row.
                unsafe { column.swap_remove_drop(row, &mut panic) };
            }
        } else {
            for column in archetype.columns.iter_mut() {
                // SAFETY: as above; no column of the archetype is per-field.
                unsafe { column.swap_remove_drop_whole(row, &mut panic) };
            }
        }
        if let Some(swapped) = archetype.swap_remove_entity(row) {
            self.entities.set_location(swapped.index(), location);
        }
        resume_deferred(panic);
        Ok(())
    }

    /// [`insert`](Self::insert) of one sparse component: a put into the entity's
    /// row. No edge, no bundle id; the archetype's column is made the first time.
    #[inline(always)]
    fn insert_sparse<B: Bundle>(&mut self, entity: Entity, bundle: B) -> Result<DeferredPanic, EcsError> {
        let location = self.entities.get(entity).ok_or(EcsError::NoSuchEntity(entity))?;
        let BundleKey::Component(component) = B::__key() else { unreachable!("a sparse bundle is one component") };
        let tick = self.change_tick();
        let row = location.row.index();
        // The component's column table, as `World::get` reads it: a component
        // in one archetype (the usual case for a sparse one) gives its column
        // without a read of the archetype's own tables.
        let column = match self.archetypes.column_at_mut(component, location.archetype) {
            Some(column) => column,
            None => self.add_sparse_column::<B>(location.archetype),
        };
        // SAFETY: the column is the one of `B`'s only component (looked up by its
        // id), which is sparse; `row` is the live entity's row, so below its length.
        unsafe {
            if column.is_present(row) {
                return Ok(replace_sparse(column, row, bundle, tick));
            }
            // A typed write into the absent slot, which `write` fills at once.
            bundle.write(&mut || column.fill_absent(row, tick));
            column.settle();
        }
        Ok(None)
    }

    /// Registers the sparse component `B`, gives `archetype` a column for it and
    /// returns the column.
    ///
    /// # Panics
    /// Never for a lone sparse component (a bundle of one type cannot repeat it).
    #[cold]
    #[inline(never)]
    fn add_sparse_column<B: Bundle>(&mut self, archetype: ArchetypeId) -> &mut crate::storage::Column {
        let bundle = self.bundle_id::<B>();
        let component = self.bundles.get(bundle).components[0];
        let info = self.components.get(component).expect("registered with the bundle");
        let index = self.archetypes.add_sparse_column(archetype, info);
        &mut self.archetypes.get_mut(archetype).columns[index]
    }

    /// [`remove`](Self::remove) of one sparse component: the value is read out of
    /// the entity's row, which is marked absent.
    #[inline(always)]
    fn remove_sparse<B: Bundle>(&mut self, entity: Entity) -> Result<B, EcsError> {
        let location = self.entities.get(entity).ok_or(EcsError::NoSuchEntity(entity))?;
        let BundleKey::Component(component) = B::__key() else { unreachable!("a sparse bundle is one component") };
        let row = location.row.index();
        // The registered name of a component is its type name.
        let missing = EcsError::MissingComponent { entity, component: core::any::type_name::<B>() };
        // As in `insert_sparse`: the component's table, not the archetype's.
        let Some(column) = self.archetypes.column_at_mut(component, location.archetype) else {
            return Err(missing);
        };
        // SAFETY: a live entity's row is below its archetype's (and so every
        // column's) length.
        if !unsafe { column.is_present(row) } {
            return Err(missing);
        }
        // SAFETY: the present row holds an owned value of `B`'s only component; it
        // is read once, and the row is marked absent right after, so the column
        // never drops it.
        unsafe {
            let value = B::from_components(&mut || column.take_unchecked(row));
            column.set_absent(row);
            Ok(value)
        }
    }

    /// Updates the records after `entity` moved from `from` to `to` and `swapped`
    /// (if any) took its old row.
    #[inline]
    pub(super) fn relocate(
        &mut self,
        entity: Entity,
        swapped: Option<Entity>,
        from: EntityLocation,
        to: EntityLocation,
    ) {
        if let Some(swapped) = swapped {
            self.entities.set_location(swapped.index(), from);
        }
        self.entities.set_location(entity.index(), to);
    }

    /// Computes and caches the edge "archetype `source` gains bundle `bundle`":
    /// the archetype whose key adds the bundle's table components, with columns
    /// for its sparse components.
    #[cold]
    #[inline(never)]
    pub(super) fn insert_edge(&mut self, source: ArchetypeId, bundle: BundleId) -> ArchetypeId {
        let info = self.bundles.get(bundle);
        let source_key = self.archetypes.get(source).expect("live archetype").key();
        let mut key: Vec<_> =
            source_key.iter().chain(info.components.iter()).copied().filter(|&c| !self.is_sparse(c)).collect();
        key.sort_unstable();
        key.dedup();
        let target = self.archetypes.get_or_create(&key, &self.components);
        let components = info.components.clone();
        for &c in components.iter() {
            if let Some(sparse) = self.components.get(c).filter(|i| i.is_sparse()) {
                self.archetypes.add_sparse_column(target, sparse);
            }
        }
        let source_archetype = self.archetypes.get(source).expect("live archetype");
        let target_archetype = self.archetypes.get(target).expect("just created");
        let writes: Box<[BundleWrite]> = components
            .iter()
            .map(|&c| BundleWrite {
                column: target_archetype.column_index(c).expect("target has every bundle component") as u32,
                existed: source_archetype.key().contains(&c),
                sparse: self.is_sparse(c),
            })
            .collect();
        let replaces = writes.iter().any(|w| w.existed || w.sparse);
        self.archetypes.get_mut(source).edges.set_insert(bundle, InsertEdge { target, writes, replaces });
        target
    }

    /// Computes and caches the edge "archetype `source` loses bundle `bundle`": the
    /// archetype whose key drops the bundle's table components. Sparse components
    /// are checked per row.
    #[cold]
    #[inline(never)]
    pub(super) fn remove_edge(&mut self, source: ArchetypeId, bundle: BundleId) -> RemoveEdge {
        let info = self.bundles.get(bundle);
        let source_archetype = self.archetypes.get(source).expect("live archetype");
        let data: Vec<_> = info.components.iter().copied().filter(|&c| !self.is_sparse(c)).collect();
        let edge = match data.iter().find(|&&c| !source_archetype.key().contains(&c)) {
            Some(&missing) => RemoveEdge::Missing(missing),
            None => {
                let key: Vec<_> = source_archetype.key().iter().filter(|c| !data.contains(c)).copied().collect();
                RemoveEdge::Target(self.archetypes.get_or_create(&key, &self.components))
            }
        };
        self.archetypes.get_mut(source).edges.set_remove(bundle, edge);
        edge
    }
}

/// Appends a row for `entity` holding `bundle`'s values to `archetype`.
///
/// # Safety
/// `columns` is `B`'s spawn target's column list for this archetype (the column
/// index of each bundle component, in write order), and the archetype has room
/// for one more row.
#[inline(always)]
pub(super) unsafe fn write_row<B: Bundle>(
    archetype: &mut crate::archetype::Archetype,
    columns: &[u32],
    bundle: B,
    tick: crate::storage::Tick,
    entity: Entity,
) {
    let row = archetype.len();
    let mut targets = columns.iter();
    // SAFETY: `targets` maps each bundle component, in write order, to the index of
    // the column of the same component id (caller), so each slot has the
    // component's type; `write` visits as many components as `register` did (the
    // `Bundle` contract), so `targets` never runs out; every column has room
    // (caller), and `write` fills each slot at once.
    unsafe {
        let columns = &mut archetype.columns;
        bundle.write(&mut || {
            let column = *targets.next().unwrap_unchecked();
            columns.get_unchecked_mut(column as usize).push_slot(tick)
        });
        archetype.settle_split();
        // Sparse components the archetype's other entities have, this one lacks.
        archetype.pad_sparse(row);
        // Room for the row (caller).
        archetype.push_entity_unchecked(entity);
    }
}

/// Reads the values of `B`'s components (`components`, in bundle order) out of
/// `row` of `archetype`, as a `B`.
///
/// # Safety
/// `row` is live and holds a value of each of `components` (present, for a sparse
/// one). The values are moved out: the caller must make their columns forget
/// them (not drop them) before anything else reads or drops that row.
#[inline(always)]
unsafe fn read_row<B: Bundle>(
    archetype: &mut crate::archetype::Archetype,
    components: &[ComponentId],
    row: usize,
) -> B {
    let mut removed = components.iter();
    // SAFETY: each `next` call yields the column of the next bundle component at the
    // live row, which holds a value of that component's type (caller).
    unsafe {
        B::from_components(&mut || {
            let component = *removed.next().expect("bundle reads as many values as it registered");
            let column = archetype.column_mut(component).expect("the caller checked the row holds it");
            column.take_unchecked(row)
        })
    }
}

/// Replaces the value in a present row of a sparse column with `bundle`'s one
/// component, dropping the old one (the panic of its drop returned): off the
/// inlined path of `insert_sparse`.
///
/// # Safety
/// `column` stores `B`'s only component, and `row` is below its length and present.
#[cold]
#[inline(never)]
unsafe fn replace_sparse<B: Bundle>(
    column: &mut crate::storage::Column,
    row: usize,
    bundle: B,
    tick: crate::storage::Tick,
) -> DeferredPanic {
    let mut panic = None;
    // SAFETY: forwarded; `value` is the bundle's owned value of the column's type.
    bundle.take(&mut |value| unsafe { column.replace(row, value, tick, &mut panic) });
    panic
}
