//! Telling a race detector about the ordering that std's locks and our atomics
//! already give.
//!
//! helgrind (valgrind's race detector) sees the ordering of `pthread` calls
//! only. std's `Mutex`, `RwLock` and `Condvar` on Linux are built on futexes,
//! and the pool hands work on and off through atomics, so helgrind sees no
//! ordering between a system that writes a column on one thread and the next
//! system that reads it on another, and reports every such pair as a possible
//! race. That noise would hide a real one (a query that touches rows another
//! query holds), which is what the race detector is run for.
//!
//! These functions are valgrind "client requests": a fixed sequence of
//! instructions that does nothing on a real processor (a few register
//! rotations that cancel out) and that valgrind recognises and acts on. With
//! them the pool and every lock of the crate tell helgrind "what this thread
//! did so far happens before what the thread that next observes this address
//! does", the same edges the real synchronization makes. Outside x86-64 Linux
//! they compile to nothing.

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// helgrind's request codes (`valgrind/helgrind.h`): the base is
/// `VG_USERREQ_TOOL_BASE('H', 'G')`.
mod code {
    const BASE: usize = (b'H' as usize) << 24 | (b'G' as usize) << 16;
    /// `_VG_USERREQ__HG_USERSO_SEND_PRE`
    pub const SEND: usize = BASE + 0x121;
    /// `_VG_USERREQ__HG_USERSO_RECV_POST`
    pub const RECEIVE: usize = BASE + 0x122;
    /// `_VG_USERREQ__HG_ARANGE_MAKE_UNTRACKED`
    pub const UNTRACKED: usize = BASE + 0x127;
    /// `_VG_USERREQ__HG_ARANGE_MAKE_TRACKED`
    pub const TRACKED: usize = BASE + 0x128;
}

/// Issues one client request; a few no-op instructions when not under valgrind.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[inline(always)]
fn request(code: usize, first: usize, second: usize) {
    let args: [usize; 6] = [code, first, second, 0, 0, 0];
    // SAFETY: the four rotations of `rdi` add up to 128 bits, so `rdi` ends as
    // it began (it is declared clobbered anyway); `xchg rbx, rbx` changes
    // nothing; `rdx` is declared clobbered (valgrind writes the request's
    // result there). Under valgrind the sequence reads `args` through `rax`,
    // which points to six initialised words alive for the whole block; nothing
    // is written to memory the program owns. No stack is used.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            in("rax") args.as_ptr(),
            inout("rdx") 0usize => _,
            inout("rdi") 0usize => _,
            options(nostack),
        );
    }
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
#[inline(always)]
fn request(_code: usize, _first: usize, _second: usize) {}

/// Everything this thread did so far happens before whatever a thread does
/// after a later [`happens_after`] on the same `tag`.
#[inline(always)]
pub(crate) fn happens_before<T: ?Sized>(tag: *const T) {
    request(code::SEND, tag.cast::<()>() as usize, 0);
}

/// See [`happens_before`].
#[inline(always)]
pub(crate) fn happens_after<T: ?Sized>(tag: *const T) {
    request(code::RECEIVE, tag.cast::<()>() as usize, 0);
}

/// The race detector stops checking `value`: an atomic, which threads may
/// read and write at once by design (helgrind cannot tell an atomic load from
/// a plain one).
#[inline(always)]
pub(crate) fn atomic<T>(value: &T) {
    request(code::UNTRACKED, core::ptr::from_ref(value) as usize, size_of::<T>());
}

/// Undoes [`atomic`] before `value`'s memory is freed, so what is later
/// allocated there is checked again.
#[inline(always)]
pub(crate) fn atomic_gone<T>(value: &T) {
    request(code::TRACKED, core::ptr::from_ref(value) as usize, size_of::<T>());
}

/// A `MutexGuard` whose lock and unlock the race detector sees.
pub(crate) struct Locked<'a, T> {
    guard: Option<MutexGuard<'a, T>>,
    mutex: &'a Mutex<T>,
}

/// Locks `mutex`, taking the value of a poisoned one (every lock of the crate
/// guards data left consistent at every point a panic can leave it).
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> Locked<'_, T> {
    let guard = mutex.lock().unwrap_or_else(PoisonError::into_inner);
    happens_after(mutex);
    Locked { guard: Some(guard), mutex }
}

/// [`lock`] if the mutex is free, else `None`.
pub(crate) fn try_lock<T>(mutex: &Mutex<T>) -> Option<Locked<'_, T>> {
    let guard = match mutex.try_lock() {
        Ok(guard) => guard,
        Err(std::sync::TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => return None,
    };
    happens_after(mutex);
    Some(Locked { guard: Some(guard), mutex })
}

impl<'a, T> Locked<'a, T> {
    /// Waits on `condvar`, unlocking meanwhile, as `Condvar::wait` does.
    pub(crate) fn wait(mut self, condvar: &std::sync::Condvar) -> Self {
        let guard = self.guard.take().expect("a `Locked` holds its guard until dropped");
        happens_before(self.mutex);
        let guard = condvar.wait(guard).unwrap_or_else(PoisonError::into_inner);
        happens_after(self.mutex);
        Locked { guard: Some(guard), mutex: self.mutex }
    }
}

impl<T> core::ops::Deref for Locked<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.guard.as_ref().expect("a `Locked` holds its guard until dropped")
    }
}

impl<T> core::ops::DerefMut for Locked<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.guard.as_mut().expect("a `Locked` holds its guard until dropped")
    }
}

impl<T> Drop for Locked<'_, T> {
    fn drop(&mut self) {
        if self.guard.is_some() {
            happens_before(self.mutex);
        }
    }
}

/// Read-locks `lock` (see [`lock`] on poisoning). Readers also announce their
/// release, so a writer after them is ordered after their reads.
pub(crate) fn read<T>(lock: &RwLock<T>) -> ReadLocked<'_, T> {
    let guard = lock.read().unwrap_or_else(PoisonError::into_inner);
    happens_after(lock);
    ReadLocked { guard, lock }
}

/// Write-locks `lock` (see [`lock`] on poisoning).
pub(crate) fn write<T>(lock: &RwLock<T>) -> WriteLocked<'_, T> {
    let guard = lock.write().unwrap_or_else(PoisonError::into_inner);
    happens_after(lock);
    WriteLocked { guard, lock }
}

/// A read guard whose lock and unlock the race detector sees.
pub(crate) struct ReadLocked<'a, T> {
    guard: RwLockReadGuard<'a, T>,
    lock: &'a RwLock<T>,
}

/// A write guard whose lock and unlock the race detector sees.
pub(crate) struct WriteLocked<'a, T> {
    guard: RwLockWriteGuard<'a, T>,
    lock: &'a RwLock<T>,
}

impl<T> core::ops::Deref for ReadLocked<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> Drop for ReadLocked<'_, T> {
    fn drop(&mut self) {
        happens_before(self.lock);
    }
}

impl<T> core::ops::Deref for WriteLocked<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> core::ops::DerefMut for WriteLocked<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

impl<T> Drop for WriteLocked<'_, T> {
    fn drop(&mut self) {
        happens_before(self.lock);
    }
}

/// `cell.get_or_init(init)`, with the initialisation ordered before every
/// caller's use of the value for the race detector too.
pub(crate) fn once<T>(cell: &std::sync::OnceLock<T>, init: impl FnOnce() -> T) -> &T {
    let value = cell.get_or_init(|| {
        let value = init();
        happens_before(cell);
        value
    });
    happens_after(cell);
    value
}
