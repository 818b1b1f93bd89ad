//! Structural changes that must stop for hooks, observers or removal logs, and
//! the world's queue of deferred commands.
//!
//! Every structural operation first asks one flag of the component registry
//! (`lifecycle_active`); only when some component has a hook, a lifecycle
//! observer or a removal log does it come here, and here it goes back to the
//! plain path unless one of the components it touches has one. So components
//! without hooks pay one predictable branch.
//!
//! Hooks and observers run where the world is consistent: before the entity
//! loses or replaces a value (the value still readable), after it gained one.
//! They cannot change the world's structure directly; their commands wait in
//! `World::deferred` until the outermost operation is complete, and then run in
//! rounds (see [`flush_pending`](World::flush_pending)).

use super::World;
use super::held_ids::HeldIds;
use crate::bundle::{Bundle, BundleKey};
use crate::command::CommandQueue;
use crate::component::{ComponentId, HookContext, Lifecycle, REMOVED_LOG, REQUIRES};
use crate::entity::{Entity, EntityLocation};
use crate::error::EcsError;
use crate::hashers::IdMap;
use crate::observer::{MAX_OBSERVER_ROUNDS, TriggerContext};
use crate::panics::{DeferredPanic, defer_panic, resume_deferred};

/// Relationship links made while their target had no list yet, by (target component, target):
/// a hook cannot insert the list (a structural change), so it collects the
/// sources here and queues one command per target that inserts the list with
/// all of them. Unlinks before that command runs take sources back out, so the
/// command finds exactly the live links.
#[derive(Default)]
pub(crate) struct PendingLinks {
    pub(crate) by_target: IdMap<(ComponentId, Entity), Vec<Entity>>,
    /// The buffer of the largest target list removed once emptied, for the
    /// next list made: children moving one by one from one parent to another
    /// fill a buffer of the right size instead of growing a new one.
    pub(crate) spare: Vec<Entity>,
}

/// The world's deferred work: commands queued by hooks and observers, and how
/// deep the world is in operations that defer them.
#[derive(Default)]
pub(crate) struct Deferred {
    pub(crate) queue: CommandQueue,
    /// The components of the entity an observed despawn is taking apart,
    /// kept between despawns so that a despawn allocates no list.
    pub(crate) despawning: Vec<ComponentId>,
    /// The entity whose despawn hooks and observers are running, while they
    /// run: a relationship target's `on_discard` then leaves its sources to
    /// its `on_despawn` (see `relationship::upkeep`).
    pub(crate) despawn_target: Option<Entity>,
    /// Operations (triggers, structural changes with hooks) in progress.
    pub(crate) depth: u32,
    /// `queue` is being applied.
    pub(crate) flushing: bool,
    /// Components a requirement pass inserted, whose own requirements it has
    /// yet to look at (see [`World::insert_required`]).
    pub(crate) required_added: Vec<ComponentId>,
    /// A requirement pass is inserting a required component: the insert
    /// leaves that component's own requirements to the pass.
    pub(crate) holding_requirements: bool,
}

impl World {
    /// How many deferring operations are in progress.
    #[inline]
    pub(crate) fn defer_depth(&self) -> u32 {
        self.deferred.depth
    }

    /// `true` while commands must wait for the operation in progress.
    #[inline]
    pub(crate) fn is_deferring(&self) -> bool {
        self.deferred.depth > 0
    }

    /// Runs `f` as one deferring operation: commands queued meanwhile wait, and
    /// run when the outermost such operation returns. A panic in `f` leaves the
    /// depth as it was and is resumed (the queued commands run with the next
    /// operation).
    #[inline]
    pub(crate) fn with_deferred<R>(&mut self, f: impl FnOnce(&mut World) -> R) -> R {
        let value = self.deferring(f);
        if self.deferred.depth == 0 {
            self.flush_pending();
        }
        value
    }

    /// [`with_deferred`](Self::with_deferred) for an operation whose hooks and
    /// observers run in `f`, on `entity` (`None`: on no one entity, as for
    /// `clear`). Should one of them panic, the operation stops there, as documented in `crate::panics`, but
    /// before the panic goes on the world is made whole again: the relationship
    /// upkeep of `entity`'s components is redone (the panic may have skipped
    /// their hooks, or cancelled a removal after they unlinked it), and, when
    /// this is the outermost operation, the commands queued so far run (a later
    /// panic of theirs is dropped).
    #[inline]
    pub(crate) fn with_lifecycle<R>(&mut self, entity: Option<Entity>, f: impl FnOnce(&mut World) -> R) -> R {
        match std::panic::catch_unwind(core::panic::AssertUnwindSafe(|| self.deferring(f))) {
            Ok(value) => {
                if self.deferred.depth == 0 {
                    self.flush_pending();
                }
                value
            }
            Err(panic) => self.after_lifecycle_panic(entity, panic),
        }
    }

    /// The end of [`with_lifecycle`](Self::with_lifecycle) when a hook or an
    /// observer panicked.
    #[cold]
    #[inline(never)]
    fn after_lifecycle_panic(&mut self, entity: Option<Entity>, panic: Box<dyn core::any::Any + Send>) -> ! {
        if let Some(entity) = entity {
            self.deferring(|world| world.relink(entity));
        }
        if self.deferred.depth == 0 {
            drop(std::panic::catch_unwind(core::panic::AssertUnwindSafe(|| self.flush_pending())));
        }
        std::panic::resume_unwind(panic)
    }

    /// Redoes the relationship upkeep of every component `entity` holds (see
    /// [`Component::__RELINK`](crate::Component::__RELINK)).
    fn relink(&mut self, entity: Entity) {
        let Some(location) = self.entities.get(entity) else { return };
        let archetype = self.archetypes.get(location.archetype).expect("live archetype");
        let row = location.row.index();
        let relinks: Vec<fn(&mut World, Entity)> = archetype
            .components()
            .iter()
            .filter(|&&c| archetype.has_at(c, row))
            .filter_map(|&c| self.components.get(c).and_then(|info| info.relink()))
            .collect();
        for relink in relinks {
            relink(self, entity);
        }
    }

    /// [`with_deferred`](Self::with_deferred) without the flush at its end:
    /// the caller flushes when `f` did something (`flush_pending`).
    #[inline]
    fn deferring<R>(&mut self, f: impl FnOnce(&mut World) -> R) -> R {
        /// Leaves the operation, normally or by a panic.
        struct Depth<'w>(&'w mut World);
        impl Drop for Depth<'_> {
            fn drop(&mut self) {
                self.0.deferred.depth -= 1;
            }
        }
        self.deferred.depth += 1;
        let depth = Depth(self);
        let value = f(depth.0);
        drop(depth);
        value
    }

    /// Queues `f` to run once the operation in progress is complete, like a
    /// hook's command (for the crate's own hooks, which hold the world itself).
    pub(crate) fn defer(&mut self, f: impl FnOnce(&mut World) + Send + Sync + 'static) {
        self.deferred.queue.push_upkeep(f);
    }

    /// Applies the commands hooks and observers queued, in rounds: those queued
    /// while a round is applied form the next. A no-op while an operation is in
    /// progress or a flush is already running (the running one picks them up).
    ///
    /// # Panics
    /// After [`MAX_OBSERVER_ROUNDS`] rounds (the observers are triggering each
    /// other without end; the rest of the queue is dropped), or with the first
    /// panic of a command.
    #[inline]
    pub(crate) fn flush_pending(&mut self) {
        if self.deferred.flushing || self.deferred.depth > 0 || self.deferred.queue.is_empty() {
            return;
        }
        self.flush_rounds();
    }

    /// The body of [`flush_pending`](Self::flush_pending), off the path of the
    /// operations that queued nothing.
    #[inline(never)]
    fn flush_rounds(&mut self) {
        self.deferred.flushing = true;
        // A round whose command panicked does not end the flush: the commands
        // that round queued (a linked despawn one level further down) still
        // run, so the world is consistent when the first panic goes on.
        let mut first_panic = None;
        let result = std::panic::catch_unwind(core::panic::AssertUnwindSafe(|| {
            let mut rounds = 0;
            while !self.deferred.queue.is_empty() {
                rounds += 1;
                if rounds > MAX_OBSERVER_ROUNDS {
                    let event = crate::names::short_name(self.observers.last_event.map_or("", |name| name()));
                    self.abandon_pending();
                    panic!(
                        "observers kept triggering each other: {MAX_OBSERVER_ROUNDS} rounds of commands, the last \
                         event triggered was `{event}`; an observer of `{event}` probably triggers it again \
                         (directly or through other events). The cycle's remaining commands were dropped"
                    );
                }
                let mut round = core::mem::take(&mut self.deferred.queue);
                crate::panics::defer_panic(&mut first_panic, || round.apply(self));
            }
        }));
        self.deferred.flushing = false;
        if let Err(panic) = result {
            std::panic::resume_unwind(panic);
        }
        resume_deferred(first_panic);
    }

    /// Drops the commands of a runaway cycle. The crate's own upkeep among them
    /// still runs, in rounds, as do the upkeep commands that running it
    /// queues (its hooks and observers' commands are dropped in turn), so the
    /// world keeps its relationships consistent; handles reserved by dropped
    /// spawns are freed. Upkeep queues upkeep only a bounded number of times
    /// (a list made, then dropped when emptied); should it go on, the last
    /// round drops it too. A panic of theirs is dropped: the runaway panic
    /// goes on.
    #[cold]
    fn abandon_pending(&mut self) {
        let mut rounds = 0;
        while !self.deferred.queue.is_empty() {
            rounds += 1;
            let mut round = core::mem::take(&mut self.deferred.queue);
            drop(round.abandon(self, rounds <= MAX_OBSERVER_ROUNDS));
        }
        // Links waiting for a list whose command was dropped would otherwise
        // wait forever.
        self.pending_links = Default::default();
    }

    /// Runs the hooks and observers of one lifecycle event for each component,
    /// in bevy_ecs's order: for `Add` and `Insert` the hooks, then the observers;
    /// for the others the observers, then the hooks. Logs removals on `Remove`.
    /// Call it within [`with_deferred`](Self::with_deferred).
    pub(crate) fn run_lifecycle(&mut self, kind: Lifecycle, entity: Entity, components: &[ComponentId]) {
        let flag = kind.flag();
        if components.iter().all(|&c| self.components.lifecycle(c) & flag == 0) {
            if kind == Lifecycle::Remove {
                self.log_removals(entity, components);
            }
            return;
        }
        self.run_lifecycle_flagged(kind, entity, components);
    }

    /// Gives `entity`, which was just given `components`, each component they
    /// require and it lacks (`#[require(…)]`), before their hooks and
    /// observers run. Breadth first, as bevy_ecs: every requirement of
    /// `components` is met before the requirements of those it inserted, so
    /// a nearer requirement's value wins over a farther one's. Each required
    /// component is inserted as by `insert`, with its hooks and observers.
    pub(crate) fn insert_required(&mut self, entity: Entity, components: &[ComponentId]) {
        if self.deferred.holding_requirements {
            // A required component being inserted by the pass in progress,
            // which looks at its requirements in their turn.
            return;
        }
        /// Ends the pass, by a panic too: later inserts meet their own
        /// requirements again.
        struct Pass<'w>(&'w mut World);
        impl Drop for Pass<'_> {
            fn drop(&mut self) {
                self.0.deferred.holding_requirements = false;
                self.0.deferred.required_added.clear();
            }
        }
        let pass = Pass(self);
        let mut queue: std::collections::VecDeque<ComponentId> = components.iter().copied().collect();
        while let Some(component) = queue.pop_front() {
            let Some(insert) = pass.0.components.get(component).and_then(|info| info.required()) else { continue };
            pass.0.deferred.holding_requirements = true;
            insert(pass.0, entity);
            pass.0.deferred.holding_requirements = false;
            queue.extend(pass.0.deferred.required_added.drain(..));
        }
    }

    /// The lifecycle flags of any of `components`.
    fn lifecycle_flags(&self, components: &[ComponentId]) -> u8 {
        components.iter().fold(0, |flags, &c| flags | self.components.lifecycle(c))
    }

    /// [`run_lifecycle`](Self::run_lifecycle) when `flags` are known: those
    /// of any of `components` or of a set holding them (as
    /// [`lifecycle_flags`](Self::lifecycle_flags) gives; hooks and observers
    /// do not change them synchronously, they add observers and hooks through
    /// commands, see `SystemParam::apply`): no second look at each
    /// component's. A flag a component of the larger set brings costs only a
    /// lookup that finds nothing.
    fn run_lifecycle_with(&mut self, kind: Lifecycle, entity: Entity, components: &[ComponentId], flags: u8) {
        if flags & kind.flag() != 0 {
            self.run_lifecycle_flagged(kind, entity, components);
        } else if kind == Lifecycle::Remove && flags & REMOVED_LOG != 0 {
            self.log_removals(entity, components);
        }
    }

    /// [`run_lifecycle`](Self::run_lifecycle) once some component has `kind`'s flag.
    fn run_lifecycle_flagged(&mut self, kind: Lifecycle, entity: Entity, components: &[ComponentId]) {
        let hooks_first = matches!(kind, Lifecycle::Add | Lifecycle::Insert);
        if hooks_first {
            self.run_hooks(kind, entity, components);
            self.run_lifecycle_observers(kind, entity, components);
        } else {
            self.run_lifecycle_observers(kind, entity, components);
            self.run_hooks(kind, entity, components);
        }
        if kind == Lifecycle::Remove {
            self.log_removals(entity, components);
        }
    }

    fn run_hooks(&mut self, kind: Lifecycle, entity: Entity, components: &[ComponentId]) {
        for &component_id in components {
            if let Some(hook) = self.components.get(component_id).and_then(|info| info.hooks().get(kind)) {
                hook(super::DeferredWorld::new(self), HookContext { entity, component_id });
            }
        }
    }

    fn run_lifecycle_observers(&mut self, kind: Lifecycle, entity: Entity, components: &[ComponentId]) {
        // The flags that brought us here may be hooks' alone (the hierarchy's):
        // then no component needs its observer lists looked up.
        if !self.observers.watches_lifecycle(kind) {
            return;
        }
        for &component in components {
            let ctx = TriggerContext::lifecycle(kind, entity, component);
            self.run_observers(&ctx);
        }
    }

    fn log_removals(&mut self, entity: Entity, components: &[ComponentId]) {
        for &component in components {
            if self.components.lifecycle(component) & REMOVED_LOG != 0 {
                self.removed.log(component, entity);
            }
        }
    }

    /// [`spawn`](World::spawn) when some component has a lifecycle flag.
    #[cold]
    #[inline(never)]
    #[track_caller]
    pub(super) fn spawn_observed<B: Bundle>(&mut self, bundle: B) -> Entity {
        if B::__LINKS {
            // As bevy_ecs does: the entity is spawned, the link to a dead target
            // is dropped (the relationship's `on_insert` hook removes it) and
            // the error goes to the world's error handler. `try_spawn` returns it.
            if let Err(error) = bundle.__check_links(self, None) {
                self.report_error(&error, "spawned without the relationship");
            }
        }
        let entity = self.spawn_unobserved(bundle);
        self.after_spawn::<B>(entity);
        entity
    }

    /// Runs `Add` and `Insert` for a freshly spawned entity of bundle `B`.
    pub(super) fn after_spawn<B: Bundle>(&mut self, entity: Entity) {
        let bundle = self.bundle_id::<B>();
        self.after_spawn_of(entity, bundle);
    }

    /// [`after_spawn`](Self::after_spawn) past the bundle's id: compiled
    /// once, not once per bundle type.
    #[inline(never)]
    fn after_spawn_of(&mut self, entity: Entity, bundle: crate::bundle::BundleId) {
        let flags = self.lifecycle_flags(&self.bundles.get(bundle).components);
        if flags == 0 {
            return;
        }
        let components = HeldIds::new(&self.bundles.get(bundle).components);
        self.with_lifecycle(Some(entity), |world| {
            if flags & REQUIRES != 0 {
                world.insert_required(entity, &components);
            }
            world.run_lifecycle_with(Lifecycle::Add, entity, &components, flags);
            world.run_lifecycle_with(Lifecycle::Insert, entity, &components, flags);
        });
    }

    /// [`insert`](World::insert) when some component has a lifecycle flag.
    #[cold]
    #[inline(never)]
    pub(super) fn insert_observed<B: Bundle>(&mut self, entity: Entity, bundle: B) -> Result<(), EcsError> {
        let location = self.entities.get(entity).ok_or(EcsError::NoSuchEntity(entity))?;
        if B::__LINKS {
            bundle.__check_links(self, Some(entity))?;
        }
        // A lone relationship the entity holds (a reparent), with no lifecycle
        // observer anywhere: its hooks are the derive's, and its replace does
        // their work with the old and new targets in hand.
        let mut bundle = bundle;
        if B::__LINKS && matches!(B::__key(), BundleKey::Component(_)) && !self.observers.watches_replace() {
            // (A panicking drop of the old value comes after both lists agree;
            // the commands queued by then still run before it goes on.)
            match self.with_lifecycle(Some(entity), |world| bundle.__replace_link(world, entity)) {
                Ok(()) => return Ok(()),
                // Handed back when the entity holds none (or by a hand-written
                // relationship), with nothing changed and nothing queued (so
                // nothing flushed): the location and the links checked above
                // still hold.
                Err(back) => bundle = back,
            }
        }
        self.insert_hooked(entity, location, bundle)
    }

    /// [`insert_observed`] past the relationship's own replace: `entity` is
    /// live at `location` and the bundle's links are checked.
    fn insert_hooked<B: Bundle>(
        &mut self,
        entity: Entity,
        location: EntityLocation,
        bundle: B,
    ) -> Result<(), EcsError> {
        // One table component the entity holds, with hooks but no lifecycle
        // observer anywhere: its discard hook, the value replaced in its slot,
        // its insert hook; nothing else of the general path below applies.
        // (Held, so registered here: its flags are its own.)
        if let (BundleKey::Component(component), false) = (B::__key(), B::__SPARSE)
            && !self.observers.watches_replace()
            && self.components.lifecycle(component) != 0
            && self.archetypes.get(location.archetype).and_then(|a| a.column_index(component)).is_some()
        {
            // No observer to run (checked) and no removal to log (an insert):
            // the lifecycle passes come down to the hooks.
            self.with_lifecycle(Some(entity), |world| {
                world.run_hooks(Lifecycle::Discard, entity, &[component]);
                // A panicking drop of the old value: the insert hooks still run
                // (the new value is in place), then the first panic goes on.
                let mut dropped = world.replace_held(entity, component, bundle);
                defer_panic(&mut dropped, || {
                    if world.components.lifecycle(component) & REQUIRES != 0 {
                        world.insert_required(entity, &[component]);
                    }
                    world.run_hooks(Lifecycle::Insert, entity, &[component]);
                });
                resume_deferred(dropped);
            });
            return Ok(());
        }
        let bundle_id = self.bundle_id::<B>();
        let flags = self.lifecycle_flags(&self.bundles.get(bundle_id).components);
        if flags == 0 {
            return self.insert_unobserved(entity, bundle);
        }
        let components = HeldIds::new(&self.bundles.get(bundle_id).components);
        let archetype = self.archetypes.get(location.archetype).expect("live archetype");
        let row = location.row.index();
        let split = components.partition(|c| archetype.has_at(c, row));
        self.with_lifecycle(Some(entity), |world| {
            world.run_lifecycle_with(Lifecycle::Discard, entity, split.held(), flags);
            // Hooks cannot despawn or move the entity, so it is where it was. A
            // replaced value whose drop panics leaves the new values in place:
            // the insert hooks and observers still run, then the first panic
            // goes on.
            let mut dropped =
                world.insert_deferring(entity, bundle).expect("hooks and observers keep the entity alive");
            defer_panic(&mut dropped, || {
                if flags & REQUIRES != 0 {
                    // Held ones too, as bevy_ecs: a requirement removed since
                    // comes back with its requirer.
                    world.insert_required(entity, &components);
                }
                world.run_lifecycle_with(Lifecycle::Add, entity, split.rest(), flags);
                world.run_lifecycle_with(Lifecycle::Insert, entity, &components, flags);
            });
            resume_deferred(dropped);
        });
        Ok(())
    }

    /// Replaces the value of `component`, a table component `entity` holds,
    /// with `bundle` (that one component), in its slot; returns the panic of
    /// the old value's drop, for the caller to resume once its hooks have run.
    #[must_use]
    fn replace_held<B: Bundle>(&mut self, entity: Entity, component: ComponentId, bundle: B) -> DeferredPanic {
        // Hooks cannot despawn or move the entity, nor take a table
        // component's column away, so both are where they were.
        let location = self.entities.get(entity).expect("hooks keep the entity alive");
        let tick = self.change_tick();
        let archetype = self.archetypes.get_mut(location.archetype);
        let index = archetype.column_index(component).expect("hooks keep the entity's columns");
        let column = &mut archetype.columns[index];
        let row = location.row.index();
        let mut panic = None;
        if column.is_split() {
            // SAFETY: the column is `component`'s, a table column (the caller
            // found it, `B` is not sparse), so it stores `B`'s only component,
            // the value `take` hands over; `row` is the live entity's row.
            bundle.take(&mut |value| unsafe { column.replace(row, value, tick, &mut panic) });
        } else {
            // SAFETY: as above, and the column is whole: the slot returned is
            // written at once by `write`, with `B`'s only component, the
            // column's type (one slot asked for, as `B` is one component).
            unsafe {
                let slot = column.overwrite_slot(row, tick, &mut panic);
                bundle.write(&mut || slot);
            }
        }
        panic
    }

    /// [`remove`](World::remove) when some component has a lifecycle flag.
    #[cold]
    #[inline(never)]
    pub(super) fn remove_observed<B: Bundle>(&mut self, entity: Entity) -> Result<B, EcsError> {
        let location = self.entities.get(entity).ok_or(EcsError::NoSuchEntity(entity))?;
        let bundle_id = self.bundle_id::<B>();
        let flags = self.lifecycle_flags(&self.bundles.get(bundle_id).components);
        if flags == 0 {
            return self.remove_unobserved(entity);
        }
        let components = HeldIds::new(&self.bundles.get(bundle_id).components);
        let archetype = self.archetypes.get(location.archetype).expect("live archetype");
        let row = location.row.index();
        if let Some(&missing) = components.iter().find(|&&c| !archetype.has_at(c, row)) {
            return Err(EcsError::MissingComponent { entity, component: self.components.name(missing) });
        }
        self.with_lifecycle(Some(entity), |world| {
            world.run_lifecycle_with(Lifecycle::Discard, entity, &components, flags);
            world.run_lifecycle_with(Lifecycle::Remove, entity, &components, flags);
            world.remove_unobserved(entity)
        })
    }

    /// [`despawn`](World::despawn) when some component has a lifecycle flag.
    #[cold]
    #[inline(never)]
    pub(super) fn despawn_observed(&mut self, entity: Entity) -> Result<(), EcsError> {
        let location = self.entities.get(entity).ok_or(EcsError::NoSuchEntity(entity))?;
        // Asked of the archetype's columns first, so that an unobserved despawn
        // allocates nothing.
        let archetype = self.archetypes.get(location.archetype).expect("live archetype");
        // Once for the three lifecycle events below (see `run_lifecycle_with`).
        let flags = self.lifecycle_flags(archetype.components());
        if flags == 0 {
            return self.despawn_unobserved(entity);
        }
        // The components the entity holds (table ones, and present sparse ones).
        let row = location.row.index();
        let mut components = core::mem::take(&mut self.deferred.despawning);
        components.clear();
        components.extend(archetype.components().iter().copied().filter(|&c| archetype.has_at(c, row)));
        /// Marks the despawn under way while its hooks run, and clears the
        /// mark when they end, by a panic too.
        struct Marked<'w>(&'w mut World);
        impl Drop for Marked<'_> {
            fn drop(&mut self) {
                self.0.deferred.despawn_target = None;
            }
        }
        self.with_lifecycle(Some(entity), |world| {
            let marked = Marked(world);
            marked.0.deferred.despawn_target = Some(entity);
            marked.0.run_lifecycle_with(Lifecycle::Despawn, entity, &components, flags);
            marked.0.run_lifecycle_with(Lifecycle::Discard, entity, &components, flags);
            marked.0.run_lifecycle_with(Lifecycle::Remove, entity, &components, flags);
            drop(marked);
            // Handed back before the commands the hooks queued run (they
            // despawn descendants, each wanting the list).
            world.deferred.despawning = components;
            world.despawn_unobserved(entity)
        })
    }

    /// [`clear`](World::clear) when some component has a lifecycle flag: each
    /// entity is despawned as by `despawn`, hooks and observers included.
    #[cold]
    #[inline(never)]
    pub(super) fn clear_observed(&mut self) {
        let entities: Vec<Entity> = self.archetypes.iter().flat_map(|a| a.entities().iter().copied()).collect();
        self.with_lifecycle(None, |world| {
            for entity in entities {
                // Every entity listed is alive: hooks cannot despawn.
                let _ = world.despawn(entity);
            }
        });
    }
}
