//! The archetype graph's edges, cached per source archetype and per bundle.
//!
//! The first time an entity of archetype X gains bundle B (a single component is a
//! bundle too), the destination is found by sorting and hashing X's components plus
//! B's; the result is stored here under B's dense [`BundleId`], so every later
//! transition X + B is one indexed load. Removal works the same way.

use crate::archetype::ArchetypeId;
use crate::bundle::BundleId;
use crate::component::ComponentId;

/// Where one component of an inserted bundle goes in the destination archetype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BundleWrite {
    /// The component's column in the destination archetype.
    pub column: u32,
    /// The source archetype already had the component: the value is replaced (and the
    /// old one dropped) instead of pushed.
    pub existed: bool,
    /// The component is sparse (or a tag): the value is put into the row in place,
    /// replacing the row's value if it had one.
    pub sparse: bool,
}

/// The cached result of "archetype X gains bundle B".
#[derive(Debug)]
pub(crate) struct InsertEdge {
    pub target: ArchetypeId,
    /// One entry per bundle component, in the bundle's order.
    pub writes: Box<[BundleWrite]>,
    /// Some component already existed or is sparse: values must be swapped in (and
    /// old ones dropped) or put in place, rather than all written to fresh slots.
    pub replaces: bool,
}

/// The cached result of "archetype X loses bundle B".
#[derive(Clone, Copy, Debug)]
pub(crate) enum RemoveEdge {
    Target(ArchetypeId),
    /// X lacks this table component of B, so the removal is refused. (Sparse
    /// components of B are checked per row.)
    Missing(ComponentId),
}

/// The edges out of one archetype, indexed by [`BundleId`].
#[derive(Debug, Default)]
pub(crate) struct Edges {
    insert: Vec<Option<InsertEdge>>,
    remove: Vec<Option<RemoveEdge>>,
}

impl Edges {
    #[inline]
    pub fn insert(&self, bundle: BundleId) -> Option<&InsertEdge> {
        self.insert.get(bundle.index()).and_then(Option::as_ref)
    }

    #[inline]
    pub fn remove(&self, bundle: BundleId) -> Option<RemoveEdge> {
        self.remove.get(bundle.index()).copied().flatten()
    }

    pub fn set_insert(&mut self, bundle: BundleId, edge: InsertEdge) {
        if self.insert.len() <= bundle.index() {
            self.insert.resize_with(bundle.index() + 1, || None);
        }
        self.insert[bundle.index()] = Some(edge);
    }

    pub fn set_remove(&mut self, bundle: BundleId, edge: RemoveEdge) {
        if self.remove.len() <= bundle.index() {
            self.remove.resize(bundle.index() + 1, None);
        }
        self.remove[bundle.index()] = Some(edge);
    }

    pub fn inserts(&self) -> impl Iterator<Item = (BundleId, &InsertEdge)> {
        self.insert.iter().enumerate().filter_map(|(i, e)| Some((BundleId::new(i), e.as_ref()?)))
    }

    pub fn removes(&self) -> impl Iterator<Item = (BundleId, RemoveEdge)> + '_ {
        self.remove.iter().enumerate().filter_map(|(i, e)| Some((BundleId::new(i), (*e)?)))
    }
}
