//! [`Access`]: which components a query reads and writes, and the aliasing check.

use crate::component::ComponentId;

/// The components a query reads and writes, by id and type name.
#[derive(Clone, Debug, Default)]
pub struct Access {
    reads: Vec<(ComponentId, &'static str)>,
    /// Components whose changes a filter watches (`Changed<T>`).
    watched: Vec<ComponentId>,
    /// Components whose per-row ticks a filter scans (`Changed<T>`, `Added<T>`):
    /// it reads rows it does not yield, ahead of the presence filters beside it.
    tick_scans: Vec<ComponentId>,
    /// Components whose presence a filter tests row by row (`With<T>`/`Without<T>`
    /// of a tag or sparse component): a disjointness proof through one of them
    /// separates rows of one archetype, not archetypes.
    per_row: Vec<ComponentId>,
    writes: Vec<(ComponentId, &'static str)>,
    conflicts: Vec<String>,
}

impl Access {
    /// Records a shared read of a component.
    pub fn add_read(&mut self, id: ComponentId, name: &'static str) {
        if self.writes.iter().any(|&(w, _)| w == id) {
            self.conflicts.push(format!("`{name}` is borrowed mutably (`&mut {name}`) and also shared (`&{name}`)"));
        }
        self.reads.push((id, name));
    }

    /// Records a read by a filter (`Changed<T>` reads `T`'s ticks). A filter runs
    /// before the row's item is made, so it may read what the query's items write:
    /// this never conflicts within the query, but counts as a read for others.
    pub fn add_filter_read(&mut self, id: ComponentId, name: &'static str) {
        self.reads.push((id, name));
    }

    /// Records that a filter scans the component's per-row ticks (`Changed<T>`,
    /// `Added<T>`), rows it will not yield included. Such a filter may not run
    /// beside a writer of `T` that is kept apart from it only per row (see
    /// [`add_presence_read`](Self::add_presence_read)).
    pub fn add_tick_scan(&mut self, id: ComponentId) {
        self.tick_scans.push(id);
    }

    /// The components whose ticks a filter scans.
    pub fn tick_scans(&self) -> &[ComponentId] {
        &self.tick_scans
    }

    /// Records a filter that tests a tag or sparse component's presence row by
    /// row (`With<T>`/`Without<T>`): a read of its presence, and a mark that a
    /// disjointness proof through `T` holds per row only.
    pub fn add_presence_read(&mut self, id: ComponentId, name: &'static str) {
        self.add_filter_read(id, name);
        self.per_row.push(id);
    }

    /// Records that which rows the query yields depends, row by row, on `id`'s
    /// presence (`&T` of a tag or sparse component): a disjointness proof
    /// through it separates rows, not archetypes.
    pub(crate) fn add_per_row(&mut self, id: ComponentId) {
        self.per_row.push(id);
    }

    /// The components whose presence a filter tests per row.
    pub fn per_row(&self) -> &[ComponentId] {
        &self.per_row
    }

    /// Records that a filter watches the component's changes (`Changed<T>`), so
    /// writes to it must be stamped per row.
    pub fn watch_changes(&mut self, id: ComponentId) {
        self.watched.push(id);
    }

    /// The components whose changes the query watches.
    pub fn watched(&self) -> &[ComponentId] {
        &self.watched
    }

    /// Records a write of a component.
    pub fn add_write(&mut self, id: ComponentId, name: &'static str) {
        if self.writes.iter().any(|&(w, _)| w == id) {
            self.conflicts.push(format!("`{name}` is borrowed mutably twice (`&mut {name}` appears twice)"));
        } else if self.reads.iter().any(|&(r, _)| r == id) {
            self.conflicts.push(format!("`{name}` is borrowed mutably (`&mut {name}`) and also shared (`&{name}`)"));
        }
        self.writes.push((id, name));
    }

    /// Records a write without checking for aliasing (for unions of accesses).
    pub(crate) fn add_write_unchecked(&mut self, id: ComponentId, name: &'static str) {
        self.writes.push((id, name));
    }

    /// The components read, with their names.
    pub fn reads(&self) -> &[(ComponentId, &'static str)] {
        &self.reads
    }

    /// The components written, with their names.
    pub fn writes(&self) -> &[(ComponentId, &'static str)] {
        &self.writes
    }

    /// `true` when the query writes nothing.
    pub fn is_read_only(&self) -> bool {
        self.writes.is_empty()
    }

    /// Descriptions of the aliasing found while recording.
    pub fn conflicts(&self) -> &[String] {
        &self.conflicts
    }

    /// `true` when `other` touches a component that `self` writes, or writes one
    /// that `self` reads: the two cannot run at the same time.
    pub fn conflicts_with(&self, other: &Access) -> bool {
        let writes = |a: &Access, id: ComponentId| a.writes.iter().any(|&(w, _)| w == id);
        self.writes.iter().any(|&(id, _)| writes(other, id) || other.reads.iter().any(|&(r, _)| r == id))
            || other.writes.iter().any(|&(id, _)| self.reads.iter().any(|&(r, _)| r == id))
    }
}

/// What every row a query yields has and lacks, as a disjunction of clauses
/// (one per way through its `Or` filters): each clause names components the
/// row has (`&T`, `With<T>`) and components it lacks (`Without<T>`). Two
/// queries never yield the same row when every clause of one contradicts every
/// clause of the other.
///
/// A query without `Or` has one clause. Past [`Clauses::LIMIT`] clauses the
/// proof is dropped (one empty clause, proving nothing): that only refuses
/// more, never less.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clauses {
    clauses: Vec<Clause>,
}

/// One way a row can pass: components it has, and components it lacks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Clause {
    /// Components every row of this clause has.
    pub with: Vec<ComponentId>,
    /// Components no row of this clause has.
    pub without: Vec<ComponentId>,
}

impl Default for Clauses {
    fn default() -> Self {
        Self::new()
    }
}

impl Clauses {
    /// The most clauses a proof keeps.
    pub const LIMIT: usize = 64;

    /// One empty clause: no proof yet.
    pub fn new() -> Self {
        Self { clauses: vec![Clause::default()] }
    }

    /// One clause: rows that have every component of `with` and none of `without`.
    pub fn one(with: Vec<ComponentId>, without: Vec<ComponentId>) -> Self {
        Self { clauses: vec![Clause { with, without }] }
    }

    /// Every row has `id`, in every clause.
    pub fn with(&mut self, id: ComponentId) {
        self.clauses.iter_mut().for_each(|clause| clause.with.push(id));
    }

    /// No row has `id`, in any clause.
    pub fn without(&mut self, id: ComponentId) {
        self.clauses.iter_mut().for_each(|clause| clause.without.push(id));
    }

    /// The rows of `self` or of `other` (an `Or`).
    pub fn or(&mut self, other: Clauses) {
        self.clauses.extend(other.clauses);
        if self.clauses.len() > Self::LIMIT {
            *self = Self::new();
        }
    }

    /// The clauses.
    pub fn clauses(&self) -> &[Clause] {
        &self.clauses
    }
}
