//! Allocation of a column's arrays (values, ticks, field lanes): their layout,
//! growth and release, and the small untyped copy every row move goes through.

use core::alloc::Layout;
use core::ptr::NonNull;

use super::growth;

/// Moves `size` bytes. Component values are mostly small, and a call to `memcpy`
/// with a run-time length costs more than the copy itself, so sizes up to 32 bytes
/// are copied with (possibly overlapping) unaligned word moves. The words are
/// `MaybeUninit`: padding bytes (and the unwritten slot of an absent sparse value)
/// are uninitialised, and reading them as integers would be undefined behaviour.
///
/// # Safety
/// `src` and `dst` are valid for `size` bytes and do not overlap.
#[inline(always)]
pub(crate) unsafe fn copy_item(src: *const u8, dst: *mut u8, size: usize) {
    use core::mem::MaybeUninit as M;
    use core::ptr::{read_unaligned as read, write_unaligned as write};
    // SAFETY: every access below stays within `[0, size)` of both pointers, which the
    // caller guarantees are valid and disjoint.
    unsafe {
        match size {
            0 => {}
            1..=3 => {
                for i in 0..size {
                    *dst.add(i).cast::<M<u8>>() = *src.add(i).cast::<M<u8>>();
                }
            }
            4..=7 => {
                let (a, b) = (read(src.cast::<M<u32>>()), read(src.add(size - 4).cast::<M<u32>>()));
                write(dst.cast::<M<u32>>(), a);
                write(dst.add(size - 4).cast::<M<u32>>(), b);
            }
            8..=16 => {
                let (a, b) = (read(src.cast::<M<u64>>()), read(src.add(size - 8).cast::<M<u64>>()));
                write(dst.cast::<M<u64>>(), a);
                write(dst.add(size - 8).cast::<M<u64>>(), b);
            }
            17..=32 => {
                let (a, b) = (read(src.cast::<M<u128>>()), read(src.add(size - 16).cast::<M<u128>>()));
                write(dst.cast::<M<u128>>(), a);
                write(dst.add(size - 16).cast::<M<u128>>(), b);
            }
            _ => core::ptr::copy_nonoverlapping(src, dst, size),
        }
    }
}

/// Arrays of at least this many bytes start on a page boundary (see
/// [`array_layout`]). Below it a loop's stores cannot reach far enough for
/// the aliasing that alignment avoids, and a page-aligned block costs the
/// allocator more than the array.
pub(super) const PAGE_ALIGNED_FROM: usize = 1024;
/// The granularity of the aliasing [`array_layout`] avoids: processors compare
/// the low 12 bits of a load's address with pending stores before the whole
/// address is known (x86 and most arm64 cores); it is also the smallest page,
/// where a mapped array starts.
pub(super) const PAGE: usize = growth::MIN_PAGE;

/// The layout of an array of `capacity` items of `item`.
///
/// An array of at least [`PAGE_ALIGNED_FROM`] bytes is aligned to a page, so
/// row `i` of every such column (and tick array and field lane) of an
/// archetype sits at the same offset within a page. Why: a load whose address
/// matches a pending store's in its low 12 bits waits for that store, as if it
/// read it ("4K aliasing"). Two arrays whose starts are `d` bytes apart modulo
/// 4 KiB, walked row by row, load row `x` of one while the store to the
/// other's row `x - d / size` is still pending whenever that distance is within
/// the few dozen stores a core keeps in flight: with the global allocator's
/// placement that happened to some archetypes and not others, so the same
/// query loop ran measurably slower depending on where its columns had landed.
/// With equal offsets the only match is the same row, whose load comes before
/// its store. (Arrays of [`MAPPED_FROM`](super::growth::MAPPED_FROM) bytes and
/// more are mapped, which aligns them to a page anyway.)
pub(super) fn array_layout(item: Layout, capacity: usize) -> Layout {
    // A Rust type's size is a multiple of its alignment, so no padding is needed
    // between items.
    let size = item.size().checked_mul(capacity).expect("column capacity overflow");
    let align = if size >= PAGE_ALIGNED_FROM { item.align().max(PAGE) } else { item.align() };
    Layout::from_size_align(size, align).expect("column capacity overflow")
}

/// Grows an array of `old` items of layout `item` (dangling when `old == 0`) to
/// `new` items, aborting on allocation failure. Large arrays grow without
/// copying their rows (see [`growth`](super::growth)).
///
/// # Safety
/// `item.size() > 0`, `new > old`, and `ptr` was returned by this function for `old`
/// items (or is dangling when `old == 0`).
pub(super) unsafe fn realloc_array<T>(ptr: NonNull<T>, item: Layout, old: usize, new: usize) -> NonNull<T> {
    // SAFETY: `new > old` items of a non-zero size, so the new layout is larger
    // and at least as aligned (`array_layout` aligns larger arrays more, never
    // less); `ptr` came from here for `old` items (caller).
    unsafe { growth::grow(ptr.cast(), array_layout(item, old), array_layout(item, new)) }.cast()
}

/// # Safety
/// As for `realloc_array`: `ptr` holds `capacity` items of `item`, or `capacity == 0`.
pub(super) unsafe fn dealloc_array<T>(ptr: NonNull<T>, item: Layout, capacity: usize) {
    // SAFETY: allocated by `realloc_array` with exactly this layout, or of size 0
    // (caller).
    unsafe { growth::free(ptr.cast(), array_layout(item, capacity)) };
}
