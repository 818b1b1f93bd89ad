//! Archetypes: one table per distinct, sorted set of component types.
//!
//! - [`Archetype`] (`archetype.rs`): the entity column, one [`Column`](crate::storage::Column)
//!   per component and an O(1) component -> column lookup.
//! - `edges.rs`: the lazily filled add/remove edges of the archetype graph.
//! - `lookup.rs`: a small cache of column tables, inline in the world, that
//!   lets a loop of `EntityRef::get` read `T`'s table once.
//! - [`Archetypes`] (`archetypes.rs`): every archetype, the archetype index (sorted
//!   component ids -> archetype) and the component index (component -> archetypes
//!   holding it, with the column), which queries use for matching.

#[expect(clippy::module_inception, reason = "the archetype module holds the Archetype type")]
mod archetype;
mod archetypes;
mod edges;
mod lookup;

pub use archetype::Archetype;
pub(crate) use archetype::value_in;
pub use archetypes::{ArchetypeColumn, Archetypes};
pub(crate) use edges::{BundleWrite, Edges, InsertEdge, RemoveEdge};
pub(crate) use lookup::LookupKey;

/// The index of an archetype in its world. Archetype 0 is the empty archetype.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct ArchetypeId(u32);

impl ArchetypeId {
    /// The archetype of entities with no components.
    pub const EMPTY: Self = Self(0);
    /// Names no archetype; marks free entity slots.
    pub(crate) const INVALID: Self = Self(u32::MAX);
    /// Names no archetype; marks entity slots reserved by `Commands` and not yet
    /// spawned. Every real id is below it.
    pub(crate) const RESERVED: Self = Self(u32::MAX - 1);

    pub(crate) fn new(index: usize) -> Self {
        let index = u32::try_from(index).ok().filter(|&i| i < Self::RESERVED.0).expect("too many archetypes");
        Self(index)
    }

    /// The id as an array index.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// A row of an archetype: the same index in the entity column and every component column.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Row(u32);

impl Row {
    pub(crate) const INVALID: Self = Self(u32::MAX);

    /// # Panics
    /// When `index` does not fit in 32 bits: an archetype holds fewer than 2^32 rows.
    #[inline]
    pub(crate) fn new(index: usize) -> Self {
        debug_assert!(index < u32::MAX as usize);
        Self(index as u32)
    }

    /// The row as an array index.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}
