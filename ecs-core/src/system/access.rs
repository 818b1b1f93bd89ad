//! [`SystemAccess`]: everything one system parameter (or a whole system) reads and
//! writes, and the rules for when two of them conflict.

use core::any::TypeId;

use crate::component::ComponentId;
use crate::query::{Access, Clause, Clauses};

/// The data a system parameter or a system touches.
#[derive(Clone, Debug, Default)]
pub struct SystemAccess {
    components: Access,
    /// What every row the parameter touches has and lacks (`&T`, `With<T>`,
    /// `Without<T>`, one clause per way through its `Or` filters).
    clauses: Clauses,
    resource_reads: Vec<(TypeId, &'static str)>,
    resource_writes: Vec<(TypeId, &'static str)>,
    /// Reads the whole world (`&World`).
    world: bool,
}

impl SystemAccess {
    /// A query's access, with its disjointness proof.
    pub fn query(components: Access, with: Vec<ComponentId>, without: Vec<ComponentId>) -> Self {
        Self::query_clauses(components, Clauses::one(with, without))
    }

    /// A query's access, with its disjointness proof as clauses (see [`Clauses`]).
    pub fn query_clauses(components: Access, clauses: Clauses) -> Self {
        Self { components, clauses, ..Self::default() }
    }

    /// Reads a resource.
    pub fn read_resource<R: 'static>() -> Self {
        Self { resource_reads: vec![(TypeId::of::<R>(), crate::names::type_name::<R>())], ..Self::default() }
    }

    /// Writes a resource.
    pub fn write_resource<R: 'static>() -> Self {
        Self { resource_writes: vec![(TypeId::of::<R>(), crate::names::type_name::<R>())], ..Self::default() }
    }

    /// Reads everything (`&World`).
    pub fn read_world() -> Self {
        Self { world: true, ..Self::default() }
    }

    /// `true` when nothing is written.
    pub fn is_read_only(&self) -> bool {
        self.components.is_read_only() && self.resource_writes.is_empty()
    }

    /// Adds another parameter's access (for a whole system). The union keeps no
    /// disjointness proof: a system as a whole is compared by what it touches.
    pub fn extend(&mut self, other: &SystemAccess) {
        for &(id, name) in other.components.reads() {
            self.components.add_filter_read(id, name);
        }
        for &(id, name) in other.components.writes() {
            self.components.add_write_unchecked(id, name);
        }
        self.resource_reads.extend_from_slice(&other.resource_reads);
        self.resource_writes.extend_from_slice(&other.resource_writes);
        self.world |= other.world;
        self.clauses = Clauses::new();
    }

    /// How far the two parameters' disjointness proofs keep them apart: for
    /// every clause of one and every clause of the other, some component every
    /// row of one has and no row of the other has. The weakest pair decides.
    fn disjoint(&self, other: &SystemAccess) -> Disjoint {
        let per_row = |c: &ComponentId| self.components.per_row().contains(c) || other.components.per_row().contains(c);
        let pair = |a: &Clause, b: &Clause| {
            let proofs =
                a.with.iter().filter(|c| b.without.contains(c)).chain(b.with.iter().filter(|c| a.without.contains(c)));
            let mut found = Disjoint::No;
            for c in proofs {
                if !per_row(c) {
                    return Disjoint::Archetypes;
                }
                found = Disjoint::Rows;
            }
            found
        };
        let mut weakest = Disjoint::Archetypes;
        for a in self.clauses.clauses() {
            for b in other.clauses.clauses() {
                match pair(a, b) {
                    Disjoint::No => return Disjoint::No,
                    Disjoint::Rows => weakest = Disjoint::Rows,
                    Disjoint::Archetypes => {}
                }
            }
        }
        weakest
    }

    /// A component one side writes whose per-row ticks the other side's filter
    /// scans (`Changed`/`Added`, or `With`/`Without` of that very tag or sparse
    /// component): such a filter reads rows the other side hands out, so a proof
    /// that separates rows only does not keep them apart.
    fn scanned_write(&self, other: &SystemAccess) -> Option<&'static str> {
        let scanned = |writer: &SystemAccess, scanner: &SystemAccess| {
            let scans = |id| scanner.components.tick_scans().contains(id) || scanner.components.per_row().contains(id);
            writer.components.writes().iter().find(|(id, _)| scans(id)).map(|&(_, name)| name)
        };
        scanned(self, other).or_else(|| scanned(other, self))
    }

    /// Why `self` and `other` cannot run at the same time, or `None` when they can.
    pub fn conflict(&self, other: &SystemAccess) -> Option<String> {
        self.conflict_kind(other).map(|(why, _)| why)
    }

    /// [`conflict`](Self::conflict), with what kind of data is shared, which
    /// decides the advice a message gives.
    pub(crate) fn conflict_kind(&self, other: &SystemAccess) -> Option<(String, ConflictKind)> {
        let writes_any = |a: &SystemAccess| !a.is_read_only();
        if (self.world && writes_any(other)) || (other.world && writes_any(self)) {
            return Some(("`&World` reads everything another parameter writes".into(), ConflictKind::World));
        }
        for &(id, name) in &self.resource_writes {
            if other.resource_writes.iter().chain(&other.resource_reads).any(|&(o, _)| o == id) {
                return Some((
                    format!("resource `{name}` is written by one and used by the other"),
                    ConflictKind::Resource,
                ));
            }
        }
        for &(id, name) in &other.resource_writes {
            if self.resource_reads.iter().any(|&(o, _)| o == id) {
                return Some((
                    format!("resource `{name}` is written by one and read by the other"),
                    ConflictKind::Resource,
                ));
            }
        }
        match self.disjoint(other) {
            Disjoint::Archetypes => return None,
            Disjoint::Rows => {
                let name = self.scanned_write(other)?;
                return Some((
                    format!(
                        "component `{name}` is written by one, and a filter of the other (`Changed<{name}>`, \
                         `Added<{name}>`, `With<{name}>` or `Without<{name}>`) reads the ticks of every row it \
                         passes over; their `With`/`Without` filters name a tag or sparse component, which \
                         separates rows of one archetype, not archetypes, so that filter would read ticks of \
                         rows the writer hands out"
                    ),
                    ConflictKind::RowTicks,
                ));
            }
            Disjoint::No => {}
        }
        let touches = |a: &SystemAccess, id: ComponentId| {
            a.components.reads().iter().chain(a.components.writes()).any(|&(c, _)| c == id)
        };
        for &(id, name) in self.components.writes() {
            if touches(other, id) {
                return Some((
                    format!("component `{name}` is written by one and used by the other"),
                    ConflictKind::Component,
                ));
            }
        }
        for &(id, name) in other.components.writes() {
            if touches(self, id) {
                return Some((
                    format!("component `{name}` is written by one and used by the other"),
                    ConflictKind::Component,
                ));
            }
        }
        None
    }
}

/// What a disjointness proof between two parameters keeps apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Disjoint {
    /// No proof.
    No,
    /// Rows of shared archetypes only: a `With`/`Without` of a tag or sparse component.
    Rows,
    /// Whole archetypes: a `With`/`Without` of a table component.
    Archetypes,
}

/// What two conflicting accesses share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ConflictKind {
    /// `&World` beside a writer.
    World,
    /// A resource.
    Resource,
    /// A component.
    Component,
    /// A component's ticks, read by a filter (`Changed`, `Added`, or a presence
    /// test of the component itself) over rows that a writer, kept apart from it
    /// only per row, hands out.
    RowTicks,
}
