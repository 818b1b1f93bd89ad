//! Components by id, read and written field by field through their schema:
//! [`World::get_by_id`] and [`World::get_mut_by_id`], for code that does not
//! know the Rust type (scripts, inspectors, data files).
//!
//! A view checks every access against the component's schema: a field that
//! does not exist, or a request for another kind than the field holds, is a
//! [`FieldError`] naming the component and the field, and touches nothing.
//! Bytes are never read as another kind than the schema gives them.

use core::fmt;
use core::marker::PhantomData;
use core::ptr::NonNull;

use super::World;
use super::change::TicksMut;
use crate::component::{ComponentId, ComponentInfo, FieldKind};
use crate::entity::Entity;
use crate::error::EcsError;
use crate::storage::Tick;

/// A field of a component, resolved once from its path (`"hp"`,
/// `"stats.speed"`, `"path[2]"`): where it lies and what it holds. Reading
/// through a handle skips the path's lookup.
#[derive(Clone, Debug)]
pub struct FieldHandle {
    /// The component's index and the kind's [`code`](FieldKind::code), in
    /// one word: a typed read checks both with one comparison.
    stamp: u64,
    offset: usize,
    kind: FieldKind,
    path: Box<str>,
}

impl FieldHandle {
    /// What the field holds.
    pub fn kind(&self) -> &FieldKind {
        &self.kind
    }

    /// The path it was resolved from.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The component it is a field of (the stamp's high half).
    #[inline]
    pub fn component(&self) -> ComponentId {
        ComponentId::new((self.stamp >> 32) as u32)
    }
}

/// Why a field access was refused. Nothing was read or written.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldError {
    /// The path names no field of the component (or indexes past an array).
    UnknownField {
        /// The component's name.
        component: &'static str,
        /// The path as given.
        path: String,
    },
    /// The field holds another kind than the access asked for.
    WrongKind {
        /// The component's name.
        component: &'static str,
        /// The field's path.
        path: String,
        /// What the field holds.
        holds: String,
        /// What was asked for.
        asked: String,
    },
    /// The handle was resolved for another component.
    OtherComponent {
        /// The view's component.
        component: &'static str,
        /// The handle's path.
        path: String,
    },
    /// The enum field has no variant of that name.
    UnknownVariant {
        /// The component's name.
        component: &'static str,
        /// The field's path.
        path: String,
        /// The variant asked for.
        variant: String,
    },
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldError::UnknownField { component, path } => {
                write!(f, "component `{component}` has no field `{path}`")
            }
            FieldError::WrongKind { component, path, holds, asked } => {
                write!(f, "field `{path}` of component `{component}` holds `{holds}`, not `{asked}`")
            }
            FieldError::OtherComponent { component, path } => {
                write!(f, "the handle of field `{path}` was resolved for another component than `{component}`")
            }
            FieldError::UnknownVariant { component, path, variant } => {
                write!(f, "field `{path}` of component `{component}` has no variant `{variant}`")
            }
        }
    }
}

impl std::error::Error for FieldError {}

/// A field's value type a view reads and writes by copy: `bool`, the integer
/// and float types, [`Entity`], and fixed-size arrays of these. Sealed: the
/// kinds are the schema's.
pub trait FieldValue: Copy + sealed::Sealed + 'static {
    /// The kind of field that holds it.
    const KIND: FieldKind;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! field_value {
    ($($ty:ty => $kind:ident),*) => {$(
        impl sealed::Sealed for $ty {}
        impl FieldValue for $ty {
            const KIND: FieldKind = FieldKind::$kind;
        }
    )*};
}

field_value!(
    bool => Bool, i8 => I8, i16 => I16, i32 => I32, i64 => I64, u8 => U8, u16 => U16, u32 => U32, u64 => U64,
    f32 => F32, f64 => F64, Entity => Entity
);

impl<T: FieldValue, const N: usize> sealed::Sealed for [T; N] {}
/// A fixed-size array of such values, read and written whole (a vector's
/// three `f32`s in one access).
impl<T: FieldValue, const N: usize> FieldValue for [T; N] {
    const KIND: FieldKind = FieldKind::Array(&T::KIND, N);
}

/// A field named by its path or by a [`FieldHandle`]. Sealed: views trust
/// the handle a path resolves to, so only the crate's own impls exist.
pub trait FieldPath: sealed::Sealed {
    /// Where the field lies in the view's component and what it holds.
    ///
    /// # Errors
    /// As for [`ComponentRef::field`].
    #[doc(hidden)]
    fn locate(&self, view: &ComponentInfo) -> Result<Located<'_>, FieldError>;

    /// The field's offset when it holds `asked`; `None` for any error, which
    /// [`locate_as`] then finds again. Small enough to come back in
    /// registers: a lookup loop keeps its state there.
    #[doc(hidden)]
    #[inline]
    fn offset_as(&self, _id: ComponentId, view: &ComponentInfo, asked: &FieldKind) -> Option<usize> {
        self.locate(view).ok().filter(|handle| handle.kind.same_as(asked)).map(|handle| handle.offset)
    }
}

/// Where `field` lies in `info`'s component when it holds `asked`; the error
/// (an unknown field, another kind) built out of line, as the `Result` the
/// caller returns.
#[inline(always)]
fn locate_as<T>(
    id: ComponentId,
    info: &ComponentInfo,
    field: impl FieldPath,
    asked: &FieldKind,
) -> Result<usize, Result<T, FieldError>> {
    match field.offset_as(id, info, asked) {
        Some(offset) => Ok(offset),
        None => Err(known_err(locate_error(info, field, asked))),
    }
}

/// The `Err` an out-of-line error constructor returned, its `Ok` case a
/// panic. Such a result comes back in memory with its tag in bytes of the
/// error (a niche), which the compiler cannot know the constructor filled
/// with a valid error: without the match here, a caller's `?` or `unwrap`
/// tests for `Ok` after the call, the error path rejoins the caller's loop,
/// and the loop keeps its accumulators in memory and reloads the world's
/// fields on every turn (the call might have written them). With it, the
/// only way back into the loop is through a panic.
#[inline(always)]
pub(crate) fn known_err<T, E>(result: Result<T, E>) -> Result<T, E> {
    match result {
        Ok(_) => unreachable!("an error constructor returned `Ok`"),
        Err(error) => Err(error),
    }
}

/// Why `field` is not a field of kind `asked` in `info`'s component. Returns
/// only `Err` (see [`known_err`]).
#[cold]
#[inline(never)]
fn locate_error<T>(info: &ComponentInfo, field: impl FieldPath, asked: &FieldKind) -> Result<T, FieldError> {
    Err(match field.locate(info) {
        Err(error) => error,
        Ok(handle) => Shape::of_viewed(info).wrong_kind(&handle, asked),
    })
}

/// A field found in a component: its offset and kind, and the path it was
/// named by (for errors). Made by [`FieldPath::locate`] without allocating.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Located<'p> {
    offset: usize,
    kind: FieldKind,
    path: &'p str,
}

impl sealed::Sealed for str {}
impl sealed::Sealed for &str {}
impl sealed::Sealed for FieldHandle {}
impl sealed::Sealed for &FieldHandle {}

impl FieldPath for str {
    fn locate(&self, view: &ComponentInfo) -> Result<Located<'_>, FieldError> {
        let (offset, kind) = Shape::of_viewed(view).walk(self)?;
        Ok(Located { offset, kind, path: self })
    }
}

impl FieldPath for &str {
    fn locate(&self, view: &ComponentInfo) -> Result<Located<'_>, FieldError> {
        (**self).locate(view)
    }
}

impl FieldPath for FieldHandle {
    #[inline(always)]
    fn locate(&self, view: &ComponentInfo) -> Result<Located<'_>, FieldError> {
        // Offsets are trusted only within the component they were resolved for.
        if self.component() != view.id() {
            return Err(self.other_component(view));
        }
        Ok(Located { offset: self.offset, kind: self.kind, path: &self.path })
    }
    #[inline(always)]
    fn offset_as(&self, id: ComponentId, _view: &ComponentInfo, asked: &FieldKind) -> Option<usize> {
        // `asked` is a typed read's constant kind: its code is known when
        // compiled, and the stamp it must match depends on the view's
        // component alone (the same for a loop of lookups of one component).
        let code = asked.code();
        if code != 0 {
            return (self.stamp == stamp(id, code)).then_some(self.offset);
        }
        (self.component() == id && self.kind.same_as(asked)).then_some(self.offset)
    }
}

/// A [`FieldHandle`]'s stamp: the component's index and a kind's code.
#[inline(always)]
fn stamp(component: ComponentId, code: u32) -> u64 {
    ((component.index() as u64) << 32) | u64::from(code)
}

impl FieldHandle {
    #[cold]
    #[inline(never)]
    fn other_component(&self, view: &ComponentInfo) -> FieldError {
        FieldError::OtherComponent { component: Shape::of_viewed(view).name, path: self.path.to_string() }
    }
}

impl FieldPath for &FieldHandle {
    #[inline(always)]
    fn locate(&self, view: &ComponentInfo) -> Result<Located<'_>, FieldError> {
        (**self).locate(view)
    }
    #[inline(always)]
    fn offset_as(&self, id: ComponentId, view: &ComponentInfo, asked: &FieldKind) -> Option<usize> {
        (**self).offset_as(id, view, asked)
    }
}

/// A component's identity and schema, as a view resolves paths against it.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    id: ComponentId,
    name: &'static str,
    kind: FieldKind,
}

impl Shape {
    #[inline]
    pub(super) fn of(info: &ComponentInfo) -> Option<Self> {
        let kind = *info.kind()?;
        // `short_name` for a component with a schema, without its string
        // splitting (which a Rust component without one needs): no call on
        // the path of a lookup.
        let name = match kind {
            _ if info.is_dynamic() => info.name(),
            FieldKind::Struct(schema) => schema.name(),
            FieldKind::Enum(schema) => schema.name(),
            _ => info.name(),
        };
        Some(Shape { id: info.id(), name, kind })
    }

    /// The shape of a component a view was made of (which has a schema).
    fn of_viewed(info: &ComponentInfo) -> Self {
        Self::of(info).expect("a view is made only of a component with a schema")
    }

    /// Resolves `path`: field names separated by `.`, array elements as `[i]`;
    /// the empty path is the whole component.
    fn field(&self, path: &str) -> Result<FieldHandle, FieldError> {
        let (offset, kind) = self.walk(path)?;
        let stamp = stamp(self.id, kind.code());
        Ok(FieldHandle { stamp, offset, kind, path: path.into() })
    }

    /// The offset and kind of the field at `path`.
    fn walk(&self, path: &str) -> Result<(usize, FieldKind), FieldError> {
        let unknown = || FieldError::UnknownField { component: self.name, path: path.to_owned() };
        // The empty path is the component itself (an enum component's variant).
        let (mut offset, mut kind) = (0usize, self.kind);
        let mut rest = path;
        let mut first = true;
        while !rest.is_empty() {
            if let Some(tail) = rest.strip_prefix('[') {
                let (index, tail) = tail.split_once(']').ok_or_else(unknown)?;
                let index: usize = index.trim().parse().map_err(|_| unknown())?;
                let FieldKind::Array(element, len) = kind else { return Err(unknown()) };
                if index >= len {
                    return Err(unknown());
                }
                offset += index * element.size();
                kind = *element;
                rest = tail;
            } else {
                let tail = if first { rest } else { rest.strip_prefix('.').ok_or_else(unknown)? };
                let end = tail.find(['.', '[']).unwrap_or(tail.len());
                let FieldKind::Struct(schema) = kind else { return Err(unknown()) };
                let field = schema.field(&tail[..end]).ok_or_else(unknown)?;
                offset += field.offset();
                kind = *field.kind();
                rest = &tail[end..];
            }
            first = false;
        }
        Ok((offset, kind))
    }

    #[cold]
    #[inline(never)]
    fn wrong_kind(&self, handle: &Located<'_>, asked: &FieldKind) -> FieldError {
        FieldError::WrongKind {
            component: self.name,
            path: handle.path.to_string(),
            holds: handle.kind.to_string(),
            asked: asked.to_string(),
        }
    }

    fn expect_enum(&self, handle: &Located<'_>) -> Result<&'static crate::component::EnumSchema, FieldError> {
        match handle.kind {
            FieldKind::Enum(schema) => Ok(schema),
            other => Err(FieldError::WrongKind {
                component: self.name,
                path: handle.path.to_string(),
                holds: other.to_string(),
                asked: "an enum".to_owned(),
            }),
        }
    }
}

/// One component of one entity, read through its schema: made by
/// [`World::get_by_id`].
pub struct ComponentRef<'w> {
    /// The component's info, which has a schema (checked when the view is
    /// made). A reference, not a copy of the schema, so that a view is few
    /// words and a lookup returns it in registers.
    pub(crate) info: &'w ComponentInfo,
    /// The component's id (`info`'s), kept beside it so that checking a
    /// field handle reads no info.
    pub(crate) id: ComponentId,
    /// The value, whole; or, for a row of a per-field column, the column's
    /// lane bases (one pointer per top-level field, see `row`).
    pub(crate) ptr: NonNull<u8>,
    /// [`WHOLE`] for a whole value at `ptr`; else the row of the per-field
    /// column whose lane bases `ptr` points to.
    pub(crate) row: usize,
    pub(crate) marker: PhantomData<&'w ()>,
}

/// [`ComponentRef::row`] of a view of a whole value.
pub(crate) const WHOLE: usize = usize::MAX;

impl<'w> ComponentRef<'w> {
    /// A view of the whole value at `ptr`, of a component with a schema.
    #[inline(always)]
    pub(crate) fn whole(info: &'w ComponentInfo, ptr: NonNull<u8>) -> Self {
        Self::whole_of(info, info.id(), ptr)
    }

    /// [`whole`](Self::whole) where the caller has the id at hand (a lookup
    /// by id): a read through the view checks its field handle against
    /// that, not against a load from the info.
    #[inline(always)]
    pub(crate) fn whole_of(info: &'w ComponentInfo, id: ComponentId, ptr: NonNull<u8>) -> Self {
        debug_assert_eq!(info.id(), id);
        ComponentRef { info, id, ptr, row: WHOLE, marker: PhantomData }
    }

    /// A view of `row` of a per-field column whose lane bases are `bases`
    /// (`None`: the value is whole, at `ptr`).
    #[inline(always)]
    pub(crate) fn of_row(
        info: &'w ComponentInfo,
        ptr: NonNull<u8>,
        bases: Option<&'w [NonNull<u8>]>,
        row: usize,
    ) -> Self {
        match bases {
            None => Self::whole(info, ptr),
            Some(bases) => {
                ComponentRef { info, id: info.id(), ptr: NonNull::from(bases).cast(), row, marker: PhantomData }
            }
        }
    }

    /// Where the field at `offset` of the value lies.
    ///
    /// # Safety
    /// `offset` lies inside the value (an offset the component's schema
    /// gives), and the field there is not zero-sized.
    #[inline(always)]
    unsafe fn at(&self, offset: usize) -> *mut u8 {
        if self.row == WHOLE {
            // SAFETY: inside the value (caller).
            unsafe { self.ptr.as_ptr().add(offset) }
        } else {
            // SAFETY: forwarded.
            unsafe { self.in_lane(offset) }
        }
    }

    /// [`at`](Self::at) for a row of a per-field column: the top-level field
    /// holding `offset` has its own lane, `row` values of its size in.
    ///
    /// # Safety
    /// As for `at`; `ptr` is the lane bases of the component's per-field
    /// column and `row` one of its rows (how such a view is made).
    #[inline(always)]
    unsafe fn in_lane(&self, offset: usize) -> *mut u8 {
        let lanes = self.info.fields().expect("a view of a lane row is of a per-field component");
        // The lanes are the schema's top-level fields, so every field's
        // bytes lie in exactly one of them.
        let (index, lane) = lanes
            .iter()
            .enumerate()
            .find(|(_, lane)| offset >= lane.offset && offset < lane.offset + lane.layout.size())
            .expect("every field of a per-field component lies in a lane");
        // SAFETY: `ptr` points to one base per lane (caller), and `row` is a
        // row of each lane, which holds values of the field's size; `offset`
        // is inside this lane's field.
        unsafe {
            let base = self.ptr.cast::<NonNull<u8>>().add(index).read();
            base.as_ptr().add(self.row * lane.layout.size() + (offset - lane.offset))
        }
    }
}

impl ComponentRef<'_> {
    /// The component's id and schema.
    #[inline]
    fn shape(&self) -> Shape {
        Shape::of_viewed(self.info)
    }

    /// The component's id.
    pub fn id(&self) -> ComponentId {
        self.id
    }

    /// What the component holds: its struct or enum schema.
    pub fn kind(&self) -> &FieldKind {
        self.info.kind().expect("a view is made only of a component with a schema")
    }

    /// The field at `path` (`"hp"`, `"stats.speed"`, `"path[2]"`), resolved
    /// once for many reads.
    ///
    /// # Errors
    /// [`FieldError::UnknownField`] when the path names no field.
    pub fn field(&self, path: &str) -> Result<FieldHandle, FieldError> {
        self.shape().field(path)
    }

    /// The value of a `bool`, integer, float or `Entity` field.
    ///
    /// # Errors
    /// [`FieldError::UnknownField`], or [`FieldError::WrongKind`] when the
    /// field holds another kind than `T`.
    #[inline]
    pub fn get<T: FieldValue>(&self, field: impl FieldPath) -> Result<T, FieldError> {
        let handle = match locate_as(self.id, self.info, field, &T::KIND) {
            Ok(handle) => handle,
            Err(error) => return error,
        };
        // SAFETY: the schema is the component's own (checked when its info was
        // made): at `offset` lies a valid, aligned `T` (the kind matched).
        Ok(unsafe { self.at(handle).cast::<T>().read() })
    }

    /// The text of a `String` field.
    ///
    /// # Errors
    /// As for [`get`](Self::get).
    pub fn get_str(&self, field: impl FieldPath) -> Result<&str, FieldError> {
        let handle = match locate_as(self.id, self.info, field, &FieldKind::String) {
            Ok(handle) => handle,
            Err(error) => return error,
        };
        // SAFETY: as in `get`, a `String`, borrowed for the view's lifetime.
        Ok(unsafe { &*self.at(handle).cast::<String>() })
    }

    /// The variant name of a field-less enum field.
    ///
    /// # Errors
    /// [`FieldError::UnknownField`], or [`FieldError::WrongKind`] when the
    /// field is not an enum.
    pub fn variant(&self, field: impl FieldPath) -> Result<&'static str, FieldError> {
        let shape = self.shape();
        let handle = field.locate(self.info)?;
        let schema = shape.expect_enum(&handle)?;
        // SAFETY: as in `get`: a valid value of the enum the schema describes.
        let discriminant = unsafe { schema.read(self.at(handle.offset)) };
        Ok(schema.variants().iter().find(|v| v.discriminant() == discriminant).map_or("?", |v| v.name()))
    }
}

/// One component of one entity, read and written through its schema: made
/// by [`World::get_mut_by_id`]. Every write marks the component changed, as
/// writing through a [`Mut`](crate::Mut) does.
pub struct ComponentMut<'w> {
    pub(super) view: ComponentRef<'w>,
    pub(super) ticks: TicksMut<'w>,
}

impl<'w> core::ops::Deref for ComponentMut<'w> {
    type Target = ComponentRef<'w>;
    fn deref(&self) -> &ComponentRef<'w> {
        &self.view
    }
}

impl<'w> ComponentMut<'w> {
    /// A writable view whose writes stamp nothing: the caller stamped the
    /// row already (a dynamic query's row visit), or it is in no world.
    #[inline]
    pub(crate) fn untracked(view: ComponentRef<'w>) -> Self {
        let ticks = TicksMut { ticks: None, summary: None, last_run: Tick::new(0), this_run: Tick::new(0) };
        ComponentMut { view, ticks }
    }

    /// A writable view whose writes stamp the row's `ticks` (where its column
    /// keeps them) and the column's `summary` at `this_run`.
    #[inline]
    pub(crate) fn tracked(
        view: ComponentRef<'w>,
        ticks: Option<&'w mut crate::storage::ComponentTicks>,
        summary: &'w core::sync::atomic::AtomicU32,
        this_run: Tick,
    ) -> Self {
        ComponentMut { view, ticks: TicksMut { ticks, summary: Some(summary), last_run: Tick::new(0), this_run } }
    }

    #[inline]
    fn changed(&mut self) {
        let now = self.ticks.this_run;
        if let Some(ticks) = self.ticks.ticks.as_mut() {
            ticks.changed = now;
        }
        if let Some(summary) = self.ticks.summary {
            crate::storage::stamp_summary(summary, now);
        }
    }

    /// Writes a `bool`, integer, float or `Entity` field.
    ///
    /// # Errors
    /// As for [`ComponentRef::get`]; nothing is written then.
    #[inline]
    pub fn set<T: FieldValue>(&mut self, field: impl FieldPath, value: T) -> Result<(), FieldError> {
        let handle = match locate_as(self.view.id, self.view.info, field, &T::KIND) {
            Ok(handle) => handle,
            Err(error) => return error,
        };
        // SAFETY: as in `get`; the view borrows the world mutably, so the write
        // is unique; the value is `Copy` and needs no drop.
        unsafe { self.view.at(handle).cast::<T>().write(value) };
        self.changed();
        Ok(())
    }

    /// Writes a `String` field (dropping the text it held).
    ///
    /// # Errors
    /// As for [`ComponentRef::get`]; nothing is written then.
    pub fn set_string(&mut self, field: impl FieldPath, value: impl Into<String>) -> Result<(), FieldError> {
        let handle = match locate_as(self.view.id, self.view.info, field, &FieldKind::String) {
            Ok(handle) => handle,
            Err(error) => return error,
        };
        // SAFETY: as in `set`: a valid `String`, replaced (the old one dropped).
        unsafe { *self.view.at(handle).cast::<String>() = value.into() };
        self.changed();
        Ok(())
    }

    /// Sets a field-less enum field to the variant named `variant`.
    ///
    /// # Errors
    /// As for [`ComponentRef::variant`], and [`FieldError::UnknownVariant`];
    /// nothing is written then.
    pub fn set_variant(&mut self, field: impl FieldPath, variant: &str) -> Result<(), FieldError> {
        let shape = self.view.shape();
        let handle = field.locate(self.view.info)?;
        let schema = shape.expect_enum(&handle)?;
        let unknown = || FieldError::UnknownVariant {
            component: shape.name,
            path: handle.path.to_string(),
            variant: variant.to_owned(),
        };
        let discriminant = schema.variant(variant).ok_or_else(unknown)?.discriminant();
        // SAFETY: as in `set`; `write` checks the discriminant is a variant's.
        let written = unsafe { schema.write(self.view.at(handle.offset), discriminant) };
        debug_assert!(written);
        self.changed();
        Ok(())
    }
}

impl World {
    /// The info of a component this world knows, whose values can be viewed
    /// by schema: described, stored whole.
    fn viewable(&self, id: ComponentId) -> Result<&ComponentInfo, EcsError> {
        let info = self.components.get(id).ok_or(EcsError::UnknownComponent { index: id.index() })?;
        if info.kind().is_none() {
            return Err(EcsError::NotDescribed { component: info.name() });
        }
        Ok(info)
    }

    /// The component `id` of `entity`, to read field by field through its
    /// schema (see [`ComponentRef`]); a per-field component is read from its
    /// fields' arrays, each field where it lies.
    ///
    /// # Errors
    /// [`EcsError::UnknownComponent`] when this world has no component `id`;
    /// [`EcsError::NotDescribed`] when it has no schema
    /// (`#[component(describe)]`);
    /// [`EcsError::NoSuchEntity`] and [`EcsError::MissingComponent`].
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)]
    /// #[component(describe)]
    /// struct Health { hp: i32, name: String }
    /// let mut world = World::new();
    /// let e = world.spawn(Health { hp: 7, name: "orc".into() });
    /// let id = world.component_id_by_name("Health").unwrap();
    /// let health = world.get_by_id(e, id)?;
    /// assert_eq!(health.get::<i32>("hp"), Ok(7));
    /// assert_eq!(health.get_str("name"), Ok("orc"));
    /// assert!(health.get::<f32>("hp").is_err(), "an i32 is never read as an f32");
    /// # Ok::<(), EcsError>(())
    /// ```
    #[inline(always)]
    pub fn get_by_id(&self, entity: Entity, id: ComponentId) -> Result<ComponentRef<'_>, EcsError> {
        // A described component stored whole in tables, in the by-id cache:
        // its table and size are read before anything branches (so a loop of
        // lookups reads them once), and its columns need no question.
        if let Some((columns, size)) = self.archetypes.viewable_columns(id)
            // A dead slot's location names no archetype: the column lookup misses.
            && let Some(location) = self.entities.get_maybe_dead(entity)
            && let Some(column) = columns.column(location.archetype)
        {
            // SAFETY: the cache holds only described components, whose
            // info a table was made from: registered in this world (its
            // invariant, checked by `check_invariants` against the registry).
            let info = unsafe { self.components.get_unchecked(id) };
            // SAFETY: the column exists in the location's archetype, so the
            // location is a live entity's and its row below the column's
            // length; the cache holds only table columns of whole values of
            // `size` bytes (its invariant), where every such row holds one.
            // Borrowed with the world.
            let value = unsafe { column.data_ptr().add(location.row.index() * size) };
            return Ok(ComponentRef::whole_of(info, id, value));
        }
        self.get_by_id_uncached(entity, id)
    }

    /// [`get_by_id`](Self::get_by_id) of any component: sparse, per-field,
    /// or one the by-id cache does not hold.
    #[inline(always)]
    fn get_by_id_uncached(&self, entity: Entity, id: ComponentId) -> Result<ComponentRef<'_>, EcsError> {
        // Everything that depends on the component alone first, before any
        // branch on the entity: a loop of lookups of one component reads it
        // once (as `World::get` does).
        let columns = self.archetypes.columns_of(id);
        let info = self.components.get(id).filter(|info| info.kind().is_some());
        // A dead slot's location names no archetype: the column lookup misses.
        if let (Some(columns), Some(info), Some(location)) = (columns, info, self.entities.get_maybe_dead(entity))
            && let Some(column) = columns.column(location.archetype)
            // SAFETY: the column exists in the location's archetype, so the
            // location is a live entity's and its row below the column's length.
            && unsafe { column.is_present(location.row.index()) }
        {
            let row = location.row.index();
            let view = match column.lane_bases() {
                // SAFETY: the row holds a whole value (checked above), at the
                // component's size from the column's start; borrowed with the
                // world.
                None => ComponentRef::whole(info, unsafe { column.data_ptr().add(row * info.layout().size()) }),
                Some(bases) => ComponentRef::of_row(info, column.data_ptr(), Some(bases), row),
            };
            return Ok(view);
        }
        // Only an error is left (the checks above are all there is to a
        // view); returning the error alone, not a `Result`, keeps a caller's
        // loop state out of memory on its way back.
        known_err(self.get_by_id_error(entity, id))
    }

    /// Why [`get_by_id`](Self::get_by_id) found no view. Returns only `Err`
    /// (see [`known_err`]).
    #[cold]
    #[inline(never)]
    fn get_by_id_error(&self, entity: Entity, id: ComponentId) -> Result<ComponentRef<'_>, EcsError> {
        let info = self.viewable(id)?;
        if !self.entities.contains(entity) {
            return Err(EcsError::NoSuchEntity(entity));
        }
        Err(EcsError::MissingComponent { entity, component: info.name() })
    }

    /// [`get_mut_by_id`](Self::get_mut_by_id) through a shared world, writes
    /// stamped `this_run`: a system's, which holds write access to `id`.
    ///
    /// # Errors
    /// As for `get_mut_by_id`.
    ///
    /// # Safety
    /// Nothing else reads or writes component `id` of `entity` while the view
    /// lives (the caller holds write access to the component, and makes one
    /// view of a row at a time).
    pub(crate) unsafe fn get_mut_by_id_shared(
        &self,
        entity: Entity,
        id: ComponentId,
        this_run: Tick,
    ) -> Result<ComponentMut<'_>, EcsError> {
        let info = self.viewable(id)?;
        if !info.writable_by_id() {
            return Err(EcsError::Immutable { component: info.name() });
        }
        let location = self.entities.get(entity).ok_or(EcsError::NoSuchEntity(entity))?;
        let missing = EcsError::MissingComponent { entity, component: info.name() };
        let archetype = self.archetypes.get(location.archetype).expect("a live entity's archetype");
        let column = archetype.column(id).ok_or(missing)?;
        let row = location.row.index();
        if !column.holds(row) {
            return Err(missing);
        }
        // SAFETY: the row holds a value (checked); nothing else touches it or
        // its ticks while the view lives (caller).
        let (ptr, bases, ticks, summary) = unsafe { column.get_tracked_raw_shared(row) };
        // SAFETY: as above; a kept tick is the row's own.
        let ticks = ticks.map(|t| unsafe { &mut *t.as_ptr() });
        Ok(ComponentMut::tracked(ComponentRef::of_row(info, ptr, bases, row), ticks, summary, this_run))
    }

    /// The component `id` of `entity`, to read and write field by field
    /// through its schema (see [`ComponentMut`]); each write marks it changed.
    ///
    /// # Errors
    /// As for [`get_by_id`](Self::get_by_id), and [`EcsError::Immutable`] for
    /// an immutable component (relationships: insert a new value instead).
    pub fn get_mut_by_id(&mut self, entity: Entity, id: ComponentId) -> Result<ComponentMut<'_>, EcsError> {
        let this_run = Tick::new(*self.change_tick.get_mut());
        // SAFETY: `&mut self`: nothing else reads or writes the world while the
        // view, which borrows it, lives.
        unsafe { self.get_mut_by_id_shared(entity, id, this_run) }
    }
}
