//! Resources: singletons stored in the world by type (`DeltaTime`, an RNG, settings).
//!
//! Any `Send + Sync + 'static` type can be a resource. The world owns at most one
//! value per type. Systems borrow resources through `Res<T>` and `ResMut<T>`; the
//! scheduler keeps a writer apart from every other user of the same resource, which
//! is why the cells below allow mutable access through a shared world (unsafely).

use core::any::{Any, TypeId};
use core::cell::UnsafeCell;
use std::collections::hash_map::Entry::{Occupied, Vacant};

use crate::storage::{ComponentTicks, Tick};

/// A marker for resource types, implemented by `#[derive(Resource)]` or by
/// hand. Nothing requires it: any `Send + Sync + 'static` value is a resource.
/// It is for code written for bevy_ecs, whose resources derive it, and for
/// generic code that names its resources `R: Resource`. The prelude brings
/// the derive only, so that a game's own type named `Resource` does not
/// clash with it; name the trait as `ecs_core::Resource`.
///
/// # Example
/// ```
/// use ecs_core::prelude::*; // the derive
/// use ecs_core::Resource; // the trait
///
/// #[derive(Resource, Default)]
/// struct Score(u32);
/// struct Settings { volume: f32 } // no derive needed
///
/// fn reset<R: Resource + Default>(world: &mut World) {
///     world.insert_resource(R::default());
/// }
///
/// let mut world = World::new();
/// world.insert_resource(Settings { volume: 0.5 });
/// world.insert_resource(Score(3));
/// reset::<Score>(&mut world);
/// assert_eq!(world.resource::<Score>().0, 0);
/// assert_eq!(world.resource::<Settings>().volume, 0.5);
/// ```
pub trait Resource: Send + Sync + 'static {}

struct Entry {
    value: UnsafeCell<Box<dyn Any + Send + Sync>>,
    /// When the resource was inserted and last written, for `Res::is_changed` and
    /// `resource_changed`. Written only by whoever may write the value.
    ticks: UnsafeCell<ComponentTicks>,
    name: &'static str,
}

/// The resources of one world.
#[derive(Default)]
pub(crate) struct Resources {
    entries: crate::hashers::TypeIdMap<Entry>,
}

// SAFETY: every value is `Send + Sync`, and ticks are plain data. Shared access
// hands out shared references and copies of ticks only, except
// `get_unchecked_mut` (value and ticks), whose caller guarantees that nothing else
// reads or writes that resource meanwhile (the scheduler keeps a `ResMut<R>` apart
// from every `Res<R>`, condition on `R` and `&World`).
unsafe impl Sync for Resources {}

impl Resources {
    /// Stores `value` at tick `now`: a new resource is added and changed then; a
    /// replaced one keeps its `added` tick and is changed then.
    pub fn insert<R: Send + Sync + 'static>(&mut self, value: R, now: Tick) -> Option<R> {
        let now = now.stamp();
        match self.entries.entry(TypeId::of::<R>()) {
            Occupied(mut occupied) => {
                let entry = occupied.get_mut();
                entry.ticks.get_mut().changed = now;
                let old = core::mem::replace(entry.value.get_mut(), Box::new(value));
                Some(*old.downcast::<R>().expect("entries are keyed by their type"))
            }
            Vacant(vacant) => {
                let ticks = UnsafeCell::new(ComponentTicks { added: now, changed: now });
                let name = crate::names::type_name::<R>();
                vacant.insert(Entry { value: UnsafeCell::new(Box::new(value)), ticks, name });
                None
            }
        }
    }

    /// Removes the resource, with its ticks.
    pub fn remove<R: Send + Sync + 'static>(&mut self) -> Option<(R, ComponentTicks)> {
        let old = self.entries.remove(&TypeId::of::<R>())?;
        let value = *old.value.into_inner().downcast::<R>().expect("entries are keyed by their type");
        Some((value, old.ticks.into_inner()))
    }

    /// Overwrites the ticks of a stored resource (for `resource_scope`, which puts
    /// back what it took).
    pub fn set_ticks<R: Send + Sync + 'static>(&mut self, ticks: ComponentTicks) {
        if let Some(entry) = self.entries.get_mut(&TypeId::of::<R>()) {
            *entry.ticks.get_mut() = ticks;
        }
    }

    /// The resource's ticks.
    pub fn ticks<R: Send + Sync + 'static>(&self) -> Option<ComponentTicks> {
        let entry = self.entries.get(&TypeId::of::<R>())?;
        // SAFETY: ticks are written only through `&mut self` or by the holder of a
        // `get_unchecked_mut` borrow, whose caller guarantees no shared access
        // (this one included) coexists.
        Some(unsafe { *entry.ticks.get() })
    }

    /// Clamps every resource's ticks as `World::check_change_ticks` does columns'.
    pub fn clamp_ticks(&mut self, now: Tick) {
        for entry in self.entries.values_mut() {
            let ticks = entry.ticks.get_mut();
            ticks.added = ticks.added.clamp_age(now).stamp();
            ticks.changed = ticks.changed.clamp_age(now);
        }
    }

    pub fn contains<R: Send + Sync + 'static>(&self) -> bool {
        self.entries.contains_key(&TypeId::of::<R>())
    }

    pub fn get<R: Send + Sync + 'static>(&self) -> Option<&R> {
        let entry = self.entries.get(&TypeId::of::<R>())?;
        // SAFETY: shared access to the world; a mutable borrow of this value exists
        // only through `get_mut` (which needs `&mut self`) or `get_unchecked_mut`,
        // whose caller guarantees no shared borrow coexists.
        unsafe { &*entry.value.get() }.downcast_ref::<R>()
    }

    /// The resource with its ticks.
    pub fn get_with_ticks<R: Send + Sync + 'static>(&self) -> Option<(&R, ComponentTicks)> {
        let entry = self.entries.get(&TypeId::of::<R>())?;
        // SAFETY: as in `get` and `ticks`.
        let value = unsafe { &*entry.value.get() }.downcast_ref::<R>()?;
        // SAFETY: as in `ticks`.
        Some((value, unsafe { *entry.ticks.get() }))
    }

    /// The resource, mutably, marked changed at `now`.
    pub fn get_mut<R: Send + Sync + 'static>(&mut self, now: Tick) -> Option<&mut R> {
        let entry = self.entries.get_mut(&TypeId::of::<R>())?;
        entry.ticks.get_mut().changed = now;
        entry.value.get_mut().downcast_mut::<R>()
    }

    /// A mutable borrow of the value and its ticks through a shared world.
    ///
    /// # Safety
    /// No other borrow of this resource (or of its ticks) exists for as long as the
    /// returned ones are used.
    #[expect(clippy::mut_from_ref, reason = "the cell allows it; exclusivity is the caller's promise")]
    pub unsafe fn get_unchecked_mut<R: Send + Sync + 'static>(&self) -> Option<(&mut R, &mut ComponentTicks)> {
        let entry = self.entries.get(&TypeId::of::<R>())?;
        // SAFETY: exclusivity is the caller's guarantee.
        let value = unsafe { &mut *entry.value.get() }.downcast_mut::<R>()?;
        // SAFETY: as above.
        Some((value, unsafe { &mut *entry.ticks.get() }))
    }

    /// The resource of type `type_id`, type-erased, with its ticks (a snapshot).
    pub fn get_erased(&self, type_id: TypeId) -> Option<(&(dyn Any + Send + Sync), ComponentTicks)> {
        let entry = self.entries.get(&type_id)?;
        // SAFETY: as in `get` and `ticks`.
        Some(unsafe { (&**entry.value.get(), *entry.ticks.get()) })
    }

    /// Stores a type-erased value under `type_id` with exactly these ticks,
    /// and returns the value it replaces, for the caller to drop (a restore
    /// drops it where a panicking `Drop` cannot interrupt it). `value` must be
    /// of the type `type_id` names.
    pub fn put_erased(
        &mut self,
        type_id: TypeId,
        name: &'static str,
        value: Box<dyn Any + Send + Sync>,
        ticks: ComponentTicks,
    ) -> Option<Box<dyn Any + Send + Sync>> {
        debug_assert_eq!((*value).type_id(), type_id);
        let entry = Entry { value: UnsafeCell::new(value), ticks: UnsafeCell::new(ticks), name };
        self.entries.insert(type_id, entry).map(|old| old.value.into_inner())
    }

    /// Removes the resource of type `type_id`, if any, with its ticks.
    pub fn remove_erased_with_ticks(
        &mut self,
        type_id: TypeId,
    ) -> Option<(Box<dyn Any + Send + Sync>, ComponentTicks)> {
        self.entries.remove(&type_id).map(|entry| (entry.value.into_inner(), entry.ticks.into_inner()))
    }

    /// Removes the resource of type `type_id`, if any.
    pub fn remove_erased(&mut self, type_id: TypeId) -> Option<Box<dyn Any + Send + Sync>> {
        self.entries.remove(&type_id).map(|entry| entry.value.into_inner())
    }

    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.entries.values().map(|e| e.name)
    }
}

impl core::fmt::Debug for Resources {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

/// How a resource registered for snapshots is cloned into one.
#[derive(Clone, Copy)]
pub(crate) struct ResourceSaver {
    pub(crate) type_id: TypeId,
    pub(crate) name: &'static str,
    pub(crate) clone: fn(&(dyn Any + Send + Sync)) -> Box<dyn Any + Send + Sync>,
}

impl ResourceSaver {
    pub(crate) fn of<R: Clone + Send + Sync + 'static>() -> Self {
        Self { type_id: TypeId::of::<R>(), name: crate::names::type_name::<R>(), clone: clone_resource::<R> }
    }
}

fn clone_resource<R: Clone + Send + Sync + 'static>(value: &(dyn Any + Send + Sync)) -> Box<dyn Any + Send + Sync> {
    Box::new(value.downcast_ref::<R>().expect("resources are keyed by their type").clone())
}
