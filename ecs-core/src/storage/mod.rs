//! Type-erased storage: lifetimed pointers and the [`Column`] array.
//!
//! This module knows nothing of entities, archetypes or queries; it stores bytes of a
//! known [`Layout`](core::alloc::Layout) and calls a known drop function.

mod array;
mod column;
mod glue;
mod growth;
mod per_field;
mod ptr;
mod tick;

pub(crate) use array::copy_item;
pub use column::Column;
pub(crate) use column::RUN_SHIFT;
pub(crate) use glue::CloneGlue;
pub use glue::DropGlue;
pub(crate) use growth::{GrowVec, next_capacity};
pub use growth::{MAPPED_FROM, growth_copied_bytes};
pub use per_field::FieldColumn;
pub use ptr::{OwningPtr, Ptr, PtrMut};
pub(crate) use tick::stamp_summary;
pub use tick::{CHECK_TICK_THRESHOLD, ComponentTicks, MAX_CHANGE_AGE, Tick};
