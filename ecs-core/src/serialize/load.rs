//! [`World::load`]: putting a parsed, checked save into a world.

use core::sync::atomic::{AtomicU32, Ordering};

use crate::archetype::ArchetypeId;
use crate::entity::{Entity, EntityLocation};
use crate::panics::resume_deferred;
use crate::serialize::{EntityMap, WorldSave};
use crate::storage::Tick;
use crate::world::World;

impl World {
    /// Loads a save made by [`SerializeRegistry::load_rows`](crate::serialize::SerializeRegistry::load_rows)
    /// or [`load_columns`](crate::serialize::SerializeRegistry::load_columns).
    ///
    /// Into a world with no entity (and no handle reserved by commands), every
    /// entity keeps its saved id and the entity index becomes the saved one; a
    /// column save also brings back change ticks, the world's tick and each
    /// system's last run. Into a world that has entities, each saved entity gets
    /// a new id and the entities held by loaded components (and by resources
    /// and messages registered with their entities, see
    /// [`register_resource_with_entities`](crate::serialize::SerializeRegistry::register_resource_with_entities))
    /// are rewritten to match. Either way, the returned map says where each saved entity went,
    /// and the saved resources are inserted (replacing the world's).
    /// Hooks and observers do not run (see [`crate::serialize`]).
    ///
    /// The save was checked when it was parsed, so a load cannot fail.
    ///
    /// # Panics
    /// Re-raises a panic of a component's or resource's `map_entities`
    /// (hand-written [`MapEntities`](crate::entity::MapEntities)); the world
    /// is then unchanged.
    /// Re-raises a panic of the `Drop` of a resource or `Local` value the load
    /// replaced, once the whole save is in place.
    pub fn load(&mut self, mut save: WorldSave) -> EntityMap {
        let mut resources = core::mem::take(&mut save.resources);
        let empty_lists = core::mem::take(&mut save.empty_lists);
        let mut replaced = Vec::new();
        let map = match self.observers_fitting(&save) {
            Some(observers) => self.load_keeping_ids(save, &observers, &mut replaced),
            None => self.load_remapped(save, &mut resources),
        };
        // What the world would have done once the saved operation ended, as
        // the rest of a load, without hooks or observers.
        for (saved, component) in empty_lists {
            if let Some(entity) = map.get(saved) {
                self.discard_unobserved(entity, component);
            }
        }
        for resource in resources {
            replaced.extend((resource.insert)(self, resource.value));
        }
        // The values the save replaced go last: a `Drop` that panics finds
        // the load complete.
        resume_deferred(crate::panics::catch_each(replaced.into_iter(), drop));
        map
    }

    /// The entities of the world's observers, when they are all it holds
    /// (nothing reserved either) and each has an id the save holds as
    /// retired: the saved world had an entity that was not saved in that slot,
    /// with that generation (its observer, when the game adds its observers
    /// in the same order before loading). The saved ids are kept around them
    /// then.
    fn observers_fitting(&self, save: &WorldSave) -> Option<Vec<Entity>> {
        let observer = crate::component::component_id::<crate::observer::Observer>();
        let observers: Vec<Entity> = self
            .archetypes
            .iter()
            .filter(|archetype| archetype.has(observer))
            .flat_map(|archetype| archetype.entities().iter().copied())
            .collect();
        if !self.entities.is_unused_but(observers.len()) {
            return None;
        }
        if observers.is_empty() {
            return Some(observers);
        }
        let retired: std::collections::HashSet<Entity> = save.retired.iter().copied().collect();
        observers.iter().all(|e| retired.contains(e)).then_some(observers)
    }

    fn load_keeping_ids(
        &mut self,
        mut save: WorldSave,
        observers: &[Entity],
        replaced: &mut Vec<Box<dyn core::any::Any + Send>>,
    ) -> EntityMap {
        let now = match &save.ticks {
            Some(ticks) => Tick::new(ticks.change_tick),
            None => self.change_tick(),
        };
        if save.ticks.is_none() {
            restamp(&mut save, now);
        }
        self.entities.load_layout(save.slots, &save.free, &save.retired, observers);
        self.append_archetypes(&mut save, |entities, entity, location| {
            entities.place(entity, location);
            entity
        });
        if let Some(ticks) = &save.ticks {
            self.change_tick.store(ticks.change_tick, Ordering::Relaxed);
            self.last_tick_check = Tick::new(ticks.last_tick_check);
            for (tick, &saved) in self.system_ticks.iter_mut().zip(&ticks.system_ticks) {
                *tick.get_mut() = saved;
            }
            // As for a restore: slots not handed out yet go to the systems
            // initialized next.
            let handed_out = self.system_ticks.len();
            self.system_ticks.extend(ticks.system_ticks.iter().skip(handed_out).map(|&t| AtomicU32::new(t)));
        }
        replaced.extend(self.locals.load(core::mem::take(&mut save.locals)));
        // The save's lists are the map: each entity kept its id.
        EntityMap::kept(save.archetypes.iter_mut().map(|a| core::mem::take(&mut a.entities)).collect(), save.slots)
    }

    fn load_remapped(
        &mut self,
        mut save: WorldSave,
        resources: &mut [crate::serialize::resources::LoadedResource],
    ) -> EntityMap {
        self.entities.flush();
        let saved: Vec<Entity> = save.entities().collect();
        let fresh = self.entities.peek_allocs(saved.len());
        let map = EntityMap::remapped(saved, fresh, save.slots);
        // Rewrite references while the values are still the save's: a panic in
        // user code here leaves the world as it was.
        for archetype in &mut save.archetypes {
            for loaded in &mut archetype.columns {
                let Some(map_entities) = loaded.map_entities else { continue };
                for row in 0..archetype.entities.len() {
                    let mut remap = |e: Entity| map.get(e).unwrap_or(e);
                    // SAFETY: the value is of the column's type, the type this
                    // `map_entities` was made for (one registry entry made both).
                    loaded.column.with_row_mut(row, |value| unsafe { map_entities.map(value, &mut remap) });
                }
            }
        }
        for resource in resources {
            if let Some(map_entities) = resource.map_entities {
                map_entities(&mut *resource.value, &mut |e| map.get(e).unwrap_or(e));
            }
        }
        restamp(&mut save, self.change_tick());
        let mut allocated = 0;
        self.append_archetypes(&mut save, |entities, _, location| {
            allocated += 1;
            entities.alloc(location)
        });
        debug_assert_eq!(allocated, map.len());
        debug_assert!(map.iter().all(|(_, e)| self.entities.contains(e)));
        map
    }

    /// Appends every saved archetype's rows to the archetype with its key
    /// (created in the saved order where missing), with the entity `place`
    /// gives each row, and points the entity index at them.
    fn append_archetypes(
        &mut self,
        save: &mut WorldSave,
        mut place: impl FnMut(&mut crate::entity::Entities, Entity, EntityLocation) -> Entity,
    ) {
        for loaded in &mut save.archetypes {
            for column in &loaded.columns {
                self.components.register_info(&column.info);
            }
            let id: ArchetypeId = self.archetypes.get_or_create(&loaded.key, &self.components);
            for column in &loaded.columns {
                if column.info.is_sparse() {
                    self.archetypes.add_sparse_column(id, &column.info);
                }
            }
            let archetype = self.archetypes.get_mut(id);
            let first_row = archetype.len();
            // Each saved entity is replaced by its own in the world, in place:
            // the save is consumed, and a list per archetype would be as large.
            for (offset, entity) in loaded.entities.iter_mut().enumerate() {
                let location = EntityLocation { archetype: id, row: crate::archetype::Row::new(first_row + offset) };
                *entity = place(&mut self.entities, *entity, location);
            }
            let mut columns: Vec<_> = loaded.columns.iter_mut().map(|c| (c.info.id(), &mut c.column)).collect();
            // SAFETY: each loaded column was made from its component's
            // `ComponentInfo` (the registry entry's; `LoadedColumn`'s invariant),
            // the same component as the archetype's column of that id, with a row
            // per entity (checked while parsing); the key is the loaded table
            // components (the archetype was found by it) and sparse columns were
            // added above.
            unsafe { archetype.append_rows(&loaded.entities, &mut columns) };
        }
    }
}

/// Stamps every loaded value as added and changed at `now`.
fn restamp(save: &mut WorldSave, now: Tick) {
    for column in save.archetypes.iter_mut().flat_map(|a| &mut a.columns) {
        // No runs: every present row gets `now`.
        column.column.load_tick_runs(core::iter::empty(), now);
    }
}

impl World {
    /// The world's tick, when stored ticks were last clamped, and every
    /// system's last run: what the column format saves besides components.
    pub(crate) fn saved_ticks(&self) -> (u32, u32, Vec<u32>) {
        let systems = self.system_ticks.iter().map(|t| t.load(Ordering::Relaxed)).collect();
        (self.change_tick().get(), self.last_tick_check.get(), systems)
    }
}
