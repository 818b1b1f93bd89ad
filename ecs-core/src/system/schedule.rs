//! [`Schedule`]: runs systems in insertion order unless told otherwise, side by
//! side where their access allows.
//!
//! The plan is made once, when the schedule changes, not per run:
//! ```text
//!  systems (insertion order)   a    b    c    |sync|    d
//!  edges   a -> c (c writes what a reads), b -> c (explicit `after`)
//!  batches [a, b] [c] | apply commands | [d]
//! ```
//! A batch holds systems with no path between them, so they never conflict. The
//! executor runs a batch's systems either one after the other on the calling
//! thread or side by side on the [worker pool](crate::parallel), whichever it
//! measured to be faster for that batch on this machine: for small systems a
//! hand-off to another thread costs more than the work, and what counts as small
//! depends on the machine. [`crate::parallel`] describes how it measures and how
//! often it checks again.

use std::sync::{Mutex, PoisonError};

use super::condition::ConditionSystem;
use super::config::{IntoScheduleConfigs, ScheduleConfigs, SystemConfig};
use super::plan::Step;
use super::set::{InternedSet, Label, SetConfig};
use super::set_group::{IntoSetConfigs, SetConfigs};
use super::{System, SystemAccess};
use crate::panics::{DeferredPanic, catch_each, resume_deferred};
use crate::parallel::{Adaptive, Mode, annotate, for_each_index};
use crate::storage::Tick;
use crate::world::{World, WorldId};

/// A system as a run needs it. What only planning reads is kept apart, in
/// [`EntryPlan`]s, and adding a system allocates nothing besides the system:
/// a run touches every entry and system, and with many tiny systems keeping
/// them small and close together is measurably faster.
pub(super) struct Entry {
    pub(super) system: Box<dyn System>,
    pub(super) conditions: Vec<Box<dyn ConditionSystem>>,
}

/// A system's constraints and sets, as planning needs them.
pub(super) struct EntryPlan {
    /// The system's own number (see `SystemConfig::instance`).
    pub(super) instance: u64,
    pub(super) before: Vec<Label>,
    pub(super) after: Vec<Label>,
    pub(super) sets: Vec<InternedSet>,
}

impl Entry {
    fn new(config: SystemConfig) -> (Self, EntryPlan) {
        let SystemConfig { system, instance, before, after, sets, conditions } = config;
        (Self { system, conditions }, EntryPlan { instance, before, after, sets })
    }

    /// The system's access and its conditions': what planning compares.
    pub(super) fn access(&self) -> SystemAccess {
        let mut access = self.system.access().clone();
        for condition in &self.conditions {
            access.extend(condition.access());
        }
        access
    }

    fn initialize(&mut self, world: &mut World) {
        self.system.initialize(world);
        for condition in &mut self.conditions {
            condition.initialize(world);
        }
    }

    /// Evaluates every condition (all of them, so that each sees every run);
    /// `true` when all hold.
    ///
    /// # Safety
    /// The conditions are initialized for `world`, and nothing writes what the
    /// entry's access reads meanwhile.
    #[inline]
    unsafe fn conditions_hold(&mut self, world: &World) -> bool {
        let mut all = true;
        for condition in &mut self.conditions {
            // SAFETY: forwarded; each condition's access is part of the entry's.
            all &= unsafe { condition.evaluate(world) };
        }
        all
    }
}

/// Whether the run conditions of every set of entry `index` hold, each
/// evaluated once per run (by the first of its systems to get here; systems of
/// one batch may get here side by side, hence the lock).
///
/// # Safety
/// The conditions are initialized for `world`, and nothing writes what they
/// read meanwhile (their access is part of each member system's).
#[inline]
unsafe fn set_conditions_hold(sets: &[SetConfig], of: &[Vec<(usize, usize)>], index: usize, world: &World) -> bool {
    let Some(list) = of.get(index) else { return true };
    let mut all = true;
    for &(set, condition) in list {
        let mut state = annotate::lock(&sets[set].conditions[condition]);
        let holds = match state.result {
            Some(holds) => holds,
            None => {
                // Decided before the call: a condition that panics is not
                // evaluated again this run by the set's other systems.
                state.result = Some(false);
                // SAFETY: the caller's.
                let holds = unsafe { state.condition.evaluate(world) };
                state.result = Some(holds);
                holds
            }
        };
        all &= holds;
    }
    all
}

/// Applies the command queues of `entries[indices]`, in that order (a panicking
/// command stops no queue), then releases the entity handles reserved and never
/// spawned; returns the first panic.
fn apply_queues(entries: &mut [Entry], mut indices: impl Iterator<Item = usize>, world: &mut World) -> DeferredPanic {
    // No catch to set up where no system defers anything.
    let panic = match indices.next() {
        None => None,
        Some(first) => catch_each(core::iter::once(first).chain(indices), |index| entries[index].system.apply(world)),
    };
    world.release_reserved();
    panic
}

/// The entries of a batch, in plan order: `batch` is ascending, so one merge pass
/// finds them.
fn batch_entries<'e>(entries: &'e mut [Entry], batch: &'e [usize]) -> impl Iterator<Item = &'e mut Entry> + 'e {
    let mut wanted = batch.iter().peekable();
    entries.iter_mut().enumerate().filter_map(move |(index, entry)| {
        (wanted.peek() == Some(&&index)).then(|| {
            wanted.next();
            entry
        })
    })
}

/// Runs systems on a world.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
///
/// #[derive(Component)] struct Position(f32);
/// #[derive(Component)] struct Velocity(f32);
/// #[derive(Component)] struct Health(i32);
/// struct DeltaTime(f32);
///
/// fn movement(mut q: Query<(&mut Position, &Velocity)>, dt: Res<DeltaTime>) {
///     for (p, v) in q.iter_mut() { p.0 += v.0 * dt.0; }
/// }
/// fn reaper(q: Query<(Entity, &Health)>, mut commands: Commands) {
///     for (e, h) in q.iter() { if h.0 <= 0 { commands.despawn(e); } }
/// }
///
/// let mut world = World::new();
/// world.insert_resource(DeltaTime(0.5));
/// world.spawn((Position(0.0), Velocity(2.0), Health(1)));
/// let dead = world.spawn((Position(0.0), Health(0)));
/// let mut schedule = Schedule::new();
/// schedule.add_systems(movement).add_systems(reaper.after(movement));
/// schedule.run(&mut world);
/// assert!(!world.contains(dead));
/// ```
pub struct Schedule {
    pub(super) entries: Vec<Entry>,
    /// The entries' constraints and sets, index for index.
    pub(super) plans: Vec<EntryPlan>,
    /// Configured sets, in the order `configure_sets` was called.
    pub(super) sets: Vec<SetConfig>,
    /// `None` where a sync point was added.
    pub(super) order: Vec<Option<usize>>,
    pub(super) plan: Option<Vec<Step>>,
    pub(super) multi_threaded: bool,
    /// The world every entry was last initialized for, until systems are added:
    /// a run then skips initializing (a call per system and condition).
    pub(super) initialized_for: Option<WorldId>,
    /// Each run starts with `World::update_messages`.
    pub(super) updates_messages: bool,
    /// For each entry, the run conditions of its sets, as (index in `sets`,
    /// index in its `conditions`); empty when no set has a condition, so that
    /// a run without any looks at none.
    pub(super) set_conditions_of: Vec<Vec<(usize, usize)>>,
}

impl Default for Schedule {
    fn default() -> Self {
        Self::new()
    }
}

impl Schedule {
    /// An empty, multi-threaded schedule.
    pub fn new() -> Self {
        Self {
            entries: Vec::new(),
            plans: Vec::new(),
            sets: Vec::new(),
            order: Vec::new(),
            plan: None,
            multi_threaded: true,
            initialized_for: None,
            updates_messages: true,
            set_conditions_of: Vec::new(),
        }
    }

    /// Whether each run starts by updating the world's event buffers
    /// ([`World::update_messages`]): on by default, so that with one schedule run
    /// per frame, a [`MessageReader`](crate::message::MessageReader) sees every message
    /// once, whether it runs before or after the writer. Turn it off for a second
    /// schedule run in the same frame (a fixed-step loop), or events would last
    /// one frame less.
    pub fn set_updates_messages(&mut self, updates_messages: bool) -> &mut Self {
        self.updates_messages = updates_messages;
        self
    }

    /// Runs every system on the calling thread, in plan order. Results are the same
    /// as multi-threaded runs. Multi-threaded schedules already run a batch inline
    /// when they measure that to be faster (see [`crate::parallel`]); this makes it
    /// unconditional and skips the measuring.
    pub fn set_multi_threaded(&mut self, multi_threaded: bool) -> &mut Self {
        self.multi_threaded = multi_threaded;
        self
    }

    fn push(&mut self, config: SystemConfig) {
        let (entry, plan) = Entry::new(config);
        self.entries.push(entry);
        self.plans.push(plan);
    }

    /// Orders a [`SystemSet`](super::SystemSet) (`Physics.before(Render)`) or puts it in another
    /// (`Physics.in_set(Gameplay)`). Constraints between sets apply to every pair of
    /// their systems, with the same checks as between two systems: a cycle, or an
    /// order a sync point reverses, is refused naming the systems. A set may be
    /// configured before or after its systems are added, and several times; a set
    /// with no systems orders nothing. Several sets at once: a tuple, ordered or
    /// configured as one through [`SetGroup`](super::SetGroup)
    /// (`configure_sets((Input, Physics, Render).chain())`).
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(SystemSet, Debug, PartialEq, Eq)] struct Input;
    /// #[derive(SystemSet, Debug, PartialEq, Eq)] struct Physics;
    /// #[derive(Default)] struct Log(String);
    /// fn read_keys(mut log: ResMut<Log>) { log.0 += "keys "; }
    /// fn integrate(mut log: ResMut<Log>) { log.0 += "integrate "; }
    /// let mut world = World::new();
    /// world.insert_resource(Log::default());
    /// let mut schedule = Schedule::new();
    /// schedule
    ///     .add_systems(integrate.in_set(Physics))
    ///     .add_systems(read_keys.in_set(Input))
    ///     .configure_sets(Input.before(Physics));
    /// schedule.run(&mut world);
    /// assert_eq!(world.resource::<Log>().0, "keys integrate ");
    /// ```
    pub fn configure_sets(&mut self, sets: impl IntoSetConfigs) -> &mut Self {
        let SetConfigs { configs, anonymous, .. } = sets.into_set_configs();
        self.sets.extend(configs);
        self.sets.extend(anonymous);
        self.plan = None;
        self
    }

    /// Adds one system (`schedule.add_systems(movement)`) or several:
    /// `schedule.add_systems((a, b, c))`, or `schedule.add_systems((a, b,
    /// c).chain())` to run them in that order. Systems whose access conflicts
    /// run in the order they were added.
    ///
    /// # Panics
    /// When two parameters of a system conflict; the message names the system,
    /// both parameters and the component or resource.
    #[track_caller]
    pub fn add_systems<M>(&mut self, systems: impl IntoScheduleConfigs<M>) -> &mut Self {
        let ScheduleConfigs { configs, sets, .. } = systems.into_configs();
        for config in configs {
            self.order.push(Some(self.entries.len()));
            self.push(config);
        }
        self.sets.extend(sets);
        self.plan = None;
        self
    }

    /// Adds a sync point: commands of the systems added so far are applied here, and
    /// systems added later see their effects.
    pub fn add_sync_point(&mut self) -> &mut Self {
        self.order.push(None);
        self.plan = None;
        self
    }

    /// The number of systems.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// `true` when the schedule has no system.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Plans the schedule and prepares its systems for `world`, which
    /// [`run`](Self::run) otherwise does on its first run (and after systems are
    /// added). Call it after adding the systems to have ordering mistakes
    /// reported here rather than at the first run.
    ///
    /// # Panics
    /// When the ordering constraints name a system that is not in the schedule
    /// (the message names it and how to add it), form a cycle (it lists the
    /// systems on it), or ask for an order that a sync point reverses.
    ///
    /// # Example
    /// ```should_panic
    /// # use ecs_core::prelude::*;
    /// fn spawn_enemies() {}
    /// fn aim() {}
    /// let mut world = World::new();
    /// let mut schedule = Schedule::new();
    /// schedule.add_systems(aim.after(spawn_enemies)); // `spawn_enemies` never added
    /// schedule.initialize(&mut world); // panics: ... after system `…spawn_enemies`, which is not in the schedule
    /// ```
    #[track_caller]
    #[inline]
    pub fn initialize(&mut self, world: &mut World) {
        // Every run calls this: the common case, nothing to do, without a call.
        if self.plan.is_some() && self.initialized_for == Some(world.id()) {
            return;
        }
        self.initialize_slow(world);
    }

    #[track_caller]
    #[cold]
    #[inline(never)]
    fn initialize_slow(&mut self, world: &mut World) {
        if self.plan.is_none() {
            self.set_conditions_of = self.set_condition_members();
            self.plan = Some(self.make_plan(&self.set_conditions_of));
            // Systems were added: each is initialized below.
            self.initialized_for = None;
        }
        if self.initialized_for != Some(world.id()) {
            for entry in &mut self.entries {
                entry.initialize(world);
            }
            for config in &mut self.sets {
                for condition in &mut config.conditions {
                    condition.get_mut().unwrap_or_else(PoisonError::into_inner).condition.initialize(world);
                }
            }
            self.initialized_for = Some(world.id());
        }
    }

    /// Runs every system once, then applies all commands. The run starts by
    /// updating the world's event buffers (see
    /// [`set_updates_messages`](Self::set_updates_messages)).
    ///
    /// # Panics
    /// When a system or a command panics (the panic propagates once the commands
    /// recorded so far are applied to `world`; the world stays consistent; see
    /// [`panics`](crate::panics) for what has run by then), or when
    /// the ordering constraints name an unknown system, form a cycle (the message
    /// lists the systems on it), or ask for an order that a sync point between the
    /// two systems reverses (the message names both). An explicit `before`/`after`
    /// always wins over the default of running conflicting systems in insertion
    /// order.
    #[track_caller]
    pub fn run(&mut self, world: &mut World) {
        world.check_change_ticks_if_due();
        if self.updates_messages {
            world.update_messages();
        }
        self.initialize(world);
        if !self.set_conditions_of.is_empty() {
            // Each set's conditions are evaluated afresh in every run.
            for config in &mut self.sets {
                for condition in &mut config.conditions {
                    condition.get_mut().unwrap_or_else(PoisonError::into_inner).result = None;
                }
            }
        }
        let mut plan = self.plan.take().expect("made above");
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            for step in &mut plan {
                match step {
                    Step::Batch(batch, adaptive) => self.run_batch(batch, adaptive, world),
                    Step::Exclusive(index) => {
                        let entry = &mut self.entries[*index];
                        // SAFETY: initialized above; `&mut World` keeps every writer off.
                        let holds = unsafe {
                            entry.conditions_hold(world)
                                & set_conditions_hold(&self.sets, &self.set_conditions_of, *index, world)
                        };
                        if holds {
                            entry.system.run_exclusive(world);
                        }
                    }
                    Step::Apply(deferred) => {
                        // Commands are applied in insertion order, whatever ran first;
                        // systems that have not run yet have nothing to apply. A
                        // panicking command stops neither its own queue nor the
                        // others': every queue is applied and unspawned handles are
                        // released before the first panic goes on.
                        resume_deferred(apply_queues(&mut self.entries, deferred.iter().copied(), world));
                    }
                }
            }
        }));
        self.plan = Some(plan);
        if let Err(panic) = result {
            // The commands recorded before the panic go to the world they were
            // recorded for, now: kept for the next run they would be dropped if
            // that run is on another world, and the entities `Commands::spawn`
            // reserved here would stay reserved but missing. A panicking command
            // stops no other queue; the system's panic is the one resumed.
            // Every system's: one with nothing recorded applies nothing.
            let all = 0..self.entries.len();
            let _ = apply_queues(&mut self.entries, all, world);
            std::panic::resume_unwind(panic);
        }
    }

    /// Runs one batch, inline or in parallel as `adaptive` says.
    fn run_batch(&mut self, batch: &[usize], adaptive: &Adaptive, world: &mut World) {
        // The batch's change ticks, one per system in batch order, taken with one
        // plain add while `&mut World` is still held: through `&World` each
        // system would take its own with a locked add, which also waits for
        // every store the previous system's loop left pending.
        let count = u32::try_from(batch.len()).expect("a batch has fewer than 2^32 systems");
        let first = world.reserve_change_ticks_mut(count).get();
        let world: &World = world;
        let (sets, set_conditions_of) = (&self.sets, &self.set_conditions_of);
        let run = |entry: &mut Entry, position: usize| {
            // `position < batch.len()`, which fits in `u32` (above).
            let this_run = Tick::new(first.wrapping_add(position as u32));
            // SAFETY: the systems of one batch have no conflicting access, their
            // conditions' and their sets' conditions' included (conflicts are
            // ordered into different batches by `make_plan`'s accesses), and `run`
            // holds the world mutably for the whole batch, so nothing else touches
            // it; `run` initialized every entry and set condition.
            unsafe {
                let holds =
                    entry.conditions_hold(world) & set_conditions_hold(sets, set_conditions_of, batch[position], world);
                if holds {
                    entry.system.run_unchecked_at(world, this_run);
                }
            }
        };
        // Inline, one entry at a time: by index, a bounds check each, where the
        // merge pass of `batch_entries` (for the parallel case, which needs all
        // the borrows at once) mispredicts its way through every entry.
        let entries = &mut self.entries;
        let inline = |entries: &mut Vec<Entry>| {
            batch.iter().enumerate().for_each(|(position, &index)| run(&mut entries[index], position));
        };
        if !self.multi_threaded || batch.len() < 2 {
            inline(entries);
            return;
        }
        adaptive.run(|mode| match mode {
            Mode::Inline => inline(entries),
            Mode::Parallel => {
                // One slot per system, each taken by exactly one call.
                let slots: Vec<Mutex<Option<&mut Entry>>> =
                    batch_entries(entries, batch).map(|entry| Mutex::new(Some(entry))).collect();
                for_each_index(slots.len(), &|position| {
                    let entry = annotate::lock(&slots[position]).take();
                    if let Some(entry) = entry {
                        run(entry, position);
                    }
                });
            }
        });
    }
}
