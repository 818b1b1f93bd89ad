//! Queries over per-field components (`#[component(layout = "soa")]`):
//! [`Fields<T>`] and [`FieldsMut<T>`], which `&T` and `&mut T` of such a type
//! forward to (the derive writes those two impls with
//! [`per_field_queries!`](crate::__per_field_queries)).
//!
//! A fetch resolves each field's array once per archetype into `T::Lanes` (one
//! pointer per field, held by value, so a loop keeps them in registers); a row
//! is then one offset per field it touches. A loop that reads two fields of
//! eight reads two arrays; the other six are never loaded.

use core::marker::PhantomData;
use core::ops::Range;
use core::ptr::NonNull;

use super::Access;
use super::fetch::{CachedColumn, FetchContext, QueryData, ReadOnlyQueryData, next_column};
use crate::archetype::Archetype;
use crate::component::{ComponentId, Fields, FieldsMut, MutableComponent, PerField, component_id, is_sparse};
use crate::storage::{Column, Tick};

/// The fetch of [`Fields<T>`]: the lanes of `T`'s column in one archetype.
pub struct FieldsFetch<'w, T: PerField> {
    lanes: T::Lanes,
    marker: PhantomData<&'w T>,
}

impl<T: PerField> Clone for FieldsFetch<'_, T> {
    #[inline(always)]
    fn clone(&self) -> Self {
        Self { lanes: self.lanes, marker: PhantomData }
    }
}

/// The fetch of [`FieldsMut<T>`]: the lanes, and the column for stamping ticks.
pub struct FieldsMutFetch<'w, T: PerField> {
    lanes: T::Lanes,
    /// Read only when `track` is set.
    column: NonNull<Column>,
    this_run: Tick,
    track: bool,
    marker: PhantomData<&'w mut T>,
}

// SAFETY: the fetch hands out `&mut` to the fields of distinct rows (each row
// once, the caller's duty under `QueryData::fetch`) and stamps those rows'
// ticks: sending or sharing it is sending those references, which a component
// (`Send + Sync`) allows; the column pointer is used for those rows' ticks and
// the atomic summary only.
unsafe impl<T: PerField> Send for FieldsMutFetch<'_, T> {}
// SAFETY: as above.
unsafe impl<T: PerField> Sync for FieldsMutFetch<'_, T> {}

impl<T: PerField> Clone for FieldsMutFetch<'_, T> {
    #[inline(always)]
    fn clone(&self) -> Self {
        Self { lanes: self.lanes, column: self.column, this_run: self.this_run, track: self.track, marker: PhantomData }
    }
}

/// Refuses (at compile time) a per-field type that is a tag: one without data
/// has no fields to split, and its rows may hold no value.
#[inline(always)]
pub(crate) fn refuse_tag<T: PerField>() {
    const { assert!(!is_sparse::<T>(), "a per-field component must have data: this one is a zero-sized tag") };
}

/// The id of `T`, a per-field component that is not a tag.
#[inline]
fn table_id<T: PerField>() -> ComponentId {
    refuse_tag::<T>();
    component_id::<T>()
}

/// The lanes of `column`.
///
/// # Safety
/// `column` is `T`'s column.
#[inline(always)]
pub(crate) unsafe fn lanes_of<T: PerField>(column: &Column) -> T::Lanes {
    let bases = column.lane_bases().expect("the column of a per-field component is split");
    // SAFETY: `T`'s column (caller) was made from `T`'s field layout
    // (`PerField`'s contract), one lane per field, in order.
    unsafe { T::lanes(bases) }
}

/// The one column entry of a per-field fetch.
fn push_table(id: ComponentId, archetype: &Archetype, out: &mut Vec<CachedColumn>) {
    let index = archetype.column_index(id).expect("matched archetype has the component");
    out.push(CachedColumn::table(archetype, index));
}

// SAFETY: records a read of `T`; caches one table column, which it consumes;
// matches only archetypes holding `T` (never sparse: `table_id`).
unsafe impl<T: PerField> QueryData for Fields<T> {
    type Item<'w> = T::Ref<'w>;
    type Slice<'w> = T::Slices<'w>;
    type Fetch<'w> = FieldsFetch<'w, T>;
    type State = ComponentId;
    const COLUMNS: usize = 1;
    const ARRAYS: usize = T::FIELDS.len();
    const LEADING_TABLE_COLUMN: bool = true;

    #[inline]
    fn init_state() -> ComponentId {
        table_id::<T>()
    }
    fn access(state: &ComponentId, access: &mut Access) {
        access.add_read(*state, crate::names::type_name::<T>());
    }
    #[inline]
    fn matches(state: &ComponentId, archetype: &Archetype) -> bool {
        archetype.has(*state)
    }
    fn required(state: &ComponentId, f: &mut impl FnMut(ComponentId)) {
        f(*state);
    }
    fn columns(state: &ComponentId, archetype: &Archetype, out: &mut Vec<CachedColumn>) {
        push_table(*state, archetype, out);
    }
    #[inline(always)]
    unsafe fn fetch_archetype<'w>(
        _: &'w Archetype,
        columns: &mut &[CachedColumn],
        _: FetchContext,
    ) -> FieldsFetch<'w, T> {
        // SAFETY: the entry is this archetype's column of `T` (`columns`), whose
        // table has not moved, and the caller has read access for `'w`.
        let lanes = unsafe { lanes_of::<T>(next_column(columns).column()) };
        FieldsFetch { lanes, marker: PhantomData }
    }
    #[inline(always)]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, row: usize) -> T::Ref<'w> {
        // SAFETY: `row` is in bounds (caller), shared for `'w`.
        unsafe { T::row(fetch.lanes, row) }
    }
    fn shrink<'long: 'short, 'short>(item: T::Ref<'long>) -> T::Ref<'short> {
        T::shrink_ref(item)
    }
    #[inline(always)]
    unsafe fn slice<'w>(fetch: &Self::Fetch<'w>, rows: Range<usize>) -> T::Slices<'w> {
        // SAFETY: `rows` is in bounds (caller), shared for `'w`.
        unsafe { T::slices(fetch.lanes, rows) }
    }
    #[inline(always)]
    fn stamps(_: &Self::Fetch<'_>) -> bool {
        false
    }
}

// SAFETY: only reads.
unsafe impl<T: PerField> ReadOnlyQueryData for Fields<T> {}

// SAFETY: records a write of `T`; caches one table column, which it consumes;
// matches only archetypes holding `T`; writes only a `MutableComponent`.
unsafe impl<T: PerField + MutableComponent> QueryData for FieldsMut<T> {
    type Item<'w> = T::Mut<'w>;
    type Slice<'w> = T::SlicesMut<'w>;
    type Fetch<'w> = FieldsMutFetch<'w, T>;
    type State = ComponentId;
    const COLUMNS: usize = 1;
    const ARRAYS: usize = T::FIELDS.len();
    const LEADING_TABLE_COLUMN: bool = true;

    #[inline]
    fn init_state() -> ComponentId {
        table_id::<T>()
    }
    fn access(state: &ComponentId, access: &mut Access) {
        access.add_write(*state, crate::names::type_name::<T>());
    }
    #[inline]
    fn matches(state: &ComponentId, archetype: &Archetype) -> bool {
        archetype.has(*state)
    }
    fn required(state: &ComponentId, f: &mut impl FnMut(ComponentId)) {
        f(*state);
    }
    fn columns(state: &ComponentId, archetype: &Archetype, out: &mut Vec<CachedColumn>) {
        push_table(*state, archetype, out);
    }
    #[inline(always)]
    unsafe fn fetch_archetype<'w>(
        _: &'w Archetype,
        columns: &mut &[CachedColumn],
        ctx: FetchContext,
    ) -> FieldsMutFetch<'w, T> {
        // SAFETY: as for `Fields`, with write access.
        let column = unsafe { next_column(columns).column() };
        // SAFETY: `T`'s column.
        let lanes = unsafe { lanes_of::<T>(column) };
        FieldsMutFetch {
            lanes,
            column: NonNull::from(column),
            this_run: ctx.this_run,
            track: column.tracks_changes(),
            marker: PhantomData,
        }
    }
    #[inline(always)]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, row: usize) -> T::Mut<'w> {
        // SAFETY: `row` is in bounds (caller); write access and one item per row
        // make the references unique.
        unsafe { T::row_mut(fetch.lanes, row) }
    }
    fn shrink<'long: 'short, 'short>(item: T::Mut<'long>) -> T::Mut<'short> {
        T::shrink_mut(item)
    }
    #[inline(always)]
    unsafe fn slice<'w>(fetch: &Self::Fetch<'w>, rows: Range<usize>) -> T::SlicesMut<'w> {
        // SAFETY: as in `fetch`, for a range.
        unsafe { T::slices_mut(fetch.lanes, rows) }
    }
    #[inline(always)]
    unsafe fn mark_written(fetch: &Self::Fetch<'_>, rows: Range<usize>) {
        if !fetch.track {
            return;
        }
        // SAFETY: `track` is only set from an existing column that tracks
        // changes (so keeps ticks), which outlives the fetch; `rows` is in bounds
        // (caller), which has write access to them.
        unsafe { super::fetch::stamp_rows(fetch.column.as_ref(), rows, fetch.this_run) };
    }
    #[inline(always)]
    fn stamps(fetch: &Self::Fetch<'_>) -> bool {
        fetch.track
    }
}

/// Writes `&T` and `&mut T` query impls for a per-field component, forwarding
/// to [`Fields<T>`] and [`FieldsMut<T>`]. `#[derive(Component)]` with
/// `#[component(layout = "soa")]` writes this; it is not for hand use.
#[doc(hidden)]
#[macro_export]
macro_rules! __per_field_queries {
    (read $ty:ty, $view:ident) => {
        $crate::__per_field_queries!(@impl [] [&$ty] [$crate::component::Fields<$ty>]);
        // The view is a query too, so that a `#[derive(QueryData)]` struct can
        // hold one as a field (its field types are its items).
        $crate::__per_field_queries!(@impl ['__v] [$view<'__v>] [$crate::component::Fields<$ty>]);
        // SAFETY: forwards to `Fields`, which only reads.
        unsafe impl<'__v> $crate::query::ReadOnlyQueryData for $view<'__v> {}
    };
    (write $ty:ty, $view:ident) => {
        $crate::__per_field_queries!(@impl [] [&mut $ty] [$crate::component::FieldsMut<$ty>]);
        $crate::__per_field_queries!(@impl ['__v] [$view<'__v>] [$crate::component::FieldsMut<$ty>]);
    };
    (@impl [$($lt:lifetime)?] [$query:ty] [$inner:ty]) => {
        // SAFETY: every item forwards to the inner query, which upholds the
        // contract for the same component.
        unsafe impl$(<$lt>)? $crate::query::QueryData for $query {
            type Item<'w> = <$inner as $crate::query::QueryData>::Item<'w>;
            type Slice<'w> = <$inner as $crate::query::QueryData>::Slice<'w>;
            type Fetch<'w> = <$inner as $crate::query::QueryData>::Fetch<'w>;
            type State = <$inner as $crate::query::QueryData>::State;
            const COLUMNS: usize = <$inner as $crate::query::QueryData>::COLUMNS;
            const ARRAYS: usize = <$inner as $crate::query::QueryData>::ARRAYS;
            const LEADING_TABLE_COLUMN: bool = <$inner as $crate::query::QueryData>::LEADING_TABLE_COLUMN;
            const DENSE: bool = <$inner as $crate::query::QueryData>::DENSE;

            #[inline]
            fn init_state() -> Self::State {
                <$inner as $crate::query::QueryData>::init_state()
            }
            fn access(state: &Self::State, access: &mut $crate::query::Access) {
                <$inner as $crate::query::QueryData>::access(state, access)
            }
            #[inline]
            fn matches(state: &Self::State, archetype: &$crate::Archetype) -> bool {
                <$inner as $crate::query::QueryData>::matches(state, archetype)
            }
            fn required(state: &Self::State, f: &mut impl ::core::ops::FnMut($crate::ComponentId)) {
                <$inner as $crate::query::QueryData>::required(state, f)
            }
            fn columns(
                state: &Self::State,
                archetype: &$crate::Archetype,
                out: &mut ::std::vec::Vec<$crate::query::CachedColumn>,
            ) {
                <$inner as $crate::query::QueryData>::columns(state, archetype, out)
            }
            #[inline(always)]
            unsafe fn fetch_archetype<'w>(
                archetype: &'w $crate::Archetype,
                columns: &mut &[$crate::query::CachedColumn],
                ctx: $crate::query::FetchContext,
            ) -> Self::Fetch<'w> {
                // SAFETY: forwarded.
                unsafe { <$inner as $crate::query::QueryData>::fetch_archetype(archetype, columns, ctx) }
            }
            #[inline(always)]
            unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, row: usize) -> Self::Item<'w> {
                // SAFETY: forwarded.
                unsafe { <$inner as $crate::query::QueryData>::fetch(fetch, row) }
            }
            fn shrink<'long: 'short, 'short>(item: Self::Item<'long>) -> Self::Item<'short> {
                <$inner as $crate::query::QueryData>::shrink(item)
            }
            #[inline(always)]
            unsafe fn slice<'w>(fetch: &Self::Fetch<'w>, rows: ::core::ops::Range<usize>) -> Self::Slice<'w> {
                // SAFETY: forwarded.
                unsafe { <$inner as $crate::query::QueryData>::slice(fetch, rows) }
            }
            #[inline(always)]
            unsafe fn mark_written(fetch: &Self::Fetch<'_>, rows: ::core::ops::Range<usize>) {
                // SAFETY: forwarded.
                unsafe { <$inner as $crate::query::QueryData>::mark_written(fetch, rows) }
            }
            #[inline(always)]
            unsafe fn mark_sliced(fetch: &Self::Fetch<'_>, rows: ::core::ops::Range<usize>) {
                // SAFETY: forwarded.
                unsafe { <$inner as $crate::query::QueryData>::mark_sliced(fetch, rows) }
            }
            #[inline(always)]
            fn stamps(fetch: &Self::Fetch<'_>) -> bool {
                <$inner as $crate::query::QueryData>::stamps(fetch)
            }
        }
    };
}
