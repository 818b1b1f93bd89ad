//! An archetype's entities in compact formats (format version 4 on): one byte
//! string, each entity told relative to the one before it, so that entities
//! spawned together (consecutive indices of one generation) take a byte each
//! and the whole list is written and read in one piece. As a sequence of
//! 64-bit handles, each entity was a serde element of five bytes or more, a
//! call and a copy of its own on both ways.
//!
//! Each entity is a postcard varint `v = zigzag(index - expected) << 1 |
//! new_generation`, where `expected` is the index after the previous entity's
//! (0 before the first), followed, when `new_generation` is set, by the
//! generation as a varint; otherwise the generation is the previous entity's
//! (1 before the first). An entity takes at least one byte, so a list never
//! holds more entities than its string has bytes: what a load allocates for it
//! follows the size of the save.

use core::fmt;
use core::num::NonZeroU32;

use serde::de::{DeserializeSeed, Deserializer, Visitor};
use serde::{Serialize, Serializer};

use crate::entity::Entity;

/// `entities` as one byte string.
pub(crate) struct EntityBytes<'a>(pub(crate) &'a [Entity]);

impl Serialize for EntityBytes<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&encode(self.0))
    }
}

/// Reads an [`EntityBytes`] string: the entities, or why the string is not a
/// list of them.
pub(crate) struct EntityBytesSeed;

impl<'de> DeserializeSeed<'de> for EntityBytesSeed {
    type Value = Result<Vec<Entity>, String>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_bytes(self)
    }
}

impl Visitor<'_> for EntityBytesSeed {
    type Value = Result<Vec<Entity>, String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a byte string of entities")
    }

    fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<Self::Value, E> {
        Ok(decode(bytes))
    }
}

/// The byte string of `entities`.
pub(crate) fn encode(entities: &[Entity]) -> Vec<u8> {
    let mut out = Vec::with_capacity(entities.len());
    let (mut expected, mut generation) = (0i64, 1u32);
    // Entities as expected are counted and written as one run of zeros.
    let mut zeros = 0;
    for entity in entities {
        let index = i64::from(entity.index());
        let new_generation = entity.generation().get() != generation;
        if index == expected && !new_generation {
            zeros += 1;
        } else {
            out.resize(out.len() + zeros, 0);
            zeros = 0;
            push_varint(&mut out, zigzag(index - expected) << 1 | u64::from(new_generation));
            if new_generation {
                generation = entity.generation().get();
                push_varint(&mut out, u64::from(generation));
            }
        }
        expected = index + 1;
    }
    out.resize(out.len() + zeros, 0);
    out
}

/// The entities of a byte string made by [`encode`], or what is wrong with it.
pub(crate) fn decode(bytes: &[u8]) -> Result<Vec<Entity>, String> {
    // An entity takes a byte or more: the list is no longer than the string.
    let mut entities = Vec::with_capacity(bytes.len());
    let (mut expected, mut generation) = (0i64, NonZeroU32::MIN);
    let mut at = 0;
    while at < bytes.len() {
        let index = if bytes[at] == 0 {
            at += 1;
            expected
        } else {
            let v = read_varint(bytes, &mut at)?;
            if v & 1 == 1 {
                let read = read_varint(bytes, &mut at)?;
                generation = u32::try_from(read)
                    .ok()
                    .and_then(NonZeroU32::new)
                    .ok_or_else(|| format!("entity {} has generation {read}", entities.len()))?;
            }
            // `v >> 1` is below 2^63, so the delta is within ±2^62 and the sum
            // cannot overflow.
            expected + unzigzag(v >> 1)
        };
        let index = u32::try_from(index)
            .map_err(|_| format!("entity {} has index {index}, outside the entity index", entities.len()))?;
        entities.push(Entity::new(index, generation));
        expected = i64::from(index) + 1;
    }
    if entities.capacity() > 2 * entities.len() {
        entities.shrink_to_fit();
    }
    Ok(entities)
}

fn zigzag(delta: i64) -> u64 {
    ((delta << 1) ^ (delta >> 63)) as u64
}

fn unzigzag(zigzag: u64) -> i64 {
    (zigzag >> 1) as i64 ^ -((zigzag & 1) as i64)
}

/// Appends `value` as a postcard (LEB128) varint.
fn push_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Reads a varint of at most ten bytes at `*at`, moving past it.
fn read_varint(bytes: &[u8], at: &mut usize) -> Result<u64, String> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let Some(&byte) = bytes.get(*at) else {
            return Err("the list ends inside an entity".to_owned());
        };
        *at += 1;
        if shift == 63 && byte > 1 {
            break;
        }
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err("a number in the list is longer than 64 bits".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_round_trip_and_runs_take_a_byte_an_entity() {
        let run: Vec<Entity> = (0..1000).map(|i| Entity::at(i, 1)).collect();
        let bytes = encode(&run);
        assert_eq!(bytes, vec![0; 1000], "a run from index 0 in generation 1");
        assert_eq!(decode(&bytes).unwrap(), run);

        let mixed = vec![
            Entity::at(5, 1),
            Entity::at(6, 1),
            Entity::at(2, 1),
            Entity::at(3, 7),
            Entity::at(4, 7),
            Entity::at(u32::MAX, 7),
            Entity::at(0, u32::MAX),
            Entity::at(u32::MAX - 1, 1),
            Entity::at(u32::MAX, 1),
        ];
        let bytes = encode(&mixed);
        assert_eq!(decode(&bytes).unwrap(), mixed);
        assert_eq!(decode(&[]).unwrap(), []);
        assert_eq!(encode(&[]), [] as [u8; 0]);
    }

    #[test]
    fn random_lists_round_trip_in_at_most_ten_bytes_an_entity() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..500 {
            let len = (next() % 200) as usize;
            let mut list = Vec::with_capacity(len);
            let (mut index, mut generation) = ((next() % 5) as u32, 1 + (next() % 3) as u32);
            for _ in 0..len {
                // Mostly the next index in the same generation, sometimes a
                // jump (anywhere in the index space) or a new generation.
                match next() % 8 {
                    0 => index = next() as u32,
                    1 => generation = 1 + (next() as u32 % u32::MAX),
                    2 => index = index.wrapping_sub((next() % 50) as u32),
                    _ => index = index.wrapping_add(1),
                }
                list.push(Entity::at(index, generation));
            }
            let bytes = encode(&list);
            assert!(bytes.len() <= 10 * list.len(), "{} bytes for {} entities", bytes.len(), list.len());
            assert_eq!(decode(&bytes).unwrap(), list);
        }
    }

    #[test]
    fn malformed_lists_are_refused() {
        // Index -1: one step back from the first expected index, 0.
        assert!(decode(&[0b10]).unwrap_err().contains("index -1"));
        // Past `u32::MAX`: a run of one after the last index.
        let mut past = encode(&[Entity::at(u32::MAX, 1)]);
        past.push(0);
        assert!(decode(&past).unwrap_err().contains("index 4294967296"));
        // Generation 0, and one beyond 32 bits.
        assert!(decode(&[1, 0]).unwrap_err().contains("generation 0"));
        assert!(decode(&[1, 0x80, 0x80, 0x80, 0x80, 0x10]).unwrap_err().contains("generation 4294967296"));
        // Cut inside a varint, and a varint longer than 64 bits.
        assert!(decode(&[0x81]).unwrap_err().contains("ends inside"));
        assert!(decode(&[1]).unwrap_err().contains("ends inside"));
        assert!(decode(&[0xff; 11]).unwrap_err().contains("longer than 64 bits"));
        assert!(decode(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02]).is_err());
    }
}
