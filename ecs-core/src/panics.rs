//! # What happens when user code panics
//!
//! The crate runs user code in many places: a component's `Drop`, the iterator
//! handed to [`spawn_batch`](crate::World::spawn_batch) (and the `Clone` calls it
//! makes), query closures, systems, commands and the command error handler. A panic
//! in any of them never causes undefined behaviour and never leaves the world
//! inconsistent: every entity's record points at a row holding that entity, every
//! column of an archetype has the same length, and every value is dropped exactly
//! once. The panic always reaches the caller; the crate never swallows one. What
//! has happened by then is stated below, case by case, each pinned by a test in
//! `tests/panics.rs` (and `tests/drop.rs`, `tests/commands.rs` where named).
//!
//! ## A component's `Drop`
//! - `despawn`, `clear`, dropping the world and replacing a value on `insert`
//!   finish their work first: the entity is gone
//!   (or the new value is in place), every *other* value is still dropped exactly
//!   once, and then the first panic is resumed. Later panics of the same operation
//!   are dropped (a second panic while unwinding would abort).
//! - `remove::<B>()` runs no `Drop`: it hands the values back.
//!
//! ## The iterator given to `spawn_batch` (and its `Clone`s)
//! - Entities spawned from the items yielded before the panic are complete and
//!   alive; nothing is spawned from the panicking item or after it, and the rest of
//!   the iterator is not polled again while unwinding.
//!
//! ## A query closure (`for` loop body, `for_each`, `for_each_chunk`, `par_for_each`)
//! - The writes made before the panic stay. Rows handed out through `&mut T` are
//!   marked changed when handed out, so [`Changed`](crate::Changed) never misses a
//!   write; with `for_each` a whole archetype is marked when its first row is handed
//!   out, so rows after the panic may be reported changed too (over-reporting,
//!   never under-reporting).
//! - The [`QueryState`](crate::QueryState) stays usable. With `par_for_each` the
//!   panic reaches the caller once the pool's other tasks are done with the world.
//!
//! ## A system
//! - [`Schedule::run`](crate::system::Schedule::run) starts no further system
//!   (those already running on the pool finish), applies the commands every
//!   system recorded so far (the panicking one's included) to the world they
//!   were recorded for, in the order the systems were added, releases the entity
//!   handles reserved and never spawned, and resumes the panic. No command is
//!   kept for a later run, which might be on another world. The schedule can be
//!   run again (`tests/panics.rs`).
//!
//! ## A command (or the command error handler)
//! - The commands after it in the queue still run, so every handle
//!   [`Commands::spawn`](crate::command::Commands::spawn) gave out becomes a live
//!   entity; in a schedule, the queues of the other systems are applied too and
//!   unspawned reservations released. Then the first panic is resumed
//!   (`tests/commands.rs`).
//!
//! ## A hook or an observer
//! - The operation it belongs to stops there: a panic in an `on_despawn`,
//!   `on_discard` or `on_remove` hook (or a `Despawn`, `Discard` or `Remove`
//!   observer) leaves the entity alive with all its components (the hooks before
//!   it have run); one in `on_add` or `on_insert` (or their observers) comes after
//!   the values are stored, which stay (`tests/hooks.rs`).
//! - A required component's value (`#[require(A = expr)]`) is made while the
//!   operation runs, before the requiring component's hooks: a panic there
//!   stops the operation as a hook's does, the values stored so far staying
//!   (`tests/required.rs`).
//! - Relationships stay in step whatever the panic skipped: a child spawned or
//!   inserted with its `ChildOf` is listed in its parent's `Children` even when a
//!   hook or observer panicked before the link was made, and a child whose
//!   despawn or removal a panic stopped is listed again after its own link was
//!   taken off (`tests/hierarchy.rs`).
//! - In a structural change, the commands the hooks and observers queued before
//!   the panic run before the panic reaches the caller (a panic of theirs is
//!   dropped, the first goes on); one that would despawn the panicking entity's
//!   children does nothing, as the entity is alive. After a panicking observer
//!   of a `trigger`, they run with the world's next operation (the trigger's
//!   path stays free of a `catch_unwind`).
//! - A panic in a command the world runs after an operation (a hook's or an
//!   observer's) does not stop the others, nor the commands they queue in turn:
//!   the world is consistent when the first panic reaches the caller.
//! - A linked despawn (a parent taking its children along) therefore goes on with
//!   the other children at every depth: the one whose hook panicked stays, with its
//!   own subtree, unlinked from its dead parent; every other descendant is
//!   despawned, then the first panic is resumed (`tests/hierarchy.rs`).
//!
//! ## Traits the crate trusts
//! Panics aside, some trait implementations are trusted for memory safety, so
//! implementing them takes `unsafe impl` and a promise documented under the trait's
//! `# Safety`: [`Bundle`](crate::Bundle), [`QueryData`](crate::query::QueryData),
//! [`ReadOnlyQueryData`](crate::query::ReadOnlyQueryData),
//! [`QueryFilter`](crate::query::QueryFilter),
//! [`SystemParam`](crate::system::SystemParam) and
//! [`System`](crate::system::System). The derives write these impls for you
//! (and compile under `#![forbid(unsafe_code)]`). The safe public traits are safe
//! because nothing they return can break memory safety:
//! [`Component`](crate::Component) (its id cache is typed by the component, so an
//! impl cannot borrow another type's id), [`IntoSystem`](crate::system::IntoSystem),
//! `SystemParamFunction` and [`IntoSystemConfig`](crate::system::IntoSystemConfig)
//! (they only produce systems and parameters, which are trusted through the unsafe
//! traits above), and the standard traits the crate calls on user types (`Drop`,
//! `Iterator::size_hint`, which [`spawn_batch`](crate::World::spawn_batch) trusts
//! only for a bounded up-front reservation).

use std::any::Any;

/// The first panic caught while running user code (a `Drop`) in the middle of a
/// structural change; the change finishes first, then the panic is resumed.
pub(crate) type DeferredPanic = Option<Box<dyn Any + Send + 'static>>;

/// Runs `f`, catching a panic into `deferred` (keeping only the first one).
#[inline]
pub(crate) fn defer_panic(deferred: &mut DeferredPanic, f: impl FnOnce()) {
    if let Err(payload) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        deferred.get_or_insert(payload);
    }
}

/// Calls `f` on every item of `items`, in order, each even if an earlier call
/// panicked, and returns the first panic for the caller to resume once it has
/// finished its own bookkeeping. The loop runs inside one `catch_unwind` and is
/// entered again after a panic at the next item, so the path without a panic pays
/// for one catch, not one per item (a schedule applies every system's deferred work
/// each run).
pub(crate) fn catch_each<I: Iterator>(mut items: I, mut f: impl FnMut(I::Item)) -> DeferredPanic {
    let mut panic = None;
    let mut done = false;
    while !done {
        defer_panic(&mut panic, || {
            for item in &mut items {
                f(item);
            }
            done = true;
        });
    }
    panic
}

/// Calls `step(0)` … `step(count - 1)` as [`catch_each`] does, then resumes the
/// first panic. A single step needs no catch: nothing after it is left to run.
#[inline]
pub(crate) fn run_in_order(count: usize, step: impl FnMut(usize)) {
    if count <= 1 {
        (0..count).for_each(step);
    } else {
        resume_deferred(catch_each(0..count, step));
    }
}

/// Re-raises a panic deferred by [`defer_panic`], once the world is consistent again.
#[inline]
pub(crate) fn resume_deferred(deferred: DeferredPanic) {
    if let Some(payload) = deferred {
        std::panic::resume_unwind(payload);
    }
}
