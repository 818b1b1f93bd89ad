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

use super::lanes::{Lanes, Room, dangling};
use super::{DeferredPanic, OwningPtr, Ptr, PtrMut, defer_panic, growth};
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

    /// Marks "no value" in a tag column's `added` tick. Never a stamp: see
    /// [`stamp`](Self::stamp).
    pub(crate) const ABSENT: Tick = Tick(0);

    /// This tick as a stamp for a present value: never [`ABSENT`](Self::ABSENT), even
    /// when the world's tick has wrapped around to 0.
    #[inline]
    pub(crate) const fn stamp(self) -> Tick {
        if self.0 == 0 { Tick(1) } else { self }
    }

    /// `true` when this tick is after `last_run` and not after `this_run`. Ticks
    /// wrap around; comparing ages relative to `this_run` keeps the answer right as
    /// long as both are less than 2^32 ticks old, which the world ensures by
    /// clamping old ticks (see [`MAX_CHANGE_AGE`]).
    #[inline]
    pub const fn is_newer_than(self, last_run: Tick, this_run: Tick) -> bool {
        let age = this_run.0.wrapping_sub(self.0);
        let since_last_run = this_run.0.wrapping_sub(last_run.0);
        age < since_last_run
    }
}

/// How many ticks may pass between two [`World::check_change_ticks`] passes for
/// change detection to stay exact. The world runs the pass itself once this many
/// ticks have passed, at the start of a [`Schedule`] run or of a query run on
/// `&mut World`.
///
/// [`World::check_change_ticks`]: crate::World::check_change_ticks
/// [`Schedule`]: crate::system::Schedule
pub const CHECK_TICK_THRESHOLD: u32 = 518_400_000;

/// The oldest a stored tick (or a query's "last run") is allowed to look. Older
/// ones are clamped to this age, so that with a check every
/// [`CHECK_TICK_THRESHOLD`] ticks no age ever exceeds `u32::MAX` and wraps around
/// into looking new. (A query that has not run for this long sees only the
/// changes of the last `MAX_CHANGE_AGE` ticks.)
pub const MAX_CHANGE_AGE: u32 = u32::MAX - (2 * CHECK_TICK_THRESHOLD - 1);

impl Tick {
    /// This tick, or `now - MAX_CHANGE_AGE` when it is older than that.
    #[inline]
    pub(crate) const fn clamp_age(self, now: Tick) -> Tick {
        if now.0.wrapping_sub(self.0) > MAX_CHANGE_AGE { Tick(now.0.wrapping_sub(MAX_CHANGE_AGE)) } else { self }
    }
}

/// When a row was added and when it was last changed.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
#[repr(C, align(8))]
pub struct ComponentTicks {
    /// When the value was added to its entity.
    pub added: Tick,
    /// When the value was last written through a mutable access.
    pub changed: Tick,
}

impl ComponentTicks {
    /// Both ticks at `tick`: a value just added.
    #[inline]
    pub const fn new(tick: Tick) -> Self {
        Self { added: tick, changed: tick }
    }
}

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
    drop: Option<unsafe fn(OwningPtr<'_>)>,
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

/// Which rows of a [`Column`] below its length hold a value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Occupancy {
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
// SAFETY: as above; shared access only hands out shared pointers, and only
// reads (a per-field column's staging room and lanes are written only through
// `&mut self`; `with_row` gathers into a room of its own).
unsafe impl Sync for Column {}

impl core::fmt::Debug for Column {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Column").field("len", &self.len).field("item", &self.item).finish()
    }
}

impl Column {
    /// An empty column for values described by `info`.
    pub(crate) fn new(info: &ComponentInfo) -> Self {
        let mut column = Self::from_layout(info.layout(), info.drop_fn());
        column.occupancy = if info.is_sparse() { Occupancy::Marked } else { Occupancy::Full };
        column.keeps_ticks = info.is_sparse() || info.tracks_changes();
        if let Some(fields) = info.fields() {
            column.set_lanes(Lanes::new(fields, info.layout()));
        }
        column
    }

    /// Makes this (new, empty) column a per-field one, with `lanes`.
    fn set_lanes(&mut self, lanes: Lanes) {
        debug_assert!(self.capacity == 0 && !self.split);
        self.data = NonNull::from(Box::leak(Box::new(lanes))).cast();
        self.split = true;
    }

    /// The lanes of a per-field column.
    #[inline(always)]
    fn lanes(&self) -> Option<&Lanes> {
        // SAFETY: a split column's `data` is the boxed `Lanes` of `set_lanes`,
        // owned by the column and freed only by its drop.
        self.split.then(|| unsafe { self.data.cast::<Lanes>().as_ref() })
    }

    /// The lanes of a per-field column, mutably.
    #[inline(always)]
    fn lanes_mut(&mut self) -> Option<&mut Lanes> {
        // SAFETY: as in `lanes`; `&mut self` makes the borrow unique.
        self.split.then(|| unsafe { self.data.cast::<Lanes>().as_mut() })
    }

    /// An empty column for values of `item` layout, dropped with `drop`.
    pub(crate) fn from_layout(item: Layout, drop: Option<unsafe fn(OwningPtr<'_>)>) -> Self {
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
            split: false,
        }
    }

    /// `true` for the column of a per-field component (`#[component(layout =
    /// "soa")]`), whose fields each live in their own array: it hands out no
    /// pointer to a whole value ([`get`](Self::get) is `None`).
    #[inline]
    pub fn is_split(&self) -> bool {
        self.split
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

    /// `true` for the column of a sparse component or a tag, whose rows may be
    /// absent (see [`StorageType`](crate::StorageType)).
    #[inline]
    pub fn is_sparse(&self) -> bool {
        self.occupancy == Occupancy::Marked
    }

    /// Which rows hold a value.
    #[inline]
    pub fn occupancy(&self) -> Occupancy {
        self.occupancy
    }

    /// `true` when `row` is below the length and holds a value (always, below the
    /// length, in a [`Full`](Occupancy::Full) column).
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
    pub fn ticks(&self) -> &[ComponentTicks] {
        let len = if self.keeps_ticks { self.len } else { 0 };
        // SAFETY: `ticks` holds `len` initialised pairs when kept (dangling and
        // `len == 0` before the first allocation, a valid empty slice).
        unsafe { core::slice::from_raw_parts(self.ticks.as_ptr(), len) }
    }

    /// `false` for the table column of a component without change detection,
    /// which keeps no ticks.
    #[inline]
    pub fn keeps_ticks(&self) -> bool {
        self.keeps_ticks
    }

    /// `true` when mutable query passes must stamp the rows they hand out, because a
    /// `Changed` query watches this component.
    #[inline]
    pub fn tracks_changes(&self) -> bool {
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

    /// No row was changed after this tick (see `summary`).
    #[inline]
    pub fn last_change(&self) -> Tick {
        Tick::new(self.summary.change.load(Ordering::Relaxed))
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

    /// [`push_unchecked`](Self::push_unchecked) of a per-field column.
    ///
    /// # Safety
    /// As for `push_unchecked`.
    #[cold]
    #[inline(never)]
    unsafe fn push_split(&mut self, value: OwningPtr<'_>, tick: Tick) {
        // SAFETY: room and type (caller); the slot is staging slot 0, which
        // `settle` scatters at once.
        unsafe { copy_item(value.as_ptr(), self.push_slot(tick).as_ptr(), self.item.size()) };
        self.settle();
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

    /// [`push_slot`](Self::push_slot) of a per-field column: the row's slot is
    /// the staging room, which [`settle`](Self::settle) scatters.
    ///
    /// # Safety
    /// As for `push_slot`.
    #[cold]
    #[inline(never)]
    unsafe fn push_split_slot(&mut self, tick: Tick) -> NonNull<u8> {
        // SAFETY: forwarded.
        let row = unsafe { self.push_row(tick) };
        self.split_slot(row)
    }

    /// The staging slot a per-field column hands out for `row`, which
    /// [`settle`](Self::settle) scatters. Off the path of whole columns.
    #[cold]
    #[inline(never)]
    fn split_slot(&mut self, row: usize) -> NonNull<u8> {
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
    unsafe fn split_move_row(&mut self, from: usize, to: usize) {
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
    unsafe fn split_copy_row(&mut self, row: usize, dst: &mut Column, to: usize) {
        let (from, into) = (self.lanes(), dst.lanes());
        // SAFETY: forwarded; both columns of one component are split.
        unsafe { from.expect("a per-field column").copy_row(row, into.expect("a per-field column"), to) }
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
        // SAFETY: `row < len` (caller), so its tick slot is written.
        unsafe { self.slot_holds(row) }
    }

    /// [`is_present`](Self::is_present) for a slot whose tick is written, whatever
    /// the length says now (`clear` sets it to 0 before dropping).
    ///
    /// # Safety
    /// The tick slot of `row` is allocated and written.
    #[inline]
    unsafe fn slot_holds(&self, row: usize) -> bool {
        match self.occupancy {
            Occupancy::Full => true,
            // SAFETY: the tick slot is written (caller).
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
    pub fn get(&self, row: usize) -> Option<Ptr<'_>> {
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

    /// [`take_unchecked`](Self::take_unchecked) of a per-field column: the
    /// row's fields gathered into staging slot 0.
    ///
    /// # Safety
    /// As for `take_unchecked`.
    #[cold]
    #[inline(never)]
    unsafe fn split_take<'a>(&mut self, row: usize) -> OwningPtr<'a> {
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

    /// A shared pointer to a row's value.
    ///
    /// # Safety
    /// `row < self.len()` and the row holds a value (see [`holds`](Self::holds)).
    #[inline]
    pub(crate) unsafe fn get_unchecked(&self, row: usize) -> Ptr<'_> {
        debug_assert!(self.holds(row));
        // SAFETY: `row < len` (caller), so the pointer is in bounds and non-null.
        unsafe { Ptr::new(NonNull::new_unchecked(self.row_ptr(row))) }
    }

    /// A mutable pointer to a row's value, its ticks, and the column's "last
    /// changed" summary, for a [`Mut`](crate::Mut) to stamp when written.
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
        // SAFETY: `row < len` (caller), so the tick (when kept) and the value are
        // in bounds, and the value is an initialised `T` (caller: whole `T`s at
        // `T`'s stride from `data`); `&mut self` makes both borrows unique, and
        // they do not overlap (two allocations); the summary is shared,
        // atomically written.
        unsafe {
            (
                &mut *self.data.as_ptr().cast::<T>().add(row),
                self.keeps_ticks.then(|| &mut *self.ticks.as_ptr().add(row)),
                &self.summary.change,
            )
        }
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
                if self.keeps_ticks {
                    (*self.ticks.as_ptr().add(row)).changed = tick;
                    self.note_change(tick);
                }
                if let Some(drop) = self.drop {
                    defer_panic(panic, || drop(OwningPtr::new(old)));
                }
            }
            return;
        }
        // SAFETY: both pointers are valid for `size` bytes (a live row; an owned value)
        // and cannot overlap, since `value` is owned by the caller, not the column;
        // `row < len` keeps the tick write in bounds.
        unsafe {
            core::ptr::swap_nonoverlapping(value.as_ptr(), self.row_ptr(row), self.item.size());
            if self.keeps_ticks {
                (*self.ticks.as_ptr().add(row)).changed = tick;
                self.note_change(tick);
            }
        }
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
    pub(crate) unsafe fn swap_remove_forget(&mut self, row: usize) {
        if self.split {
            // SAFETY: forwarded.
            unsafe { self.split_swap_remove_forget(row) };
        } else {
            // SAFETY: forwarded; a whole column (checked).
            unsafe { self.swap_remove_forget_whole(row) };
        }
    }

    /// [`swap_remove_forget`](Self::swap_remove_forget) of a per-field column.
    ///
    /// # Safety
    /// As for `swap_remove_forget`.
    #[cold]
    #[inline(never)]
    unsafe fn split_swap_remove_forget(&mut self, row: usize) {
        debug_assert!(row < self.len);
        let last = self.len - 1;
        if row != last {
            // SAFETY: distinct live rows, in bounds.
            unsafe {
                self.split_move_row(last, row);
                if self.keeps_ticks {
                    self.ticks.add(row).write(self.ticks.add(last).read());
                }
            }
        }
        self.len = last;
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
        if row != last {
            // SAFETY: distinct live rows: in bounds, non-overlapping.
            unsafe {
                core::ptr::swap_nonoverlapping(self.row_ptr(last), self.row_ptr(row), self.item.size());
                if self.keeps_ticks {
                    self.ticks.add(row).write(self.ticks.add(last).read());
                }
            }
        }
        self.len = last;
        if let Some(drop) = self.drop.filter(|_| present) {
            // SAFETY: slot `last` (now past `len`, still allocated) holds the removed
            // value (present, checked above), which nothing else will read or drop.
            let value = unsafe { OwningPtr::new(NonNull::new_unchecked(self.row_ptr(last))) };
            // SAFETY: the value has this column's type.
            defer_panic(panic, || unsafe { drop(value) });
        }
    }

    /// [`swap_remove_drop`](Self::swap_remove_drop) of a per-field column: the
    /// value is gathered into staging, and dropped there once the column is
    /// consistent.
    ///
    /// # Safety
    /// `row < self.len()`; `present` says whether it holds a value.
    #[cold]
    #[inline(never)]
    unsafe fn swap_remove_drop_split(&mut self, row: usize, present: bool, panic: &mut DeferredPanic) {
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
            defer_panic(panic, || unsafe { drop(OwningPtr::new(value)) });
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

    /// [`swap_remove_into`](Self::swap_remove_into) of a per-field column.
    ///
    /// # Safety
    /// As for `swap_remove_into`.
    #[cold]
    #[inline(never)]
    unsafe fn split_swap_remove_into(&mut self, row: usize, dst: &mut Column, now: Tick) {
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
                // SAFETY: the tick slots of rows `0..len` stay allocated and written.
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
                    defer_panic(panic, || unsafe { drop(OwningPtr::new(value)) });
                    continue;
                }
                // SAFETY: rows `0..len` held live values; `len` is already 0, so each is
                // visited once, here, and never again.
                let value = unsafe { OwningPtr::new(NonNull::new_unchecked(self.row_ptr(row))) };
                // SAFETY: the value has this column's type.
                defer_panic(panic, || unsafe { drop(value) });
            }
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
        let last_change = self.last_change().clamp_age(now);
        *self.summary.add.get_mut() = last_add.get();
        *self.summary.change.get_mut() = last_change.get();
    }

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
    unsafe fn append_bits(&mut self, src: &Column) {
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
    pub(crate) unsafe fn cloned(&self, clone: crate::snapshot::CloneFn) -> Column {
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
    pub(crate) unsafe fn extend_cloned(&mut self, src: &Column, clone: crate::snapshot::CloneFn) {
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
                        clone(Ptr::new(into.staging(0)), into.staging(1));
                        into.scatter(into.staging(1).as_ptr(), to);
                    },
                    // SAFETY: the row holds a value of the type; `self` has room for
                    // row `to` (grown above), whose slot is uninitialised; `clone`
                    // writes a value of the type there (caller).
                    (None, None) => unsafe { clone(src.get_unchecked(row), NonNull::new_unchecked(self.row_ptr(to))) },
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
    fn merge_summary(&mut self, src: &Column, replace: bool) {
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
        super::resume_deferred(panic);
    }
}

/// Records in a column's "last changed" summary that a row was changed at
/// `now`, through a shared reference (a `Mut` or a parallel query pass).
///
/// Writers running side by side may hold different ticks (two systems writing
/// rows of one sparse column kept apart by filters); the summary must end at
/// the newest of them, so a tick only replaces an older one. "Older" is judged
/// by the wrapping distance: a summary a little ahead of `now` (less than 2^20
/// ticks: another system of the same run) is kept.
#[inline]
pub(crate) fn stamp_summary(summary: &AtomicU32, now: Tick) {
    const AHEAD: u32 = 1 << 20;
    let now = now.get();
    // The common case, every write after a run's first: already stamped.
    if summary.load(Ordering::Relaxed) == now {
        return;
    }
    let _ = summary.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |current| {
        (current.wrapping_sub(now) >= AHEAD).then_some(now)
    });
}

/// Writes `ComponentTicks::new(tick)` as one 8-byte store (a struct write compiles
/// to two 4-byte ones, which adds up on the spawn path).
///
/// # Safety
/// `dst` is valid for writing a `ComponentTicks`.
#[inline(always)]
unsafe fn write_ticks(dst: NonNull<ComponentTicks>, tick: Tick) {
    // Both halves hold the same tick, so the word is right whatever the byte order;
    // `ComponentTicks` is two `u32`s, 8-aligned, with no padding.
    let word = u64::from(tick.get()) * 0x1_0000_0001;
    // SAFETY: `dst` is valid and aligned for 8 bytes (caller; `align(8)`).
    unsafe { dst.cast::<u64>().write(word) };
}

/// Moves `size` bytes. Component values are mostly small, and a call to `memcpy`
/// with a run-time length costs more than the copy itself, so sizes up to 32 bytes
/// are copied with (possibly overlapping) unaligned word moves. The words are
/// `MaybeUninit`: padding bytes (and the unwritten slot of an absent sparse value)
/// are uninitialised, and reading them as integers would be undefined behaviour.
///
/// # Safety
/// `src` and `dst` are valid for `size` bytes and do not overlap.
#[inline(always)]
pub(super) unsafe fn copy_item(src: *const u8, dst: *mut u8, size: usize) {
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
const PAGE_ALIGNED_FROM: usize = 1024;
/// The granularity of the aliasing [`array_layout`] avoids: processors compare
/// the low 12 bits of a load's address with pending stores before the whole
/// address is known (x86 and most arm64 cores); it is also the smallest page,
/// where a mapped array starts.
const PAGE: usize = growth::MIN_PAGE;

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
/// query loop ran up to 1.2x slower depending on where its columns had landed.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::growth::MAPPED_FROM;
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
    fn small_copies_move_every_byte_for_every_size() {
        for size in 0..=80usize {
            let src: Vec<u8> = (0..size as u8).map(|b| b.wrapping_mul(37).wrapping_add(1)).collect();
            let mut dst = vec![0xAAu8; size + 2];
            // SAFETY: both buffers hold at least `size` bytes and are distinct.
            unsafe { copy_item(src.as_ptr(), dst.as_mut_ptr().add(1), size) };
            assert_eq!(&dst[1..=size], &src[..], "size {size}");
            assert_eq!((dst[0], dst[size + 1]), (0xAA, 0xAA), "size {size} wrote out of bounds");
        }
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
    fn arrays_of_a_kibibyte_or_more_start_on_a_page_and_keep_their_values() {
        // u16 rows: small arrays first (not aligned), then the growth that first
        // reaches `PAGE_ALIGNED_FROM` moves the rows to a page-aligned block, and
        // later ones keep that alignment, up to and past the mapped size.
        let mut column = Column::from_layout(Layout::new::<u16>(), None);
        let mut small = 0;
        for i in 0..(MAPPED_FROM / 2 + 1000) {
            push(&mut column, i as u16);
            let bytes = column.capacity() * 2;
            if bytes >= PAGE_ALIGNED_FROM {
                assert_eq!(column.data_ptr().as_ptr() as usize % PAGE, 0, "{bytes} bytes");
            } else {
                small += 1;
            }
        }
        assert!(small > 0, "some arrays were below the threshold");
        assert!((0..column.len()).all(|i| read::<u16>(&column, i) == i as u16));
        column.check_invariants().unwrap();
    }

    #[test]
    fn zero_sized_values_never_allocate() {
        let mut column = Column::from_layout(Layout::new::<()>(), None);
        for _ in 0..10_000 {
            push(&mut column, ());
        }
        assert_eq!(column.len(), 10_000);
        assert_eq!(column.data_ptr().as_ptr() as usize, 1, "no allocation for the values");
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
        unsafe { a.swap_remove_into(0, &mut b, Tick::new(1)) };
        assert_eq!(drops(), before);
        assert_eq!((a.len(), b.len()), (1, 1));
        drop((a, b));
        assert_eq!(drops() - before, 2);
    }
}
