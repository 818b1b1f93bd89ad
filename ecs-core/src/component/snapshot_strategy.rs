//! [`SnapshotStrategy`]: how a snapshot copies one component type, decided once
//! per type.
//!
//! `#[derive(Component)]` picks it without the user saying anything: a `Copy`
//! type is copied column-wise with one `memcpy`, a `Clone` type is cloned value by
//! value, and any other type cannot be snapshotted (taking a snapshot of a world
//! holding one is an error naming it). The derive finds out which applies by
//! method resolution on the concrete type ("autoref specialization", `Probe`
//! below), so `#[derive(Component, Clone, Copy)]` is all it takes. A generic
//! component cannot be probed that way (whether `W<T>: Clone` depends on `T`):
//! it says `#[component(snapshot = "clone")]`. `#[component(snapshot = "skip")]`
//! leaves a component out of snapshots on purpose (a cache, a GPU handle), and
//! `#[component(pod)]` checks that the type is `bytemuck::Pod` (which implies the
//! `memcpy` path).

use core::marker::PhantomData;
use core::ptr::NonNull;

use crate::storage::Ptr;

pub(crate) use crate::storage::CloneGlue;

/// What a snapshot does with a component, as [`ComponentInfo::snapshotting`]
/// reports it.
///
/// [`ComponentInfo::snapshotting`]: crate::ComponentInfo::snapshotting
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Snapshotting {
    /// The column is copied byte for byte (the type is `Copy`).
    Copy,
    /// Every value is cloned.
    Clone,
    /// The component is left out of snapshots: a restored entity lacks it.
    Skip,
    /// The type is neither `Copy` nor `Clone` and was not skipped: a snapshot of a
    /// world holding it fails with [`EcsError::NotSnapshottable`](crate::EcsError::NotSnapshottable).
    Unsupported,
}

/// The internal form of a strategy: what to do, with the clone function.
#[derive(Clone, Copy, Debug)]
pub(crate) enum StrategyKind {
    Copy,
    Clone(CloneGlue),
    Skip,
    Unsupported,
}

impl StrategyKind {
    pub(crate) fn public(self) -> Snapshotting {
        match self {
            Self::Copy => Snapshotting::Copy,
            Self::Clone(_) => Snapshotting::Clone,
            Self::Skip => Snapshotting::Skip,
            Self::Unsupported => Snapshotting::Unsupported,
        }
    }
}

/// How snapshots copy values of `T`: what [`Component::snapshot_strategy`]
/// returns. Typed, so that an implementation can only describe its own type,
/// and each constructor demands what it relies on (`copy` needs `T: Copy`,
/// `cloned` needs `T: Clone`): no implementation, however written, makes a
/// snapshot duplicate a value unsoundly.
///
/// [`Component::snapshot_strategy`]: crate::Component::snapshot_strategy
pub struct SnapshotStrategy<T: ?Sized> {
    pub(crate) kind: StrategyKind,
    /// Set only by [`pod`](Self::pod), which demands `T: bytemuck::Pod`: the
    /// proof that a column of `T` may be read and written as plain bytes.
    #[cfg_attr(not(feature = "serde"), allow(dead_code, reason = "read by compact saves"))]
    pub(crate) pod: bool,
    // Invariant, like `ComponentIdCell`: a strategy of one type never coerces into
    // a strategy of another.
    _type: PhantomData<fn(T) -> T>,
}

impl<T: ?Sized> core::fmt::Debug for SnapshotStrategy<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("SnapshotStrategy").field(&self.kind.public()).finish()
    }
}

impl<T: ?Sized> SnapshotStrategy<T> {
    pub(crate) const fn of(kind: StrategyKind) -> Self {
        Self { kind, pod: false, _type: PhantomData }
    }

    /// Leave the component out of snapshots.
    pub const fn skip() -> Self {
        Self::of(StrategyKind::Skip)
    }

    /// The component cannot be snapshotted (the default of a hand-written
    /// `Component` impl).
    pub const fn unsupported() -> Self {
        Self::of(StrategyKind::Unsupported)
    }

    /// What this strategy does.
    pub fn snapshotting(&self) -> Snapshotting {
        self.kind.public()
    }
}

impl<T: Copy + 'static> SnapshotStrategy<T> {
    /// Copy the column byte for byte: a bitwise copy of a `Copy` value is a copy.
    pub const fn copy() -> Self {
        Self::of(StrategyKind::Copy)
    }
}

impl<T: crate::bytemuck::Pod> SnapshotStrategy<T> {
    /// Copy the column byte for byte, for a plain-old-data type
    /// (`#[component(pod)]`). Compact saves (feature `serde`) also write such a
    /// column as its bytes.
    pub const fn pod() -> Self {
        Self { kind: StrategyKind::Copy, pod: true, _type: PhantomData }
    }
}

impl<T: Clone + 'static> SnapshotStrategy<T> {
    /// Clone every value.
    pub fn cloned() -> Self {
        // SAFETY: `clone_as::<T>` clones a `T` into a slot for one; it reads
        // no context.
        Self::of(StrategyKind::Clone(unsafe { CloneGlue::new(clone_as::<T>, core::ptr::null()) }))
    }
}

/// # Safety
/// `src` points at a valid `T`; `dst` is valid for writing a `T`.
unsafe fn clone_as<T: Clone>(src: Ptr<'_>, dst: NonNull<u8>, _: *const ()) {
    // SAFETY: the caller's guarantees.
    unsafe { dst.cast::<T>().write(src.deref::<T>().clone()) }
}

/// Autoref specialization: `(&&&Probe::<T>::NEW).__snapshot_strategy()` resolves
/// to the first of `ProbeCopy`, `ProbeClone`, `ProbeNone` whose bound `T` meets.
/// Used by `#[derive(Component)]` on concrete types.
#[doc(hidden)]
pub struct Probe<T>(PhantomData<fn(T) -> T>);

impl<T> Probe<T> {
    #[doc(hidden)]
    pub const NEW: Self = Self(PhantomData);
}

#[doc(hidden)]
pub trait ProbeCopy<T> {
    fn __snapshot_strategy(&self) -> SnapshotStrategy<T>;
}

impl<T: Copy + 'static> ProbeCopy<T> for &&Probe<T> {
    fn __snapshot_strategy(&self) -> SnapshotStrategy<T> {
        SnapshotStrategy::copy()
    }
}

#[doc(hidden)]
pub trait ProbeClone<T> {
    fn __snapshot_strategy(&self) -> SnapshotStrategy<T>;
}

impl<T: Clone + 'static> ProbeClone<T> for &Probe<T> {
    fn __snapshot_strategy(&self) -> SnapshotStrategy<T> {
        SnapshotStrategy::cloned()
    }
}

#[doc(hidden)]
pub trait ProbeNone<T> {
    fn __snapshot_strategy(&self) -> SnapshotStrategy<T>;
}

impl<T> ProbeNone<T> for Probe<T> {
    fn __snapshot_strategy(&self) -> SnapshotStrategy<T> {
        SnapshotStrategy::unsupported()
    }
}
