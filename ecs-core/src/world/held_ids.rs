//! [`HeldIds`]: a bundle's component ids, copied out of the world so that its
//! hooks can run with the world borrowed mutably.

use core::ops::Deref;

use crate::component::ComponentId;

/// How many ids stay on the stack: bundles with hooks are mostly one component
/// (a relationship, a marker with an observer), rarely more than a handful.
const INLINE: usize = 8;

/// A copy of a list of component ids: on the stack when it is short (an
/// observed insert or spawn then allocates nothing for it), on the heap
/// otherwise.
pub(crate) enum HeldIds {
    Inline { ids: [ComponentId; INLINE], len: usize },
    Heap(Box<[ComponentId]>),
}

impl HeldIds {
    #[inline]
    pub(crate) fn new(ids: &[ComponentId]) -> Self {
        if ids.len() <= INLINE {
            // Element by element, not a `memcpy` of a run-time length: the
            // array is read back whole right after, which a copy of unknown
            // length would make wait for its stores.
            let inline = core::array::from_fn(|i| ids.get(i).copied().unwrap_or(ComponentId::new(0)));
            Self::Inline { ids: inline, len: ids.len() }
        } else {
            Self::Heap(ids.into())
        }
    }

    /// The ids for which `held` is true, then the others, each in order (an
    /// insert's replaced and added components). Borrowed from `self` when one
    /// side is empty, as for most inserts (a reparent replaces all, a first
    /// insert adds all).
    #[inline]
    pub(crate) fn partition(&self, held: impl Fn(ComponentId) -> bool) -> Split<'_> {
        let count = self.iter().filter(|&&id| held(id)).count();
        if count == self.len() {
            return Split::Borrowed(self, &[]);
        }
        if count == 0 {
            return Split::Borrowed(&[], self);
        }
        let (yes, no): (Vec<ComponentId>, Vec<ComponentId>) = self.iter().partition(|&&id| held(id));
        Split::Owned(yes, no)
    }
}

/// What [`HeldIds::partition`] returns.
pub(crate) enum Split<'a> {
    Borrowed(&'a [ComponentId], &'a [ComponentId]),
    Owned(Vec<ComponentId>, Vec<ComponentId>),
}

impl Split<'_> {
    /// The ids `held` was true for.
    pub(crate) fn held(&self) -> &[ComponentId] {
        match self {
            Self::Borrowed(yes, _) => yes,
            Self::Owned(yes, _) => yes,
        }
    }

    /// The others.
    pub(crate) fn rest(&self) -> &[ComponentId] {
        match self {
            Self::Borrowed(_, no) => no,
            Self::Owned(_, no) => no,
        }
    }
}

impl Deref for HeldIds {
    type Target = [ComponentId];
    #[inline]
    fn deref(&self) -> &[ComponentId] {
        match self {
            Self::Inline { ids, len } => &ids[..*len],
            Self::Heap(ids) => ids,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_lists_read_back_whole() {
        for n in [0, 1, INLINE, INLINE + 1, 40] {
            let ids: Vec<ComponentId> = (0..n as u32).map(|i| ComponentId::new(i * 3 + 1)).collect();
            let held = HeldIds::new(&ids);
            assert_eq!(&*held, &ids[..]);
            assert_eq!(matches!(held, HeldIds::Inline { .. }), n <= INLINE);
            for modulus in [1, 2, u32::MAX as usize] {
                let split = held.partition(|id| id.index() % modulus == 0);
                let expect: (Vec<_>, Vec<_>) = ids.iter().partition(|id| id.index() % modulus == 0);
                assert_eq!((split.held(), split.rest()), (&expect.0[..], &expect.1[..]));
            }
        }
    }
}
