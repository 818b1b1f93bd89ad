//! [`WorldSave`], a parsed and checked save, and [`EntityMap`], where its
//! entities went.

use std::sync::OnceLock;

use crate::component::{ComponentId, ComponentInfo};
use crate::entity::Entity;
use crate::storage::Column;

use super::registry::Relation;

/// A save, parsed and checked, ready for [`World::load`](crate::World::load),
/// which cannot fail. Made by [`SerializeRegistry::load_rows`](super::SerializeRegistry::load_rows)
/// and [`load_columns`](super::SerializeRegistry::load_columns); it owns the
/// loaded component values (dropping it drops them).
pub struct WorldSave {
    /// Slots of the saved entity index: every one is live, free or retired.
    pub(crate) slots: u32,
    /// Free slots with the generation they hand out next, in free-list order
    /// (the last one is reused first).
    pub(crate) free: Vec<Entity>,
    /// Slots neither live nor free (retired, observers', reserved).
    pub(crate) retired: Vec<Entity>,
    pub(crate) archetypes: Vec<LoadedArchetype>,
    /// The column format's ticks; `None` for the row format.
    pub(crate) ticks: Option<SavedTicks>,
    pub(crate) resources: Vec<super::resources::LoadedResource>,
    /// Systems' registered `Local`s and message cursors, by place.
    pub(crate) locals: Vec<crate::world::locals::LoadedLocal>,
    /// The relationship target lists saved empty (while an operation that
    /// emptied them was under way, before the world removed them), by saved
    /// entity and component: the load drops them (found by the checks).
    pub(crate) empty_lists: Vec<(Entity, ComponentId)>,
}

/// The rows of one saved archetype (two records may share a key: a load
/// appends both to the same archetype, in order).
pub(crate) struct LoadedArchetype {
    /// The table components, sorted: the archetype's key.
    pub(crate) key: Box<[ComponentId]>,
    pub(crate) entities: Vec<Entity>,
    /// Table and sparse columns, each with as many rows as `entities`.
    pub(crate) columns: Vec<LoadedColumn>,
}

pub(crate) struct LoadedColumn {
    pub(crate) name: String,
    pub(crate) info: ComponentInfo,
    /// Made from `info`, so of its type: every unsafe use relies on it.
    pub(crate) column: Column,
    /// `None` for a component that holds no entity.
    pub(crate) map_entities: Option<super::registry::EntityFields>,
    pub(crate) relation: Relation,
}

/// The world's tick, when its stored ticks were last clamped, and each
/// system's last run.
pub(crate) struct SavedTicks {
    pub(crate) change_tick: u32,
    pub(crate) last_tick_check: u32,
    pub(crate) system_ticks: Vec<u32>,
}

impl WorldSave {
    /// The number of entities saved.
    pub fn len(&self) -> usize {
        self.archetypes.iter().map(|a| a.entities.len()).sum()
    }

    /// `true` when no entity is saved.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every saved entity, in the order a load puts them in.
    pub fn entities(&self) -> impl Iterator<Item = Entity> + '_ {
        self.archetypes.iter().flat_map(|a| a.entities.iter().copied())
    }
}

impl core::fmt::Debug for WorldSave {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("WorldSave")
            .field("entities", &self.len())
            .field("archetypes", &self.archetypes.len())
            .field("ticks", &self.ticks.is_some())
            .finish()
    }
}

/// Where each entity of a save went in the world it was loaded into: the same
/// id when loaded into an empty world, a new one otherwise.
///
/// A load that keeps the saved ids makes it from the save's own entity lists,
/// moved rather than copied: a game that only loads pays for no map it never
/// reads. The index by which [`get`](Self::get) finds an entity is made the
/// first time it is asked.
#[derive(Clone, Default)]
pub struct EntityMap {
    /// The saved entities in load order, a list per saved archetype.
    saved: Vec<Vec<Entity>>,
    /// What each became, in the same order; `None` when each kept its id.
    loaded: Option<Vec<Entity>>,
    /// Slots of the saved entity index: saved indices are below it.
    slots: u32,
    /// By saved index: the saved entity's generation (0, which no entity
    /// has, for none) and its position in load order.
    by_index: OnceLock<Vec<(u32, u32)>>,
}

impl EntityMap {
    /// Every entity in `saved` kept its id.
    pub(crate) fn kept(saved: Vec<Vec<Entity>>, slots: u32) -> Self {
        Self { saved, loaded: None, slots, by_index: OnceLock::new() }
    }

    /// Saved entity `saved[i]` became `loaded[i]`.
    pub(crate) fn remapped(saved: Vec<Entity>, loaded: Vec<Entity>, slots: u32) -> Self {
        debug_assert_eq!(saved.len(), loaded.len());
        Self { saved: vec![saved], loaded: Some(loaded), slots, by_index: OnceLock::new() }
    }

    fn saved(&self) -> impl Iterator<Item = Entity> + '_ {
        self.saved.iter().flatten().copied()
    }

    /// The entity that saved entity `saved` became, `None` when the save did
    /// not hold it.
    pub fn get(&self, saved: Entity) -> Option<Entity> {
        let by_index = self.by_index.get_or_init(|| {
            let mut by_index = vec![(0, 0); self.slots as usize];
            for (position, saved) in self.saved().enumerate() {
                // A checked save holds each index once, below `slots`, and
                // fewer entities than `u32::MAX`.
                by_index[saved.index() as usize] = (saved.generation().get(), position as u32);
            }
            by_index
        });
        let &(generation, position) = by_index.get(saved.index() as usize)?;
        (generation == saved.generation().get())
            .then(|| self.loaded.as_ref().map_or(saved, |loaded| loaded[position as usize]))
    }

    /// `(saved, loaded)` for every entity, in load order.
    pub fn iter(&self) -> impl Iterator<Item = (Entity, Entity)> + '_ {
        self.saved().enumerate().map(|(i, saved)| (saved, self.loaded.as_ref().map_or(saved, |loaded| loaded[i])))
    }

    /// The number of entities loaded.
    pub fn len(&self) -> usize {
        self.saved.iter().map(Vec::len).sum()
    }

    /// `true` when nothing was loaded.
    pub fn is_empty(&self) -> bool {
        self.saved.iter().all(Vec::is_empty)
    }
}

impl core::fmt::Debug for EntityMap {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}
