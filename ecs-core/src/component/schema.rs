//! Schemas: what a component (or any describable type) holds, field by field,
//! so that code that does not know the Rust type (scripts, editors,
//! inspectors, data files) can still read and write it safely.
//!
//! A type describes itself through [`Describe`], whose [`KIND`](Describe::KIND)
//! is a [`FieldKind`]: a primitive (`bool`, the integer and float types,
//! [`Entity`](crate::Entity), `String`), a fixed-size array of a describable
//! type, a struct ([`Schema`]: each field's name, offset and kind) or a
//! field-less enum ([`EnumSchema`]: each variant's name and discriminant).
//! `#[derive(Describe)]` writes it for structs and field-less enums, and
//! `#[component(describe)]` on a `#[derive(Component)]` does too, so that the
//! world lists the component with its schema
//! ([`World::components`](crate::World::components)).
//!
//! Code that reads or writes a value by its schema trusts the offsets and
//! kinds it gives, so every way to make a schema of a Rust type is `unsafe`
//! (the derives make them from `offset_of!` and the fields' own `Describe`
//! impls), and a component's schema is checked to be its own type's.
//!
//! # Example
//! ```
//! use ecs_core::prelude::*;
//! use ecs_core::component::{Describe, FieldKind};
//!
//! #[derive(Component)]
//! #[component(describe)]
//! struct Health { current: i32, max: i32, regen: [f32; 2] }
//!
//! let FieldKind::Struct(schema) = Health::KIND else { unreachable!() };
//! assert_eq!(schema.name(), "Health");
//! let names: Vec<&str> = schema.fields().iter().map(|f| f.name()).collect();
//! assert_eq!(names, ["current", "max", "regen"]);
//! assert_eq!(schema.field("regen").map(|f| f.kind().to_string()), Some("[f32; 2]".to_owned()));
//! ```

use core::any::TypeId;
use core::fmt;

use crate::entity::Entity;

/// What one field (or a whole describable type) holds.
#[derive(Clone, Copy, Debug)]
pub enum FieldKind {
    /// `bool`.
    Bool,
    /// `i8`.
    I8,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `u8`.
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `u64`.
    U64,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// An [`Entity`]: remapped on load, like `#[entities]` fields.
    Entity,
    /// A `String`.
    String,
    /// `[T; N]`: the element's kind and `N`.
    Array(&'static FieldKind, usize),
    /// A struct with a schema of its own.
    Struct(&'static Schema),
    /// A field-less enum.
    Enum(&'static EnumSchema),
}

impl FieldKind {
    /// The size of a value of this kind, in bytes.
    pub const fn size(&self) -> usize {
        match self {
            FieldKind::Bool | FieldKind::I8 | FieldKind::U8 => 1,
            FieldKind::I16 | FieldKind::U16 => 2,
            FieldKind::I32 | FieldKind::U32 | FieldKind::F32 => 4,
            FieldKind::I64 | FieldKind::U64 | FieldKind::F64 => 8,
            FieldKind::Entity => size_of::<Entity>(),
            FieldKind::String => size_of::<String>(),
            FieldKind::Array(element, len) => element.size() * *len,
            FieldKind::Struct(schema) => schema.size,
            FieldKind::Enum(schema) => schema.size,
        }
    }

    /// The kind written out whole: a struct with its fields
    /// (`Health { hp: i32, name: String }`), an enum with its variants, else
    /// as [`Display`](fmt::Display) writes it.
    pub fn definition(&self) -> String {
        match self {
            FieldKind::Struct(schema) => {
                let fields: Vec<String> =
                    schema.fields.iter().map(|f| format!("{}: {}", f.name, f.kind.definition())).collect();
                if fields.is_empty() {
                    schema.name.to_owned()
                } else {
                    format!("{} {{ {} }}", schema.name, fields.join(", "))
                }
            }
            FieldKind::Enum(schema) => {
                let variants: Vec<String> =
                    schema.variants.iter().map(|v| format!("{} = {}", v.name, v.discriminant)).collect();
                format!("enum {} {{ {} }}", schema.name, variants.join(", "))
            }
            FieldKind::Array(element, len) => format!("[{}; {len}]", element.definition()),
            other => other.to_string(),
        }
    }

    /// A number naming a primitive kind or an array of primitives, equal for
    /// two kinds exactly when [`same_as`](Self::same_as) holds; `0` for every
    /// other kind (nested arrays, structs, enums), which only `same_as` can
    /// compare. A typed read's kind is a constant, so its code is one too,
    /// and checking a field handle is one comparison.
    pub(crate) const fn code(&self) -> u32 {
        match self {
            FieldKind::Array(element, len) => {
                let element = element.primitive_code();
                if element == 0 || *len >= (1 << 23) { 0 } else { element | ((*len as u32 + 1) << 8) }
            }
            other => other.primitive_code(),
        }
    }

    /// [`code`](Self::code) of a primitive (`1..=13`); `0` for the others.
    const fn primitive_code(&self) -> u32 {
        match self {
            FieldKind::Bool => 1,
            FieldKind::I8 => 2,
            FieldKind::I16 => 3,
            FieldKind::I32 => 4,
            FieldKind::I64 => 5,
            FieldKind::U8 => 6,
            FieldKind::U16 => 7,
            FieldKind::U32 => 8,
            FieldKind::U64 => 9,
            FieldKind::F32 => 10,
            FieldKind::F64 => 11,
            FieldKind::Entity => 12,
            FieldKind::String => 13,
            FieldKind::Array(..) | FieldKind::Struct(_) | FieldKind::Enum(_) => 0,
        }
    }

    /// `true` when the two kinds describe the same data: the same primitive,
    /// arrays of the same kind and length, or structs and enums with equal
    /// schemas (by name, fields and variants, not by Rust type).
    #[inline]
    pub fn same_as(&self, other: &FieldKind) -> bool {
        // Different kinds first: with `other` a constant primitive (a typed
        // read's `T::KIND`), this compare is all that is left, no call.
        if core::mem::discriminant(self) != core::mem::discriminant(other) {
            return false;
        }
        match (self, other) {
            // An array of primitives (a vector): kept inline too.
            (FieldKind::Array(a, n), FieldKind::Array(b, m)) if a.is_primitive() => {
                n == m && core::mem::discriminant(*a) == core::mem::discriminant(*b)
            }
            (FieldKind::Array(..) | FieldKind::Struct(_) | FieldKind::Enum(_), _) => self.same_nested(other),
            // A primitive: the same primitive (the common case, kept inline).
            (a, b) => core::mem::discriminant(a) == core::mem::discriminant(b),
        }
    }

    /// `true` for `bool`, the integers and floats, `Entity` and `String`.
    #[inline]
    fn is_primitive(&self) -> bool {
        !matches!(self, FieldKind::Array(..) | FieldKind::Struct(_) | FieldKind::Enum(_))
    }

    fn same_nested(&self, other: &FieldKind) -> bool {
        match (self, other) {
            (FieldKind::Array(a, n), FieldKind::Array(b, m)) => n == m && a.same_as(b),
            (FieldKind::Struct(a), FieldKind::Struct(b)) => a.same_as(b),
            (FieldKind::Enum(a), FieldKind::Enum(b)) => a.same_as(b),
            _ => false,
        }
    }
}

impl fmt::Display for FieldKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            FieldKind::Bool => "bool",
            FieldKind::I8 => "i8",
            FieldKind::I16 => "i16",
            FieldKind::I32 => "i32",
            FieldKind::I64 => "i64",
            FieldKind::U8 => "u8",
            FieldKind::U16 => "u16",
            FieldKind::U32 => "u32",
            FieldKind::U64 => "u64",
            FieldKind::F32 => "f32",
            FieldKind::F64 => "f64",
            FieldKind::Entity => "Entity",
            FieldKind::String => "String",
            FieldKind::Array(element, len) => return write!(f, "[{element}; {len}]"),
            FieldKind::Struct(schema) => schema.name,
            FieldKind::Enum(schema) => schema.name,
        };
        f.write_str(name)
    }
}

/// One field of a [`Schema`]: its name, its offset in the struct, its kind.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    name: &'static str,
    offset: usize,
    kind: FieldKind,
}

impl Field {
    /// A field. Only a [`Schema`] made with its `unsafe` constructor gives it
    /// meaning.
    pub const fn new(name: &'static str, offset: usize, kind: FieldKind) -> Self {
        Self { name, offset, kind }
    }

    /// The field's name (`"0"`, `"1"`, … in a tuple struct).
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// Where the field starts, in bytes from the start of the struct.
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// What the field holds.
    pub const fn kind(&self) -> &FieldKind {
        &self.kind
    }
}

/// A struct's schema: its name, size, alignment and fields.
#[derive(Debug)]
pub struct Schema {
    name: &'static str,
    size: usize,
    align: usize,
    fields: &'static [Field],
    /// The Rust type described.
    type_id: fn() -> TypeId,
}

impl Schema {
    /// The schema of the Rust type `T`.
    ///
    /// # Safety
    /// `size` and `align` are `T`'s; each field lies at its offset in every
    /// `T` and holds a valid value of its kind there (as `T`'s own field of
    /// that type does: `offset_of!` and the field type's [`Describe`]), and no
    /// two fields overlap. The fields are *all* of `T`'s: bytes that hold a
    /// valid value of each field's kind at its offset (padding aside) are a
    /// valid `T`, which is how values are built by schema
    /// ([`DynamicValue`](crate::world::DynamicValue)). `#[derive(Describe)]`
    /// makes it so.
    pub const unsafe fn of_type<T: 'static>(name: &'static str, fields: &'static [Field]) -> Self {
        Self { name, size: size_of::<T>(), align: align_of::<T>(), fields, type_id: TypeId::of::<T> }
    }

    /// A schema from its parts, standing for type `T` (a private marker type
    /// for schemas built at run time).
    ///
    /// # Safety
    /// As for [`of_type`](Self::of_type), with `size` and `align` those of
    /// the values read and written through the schema.
    pub(crate) const unsafe fn from_parts<T: 'static>(
        name: &'static str,
        size: usize,
        align: usize,
        fields: &'static [Field],
    ) -> Self {
        Self { name, size, align, fields, type_id: TypeId::of::<T> }
    }

    /// The struct's name (its identifier, without path or generics).
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The struct's size in bytes.
    pub const fn size(&self) -> usize {
        self.size
    }

    /// The struct's alignment in bytes.
    pub const fn align(&self) -> usize {
        self.align
    }

    /// The fields, in declaration order.
    pub const fn fields(&self) -> &'static [Field] {
        self.fields
    }

    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// `true` when `self` describes the Rust type `T`.
    pub fn is_type<T: 'static>(&self) -> bool {
        (self.type_id)() == TypeId::of::<T>()
    }

    /// `true` when the two schemas have the same name and the same fields (by
    /// name and kind, in order), wherever they come from.
    pub fn same_as(&self, other: &Schema) -> bool {
        self.name == other.name
            && self.fields.len() == other.fields.len()
            && self.fields.iter().zip(other.fields).all(|(a, b)| a.name == b.name && a.kind.same_as(&b.kind))
    }
}

/// One variant of a field-less enum.
#[derive(Clone, Copy, Debug)]
pub struct Variant {
    name: &'static str,
    discriminant: i64,
}

impl Variant {
    /// A variant.
    pub const fn new(name: &'static str, discriminant: i64) -> Self {
        Self { name, discriminant }
    }

    /// The variant's name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// Its discriminant (`Variant as i64`).
    pub const fn discriminant(&self) -> i64 {
        self.discriminant
    }
}

/// A field-less enum's schema: its name and variants, and how to read and
/// write a value of it from its discriminant.
#[derive(Debug)]
pub struct EnumSchema {
    name: &'static str,
    size: usize,
    align: usize,
    variants: &'static [Variant],
    /// The discriminant of the value at the pointer.
    read: unsafe fn(*const u8) -> i64,
    /// Writes the variant with this discriminant (one of `variants`).
    write: unsafe fn(*mut u8, i64),
    type_id: fn() -> TypeId,
}

impl EnumSchema {
    /// The schema of the field-less enum `T`.
    ///
    /// # Safety
    /// `variants` are `T`'s, with their discriminants; `read` returns the
    /// discriminant of the valid `T` its pointer points at, and `write` writes
    /// the `T` whose discriminant it is given (one of `variants`) to its
    /// pointer, which points at memory for a `T`, aligned and writable, whose
    /// old contents it neither reads nor drops (they may be uninitialised).
    /// `#[derive(Describe)]` makes it so.
    pub const unsafe fn of_type<T: 'static>(
        name: &'static str,
        variants: &'static [Variant],
        read: unsafe fn(*const u8) -> i64,
        write: unsafe fn(*mut u8, i64),
    ) -> Self {
        Self { name, size: size_of::<T>(), align: align_of::<T>(), variants, read, write, type_id: TypeId::of::<T> }
    }

    /// An enum schema standing for type `T` (a private marker type for
    /// schemas built at run time) whose values are held as a `Repr`.
    ///
    /// # Safety
    /// As for [`of_type`](Self::of_type), for values that are a `Repr`.
    pub(crate) const unsafe fn from_parts<T: 'static, Repr>(
        name: &'static str,
        variants: &'static [Variant],
        read: unsafe fn(*const u8) -> i64,
        write: unsafe fn(*mut u8, i64),
    ) -> Self {
        Self {
            name,
            size: size_of::<Repr>(),
            align: align_of::<Repr>(),
            variants,
            read,
            write,
            type_id: TypeId::of::<T>,
        }
    }

    /// The enum's name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The enum's size in bytes.
    pub const fn size(&self) -> usize {
        self.size
    }

    /// The enum's alignment in bytes.
    pub const fn align(&self) -> usize {
        self.align
    }

    /// The variants, in declaration order.
    pub const fn variants(&self) -> &'static [Variant] {
        self.variants
    }

    /// The variant named `name`.
    pub fn variant(&self, name: &str) -> Option<&'static Variant> {
        self.variants.iter().find(|v| v.name == name)
    }

    /// `true` when `self` describes the Rust type `T`.
    pub fn is_type<T: 'static>(&self) -> bool {
        (self.type_id)() == TypeId::of::<T>()
    }

    /// `true` when the two enums have the same name and variants.
    pub fn same_as(&self, other: &EnumSchema) -> bool {
        self.name == other.name
            && self.variants.len() == other.variants.len()
            && self
                .variants
                .iter()
                .zip(other.variants)
                .all(|(a, b)| a.name == b.name && a.discriminant == b.discriminant)
    }

    /// The discriminant of the value at `ptr`.
    ///
    /// # Safety
    /// `ptr` points at a valid value of the described enum.
    pub(crate) unsafe fn read(&self, ptr: *const u8) -> i64 {
        // SAFETY: forwarded; `read` was made for this enum (`of_type`'s contract).
        unsafe { (self.read)(ptr) }
    }

    /// Writes the variant with `discriminant`, which must be one of the
    /// variants' (checked: `false` otherwise, nothing written).
    ///
    /// # Safety
    /// `ptr` points at memory for a value of the described enum, aligned and
    /// writable; its old contents are overwritten unread and undropped.
    pub(crate) unsafe fn write(&self, ptr: *mut u8, discriminant: i64) -> bool {
        if !self.variants.iter().any(|v| v.discriminant == discriminant) {
            return false;
        }
        // SAFETY: forwarded; the discriminant is one of the enum's.
        unsafe { (self.write)(ptr, discriminant) };
        true
    }
}

/// A type that can describe itself field by field: what a schema is made of.
/// Implemented for `bool`, the integer and float types, [`Entity`], `String`,
/// `[T; N]` of a describable `T`, and by `#[derive(Describe)]` (structs with
/// describable fields, field-less enums).
///
/// Describing a type says its values are plain data: code that names it by id
/// (scripts, inspectors, data files) builds values from any field values,
/// writes fields in place unless the component is immutable, and copies values
/// field by field ([`DynamicValue`](crate::world::DynamicValue)'s `Clone`
/// of a type that is not `Clone`), each copy dropped in its turn. Do
/// not describe a type whose fields carry an invariant, such as a handle its
/// `Drop` frees.
///
/// # Safety
/// [`KIND`](Self::KIND) describes `Self` truthfully: code reads and writes
/// values of `Self` through it (a `Struct` or `Enum` kind's schema is made
/// with its `unsafe` constructor for `Self`, whose contract holds).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be described field by field",
    label = "not describable",
    note = "a schema holds `bool`, integers, `f32`/`f64`, `Entity`, `String`, `[T; N]` of these, and types that \
            `#[derive(Describe)]` (structs of describable fields, enums whose variants hold no data)"
)]
pub unsafe trait Describe: 'static {
    /// What a value of the type holds.
    const KIND: FieldKind;
}

macro_rules! describe_primitive {
    ($($ty:ty => $kind:ident),*) => {$(
        // SAFETY: the kind is the type itself.
        unsafe impl Describe for $ty {
            const KIND: FieldKind = FieldKind::$kind;
        }
    )*};
}

describe_primitive!(
    bool => Bool, i8 => I8, i16 => I16, i32 => I32, i64 => I64, u8 => U8, u16 => U16, u32 => U32, u64 => U64,
    f32 => F32, f64 => F64, Entity => Entity, String => String
);

// SAFETY: an array of `N` values of `T`, each described by `T::KIND`.
unsafe impl<T: Describe, const N: usize> Describe for [T; N] {
    const KIND: FieldKind = FieldKind::Array(&T::KIND, N);
}

#[cfg(test)]
mod tests {
    use super::FieldKind;

    /// Two kinds with a code have equal codes exactly when they are the same
    /// kind: a handle's stamp may stand in for `same_as`.
    #[test]
    fn codes_are_equal_exactly_for_the_same_kind() {
        const PRIMITIVES: [FieldKind; 13] = [
            FieldKind::Bool,
            FieldKind::I8,
            FieldKind::I16,
            FieldKind::I32,
            FieldKind::I64,
            FieldKind::U8,
            FieldKind::U16,
            FieldKind::U32,
            FieldKind::U64,
            FieldKind::F32,
            FieldKind::F64,
            FieldKind::Entity,
            FieldKind::String,
        ];
        static INNER: FieldKind = FieldKind::Array(&FieldKind::F32, 2);
        let mut kinds: Vec<FieldKind> = PRIMITIVES.to_vec();
        for element in &PRIMITIVES {
            for len in [0, 1, 2, 3, 255, 256, (1 << 23) - 1, 1 << 23, usize::MAX] {
                kinds.push(FieldKind::Array(element, len));
            }
        }
        kinds.push(FieldKind::Array(&INNER, 2));
        kinds.push(FieldKind::Array(&INNER, 3));
        for a in &kinds {
            for b in &kinds {
                if a.code() != 0 && b.code() != 0 {
                    assert_eq!(a.code() == b.code(), a.same_as(b), "{a:?} and {b:?}");
                }
            }
            let coded = match a {
                FieldKind::Array(element, len) => !matches!(element, FieldKind::Array(..)) && *len < (1 << 23),
                other => other.code() != 0,
            };
            assert!(coded == (a.code() != 0), "{a:?}");
        }
    }
}
