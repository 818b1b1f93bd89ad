//! The entity observers of one event, by target: pages indexed by the target's
//! entity index. A trigger finds a target's observers with one read of an
//! entry in a page, where a hash map read its control bytes and then its entry,
//! two misses apart with an observer on each of many entities. Pages are made
//! only for ranges of entity indices holding an observed entity, and freed when
//! their last one goes.

use crate::entity::Entity;

/// Entries per page: a page covers this many consecutive entity indices.
const PAGE_BITS: u32 = 10;
const PAGE: usize = 1 << PAGE_BITS;

/// Set in [`Entry::list`] when the target has several observers: the rest is
/// an index in [`TargetObservers::many`]. Otherwise `list` is the only
/// observer's slot (slots stay below this bit, see [`MAX_SLOTS`]).
const MANY: u32 = 1 << 31;

/// How many observer slots a world may have: the tag bit of [`MANY`] is not
/// theirs.
pub(super) const MAX_SLOTS: usize = MANY as usize;

/// One entity index's observers.
#[derive(Clone, Copy, Default)]
struct Entry {
    /// The observed entity's generation; 0 (no entity has it) when unobserved.
    generation: u32,
    list: u32,
}

struct Page {
    entries: Box<[Entry]>,
    /// Entries in use: the page is freed when none is.
    used: u32,
}

/// The entity observers of one event, by target.
#[derive(Default)]
pub(super) struct TargetObservers {
    pages: Vec<Option<Page>>,
    /// The lists of targets with more than one observer, in registration order.
    many: Vec<Vec<u32>>,
    /// Indices in `many` free for reuse.
    free_many: Vec<u32>,
}

impl TargetObservers {
    /// The observers of `target`, in registration order.
    #[inline]
    pub(super) fn get(&self, target: Entity) -> &[u32] {
        let index = target.index() as usize;
        let Some(Some(page)) = self.pages.get(index >> PAGE_BITS) else { return &[] };
        let entry = &page.entries[index & (PAGE - 1)];
        if entry.generation != target.generation().get() {
            &[]
        } else if entry.list & MANY == 0 {
            core::slice::from_ref(&entry.list)
        } else {
            &self.many[(entry.list & !MANY) as usize]
        }
    }

    /// Adds observer `slot` (below [`MAX_SLOTS`]) to `target`'s, after those
    /// there.
    pub(super) fn insert(&mut self, target: Entity, slot: u32) {
        debug_assert!((slot as usize) < MAX_SLOTS, "observer slots stay below the tag bit");
        let index = target.index() as usize;
        let page_index = index >> PAGE_BITS;
        if self.pages.len() <= page_index {
            self.pages.resize_with(page_index + 1, || None);
        }
        let page = self.pages[page_index]
            .get_or_insert_with(|| Page { entries: vec![Entry::default(); PAGE].into_boxed_slice(), used: 0 });
        let entry = &mut page.entries[index & (PAGE - 1)];
        let generation = target.generation().get();
        if entry.generation != generation {
            // Unobserved, or observed in an older generation: that entity is
            // gone, and its observers (despawned by commands right after it)
            // cannot run again, whether or not they are gone yet.
            if entry.generation == 0 {
                page.used += 1;
            } else if entry.list & MANY != 0 {
                let many = entry.list & !MANY;
                self.many[many as usize] = Vec::new();
                self.free_many.push(many);
            }
            *entry = Entry { generation, list: slot };
        } else if entry.list & MANY == 0 {
            let list = vec![entry.list, slot];
            let many = match self.free_many.pop() {
                Some(many) => {
                    self.many[many as usize] = list;
                    many
                }
                None => {
                    self.many.push(list);
                    u32::try_from(self.many.len() - 1).expect("fewer lists than observer slots")
                }
            };
            entry.list = MANY | many;
        } else {
            self.many[(entry.list & !MANY) as usize].push(slot);
        }
    }

    /// Removes observer `slot` from `target`'s, if it is there.
    pub(super) fn remove(&mut self, target: Entity, slot: u32) {
        let index = target.index() as usize;
        let page_index = index >> PAGE_BITS;
        let Some(Some(page)) = self.pages.get_mut(page_index) else { return };
        let entry = &mut page.entries[index & (PAGE - 1)];
        if entry.generation != target.generation().get() {
            return;
        }
        let emptied = if entry.list & MANY == 0 {
            entry.list == slot
        } else {
            let many = entry.list & !MANY;
            let list = &mut self.many[many as usize];
            list.retain(|&s| s != slot);
            match list.as_slice() {
                [] => {
                    self.free_many.push(many);
                    true
                }
                &[only] => {
                    // Back to the entry itself: the list's memory is released.
                    *list = Vec::new();
                    self.free_many.push(many);
                    entry.list = only;
                    false
                }
                _ => false,
            }
        };
        if emptied {
            *entry = Entry::default();
            page.used -= 1;
            if page.used == 0 {
                self.pages[page_index] = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_keep_their_observers_in_order_and_apart() {
        let mut targets = TargetObservers::default();
        let (a, b, far) = (Entity::at(3, 1), Entity::at(4, 1), Entity::at(5 * PAGE as u32 + 7, 2));
        targets.insert(a, 10);
        targets.insert(far, 11);
        targets.insert(a, 12);
        targets.insert(a, 13);
        assert_eq!(targets.get(a), [10, 12, 13]);
        assert_eq!(targets.get(far), [11]);
        assert_eq!(targets.get(b), [] as [u32; 0]);
        assert_eq!(targets.get(Entity::at(3, 2)), [] as [u32; 0], "another generation of the index");
        assert_eq!(targets.get(Entity::PLACEHOLDER), [] as [u32; 0]);
        targets.remove(a, 12);
        assert_eq!(targets.get(a), [10, 13]);
        targets.remove(a, 10);
        assert_eq!(targets.get(a), [13], "one left: back in the entry");
        targets.insert(b, 14);
        targets.insert(b, 15);
        assert_eq!(targets.get(b), [14, 15], "the freed list is reused");
        targets.remove(far, 99);
        assert_eq!(targets.get(far), [11], "removing an observer it does not have changes nothing");
        targets.remove(far, 11);
        assert!(targets.pages[5].is_none(), "a page is freed with its last target");
        targets.remove(a, 13);
        targets.remove(b, 14);
        targets.remove(b, 15);
        assert!(targets.pages.iter().all(Option::is_none), "every page is freed with its last target");
    }

    #[test]
    fn a_new_generation_replaces_what_an_old_one_left() {
        let mut targets = TargetObservers::default();
        targets.insert(Entity::at(1, 1), 1);
        targets.insert(Entity::at(1, 1), 2);
        targets.insert(Entity::at(1, 2), 3);
        assert_eq!(targets.get(Entity::at(1, 2)), [3]);
        assert_eq!(targets.get(Entity::at(1, 1)), [] as [u32; 0]);
        targets.remove(Entity::at(1, 2), 3);
        assert!(targets.pages.iter().all(Option::is_none));
    }
}
