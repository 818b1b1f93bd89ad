//! Configuring systems for a [`Schedule`](super::Schedule): ordering, sets,
//! run conditions and chains, on one system or a group
//! ([`IntoScheduleConfigs`], as in bevy_ecs); [`IntoSystemConfig`] turns one
//! system into its [`SystemConfig`].

use std::sync::Mutex;

use super::condition::{ConditionSystem, SystemCondition};
use super::set::{AnonymousSet, InternedSet, IntoLabel, Label, SetCondition, SetConfig, SystemSet};
use super::{IntoSystem, System};

/// A system with its ordering constraints, sets and run conditions, made by
/// [`IntoSystemConfig`].
pub struct SystemConfig {
    pub(super) system: Box<dyn System>,
    /// This system's own number, for `chain` (two systems may share a type).
    pub(super) instance: u64,
    pub(super) before: Vec<Label>,
    pub(super) after: Vec<Label>,
    pub(super) sets: Vec<InternedSet>,
    pub(super) conditions: Vec<Box<dyn ConditionSystem>>,
}

/// Anything that becomes one system: a function of system parameters, or a
/// [`SystemConfig`]. Its ordering, sets and run conditions come from
/// [`IntoScheduleConfigs`]: `reaper.after(movement).in_set(Cleanup).run_if(in_game)`.
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
}

impl<Marker, S: IntoSystem<Marker>> IntoSystemConfig<Marker> for S {
    #[track_caller]
    fn into_config(self) -> SystemConfig {
        static NEXT: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(0);
        SystemConfig {
            system: Box::new(self.into_system()),
            instance: NEXT.fetch_add(1, core::sync::atomic::Ordering::Relaxed),
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

/// Several systems at once, for [`Schedule::add_systems`](super::Schedule::add_systems) and
/// `.chain()`: a tuple of up to 16 systems (each may carry its own
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
/// schedule.add_systems((input, physics, render).chain());
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Log>().0, "input physics render");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a system or a group of systems",
    label = "a function here must take only system parameters and return `()` or `Result`; a group is a tuple of \
             systems",
    note = "system parameters are `Query<Q, F>`, `Res<T>`, `ResMut<T>`, `Option<Res<T>>`, `Option<ResMut<T>>`, \
            `Local<T>`, `Commands`, `&World` and `#[derive(SystemParam)]` structs, at most 16; a system taking \
            `&mut World` must take nothing else; a system taking `In<T>` first runs piped (`a.pipe(b)`) or by \
            `run_system_with`",
    note = "add one system, or several as `(a, b, c)` (or `(a, b, c).chain()` to run them in that order)"
)]
pub trait IntoScheduleConfigs<Marker>: Sized {
    /// The systems, in the order given.
    fn into_configs(self) -> ScheduleConfigs;

    /// Runs these systems after `other` in every run: a system function, or a
    /// [`SystemSet`] (after every system in it). When `other` may queue
    /// commands, they are applied in between (a sync point).
    fn after<M>(self, other: impl IntoLabel<M>) -> ScheduleConfigs {
        let mut configs = self.into_configs();
        let label = other.into_label().0;
        configs.configs.iter_mut().for_each(|config| config.after.push(label.clone()));
        configs
    }

    /// Runs these systems before `other` in every run: a system function, or a
    /// [`SystemSet`] (before every system in it).
    fn before<M>(self, other: impl IntoLabel<M>) -> ScheduleConfigs {
        let mut configs = self.into_configs();
        let label = other.into_label().0;
        configs.configs.iter_mut().for_each(|config| config.before.push(label.clone()));
        configs
    }

    /// Puts these systems in `set`: they follow the set's ordering and run
    /// conditions ([`Schedule::configure_sets`](super::Schedule::configure_sets))
    /// and `before`/`after` naming the set. A system may be in several sets.
    fn in_set(self, set: impl SystemSet) -> ScheduleConfigs {
        let mut configs = self.into_configs();
        let set = InternedSet::new(set);
        configs.configs.iter_mut().for_each(|config| config.sets.push(set.clone()));
        configs
    }

    /// Runs these systems only when `condition` holds. On one system, the
    /// condition is evaluated right before the system would run; on a group
    /// (`(a, b).run_if(c)`), once per run, before the first of them would run, and
    /// it decides for all (as in bevy_ecs). With several `run_if`s, all must hold
    /// (each is evaluated every time, so stateful conditions such as
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
    /// schedule.add_systems(spawn_wave.run_if(no_enemies_left));
    /// schedule.run(&mut world);
    /// schedule.run(&mut world);
    /// assert_eq!(world.resource::<Waves>().0, 1);
    /// ```
    #[track_caller]
    fn run_if<M>(self, condition: impl SystemCondition<M>) -> ScheduleConfigs {
        let mut configs = self.into_configs();
        let condition = Box::new(condition.into_condition());
        if let [config] = configs.configs.as_mut_slice() {
            config.conditions.push(condition);
        } else {
            // A group's condition is its anonymous set's.
            let mut set = SetConfig::new(InternedSet::new(AnonymousSet::new()));
            configs.configs.iter_mut().for_each(|config| config.sets.push(set.set.clone()));
            set.conditions.push(Mutex::new(SetCondition { condition, result: None }));
            configs.sets.push(set);
        }
        configs
    }

    /// Runs the systems one after the other, in the order given (each after the
    /// one before it), as `schedule.add_systems((a, b).chain())` does. A system
    /// that may queue commands has them applied before the next one runs (a
    /// sync point, as in bevy_ecs).
    ///
    /// The steps are the group's elements: in `((a, b), c).chain()`, `c` runs
    /// after both `a` and `b`, which are not ordered between themselves (as in
    /// bevy_ecs).
    fn chain(self) -> ScheduleConfigs {
        chain(self.into_configs(), true)
    }

    /// [`chain`](Self::chain) without the sync points: each system runs after
    /// the one before it, and commands wait for the next sync point as they
    /// would without the order (bevy_ecs's `chain_ignore_deferred`).
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(Component)] struct Enemy;
    /// #[derive(Default)] struct Seen(usize);
    /// fn spawn(mut commands: Commands) { commands.spawn(Enemy); }
    /// fn count(q: Query<&Enemy>, mut seen: ResMut<Seen>) { seen.0 = q.iter().count(); }
    /// let mut world = World::new();
    /// world.insert_resource(Seen::default());
    /// let mut schedule = Schedule::new();
    /// schedule.add_systems((spawn, count).chain_ignore_deferred());
    /// schedule.run(&mut world);
    /// assert_eq!(world.resource::<Seen>().0, 0, "the spawn is applied at the end of the run");
    /// ```
    fn chain_ignore_deferred(self) -> ScheduleConfigs {
        chain(self.into_configs(), false)
    }
}

/// Orders the group's elements one after the other; `sync` as in
/// [`Label::Instance`].
fn chain(mut configs: ScheduleConfigs, sync: bool) -> ScheduleConfigs {
    for step in 1..configs.parts.len() {
        let (before, now) = (configs.parts[step - 1].clone(), configs.parts[step].clone());
        let labels: Vec<Label> = configs.configs[before]
            .iter()
            .map(|previous| Label::Instance(previous.instance, previous.system.name(), sync))
            .collect();
        for config in &mut configs.configs[now] {
            config.after.extend(labels.iter().cloned());
        }
    }
    let all = 0..configs.configs.len();
    configs.parts = core::iter::once(all).collect();
    configs
}

/// Systems added together, made by [`IntoScheduleConfigs`].
pub struct ScheduleConfigs {
    pub(super) configs: Vec<SystemConfig>,
    /// The anonymous sets of the group's `run_if`s, to configure with it.
    pub(super) sets: Vec<SetConfig>,
    /// The group's elements, as ranges of `configs`: what `chain` orders one
    /// after the other (a nested group is one element).
    parts: Vec<core::ops::Range<usize>>,
}

impl ScheduleConfigs {
    /// Systems, each an element of its own.
    fn of(configs: Vec<SystemConfig>) -> Self {
        let parts = (0..configs.len()).map(|i| i..i + 1).collect();
        Self { configs, sets: Vec::new(), parts }
    }

    /// Appends another group as one element (flattening a tuple of groups).
    fn append(&mut self, other: ScheduleConfigs) {
        let start = self.configs.len();
        self.configs.extend(other.configs);
        self.sets.extend(other.sets);
        if self.configs.len() > start {
            self.parts.push(start..self.configs.len());
        }
    }
}

impl IntoScheduleConfigs<()> for ScheduleConfigs {
    fn into_configs(self) -> ScheduleConfigs {
        self
    }
}

/// The marker of [`IntoScheduleConfigs`] for one system: `add_systems(movement)`.
#[doc(hidden)]
pub struct IsSingleSystem<M>(core::marker::PhantomData<fn() -> M>);

impl<M, S: IntoSystemConfig<M>> IntoScheduleConfigs<IsSingleSystem<M>> for S {
    #[track_caller]
    fn into_configs(self) -> ScheduleConfigs {
        ScheduleConfigs::of(vec![self.into_config()])
    }
}

impl IntoScheduleConfigs<()> for Vec<SystemConfig> {
    fn into_configs(self) -> ScheduleConfigs {
        ScheduleConfigs::of(self)
    }
}

impl<const N: usize> IntoScheduleConfigs<()> for [SystemConfig; N] {
    fn into_configs(self) -> ScheduleConfigs {
        ScheduleConfigs::of(self.into())
    }
}

macro_rules! tuple_configs {
    ($(($system:ident, $marker:ident)),+) => {
        impl<$($marker, $system: IntoScheduleConfigs<$marker>),+> IntoScheduleConfigs<($($marker,)+)> for ($($system,)+) {
            #[track_caller]
            #[allow(non_snake_case, reason = "the bindings are named after the type parameters")]
            fn into_configs(self) -> ScheduleConfigs {
                let ($($system,)+) = self;
                let mut all = ScheduleConfigs::of(Vec::new());
                $(all.append($system.into_configs());)+
                all
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
