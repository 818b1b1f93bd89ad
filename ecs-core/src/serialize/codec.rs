//! The compact encoding of a column, used by the column format in formats
//! that are not human-readable (postcard, bincode, …).
//!
//! A registry entry is made where its component type is known, but a save is
//! written through a serde serializer the entry cannot name: handing every
//! value to that serializer type-erased (`erased_serde`) costs a virtual call
//! per field in and out, many times the work itself. So in compact formats a
//! column's values travel as byte strings, which the entry writes and reads
//! with a serializer it does know, fully inlined. A column is
//! `(kind, values, ticks)`:
//!
//! - kind [`ENCODED`]: `values` is a sequence of byte strings, each holding
//!   a count of values, then the values in row order, all in the
//!   [postcard](https://postcard.jamesmunns.com/wire-format) wire format (for a
//!   sparse column, each preceded by its row as a postcard `u32`); portable
//!   across machines. The values are cut into strings of about [`CHUNK`] bytes
//!   so that the buffer they are written into stays small, whatever the
//!   column's size;
//! - kind [`RAW`]: `values` is one byte string, the column as it is in memory,
//!   for a table column of a `#[component(pod)]` type written by a
//!   little-endian machine: no encoding at all on the way out, one `memcpy` on
//!   the way in. A big-endian machine writes [`ENCODED`] instead and refuses to
//!   read [`RAW`], naming the component;
//! - `ticks`: runs of values with equal change ticks, each
//!   `(length, added, changed)`; a column whose values were all written
//!   together is one run.
//!
//! Human-readable formats (JSON, RON) keep one serde value per component value
//! and per tick, so a save stays readable there.

use core::marker::PhantomData;
use core::ops::Range;
use core::ptr::NonNull;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::component::Component;
use crate::entity::Entity;
use crate::relationship::RelationshipTarget;
use crate::storage::{Column, ComponentTicks, OwningPtr, Tick};

/// The kind of a column whose values are in the postcard encoding.
pub(crate) const ENCODED: u8 = 0;
/// The kind of a `Pod` table column saved as its bytes, little-endian.
pub(crate) const RAW: u8 = 1;

/// About how many bytes of values one byte string of an [`ENCODED`] column
/// holds: small enough for the buffer to stay in the allocator's small sizes.
pub(crate) const CHUNK: usize = 32 * 1024;

/// What stops a decode: the row, when one value is at fault, and why.
pub(crate) struct DecodeError {
    pub(crate) row: Option<usize>,
    pub(crate) message: String,
}

impl DecodeError {
    pub(crate) fn at(row: usize, message: impl core::fmt::Display) -> Self {
        Self { row: Some(row), message: message.to_string() }
    }

    pub(crate) fn whole(message: impl core::fmt::Display) -> Self {
        Self { row: None, message: message.to_string() }
    }
}

/// How values of a component are written: as themselves, or (for a
/// relationship target) as the list of their sources.
pub(crate) trait Form: 'static {
    type Component: Component;
    fn write<S: Serializer>(value: &Self::Component, serializer: S) -> Result<S::Ok, S::Error>;
    fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self::Component, D::Error>;
}

/// A component written as itself.
pub(crate) struct Plain<T>(PhantomData<fn(T) -> T>);

impl<T: Component + Serialize + DeserializeOwned> Form for Plain<T> {
    type Component = T;

    #[inline]
    fn write<S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
        value.serialize(serializer)
    }

    #[inline]
    fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
        T::deserialize(deserializer)
    }
}

/// A relationship target written as the ordered list of its sources.
pub(crate) struct Sources<T>(PhantomData<fn(T) -> T>);

impl<T: RelationshipTarget> Form for Sources<T> {
    type Component = T;

    fn write<S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
        value.sources().serialize(serializer)
    }

    fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
        let sources = Vec::<Entity>::deserialize(deserializer)?;
        Ok(T::__from_sources(sources))
    }
}

struct Written<'a, F: Form>(&'a F::Component);

impl<F: Form> Serialize for Written<'_, F> {
    #[inline]
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        F::write(self.0, serializer)
    }
}

/// postcard's output, appended to a `Vec` the caller owns (and reuses). The
/// `Vec` keeps its buffer throughout, but its pointer, length and capacity are
/// copied into the flavor, which appends through them: through the `&mut Vec`
/// alone each written run of bytes would reload and store its length, where
/// fields of a local the encode loop owns stay in registers. Growing hands the
/// `Vec` its length and takes the new pointer and capacity back, so the
/// local's address never escapes. `finish` sets the final length; a value
/// whose `Serialize` panics leaves the `Vec` owning its buffer, with only the
/// bytes counted at the last growth (the rest are ignored).
struct Appended<'a> {
    out: &'a mut Vec<u8>,
    ptr: *mut u8,
    len: usize,
    cap: usize,
}

impl<'a> Appended<'a> {
    fn new(out: &'a mut Vec<u8>) -> Self {
        let (ptr, len, cap) = (out.as_mut_ptr(), out.len(), out.capacity());
        Self { out, ptr, len, cap }
    }

    /// Makes the written bytes part of the `Vec`.
    fn finish(self) {
        // SAFETY: `len <= cap`, and the bytes up to `len` are initialized:
        // the `Vec`'s own or written by `try_extend`/`try_push`.
        unsafe { self.out.set_len(self.len) };
    }

    #[cold]
    #[inline(never)]
    fn grow(out: &mut Vec<u8>, len: usize, additional: usize) -> (*mut u8, usize) {
        // SAFETY: as in `finish` (the `Vec`'s buffer is the one written to).
        unsafe { out.set_len(len) };
        out.reserve(additional);
        (out.as_mut_ptr(), out.capacity())
    }
}

impl postcard::ser_flavors::Flavor for Appended<'_> {
    type Output = ();

    #[inline]
    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        if self.cap - self.len < data.len() {
            (self.ptr, self.cap) = Self::grow(self.out, self.len, data.len());
        }
        // SAFETY: `cap - len >= data.len()` (grown just above if not): the
        // bytes fit in the `Vec`'s buffer past `len`, and `data` cannot
        // overlap them (they are spare capacity, which nothing refers to).
        unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), self.ptr.add(self.len), data.len()) };
        self.len += data.len();
        Ok(())
    }

    #[inline]
    fn try_push(&mut self, data: u8) -> postcard::Result<()> {
        if self.cap == self.len {
            (self.ptr, self.cap) = Self::grow(self.out, self.len, 1);
        }
        // SAFETY: `len < cap`, as just checked or grown.
        unsafe { self.ptr.add(self.len).write(data) };
        self.len += 1;
        Ok(())
    }

    fn finalize(self) -> postcard::Result<()> {
        self.finish();
        Ok(())
    }
}

/// Appends the [`ENCODED`] form of the values of `column`'s rows `rows` to
/// `out`: their count, then the values.
///
/// # Safety
/// `column` holds values of `F::Component`.
pub(crate) unsafe fn encode<F: Form>(column: &Column, rows: Range<usize>, out: &mut Vec<u8>) -> Result<(), String> {
    // SAFETY: the column holds `F::Component`s (caller).
    if let Some(values) = unsafe { column.values::<F::Component>() } {
        // A table column: its values side by side, no per-row lookup.
        let values = &values[rows];
        let mut serializer = postcard::Serializer { output: Appended::new(out) };
        let mut written = (values.len() as u32).serialize(&mut serializer);
        for value in values {
            if written.is_err() {
                break;
            }
            written = Written::<F>(value).serialize(&mut serializer);
        }
        serializer.output.finish();
        return written.map_err(|e| e.to_string());
    }
    let mut serializer = postcard::Serializer { output: Appended::new(out) };
    let sparse = column.is_sparse();
    let count = if sparse { rows.clone().filter(|&row| column.holds(row)).count() } else { rows.len() };
    let mut written = (count as u32).serialize(&mut serializer).map_err(|e| e.to_string());
    for row in rows {
        if written.is_err() {
            break;
        }
        written = column
            .with_row(row, |value| {
                if sparse {
                    (row as u32).serialize(&mut serializer).map_err(|e| e.to_string())?;
                }
                // SAFETY: the column holds `F::Component`s (caller).
                let value = unsafe { value.deref::<F::Component>() };
                Written::<F>(value).serialize(&mut serializer).map_err(|e| e.to_string())
            })
            .unwrap_or(Ok(()));
    }
    serializer.output.finish();
    written
}

/// Appends every value one byte string of an [`ENCODED`] column holds to
/// `column`, stamped `tick`, never past `rows` rows. A sparse column gets
/// absent rows up to each row that holds a value.
///
/// # Safety
/// `column` holds values of `F::Component`.
pub(crate) unsafe fn decode<F: Form>(
    bytes: &[u8],
    column: &mut Column,
    rows: usize,
    tick: Tick,
) -> Result<(), DecodeError> {
    let mut deserializer = postcard::Deserializer::from_bytes(bytes);
    let count = u32::deserialize(&mut deserializer).map_err(DecodeError::whole)? as usize;
    let room = rows - column.len();
    if count > room {
        return Err(DecodeError::whole(format_args!("it has more values than the {rows} entities")));
    }
    if column.is_sparse() {
        for _ in 0..count {
            let (row, at) = (column.len(), u32::deserialize(&mut deserializer).map_err(DecodeError::whole)? as usize);
            if at < row || at >= rows {
                return Err(DecodeError::whole(format_args!("row {at} is out of order or beyond the {rows} entities")));
            }
            column.push_absent_rows(at - row);
            let value = F::read(&mut deserializer).map_err(|e| DecodeError::at(at, e))?;
            // SAFETY: the column holds `F::Component`s (caller).
            unsafe { push(column, value, tick) };
        }
    } else {
        // `count` fits in the rows left (checked above), but the values it
        // claims may not follow: room is reserved for at most as many bytes of
        // values as the input holds (or a growth step's worth), and the column
        // grows as values actually arrive.
        let trusted = bytes.len().max(crate::storage::MAPPED_FROM) / column.item_layout().size().max(1);
        column.reserve(count.min(trusted));
        if column.is_split() {
            for _ in 0..count {
                let row = column.len();
                let value = F::read(&mut deserializer).map_err(|e| DecodeError::at(row, e))?;
                column.reserve(1);
                // SAFETY: room for one more value was reserved just above, and one
                // is pushed per turn; the slot is written right away, with a value
                // of the column's type (caller).
                unsafe { column.push_slot(tick).cast::<F::Component>().write(value) };
                column.settle();
            }
        } else {
            // Values go straight into the spare slots, counted once the room
            // is full (counting each, as a push does, stores the column's
            // length and tick summary per value).
            let mut left = count;
            while left > 0 {
                column.reserve(1);
                let mut written = Decoded { column: &mut *column, rows: 0, tick };
                let start = written.column.len();
                let room = (written.column.capacity() - start).min(left);
                // SAFETY: `start` is the length, below the capacity (a slot was
                // reserved just above), of a whole column (checked above).
                let base = unsafe { written.column.spare_slot(start) }.cast::<F::Component>();
                // SAFETY: the `room` slots from `start` are the column's spare
                // ones, for `F::Component`s (caller); `written.rows` is 0.
                // Each slot is counted right after it is written.
                let read = unsafe { F::Component::read_values::<F>(&mut deserializer, base, room, &mut written.rows) };
                read.map_err(|e| DecodeError::at(start + written.rows, e))?;
                left -= room;
            }
        }
    }
    let rest = deserializer.finalize().map_err(DecodeError::whole)?;
    if !rest.is_empty() {
        return Err(DecodeError::whole(format_args!("{} bytes follow its values", rest.len())));
    }
    Ok(())
}

/// Reads the values of a whole column. A provided method of a trait every
/// type implements, because rustc compiles the instances of a provided method
/// with the code of its `Self` type (here the component, next to its own
/// `Deserialize`), where LLVM inlines the value's `deserialize` into the loop.
/// A free function of this crate lands elsewhere, calls `deserialize` out of
/// line for each value and copies the value back through memory.
pub(crate) trait ReadValues: Sized {
    /// Reads up to `room` values into the slots from `base` on, counting each
    /// in `rows` once it is written; stops at the first that fails to read.
    /// Never inlined, so that it stays where the trait method's instances go.
    ///
    /// # Safety
    /// `base` points to `room` writable slots for `Self`s, and `*rows` is at
    /// most `room`.
    #[inline(never)]
    unsafe fn read_values<'de, F: Form<Component = Self>>(
        deserializer: &mut postcard::Deserializer<'de, postcard::de_flavors::Slice<'de>>,
        base: NonNull<Self>,
        room: usize,
        rows: &mut usize,
    ) -> postcard::Result<()> {
        // The loop reads through a deserializer of its own, put back at the
        // end: the caller's is behind a pointer, so its cursor would go
        // through memory at every field read, and a call handed a pointer to
        // a local is one LLVM's inliner credits with keeping that local in
        // registers, so it inlines the values' `deserialize` here more
        // readily. (A panic leaves the caller's empty: the decode is over.)
        let mut local = core::mem::replace(deserializer, postcard::Deserializer::from_bytes(&[]));
        // SAFETY: forwarded from the caller.
        let read = unsafe { Self::read_values_from::<F>(&mut local, base, room, rows) };
        *deserializer = local;
        read
    }

    /// The loop of [`read_values`](Self::read_values).
    ///
    /// # Safety
    /// As for `read_values`.
    #[inline(always)]
    unsafe fn read_values_from<'de, F: Form<Component = Self>>(
        deserializer: &mut postcard::Deserializer<'de, postcard::de_flavors::Slice<'de>>,
        base: NonNull<Self>,
        room: usize,
        rows: &mut usize,
    ) -> postcard::Result<()> {
        // Two values a turn, each stored once the next is read: a value that
        // comes back through memory (from a `deserialize` not inlined, in
        // narrow stores) is copied once those stores are long done, not while
        // the copy's wide loads would wait for them.
        while room - *rows >= 2 {
            let first = F::read(&mut *deserializer)?;
            let second = F::read(&mut *deserializer);
            // SAFETY: `*rows + 2 <= room`, so both slots are among the `room`
            // (caller); `first` is counted right after it is written, `second`
            // only once it was read.
            unsafe { base.add(*rows).write(first) };
            *rows += 1;
            let second = second?;
            // SAFETY: as just said.
            unsafe { base.add(*rows).write(second) };
            *rows += 1;
        }
        if *rows < room {
            let value = F::read(&mut *deserializer)?;
            // SAFETY: `*rows < room`, so the slot is one of the `room` (caller).
            unsafe { base.add(*rows).write(value) };
            *rows += 1;
        }
        Ok(())
    }
}

impl<T> ReadValues for T {}

/// Values written into a whole column's spare slots, counted (as pushed at
/// `tick`) when dropped: once the room is full, or when a value fails to
/// decode or its deserializer panics, the values before it stay.
struct Decoded<'a> {
    column: &'a mut Column,
    rows: usize,
    tick: Tick,
}

impl Drop for Decoded<'_> {
    fn drop(&mut self) {
        // SAFETY: the column is whole, and each of the `rows` slots past its
        // length was written with a value of its type before being counted
        // here (see `decode`), within its capacity.
        unsafe { self.column.commit_rows(self.rows, self.tick) };
    }
}

/// Appends `values`, the bytes of a [`RAW`] column, to the empty `column`:
/// `rows` values, stamped `tick`.
pub(crate) fn decode_raw(values: &[u8], column: &mut Column, rows: usize, pod: bool, tick: Tick) -> Result<(), String> {
    if !pod || column.is_sparse() {
        return Err("its values are raw bytes, but it is not a `#[component(pod)]` table component".to_owned());
    }
    if cfg!(target_endian = "big") {
        return Err(
            "its values are the raw bytes of a little-endian machine, which this big-endian machine cannot read"
                .to_owned(),
        );
    }
    let size = column.item_layout().size();
    if rows.checked_mul(size) != Some(values.len()) {
        return Err(format!("{} bytes of values for {rows} entities of {size} bytes each", values.len()));
    }
    // SAFETY: a table column, `values` holds `rows` values' bytes (checked
    // above), and `pod` says the type is `bytemuck::Pod` (the registry entry's
    // flag, set only by `SnapshotStrategy::pod`): any bytes are a value.
    unsafe { column.extend_from_bytes(rows, values, tick) };
    Ok(())
}

/// The change ticks of `column`'s values as runs of equal pairs:
/// `(length, added, changed)`, in row order.
pub(crate) fn tick_runs(column: &Column) -> Vec<(u32, u32, u32)> {
    let ticks = column.ticks();
    if !column.is_sparse() {
        // Every row holds a value: runs of equal neighbours, compared in place.
        let mut runs = Vec::new();
        let mut rest = ticks;
        while let Some(&pair) = rest.first() {
            let length = run_length(rest, pair);
            runs.push((length as u32, pair.added.get(), pair.changed.get()));
            rest = &rest[length..];
        }
        return runs;
    }
    let mut pairs = (0..ticks.len()).filter(|&row| column.holds(row)).map(|row| ticks[row]).peekable();
    core::iter::from_fn(move || {
        let pair = pairs.next()?;
        let mut length = 1u32;
        while pairs.next_if_eq(&pair).is_some() {
            length += 1;
        }
        Some((length, pair.added.get(), pair.changed.get()))
    })
    .collect()
}

/// How many of `ticks`, from the first, equal `pair`. Blocks are compared
/// whole, without stopping at the first difference (a loop the compiler turns
/// into a few vector compares), then the rest one by one: a column written all
/// at once is one long run.
fn run_length(ticks: &[ComponentTicks], pair: ComponentTicks) -> usize {
    const BLOCK: usize = 16;
    let mut length = 0;
    for block in ticks.chunks_exact(BLOCK) {
        if !block.iter().fold(true, |same, t| same & (*t == pair)) {
            break;
        }
        length += BLOCK;
    }
    length + ticks[length..].iter().take_while(|&&t| t == pair).count()
}

/// Pushes `value` onto `column`.
///
/// # Safety
/// `column` holds `T`s.
#[inline]
pub(crate) unsafe fn push<T: Component>(column: &mut Column, value: T, tick: Tick) {
    debug_assert_eq!(column.item_layout(), core::alloc::Layout::new::<T>());
    // SAFETY: the column holds `T`s (caller), and `make` hands over an owned,
    // valid `T`.
    OwningPtr::make(value, |ptr| unsafe { column.push(ptr, tick) });
}
