//! [`SpawnBatch`]: spawning many entities of one bundle type.

use super::World;
use crate::archetype::{ArchetypeId, Row};
use crate::bundle::{Bundle, BundleId};
use crate::entity::{Entity, EntityLocation};

impl World {
    /// Spawns one entity per item of `bundles`, returning an iterator of their handles.
    ///
    /// The bundle type is looked up once and the archetype's columns are reserved once
    /// for the iterator's lower size bound; each item is written straight into the
    /// columns. Entities are spawned as the returned iterator advances, and the rest
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
        let bundles = bundles.into_iter();
        let bundle = self.bundle_id::<I::Item>();
        let (lower, _) = bundles.size_hint();
        let archetype = self.spawn_archetype(bundle);
        self.archetypes.get_mut(archetype).reserve(lower);
        self.entities.reserve(lower);
        SpawnBatch { world: self, bundles, bundle, archetype }
    }
}

/// The iterator returned by [`World::spawn_batch`]: spawns an entity per item.
/// Dropping it spawns the remaining items.
pub struct SpawnBatch<'w, I>
where
    I: Iterator,
    I::Item: Bundle,
{
    world: &'w mut World,
    bundles: I,
    bundle: BundleId,
    archetype: ArchetypeId,
}

impl<I> Iterator for SpawnBatch<'_, I>
where
    I: Iterator,
    I::Item: Bundle,
{
    type Item = Entity;

    #[inline]
    fn next(&mut self) -> Option<Entity> {
        let bundle = self.bundles.next()?;
        // A no-op while the batch's reservation lasts: one comparison.
        self.world.archetypes.get_mut(self.archetype).reserve(1);
        // SAFETY: `self.bundle` is `I::Item`'s id in this world and `self.archetype` its
        // spawn archetype (both set in `spawn_batch`); one row was reserved just above.
        Some(unsafe { self.world.spawn_reserved(bundle, self.bundle) })
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.bundles.size_hint()
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
        if !std::thread::panicking() {
            self.spawn_rest();
        }
    }
}

impl<I> SpawnBatch<'_, I>
where
    I: Iterator,
    I::Item: Bundle,
{
    /// Spawns every remaining item. What `next` looks up per item (the bundle's
    /// spawn target, its archetype, the tick) is looked up once here, so a row
    /// costs its writes and little else.
    fn spawn_rest(&mut self) {
        let world = &mut *self.world;
        let tick = world.change_tick();
        let target = world.bundles.get(self.bundle).spawn.as_ref().expect("spawn_batch created the spawn archetype");
        let archetype = world.archetypes.get_mut(target.archetype);
        for bundle in &mut self.bundles {
            archetype.reserve(1);
            let location = EntityLocation { archetype: target.archetype, row: Row::new(archetype.len()) };
            let entity = world.entities.alloc(location);
            // SAFETY: `target` is the item type's spawn target, whose archetype this
            // is, and one row was reserved just above.
            unsafe { super::structural::write_row(archetype, &target.columns, bundle, tick, entity) };
        }
    }
}
