//! How a relationship target's list goes into a snapshot: duplicated, although
//! the type is not `Clone`.

use core::ptr::NonNull;

use super::RelationshipTarget;
use crate::component::{SnapshotStrategy, StrategyKind};
use crate::storage::Ptr;

impl<T: RelationshipTarget> SnapshotStrategy<T> {
    /// A relationship target's list, duplicated for a snapshot (the type is not
    /// `Clone`, so that no user copies a list onto another entity; a snapshot
    /// restores it with the relationships it mirrors).
    pub fn relationship_target() -> Self {
        Self::of(StrategyKind::Clone(clone_target::<T>))
    }
}

/// # Safety
/// `src` points at a valid `T`; `dst` is valid for writing a `T`.
unsafe fn clone_target<T: RelationshipTarget>(src: Ptr<'_>, dst: NonNull<u8>) {
    // SAFETY: the caller's guarantees.
    unsafe {
        let sources = src.deref::<T>().sources().to_vec();
        dst.cast::<T>().write(T::__from_sources(sources));
    }
}
