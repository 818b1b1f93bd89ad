//! [`SpawnBatch`]: spawning many entities of one bundle type.

use super::World;
use crate::archetype::{Archetype, Row};
use crate::bundle::Bundle;
use crate::entity::{Entities, Entity, EntityLocation};
use crate::storage::Tick;

impl World {
    /// Spawns one entity per item of `bundles`, returning an iterator of their handles.
    ///
    /// The bundle type is looked up once and the archetype's columns are reserved once
    /// for the iterator's lower size bound (up to 64 MiB of rows: a hint is not
    /// trusted beyond that, and the columns grow as items arrive); each item is
    /// written straight into the columns. Entities are spawned as the returned iterator advances, and the rest
    /// when it is dropped, so `world.spawn_batch(items);` spawns them all.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Mass(f32);
    /// let mut world = World::new();
    /// let ids: Vec<Entity> = world.spawn_batch((0..3).map(|i| Mass(i as f32))).collect();
    /// assert_eq!(ids.len(), 3);
    /// world.spawn_batch((0..10).map(|_| Mass(1.0)));
    /// assert_eq!(world.len(), 13);
    /// ```
    pub fn spawn_batch<I>(&mut self, bundles: I) -> SpawnBatch<'_, I::IntoIter>
    where
        I: IntoIterator,
        I::Item: Bundle,
    {
        let mut bundles = bundles.into_iter();
        // With hooks or observers to run, each entity is spawned (and its hooks
        // run) before the batch is handed back.
        let spawned = (I::Item::__HOOKED || self.components.lifecycle_active())
            .then(|| bundles.by_ref().map(|bundle| self.spawn(bundle)).collect::<Vec<_>>().into_iter());
        let bundle = self.bundle_id::<I::Item>();
        let archetype = self.spawn_archetype(bundle);
        let lower = upfront_rows(bundles.size_hint(), self.archetypes.get(archetype).map_or(0, Archetype::row_bytes));
        self.entities.reserve(lower);
        let tick = self.change_tick();
        // Disjoint borrows of the world's parts, held for the whole batch: every
        // row then costs its writes, with nothing looked up again.
        let target = self.bundles.get(bundle).spawn.as_ref().expect("spawn_archetype created the spawn target");
        let archetype = self.archetypes.get_mut(archetype);
        archetype.reserve(lower);
        SpawnBatch { bundles, entities: &mut self.entities, archetype, columns: &target.columns, tick, spawned }
    }
}

/// The most bytes a batch reserves in its archetype's arrays before its items
/// arrive. A size hint is only a hint, and a safe iterator may claim a lower
/// bound it never yields (or one no machine could hold): the claim is trusted up
/// to this many bytes of rows, which covers batches as large as scenes are
/// loaded with; beyond it the arrays grow as rows actually arrive (large ones in
/// steps that copy nothing, see `storage::growth`). Bytes, not rows: a million
/// rows of a 64 KiB component would be 64 GiB.
const MAX_UPFRONT_BYTES: usize = 64 << 20;

/// How many rows to reserve for an iterator with this size hint, in an
/// archetype whose rows take `row_bytes` bytes over all its arrays.
fn upfront_rows((lower, upper): (usize, Option<usize>), row_bytes: usize) -> usize {
    lower.min(upper.unwrap_or(usize::MAX)).min(MAX_UPFRONT_BYTES / row_bytes.max(1))
}

/// The iterator returned by [`World::spawn_batch`]: spawns an entity per item.
/// Dropping it spawns the remaining items.
pub struct SpawnBatch<'w, I>
where
    I: Iterator,
    I::Item: Bundle,
{
    bundles: I,
    entities: &'w mut Entities,
    /// The item type's spawn archetype.
    archetype: &'w mut Archetype,
    /// The item type's spawn target columns in `archetype` (see `write_row`).
    columns: &'w [u32],
    tick: Tick,
    /// The entities already spawned, when hooks or observers had to run.
    spawned: Option<std::vec::IntoIter<Entity>>,
}

impl<I> Iterator for SpawnBatch<'_, I>
where
    I: Iterator,
    I::Item: Bundle,
{
    type Item = Entity;

    #[inline]
    fn next(&mut self) -> Option<Entity> {
        if let Some(spawned) = &mut self.spawned {
            return spawned.next();
        }
        let bundle = self.bundles.next()?;
        // SAFETY: `spawn_batch` took `columns` and `archetype` from the same spawn
        // target of the item type.
        Some(unsafe { spawn_one(self.entities, self.archetype, self.columns, self.tick, bundle) })
    }

    /// The items' hint, with an inexact lower bound capped as the reservation is:
    /// collecting the handles into a `Vec` would otherwise reserve for a claim the
    /// items never make. An exact hint (an `ExactSizeIterator`'s) is passed on.
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        if let Some(spawned) = &self.spawned {
            return spawned.size_hint();
        }
        match self.bundles.size_hint() {
            (lower, Some(upper)) if lower == upper => (lower, Some(upper)),
            (lower, upper) => (lower.min(MAX_UPFRONT_BYTES / size_of::<Entity>()), upper),
        }
    }
}

impl<I> ExactSizeIterator for SpawnBatch<'_, I>
where
    I: ExactSizeIterator,
    I::Item: Bundle,
{
}

impl<I> Drop for SpawnBatch<'_, I>
where
    I: Iterator,
    I::Item: Bundle,
{
    fn drop(&mut self) {
        // If the source iterator panicked, calling it again while unwinding could
        // panic twice and abort; the items spawned so far are complete entities.
        if std::thread::panicking() {
            return;
        }
        let Self { bundles, entities, archetype, columns, tick, .. } = self;
        if archetype.takes_whole_rows(columns) {
            loop {
                // SAFETY: `spawn_batch` took `columns` and `archetype` from the
                // same spawn target of the item type, which fills whole rows
                // (checked above).
                if unsafe { fill_spare_rows(entities, archetype, columns, *tick, bundles) } {
                    return;
                }
                // The room is full: the next item, if any, grows it.
                let Some(bundle) = bundles.next() else { return };
                // SAFETY: as in `next`.
                unsafe { spawn_one(entities, archetype, columns, *tick, bundle) };
            }
        }
        for bundle in bundles {
            // SAFETY: as in `next`.
            unsafe { spawn_one(entities, archetype, columns, *tick, bundle) };
        }
    }
}

/// Spawns items of `bundles` into the rows `archetype` has room for, each
/// value written straight into its slot and the rows counted once, when the
/// room is full, the items run out, or the items' iterator panics (every row
/// written by then is a complete entity). `true` when the items ran out.
///
/// Counting rows one by one, as [`spawn_one`] does, stores every column's
/// length and tick summary per row; here a row costs its writes.
///
/// # Safety
/// `columns` is `B`'s spawn target column list for `archetype`, which takes
/// whole rows of it ([`Archetype::takes_whole_rows`]).
#[inline(always)]
unsafe fn fill_spare_rows<B: Bundle>(
    entities: &mut Entities,
    archetype: &mut Archetype,
    columns: &[u32],
    tick: Tick,
    bundles: &mut impl Iterator<Item = B>,
) -> bool {
    /// The rows written past the archetype's length, counted when dropped.
    struct Written<'a> {
        archetype: &'a mut Archetype,
        rows: usize,
        tick: Tick,
    }
    impl Drop for Written<'_> {
        fn drop(&mut self) {
            // SAFETY: each of the `rows` rows past the length got its entity and
            // a value in every column (the loop below counts a row once written),
            // within the capacity, and no column is per-field (caller).
            unsafe { self.archetype.commit_rows(self.rows, self.tick) };
        }
    }
    let start = archetype.len();
    let room = archetype.capacity() - start;
    let id = archetype.id();
    let mut written = Written { archetype, rows: 0, tick };
    while written.rows < room {
        let Some(bundle) = bundles.next() else { return true };
        let row = start + written.rows;
        let archetype = &mut *written.archetype;
        let mut targets = columns.iter();
        // SAFETY: `targets` maps each bundle component, in write order, to the
        // index of the column of the same component id (caller), so each slot
        // has the component's type; `write` visits as many components as
        // `register` did (the `Bundle` contract), so `targets` never runs out.
        // `row` is below the capacity (`room`), and the columns are whole
        // (caller).
        unsafe {
            bundle.write(&mut || {
                let column = *targets.next().unwrap_unchecked();
                archetype.columns.get_unchecked(column as usize).spare_slot(row)
            });
        }
        // The entity exists once its values are in place: a panic before here
        // leaves no entity pointing at an uncounted row.
        let entity = entities.alloc(EntityLocation { archetype: id, row: Row::new(row) });
        // SAFETY: the entity column's spare capacity covers the archetype's,
        // and `row` is below it.
        unsafe { archetype.entities.as_mut_ptr().add(row).write(entity) };
        written.rows += 1;
    }
    false
}

/// Spawns one entity of the batch.
///
/// # Safety
/// `columns` is `B`'s spawn target column list for `archetype` (as `spawn_batch`
/// stores them side by side).
#[inline(always)]
unsafe fn spawn_one<B: Bundle>(
    entities: &mut Entities,
    archetype: &mut Archetype,
    columns: &[u32],
    tick: Tick,
    bundle: B,
) -> Entity {
    // A no-op while the batch's reservation lasts: one comparison.
    archetype.reserve(1);
    let entity = entities.alloc(EntityLocation { archetype: archetype.id(), row: Row::new(archetype.len()) });
    // SAFETY: `columns` is `B`'s spawn target for this archetype (caller), and one
    // row was reserved just above.
    unsafe { super::structural::write_row(archetype, columns, bundle, tick, entity) };
    entity
}
