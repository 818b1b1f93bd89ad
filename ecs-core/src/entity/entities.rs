//! The entity index: entity handle -> (archetype, row), with slot reuse.
//!
//! ```text
//!  slots:  [ 0: gen 3, live (A1,r0) | 1: gen 2, free | 2: gen 1, live (A0,r5) | 3: gen MAX+, retired ]
//!  free:   [ 1 ]            <- stack of reusable slot indices
//! ```
//! A slot is live when its location names an archetype. `Commands` can reserve
//! handles through a shared world (`reserve`): they are indices past the end of
//! `slots`, counted atomically, which `flush` turns into slots marked reserved;
//! spawning a reserved handle makes it live. Freeing a slot bumps its
//! generation at once, so a handle to the old entity stops matching before the slot
//! is ever reused. A slot whose generation is already `u32::MAX` is *retired*: it
//! stays free forever instead of wrapping to a generation an old handle could match.

use core::num::NonZeroU32;
use core::sync::atomic::{AtomicU32, Ordering};

use super::Entity;
use super::location::{ArchetypeId, EntityLocation, Row};

#[derive(Clone, Copy, Debug)]
struct Slot {
    generation: NonZeroU32,
    /// `archetype == ArchetypeId::INVALID` when the slot is free or retired,
    /// `ArchetypeId::RESERVED` when reserved by `Commands` and not yet spawned.
    location: EntityLocation,
}

/// The entity index: a dense array of slots indexed by [`Entity::index`], plus a
/// free list. Every lookup is one array access; nothing is hashed.
#[derive(Debug, Default)]
pub struct Entities {
    slots: crate::storage::GrowVec<Slot>,
    free: Vec<u32>,
    live: u32,
    /// Handles reserved through `&self` since the last `flush`: indices
    /// `slots.len()..slots.len() + pending`.
    pending: AtomicU32,
    /// Slots `flush` marked reserved; those still reserved when
    /// `release_reserved` runs are freed.
    reserved: Vec<u32>,
}

/// A copy of an entity index, kept by a [`Snapshot`](crate::snapshot::Snapshot).
#[derive(Clone, Debug, Default)]
pub(crate) struct SavedEntities {
    slots: crate::storage::GrowVec<Slot>,
    free: Vec<u32>,
    reserved: Vec<u32>,
    live: u32,
    pending: u32,
}

impl SavedEntities {
    /// The number of live entities.
    pub(crate) fn live(&self) -> u32 {
        self.live
    }

    /// Points every entity of `entities` (a saved archetype's rows, in order)
    /// at its row of `archetype`: for a saved index whose archetypes were merged.
    pub(crate) fn relocate(&mut self, archetype: ArchetypeId, entities: &[Entity]) {
        for (row, entity) in entities.iter().enumerate() {
            self.slots[entity.index() as usize].location = EntityLocation { archetype, row: Row::new(row) };
        }
    }
}

impl Entities {
    /// The number of live entities.
    #[inline]
    pub fn len(&self) -> u32 {
        self.live
    }

    /// `true` when no entity is live.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Where the entity's components are, or `None` when the handle is stale,
    /// despawned or was never issued.
    #[inline]
    pub fn get(&self, entity: Entity) -> Option<EntityLocation> {
        let slot = self.slots.get(entity.index() as usize)?;
        (slot.generation == entity.generation() && slot.location.is_live()).then_some(slot.location)
    }

    /// The location of the handle's slot if the generation matches, *without*
    /// checking that the slot holds a live entity: a free or reserved slot's
    /// location names an archetype id above every real one. For lookups that index
    /// a table by archetype id anyway: an index miss there covers the liveness
    /// check, and [`get`](Self::get) then tells a dead handle from a mismatch.
    #[inline]
    pub(crate) fn get_maybe_dead(&self, entity: Entity) -> Option<EntityLocation> {
        let slot = self.slots.get(entity.index() as usize)?;
        (slot.generation == entity.generation()).then_some(slot.location)
    }

    /// `true` when the handle names a live entity.
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.get(entity).is_some()
    }

    /// Makes room for `additional` new entities without reallocating.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.slots.reserve(additional.saturating_sub(self.free.len()));
    }

    /// Issues a handle for a new entity at `location`. Reuses a freed slot when there
    /// is one.
    ///
    /// # Panics
    /// When all 2^32 slots are in use or retired.
    #[inline]
    pub(crate) fn alloc(&mut self, location: EntityLocation) -> Entity {
        if *self.pending.get_mut() != 0 {
            self.flush();
        }
        self.live += 1;
        if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            slot.location = location;
            Entity::new(index, slot.generation)
        } else {
            let index = u32::try_from(self.slots.len())
                .ok()
                .filter(|&i| i != u32::MAX)
                .expect("entity index space exhausted: 2^32 entity slots are in use or retired");
            self.slots.push(Slot { generation: NonZeroU32::MIN, location });
            Entity::new(index, NonZeroU32::MIN)
        }
    }

    /// Reserves a handle through a shared reference, for an entity spawned later
    /// (by `Commands`). Reserved handles are always fresh indices.
    ///
    /// # Panics
    /// When the index space is exhausted.
    pub(crate) fn reserve_entity(&self) -> Entity {
        let offset = self.pending.fetch_add(1, Ordering::Relaxed) as usize;
        let index = u32::try_from(self.slots.len() + offset)
            .ok()
            .filter(|&i| i != u32::MAX)
            .expect("entity index space exhausted: 2^32 entity slots are in use or retired");
        Entity::new(index, NonZeroU32::MIN)
    }

    /// Turns pending reservations into slots marked reserved.
    pub(crate) fn flush(&mut self) {
        let pending = core::mem::take(self.pending.get_mut());
        for _ in 0..pending {
            self.reserved.push(self.slots.len() as u32);
            self.slots.push(Slot { generation: NonZeroU32::MIN, location: EntityLocation::RESERVED });
        }
    }

    /// Makes a reserved handle live at `location`. `false` when the handle is not a
    /// reserved, unspawned one.
    pub(crate) fn spawn_reserved(&mut self, entity: Entity, location: EntityLocation) -> bool {
        self.flush();
        match self.slots.get_mut(entity.index() as usize) {
            Some(slot) if slot.generation == entity.generation() && slot.location == EntityLocation::RESERVED => {
                slot.location = location;
                self.live += 1;
                true
            }
            _ => false,
        }
    }

    /// `true` when the handle was reserved and not yet spawned.
    pub(crate) fn is_reserved(&self, entity: Entity) -> bool {
        let index = entity.index() as usize;
        match self.slots.get(index) {
            Some(slot) => slot.generation == entity.generation() && slot.location == EntityLocation::RESERVED,
            None => {
                entity.generation() == NonZeroU32::MIN
                    && index < self.slots.len() + self.pending.load(Ordering::Relaxed) as usize
            }
        }
    }

    /// Frees every reserved slot that was never spawned.
    #[inline]
    pub(crate) fn release_reserved(&mut self) {
        // The common case, a sync point after systems that spawned nothing,
        // decided without a call.
        if *self.pending.get_mut() != 0 || !self.reserved.is_empty() {
            self.release_reserved_slow();
        }
    }

    /// Frees `entity`'s slot when it is a reserved, unspawned handle.
    pub(crate) fn release_one_reserved(&mut self, entity: Entity) {
        self.flush();
        if !self.is_reserved(entity) {
            return;
        }
        // Its index stays in `reserved`, which `release_reserved` skips once
        // the slot is no longer marked reserved.
        self.free_reserved_slot(entity.index());
    }

    /// Frees the slot at `index`, reserved and never spawned: a new
    /// generation, back on the free list (unless the generations ran out).
    fn free_reserved_slot(&mut self, index: u32) {
        let slot = &mut self.slots[index as usize];
        slot.location = EntityLocation::FREE;
        if let Some(next) = slot.generation.checked_add(1) {
            slot.generation = next;
            self.free.push(index);
        }
    }

    #[cold]
    #[inline(never)]
    fn release_reserved_slow(&mut self) {
        self.flush();
        for index in core::mem::take(&mut self.reserved) {
            if self.slots[index as usize].location == EntityLocation::RESERVED {
                self.free_reserved_slot(index);
            }
        }
    }

    /// Frees the entity's slot and returns where its components were.
    pub(crate) fn free(&mut self, entity: Entity) -> Option<EntityLocation> {
        let location = self.get(entity)?;
        self.free_slot(entity.index());
        Some(location)
    }

    fn free_slot(&mut self, index: u32) {
        let slot = &mut self.slots[index as usize];
        debug_assert!(slot.location.is_live());
        slot.location = EntityLocation::FREE;
        self.live -= 1;
        // Retire rather than wrap: a wrapped generation could equal a stale handle's.
        if let Some(next) = slot.generation.checked_add(1) {
            slot.generation = next;
            self.free.push(index);
        }
    }

    /// Moves a live entity's record to a new location (after a row move or swap).
    #[inline]
    pub(crate) fn set_location(&mut self, index: u32, location: EntityLocation) {
        let slot = &mut self.slots[index as usize];
        debug_assert!(slot.location.is_live());
        slot.location = location;
    }

    /// Frees every live slot, as if each entity had been despawned.
    pub(crate) fn clear(&mut self) {
        for index in 0..self.slots.len() as u32 {
            if self.slots[index as usize].location.is_live() {
                self.free_slot(index);
            }
        }
        debug_assert_eq!(self.live, 0);
    }

    /// Every live entity with its location, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (Entity, EntityLocation)> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, slot)| slot.location.is_live())
            .map(|(index, slot)| (Entity::new(index as u32, slot.generation), slot.location))
    }

    /// Checks the free list against the slots: every free-list entry is a free slot,
    /// none appears twice, and the live count matches. Used by `World::check_invariants`.
    pub(crate) fn check_invariants(&self) -> Result<(), String> {
        let mut on_free_list = vec![false; self.slots.len()];
        for &index in &self.free {
            let slot = self
                .slots
                .get(index as usize)
                .ok_or_else(|| format!("free list names slot {index}, beyond the index"))?;
            if slot.location != EntityLocation::FREE {
                return Err(format!("slot {index} is both in use and on the free list"));
            }
            if std::mem::replace(&mut on_free_list[index as usize], true) {
                return Err(format!("slot {index} is on the free list twice"));
            }
        }
        let live = self.slots.iter().filter(|s| s.location.is_live()).count();
        if live != self.live as usize {
            return Err(format!("live count is {} but {live} slots are live", self.live));
        }
        Ok(())
    }

    /// The index as a save records it: the number of slots, the free list
    /// (each slot with the generation it hands out next, in free-list order)
    /// and every other slot not live in a saved archetype (`saved` says which
    /// archetypes are saved), as retired. `saved_live` is the number of live
    /// entities in saved archetypes.
    #[cfg(feature = "serde")]
    pub(crate) fn save_layout(
        &self,
        saved: impl Fn(ArchetypeId) -> bool,
        saved_live: usize,
    ) -> (u32, Vec<Entity>, Vec<Entity>) {
        let entity = |index: u32| Entity::new(index, self.slots[index as usize].generation);
        let free: Vec<Entity> = self.free.iter().map(|&index| entity(index)).collect();
        // The saved live slots and the free ones are disjoint (a free slot is
        // not live, and the free list holds each slot once): when they add up
        // to every slot, none is retired, and the scan is skipped.
        if saved_live + self.free.len() == self.slots.len() {
            return (self.slots.len() as u32, free, Vec::new());
        }
        let mut on_free_list = vec![false; self.slots.len()];
        self.free.iter().for_each(|&index| on_free_list[index as usize] = true);
        let retired = (0..self.slots.len() as u32)
            .filter(|&index| {
                let location = self.slots[index as usize].location;
                let saved_live = location.is_live() && saved(location.archetype);
                !(on_free_list[index as usize] || saved_live)
            })
            .map(entity)
            .collect();
        (self.slots.len() as u32, free, retired)
    }

    /// `true` when `live` entities are live and no handle is reserved: a load
    /// keeps the saved ids only when those live are observers it can keep.
    #[cfg(feature = "serde")]
    pub(crate) fn is_unused_but(&self, live: usize) -> bool {
        self.live as usize == live
            && self.pending.load(Ordering::Relaxed) == 0
            && self.reserved.iter().all(|&index| self.slots[index as usize].location != EntityLocation::RESERVED)
    }

    /// Replaces the index by `slots` dead slots: `free` on the free list in
    /// that order and `retired` off it, each with its generation; the others
    /// get theirs from [`place`](Self::place). `kept`, live entities each also
    /// in `retired`, stay where they are. The caller has checked that every
    /// slot below `slots` is listed exactly once.
    #[cfg(feature = "serde")]
    pub(crate) fn load_layout(&mut self, slots: u32, free: &[Entity], retired: &[Entity], kept: &[Entity]) {
        let kept: Vec<(Entity, EntityLocation)> =
            kept.iter().map(|&e| (e, self.slots[e.index() as usize].location)).collect();
        self.slots.clear();
        self.slots.resize(slots as usize, Slot { generation: NonZeroU32::MIN, location: EntityLocation::FREE });
        for &entity in free.iter().chain(retired) {
            self.slots[entity.index() as usize].generation = entity.generation();
        }
        for &(entity, location) in &kept {
            debug_assert!(location.is_live() && retired.contains(&entity));
            self.slots[entity.index() as usize] = Slot { generation: entity.generation(), location };
        }
        self.free.clear();
        self.free.extend(free.iter().map(|e| e.index()));
        self.reserved.clear();
        self.live = kept.len() as u32;
        *self.pending.get_mut() = 0;
    }

    /// Makes `entity`'s dead slot (from [`load_layout`](Self::load_layout)) live
    /// at `location`, with `entity`'s generation.
    #[cfg(feature = "serde")]
    pub(crate) fn place(&mut self, entity: Entity, location: EntityLocation) {
        let slot = &mut self.slots[entity.index() as usize];
        debug_assert!(!slot.location.is_live());
        *slot = Slot { generation: entity.generation(), location };
        self.live += 1;
    }

    /// The handles the next `count` calls to [`alloc`](Self::alloc) will
    /// return, without allocating (no reservation may be pending).
    #[cfg(feature = "serde")]
    pub(crate) fn peek_allocs(&self, count: usize) -> Vec<Entity> {
        debug_assert_eq!(self.pending.load(Ordering::Relaxed), 0);
        let reused =
            self.free.iter().rev().take(count).map(|&index| Entity::new(index, self.slots[index as usize].generation));
        let fresh = (self.slots.len()..).take(count.saturating_sub(self.free.len())).map(|index| {
            let index = u32::try_from(index).ok().filter(|&i| i != u32::MAX).expect("entity index space exhausted");
            Entity::new(index, NonZeroU32::MIN)
        });
        reused.chain(fresh).collect()
    }

    /// Copies the whole index into `dst` (a snapshot), reusing its buffers.
    pub(crate) fn save_into(&self, dst: &mut SavedEntities) {
        dst.slots.clone_from(&self.slots);
        dst.free.clone_from(&self.free);
        dst.reserved.clone_from(&self.reserved);
        dst.live = self.live;
        dst.pending = self.pending.load(Ordering::Relaxed);
    }

    /// Replaces the index with a saved one, reusing this index's buffers. Live
    /// slots' archetypes go through `map` (saved index -> archetype here), unless
    /// it is `None` (the same ids).
    pub(crate) fn restore_from(&mut self, src: &SavedEntities, map: Option<&[ArchetypeId]>) {
        self.slots.clone_from(&src.slots);
        self.free.clone_from(&src.free);
        self.reserved.clone_from(&src.reserved);
        self.live = src.live;
        *self.pending.get_mut() = src.pending;
        if let Some(map) = map {
            for slot in &mut self.slots {
                if slot.location.is_live() {
                    slot.location.archetype = map[slot.location.archetype.index()];
                }
            }
        }
    }

    /// Exchanges the index with a saved one (same archetype ids).
    pub(crate) fn swap_with(&mut self, saved: &mut SavedEntities) {
        core::mem::swap(&mut self.slots, &mut saved.slots);
        core::mem::swap(&mut self.free, &mut saved.free);
        core::mem::swap(&mut self.reserved, &mut saved.reserved);
        core::mem::swap(&mut self.live, &mut saved.live);
        core::mem::swap(self.pending.get_mut(), &mut saved.pending);
    }

    #[cfg(test)]
    fn force_generation(&mut self, index: u32, generation: NonZeroU32) {
        self.slots[index as usize].generation = generation;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn somewhere() -> EntityLocation {
        EntityLocation { archetype: ArchetypeId::EMPTY, row: Row::new(0) }
    }

    #[test]
    fn freed_slot_is_reused_with_next_generation() {
        let mut entities = Entities::default();
        let a = entities.alloc(somewhere());
        assert!(entities.free(a).is_some());
        assert!(!entities.contains(a));
        let b = entities.alloc(somewhere());
        assert_eq!(b.index(), a.index());
        assert_eq!(b.generation().get(), a.generation().get() + 1);
        assert!(entities.contains(b));
        assert!(!entities.contains(a));
        assert!(entities.free(a).is_none(), "a stale handle must not free the new entity");
        entities.check_invariants().unwrap();
    }

    #[test]
    fn slot_at_max_generation_is_retired_not_wrapped() {
        let mut entities = Entities::default();
        let a = entities.alloc(somewhere());
        entities.force_generation(a.index(), NonZeroU32::MAX);
        let last = Entity::new(a.index(), NonZeroU32::MAX);
        assert!(entities.contains(last));
        entities.free(last).unwrap();
        let next = entities.alloc(somewhere());
        assert_ne!(next.index(), a.index(), "a retired slot must never be reused");
        assert!(!entities.contains(last));
        assert!(!entities.contains(Entity::new(a.index(), NonZeroU32::MIN)));
        assert_eq!(entities.len(), 1);
        entities.check_invariants().unwrap();
    }

    #[test]
    fn forged_handles_are_not_found() {
        let mut entities = Entities::default();
        let a = entities.alloc(somewhere());
        let forged_gen = Entity::new(a.index(), NonZeroU32::new(7).unwrap());
        let forged_index = Entity::new(1_000, NonZeroU32::MIN);
        assert!(entities.get(forged_gen).is_none());
        assert!(entities.get(forged_index).is_none());
        entities.free(a).unwrap();
        // The freed slot's bumped generation must not make a guessed handle live.
        assert!(!entities.contains(Entity::new(a.index(), a.generation().checked_add(1).unwrap())));
    }

    #[test]
    fn clear_frees_everything() {
        let mut entities = Entities::default();
        let all: Vec<_> = (0..10).map(|_| entities.alloc(somewhere())).collect();
        entities.clear();
        assert!(entities.is_empty());
        assert!(all.iter().all(|&e| !entities.contains(e)));
        entities.check_invariants().unwrap();
    }
}
