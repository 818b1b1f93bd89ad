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
//! executor runs a batch's systems on the rayon pool, except systems that took
//! less than [`INLINE_BELOW`] last time, which run on the calling thread: for small
//! systems a task costs more than the work.

use core::any::TypeId;
use std::time::{Duration, Instant};

use super::{IntoSystem, System};
use crate::storage::{catch_each, resume_deferred};
use crate::world::World;

/// Systems whose last run took less than this run inline instead of as a task.
pub const INLINE_BELOW: Duration = Duration::from_micros(20);

/// A system with its ordering constraints, made by [`IntoSystemConfig`].
pub struct SystemConfig {
    system: Box<dyn System>,
    before: Vec<TypeId>,
    after: Vec<TypeId>,
}

/// Adds ordering constraints to anything that becomes a system:
/// `schedule.add_system(reaper.after(movement))`.
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

    /// Runs this system after `other` (a system function) in every run.
    fn after<T: 'static>(self, _other: T) -> SystemConfig {
        let mut config = self.into_config();
        config.after.push(TypeId::of::<T>());
        config
    }

    /// Runs this system before `other` (a system function) in every run.
    fn before<T: 'static>(self, _other: T) -> SystemConfig {
        let mut config = self.into_config();
        config.before.push(TypeId::of::<T>());
        config
    }
}

impl<Marker, S: IntoSystem<Marker>> IntoSystemConfig<Marker> for S {
    #[track_caller]
    fn into_config(self) -> SystemConfig {
        SystemConfig { system: Box::new(self.into_system()), before: Vec::new(), after: Vec::new() }
    }
}

impl IntoSystemConfig<()> for SystemConfig {
    fn into_config(self) -> SystemConfig {
        self
    }
}

struct Entry {
    system: Box<dyn System>,
    before: Vec<TypeId>,
    after: Vec<TypeId>,
    /// How long the last run took; `None` before the first.
    last: Option<Duration>,
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

/// The systems between two sync points, or an exclusive system (a sync point on
/// both sides).
enum Segment {
    Systems(Vec<usize>),
    Exclusive(usize),
}

/// One step of the plan.
#[derive(Debug)]
enum Step {
    /// Systems that may run side by side, and whether any of them ran long enough
    /// last time to be worth a task (refreshed when timings are).
    Batch(Vec<usize>, bool),
    /// An exclusive system, alone.
    Exclusive(usize),
    /// Apply the commands of every system so far (in insertion order).
    Apply,
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
    /// `None` where a sync point was added.
    order: Vec<Option<usize>>,
    plan: Option<Vec<Step>>,
    multi_threaded: bool,
    /// How many times `run` was called, to refresh timings now and then.
    runs: u64,
}

impl Default for Schedule {
    fn default() -> Self {
        Self::new()
    }
}

impl Schedule {
    /// An empty, multi-threaded schedule.
    pub fn new() -> Self {
        Self { entries: Vec::new(), order: Vec::new(), plan: None, multi_threaded: true, runs: 0 }
    }

    /// Runs every system on the calling thread, in plan order. Results are the same
    /// as multi-threaded runs.
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
        self.entries.push(Entry { system: config.system, before: config.before, after: config.after, last: None });
        self.plan = None;
        self
    }

    /// Adds systems that run one after the other, in the order given.
    #[track_caller]
    pub fn add_chain(&mut self, systems: impl IntoIterator<Item = SystemConfig>) -> &mut Self {
        let mut previous: Option<TypeId> = None;
        for mut config in systems {
            if let Some(label) = previous {
                config.after.push(label);
            }
            previous = Some(config.system.label());
            self.order.push(Some(self.entries.len()));
            self.entries.push(Entry { system: config.system, before: config.before, after: config.after, last: None });
        }
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

    /// Runs every system once, then applies all commands.
    ///
    /// # Panics
    /// When a system or a command panics (the panic propagates; the world stays
    /// consistent; see [`panics`](crate::panics) for what has run by then), or when
    /// the ordering constraints name an unknown system, form a cycle (the message
    /// lists the systems on it), or ask for an order that a sync point between the
    /// two systems reverses (the message names both). An explicit `before`/`after`
    /// always wins over the default of running conflicting systems in insertion
    /// order.
    pub fn run(&mut self, world: &mut World) {
        world.check_change_ticks_if_due();
        if self.plan.is_none() {
            self.plan = Some(self.make_plan());
        }
        for entry in &mut self.entries {
            entry.system.initialize(world);
        }
        let mut plan = self.plan.take().expect("made above");
        self.runs = self.runs.wrapping_add(1);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            for step in &mut plan {
                match step {
                    Step::Batch(batch, has_tasks) => *has_tasks = self.run_batch(batch, *has_tasks, world),
                    Step::Exclusive(index) => self.entries[*index].system.run_exclusive(world),
                    Step::Apply => {
                        // Commands are applied in insertion order, whatever ran first;
                        // systems that have not run yet have nothing to apply. A
                        // panicking command stops neither its own queue nor the
                        // others': every queue is applied and unspawned handles are
                        // released before the first panic goes on.
                        let entries = &mut self.entries;
                        let panic = catch_each(self.order.iter().flatten(), |&index| {
                            entries[index].system.apply(world);
                        });
                        world.release_reserved_entities();
                        resume_deferred(panic);
                    }
                }
            }
        }));
        self.plan = Some(plan);
        if let Err(panic) = result {
            std::panic::resume_unwind(panic);
        }
    }

    /// Runs one batch; returns whether it has systems worth a task.
    fn run_batch(&mut self, batch: &[usize], has_tasks: bool, world: &mut World) -> bool {
        let parallel = self.multi_threaded && batch.len() > 1;
        // Timing costs more than a tiny system: measure only where it decides
        // inline-or-task, and refresh the measurements every 256th run.
        let measure = parallel && (has_tasks || self.runs % 256 == 1);
        let world: &World = world;
        let run = |entry: &mut Entry| {
            let start = measure.then(Instant::now);
            // SAFETY: the systems of one batch have no conflicting access (conflicts
            // are ordered into different batches), and `run` holds the world mutably
            // for the whole batch, so nothing else touches it.
            unsafe { entry.system.run_unchecked(world) };
            if let Some(start) = start {
                entry.last = Some(start.elapsed());
            }
        };
        let is_task = |entry: &Entry| entry.last.is_none_or(|d| d >= INLINE_BELOW);
        if !(parallel && has_tasks) {
            batch_entries(&mut self.entries, batch).for_each(run);
        } else {
            let (tasks, inline): (Vec<&mut Entry>, Vec<&mut Entry>) =
                batch_entries(&mut self.entries, batch).partition(|e| is_task(e));
            rayon::scope(|scope| {
                for entry in tasks {
                    scope.spawn(move |_| run(entry));
                }
                inline.into_iter().for_each(run);
            });
        }
        parallel && (if measure { batch_entries(&mut self.entries, batch).any(|e| is_task(e)) } else { has_tasks })
    }

    /// Orders the systems into batches and sync points.
    ///
    /// # Panics
    /// When a constraint names a system that is not in the schedule, asks for an
    /// order across a sync point that the sync point reverses, or the explicit
    /// constraints form a cycle.
    fn make_plan(&self) -> Vec<Step> {
        let segments = self.segments();
        let explicit = self.explicit_edges(&segments);
        let mut plan = Vec::new();
        for segment in &segments {
            match segment {
                // Always after a `Systems` segment, whose `Apply` precedes it.
                Segment::Exclusive(index) => plan.push(Step::Exclusive(*index)),
                Segment::Systems(systems) => {
                    self.plan_segment(systems, &explicit, &mut plan);
                    plan.push(Step::Apply);
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

    /// The explicit `before`/`after` constraints as edges `(first, then)` between
    /// systems of one segment. A constraint between segments is checked here: one
    /// the segments' order already keeps is satisfied; one it reverses is refused.
    ///
    /// # Panics
    /// As for [`make_plan`](Self::make_plan), naming both systems.
    fn explicit_edges(&self, segments: &[Segment]) -> Vec<(usize, usize)> {
        let mut segment_of = vec![0; self.entries.len()];
        for (s, segment) in segments.iter().enumerate() {
            match segment {
                Segment::Exclusive(index) => segment_of[*index] = s,
                Segment::Systems(systems) => systems.iter().for_each(|&i| segment_of[i] = s),
            }
        }
        let name = |i: usize| self.entries[i].system.name();
        let mut edges = Vec::new();
        for (i, entry) in self.entries.iter().enumerate() {
            let constraints =
                entry.after.iter().map(|&label| (label, "after")).chain(entry.before.iter().map(|&l| (l, "before")));
            for (label, relation) in constraints {
                let mut named = self.entries.iter().enumerate().filter(|(_, e)| e.system.label() == label).peekable();
                if named.peek().is_none() {
                    panic!("system `{}` is ordered {relation} a system that is not in the schedule", name(i));
                }
                for (other, _) in named {
                    let (first, then) = if relation == "after" { (other, i) } else { (i, other) };
                    if first == then {
                        panic!("system `{}` is ordered {relation} itself", name(i));
                    }
                    match segment_of[first].cmp(&segment_of[then]) {
                        core::cmp::Ordering::Less => {} // the sync point between them keeps the order
                        core::cmp::Ordering::Equal => edges.push((first, then)),
                        core::cmp::Ordering::Greater => panic!(
                            "system `{}` is ordered {relation} `{}`, but a sync point (or an exclusive system) \
                             between them runs `{}` first; move one of them across the sync point or drop the \
                             constraint",
                            name(i),
                            name(other),
                            name(then),
                        ),
                    }
                }
            }
        }
        edges
    }

    /// Orders one segment's systems into batches. Explicit constraints come first;
    /// systems whose access conflicts are then ordered as the explicit constraints
    /// and, where those leave it open, insertion order say (a stable topological
    /// order), so an explicit constraint always wins over the insertion default.
    ///
    /// # Panics
    /// When the explicit constraints form a cycle, naming the systems on it.
    fn plan_segment(&self, segment: &[usize], explicit: &[(usize, usize)], plan: &mut Vec<Step>) {
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
                let conflict = || {
                    self.entries[segment[i]]
                        .system
                        .access()
                        .conflict(self.entries[segment[j]].system.access())
                        .is_some()
                };
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
            plan.push(Step::Batch(batch, true));
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
