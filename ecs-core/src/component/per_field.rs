//! Per-field components: `#[component(layout = "soa")]` stores each field of a
//! component in its own array, so that a loop over one field reads only that
//! field's bytes and vectorizes across entities.
//!
//! The derive implements [`PerField`] for such a type, with four views of it:
//! `TRef<'w>` and `TMut<'w>` (one reference per field, what a query over `&T` or
//! `&mut T` yields per row) and `TSlices<'w>` / `TSlicesMut<'w>` (one slice per
//! field, what chunk iteration yields). The views are built from the base
//! pointer of each field's array, looked up once per archetype.
//!
//! Whole values still move in and out as one: spawn, insert, remove, take,
//! despawn, snapshots, saves and hooks see a `T` assembled from (or split into)
//! its fields. What cannot exist is a `&T` into the world, so `world.get`,
//! `Ref<T>` and `Mut<T>` need [`WholeComponent`], which a per-field type lacks
//! (the compiler names the view to use instead).

use core::any::TypeId;
use core::marker::PhantomData;
use core::ops::Range;
use core::ptr::NonNull;

use super::Component;

pub use crate::storage::FieldColumn;

/// The fields of a per-field component, tied to the type they describe:
/// made only by [`FieldLayout::of`], for a type that implements the `unsafe`
/// trait [`PerField`].
#[derive(Clone, Copy, Debug)]
pub struct FieldLayout {
    type_id: fn() -> TypeId,
    fields: &'static [FieldColumn],
}

impl FieldLayout {
    /// The fields of `T`.
    pub fn of<T: PerField>() -> Self {
        Self { type_id: TypeId::of::<T>, fields: T::FIELDS }
    }

    /// The type this layout describes.
    pub fn type_id(&self) -> TypeId {
        (self.type_id)()
    }

    /// Each field, in declaration order.
    pub fn fields(&self) -> &'static [FieldColumn] {
        self.fields
    }
}

/// The base pointer of one field's array, by value: a [`PerField::Lanes`] is a
/// struct of these, one per field, which a fetch keeps in registers.
pub struct LanePtr<F>(NonNull<F>);

impl<F> LanePtr<F> {
    /// Wraps a base pointer.
    ///
    /// # Safety
    /// `ptr` points at an array of `F` that outlives every use of the lane.
    #[inline(always)]
    pub unsafe fn new(ptr: NonNull<u8>) -> Self {
        Self(ptr.cast())
    }

    /// The field of `row`.
    ///
    /// # Safety
    /// `row` is within the array, and no `&mut` to it is live for `'w`.
    #[inline(always)]
    pub unsafe fn get<'w>(self, row: usize) -> &'w F {
        // SAFETY: in bounds and not mutably borrowed (caller).
        unsafe { self.0.add(row).as_ref() }
    }

    /// The field of `row`, mutably.
    ///
    /// # Safety
    /// `row` is within the array, and no other reference to it is live for `'w`.
    #[inline(always)]
    pub unsafe fn get_mut<'w>(self, row: usize) -> &'w mut F {
        // SAFETY: in bounds and unique (caller).
        unsafe { self.0.add(row).as_mut() }
    }

    /// The fields of `rows`.
    ///
    /// # Safety
    /// As for [`get`](Self::get), for every row of `rows`.
    #[inline(always)]
    pub unsafe fn slice<'w>(self, rows: Range<usize>) -> &'w [F] {
        // SAFETY: as for `get` (caller).
        unsafe { core::slice::from_raw_parts(self.0.add(rows.start).as_ptr(), rows.len()) }
    }

    /// The fields of `rows`, mutably.
    ///
    /// # Safety
    /// As for [`get_mut`](Self::get_mut), for every row of `rows`.
    #[inline(always)]
    pub unsafe fn slice_mut<'w>(self, rows: Range<usize>) -> &'w mut [F] {
        // SAFETY: as for `get_mut` (caller).
        unsafe { core::slice::from_raw_parts_mut(self.0.add(rows.start).as_ptr(), rows.len()) }
    }
}

impl<F> Clone for LanePtr<F> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<F> Copy for LanePtr<F> {}

// SAFETY: a lane hands out `&F` and `&mut F` to distinct rows (the fetch's
// caller keeps them apart): sending or sharing it is sending `&mut [F]` or
// sharing `&[F]`, which components (`Send + Sync`) allow.
unsafe impl<F: Send + Sync> Send for LanePtr<F> {}
// SAFETY: as above.
unsafe impl<F: Send + Sync> Sync for LanePtr<F> {}

/// A component stored one array per field (`#[component(layout = "soa")]`).
///
/// Implemented by `#[derive(Component)]`; the associated types are the views the
/// derive generates next to the type. Queries reach it through `&T` (yielding
/// [`Ref`](Self::Ref)) and `&mut T` (yielding [`Mut`](Self::Mut)); chunk
/// iteration yields [`Slices`](Self::Slices) and [`SlicesMut`](Self::SlicesMut).
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
///
/// #[derive(Component, Clone, Debug, PartialEq)]
/// #[component(layout = "soa")]
/// struct Particle { x: f32, vx: f32, mass: f32 }
///
/// let mut world = World::new();
/// let e = world.spawn(Particle { x: 0.0, vx: 2.0, mass: 1.0 });
/// // One slice per field: a plain loop that reads only `x` and `vx`.
/// let mut moving = world.query_state::<&mut Particle>();
/// moving.for_each_chunk(&mut world, |p: ParticleSlicesMut| {
///     for (x, vx) in p.x.iter_mut().zip(p.vx.iter()) {
///         *x += vx;
///     }
/// });
/// // One view per row: `&Particle` yields a `ParticleRef`, `&mut` a `ParticleMut`.
/// for p in world.query_mut::<&mut Particle>() {
///     *p.mass *= 2.0;
/// }
/// let p: ParticleRef = world.fields::<Particle>(e).unwrap();
/// assert_eq!(*p.x, 2.0);
/// assert_eq!(world.get_cloned::<Particle>(e), Some(Particle { x: 2.0, vx: 2.0, mass: 2.0 }));
/// ```
///
/// # Safety
/// - [`FIELDS`](Self::FIELDS) lists every field of `Self` exactly once, in
///   declaration order, with its offset and layout, so that copying each field's
///   bytes into place rebuilds the whole value;
/// - [`lanes`](Self::lanes) reads `bases[i]` as the base of an array of the type
///   of field `i`, and the views built from it refer to nothing else;
/// - `Component::__fields` returns `Some(FieldLayout::of::<Self>())`, and `Self`
///   does not implement [`WholeComponent`];
/// - `Self` is stored in tables: `STORAGE` is `Table`, and it is not a tag
///   (queries and `world.fields` refuse a tag at compile time).
pub unsafe trait PerField: Component + Sized {
    /// One [`LanePtr`] per field.
    type Lanes: Copy + Send + Sync;
    /// One `&'w` reference per field: a row, read.
    type Ref<'w>;
    /// One `&'w mut` reference per field: a row, written.
    type Mut<'w>;
    /// One `&'w` slice per field: rows of one archetype, read.
    type Slices<'w>;
    /// One `&'w mut` slice per field: rows of one archetype, written.
    type SlicesMut<'w>;

    /// The fields, in declaration order.
    const FIELDS: &'static [FieldColumn];

    /// The lanes from each field's base pointer.
    ///
    /// # Safety
    /// `bases[i]` is the base of an array of field `i`'s type, for every field.
    unsafe fn lanes(bases: &[NonNull<u8>]) -> Self::Lanes;

    /// The view of `row`, read.
    ///
    /// # Safety
    /// `row` is within the arrays, which nothing writes for `'w`.
    unsafe fn row<'w>(lanes: Self::Lanes, row: usize) -> Self::Ref<'w>;

    /// The view of `row`, written.
    ///
    /// # Safety
    /// `row` is within the arrays, and nothing else refers to it for `'w`.
    unsafe fn row_mut<'w>(lanes: Self::Lanes, row: usize) -> Self::Mut<'w>;

    /// The views of `rows`, read.
    ///
    /// # Safety
    /// As for [`row`](Self::row), for every row of `rows`.
    unsafe fn slices<'w>(lanes: Self::Lanes, rows: Range<usize>) -> Self::Slices<'w>;

    /// The views of `rows`, written.
    ///
    /// # Safety
    /// As for [`row_mut`](Self::row_mut), for every row of `rows`.
    unsafe fn slices_mut<'w>(lanes: Self::Lanes, rows: Range<usize>) -> Self::SlicesMut<'w>;

    /// Shortens a read view's borrow.
    fn shrink_ref<'long: 'short, 'short>(view: Self::Ref<'long>) -> Self::Ref<'short>;

    /// Shortens a written view's borrow.
    fn shrink_mut<'long: 'short, 'short>(view: Self::Mut<'long>) -> Self::Mut<'short>;
}

/// A component stored whole, one value per row, so that `&T` into the world
/// exists: what `world.get`, `EntityRef::get`, `Ref<T>` and `Mut<T>` need.
/// `#[derive(Component)]` implements it for every component except those with
/// `#[component(layout = "soa")]`, whose fields live in separate arrays.
///
/// # Safety
/// `Component::__fields` of the type returns `None` (its column stores whole
/// values, which `&T` reads in place).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a component stored whole, so there is no `&{Self}` to borrow",
    label = "not stored one value per row",
    note = "a `#[component(layout = \"soa\")]` component keeps each field in its own array: read it through its \
            views, `world.fields::<{Self}>(entity)` (a `{Self}Ref`), `world.fields_mut::<{Self}>(entity)` (a \
            `{Self}Mut`), or `&{Self}` / `&mut {Self}` in a query",
    note = "`world.get_cloned::<{Self}>(entity)` reads a whole `{Self}` out when it is `Clone`; `Ref`/`Mut` change \
            wrappers need a whole value: use `&mut {Self}` with a `Changed<{Self}>` filter"
)]
pub unsafe trait WholeComponent {}

/// Reads a per-field component (`&T` in a query, for `T: PerField`): yields a
/// `T::Ref` per row and `T::Slices` per chunk. Public so that generic code can
/// name it; `&T` is the same query.
pub struct Fields<T>(PhantomData<fn() -> T>);

/// Writes a per-field component (`&mut T` in a query, for `T: PerField`):
/// yields a `T::Mut` per row and `T::SlicesMut` per chunk.
pub struct FieldsMut<T>(PhantomData<fn() -> T>);

/// Checks a per-field layout against the type's size: every field in bounds,
/// no two overlapping.
/// Generic only in this shim: the checks are compiled once, not per component.
#[inline]
pub(crate) fn check_fields<T: 'static>(layout: &FieldLayout) {
    check_field_spans(layout, TypeId::of::<T>(), size_of::<T>(), core::any::type_name::<T>());
}

fn check_field_spans(layout: &FieldLayout, type_id: TypeId, size: usize, name: &str) {
    assert_eq!(layout.type_id(), type_id, "`{name}` claims another type's field layout");
    let mut spans: Vec<(usize, usize)> = layout.fields.iter().map(|f| (f.offset, f.offset + f.layout.size())).collect();
    spans.sort_unstable();
    for (i, &(start, end)) in spans.iter().enumerate() {
        assert!(end <= size, "a field of `{name}` ends past the value");
        assert!(i == 0 || spans[i - 1].1 <= start, "two fields of `{name}` overlap");
    }
}
