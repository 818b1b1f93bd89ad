//! [`AnyOf`]: the entities that have at least one of several query items,
//! each item an `Option`.

use core::marker::PhantomData;
use core::ops::Range;

use super::Access;
use super::fetch::{CachedColumn, FetchContext, QueryData, ReadOnlyQueryData};
use crate::archetype::Archetype;
use crate::component::ComponentId;

/// A query item for entities that have at least one of the items of the tuple
/// `T`: `AnyOf<(&Position, &mut Velocity)>` yields `(Option<&Position>,
/// Option<&mut Velocity>)` for every entity with a `Position`, a `Velocity` or
/// both, and skips the others. Tuples of up to 8 items.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// use ecs_core::query::AnyOf;
/// #[derive(Component)] struct Sword(u32);
/// #[derive(Component)] struct Bow(u32);
/// #[derive(Component)] struct Name;
/// let mut world = World::new();
/// world.spawn((Name, Sword(3)));
/// world.spawn((Name, Bow(2)));
/// world.spawn((Name, Sword(1), Bow(1)));
/// world.spawn(Name); // unarmed: not yielded
/// let damage: u32 = world
///     .query::<AnyOf<(&Sword, &Bow)>>()
///     .iter()
///     .map(|(sword, bow)| sword.map_or(0, |s| s.0) + bow.map_or(0, |b| b.0))
///     .sum();
/// assert_eq!(damage, 7);
/// assert_eq!(world.query::<AnyOf<(&Sword, &Bow)>>().iter().count(), 3);
/// ```
pub struct AnyOf<T>(PhantomData<T>);

macro_rules! any_of {
    ($($name:ident $index:tt),*) => {
        // SAFETY: everything but `matches`, `filter_row` and what they imply is
        // `(Option<Q0>, …)`'s, which is sound on any archetype (each element
        // fetches only where its query matches). On top: only archetypes where
        // some element matches, and only rows where some element's item is
        // there, are yielded, a narrowing. Nothing is `required` or `included`:
        // no component is on every row yielded.
        unsafe impl<$($name: QueryData),*> QueryData for AnyOf<($($name,)*)> {
            type Item<'w> = ($(Option<$name::Item<'w>>,)*);
            type Slice<'w> = ($(Option<$name::Slice<'w>>,)*);
            type Fetch<'w> = ($(Option<$name::Fetch<'w>>,)*);
            type State = ($($name::State,)*);
            const COLUMNS: usize = <($(Option<$name>,)*) as QueryData>::COLUMNS;
            const ARRAYS: usize = <($(Option<$name>,)*) as QueryData>::ARRAYS;
            // In a matched archetype some element matches; where every element
            // yields on every row, so does this.
            const DENSE: bool = true $(&& $name::DENSE)*;
            const LEADING_TABLE_COLUMN: bool = false;

            fn init_state() -> Self::State {
                ($($name::init_state(),)*)
            }
            fn access(state: &Self::State, access: &mut Access) {
                <($(Option<$name>,)*) as QueryData>::access(state, access);
            }
            #[inline]
            fn matches(state: &Self::State, archetype: &Archetype) -> bool {
                false $(|| $name::matches(&state.$index, archetype))*
            }
            fn required(_: &Self::State, _: &mut impl FnMut(ComponentId)) {}
            fn included(_: &Self::State, _: &mut impl FnMut(ComponentId)) {}
            fn columns(state: &Self::State, archetype: &Archetype, out: &mut Vec<CachedColumn>) {
                <($(Option<$name>,)*) as QueryData>::columns(state, archetype, out);
            }
            #[inline(always)]
            unsafe fn fetch_archetype<'w>(
                archetype: &'w Archetype,
                columns: &mut &[CachedColumn],
                ctx: FetchContext,
            ) -> Self::Fetch<'w> {
                // SAFETY: forwarded; the entries are the tuple's (`columns`).
                unsafe { <($(Option<$name>,)*) as QueryData>::fetch_archetype(archetype, columns, ctx) }
            }
            #[inline(always)]
            unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, row: usize) -> Self::Item<'w> {
                // SAFETY: forwarded.
                unsafe { <($(Option<$name>,)*) as QueryData>::fetch(fetch, row) }
            }
            fn shrink<'long: 'short, 'short>(item: Self::Item<'long>) -> Self::Item<'short> {
                <($(Option<$name>,)*) as QueryData>::shrink(item)
            }
            #[inline(always)]
            unsafe fn slice<'w>(fetch: &Self::Fetch<'w>, rows: Range<usize>) -> Self::Slice<'w> {
                // SAFETY: forwarded.
                unsafe { <($(Option<$name>,)*) as QueryData>::slice(fetch, rows) }
            }
            #[inline(always)]
            unsafe fn filter_row(fetch: &Self::Fetch<'_>, row: usize) -> bool {
                // SAFETY: forwarded, to the elements that matched the archetype.
                false $(|| fetch.$index.as_ref().is_some_and(|f| unsafe { $name::filter_row(f, row) }))*
            }
            #[inline(always)]
            unsafe fn run_end(fetch: &Self::Fetch<'_>, rows: Range<usize>) -> usize {
                // The tuple's runs keep which elements are there, so whether
                // any is stays as it is at `rows.start` (which passes, caller).
                // SAFETY: forwarded; every row passes the tuple's filter.
                unsafe { <($(Option<$name>,)*) as QueryData>::run_end(fetch, rows) }
            }
            #[inline(always)]
            unsafe fn mark_written(fetch: &Self::Fetch<'_>, rows: Range<usize>) {
                // SAFETY: forwarded.
                unsafe { <($(Option<$name>,)*) as QueryData>::mark_written(fetch, rows) }
            }
            #[inline(always)]
            unsafe fn mark_sliced(fetch: &Self::Fetch<'_>, rows: Range<usize>) {
                // SAFETY: forwarded.
                unsafe { <($(Option<$name>,)*) as QueryData>::mark_sliced(fetch, rows) }
            }
            #[inline(always)]
            fn stamps(fetch: &Self::Fetch<'_>) -> bool {
                <($(Option<$name>,)*) as QueryData>::stamps(fetch)
            }
        }

        // SAFETY: all elements are read-only.
        unsafe impl<$($name: ReadOnlyQueryData),*> ReadOnlyQueryData for AnyOf<($($name,)*)> {}
    };
}

any_of!(Q0 0);
any_of!(Q0 0, Q1 1);
any_of!(Q0 0, Q1 1, Q2 2);
any_of!(Q0 0, Q1 1, Q2 2, Q3 3);
any_of!(Q0 0, Q1 1, Q2 2, Q3 3, Q4 4);
any_of!(Q0 0, Q1 1, Q2 2, Q3 3, Q4 4, Q5 5);
any_of!(Q0 0, Q1 1, Q2 2, Q3 3, Q4 4, Q5 5, Q6 6);
any_of!(Q0 0, Q1 1, Q2 2, Q3 3, Q4 4, Q5 5, Q6 6, Q7 7);
