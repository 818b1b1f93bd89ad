//! The row format: each entity with its components by name, made to be read
//! and edited (JSON, RON). Archetypes are rebuilt from the rows, in the order
//! their first entity appears; change ticks are not saved (loaded values are
//! added at the load).
//!
//! Layout in serde's data model: a struct `WorldRows { version, slots, free,
//! retired, resources, entities, locals }`, `resources` being a map from
//! resource name to value, `entities` a map from entity to a map from component
//! name to value, and `locals` a sequence of `[system slot, place, type name,
//! system name, value]`. In JSON: `{"version":3,"slots":2,"free":[],"retired":[],
//! "resources":{},"entities":{"0v1":{"Hp":3},"1v1":{}},"locals":[]}`.

use core::fmt;
use std::collections::HashMap;

use serde::de::{DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::ser::{Error as _, SerializeMap, SerializeStruct};
use serde::{Deserialize, Serialize, Serializer};

use super::FORMAT_VERSION;
use super::column::{key_of, loaded_column};
use super::error::LoadError;
use super::locals::{LocalsOut, LocalsSeed};
use super::plan::{SavePlan, plan};
use super::registry::SerializeRegistry;
use super::resources::{LoadedResource, ResourcesOut, ResourcesSeed};
use super::save::{LoadedArchetype, LoadedColumn, WorldSave};
use super::validate;
use super::values::{Context, ValueOut, ValueSeed};
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::world::World;
use crate::world::locals::LoadedLocal;

const FIELDS: &[&str] = &["version", "slots", "free", "retired", "resources", "entities", "locals"];

/// A world in the row format, ready for any serde serializer: made by
/// [`SerializeRegistry::rows`]. Serializing fails, naming it, when an entity
/// holds a component that is neither registered nor skipped.
pub struct Rows<'a> {
    registry: &'a SerializeRegistry,
    world: &'a World,
}

impl SerializeRegistry {
    /// `world` in the row format (see [`crate::serialize`]): serialize the
    /// result with any serde format.
    pub fn rows<'a>(&'a self, world: &'a World) -> Rows<'a> {
        Rows { registry: self, world }
    }

    /// Parses and checks a save in the row format, without touching any world;
    /// [`World::load`] puts the result into one.
    ///
    /// # Errors
    /// A [`LoadError`] naming what is wrong (see [`crate::serialize`]).
    pub fn load_rows<'de, D: Deserializer<'de>>(&self, deserializer: D) -> Result<WorldSave, LoadError> {
        let context = Context::new(self);
        let result = deserializer.deserialize_struct("WorldRows", FIELDS, SaveVisitor { context: &context });
        let parsed = context.finish(result)?;
        let mut save = parsed.into_save(self);
        validate::check(&mut save)?;
        Ok(save)
    }
}

impl Serialize for Rows<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let plan = plan(self.registry, self.world).map_err(S::Error::custom)?;
        let mut out = serializer.serialize_struct("WorldRows", FIELDS.len())?;
        out.serialize_field("version", &FORMAT_VERSION)?;
        out.serialize_field("slots", &plan.slots)?;
        out.serialize_field("free", &plan.free)?;
        out.serialize_field("retired", &plan.retired)?;
        out.serialize_field("resources", &ResourcesOut { registry: self.registry, world: self.world })?;
        out.serialize_field("entities", &EntitiesOut { registry: self.registry, plan: &plan })?;
        out.serialize_field("locals", &LocalsOut { registry: self.registry, world: self.world })?;
        out.end()
    }
}

struct EntitiesOut<'a> {
    registry: &'a SerializeRegistry,
    plan: &'a SavePlan<'a>,
}

impl Serialize for EntitiesOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_map(Some(self.plan.entity_count()))?;
        for planned in &self.plan.archetypes {
            for (row, entity) in planned.archetype.entities().iter().enumerate() {
                out.serialize_entry(entity, &RowOut { registry: self.registry, columns: &planned.columns, row })?;
            }
        }
        out.end()
    }
}

struct RowOut<'a> {
    registry: &'a SerializeRegistry,
    columns: &'a [(&'a crate::storage::Column, usize)],
    row: usize,
}

impl Serialize for RowOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let present = || self.columns.iter().filter(|&&(column, _)| column.holds(self.row));
        let mut out = serializer.serialize_map(Some(present().count()))?;
        for &(column, entry) in present() {
            let entry = self.registry.entry(entry);
            out.serialize_entry(entry.name.as_str(), &ValueOut { entry, column, row: self.row })?;
        }
        out.end()
    }
}

/// A save as read, before its rows are grouped into archetypes.
struct Parsed {
    slots: u32,
    free: Vec<Entity>,
    retired: Vec<Entity>,
    resources: Vec<LoadedResource>,
    rows: ReadRows,
    locals: Vec<LoadedLocal>,
}

/// The rows read: each entity with `(entry, row of the entry's pool)` per
/// component, and the pools holding the values.
#[derive(Default)]
struct ReadRows {
    rows: Vec<(Entity, Vec<(usize, usize)>)>,
    /// By registry entry: a column of its type holding every value read.
    pools: Vec<Option<LoadedColumn>>,
}

impl Parsed {
    /// Groups the rows by their table components, in order of first
    /// appearance, moving each value from its pool to its archetype's column.
    fn into_save(self, registry: &SerializeRegistry) -> WorldSave {
        let ReadRows { rows, mut pools } = self.rows;
        let mut by_key: HashMap<Vec<ComponentId>, usize> = HashMap::new();
        // Per archetype: its entries in first-seen order and its rows.
        let mut groups: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
        for (index, (_, components)) in rows.iter().enumerate() {
            let mut key: Vec<ComponentId> = components
                .iter()
                .map(|&(entry, _)| registry.entry(entry).info)
                .filter(|info| !info.is_sparse())
                .map(|info| info.id())
                .collect();
            key.sort_unstable();
            let group = *by_key.entry(key).or_insert_with(|| {
                groups.push((Vec::new(), Vec::new()));
                groups.len() - 1
            });
            let (entries, members) = &mut groups[group];
            for &(entry, _) in components {
                if !entries.contains(&entry) {
                    entries.push(entry);
                }
            }
            members.push(index);
        }
        let mut archetypes = Vec::with_capacity(groups.len());
        for (entries, members) in groups {
            let mut columns: Vec<LoadedColumn> = entries.iter().map(|&entry| loaded_column(registry, entry)).collect();
            for (&entry, loaded) in entries.iter().zip(&mut columns) {
                let pool = &mut pools[entry].as_mut().expect("a pool for every entry read").column;
                for &member in &members {
                    match rows[member].1.iter().find(|&&(e, _)| e == entry) {
                        Some(&(_, pool_row)) => {
                            assert!(pool.holds(pool_row), "pool rows hold values");
                            // SAFETY: the pool and `loaded` are columns of the same
                            // entry's type; the row holds a value (asserted), moved
                            // out exactly once (one row, one component) and the pool
                            // forgets them all below, so nothing is dropped twice;
                            // the pool is this function's own. Nothing between here
                            // and that runs user code or returns early.
                            unsafe {
                                let owned = pool.take_unchecked(pool_row);
                                loaded.column.push(owned, crate::storage::Tick::new(1));
                            }
                        }
                        // Only sparse components vary within a group: its key is
                        // the table components every member has.
                        None => loaded.column.push_absent_rows(1),
                    }
                }
            }
            let entities = members.iter().map(|&m| rows[m].0).collect();
            let key = key_of(&columns);
            archetypes.push(LoadedArchetype { key, entities, columns });
        }
        for pool in pools.iter_mut().flatten() {
            // SAFETY: every value was moved out above.
            unsafe { pool.column.forget_rows() };
        }
        WorldSave {
            slots: self.slots,
            free: self.free,
            retired: self.retired,
            archetypes,
            ticks: None,
            resources: self.resources,
            locals: self.locals,
            empty_lists: Vec::new(),
        }
    }
}

struct SaveVisitor<'a, 'r> {
    context: &'a Context<'r>,
}

fn missing<E: serde::de::Error>(field: &'static str) -> E {
    E::missing_field(field)
}

impl SaveVisitor<'_, '_> {
    fn check_version<E: serde::de::Error>(&self, version: u32) -> Result<(), E> {
        if version > FORMAT_VERSION {
            return Err(self.context.fail(LoadError::NewerVersion { found: version, supported: FORMAT_VERSION }));
        }
        if version == 0 {
            return Err(E::custom("format version 0: not a save of this crate"));
        }
        Ok(())
    }
}

impl<'de> Visitor<'de> for SaveVisitor<'_, '_> {
    type Value = Parsed;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a world in the row format")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Parsed, A::Error> {
        let version: u32 = seq.next_element()?.ok_or_else(|| missing("version"))?;
        self.check_version(version)?;
        let slots = seq.next_element()?.ok_or_else(|| missing("slots"))?;
        let free = seq.next_element()?.ok_or_else(|| missing("free"))?;
        let retired = seq.next_element()?.ok_or_else(|| missing("retired"))?;
        let resources =
            seq.next_element_seed(ResourcesSeed { context: self.context })?.ok_or_else(|| missing("resources"))?;
        let mut rows = ReadRows::default();
        seq.next_element_seed(EntitiesSeed { context: self.context, rows: &mut rows })?
            .ok_or_else(|| missing("entities"))?;
        let locals = match version {
            ..3 => Vec::new(),
            _ => seq.next_element_seed(LocalsSeed { context: self.context })?.ok_or_else(|| missing("locals"))?,
        };
        Ok(Parsed { slots, free, retired, resources, rows, locals })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Parsed, A::Error> {
        // The version comes first, so that a newer save is refused before its
        // other fields are misread.
        match map.next_key::<Field>()? {
            Some(Field::Version) => {}
            _ => return Err(A::Error::custom("a save starts with its `version`")),
        }
        let version: u32 = map.next_value()?;
        self.check_version(version)?;
        let (mut slots, mut free, mut retired, mut resources) = (None, None, None, None);
        let (mut rows, mut locals) = (None, None);
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::Version => return Err(A::Error::duplicate_field("version")),
                Field::Slots if slots.is_none() => slots = Some(map.next_value()?),
                Field::Free if free.is_none() => free = Some(map.next_value()?),
                Field::Retired if retired.is_none() => retired = Some(map.next_value()?),
                Field::Resources if resources.is_none() => {
                    resources = Some(map.next_value_seed(ResourcesSeed { context: self.context })?);
                }
                Field::Entities if rows.is_none() => {
                    let mut read = ReadRows::default();
                    map.next_value_seed(EntitiesSeed { context: self.context, rows: &mut read })?;
                    rows = Some(read);
                }
                Field::Locals if locals.is_none() => {
                    locals = Some(map.next_value_seed(LocalsSeed { context: self.context })?);
                }
                Field::Ignored => {
                    map.next_value::<IgnoredAny>()?;
                }
                duplicate => return Err(A::Error::duplicate_field(FIELDS[duplicate as usize])),
            }
        }
        Ok(Parsed {
            slots: slots.ok_or_else(|| missing("slots"))?,
            free: free.ok_or_else(|| missing("free"))?,
            retired: retired.ok_or_else(|| missing("retired"))?,
            resources: resources.ok_or_else(|| missing("resources"))?,
            rows: rows.ok_or_else(|| missing("entities"))?,
            // Saves before version 3 have none.
            locals: locals.unwrap_or_default(),
        })
    }
}

#[derive(Clone, Copy)]
enum Field {
    Version,
    Slots,
    Free,
    Retired,
    Resources,
    Entities,
    Locals,
    /// A field a newer minor revision may add: skipped.
    Ignored,
}

impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FieldVisitor;
        impl Visitor<'_> for FieldVisitor {
            type Value = Field;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Field, E> {
                Ok(match name {
                    "version" => Field::Version,
                    "slots" => Field::Slots,
                    "free" => Field::Free,
                    "retired" => Field::Retired,
                    "resources" => Field::Resources,
                    "entities" => Field::Entities,
                    "locals" => Field::Locals,
                    _ => Field::Ignored,
                })
            }
            fn visit_u64<E: serde::de::Error>(self, index: u64) -> Result<Field, E> {
                Ok(match index {
                    0 => Field::Version,
                    1 => Field::Slots,
                    2 => Field::Free,
                    3 => Field::Retired,
                    4 => Field::Resources,
                    5 => Field::Entities,
                    6 => Field::Locals,
                    _ => Field::Ignored,
                })
            }
        }
        deserializer.deserialize_identifier(FieldVisitor)
    }
}

struct EntitiesSeed<'a, 'r> {
    context: &'a Context<'r>,
    rows: &'a mut ReadRows,
}

impl<'de> DeserializeSeed<'de> for EntitiesSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for EntitiesSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map from entity to its components")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(entity) = map.next_key::<Entity>()? {
            let mut components = Vec::new();
            map.next_value_seed(RowSeed {
                context: self.context,
                pools: &mut self.rows.pools,
                entity,
                components: &mut components,
            })?;
            self.rows.rows.push((entity, components));
        }
        Ok(())
    }
}

struct RowSeed<'a, 'r> {
    context: &'a Context<'r>,
    pools: &'a mut Vec<Option<LoadedColumn>>,
    entity: Entity,
    components: &'a mut Vec<(usize, usize)>,
}

impl<'de> DeserializeSeed<'de> for RowSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RowSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the components of {}, by name", self.entity)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(name) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let entry = self.context.entry::<A::Error>(&name)?;
            if self.components.iter().any(|&(e, _)| e == entry) {
                return Err(self.context.fail(LoadError::DuplicateComponent(name.into_owned())));
            }
            if self.pools.len() <= entry {
                self.pools.resize_with(entry + 1, || None);
            }
            let pool = self.pools[entry].get_or_insert_with(|| loaded_column(self.context.registry, entry));
            let row = pool.column.len();
            let seed = ValueSeed {
                context: self.context,
                entry: self.context.registry.entry(entry),
                column: &mut pool.column,
                entity: Some(self.entity),
            };
            map.next_value_seed(seed)?;
            self.components.push((entry, row));
        }
        Ok(())
    }
}
