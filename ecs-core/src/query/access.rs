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
