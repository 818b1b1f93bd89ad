//! The column format: per archetype, the component names, the entities, and
//! each component's values in a run with their change ticks. Compact and
//! exact: a world loaded from it into a new world is the saved world, ticks
//! and systems' last runs included.
//!
//! Layout in serde's data model (tuples are fixed-size, sequences carry a
//! length): `(version, change_tick, last_tick_check, [system_tick],
//! slots, [free entity], [retired entity], [archetype], {resource name: value},
//! [local])`, an archetype being `([name], [entity], [column])` and a local
//! `(system slot, place, type name, system name, value)`.
//!
//! A column in a human-readable format (JSON, RON) is `(values, [(added,
//! changed)])`, where `values` is `[value]` for a table component and
//! `[(row, value)]` for a sparse one (the rows holding a value, in order), and
//! ticks are listed for the rows holding a value (none when the component keeps
//! no ticks). In a compact format (postcard, bincode) it is `(kind, values,
//! ticks)` with the values in byte strings and the ticks in runs, as
//! [`super::codec`] describes, and an archetype's entities are one byte
//! string too ([`super::entity_list`]): the speed of a hand-written serializer
//! without giving up the stable names.

use core::fmt;

use serde::de::{DeserializeSeed, Deserializer, Error as _, IgnoredAny, SeqAccess, Visitor};
use serde::ser::{Error as _, SerializeSeq, SerializeTuple};
use serde::{Serialize, Serializer};

use super::FORMAT_VERSION;
use super::codec;
use super::compact::{Bytes, Chunks, CompactColumn};
use super::entity_list::{EntityBytes, EntityBytesSeed};
use super::error::LoadError;
use super::locals::{LocalsOut, LocalsSeed};
use super::plan::{PlannedArchetype, plan};
use super::registry::SerializeRegistry;
use super::resources::{ResourcesOut, ResourcesSeed};
use super::save::{LoadedArchetype, LoadedColumn, SavedTicks, WorldSave};
use super::validate;
use super::values::{Context, ValueOut, ValueSeed};
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::storage::{Column, ComponentTicks, Tick};
use crate::world::World;

/// A world in the column format, ready for any serde serializer: made by
/// [`SerializeRegistry::columns`]. Serializing fails, naming it, when an
/// entity holds a component that is neither registered nor skipped.
pub struct Columns<'a> {
    registry: &'a SerializeRegistry,
    world: &'a World,
}

impl SerializeRegistry {
    /// `world` in the column format (see [`crate::serialize`]): serialize the
    /// result with any serde format.
    ///
    /// # Example
    /// ```
    /// use ecs_core::prelude::*;
    /// use ecs_core::serialize::SerializeRegistry;
    /// #[derive(Component, Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    /// struct Hp(u32);
    /// let registry = SerializeRegistry::new().register::<Hp>("Hp");
    /// let mut world = World::new();
    /// let e = world.spawn(Hp(3));
    /// let bytes = serde_json::to_vec(&registry.columns(&world)).unwrap();
    /// let mut loaded = World::new();
    /// loaded.load(registry.load_columns(&mut serde_json::Deserializer::from_slice(&bytes))?);
    /// assert_eq!(loaded.get::<Hp>(e), Some(&Hp(3)));
    /// # Ok::<(), ecs_core::serialize::LoadError>(())
    /// ```
    pub fn columns<'a>(&'a self, world: &'a World) -> Columns<'a> {
        Columns { registry: self, world }
    }

    /// Parses and checks a save in the column format, without touching any
    /// world; [`World::load`] puts the result into one.
    ///
    /// # Errors
    /// A [`LoadError`] naming what is wrong (see [`crate::serialize`]).
    pub fn load_columns<'de, D: Deserializer<'de>>(&self, deserializer: D) -> Result<WorldSave, LoadError> {
        let context = Context::new(self);
        let result = deserializer.deserialize_tuple(10, SaveVisitor { context: &context });
        let mut save = context.finish(result)?;
        validate::check(&mut save)?;
        Ok(save)
    }
}

impl Serialize for Columns<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let plan = plan(self.registry, self.world).map_err(S::Error::custom)?;
        let (change_tick, last_tick_check, system_ticks) = self.world.saved_ticks();
        let mut out = serializer.serialize_tuple(10)?;
        out.serialize_element(&FORMAT_VERSION)?;
        out.serialize_element(&change_tick)?;
        out.serialize_element(&last_tick_check)?;
        out.serialize_element(&system_ticks)?;
        out.serialize_element(&plan.slots)?;
        out.serialize_element(&plan.free)?;
        out.serialize_element(&plan.retired)?;
        let archetypes: Vec<ArchetypeOut<'_>> =
            plan.archetypes.iter().map(|planned| ArchetypeOut { registry: self.registry, planned }).collect();
        out.serialize_element(&archetypes)?;
        out.serialize_element(&ResourcesOut { registry: self.registry, world: self.world })?;
        out.serialize_element(&LocalsOut { registry: self.registry, world: self.world })?;
        out.end()
    }
}

struct ArchetypeOut<'a> {
    registry: &'a SerializeRegistry,
    planned: &'a PlannedArchetype<'a>,
}

impl Serialize for ArchetypeOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let compact = !serializer.is_human_readable();
        let mut out = serializer.serialize_tuple(3)?;
        let names: Vec<&str> =
            self.planned.columns.iter().map(|&(_, entry)| self.registry.entry(entry).name.as_str()).collect();
        out.serialize_element(&names)?;
        let entities = self.planned.archetype.entities();
        if compact {
            out.serialize_element(&EntityBytes(entities))?;
        } else {
            out.serialize_element(entities)?;
        }
        let columns: Vec<ColumnOut<'_>> = self
            .planned
            .columns
            .iter()
            .map(|&(column, entry)| ColumnOut { registry: self.registry, column, entry })
            .collect();
        out.serialize_element(&columns)?;
        out.end()
    }
}

struct ColumnOut<'a> {
    registry: &'a SerializeRegistry,
    /// A column of the entry's component.
    column: &'a Column,
    entry: usize,
}

impl Serialize for ColumnOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let entry = self.registry.entry(self.entry);
        let column = self.column;
        if !serializer.is_human_readable() {
            let mut out = serializer.serialize_tuple(3)?;
            if entry.pod && !column.is_sparse() && !column.is_split() && cfg!(target_endian = "little") {
                out.serialize_element(&codec::RAW)?;
                // SAFETY: a table column holds a value in every row, and the
                // entry's `pod` flag says the type is `bytemuck::Pod`.
                out.serialize_element(&Bytes(unsafe { column.value_bytes() }))?;
            } else {
                out.serialize_element(&codec::ENCODED)?;
                out.serialize_element(&Chunks { entry, column })?;
            }
            out.serialize_element(&codec::tick_runs(column))?;
            return out.end();
        }
        let present = (0..column.len()).filter(|&row| column.holds(row)).count();
        let mut out = serializer.serialize_tuple(2)?;
        let value = |row: usize| column.holds(row).then_some(ValueOut { entry, column, row });
        if column.is_sparse() {
            let rows = || (0..column.len()).filter_map(|row| Some((row as u32, value(row)?)));
            out.serialize_element(&SeqOf(present, rows))?;
        } else {
            out.serialize_element(&SeqOf(present, || (0..column.len()).filter_map(value)))?;
        }
        let ticks = column.ticks();
        let pairs = move || {
            (0..ticks.len())
                .filter(|&row| column.holds(row))
                .map(|row| (ticks[row].added.get(), ticks[row].changed.get()))
        };
        out.serialize_element(&SeqOf(if ticks.is_empty() { 0 } else { present }, pairs))?;
        out.end()
    }
}

/// A sequence of `.0` items made by calling `.1` (compact formats need the
/// length up front, which a filtering iterator does not tell).
pub(crate) struct SeqOf<F>(pub(crate) usize, pub(crate) F);

impl<F, I> Serialize for SeqOf<F>
where
    F: Fn() -> I,
    I: Iterator,
    I::Item: Serialize,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_seq(Some(self.0))?;
        for item in (self.1)() {
            out.serialize_element(&item)?;
        }
        out.end()
    }
}

struct SaveVisitor<'a, 'r> {
    context: &'a Context<'r>,
}

pub(crate) fn missing<E: serde::de::Error>(what: &str) -> E {
    E::custom(format_args!("the save ends before its {what}"))
}

impl<'de> Visitor<'de> for SaveVisitor<'_, '_> {
    type Value = WorldSave;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a world in the column format")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<WorldSave, A::Error> {
        let version: u32 = seq.next_element()?.ok_or_else(|| missing("format version"))?;
        if version > FORMAT_VERSION {
            return Err(self.context.fail(LoadError::NewerVersion { found: version, supported: FORMAT_VERSION }));
        }
        if version == 1 {
            return Err(A::Error::custom(
                "format version 1: a column save of a pre-release build, whose layout this build does not read",
            ));
        }
        if version == 0 {
            return Err(A::Error::custom("format version 0: not a save of this crate"));
        }
        let change_tick: u32 = seq.next_element()?.ok_or_else(|| missing("change tick"))?;
        let last_tick_check: u32 = seq.next_element()?.ok_or_else(|| missing("tick check"))?;
        let system_ticks: Vec<u32> = seq.next_element()?.ok_or_else(|| missing("system ticks"))?;
        let slots: u32 = seq.next_element()?.ok_or_else(|| missing("slot count"))?;
        let free: Vec<Entity> = seq.next_element()?.ok_or_else(|| missing("free list"))?;
        let retired: Vec<Entity> = seq.next_element()?.ok_or_else(|| missing("retired slots"))?;
        let now = Tick::new(change_tick);
        let archetypes = seq
            .next_element_seed(ArchetypesSeed { context: self.context, now, version })?
            .ok_or_else(|| missing("archetypes"))?;
        let resources =
            seq.next_element_seed(ResourcesSeed { context: self.context })?.ok_or_else(|| missing("resources"))?;
        let locals = match version {
            2 => Vec::new(),
            _ => seq.next_element_seed(LocalsSeed { context: self.context })?.ok_or_else(|| missing("locals"))?,
        };
        let ticks = Some(SavedTicks { change_tick, last_tick_check, system_ticks });
        Ok(WorldSave { slots, free, retired, archetypes, ticks, resources, locals, empty_lists: Vec::new() })
    }
}

struct ArchetypesSeed<'a, 'r> {
    context: &'a Context<'r>,
    now: Tick,
    /// The save's format version.
    version: u32,
}

impl<'de> DeserializeSeed<'de> for ArchetypesSeed<'_, '_> {
    type Value = Vec<LoadedArchetype>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ArchetypesSeed<'_, '_> {
    type Value = Vec<LoadedArchetype>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence of archetypes")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut archetypes = Vec::new();
        let seed =
            || ArchetypeSeed { context: self.context, now: self.now, version: self.version, entity_bytes: false };
        while let Some(archetype) = seq.next_element_seed(seed())? {
            archetypes.push(archetype);
        }
        Ok(archetypes)
    }
}

struct ArchetypeSeed<'a, 'r> {
    context: &'a Context<'r>,
    now: Tick,
    /// The save's format version.
    version: u32,
    /// The entities are an [`EntityBytes`] string (set from the format and
    /// the version once the deserializer is known).
    entity_bytes: bool,
}

impl<'de> DeserializeSeed<'de> for ArchetypeSeed<'_, '_> {
    type Value = LoadedArchetype;

    fn deserialize<D: Deserializer<'de>>(mut self, deserializer: D) -> Result<Self::Value, D::Error> {
        // Versions before 4 wrote entities one element each in every format.
        self.entity_bytes = self.version >= 4 && !deserializer.is_human_readable();
        deserializer.deserialize_tuple(3, self)
    }
}

impl<'de> Visitor<'de> for ArchetypeSeed<'_, '_> {
    type Value = LoadedArchetype;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an archetype: component names, entities, columns")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let names: Vec<String> = seq.next_element()?.ok_or_else(|| missing("component names"))?;
        let mut entries = Vec::with_capacity(names.len());
        for name in &names {
            let entry = self.context.entry::<A::Error>(name)?;
            if entries.contains(&entry) {
                return Err(self.context.fail(LoadError::DuplicateComponent(name.clone())));
            }
            entries.push(entry);
        }
        let entities: Vec<Entity> = if self.entity_bytes {
            let decoded = seq.next_element_seed(EntityBytesSeed)?.ok_or_else(|| missing("entities"))?;
            decoded.map_err(|why| {
                self.context.fail(LoadError::InvalidEntityIndex(format!("an archetype's list of entities: {why}")))
            })?
        } else {
            seq.next_element()?.ok_or_else(|| missing("entities"))?
        };
        let columns = seq
            .next_element_seed(ColumnsSeed {
                context: self.context,
                entries: &entries,
                entities: &entities,
                now: self.now,
            })?
            .ok_or_else(|| missing("columns"))?;
        let key = key_of(&columns);
        Ok(LoadedArchetype { key, entities, columns })
    }
}

/// The archetype key of these columns: their table components, sorted.
pub(crate) fn key_of(columns: &[LoadedColumn]) -> Box<[ComponentId]> {
    let mut key: Vec<ComponentId> = columns.iter().filter(|c| !c.info.is_sparse()).map(|c| c.info.id()).collect();
    key.sort_unstable();
    key.into()
}

/// An empty loaded column for registry entry `entry`.
pub(crate) fn loaded_column(registry: &SerializeRegistry, entry: usize) -> LoadedColumn {
    let entry = registry.entry(entry);
    LoadedColumn {
        name: entry.name.clone(),
        info: entry.info,
        column: entry.info.new_column(),
        map_entities: entry.entities,
        relation: entry.relation,
    }
}

struct ColumnsSeed<'a, 'r> {
    context: &'a Context<'r>,
    entries: &'a [usize],
    entities: &'a [Entity],
    now: Tick,
}

impl<'de> DeserializeSeed<'de> for ColumnsSeed<'_, '_> {
    type Value = Vec<LoadedColumn>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ColumnsSeed<'_, '_> {
    type Value = Vec<LoadedColumn>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} columns", self.entries.len())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut columns = Vec::with_capacity(self.entries.len());
        for &entry in self.entries {
            let mut loaded = loaded_column(self.context.registry, entry);
            let seed = ColumnSeed {
                context: self.context,
                entry,
                column: &mut loaded.column,
                entities: self.entities,
                now: self.now,
            };
            seq.next_element_seed(seed)?.ok_or_else(|| A::Error::invalid_length(columns.len(), &self))?;
            columns.push(loaded);
        }
        if seq.next_element::<IgnoredAny>()?.is_some() {
            return Err(A::Error::invalid_length(self.entries.len() + 1, &self));
        }
        Ok(columns)
    }
}

struct ColumnSeed<'a, 'r> {
    context: &'a Context<'r>,
    entry: usize,
    /// Made from the entry's `ComponentInfo`.
    column: &'a mut Column,
    entities: &'a [Entity],
    now: Tick,
}

impl<'de> DeserializeSeed<'de> for ColumnSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        if deserializer.is_human_readable() {
            deserializer.deserialize_tuple(2, ReadableColumn(self))
        } else {
            deserializer.deserialize_tuple(
                3,
                CompactColumn {
                    context: self.context,
                    entry: self.entry,
                    column: self.column,
                    entities: self.entities,
                    now: self.now,
                },
            )
        }
    }
}

/// A column as human-readable formats hold it: `([value], [(added, changed)])`.
struct ReadableColumn<'a, 'r>(ColumnSeed<'a, 'r>);

impl<'de> Visitor<'de> for ReadableColumn<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a column: values and ticks")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let this = self.0;
        let entry = this.context.registry.entry(this.entry);
        let values =
            ValuesSeed { context: this.context, entry: this.entry, column: &mut *this.column, entities: this.entities };
        seq.next_element_seed(values)?.ok_or_else(|| missing("values"))?;
        let ticks: Vec<(u32, u32)> = seq.next_element()?.ok_or_else(|| missing("ticks"))?;
        let present = (0..this.column.len()).filter(|&row| this.column.holds(row)).count();
        if !ticks.is_empty() && ticks.len() != present {
            return Err(A::Error::custom(format_args!(
                "component `{}` has {present} values but {} ticks",
                entry.name,
                ticks.len()
            )));
        }
        let ticks = ticks
            .into_iter()
            .map(|(added, changed)| ComponentTicks { added: Tick::new(added), changed: Tick::new(changed) });
        this.column.load_ticks(ticks, this.now);
        Ok(())
    }
}

struct ValuesSeed<'a, 'r> {
    context: &'a Context<'r>,
    entry: usize,
    /// Made from the entry's `ComponentInfo`.
    column: &'a mut Column,
    /// The archetype's entities, one per row.
    entities: &'a [Entity],
}

impl<'de> DeserializeSeed<'de> for ValuesSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ValuesSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} values", self.entities.len())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let entry = self.context.registry.entry(self.entry);
        let rows = self.entities.len();
        if self.column.is_sparse() {
            // `(row, value)` for the rows holding one, rows increasing.
            loop {
                let seed = SparseRow {
                    value: ValueSeed { context: self.context, entry, column: &mut *self.column, entity: None },
                    rows,
                };
                if seq.next_element_seed(seed)?.is_none() {
                    break;
                }
            }
            let absent = rows - self.column.len();
            self.column.push_absent_rows(absent);
            return Ok(());
        }
        // Grown as values arrive, never from a count the input claims.
        for row in 0..rows {
            let value = ValueSeed { context: self.context, entry, column: &mut *self.column, entity: None };
            if seq.next_element_seed(value)?.is_none() {
                return Err(A::Error::custom(format_args!(
                    "component `{}` has {row} values for {} entities",
                    entry.name, rows
                )));
            }
        }
        if seq.next_element::<IgnoredAny>()?.is_some() {
            return Err(A::Error::custom(format_args!("component `{}` has more values than entities", entry.name)));
        }
        Ok(())
    }
}

/// One row of a sparse column: its index, then its value; the rows skipped
/// since the last one are absent.
struct SparseRow<'a, 'r> {
    value: ValueSeed<'a, 'r>,
    rows: usize,
}

impl<'de> DeserializeSeed<'de> for SparseRow<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_tuple(2, self)
    }
}

impl<'de> Visitor<'de> for SparseRow<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a row and its value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let row: u32 = seq.next_element()?.ok_or_else(|| missing("row"))?;
        let (row, filled) = (row as usize, self.value.column.len());
        if row < filled || row >= self.rows {
            return Err(A::Error::custom(format_args!(
                "component `{}`: row {row} is out of order or beyond the {} entities",
                self.value.entry.name, self.rows
            )));
        }
        self.value.column.push_absent_rows(row - filled);
        seq.next_element_seed(self.value)?.ok_or_else(|| missing("value"))?;
        Ok(())
    }
}
