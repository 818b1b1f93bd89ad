//! [`WorldSave`], a parsed and checked save, and [`EntityMap`], where its
//! entities went.

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
#[derive(Clone, Debug, Default)]
pub struct EntityMap {
    /// `(saved, loaded)` in load order.
    pairs: Vec<(Entity, Entity)>,
    /// Position in `pairs` of each saved index, `u32::MAX` for none.
    by_index: Vec<u32>,
}

impl EntityMap {
    pub(crate) fn new(pairs: Vec<(Entity, Entity)>, slots: u32) -> Self {
        let mut by_index = vec![u32::MAX; slots as usize];
        for (position, (saved, _)) in pairs.iter().enumerate() {
            by_index[saved.index() as usize] = position as u32;
        }
        Self { pairs, by_index }
    }

    /// The entity that saved entity `saved` became, `None` when the save did
    /// not hold it.
    pub fn get(&self, saved: Entity) -> Option<Entity> {
        let position = *self.by_index.get(saved.index() as usize)?;
        let &(was, now) = self.pairs.get(position as usize)?;
        (was == saved).then_some(now)
    }

    /// `(saved, loaded)` for every entity, in load order.
    pub fn iter(&self) -> impl Iterator<Item = (Entity, Entity)> + '_ {
        self.pairs.iter().copied()
    }

    /// The number of entities loaded.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// `true` when nothing was loaded.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }
}
