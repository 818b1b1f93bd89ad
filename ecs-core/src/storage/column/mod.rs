//! [`Column`]: a type-erased, growable array of one component type, with a per-row
//! "added" and "changed" tick beside each value.
//!
//! ```text
//!  data:   [ v0 | v1 | v2 | .. | v(len-1) | (uninit) ... ]   capacity * size bytes
//!  ticks:  [ (added, changed) | .. ]                           capacity * 8 bytes
//! ```
//! Slots past `len` are uninitialised memory. Which rows below `len` hold a value is
//! the column's [`Occupancy`]: in a `Full` column (a table component's) every one
//! does; in a `Marked` column (a sparse component's or a tag's) a row whose `added`
//! tick is `Tick::ABSENT` holds none: its slot is uninitialised and never read or
//! dropped, and moves copy its bytes untyped. Every read of a value goes through
//! [`Column::holds`] (or a caller's promise that the row holds one). Both
//! arrays always have the same capacity (zero-sized values allocate only ticks). A
//! row's two ticks sit together so a move copies them as one 8-byte word. Removal
//! is always swap-remove: the last row moves into the hole, so rows stay contiguous.
//! Each operation that runs user code (a `Drop`) first makes the column consistent
//! (length updated, value out of the live range) and only then drops, catching a
//! panic so the caller can finish its own bookkeeping before resuming it.

use core::alloc::Layout;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use super::array::{copy_item, dealloc_array, realloc_array};
use super::per_field::{FieldColumn, Lanes, Room, dangling};
use super::tick::{ComponentTicks, Tick, write_ticks};
use super::{DropGlue, OwningPtr, Ptr, PtrMut, growth};
use crate::panics::{DeferredPanic, defer_panic};

mod bulk;
mod per_field;
mod remove;
#[cfg(test)]
mod tests;

/// A type-erased growable array of values of one layout.
pub struct Column {
    /// Aligned to `item.align()`; dangling (but aligned) while nothing is allocated,
    /// and always for zero-sized items.
    data: NonNull<u8>,
    /// `capacity` tick pairs; dangling while `capacity == 0`.
    ticks: NonNull<ComponentTicks>,
    len: usize,
    /// Slots allocated in `data` (if the item is sized) and `ticks`.
    capacity: usize,
    item: Layout,
    drop: Option<&'static DropGlue>,
    /// Whether some query watches this component with `Changed`: only then do
    /// mutable query passes stamp every row they hand out. Set through `&self`
    /// when such a query is made.
    track_changes: AtomicBool,
    /// Which rows below `len` hold a value; only those are read or dropped.
    occupancy: Occupancy,
    /// `false` for the table column of a component that opted out of change
    /// detection: `ticks` is never allocated, written or read. (A sparse column
    /// always keeps them: they say which rows are present.)
    keeps_ticks: bool,
    /// The newest `added` and `changed` ticks of any row (or newer): `Added`
    /// and `Changed` queries skip the column when they are not in their window.
    summary: Summary,
    /// Per run of [`RUN_ROWS`] rows, a "last changed" summary that writers of
    /// one row with the world to themselves (`world.get_mut` and the like)
    /// stamp instead of `summary.change`: a `Changed` query whose window
    /// `summary.change` is not in then reads only the runs stamped in it, so
    /// its cost follows the rows written, not the rows stored. Empty until
    /// such a writer needs it; it only grows. Invariant: every row's
    /// `changed` tick is no newer than `summary.change` or than its run's
    /// entry here (a row moved within the column takes its run's stamp along,
    /// a row moved into the column stamps `summary.change`).
    /// Boxed, so that a column without runs grows by one word only (a
    /// `Vec` is three).
    #[expect(clippy::box_collection, reason = "one word in every column, not three")]
    runs: Option<Box<Vec<AtomicU32>>>,
    /// `true` for the column of a `#[component(layout = "soa")]` component:
    /// `data` then points at a boxed [`Lanes`] (its per-field arrays), not at
    /// values. Kept in `data` rather than a field of its own so that a column
    /// stays within its size, the hot paths testing one byte beside the others.
    split: bool,
}

/// A column's newest `added` and `changed` ticks, side by side so that a push
/// (which sets both) is one store.
#[repr(C, align(8))]
struct Summary {
    add: AtomicU32,
    change: AtomicU32,
}

/// Rows per run of a column's change stamps (see `Column::runs`).
pub(crate) const RUN_ROWS: usize = 1 << RUN_SHIFT;
/// `log2(RUN_ROWS)`.
pub(crate) const RUN_SHIFT: u32 = 8;

/// The newer of two ticks, judged by the wrapping distance (ticks stay
/// within half the range of each other: `check_change_ticks` clamps them).
#[inline]
fn newer(a: u32, b: u32) -> u32 {
    if b.wrapping_sub(a) < 1 << 31 { b } else { a }
}

/// Which rows of a [`Column`] below its length hold a value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Occupancy {
    /// Every row: the column of a table component, which every entity of the
    /// archetype has.
    Full,
    /// Rows whose `added` tick is set; the others are absent, their slots
    /// uninitialised: the column of a sparse component or a tag.
    Marked,
}

// SAFETY: a column only ever holds values of a `Component` type, which is
// `Send + Sync`; the raw pointers are owned exclusively by the column.
unsafe impl Send for Column {}
// SAFETY: the values are `Sync` (as above). The column's own `&self` methods
// only read, except the change summary, the runs' change stamps and the
// `track_changes` flag, which are atomics (a per-field column's staging room and lanes are written only through
// `&mut self`; `with_row` gathers into a room of its own). Writes through
// `&Column` do happen elsewhere: queries, `Mut` and `stamp_rows` write values
// and ticks through the raw pointers `data_ptr`, `ticks_ptr`, `lane_bases` and
// `get_tracked_mut` hand out. Those are sound not because of this type but
// because of the access rules of whoever takes the pointers: a query writes
// only rows of components its `Access` holds exclusively (checked when a query
// state or system is built, and by the schedule before running systems side by
// side), and world methods write through `&mut World`. Two threads never
// touch the same row's value or ticks where one of them writes.
unsafe impl Sync for Column {}

impl core::fmt::Debug for Column {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Column").field("len", &self.len).field("item", &self.item).finish()
    }
}

impl Column {
    /// An empty column for values of `item` layout, dropped with `drop`: a
    /// sparse (or tag) one marks which rows hold a value; `keeps_ticks` is
    /// whether it keeps change ticks (a sparse column always does: they mark
    /// presence); with `fields`, each field lives in its own lane.
    pub(crate) fn new(
        item: Layout,
        drop: Option<&'static DropGlue>,
        sparse: bool,
        keeps_ticks: bool,
        fields: Option<&'static [FieldColumn]>,
    ) -> Self {
        let mut column = Self::from_layout(item, drop);
        column.occupancy = if sparse { Occupancy::Marked } else { Occupancy::Full };
        column.keeps_ticks = sparse || keeps_ticks;
        if let Some(fields) = fields {
            column.set_lanes(Lanes::new(fields, item));
        }
        column
    }

    /// An empty column for values of `item` layout, dropped with `drop`.
    pub(crate) fn from_layout(item: Layout, drop: Option<&'static DropGlue>) -> Self {
        let data = dangling(item);
        Self {
            data,
            ticks: NonNull::dangling(),
            len: 0,
            capacity: 0,
            item,
            drop,
            track_changes: AtomicBool::new(false),
            occupancy: Occupancy::Full,
            keeps_ticks: true,
            summary: Summary { add: AtomicU32::new(0), change: AtomicU32::new(0) },
            runs: None,
            split: false,
        }
    }

    /// `true` for the column of a per-field component (`#[component(layout =
    /// "soa")]`), whose fields each live in their own array: it hands out no
    /// pointer to a whole value ([`get`](Self::get) is `None`).
    #[inline]
    pub(crate) fn is_split(&self) -> bool {
        self.split
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
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// The layout of one value.
    #[inline]
    pub fn item_layout(&self) -> Layout {
        self.item
    }

    /// `true` for the column of a sparse component or a tag, whose rows may be
    /// absent (see [`StorageType`](crate::StorageType)).
    #[inline]
    pub fn is_sparse(&self) -> bool {
        self.occupancy == Occupancy::Marked
    }

    /// `true` when `row` is below the length and holds a value (always, below the
    /// length, in the column of a table component).
    #[inline]
    pub fn holds(&self, row: usize) -> bool {
        // SAFETY: checked `row < len`.
        row < self.len && unsafe { self.is_present(row) }
    }

    /// Pointer to row 0; rows follow at `item_layout().size()` strides.
    #[inline]
    pub(crate) fn data_ptr(&self) -> NonNull<u8> {
        self.data
    }

    /// When each live row was added and last changed (empty for a component
    /// without change detection).
    #[inline]
    #[cfg_attr(not(feature = "serde"), allow(dead_code, reason = "used by saving and loading"))]
    pub(crate) fn ticks(&self) -> &[ComponentTicks] {
        let len = if self.keeps_ticks { self.len } else { 0 };
        // SAFETY: `ticks` holds `len` initialised pairs when kept (dangling and
        // `len == 0` before the first allocation, a valid empty slice).
        unsafe { core::slice::from_raw_parts(self.ticks.as_ptr(), len) }
    }

    /// `false` for the table column of a component without change detection,
    /// which keeps no ticks.
    #[inline]
    pub(crate) fn keeps_ticks(&self) -> bool {
        self.keeps_ticks
    }

    /// `true` when mutable query passes must stamp the rows they hand out, because a
    /// `Changed` query watches this component.
    #[inline]
    pub(crate) fn tracks_changes(&self) -> bool {
        self.keeps_ticks && self.track_changes.load(Ordering::Relaxed)
    }

    /// Starts stamping mutable query passes (see [`tracks_changes`](Self::tracks_changes)).
    pub(crate) fn track_changes(&self) {
        self.track_changes.store(true, Ordering::Relaxed);
    }

    /// Pointer to row 0's ticks.
    #[inline]
    pub(crate) fn ticks_ptr(&self) -> NonNull<ComponentTicks> {
        self.ticks
    }

    /// No row was added after this tick (see `summary`).
    #[inline]
    pub fn last_add(&self) -> Tick {
        Tick::new(self.summary.add.load(Ordering::Relaxed))
    }

    /// No row was changed after this tick (see `summary` and `runs`).
    pub fn last_change(&self) -> Tick {
        let summary = self.summary.change.load(Ordering::Relaxed);
        Tick::new(self.runs().iter().fold(summary, |newest, run| newer(newest, run.load(Ordering::Relaxed))))
    }

    /// No row was changed after this tick, except in the runs whose own
    /// stamps say so (see [`runs`](Self::runs)).
    #[inline]
    pub(crate) fn last_change_outside_runs(&self) -> Tick {
        Tick::new(self.summary.change.load(Ordering::Relaxed))
    }

    /// Each run's "last changed" stamp (see the field): run `i` holds rows
    /// `i << RUN_SHIFT ..`; rows past the last run were never stamped there.
    #[inline]
    pub(crate) fn runs(&self) -> &[AtomicU32] {
        self.runs.as_deref().map_or(&[], Vec::as_slice)
    }

    /// Makes the runs reach `row`'s.
    #[inline(always)]
    fn reach_run(&mut self, row: usize) {
        if row >> RUN_SHIFT >= self.runs().len() {
            self.grow_runs(row);
        }
    }

    #[cold]
    #[inline(never)]
    fn grow_runs(&mut self, row: usize) {
        let count = (self.capacity.max(row + 1)).div_ceil(RUN_ROWS);
        self.runs.get_or_insert_default().resize_with(count, || AtomicU32::new(0));
    }

    /// A row moved from `from` to `to` within the column: its run's stamp
    /// goes along (see `runs`).
    #[inline(always)]
    fn run_follows(&mut self, from: usize, to: usize) {
        if self.runs.is_some() && from >> RUN_SHIFT != to >> RUN_SHIFT {
            self.run_follows_slow(from, to);
        }
    }

    #[cold]
    #[inline(never)]
    fn run_follows_slow(&mut self, from: usize, to: usize) {
        let Some(runs) = self.runs.as_deref_mut() else { return };
        let Some(stamp) = runs.get(from >> RUN_SHIFT).map(|run| run.load(Ordering::Relaxed)) else { return };
        // `to < from` (a swap-remove), so the runs reach it.
        if let Some(run) = runs.get_mut(to >> RUN_SHIFT) {
            *run.get_mut() = newer(*run.get_mut(), stamp);
        }
    }

    /// The "last changed" summary, for writers that stamp rows through `&self`.
    #[inline]
    pub(crate) fn last_change_cell(&self) -> &AtomicU32 {
        &self.summary.change
    }

    /// Records that a row was added (and so changed) at `tick`.
    #[inline(always)]
    fn note_add(&mut self, tick: Tick) {
        // Both halves hold the same tick: one 8-byte store, whatever the byte order.
        // SAFETY: `Summary` is two `u32`s in 8 aligned bytes (`repr(C, align(8))`),
        // and `&mut self` makes the access unique.
        unsafe { core::ptr::addr_of_mut!(self.summary).cast::<u64>().write(u64::from(tick.get()) * 0x1_0000_0001) };
    }

    /// Records that a row was changed at `tick`.
    #[inline(always)]
    fn note_change(&mut self, tick: Tick) {
        *self.summary.change.get_mut() = tick.get();
    }

    #[inline]
    fn row_ptr(&self, row: usize) -> *mut u8 {
        debug_assert!(!self.split, "a per-field column has no whole rows");
        // `row * size` stays inside the allocation for `row <= capacity`, which every
        // caller guarantees; for zero-sized items the offset is 0.
        self.data.as_ptr().wrapping_add(row * self.item.size())
    }

    /// Makes room for `additional` more values.
    ///
    /// # Panics
    /// When the byte size would overflow `isize::MAX`.
    #[inline]
    #[cfg_attr(not(feature = "serde"), allow(dead_code, reason = "used by loading saves"))]
    pub(crate) fn reserve(&mut self, additional: usize) {
        if self.capacity - self.len < additional {
            let required = self.len.checked_add(additional).expect("column capacity overflow");
            // The tick array is the widest for small or zero-sized values.
            let row_bytes = self.item.size().max(size_of::<ComponentTicks>());
            self.grow_to(growth::next_capacity(self.capacity, required, row_bytes));
        }
    }

    /// Grows the allocations to exactly `capacity` slots (no-op if already that large).
    #[cold]
    #[inline(never)]
    pub(crate) fn grow_to(&mut self, capacity: usize) {
        if capacity <= self.capacity {
            return;
        }
        let old = self.capacity;
        if let Some(lanes) = self.lanes_mut() {
            lanes.grow(old, capacity);
        } else if self.item.size() != 0 {
            // SAFETY: `data` holds `self.capacity` items of `item` (allocated by this
            // function before, or dangling when the capacity is 0).
            self.data = unsafe { realloc_array(self.data, self.item, self.capacity, capacity) };
        }
        if self.keeps_ticks {
            // SAFETY: the tick array holds `self.capacity` pairs, allocated here before.
            self.ticks = unsafe { realloc_array(self.ticks, Layout::new::<ComponentTicks>(), self.capacity, capacity) };
        }
        self.capacity = capacity;
    }

    /// Moves `value` in as a new last row, growing if needed.
    ///
    /// # Safety
    /// `value` must be a valid value of this column's type.
    #[inline]
    #[cfg_attr(not(feature = "serde"), allow(dead_code, reason = "used by loading saves"))]
    pub(crate) unsafe fn push(&mut self, value: OwningPtr<'_>, tick: Tick) {
        self.reserve(1);
        // SAFETY: room reserved above; the caller vouches for the value's type.
        unsafe { self.push_unchecked(value, tick) }
    }

    /// Moves `value` in as a new last row.
    ///
    /// # Safety
    /// `len < capacity`, and `value` is a valid value of this column's type.
    #[inline]
    pub(crate) unsafe fn push_unchecked(&mut self, value: OwningPtr<'_>, tick: Tick) {
        if self.split {
            // SAFETY: forwarded.
            return unsafe { self.push_split(value, tick) };
        }
        // SAFETY: the caller guarantees room and type; `push_slot`'s slot is then
        // initialised right here, by moving the owned value's bytes.
        unsafe { copy_item(value.as_ptr(), self.push_slot(tick).as_ptr(), self.item.size()) };
    }

    /// Appends a row and returns its uninitialised slot, which the caller must fill
    /// before the column is used again. In a per-field column the slot is the
    /// staging room, and the caller must [`settle`](Self::settle) once it is written.
    ///
    /// # Safety
    /// `len < capacity`, and the caller writes a valid value of this column's type to
    /// the returned pointer before any other use of the column (or its drop), then
    /// calls `settle` (for a per-field column).
    #[inline(always)]
    pub(crate) unsafe fn push_slot(&mut self, tick: Tick) -> NonNull<u8> {
        if self.split {
            // SAFETY: forwarded.
            unsafe { self.push_split_slot(tick) }
        } else {
            // SAFETY: forwarded; a whole column (checked).
            unsafe { self.push_slot_whole(tick) }
        }
    }

    /// [`push_slot`](Self::push_slot) of a column that is not per-field,
    /// without asking: the spawn of a bundle into an archetype without
    /// per-field columns keeps that test out of every component's write.
    ///
    /// # Safety
    /// As for `push_slot`, and the column is not [split](Self::is_split).
    #[inline(always)]
    unsafe fn push_slot_whole(&mut self, tick: Tick) -> NonNull<u8> {
        debug_assert!(!self.split);
        // SAFETY: `len < capacity` (caller).
        let row = unsafe { self.push_row(tick) };
        // SAFETY: in bounds of the allocation (or dangling-but-aligned for ZSTs).
        unsafe { NonNull::new_unchecked(self.row_ptr(row)) }
    }

    /// Appends a row's ticks (added and changed at `tick`) and returns the row,
    /// whose value slot the caller fills: the part of a push both layouts share.
    ///
    /// # Safety
    /// `len < capacity`.
    #[inline(always)]
    unsafe fn push_row(&mut self, tick: Tick) -> usize {
        debug_assert!(self.len < self.capacity);
        let row = self.len;
        if self.keeps_ticks {
            // SAFETY: `row < capacity` (caller), so the tick slot is allocated.
            unsafe { write_ticks(self.ticks.add(row), tick.stamp()) };
            self.note_add(tick.stamp());
        }
        self.len = row + 1;
        row
    }

    /// The slot of `row`, past the length, for a batch that writes several
    /// rows before counting them ([`commit_rows`](Self::commit_rows)).
    ///
    /// # Safety
    /// The column is not [split](Self::is_split), and `row < capacity`.
    #[inline(always)]
    pub(crate) unsafe fn spare_slot(&self, row: usize) -> NonNull<u8> {
        debug_assert!(!self.split && row < self.capacity);
        // SAFETY: in bounds of the allocation (caller), or dangling-but-aligned
        // for zero-sized items.
        unsafe { NonNull::new_unchecked(self.row_ptr(row)) }
    }

    /// Counts the `rows` slots past the length as pushed at `tick`, as that many
    /// [`push_slot`](Self::push_slot)s would.
    ///
    /// # Safety
    /// The column is not [split](Self::is_split), `len + rows <= capacity`, and
    /// each of those slots holds a value of the column's type.
    #[inline]
    pub(crate) unsafe fn commit_rows(&mut self, rows: usize, tick: Tick) {
        debug_assert!(!self.split && self.len + rows <= self.capacity);
        if self.keeps_ticks && rows > 0 {
            let stamp = tick.stamp();
            for row in self.len..self.len + rows {
                // SAFETY: `row < capacity` (caller), so the tick slot is allocated.
                unsafe { write_ticks(self.ticks.add(row), stamp) };
            }
            self.note_add(stamp);
        }
        self.len += rows;
    }

    /// Appends a row marked absent: the row's entity lacks this sparse component.
    /// The slot stays uninitialised; presence is the `added` tick.
    ///
    /// # Safety
    /// `len < capacity`, and the column is sparse.
    #[inline]
    pub(crate) unsafe fn push_absent(&mut self) {
        debug_assert!(self.len < self.capacity && self.is_sparse());
        // SAFETY: `len < capacity` (caller), so the tick slot is allocated.
        unsafe { self.ticks.add(self.len).write(ComponentTicks::new(Tick::ABSENT)) };
        self.len += 1;
    }

    /// `true` when the row holds a value: always in a `Full` column, where its
    /// `added` tick is set in a `Marked` one.
    ///
    /// # Safety
    /// `row < self.len()`.
    #[inline]
    pub(crate) unsafe fn is_present(&self, row: usize) -> bool {
        debug_assert!(row < self.len);
        // SAFETY: `row < len` (caller). A `Marked` column always keeps ticks
        // (`new`), and every row below its length has its tick slot written.
        unsafe { self.slot_holds(row) }
    }

    /// [`is_present`](Self::is_present) for a slot whose tick is written, whatever
    /// the length says now (`clear` sets it to 0 before dropping). A `Full`
    /// column reads no tick (it may keep none: a component with change
    /// detection turned off).
    ///
    /// # Safety
    /// When the column is `Marked` (which always keeps ticks), the tick slot of
    /// `row` is allocated and written.
    #[inline]
    unsafe fn slot_holds(&self, row: usize) -> bool {
        match self.occupancy {
            Occupancy::Full => true,
            // SAFETY: the column is `Marked`, so the tick slot is written (caller).
            Occupancy::Marked => unsafe { (*self.ticks.as_ptr().add(row)).added != Tick::ABSENT },
        }
    }

    /// Stores `value` in a sparse column's row: if the row holds a value, it is
    /// replaced (changed at `tick`, the old value dropped, a panic deferred as in
    /// [`replace`](Self::replace)); otherwise the slot is filled and marked added
    /// and changed at `tick`.
    ///
    /// # Safety
    /// `row < self.len()`, the column is sparse, and `value` is an owned value of
    /// the column's type, which the column takes over.
    #[inline]
    pub(crate) unsafe fn put(&mut self, row: usize, value: OwningPtr<'_>, tick: Tick, panic: &mut DeferredPanic) {
        debug_assert!(row < self.len && self.is_sparse());
        // SAFETY: `row < len` (caller).
        if unsafe { self.is_present(row) } {
            // SAFETY: a present row holds a live value of the column's type (caller).
            unsafe { self.replace(row, value, tick, panic) };
            return;
        }
        // SAFETY: the absent slot is allocated and uninitialised; the owned value is
        // moved into it (scattered, for a per-field column, by `settle`), and the
        // tick slot is in bounds.
        unsafe {
            copy_item(value.as_ptr(), self.fill_absent(row, tick).as_ptr(), self.item.size());
        }
        self.settle();
    }

    /// Marks an absent row of a sparse column present (added and changed at
    /// `tick`) and returns its slot, for the caller to write the value into.
    ///
    /// # Safety
    /// `row < self.len()`, the column is sparse, the row is absent, and the caller
    /// initialises the slot with a value of the column's type before the column is
    /// used again, then calls [`settle`](Self::settle) (for a per-field column).
    #[inline]
    pub(crate) unsafe fn fill_absent(&mut self, row: usize, tick: Tick) -> NonNull<u8> {
        debug_assert!(row < self.len && self.is_sparse());
        // SAFETY: `row < len` (caller): the tick slot and the value slot are in
        // bounds of their allocations.
        unsafe {
            debug_assert!(!self.is_present(row));
            self.ticks.add(row).write(ComponentTicks::new(tick.stamp()));
            self.note_add(tick.stamp());
            if let Some(lanes) = self.lanes_mut() {
                lanes.pending = Some(row);
                return lanes.staging(0);
            }
            NonNull::new_unchecked(self.row_ptr(row))
        }
    }

    /// Marks a sparse column's row absent without dropping its value: the caller
    /// has moved the value out (or it is a tag, which has none).
    ///
    /// # Safety
    /// `row < self.len()`, the column is sparse, and the row's value is no longer
    /// owned by the column.
    #[inline]
    pub(crate) unsafe fn set_absent(&mut self, row: usize) {
        debug_assert!(row < self.len);
        // SAFETY: `row < len` (caller).
        unsafe { self.ticks.add(row).write(ComponentTicks::new(Tick::ABSENT)) };
    }

    /// A shared pointer to a row's value; `None` past the end, for a row that
    /// holds no value (see [`holds`](Self::holds)), and in a per-field column
    /// (see [`is_split`](Self::is_split)), whose values are not stored whole.
    #[inline]
    #[cfg_attr(not(feature = "serde"), allow(dead_code, reason = "used by saving and loading"))]
    pub(crate) fn get(&self, row: usize) -> Option<Ptr<'_>> {
        // SAFETY: `holds` checked that the row is below the length and holds a live
        // value, which stays borrowed as long as `self`; the column stores whole
        // values (checked).
        (!self.split && self.holds(row)).then(|| unsafe { Ptr::new(NonNull::new_unchecked(self.row_ptr(row))) })
    }

    /// Calls `f` with a row's value (`None` where [`holds`](Self::holds) is
    /// false). A per-field column gathers the fields into a temporary whole
    /// value for `f` to read; it is a bitwise copy, never dropped.
    pub(crate) fn with_row<R>(&self, row: usize, f: impl FnOnce(Ptr<'_>) -> R) -> Option<R> {
        if !self.holds(row) {
            return None;
        }
        let Some(lanes) = self.lanes() else {
            // SAFETY: the row holds a value (checked), in place.
            return Some(f(unsafe { Ptr::new(NonNull::new_unchecked(self.row_ptr(row))) }));
        };
        let room = Room::new(self.item);
        // SAFETY: `room` holds one value; `row < len`.
        unsafe { lanes.gather(row, room.ptr.as_ptr()) };
        // SAFETY: `room` now holds a bitwise copy of the row's value, which lives
        // (in the lanes) for the whole call; `room` is freed without a drop.
        Some(f(unsafe { Ptr::new(room.ptr) }))
    }

    /// Calls `f` with a row's value, mutably (`None` where [`holds`](Self::holds)
    /// is false). A per-field column gathers the fields into its staging room,
    /// and scatters them back after `f`, also when `f` panics: what `f` did to
    /// the value (a field replaced, the old one dropped) is then the row's.
    #[cfg_attr(not(feature = "serde"), allow(dead_code, reason = "used by loading saves"))]
    pub(crate) fn with_row_mut<R>(&mut self, row: usize, f: impl FnOnce(PtrMut<'_>) -> R) -> Option<R> {
        if !self.holds(row) {
            return None;
        }
        let Some(lanes) = self.lanes() else {
            // SAFETY: the row holds a value (checked), and `&mut self` makes the
            // pointer unique.
            return Some(f(unsafe { PtrMut::new(NonNull::new_unchecked(self.row_ptr(row))) }));
        };
        /// Scatters the staged value back over its row when dropped, so that
        /// a panic in `f` unwinds through it too.
        struct ScatterBack<'a> {
            lanes: &'a Lanes,
            room: NonNull<u8>,
            row: usize,
        }
        impl Drop for ScatterBack<'_> {
            fn drop(&mut self) {
                // SAFETY: `room` holds the row's value, gathered below and valid
                // after any safe use of `&mut` to it (unwinding included); the
                // row is below the length.
                unsafe { self.lanes.scatter(self.room.as_ptr(), self.row) };
            }
        }
        let room = lanes.staging(1);
        // SAFETY: the staging slot holds one value; `row < len`. `f` gets the
        // only pointer to the copy, which `back` moves over the row afterwards:
        // the row's fields are never read or dropped in between.
        unsafe {
            lanes.gather(row, room.as_ptr());
            let back = ScatterBack { lanes, room, row };
            let out = f(PtrMut::new(room));
            drop(back);
            Some(out)
        }
    }

    /// A shared pointer to a row's value.
    ///
    /// # Safety
    /// `row < self.len()`, the row holds a value (see [`holds`](Self::holds)),
    /// and the column stores whole values (not [split](Self::is_split) into
    /// per-field lanes: there `data` points at the lanes, not at values).
    #[inline]
    pub(crate) unsafe fn get_unchecked(&self, row: usize) -> Ptr<'_> {
        debug_assert!(self.holds(row) && !self.split);
        // SAFETY: the column stores whole values and `row < len` (caller), so
        // the pointer is in bounds of the value array and non-null.
        unsafe { Ptr::new(NonNull::new_unchecked(self.row_ptr(row))) }
    }

    /// A mutable pointer to a row's value, its ticks, and its run's "last
    /// changed" stamp (see `runs`), for a [`Mut`](crate::Mut) to stamp when
    /// written.
    ///
    /// Typed, so the row's offset is a constant stride, not the column's item
    /// size read at run time.
    ///
    /// # Safety
    /// `row < self.len()`, the row holds a value (see [`holds`](Self::holds)),
    /// and the column stores whole `T`s (not per-field lanes).
    #[inline]
    pub(crate) unsafe fn get_tracked_mut<T>(
        &mut self,
        row: usize,
    ) -> (&mut T, Option<&mut ComponentTicks>, &AtomicU32) {
        debug_assert!(self.holds(row));
        debug_assert_eq!(self.item.size(), size_of::<T>());
        self.reach_run(row);
        // SAFETY: `row < len` (caller), so the tick (when kept) and the value are
        // in bounds, and the value is an initialised `T` (caller: whole `T`s at
        // `T`'s stride from `data`); `&mut self` makes both borrows unique, and
        // they do not overlap (two allocations); the run's stamp (reached above) is shared,
        // atomically written.
        unsafe {
            (
                &mut *self.data.as_ptr().cast::<T>().add(row),
                self.keeps_ticks.then(|| &mut *self.ticks.as_ptr().add(row)),
                &self.runs()[row >> RUN_SHIFT],
            )
        }
    }

    /// [`get_tracked_mut`](Self::get_tracked_mut) untyped and through a
    /// shared column: pointers to the row's value (or, for a per-field
    /// column, a dangling one and the lane bases: the row's field `i` is in
    /// lane `i`) and ticks, for views through the component's schema.
    ///
    /// # Safety
    /// `row < self.len()` and the row holds a value. Writing through the
    /// pointers also needs the column's write access (`&mut World`, or a query
    /// that writes the component run by a system) and that nothing else reads
    /// or writes the row's value or ticks meanwhile.
    #[inline(always)]
    #[expect(clippy::type_complexity, reason = "the parts of one row, named where used")]
    pub(crate) unsafe fn get_tracked_raw_shared(
        &self,
        row: usize,
    ) -> (NonNull<u8>, Option<&[NonNull<u8>]>, Option<NonNull<ComponentTicks>>, &AtomicU32) {
        debug_assert!(self.holds(row));
        let (value, bases) = match self.lane_bases() {
            Some(bases) => (NonNull::dangling(), Some(bases)),
            // SAFETY: `row < len` (caller), inside the value array.
            None => (unsafe { NonNull::new_unchecked(self.row_ptr(row)) }, None),
        };
        // The row's run where the runs reach it (they only grow through
        // `&mut self`), else the column's summary: either keeps `runs`'s
        // invariant.
        let summary = self.runs().get(row >> RUN_SHIFT).unwrap_or(&self.summary.change);
        // SAFETY: `row < len` (caller), so the tick (when kept) is in bounds.
        (value, bases, self.keeps_ticks.then(|| unsafe { self.ticks.add(row) }), summary)
    }

    /// Replaces the value in `row` with `value`, then drops the old value. A panic from
    /// that drop is caught into `panic`; the column holds the new value either way.
    ///
    /// # Safety
    /// `row < self.len()`, the row holds a value (see [`holds`](Self::holds)), and
    /// `value` is a valid value of this column's type.
    #[inline]
    pub(crate) unsafe fn replace(&mut self, row: usize, value: OwningPtr<'_>, tick: Tick, panic: &mut DeferredPanic) {
        debug_assert!(self.holds(row));
        if let Some(lanes) = self.lanes() {
            // The old value goes to staging, where it is dropped below.
            let old = lanes.staging(1);
            // SAFETY: `row < len` holds a value (caller), gathered whole into the
            // staging slot; the new value's fields then overwrite it in the lanes.
            // Both are owned: the caller forgets `value`, and `old` is dropped.
            unsafe {
                lanes.gather(row, old.as_ptr());
                lanes.scatter(value.as_ptr(), row);
                self.stamp_changed(row, tick);
                if let Some(drop) = self.drop {
                    defer_panic(panic, || drop.run(OwningPtr::new(old)));
                }
            }
            return;
        }
        // SAFETY: both pointers are valid for `size` bytes (a live row; an owned value)
        // and cannot overlap, since `value` is owned by the caller, not the column;
        // `row < len` keeps the tick write in bounds.
        unsafe {
            core::ptr::swap_nonoverlapping(value.as_ptr(), self.row_ptr(row), self.item.size());
            self.stamp_changed(row, tick);
        }
        if let Some(drop) = self.drop {
            // SAFETY: after the swap, `value`'s memory holds the old, owned value of
            // our type.
            defer_panic(panic, || unsafe { drop.run(value) });
        }
    }

    /// Drops the value in `row` in place (a panic of its drop kept in
    /// `panic`), stamps the row changed at `tick`, and returns its slot for
    /// the caller to write the new value into: a replace whose new value is
    /// written typed, not swapped in bytes.
    ///
    /// # Safety
    /// The column is not [split](Self::is_split), `row < self.len()` holds a
    /// value, and the caller writes a valid value of this column's type to the
    /// returned pointer before any other use of the column.
    #[inline]
    pub(crate) unsafe fn overwrite_slot(&mut self, row: usize, tick: Tick, panic: &mut DeferredPanic) -> NonNull<u8> {
        debug_assert!(!self.split && self.holds(row));
        // SAFETY: `row < len` (caller), in bounds of the allocation (or
        // dangling-but-aligned for zero-sized items).
        let slot = unsafe { NonNull::new_unchecked(self.row_ptr(row)) };
        if let Some(drop) = self.drop {
            // SAFETY: the slot holds an owned value of the column's type
            // (caller), dropped once here; a drop that panics has still ended
            // the value, and the caller's write makes the slot whole again.
            defer_panic(panic, || unsafe { drop.run(OwningPtr::new(slot)) });
        }
        // SAFETY: `row < len` (caller).
        unsafe { self.stamp_changed(row, tick) };
        slot
    }

    /// Records the value in `row` as changed at `tick` (nothing for a column
    /// that keeps no ticks).
    ///
    /// # Safety
    /// `row < self.len()`.
    #[inline(always)]
    unsafe fn stamp_changed(&mut self, row: usize, tick: Tick) {
        if self.keeps_ticks {
            // SAFETY: `row < len` (caller) keeps the tick write in bounds.
            unsafe { (*self.ticks.as_ptr().add(row)).changed = tick };
            self.note_change(tick);
        }
    }

    /// Clamps the ticks of every row holding a value to at most
    /// [`MAX_CHANGE_AGE`] before `now` (absent rows of a sparse column stay absent).
    pub(crate) fn clamp_ticks(&mut self, now: Tick) {
        if !self.keeps_ticks {
            return;
        }
        // SAFETY: `ticks` holds `len` initialised pairs (a valid empty slice while
        // unallocated), exclusively borrowed through `&mut self`.
        let ticks = unsafe { core::slice::from_raw_parts_mut(self.ticks.as_ptr(), self.len) };
        for row in ticks {
            if self.occupancy == Occupancy::Marked && row.added == Tick::ABSENT {
                continue;
            }
            // A present row's `added` tick must never read as `ABSENT`.
            row.added = row.added.clamp_age(now).stamp();
            row.changed = row.changed.clamp_age(now);
        }
        let last_add = self.last_add().clamp_age(now);
        let last_change = self.last_change_outside_runs().clamp_age(now);
        *self.summary.add.get_mut() = last_add.get();
        *self.summary.change.get_mut() = last_change.get();
        for run in self.runs.iter_mut().flat_map(|runs| runs.iter_mut()) {
            *run.get_mut() = Tick::new(*run.get_mut()).clamp_age(now).get();
        }
    }

    /// Checks the length against the capacity.
    pub(crate) fn check_invariants(&self) -> Result<(), String> {
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
        let capacity = self.capacity;
        if let Some(lanes) = self.lanes_mut() {
            lanes.free(capacity);
        }
        if self.split {
            // SAFETY: `data` is the box `set_lanes` leaked, dropped once, here.
            drop(unsafe { Box::from_raw(self.data.cast::<Lanes>().as_ptr()) });
        }
        // SAFETY: each array holds `capacity` items allocated by `grow_to`.
        unsafe {
            if self.item.size() != 0 && !self.split {
                dealloc_array(self.data, self.item, self.capacity);
            }
            if self.keeps_ticks {
                dealloc_array(self.ticks, Layout::new::<ComponentTicks>(), self.capacity);
            }
        }
        crate::panics::resume_deferred(panic);
    }
}
