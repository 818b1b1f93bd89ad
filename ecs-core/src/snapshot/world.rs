//! Taking and restoring [`Snapshot`]s (see `crate::snapshot` for the contract).

use core::any::Any;
use core::sync::atomic::AtomicU32;

use crate::archetype::{Archetype, ArchetypeId};
use crate::component::ComponentId;
use crate::error::EcsError;
use crate::panics::{DeferredPanic, defer_panic, resume_deferred};
use crate::snapshot::{ResourceSaver, SavedArchetype, SavedColumn, SavedResource, Snapshot, StrategyKind};
use crate::storage::{Column, ComponentTicks};
use crate::world::World;

impl World {
    /// A copy of the world's state: entities, components, change ticks and the
    /// resources registered with [`register_snapshot_resource`](Self::register_snapshot_resource).
    /// See [`crate::snapshot`] for what it holds and what a restore promises.
    ///
    /// # Errors
    /// [`EcsError::NotSnapshottable`] when an entity holds a component that is
    /// neither `Copy` nor `Clone` and not skipped; the message names it.
    ///
    /// # Panics
    /// Re-raises a panic of a component's or resource's `clone`; the world is
    /// untouched.
    ///
    /// # Example
    /// ```
    /// use ecs_core::prelude::*;
    /// #[derive(Component, Clone, Copy, Debug, PartialEq)] struct Hp(u32);
    /// let mut world = World::new();
    /// let e = world.spawn(Hp(3));
    /// let snapshot = world.snapshot()?;
    /// world.get_mut::<Hp>(e).unwrap().0 = 0;
    /// world.restore(&snapshot)?;
    /// assert_eq!(world.get::<Hp>(e), Some(&Hp(3)));
    /// # Ok::<(), EcsError>(())
    /// ```
    pub fn snapshot(&self) -> Result<Snapshot, EcsError> {
        let mut snapshot = Snapshot::new();
        self.snapshot_into(&mut snapshot)?;
        Ok(snapshot)
    }

    /// [`snapshot`](Self::snapshot) into an existing snapshot, reusing its
    /// allocations where the world's archetypes match the ones it holds (a
    /// rollback loop taking one every frame reuses every column array once warm).
    ///
    /// # Errors
    /// As for [`snapshot`](Self::snapshot); `snapshot` is then left as it was.
    /// A panic part-way leaves it incomplete ([`Snapshot::is_complete`]), and
    /// `restore` refuses it.
    pub fn snapshot_into(&self, snapshot: &mut Snapshot) -> Result<(), EcsError> {
        let filtered = self.check_snapshottable()?;
        snapshot.complete = false;
        if filtered {
            self.save_archetypes_merged(snapshot);
        } else {
            self.save_archetypes(snapshot);
        }
        snapshot.change_tick = self.change_tick();
        snapshot.last_tick_check = self.last_tick_check;
        snapshot.system_ticks.clear();
        snapshot.system_ticks.extend(self.system_ticks.iter().map(|t| t.load(core::sync::atomic::Ordering::Relaxed)));
        snapshot.resources.clear();
        for saver in &self.snapshot_resources {
            let value = self.resources.get_erased(saver.type_id).map(|(value, ticks)| ((saver.clone)(value), ticks));
            snapshot.resources.push(SavedResource { saver: *saver, value });
        }
        snapshot.complete = true;
        Ok(())
    }

    /// Refuses a world holding an unsupported component; `true` when some
    /// archetype's key loses components (skipped or unsupported-but-empty), so
    /// that archetypes may merge.
    fn check_snapshottable(&self) -> Result<bool, EcsError> {
        let mut filtered = false;
        for archetype in self.archetypes.iter() {
            for (column, &component) in archetype.columns().iter().zip(archetype.components()) {
                let info = self.components.get(component).expect("archetype components are registered");
                match info.snapshot_kind() {
                    StrategyKind::Copy | StrategyKind::Clone(_) => {}
                    StrategyKind::Unsupported if (0..column.len()).any(|row| column.holds(row)) => {
                        return Err(EcsError::NotSnapshottable { component: info.name() });
                    }
                    StrategyKind::Unsupported | StrategyKind::Skip => filtered |= !column.is_sparse(),
                }
            }
        }
        Ok(filtered)
    }

    /// One saved archetype per archetype, same ids, reusing `snapshot`'s
    /// archetypes where their columns match.
    fn save_archetypes(&self, snapshot: &mut Snapshot) {
        let count = self.archetypes.len();
        snapshot.archetypes.truncate(count);
        for archetype in self.archetypes.iter() {
            let index = archetype.id().index();
            let reusable = snapshot.archetypes.get(index).is_some_and(|saved| {
                saved.key[..] == archetype.key()[..]
                    && saved.columns.iter().map(|c| c.info.id()).eq(self.kept_columns(archetype).map(|(_, c, _)| c))
            });
            if !reusable {
                let fresh = self.empty_saved(archetype);
                if index < snapshot.archetypes.len() {
                    snapshot.archetypes[index] = fresh;
                } else {
                    snapshot.archetypes.push(fresh);
                }
            }
            let saved = &mut snapshot.archetypes[index];
            saved.entities.clone_from(&archetype.entities);
            for ((column, _, kind), saved) in self.kept_columns(archetype).zip(saved.columns.iter_mut()) {
                match kind {
                    // SAFETY: `saved.column` was made `empty_like` this column
                    // (`empty_saved`), or reused because it saves the same
                    // component; the strategy is `Copy` only for `Copy` types
                    // (`SnapshotStrategy::copy` demands it).
                    StrategyKind::Copy => unsafe { saved.column.copy_rows_from(column) },
                    // SAFETY: the clone function was made for this component's type
                    // (`SnapshotStrategy<T>` is typed), which the column holds.
                    StrategyKind::Clone(clone) => saved.column = unsafe { column.cloned(clone) },
                    StrategyKind::Skip | StrategyKind::Unsupported => unreachable!("not kept"),
                }
            }
        }
        self.entities.save_into(&mut snapshot.entities);
    }

    /// Saved archetypes grouped by their key without skipped components, rows
    /// appended in archetype order; the saved entity index is pointed at the
    /// merged rows.
    fn save_archetypes_merged(&self, snapshot: &mut Snapshot) {
        let mut saved: Vec<SavedArchetype> = Vec::new();
        for archetype in self.archetypes.iter() {
            let key: Box<[ComponentId]> = archetype.key().iter().copied().filter(|&c| self.keeps(c)).collect();
            let index = match saved.iter().position(|s| s.key == key) {
                Some(index) => index,
                None => {
                    saved.push(SavedArchetype { key, entities: crate::storage::GrowVec::new(), columns: Vec::new() });
                    saved.len() - 1
                }
            };
            let group = &mut saved[index];
            let before = group.entities.len();
            for (column, component, kind) in self.kept_columns(archetype) {
                let position = match group.columns.iter().position(|c| c.info.id() == component) {
                    Some(position) => position,
                    None => {
                        let info = *self.components.get(component).expect("registered");
                        let mut empty = column.empty_like();
                        if empty.is_sparse() {
                            // Rows merged in before this column existed lack it.
                            empty.push_absent_rows(before);
                        }
                        group.columns.push(SavedColumn { info, column: empty });
                        group.columns.len() - 1
                    }
                };
                let target = &mut group.columns[position].column;
                match kind {
                    // SAFETY: `target` saves this component (matched by id, made
                    // `empty_like` a column of it), a `Copy` type (see `save_archetypes`).
                    StrategyKind::Copy => unsafe { target.extend_copied(column) },
                    // SAFETY: the clone function is this component type's.
                    StrategyKind::Clone(clone) => unsafe { target.extend_cloned(column, clone) },
                    StrategyKind::Skip | StrategyKind::Unsupported => unreachable!("not kept"),
                }
            }
            group.entities.extend_from_slice(archetype.entities());
            // Sparse columns of the group this archetype lacks: absent rows.
            for saved_column in &mut group.columns {
                let column = &mut saved_column.column;
                if column.len() < group.entities.len() {
                    column.push_absent_rows(group.entities.len() - column.len());
                }
            }
        }
        self.entities.save_into(&mut snapshot.entities);
        for (index, group) in saved.iter().enumerate() {
            snapshot.entities.relocate(ArchetypeId::new(index), &group.entities);
        }
        snapshot.archetypes = saved;
    }

    /// `false` for a component a snapshot leaves out.
    fn keeps(&self, component: ComponentId) -> bool {
        self.components
            .get(component)
            .is_some_and(|i| matches!(i.snapshot_kind(), StrategyKind::Copy | StrategyKind::Clone(_)))
    }

    /// The columns of `archetype` a snapshot keeps, in order, with how.
    fn kept_columns<'a>(
        &'a self,
        archetype: &'a Archetype,
    ) -> impl Iterator<Item = (&'a Column, ComponentId, StrategyKind)> + 'a {
        archetype.columns().iter().zip(archetype.components()).filter_map(|(column, &component)| {
            let kind = self.components.get(component).expect("registered").snapshot_kind();
            matches!(kind, StrategyKind::Copy | StrategyKind::Clone(_)).then_some((column, component, kind))
        })
    }

    fn empty_saved(&self, archetype: &Archetype) -> SavedArchetype {
        let columns = self
            .kept_columns(archetype)
            .map(|(column, component, _)| SavedColumn {
                info: *self.components.get(component).expect("registered"),
                column: column.empty_like(),
            })
            .collect();
        SavedArchetype { key: archetype.key().into(), entities: crate::storage::GrowVec::new(), columns }
    }

    /// Puts the world back in the state `snapshot` holds (see [`crate::snapshot`]):
    /// every entity with its id, every component value with its ticks, the
    /// change tick, the registered resources and every system's last run.
    /// Entities spawned since are gone and their handles stale; despawned ones
    /// are back. The world's allocations are reused. Runs no hooks or observers.
    ///
    /// # Errors
    /// [`EcsError::IncompleteSnapshot`] for a snapshot whose taking failed or
    /// panicked, [`EcsError::RestoreOverObservers`] for a world with
    /// observers (which no snapshot holds); the world is untouched.
    ///
    /// # Panics
    /// Re-raises a panic of a component's or resource's `clone` (the world is
    /// then untouched), or of a `Drop` of a value the restore replaced (the
    /// world is then fully restored first).
    pub fn restore(&mut self, snapshot: &Snapshot) -> Result<(), EcsError> {
        if !snapshot.complete {
            return Err(EcsError::IncompleteSnapshot);
        }
        // An observer's entity would be cleared without its hooks and its id
        // handed out again while the registry still runs it.
        if self.observer_count() > 0 {
            return Err(EcsError::RestoreOverObservers { observers: self.observer_count() });
        }
        // Everything user code can do (clone) is done before the world changes:
        // per saved archetype, per saved column, the clone (for cloned ones).
        let mut prepared: Vec<Vec<Option<Column>>> = snapshot
            .archetypes
            .iter()
            .map(|saved| {
                saved
                    .columns
                    .iter()
                    .map(|column| match column.info.snapshot_kind() {
                        // SAFETY: the clone function is this component type's, which
                        // the saved column holds (saved from a column of it).
                        StrategyKind::Clone(clone) => Some(unsafe { column.column.cloned(clone) }),
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        let resources = self.prepare_resources(snapshot);
        let mut panic: DeferredPanic = None;
        let map = self.map_saved_archetypes(snapshot);
        let mut restored = vec![false; self.archetypes.len()];
        for ((saved, &id), prepared) in snapshot.archetypes.iter().zip(&map).zip(&mut prepared) {
            restored[id.index()] = true;
            restore_archetype(self.archetypes.get_mut(id), saved, prepared, &mut panic);
        }
        for (archetype, restored) in self.archetypes.iter_mut().zip(restored) {
            if !restored {
                archetype.clear_rows(&mut panic);
            }
        }
        let identity = map.iter().enumerate().all(|(index, id)| id.index() == index);
        self.entities.restore_from(&snapshot.entities, (!identity).then_some(&map[..]));
        self.change_tick.store(snapshot.change_tick.get(), core::sync::atomic::Ordering::Relaxed);
        self.last_tick_check = snapshot.last_tick_check;
        for (tick, &saved) in self.system_ticks.iter_mut().zip(&snapshot.system_ticks) {
            *tick.get_mut() = saved;
        }
        // Slots this world has not handed out yet go to the systems initialized
        // next, in order: a schedule built the same way in a new world (or a new
        // process) takes up the snapshotted systems' last runs.
        let handed_out = self.system_ticks.len();
        self.system_ticks.extend(snapshot.system_ticks.iter().skip(handed_out).map(|&t| AtomicU32::new(t)));
        for (saved, value) in snapshot.resources.iter().zip(resources) {
            let old = match value {
                Some((value, ticks)) => self.resources.put_erased(saved.saver.type_id, saved.saver.name, value, ticks),
                None => self.resources.remove_erased(saved.saver.type_id),
            };
            defer_panic(&mut panic, || drop(old));
        }
        resume_deferred(panic);
        Ok(())
    }

    /// Exchanges the world's state with the snapshot's: the world is restored
    /// as by [`restore`](Self::restore), and `snapshot` now holds what the world
    /// held (as if taken just before). Nothing is copied when the snapshot was
    /// taken from this world (or one built the same way) and no component is
    /// skipped: columns, the entity index and resources trade places, so a
    /// rollback that takes a snapshot every frame and swaps one back in pays for
    /// one copy per frame, not two. Otherwise it takes a snapshot and restores,
    /// with the same result.
    ///
    /// # Errors
    /// As for [`restore`](Self::restore) (an incomplete snapshot), and as for
    /// [`snapshot`](Self::snapshot) when the fallback cannot save the world's
    /// state; nothing changes then.
    ///
    /// # Example
    /// ```
    /// use ecs_core::prelude::*;
    /// #[derive(Component, Clone, Copy, Debug, PartialEq)] struct Hp(u32);
    /// let mut world = World::new();
    /// let e = world.spawn(Hp(3));
    /// let mut snapshot = world.snapshot()?;
    /// world.get_mut::<Hp>(e).unwrap().0 = 1;
    /// world.swap_snapshot(&mut snapshot)?;
    /// assert_eq!(world.get::<Hp>(e), Some(&Hp(3)));
    /// world.swap_snapshot(&mut snapshot)?;        // and back
    /// assert_eq!(world.get::<Hp>(e), Some(&Hp(1)));
    /// # Ok::<(), EcsError>(())
    /// ```
    pub fn swap_snapshot(&mut self, snapshot: &mut Snapshot) -> Result<(), EcsError> {
        if !snapshot.complete {
            return Err(EcsError::IncompleteSnapshot);
        }
        if !self.swappable(snapshot) {
            let current = self.snapshot()?;
            self.restore(snapshot)?;
            *snapshot = current;
            return Ok(());
        }
        for (archetype, saved) in self.archetypes.iter_mut().zip(&mut snapshot.archetypes) {
            for (column, saved_column) in archetype.columns_mut().iter_mut().zip(&mut saved.columns) {
                column.swap_contents(&mut saved_column.column);
            }
            archetype.swap_entities(&mut saved.entities);
        }
        // Archetypes made since the snapshot are empty (`swappable`): they stay so.
        self.entities.swap_with(&mut snapshot.entities);
        let tick = self.change_tick();
        self.change_tick.store(snapshot.change_tick.get(), core::sync::atomic::Ordering::Relaxed);
        snapshot.change_tick = tick;
        core::mem::swap(&mut self.last_tick_check, &mut snapshot.last_tick_check);
        // As in `restore`, slots the snapshot has beyond this world's wait for
        // the systems initialized next; the snapshot gets "never ran" for them.
        while self.system_ticks.len() < snapshot.system_ticks.len() {
            self.system_ticks.push(AtomicU32::new(0));
        }
        for (tick, saved) in self.system_ticks.iter_mut().zip(&mut snapshot.system_ticks) {
            core::mem::swap(tick.get_mut(), saved);
        }
        let older = self.system_ticks.len().min(snapshot.system_ticks.len());
        snapshot.system_ticks.extend(self.system_ticks[older..].iter_mut().map(|t| *t.get_mut()));
        for saved in &mut snapshot.resources {
            let type_id = saved.saver.type_id;
            let current = self.resources.remove_erased_with_ticks(type_id);
            if let Some((value, ticks)) = saved.value.take() {
                // Removed just above: nothing is replaced.
                let replaced = self.resources.put_erased(type_id, saved.saver.name, value, ticks);
                debug_assert!(replaced.is_none());
            }
            saved.value = current;
        }
        Ok(())
    }

    /// `true` when `swap_snapshot` can trade places: the snapshot's archetypes
    /// are this world's first ones with exactly the same columns, the world's
    /// later archetypes are empty, every component is kept, and the snapshot
    /// lists this world's registered resources.
    fn swappable(&self, snapshot: &Snapshot) -> bool {
        snapshot.archetypes.len() <= self.archetypes.len()
            && self.archetypes.iter().skip(snapshot.archetypes.len()).all(Archetype::is_empty)
            && self.archetypes.iter().zip(&snapshot.archetypes).all(|(archetype, saved)| {
                saved.key[..] == archetype.key()[..]
                    && saved.columns.len() == archetype.components().len()
                    && saved.columns.iter().map(|c| c.info.id()).eq(archetype.components().iter().copied())
            })
            && snapshot.resources.len() == self.snapshot_resources.len()
            && snapshot.resources.iter().zip(&self.snapshot_resources).all(|(s, r)| s.saver.type_id == r.type_id)
    }

    /// Clones of the saved resources, made before the world changes.
    fn prepare_resources(&self, snapshot: &Snapshot) -> Vec<Option<(Box<dyn Any + Send + Sync>, ComponentTicks)>> {
        snapshot
            .resources
            .iter()
            .map(|saved| {
                let (value, ticks) = saved.value.as_ref()?;
                Some(((saved.saver.clone)(&**value), *ticks))
            })
            .collect()
    }

    /// The archetype here of each saved one: found by its components, created
    /// (in the saved order) where missing, with the saved sparse columns.
    fn map_saved_archetypes(&mut self, snapshot: &Snapshot) -> Vec<ArchetypeId> {
        let mut map = Vec::with_capacity(snapshot.archetypes.len());
        for saved in &snapshot.archetypes {
            for column in &saved.columns {
                self.components.register_info(&column.info);
            }
            let id = self.archetypes.get_or_create(&saved.key, &self.components);
            for column in &saved.columns {
                if column.info.is_sparse() {
                    self.archetypes.add_sparse_column(id, &column.info);
                }
            }
            map.push(id);
        }
        map
    }

    /// Includes resource `R` in snapshots from now on: [`snapshot`](Self::snapshot)
    /// saves a clone of it (or that it is absent), [`restore`](Self::restore) puts
    /// that back (or removes it). Resources not registered are left alone by
    /// a restore: settings, asset caches, handles to the outside world.
    ///
    /// # Example
    /// ```
    /// use ecs_core::prelude::*;
    /// #[derive(Clone, Debug, PartialEq)] struct Score(u32);
    /// let mut world = World::new();
    /// world.insert_resource(Score(1));
    /// world.register_snapshot_resource::<Score>();
    /// let snapshot = world.snapshot()?;
    /// world.resource_mut::<Score>().0 = 7;
    /// world.restore(&snapshot)?;
    /// assert_eq!(world.resource::<Score>(), &Score(1));
    /// # Ok::<(), EcsError>(())
    /// ```
    pub fn register_snapshot_resource<R: Clone + Send + Sync + 'static>(&mut self) {
        let saver = ResourceSaver::of::<R>();
        if !self.snapshot_resources.iter().any(|s| s.type_id == saver.type_id) {
            self.snapshot_resources.push(saver);
        }
    }
}

/// Rewrites one archetype from its saved rows: `Copy` columns copied into the
/// world's allocations, cloned ones swapped in from `prepared` (indexed like
/// the saved columns: the world's column order may differ, its sparse columns
/// having been added in another order), sparse columns the snapshot lacks made
/// absent.
fn restore_archetype(
    archetype: &mut Archetype,
    saved: &SavedArchetype,
    prepared: &mut [Option<Column>],
    panic: &mut DeferredPanic,
) {
    let rows = saved.entities.len();
    for index in 0..archetype.components().len() {
        let component = archetype.components()[index];
        let column = &mut archetype.columns_mut()[index];
        let position = saved.columns.iter().position(|c| c.info.id() == component);
        match position.map(|p| (p, &saved.columns[p])) {
            Some((position, saved_column)) => match saved_column.info.snapshot_kind() {
                StrategyKind::Copy => {
                    // SAFETY: the world column and the saved one hold the same
                    // component (same id, same process-wide registry), a `Copy` type.
                    unsafe { column.copy_rows_from(&saved_column.column) };
                }
                StrategyKind::Clone(_) => {
                    // The clone of this very saved column: same component as `column`.
                    let fresh = prepared[position].take().expect("prepared once for each cloned saved column");
                    let mut old = fresh;
                    column.swap_contents(&mut old);
                    defer_panic(panic, || drop(old));
                }
                StrategyKind::Skip | StrategyKind::Unsupported => unreachable!("never saved"),
            },
            None => column.reset_absent(rows, panic),
        }
    }
    archetype.restore_entities(&saved.entities);
}
