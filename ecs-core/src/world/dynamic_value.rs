//! [`DynamicValue`]: one whole value of a component with a schema, built
//! field by field at run time and inserted by id.

use super::World;
use super::by_id::{ComponentMut, ComponentRef, FieldError, FieldPath, FieldValue};
use super::structural_by_id::Bytes;
use crate::component::{ComponentId, ComponentInfo, StrategyKind, value};
use crate::error::EcsError;
use crate::storage::{OwningPtr, Ptr};

/// One value of a component that has a schema (defined at run time, or a
/// Rust component with `#[component(describe)]`): made with every field at
/// its default (zero, `false`, empty text, an enum's first variant,
/// [`Entity::PLACEHOLDER`](crate::Entity::PLACEHOLDER)), set field by field,
/// then given to an entity with
/// [`insert_by_id`](crate::EntityWorldMut::insert_by_id) or an
/// [`EntityBuilder`](super::EntityBuilder). Fields are checked against the
/// schema as in a view: a wrong kind or an unknown field is an error, never a
/// reinterpretation of bytes.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// use ecs_core::world::DynamicValue;
///
/// #[derive(Component)]
/// #[component(describe)]
/// struct Health { hp: i32, name: String }
///
/// let mut world = World::new();
/// let id = world.register_component::<Health>();
/// let mut value = DynamicValue::new(&world, id)?;
/// value.set("hp", 30)?.set_string("name", "ogre")?;
/// assert!(value.set("hp", 1.5f32).is_err(), "hp is an i32");
/// let e = world.spawn(());
/// world.entity_mut(e)?.insert_by_id(id, value)?;
/// assert_eq!(world.get::<Health>(e).map(|h| (h.hp, h.name.as_str())), Some((30, "ogre")));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct DynamicValue {
    info: ComponentInfo,
    /// Holds a valid value of the component at all times.
    bytes: Bytes,
}

impl DynamicValue {
    /// A value of component `id`, every field at its default.
    ///
    /// # Errors
    /// [`EcsError::UnknownComponent`] when `world` has no component `id`;
    /// [`EcsError::NotDescribed`] when it has no schema, [`EcsError::RelationshipById`]
    /// for a relationship.
    pub fn new(world: &World, id: ComponentId) -> Result<Self, EcsError> {
        let info = *world.components.get(id).ok_or(EcsError::UnknownComponent { index: id.index() })?;
        if info.is_relationship() {
            return Err(EcsError::RelationshipById { component: info.name() });
        }
        if info.kind().is_none() {
            return Err(EcsError::NotDescribed { component: info.name() });
        }
        let kind = *info.kind().expect("a shape has a kind");
        let bytes = Bytes::new(info.layout());
        // SAFETY: the block is fresh, aligned and sized for the component,
        // whose schema is `kind` (a Rust component's own type's, or the one
        // its runtime layout was made from), and a value whose described
        // fields all hold valid values is a valid value of the component (the
        // schema's contract: a Rust type's schema describes all its fields).
        unsafe { value::write_default(&kind, bytes.ptr().as_ptr()) };
        Ok(Self { info, bytes })
    }

    /// The component the value is of.
    pub fn id(&self) -> ComponentId {
        self.info.id()
    }

    /// The name of the component the value is of.
    pub fn name(&self) -> &'static str {
        self.info.name()
    }

    /// The value, to read field by field (see [`ComponentRef`]).
    pub fn view(&self) -> ComponentRef<'_> {
        ComponentRef::whole(&self.info, self.bytes.ptr())
    }

    /// The value, to read and write field by field (see [`ComponentMut`]; no
    /// change ticks: the value is in no world yet).
    pub fn view_mut(&mut self) -> ComponentMut<'_> {
        ComponentMut::untracked(ComponentRef::whole(&self.info, self.bytes.ptr()))
    }

    /// Writes a `bool`, integer, float or `Entity` field.
    ///
    /// # Errors
    /// As for [`ComponentMut::set`]; nothing is written then.
    pub fn set<T: FieldValue>(&mut self, field: impl FieldPath, value: T) -> Result<&mut Self, FieldError> {
        self.view_mut().set(field, value)?;
        Ok(self)
    }

    /// Writes a `String` field.
    ///
    /// # Errors
    /// As for [`ComponentMut::set_string`]; nothing is written then.
    pub fn set_string(&mut self, field: impl FieldPath, value: impl Into<String>) -> Result<&mut Self, FieldError> {
        self.view_mut().set_string(field, value)?;
        Ok(self)
    }

    /// Sets an enum field to the variant named `variant`.
    ///
    /// # Errors
    /// As for [`ComponentMut::set_variant`]; nothing is written then.
    pub fn set_variant(&mut self, field: impl FieldPath, variant: &str) -> Result<&mut Self, FieldError> {
        self.view_mut().set_variant(field, variant)?;
        Ok(self)
    }

    /// The component's info.
    pub(crate) fn info(&self) -> &ComponentInfo {
        &self.info
    }

    /// Gives up the value's block without dropping what it holds: the caller
    /// has moved the value out.
    pub(crate) fn forget_value(self) -> Bytes {
        let this = core::mem::ManuallyDrop::new(self);
        // SAFETY: `this` is never used or dropped again; the block moves out
        // once (the info and shape are `Copy`).
        unsafe { core::ptr::read(&this.bytes) }
    }

    /// Where the value lies.
    pub(crate) fn ptr(&self) -> core::ptr::NonNull<u8> {
        self.bytes.ptr()
    }
}

impl Clone for DynamicValue {
    fn clone(&self) -> Self {
        let bytes = Bytes::new(self.info.layout());
        let (src, dst) = (self.bytes.ptr(), bytes.ptr());
        // SAFETY: (every arm) `self` holds a valid value of the component; the
        // new block is sized and aligned for one and does not overlap it.
        // Should a clone panic, `bytes` is freed without being dropped.
        unsafe {
            match self.info.snapshot_kind() {
                // The component's own clone (its type's `Clone`) when it has one.
                StrategyKind::Clone(glue) => glue.run(Ptr::new(src), dst),
                StrategyKind::Copy => {
                    core::ptr::copy_nonoverlapping(src.as_ptr(), dst.as_ptr(), self.info.layout().size())
                }
                // Field by field otherwise, as `new` builds one.
                StrategyKind::Skip | StrategyKind::Unsupported => {
                    let kind = *self.info.kind().expect("a dynamic value has a kind");
                    value::clone_into(&kind, src.as_ptr(), dst.as_ptr());
                }
            }
        }
        Self { info: self.info, bytes }
    }
}

impl Drop for DynamicValue {
    fn drop(&mut self) {
        if let Some(glue) = self.info.drop_glue() {
            // SAFETY: the block holds a valid value of the component, dropped
            // once, here, by the component's own drop; the block is freed after.
            unsafe { glue.run(OwningPtr::new(self.bytes.ptr())) };
        }
    }
}

impl core::fmt::Debug for DynamicValue {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DynamicValue").field("component", &self.info.short_name()).finish_non_exhaustive()
    }
}
