//! [`RelationshipSources`]: the ordered list of entities that point at a target.

use core::ops::Deref;

use crate::entity::Entity;

/// The entities related to a target, in the order they were linked: the
/// contents of a relationship target such as [`Children`](super::Children).
/// It derefs to `[Entity]`.
///
/// Only the world's relationship upkeep changes it; a user can make an empty one
/// (`Default`) and read it, never fill it by hand, so it cannot disagree with the
/// relationships it lists.
///
/// Unlinking is cheap at both ends: the list is a slice of a `Vec` that may start
/// past index 0, so removing the first entity moves nothing, and a removal
/// shifts whichever side of it is shorter. Draining a parent from the front or
/// the back is O(1) per child.
/// Not `Clone`: a copy inserted on another entity would list sources that do
/// not point at it.
#[derive(Default)]
pub struct RelationshipSources {
    /// `entities[head..]` is the list; the slots before `head` are spare.
    entities: Vec<Entity>,
    head: usize,
}

impl RelationshipSources {
    /// A list of the given entities (for the crate's upkeep).
    pub(crate) fn from_vec(entities: Vec<Entity>) -> Self {
        Self { entities, head: 0 }
    }

    /// Appends `entity`.
    pub(crate) fn push(&mut self, entity: Entity) {
        // Reuse the spare front before growing, once it is at least half.
        if self.entities.len() == self.entities.capacity() && self.head > 0 && self.head * 2 >= self.entities.len() {
            self.entities.drain(..self.head);
            self.head = 0;
        }
        self.entities.push(entity);
    }

    /// Removes `entity` if listed (its first occurrence, searched from both ends
    /// at once); `true` if it was.
    #[inline]
    pub(crate) fn remove(&mut self, entity: Entity) -> bool {
        // The first (a parent drained from the front, children moved away in
        // the order they came): nothing to search or shift, and no call.
        if self.entities.get(self.head) == Some(&entity) {
            self.head += 1;
            if self.head == self.entities.len() {
                self.entities.clear();
                self.head = 0;
            }
            return true;
        }
        self.remove_searched(entity)
    }

    /// [`remove`](Self::remove) past its first entity.
    fn remove_searched(&mut self, entity: Entity) -> bool {
        let Some(index) = self.position(entity) else { return false };
        let at = self.head + index;
        if index == 0 {
            // The first: nothing to shift.
            self.head += 1;
        } else if index < self.len() - index - 1 {
            // Shift the front part right by one over the removed slot.
            self.entities.copy_within(self.head..at, self.head + 1);
            self.head += 1;
        } else {
            self.entities.remove(at);
        }
        if self.head == self.entities.len() {
            self.entities.clear();
            self.head = 0;
        }
        true
    }

    /// Moves `entity` (which must be listed) to `index` (clamped to the end).
    pub(crate) fn move_to(&mut self, entity: Entity, index: usize) {
        if self.remove(entity) {
            let at = self.head + index.min(self.len());
            self.entities.insert(at, entity);
        }
    }

    /// Rewrites each listed entity through `map` (for `MapEntities`).
    pub(crate) fn for_each_mut(&mut self, map: &mut dyn FnMut(Entity) -> Entity) {
        let head = self.head;
        self.entities[head..].iter_mut().for_each(|e| *e = map(*e));
    }

    /// The index of `entity`, looking from both ends.
    fn position(&self, entity: Entity) -> Option<usize> {
        let list = &**self;
        let (mut front, mut back) = (0, list.len());
        while front < back {
            if list[front] == entity {
                return Some(front);
            }
            back -= 1;
            if list[back] == entity {
                return Some(back);
            }
            front += 1;
        }
        None
    }
}

impl Deref for RelationshipSources {
    type Target = [Entity];
    #[inline]
    fn deref(&self) -> &[Entity] {
        &self.entities[self.head..]
    }
}

impl core::fmt::Debug for RelationshipSources {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for RelationshipSources {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for RelationshipSources {}

/// Compares with plain lists: `assert_eq!(followers.0, [a, b])`.
impl PartialEq<[Entity]> for RelationshipSources {
    fn eq(&self, other: &[Entity]) -> bool {
        **self == *other
    }
}

impl<const N: usize> PartialEq<[Entity; N]> for RelationshipSources {
    fn eq(&self, other: &[Entity; N]) -> bool {
        **self == other[..]
    }
}

impl PartialEq<Vec<Entity>> for RelationshipSources {
    fn eq(&self, other: &Vec<Entity>) -> bool {
        **self == other[..]
    }
}

impl PartialEq<&[Entity]> for RelationshipSources {
    fn eq(&self, other: &&[Entity]) -> bool {
        **self == **other
    }
}

impl<'a> IntoIterator for &'a RelationshipSources {
    type Item = &'a Entity;
    type IntoIter = core::slice::Iter<'a, Entity>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// What a relationship target keeps its sources in: [`RelationshipSources`]
/// (removal is cheap at both ends; what [`Children`](super::Children) uses) or
/// a plain `Vec<Entity>`, as bevy_ecs's targets do:
/// `#[relationship_target(relationship = Following)] struct Followers(Vec<Entity>);`.
///
/// Sealed: the world's relationship upkeep is the only writer of a stored list
/// (target components are immutable), and it relies on these two.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold the sources of a relationship target",
    label = "not a list of sources",
    note = "hold them in `RelationshipSources` (or a `Vec<Entity>`): `struct Followers(RelationshipSources);`"
)]
pub trait RelationshipSourceCollection: sealed::Sealed + Send + Sync + 'static {
    /// The sources, in the order they were linked.
    fn as_slice(&self) -> &[Entity];

    /// A list of `entities`, in order (a load or a snapshot restores one).
    #[doc(hidden)]
    fn __from_vec(entities: Vec<Entity>) -> Self
    where
        Self: Sized;

    /// Appends `entity`.
    #[doc(hidden)]
    fn __push(&mut self, entity: Entity);

    /// Removes the first occurrence of `entity`; `true` if it was listed.
    #[doc(hidden)]
    fn __remove(&mut self, entity: Entity) -> bool;

    /// Moves `entity` (if listed) to `index`, clamped to the end.
    #[doc(hidden)]
    fn __move_to(&mut self, entity: Entity, index: usize);

    /// Takes the list's buffer, emptied, leaving an empty list.
    #[doc(hidden)]
    fn __take_buffer(&mut self) -> Vec<Entity>;

    /// The list as something serde can write: a sequence of entities.
    #[cfg(feature = "serde")]
    #[doc(hidden)]
    fn __serializable(&self) -> &dyn erased_serde::Serialize;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::RelationshipSources {}
    impl Sealed for Vec<super::Entity> {}
}

impl RelationshipSourceCollection for RelationshipSources {
    #[inline]
    fn as_slice(&self) -> &[Entity] {
        self
    }
    fn __from_vec(entities: Vec<Entity>) -> Self {
        Self::from_vec(entities)
    }
    fn __push(&mut self, entity: Entity) {
        self.push(entity);
    }
    #[inline]
    fn __remove(&mut self, entity: Entity) -> bool {
        self.remove(entity)
    }
    fn __move_to(&mut self, entity: Entity, index: usize) {
        self.move_to(entity, index);
    }
    fn __take_buffer(&mut self) -> Vec<Entity> {
        self.head = 0;
        let mut buffer = core::mem::take(&mut self.entities);
        buffer.clear();
        buffer
    }
    #[cfg(feature = "serde")]
    fn __serializable(&self) -> &dyn erased_serde::Serialize {
        self
    }
}

/// A plain vector: a removal searches the list and shifts what follows it.
impl RelationshipSourceCollection for Vec<Entity> {
    #[inline]
    fn as_slice(&self) -> &[Entity] {
        self
    }
    fn __from_vec(entities: Vec<Entity>) -> Self {
        entities
    }
    fn __push(&mut self, entity: Entity) {
        self.push(entity);
    }
    fn __remove(&mut self, entity: Entity) -> bool {
        match self.iter().position(|&e| e == entity) {
            Some(index) => {
                self.remove(index);
                true
            }
            None => false,
        }
    }
    fn __move_to(&mut self, entity: Entity, index: usize) {
        if self.__remove(entity) {
            let at = index.min(self.len());
            self.insert(at, entity);
        }
    }
    fn __take_buffer(&mut self) -> Vec<Entity> {
        let mut buffer = core::mem::take(self);
        buffer.clear();
        buffer
    }
    #[cfg(feature = "serde")]
    fn __serializable(&self) -> &dyn erased_serde::Serialize {
        self
    }
}

impl crate::entity::MapEntities for RelationshipSources {
    fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity) {
        self.for_each_mut(map);
    }
    fn visit_entities(&self, f: &mut dyn FnMut(Entity)) {
        RelationshipSourceCollection::as_slice(self).iter().for_each(|&e| f(e));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(i: u32) -> Entity {
        Entity::from_bits(u64::from(i) | 1 << 32).expect("non-zero generation")
    }

    #[test]
    fn compares_with_plain_lists() {
        let list = RelationshipSources::from_vec(vec![e(1), e(2)]);
        assert_eq!(list, [e(1), e(2)]);
        assert_eq!(list, vec![e(1), e(2)]);
        assert_eq!(list, &[e(1), e(2)][..]);
        assert_ne!(list, [e(2), e(1)]);
        assert_ne!(list, [e(1)]);
    }

    #[test]
    fn removals_at_either_end_and_inside_keep_the_order() {
        let mut list = RelationshipSources::from_vec((0..8).map(e).collect());
        assert!(list.remove(e(0)));
        assert!(list.remove(e(7)));
        assert!(list.remove(e(2)));
        assert!(list.remove(e(5)));
        assert!(!list.remove(e(5)));
        assert_eq!(&*list, &[e(1), e(3), e(4), e(6)]);
        list.push(e(9));
        list.move_to(e(9), 0);
        assert_eq!(&*list, &[e(9), e(1), e(3), e(4), e(6)]);
        for i in [9, 1, 3, 4, 6] {
            assert!(list.remove(e(i)));
        }
        assert!(list.is_empty());
        list.push(e(1));
        assert_eq!(&*list, &[e(1)]);
    }
}
