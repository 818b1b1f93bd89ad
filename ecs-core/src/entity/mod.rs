//! Entity handles and the entity index.
//!
//! An [`Entity`] is a 64-bit handle: a 32-bit `index` into the entity index and a
//! non-zero 32-bit `generation`. The index (`Entities`) maps a live handle to the
//! archetype and row holding its components; a despawned handle's generation no longer
//! matches its slot, so it can never reach the data of the entity that reuses the slot.

mod entities;
pub(crate) mod location;
mod map;
#[cfg(feature = "serde")]
mod serde;

pub(crate) use entities::Entities;
pub(crate) use entities::SavedEntities;
pub(crate) use location::EntityLocation;
pub use map::MapEntities;

/// A fast hasher for keys that are entities (or other ids the crate hands
/// out): one multiply per word, with no random seed. Entities are not chosen
/// by an adversary, so maps keyed by them need no protection from flooding.
pub use crate::hashers::IdHasher as EntityHasher;

/// Builds [`EntityHasher`]s: the hasher of [`EntityHashMap`] and [`EntityHashSet`].
pub type EntityHash = core::hash::BuildHasherDefault<EntityHasher>;

/// A map keyed by entities, with the fast [`EntityHasher`] (bevy_ecs's
/// `EntityHashMap`). Make one with `EntityHashMap::default()`.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// use ecs_core::entity::EntityHashMap;
///
/// let mut world = World::new();
/// let (a, b) = (world.spawn(()), world.spawn(()));
/// let mut threat: EntityHashMap<u32> = EntityHashMap::default();
/// threat.insert(a, 3);
/// *threat.entry(b).or_default() += 1;
/// assert_eq!(threat[&a] + threat[&b], 4);
/// ```
pub type EntityHashMap<V> = std::collections::HashMap<Entity, V, EntityHash>;

/// A set of entities, with the fast [`EntityHasher`] (bevy_ecs's
/// `EntityHashSet`). Make one with `EntityHashSet::default()`.
pub type EntityHashSet = std::collections::HashSet<Entity, EntityHash>;

use core::fmt;
use core::num::NonZeroU32;

/// A handle to an entity in a [`World`](crate::World).
///
/// Cheap to copy and compare. `Option<Entity>` is 8 bytes. Handles are only
/// meaningful for the world that created them; a stale handle (its entity was
/// despawned) is rejected by every API of that world.
///
/// `Debug` and `Display` print `index v generation`, e.g. `5v2`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(C, align(8))]
pub struct Entity {
    // Field order matters for `Ord`: entities sort by index first.
    index: u32,
    generation: NonZeroU32,
}

impl Entity {
    /// A handle that names no entity: what [`On::target`](crate::observer::On::target)
    /// gives for an event triggered without a target, and a placeholder for fields
    /// filled in later. Every world answers `None`/`Err` for it.
    pub const PLACEHOLDER: Entity = Entity { index: u32::MAX, generation: NonZeroU32::MAX };

    pub(crate) const fn new(index: u32, generation: NonZeroU32) -> Self {
        Self { index, generation }
    }

    /// `index` in `generation` (not 0), for the crate's unit tests.
    #[cfg(test)]
    pub(crate) fn at(index: u32, generation: u32) -> Self {
        Self::new(index, NonZeroU32::new(generation).expect("generations start at 1"))
    }

    /// The slot of this entity in the entity index. Reused after despawn.
    #[inline]
    pub const fn index(self) -> u32 {
        self.index
    }

    /// How many times the slot was reused before this entity, plus one.
    #[inline]
    pub const fn generation(self) -> NonZeroU32 {
        self.generation
    }

    /// Packs the handle into 64 bits: generation in the high half, index in the low half.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// let mut world = World::new();
    /// let e = world.spawn(());
    /// assert_eq!(Entity::from_bits(e.to_bits()), Some(e));
    /// ```
    #[inline]
    pub const fn to_bits(self) -> u64 {
        ((self.generation.get() as u64) << 32) | self.index as u64
    }

    /// Unpacks a handle made by [`to_bits`](Self::to_bits). Returns `None` when the
    /// generation half is zero, which no handle ever has.
    ///
    /// A handle rebuilt from arbitrary bits is safe to use: the world answers
    /// `None`/`Err` unless it names a live entity.
    #[inline]
    pub const fn from_bits(bits: u64) -> Option<Self> {
        match NonZeroU32::new((bits >> 32) as u32) {
            Some(generation) => Some(Self { index: bits as u32, generation }),
            None => None,
        }
    }
}

impl fmt::Debug for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}v{}", self.index, self.generation)
    }
}

impl fmt::Display for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_entity_is_eight_bytes() {
        assert_eq!(size_of::<Entity>(), 8);
        assert_eq!(size_of::<Option<Entity>>(), 8);
    }

    #[test]
    fn bits_round_trip_and_zero_generation_is_rejected() {
        let e = Entity::new(5, NonZeroU32::new(2).unwrap());
        assert_eq!(e.to_bits(), (2 << 32) | 5);
        assert_eq!(Entity::from_bits(e.to_bits()), Some(e));
        assert_eq!(Entity::from_bits(5), None);
        assert_eq!(format!("{e:?}"), "5v2");
        assert_eq!(e.to_string(), "5v2");
    }
}
