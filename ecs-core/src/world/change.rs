//! [`Mut`] and [`Ref`]: borrows of a value that know when it was added and last
//! changed; `Mut` marks it changed only when written through, as bevy_ecs's do.

use core::ops::{Deref, DerefMut};
use core::sync::atomic::AtomicU32;

use crate::storage::{ComponentTicks, Tick};

/// Where a [`Mut`] records a write.
pub(crate) struct TicksMut<'a> {
    /// The row's ticks; `None` for a component without change detection.
    pub(crate) ticks: Option<&'a mut ComponentTicks>,
    /// The column's "last changed" summary, kept so that `Changed` queries can
    /// skip archetypes where nothing changed.
    pub(crate) summary: Option<&'a AtomicU32>,
    pub(crate) last_run: Tick,
    pub(crate) this_run: Tick,
}

/// A mutable borrow of a value whose change is tracked: reading through it
/// (`Deref`) leaves the value as it was; writing (`DerefMut`, any `&mut` use)
/// marks it changed, for `Changed` filters, [`is_changed`](Self::is_changed) and
/// [`resource_changed`](crate::system::resource_changed).
///
/// Given by queries of `Mut<T>` (one row marked per write, where `&mut T` marks
/// every row it hands out), [`World::get_mut`](crate::World::get_mut),
/// [`EntityWorldMut::get_mut`](crate::EntityWorldMut::get_mut) and
/// [`World::resource_scope`](crate::World::resource_scope).
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(Component, PartialEq)] struct Health(u32);
/// fn heal(mut q: Query<Mut<Health>>) {
///     for mut health in q.iter_mut() {
///         // Only a health below 10 is written, so only those rows count as changed.
///         health.set_if_neq(Health(health.0.max(10)));
///     }
/// }
/// let mut world = World::new();
/// let hurt = world.spawn(Health(3));
/// world.spawn(Health(50));
/// let mut changed = world.query_state_filtered::<Entity, Changed<Health>>();
/// assert_eq!(changed.iter(&world).count(), 2); // both were added
/// world.run_system_once(heal)?;
/// assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [hurt]);
/// # Ok::<(), EcsError>(())
/// ```
pub struct Mut<'a, T: ?Sized> {
    value: &'a mut T,
    ticks: TicksMut<'a>,
}

impl<'a, T: ?Sized> Mut<'a, T> {
    /// A borrow that records writes in `ticks`.
    pub(crate) fn new(value: &'a mut T, ticks: TicksMut<'a>) -> Self {
        Self { value, ticks }
    }

    /// `true` when the value was added after the borrower last ran (for
    /// `world.get_mut`: ever).
    pub fn is_added(&self) -> bool {
        self.ticks.ticks.as_ref().is_some_and(|t| t.added.is_newer_than(self.ticks.last_run, self.ticks.this_run))
    }

    /// `true` when the value was added or changed after the borrower last ran
    /// (for `world.get_mut`: ever).
    pub fn is_changed(&self) -> bool {
        self.ticks.ticks.as_ref().is_some_and(|t| t.changed.is_newer_than(self.ticks.last_run, self.ticks.this_run))
    }

    /// The tick of the value's last change (`None` without change detection).
    pub fn last_changed(&self) -> Option<Tick> {
        self.ticks.ticks.as_ref().map(|t| t.changed)
    }

    /// Marks the value changed without writing it.
    #[inline]
    pub fn set_changed(&mut self) {
        let now = self.ticks.this_run;
        if let Some(ticks) = self.ticks.ticks.as_mut() {
            ticks.changed = now;
        }
        if let Some(summary) = self.ticks.summary {
            crate::storage::stamp_summary(summary, now);
        }
    }

    /// Writes `value` only if it differs from the current one, so that an
    /// unchanged value is not marked changed. Returns whether it wrote.
    pub fn set_if_neq(&mut self, value: T) -> bool
    where
        T: Sized + PartialEq,
    {
        if *self.value == value {
            return false;
        }
        *self.value = value;
        self.set_changed();
        true
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

    /// A shorter `Mut` of the same value, for passing on without giving it up.
    pub fn reborrow(&mut self) -> Mut<'_, T> {
        Mut {
            value: self.value,
            ticks: TicksMut {
                ticks: self.ticks.ticks.as_deref_mut(),
                summary: self.ticks.summary,
                last_run: self.ticks.last_run,
                this_run: self.ticks.this_run,
            },
        }
    }
}

impl<T: ?Sized> Deref for Mut<'_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T: ?Sized> DerefMut for Mut<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        self.set_changed();
        self.value
    }
}

impl<T: ?Sized> AsRef<T> for Mut<'_, T> {
    fn as_ref(&self) -> &T {
        self.value
    }
}

impl<T: ?Sized + core::fmt::Debug> core::fmt::Debug for Mut<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&**self, f)
    }
}

/// A shared borrow of a component that knows when it was added and last
/// changed: a query item (`Query<Ref<Health>>`), for telling new or changed
/// rows apart while visiting all of them.
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(Component)] struct Health(u32);
/// let mut world = World::new();
/// let a = world.spawn(Health(1));
/// let mut q = world.query_state::<(Entity, Ref<Health>)>();
/// assert!(q.iter(&world).all(|(_, h)| h.is_added()));
/// let b = world.spawn(Health(2));
/// world.get_mut::<Health>(a).unwrap().0 += 1;
/// let seen: Vec<_> = q.iter(&world).map(|(e, h)| (e, h.is_added(), h.is_changed())).collect();
/// assert_eq!(seen, [(a, false, true), (b, true, true)]);
/// ```
pub struct Ref<'a, T: ?Sized> {
    value: &'a T,
    ticks: ComponentTicks,
    last_run: Tick,
    this_run: Tick,
}

impl<'a, T: ?Sized> Ref<'a, T> {
    pub(crate) fn new(value: &'a T, ticks: ComponentTicks, last_run: Tick, this_run: Tick) -> Self {
        Self { value, ticks, last_run, this_run }
    }

    /// `true` when the value was added after the query last ran.
    pub fn is_added(&self) -> bool {
        self.ticks.added.is_newer_than(self.last_run, self.this_run)
    }

    /// `true` when the value was added or changed after the query last ran.
    pub fn is_changed(&self) -> bool {
        self.ticks.changed.is_newer_than(self.last_run, self.this_run)
    }

    /// The tick of the value's last change.
    pub fn last_changed(&self) -> Tick {
        self.ticks.changed
    }

    /// The borrow itself.
    pub fn into_inner(self) -> &'a T {
        self.value
    }
}

impl<T: ?Sized> Deref for Ref<'_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T: ?Sized> AsRef<T> for Ref<'_, T> {
    fn as_ref(&self) -> &T {
        self.value
    }
}

impl<T: ?Sized> Clone for Ref<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for Ref<'_, T> {}

impl<T: ?Sized + core::fmt::Debug> core::fmt::Debug for Ref<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&**self, f)
    }
}
