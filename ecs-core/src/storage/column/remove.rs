//! Taking rows out of a [`Column`]: swap-removes that drop, forget or move the
//! value, and clearing.

use core::ptr::NonNull;

use super::Column;
use crate::panics::{DeferredPanic, defer_panic};
use crate::storage::OwningPtr;
use crate::storage::array::copy_item;
use crate::storage::tick::Tick;

impl Column {
    /// Moves a row's value out: in place for a whole column, gathered into the
    /// staging room of a per-field one. The pointer is valid until the next use
    /// of the column (the lifetime is the caller's to keep within that).
    ///
    /// # Safety
    /// `row < self.len()` and the row holds a value; the caller reads the value
    /// once and makes the column forget the row (`swap_remove_forget`,
    /// `set_absent`) before anything else reads or drops it.
    #[inline(always)]
    pub(crate) unsafe fn take_unchecked<'a>(&mut self, row: usize) -> OwningPtr<'a> {
        debug_assert!(self.holds(row));
        if self.split {
            // SAFETY: forwarded.
            return unsafe { self.split_take(row) };
        }
        // SAFETY: `row < len` (caller), so the pointer is in bounds and non-null.
        unsafe { OwningPtr::new(NonNull::new_unchecked(self.row_ptr(row))) }
    }

    /// Removes `row`, whose value the caller has already moved out, by moving the last
    /// row into it.
    ///
    /// # Safety
    /// `row < self.len()`, and the value in `row` has been moved out (it is not dropped).
    #[inline]
    pub(crate) unsafe fn swap_remove_forget(&mut self, row: usize) {
        if self.split {
            // SAFETY: forwarded.
            unsafe { self.split_swap_remove_forget(row) };
        } else {
            // SAFETY: forwarded; a whole column (checked).
            unsafe { self.swap_remove_forget_whole(row) };
        }
    }

    /// [`swap_remove_forget`](Self::swap_remove_forget) of a column that is not
    /// per-field, without asking.
    ///
    /// # Safety
    /// As for `swap_remove_forget`, and the column is not [split](Self::is_split).
    #[inline(always)]
    pub(crate) unsafe fn swap_remove_forget_whole(&mut self, row: usize) {
        debug_assert!(row < self.len && !self.split);
        let last = self.len - 1;
        if row != last {
            // SAFETY: `row` and `last` are distinct live rows, so the ranges are in
            // bounds and do not overlap.
            unsafe {
                copy_item(self.row_ptr(last), self.row_ptr(row), self.item.size());
                if self.keeps_ticks {
                    self.ticks.add(row).write(self.ticks.add(last).read());
                    self.run_follows(last, row);
                }
            }
        }
        self.len = last;
    }

    /// Removes `row` and drops its value. The column is consistent before the drop
    /// runs; a panic from it is caught into `panic`.
    ///
    /// # Safety
    /// `row < self.len()`.
    #[inline]
    pub(crate) unsafe fn swap_remove_drop(&mut self, row: usize, panic: &mut DeferredPanic) {
        if self.split {
            // SAFETY: `row < len` (caller).
            let present = unsafe { self.is_present(row) };
            // SAFETY: forwarded.
            unsafe { self.swap_remove_drop_split(row, present, panic) };
        } else {
            // SAFETY: forwarded; a whole column (checked).
            unsafe { self.swap_remove_drop_whole(row, panic) };
        }
    }

    /// [`swap_remove_drop`](Self::swap_remove_drop) of a column that is not
    /// per-field, without asking: the loops over an archetype without
    /// per-field columns keep that test out of every column's step.
    ///
    /// # Safety
    /// As for `swap_remove_drop`, and the column is not [split](Self::is_split).
    #[inline(always)]
    pub(crate) unsafe fn swap_remove_drop_whole(&mut self, row: usize, panic: &mut DeferredPanic) {
        debug_assert!(row < self.len && !self.split);
        // SAFETY: `row < len` (caller).
        let present = unsafe { self.is_present(row) };
        let last = self.len - 1;
        let drop = self.drop.filter(|_| present);
        if row != last {
            // SAFETY: distinct live rows: in bounds, non-overlapping.
            unsafe {
                if drop.is_some() {
                    // The removed value goes to `last`, to be dropped there.
                    core::ptr::swap_nonoverlapping(self.row_ptr(last), self.row_ptr(row), self.item.size());
                } else {
                    // Nothing to drop: the last value moves over it, a copy
                    // (a swap reads and writes both rows).
                    core::ptr::copy_nonoverlapping(self.row_ptr(last), self.row_ptr(row), self.item.size());
                }
                if self.keeps_ticks {
                    self.ticks.add(row).write(self.ticks.add(last).read());
                    self.run_follows(last, row);
                }
            }
        }
        self.len = last;
        if let Some(drop) = drop {
            // SAFETY: slot `last` (now past `len`, still allocated) holds the removed
            // value (present, checked above), which nothing else will read or drop.
            let value = unsafe { OwningPtr::new(NonNull::new_unchecked(self.row_ptr(last))) };
            // SAFETY: the value has this column's type.
            defer_panic(panic, || unsafe { drop.run(value) });
        }
    }

    /// Moves `row` to the end of `dst`, without dropping, then swap-removes it here.
    /// Ticks move with the value, and `dst`'s summaries are set to `now` (the
    /// world's tick, at least as new as the moved row's ticks).
    ///
    /// # Safety
    /// `row < self.len()`, `dst` stores the same type, and `dst` has room for one more
    /// value (see [`reserve`](Self::reserve)).
    #[inline(always)]
    pub(crate) unsafe fn swap_remove_into(&mut self, row: usize, dst: &mut Column, now: Tick) {
        if self.split {
            // SAFETY: forwarded.
            unsafe { self.split_swap_remove_into(row, dst, now) };
        } else {
            // SAFETY: forwarded; a whole column (checked).
            unsafe { self.swap_remove_into_whole(row, dst, now) };
        }
    }

    /// [`swap_remove_into`](Self::swap_remove_into) of a column that is not
    /// per-field, without asking.
    ///
    /// # Safety
    /// As for `swap_remove_into`, and the column is not [split](Self::is_split).
    #[inline(always)]
    pub(crate) unsafe fn swap_remove_into_whole(&mut self, row: usize, dst: &mut Column, now: Tick) {
        debug_assert!(row < self.len && !self.split);
        debug_assert_eq!(self.item, dst.item);
        debug_assert!(dst.len < dst.capacity);
        let to = dst.len;
        // SAFETY: `row < len` is live here; `to < dst.capacity` is allocated there
        // (caller); distinct allocations cannot overlap. After the copy the value
        // counts as moved out of `row`, which `swap_remove_forget` then fills.
        unsafe {
            copy_item(self.row_ptr(row), dst.row_ptr(to), self.item.size());
            // Both columns store one component, so both keep ticks or neither does.
            if self.keeps_ticks {
                dst.ticks.add(to).write(self.ticks.add(row).read());
                // The moved row's ticks are at most `now`: claiming `now` for both
                // summaries is one store and never hides a row from `Changed` or
                // `Added` (it only makes them look at `dst` once).
                dst.note_add(now);
            }
            dst.len = to + 1;
            self.swap_remove_forget_whole(row);
        }
    }

    /// Drops every value and empties the column, keeping its allocation. Panics from
    /// drops are caught into `panic`; every value is dropped exactly once regardless.
    pub(crate) fn clear(&mut self, panic: &mut DeferredPanic) {
        let len = core::mem::replace(&mut self.len, 0);
        if let Some(drop) = self.drop {
            for row in 0..len {
                // SAFETY: rows `0..len` were below the length, so in a `Marked`
                // column (which always keeps ticks) their tick slots are
                // allocated and written, and stay so.
                if !unsafe { self.slot_holds(row) } {
                    continue;
                }
                if let Some(lanes) = self.lanes() {
                    let value = lanes.staging(1);
                    // SAFETY: the row held a value (`len` is already 0, so it is
                    // visited once), gathered whole into the staging slot.
                    unsafe { lanes.gather(row, value.as_ptr()) };
                    // SAFETY: the staging slot holds that value, of the column's
                    // type, owned by nothing else: dropped once, here.
                    defer_panic(panic, || unsafe { drop.run(OwningPtr::new(value)) });
                    continue;
                }
                // SAFETY: rows `0..len` held live values; `len` is already 0, so each is
                // visited once, here, and never again.
                let value = unsafe { OwningPtr::new(NonNull::new_unchecked(self.row_ptr(row))) };
                // SAFETY: the value has this column's type.
                defer_panic(panic, || unsafe { drop.run(value) });
            }
        }
    }
}
