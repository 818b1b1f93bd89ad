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

/// Calls `step(0)`, `step(1)`, … `step(count - 1)` in order, each even if an earlier
/// one panicked, then resumes the first panic. The loop runs inside one
/// `catch_unwind` and re-enters it after a panic at the next step, so the path
/// without a panic pays for one catch, not one per step (a schedule applies every
/// system's deferred work each run); one step needs none.
#[inline]
pub(crate) fn run_in_order(count: usize, mut step: impl FnMut(usize)) {
    if count <= 1 {
        if count == 1 {
            step(0);
        }
        return;
    }
    run_in_order_catching(count, step);
}

/// [`run_in_order`] for two steps or more.
fn run_in_order_catching(count: usize, mut step: impl FnMut(usize)) {
    let mut next = 0;
    let mut panic = None;
    while next < count {
        defer_panic(&mut panic, || {
            while next < count {
                let i = next;
                next += 1;
                step(i);
            }
        });
    }
    resume_deferred(panic);
}

/// Re-raises a panic deferred by [`defer_panic`], once the world is consistent again.
#[inline]
pub(crate) fn resume_deferred(deferred: DeferredPanic) {
    if let Some(payload) = deferred {
        std::panic::resume_unwind(payload);
    }
}
