//! serde for the hierarchy (feature `serde`): `ChildOf` is its parent, and a
//! list of sources is a sequence of entities. Only `Serialize` for the list: a
//! list is read back through its relationship target (see
//! `SerializeRegistry::register_relationship`), which checks it against the
//! relationships it mirrors.

use serde::de::{SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{ChildOf, RelationshipSources};
use crate::entity::Entity;

impl Serialize for ChildOf {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct("ChildOf", &self.0)
    }
}

impl<'de> Deserialize<'de> for ChildOf {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_newtype_struct("ChildOf", ParentVisitor)
    }
}

struct ParentVisitor;

impl<'de> Visitor<'de> for ParentVisitor {
    type Value = ChildOf;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("a parent entity")
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<ChildOf, D::Error> {
        Entity::deserialize(deserializer).map(ChildOf)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ChildOf, A::Error> {
        let parent = seq.next_element()?.ok_or_else(|| serde::de::Error::invalid_length(0, &self))?;
        Ok(ChildOf(parent))
    }
}

impl Serialize for RelationshipSources {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}
