//! Hashers for the world's maps. Their keys are ids the crate hands out
//! (component ids, entities) or `TypeId`s, never chosen by an adversary, so no
//! protection from flooding is needed: a lookup pays a multiply instead of a
//! SipHash round, and a map needs no random seed (which costs a thread-local
//! access in every `World::new`).

use core::hash::{BuildHasherDefault, Hasher};

/// `TypeId` already is a hash; re-hashing it would only cost time.
#[derive(Default)]
pub(crate) struct TypeIdHasher(u64);

impl Hasher for TypeIdHasher {
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }

    fn write(&mut self, bytes: &[u8]) {
        // Not used by `TypeId` today; fold the bytes so any future representation
        // still hashes correctly.
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// For keys made of the crate's own ids (`Entity`, `ComponentId`, lists of
/// them): one multiply per word, as FxHash does. Public as
/// [`EntityHasher`](crate::entity::EntityHasher), for games' maps keyed by
/// entities.
#[derive(Default, Clone, Copy, Debug)]
pub struct IdHasher(u64);

impl IdHasher {
    #[inline]
    fn add(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for IdHasher {
    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.add(u64::from(b));
        }
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A map keyed by `TypeId`.
pub(crate) type TypeIdMap<V> = std::collections::HashMap<core::any::TypeId, V, BuildHasherDefault<TypeIdHasher>>;

/// A map keyed by the crate's own ids.
pub(crate) type IdMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<IdHasher>>;
