//! Queries built at run time over component ids: [`DynamicQuery`], for code
//! that names components by id (scripts, inspectors, tools).
//!
//! A query reads, writes or optionally reads components by id and filters
//! with `with`/`without`. Rows are visited one at a time
//! ([`DynamicQuery::for_each`], [`for_each_mut`](DynamicQuery::for_each_mut)),
//! each component read through its schema ([`ComponentRef`]) or as its Rust
//! type; or an archetype at a time
//! ([`for_each_archetype`](DynamicQuery::for_each_archetype),
//! [`for_each_archetype_mut`](DynamicQuery::for_each_archetype_mut)), each
//! column a typed slice checked once per archetype, so the inner loop is a
//! plain slice loop.
//!
//! The same aliasing rules as typed queries hold: a component written twice,
//! or written and read, is refused when the query is built.

use core::cell::RefCell;
use core::sync::atomic::{AtomicU32, Ordering};

use super::Access;
use super::ledger::Ledger;
use crate::archetype::Archetype;
use crate::component::{ComponentId, ComponentInfo};
use crate::error::EcsError;
use crate::storage::Tick;
use crate::world::{World, WorldId};

mod archetype;
mod row;
mod rows;

pub use archetype::DynamicArchetype;
pub use row::{DynamicRow, DynamicRowMut};
pub use rows::{FieldRows, FieldRowsMut, SchemaRows, SchemaRowsMut};

/// How a query uses one component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Term {
    Read,
    Write,
    Optional,
}

/// Builds a [`DynamicQuery`]: made by [`World::dynamic_query`].
#[derive(Clone, Debug, Default)]
pub struct DynamicQueryBuilder {
    terms: Vec<(ComponentId, Term)>,
    with: Vec<ComponentId>,
    without: Vec<ComponentId>,
    added: Vec<ComponentId>,
    changed: Vec<ComponentId>,
}

impl DynamicQueryBuilder {
    /// Reads component `id`: only entities that have it.
    pub fn read(mut self, id: ComponentId) -> Self {
        self.terms.push((id, Term::Read));
        self
    }

    /// Writes component `id`: only entities that have it.
    pub fn write(mut self, id: ComponentId) -> Self {
        self.terms.push((id, Term::Write));
        self
    }

    /// Reads component `id` where the entity has it, without filtering.
    pub fn optional(mut self, id: ComponentId) -> Self {
        self.terms.push((id, Term::Optional));
        self
    }

    /// Only entities that have component `id` (not fetched).
    pub fn with(mut self, id: ComponentId) -> Self {
        self.with.push(id);
        self
    }

    /// Only entities that lack component `id`.
    pub fn without(mut self, id: ComponentId) -> Self {
        self.without.push(id);
        self
    }

    /// Only entities whose component `id` was added since the query's last
    /// visit (its first visit: ever), as `Added<T>` does. A component that
    /// keeps no change ticks (`#[component(changes = false)]`) never passes.
    pub fn added(mut self, id: ComponentId) -> Self {
        self.added.push(id);
        self
    }

    /// Only entities whose component `id` was added or written since the
    /// query's last visit (its first visit: ever), as `Changed<T>` does.
    pub fn changed(mut self, id: ComponentId) -> Self {
        self.changed.push(id);
        self
    }

    /// The query, for `world`.
    ///
    /// # Errors
    /// [`EcsError::UnknownComponent`] for an id `world` has no component of;
    /// [`EcsError::AliasedComponent`] when a component is written twice, or
    /// written and also read; [`EcsError::Immutable`] when a written component
    /// is immutable (relationships change by inserting a new value).
    pub fn build(self, world: &World) -> Result<DynamicQuery, EcsError> {
        let known = |id: ComponentId| {
            world.components().get(id).map(|_| ()).ok_or(EcsError::UnknownComponent { index: id.index() })
        };
        for &(id, term) in &self.terms {
            known(id)?;
            let info = world.components().get(id).expect("known");
            if term == Term::Write && !info.is_mutable() {
                return Err(EcsError::Immutable { component: info.name() });
            }
        }
        self.with.iter().chain(&self.without).chain(&self.added).chain(&self.changed).try_for_each(|&id| known(id))?;
        for (i, &(id, term)) in self.terms.iter().enumerate() {
            let again = self.terms[..i].iter().find(|&&(other, _)| other == id);
            if let Some(&(_, earlier)) = again
                && (term == Term::Write || earlier == Term::Write)
            {
                return Err(EcsError::AliasedComponent { component: world.components().name(id) });
            }
        }
        let per_row = self
            .terms
            .iter()
            .filter(|(_, term)| *term != Term::Optional)
            .map(|(id, _)| id)
            .chain(&self.with)
            .chain(&self.without)
            .any(|&id| world.components().get(id).is_some_and(ComponentInfo::is_sparse))
            || !self.added.is_empty()
            || !self.changed.is_empty();
        for &id in &self.changed {
            // As a `Changed<T>` query does: writes through queries are stamped
            // per row from now on, in every archetype now and later.
            world.archetypes().track_changes(id);
        }
        let access = self.system_access(world);
        let description = self.describe(world);
        Ok(DynamicQuery {
            access,
            description,
            world: world.id(),
            terms: self.terms,
            with: self.with,
            without: self.without,
            added: self.added,
            changed: self.changed,
            last_run: AtomicU32::new(0),
            per_row,
        })
    }
}

impl DynamicQueryBuilder {
    /// The query as messages name it, in the typed query's notation:
    /// `DynamicQuery<(&mut Health, Option<&Armor>), (With<Poisoned>, Changed<Health>)>`.
    fn describe(&self, world: &World) -> &'static str {
        let name = |id: ComponentId| world.components().name(id);
        let data: Vec<String> = self
            .terms
            .iter()
            .map(|&(id, term)| match term {
                Term::Read => format!("&{}", name(id)),
                Term::Write => format!("&mut {}", name(id)),
                Term::Optional => format!("Option<&{}>", name(id)),
            })
            .collect();
        let filters: Vec<String> =
            [("With", &self.with), ("Without", &self.without), ("Added", &self.added), ("Changed", &self.changed)]
                .into_iter()
                .flat_map(|(filter, ids)| ids.iter().map(move |&id| format!("{filter}<{}>", name(id))))
                .collect();
        let tuple =
            |parts: Vec<String>| if parts.len() == 1 { parts[0].clone() } else { format!("({})", parts.join(", ")) };
        let text = if filters.is_empty() {
            format!("DynamicQuery<{}>", tuple(data))
        } else {
            format!("DynamicQuery<{}, {}>", tuple(data), tuple(filters))
        };
        crate::names::intern(&text)
    }

    /// What a system running this query touches, in the terms the schedule
    /// checks typed queries by. Disjointness is proven only through table
    /// components (decided per archetype): a system visits whole archetypes
    /// (its column slices hold every row), so a sparse component or a tick
    /// filter, decided per row, separates nothing.
    fn system_access(&self, world: &World) -> QueryAccess {
        let components = world.components();
        let name = |id: ComponentId| components.name(id);
        let table = |id: &&ComponentId| components.get(**id).is_some_and(|info| !info.is_sparse());
        let mut access = Access::default();
        for &(id, term) in &self.terms {
            match term {
                Term::Write => access.add_write(id, name(id)),
                Term::Read | Term::Optional => access.add_read(id, name(id)),
            }
        }
        for &id in self.added.iter().chain(&self.changed) {
            access.add_filter_read(id, name(id));
            access.add_tick_scan(id);
        }
        for &id in &self.changed {
            access.watch_changes(id);
        }
        let fetched = self.terms.iter().filter(|(_, t)| *t != Term::Optional).map(|(id, _)| id);
        let with: Vec<ComponentId> =
            fetched.chain(&self.with).chain(&self.added).chain(&self.changed).filter(table).copied().collect();
        let without: Vec<ComponentId> = self.without.iter().filter(table).copied().collect();
        QueryAccess { components: access, with, without }
    }
}

/// What a system running a [`DynamicQuery`] touches: its component access and
/// the components every row it visits has and lacks (per archetype).
#[derive(Clone, Debug, Default)]
pub(crate) struct QueryAccess {
    pub(crate) components: Access,
    pub(crate) with: Vec<ComponentId>,
    pub(crate) without: Vec<ComponentId>,
}

/// A query over component ids, built at run time with [`World::dynamic_query`]:
/// rows one at a time, each component through its schema or as its Rust type,
/// or an archetype at a time as typed column slices.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
///
/// #[derive(Component)]
/// #[component(describe)]
/// struct Health { hp: i32 }
/// #[derive(Component)]
/// struct Poisoned;
///
/// let mut world = World::new();
/// world.spawn((Health { hp: 10 }, Poisoned));
/// world.spawn(Health { hp: 10 });
/// let health = world.component_id_by_name("Health").unwrap();
/// let poisoned = world.component_id_by_name("Poisoned").unwrap();
///
/// let query = world.dynamic_query().write(health).with(poisoned).build(&world)?;
/// query.for_each_mut(&mut world, |mut row| {
///     let mut view = row.get_mut(health).unwrap();
///     let hp = view.get::<i32>("hp").unwrap();
///     view.set("hp", hp - 3).unwrap();
/// });
/// let all = world.dynamic_query().read(health).build(&world)?;
/// let mut total = 0;
/// all.for_each(&world, |row| total += row.get(health).unwrap().get::<i32>("hp").unwrap());
/// assert_eq!(total, 17);
/// # Ok::<(), EcsError>(())
/// ```
#[derive(Debug)]
pub struct DynamicQuery {
    world: WorldId,
    /// The query as messages name it (`DynamicQuery<&mut Health, With<Poisoned>>`).
    description: &'static str,
    /// What a system running it touches (see `DynamicQueryBuilder::system_access`).
    access: QueryAccess,
    terms: Vec<(ComponentId, Term)>,
    with: Vec<ComponentId>,
    without: Vec<ComponentId>,
    added: Vec<ComponentId>,
    changed: Vec<ComponentId>,
    /// The tick of the last row visit, for `added` and `changed`.
    last_run: AtomicU32,
    /// Some term is decided row by row (a sparse or tag component, a tick
    /// filter).
    per_row: bool,
}

impl Clone for DynamicQuery {
    fn clone(&self) -> Self {
        Self {
            world: self.world,
            description: self.description,
            access: self.access.clone(),
            terms: self.terms.clone(),
            with: self.with.clone(),
            without: self.without.clone(),
            added: self.added.clone(),
            changed: self.changed.clone(),
            last_run: AtomicU32::new(self.last_run.load(Ordering::Relaxed)),
            per_row: self.per_row,
        }
    }
}

impl World {
    /// Starts a [`DynamicQuery`] over component ids.
    pub fn dynamic_query(&self) -> DynamicQueryBuilder {
        DynamicQueryBuilder::default()
    }
}

impl DynamicQuery {
    #[track_caller]
    /// What a system running the query touches.
    pub(crate) fn access(&self) -> &QueryAccess {
        &self.access
    }

    /// The world the query was built for.
    pub(crate) fn world_id(&self) -> WorldId {
        self.world
    }

    /// The first component the query uses beyond what `readable` and
    /// `writable` allow, and whether it writes it. A `with`/`without`
    /// filter reads only presence, which any system may.
    pub(crate) fn beyond(
        &self,
        readable: impl Fn(ComponentId) -> bool,
        writable: impl Fn(ComponentId) -> bool,
    ) -> Option<(ComponentId, bool)> {
        for &(id, term) in &self.terms {
            if term == Term::Write && !writable(id) {
                return Some((id, true));
            }
            if !readable(id) {
                return Some((id, false));
            }
        }
        self.added.iter().chain(&self.changed).find(|&&id| !readable(id)).map(|&id| (id, false))
    }

    /// `true` when the query decides rows one by one (a sparse or tag
    /// component among its terms or filters, an `added` or `changed`
    /// filter): then its archetypes cannot be handed out as whole columns
    /// (the per-archetype views panic), and it is visited row by row.
    pub fn filters_rows(&self) -> bool {
        self.per_row
    }

    /// The query as messages name it, in the typed query's notation:
    /// `DynamicQuery<(&mut Health, Option<&Armor>), With<Poisoned>>`.
    pub fn description(&self) -> &'static str {
        self.description
    }

    /// Calls `visit` with each row that passes, archetype by archetype, its
    /// ticks read against `ticks` (see [`visit_ticks`](Self::visit_ticks)).
    #[inline]
    fn visit_rows<'w>(&self, world: &'w World, ticks: (Tick, Tick), mut visit: impl FnMut(&'w Archetype, usize)) {
        for archetype in world.archetypes().iter().filter(|a| !a.is_empty() && self.matches(a)) {
            for row in 0..archetype.len() {
                if self.passes(archetype, row, ticks) {
                    visit(archetype, row);
                }
            }
        }
    }

    /// [`for_each`](Self::for_each) from a system: `added` and `changed`
    /// terms see what is newer than the system's last run, `ticks.0`, at this
    /// run's `ticks.1` (as a typed query in a system does); the views are lent
    /// for one call of `f` each.
    ///
    /// # Safety
    /// Nothing writes what the query reads meanwhile (the schedule's access
    /// check for a system holding it).
    pub(crate) unsafe fn for_each_shared(
        &self,
        world: &World,
        ticks: (Tick, Tick),
        mut f: impl FnMut(DynamicRow<'_, '_>),
    ) {
        self.check_world(world);
        self.visit_rows(world, ticks, |archetype, row| f(DynamicRow { world, archetype, row, query: self }));
    }

    /// [`for_each_mut`](Self::for_each_mut) from a system: rows chosen as in
    /// [`for_each_shared`](Self::for_each_shared), writes stamped `ticks.1`.
    ///
    /// # Safety
    /// As for [`for_each_archetype_shared`](Self::for_each_archetype_shared).
    pub(crate) unsafe fn for_each_mut_shared(
        &self,
        world: &World,
        ticks: (Tick, Tick),
        f: impl FnMut(DynamicRowMut<'_, '_>),
    ) {
        self.check_world(world);
        self.visit_rows_mut(world, ticks, f);
    }

    /// Hands out each passing row writable, one at a time, writes stamped at
    /// `ticks.1`. The caller holds the query's access (see
    /// `for_each_mut_shared`).
    fn visit_rows_mut(&self, world: &World, ticks: (Tick, Tick), mut f: impl FnMut(DynamicRowMut<'_, '_>)) {
        let tick = ticks.1;
        self.visit_rows(world, ticks, |archetype, row| f(DynamicRowMut { world, archetype, row, tick, query: self }));
    }

    /// [`for_each_archetype_mut`](Self::for_each_archetype_mut) through a
    /// shared world, writes stamped `tick`: what a system running the query
    /// does.
    ///
    /// # Safety
    /// Nothing else reads or writes what the query writes, or writes what it
    /// reads, meanwhile (the schedule's access check for a system holding it).
    pub(crate) unsafe fn for_each_archetype_shared<'w>(
        &self,
        world: &'w World,
        tick: Tick,
        mut f: impl FnMut(DynamicArchetype<'w, '_>),
    ) {
        self.check_world(world);
        let write = self.terms.iter().any(|(_, t)| *t == Term::Write).then_some(tick);
        let lent = RefCell::new(Ledger::default());
        for archetype in world.archetypes().iter().filter(|a| !a.is_empty() && self.matches(a)) {
            lent.borrow_mut().clear();
            f(DynamicArchetype { world, archetype, query: self, write, lent: &lent });
        }
    }

    /// [`par_for_each_archetype_mut`](Self::par_for_each_archetype_mut)
    /// through a shared world (see [`for_each_archetype_shared`](Self::for_each_archetype_shared)).
    ///
    /// # Safety
    /// As for `for_each_archetype_shared`.
    pub(crate) unsafe fn par_for_each_archetype_shared(
        &self,
        world: &World,
        tick: Tick,
        f: &(dyn Fn(DynamicArchetype<'_, '_>) + Sync),
    ) {
        self.check_world(world);
        let write = self.terms.iter().any(|(_, t)| *t == Term::Write).then_some(tick);
        self.par_visit(world, write, f);
    }

    fn check_world(&self, world: &World) {
        assert!(self.world == world.id(), "a DynamicQuery was used with a World other than the one it was built for");
    }

    fn term(&self, id: ComponentId) -> Option<(usize, Term)> {
        self.terms.iter().position(|&(t, _)| t == id).map(|i| (i, self.terms[i].1))
    }

    /// Every component a passing row has.
    fn required(&self) -> impl Iterator<Item = &ComponentId> {
        let fetched = self.terms.iter().filter(|(_, t)| *t != Term::Optional).map(|(id, _)| id);
        fetched.chain(&self.with).chain(&self.added).chain(&self.changed)
    }

    /// `true` when some rows of the archetype may pass.
    fn matches(&self, archetype: &Archetype) -> bool {
        self.required().all(|&id| archetype.column(id).is_some())
            && self.without.iter().all(|&id| archetype.column(id).is_none_or(|c| c.is_sparse()))
    }

    /// `true` when the row passes (its archetype matched), its ticks read
    /// against the visit's (`last`, `now`).
    fn passes(&self, archetype: &Archetype, row: usize, (last, now): (Tick, Tick)) -> bool {
        // Without a sparse, tag or tick term, a matched archetype's rows all pass.
        if !self.per_row {
            return true;
        }
        let ticks = |id: ComponentId| archetype.column(id).and_then(|c| c.ticks().get(row).copied());
        self.required().all(|&id| archetype.column(id).is_some_and(|c| c.holds(row)))
            && self.without.iter().all(|&id| archetype.column(id).is_none_or(|c| !c.holds(row)))
            && self.added.iter().all(|&id| ticks(id).is_some_and(|t| t.added.is_newer_than(last, now)))
            && self.changed.iter().all(|&id| ticks(id).is_some_and(|t| t.changed.is_newer_than(last, now)))
    }

    /// The ticks a row visit reads against: the last visit's and now, which
    /// becomes the last.
    fn visit_ticks(&self, world: &World) -> (Tick, Tick) {
        let now = world.increment_change_tick();
        (Tick::new(self.last_run.swap(now.get(), Ordering::Relaxed)), now)
    }

    /// Calls `f` with every row the query matches.
    ///
    /// # Panics
    /// When `world` is not the world the query was built for.
    #[track_caller]
    pub fn for_each<'w>(&self, world: &'w World, mut f: impl FnMut(DynamicRow<'w, '_>)) {
        self.check_world(world);
        let ticks = self.visit_ticks(world);
        self.visit_rows(world, ticks, |archetype, row| f(DynamicRow { world, archetype, row, query: self }));
    }

    /// Calls `f` with every row the query matches, its written components
    /// writable ([`DynamicRowMut::get_mut`]).
    ///
    /// # Panics
    /// When `world` is not the world the query was built for.
    #[track_caller]
    pub fn for_each_mut(&self, world: &mut World, f: impl FnMut(DynamicRowMut<'_, '_>)) {
        self.check_world(world);
        let now = world.increment_change_tick_mut();
        let ticks = (Tick::new(self.last_run.swap(now.get(), Ordering::Relaxed)), now);
        // Through the world held mutably: nothing else touches it meanwhile.
        self.visit_rows_mut(world, ticks, f);
    }

    /// Calls `f` with each matching archetype's rows at once: typed column
    /// slices ([`DynamicArchetype::column`]).
    ///
    /// # Panics
    /// When `world` is not the world the query was built for.
    #[track_caller]
    pub fn for_each_archetype<'w>(&self, world: &'w World, mut f: impl FnMut(DynamicArchetype<'w, '_>)) {
        self.check_world(world);
        let lent = RefCell::new(Ledger::default());
        for archetype in world.archetypes().iter().filter(|a| !a.is_empty() && self.matches(a)) {
            lent.borrow_mut().clear();
            f(DynamicArchetype { world, archetype, query: self, write: None, lent: &lent });
        }
    }

    /// [`for_each_archetype`](Self::for_each_archetype) with the written
    /// columns writable ([`DynamicArchetype::column_mut`]), each marked
    /// changed when taken.
    ///
    /// # Panics
    /// When `world` is not the world the query was built for.
    #[track_caller]
    pub fn for_each_archetype_mut(&self, world: &mut World, mut f: impl FnMut(DynamicArchetype<'_, '_>)) {
        self.check_world(world);
        let tick = world.increment_change_tick_mut();
        let world: &World = world;
        let lent = RefCell::new(Ledger::default());
        for archetype in world.archetypes().iter().filter(|a| !a.is_empty() && self.matches(a)) {
            lent.borrow_mut().clear();
            f(DynamicArchetype { world, archetype, query: self, write: Some(tick), lent: &lent });
        }
    }
}

impl DynamicQuery {
    /// [`for_each_archetype`](Self::for_each_archetype) with the archetypes
    /// shared out among the worker threads (each visited once, on one
    /// thread).
    ///
    /// # Panics
    /// When `world` is not the world the query was built for; a panic in `f`
    /// is resumed once every archetype is visited.
    #[track_caller]
    pub fn par_for_each_archetype(&self, world: &World, f: impl Fn(DynamicArchetype<'_, '_>) + Sync) {
        self.check_world(world);
        self.par_visit(world, None, &f);
    }

    /// [`for_each_archetype_mut`](Self::for_each_archetype_mut) with the
    /// archetypes shared out among the worker threads (each visited once, on
    /// one thread: the columns a view lends belong to its archetype alone).
    ///
    /// # Panics
    /// As for [`par_for_each_archetype`](Self::par_for_each_archetype).
    #[track_caller]
    pub fn par_for_each_archetype_mut(&self, world: &mut World, f: impl Fn(DynamicArchetype<'_, '_>) + Sync) {
        self.check_world(world);
        let tick = world.increment_change_tick_mut();
        self.par_visit(world, Some(tick), &f);
    }

    fn par_visit(&self, world: &World, write: Option<Tick>, f: &(dyn Fn(DynamicArchetype<'_, '_>) + Sync)) {
        let matched: Vec<&Archetype> = world.archetypes().iter().filter(|a| !a.is_empty() && self.matches(a)).collect();
        crate::parallel::for_each_index(matched.len(), &|index| {
            let lent = RefCell::new(Ledger::default());
            f(DynamicArchetype { world, archetype: matched[index], query: self, write, lent: &lent });
        });
    }
}
