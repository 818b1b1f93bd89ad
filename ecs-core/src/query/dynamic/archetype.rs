//! One archetype of a dynamic query: [`DynamicArchetype`], its columns lent
//! as typed slices (of whole values or of one field's lane), checked once
//! per archetype, each loan recorded so that nothing is lent twice mutably.

use core::any::TypeId;
use core::cell::RefCell;
use core::marker::PhantomData;

use super::super::ledger::Ledger;
use super::rows::{FieldRows, FieldRowsMut, SchemaRows, SchemaRowsMut};
use super::{DynamicQuery, Term};
use crate::archetype::Archetype;
use crate::component::{ComponentId, ComponentInfo, FieldKind};
use crate::entity::Entity;
use crate::storage::{Column, Tick};
use crate::world::{ComponentMut, ComponentRef, FieldValue, World};

/// The rows of one archetype a [`DynamicQuery`] matches, as typed columns.
pub struct DynamicArchetype<'w, 'q> {
    pub(super) world: &'w World,
    pub(super) archetype: &'w Archetype,
    pub(super) query: &'q DynamicQuery,
    /// The tick writes are stamped with: `Some` only for a view made by
    /// [`DynamicQuery::for_each_archetype_mut`] or its parallel form, which
    /// hold the world mutably, or by a system running the query (whose
    /// written components nothing else touches meanwhile: the schedule checked
    /// its access), and visit each archetype once, on one thread.
    pub(super) write: Option<Tick>,
    /// What is lent: (term, lane or [`WHOLE`], mutably). Owned by the visit
    /// and emptied for each archetype, so that views allocate nothing.
    pub(super) lent: &'q RefCell<Ledger>,
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
