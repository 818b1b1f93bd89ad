//! Schemas made at run time, from a data file, a script or an editor: a
//! struct's fields laid out by the runtime, and field-less enums by their
//! variants.
//!
//! The runtime places each field at the next offset aligned for its kind, in
//! the order given (as `#[repr(C)]` does), so the layout is known from the
//! schema alone and the same on every machine; nothing about it is taken on
//! trust. Schemas are interned: building the same schema twice (same name,
//! fields and kinds) returns the same `&'static Schema`, so a mod reloaded
//! many times does not grow the process.
//!
//! # Example
//! ```
//! use ecs_core::component::{FieldKind, SchemaBuilder};
//!
//! let stats = SchemaBuilder::new("Stats").field("speed", FieldKind::F32).field("armor", FieldKind::U8).build()?;
//! let health = SchemaBuilder::new("Health")
//!     .field("current", FieldKind::I32)
//!     .field("name", FieldKind::String)
//!     .field("stats", FieldKind::Struct(stats))
//!     .build()?;
//! assert_eq!(health.field("stats").map(|f| f.offset() % 4), Some(0));
//! assert!(std::ptr::eq(stats, SchemaBuilder::new("Stats").field("speed", FieldKind::F32).field("armor", FieldKind::U8).build()?));
//! # Ok::<(), ecs_core::component::SchemaError>(())
//! ```

use core::fmt;
use std::collections::BTreeMap;
use std::sync::Mutex;

use super::schema::{EnumSchema, Field, FieldKind, Schema, Variant};
use crate::parallel::annotate;

/// The Rust type a runtime schema stands for: none. Private, so no user
/// type's `TypeId` equals it and `Schema::is_type` is `false` for every type.
pub(crate) struct RuntimeDefined;

/// Why a schema could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchemaError {
    /// The schema (or a field, or a variant) has an empty name.
    EmptyName {
        /// The schema's name (empty when it is the schema's own name).
        schema: String,
    },
    /// Two fields share a name.
    DuplicateField {
        /// The schema's name.
        schema: String,
        /// The repeated field name.
        field: String,
    },
    /// Two variants share a name or a discriminant.
    DuplicateVariant {
        /// The enum's name.
        schema: String,
        /// The repeated variant's name.
        variant: String,
    },
    /// An enum without variants has no value to start from.
    NoVariants {
        /// The enum's name.
        schema: String,
    },
    /// A field's name holds `.`, `[` or `]`, which separate the parts of a
    /// field path (`pos.x`, `v[0]`): it could not be told from a path into
    /// another field.
    FieldName {
        /// The schema's name.
        schema: String,
        /// The field's name.
        field: String,
    },
    /// The value would be larger than `isize::MAX` bytes.
    TooLarge {
        /// The schema's name.
        schema: String,
    },
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchemaError::EmptyName { schema } if schema.is_empty() => write!(f, "a schema needs a name"),
            SchemaError::EmptyName { schema } => write!(f, "schema `{schema}` has a field or variant without a name"),
            SchemaError::DuplicateField { schema, field } => {
                write!(f, "schema `{schema}` has two fields named `{field}`")
            }
            SchemaError::DuplicateVariant { schema, variant } => {
                write!(f, "enum `{schema}` has two variants named `{variant}` or with its discriminant")
            }
            SchemaError::NoVariants { schema } => write!(f, "enum `{schema}` has no variants"),
            SchemaError::FieldName { schema, field } => write!(
                f,
                "schema `{schema}` field `{field}`: `.`, `[` and `]` separate the parts of a field path and cannot be in a name"
            ),
            SchemaError::TooLarge { schema } => write!(f, "a value of schema `{schema}` would be too large"),
        }
    }
}

impl std::error::Error for SchemaError {}

/// Builds a struct [`Schema`] at run time (see the module docs).
#[derive(Clone, Debug)]
pub struct SchemaBuilder {
    name: String,
    fields: Vec<(String, FieldKind)>,
}

impl SchemaBuilder {
    /// A struct schema named `name`, without fields yet.
    pub fn new(name: impl Into<String>) -> Self {
        Self { name: name.into(), fields: Vec::new() }
    }

    /// Adds a field after the others.
    pub fn field(mut self, name: impl Into<String>, kind: FieldKind) -> Self {
        self.fields.push((name.into(), kind));
        self
    }

    /// Lays the fields out and interns the schema.
    ///
    /// # Errors
    /// [`SchemaError::EmptyName`], [`SchemaError::FieldName`] (a `.`, `[` or
    /// `]` in a field's name), [`SchemaError::DuplicateField`],
    /// [`SchemaError::TooLarge`].
    pub fn build(self) -> Result<&'static Schema, SchemaError> {
        if self.name.is_empty() {
            return Err(SchemaError::EmptyName { schema: String::new() });
        }
        let too_large = || SchemaError::TooLarge { schema: self.name.clone() };
        let mut offset = 0usize;
        let mut align = 1usize;
        let mut placed = Vec::with_capacity(self.fields.len());
        for (i, (name, kind)) in self.fields.iter().enumerate() {
            if name.is_empty() {
                return Err(SchemaError::EmptyName { schema: self.name.clone() });
            }
            if name.contains(['.', '[', ']']) {
                return Err(SchemaError::FieldName { schema: self.name.clone(), field: name.clone() });
            }
            if self.fields[..i].iter().any(|(other, _)| other == name) {
                return Err(SchemaError::DuplicateField { schema: self.name.clone(), field: name.clone() });
            }
            let field_align = kind_align(kind);
            offset = offset.checked_next_multiple_of(field_align).ok_or_else(too_large)?;
            placed.push((name.as_str(), offset, *kind));
            offset = offset.checked_add(kind_size(kind).ok_or_else(too_large)?).ok_or_else(too_large)?;
            align = align.max(field_align);
        }
        let size = offset.checked_next_multiple_of(align).ok_or_else(too_large)?;
        if size > isize::MAX as usize {
            return Err(too_large());
        }
        Ok(intern_struct(&self.name, size, align, &placed))
    }
}

/// Builds a field-less enum's [`EnumSchema`] at run time. A value holds its
/// discriminant as an `i32` when every discriminant fits, else as an `i64`.
///
/// # Errors
/// [`SchemaError::EmptyName`], [`SchemaError::NoVariants`],
/// [`SchemaError::DuplicateVariant`] (a name or a discriminant twice).
///
/// # Example
/// ```
/// use ecs_core::component::enum_schema;
///
/// let state = enum_schema("State", &[("Idle", 0), ("Running", 1), ("Dead", 7)])?;
/// assert_eq!(state.variant("Dead").map(|v| v.discriminant()), Some(7));
/// # Ok::<(), ecs_core::component::SchemaError>(())
/// ```
pub fn enum_schema(name: &str, variants: &[(&str, i64)]) -> Result<&'static EnumSchema, SchemaError> {
    if name.is_empty() {
        return Err(SchemaError::EmptyName { schema: String::new() });
    }
    if variants.is_empty() {
        return Err(SchemaError::NoVariants { schema: name.to_owned() });
    }
    for (i, &(variant, discriminant)) in variants.iter().enumerate() {
        if variant.is_empty() {
            return Err(SchemaError::EmptyName { schema: name.to_owned() });
        }
        if variants[..i].iter().any(|&(other, d)| other == variant || d == discriminant) {
            return Err(SchemaError::DuplicateVariant { schema: name.to_owned(), variant: variant.to_owned() });
        }
    }
    let narrow = variants.iter().all(|&(_, d)| i32::try_from(d).is_ok());
    Ok(intern_enum(name, narrow, variants))
}

impl FieldKind {
    /// `[element; len]`, for schemas built at run time (the element kind is
    /// kept for the process's life, once per distinct kind).
    pub fn array(element: FieldKind, len: usize) -> FieldKind {
        static ELEMENTS: Mutex<Vec<&'static FieldKind>> = Mutex::new(Vec::new());
        let mut known = annotate::lock(&ELEMENTS);
        let element = match known.iter().find(|k| identical(k, &element)) {
            Some(k) => *k,
            None => {
                let k: &'static FieldKind = Box::leak(Box::new(element));
                known.push(k);
                k
            }
        };
        FieldKind::Array(element, len)
    }
}

/// `kind`'s size, `None` when it overflows (an array of a huge count).
fn kind_size(kind: &FieldKind) -> Option<usize> {
    match kind {
        FieldKind::Array(element, len) => kind_size(element)?.checked_mul(*len),
        other => Some(other.size()),
    }
}

/// `kind`'s alignment.
pub(crate) fn kind_align(kind: &FieldKind) -> usize {
    match kind {
        FieldKind::Bool | FieldKind::I8 | FieldKind::U8 => 1,
        FieldKind::I16 | FieldKind::U16 => 2,
        FieldKind::I32 | FieldKind::U32 | FieldKind::F32 => 4,
        FieldKind::I64 | FieldKind::U64 => align_of::<u64>(),
        FieldKind::F64 => align_of::<f64>(),
        FieldKind::Entity => align_of::<crate::Entity>(),
        FieldKind::String => align_of::<String>(),
        FieldKind::Array(element, _) => kind_align(element),
        FieldKind::Struct(schema) => schema.align(),
        FieldKind::Enum(schema) => schema.align(),
    }
}

/// `true` when the two kinds are the same layout and data: not only
/// [`FieldKind::same_as`] (which compares by name) but the same nested
/// schemas, so interning never hands out a schema whose offsets differ.
fn identical(a: &FieldKind, b: &FieldKind) -> bool {
    match (a, b) {
        (FieldKind::Array(a, n), FieldKind::Array(b, m)) => n == m && identical(a, b),
        (FieldKind::Struct(a), FieldKind::Struct(b)) => core::ptr::eq(*a, *b),
        (FieldKind::Enum(a), FieldKind::Enum(b)) => core::ptr::eq(*a, *b),
        (a, b) => core::mem::discriminant(a) == core::mem::discriminant(b),
    }
}

/// Every runtime schema made so far (leaked: schemas are `'static`), by
/// name: a program that defines many (a game's data, its mods) finds one
/// among those of its name, not among all. Structs and enums share the map:
/// a map type per kind would each be compiled into every build.
static INTERNED: Mutex<BTreeMap<&'static str, Interned>> = Mutex::new(BTreeMap::new());

/// The runtime schemas of one name.
#[derive(Default)]
struct Interned {
    structs: Vec<&'static Schema>,
    enums: Vec<&'static EnumSchema>,
}

fn intern_struct(name: &str, size: usize, align: usize, fields: &[(&str, usize, FieldKind)]) -> &'static Schema {
    let mut all = annotate::lock(&INTERNED);
    let known = all.get(name).map_or(&[][..], |i| i.structs.as_slice());
    let same = |schema: &&&'static Schema| {
        schema.name() == name
            && schema.size() == size
            && schema.align() == align
            && schema.fields().len() == fields.len()
            && schema
                .fields()
                .iter()
                .zip(fields)
                .all(|(f, (n, o, k))| f.name() == *n && f.offset() == *o && identical(f.kind(), k))
    };
    if let Some(schema) = known.iter().find(same) {
        return schema;
    }
    let fields: Vec<Field> =
        fields.iter().map(|&(name, offset, kind)| Field::new(leak_str(name), offset, kind)).collect();
    // SAFETY: the offsets were laid out above, each aligned for its kind and
    // past the previous field's end, `size` covers them all and is a multiple
    // of `align`; the `RuntimeDefined` type id makes the schema describe no
    // Rust type, so nothing reads a Rust value through it: values of it are
    // only ever made by the runtime from this layout (`component::value`).
    let schema: &'static Schema = Box::leak(Box::new(unsafe {
        Schema::from_parts::<RuntimeDefined>(leak_str(name), size, align, fields.leak())
    }));
    all.entry(schema.name()).or_default().structs.push(schema);
    schema
}

fn intern_enum(name: &str, narrow: bool, variants: &[(&str, i64)]) -> &'static EnumSchema {
    let mut all = annotate::lock(&INTERNED);
    let known = all.get(name).map_or(&[][..], |i| i.enums.as_slice());
    let same = |schema: &&&'static EnumSchema| {
        schema.name() == name
            && schema.size() == if narrow { 4 } else { 8 }
            && schema.variants().len() == variants.len()
            && schema.variants().iter().zip(variants).all(|(v, (n, d))| v.name() == *n && v.discriminant() == *d)
    };
    if let Some(schema) = known.iter().find(same) {
        return schema;
    }
    let list: Vec<Variant> = variants.iter().map(|&(name, d)| Variant::new(leak_str(name), d)).collect();
    // SAFETY: a value of this enum is its discriminant as an `i32` (`narrow`:
    // every discriminant fits) or an `i64`, and `read_*`/`write_*` read and
    // write exactly that; the size and alignment are that integer's.
    let schema = unsafe {
        if narrow {
            EnumSchema::from_parts::<RuntimeDefined, i32>(leak_str(name), list.leak(), read_i32, write_i32)
        } else {
            EnumSchema::from_parts::<RuntimeDefined, i64>(leak_str(name), list.leak(), read_i64, write_i64)
        }
    };
    let schema: &'static EnumSchema = Box::leak(Box::new(schema));
    all.entry(schema.name()).or_default().enums.push(schema);
    schema
}

/// # Safety
/// `ptr` points at an initialised `i32`, aligned.
unsafe fn read_i32(ptr: *const u8) -> i64 {
    // SAFETY: the caller's.
    i64::from(unsafe { ptr.cast::<i32>().read() })
}

/// # Safety
/// `ptr` points at an `i32`, aligned and writable; `value` fits (a variant's).
unsafe fn write_i32(ptr: *mut u8, value: i64) {
    // SAFETY: the caller's; every discriminant of a narrow enum fits.
    unsafe { ptr.cast::<i32>().write(i32::try_from(value).unwrap_or_default()) }
}

/// # Safety
/// `ptr` points at an initialised `i64`, aligned.
unsafe fn read_i64(ptr: *const u8) -> i64 {
    // SAFETY: the caller's.
    unsafe { ptr.cast::<i64>().read() }
}

/// # Safety
/// `ptr` points at an `i64`, aligned and writable.
unsafe fn write_i64(ptr: *mut u8, value: i64) {
    // SAFETY: the caller's.
    unsafe { ptr.cast::<i64>().write(value) }
}

/// Names live as long as the schemas that hold them.
fn leak_str(text: &str) -> &'static str {
    Box::leak(text.to_owned().into_boxed_str())
}

/// `TypeId` of the marker type, for tests of `is_type`.
#[cfg(test)]
fn runtime_type_id() -> core::any::TypeId {
    core::any::TypeId::of::<RuntimeDefined>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_laid_out_in_order_and_aligned() {
        let schema = SchemaBuilder::new("Mixed")
            .field("flag", FieldKind::Bool)
            .field("wide", FieldKind::F64)
            .field("small", FieldKind::U16)
            .field("text", FieldKind::String)
            .build()
            .unwrap();
        let offsets: Vec<usize> = schema.fields().iter().map(|f| f.offset()).collect();
        assert_eq!(offsets, [0, 8, 16, 24]);
        assert_eq!(schema.size(), 24 + size_of::<String>());
        assert_eq!(schema.align(), 8);
        assert!(!schema.is_type::<u32>());
        assert_ne!(runtime_type_id(), core::any::TypeId::of::<Schema>());
    }

    #[test]
    fn same_schema_twice_is_one_schema_and_bad_ones_are_refused() {
        let a = SchemaBuilder::new("Twice").field("x", FieldKind::I32).build().unwrap();
        let b = SchemaBuilder::new("Twice").field("x", FieldKind::I32).build().unwrap();
        let c = SchemaBuilder::new("Twice").field("x", FieldKind::I64).build().unwrap();
        assert!(core::ptr::eq(a, b));
        assert!(!core::ptr::eq(a, c));
        assert_eq!(
            SchemaBuilder::new("Dup").field("x", FieldKind::I32).field("x", FieldKind::U8).build().err(),
            Some(SchemaError::DuplicateField { schema: "Dup".into(), field: "x".into() })
        );
        // A name that reads as a path into another field (`v[0]`) is refused.
        for name in ["v[0]", "pos.x", "a]"] {
            assert_eq!(
                SchemaBuilder::new("Paths")
                    .field("v", FieldKind::array(FieldKind::F32, 3))
                    .field(name, FieldKind::Bool)
                    .build()
                    .err(),
                Some(SchemaError::FieldName { schema: "Paths".into(), field: name.into() })
            );
        }
        assert!(matches!(
            SchemaBuilder::new("Huge").field("a", FieldKind::Array(&FieldKind::U64, usize::MAX / 4)).build(),
            Err(SchemaError::TooLarge { .. })
        ));
        assert!(matches!(enum_schema("E", &[]), Err(SchemaError::NoVariants { .. })));
        assert!(matches!(enum_schema("E", &[("A", 0), ("B", 0)]), Err(SchemaError::DuplicateVariant { .. })));
        assert_eq!(enum_schema("Wide", &[("A", 0), ("B", 1 << 40)]).unwrap().size(), 8);
        assert_eq!(enum_schema("Narrow", &[("A", -3), ("B", 5)]).unwrap().size(), 4);
    }
}
