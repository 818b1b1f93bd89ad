//! [`ColumnBatch`]: many entities of one set of components, filled a column at
//! a time and spawned together (hecs's `ColumnBatch`, with its semantics).
//!
//! A loader that reads a file column by column (all positions, then all
//! velocities) fills each column through a [`BatchWriter`] without building
//! tuples; [`World::spawn_column_batch`] then moves row after row into one
//! archetype.

use core::any::TypeId;
use core::fmt;
use core::ptr::NonNull;

use super::World;
use crate::component::{Component, ComponentId};
use crate::entity::Entity;
use crate::error::EcsError;

/// The components of a [`ColumnBatch`]: build it, then
/// [`into_batch`](Self::into_batch) to fill the columns.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// use ecs_core::world::ColumnBatchType;
///
/// #[derive(Component, Debug, PartialEq)]
/// struct Pos(f32);
/// #[derive(Component, Debug, PartialEq)]
/// struct Hp(u32);
///
/// let mut batch = ColumnBatchType::new().add::<Pos>().add::<Hp>().into_batch(3);
/// let mut pos = batch.writer::<Pos>().unwrap();
/// for x in [1.0, 2.0, 3.0] {
///     pos.push(Pos(x)).unwrap();
/// }
/// assert!(pos.push(Pos(4.0)).is_err(), "the column is full");
/// let mut hp = batch.writer::<Hp>().unwrap();
/// for hp_value in [10, 20, 30] {
///     hp.push(Hp(hp_value)).unwrap();
/// }
/// let batch = batch.build().unwrap();
///
/// let mut world = World::new();
/// let entities: Vec<Entity> = world.spawn_column_batch(batch)?.collect();
/// assert_eq!(world.get::<Hp>(entities[1]), Some(&Hp(20)));
/// # Ok::<(), EcsError>(())
/// ```
#[derive(Default)]
pub struct ColumnBatchType {
    columns: Vec<ColumnType>,
}

/// One component of a batch: what makes its column and registers it.
#[derive(Clone, Copy)]
struct ColumnType {
    type_id: TypeId,
    make: fn() -> Box<dyn AnyColumn>,
}

impl ColumnBatchType {
    /// No components yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds component `T` (once: adding it again changes nothing).
    #[must_use]
    pub fn add<T: Component>(mut self) -> Self {
        if !self.columns.iter().any(|c| c.type_id == TypeId::of::<T>()) {
            self.columns.push(ColumnType { type_id: TypeId::of::<T>(), make: || Box::new(TypedColumn::<T>::new()) });
        }
        self
    }

    /// Room for `size` entities, to fill column by column. Memory follows
    /// the values pushed, not `size`.
    pub fn into_batch(self, size: u32) -> ColumnBatchBuilder {
        ColumnBatchBuilder { size, columns: self.columns.iter().map(|c| (c.make)()).collect() }
    }
}

/// A [`ColumnBatch`] being filled: one [`BatchWriter`] per component.
pub struct ColumnBatchBuilder {
    size: u32,
    columns: Vec<Box<dyn AnyColumn>>,
}

impl ColumnBatchBuilder {
    /// The writer of component `T`'s column; `None` when the batch has no `T`.
    pub fn writer<T: Component>(&mut self) -> Option<BatchWriter<'_, T>> {
        let size = self.size as usize;
        let column = self.columns.iter_mut().find(|c| c.type_id() == TypeId::of::<T>())?;
        let values = &mut column.as_any_mut().downcast_mut::<TypedColumn<T>>().expect("the column of its type").values;
        Some(BatchWriter { values, size })
    }

    /// The batch, once every column holds `size` values.
    ///
    /// # Errors
    /// [`BatchIncomplete`] naming the first column short of values (the
    /// values pushed are dropped).
    pub fn build(self) -> Result<ColumnBatch, BatchIncomplete> {
        if let Some(short) = self.columns.iter().find(|c| c.len() != self.size as usize) {
            return Err(BatchIncomplete { component: short.name(), filled: short.len(), size: self.size });
        }
        Ok(ColumnBatch { size: self.size, columns: self.columns })
    }
}

/// Pushes values into one column of a [`ColumnBatchBuilder`].
pub struct BatchWriter<'a, T> {
    values: &'a mut Vec<T>,
    size: usize,
}

impl<T> BatchWriter<'_, T> {
    /// Appends `value`; `Err(value)` when the column holds the batch's size
    /// already.
    pub fn push(&mut self, value: T) -> Result<(), T> {
        if self.values.len() == self.size {
            return Err(value);
        }
        self.values.push(value);
        Ok(())
    }

    /// How many values the column holds.
    pub fn fill(&self) -> u32 {
        self.values.len() as u32
    }
}

/// A batch whose columns are full, for [`World::spawn_column_batch`].
pub struct ColumnBatch {
    size: u32,
    columns: Vec<Box<dyn AnyColumn>>,
}

impl ColumnBatch {
    /// How many entities it spawns.
    pub fn len(&self) -> u32 {
        self.size
    }

    /// `true` for a batch of no entities.
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }
}

/// A column of a batch was not filled: [`ColumnBatchBuilder::build`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchIncomplete {
    /// The component whose column is short.
    pub component: &'static str,
    /// The values it holds.
    pub filled: usize,
    /// The batch's size.
    pub size: u32,
}

impl fmt::Display for BatchIncomplete {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the column of `{}` holds {} of the batch's {} values", self.component, self.filled, self.size)
    }
}

impl std::error::Error for BatchIncomplete {}

/// A batch's column, its type erased.
trait AnyColumn: Send + Sync {
    fn type_id(&self) -> TypeId;
    fn name(&self) -> &'static str;
    fn len(&self) -> usize;
    fn as_any_mut(&mut self) -> &mut dyn core::any::Any;
    fn register(&self, world: &mut World) -> ComponentId;
    /// Row `row`'s value, to be moved out.
    fn value(&mut self, row: usize) -> NonNull<u8>;
    /// The values before `row` were moved out: the column no longer owns them.
    fn moved_until(&mut self, row: usize);
}

struct TypedColumn<T> {
    values: Vec<T>,
    /// Values below this one were moved into the world.
    moved: usize,
}

impl<T> TypedColumn<T> {
    fn new() -> Self {
        Self { values: Vec::new(), moved: 0 }
    }
}

impl<T: Component> AnyColumn for TypedColumn<T> {
    fn type_id(&self) -> TypeId {
        TypeId::of::<T>()
    }
    fn name(&self) -> &'static str {
        crate::names::type_name::<T>()
    }
    fn len(&self) -> usize {
        self.values.len()
    }
    fn as_any_mut(&mut self) -> &mut dyn core::any::Any {
        self
    }
    fn register(&self, world: &mut World) -> ComponentId {
        world.register_component::<T>()
    }
    fn value(&mut self, row: usize) -> NonNull<u8> {
        assert!(row >= self.moved && row < self.values.len(), "a row not moved yet");
        NonNull::from(&mut self.values[row]).cast()
    }
    fn moved_until(&mut self, row: usize) {
        debug_assert!(row <= self.values.len());
        self.moved = row;
    }
}

impl<T> Drop for TypedColumn<T> {
    fn drop(&mut self) {
        let (len, moved) = (self.values.len(), self.moved);
        // SAFETY: the first `moved` values were moved into the world (a
        // bitwise copy the world owns now): the vector forgets them and drops
        // only the rest, each once.
        unsafe {
            self.values.set_len(0);
            let rest = core::ptr::slice_from_raw_parts_mut(self.values.as_mut_ptr().add(moved), len - moved);
            core::ptr::drop_in_place(rest);
        }
    }
}

impl World {
    /// Spawns the batch's entities, one per row, each holding its row of
    /// every column (hecs's `spawn_column_batch`); hooks and observers run
    /// for each as for `spawn`. Returns the entities in row order.
    ///
    /// # Errors
    /// [`EcsError::RelationshipById`] when a component is a relationship
    /// (spawn those with `spawn`, which keeps the target's list): nothing is
    /// spawned then, and the batch's values are dropped.
    ///
    /// # Example
    /// See [`ColumnBatchType`].
    pub fn spawn_column_batch(&mut self, mut batch: ColumnBatch) -> Result<SpawnColumnBatchIter, EcsError> {
        let ids: Vec<ComponentId> = batch.columns.iter().map(|c| c.register(self)).collect();
        let bundle = self.bundle_of_ids(&ids)?;
        let size = batch.size as usize;
        let mut entities = Vec::with_capacity(size);
        let mut values = Vec::with_capacity(ids.len());
        for row in 0..size {
            values.clear();
            values.extend(batch.columns.iter_mut().map(|c| c.value(row)));
            // SAFETY: the bundle is this world's, of exactly the columns'
            // components in their order; `values[i]` is row `row` of column
            // `i`, an owned, valid, aligned value of its component, which the
            // column forgets right after (`moved_until`) before anything else
            // can run.
            let entity = unsafe { self.spawn_raw(bundle, |i| values[i]) };
            for column in &mut batch.columns {
                column.moved_until(row + 1);
            }
            self.after_spawn_raw(bundle, entity);
            entities.push(entity);
        }
        Ok(SpawnColumnBatchIter { entities: entities.into_iter() })
    }
}

/// The entities [`World::spawn_column_batch`] spawned, in row order.
pub struct SpawnColumnBatchIter {
    entities: std::vec::IntoIter<Entity>,
}

impl Iterator for SpawnColumnBatchIter {
    type Item = Entity;
    fn next(&mut self) -> Option<Entity> {
        self.entities.next()
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.entities.size_hint()
    }
}

impl ExactSizeIterator for SpawnColumnBatchIter {}
