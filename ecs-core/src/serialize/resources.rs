//! Resources in saves: registered by name like components, saved as a map
//! from name to value, put into the world by a load (replacing what it had).

use core::any::Any;
use core::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use super::error::LoadError;
use super::registry::SerializeRegistry;
use super::values::Context;
use crate::entity::{Entity, MapEntities};
use crate::world::World;

/// How one registered resource is written, read and put into a world.
pub(crate) struct ResourceEntry {
    pub(crate) name: String,
    pub(crate) type_id: core::any::TypeId,
    pub(crate) serialize: fn(&World) -> Option<&dyn erased_serde::Serialize>,
    pub(crate) deserialize: ReadResource,
    pub(crate) insert: InsertResource,
    /// Rewrites the entities the value holds, for a resource registered with
    /// them (`register_resource_with_entities`).
    pub(crate) map_entities: Option<MapResourceEntities>,
}

/// Rewrites the entities a read resource value holds.
pub(crate) type MapResourceEntities = fn(&mut (dyn Any + Send + Sync), &mut dyn FnMut(Entity) -> Entity);

/// Puts a read value into the world, returning the one it replaced (for the
/// caller to drop once the whole load is in place).
pub(crate) type InsertResource = fn(&mut World, Box<dyn Any + Send + Sync>) -> Option<Box<dyn Any + Send>>;

/// Reads one resource value.
type ReadResource =
    for<'a, 'de> fn(&'a mut dyn erased_serde::Deserializer<'de>) -> Result<BoxedResource, erased_serde::Error>;

type BoxedResource = Box<dyn Any + Send + Sync>;

/// A resource read from a save, waiting for `World::load`.
pub(crate) struct LoadedResource {
    pub(crate) insert: InsertResource,
    pub(crate) map_entities: Option<MapResourceEntities>,
    pub(crate) value: Box<dyn Any + Send + Sync>,
}

impl ResourceEntry {
    pub(crate) fn of<R>(name: &str) -> Self
    where
        R: Serialize + serde::de::DeserializeOwned + Send + Sync + 'static,
    {
        Self {
            name: name.to_owned(),
            type_id: core::any::TypeId::of::<R>(),
            serialize: |world| world.get_resource::<R>().map(|r| r as &dyn erased_serde::Serialize),
            deserialize: |deserializer| Ok(Box::new(erased_serde::deserialize::<R>(deserializer)?)),
            insert: |world, value| {
                let value = value.downcast::<R>().expect("a resource is read by its own entry");
                world.insert_resource(*value).map(|old| Box::new(old) as Box<dyn Any + Send>)
            },
            map_entities: None,
        }
    }

    /// [`of`](Self::of) for a resource whose entities a load into a world
    /// with entities rewrites.
    pub(crate) fn with_entities<R>(name: &str) -> Self
    where
        R: MapEntities + Serialize + serde::de::DeserializeOwned + Send + Sync + 'static,
    {
        Self {
            map_entities: Some(|value, map| {
                value.downcast_mut::<R>().expect("a resource is read by its own entry").map_entities(map);
            }),
            ..Self::of::<R>(name)
        }
    }
}

/// The registered resources the world has, as a map from name to value.
pub(crate) struct ResourcesOut<'a> {
    pub(crate) registry: &'a SerializeRegistry,
    pub(crate) world: &'a World,
}

impl Serialize for ResourcesOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let present =
            || self.registry.resources().iter().filter_map(|r| Some((r.name.as_str(), (r.serialize)(self.world)?)));
        let mut out = serializer.serialize_map(Some(present().count()))?;
        for (name, value) in present() {
            out.serialize_entry(name, value)?;
        }
        out.end()
    }
}

/// Reads the resource map.
pub(crate) struct ResourcesSeed<'a, 'r> {
    pub(crate) context: &'a Context<'r>,
}

impl<'de> DeserializeSeed<'de> for ResourcesSeed<'_, '_> {
    type Value = Vec<LoadedResource>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ResourcesSeed<'_, '_> {
    type Value = Vec<LoadedResource>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map from resource name to value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut loaded: Vec<(usize, LoadedResource)> = Vec::new();
        while let Some(name) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let Some(index) = self.context.registry.resource_by_name(&name) else {
                return Err(self.context.fail(LoadError::UnknownResource(name.into_owned())));
            };
            if loaded.iter().any(|&(i, _)| i == index) {
                return Err(self.context.fail(LoadError::DuplicateComponent(name.into_owned())));
            }
            let entry = &self.context.registry.resources()[index];
            let value = map.next_value_seed(ResourceSeed { context: self.context, entry })?;
            loaded.push((index, LoadedResource { insert: entry.insert, map_entities: entry.map_entities, value }));
        }
        Ok(loaded.into_iter().map(|(_, r)| r).collect())
    }
}

struct ResourceSeed<'a, 'r> {
    context: &'a Context<'r>,
    entry: &'a ResourceEntry,
}

impl<'de> DeserializeSeed<'de> for ResourceSeed<'_, '_> {
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
