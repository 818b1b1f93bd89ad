//! [`Has<T>`]: whether an entity has a component, as a query item.

use core::marker::PhantomData;
use core::ops::Range;

use super::Access;
use super::fetch::{CachedColumn, FetchContext, Presence, QueryData, ReadOnlyQueryData, next_column};
use crate::archetype::Archetype;
use crate::component::{Component, ComponentId, component_id, is_sparse};

/// A query item that is `true` when the entity has a `T`, without reading `T`
/// and without filtering: `Query<(Entity, Has<Shield>)>` yields every entity,
/// shielded or not. For a data component it needs no access at all (it is
/// decided per archetype); for a sparse one it reads which rows hold `T`, so
/// the query may not also take `&mut T`.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// #[derive(Component)] struct Health(i32);
/// #[derive(Component)] struct Shield;
/// let mut world = World::new();
/// world.spawn((Health(3), Shield));
/// world.spawn(Health(3));
/// for (health, shielded) in world.query_mut::<(&mut Health, Has<Shield>)>() {
///     if !shielded { health.0 -= 1; }
/// }
/// let mut left: Vec<i32> = world.query::<&Health>().iter().map(|h| h.0).collect();
/// left.sort();
/// assert_eq!(left, [2, 3]);
/// ```
pub struct Has<T>(PhantomData<fn() -> T>);

/// The fetch of [`Has`]: the answer for the whole archetype (a data
/// component), or where to look per row (a sparse one).
#[derive(Clone, Copy)]
pub enum HasFetch {
    /// Every row of the archetype gives this.
    Archetype(bool),
    /// A sparse component: its presence per row.
    Rows(Presence),
}

// SAFETY: reads no component data; for a sparse component it reads the column's
// ticks (which rows hold `T`), recorded as a read of `T`; caches one entry only for
// a sparse component and consumes it; matches every archetype.
unsafe impl<T: Component> QueryData for Has<T> {
    type Item<'w> = bool;
    type Slice<'w> = HasSlice<'w>;
    type Fetch<'w> = HasFetch;
    type State = ComponentId;
    const COLUMNS: usize = if is_sparse::<T>() { 1 } else { 0 };

    fn init_state() -> ComponentId {
        component_id::<T>()
    }
    fn access(state: &ComponentId, access: &mut Access) {
        if is_sparse::<T>() {
            access.add_read(*state, crate::names::type_name::<T>());
        }
    }
    #[inline]
    fn matches(_: &ComponentId, _: &Archetype) -> bool {
        true
    }
    fn required(_: &ComponentId, _: &mut impl FnMut(ComponentId)) {}
    fn columns(state: &ComponentId, _: &Archetype, out: &mut Vec<CachedColumn>) {
        if is_sparse::<T>() {
            out.push(CachedColumn::number(state.index() as u32));
        }
    }
    #[inline(always)]
    unsafe fn fetch_archetype<'w>(
        archetype: &'w Archetype,
        columns: &mut &[CachedColumn],
        _: FetchContext,
    ) -> Self::Fetch<'w> {
        if is_sparse::<T>() {
            HasFetch::Rows(Presence::resolve(archetype, next_column(columns)))
        } else {
            HasFetch::Archetype(archetype.has(component_id::<T>()))
        }
    }
    #[inline(always)]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, row: usize) -> Self::Item<'w> {
        // SAFETY: `row` is below the archetype's length (caller).
        unsafe { has_at(fetch, row) }
    }
    fn shrink<'long: 'short, 'short>(item: bool) -> bool {
        item
    }
    #[inline(always)]
    unsafe fn slice<'w>(fetch: &Self::Fetch<'w>, rows: Range<usize>) -> Self::Slice<'w> {
        HasSlice { fetch: *fetch, rows, marker: PhantomData }
    }
    #[inline(always)]
    fn stamps(_: &Self::Fetch<'_>) -> bool {
        false
    }
}

// SAFETY: reads nothing but presence.
unsafe impl<T: Component> ReadOnlyQueryData for Has<T> {}

/// What chunk iteration yields for [`Has`]: the answer for each row of the
/// chunk, readable while the query's borrow of the world lasts.
#[derive(Clone)]
pub struct HasSlice<'w> {
    fetch: HasFetch,
    rows: Range<usize>,
    marker: PhantomData<&'w ()>,
}

impl HasSlice<'_> {
    /// The number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// `true` for an empty chunk.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Whether the chunk's `i`-th row has the component.
    ///
    /// # Panics
    /// When `i` is not below [`len`](Self::len).
    pub fn get(&self, i: usize) -> bool {
        assert!(i < self.rows.len(), "row {i} of a chunk of {}", self.rows.len());
        // SAFETY: the chunk's rows are within the archetype (`slice`'s caller),
        // and `i` is within the chunk.
        unsafe { has_at(&self.fetch, self.rows.start + i) }
    }

    /// Each row's answer, in order.
    pub fn iter(&self) -> impl Iterator<Item = bool> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

/// Row `row`'s answer.
///
/// # Safety
/// `row` is below the fetch's archetype's length.
#[inline(always)]
unsafe fn has_at(fetch: &HasFetch, row: usize) -> bool {
    match fetch {
        HasFetch::Archetype(has) => *has,
        // SAFETY: forwarded.
        HasFetch::Rows(presence) => unsafe { presence.at(row) },
    }
}
