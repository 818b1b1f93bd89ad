//! Whole-column operations for snapshots, saves and loads: copying, cloning
//! and moving every row at once, and the ticks that come with them.

use core::ptr::NonNull;
use core::sync::atomic::Ordering;

use super::Column;
use crate::panics::DeferredPanic;
#[cfg(feature = "serde")]
use crate::storage::tick::write_ticks;
use crate::storage::tick::{ComponentTicks, Tick};
use crate::storage::{CloneGlue, Ptr};

impl Column {
    /// An empty column of the same type, storage and tick-keeping.
    pub(crate) fn empty_like(&self) -> Column {
        let mut column = Self::from_layout(self.item, self.drop);
        column.occupancy = self.occupancy;
        column.keeps_ticks = self.keeps_ticks;
        if let Some(lanes) = self.lanes() {
            column.set_lanes(lanes.empty_like());
        }
        column
    }

    /// Makes this column a row-for-row copy of `src` (values, ticks, summary),
    /// reusing its allocation: what a snapshot and a restore do for a `Copy`
    /// component, one `memcpy` per array.
    ///
    /// # Safety
    /// As for [`extend_copied`](Self::extend_copied).
    pub(crate) unsafe fn copy_rows_from(&mut self, src: &Column) {
        // `Copy` values need no drop: forgetting the rows is emptying the column.
        self.len = 0;
        // SAFETY: forwarded.
        unsafe { self.extend_copied(src) };
    }

    /// Appends a copy of every row of `src` (values and ticks). Absent slots of a
    /// sparse column are copied as the uninitialised bytes they are, never read
    /// as values.
    ///
    /// # Safety
    /// Both columns hold the same component type (made from the same
    /// `ComponentInfo`, or one by [`empty_like`](Self::empty_like) of the other),
    /// and it is `Copy`: it has no drop, and a bitwise copy is a copy.
    pub(crate) unsafe fn extend_copied(&mut self, src: &Column) {
        debug_assert!(self.drop.is_none());
        // SAFETY: the same type (caller); for a `Copy` type the bitwise copy is a
        // copy, and `src` keeps its values.
        unsafe { self.append_bits(src) };
    }

    /// Appends the bytes of every row of `src` (values and ticks), leaving
    /// `src` as it is: the caller decides whether that copied or moved them.
    ///
    /// # Safety
    /// Both columns hold the same component type (made from the same
    /// `ComponentInfo`, or one by [`empty_like`](Self::empty_like) of the other).
    pub(super) unsafe fn append_bits(&mut self, src: &Column) {
        debug_assert!(self.item == src.item && self.occupancy == src.occupancy);
        debug_assert!(self.keeps_ticks == src.keeps_ticks);
        let start = self.len;
        let end = start.checked_add(src.len).expect("column capacity overflow");
        self.grow_to(end);
        // SAFETY: `src` holds `len` rows and ticks (when kept); `self` was just grown
        // to hold `end` rows; two columns never share an allocation. Absent slots
        // of a sparse column are copied as the uninitialised bytes they are, never
        // read as values.
        unsafe {
            match (self.lanes(), src.lanes()) {
                (Some(into), Some(from)) => into.append(from, start, src.len),
                (None, None) => {
                    core::ptr::copy_nonoverlapping(src.data.as_ptr(), self.row_ptr(start), src.len * self.item.size())
                }
                _ => unreachable!("columns of one component are both per-field or neither"),
            }
            if self.keeps_ticks {
                core::ptr::copy_nonoverlapping(src.ticks.as_ptr(), self.ticks.as_ptr().add(start), src.len);
            }
        }
        self.len = end;
        self.merge_summary(src, start == 0);
    }

    /// The bytes of every row's value, in row order.
    ///
    /// # Safety
    /// Every row holds a value (not a sparse column), and the column's type has
    /// no padding or otherwise uninitialised bytes (it is `bytemuck::Pod`).
    #[cfg(feature = "serde")]
    pub(crate) unsafe fn value_bytes(&self) -> &[u8] {
        debug_assert!(!self.is_sparse() && !self.split);
        // SAFETY: `data` holds `len` initialised values (every row holds one,
        // caller) of `item.size()` bytes each, none of them padding (caller);
        // for zero-sized items the slice is empty.
        unsafe { core::slice::from_raw_parts(self.data.as_ptr(), self.len * self.item.size()) }
    }

    /// Every row's value, in row order, when they lie side by side: a table
    /// column (every row holds a value) that stores values whole. `None` for
    /// a sparse or per-field column.
    ///
    /// # Safety
    /// The column holds values of type `T`.
    #[cfg(feature = "serde")]
    pub(crate) unsafe fn values<T>(&self) -> Option<&[T]> {
        debug_assert_eq!(self.item, core::alloc::Layout::new::<T>());
        if self.is_sparse() || self.split {
            return None;
        }
        // SAFETY: a table column stores whole values (not split) in `data`,
        // `len` initialised ones in a row, every row holding one (not
        // sparse), of type `T` (caller); for zero-sized `T` or no rows a
        // dangling, aligned pointer is a valid empty or ZST slice.
        Some(unsafe { core::slice::from_raw_parts(self.data.as_ptr().cast::<T>(), self.len) })
    }

    /// Appends `rows` rows whose values are `bytes`, in order, stamped `tick`.
    ///
    /// # Safety
    /// The column is not sparse, `bytes.len() == rows * item size`, and any bytes
    /// are a valid value of the column's type (it is `bytemuck::Pod`).
    #[cfg(feature = "serde")]
    pub(crate) unsafe fn extend_from_bytes(&mut self, rows: usize, bytes: &[u8], tick: Tick) {
        debug_assert!(!self.is_sparse() && bytes.len() == rows * self.item.size());
        let start = self.len;
        let end = start.checked_add(rows).expect("column capacity overflow");
        self.grow_to(end);
        // SAFETY: grown to hold `end` rows just above; `bytes` has exactly `rows`
        // values' worth of bytes (caller) and lives outside the column; any bytes
        // are a valid value (caller). The byte slice may be unaligned, which a
        // byte copy does not mind.
        unsafe {
            match self.lanes() {
                Some(lanes) => {
                    let size = self.item.size();
                    for row in start..end {
                        lanes.scatter(bytes.as_ptr().add((row - start) * size), row);
                    }
                }
                None => core::ptr::copy_nonoverlapping(bytes.as_ptr(), self.row_ptr(start), bytes.len()),
            }
        }
        if self.keeps_ticks {
            for row in start..end {
                // SAFETY: `row < end <= capacity`, so the tick slot is allocated
                // (and 8-aligned, as every tick slot).
                unsafe { write_ticks(self.ticks.add(row), tick.stamp()) };
            }
            self.note_add(tick.stamp());
        }
        self.len = end;
    }

    /// An empty column of the same type holding a clone of every row of this one
    /// (absent rows stay absent), with the same ticks.
    ///
    /// # Safety
    /// As for [`extend_cloned`](Self::extend_cloned).
    pub(crate) unsafe fn cloned(&self, clone: CloneGlue) -> Column {
        let mut dst = self.empty_like();
        // SAFETY: forwarded; `dst` has this column's type.
        unsafe { dst.extend_cloned(self, clone) };
        dst
    }

    /// Appends a clone of every value of `src` (absent rows stay absent), with
    /// the same ticks. A panicking `clone` leaves this column holding the rows
    /// appended so far, each complete; `src` is untouched.
    ///
    /// # Safety
    /// Both columns hold the same component type, and `clone` clones a value of
    /// it into an uninitialised slot.
    pub(crate) unsafe fn extend_cloned(&mut self, src: &Column, clone: CloneGlue) {
        debug_assert!(self.item == src.item && self.occupancy == src.occupancy && self.keeps_ticks == src.keeps_ticks);
        let start = self.len;
        self.grow_to(start.checked_add(src.len).expect("column capacity overflow"));
        for row in 0..src.len {
            let to = start + row;
            // SAFETY: `row < src.len`.
            if unsafe { src.is_present(row) } {
                match (self.lanes(), src.lanes()) {
                    // SAFETY: `src`'s row holds a value, gathered as a bitwise
                    // copy into staging slot 0 (only read by `clone`, never
                    // dropped); the clone is written to slot 1 (caller's
                    // `clone` contract), then scattered into row `to`, which
                    // has room (grown above).
                    (Some(into), Some(from)) => unsafe {
                        from.gather(row, into.staging(0).as_ptr());
                        clone.run(Ptr::new(into.staging(0)), into.staging(1));
                        into.scatter(into.staging(1).as_ptr(), to);
                    },
                    // SAFETY: the row holds a value of the type; `self` has room for
                    // row `to` (grown above), whose slot is uninitialised; `clone`
                    // writes a value of the type there (caller).
                    (None, None) => unsafe {
                        clone.run(src.get_unchecked(row), NonNull::new_unchecked(self.row_ptr(to)))
                    },
                    _ => unreachable!("columns of one component are both per-field or neither"),
                }
            }
            if self.keeps_ticks {
                // SAFETY: both tick arrays are allocated past the rows used; `src`'s
                // rows below its length are written. An absent row copies `ABSENT`.
                unsafe { self.ticks.add(to).write(*src.ticks.add(row).as_ptr()) };
            }
            // Counted only once written, so a panic in a later `clone` leaves the
            // column dropping exactly the values it holds.
            self.len = to + 1;
        }
        self.merge_summary(src, start == 0);
    }

    /// Moves every row of `src` (values and ticks) to the end of this column;
    /// `src` is left empty, its values now owned here. Absent slots of a
    /// sparse column move as the uninitialised bytes they are.
    ///
    /// # Safety
    /// Both columns hold the same component type (made from the same
    /// `ComponentInfo`).
    #[cfg_attr(not(feature = "serde"), allow(dead_code, reason = "used by loading saves"))]
    pub(crate) unsafe fn append_moved(&mut self, src: &mut Column) {
        // SAFETY: the same type (caller).
        unsafe { self.append_bits(src) };
        // The values are owned here now: a bitwise copy followed by forgetting
        // the source is a move, so `src` must not drop them.
        src.len = 0;
    }

    /// Empties the column without dropping its values.
    ///
    /// # Safety
    /// Every value was moved out (the column no longer owns any).
    #[cfg_attr(not(feature = "serde"), allow(dead_code, reason = "used by loading saves"))]
    pub(crate) unsafe fn forget_rows(&mut self) {
        self.len = 0;
    }

    /// Gives every present row the ticks `ticks` yields, in order (a load's
    /// saved ticks; `added` is never made absent), or `now` when `ticks` runs
    /// out; the summary becomes the newest of them as seen from `now`.
    #[cfg_attr(not(feature = "serde"), allow(dead_code, reason = "used by loading saves"))]
    pub(crate) fn load_ticks(&mut self, ticks: impl Iterator<Item = ComponentTicks>, now: Tick) {
        self.load_tick_runs(ticks.map(|pair| (1, pair)), now);
    }

    /// [`load_ticks`](Self::load_ticks) from runs: `(n, pair)` gives the next
    /// `n` present rows the ticks `pair`.
    #[cfg_attr(not(feature = "serde"), allow(dead_code, reason = "used by loading saves"))]
    pub(crate) fn load_tick_runs(&mut self, runs: impl Iterator<Item = (usize, ComponentTicks)>, now: Tick) {
        if !self.keeps_ticks {
            return;
        }
        let (mut add, mut change) = (None::<Tick>, None::<Tick>);
        let newer = |a: Option<Tick>, b: Tick| match a {
            Some(a) if now.get().wrapping_sub(a.get()) <= now.get().wrapping_sub(b.get()) => Some(a),
            _ => Some(b),
        };
        let mut row = 0;
        let fill = ComponentTicks::new(now);
        for (mut length, pair) in runs.chain(core::iter::once((usize::MAX, fill))) {
            let pair = ComponentTicks { added: pair.added.stamp(), changed: pair.changed };
            let mut wrote = false;
            while length > 0 && row < self.len {
                // SAFETY: `row < len`.
                if unsafe { self.is_present(row) } {
                    // SAFETY: `row < len`, so its tick slot is allocated and written.
                    unsafe { self.ticks.add(row).write(pair) };
                    length -= 1;
                    wrote = true;
                }
                row += 1;
            }
            if wrote {
                add = newer(add, pair.added);
                change = newer(change, pair.changed);
            }
            if row == self.len {
                break;
            }
        }
        *self.summary.add.get_mut() = add.map_or(0, Tick::get);
        *self.summary.change.get_mut() = change.map_or(0, Tick::get);
    }

    /// Takes `src`'s summary (`replace`), or keeps the newer of the two halves.
    pub(super) fn merge_summary(&mut self, src: &Column, replace: bool) {
        let newer = |a: u32, b: u32| if replace || b.wrapping_sub(a) < 1 << 31 { b } else { a };
        let (add, change) = (src.last_add().get(), src.last_change().get());
        *self.summary.add.get_mut() = newer(*self.summary.add.get_mut(), add);
        *self.summary.change.get_mut() = newer(*self.summary.change.get_mut(), change);
    }

    /// Exchanges rows, allocations and summaries with `other` (a saved column of
    /// the same component); each keeps its own `track_changes` flag.
    pub(crate) fn swap_contents(&mut self, other: &mut Column) {
        debug_assert!(self.item == other.item && self.occupancy == other.occupancy);
        debug_assert!(self.keeps_ticks == other.keeps_ticks);
        let (mine, theirs) = (self.track_changes.load(Ordering::Relaxed), other.track_changes.load(Ordering::Relaxed));
        core::mem::swap(self, other);
        self.track_changes.store(mine, Ordering::Relaxed);
        other.track_changes.store(theirs, Ordering::Relaxed);
    }

    /// Empties a sparse column (dropping its values, panics deferred) and gives it
    /// `rows` absent rows.
    pub(crate) fn reset_absent(&mut self, rows: usize, panic: &mut DeferredPanic) {
        self.clear(panic);
        self.push_absent_rows(rows);
    }

    /// Appends `rows` absent rows to a sparse column.
    ///
    /// # Panics
    /// When the column is not sparse (a full column has no absent rows).
    pub(crate) fn push_absent_rows(&mut self, rows: usize) {
        assert!(self.is_sparse(), "only a sparse column has absent rows");
        self.grow_to(self.len.checked_add(rows).expect("column capacity overflow"));
        for _ in 0..rows {
            // SAFETY: grown to hold the rows; the column is sparse (asserted).
            unsafe { self.push_absent() };
        }
    }
}
