//! [`Mut<T>`](crate::Mut) and [`Ref<T>`](crate::Ref) as query items: rows that
//! know when they were added and changed, and (for `Mut`) are marked changed
//! only when written.

use core::marker::PhantomData;
use core::ops::Range;
use core::ptr::NonNull;
use core::sync::atomic::AtomicU32;

use super::Access;
use super::fetch::{
    CachedColumn, FetchContext, Presence, QueryData, ReadOnlyQueryData, matches_component, push_column,
    require_component, take_column,
};
use crate::archetype::Archetype;
use crate::component::{ChangeTracked, Component, ComponentId, MutableComponent, component_id, is_sparse};
use crate::storage::ComponentTicks;
use crate::world::{Mut, Ref, TicksMut};

/// The fetch of [`Mut<T>`](crate::Mut) and [`Ref<T>`](crate::Ref): the column's
/// values and ticks, its "last changed" summary and the run's window.
pub struct TrackedFetch<'w, T> {
    data: NonNull<T>,
    ticks: NonNull<ComponentTicks>,
    summary: NonNull<AtomicU32>,
    tag: Presence,
    /// The column exists and keeps ticks.
    usable: bool,
    ctx: FetchContext,
    marker: PhantomData<&'w mut T>,
}

// SAFETY: as for `WriteFetch`: items of distinct rows (values and ticks) go to
// whoever holds them, which is sending `&mut T` (`T: Send`) or reading `T`
// (`T: Sync`); the summary is atomic.
unsafe impl<T: Send + Sync> Send for TrackedFetch<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Sync for TrackedFetch<'_, T> {}

impl<T> Clone for TrackedFetch<'_, T> {
    fn clone(&self) -> Self {
        Self {
            data: self.data,
            ticks: self.ticks,
            summary: self.summary,
            tag: self.tag,
            usable: self.usable,
            ctx: self.ctx,
            marker: PhantomData,
        }
    }
}

/// Makes the fetch of a tracked component.
///
/// # Safety
/// As for [`QueryData::fetch_archetype`].
#[inline(always)]
unsafe fn tracked_fetch<'w, T: Component + ChangeTracked>(
    archetype: &'w Archetype,
    columns: &mut &[CachedColumn],
    ctx: FetchContext,
) -> TrackedFetch<'w, T> {
    // SAFETY: forwarded: the entry was cached for this archetype.
    let column = unsafe { take_column::<T>(archetype, columns) };
    // A column without ticks (a hand-written `ChangeTracked` on a component
    // that opted out) gives no rows: `usable` is `false` and `filter_row` says so.
    let column = column.filter(|c| c.keeps_ticks());
    static NO_SUMMARY: AtomicU32 = AtomicU32::new(0);
    TrackedFetch {
        data: column.map_or(NonNull::dangling(), |c| c.data_ptr().cast()),
        ticks: column.map_or(NonNull::dangling(), |c| c.ticks_ptr()),
        summary: NonNull::from(column.map_or(&NO_SUMMARY, |c| c.last_change_cell())),
        tag: Presence(if is_sparse::<T>() { column.map(|c| c.ticks_ptr()) } else { None }),
        usable: column.is_some(),
        ctx,
        marker: PhantomData,
    }
}

/// `true` when the row yields an item.
///
/// # Safety
/// `row` is below the archetype's length.
#[inline(always)]
unsafe fn tracked_row<T: Component + ChangeTracked>(fetch: &TrackedFetch<'_, T>, row: usize) -> bool {
    if is_sparse::<T>() {
        // SAFETY: `row` is in bounds (caller); a missing column has no presence.
        unsafe { fetch.tag.at(row) }
    } else {
        // Table columns keep ticks unless the component opted out.
        T::CHANGES || fetch.usable
    }
}

// SAFETY: records a write of `T`; caches one column, which it consumes; matches
// only archetypes holding `T` (rows lacking it, or without ticks, are filtered).
unsafe impl<'a, T: Component + ChangeTracked + MutableComponent + crate::component::WholeComponent> QueryData
    for Mut<'a, T>
{
    type Item<'w> = Mut<'w, T>;
    type Slice<'w> = &'w mut [T];
    type Fetch<'w> = TrackedFetch<'w, T>;
    type State = ComponentId;
    const COLUMNS: usize = 1;
    const LEADING_TABLE_COLUMN: bool = !is_sparse::<T>();
    // Per row: a component whose column keeps no ticks yields nothing.
    const DENSE: bool = !is_sparse::<T>() && T::CHANGES;

    fn init_state() -> ComponentId {
        component_id::<T>()
    }
    fn access(state: &ComponentId, access: &mut Access) {
        access.add_write(*state, crate::names::type_name::<T>());
        if is_sparse::<T>() {
            // Which rows it yields is decided row by row, from the ticks.
            access.add_per_row(*state);
        }
    }
    fn matches(state: &ComponentId, archetype: &Archetype) -> bool {
        matches_component::<T>(*state, archetype)
    }
    fn required(state: &ComponentId, f: &mut impl FnMut(ComponentId)) {
        require_component::<T>(*state, f);
    }
    fn columns(state: &ComponentId, archetype: &Archetype, out: &mut Vec<CachedColumn>) {
        push_column::<T>(*state, archetype, out);
    }
    #[inline(always)]
    unsafe fn fetch_archetype<'w>(
        archetype: &'w Archetype,
        columns: &mut &[CachedColumn],
        ctx: FetchContext,
    ) -> TrackedFetch<'w, T> {
        // SAFETY: forwarded.
        unsafe { tracked_fetch::<T>(archetype, columns, ctx) }
    }
    #[inline(always)]
    unsafe fn filter_row(fetch: &Self::Fetch<'_>, row: usize) -> bool {
        // SAFETY: forwarded.
        unsafe { tracked_row::<T>(fetch, row) }
    }
    #[inline(always)]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, row: usize) -> Mut<'w, T> {
        // SAFETY: `row` is in bounds (caller) of the column's values and ticks; the
        // caller's write access and the one-item-per-row rule make both borrows
        // unique; the summary is atomic and outlives `'w`.
        unsafe {
            let ticks = TicksMut {
                ticks: Some(fetch.ticks.add(row).as_mut()),
                summary: Some(fetch.summary.as_ref()),
                last_run: fetch.ctx.last_run,
                this_run: fetch.ctx.this_run,
            };
            Mut::new(fetch.data.add(row).as_mut(), ticks)
        }
    }
    fn shrink<'long: 'short, 'short>(item: Mut<'long, T>) -> Mut<'short, T> {
        item
    }
    #[inline(always)]
    unsafe fn slice<'w>(fetch: &Self::Fetch<'w>, rows: Range<usize>) -> &'w mut [T] {
        // SAFETY: `rows` is in bounds (caller); unique as in `fetch`.
        unsafe { core::slice::from_raw_parts_mut(fetch.data.add(rows.start).as_ptr(), rows.len()) }
    }
    // `mark_written` stays a no-op: each item stamps its row when written.
    #[inline(always)]
    fn stamps(_: &Self::Fetch<'_>) -> bool {
        false
    }
    #[inline(always)]
    unsafe fn mark_sliced(fetch: &Self::Fetch<'_>, rows: Range<usize>) {
        // A slice is plain `&mut [T]`: every row of it counts as written.
        // SAFETY: `rows` is in bounds (caller) of the column's ticks, which the
        // caller's write access makes ours.
        let ticks = unsafe { core::slice::from_raw_parts_mut(fetch.ticks.add(rows.start).as_ptr(), rows.len()) };
        for tick in ticks {
            tick.changed = fetch.ctx.this_run;
        }
        if !rows.is_empty() {
            // SAFETY: the summary outlives the fetch.
            crate::storage::stamp_summary(unsafe { fetch.summary.as_ref() }, fetch.ctx.this_run);
        }
    }
}

// SAFETY: records a read of `T`; otherwise as for `Mut<T>`.
unsafe impl<'a, T: Component + ChangeTracked + crate::component::WholeComponent> QueryData for Ref<'a, T> {
    type Item<'w> = Ref<'w, T>;
    type Slice<'w> = &'w [T];
    type Fetch<'w> = TrackedFetch<'w, T>;
    type State = ComponentId;
    const COLUMNS: usize = 1;
    const LEADING_TABLE_COLUMN: bool = !is_sparse::<T>();
    const DENSE: bool = !is_sparse::<T>() && T::CHANGES;

    fn init_state() -> ComponentId {
        component_id::<T>()
    }
    fn access(state: &ComponentId, access: &mut Access) {
        access.add_read(*state, crate::names::type_name::<T>());
        if is_sparse::<T>() {
            // Which rows it yields is decided row by row, from the ticks.
            access.add_per_row(*state);
        }
    }
    fn matches(state: &ComponentId, archetype: &Archetype) -> bool {
        matches_component::<T>(*state, archetype)
    }
    fn required(state: &ComponentId, f: &mut impl FnMut(ComponentId)) {
        require_component::<T>(*state, f);
    }
    fn columns(state: &ComponentId, archetype: &Archetype, out: &mut Vec<CachedColumn>) {
        push_column::<T>(*state, archetype, out);
    }
    #[inline(always)]
    unsafe fn fetch_archetype<'w>(
        archetype: &'w Archetype,
        columns: &mut &[CachedColumn],
        ctx: FetchContext,
    ) -> TrackedFetch<'w, T> {
        // SAFETY: forwarded.
        unsafe { tracked_fetch::<T>(archetype, columns, ctx) }
    }
    #[inline(always)]
    unsafe fn filter_row(fetch: &Self::Fetch<'_>, row: usize) -> bool {
        // SAFETY: forwarded.
        unsafe { tracked_row::<T>(fetch, row) }
    }
    #[inline(always)]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, row: usize) -> Ref<'w, T> {
        // SAFETY: `row` is in bounds (caller), shared for `'w` under the caller's
        // read access.
        unsafe {
            Ref::new(fetch.data.add(row).as_ref(), fetch.ticks.add(row).read(), fetch.ctx.last_run, fetch.ctx.this_run)
        }
    }
    fn shrink<'long: 'short, 'short>(item: Ref<'long, T>) -> Ref<'short, T> {
        item
    }
    #[inline(always)]
    unsafe fn slice<'w>(fetch: &Self::Fetch<'w>, rows: Range<usize>) -> &'w [T] {
        // SAFETY: `rows` is in bounds (caller), shared for `'w`.
        unsafe { core::slice::from_raw_parts(fetch.data.add(rows.start).as_ptr(), rows.len()) }
    }
    #[inline(always)]
    fn stamps(_: &Self::Fetch<'_>) -> bool {
        false
    }
}

// SAFETY: only reads.
unsafe impl<'a, T: Component + ChangeTracked + crate::component::WholeComponent> ReadOnlyQueryData for Ref<'a, T> {}
