//! Systems' local state (`Local<T>`, message readers' cursors), kept where a
//! save can reach it.
//!
//! Each value lives in a [`LocalCell`] shared by its system's parameter state
//! (an `Arc`) and the world's list (a `Weak`): the system reaches its value
//! without looking anything up, and a save can still read every system's
//! local state through the world alone. A cell belongs to the system that
//! made it, recorded as its system slot and its place among that system's
//! cells, which is how a load finds it again in another world where the same
//! systems are registered in the same order.
//!
//! Without the `serde` feature nothing reads the list, but systems keep their
//! values in cells all the same: one code path.
#![cfg_attr(not(feature = "serde"), allow(dead_code, reason = "read by saves (feature `serde`)"))]

use core::any::{Any, TypeId};
use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Weak};

use crate::parallel::annotate;

/// Nobody has the value.
const FREE: u8 = 0;
/// Its system has it for a run.
const HELD: u8 = 1;
/// A save is reading it.
const READ: u8 = 2;

/// One system's local value. Its system reaches it mutably through
/// [`hold`](Self::hold); a save reads it through [`AnyLocal::read`].
pub(crate) struct LocalCell<T> {
    state: AtomicU8,
    value: UnsafeCell<T>,
}

// SAFETY: the value is reached mutably only under `HELD` (by its one system,
// which runs at most once at a time) and shared only under `READ` (by a save);
// the state moves between them by compare-exchange, so the two never overlap.
// `replace` writes outside that protocol, with the world borrowed mutably,
// which excludes both. `T: Send + Sync` makes the move and the sharing across
// threads sound.
unsafe impl<T: Send + Sync> Sync for LocalCell<T> {}

impl<T> LocalCell<T> {
    fn new(value: T) -> Self {
        Self { state: AtomicU8::new(FREE), value: UnsafeCell::new(value) }
    }

    /// Hands the value to its system for one run, waiting out a save that is
    /// reading it (a save made from inside another system, which serializes
    /// the value and waits for nothing). The run gives it back with
    /// [`release`](Self::release).
    ///
    /// # Safety
    /// Only the system whose state holds this cell calls it, and no reference
    /// from an earlier call is alive.
    #[allow(clippy::mut_from_ref, reason = "the `HELD` state, not a borrow, makes the reference unique")]
    pub(crate) unsafe fn hold(&self) -> &mut T {
        loop {
            match self.state.compare_exchange(FREE, HELD, Ordering::Acquire, Ordering::Relaxed) {
                // `HELD` already: an earlier run leaked its `Local` and never
                // gave it back; the caller is that same system.
                Ok(_) | Err(HELD) => break,
                Err(_) => std::thread::yield_now(),
            }
        }
        annotate::happens_after(&self.state);
        // SAFETY: the state is `HELD`, which only this cell's system takes and
        // which keeps saves out; the caller holds no other reference to it.
        unsafe { &mut *self.value.get() }
    }

    /// Gives back what [`hold`](Self::hold) handed out.
    pub(crate) fn release(&self) {
        annotate::happens_before(&self.state);
        self.state.store(FREE, Ordering::Release);
    }
}

/// A [`LocalCell`] of any type, as the world's list holds it.
pub(crate) trait AnyLocal: Send + Sync {
    /// The value's type.
    fn value_type(&self) -> TypeId;
    /// The value's type name, for messages.
    fn type_name(&self) -> &'static str;
    /// Calls `f` with the value, unless its system holds it (it runs now, or
    /// leaked its parameter): `false` then.
    fn read(&self, f: &mut dyn FnMut(&dyn Any)) -> bool;
    /// Replaces the value by `value` when it is of its type (and frees a
    /// state a leaked parameter left held), returning the value it held, for
    /// the caller to drop when that cannot stop its work half-way; gives
    /// `value` back otherwise.
    ///
    /// # Safety
    /// No reference handed out by [`LocalCell::hold`] is alive and no
    /// [`read`](Self::read) is running: the caller has the world mutably.
    unsafe fn replace(
        &self,
        value: Box<dyn Any + Send + Sync>,
    ) -> Result<Box<dyn Any + Send>, Box<dyn Any + Send + Sync>>;
}

impl<T: Send + Sync + 'static> AnyLocal for LocalCell<T> {
    fn value_type(&self) -> TypeId {
        TypeId::of::<T>()
    }

    fn type_name(&self) -> &'static str {
        core::any::type_name::<T>()
    }

    fn read(&self, f: &mut dyn FnMut(&dyn Any)) -> bool {
        if self.state.compare_exchange(FREE, READ, Ordering::Acquire, Ordering::Relaxed).is_err() {
            return false;
        }
        annotate::happens_after(&self.state);
        // Gives the value back even if `f` panics.
        struct Release<'a>(&'a AtomicU8);
        impl Drop for Release<'_> {
            fn drop(&mut self) {
                annotate::happens_before(self.0);
                self.0.store(FREE, Ordering::Release);
            }
        }
        let _release = Release(&self.state);
        // SAFETY: the state is `READ`, which keeps the system (the only writer)
        // out until it goes back to `FREE`.
        f(unsafe { &*self.value.get() });
        true
    }

    unsafe fn replace(
        &self,
        value: Box<dyn Any + Send + Sync>,
    ) -> Result<Box<dyn Any + Send>, Box<dyn Any + Send + Sync>> {
        let value = value.downcast::<T>()?;
        // SAFETY: no reference from `hold` is alive (the caller's promise), and
        // `read` only lends one for its call, which the caller's exclusive
        // access excludes.
        let old = unsafe { core::mem::replace(&mut *self.value.get(), *value) };
        annotate::happens_before(&self.state);
        self.state.store(FREE, Ordering::Release);
        Ok(Box::new(old))
    }
}

/// Where a cell belongs: its system's slot and its place among the cells that
/// system made, in the order its parameters made them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct LocalPlace {
    pub(crate) system_slot: u32,
    pub(crate) place: u32,
}

/// The system a cell belongs to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LocalOwner {
    pub(crate) place: LocalPlace,
    pub(crate) system: &'static str,
}

/// One cell in the world's list.
pub(crate) struct LocalEntry {
    /// Rising: entries stay in the order their cells were made, whatever
    /// pruning removes, so that [`Locals::claim`] finds a system's cells by id.
    id: u64,
    pub(crate) cell: Weak<dyn AnyLocal>,
    /// `None` for a system run once (no slot): never saved.
    pub(crate) owner: Option<LocalOwner>,
    /// Made by a parameter's machinery (a message reader's cursor), not by a
    /// `Local`: saved when its type is registered, left out quietly otherwise.
    pub(crate) internal: bool,
}

/// A value a load brought for a cell: where it goes, the system it belonged
/// to, and the value.
pub(crate) struct LoadedLocal {
    pub(crate) place: LocalPlace,
    pub(crate) system: String,
    pub(crate) value: Box<dyn Any + Send + Sync>,
}

/// Every system's local state in one world.
#[derive(Default)]
pub(crate) struct Locals {
    cells: Vec<LocalEntry>,
    next_id: u64,
    /// The length at which dead entries are dropped next.
    prune_at: usize,
    /// Loaded values whose systems are not initialized yet: each goes to the
    /// cell made at its place, when that system has the saved one's name.
    waiting: Vec<LoadedLocal>,
}

impl Locals {
    /// A new cell holding `value`; `internal` as in [`LocalEntry`]. Drops the
    /// entries of cells whose systems are gone once the list has doubled since
    /// the last time, so that systems made and dropped again and again
    /// (one-off runs) do not grow it.
    pub(crate) fn create<T: Send + Sync + 'static>(&mut self, value: T, internal: bool) -> Arc<LocalCell<T>> {
        if self.cells.len() >= self.prune_at {
            self.cells.retain(|entry| entry.cell.strong_count() > 0);
            self.prune_at = (2 * self.cells.len()).max(16);
        }
        let cell = Arc::new(LocalCell::new(value));
        let weak: Weak<dyn AnyLocal> = Arc::downgrade(&cell) as Weak<LocalCell<T>>;
        self.cells.push(LocalEntry { id: self.next_id, cell: weak, owner: None, internal });
        self.next_id += 1;
        cell
    }

    /// The id the next cell gets, for [`claim`](Self::claim).
    pub(crate) fn mark(&self) -> u64 {
        self.next_id
    }

    /// Gives the cells made since `mark` to the system in `slot`, and puts the
    /// loaded values waiting for them in place.
    ///
    /// A system's parameters make their cells while it initializes, and no
    /// parameter initializes another system meanwhile (`init_state` only
    /// registers components and resources), so those cells are its own.
    pub(crate) fn claim(&mut self, mark: u64, slot: usize, system: &'static str) {
        let system_slot = u32::try_from(slot).expect("fewer than 2^32 systems");
        let first = self.cells.partition_point(|entry| entry.id < mark);
        for (place, entry) in self.cells[first..].iter_mut().enumerate() {
            let place = LocalPlace { system_slot, place: place as u32 };
            entry.owner = Some(LocalOwner { place, system });
            let Some(waiting) = self.waiting.iter().position(|loaded| loaded.place == place) else { continue };
            let loaded = self.waiting.swap_remove(waiting);
            if let (Some(cell), true) = (entry.cell.upgrade(), loaded.system == system) {
                // SAFETY: the cell was made by the initialization that is
                // claiming it: its system has not run, so nothing holds or
                // reads it. A value of another type is dropped.
                let _ = unsafe { cell.replace(loaded.value) };
            }
        }
    }

    /// The live cells of systems that have a slot, with their owners.
    pub(crate) fn owned(&self) -> impl Iterator<Item = (LocalOwner, Arc<dyn AnyLocal>, bool)> + '_ {
        self.cells.iter().filter_map(|entry| Some((entry.owner?, entry.cell.upgrade()?, entry.internal)))
    }

    /// Puts loaded values into the cells at their places, or keeps them for
    /// the systems initialized next. A value whose place holds another system
    /// (by name) or a cell of another type is dropped: that cell keeps its
    /// value.
    ///
    /// `&mut self` comes from `&mut World`: no system is running and no save
    /// is reading, so no cell is held or read. Returns the values replaced,
    /// for the caller to drop once the whole load is in place (a `Drop` that
    /// panics then stops nothing half-way).
    #[must_use = "the replaced values are dropped by the caller"]
    pub(crate) fn load(&mut self, values: Vec<LoadedLocal>) -> Vec<Box<dyn Any + Send>> {
        let mut replaced = Vec::new();
        // Values still waiting from an earlier load give way to this one's
        // (whose places are distinct: the parse refuses a place twice).
        if !self.waiting.is_empty() {
            let places: std::collections::HashSet<LocalPlace> = values.iter().map(|l| l.place).collect();
            let (gone, kept) = core::mem::take(&mut self.waiting).into_iter().partition(|w| places.contains(&w.place));
            self.waiting = kept;
            replaced.extend(gone.into_iter().map(|w: LoadedLocal| w.value as Box<dyn Any + Send>));
        }
        for loaded in values {
            let entry = self.cells.iter().find(|e| e.owner.is_some_and(|o| o.place == loaded.place));
            match entry.map(|entry| (entry.cell.upgrade(), entry.owner.is_some_and(|o| o.system == loaded.system))) {
                // SAFETY: the caller has the world mutably, and every reference
                // `hold` hands out lives for one run of a system borrowing the
                // world, as every `read` does for a save borrowing it: none is
                // alive.
                // A value of another type comes back: dropped with the rest.
                Some((Some(cell), true)) => replaced.push(match unsafe { cell.replace(loaded.value) } {
                    Ok(old) => old,
                    Err(value) => value,
                }),
                Some(_) => replaced.push(loaded.value),
                None => self.waiting.push(loaded),
            }
        }
        replaced
    }
}
