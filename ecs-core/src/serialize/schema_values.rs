//! Values saved and loaded through their schema: what a component defined at
//! run time (which has no `Serialize` impl) is written as.
//!
//! A struct is a map from field names to values, so a save reads back into a
//! process whose schema lists the fields in another order, or has gained
//! fields (they load as their defaults); an array is a sequence; a field-less
//! enum is its variant's name; an [`Entity`] is written as entities are
//! everywhere in saves (and remapped on load like `#[entities]` fields); text,
//! numbers and `bool` as themselves. The same serde calls serve the
//! human-readable formats and the compact one (postcard).

use core::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Serialize, Serializer};

use super::codec::DecodeError;
use crate::component::{FieldKind, value};
use crate::entity::Entity;
use crate::storage::{Column, OwningPtr, Ptr, PtrMut, Tick};
use crate::world::Bytes;

/// A value of `kind` at `ptr`, as serde writes it.
pub(crate) struct SchemaValue<'a> {
    kind: &'a FieldKind,
    ptr: *const u8,
}

impl<'a> SchemaValue<'a> {
    /// # Safety
    /// `ptr` points at a valid value of `kind`, alive and unchanged while the
    /// result is used.
    pub(crate) unsafe fn new(kind: &'a FieldKind, ptr: *const u8) -> Self {
        Self { kind, ptr }
    }
}

impl Serialize for SchemaValue<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // A part of the valid value (`new`'s contract), at its offset within
        // it (the schema's contract).
        let at = |offset: usize, kind| SchemaValue { kind, ptr: self.ptr.wrapping_add(offset) };
        // SAFETY: (every read) `ptr` holds a valid value of the kind (`new`).
        unsafe {
            match self.kind {
                FieldKind::Bool => serializer.serialize_bool(*self.ptr.cast::<bool>()),
                FieldKind::I8 => serializer.serialize_i8(*self.ptr.cast::<i8>()),
                FieldKind::I16 => serializer.serialize_i16(*self.ptr.cast::<i16>()),
                FieldKind::I32 => serializer.serialize_i32(*self.ptr.cast::<i32>()),
                FieldKind::I64 => serializer.serialize_i64(*self.ptr.cast::<i64>()),
                FieldKind::U8 => serializer.serialize_u8(*self.ptr.cast::<u8>()),
                FieldKind::U16 => serializer.serialize_u16(*self.ptr.cast::<u16>()),
                FieldKind::U32 => serializer.serialize_u32(*self.ptr.cast::<u32>()),
                FieldKind::U64 => serializer.serialize_u64(*self.ptr.cast::<u64>()),
                FieldKind::F32 => serializer.serialize_f32(*self.ptr.cast::<f32>()),
                FieldKind::F64 => serializer.serialize_f64(*self.ptr.cast::<f64>()),
                FieldKind::Entity => (*self.ptr.cast::<Entity>()).serialize(serializer),
                FieldKind::String => serializer.serialize_str(&*self.ptr.cast::<String>()),
                FieldKind::Array(element, len) => {
                    let mut seq = serializer.serialize_seq(Some(*len))?;
                    for i in 0..*len {
                        seq.serialize_element(&at(i * element.size(), element))?;
                    }
                    seq.end()
                }
                FieldKind::Struct(schema) => {
                    let mut map = serializer.serialize_map(Some(schema.fields().len()))?;
                    for field in schema.fields() {
                        map.serialize_entry(field.name(), &at(field.offset(), field.kind()))?;
                    }
                    map.end()
                }
                FieldKind::Enum(schema) => {
                    let discriminant = schema.read(self.ptr);
                    let variant = schema.variants().iter().find(|v| v.discriminant() == discriminant);
                    serializer.serialize_str(variant.map_or("?", |v| v.name()))
                }
            }
        }
    }
}

/// Reads a value of `kind` over the valid value at `ptr` (every field at
/// its default, or read already): a field the input leaves out keeps it.
struct KindSeed<'a> {
    kind: &'a FieldKind,
    ptr: *mut u8,
}

impl<'de> DeserializeSeed<'de> for KindSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        // SAFETY: (every write) `ptr` holds a valid value of the kind, aligned
        // and writable (the seed's invariant); a value of the same kind replaces
        // it (an old `String` dropped by the assignment).
        unsafe {
            match self.kind {
                FieldKind::Bool => *self.ptr.cast::<bool>() = bool::deserialize(deserializer)?,
                FieldKind::I8 => *self.ptr.cast::<i8>() = i8::deserialize(deserializer)?,
                FieldKind::I16 => *self.ptr.cast::<i16>() = i16::deserialize(deserializer)?,
                FieldKind::I32 => *self.ptr.cast::<i32>() = i32::deserialize(deserializer)?,
                FieldKind::I64 => *self.ptr.cast::<i64>() = i64::deserialize(deserializer)?,
                FieldKind::U8 => *self.ptr.cast::<u8>() = u8::deserialize(deserializer)?,
                FieldKind::U16 => *self.ptr.cast::<u16>() = u16::deserialize(deserializer)?,
                FieldKind::U32 => *self.ptr.cast::<u32>() = u32::deserialize(deserializer)?,
                FieldKind::U64 => *self.ptr.cast::<u64>() = u64::deserialize(deserializer)?,
                FieldKind::F32 => *self.ptr.cast::<f32>() = f32::deserialize(deserializer)?,
                FieldKind::F64 => *self.ptr.cast::<f64>() = f64::deserialize(deserializer)?,
                FieldKind::Entity => *self.ptr.cast::<Entity>() = Entity::deserialize(deserializer)?,
                FieldKind::String => *self.ptr.cast::<String>() = String::deserialize(deserializer)?,
                FieldKind::Array(element, len) => {
                    deserializer.deserialize_seq(ArrayVisitor { element, len: *len, ptr: self.ptr })?;
                }
                FieldKind::Struct(_) => {
                    deserializer.deserialize_map(StructVisitor { kind: self.kind, ptr: self.ptr })?
                }
                FieldKind::Enum(schema) => {
                    let name = String::deserialize(deserializer)?;
                    let Some(variant) = schema.variant(&name) else {
                        return Err(serde::de::Error::custom(format_args!(
                            "`{name}` is not a variant of `{}`",
                            schema.name()
                        )));
                    };
                    let written = schema.write(self.ptr, variant.discriminant());
                    debug_assert!(written);
                }
            }
        }
        Ok(())
    }
}

struct ArrayVisitor<'a> {
    element: &'a FieldKind,
    len: usize,
    ptr: *mut u8,
}

impl<'de> Visitor<'de> for ArrayVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} values of {}", self.len, self.element)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        for i in 0..self.len {
            // SAFETY: element `i` of the array the seed's pointer holds.
            let ptr = unsafe { self.ptr.add(i * self.element.size()) };
            if seq.next_element_seed(KindSeed { kind: self.element, ptr })?.is_none() {
                return Err(serde::de::Error::invalid_length(i, &self));
            }
        }
        if seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
            return Err(serde::de::Error::invalid_length(self.len + 1, &self));
        }
        Ok(())
    }
}

struct StructVisitor<'a> {
    kind: &'a FieldKind,
    ptr: *mut u8,
}

impl<'de> Visitor<'de> for StructVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the fields of `{}`", self.kind)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let FieldKind::Struct(schema) = self.kind else { unreachable!("a struct visitor is made for a struct") };
        while let Some(name) = map.next_key::<String>()? {
            let Some(field) = schema.field(&name) else {
                return Err(serde::de::Error::custom(format_args!("`{}` has no field `{name}`", schema.name())));
            };
            // SAFETY: the field of the struct the seed's pointer holds.
            let ptr = unsafe { self.ptr.add(field.offset()) };
            map.next_value_seed(KindSeed { kind: field.kind(), ptr })?;
        }
        Ok(())
    }
}

/// Reads one value of `kind` into a fresh block: its fields at their
/// defaults first, then as the input gives them.
///
/// # Errors
/// The format's, naming what is wrong; nothing is left allocated then.
pub(crate) fn read_value<'de, D: Deserializer<'de>>(
    kind: &FieldKind,
    layout: core::alloc::Layout,
    deserializer: D,
) -> Result<Bytes, D::Error> {
    let bytes = Bytes::new(layout);
    // SAFETY: the block is fresh, sized and aligned for the kind (the
    // component's layout, made from this schema).
    unsafe { value::write_default(kind, bytes.ptr().as_ptr()) };
    if let Err(error) = (KindSeed { kind, ptr: bytes.ptr().as_ptr() }).deserialize(deserializer) {
        // SAFETY: the block holds a valid value (each field is a default or a
        // whole value read), dropped once; the block is freed after.
        unsafe { value::drop_in_place(kind, bytes.ptr().as_ptr()) };
        return Err(error);
    }
    Ok(bytes)
}

/// Pushes the value in `bytes` onto `column`, which then owns it.
///
/// # Safety
/// `column` holds values of the kind `bytes` holds a valid value of.
pub(crate) unsafe fn push(column: &mut Column, bytes: Bytes, tick: Tick) {
    // SAFETY: an owned, valid value of the column's component; the block is
    // freed (not dropped) after its bytes moved into the column.
    unsafe { column.push(OwningPtr::new(bytes.ptr()), tick) };
}

/// Appends the compact encoding of `column`'s rows `rows` to `out` (see
/// [`codec::encode`](super::codec::encode)), each value through its schema.
///
/// # Safety
/// `column` holds values of `kind`.
pub(crate) unsafe fn encode(
    kind: &FieldKind,
    column: &Column,
    rows: core::ops::Range<usize>,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let mut buffer = Vec::new();
    let sparse = column.is_sparse();
    let count = if sparse { rows.clone().filter(|&row| column.holds(row)).count() } else { rows.len() };
    buffer.extend(postcard::to_allocvec(&(count as u32)).map_err(|e| e.to_string())?);
    for row in rows {
        let written = column.with_row(row, |value: Ptr<'_>| {
            if sparse {
                buffer.extend(postcard::to_allocvec(&(row as u32)).map_err(|e| e.to_string())?);
            }
            // SAFETY: a value of `kind` (the column's, caller), read only.
            let value = unsafe { SchemaValue::new(kind, value.as_ptr()) };
            buffer.extend(postcard::to_allocvec(&value).map_err(|e| e.to_string())?);
            Ok::<(), String>(())
        });
        written.transpose()?;
    }
    out.extend_from_slice(&buffer);
    Ok(())
}

/// Appends the values one byte string of an encoded column holds to
/// `column` (see [`codec::decode`](super::codec::decode)).
///
/// # Safety
/// `column` holds values of `kind`.
pub(crate) unsafe fn decode(
    kind: &FieldKind,
    bytes: &[u8],
    column: &mut Column,
    rows: usize,
    tick: Tick,
) -> Result<(), DecodeError> {
    let mut deserializer = postcard::Deserializer::from_bytes(bytes);
    let count = u32::deserialize(&mut deserializer).map_err(DecodeError::whole)? as usize;
    if count > rows - column.len() {
        return Err(DecodeError::whole(format!("it has more values than the {rows} entities")));
    }
    let layout = column.item_layout();
    for _ in 0..count {
        let mut row = column.len();
        if column.is_sparse() {
            let at = u32::deserialize(&mut deserializer).map_err(DecodeError::whole)? as usize;
            if at < row || at >= rows {
                return Err(DecodeError::whole(format!("row {at} is out of order or beyond the {rows} entities")));
            }
            column.push_absent_rows(at - row);
            row = at;
        }
        let value = read_value(kind, layout, &mut deserializer).map_err(|e| DecodeError::at(row, e))?;
        // SAFETY: a value of the column's kind (caller).
        unsafe { push(column, value, tick) };
    }
    let rest = deserializer.finalize().map_err(DecodeError::whole)?;
    if !rest.is_empty() {
        return Err(DecodeError::whole(format!("{} bytes follow its values", rest.len())));
    }
    Ok(())
}

/// Calls `f` with each [`Entity`] a value of `kind` holds.
///
/// # Safety
/// `ptr` points at a valid value of `kind`.
pub(crate) unsafe fn visit_entities(kind: &FieldKind, ptr: Ptr<'_>, f: &mut dyn FnMut(Entity)) {
    // SAFETY: forwarded; each entity is only read.
    unsafe { walk_entities(kind, ptr.as_ptr().cast_mut(), &mut |e: *mut Entity| f(e.read())) }
}

/// Replaces each [`Entity`] a value of `kind` holds with `f` of it.
///
/// # Safety
/// `ptr` points at a valid value of `kind`, not aliased.
pub(crate) unsafe fn map_entities(kind: &FieldKind, ptr: PtrMut<'_>, f: &mut dyn FnMut(Entity) -> Entity) {
    // SAFETY: forwarded; the value is unaliased (caller), so its entities may
    // be written.
    unsafe { walk_entities(kind, ptr.as_ptr(), &mut |e: *mut Entity| e.write(f(e.read()))) }
}

/// Calls `f` with a pointer to each [`Entity`] of the value of `kind` at
/// `ptr`.
///
/// # Safety
/// `ptr` points at a valid value of `kind`; `f` writes through an entity's
/// pointer only when the caller may write the value.
unsafe fn walk_entities(kind: &FieldKind, ptr: *mut u8, f: &mut dyn FnMut(*mut Entity)) {
    // SAFETY: (every arm) parts of the valid value at their offsets.
    unsafe {
        match kind {
            FieldKind::Entity => f(ptr.cast::<Entity>()),
            FieldKind::Array(element, len) => {
                for i in 0..*len {
                    walk_entities(element, ptr.add(i * element.size()), f);
                }
            }
            FieldKind::Struct(schema) => {
                for field in schema.fields() {
                    walk_entities(field.kind(), ptr.add(field.offset()), f);
                }
            }
            _ => {}
        }
    }
}

/// `true` when a value of `kind` holds an [`Entity`].
pub(crate) fn holds_entities(kind: &FieldKind) -> bool {
    match kind {
        FieldKind::Entity => true,
        FieldKind::Array(element, len) => *len > 0 && holds_entities(element),
        FieldKind::Struct(schema) => schema.fields().iter().any(|f| holds_entities(f.kind())),
        _ => false,
    }
}

impl crate::world::DynamicValue {
    /// A value of component `id` read from serde data through its schema (a
    /// struct as a map of field names, an enum as its variant's name): what a
    /// prefab or a level file holds. Fields the data leaves out keep their
    /// defaults.
    ///
    /// # Errors
    /// The format's error, naming the unknown field, the unknown variant or
    /// the value of the wrong kind; or naming why the world has no such
    /// component with a schema.
    ///
    /// # Example
    /// ```
    /// use ecs_core::prelude::*;
    /// use ecs_core::component::{ComponentDescriptor, FieldKind, SchemaBuilder};
    /// use ecs_core::world::DynamicValue;
    ///
    /// let mut world = World::new();
    /// let schema = SchemaBuilder::new("Mana").field("points", FieldKind::F32).field("regen", FieldKind::F32).build()?;
    /// let mana = world.register_dynamic(&ComponentDescriptor::new("Mana", schema))?;
    /// let mut json = serde_json::Deserializer::from_str(r#"{ "points": 12.5 }"#);
    /// let value = DynamicValue::deserialize(&world, mana, &mut json)?;
    /// assert_eq!(value.view().get::<f32>("points"), Ok(12.5));
    /// assert_eq!(serde_json::to_string(&value)?, r#"{"points":12.5,"regen":0.0}"#);
    /// let mut wrong = serde_json::Deserializer::from_str(r#"{ "points": "lots" }"#);
    /// assert!(DynamicValue::deserialize(&world, mana, &mut wrong).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn deserialize<'de, D: Deserializer<'de>>(
        world: &crate::World,
        id: crate::ComponentId,
        deserializer: D,
    ) -> Result<Self, D::Error> {
        let value = Self::new(world, id).map_err(serde::de::Error::custom)?;
        let kind = *value.view().kind();
        // The value holds a valid value of `kind`, each field replaced whole
        // by the seed: whether it fails or not, the value stays valid.
        KindSeed { kind: &kind, ptr: value.ptr().as_ptr() }.deserialize(deserializer)?;
        Ok(value)
    }
}

impl Serialize for crate::world::DynamicValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let view = self.view();
        // SAFETY: the value holds a valid value of its component's kind,
        // borrowed for the call.
        unsafe { SchemaValue::new(view.kind(), self.ptr().as_ptr()) }.serialize(serializer)
    }
}
