//! How a column drops and clones the values it holds without knowing their
//! type: a function and the context it reads, made once per component and
//! kept for the process's life.
//!
//! A Rust component's glue is its type's `drop_in_place`, with no context. A
//! component defined at run time has no Rust type: its glue walks the
//! component's schema (the context) and drops or clones each field by kind.
//! A column keeps a `&'static` to its glue, one word, so that columns of both
//! kinds stay the same size and the typed paths pay one load for it.

use core::ptr::NonNull;

use super::{OwningPtr, Ptr};

/// Drops one value of a component (see the module docs).
#[derive(Debug)]
pub struct DropGlue {
    call: unsafe fn(OwningPtr<'_>, *const ()),
    context: *const (),
}

// SAFETY: the context is only ever read, by `call`, and is `'static` data the
// glue's maker shares between threads (a schema, which is immutable).
unsafe impl Send for DropGlue {}
// SAFETY: as for `Send`.
unsafe impl Sync for DropGlue {}

impl DropGlue {
    /// Glue that calls `call(value, context)`.
    ///
    /// # Safety
    /// `call`, given an owned, valid value of the component and this
    /// `context`, drops it; `context` stays valid (and unchanged) for the rest
    /// of the process and may be read from any thread.
    pub(crate) const unsafe fn new(call: unsafe fn(OwningPtr<'_>, *const ()), context: *const ()) -> Self {
        Self { call, context }
    }

    /// Drops the value at `value`.
    ///
    /// # Safety
    /// `value` is an owned, valid value of the component this glue was made
    /// for, not used again.
    #[inline]
    pub(crate) unsafe fn run(&self, value: OwningPtr<'_>) {
        // SAFETY: forwarded; `new`'s contract makes `call` right for the value.
        unsafe { (self.call)(value, self.context) }
    }
}

/// Clones one value of a component into an uninitialised slot.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CloneGlue {
    call: unsafe fn(Ptr<'_>, NonNull<u8>, *const ()),
    context: *const (),
}

// SAFETY: as for `DropGlue`.
unsafe impl Send for CloneGlue {}
// SAFETY: as for `DropGlue`.
unsafe impl Sync for CloneGlue {}

impl CloneGlue {
    /// Glue that calls `call(source, slot, context)`.
    ///
    /// # Safety
    /// `call`, given a valid value of the component, an uninitialised slot
    /// with the component's layout and this `context`, writes a clone of the
    /// value into the slot (or panics having written nothing); `context` is
    /// as for [`DropGlue::new`].
    pub(crate) const unsafe fn new(call: unsafe fn(Ptr<'_>, NonNull<u8>, *const ()), context: *const ()) -> Self {
        Self { call, context }
    }

    /// Clones the value at `source` into `slot`.
    ///
    /// # Safety
    /// `source` is a valid value of the component this glue was made for;
    /// `slot` is uninitialised, writable, with its layout.
    #[inline]
    pub(crate) unsafe fn run(&self, source: Ptr<'_>, slot: NonNull<u8>) {
        // SAFETY: forwarded; `new`'s contract.
        unsafe { (self.call)(source, slot, self.context) }
    }
}
