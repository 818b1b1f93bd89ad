//! A dynamic archetype's columns lent row by row: [`SchemaRows`] (values
//! through their schema) and [`FieldRows`] (one field of each row, where the
//! field has no lane of its own), each with its writable form.

use core::marker::PhantomData;
use core::ptr::NonNull;

use crate::component::ComponentInfo;
use crate::world::{ComponentMut, ComponentRef, FieldValue};

/// A column of a component stored whole, read row by row through its schema:
/// made by [`DynamicArchetype::rows`](super::DynamicArchetype::rows). Lent for the archetype view's life.
pub struct SchemaRows<'a> {
    pub(super) info: &'a ComponentInfo,
    pub(super) base: core::ptr::NonNull<u8>,
    pub(super) len: usize,
    pub(super) marker: core::marker::PhantomData<&'a ()>,
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
/// its schema: made by [`DynamicArchetype::rows_mut`](super::DynamicArchetype::rows_mut). One row's view at a
/// time (`get_mut` borrows it mutably); lent once per archetype view.
pub struct SchemaRowsMut<'a> {
    pub(super) info: &'a ComponentInfo,
    pub(super) base: core::ptr::NonNull<u8>,
    pub(super) len: usize,
    pub(super) marker: core::marker::PhantomData<&'a mut ()>,
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
/// made by [`DynamicArchetype::field_rows`](super::DynamicArchetype::field_rows). Lent for the archetype view's life.
pub struct FieldRows<'a, F> {
    /// The field in row 0.
    pub(super) base: NonNull<u8>,
    /// The value's size: the distance between rows.
    pub(super) stride: usize,
    pub(super) len: usize,
    pub(super) marker: PhantomData<&'a F>,
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

/// [`FieldRows`], writable: made by [`DynamicArchetype::field_rows_mut`](super::DynamicArchetype::field_rows_mut).
pub struct FieldRowsMut<'a, F> {
    pub(super) base: NonNull<u8>,
    pub(super) stride: usize,
    pub(super) len: usize,
    pub(super) marker: PhantomData<&'a mut F>,
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
