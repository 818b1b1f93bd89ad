//! Type-erased storage: lifetimed pointers and the [`Column`] array.
//!
//! This module knows nothing of entities, archetypes or queries; it stores bytes of a
//! known [`Layout`](core::alloc::Layout) and calls a known drop function.

mod column;
mod growth;
mod lanes;
mod ptr;

pub(crate) use column::stamp_summary;
pub use column::{CHECK_TICK_THRESHOLD, Column, ComponentTicks, MAX_CHANGE_AGE, Occupancy, Tick};
pub(crate) use growth::{GrowVec, next_capacity};
pub use growth::{MAPPED_FROM, growth_copied_bytes};
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

/// Calls `f` on every item of `items`, in order, each even if an earlier call
/// panicked, and returns the first panic for the caller to resume once it has
/// finished its own bookkeeping. The loop runs inside one `catch_unwind` and is
/// entered again after a panic at the next item, so the path without a panic pays
/// for one catch, not one per item (a schedule applies every system's deferred work
/// each run).
pub(crate) fn catch_each<I: Iterator>(mut items: I, mut f: impl FnMut(I::Item)) -> DeferredPanic {
    let mut panic = None;
    let mut done = false;
    while !done {
        defer_panic(&mut panic, || {
            for item in &mut items {
                f(item);
            }
            done = true;
        });
    }
    panic
}

/// Calls `step(0)` … `step(count - 1)` as [`catch_each`] does, then resumes the
/// first panic. A single step needs no catch: nothing after it is left to run.
#[inline]
pub(crate) fn run_in_order(count: usize, step: impl FnMut(usize)) {
    if count <= 1 {
        (0..count).for_each(step);
    } else {
        resume_deferred(catch_each(0..count, step));
    }
}

/// Re-raises a panic deferred by [`defer_panic`], once the world is consistent again.
#[inline]
pub(crate) fn resume_deferred(deferred: DeferredPanic) {
    if let Some(payload) = deferred {
        std::panic::resume_unwind(payload);
    }
}
