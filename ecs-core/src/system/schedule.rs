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

use std::sync::Mutex;

use super::condition::{Condition, ConditionSystem};
use super::set::{InternedSet, IntoLabel, IntoSetConfig, Label, SetConfig, SystemSet};
use super::{IntoSystem, System, SystemAccess};
use crate::panics::{DeferredPanic, catch_each, resume_deferred};
use crate::parallel::{Adaptive, Mode, for_each_index};
use crate::storage::Tick;
use crate::world::{World, WorldId};

/// A system with its ordering constraints, sets and run conditions, made by
/// [`IntoSystemConfig`].
pub struct SystemConfig {
    system: Box<dyn System>,
    before: Vec<Label>,
    after: Vec<Label>,
    sets: Vec<InternedSet>,
    conditions: Vec<Box<dyn ConditionSystem>>,
}

/// Adds ordering constraints, sets and run conditions to anything that becomes a
/// system: `schedule.add_system(reaper.after(movement).in_set(Cleanup).run_if(in_game))`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a system: a parameter of it is not a system parameter",
    label = "look at this function's parameter types",
    note = "system parameters are `Query<Q, F>`, `Res<T>`, `ResMut<T>`, `Option<Res<T>>`, `Option<ResMut<T>>`, \
            `Local<T>`, `Commands`, `&World` and `#[derive(SystemParam)]` structs, at most 16; \
            a system taking `&mut World` must take nothing else"
)]
pub trait IntoSystemConfig<Marker>: Sized {
    /// The system with no constraints.
    fn into_config(self) -> SystemConfig;

    /// Runs this system after `other` in every run: a system function, or a
    /// [`SystemSet`] (after every system in it).
    fn after<M>(self, other: impl IntoLabel<M>) -> SystemConfig {
        let mut config = self.into_config();
        config.after.push(other.into_label().0);
        config
    }

    /// Runs this system before `other` in every run: a system function, or a
    /// [`SystemSet`] (before every system in it).
    fn before<M>(self, other: impl IntoLabel<M>) -> SystemConfig {
        let mut config = self.into_config();
        config.before.push(other.into_label().0);
        config
    }

    /// Puts this system in `set`: it follows the set's ordering
    /// ([`Schedule::configure_sets`]) and `before`/`after` naming the set. A system
    /// may be in several sets.
    fn in_set(self, set: impl SystemSet) -> SystemConfig {
        let mut config = self.into_config();
        config.sets.push(InternedSet::new(set));
        config
    }

    /// Runs this system only when `condition` holds, evaluated right before the
    /// system would run. With several `run_if`s, all must hold (each is evaluated
    /// every time, so stateful conditions such as
    /// [`resource_changed`](super::resource_changed) see every run).
    ///
    /// A condition reads the world alongside its system: the schedule adds what it
    /// reads to the system's access, for conflicts and ordering. A skipped system
    /// does not run and, with no `Changed` seen, does not advance its change
    /// detection: it sees the skipped changes when it next runs.
    ///
    /// # Panics
    /// When two of the condition's parameters conflict.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Enemy;
    /// #[derive(Default)] struct Waves(u32);
    /// fn no_enemies_left(enemies: Query<(), With<Enemy>>) -> bool { enemies.is_empty() }
    /// fn spawn_wave(mut waves: ResMut<Waves>, mut commands: Commands) {
    ///     waves.0 += 1;
    ///     for _ in 0..3 { commands.spawn(Enemy); }
    /// }
    /// let mut world = World::new();
    /// world.insert_resource(Waves::default());
    /// let mut schedule = Schedule::new();
    /// schedule.add_system(spawn_wave.run_if(no_enemies_left));
    /// schedule.run(&mut world);
    /// schedule.run(&mut world);
    /// assert_eq!(world.resource::<Waves>().0, 1);
    /// ```
    #[track_caller]
    fn run_if<M>(self, condition: impl Condition<M>) -> SystemConfig {
        let mut config = self.into_config();
        config.conditions.push(Box::new(condition.into_condition()));
        config
    }
}

impl<Marker, S: IntoSystem<Marker>> IntoSystemConfig<Marker> for S {
    #[track_caller]
    fn into_config(self) -> SystemConfig {
        SystemConfig {
            system: Box::new(self.into_system()),
            before: Vec::new(),
            after: Vec::new(),
            sets: Vec::new(),
            conditions: Vec::new(),
        }
    }
}

impl IntoSystemConfig<()> for SystemConfig {
    fn into_config(self) -> SystemConfig {
        self
    }
}

/// Several systems at once, for [`Schedule::add_systems`] and
/// [`Schedule::add_chain`]: a tuple of up to 16 systems (each may carry its own
/// `after`, `in_set`, `run_if`…), an array or `Vec` of [`SystemConfig`]s, or
/// [`chain`](Self::chain)ed systems.
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(Default)] struct Log(String);
/// fn input(mut log: ResMut<Log>) { log.0 += "input "; }
/// fn physics(mut log: ResMut<Log>) { log.0 += "physics "; }
/// fn render(mut log: ResMut<Log>) { log.0 += "render"; }
/// let mut world = World::new();
/// world.insert_resource(Log::default());
/// let mut schedule = Schedule::new();
/// // Conflicting systems run in insertion order anyway; `chain` makes the
/// // order explicit, whatever their access.
/// schedule.add_systems((input, physics, render).chain()); // bevy's spelling
/// // or: schedule.add_chain((input, physics, render));
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Log>().0, "input physics render");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a group of systems",
    label = "expected a tuple of systems, or an array or `Vec` of `SystemConfig`s",
    note = "write one system, or `(a, b, c)` (or `(a, b, c).chain()` to run them in that order)"
)]
pub trait IntoSystemConfigs<Marker>: Sized {
    /// The systems, in the order given.
    fn into_configs(self) -> SystemConfigs;

    /// Runs the systems one after the other, in the order given (each after the
    /// one before it), as [`Schedule::add_chain`] does.
    fn chain(self) -> SystemConfigs {
        let mut configs = self.into_configs();
        configs.chained = true;
        configs
    }
}

/// Systems added together, made by [`IntoSystemConfigs`].
pub struct SystemConfigs {
    configs: Vec<SystemConfig>,
    chained: bool,
}

impl IntoSystemConfigs<()> for SystemConfigs {
    fn into_configs(self) -> SystemConfigs {
        self
    }
}

/// The marker of [`IntoSystemConfigs`] for one system: `add_systems(movement)`.
#[doc(hidden)]
pub struct IsSingleSystem<M>(core::marker::PhantomData<fn() -> M>);

impl<M, S: IntoSystemConfig<M>> IntoSystemConfigs<IsSingleSystem<M>> for S {
    #[track_caller]
    fn into_configs(self) -> SystemConfigs {
        SystemConfigs { configs: vec![self.into_config()], chained: false }
    }
}

impl IntoSystemConfigs<()> for Vec<SystemConfig> {
    fn into_configs(self) -> SystemConfigs {
        SystemConfigs { configs: self, chained: false }
    }
}

impl<const N: usize> IntoSystemConfigs<()> for [SystemConfig; N] {
    fn into_configs(self) -> SystemConfigs {
        SystemConfigs { configs: self.into(), chained: false }
    }
}

macro_rules! tuple_configs {
    ($(($system:ident, $marker:ident)),+) => {
        impl<$($marker, $system: IntoSystemConfig<$marker>),+> IntoSystemConfigs<($($marker,)+)> for ($($system,)+) {
            #[track_caller]
            #[allow(non_snake_case, reason = "the bindings are named after the type parameters")]
            fn into_configs(self) -> SystemConfigs {
                let ($($system,)+) = self;
                SystemConfigs { configs: vec![$($system.into_config()),+], chained: false }
            }
        }
    };
}

/// `tuple_configs!` for every tuple length from the full list down to one.
macro_rules! tuple_configs_down {
    ($first:tt $(, $rest:tt)*) => {
        tuple_configs!($first $(, $rest)*);
        tuple_configs_down!($($rest),*);
    };
    () => {};
}

tuple_configs_down!(
    (S0, M0),
    (S1, M1),
    (S2, M2),
    (S3, M3),
    (S4, M4),
    (S5, M5),
    (S6, M6),
    (S7, M7),
    (S8, M8),
    (S9, M9),
    (S10, M10),
    (S11, M11),
    (S12, M12),
    (S13, M13),
    (S14, M14),
    (S15, M15)
);

/// A system as a run needs it. What only planning reads is kept apart, in
/// [`EntryPlan`]s, and adding a system allocates nothing besides the system:
/// a run touches every entry and system, and with many tiny systems keeping
/// them small and close together is measurably faster.
struct Entry {
    system: Box<dyn System>,
    conditions: Vec<Box<dyn ConditionSystem>>,
}

/// A system's constraints and sets, as planning needs them.
struct EntryPlan {
    before: Vec<Label>,
    after: Vec<Label>,
    sets: Vec<InternedSet>,
}

impl Entry {
    fn new(config: SystemConfig) -> (Self, EntryPlan) {
        let SystemConfig { system, before, after, sets, conditions } = config;
        (Self { system, conditions }, EntryPlan { before, after, sets })
    }

    /// The system's access and its conditions': what planning compares.
    fn access(&self) -> SystemAccess {
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

/// The entries of a batch, in plan order: `batch` is ascending, so one merge pass
/// finds them.
/// Applies the command queues of `entries[indices]`, in that order (a panicking
/// command stops no queue), then releases the entity handles reserved and never
/// spawned; returns the first panic.
fn apply_queues(entries: &mut [Entry], mut indices: impl Iterator<Item = usize>, world: &mut World) -> DeferredPanic {
    // No catch to set up where no system defers anything.
    let panic = match indices.next() {
        None => None,
        Some(first) => catch_each(core::iter::once(first).chain(indices), |index| entries[index].system.apply(world)),
    };
    world.release_reserved_entities();
    panic
}

fn batch_entries<'e>(entries: &'e mut [Entry], batch: &'e [usize]) -> impl Iterator<Item = &'e mut Entry> + 'e {
    let mut wanted = batch.iter().peekable();
    entries.iter_mut().enumerate().filter_map(move |(index, entry)| {
        (wanted.peek() == Some(&&index)).then(|| {
            wanted.next();
            entry
        })
    })
}

/// The systems between two sync points, or an exclusive system (a sync point on
/// both sides).
enum Segment {
    Systems(Vec<usize>),
    Exclusive(usize),
}

/// One step of the plan.
#[derive(Debug)]
enum Step {
    /// Systems that may run side by side, and what running them inline or in
    /// parallel was measured to cost.
    Batch(Vec<usize>, Adaptive),
    /// An exclusive system, alone.
    Exclusive(usize),
    /// Apply the commands of every system so far, in insertion order: the
    /// systems listed, those that may have any (`System::has_deferred`).
    Apply(Vec<usize>),
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
/// schedule.add_system(movement).add_system(reaper.after(movement));
/// schedule.run(&mut world);
/// assert!(!world.contains(dead));
/// ```
pub struct Schedule {
    entries: Vec<Entry>,
    /// The entries' constraints and sets, index for index.
    plans: Vec<EntryPlan>,
    /// Configured sets, in the order `configure_sets` was called.
    sets: Vec<SetConfig>,
    /// `None` where a sync point was added.
    order: Vec<Option<usize>>,
    plan: Option<Vec<Step>>,
    multi_threaded: bool,
    /// The world every entry was last initialized for, until systems are added:
    /// a run then skips initializing (a call per system and condition).
    initialized_for: Option<WorldId>,
    /// Each run starts with `World::update_events`.
    updates_events: bool,
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
            updates_events: true,
        }
    }

    /// Whether each run starts by updating the world's event buffers
    /// ([`World::update_events`]): on by default, so that with one schedule run
    /// per frame, an [`EventReader`](crate::event::EventReader) sees every event
    /// once, whether it runs before or after the writer. Turn it off for a second
    /// schedule run in the same frame (a fixed-step loop), or events would last
    /// one frame less.
    pub fn set_updates_events(&mut self, updates_events: bool) -> &mut Self {
        self.updates_events = updates_events;
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

    /// Adds a system.
    ///
    /// # Panics
    /// When two of the system's parameters conflict; the message names the system,
    /// both parameters and the component or resource.
    #[track_caller]
    pub fn add_system<M>(&mut self, system: impl IntoSystemConfig<M>) -> &mut Self {
        let config = system.into_config();
        self.order.push(Some(self.entries.len()));
        self.push(config);
        self.plan = None;
        self
    }

    fn push(&mut self, config: SystemConfig) {
        let (entry, plan) = Entry::new(config);
        self.entries.push(entry);
        self.plans.push(plan);
    }

    /// Orders a [`SystemSet`] (`Physics.before(Render)`) or puts it in another
    /// (`Physics.in_set(Gameplay)`). Constraints between sets apply to every pair of
    /// their systems, with the same checks as between two systems: a cycle, or an
    /// order a sync point reverses, is refused naming the systems. A set may be
    /// configured before or after its systems are added, and several times; a set
    /// with no systems orders nothing.
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
    ///     .add_system(integrate.in_set(Physics))
    ///     .add_system(read_keys.in_set(Input))
    ///     .configure_sets(Input.before(Physics));
    /// schedule.run(&mut world);
    /// assert_eq!(world.resource::<Log>().0, "keys integrate ");
    /// ```
    pub fn configure_sets(&mut self, config: impl IntoSetConfig) -> &mut Self {
        self.sets.push(config.into_set_config());
        self.plan = None;
        self
    }

    /// Adds several systems: `schedule.add_systems((a, b, c))`, or
    /// `schedule.add_systems((a, b, c).chain())` to run them in that order. Each
    /// is added as by [`add_system`](Self::add_system), in the order given.
    ///
    /// # Panics
    /// As for [`add_system`](Self::add_system).
    #[track_caller]
    pub fn add_systems<M>(&mut self, systems: impl IntoSystemConfigs<M>) -> &mut Self {
        let SystemConfigs { configs, chained } = systems.into_configs();
        let mut previous = None;
        for mut config in configs {
            if let Some(label) = previous.filter(|_| chained) {
                config.after.push(label);
            }
            previous = Some(Label::System(config.system.label(), config.system.name()));
            self.order.push(Some(self.entries.len()));
            self.push(config);
        }
        self.plan = None;
        self
    }

    /// Adds systems that run one after the other, in the order given:
    /// `schedule.add_chain((a, b, c))`, the same as
    /// `schedule.add_systems((a, b, c).chain())`.
    #[track_caller]
    pub fn add_chain<M>(&mut self, systems: impl IntoSystemConfigs<M>) -> &mut Self {
        self.add_systems(systems.chain())
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
    /// schedule.add_system(aim.after(spawn_enemies)); // `spawn_enemies` never added
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
            self.plan = Some(self.make_plan());
            // Systems were added: each is initialized below.
            self.initialized_for = None;
        }
        if self.initialized_for != Some(world.id()) {
            for entry in &mut self.entries {
                entry.initialize(world);
            }
            self.initialized_for = Some(world.id());
        }
    }

    /// Runs every system once, then applies all commands. The run starts by
    /// updating the world's event buffers (see
    /// [`set_updates_events`](Self::set_updates_events)).
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
        if self.updates_events {
            world.update_events();
        }
        self.initialize(world);
        let mut plan = self.plan.take().expect("made above");
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            for step in &mut plan {
                match step {
                    Step::Batch(batch, adaptive) => self.run_batch(batch, adaptive, world),
                    Step::Exclusive(index) => {
                        let entry = &mut self.entries[*index];
                        // SAFETY: initialized above; `&mut World` keeps every writer off.
                        if unsafe { entry.conditions_hold(world) } {
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
        let run = |entry: &mut Entry, position: usize| {
            // `position < batch.len()`, which fits in `u32` (above).
            let this_run = Tick::new(first.wrapping_add(position as u32));
            // SAFETY: the systems of one batch have no conflicting access, their
            // conditions' included (conflicts are ordered into different batches by
            // `Entry::access`), and `run` holds the world mutably for the whole
            // batch, so nothing else touches it; `run` initialized every entry.
            unsafe {
                if entry.conditions_hold(world) {
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
                    let entry = slots[position].lock().ok().and_then(|mut slot| slot.take());
                    if let Some(entry) = entry {
                        run(entry, position);
                    }
                });
            }
        });
    }

    /// Orders the systems into batches and sync points.
    ///
    /// # Panics
    /// When a constraint names a system that is not in the schedule, asks for an
    /// order across a sync point that the sync point reverses, or the explicit
    /// constraints form a cycle.
    #[track_caller]
    fn make_plan(&self) -> Vec<Step> {
        let segments = self.segments();
        let explicit = self.explicit_edges(&segments);
        let accesses: Vec<SystemAccess> = self.entries.iter().map(Entry::access).collect();
        // Most systems queue no commands: a sync point visits only those that may.
        let deferred: Vec<usize> =
            self.order.iter().flatten().copied().filter(|&index| self.entries[index].system.has_deferred()).collect();
        let mut plan = Vec::new();
        for segment in &segments {
            match segment {
                // Always after a `Systems` segment, whose `Apply` precedes it.
                Segment::Exclusive(index) => plan.push(Step::Exclusive(*index)),
                Segment::Systems(systems) => {
                    self.plan_segment(systems, &explicit, &accesses, &mut plan);
                    plan.push(Step::Apply(deferred.clone()));
                }
            }
        }
        plan
    }

    /// The runs of systems between sync points, in order: exclusive systems are a
    /// segment of their own (they are a sync point on both sides).
    fn segments(&self) -> Vec<Segment> {
        let mut segments = Vec::new();
        let mut current = Vec::new();
        for slot in self.order.iter().copied().chain([None]) {
            match slot {
                Some(index) if self.entries[index].system.is_exclusive() => {
                    segments.push(Segment::Systems(core::mem::take(&mut current)));
                    segments.push(Segment::Exclusive(index));
                }
                Some(index) => current.push(index),
                None => segments.push(Segment::Systems(core::mem::take(&mut current))),
            }
        }
        segments
    }

    /// The explicit `before`/`after` constraints, of systems and of sets, as edges
    /// `(first, then)` between systems of one segment. A constraint between
    /// segments is checked here: one the segments' order already keeps is
    /// satisfied; one it reverses is refused.
    ///
    /// # Panics
    /// As for [`make_plan`](Self::make_plan), naming both systems.
    #[track_caller]
    fn explicit_edges(&self, segments: &[Segment]) -> Vec<(usize, usize)> {
        let mut segment_of = vec![0; self.entries.len()];
        for (s, segment) in segments.iter().enumerate() {
            match segment {
                Segment::Exclusive(index) => segment_of[*index] = s,
                Segment::Systems(systems) => systems.iter().for_each(|&i| segment_of[i] = s),
            }
        }
        let sets_of: Vec<Vec<InternedSet>> = self.plans.iter().map(|p| self.set_closure(&p.sets)).collect();
        let members = |label: &Label| -> Vec<usize> {
            (0..self.entries.len())
                .filter(|&i| match label {
                    Label::System(id, _) => self.entries[i].system.label() == *id,
                    Label::Set(set) => sets_of[i].contains(set),
                })
                .collect()
        };
        let name = |i: usize| self.entries[i].system.name();
        // (who is constrained, its systems, the relation, to what)
        let mut constraints: Vec<(Option<&InternedSet>, Vec<usize>, &str, &Label)> = Vec::new();
        for (i, plan) in self.plans.iter().enumerate() {
            constraints.extend(plan.after.iter().map(|label| (None, vec![i], "after", label)));
            constraints.extend(plan.before.iter().map(|label| (None, vec![i], "before", label)));
        }
        for config in &self.sets {
            let systems = members(&Label::Set(config.set.clone()));
            constraints.extend(config.after.iter().map(|label| (Some(&config.set), systems.clone(), "after", label)));
            constraints.extend(config.before.iter().map(|label| (Some(&config.set), systems.clone(), "before", label)));
        }
        let mut edges = Vec::new();
        for (set, subjects, relation, label) in constraints {
            let targets = members(label);
            if targets.is_empty() {
                match (label, set) {
                    // An empty set orders nothing, as an unused set would.
                    (Label::Set(_), _) => continue,
                    (Label::System(_, missing), Some(set)) => panic!(
                        "set `{}` is ordered {relation} system `{missing}`, which is not in the schedule; \
                         add it with `schedule.add_system({})`, or drop the constraint",
                        set.name(),
                        short_fn(missing),
                    ),
                    (Label::System(_, missing), None) => panic!(
                        "system `{}` is ordered {relation} system `{missing}`, which is not in the schedule; \
                         add it with `schedule.add_system({})`, or drop the constraint",
                        name(subjects[0]),
                        short_fn(missing),
                    ),
                }
            }
            // How the constraint reads in messages.
            let who = set.map_or_else(|| "it".to_owned(), |set| format!("set `{}`", set.name()));
            let whom = match label {
                Label::System(..) => format!("`{}`", name(targets[0])),
                Label::Set(target) => format!("set `{}`", target.name()),
            };
            let through = match (set, label) {
                (Some(set), _) | (None, Label::Set(set)) => format!(" (through set `{}`)", set.name()),
                (None, Label::System(..)) => String::new(),
            };
            for &subject in &subjects {
                for &other in &targets {
                    let (first, then) = if relation == "after" { (other, subject) } else { (subject, other) };
                    if first == then {
                        panic!(
                            "system `{}` is ordered {relation} itself ({who} is ordered {relation} {whom})",
                            name(subject)
                        );
                    }
                    match segment_of[first].cmp(&segment_of[then]) {
                        core::cmp::Ordering::Less => {} // the sync point between them keeps the order
                        core::cmp::Ordering::Equal => edges.push((first, then)),
                        core::cmp::Ordering::Greater => panic!(
                            "system `{}` is ordered {relation} `{}`{through}, but a sync point (or an exclusive \
                             system) between them runs `{}` first; move one of them across the sync point or drop \
                             the constraint",
                            name(subject),
                            name(other),
                            name(then),
                        ),
                    }
                }
            }
        }
        edges
    }

    /// `direct` and every set those are in (through `configure_sets(… .in_set(…))`),
    /// transitively.
    fn set_closure(&self, direct: &[InternedSet]) -> Vec<InternedSet> {
        let mut all = direct.to_vec();
        let mut next = 0;
        while next < all.len() {
            let set = all[next].clone();
            for config in self.sets.iter().filter(|c| c.set == set) {
                for parent in &config.parents {
                    if !all.contains(parent) {
                        all.push(parent.clone());
                    }
                }
            }
            next += 1;
        }
        all
    }

    /// Orders one segment's systems into batches. Explicit constraints come first;
    /// systems whose access conflicts are then ordered as the explicit constraints
    /// and, where those leave it open, insertion order say (a stable topological
    /// order), so an explicit constraint always wins over the insertion default.
    ///
    /// # Panics
    /// When the explicit constraints form a cycle, naming the systems on it.
    #[track_caller]
    fn plan_segment(
        &self,
        segment: &[usize],
        explicit: &[(usize, usize)],
        accesses: &[SystemAccess],
        plan: &mut Vec<Step>,
    ) {
        let n = segment.len();
        let local = |index: usize| segment.iter().position(|&i| i == index);
        // preds[j]: systems (local indices) that must finish before segment[j].
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
        for &(first, then) in explicit {
            if let (Some(f), Some(t)) = (local(first), local(then)) {
                preds[t].push(f);
            }
        }
        // Stable topological order of the explicit constraints: of the systems
        // whose predecessors are all placed, the earliest added goes next.
        let mut order = Vec::with_capacity(n);
        let mut placed = vec![false; n];
        while order.len() < n {
            let next = (0..n).find(|&j| !placed[j] && preds[j].iter().all(|&p| placed[p]));
            let Some(j) = next else {
                let cycle = Self::cycle(&preds, &placed);
                let names: Vec<_> = cycle.iter().map(|&j| self.entries[segment[j]].system.name()).collect();
                panic!("the ordering constraints form a cycle: {}", names.join(" -> "));
            };
            placed[j] = true;
            order.push(j);
        }
        let mut rank = vec![0; n];
        for (r, &j) in order.iter().enumerate() {
            rank[j] = r;
        }
        for j in 0..n {
            for i in 0..n {
                let conflict = || accesses[segment[i]].conflict(&accesses[segment[j]]).is_some();
                if rank[i] < rank[j] && conflict() {
                    preds[j].push(i);
                }
            }
        }
        // Layer by longest path, in topological order (every edge goes forward in it).
        let mut level = vec![0usize; n];
        for &j in &order {
            level[j] = preds[j].iter().map(|&p| level[p] + 1).max().unwrap_or(0);
        }
        let depth = level.iter().max().map_or(0, |d| d + 1);
        for d in 0..depth {
            let batch: Vec<usize> = (0..n).filter(|&j| level[j] == d).map(|j| segment[j]).collect();
            plan.push(Step::Batch(batch, Adaptive::new()));
        }
    }

    /// A cycle among the systems not `placed` (each has an unplaced predecessor),
    /// in constraint order (each runs before the next), the first repeated last.
    fn cycle(preds: &[Vec<usize>], placed: &[bool]) -> Vec<usize> {
        let start = (0..preds.len()).find(|&j| !placed[j]).expect("a cycle leaves systems unplaced");
        // Walk backwards along unplaced predecessors until a system repeats.
        let mut path = vec![start];
        loop {
            let last = *path.last().expect("the path is never empty");
            let pred = *preds[last].iter().find(|&&p| !placed[p]).expect("an unplaced system waits on one");
            if let Some(at) = path.iter().position(|&j| j == pred) {
                let mut cycle: Vec<usize> = path[at..].to_vec();
                cycle.reverse();
                cycle.push(*cycle.first().expect("a cycle has a system"));
                return cycle;
            }
            path.push(pred);
        }
    }
}

/// The last segment of a function's path (`game::systems::movement` ->
/// `movement`): what the user writes in `add_system`.
fn short_fn(path: &str) -> &str {
    path.rsplit("::").next().unwrap_or(path)
}
