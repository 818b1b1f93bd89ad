//! Typed queries: iterate the entities that have a set of components.
//!
//! - `fetch.rs`: [`QueryData`], what a query yields per row (`&T`, `&mut T`,
//!   `Option<…>`, [`Entity`](crate::Entity)); `tuples.rs`: tuples of them.
//! - `filter.rs`: [`QueryFilter`]s ([`With`], [`Without`], [`Or`], [`Added`],
//!   [`Changed`]).
//! - `access.rs`: [`Access`], the read/write sets used to refuse aliasing.
//! - `change_fetch.rs`: [`Ref`](crate::Ref) and [`Mut`](crate::Mut) as query
//!   items; `has.rs`: [`Has`]; `any_of.rs`: [`AnyOf`].
//! - `per_field.rs`: `&T` / `&mut T` of a per-field component (its views and
//!   slices); `per_field_world.rs`: `world.fields`, `fields_mut`, `get_cloned`.
//! - `state.rs`: [`QueryState`], the cached matching reused across runs;
//!   `by_entity.rs`: its lookups by entity (`get`, `get_many`, `single`);
//!   `borrow.rs`: [`QueryBorrow`], a one-off read-only query on `&World`;
//!   `world.rs`: the `World` methods that make queries.
//! - `iter.rs` and `par.rs`: sequential, chunked and parallel iteration;
//!   `wide.rs`: the AVX2 copies of parallel loops and the choice between them;
//!   `combinations.rs`: every pair (triple, …) of matches once.
//!
//! A query borrows the world: `world.query::<Q>()` on `&World` for read-only
//! queries, `world.query_mut::<Q>()` on `&mut World` for any, so an item can never
//! outlive the borrow or coexist with a structural change.

mod access;
mod any_of;
mod borrow;
mod by_entity;
mod change_fetch;
mod combinations;
mod dynamic;
pub(crate) mod fetch;
mod filter;
mod has;
mod iter;
mod ledger;
mod par;
pub(crate) mod per_field;
mod per_field_world;
mod state;
mod tuples;
mod wide;
mod world;

pub use access::{Access, Clause, Clauses};
pub use any_of::AnyOf;
pub use borrow::QueryBorrow;
pub(crate) use by_entity::{Miss, SingleFetches};
pub use change_fetch::TrackedFetch;
pub use combinations::QueryCombinationIter;
pub use dynamic::{
    DynamicArchetype, DynamicQuery, DynamicQueryBuilder, DynamicRow, DynamicRowMut, FieldRows, FieldRowsMut,
    SchemaRows, SchemaRowsMut,
};
#[doc(hidden)]
pub use fetch::{
    CachedColumn, EntityFetch, FetchContext, Presence, QueryData, ReadFetch, ReadOnlyQueryData, WriteFetch,
};
pub use filter::{Added, Changed, Or, QueryFilter, TickFetch, With, Without};
pub use has::{Has, HasFetch, HasSlice};
pub use iter::QueryIter;
pub use per_field::{FieldsFetch, FieldsMutFetch};
pub use state::QueryState;
