//! Resources: singletons stored in the world by type (`DeltaTime`, an RNG, settings).
//!
//! Any `Send + Sync + 'static` type can be a resource. The world owns at most one
//! value per type. Systems borrow resources through `Res<T>` and `ResMut<T>`; the
//! scheduler keeps a writer apart from every other user of the same resource, which
//! is why the cells below allow mutable access through a shared world (unsafely).

use core::any::{Any, TypeId};
use core::cell::UnsafeCell;
use core::hash::BuildHasherDefault;
use std::collections::HashMap;

use crate::bundle::TypeIdHasher;

struct Entry {
    value: UnsafeCell<Box<dyn Any + Send + Sync>>,
    name: &'static str,
}

/// The resources of one world.
#[derive(Default)]
pub(crate) struct Resources {
    entries: HashMap<TypeId, Entry, BuildHasherDefault<TypeIdHasher>>,
}

// SAFETY: every value is `Send + Sync`. Shared access hands out shared references
// only, except `get_unchecked_mut`, whose caller guarantees exclusivity.
unsafe impl Sync for Resources {}

impl Resources {
    pub fn insert<R: Send + Sync + 'static>(&mut self, value: R) -> Option<R> {
        let entry = Entry { value: UnsafeCell::new(Box::new(value)), name: core::any::type_name::<R>() };
        let old = self.entries.insert(TypeId::of::<R>(), entry)?;
        Some(*old.value.into_inner().downcast::<R>().expect("entries are keyed by their type"))
    }

    pub fn remove<R: Send + Sync + 'static>(&mut self) -> Option<R> {
        let old = self.entries.remove(&TypeId::of::<R>())?;
        Some(*old.value.into_inner().downcast::<R>().expect("entries are keyed by their type"))
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

    pub fn get_mut<R: Send + Sync + 'static>(&mut self) -> Option<&mut R> {
        self.entries.get_mut(&TypeId::of::<R>())?.value.get_mut().downcast_mut::<R>()
    }

    /// A mutable borrow through a shared world.
    ///
    /// # Safety
    /// No other borrow of this resource exists for as long as the returned one is used.
    #[expect(clippy::mut_from_ref, reason = "the cell allows it; exclusivity is the caller's promise")]
    pub unsafe fn get_unchecked_mut<R: Send + Sync + 'static>(&self) -> Option<&mut R> {
        let entry = self.entries.get(&TypeId::of::<R>())?;
        // SAFETY: exclusivity is the caller's guarantee.
        unsafe { &mut *entry.value.get() }.downcast_mut::<R>()
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
