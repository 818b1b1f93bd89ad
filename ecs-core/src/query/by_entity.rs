//! Lookups by entity through a [`QueryState`]: `get`, `get_many`, `single`
//! and what they share (finding an entity's archetype among the matched ones,
//! and the miss that says why an entity is not an item).

use super::{CachedColumn, FetchContext, QueryData, QueryFilter, QueryState, ReadOnlyQueryData};
use crate::archetype::ArchetypeId;
use crate::entity::Entity;
use crate::error::EcsError;
use crate::world::World;

impl<Q: QueryData, F: QueryFilter> QueryState<Q, F> {
    /// [`get_mut`](Self::get_mut) through a shared world with a given tick
    /// window, with the reason for a miss (see [`Miss`]).
    ///
    /// # Safety
    /// As for [`iter_unchecked`](Self::iter_unchecked).
    pub(crate) unsafe fn find_with<'w>(
        &self,
        world: &'w World,
        entity: Entity,
        ctx: FetchContext,
    ) -> Result<Q::Item<'w>, Miss> {
        self.validate_world(world);
        // SAFETY: forwarded.
        unsafe { self.find_at(world, entity, ctx) }
    }

    /// The query's item for one entity.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`] when the entity is not alive;
    /// [`EcsError::QueryMismatch`] when it does not match the query.
    #[track_caller]
    pub fn get<'w>(&mut self, world: &'w World, entity: Entity) -> Result<Q::Item<'w>, EcsError>
    where
        Q: ReadOnlyQueryData,
    {
        self.update_archetypes(world);
        // SAFETY: read-only query on a shared world.
        unsafe { self.get_unchecked(world, entity) }
    }

    /// The query's item for one entity, with mutable access where the query asks.
    ///
    /// # Errors
    /// As for [`get`](Self::get).
    #[track_caller]
    pub fn get_mut<'w>(&mut self, world: &'w mut World, entity: Entity) -> Result<Q::Item<'w>, EcsError> {
        world.check_change_ticks_if_due();
        self.update_archetypes(world);
        // SAFETY: `world` is borrowed mutably for `'w`; one item is handed out.
        unsafe { self.get_unchecked(world, entity) }
    }

    /// # Safety
    /// The caller has the query's access to `world` for `'w`, and archetypes are
    /// up to date.
    pub(super) unsafe fn get_unchecked<'w>(&self, world: &'w World, entity: Entity) -> Result<Q::Item<'w>, EcsError> {
        let ctx = FetchContext::new(self.last_run, world.change_tick());
        // SAFETY: forwarded.
        unsafe { self.get_at(world, entity, ctx) }
    }

    /// # Safety
    /// As for `get_unchecked`.
    #[inline]
    pub(super) unsafe fn get_at<'w>(
        &self,
        world: &'w World,
        entity: Entity,
        ctx: FetchContext,
    ) -> Result<Q::Item<'w>, EcsError> {
        // SAFETY: forwarded.
        unsafe { self.find_at(world, entity, ctx) }.map_err(|miss| miss.error::<Q, F>(entity))
    }

    /// [`get_at`](Self::get_at) with the reason for a miss, not yet an error.
    ///
    /// # Safety
    /// As for `get_unchecked`.
    #[inline]
    pub(crate) unsafe fn find_at<'w>(
        &self,
        world: &'w World,
        entity: Entity,
        ctx: FetchContext,
    ) -> Result<Q::Item<'w>, Miss> {
        // SAFETY: forwarded; the fetch is made once, checked, then fetched from.
        unsafe {
            self.locate(world, entity, ctx, |fetch, row| {
                Q::mark_written(fetch, row..row + 1);
                Q::fetch(fetch, row)
            })
        }
    }

    /// `true` when `entity` is alive and the query yields it; no item is
    /// made, nothing is marked written.
    ///
    /// # Safety
    /// The caller may read the ticks the query's row filters read (any of the
    /// query's access, or a shared world).
    pub(crate) unsafe fn yields(&self, world: &World, entity: Entity, ctx: FetchContext) -> bool {
        self.validate_world(world);
        // SAFETY: forwarded; the fetch is made and its row filters asked, but
        // nothing is fetched from it.
        unsafe { self.locate(world, entity, ctx, |_, _| ()) }.is_ok()
    }

    /// Notes that a system's `Query::get` went through the tables (see
    /// [`single_fetches`](Self::single_fetches)).
    #[inline]
    pub(crate) fn note_get(&self) {
        self.gets.store(true, core::sync::atomic::Ordering::Relaxed);
    }

    /// The fetches of the only matched archetype, when exactly one matched and
    /// [`note_get`](Self::note_get) was called: a system's `Query` makes them
    /// once per run so that its `get` goes from the entity's location straight
    /// to the data (as [`QueryBorrow`](super::QueryBorrow) does), without the
    /// state's tables in between. Made up front, not on first use: a lazy cell's
    /// check and call inside the caller's loop cost more than the tables save.
    ///
    /// # Safety
    /// As for [`fetch_of`](Self::fetch_of); the fetches are used only while the
    /// world's archetypes cannot change (`'w`).
    pub(crate) unsafe fn single_fetches<'w>(
        &self,
        world: &'w World,
        ctx: FetchContext,
    ) -> Option<SingleFetches<'w, Q, F>> {
        if !self.gets.load(core::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        if self.matched.len() != 1 {
            return None;
        }
        let (only, columns) = match &self.first {
            // The inline copy: no read of the heap on this per-run path.
            Some(first) => (first.archetype, &first.columns[..Self::STRIDE]),
            None => (self.matched[0], self.columns_of(0)),
        };
        // SAFETY: forwarded; the copy is renewed with the entries it copies,
        // current as the state is.
        let (fetch, filter) = unsafe { self.fetches_with(world, only, columns, ctx) };
        Some(SingleFetches { archetype: only, fetch, filter })
    }

    /// Calls `then` with the fetch of the archetype and the row of an entity the
    /// query yields. A continuation rather than a returned `(fetch, row)`: the
    /// fetch then stays in registers instead of passing through a `Result`.
    ///
    /// # Safety
    /// The state is up to date with `world`, and the caller may read the ticks
    /// the query's row filters read (any of the query's access, or a shared world);
    /// fetching from the fetch needs the query's whole access for `'w`.
    #[inline(always)]
    pub(super) unsafe fn locate<'w, R>(
        &self,
        world: &'w World,
        entity: Entity,
        ctx: FetchContext,
        then: impl FnOnce(&Q::Fetch<'w>, usize) -> R,
    ) -> Result<R, Miss> {
        let location = world.location(entity).ok_or(Miss::Dead)?;
        let Some(index) = self.matched_index(location.archetype) else { return Err(Miss::Mismatch) };
        let archetype = world.archetypes().get(location.archetype).expect("live entity's archetype exists");
        let row = location.row.index();
        let mut columns = self.columns_of(index);
        // SAFETY: the archetype matched and these are its cached entries, current (the
        // state is up to date); the row is the live entity's; making fetches and
        // asking their row filters reads only ticks (`QueryData`'s contract).
        unsafe {
            let fetch = Q::fetch_archetype(archetype, &mut columns, ctx);
            let filter = F::fetch_archetype(archetype, &mut columns, ctx);
            if !(Q::filter_row(&fetch, row) && F::filter(&filter, row)) {
                return Err(Miss::Mismatch);
            }
            Ok(then(&fetch, row))
        }
    }

    /// The item of row `row` of the `index`-th matched archetype, stamped as
    /// written where the query writes.
    ///
    /// # Safety
    /// The row is one the query yields (see `locate`), the state is up to date, the
    /// caller has the query's access to `world` for `'w`, and no other live item of
    /// this query refers to the row.
    pub(super) unsafe fn fetch_at<'w>(
        &self,
        world: &'w World,
        index: usize,
        row: usize,
        ctx: FetchContext,
    ) -> Q::Item<'w> {
        // SAFETY: forwarded from the caller.
        unsafe {
            let fetch = self.fetch_of(world, index, ctx);
            Q::mark_written(&fetch, row..row + 1);
            Q::fetch(&fetch, row)
        }
    }

    /// The data and filter fetches of the `index`-th matched archetype, for a
    /// caller that decides rows itself (`Q::filter_row`, `F::filter`).
    ///
    /// # Safety
    /// As for [`fetch_of`](Self::fetch_of).
    pub(crate) unsafe fn fetches_of<'w>(
        &self,
        world: &'w World,
        index: usize,
        ctx: FetchContext,
    ) -> (Q::Fetch<'w>, F::Fetch<'w>) {
        // SAFETY: forwarded; these are the matched archetype's own entries.
        unsafe { self.fetches_with(world, self.matched[index], self.columns_of(index), ctx) }
    }

    /// The data and filter fetches of matched archetype `id` from `columns`, its
    /// cached entries (or their inline copy).
    ///
    /// # Safety
    /// As for [`fetch_of`](Self::fetch_of); `columns` are `id`'s current
    /// cached entries.
    #[inline(always)]
    unsafe fn fetches_with<'w>(
        &self,
        world: &'w World,
        id: ArchetypeId,
        mut columns: &[CachedColumn],
        ctx: FetchContext,
    ) -> (Q::Fetch<'w>, F::Fetch<'w>) {
        let archetype = world.archetypes().get(id).expect("matched archetype exists");
        // SAFETY: the archetype matched and these are its cached entries, current
        // (the caller's); the access is the caller's. The filter's entries
        // follow the data's, as in `locate`.
        unsafe {
            let fetch = Q::fetch_archetype(archetype, &mut columns, ctx);
            (fetch, F::fetch_archetype(archetype, &mut columns, ctx))
        }
    }

    /// Calls `f` with the matched-archetype index and row of each row the query
    /// yields, in iteration order, until `f` returns `false`. Fetches no item.
    ///
    /// # Safety
    /// As for [`locate`](Self::locate).
    pub(crate) unsafe fn visit_matches(
        &self,
        world: &World,
        ctx: FetchContext,
        mut f: impl FnMut(usize, usize) -> bool,
    ) {
        let archetypes = world.archetypes();
        for (index, &id) in self.matched.iter().enumerate() {
            let archetype = archetypes.get(id).expect("matched archetype exists");
            if archetype.is_empty() {
                continue;
            }
            let mut columns = self.columns_of(index);
            // SAFETY: as in `locate`; every row is below the archetype's length.
            unsafe {
                let fetch = Q::fetch_archetype(archetype, &mut columns, ctx);
                let filter = F::fetch_archetype(archetype, &mut columns, ctx);
                if !F::ARCHETYPAL && !F::may_pass(&filter) {
                    continue;
                }
                let len = archetype.len();
                let mut row = 0;
                while row < len {
                    let yields = (Q::DENSE && F::ARCHETYPAL) || (Q::filter_row(&fetch, row) && F::filter(&filter, row));
                    if !yields {
                        // Where the next row may pass (`max`: never back).
                        row = F::skip(&filter, row + 1, len).max(row + 1);
                        continue;
                    }
                    if !f(index, row) {
                        return;
                    }
                    row += 1;
                }
            }
        }
    }

    /// The item of the only row the query yields.
    ///
    /// # Safety
    /// As for [`fetch_at`](Self::fetch_at), for whichever row that is.
    pub(crate) unsafe fn single_unchecked<'w>(
        &self,
        world: &'w World,
        ctx: FetchContext,
    ) -> Result<Q::Item<'w>, EcsError> {
        let query = crate::names::query_name::<Q, F>();
        let (mut first, mut more) = (None, false);
        // SAFETY: forwarded.
        unsafe {
            self.visit_matches(world, ctx, |index, row| {
                more = first.is_some();
                first.get_or_insert((index, row));
                !more
            })
        };
        match first {
            None => Err(EcsError::NoEntities { query }),
            Some(_) if more => Err(EcsError::MultipleEntities { query }),
            // SAFETY: the row is one the query yields; it is the only item handed out.
            Some((index, row)) => Ok(unsafe { self.fetch_at(world, index, row, ctx) }),
        }
    }

    /// The items of several entities at once.
    ///
    /// # Safety
    /// As for [`fetch_at`](Self::fetch_at), for every entity; when `distinct` is
    /// `false`, the query only reads (an entity may then be asked for twice).
    pub(crate) unsafe fn get_many_unchecked<'w, const N: usize>(
        &self,
        world: &'w World,
        entities: [Entity; N],
        ctx: FetchContext,
        distinct: bool,
    ) -> Result<[Q::Item<'w>; N], EcsError> {
        if distinct {
            for (i, entity) in entities.iter().enumerate() {
                if entities[..i].contains(entity) {
                    return Err(EcsError::AliasedMutability(*entity));
                }
            }
        }
        // Every entity is checked before any item is made (and stamped as written).
        for &entity in &entities {
            // SAFETY: forwarded.
            unsafe { self.locate(world, entity, ctx, |_, _| ()) }.map_err(|miss| miss.error::<Q, F>(entity))?;
        }
        // SAFETY: each entity was located above, so it yields a row; the rows are
        // distinct (checked above) unless the query only reads (caller), so no two
        // items alias.
        Ok(entities.map(|entity| unsafe {
            self.locate(world, entity, ctx, |fetch, row| {
                Q::mark_written(fetch, row..row + 1);
                Q::fetch(fetch, row)
            })
            .expect("located above")
        }))
    }

    /// The item of the only entity the query matches (read-only queries). Like
    /// [`get`](Self::get), it does not count as a run for `Changed`/`Added`.
    ///
    /// # Errors
    /// [`EcsError::NoEntities`] when no entity matches, [`EcsError::MultipleEntities`]
    /// when more than one does.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Player(&'static str);
    /// let mut world = World::new();
    /// let mut players = world.query_state::<&Player>();
    /// assert!(matches!(players.single(&world), Err(EcsError::NoEntities { .. })));
    /// world.spawn(Player("one"));
    /// assert_eq!(players.single(&world).map(|p| p.0), Ok("one"));
    /// world.spawn(Player("two"));
    /// assert!(matches!(players.single(&world), Err(EcsError::MultipleEntities { .. })));
    /// ```
    #[track_caller]
    pub fn single<'w>(&mut self, world: &'w World) -> Result<Q::Item<'w>, EcsError>
    where
        Q: ReadOnlyQueryData,
    {
        self.update_archetypes(world);
        let ctx = FetchContext::new(self.last_run, world.change_tick());
        // SAFETY: read-only query on a shared world; the state is up to date.
        unsafe { self.single_unchecked(world, ctx) }
    }

    /// [`single`](Self::single) with mutable access where the query asks.
    ///
    /// # Errors
    /// As for [`single`](Self::single).
    #[track_caller]
    pub fn single_mut<'w>(&mut self, world: &'w mut World) -> Result<Q::Item<'w>, EcsError> {
        world.check_change_ticks_if_due();
        self.update_archetypes(world);
        let ctx = FetchContext::new(self.last_run, world.change_tick());
        // SAFETY: `world` is borrowed mutably for `'w`; one item is handed out.
        unsafe { self.single_unchecked(world, ctx) }
    }

    /// The items of several entities at once (read-only queries; an entity may be
    /// named twice).
    ///
    /// # Errors
    /// The first entity's error, as for [`get`](Self::get).
    #[track_caller]
    pub fn get_many<'w, const N: usize>(
        &mut self,
        world: &'w World,
        entities: [Entity; N],
    ) -> Result<[Q::Item<'w>; N], EcsError>
    where
        Q: ReadOnlyQueryData,
    {
        self.update_archetypes(world);
        let ctx = FetchContext::new(self.last_run, world.change_tick());
        // SAFETY: read-only query on a shared world; the state is up to date.
        unsafe { self.get_many_unchecked(world, entities, ctx, false) }
    }

    /// The items of several distinct entities at once, with mutable access where
    /// the query asks. Nothing is handed out (or marked changed) unless every
    /// entity matches.
    ///
    /// # Errors
    /// [`EcsError::AliasedMutability`] when an entity is named twice; otherwise the
    /// first entity's error, as for [`get`](Self::get).
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Health(i32);
    /// let mut world = World::new();
    /// let (a, b) = (world.spawn(Health(10)), world.spawn(Health(3)));
    /// let mut health = world.query_state::<&mut Health>();
    /// let [ha, hb] = health.get_many_mut(&mut world, [a, b])?;
    /// core::mem::swap(&mut ha.0, &mut hb.0);
    /// assert_eq!(world.get::<Health>(a).map(|h| h.0), Some(3));
    /// assert_eq!(health.get_many_mut(&mut world, [a, a]).err(), Some(EcsError::AliasedMutability(a)));
    /// # Ok::<(), EcsError>(())
    /// ```
    #[track_caller]
    pub fn get_many_mut<'w, const N: usize>(
        &mut self,
        world: &'w mut World,
        entities: [Entity; N],
    ) -> Result<[Q::Item<'w>; N], EcsError> {
        world.check_change_ticks_if_due();
        self.update_archetypes(world);
        let ctx = FetchContext::new(self.last_run, world.change_tick());
        // SAFETY: `world` is borrowed mutably for `'w`; the entities are checked
        // distinct, so each row's item is handed out once.
        unsafe { self.get_many_unchecked(world, entities, ctx, true) }
    }
}

/// The fetches of a query's only matched archetype (see
/// [`QueryState::single_fetches`]).
pub(crate) struct SingleFetches<'w, Q: QueryData, F: QueryFilter> {
    archetype: ArchetypeId,
    fetch: Q::Fetch<'w>,
    filter: F::Fetch<'w>,
}

impl<'w, Q: QueryData, F: QueryFilter> SingleFetches<'w, Q, F> {
    /// The item of `entity`, stamped as written where the query writes; a miss
    /// says why there is none.
    ///
    /// # Safety
    /// The fetches came from `world` in this `'w`; the caller has the query's
    /// access for `'w` and no other live item of this query refers to the row.
    #[inline]
    pub(crate) unsafe fn find(&self, world: &'w World, entity: Entity) -> Result<Q::Item<'w>, Miss> {
        let location = world.entities().get_maybe_dead(entity).ok_or(Miss::Dead)?;
        // A dead or reserved slot names no archetype: not this one either.
        if location.archetype != self.archetype {
            return Err(Miss::of(world, entity));
        }
        // SAFETY: the slot names the matched archetype, so it holds a live entity
        // of it (see `get_maybe_dead`) and its row is below the length; the
        // fetches are that archetype's (caller); the access is the caller's.
        unsafe { item_at::<Q, F>(&self.fetch, &self.filter, location.row.index()) }
    }
}

/// The last step of a `get` that found the fetches of the entity's archetype:
/// the item of `row` if the row filters pass, stamped as written where the
/// query writes.
///
/// # Safety
/// The fetches are of the archetype holding a live entity in `row`; the caller
/// has the query's access for `'w`, and no other live item refers to the row.
#[inline(always)]
pub(crate) unsafe fn item_at<'w, Q: QueryData, F: QueryFilter>(
    fetch: &Q::Fetch<'w>,
    filter: &F::Fetch<'w>,
    row: usize,
) -> Result<Q::Item<'w>, Miss> {
    // SAFETY: forwarded; the row is checked against the filters before it is
    // fetched.
    unsafe {
        if !(Q::filter_row(fetch, row) && F::filter(filter, row)) {
            return Err(Miss::Mismatch);
        }
        Q::mark_written(fetch, row..row + 1);
        Ok(Q::fetch(fetch, row))
    }
}

/// Why a query has no item for an entity, before it becomes an [`EcsError`]:
/// naming the query for the error interns a string, which costs more than the
/// lookup, and walks such as `iter_ancestors` end on a miss every time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Miss {
    /// The entity is not alive.
    Dead,
    /// The entity is alive but does not match.
    Mismatch,
}

impl Miss {
    /// The miss of an entity whose slot named none of a query's archetypes:
    /// dead, or alive elsewhere.
    #[cold]
    pub(crate) fn of(world: &World, entity: Entity) -> Miss {
        if world.contains(entity) { Miss::Mismatch } else { Miss::Dead }
    }

    /// The error a public `get` returns for this miss.
    #[cold]
    pub(crate) fn error<Q: QueryData, F: QueryFilter>(self, entity: Entity) -> EcsError {
        match self {
            Miss::Dead => EcsError::NoSuchEntity(entity),
            Miss::Mismatch => EcsError::QueryMismatch { entity, query: crate::names::query_name::<Q, F>() },
        }
    }
}
