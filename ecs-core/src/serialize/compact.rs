//! The column format's columns in compact (not human-readable) formats:
//! `(kind, values, ticks)`, as [`super::codec`] describes.

use core::fmt;

use serde::de::{DeserializeSeed, Deserializer, Error as _, SeqAccess, Visitor};
use serde::ser::{Error as _, SerializeSeq};
use serde::{Serialize, Serializer};

use super::codec;
use super::column::missing;
use super::error::LoadError;
use super::registry::{Codec, Entry};
use super::schema_values;
use super::values::Context;
use crate::entity::Entity;
use crate::storage::{Column, ComponentTicks, Tick};

/// The values of an [`ENCODED`](codec::ENCODED) column: byte strings of about
/// [`CHUNK`](codec::CHUNK) bytes.
pub(crate) struct Chunks<'a> {
    pub(crate) entry: &'a Entry,
    /// A column of the entry's component.
    pub(crate) column: &'a Column,
}

impl Serialize for Chunks<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let len = self.column.len();
        // Rows per string, from the size in memory (an estimate of the encoded
        // size); compact formats need the number of strings up front.
        let step = (codec::CHUNK / self.column.item_layout().size().max(1)).max(1);
        let mut out = serializer.serialize_seq(Some(len.div_ceil(step)))?;
        let mut chunk = Vec::new();
        for start in (0..len).step_by(step) {
            chunk.clear();
            let rows = start..(start + step).min(len);
            // SAFETY: the column holds the entry's type (field invariant).
            let encoded = unsafe {
                match &self.entry.codec {
                    Codec::Typed { encode, .. } => encode(self.column, rows, &mut chunk),
                    Codec::Schema(kind) => schema_values::encode(kind, self.column, rows, &mut chunk),
                }
            };
            encoded.map_err(S::Error::custom)?;
            out.serialize_element(&Bytes(&chunk))?;
        }
        out.end()
    }
}

/// A byte string, as serde's `bytes` (not a sequence of numbers).
pub(crate) struct Bytes<'a>(pub(crate) &'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(self.0)
    }
}

/// Reads one compact column into `column`.
pub(crate) struct CompactColumn<'a, 'r> {
    pub(crate) context: &'a Context<'r>,
    pub(crate) entry: usize,
    /// Made from the entry's `ComponentInfo`.
    pub(crate) column: &'a mut Column,
    /// The archetype's entities, one per row.
    pub(crate) entities: &'a [Entity],
    pub(crate) now: Tick,
}

impl CompactColumn<'_, '_> {
    fn invalid<E: serde::de::Error>(&self, entity: Option<Entity>, message: String) -> E {
        let component = self.context.registry.entry(self.entry).name.clone();
        self.context.fail(LoadError::InvalidValue { component, entity, message })
    }
}

impl<'de> Visitor<'de> for CompactColumn<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a column: its encoding, values and ticks")
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        let rows = self.entities.len();
        let entry = self.context.registry.entry(self.entry);
        let kind: u8 = seq.next_element()?.ok_or_else(|| missing("encoding"))?;
        match kind {
            codec::RAW => {
                let raw = Raw { column: &mut *self.column, rows, pod: entry.pod };
                let result = seq.next_element_seed(raw)?.ok_or_else(|| missing("values"))?;
                result.map_err(|message| self.invalid(None, message))?;
            }
            codec::ENCODED => {
                seq.next_element_seed(ChunkSeq { column: &mut self, entry })?.ok_or_else(|| missing("values"))?;
                let filled = self.column.len();
                if self.column.is_sparse() {
                    self.column.push_absent_rows(rows - filled);
                } else if filled != rows {
                    return Err(self.invalid(None, format!("it has {filled} values for {rows} entities")));
                }
            }
            other => return Err(self.invalid(None, format!("its values are of an unknown kind {other}"))),
        }
        let runs: Vec<(u32, u32, u32)> = seq.next_element()?.ok_or_else(|| missing("ticks"))?;
        let present = (0..rows).filter(|&row| self.column.holds(row)).count();
        let ticked = runs.iter().try_fold(0usize, |sum, &(length, ..)| sum.checked_add(length as usize));
        if !runs.is_empty() && ticked != Some(present) {
            return Err(A::Error::custom(format_args!(
                "component `{}` has {present} values but ticks for {}",
                entry.name,
                ticked.map_or_else(|| "more".to_owned(), |n| n.to_string())
            )));
        }
        let runs = runs.into_iter().map(|(length, added, changed)| {
            (length as usize, ComponentTicks { added: Tick::new(added), changed: Tick::new(changed) })
        });
        self.column.load_tick_runs(runs, self.now);
        Ok(())
    }
}

/// The one byte string of a [`RAW`](codec::RAW) column.
struct Raw<'a> {
    column: &'a mut Column,
    rows: usize,
    /// The entry's `pod` flag.
    pod: bool,
}

impl<'de> DeserializeSeed<'de> for Raw<'_> {
    type Value = Result<(), String>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_bytes(self)
    }
}

impl<'de> Visitor<'de> for Raw<'_> {
    type Value = Result<(), String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a column's bytes")
    }

    fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<Self::Value, E> {
        Ok(codec::decode_raw(bytes, self.column, self.rows, self.pod, Tick::new(1)))
    }
}

/// The byte strings of an [`ENCODED`](codec::ENCODED) column, or one of them.
struct ChunkSeq<'c, 'a, 'r> {
    column: &'c mut CompactColumn<'a, 'r>,
    entry: &'c Entry,
}

impl<'de> DeserializeSeed<'de> for ChunkSeq<'_, '_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ChunkSeq<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence of byte strings of values")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Chunk(ChunkSeq { column: &mut *self.column, entry: self.entry }))?.is_some() {}
        Ok(())
    }
}

/// One byte string of an [`ENCODED`](codec::ENCODED) column.
struct Chunk<'c, 'a, 'r>(ChunkSeq<'c, 'a, 'r>);

impl<'de> DeserializeSeed<'de> for Chunk<'_, '_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_bytes(self)
    }
}

impl<'de> Visitor<'de> for Chunk<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a byte string of values")
    }

    fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<(), E> {
        let ChunkSeq { column: target, entry } = self.0;
        let rows = target.entities.len();
        // SAFETY: the column was made from the entry's `ComponentInfo`
        // (`CompactColumn` field invariant).
        let result = unsafe {
            match &entry.codec {
                Codec::Typed { decode, .. } => decode(bytes, target.column, rows, Tick::new(1)),
                Codec::Schema(kind) => schema_values::decode(kind, bytes, target.column, rows, Tick::new(1)),
            }
        };
        result.map_err(|error| target.invalid(error.row.map(|row| target.entities[row]), error.message))
    }
}
