//! Archetypes: one table per distinct, sorted set of component types.
//!
//! - [`Archetype`] (`archetype.rs`): the entity column, one [`Column`]
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

pub use crate::entity::location::{ArchetypeId, Row};
pub use crate::storage::Column;
pub use archetype::Archetype;
pub(crate) use archetype::value_in;
pub use archetypes::{ArchetypeColumn, Archetypes};
pub(crate) use edges::{BundleWrite, Edges, InsertEdge, RemoveEdge};
