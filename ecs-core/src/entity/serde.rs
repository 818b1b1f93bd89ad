//! `Serialize`/`Deserialize` for [`Entity`] (feature `serde`).
//!
//! Human-readable formats (JSON, RON) get the `Debug` form, `"5v2"`, so that a
//! save reads like a log; compact formats get the 64 bits of
//! [`Entity::to_bits`]. Both refuse a zero generation, which no handle has.

use core::fmt;
use core::num::NonZeroU32;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::Entity;

impl Serialize for Entity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            serializer.collect_str(self)
        } else {
            serializer.serialize_u64(self.to_bits())
        }
    }
}

impl<'de> Deserialize<'de> for Entity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        if deserializer.is_human_readable() {
            deserializer.deserialize_str(EntityVisitor)
        } else {
            deserializer.deserialize_u64(EntityVisitor)
        }
    }
}

struct EntityVisitor;

impl Visitor<'_> for EntityVisitor {
    type Value = Entity;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an entity: `index v generation` (like \"5v2\") or its 64 bits")
    }

    fn visit_u64<E: de::Error>(self, bits: u64) -> Result<Entity, E> {
        Entity::from_bits(bits).ok_or_else(|| E::custom(format_args!("entity bits {bits:#x} have a zero generation")))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Entity, E> {
        parse(text).ok_or_else(|| E::invalid_value(de::Unexpected::Str(text), &self))
    }
}

/// `"5v2"` -> index 5, generation 2.
fn parse(text: &str) -> Option<Entity> {
    let (index, generation) = text.split_once('v')?;
    let index: u32 = index.parse().ok()?;
    let generation = NonZeroU32::new(generation.parse().ok()?)?;
    Some(Entity::new(index, generation))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_form_round_trips_and_rejects_garbage() {
        let e = Entity::new(5, NonZeroU32::new(2).unwrap());
        assert_eq!(parse(&e.to_string()), Some(e));
        for bad in ["", "5", "v2", "5v0", "5v", "-1v1", "5v2v3", "4294967296v1"] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }
}
