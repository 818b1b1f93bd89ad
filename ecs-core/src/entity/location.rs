//! Where an entity lives: its archetype and its row there, as typed ids.

/// The index of an archetype in its world. Archetype 0 is the empty archetype.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct ArchetypeId(u32);

impl ArchetypeId {
    /// The archetype of entities with no components.
    pub const EMPTY: Self = Self(0);
    /// Names no archetype; marks free entity slots.
    pub(crate) const INVALID: Self = Self(u32::MAX);
    /// Names no archetype; marks entity slots reserved by `Commands` and not yet
    /// spawned. Every real id is below it.
    pub(crate) const RESERVED: Self = Self(u32::MAX - 1);

    pub(crate) fn new(index: usize) -> Self {
        let index = u32::try_from(index).ok().filter(|&i| i < Self::RESERVED.0).expect("too many archetypes");
        Self(index)
    }

    /// The id as an array index.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// A row of an archetype: the same index in the entity column and every component column.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Row(u32);

impl Row {
    pub(crate) const INVALID: Self = Self(u32::MAX);

    /// # Panics
    /// When `index` does not fit in 32 bits: an archetype holds fewer than 2^32 rows.
    #[inline]
    pub(crate) fn new(index: usize) -> Self {
        debug_assert!(index < u32::MAX as usize);
        Self(index as u32)
    }

    /// The row as an array index.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// Where an entity's components are: its archetype and its row in that archetype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntityLocation {
    /// The archetype holding the entity.
    pub archetype: ArchetypeId,
    /// The row of the entity in every column of that archetype.
    pub row: Row,
}

impl EntityLocation {
    /// The location of a slot that holds no entity.
    pub(super) const FREE: Self = Self { archetype: ArchetypeId::INVALID, row: Row::INVALID };
    pub(super) const RESERVED: Self = Self { archetype: ArchetypeId::RESERVED, row: Row::INVALID };

    /// `true` when the location names a real archetype: the slot holds a live entity.
    #[inline]
    pub(super) fn is_live(self) -> bool {
        self.archetype < ArchetypeId::RESERVED
    }
}
