//! Per-world bundle ids and what a world caches about each bundle type.

use super::BundleKey;
use crate::archetype::ArchetypeId;
use crate::component::ComponentId;

/// The dense id a world gives a bundle type.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct BundleId(u32);

impl BundleId {
    pub(crate) fn new(index: usize) -> Self {
        Self(u32::try_from(index).expect("more than 2^32 bundle types"))
    }

    /// The id as an array index.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// What a world knows about one bundle type.
#[derive(Debug)]
pub struct BundleInfo {
    /// Component ids in the bundle's own order (the order of `Bundle::take`).
    pub(crate) components: Box<[ComponentId]>,
    /// The bundle's sparse components and tags, whose presence is per row: empty
    /// for most bundles, so sparse handling costs them nothing.
    pub(crate) sparse: Box<[ComponentId]>,
    /// The archetype an entity spawned with exactly this bundle lives in, and for
    /// each component (bundle order) its column there. Filled on the first spawn, so
    /// bundles only ever inserted or removed create no archetype of their own.
    pub(crate) spawn: Option<SpawnTarget>,
}

/// Where a spawned bundle's values go.
#[derive(Debug)]
pub(crate) struct SpawnTarget {
    pub archetype: ArchetypeId,
    pub columns: Box<[u32]>,
}

/// Every bundle type a world has met.
#[derive(Debug, Default)]
pub(crate) struct Bundles {
    infos: Vec<BundleInfo>,
    by_type: crate::hashers::TypeIdMap<BundleId>,
    /// Single-component bundles, indexed by `ComponentId`: found without hashing.
    by_component: Vec<Option<BundleId>>,
    /// Bundles put together at run time (an `EntityBuilder`), by their
    /// components in bundle order.
    by_ids: std::collections::HashMap<Box<[ComponentId]>, BundleId>,
}

impl Bundles {
    #[inline]
    pub fn find(&self, key: BundleKey) -> Option<BundleId> {
        match key {
            BundleKey::Component(component) => self.by_component.get(component.index()).copied().flatten(),
            BundleKey::Type(type_id) => self.by_type.get(&type_id).copied(),
        }
    }

    #[inline]
    pub fn get(&self, id: BundleId) -> &BundleInfo {
        &self.infos[id.index()]
    }

    #[inline]
    pub fn get_mut(&mut self, id: BundleId) -> &mut BundleInfo {
        &mut self.infos[id.index()]
    }

    /// The bundle of exactly `components`, in this order, put together at run
    /// time.
    pub fn find_ids(&self, components: &[ComponentId]) -> Option<BundleId> {
        self.by_ids.get(components).copied()
    }

    /// Files a bundle put together at run time (see [`find_ids`](Self::find_ids)).
    pub fn insert_ids(&mut self, info: BundleInfo) -> BundleId {
        let id = BundleId::new(self.infos.len());
        self.by_ids.insert(info.components.clone(), id);
        self.infos.push(info);
        id
    }

    pub fn insert(&mut self, key: BundleKey, info: BundleInfo) -> BundleId {
        let id = BundleId::new(self.infos.len());
        self.infos.push(info);
        match key {
            BundleKey::Component(component) => {
                if self.by_component.len() <= component.index() {
                    self.by_component.resize(component.index() + 1, None);
                }
                self.by_component[component.index()] = Some(id);
            }
            BundleKey::Type(type_id) => {
                self.by_type.insert(type_id, id);
            }
        }
        id
    }
}
