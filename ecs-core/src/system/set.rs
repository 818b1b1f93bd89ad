//! System sets: named groups of systems (`movement.in_set(Physics)`) that can be
//! ordered as one (`schedule.configure_sets(Physics.before(Render))`), and
//! [`Label`], what `before`/`after` refer to: a system or a set.

use core::any::{Any, TypeId};
use core::fmt::Debug;
use core::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::IntoSystem;
use super::condition::{ConditionSystem, SystemCondition};

/// A named group of systems. Derive it on a unit struct or a fieldless enum, with
/// `Debug`, `PartialEq` and `Eq` (bevy's derive list, `Clone` and `Hash` included,
/// works as is):
///
/// ```
/// use ecs_core::prelude::*;
///
/// #[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
/// struct Physics;
/// #[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
/// enum Render { Sprites, Ui }
///
/// #[derive(Default)] struct Log(Vec<&'static str>);
/// fn draw_ui(mut log: ResMut<Log>) { log.0.push("ui"); }
/// fn draw_sprites(mut log: ResMut<Log>) { log.0.push("sprites"); }
/// fn gravity(mut log: ResMut<Log>) { log.0.push("gravity"); }
/// fn collide(mut log: ResMut<Log>) { log.0.push("collide"); }
///
/// let mut world = World::new();
/// world.insert_resource(Log::default());
/// let mut schedule = Schedule::new();
/// schedule
///     .configure_sets(Physics.before(Render::Sprites))
///     .configure_sets(Render::Sprites.before(Render::Ui))
///     .add_systems(draw_ui.in_set(Render::Ui))
///     .add_systems(draw_sprites.in_set(Render::Sprites))
///     .add_systems(collide.in_set(Physics).after(gravity))
///     .add_systems(gravity.in_set(Physics));
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Log>().0, ["gravity", "collide", "sprites", "ui"]);
/// ```
pub trait SystemSet: Debug + Eq + Send + Sync + 'static {}

/// One set, type-erased: compared by type and value, named by its `Debug` form.
#[derive(Clone)]
pub(crate) struct InternedSet {
    type_id: TypeId,
    value: Arc<dyn Any + Send + Sync>,
    eq: fn(&(dyn Any + Send + Sync), &(dyn Any + Send + Sync)) -> bool,
    name: String,
}

impl InternedSet {
    pub(crate) fn new<S: SystemSet>(set: S) -> Self {
        fn eq<S: SystemSet>(a: &(dyn Any + Send + Sync), b: &(dyn Any + Send + Sync)) -> bool {
            a.downcast_ref::<S>().is_some_and(|a| b.downcast_ref::<S>() == Some(a))
        }
        Self { type_id: TypeId::of::<S>(), name: format!("{set:?}"), value: Arc::new(set), eq: eq::<S> }
    }

    /// The set as written (its `Debug` form).
    pub(crate) fn name(&self) -> &str {
        &self.name
    }
}

impl PartialEq for InternedSet {
    fn eq(&self, other: &Self) -> bool {
        self.type_id == other.type_id && (self.eq)(&*self.value, &*other.value)
    }
}

impl Debug for InternedSet {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.name)
    }
}

/// What `before`/`after` refer to: a system (by its function's type, with that
/// type's path for messages), one added system (what `chain` orders by, so
/// that a function added twice is two systems), or a set.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Label {
    System(TypeId, &'static str),
    /// One system instance (a chain's step), and whether an edge to it gets
    /// an automatic sync point (`false` for `chain_ignore_deferred`).
    Instance(u64, &'static str, bool),
    Set(InternedSet),
}

/// Something `before`/`after` can refer to: a system function or a
/// [`SystemSet`]. `Marker` tells the two apart.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is neither a system nor a system set",
    label = "`before`/`after` need a system function or a `#[derive(SystemSet)]` value",
    note = "write `a.after(b)` with `b` a system function (the one added to the schedule), or a set: \
            `#[derive(SystemSet, Debug, PartialEq, Eq)] struct Physics;` and `a.after(Physics)`"
)]
pub trait IntoLabel<Marker> {
    /// The label.
    #[doc(hidden)]
    fn into_label(self) -> LabelToken;
}

/// A [`Label`] in a public type (the label itself is private).
#[doc(hidden)]
pub struct LabelToken(pub(crate) Label);

/// Marks the [`IntoLabel`] implementation for systems.
pub struct IsSystemLabel;
/// Marks the [`IntoLabel`] implementation for sets.
pub struct IsSetLabel;

impl<M, S: IntoSystem<M> + 'static> IntoLabel<(IsSystemLabel, M)> for S {
    fn into_label(self) -> LabelToken {
        LabelToken(Label::System(TypeId::of::<S>(), core::any::type_name::<S>()))
    }
}

impl<S: SystemSet> IntoLabel<IsSetLabel> for S {
    fn into_label(self) -> LabelToken {
        LabelToken(Label::Set(InternedSet::new(self)))
    }
}

/// The set a group's `run_if` makes: one per group, named by its number.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct AnonymousSet(u64);

impl SystemSet for AnonymousSet {}

impl AnonymousSet {
    pub(crate) fn new() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        Self(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// A run condition of a set, and its result in the current run: evaluated
/// once per run, when the first system of the set is about to run. Locked
/// because the set's systems may run side by side.
pub(crate) struct SetCondition {
    pub(crate) condition: Box<dyn ConditionSystem>,
    pub(crate) result: Option<bool>,
}

/// A set with its ordering, parent sets and run conditions, made by
/// [`IntoSetConfig`] and given to
/// [`Schedule::configure_sets`](super::Schedule::configure_sets).
pub struct SetConfig {
    pub(crate) set: InternedSet,
    pub(crate) before: Vec<Label>,
    pub(crate) after: Vec<Label>,
    pub(crate) parents: Vec<InternedSet>,
    pub(crate) conditions: Vec<Mutex<SetCondition>>,
}

impl SetConfig {
    pub(crate) fn new(set: InternedSet) -> Self {
        Self { set, before: Vec::new(), after: Vec::new(), parents: Vec::new(), conditions: Vec::new() }
    }
}

/// Orders a set: `Physics.before(Render)`, `Physics.after(input)`,
/// `Physics.in_set(Gameplay)` (a set inside another takes its ordering).
pub trait IntoSetConfig: Sized {
    /// The set with no constraints.
    fn into_set_config(self) -> SetConfig;

    /// Every system of this set runs before every system of `other` (a set or a
    /// system).
    fn before<M>(self, other: impl IntoLabel<M>) -> SetConfig {
        let mut config = self.into_set_config();
        config.before.push(other.into_label().0);
        config
    }

    /// Every system of this set runs after every system of `other` (a set or a
    /// system).
    fn after<M>(self, other: impl IntoLabel<M>) -> SetConfig {
        let mut config = self.into_set_config();
        config.after.push(other.into_label().0);
        config
    }

    /// Makes this set part of `parent`: its systems are in `parent` too.
    fn in_set(self, parent: impl SystemSet) -> SetConfig {
        let mut config = self.into_set_config();
        config.parents.push(InternedSet::new(parent));
        config
    }

    /// Runs the set's systems (those of the sets inside it too) only when
    /// `condition` holds: `configure_sets(Gameplay.run_if(not_paused))`. The
    /// condition is evaluated at most once per run, when the first of those
    /// systems is about to run (as in bevy_ecs); its reads count as each of
    /// them reading, for conflicts and ordering.
    ///
    /// # Panics
    /// When two of the condition's parameters conflict.
    ///
    /// # Example
    /// ```
    /// # use ecs_core::prelude::*;
    /// #[derive(SystemSet, Debug, PartialEq, Eq)] struct Gameplay;
    /// #[derive(Default)] struct Paused(bool);
    /// #[derive(Default)] struct Ticks(u32);
    /// fn not_paused(paused: Res<Paused>) -> bool { !paused.0 }
    /// fn tick(mut ticks: ResMut<Ticks>) { ticks.0 += 1; }
    /// let mut world = World::new();
    /// world.insert_resource(Paused::default());
    /// world.insert_resource(Ticks::default());
    /// let mut schedule = Schedule::new();
    /// schedule.configure_sets(Gameplay.run_if(not_paused)).add_systems(tick.in_set(Gameplay));
    /// schedule.run(&mut world);
    /// world.resource_mut::<Paused>().0 = true;
    /// schedule.run(&mut world);
    /// assert_eq!(world.resource::<Ticks>().0, 1);
    /// ```
    #[track_caller]
    fn run_if<M>(self, condition: impl SystemCondition<M>) -> SetConfig {
        let mut config = self.into_set_config();
        config
            .conditions
            .push(Mutex::new(SetCondition { condition: Box::new(condition.into_condition()), result: None }));
        config
    }
}

impl<S: SystemSet> IntoSetConfig for S {
    fn into_set_config(self) -> SetConfig {
        SetConfig::new(InternedSet::new(self))
    }
}

impl IntoSetConfig for SetConfig {
    fn into_set_config(self) -> SetConfig {
        self
    }
}
