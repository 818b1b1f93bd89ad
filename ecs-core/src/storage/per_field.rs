//! The arrays of a per-field [`Column`](super::Column): one *lane* per field of
//! a `#[component(layout = "soa")]` component.
//!
//! ```text
//!  value:    Particle { x, y, vx, vy }      (whole, as it moves in and out)
//!  lane 0:   [ x0 | x1 | x2 | .. ]          capacity * size_of(x), 64-aligned
//!  lane 1:   [ y0 | y1 | y2 | .. ]
//!  lane 2:   [ vx0 | vx1 | .. ]
//! ```
//! Row `r` of the value is field `i`'s bytes at `lane i + r * size_i`. A value
//! moving in is *scattered* (each field's bytes copied to its lane), one moving
//! out *gathered* into the column's staging room (two whole values: one moving,
//! one being cloned into), where drop, clone and take see a whole value. Padding
//! bytes of the value are in no lane; they stay uninitialised, as padding may.
//! Every lane grows like any column array (see [`growth`](super::growth)).

use core::alloc::Layout;
use core::ptr::NonNull;

use super::array::{array_layout, copy_item, dealloc_array, realloc_array};

/// Where one field of a per-field component sits in the whole value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct FieldColumn {
    /// Byte offset of the field in the value (`core::mem::offset_of!`).
    pub offset: usize,
    /// The field's layout (`Layout::new::<F>()`).
    pub layout: Layout,
}

impl FieldColumn {
    /// The field at `offset` of layout `layout`.
    pub const fn new(offset: usize, layout: Layout) -> Self {
        Self { offset, layout }
    }
}

/// Lanes start on a cache line, so that a loop over one field can use aligned
/// vector loads from the first row.
const LANE_ALIGN: usize = 64;

/// The lanes and staging room of a per-field column.
pub(crate) struct Lanes {
    fields: &'static [FieldColumn],
    /// Base of each field's array; dangling (aligned) while unallocated and for
    /// zero-sized fields.
    bases: Box<[NonNull<u8>]>,
    /// Room for two whole values, each `value.size()` bytes, `value.align()`-aligned.
    staging: Room,
    value: Layout,
    /// The row whose value [`Column::push_slot`](super::Column) left in staging
    /// slot 0, to be scattered by [`settle`](Self::settle).
    pub(crate) pending: Option<usize>,
}

impl Lanes {
    /// Empty lanes for `fields` of values of layout `value`.
    pub(crate) fn new(fields: &'static [FieldColumn], value: Layout) -> Self {
        let bases = fields.iter().map(|f| dangling(lane_layout(f))).collect();
        let two = Layout::from_size_align(value.size().checked_mul(2).expect("two values fit"), value.align())
            .expect("two values fit");
        let staging = Room::new(two);
        Self { fields, bases, staging, value, pending: None }
    }

    /// Empty lanes for the same fields.
    pub(crate) fn empty_like(&self) -> Self {
        Self::new(self.fields, self.value)
    }

    /// Each field's base pointer.
    #[inline]
    pub(crate) fn bases(&self) -> &[NonNull<u8>] {
        &self.bases
    }

    /// Staging slot `slot` (0 or 1): room for one whole value.
    #[inline]
    pub(crate) fn staging(&self, slot: usize) -> NonNull<u8> {
        debug_assert!(slot < 2);
        // SAFETY: the staging room holds two values (made in `new`), or is a
        // dangling aligned pointer for zero-sized ones, where the offset is 0.
        unsafe { self.staging.ptr.add(slot * self.value.size()) }
    }

    /// Grows every lane from `old` to `new` rows.
    pub(crate) fn grow(&mut self, old: usize, new: usize) {
        // Every lane's new size first, so that an overflow panics before any
        // lane has grown (the column's capacity must describe all of them).
        for field in self.fields {
            array_layout(lane_layout(field), new);
        }
        for (base, field) in self.bases.iter_mut().zip(self.fields) {
            if field.layout.size() != 0 {
                // SAFETY: each lane holds `old` items of its layout, allocated here
                // (or dangling while `old == 0`); `new > old` (the column's check).
                *base = unsafe { realloc_array(*base, lane_layout(field), old, new) };
            }
        }
    }

    /// Frees every lane of `capacity` rows.
    pub(crate) fn free(&mut self, capacity: usize) {
        for (base, field) in self.bases.iter().zip(self.fields) {
            if field.layout.size() != 0 {
                // SAFETY: the lane holds `capacity` items of its layout, allocated
                // by `grow` (or `capacity == 0`).
                unsafe { dealloc_array(*base, lane_layout(field), capacity) };
            }
        }
    }

    /// Field `i`'s slot in `row`.
    #[inline(always)]
    fn at(&self, i: usize, row: usize) -> *mut u8 {
        self.bases[i].as_ptr().wrapping_add(row * self.fields[i].layout.size())
    }

    /// Copies each field of the value at `src` into `row`.
    ///
    /// # Safety
    /// `src` is valid for reading a whole value; `row` is below the capacity.
    pub(crate) unsafe fn scatter(&self, src: *const u8, row: usize) {
        for (i, field) in self.fields.iter().enumerate() {
            // SAFETY: the field lies within the value (checked at registration);
            // the slot is within the lane (caller); value and lane never overlap.
            unsafe { copy_item(src.add(field.offset), self.at(i, row), field.layout.size()) };
        }
    }

    /// Copies each field of `row` into place in the value at `dst`.
    ///
    /// # Safety
    /// `dst` is valid for writing a whole value; `row` is below the capacity.
    pub(crate) unsafe fn gather(&self, row: usize, dst: *mut u8) {
        for (i, field) in self.fields.iter().enumerate() {
            // SAFETY: as in `scatter`, the other way.
            unsafe { copy_item(self.at(i, row), dst.add(field.offset), field.layout.size()) };
        }
    }

    /// Copies `row` of `self` into row `to` of `dst`.
    ///
    /// # Safety
    /// Both have the same fields; `row` and `to` are below their capacities.
    pub(crate) unsafe fn copy_row(&self, row: usize, dst: &Lanes, to: usize) {
        for (i, field) in self.fields.iter().enumerate() {
            // SAFETY: in bounds (caller); two columns' lanes never overlap.
            unsafe { copy_item(self.at(i, row), dst.at(i, to), field.layout.size()) };
        }
    }

    /// Copies row `from` over row `to`.
    ///
    /// # Safety
    /// Distinct rows below the capacity.
    pub(crate) unsafe fn move_row(&self, from: usize, to: usize) {
        for (i, field) in self.fields.iter().enumerate() {
            // SAFETY: distinct rows, in bounds (caller).
            unsafe { copy_item(self.at(i, from), self.at(i, to), field.layout.size()) };
        }
    }

    /// Appends `rows` rows of `src` (from row 0) at row `start`.
    ///
    /// # Safety
    /// Both have the same fields; `src` has `rows` rows; `start + rows` is within
    /// this column's capacity.
    pub(crate) unsafe fn append(&self, src: &Lanes, start: usize, rows: usize) {
        for (i, field) in self.fields.iter().enumerate() {
            // SAFETY: in bounds of both lanes (caller); distinct allocations.
            unsafe { core::ptr::copy_nonoverlapping(src.at(i, 0), self.at(i, start), rows * field.layout.size()) };
        }
    }
}

/// Uninitialised room for values of a layout, freed (never dropped) with it:
/// a per-field column's staging room, and the copy `Column::with_row` reads.
pub(super) struct Room {
    pub(super) ptr: NonNull<u8>,
    layout: Layout,
}

impl Room {
    pub(super) fn new(layout: Layout) -> Self {
        if layout.size() == 0 {
            return Self { ptr: dangling(layout), layout };
        }
        // SAFETY: a non-zero size (checked above).
        let ptr = NonNull::new(unsafe { std::alloc::alloc(layout) })
            .unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        Self { ptr, layout }
    }
}

impl Drop for Room {
    fn drop(&mut self) {
        if self.layout.size() != 0 {
            // SAFETY: allocated in `new` with this layout.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) };
        }
    }
}

/// One lane item: the field's size, aligned for vectors.
fn lane_layout(field: &FieldColumn) -> Layout {
    Layout::from_size_align(field.layout.size(), field.layout.align().max(LANE_ALIGN))
        .expect("a field's layout is valid")
}

/// A non-null pointer aligned for `layout`, for empty arrays and zero-sized rooms.
pub(super) fn dangling(layout: Layout) -> NonNull<u8> {
    NonNull::new(core::ptr::without_provenance_mut::<u8>(layout.align())).expect("alignment is non-zero")
}
