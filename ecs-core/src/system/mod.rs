//! Systems: plain functions whose parameters the world provides, and a
//! [`Schedule`] that runs them, side by side where their data access allows.
//!
//! - `param.rs`: [`SystemParam`] and the parameters ([`Query`], [`Res`], [`ResMut`],
//!   [`Local`], [`Commands`](crate::command::Commands), `&World`).
//! - `access.rs`: [`SystemAccess`], what a parameter or system touches.
//! - `function.rs`: [`IntoSystem`], turning functions (up to 16 parameters) and
//!   exclusive `fn(&mut World)` systems into [`System`]s.
//! - `query_many.rs`: [`Query::iter_many`] and [`Query::iter_many_mut`].
//! - `par_iter.rs`: [`Query::par_iter`] and [`Query::par_iter_mut`].
//! - `condition.rs`: run conditions ([`SystemCondition`], `run_if`) and their helpers.
//! - `set.rs`: [`SystemSet`]s and what `before`/`after` refer to.
//! - `set_group.rs`: several sets configured at once (`(A, B).chain()`).
//! - `single.rs`: [`Single`] and [`Populated`], queries that skip their system.
//! - `system_state.rs`: [`SystemState`], parameters fetched by hand from a world.
//! - `run_once.rs`: [`World::run_system_once`](crate::World::run_system_once).
//! - `registered.rs`: systems the world keeps and runs by id
//!   ([`World::register_system`](crate::World::register_system)).
//! - `schedule.rs`: [`Schedule`], ordering constraints, sync points and the
//!   executor.

mod access;
mod condition;
mod config;
mod declared;
mod dynamic;
mod function;
mod input;
mod output;
mod par_iter;
mod param;
mod pipe;
mod plan;
mod query_many;
mod registered;
mod run_once;
mod schedule;
mod set;
mod set_group;
mod single;
mod system_state;

pub use access::SystemAccess;
pub use condition::{
    And, Combined, ConditionSystem, IsConditionSystem, IsFunctionCondition, Not, Or, SystemCondition,
    any_with_component, not, resource_added, resource_changed, resource_equals, resource_exists, run_once,
};
pub use config::{IntoScheduleConfigs, IntoSystemConfig, IsSingleSystem, ScheduleConfigs, SystemConfig};
pub use declared::{DeclaredSystem, DeclaredSystemFunction, DeclaredWorld, IsDeclared};
pub use dynamic::{DynamicSystem, DynamicSystemFunction, DynamicSystemQuery, IsDynamic};
pub use function::{ExclusiveSystem, FunctionSystem, IntoSystem, IsExclusive, SystemParamFunction};
pub use input::{HasInput, In, SystemInput};
pub use output::SystemOutput;
pub use par_iter::{QueryParIter, QueryParIterMut};
pub use param::{Local, LocalState, Query, ReadOnlySystemParam, Res, ResMut, SystemParam, SystemParamItem};
pub use pipe::{IsPipe, PipeStage, PipeSystem, SystemPipe};
pub use query_many::{QueryManyIter, QueryManyIterMut};
pub use registered::{IntoRegisteredSystem, IsExclusiveRegistered, RegisteredBox, SystemId};
pub use run_once::{IsExclusiveOnce, RunSystemOnce, RunSystemOnceWith};
pub use schedule::Schedule;
pub use set::{IntoLabel, IntoSetConfig, IsSetLabel, IsSystemLabel, LabelToken, SetConfig, SystemSet};
pub use set_group::{IntoSetConfigs, SetConfigs, SetGroup};
pub use single::{Populated, Single};
pub use system_state::SystemState;

use core::any::TypeId;

use crate::storage::Tick;
use crate::world::World;

/// What a system knows about itself: its name, its parameters' access and when it
/// last ran.
///
/// In declaration order, the ticks every run reads last: a function system's
/// slot and parameter state follow them (see `FunctionSystem`).
#[derive(Debug)]
#[repr(C)]
pub struct SystemMeta {
    name: &'static str,
    /// Where the system was made (the user's `add_systems`), for messages about
    /// mistakes found only when it runs.
    location: &'static core::panic::Location<'static>,
    params: Vec<(ParamName, SystemAccess)>,
    access: SystemAccess,
    pub(crate) last_run: Tick,
    pub(crate) this_run: Tick,
}

impl SystemMeta {
    #[track_caller]
    pub(crate) fn new(name: &'static str) -> Self {
        Self {
            name,
            location: core::panic::Location::caller(),
            params: Vec::new(),
            access: SystemAccess::default(),
            last_run: Tick::new(0),
            this_run: Tick::new(0),
        }
    }

    /// The system's name (its function's path).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Where the system was added (the `add_systems` call, or wherever it was
    /// turned into a system).
    pub fn location(&self) -> &'static core::panic::Location<'static> {
        self.location
    }

    /// Everything the system reads and writes.
    pub fn access(&self) -> &SystemAccess {
        &self.access
    }

    /// Records a parameter's access.
    ///
    /// # Panics
    /// When it conflicts with an earlier parameter of the same system: the message
    /// names the system, both parameters and what they share.
    #[track_caller]
    pub fn add_param(&mut self, param: &'static str, access: SystemAccess) {
        self.add(ParamName::Given(param), access);
    }

    /// [`add_param`](Self::add_param) with the name made only if a message needs
    /// it (names like `Query<&mut Position>` are built from type names).
    #[track_caller]
    pub fn add_param_named_by(&mut self, param: fn() -> &'static str, access: SystemAccess) {
        self.add(ParamName::Lazy(param), access);
    }

    #[track_caller]
    fn add(&mut self, param: ParamName, access: SystemAccess) {
        for (other, earlier) in &self.params {
            if let Some((why, kind)) = earlier.conflict_kind(&access) {
                let advice = match kind {
                    access::ConflictKind::Component => {
                        "prove them disjoint with `With`/`Without` filters, or merge them into one parameter"
                    }
                    access::ConflictKind::RowTicks => {
                        "query `Ref<T>` (or `Has<T>`) instead of that filter and test `is_changed()`, `is_added()` or the flag \
                         per item (they read only the rows they yield), or split the work \
                         into two systems"
                    }
                    access::ConflictKind::Resource => {
                        "a system borrows a resource once: keep only the `ResMut` (it reads too, through \
                         `*` or `.field`), or split the work into two systems"
                    }
                    access::ConflictKind::World => {
                        "`&World` goes only with read-only parameters; for writes, take `&mut World` as the \
                         system's only parameter (an exclusive system)"
                    }
                };
                panic!(
                    "system `{}` is refused: its parameters `{}` and `{}` conflict: {why}; {advice}",
                    self.name,
                    other.get(),
                    param.get(),
                );
            }
        }
        self.access.extend(&access);
        self.params.push((param, access));
    }
}

/// A parameter's name in messages.
#[derive(Debug)]
enum ParamName {
    Given(&'static str),
    Lazy(fn() -> &'static str),
}

impl ParamName {
    fn get(&self) -> &'static str {
        match self {
            Self::Given(name) => name,
            Self::Lazy(make) => make(),
        }
    }
}

/// A unit of work the [`Schedule`] runs.
///
/// Functions become systems through [`IntoSystem`]; implement this trait by hand
/// only for a system no function can express.
///
/// # Safety
/// The schedule runs systems side by side on the strength of what they report, so
/// an implementation must be truthful:
/// - [`access`](Self::access) records every component and resource that
///   [`run_unchecked`](Self::run_unchecked) reads (as a read) or writes (as a
///   write), through the world or anything derived from it, and is complete
///   when the system is made: a schedule plans from it before it calls
///   [`initialize`](Self::initialize), and it never changes afterwards;
/// - [`is_exclusive`](Self::is_exclusive) is `true` when the system needs `&mut
///   World` (then only [`run_exclusive`](Self::run_exclusive) is called), and does
///   not change.
///
/// Under-reporting lets a system read a column while another writes it: a data race.
pub unsafe trait System: Send + Sync + 'static {
    /// The system's name.
    fn name(&self) -> &'static str;
    /// What the system reads and writes (empty and [`is_exclusive`](Self::is_exclusive)
    /// for `&mut World` systems).
    fn access(&self) -> &SystemAccess;
    /// `true` for a system taking `&mut World`: it runs alone.
    fn is_exclusive(&self) -> bool;
    /// The label `before`/`after` refer to: the function's type.
    fn label(&self) -> TypeId;
    /// Prepares the system's state for `world` (once per world).
    fn initialize(&mut self, world: &mut World);
    /// Runs a non-exclusive system through a shared world.
    ///
    /// # Safety
    /// The system is initialized for `world`, and nothing else touches what its
    /// [`access`](Self::access) writes, or writes what it reads, meanwhile.
    unsafe fn run_unchecked(&mut self, world: &World);
    /// [`run_unchecked`](Self::run_unchecked) for a run whose change tick the
    /// caller already took from the world (a [`Schedule`] takes a whole batch's
    /// ticks with one plain add while it still holds `&mut World`): the run
    /// stamps its writes with `this_run` instead of taking a tick itself, which
    /// through `&World` is a locked add. The default ignores `this_run` and
    /// calls `run_unchecked`, which is always correct; the tick only decides
    /// change detection, never memory safety.
    ///
    /// # Safety
    /// As for [`run_unchecked`](Self::run_unchecked).
    unsafe fn run_unchecked_at(&mut self, world: &World, this_run: Tick) {
        let _ = this_run;
        // SAFETY: forwarded.
        unsafe { self.run_unchecked(world) }
    }
    /// Runs an exclusive system.
    fn run_exclusive(&mut self, world: &mut World);
    /// Applies deferred work (commands).
    fn apply(&mut self, world: &mut World);
    /// Whether [`apply`](Self::apply) may have work to do (bevy's name). `false`
    /// lets a schedule leave the system out of its sync points; the default
    /// `true` is always correct. A schedule asks when it makes its plan (after
    /// systems are added), so the answer should not change.
    fn has_deferred(&self) -> bool {
        true
    }
}
