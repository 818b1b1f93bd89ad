//! Snapshots: a world's whole state, copied out and restored in place, for
//! rollback and re-simulation.
//!
//! ```
//! use ecs_core::prelude::*;
//!
//! #[derive(Component, Clone, Copy, Debug, PartialEq)]
//! struct Position(f32);
//! #[derive(Component, Clone, Debug, PartialEq)]
//! struct Name(String);
//!
//! let mut world = World::new();
//! let a = world.spawn((Position(1.0), Name("a".into())));
//! let snapshot = world.snapshot()?;            // Position: memcpy, Name: clone
//!
//! world.get_mut::<Position>(a).unwrap().0 = 9.0;
//! let b = world.spawn(Position(5.0));
//! world.despawn(a)?;
//!
//! world.restore(&snapshot)?;
//! assert_eq!(world.get::<Position>(a), Some(&Position(1.0)), "`a` is back, with its id");
//! assert!(!world.contains(b), "`b` was spawned after the snapshot: its handle is stale");
//! assert_eq!(world.spawn(()), b, "the next spawn hands out the id it handed out the first time");
//! # Ok::<(), EcsError>(())
//! ```
//!
//! # What a snapshot holds
//! Every entity with its id and generation, the entity index's free list and
//! reserved handles, every archetype with every component value and its change
//! ticks, the world's change tick, the resources registered with
//! [`World::register_snapshot_resource`](crate::World::register_snapshot_resource), and each system's last-run tick (so
//! that after a restore, `Changed<T>` and `Added<T>` report to every system
//! exactly what they reported the first time). Handles taken before the
//! snapshot are valid after a restore; handles of entities spawned after it are
//! stale.
//!
//! Each system's last run is kept by the world, in a slot the system gets when
//! it is first initialized for that world. Restored into a new world, the
//! saved slots go to the systems initialized there next, in order: a schedule
//! built the same way takes up where the snapshotted one was, so a replay in a
//! new world (or a new process) sees the same changes too.
//!
//! Not held: observers, hooks, event readers' and `Local` state (they belong to
//! systems and observers), `RemovedComponents` logs, and resources that were not
//! registered (a restore leaves those as they are). A restore runs no hooks and
//! triggers no observers: it puts state back, it does not replay changes.
//!
//! # How components are copied
//! Decided once per component type ([`SnapshotStrategy`]): `Copy` types (every
//! `bytemuck::Pod` component among them) are copied a column at a time with
//! `memcpy`, `Clone` types are cloned, `#[component(snapshot = "skip")]`
//! components are left out (restored entities lack them), and a world holding a
//! component that is none of these refuses the snapshot with
//! [`EcsError::NotSnapshottable`](crate::EcsError::NotSnapshottable) naming it.
//!
//! [`World::snapshot_into`](crate::World::snapshot_into) and [`World::restore`](crate::World::restore) reuse the column arrays and
//! the entity index they find (the snapshot's and the world's), and
//! [`World::swap_snapshot`](crate::World::swap_snapshot) trades them: a rollback loop copies component data
//! into existing arrays, and allocates only small per-archetype bookkeeping and
//! the clones of `Clone` components and resources.
//!
//! # Determinism
//! Iteration order is a function of the sequence of operations that built the
//! world, and of nothing else (no addresses, no hashing, no thread count):
//! - Archetypes are visited in the order they were created: an archetype is
//!   created the first time an entity needs its exact set of table components.
//! - Within an archetype, rows are in the order entities arrived (spawned, or
//!   moved in by an insert or a remove); an entity leaving row `r` (despawn, or
//!   a move to another archetype) is replaced by the archetype's last row
//!   (swap-remove).
//! - New entities take the most recently freed slot first (a stack), each
//!   freed slot with its generation bumped, then fresh slots in order.
//!
//! So two worlds built by the same operations iterate identically and hand out
//! the same ids. A world restored from a snapshot, in the world it was taken
//! from or in a new one, iterates exactly like the world that was snapshotted
//! and allocates the same entity ids afterwards. (Restoring into a world that
//! created other archetypes first keeps their order: its archetypes keep their
//! ids. Entities are restored in the same rows, so the order within each
//! archetype is the snapshot's.) `par_for_each` splits work differently on
//! different thread counts, so its results are the same only when the closure
//! does not depend on the order in which it sees entities.

mod world;

use core::any::Any;

pub(crate) use crate::component::StrategyKind;
pub use crate::component::{SnapshotStrategy, Snapshotting};

use crate::component::{ComponentId, ComponentInfo};
use crate::entity::{Entity, SavedEntities};
pub(crate) use crate::resource::ResourceSaver;
use crate::storage::{Column, ComponentTicks, Tick};

/// A copy of a world's state, made by [`World::snapshot`](crate::World::snapshot)
/// and put back by [`World::restore`](crate::World::restore). See the
/// [module docs](self) for what it holds and the determinism it promises.
///
/// A snapshot can be restored any number of times, into the world it was taken
/// from or into another world of the same program.
#[derive(Default)]
pub struct Snapshot {
    pub(crate) entities: SavedEntities,
    pub(crate) archetypes: Vec<SavedArchetype>,
    pub(crate) change_tick: Tick,
    pub(crate) last_tick_check: Tick,
    pub(crate) resources: Vec<SavedResource>,
    pub(crate) system_ticks: Vec<u32>,
    /// `false` while a snapshot is being taken (and after one that failed or
    /// panicked part-way): such a snapshot is never restored.
    pub(crate) complete: bool,
}

/// One archetype's rows.
pub(crate) struct SavedArchetype {
    pub(crate) key: Box<[ComponentId]>,
    pub(crate) entities: crate::storage::GrowVec<Entity>,
    /// The archetype's columns in its order, skipped components left out.
    pub(crate) columns: Vec<SavedColumn>,
}

pub(crate) struct SavedColumn {
    pub(crate) info: ComponentInfo,
    pub(crate) column: Column,
}

/// A registered resource as it was: `None` when it was not in the world.
pub(crate) struct SavedResource {
    /// How to clone it and what it is called, so that a world that never
    /// registered it can still restore it.
    pub(crate) saver: ResourceSaver,
    pub(crate) value: Option<(Box<dyn Any + Send + Sync>, ComponentTicks)>,
}

impl Snapshot {
    /// An empty snapshot, to fill with [`World::snapshot_into`](crate::World::snapshot_into)
    /// (which then reuses its buffers).
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of entities saved.
    pub fn len(&self) -> usize {
        self.entities.live() as usize
    }

    /// `true` when no entity is saved.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The world's change tick when the snapshot was taken.
    pub fn change_tick(&self) -> Tick {
        self.change_tick
    }

    /// `true` once a snapshot was taken into it in full: a snapshot whose taking
    /// failed or panicked is refused by `restore`.
    pub fn is_complete(&self) -> bool {
        self.complete
    }
}

impl core::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Snapshot")
            .field("entities", &self.len())
            .field("archetypes", &self.archetypes.len())
            .field("change_tick", &self.change_tick)
            .field("complete", &self.complete)
            .finish_non_exhaustive()
    }
}
