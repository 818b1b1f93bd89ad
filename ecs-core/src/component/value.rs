//! Values known only by their schema: made with every field at its default,
//! cloned and dropped field by field. What a component defined at run time
//! uses for the glue a Rust type gets from the compiler.
//!
//! Every function here trusts the schema's offsets and kinds, which is why a
//! schema of a Rust type can only be made through an `unsafe` constructor and a
//! runtime one only by [`SchemaBuilder`](super::SchemaBuilder), which lays the
//! fields out itself.

use core::ptr::NonNull;

use super::schema::FieldKind;
use crate::entity::Entity;
use crate::storage::{CloneGlue, DropGlue, OwningPtr, Ptr};

/// `true` when a value of `kind` owns memory (a `String` somewhere in it).
pub(crate) fn needs_drop(kind: &FieldKind) -> bool {
    match kind {
        FieldKind::String => true,
        FieldKind::Array(element, len) => *len > 0 && needs_drop(element),
        FieldKind::Struct(schema) => schema.fields().iter().any(|f| needs_drop(f.kind())),
        _ => false,
    }
}

/// Writes the default value of `kind` at `ptr`: zero numbers, `false`,
/// [`Entity::PLACEHOLDER`], an empty `String`, an enum's first variant, and
/// so on through arrays and structs.
///
/// # Safety
/// `ptr` is valid for writes of a value of `kind`, aligned for it, and holds
/// nothing that needs dropping (it is overwritten).
pub(crate) unsafe fn write_default(kind: &FieldKind, ptr: *mut u8) {
    // SAFETY: (every arm) `ptr` is aligned and valid for the kind (caller);
    // nested fields lie at their offsets within it (the schema's contract).
    unsafe {
        match kind {
            FieldKind::Bool => ptr.cast::<bool>().write(false),
            FieldKind::I8 | FieldKind::U8 => ptr.write(0),
            FieldKind::I16 | FieldKind::U16 => ptr.cast::<u16>().write(0),
            FieldKind::I32 | FieldKind::U32 => ptr.cast::<u32>().write(0),
            FieldKind::I64 | FieldKind::U64 => ptr.cast::<u64>().write(0),
            FieldKind::F32 => ptr.cast::<f32>().write(0.0),
            FieldKind::F64 => ptr.cast::<f64>().write(0.0),
            FieldKind::Entity => ptr.cast::<Entity>().write(Entity::PLACEHOLDER),
            FieldKind::String => ptr.cast::<String>().write(String::new()),
            FieldKind::Array(element, len) => {
                for i in 0..*len {
                    write_default(element, ptr.add(i * element.size()));
                }
            }
            FieldKind::Struct(schema) => {
                // Padding too, so that a value's bytes are all initialised
                // (a bitwise copy of it reads them); then only the fields whose
                // default is not all zero bytes.
                core::ptr::write_bytes(ptr, 0, schema.size());
                for field in schema.fields() {
                    if !zero_is_default(field.kind()) {
                        write_default(field.kind(), ptr.add(field.offset()));
                    }
                }
            }
            FieldKind::Enum(schema) => {
                core::ptr::write_bytes(ptr, 0, schema.size());
                let first = schema.variants().first().map_or(0, |v| v.discriminant());
                let written = schema.write(ptr, first);
                debug_assert!(written, "an enum schema has a first variant");
            }
        }
    }
}

/// `true` when all zero bytes are the default value of `kind` (numbers,
/// `false`, and arrays and structs of only those).
fn zero_is_default(kind: &FieldKind) -> bool {
    match kind {
        FieldKind::Entity | FieldKind::String | FieldKind::Enum(_) => false,
        FieldKind::Array(element, len) => *len == 0 || zero_is_default(element),
        FieldKind::Struct(schema) => schema.fields().iter().all(|f| zero_is_default(f.kind())),
        _ => true,
    }
}

/// Drops what a value of `kind` owns.
///
/// # Safety
/// `ptr` points at a valid value of `kind`, which is not used again.
pub(crate) unsafe fn drop_in_place(kind: &FieldKind, ptr: *mut u8) {
    // SAFETY: (every arm) a valid value of the kind (caller), its parts at
    // their offsets (the schema's contract).
    unsafe {
        match kind {
            FieldKind::String => core::ptr::drop_in_place(ptr.cast::<String>()),
            FieldKind::Array(element, len) if needs_drop(element) => {
                for i in 0..*len {
                    drop_in_place(element, ptr.add(i * element.size()));
                }
            }
            FieldKind::Struct(schema) => {
                for field in schema.fields() {
                    if needs_drop(field.kind()) {
                        drop_in_place(field.kind(), ptr.add(field.offset()));
                    }
                }
            }
            _ => {}
        }
    }
}

/// Writes a clone of the value of `kind` at `src` to `dst`. If a clone of a
/// `String` panics (out of memory), `dst` is left holding bytes that must be
/// treated as uninitialised: never read or dropped.
///
/// # Safety
/// `src` points at a valid value of `kind`; `dst` is valid for writes of one,
/// aligned, uninitialised (or holding nothing to drop), and does not overlap
/// `src`.
pub(crate) unsafe fn clone_into(kind: &FieldKind, src: *const u8, dst: *mut u8) {
    // SAFETY: both valid for the kind's size (caller), not overlapping.
    unsafe { core::ptr::copy_nonoverlapping(src, dst, kind.size()) };
    // SAFETY: forwarded; `dst` now holds a bitwise copy whose owned parts are
    // overwritten (not dropped: they alias `src`'s) with clones.
    unsafe { fix_owned(kind, src, dst) }
}

/// Replaces every `String` in the bitwise copy at `dst` with a clone of the
/// one at the same place in `src`, without dropping the alias.
///
/// # Safety
/// As for [`clone_into`], with `dst` a bitwise copy of `src`.
unsafe fn fix_owned(kind: &FieldKind, src: *const u8, dst: *mut u8) {
    // SAFETY: (every arm) as the caller's; parts at their offsets.
    unsafe {
        match kind {
            FieldKind::String => dst.cast::<String>().write((*src.cast::<String>()).clone()),
            FieldKind::Array(element, len) if needs_drop(element) => {
                for i in 0..*len {
                    fix_owned(element, src.add(i * element.size()), dst.add(i * element.size()));
                }
            }
            FieldKind::Struct(schema) => {
                for field in schema.fields() {
                    if needs_drop(field.kind()) {
                        fix_owned(field.kind(), src.add(field.offset()), dst.add(field.offset()));
                    }
                }
            }
            _ => {}
        }
    }
}

/// The drop glue of a component whose values are `kind`s, `None` when they
/// own nothing. Made once per component (the registry keeps it).
pub(crate) fn drop_glue(kind: &'static FieldKind) -> Option<&'static DropGlue> {
    if !needs_drop(kind) {
        return None;
    }
    // SAFETY: `drop_by_kind` drops a valid value of the kind its context
    // points at, and the context is a `&'static FieldKind` (immutable, `Sync`).
    let glue = unsafe { DropGlue::new(drop_by_kind, core::ptr::from_ref(kind).cast()) };
    Some(Box::leak(Box::new(glue)))
}

/// The clone glue of a component whose values are `kind`s.
pub(crate) fn clone_glue(kind: &'static FieldKind) -> CloneGlue {
    // SAFETY: `clone_by_kind` writes a clone of a valid value of the kind its
    // context points at into an uninitialised slot (a panic leaves the slot to
    // be treated as uninitialised, as the glue's contract allows); the context
    // is a `&'static FieldKind`.
    unsafe { CloneGlue::new(clone_by_kind, core::ptr::from_ref(kind).cast()) }
}

/// # Safety
/// `context` is a `&'static FieldKind`; `value` an owned, valid value of it.
unsafe fn drop_by_kind(value: OwningPtr<'_>, context: *const ()) {
    // SAFETY: the caller's (the glue was made by `drop_glue` for this kind).
    unsafe { drop_in_place(&*context.cast::<FieldKind>(), value.as_ptr()) }
}

/// # Safety
/// `context` is a `&'static FieldKind`; `src` a valid value of it; `dst` an
/// uninitialised slot for one.
unsafe fn clone_by_kind(src: Ptr<'_>, dst: NonNull<u8>, context: *const ()) {
    // SAFETY: the caller's (the glue was made by `clone_glue` for this kind).
    unsafe { clone_into(&*context.cast::<FieldKind>(), src.as_ptr(), dst.as_ptr()) }
}
