//! [`QueryData`] for tuples of up to 16 query items: each element is fetched in order.

use core::ops::Range;

use super::Access;
use super::fetch::{CachedColumn, FetchContext, QueryData, ReadOnlyQueryData, leading_table_column};
use crate::archetype::Archetype;
use crate::component::ComponentId;

macro_rules! tuple_query {
    ($($name:ident $index:tt),*) => {
        // SAFETY: every element's access and columns are forwarded in order; the
        // tuple matches where all elements match.
        #[allow(unused_variables, clippy::unused_unit, reason = "the empty tuple fetches nothing")]
        unsafe impl<$($name: QueryData),*> QueryData for ($($name,)*) {
            type Item<'w> = ($($name::Item<'w>,)*);
            type Slice<'w> = ($($name::Slice<'w>,)*);
            type Fetch<'w> = ($($name::Fetch<'w>,)*);
            type State = ($($name::State,)*);
            const COLUMNS: usize = 0 $(+ $name::COLUMNS)*;
            const ARRAYS: usize = 0 $(+ $name::ARRAYS)*;
            const DENSE: bool = true $(&& $name::DENSE)*;
            const LEADING_TABLE_COLUMN: bool = leading_table_column(&[$(($name::COLUMNS, $name::LEADING_TABLE_COLUMN)),*]);

            fn init_state() -> Self::State {
                ($($name::init_state(),)*)
            }
            fn access(state: &Self::State, access: &mut Access) {
                $($name::access(&state.$index, access);)*
            }
            #[inline]
            fn matches(state: &Self::State, archetype: &Archetype) -> bool {
                true $(&& $name::matches(&state.$index, archetype))*
            }
            fn required(state: &Self::State, f: &mut impl FnMut(ComponentId)) {
                $($name::required(&state.$index, f);)*
            }
            fn included(state: &Self::State, f: &mut impl FnMut(ComponentId)) {
                $($name::included(&state.$index, f);)*
            }
            fn columns(state: &Self::State, archetype: &Archetype, out: &mut Vec<CachedColumn>) {
                $($name::columns(&state.$index, archetype, out);)*
            }
            #[inline(always)]
            unsafe fn fetch_archetype<'w>(archetype: &'w Archetype, columns: &mut &[CachedColumn], ctx: FetchContext) -> Self::Fetch<'w> {
                // SAFETY: forwarded, in order.
                ($(unsafe { $name::fetch_archetype(archetype, columns, ctx) },)*)
            }
            #[inline(always)]
            unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, row: usize) -> Self::Item<'w> {
                // SAFETY: forwarded.
                ($(unsafe { $name::fetch(&fetch.$index, row) },)*)
            }
            fn shrink<'long: 'short, 'short>(item: Self::Item<'long>) -> Self::Item<'short> {
                ($($name::shrink(item.$index),)*)
            }
            #[inline(always)]
            unsafe fn slice<'w>(fetch: &Self::Fetch<'w>, rows: Range<usize>) -> Self::Slice<'w> {
                // SAFETY: forwarded.
                ($(unsafe { $name::slice(&fetch.$index, rows.clone()) },)*)
            }
            #[inline(always)]
            unsafe fn filter_row(fetch: &Self::Fetch<'_>, row: usize) -> bool {
                // SAFETY: forwarded.
                true $(&& unsafe { $name::filter_row(&fetch.$index, row) })*
            }
            #[inline(always)]
            unsafe fn run_end(fetch: &Self::Fetch<'_>, rows: Range<usize>) -> usize {
                // Each element narrows the run to where it still holds; each keeps
                // `rows.start`, which every element passes (caller).
                let end = rows.end;
                // SAFETY: forwarded, on a non-empty sub-range starting at `rows.start`.
                $(let end = if $name::DENSE { end } else { unsafe { $name::run_end(&fetch.$index, rows.start..end) } };)*
                end
            }
            #[inline(always)]
            unsafe fn mark_written(fetch: &Self::Fetch<'_>, rows: Range<usize>) {
                // SAFETY: forwarded.
                $(unsafe { $name::mark_written(&fetch.$index, rows.clone()) };)*
            }
            #[inline(always)]
            unsafe fn mark_sliced(fetch: &Self::Fetch<'_>, rows: Range<usize>) {
                // SAFETY: forwarded.
                $(unsafe { $name::mark_sliced(&fetch.$index, rows.clone()) };)*
            }
            #[inline(always)]
            fn stamps(fetch: &Self::Fetch<'_>) -> bool {
                false $(|| $name::stamps(&fetch.$index))*
            }
        }

        // SAFETY: all elements are read-only.
        unsafe impl<$($name: ReadOnlyQueryData),*> ReadOnlyQueryData for ($($name,)*) {}
    };
}

tuple_query!(Q0 0);
tuple_query!(Q0 0, Q1 1);
tuple_query!(Q0 0, Q1 1, Q2 2);
tuple_query!(Q0 0, Q1 1, Q2 2, Q3 3);
tuple_query!(Q0 0, Q1 1, Q2 2, Q3 3, Q4 4);
tuple_query!(Q0 0, Q1 1, Q2 2, Q3 3, Q4 4, Q5 5);
tuple_query!(Q0 0, Q1 1, Q2 2, Q3 3, Q4 4, Q5 5, Q6 6);
tuple_query!(Q0 0, Q1 1, Q2 2, Q3 3, Q4 4, Q5 5, Q6 6, Q7 7);
tuple_query!(Q0 0, Q1 1, Q2 2, Q3 3, Q4 4, Q5 5, Q6 6, Q7 7, Q8 8);
tuple_query!(Q0 0, Q1 1, Q2 2, Q3 3, Q4 4, Q5 5, Q6 6, Q7 7, Q8 8, Q9 9);
tuple_query!(Q0 0, Q1 1, Q2 2, Q3 3, Q4 4, Q5 5, Q6 6, Q7 7, Q8 8, Q9 9, Q10 10);
tuple_query!(Q0 0, Q1 1, Q2 2, Q3 3, Q4 4, Q5 5, Q6 6, Q7 7, Q8 8, Q9 9, Q10 10, Q11 11);
tuple_query!(Q0 0, Q1 1, Q2 2, Q3 3, Q4 4, Q5 5, Q6 6, Q7 7, Q8 8, Q9 9, Q10 10, Q11 11, Q12 12);
tuple_query!(Q0 0, Q1 1, Q2 2, Q3 3, Q4 4, Q5 5, Q6 6, Q7 7, Q8 8, Q9 9, Q10 10, Q11 11, Q12 12, Q13 13);
tuple_query!(Q0 0, Q1 1, Q2 2, Q3 3, Q4 4, Q5 5, Q6 6, Q7 7, Q8 8, Q9 9, Q10 10, Q11 11, Q12 12, Q13 13, Q14 14);
tuple_query!(
    Q0 0, Q1 1, Q2 2, Q3 3, Q4 4, Q5 5, Q6 6, Q7 7, Q8 8, Q9 9, Q10 10, Q11 11, Q12 12, Q13 13, Q14 14, Q15 15
);
tuple_query!();
