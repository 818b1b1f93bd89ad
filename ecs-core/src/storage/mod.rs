//! Type-erased storage: lifetimed pointers and the [`Column`] array.
//!
//! This module knows nothing of entities, archetypes or queries; it stores bytes of a
//! known [`Layout`](core::alloc::Layout) and calls a known drop function.

mod column;
mod ptr;

pub use column::{CHECK_TICK_THRESHOLD, Column, ComponentTicks, MAX_CHANGE_AGE, Occupancy, Tick};
pub use ptr::{OwningPtr, Ptr, PtrMut};

use std::any::Any;

/// The first panic caught while running user code (a `Drop`) in the middle of a
/// structural change; the change finishes first, then the panic is resumed.
pub(crate) type DeferredPanic = Option<Box<dyn Any + Send + 'static>>;

/// Runs `f`, catching a panic into `deferred` (keeping only the first one).
#[inline]
pub(crate) fn defer_panic(deferred: &mut DeferredPanic, f: impl FnOnce()) {
    if let Err(payload) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        deferred.get_or_insert(payload);
    }
}

/// Re-raises a panic deferred by [`defer_panic`], once the world is consistent again.
#[inline]
pub(crate) fn resume_deferred(deferred: DeferredPanic) {
    if let Some(payload) = deferred {
        std::panic::resume_unwind(payload);
    }
}
