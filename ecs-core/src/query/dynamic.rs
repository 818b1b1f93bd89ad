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

use core::any::TypeId;
use core::cell::RefCell;
use core::marker::PhantomData;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicU32, Ordering};

use super::Access;
use super::ledger::Ledger;
use crate::archetype::Archetype;
use crate::component::{ComponentId, ComponentInfo, FieldKind};
use crate::entity::Entity;
use crate::error::EcsError;
use crate::storage::{Column, Tick};
use crate::world::{ComponentMut, ComponentRef, FieldValue, World, WorldId};

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

/// One row of a [`DynamicQuery`], read-only.
pub struct DynamicRow<'w, 'q> {
    world: &'w World,
    archetype: &'w Archetype,
    row: usize,
    query: &'q DynamicQuery,
}

impl<'w> DynamicRow<'w, '_> {
    /// The row's entity.
    pub fn entity(&self) -> Entity {
        self.archetype.entities()[self.row]
    }

    /// Component `id` through its schema; `None` when an optional component
    /// is absent.
    ///
    /// # Panics
    /// When the query does not fetch `id`, or the component has no schema
    /// (read it with [`get_typed`](Self::get_typed)).
    #[track_caller]
    pub fn get(&self, id: ComponentId) -> Option<ComponentRef<'w>> {
        assert!(
            self.query.term(id).is_some(),
            "the query does not fetch component {}",
            self.world.components().name(id)
        );
        match self.world.get_by_id(self.entity(), id) {
            Ok(view) => Some(view),
            Err(EcsError::MissingComponent { .. }) => None,
            Err(error) => panic!("{error}"),
        }
    }

    /// Component `id` as its Rust type `T`; `None` when an optional component
    /// is absent, or `T` is not its type.
    pub fn get_typed<T: crate::Component + crate::component::WholeComponent>(&self, id: ComponentId) -> Option<&'w T> {
        self.query.term(id)?;
        if crate::component::component_id::<T>() != id {
            return None;
        }
        self.world.get::<T>(self.entity())
    }
}

/// One row of a [`DynamicQuery`], with its written components writable: one
/// row at a time, and one writable view of it at a time.
pub struct DynamicRowMut<'w, 'q> {
    world: &'w World,
    archetype: &'w Archetype,
    row: usize,
    /// What writes are stamped with. The visit holds the query's written
    /// components exclusively: through `&mut World`, or as a system whose
    /// access the schedule checked.
    tick: Tick,
    query: &'q DynamicQuery,
}

impl DynamicRowMut<'_, '_> {
    /// The row's entity.
    pub fn entity(&self) -> Entity {
        self.archetype.entities()[self.row]
    }

    /// Component `id` through its schema, read-only.
    ///
    /// # Panics
    /// As for [`DynamicRow::get`].
    #[track_caller]
    pub fn get(&self, id: ComponentId) -> Option<ComponentRef<'_>> {
        assert!(
            self.query.term(id).is_some(),
            "the query does not fetch component {}",
            self.world.components().name(id)
        );
        match self.world.get_by_id(self.entity(), id) {
            Ok(view) => Some(view),
            Err(EcsError::MissingComponent { .. }) => None,
            Err(error) => panic!("{error}"),
        }
    }

    /// Component `id` as its Rust type `T`, read-only; `None` as for
    /// [`DynamicRow::get_typed`].
    pub fn get_typed<T: crate::Component + crate::component::WholeComponent>(&self, id: ComponentId) -> Option<&T> {
        self.query.term(id)?;
        if crate::component::component_id::<T>() != id {
            return None;
        }
        self.world.get::<T>(self.entity())
    }

    /// Component `id` through its schema, writable; each write marks it
    /// changed. `None` when an optional component is absent.
    ///
    /// # Panics
    /// When the query does not write `id`, or the component has no schema.
    #[track_caller]
    pub fn get_mut(&mut self, id: ComponentId) -> Option<ComponentMut<'_>> {
        let components = self.world.components();
        assert!(
            matches!(self.query.term(id), Some((_, Term::Write))),
            "the query does not write component {}",
            components.name(id)
        );
        let info = components.get(id).expect("a built query's components are its world's");
        if info.kind().is_none() {
            panic!("{}", EcsError::NotDescribed { component: info.name() });
        }
        let column = self.archetype.column(id)?;
        if !column.holds(self.row) {
            return None;
        }
        // SAFETY: the row holds a value (checked) of a component with a schema
        // that the query writes, below the column's length. The visit holds
        // the query's written components exclusively (see `tick`), hands out
        // one row at a time, and `&mut self` makes this the row's only view
        // meanwhile; a kept tick is the row's own.
        unsafe {
            let (ptr, bases, ticks, summary) = column.get_tracked_raw_shared(self.row);
            let view = ComponentRef::of_row(info, ptr, bases, self.row);
            Some(ComponentMut::tracked(view, ticks.map(|t| &mut *t.as_ptr()), summary, self.tick))
        }
    }
}

/// The rows of one archetype a [`DynamicQuery`] matches, as typed columns.
pub struct DynamicArchetype<'w, 'q> {
    world: &'w World,
    archetype: &'w Archetype,
    query: &'q DynamicQuery,
    /// The tick writes are stamped with: `Some` only for a view made by
    /// [`DynamicQuery::for_each_archetype_mut`] or its parallel form, which
    /// hold the world mutably, or by a system running the query (whose
    /// written components nothing else touches meanwhile: the schedule checked
    /// its access), and visit each archetype once, on one thread.
    write: Option<Tick>,
    /// What is lent: (term, lane or [`WHOLE`], mutably). Owned by the visit
    /// and emptied for each archetype, so that views allocate nothing.
    lent: &'q RefCell<Ledger>,
}

/// A column of a component stored whole, read row by row through its schema:
/// made by [`DynamicArchetype::rows`]. Lent for the archetype view's life.
pub struct SchemaRows<'a> {
    info: &'a ComponentInfo,
    base: core::ptr::NonNull<u8>,
    len: usize,
    marker: core::marker::PhantomData<&'a ()>,
}

impl SchemaRows<'_> {
    /// How many rows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Row `row`'s value; `None` past the last row.
    #[inline]
    pub fn get(&self, row: usize) -> Option<ComponentRef<'_>> {
        if row >= self.len {
            return None;
        }
        // SAFETY: a row below the length of a column of whole values with a
        // schema (`rows` checked), which nothing writes while it is lent
        // shared (the view's ledger).
        let ptr = unsafe { self.base.add(row * self.info.layout().size()) };
        Some(ComponentRef::whole(self.info, ptr))
    }
}

/// A column of a component stored whole, read and written row by row through
/// its schema: made by [`DynamicArchetype::rows_mut`]. One row's view at a
/// time (`get_mut` borrows it mutably); lent once per archetype view.
pub struct SchemaRowsMut<'a> {
    info: &'a ComponentInfo,
    base: core::ptr::NonNull<u8>,
    len: usize,
    marker: core::marker::PhantomData<&'a mut ()>,
}

impl SchemaRowsMut<'_> {
    /// How many rows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Row `row`'s value, writable (the row is stamped changed already);
    /// `None` past the last row.
    #[inline]
    pub fn get_mut(&mut self, row: usize) -> Option<ComponentMut<'_>> {
        if row >= self.len {
            return None;
        }
        // SAFETY: a row below the length of a column of whole values with a
        // schema, lent uniquely to this value (the view's ledger), and one
        // row's view at a time (`&mut self`).
        let ptr = unsafe { self.base.add(row * self.info.layout().size()) };
        Some(ComponentMut::untracked(ComponentRef::whole(self.info, ptr)))
    }
}

/// One field of a component stored whole, row by row at the value's stride:
/// made by [`DynamicArchetype::field_rows`]. Lent for the archetype view's life.
pub struct FieldRows<'a, F> {
    /// The field in row 0.
    base: NonNull<u8>,
    /// The value's size: the distance between rows.
    stride: usize,
    len: usize,
    marker: PhantomData<&'a F>,
}

impl<F: FieldValue> FieldRows<'_, F> {
    /// How many rows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Row `row`'s value of the field; `None` past the last row.
    #[inline]
    pub fn get(&self, row: usize) -> Option<F> {
        // SAFETY: a row below the length holds a valid `F` at the field's offset
        // (the schema's kind is `F`'s), aligned (the value's stride and the
        // field's offset are multiples of `F`'s alignment); nothing writes it
        // while this view lives (the ledger).
        (row < self.len).then(|| unsafe { self.base.add(row * self.stride).cast::<F>().read() })
    }

    /// Each row's value of the field, in row order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = F> + '_ {
        // SAFETY: as in `get`, for each row below the length.
        (0..self.len).map(move |row| unsafe { self.base.add(row * self.stride).cast::<F>().read() })
    }

    /// The rows as one slice, when they lie side by side: the component is
    /// this field alone (a newtype, `struct Hp(f32)`). `None` otherwise.
    pub fn as_slice(&self) -> Option<&[F]> {
        // SAFETY: with the stride equal to `F`'s size, the rows' fields are
        // `len` consecutive `F`s from `base`, each valid and aligned (as in
        // `get`); nothing writes them while this view lives (the ledger).
        (self.stride == size_of::<F>())
            .then(|| unsafe { core::slice::from_raw_parts(self.base.as_ptr().cast::<F>(), self.len) })
    }
}

/// [`FieldRows`], writable: made by [`DynamicArchetype::field_rows_mut`].
pub struct FieldRowsMut<'a, F> {
    base: NonNull<u8>,
    stride: usize,
    len: usize,
    marker: PhantomData<&'a mut F>,
}

impl<'a, F: FieldValue> FieldRowsMut<'a, F> {
    /// How many rows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Row `row`'s value of the field; `None` past the last row.
    #[inline]
    pub fn get(&self, row: usize) -> Option<F> {
        // SAFETY: as in `FieldRows::get`; `&self` excludes `get_mut`'s borrows.
        (row < self.len).then(|| unsafe { self.base.add(row * self.stride).cast::<F>().read() })
    }

    /// Row `row`'s field, writable; `None` past the last row.
    #[inline]
    pub fn get_mut(&mut self, row: usize) -> Option<&mut F> {
        // SAFETY: as in `get`; the field is lent uniquely to this value (the
        // ledger) and `&mut self` makes this the only borrow of it; any bits
        // written through an `F` are a valid `F` (plain data, `Copy`).
        (row < self.len).then(|| unsafe { self.base.add(row * self.stride).cast::<F>().as_mut() })
    }

    /// The rows as one writable slice, when they lie side by side (see
    /// [`FieldRows::as_slice`]). `None` otherwise.
    pub fn as_mut_slice(&mut self) -> Option<&mut [F]> {
        // SAFETY: as in `FieldRows::as_slice`; the field is lent uniquely to
        // this value (the ledger) and `&mut self` makes the slice the only
        // borrow of it; any bits written through an `F` are a valid `F`.
        (self.stride == size_of::<F>())
            .then(|| unsafe { core::slice::from_raw_parts_mut(self.base.as_ptr().cast::<F>(), self.len) })
    }

    /// [`as_mut_slice`](Self::as_mut_slice) for the view's whole life; the
    /// view back when its rows are not side by side.
    ///
    /// # Errors
    /// `self`, when the component holds more than this field.
    pub fn into_mut_slice(self) -> Result<&'a mut [F], Self> {
        if self.stride != size_of::<F>() {
            return Err(self);
        }
        // SAFETY: as in `as_mut_slice`; the view is consumed, so the slice is
        // the only borrow of the field for the rest of the lend `'a`.
        Ok(unsafe { core::slice::from_raw_parts_mut(self.base.as_ptr().cast::<F>(), self.len) })
    }

    /// Each row's field, writable, in row order.
    pub fn iter_mut(&mut self) -> impl ExactSizeIterator<Item = &mut F> + '_ {
        let (base, stride) = (self.base, self.stride);
        // SAFETY: as in `get_mut`; each row's field is handed out once, and
        // fields of distinct rows do not overlap (the stride is the value's
        // size, at least the field's).
        (0..self.len).map(move |row| unsafe { base.add(row * stride).cast::<F>().as_mut() })
    }
}

/// A whole column, as opposed to one field's lane.
const WHOLE: usize = usize::MAX;

impl DynamicArchetype<'_, '_> {
    /// The archetype's entities, row by row.
    pub fn entities(&self) -> &[Entity] {
        self.archetype.entities()
    }

    /// The term of `id` and its column here, with the component's info.
    #[track_caller]
    fn term_column(&self, id: ComponentId, write: bool) -> Option<(usize, &Column, &ComponentInfo)> {
        let info = self.world.components().get(id)?;
        let Some((index, term)) = self.query.term(id) else {
            panic!("the query does not fetch component {}", info.name());
        };
        assert!(!write || term == Term::Write, "the query does not write component {}", info.name());
        assert!(
            !self.query.per_row,
            "the query filters rows one by one (a sparse or tag component): visit it row by row"
        );
        if info.is_sparse() {
            return None;
        }
        Some((index, self.archetype.column(id)?, info))
    }

    /// Records a loan of `(term, lane)`, refusing one that would alias.
    #[track_caller]
    fn lend(&self, term: usize, lane: usize, unique: bool) {
        let mut lent = self.lent.borrow_mut();
        if !unique && lent.contains(&(term, lane, false)) {
            // Shared already: one entry is enough (row reads lend per row).
            return;
        }
        let overlaps = |&&(t, l, u): &&(usize, usize, bool)| {
            t == term && (l == lane || l == WHOLE || lane == WHOLE) && (u || unique)
        };
        assert!(!lent.iter().any(|l| overlaps(&l)), "the column (or field) is lent already in this view");
        lent.push((term, lane, unique));
    }

    /// Component `id`'s column as a slice of its Rust type `T`, one value per
    /// row; `None` when `T` is not the component's type, the component is
    /// stored per field (see [`field`](Self::field)) or sparse, or the
    /// archetype lacks it (an optional term).
    ///
    /// # Panics
    /// When the query does not fetch `id`, filters rows one by one (a sparse
    /// or tag term: visit rows instead), or the column is lent mutably.
    #[track_caller]
    pub fn column<T: 'static>(&self, id: ComponentId) -> Option<&[T]> {
        let (term, column, info) = self.term_column(id, false)?;
        if info.type_id() != TypeId::of::<T>() || info.fields().is_some() {
            return None;
        }
        self.lend(term, WHOLE, false);
        // SAFETY: the column stores whole `T`s (its component's type, checked),
        // one per row of the archetype; nothing writes it while this view
        // lives: a writable view lends a column mutably only when no part of it
        // is lent (the ledger).
        Some(unsafe { core::slice::from_raw_parts(column.data_ptr().as_ptr().cast::<T>(), self.archetype.len()) })
    }

    /// Component `id`'s column as a mutable slice of `T`, every row counted
    /// as written (as a typed `&mut T` pass counts the rows it hands out).
    /// Each written column is lent once per archetype view, so several
    /// columns can be written side by side.
    ///
    /// # Panics
    /// As for [`column`](Self::column); also when the view is read-only (from
    /// [`for_each_archetype`](DynamicQuery::for_each_archetype)), the query
    /// does not write `id`, or the column is lent already.
    #[track_caller]
    #[allow(clippy::mut_from_ref, reason = "each column is lent once, tracked by the ledger")]
    pub fn column_mut<T: 'static>(&self, id: ComponentId) -> Option<&mut [T]> {
        let tick = self.write.expect("a read-only archetype view: use `for_each_archetype_mut`");
        let (term, column, info) = self.term_column(id, true)?;
        if info.type_id() != TypeId::of::<T>() || info.fields().is_some() {
            return None;
        }
        self.lend(term, WHOLE, true);
        let len = self.archetype.len();
        self.stamp(column, len, tick);
        // SAFETY: as in `column`; `write` is `Some`, so nothing else touches
        // the written column for the whole visit (the world is held mutably,
        // or a system's access was checked), which visits this archetype on
        // one thread only, and the column is lent once (the ledger), so the
        // slice is unique.
        Some(unsafe { core::slice::from_raw_parts_mut(column.data_ptr().as_ptr().cast::<T>(), len) })
    }

    /// How many rows (entities) the archetype holds.
    pub fn len(&self) -> usize {
        self.archetype.len()
    }

    /// `true` when the archetype holds no entity (never, in a visit).
    pub fn is_empty(&self) -> bool {
        self.archetype.is_empty()
    }

    /// Component `id`'s values through its schema, row by row, to read (see
    /// [`SchemaRows`]): the column of a component stored whole that has no
    /// Rust type here. `None` as for [`for_each_row`](Self::for_each_row).
    ///
    /// # Panics
    /// As for [`column`](Self::column).
    #[track_caller]
    pub fn rows(&self, id: ComponentId) -> Option<SchemaRows<'_>> {
        let (term, column, info) = self.term_column(id, false)?;
        if info.kind().is_none() || info.fields().is_some() {
            return None;
        }
        self.lend(term, WHOLE, false);
        Some(SchemaRows { info, base: column.data_ptr(), len: self.archetype.len(), marker: core::marker::PhantomData })
    }

    /// Component `id`'s values through its schema, row by row, writable (see
    /// [`SchemaRowsMut`]); every row counts as written, as with
    /// [`column_mut`](Self::column_mut).
    ///
    /// # Panics
    /// As for [`column_mut`](Self::column_mut).
    #[track_caller]
    pub fn rows_mut(&self, id: ComponentId) -> Option<SchemaRowsMut<'_>> {
        let tick = self.write.expect("a read-only archetype view: use `for_each_archetype_mut`");
        let (term, column, info) = self.term_column(id, true)?;
        if info.kind().is_none() || info.fields().is_some() {
            return None;
        }
        self.lend(term, WHOLE, true);
        let len = self.archetype.len();
        self.stamp(column, len, tick);
        Some(SchemaRowsMut { info, base: column.data_ptr(), len, marker: core::marker::PhantomData })
    }

    /// Row `row`'s value of component `id` through its schema (see
    /// [`ComponentRef`]); `None` as for [`for_each_row`](Self::for_each_row),
    /// or past the last row.
    ///
    /// # Panics
    /// As for [`column`](Self::column).
    #[track_caller]
    pub fn get(&self, id: ComponentId, row: usize) -> Option<ComponentRef<'_>> {
        let (term, column, info) = self.term_column(id, false)?;
        if info.kind().is_none() || info.fields().is_some() || row >= self.archetype.len() {
            return None;
        }
        self.lend(term, WHOLE, false);
        // SAFETY: a row below the length of a column of whole values with a
        // schema, read only while this view lives (the ledger keeps writers
        // off it).
        let ptr = unsafe { column.data_ptr().add(row * info.layout().size()) };
        Some(ComponentRef::whole(info, ptr))
    }

    /// Calls `f` with each row's value of component `id` through its schema
    /// (see [`ComponentRef`]): the way to read a component stored whole that
    /// has no Rust type here (one defined at run time). `false` when the
    /// component has no schema or is stored per field or sparse, or the
    /// archetype lacks it.
    ///
    /// # Panics
    /// As for [`column`](Self::column).
    #[track_caller]
    pub fn for_each_row(&self, id: ComponentId, mut f: impl FnMut(usize, ComponentRef<'_>)) -> bool {
        let Some(rows) = self.rows(id) else { return false };
        for row in 0..rows.len() {
            f(row, rows.get(row).expect("below the length"));
        }
        true
    }

    /// Calls `f` with each row's value of component `id` through its schema,
    /// writable (see [`ComponentMut`]); every row counts as written, as with
    /// [`column_mut`](Self::column_mut). `false` as for
    /// [`for_each_row`](Self::for_each_row).
    ///
    /// # Panics
    /// As for [`column_mut`](Self::column_mut).
    #[track_caller]
    pub fn for_each_row_mut(&self, id: ComponentId, mut f: impl FnMut(usize, ComponentMut<'_>)) -> bool {
        let Some(mut rows) = self.rows_mut(id) else { return false };
        for row in 0..rows.len() {
            f(row, rows.get_mut(row).expect("below the length"));
        }
        true
    }

    /// The lane of field `name` of a per-field component (`#[component(describe,
    /// layout = "soa")]`), when it holds `F`.
    fn lane<F: FieldValue>(&self, info: &ComponentInfo, name: &str) -> Option<usize> {
        let (Some(FieldKind::Struct(schema)), Some(lanes)) = (info.kind(), info.fields()) else { return None };
        let field = schema.field(name)?;
        if !field.kind().same_as(&F::KIND) {
            return None;
        }
        // Each field's lane, in the struct's order, starts at the field's offset.
        lanes.iter().position(|lane| lane.offset == field.offset() && lane.layout.size() == size_of::<F>())
    }

    /// Field `name` of a per-field component (`#[component(describe, layout =
    /// "soa")]`), one value per row in its own array: the slice a loop over
    /// one field wants. `None` when the component is not per-field and
    /// described, has no such field, or the field does not hold `F`.
    ///
    /// # Panics
    /// As for [`column`](Self::column), and when the field is lent mutably.
    #[track_caller]
    pub fn field<F: FieldValue>(&self, id: ComponentId, name: &str) -> Option<&[F]> {
        let (term, column, info) = self.term_column(id, false)?;
        let lane = self.lane::<F>(info, name)?;
        self.lend(term, lane, false);
        let base = *column.lane_bases()?.get(lane)?;
        // SAFETY: the lane holds one `F` per row (its field's kind is `F`'s,
        // checked against the component's own schema, and its size); nothing
        // writes it while this view lives (the ledger).
        Some(unsafe { core::slice::from_raw_parts(base.as_ptr().cast::<F>(), self.archetype.len()) })
    }

    /// [`field`](Self::field), writable: every row counted as written.
    ///
    /// # Panics
    /// As for [`column_mut`](Self::column_mut).
    #[track_caller]
    #[allow(clippy::mut_from_ref, reason = "each lane is lent once, tracked by the ledger")]
    pub fn field_mut<F: FieldValue>(&self, id: ComponentId, name: &str) -> Option<&mut [F]> {
        let tick = self.write.expect("a read-only archetype view: use `for_each_archetype_mut`");
        let (term, column, info) = self.term_column(id, true)?;
        let lane = self.lane::<F>(info, name)?;
        self.lend(term, lane, true);
        let base = *column.lane_bases()?.get(lane)?;
        let len = self.archetype.len();
        self.stamp(column, len, tick);
        // SAFETY: as in `field`; nothing else touches the written component
        // for the visit (as in `column_mut`), which visits this archetype on
        // one thread only, and the lane is lent
        // once (the ledger); `F` is `Copy` plain data, any bit
        // pattern written through it a valid `F`.
        Some(unsafe { core::slice::from_raw_parts_mut(base.as_ptr().cast::<F>(), len) })
    }

    /// Top-level field `name` of a component stored whole, when it holds
    /// `F`: its index (the ledger's key) and offset in the value.
    fn strided_field<F: FieldValue>(&self, info: &ComponentInfo, name: &str) -> Option<(usize, usize)> {
        let Some(FieldKind::Struct(schema)) = info.kind() else { return None };
        if info.fields().is_some() {
            return None;
        }
        let index = schema.fields().iter().position(|f| f.name() == name)?;
        let field = &schema.fields()[index];
        field.kind().same_as(&F::KIND).then_some((index, field.offset()))
    }

    /// Field `name` of a component stored whole (the default layout), row by
    /// row: a strided view of one field across the column, checked once per
    /// archetype, so a loop over it reads one field at a fixed stride with no
    /// per-row lookup. `None` when the component is per-field (see
    /// [`field`](Self::field)) or has no schema, no such top-level field, or
    /// the field does not hold `F`.
    ///
    /// # Panics
    /// As for [`column`](Self::column), and when the field is lent mutably.
    #[track_caller]
    pub fn field_rows<F: FieldValue>(&self, id: ComponentId, name: &str) -> Option<FieldRows<'_, F>> {
        let (term, column, info) = self.term_column(id, false)?;
        let (index, offset) = self.strided_field::<F>(info, name)?;
        self.lend(term, index, false);
        // SAFETY: the field lies at `offset` inside each value (the schema).
        let base = unsafe { column.data_ptr().add(offset) };
        Some(FieldRows { base, stride: info.layout().size(), len: self.archetype.len(), marker: PhantomData })
    }

    /// [`field_rows`](Self::field_rows), writable: every row counted as
    /// written, as with [`column_mut`](Self::column_mut). Other fields of the
    /// same component can be lent beside it.
    ///
    /// # Panics
    /// As for [`column_mut`](Self::column_mut).
    #[track_caller]
    pub fn field_rows_mut<F: FieldValue>(&self, id: ComponentId, name: &str) -> Option<FieldRowsMut<'_, F>> {
        let tick = self.write.expect("a read-only archetype view: use `for_each_archetype_mut`");
        let (term, column, info) = self.term_column(id, true)?;
        let (index, offset) = self.strided_field::<F>(info, name)?;
        self.lend(term, index, true);
        let len = self.archetype.len();
        self.stamp(column, len, tick);
        // SAFETY: as in `field_rows`.
        let base = unsafe { column.data_ptr().add(offset) };
        Some(FieldRowsMut { base, stride: info.layout().size(), len, marker: PhantomData })
    }

    /// Counts every row of a written column as written, as a typed `&mut T`
    /// pass does: stamped when a `Changed` query watches the component.
    fn stamp(&self, column: &Column, len: usize, tick: Tick) {
        if column.tracks_changes() {
            // SAFETY: `write` is `Some` (checked by the caller): the visit holds
            // the world mutably, or is a system's whose access the schedule
            // checked, and visits this archetype on one thread; the rows' ticks
            // are written by nothing else; a column that tracks changes keeps
            // ticks.
            unsafe { crate::query::fetch::stamp_rows(column, 0..len, tick) };
        }
    }
}
