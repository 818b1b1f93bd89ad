//! Archetypes: one table per distinct, sorted set of component types.
//!
//! - [`Archetype`] (`archetype.rs`): the entity column, one [`Column`]
//!   per component and an O(1) component -> column lookup.
//! - `edges.rs`: the lazily filled add/remove edges of the archetype graph.
//! - `lookup.rs`: two small caches of column tables: one inline in the world,
//!   keyed at compile time, that lets a loop of `EntityRef::get` read `T`'s
//!   table once; one keyed by component id that does the same for a loop of
//!   `World::get_by_id`.
//! - [`Archetypes`] (`archetypes.rs`): every archetype, the archetype index (sorted
//!   component ids -> archetype) and the component index (component -> archetypes
//!   holding it, with the column), which queries use for matching.

#[expect(clippy::module_inception, reason = "the archetype module holds the Archetype type")]
mod archetype;
mod archetypes;
mod edges;
mod lookup;

pub use crate::entity::location::{ArchetypeId, Row};
pub use crate::storage::Column;
pub use archetype::Archetype;
pub(crate) use archetype::value_in;
pub use archetypes::{ArchetypeColumn, Archetypes};
pub(crate) use edges::{BundleWrite, Edges, InsertEdge, RemoveEdge};
