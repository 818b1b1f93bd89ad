//! How a relationship target's list goes into a snapshot: duplicated, although
//! the type is not `Clone`.

use core::ptr::NonNull;

use super::RelationshipTarget;
use crate::component::{SnapshotStrategy, StrategyKind};
use crate::storage::{CloneGlue, Ptr};

impl<T: RelationshipTarget> SnapshotStrategy<T> {
    /// A relationship target's list, duplicated for a snapshot (the type is not
    /// `Clone`, so that no user copies a list onto another entity; a snapshot
    /// restores it with the relationships it mirrors).
    pub fn relationship_target() -> Self {
        // SAFETY: `clone_target::<T>` writes a `T` holding the same sources
        // into a slot for one; it reads no context.
        Self::of(StrategyKind::Clone(unsafe { CloneGlue::new(clone_target::<T>, core::ptr::null()) }))
    }
}

/// # Safety
/// `src` points at a valid `T`; `dst` is valid for writing a `T`.
unsafe fn clone_target<T: RelationshipTarget>(src: Ptr<'_>, dst: NonNull<u8>, _: *const ()) {
    // SAFETY: the caller's guarantees.
    unsafe {
        let sources = src.deref::<T>().sources().to_vec();
        dst.cast::<T>().write(T::__from_sources(sources));
    }
}
