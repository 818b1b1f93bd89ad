//! Several sets configured at once, as bevy_ecs users write them:
//! `schedule.configure_sets((Input, Physics, Render).chain())`, and a group's
//! ordering, parent set or run condition (`(Physics, Ai).run_if(not_paused)`).

use std::sync::Mutex;

use super::condition::SystemCondition;
use super::set::{AnonymousSet, InternedSet, IntoLabel, IntoSetConfig, Label, SetCondition, SetConfig, SystemSet};

/// Sets configured together, made by [`IntoSetConfigs`] and given to
/// [`Schedule::configure_sets`](super::Schedule::configure_sets).
pub struct SetConfigs {
    pub(super) configs: Vec<SetConfig>,
    /// The anonymous sets of the group's `run_if`s, configured with it but
    /// not steps of a chain.
    pub(super) anonymous: Vec<SetConfig>,
    /// The group's elements, as ranges of `configs`: what `chain` orders one
    /// after the other (a nested group is one element).
    parts: Vec<core::ops::Range<usize>>,
}

impl SetConfigs {
    /// Appends another group as one element (flattening a tuple of groups).
    fn append(&mut self, other: SetConfigs) {
        let start = self.configs.len();
        self.configs.extend(other.configs);
        self.anonymous.extend(other.anonymous);
        if self.configs.len() > start {
            self.parts.push(start..self.configs.len());
        }
    }
}

/// What [`Schedule::configure_sets`](super::Schedule::configure_sets) takes: a
/// set (`Physics`), a configured set (`Physics.before(Render)`), or a tuple of
/// up to 16 of them, which [`SetGroup`] orders or configures as one
/// (`(Input, Physics).chain()`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a system set or a group of sets",
    label = "`configure_sets` takes a `#[derive(SystemSet)]` value, a configured set or a tuple of them",
    note = "configure one set (`Physics.before(Render)`) or several as `(Input, Physics, Render).chain()`; \
            systems go to `add_systems`"
)]
pub trait IntoSetConfigs: Sized {
    /// The sets, in the order given.
    fn into_set_configs(self) -> SetConfigs;
}

impl<S: IntoSetConfig> IntoSetConfigs for S {
    fn into_set_configs(self) -> SetConfigs {
        SetConfigs {
            configs: vec![self.into_set_config()],
            anonymous: Vec::new(),
            parts: core::iter::once(0..1).collect(),
        }
    }
}

impl IntoSetConfigs for SetConfigs {
    fn into_set_configs(self) -> SetConfigs {
        self
    }
}

/// Ordering and run conditions for a group of sets (a tuple of sets, or
/// another group): what [`IntoSetConfig`] does for one set, applied to each.
///
/// # Example
/// ```
/// # use ecs_core::prelude::*;
/// #[derive(SystemSet, Debug, PartialEq, Eq)] struct Input;
/// #[derive(SystemSet, Debug, PartialEq, Eq)] struct Physics;
/// #[derive(SystemSet, Debug, PartialEq, Eq)] struct Render;
/// #[derive(Default)] struct Paused(bool);
/// #[derive(Default)] struct Log(Vec<&'static str>);
/// fn not_paused(paused: Res<Paused>) -> bool { !paused.0 }
/// fn draw(mut log: ResMut<Log>) { log.0.push("draw"); }
/// fn integrate(mut log: ResMut<Log>) { log.0.push("integrate"); }
/// fn read_keys(mut log: ResMut<Log>) { log.0.push("keys"); }
/// let mut world = World::new();
/// world.insert_resource(Paused::default());
/// world.insert_resource(Log::default());
/// let mut schedule = Schedule::new();
/// schedule
///     .configure_sets((Input, Physics, Render).chain())
///     .configure_sets((Input, Physics).run_if(not_paused))
///     .add_systems((draw.in_set(Render), integrate.in_set(Physics), read_keys.in_set(Input)));
/// schedule.run(&mut world);
/// world.resource_mut::<Paused>().0 = true;
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Log>().0, ["keys", "integrate", "draw", "draw"]);
/// ```
pub trait SetGroup: IntoSetConfigs {
    /// Every set of the group runs before `other` (a set or a system).
    fn before<M>(self, other: impl IntoLabel<M>) -> SetConfigs {
        let mut group = self.into_set_configs();
        let label = other.into_label().0;
        group.configs.iter_mut().for_each(|config| config.before.push(label.clone()));
        group
    }

    /// Every set of the group runs after `other` (a set or a system).
    fn after<M>(self, other: impl IntoLabel<M>) -> SetConfigs {
        let mut group = self.into_set_configs();
        let label = other.into_label().0;
        group.configs.iter_mut().for_each(|config| config.after.push(label.clone()));
        group
    }

    /// Makes every set of the group part of `parent`.
    fn in_set(self, parent: impl SystemSet) -> SetConfigs {
        let mut group = self.into_set_configs();
        let parent = InternedSet::new(parent);
        group.configs.iter_mut().for_each(|config| config.parents.push(parent.clone()));
        group
    }

    /// Runs the group's systems only when `condition` holds; evaluated once
    /// per run, before the first of them would run, and deciding for all (as
    /// a group of systems' `run_if`, and as in bevy_ecs: the group becomes an
    /// anonymous set that holds the condition).
    ///
    /// # Panics
    /// When two of the condition's parameters conflict.
    #[track_caller]
    fn run_if<M>(self, condition: impl SystemCondition<M>) -> SetConfigs {
        let mut group = self.into_set_configs();
        let mut anonymous = SetConfig::new(InternedSet::new(AnonymousSet::new()));
        group.configs.iter_mut().for_each(|config| config.parents.push(anonymous.set.clone()));
        let condition = Box::new(condition.into_condition());
        anonymous.conditions.push(Mutex::new(SetCondition { condition, result: None }));
        group.anonymous.push(anonymous);
        group
    }

    /// Runs the group's elements one after the other, in the order given:
    /// every set of an element after every set of the element before it, as
    /// `B.after(A)` orders two sets (commands queued in between are applied in
    /// between). In `((a, b), c).chain()`, `c` runs after both `a` and `b`,
    /// which are not ordered between themselves.
    fn chain(self) -> SetConfigs {
        let mut group = self.into_set_configs();
        for step in 1..group.parts.len() {
            let (before, now) = (group.parts[step - 1].clone(), group.parts[step].clone());
            let labels: Vec<Label> = group.configs[before].iter().map(|set| Label::Set(set.set.clone())).collect();
            for config in &mut group.configs[now] {
                config.after.extend(labels.iter().cloned());
            }
        }
        let all = 0..group.configs.len();
        group.parts = core::iter::once(all).collect();
        group
    }
}

impl SetGroup for SetConfigs {}

macro_rules! tuple_set_configs {
    ($($set:ident),+) => {
        impl<$($set: IntoSetConfigs),+> IntoSetConfigs for ($($set,)+) {
            #[allow(non_snake_case, reason = "the bindings are named after the type parameters")]
            fn into_set_configs(self) -> SetConfigs {
                let ($($set,)+) = self;
                let mut all = SetConfigs { configs: Vec::new(), anonymous: Vec::new(), parts: Vec::new() };
                $(all.append($set.into_set_configs());)+
                all
            }
        }

        impl<$($set: IntoSetConfigs),+> SetGroup for ($($set,)+) {}
    };
}

/// `tuple_set_configs!` for every tuple length from the full list down to one.
macro_rules! tuple_set_configs_down {
    ($first:ident $(, $rest:ident)*) => {
        tuple_set_configs!($first $(, $rest)*);
        tuple_set_configs_down!($($rest),*);
    };
    () => {};
}

tuple_set_configs_down!(S0, S1, S2, S3, S4, S5, S6, S7, S8, S9, S10, S11, S12, S13, S14, S15);
