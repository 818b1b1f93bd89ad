//! [`Mut`]: a mutable borrow that marks its value changed only when written
//! through, as bevy_ecs's `Mut` does.

use core::ops::{Deref, DerefMut};

use crate::storage::Tick;

/// A mutable borrow of a value whose change is tracked: reading through it
/// (`Deref`) leaves the value as it was; writing (`DerefMut`, any `&mut` use)
/// marks it changed, for `Changed` filters and
/// [`resource_changed`](crate::system::resource_changed).
///
/// Given by [`World::resource_scope`](crate::World::resource_scope).
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// use ecs_core::system::resource_changed;
/// struct Bank { total: u32 }
/// let mut world = World::new();
/// world.insert_resource(Bank { total: 0 });
/// let changed = |world: &mut World| world.run_system_once(resource_changed::<Bank>).unwrap();
/// world.resource_scope(|_, bank: Mut<Bank>| assert_eq!(bank.total, 0)); // read only
/// assert!(changed(&mut world)); // (inserted: the first look sees it)
/// world.resource_scope(|_, bank: Mut<Bank>| assert_eq!(bank.total, 0));
/// world.resource_scope(|_, mut bank: Mut<Bank>| bank.total += 5); // written
/// assert_eq!(world.resource::<Bank>().total, 5);
/// ```
pub struct Mut<'a, T: ?Sized> {
    value: &'a mut T,
    changed: &'a mut Tick,
    now: Tick,
}

impl<'a, T: ?Sized> Mut<'a, T> {
    pub(crate) fn new(value: &'a mut T, changed: &'a mut Tick, now: Tick) -> Self {
        Self { value, changed, now }
    }

    /// Marks the value changed without writing it.
    pub fn set_changed(&mut self) {
        *self.changed = self.now;
    }

    /// The borrow itself, marked changed (what it is used for is not tracked
    /// any more).
    pub fn into_inner(mut self) -> &'a mut T {
        self.set_changed();
        self.value
    }

    /// The value, mutably, without marking it changed: for writes no one should
    /// react to.
    pub fn bypass_change_detection(&mut self) -> &mut T {
        self.value
    }
}

impl<T: ?Sized> Deref for Mut<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T: ?Sized> DerefMut for Mut<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.set_changed();
        self.value
    }
}

impl<T: ?Sized + core::fmt::Debug> core::fmt::Debug for Mut<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&**self, f)
    }
}
