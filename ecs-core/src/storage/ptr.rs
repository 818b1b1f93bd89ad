//! Lifetimed, type-erased pointers.
//!
//! They say what a raw `*mut u8` cannot: whether the pointee may be read
//! ([`Ptr`]), written ([`PtrMut`]) or moved out of ([`OwningPtr`]), and for how long.

use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use core::ptr::NonNull;

/// A shared borrow of a type-erased value.
#[derive(Clone, Copy, Debug)]
pub struct Ptr<'a>(NonNull<u8>, PhantomData<&'a u8>);

/// A unique borrow of a type-erased value.
#[derive(Debug)]
#[cfg_attr(not(feature = "serde"), allow(dead_code, reason = "used by saving and loading"))]
pub struct PtrMut<'a>(NonNull<u8>, PhantomData<&'a mut u8>);

/// A type-erased value that the holder owns and must move out of or drop; the
/// memory behind it is borrowed for `'a`.
#[derive(Debug)]
pub struct OwningPtr<'a>(NonNull<u8>, PhantomData<&'a mut u8>);

impl<'a> Ptr<'a> {
    /// # Safety
    /// `ptr` must point at a valid value that stays valid and unmutated for `'a`.
    #[inline]
    pub unsafe fn new(ptr: NonNull<u8>) -> Self {
        Self(ptr, PhantomData)
    }

    /// # Safety
    /// The pointee must be a valid `T`, suitably aligned.
    #[inline]
    pub unsafe fn deref<T>(self) -> &'a T {
        // SAFETY: the caller guarantees the pointee is a valid, aligned `T`; `Ptr`'s
        // own invariant makes it live and shared for `'a`.
        unsafe { self.0.cast::<T>().as_ref() }
    }

    /// The address.
    #[inline]
    pub(crate) fn as_ptr(self) -> *const u8 {
        self.0.as_ptr()
    }
}

impl<'a> PtrMut<'a> {
    /// # Safety
    /// `ptr` must point at a valid value that nothing else accesses for `'a`.
    #[inline]
    pub unsafe fn new(ptr: NonNull<u8>) -> Self {
        Self(ptr, PhantomData)
    }

    /// # Safety
    /// The pointee must be a valid `T`, suitably aligned.
    #[inline]
    #[cfg_attr(not(feature = "serde"), allow(dead_code, reason = "used by saving and loading"))]
    pub unsafe fn deref_mut<T>(self) -> &'a mut T {
        // SAFETY: the caller guarantees the pointee is a valid, aligned `T`; `PtrMut`'s
        // own invariant makes it live and unaliased for `'a`.
        unsafe { self.0.cast::<T>().as_mut() }
    }

    /// The address.
    #[inline]
    #[cfg_attr(not(feature = "serde"), allow(dead_code, reason = "used by saving and loading"))]
    pub(crate) fn as_ptr(&self) -> *mut u8 {
        self.0.as_ptr()
    }
}

impl<'a> OwningPtr<'a> {
    /// # Safety
    /// `ptr` must point at a valid value that the new `OwningPtr` owns: nobody else
    /// reads, moves or drops it, and the memory stays allocated for `'a`.
    #[inline]
    pub unsafe fn new(ptr: NonNull<u8>) -> Self {
        Self(ptr, PhantomData)
    }

    /// Lends `value` as an `OwningPtr` to `f`. `f` must move the value out or drop it:
    /// it is never dropped here.
    #[inline]
    pub fn make<T, R>(value: T, f: impl FnOnce(OwningPtr<'_>) -> R) -> R {
        let mut value = ManuallyDrop::new(value);
        // SAFETY: `value` is a valid `T` on this stack frame, outlives the call, and is
        // never touched again here (it is `ManuallyDrop`), so `f` owns it.
        f(unsafe { Self::new(NonNull::from(&mut *value).cast()) })
    }

    /// The raw pointer.
    #[inline]
    pub fn as_ptr(&self) -> *mut u8 {
        self.0.as_ptr()
    }

    /// Moves the value out.
    ///
    /// # Safety
    /// The pointee must be a valid `T`, suitably aligned.
    #[inline]
    pub unsafe fn read<T>(self) -> T {
        // SAFETY: the caller guarantees a valid, aligned `T`; we own it, so moving it
        // out is allowed and nobody reads it again.
        unsafe { self.0.cast::<T>().read() }
    }

    /// Drops the value in place.
    ///
    /// # Safety
    /// The pointee must be a valid `T`, suitably aligned.
    #[inline]
    pub unsafe fn drop_as<T>(self) {
        // SAFETY: the caller guarantees a valid, aligned `T`, and we own it.
        unsafe { self.0.cast::<T>().drop_in_place() }
    }
}
