//! Growth without stalls: where the arrays that grow with a world live.
//!
//! Columns, an archetype's entity list and the entity index double their capacity
//! when full. Through the global allocator, doubling may copy the whole array (a
//! `realloc` that cannot extend in place moves it): at a million rows that is a
//! spawn taking milliseconds, a dropped frame. glibc maps large blocks itself, but
//! raises that threshold (up to 32 MiB) each time a mapped block is freed, so
//! after a few worlds come and go even a 30 MiB column is copied on growth.
//!
//! So on Linux an array of at least [`MAPPED_FROM`] bytes lives at the start of
//! an address-space reservation of its own (64 MiB, or the power of two at
//! least twice its size), of which only the pages in use are accessible. Growing
//! makes more of the reservation accessible: the array never moves, so growing
//! it copies no row, and an array outgrowing its reservation is moved by the
//! kernel page by page (`mremap`), not byte by byte. The one copy is when an
//! array first reaches `MAPPED_FROM`: at most that many bytes, a constant.
//! Below it, arrays use the global allocator (a mapping per small array would
//! cost a system call per archetype). Other systems use the global allocator
//! throughout.
//!
//! Freed reservations, up to 256 MiB of pages in all, are kept for the next
//! large array (as the global allocator keeps freed memory): a fresh page faults
//! on first write, which costs more than a hundred spawns, so a world built after
//! another was dropped reuses the pages already faulted in.
//!
//! [`growth_copied_bytes`] counts the bytes growth copied, so a test can show that
//! no spawn copies more than a constant amount at any size.

use core::alloc::Layout;
use core::cell::Cell;
use core::ptr::NonNull;
use std::alloc;

/// Arrays at least this large (in bytes) live in a mapping of their own on
/// Linux. glibc's own starting threshold for mapping a block; copying this much
/// once, when an array first reaches it, takes microseconds.
pub const MAPPED_FROM: usize = 128 * 1024;

/// The smallest page size in use (no Linux system has smaller pages): a mapping
/// starts on one, and columns align their larger arrays to one (see
/// `column::array_layout`).
pub(crate) const MIN_PAGE: usize = 4096;

std::thread_local!(static COPIED: Cell<u64> = const { Cell::new(0) });

/// The bytes copied so far on this thread by growing arrays of any world: an
/// upper bound (a reallocation through the global allocator counts as a copy of
/// the old array even when it extended in place; growing a mapping counts
/// nothing, as it copies nothing).
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// use ecs_core::__private::growth_copied_bytes;
///
/// #[derive(Component)] struct Position([f32; 4]);
///
/// let mut world = World::new();
/// let before = growth_copied_bytes();
/// for i in 0..1000 {
///     world.spawn(Position([i as f32; 4]));
/// }
/// // Small arrays grow through the global allocator, which may copy them.
/// assert!(growth_copied_bytes() >= before);
/// ```
pub fn growth_copied_bytes() -> u64 {
    COPIED.with(Cell::get)
}

fn note_copied(bytes: usize) {
    COPIED.with(|c| c.set(c.get() + bytes as u64));
}

/// The capacity to grow to from `capacity` when `required` rows are needed, for
/// rows of `row_bytes` (the widest array growing with it): doubling, as `Vec`
/// does, until the array is mapped; from then on steps of [`MAPPED_FROM`] bytes,
/// each made ready (its pages faulted in) as it opens. Doubling a mapped array
/// copies nothing either, but would leave a whole doubling's pages to fault in
/// over the next spawns, one per 4 KiB, each costing more than a hundred
/// spawns; a step faults in a bounded amount at once, rarely enough to stay out
/// of the 99.9th percentile.
#[inline]
pub(crate) fn next_capacity(capacity: usize, required: usize, row_bytes: usize) -> usize {
    if map::AVAILABLE && row_bytes != 0 && capacity.saturating_mul(row_bytes) >= MAPPED_FROM {
        required.max(capacity + (MAPPED_FROM / row_bytes).max(1))
    } else {
        required.max(capacity.saturating_mul(2)).max(4)
    }
}

/// Grows a block from `old` to `new` (`new.size() > old.size()`, `new` at least
/// as aligned), keeping its first `old.size()` bytes, aborting on allocation
/// failure.
///
/// # Safety
/// `new.size() > old.size()`, `old.align() <= new.align()`, and `ptr` was returned
/// by this function for `old` (or is dangling when `old.size() == 0`).
pub(crate) unsafe fn grow(ptr: NonNull<u8>, old: Layout, new: Layout) -> NonNull<u8> {
    debug_assert!(new.size() > old.size() && old.align() <= new.align());
    if mapped(new) {
        if mapped(old) {
            // SAFETY: `ptr` is a mapping of `old.size()` bytes made here (caller:
            // `old` was passed to this function, and `mapped(old)`).
            return unsafe { map::remap(ptr, old.size(), new.size()) }
                .unwrap_or_else(|| alloc::handle_alloc_error(new));
        }
        let fresh = map::map(new.size()).unwrap_or_else(|| alloc::handle_alloc_error(new));
        if old.size() != 0 {
            // SAFETY: `ptr` holds `old.size()` initialised-or-not bytes of a live
            // block (caller), `fresh` is a new mapping of more; they are distinct.
            unsafe { core::ptr::copy_nonoverlapping(ptr.as_ptr(), fresh.as_ptr(), old.size()) };
            note_copied(old.size());
            // SAFETY: allocated by the global allocator with `old` (not mapped).
            unsafe { alloc::dealloc(ptr.as_ptr(), old) };
        }
        return fresh;
    }
    if old.size() == 0 {
        // SAFETY: `new.size() > 0`.
        let raw = unsafe { alloc::alloc(new) };
        return NonNull::new(raw).unwrap_or_else(|| alloc::handle_alloc_error(new));
    }
    note_copied(old.size());
    if old.align() == new.align() {
        // SAFETY: allocated by the global allocator with `old` (neither is mapped,
        // as `new` is larger); the new size is non-zero.
        let raw = unsafe { alloc::realloc(ptr.as_ptr(), old, new.size()) };
        return NonNull::new(raw).unwrap_or_else(|| alloc::handle_alloc_error(new));
    }
    // `realloc` keeps the alignment: a block aligned more is a new one.
    // SAFETY: `new.size() > 0`.
    let fresh = NonNull::new(unsafe { alloc::alloc(new) }).unwrap_or_else(|| alloc::handle_alloc_error(new));
    // SAFETY: `ptr` holds `old.size()` bytes of a live block (caller), `fresh` a
    // new block of more; they are distinct.
    unsafe { core::ptr::copy_nonoverlapping(ptr.as_ptr(), fresh.as_ptr(), old.size()) };
    // SAFETY: `ptr` was returned by `grow` for `old` (caller), and nothing
    // refers to it any more; `free` tells a mapping from an allocation itself.
    unsafe { free(ptr, old) };
    fresh
}

/// Frees a block made by [`grow`] (nothing for a zero-sized one).
///
/// # Safety
/// `ptr` was returned by [`grow`] for `layout`, or `layout.size() == 0`.
pub(crate) unsafe fn free(ptr: NonNull<u8>, layout: Layout) {
    if layout.size() == 0 {
        return;
    }
    if mapped(layout) {
        // SAFETY: a mapping of `layout.size()` bytes made by `grow` (caller).
        unsafe { map::unmap(ptr, layout.size()) };
    } else {
        // SAFETY: allocated by the global allocator with `layout` (caller).
        unsafe { alloc::dealloc(ptr.as_ptr(), layout) };
    }
}

/// Whether a block of `layout` lives in a mapping of its own: a pure function of
/// the layout, so `grow` and `free` always agree.
#[inline]
fn mapped(layout: Layout) -> bool {
    map::AVAILABLE && layout.size() >= MAPPED_FROM && layout.align() <= MIN_PAGE
}

#[cfg(target_os = "linux")]
mod map {
    //! A mapped array sits at the start of a *reservation*: address space that
    //! nothing else may take, `reservation(size)` bytes long, aligned to a huge
    //! page. Its first `rounded(size)` bytes are readable and writable, the rest
    //! inaccessible (and free: untouched, unreserved pages cost no memory). Growing
    //! within the reservation only makes more of it accessible: the array stays
    //! where it is, so nothing is copied or moved, and its huge pages stay whole.
    //! Growing past half of it (an array of more than half of [`RESERVE`]) moves
    //! the array's pages into a reservation twice as large, which moves
    //! page-table entries, not bytes.

    use core::ptr::{NonNull, null_mut};
    use core::sync::atomic::{AtomicUsize, Ordering};

    use super::MIN_PAGE;
    use crate::parallel::annotate::{self, Locked};

    pub(super) const AVAILABLE: bool = true;
    /// The least address space reserved for one array: room to double a few
    /// times in place. Not more, as address space is finite too (valgrind gives
    /// a program 128 GiB of it; `ulimit -v` may give less).
    const RESERVE: usize = 64 << 20;
    /// Reservations start at a multiple of this, so that huge pages fit from the
    /// first byte (2 MiB on x86-64 and most arm64 systems; a larger huge page is
    /// merely not used from the start).
    const HUGE: usize = 2 << 20;

    fn page() -> usize {
        static PAGE: AtomicUsize = AtomicUsize::new(0);
        let cached = PAGE.load(Ordering::Relaxed);
        if cached != 0 {
            return cached;
        }
        // SAFETY: `sysconf` with a valid name has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        let page = usize::try_from(page).ok().filter(|p| p.is_power_of_two()).unwrap_or(MIN_PAGE);
        PAGE.store(page, Ordering::Relaxed);
        page
    }

    fn rounded(size: usize) -> usize {
        let page = page();
        size.checked_add(page - 1).expect("array size overflow") & !(page - 1)
    }

    /// The reservation of an array of `size` bytes: a pure function of the size,
    /// so that growing and freeing know it without storing it.
    fn reservation(size: usize) -> usize {
        rounded(size)
            .checked_mul(2)
            .and_then(usize::checked_next_power_of_two)
            .expect("array size overflow")
            .max(RESERVE)
    }

    /// Reserves `length` bytes of address space at a multiple of `HUGE`, all
    /// inaccessible.
    fn reserve(length: usize) -> Option<NonNull<u8>> {
        let padded = length.checked_add(HUGE)?;
        // SAFETY: a fresh private anonymous mapping; no existing memory is touched.
        let raw = unsafe {
            libc::mmap(
                null_mut(),
                padded,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if raw == libc::MAP_FAILED {
            return None;
        }
        let start = raw as usize;
        let aligned = (start + HUGE - 1) & !(HUGE - 1);
        // SAFETY: both trimmed ranges lie inside the mapping just made, which
        // nothing else knows of yet.
        unsafe {
            if aligned > start {
                libc::munmap(raw, aligned - start);
            }
            let end = aligned + length;
            if start + padded > end {
                libc::munmap(end as *mut libc::c_void, start + padded - end);
            }
        }
        NonNull::new(aligned as *mut u8)
    }

    /// Makes `[from, to)` bytes of the reservation at `base` accessible.
    ///
    /// # Safety
    /// `base` is a reservation made by `reserve` of at least `to` bytes, and
    /// `from`, `to` are multiples of the page size.
    unsafe fn open(base: NonNull<u8>, from: usize, to: usize) -> bool {
        // A reused reservation may be open (and its pages faulted in) further
        // already: nothing to do there. The lock is not held across the system
        // calls below, so that one array faulting in its pages does not hold
        // up another's growth; only the array's owner changes its entry.
        let done = extents().open(base.as_ptr() as usize);
        let from = from.max(done);
        if to <= from {
            return true;
        }
        // SAFETY: inside the reservation (caller), which only this array uses.
        unsafe {
            let start = base.as_ptr().add(from).cast();
            if libc::mprotect(start, to - from, libc::PROT_READ | libc::PROT_WRITE) != 0 {
                return false;
            }
            // Faults the first new pages in now, in one call, rather than one
            // fault per page in later spawns (see `next_capacity`). Linux 5.14
            // and later; before, it fails and the pages fault in as they are
            // written. At most `POPULATE` bytes: a growth step is no larger, and
            // a larger opening is a reservation for rows that may never come
            // (a size hint, a count in a file), whose pages must cost nothing
            // until they are written.
            libc::madvise(start, (to - from).min(POPULATE), MADV_POPULATE_WRITE);
        }
        opened(base, to);
        true
    }

    /// How far each live mapped array's reservation is open: (address, bytes
    /// open), sorted by address. A sorted `Vec` rather than a map: each entry
    /// stands for system calls that cost more than shifting the list, and a map
    /// type of its own would be compiled into every build for these lookups.
    struct Extents(Vec<(usize, usize)>);

    impl Extents {
        fn find(&self, base: usize) -> Result<usize, usize> {
            self.0.binary_search_by(|&(at, _)| at.cmp(&base))
        }

        /// How far the reservation at `base` is open (0 when unknown).
        fn open(&self, base: usize) -> usize {
            self.find(base).map_or(0, |i| self.0[i].1)
        }
    }

    static OPENED: std::sync::Mutex<Extents> = std::sync::Mutex::new(Extents(Vec::new()));

    fn extents() -> Locked<'static, Extents> {
        annotate::lock(&OPENED)
    }

    /// Forgets how far the reservation at `base` is open, returning it.
    fn forget(base: NonNull<u8>) -> usize {
        let mut extents = extents();
        match extents.find(base.as_ptr() as usize) {
            Ok(i) => extents.0.remove(i).1,
            Err(_) => 0,
        }
    }

    /// Records that the reservation at `base` is open for `open` bytes.
    fn opened(base: NonNull<u8>, open: usize) {
        let base = base.as_ptr() as usize;
        let mut extents = extents();
        match extents.find(base) {
            Ok(i) => extents.0[i].1 = open,
            Err(i) => extents.0.insert(i, (base, open)),
        }
    }

    /// `MADV_POPULATE_WRITE` (23 on every Linux architecture).
    const MADV_POPULATE_WRITE: libc::c_int = 23;

    /// The most bytes one opening faults in up front: two growth steps (a step
    /// is [`MAPPED_FROM`](super::MAPPED_FROM) bytes of the widest array, and an
    /// array's first mapping holds at most twice that).
    const POPULATE: usize = 2 * super::MAPPED_FROM;

    pub(super) fn map(size: usize) -> Option<NonNull<u8>> {
        let length = reservation(size);
        let (base, open_already) = match recycled(length) {
            Some(kept) => kept,
            None => (reserve(length)?, 0),
        };
        opened(base, open_already);
        // SAFETY: a reservation of `length >= rounded(size)` bytes, of which the
        // first `open_already` are open.
        if unsafe { open(base, 0, rounded(size)) } {
            Some(base)
        } else {
            forget(base);
            // SAFETY: the reservation just made or taken, unused.
            unsafe { libc::munmap(base.as_ptr().cast(), length) };
            None
        }
    }

    /// Reservations of freed arrays, kept for the next array (see `keep`).
    struct Kept {
        base: usize,
        length: usize,
        open: usize,
    }

    static KEPT: std::sync::Mutex<Vec<Kept>> = std::sync::Mutex::new(Vec::new());
    /// At most this many bytes of freed arrays' pages are kept for reuse…
    const KEEP_BYTES: usize = 256 << 20;
    /// …in at most this many reservations (each holds address space too).
    const KEEP_COUNT: usize = 64;

    /// A kept reservation of `length` bytes, and how much of it is open.
    fn recycled(length: usize) -> Option<(NonNull<u8>, usize)> {
        let mut kept = annotate::lock(&KEPT);
        let at = kept.iter().rposition(|k| k.length == length)?;
        let k = kept.swap_remove(at);
        Some((NonNull::new(k.base as *mut u8)?, k.open))
    }

    /// Keeps a freed array's reservation for the next array instead of
    /// unmapping it, while the kept pages total at most `KEEP_BYTES`: its pages
    /// were faulted in already, and faulting a fresh 4 KiB page costs a
    /// microsecond or more (tens in a virtual machine), so a world built after
    /// another was dropped would otherwise fault on every few spawns. What the
    /// global allocator does for small arrays. They are not marked free to the
    /// kernel (`MADV_FREE`): writing such a page faults again, which is the
    /// cost this avoids.
    fn keep(base: NonNull<u8>, length: usize, open: usize) -> bool {
        let mut kept = annotate::lock(&KEPT);
        if kept.len() >= KEEP_COUNT || kept.iter().map(|k| k.open).sum::<usize>() + open > KEEP_BYTES {
            return false;
        }
        kept.push(Kept { base: base.as_ptr() as usize, length, open });
        true
    }

    /// # Safety
    /// `ptr` is a mapped array of `old` bytes made by `map`/`remap`, `new > old`.
    pub(super) unsafe fn remap(ptr: NonNull<u8>, old: usize, new: usize) -> Option<NonNull<u8>> {
        let (held, wanted) = (reservation(old), reservation(new));
        if held == wanted {
            // SAFETY: `ptr` starts a reservation of `held >= rounded(new)` bytes,
            // of which the first `rounded(old)` are open (caller).
            return unsafe { open(ptr, rounded(old), rounded(new)) }.then_some(ptr);
        }
        let base = reserve(wanted)?;
        // SAFETY: the open part of the old reservation, a single mapping of
        // `rounded(old)` bytes, moves to the start of the new one (`MREMAP_FIXED`
        // replaces those inaccessible pages); then the old reservation's
        // inaccessible rest is released. Pages move, bytes are not copied.
        unsafe {
            let moved = libc::mremap(
                ptr.as_ptr().cast(),
                rounded(old),
                rounded(old),
                libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED,
                base.as_ptr().cast::<libc::c_void>(),
            );
            if moved == libc::MAP_FAILED {
                libc::munmap(base.as_ptr().cast(), wanted);
                return None;
            }
            libc::munmap(ptr.as_ptr().add(rounded(old)).cast(), held - rounded(old));
            forget(ptr);
            opened(base, rounded(old));
            if !open(base, rounded(old), rounded(new)) {
                // The array now lives at `base` (a reservation of `wanted`
                // bytes, `rounded(old)` open), but cannot grow: the caller aborts.
                return None;
            }
        }
        Some(base)
    }

    /// # Safety
    /// `ptr` is a mapped array of `size` bytes made by `map`/`remap`, not used
    /// after this.
    pub(super) unsafe fn unmap(ptr: NonNull<u8>, size: usize) {
        let open = forget(ptr).max(rounded(size));
        if keep(ptr, reservation(size), open) {
            return;
        }
        // SAFETY: the array's whole reservation, which nothing uses any more.
        let failed = unsafe { libc::munmap(ptr.as_ptr().cast(), reservation(size)) } != 0;
        // Only an invalid range fails, which would be a bug here.
        debug_assert!(!failed, "munmap of an array's reservation failed");
    }
}

#[cfg(not(target_os = "linux"))]
mod map {
    use core::ptr::NonNull;

    pub(super) const AVAILABLE: bool = false;

    pub(super) fn map(_: usize) -> Option<NonNull<u8>> {
        unreachable!("mappings are used on Linux only")
    }

    pub(super) unsafe fn remap(_: NonNull<u8>, _: usize, _: usize) -> Option<NonNull<u8>> {
        unreachable!("mappings are used on Linux only")
    }

    pub(super) unsafe fn unmap(_: NonNull<u8>, _: usize) {
        unreachable!("mappings are used on Linux only")
    }
}

/// A `Vec` of plain values whose growth goes through [`grow`]: an archetype's
/// entity list and the entity index, which grow with every spawn as columns do.
pub(crate) struct GrowVec<T: Copy> {
    ptr: NonNull<T>,
    len: usize,
    capacity: usize,
}

// SAFETY: owns its `T`s as a `Vec<T>` does.
unsafe impl<T: Copy + Send> Send for GrowVec<T> {}
// SAFETY: shared access only reads the `T`s, as for a `Vec<T>`.
unsafe impl<T: Copy + Sync> Sync for GrowVec<T> {}

impl<T: Copy> GrowVec<T> {
    const ZST: bool = size_of::<T>() == 0;

    pub(crate) const fn new() -> Self {
        GrowVec { ptr: NonNull::dangling(), len: 0, capacity: if Self::ZST { usize::MAX } else { 0 } }
    }

    pub(crate) fn with_capacity(capacity: usize) -> Self {
        let mut v = Self::new();
        v.reserve_exact(capacity);
        v
    }

    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    fn layout(capacity: usize) -> Layout {
        Layout::array::<T>(capacity).expect("array capacity overflow")
    }

    /// Room for `additional` more (see [`next_capacity`]).
    #[inline]
    pub(crate) fn reserve(&mut self, additional: usize) {
        if self.capacity - self.len < additional {
            let required = self.len.checked_add(additional).expect("array capacity overflow");
            self.grow_to(next_capacity(self.capacity, required, size_of::<T>()));
        }
    }

    pub(crate) fn reserve_exact(&mut self, additional: usize) {
        if self.capacity - self.len < additional {
            self.grow_to(self.len.checked_add(additional).expect("array capacity overflow"));
        }
    }

    #[cold]
    #[inline(never)]
    fn grow_to(&mut self, capacity: usize) {
        debug_assert!(!Self::ZST && capacity > self.capacity);
        // SAFETY: a larger array of the same `T`; `ptr` came from `grow` for the
        // current capacity (or is dangling at capacity 0).
        self.ptr = unsafe { grow(self.ptr.cast(), Self::layout(self.capacity), Self::layout(capacity)) }.cast();
        self.capacity = capacity;
    }

    #[inline]
    pub(crate) fn push(&mut self, value: T) {
        if self.len == self.capacity {
            self.reserve(1);
        }
        // SAFETY: `len < capacity` now, so the slot is allocated.
        unsafe { self.ptr.as_ptr().add(self.len).write(value) };
        self.len += 1;
    }

    /// Removes the value at `index`, moving the last one into its place.
    #[inline]
    pub(crate) fn swap_remove(&mut self, index: usize) -> T {
        let last = self.len.checked_sub(1).filter(|&last| index <= last).expect("swap_remove index out of bounds");
        let base = self.ptr.as_ptr();
        // SAFETY: `index` and `last` are below `len`, so both slots hold values.
        let value = unsafe {
            let value = base.add(index).read();
            base.add(index).write(base.add(last).read());
            value
        };
        self.len = last;
        value
    }

    #[inline]
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    pub(crate) fn extend_from_slice(&mut self, values: &[T]) {
        self.reserve(values.len());
        // SAFETY: room for `values.len()` more after `len`; a fresh slice of `T`
        // cannot overlap our spare capacity.
        unsafe { core::ptr::copy_nonoverlapping(values.as_ptr(), self.ptr.as_ptr().add(self.len), values.len()) };
        self.len += values.len();
    }

    #[cfg_attr(not(feature = "serde"), allow(dead_code, reason = "used by loading a saved world"))]
    pub(crate) fn resize(&mut self, len: usize, value: T) {
        if len <= self.len {
            self.len = len;
            return;
        }
        self.reserve(len - self.len);
        while self.len < len {
            // SAFETY: `len < capacity` after the reserve.
            unsafe { self.ptr.as_ptr().add(self.len).write(value) };
            self.len += 1;
        }
    }

    /// The whole allocation, spare capacity included (unlike the slice's pointer,
    /// valid for writing past `len`).
    #[inline(always)]
    pub(crate) fn as_mut_ptr(&mut self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// # Safety
    /// `len <= capacity`, and the first `len` slots hold values.
    #[inline(always)]
    pub(crate) unsafe fn set_len(&mut self, len: usize) {
        debug_assert!(len <= self.capacity);
        self.len = len;
    }

    #[inline(always)]
    pub(crate) fn as_slice(&self) -> &[T] {
        // SAFETY: the first `len` slots hold values; `ptr` is non-null and aligned
        // (dangling only when `len == 0` or `T` is zero-sized).
        unsafe { core::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    #[inline(always)]
    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as for `as_slice`, and `&mut self` is unique.
        unsafe { core::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Copy> Drop for GrowVec<T> {
    fn drop(&mut self) {
        if !Self::ZST {
            // SAFETY: `ptr` came from `grow` for this capacity (or is dangling at 0);
            // `T: Copy` has no drop glue.
            unsafe { free(self.ptr.cast(), Self::layout(self.capacity)) };
        }
    }
}

impl<T: Copy> Default for GrowVec<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy> Clone for GrowVec<T> {
    fn clone(&self) -> Self {
        let mut v = Self::with_capacity(self.len);
        v.extend_from_slice(self);
        v
    }

    fn clone_from(&mut self, source: &Self) {
        self.clear();
        self.extend_from_slice(source);
    }
}

impl<T: Copy> core::ops::Deref for GrowVec<T> {
    type Target = [T];
    #[inline(always)]
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Copy> core::ops::DerefMut for GrowVec<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<T: Copy + core::fmt::Debug> core::fmt::Debug for GrowVec<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Copy> Extend<T> for GrowVec<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        let iter = iter.into_iter();
        self.reserve(iter.size_hint().0);
        for value in iter {
            self.push(value);
        }
    }
}

impl<T: Copy> FromIterator<T> for GrowVec<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut v = Self::new();
        v.extend(iter);
        v
    }
}

impl<'a, T: Copy> IntoIterator for &'a mut GrowVec<T> {
    type Item = &'a mut T;
    type IntoIter = core::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl<'a, T: Copy> IntoIterator for &'a GrowVec<T> {
    type Item = &'a T;
    type IntoIter = core::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grow_vec_behaves_as_a_vec_across_the_mapping_threshold() {
        let mut v: GrowVec<u64> = GrowVec::new();
        let mut model: Vec<u64> = Vec::new();
        let n = 3 * MAPPED_FROM / size_of::<u64>();
        for i in 0..n as u64 {
            v.push(i);
            model.push(i);
            if i % 7 == 0 {
                let at = (i as usize * 31) % v.len();
                assert_eq!(v.swap_remove(at), model.swap_remove(at));
            }
        }
        assert_eq!(&*v, &model[..]);
        let copy = v.clone();
        assert_eq!(&*copy, &model[..]);
        v.resize(10, 0);
        v.resize(20, 5);
        model.resize(10, 0);
        model.resize(20, 5);
        assert_eq!(&*v, &model[..]);
        let mut other = GrowVec::new();
        other.clone_from(&copy);
        assert_eq!(other.len(), copy.len());
    }

    #[test]
    fn an_array_outgrowing_its_reservation_moves_without_copying() {
        // Grows from 128 KiB to 128 MiB by fours: past half of the first 64 MiB
        // reservation, the array moves into a larger one.
        let bytes = |n: usize| Layout::from_size_align(n, 8).unwrap();
        let mut size = MAPPED_FROM;
        // SAFETY: a first block (dangling before, size 0).
        let mut ptr = unsafe { grow(NonNull::dangling(), bytes(0), bytes(size)) };
        // SAFETY: the block holds `size` bytes.
        unsafe { ptr.as_ptr().write_bytes(0xA5, 64) };
        let before = growth_copied_bytes();
        while size < 64 << 20 {
            let new = size * 4;
            // SAFETY: grows the block made above from `size` bytes.
            ptr = unsafe { grow(ptr, bytes(size), bytes(new)) };
            // SAFETY: `new` bytes are allocated; the first 64 were written above.
            unsafe {
                assert!(core::slice::from_raw_parts(ptr.as_ptr(), 64).iter().all(|&b| b == 0xA5), "at {new} bytes");
                ptr.as_ptr().add(new - 1).write(1);
            }
            size = new;
        }
        if map::AVAILABLE {
            assert_eq!(growth_copied_bytes(), before, "moving a mapped array copies nothing");
        }
        // SAFETY: the block made above, not used after this.
        unsafe { free(ptr, bytes(size)) };
    }

    #[test]
    fn growing_a_mapped_array_copies_nothing_and_keeps_every_byte() {
        let rows = MAPPED_FROM / 4;
        let mut ptr: NonNull<u8> = NonNull::dangling();
        let mut capacity = 0usize;
        let mut copies = Vec::new();
        for round in 0..6 {
            let new = if capacity == 0 { rows } else { capacity * 2 };
            let before = growth_copied_bytes();
            // SAFETY: grows the block made by the previous round (dangling at first).
            ptr = unsafe { grow(ptr, Layout::array::<u32>(capacity).unwrap(), Layout::array::<u32>(new).unwrap()) };
            copies.push(growth_copied_bytes() - before);
            // SAFETY: `new` u32 slots are allocated; the first `capacity` were
            // written by earlier rounds.
            unsafe {
                let values = ptr.cast::<u32>().as_ptr();
                for i in 0..capacity {
                    assert_eq!(values.add(i).read(), i as u32, "round {round}");
                }
                for i in capacity..new {
                    values.add(i).write(i as u32);
                }
            }
            capacity = new;
        }
        // SAFETY: the block made above, not used after this.
        unsafe { free(ptr, Layout::array::<u32>(capacity).unwrap()) };
        assert_eq!(copies[0], 0, "a first allocation copies nothing");
        if map::AVAILABLE {
            assert!(copies.iter().all(|&c| c == 0), "a mapped array grows without copying: {copies:?}");
        }
    }
}
