//! [`Column`]: a type-erased, growable array of one component type, with a per-row
//! "added" and "changed" tick beside each value.
//!
//! ```text
//!  data:     [ v0 | v1 | v2 | .. | v(len-1) | (uninit) ... ]   capacity * size bytes
//!  added:    [ t0 | t1 | t2 | .. ]                            len ticks
//!  changed:  [ t0 | t1 | t2 | .. ]                            len ticks
//! ```
//! Rows `0..len` hold live values; every other slot is uninitialised memory. Removal
//! is always swap-remove: the last row moves into the hole, so rows stay contiguous.
//! Each operation that runs user code (a `Drop`) first makes the column consistent
//! (length updated, value out of the live range) and only then drops, catching a
//! panic so the caller can finish its own bookkeeping before resuming it.

use core::alloc::Layout;
use core::ptr::NonNull;
use std::alloc;

use super::{DeferredPanic, OwningPtr, Ptr, PtrMut, defer_panic};
use crate::component::ComponentInfo;

/// A point in a world's history, used for change detection.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct Tick(u32);

impl Tick {
    /// A tick from its raw value.
    #[inline]
    pub const fn new(tick: u32) -> Self {
        Self(tick)
    }

    /// The raw value.
    #[inline]
    pub const fn get(self) -> u32 {
        self.0
    }
}

/// A type-erased growable array of values of one layout.
pub struct Column {
    /// Aligned to `item.align()`; dangling (but aligned) while nothing is allocated.
    data: NonNull<u8>,
    len: usize,
    /// `usize::MAX` for zero-sized items, which never allocate.
    capacity: usize,
    item: Layout,
    drop: Option<unsafe fn(OwningPtr<'_>)>,
    added: Vec<Tick>,
    changed: Vec<Tick>,
}

// SAFETY: a column only ever holds values of a `Component` type, which is
// `Send + Sync`; the raw pointer is owned exclusively by the column.
unsafe impl Send for Column {}
// SAFETY: as above; shared access only hands out shared pointers.
unsafe impl Sync for Column {}

impl core::fmt::Debug for Column {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Column").field("len", &self.len).field("item", &self.item).finish()
    }
}

impl Column {
    /// An empty column for values described by `info`.
    pub fn new(info: &ComponentInfo) -> Self {
        Self::from_layout(info.layout(), info.drop_fn())
    }

    /// An empty column for values of `item` layout, dropped with `drop`.
    pub(crate) fn from_layout(item: Layout, drop: Option<unsafe fn(OwningPtr<'_>)>) -> Self {
        let data = NonNull::new(core::ptr::without_provenance_mut::<u8>(item.align())).expect("alignment is non-zero");
        let capacity = if item.size() == 0 { usize::MAX } else { 0 };
        Self { data, len: 0, capacity, item, drop, added: Vec::new(), changed: Vec::new() }
    }

    /// The number of live values.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when the column holds no value.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many values fit before the next reallocation.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The layout of one value.
    #[inline]
    pub fn item_layout(&self) -> Layout {
        self.item
    }

    /// Pointer to row 0; rows follow at `item_layout().size()` strides.
    #[inline]
    pub fn data_ptr(&self) -> NonNull<u8> {
        self.data
    }

    /// When each live row was added.
    #[inline]
    pub fn added_ticks(&self) -> &[Tick] {
        &self.added
    }

    /// When each live row was last written through a mutable access.
    #[inline]
    pub fn changed_ticks(&self) -> &[Tick] {
        &self.changed
    }

    #[inline]
    fn row_ptr(&self, row: usize) -> *mut u8 {
        // `row * size` stays inside the allocation for `row <= capacity`, which every
        // caller guarantees; for zero-sized items the offset is 0.
        self.data.as_ptr().wrapping_add(row * self.item.size())
    }

    /// Makes room for `additional` more values.
    ///
    /// # Panics
    /// When the byte size would overflow `isize::MAX`.
    #[inline]
    pub fn reserve(&mut self, additional: usize) {
        if self.capacity - self.len < additional {
            self.grow(additional);
        }
        self.added.reserve(additional);
        self.changed.reserve(additional);
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, additional: usize) {
        debug_assert_ne!(self.item.size(), 0, "zero-sized columns never grow");
        let required = self.len.checked_add(additional).expect("column capacity overflow");
        let new_capacity = required.max(self.capacity.saturating_mul(2)).max(4);
        let new_layout = array_layout(self.item, new_capacity);
        let new_data = if self.capacity == 0 {
            // SAFETY: `new_layout` has non-zero size (non-zero item, capacity >= 4).
            unsafe { alloc::alloc(new_layout) }
        } else {
            // SAFETY: `data` was allocated with `array_layout(item, capacity)`, and the
            // new size is non-zero and fits `isize` (checked by `array_layout`).
            unsafe { alloc::realloc(self.data.as_ptr(), array_layout(self.item, self.capacity), new_layout.size()) }
        };
        self.data = NonNull::new(new_data).unwrap_or_else(|| alloc::handle_alloc_error(new_layout));
        self.capacity = new_capacity;
    }

    /// Moves `value` in as a new last row.
    ///
    /// # Safety
    /// `value` must be a valid value of this column's type.
    #[inline]
    pub unsafe fn push(&mut self, value: OwningPtr<'_>, tick: Tick) {
        if self.len == self.capacity || self.added.len() == self.added.capacity() {
            self.reserve(1);
        }
        // SAFETY: capacity > len after the reserve, so the destination slot is
        // allocated and uninitialised; the caller guarantees `value` has our type, and
        // owning it we may move its bytes.
        unsafe { core::ptr::copy_nonoverlapping(value.as_ptr(), self.row_ptr(self.len), self.item.size()) };
        self.len += 1;
        self.added.push(tick);
        self.changed.push(tick);
    }

    /// A shared pointer to a row, `None` past the end.
    #[inline]
    pub fn get(&self, row: usize) -> Option<Ptr<'_>> {
        // SAFETY: `row < len`, so the row holds a live value, borrowed as long as `self`.
        (row < self.len).then(|| unsafe { Ptr::new(NonNull::new_unchecked(self.row_ptr(row))) })
    }

    /// A shared pointer to a row.
    ///
    /// # Safety
    /// `row < self.len()`.
    #[inline]
    pub unsafe fn get_unchecked(&self, row: usize) -> Ptr<'_> {
        debug_assert!(row < self.len);
        // SAFETY: `row < len` (caller), so the pointer is in bounds and non-null.
        unsafe { Ptr::new(NonNull::new_unchecked(self.row_ptr(row))) }
    }

    /// A mutable pointer to a row; marks the row changed at `tick`.
    ///
    /// # Safety
    /// `row < self.len()`.
    #[inline]
    pub unsafe fn get_mut_unchecked(&mut self, row: usize, tick: Tick) -> PtrMut<'_> {
        debug_assert!(row < self.len);
        // SAFETY: `row < len` (caller) and `changed.len() == len`.
        unsafe { *self.changed.get_unchecked_mut(row) = tick };
        // SAFETY: in bounds as above; `&mut self` makes the borrow unique.
        unsafe { PtrMut::new(NonNull::new_unchecked(self.row_ptr(row))) }
    }

    /// Replaces the value in `row` with `value`, then drops the old value. A panic from
    /// that drop is caught into `panic`; the column holds the new value either way.
    ///
    /// # Safety
    /// `row < self.len()` and `value` is a valid value of this column's type.
    #[inline]
    pub unsafe fn replace(&mut self, row: usize, value: OwningPtr<'_>, tick: Tick, panic: &mut DeferredPanic) {
        debug_assert!(row < self.len);
        // SAFETY: both pointers are valid for `size` bytes (a live row; an owned value)
        // and cannot overlap, since `value` is owned by the caller, not the column.
        unsafe { core::ptr::swap_nonoverlapping(value.as_ptr(), self.row_ptr(row), self.item.size()) };
        // SAFETY: `row < len`.
        unsafe { *self.changed.get_unchecked_mut(row) = tick };
        if let Some(drop) = self.drop {
            // SAFETY: after the swap, `value`'s memory holds the old, owned value of
            // our type.
            defer_panic(panic, || unsafe { drop(value) });
        }
    }

    /// Removes `row`, whose value the caller has already moved out, by moving the last
    /// row into it.
    ///
    /// # Safety
    /// `row < self.len()`, and the value in `row` has been moved out (it is not dropped).
    #[inline]
    pub unsafe fn swap_remove_forget(&mut self, row: usize) {
        debug_assert!(row < self.len);
        let last = self.len - 1;
        if row != last {
            // SAFETY: `row` and `last` are distinct live rows, so the ranges are in
            // bounds and do not overlap.
            unsafe { core::ptr::copy_nonoverlapping(self.row_ptr(last), self.row_ptr(row), self.item.size()) };
        }
        self.len = last;
        self.added.swap_remove(row);
        self.changed.swap_remove(row);
    }

    /// Removes `row` and drops its value. The column is consistent before the drop
    /// runs; a panic from it is caught into `panic`.
    ///
    /// # Safety
    /// `row < self.len()`.
    #[inline]
    pub unsafe fn swap_remove_drop(&mut self, row: usize, panic: &mut DeferredPanic) {
        debug_assert!(row < self.len);
        let last = self.len - 1;
        if row != last {
            // SAFETY: distinct live rows: in bounds, non-overlapping.
            unsafe { core::ptr::swap_nonoverlapping(self.row_ptr(last), self.row_ptr(row), self.item.size()) };
        }
        self.len = last;
        self.added.swap_remove(row);
        self.changed.swap_remove(row);
        if let Some(drop) = self.drop {
            // SAFETY: slot `last` (now past `len`, still allocated) holds the removed
            // value, which nothing else will read or drop.
            let value = unsafe { OwningPtr::new(NonNull::new_unchecked(self.row_ptr(last))) };
            // SAFETY: the value has this column's type.
            defer_panic(panic, || unsafe { drop(value) });
        }
    }

    /// Moves `row` to the end of `dst`, without dropping, then swap-removes it here.
    /// Ticks move with the value.
    ///
    /// # Safety
    /// `row < self.len()`, `dst` stores the same type, and `dst` has room for one more
    /// value (see [`reserve`](Self::reserve)).
    #[inline]
    pub unsafe fn swap_remove_into(&mut self, row: usize, dst: &mut Column) {
        debug_assert!(row < self.len);
        debug_assert_eq!(self.item, dst.item);
        debug_assert!(dst.len < dst.capacity && dst.added.len() < dst.added.capacity());
        // SAFETY: `row` is live here; `dst` has an uninitialised slot at `dst.len`
        // (caller reserved); distinct allocations cannot overlap.
        unsafe { core::ptr::copy_nonoverlapping(self.row_ptr(row), dst.row_ptr(dst.len), self.item.size()) };
        dst.len += 1;
        // SAFETY: `row < len == added.len() == changed.len()`.
        let (added, changed) = unsafe { (*self.added.get_unchecked(row), *self.changed.get_unchecked(row)) };
        dst.added.push(added);
        dst.changed.push(changed);
        // SAFETY: the value was moved to `dst` above.
        unsafe { self.swap_remove_forget(row) };
    }

    /// Drops every value and empties the column, keeping its allocation. Panics from
    /// drops are caught into `panic`; every value is dropped exactly once regardless.
    pub fn clear(&mut self, panic: &mut DeferredPanic) {
        let len = core::mem::replace(&mut self.len, 0);
        self.added.clear();
        self.changed.clear();
        if let Some(drop) = self.drop {
            for row in 0..len {
                // SAFETY: rows `0..len` held live values; `len` is already 0, so each is
                // visited once, here, and never again.
                let value = unsafe { OwningPtr::new(NonNull::new_unchecked(self.row_ptr(row))) };
                // SAFETY: the value has this column's type.
                defer_panic(panic, || unsafe { drop(value) });
            }
        }
    }

    /// Checks that the tick arrays match the values.
    pub(crate) fn check_invariants(&self) -> Result<(), String> {
        if self.added.len() != self.len || self.changed.len() != self.len {
            return Err(format!(
                "column has {} values but {} added and {} changed ticks",
                self.len,
                self.added.len(),
                self.changed.len()
            ));
        }
        if self.len > self.capacity {
            return Err(format!("column length {} exceeds capacity {}", self.len, self.capacity));
        }
        Ok(())
    }
}

impl Drop for Column {
    fn drop(&mut self) {
        let mut panic = None;
        self.clear(&mut panic);
        if self.item.size() != 0 && self.capacity != 0 {
            // SAFETY: allocated in `grow` with exactly this layout.
            unsafe { alloc::dealloc(self.data.as_ptr(), array_layout(self.item, self.capacity)) };
        }
        super::resume_deferred(panic);
    }
}

fn array_layout(item: Layout, capacity: usize) -> Layout {
    // A Rust type's size is a multiple of its alignment, so no padding is needed
    // between items.
    item.size()
        .checked_mul(capacity)
        .and_then(|size| Layout::from_size_align(size, item.align()).ok())
        .expect("column capacity overflow")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local!(static DROPS: Cell<usize> = const { Cell::new(0) });

    struct Counted(#[allow(dead_code)] u64);
    impl Drop for Counted {
        fn drop(&mut self) {
            DROPS.with(|d| d.set(d.get() + 1));
        }
    }

    fn drops() -> usize {
        DROPS.with(Cell::get)
    }

    unsafe fn drop_counted(ptr: OwningPtr<'_>) {
        // SAFETY: only used for columns of `Counted`.
        unsafe { ptr.drop_as::<Counted>() }
    }

    fn counted_column() -> Column {
        Column::from_layout(Layout::new::<Counted>(), Some(drop_counted))
    }

    fn push<T>(column: &mut Column, value: T) {
        // SAFETY: the tests use each column with a single type `T`.
        OwningPtr::make(value, |ptr| unsafe { column.push(ptr, Tick::new(0)) });
    }

    fn read<T: Copy>(column: &Column, row: usize) -> T {
        // SAFETY: the tests use each column with a single type `T`.
        unsafe { *column.get(row).unwrap().deref::<T>() }
    }

    #[test]
    fn grows_across_reallocation_keeping_values() {
        let mut column = Column::from_layout(Layout::new::<u64>(), None);
        for i in 0..1000u64 {
            push(&mut column, i * 3);
            assert!(column.capacity() >= column.len());
        }
        assert!((0..1000).all(|i| read::<u64>(&column, i) == i as u64 * 3));
        assert!(column.get(1000).is_none());
        column.check_invariants().unwrap();
    }

    #[test]
    fn over_aligned_values_are_aligned_after_every_growth() {
        #[derive(Clone, Copy)]
        #[repr(align(4096))]
        struct Page(u8);
        let mut column = Column::from_layout(Layout::new::<Page>(), None);
        for i in 0..20u8 {
            push(&mut column, Page(i));
            assert_eq!(column.data_ptr().as_ptr() as usize % 4096, 0);
        }
        assert!((0..20).all(|i| read::<Page>(&column, i).0 == i as u8));
    }

    #[test]
    fn zero_sized_values_never_allocate() {
        let mut column = Column::from_layout(Layout::new::<()>(), None);
        for _ in 0..10_000 {
            push(&mut column, ());
        }
        assert_eq!(column.len(), 10_000);
        assert_eq!(column.capacity(), usize::MAX);
        let mut panic = None;
        // SAFETY: row 0 is live.
        unsafe { column.swap_remove_drop(0, &mut panic) };
        assert_eq!(column.len(), 9_999);
    }

    #[test]
    fn swap_remove_moves_last_row_and_drops_once() {
        let before = drops();
        let mut column = counted_column();
        for i in 0..4 {
            push(&mut column, Counted(i));
        }
        let mut panic = None;
        // SAFETY: row 1 is live.
        unsafe { column.swap_remove_drop(1, &mut panic) };
        assert!(panic.is_none());
        assert_eq!(drops() - before, 1);
        // SAFETY: `Counted` is `repr(Rust)` with one u64 field; reading the u64 is fine.
        let ids: Vec<u64> = (0..3).map(|r| unsafe { column.get(r).unwrap().deref::<Counted>().0 }).collect();
        assert_eq!(ids, [0, 3, 2]);
        drop(column);
        assert_eq!(drops() - before, 4);
    }

    #[test]
    fn swap_remove_into_moves_without_drop() {
        let before = drops();
        let mut a = counted_column();
        let mut b = counted_column();
        push(&mut a, Counted(1));
        push(&mut a, Counted(2));
        b.reserve(1);
        // SAFETY: row 0 is live, same type, `b` has room.
        unsafe { a.swap_remove_into(0, &mut b) };
        assert_eq!(drops(), before);
        assert_eq!((a.len(), b.len()), (1, 1));
        drop((a, b));
        assert_eq!(drops() - before, 2);
    }
}
