//! Systems' state in saves: `Local`s and message readers' cursors, registered
//! by type under a name, saved with the place of the system that owns each
//! (its slot: the order systems were initialized in) and its name, and put
//! back by a load into the systems at the same places with the same names.
//!
//! Also what a save refuses: a `Local` of a type neither registered nor
//! skipped, and messages in flight of a type neither registered nor skipped.

use core::any::{Any, TypeId};
use core::fmt;

use serde::de::{DeserializeSeed, Deserializer, SeqAccess, Visitor};
use serde::ser::{Error as _, SerializeSeq, SerializeTuple};
use serde::{Serialize, Serializer};

use super::error::LoadError;
use super::registry::SerializeRegistry;
use super::values::Context;
use crate::world::World;
use crate::world::locals::{LoadedLocal, LocalPlace};

/// How one registered local type is written and read.
pub(crate) struct LocalTypeEntry {
    pub(crate) name: String,
    pub(crate) type_id: TypeId,
    pub(crate) serialize: for<'a> fn(&'a dyn Any) -> &'a dyn erased_serde::Serialize,
    pub(crate) deserialize: ReadLocal,
}

type ReadLocal = for<'a, 'de> fn(
    &'a mut dyn erased_serde::Deserializer<'de>,
) -> Result<Box<dyn Any + Send + Sync>, erased_serde::Error>;

impl LocalTypeEntry {
    pub(crate) fn of<T>(name: &str) -> Self
    where
        T: Serialize + serde::de::DeserializeOwned + Send + Sync + 'static,
    {
        Self {
            name: name.to_owned(),
            type_id: TypeId::of::<T>(),
            serialize: |value| value.downcast_ref::<T>().expect("a local is written by its own entry"),
            deserialize: |deserializer| Ok(Box::new(erased_serde::deserialize::<T>(deserializer)?)),
        }
    }
}

/// Refuses a save that would lose system state: a `Local` whose type is
/// neither registered nor skipped, or messages in flight whose type is
/// neither registered nor skipped.
pub(crate) fn check(registry: &SerializeRegistry, world: &World) -> Result<(), String> {
    for (owner, cell, internal) in world.locals.owned() {
        let type_id = cell.value_type();
        if internal || registry.local_by_type(type_id).is_some() || registry.is_local_skipped(type_id) {
            continue;
        }
        let name = crate::names::short_name(cell.type_name());
        return Err(format!(
            "system `{}` keeps a `Local<{name}>`, which a save would lose: register its type with \
             `SerializeRegistry::register_local::<{name}>(\"Name\")`, or leave it out with \
             `.skip_local::<{name}>()`",
            owner.system
        ));
    }
    for message in &world.message_updates {
        let in_flight = (message.in_flight)(world);
        if in_flight == 0 || registry.saves_resource(message.buffer) || registry.is_message_skipped(message.buffer) {
            continue;
        }
        let name = crate::names::short_name(message.name);
        return Err(format!(
            "{in_flight} `{name}` message(s) are in flight (written in the last two updates), which a save would \
             lose: register the type with `SerializeRegistry::register_message::<{name}>(\"Name\")`, which saves \
             them with every reader's place, or leave them out with `.skip_message::<{name}>()`"
        ));
    }
    Ok(())
}

/// The registered locals of every system, as a sequence of
/// `(system slot, place, type name, system name, value)`.
pub(crate) struct LocalsOut<'a> {
    pub(crate) registry: &'a SerializeRegistry,
    pub(crate) world: &'a World,
}

impl Serialize for LocalsOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let saved = || {
            self.world.locals.owned().filter_map(|(owner, cell, _)| {
                let entry = self.registry.local_by_type(cell.value_type())?;
                Some((owner, cell, entry))
            })
        };
        let mut out = serializer.serialize_seq(Some(saved().count()))?;
        for (owner, cell, entry) in saved() {
            let mut result = None;
            let read = cell.read(&mut |value| {
                result = Some(out.serialize_element(&LocalOut {
                    slot: owner.place.system_slot,
                    place: owner.place.place,
                    name: &entry.name,
                    system: owner.system,
                    value: (entry.serialize)(value),
                }));
            });
            if !read {
                return Err(S::Error::custom(format_args!(
                    "system `{}` holds its `Local<{}>`: it is running (or leaked the parameter); save between \
                     schedule runs",
                    owner.system,
                    crate::names::short_name(cell.type_name())
                )));
            }
            result.expect("`read` calls back once when it returns true")?;
        }
        out.end()
    }
}

struct LocalOut<'a> {
    slot: u32,
    place: u32,
    name: &'a str,
    system: &'a str,
    value: &'a dyn erased_serde::Serialize,
}

impl Serialize for LocalOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_tuple(5)?;
        out.serialize_element(&self.slot)?;
        out.serialize_element(&self.place)?;
        out.serialize_element(self.name)?;
        out.serialize_element(self.system)?;
        out.serialize_element(self.value)?;
        out.end()
    }
}

/// Reads the locals sequence.
pub(crate) struct LocalsSeed<'a, 'r> {
    pub(crate) context: &'a Context<'r>,
}

impl<'de> DeserializeSeed<'de> for LocalsSeed<'_, '_> {
    type Value = Vec<LoadedLocal>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for LocalsSeed<'_, '_> {
    type Value = Vec<LoadedLocal>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence of systems' locals")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut loaded: Vec<LoadedLocal> = Vec::new();
        // A set, not a search of those read so far: a file of many locals
        // must not make the check quadratic.
        let mut places = std::collections::HashSet::new();
        while let Some(local) = seq.next_element_seed(LocalSeed { context: self.context })? {
            if !places.insert(local.place) {
                return Err(self.context.fail(LoadError::Format(format!(
                    "two locals for place {} of system slot {}",
                    local.place.place, local.place.system_slot
                ))));
            }
            loaded.push(local);
        }
        Ok(loaded)
    }
}

struct LocalSeed<'a, 'r> {
    context: &'a Context<'r>,
}

impl<'de> DeserializeSeed<'de> for LocalSeed<'_, '_> {
    type Value = LoadedLocal;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_tuple(5, self)
    }
}

impl<'de> Visitor<'de> for LocalSeed<'_, '_> {
    type Value = LoadedLocal;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a system's local: [system slot, place, type name, system name, value]")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let missing = || serde::de::Error::custom("a local ends early");
        let system_slot: u32 = seq.next_element()?.ok_or_else(missing)?;
        let place: u32 = seq.next_element()?.ok_or_else(missing)?;
        let name: std::borrow::Cow<'de, str> = seq.next_element()?.ok_or_else(missing)?;
        let system: String = seq.next_element()?.ok_or_else(missing)?;
        let Some(entry) = self.context.registry.local_by_name(&name) else {
            return Err(self.context.fail(LoadError::UnknownLocal(name.into_owned())));
        };
        let value = seq.next_element_seed(LocalValueSeed { context: self.context, entry })?.ok_or_else(missing)?;
        Ok(LoadedLocal { place: LocalPlace { system_slot, place }, system, value })
    }
}

struct LocalValueSeed<'a, 'r> {
    context: &'a Context<'r>,
    entry: &'a LocalTypeEntry,
}

impl<'de> DeserializeSeed<'de> for LocalValueSeed<'_, '_> {
    type Value = Box<dyn Any + Send + Sync>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        let mut erased = <dyn erased_serde::Deserializer>::erase(deserializer);
        (self.entry.deserialize)(&mut erased).map_err(|error| {
            self.context.fail(LoadError::InvalidValue {
                component: self.entry.name.clone(),
                entity: None,
                message: error.to_string(),
            })
        })
    }
}
