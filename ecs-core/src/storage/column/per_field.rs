//! The per-field (`layout = "soa"`) side of [`Column`]: a split column keeps
//! its values in one lane per field, and these are its row operations.

use core::ptr::NonNull;

use super::Column;
use crate::panics::{DeferredPanic, defer_panic};
use crate::storage::OwningPtr;
use crate::storage::array::copy_item;
use crate::storage::per_field::Lanes;
use crate::storage::tick::Tick;

impl Column {
    /// Makes this (new, empty) column a per-field one, with `lanes`.
    pub(super) fn set_lanes(&mut self, lanes: Lanes) {
        debug_assert!(self.capacity == 0 && !self.split);
        self.data = NonNull::from(Box::leak(Box::new(lanes))).cast();
        self.split = true;
    }

    /// The lanes of a per-field column.
    #[inline(always)]
    pub(super) fn lanes(&self) -> Option<&Lanes> {
        // SAFETY: a split column's `data` is the boxed `Lanes` of `set_lanes`,
        // owned by the column and freed only by its drop.
        self.split.then(|| unsafe { self.data.cast::<Lanes>().as_ref() })
    }

    /// The lanes of a per-field column, mutably.
    #[inline(always)]
    pub(super) fn lanes_mut(&mut self) -> Option<&mut Lanes> {
        // SAFETY: as in `lanes`; `&mut self` makes the borrow unique.
        self.split.then(|| unsafe { self.data.cast::<Lanes>().as_mut() })
    }

    /// The base pointer of each field's array, for a per-field column.
    #[inline]
    pub(crate) fn lane_bases(&self) -> Option<&[NonNull<u8>]> {
        self.lanes().map(Lanes::bases)
    }

    /// Scatters the value [`push_slot`](Self::push_slot) or
    /// [`fill_absent`](Self::fill_absent) left in a per-field column's staging
    /// room into its row. Every caller of those two calls this once the slot is
    /// written (a no-op for other columns).
    #[inline]
    pub(crate) fn settle(&mut self) {
        if let Some(lanes) = self.lanes_mut()
            && let Some(row) = lanes.pending.take()
        {
            // SAFETY: `row` was handed out by `push_slot`/`fill_absent`, so it is
            // below the capacity, and the caller wrote a whole value to staging
            // slot 0, which moves into the lanes here.
            unsafe { lanes.scatter(lanes.staging(0).as_ptr(), row) };
        }
    }

    /// [`push_unchecked`](Self::push_unchecked) of a per-field column.
    ///
    /// # Safety
    /// As for `push_unchecked`.
    #[cold]
    #[inline(never)]
    pub(super) unsafe fn push_split(&mut self, value: OwningPtr<'_>, tick: Tick) {
        // SAFETY: room and type (caller); the slot is staging slot 0, which
        // `settle` scatters at once.
        unsafe { copy_item(value.as_ptr(), self.push_slot(tick).as_ptr(), self.item.size()) };
        self.settle();
    }

    /// [`push_slot`](Self::push_slot) of a per-field column: the row's slot is
    /// the staging room, which [`settle`](Self::settle) scatters.
    ///
    /// # Safety
    /// As for `push_slot`.
    #[cold]
    #[inline(never)]
    pub(super) unsafe fn push_split_slot(&mut self, tick: Tick) -> NonNull<u8> {
        // SAFETY: forwarded.
        let row = unsafe { self.push_row(tick) };
        self.split_slot(row)
    }

    /// The staging slot a per-field column hands out for `row`, which
    /// [`settle`](Self::settle) scatters. Off the path of whole columns.
    #[cold]
    #[inline(never)]
    pub(super) fn split_slot(&mut self, row: usize) -> NonNull<u8> {
        let lanes = self.lanes_mut().expect("a per-field column");
        lanes.pending = Some(row);
        lanes.staging(0)
    }

    /// Copies row `from` over row `to` of a per-field column.
    ///
    /// # Safety
    /// Distinct rows below the capacity.
    #[cold]
    #[inline(never)]
    pub(super) unsafe fn split_move_row(&mut self, from: usize, to: usize) {
        // SAFETY: forwarded.
        unsafe { self.lanes().expect("a per-field column").move_row(from, to) }
    }

    /// Copies `row` of a per-field column into row `to` of `dst`.
    ///
    /// # Safety
    /// `dst` is a column of the same component; `row` and `to` are below the
    /// capacities.
    #[cold]
    #[inline(never)]
    pub(super) unsafe fn split_copy_row(&mut self, row: usize, dst: &mut Column, to: usize) {
        let (from, into) = (self.lanes(), dst.lanes());
        // SAFETY: forwarded; both columns of one component are split.
        unsafe { from.expect("a per-field column").copy_row(row, into.expect("a per-field column"), to) }
    }

    /// [`take_unchecked`](Self::take_unchecked) of a per-field column: the
    /// row's fields gathered into staging slot 0.
    ///
    /// # Safety
    /// As for `take_unchecked`.
    #[cold]
    #[inline(never)]
    pub(super) unsafe fn split_take<'a>(&mut self, row: usize) -> OwningPtr<'a> {
        let lanes = self.lanes().expect("a per-field column");
        let room = lanes.staging(0);
        // SAFETY: staging slot 0 holds one value and nothing else uses it now
        // (only a push leaves a value there, settled at once; `&mut self`);
        // `row < len`.
        unsafe {
            lanes.gather(row, room.as_ptr());
            OwningPtr::new(room)
        }
    }

    /// [`swap_remove_forget`](Self::swap_remove_forget) of a per-field column.
    ///
    /// # Safety
    /// As for `swap_remove_forget`.
    #[cold]
    #[inline(never)]
    pub(super) unsafe fn split_swap_remove_forget(&mut self, row: usize) {
        debug_assert!(row < self.len);
        let last = self.len - 1;
        if row != last {
            // SAFETY: distinct live rows, in bounds.
            unsafe {
                self.split_move_row(last, row);
                if self.keeps_ticks {
                    self.ticks.add(row).write(self.ticks.add(last).read());
                    self.run_follows(last, row);
                }
            }
        }
        self.len = last;
    }

    /// [`swap_remove_drop`](Self::swap_remove_drop) of a per-field column: the
    /// value is gathered into staging, and dropped there once the column is
    /// consistent.
    ///
    /// # Safety
    /// `row < self.len()`; `present` says whether it holds a value.
    #[cold]
    #[inline(never)]
    pub(super) unsafe fn swap_remove_drop_split(&mut self, row: usize, present: bool, panic: &mut DeferredPanic) {
        let lanes = self.lanes().expect("a per-field column");
        let value = lanes.staging(1);
        // SAFETY: `row < len` (caller); the staging slot holds one value. The
        // value moves there (when present), then the last row over it.
        unsafe {
            if present {
                lanes.gather(row, value.as_ptr());
            }
            self.swap_remove_forget(row);
        }
        if let Some(drop) = self.drop.filter(|_| present) {
            // SAFETY: staging holds the removed value, owned by nothing else now.
            defer_panic(panic, || unsafe { drop.run(OwningPtr::new(value)) });
        }
    }

    /// [`swap_remove_into`](Self::swap_remove_into) of a per-field column.
    ///
    /// # Safety
    /// As for `swap_remove_into`.
    #[cold]
    #[inline(never)]
    pub(super) unsafe fn split_swap_remove_into(&mut self, row: usize, dst: &mut Column, now: Tick) {
        debug_assert!(row < self.len && dst.len < dst.capacity);
        let to = dst.len;
        // SAFETY: `row` is live here, `to` allocated there (caller); both
        // columns of one component are split. The row then counts as moved out.
        unsafe {
            self.split_copy_row(row, dst, to);
            if self.keeps_ticks {
                dst.ticks.add(to).write(self.ticks.add(row).read());
                dst.note_add(now);
            }
            dst.len = to + 1;
            self.split_swap_remove_forget(row);
        }
    }
}
