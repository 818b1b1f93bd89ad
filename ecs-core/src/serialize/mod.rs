//! Saving and loading worlds through serde (feature `serde`, off by default).
//!
//! Components opt in under a stable name in a [`SerializeRegistry`], so that
//! reordering, renaming or adding types does not break old saves. Two formats
//! carry the same world over any serde format:
//! - **rows** ([`SerializeRegistry::rows`]): entity → its components by name; made
//!   to be read and edited (JSON, RON). **It carries no change ticks**: after a
//!   load every value is `Added` and `Changed` to every system, so an
//!   `Added<Enemy>` system sees every loaded enemy as new. A game that saves
//!   to continue (not to edit) uses columns.
//! - **columns** ([`SerializeRegistry::columns`]): per archetype, each component's
//!   values in a run, with change ticks and each system's last run; compact
//!   (postcard, bincode) and exact: the format for a game's saves.
//!
//! Loading is two steps: [`SerializeRegistry::load_rows`] /
//! [`load_columns`](SerializeRegistry::load_columns) parse and check a save
//! into a [`WorldSave`] without touching any world, and [`World::load`](crate::World::load) puts it
//! into one, which cannot fail.
//!
//! ```
//! use ecs_core::prelude::*;
//! use ecs_core::serialize::SerializeRegistry;
//!
//! #[derive(Component, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
//! struct Position { x: f32, y: f32 }
//! #[derive(Component, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
//! struct Target(#[entities] Entity);
//!
//! let registry = SerializeRegistry::new()
//!     .register::<Position>("Position")
//!     .register::<Target>("Target");
//! let mut world = World::new();
//! let a = world.spawn(Position { x: 1.0, y: 2.0 });
//! let b = world.spawn((Position { x: 3.0, y: 4.0 }, Target(a)));
//!
//! let json = serde_json::to_string(&registry.rows(&world)).unwrap();
//! assert!(json.contains(r#""1v1":{"Position":{"x":3.0,"y":4.0},"Target":"0v1"}"#));
//!
//! // Into a new world: the same ids.
//! let save = registry.load_rows(&mut serde_json::Deserializer::from_str(&json))?;
//! let mut loaded = World::new();
//! loaded.load(save);
//! assert_eq!(loaded.get::<Target>(b), Some(&Target(a)));
//!
//! // Into a world that has entities: new ids, references remapped.
//! let save = registry.load_rows(&mut serde_json::Deserializer::from_str(&json))?;
//! let map = loaded.load(save);
//! let (a2, b2) = (map.get(a).unwrap(), map.get(b).unwrap());
//! assert_ne!(b2, b);
//! assert_eq!(loaded.get::<Target>(b2), Some(&Target(a2)));
//! # Ok::<(), ecs_core::serialize::LoadError>(())
//! ```
//!
//! # What is saved
//! Every entity holding only registered (or [skipped](SerializeRegistry::skip))
//! components, with its id; the entity index's slots (which are free, in which
//! order, which are retired), so that a world loaded into a new world hands
//! out the same ids afterwards; registered resources; and, in the column
//! format, change ticks and each system's last run, as a
//! [`Snapshot`](crate::snapshot::Snapshot) holds them. Systems' state goes
//! too: each [`Local`](crate::system::Local) of a
//! [registered](SerializeRegistry::register_local) type, and the messages in
//! flight of a [registered](SerializeRegistry::register_message) message
//! type with every reader's place in them.
//!
//! A save never loses state silently. It fails, naming what, when an entity
//! holds a component that is neither registered nor skipped, when a system
//! keeps a `Local` whose type is neither registered nor
//! [skipped](SerializeRegistry::skip_local), when messages are in flight
//! whose type is neither registered nor [skipped](SerializeRegistry::skip_message),
//! when a component refers to a despawned entity, and when it is made from
//! inside a system that holds a saved `Local` (save between schedule runs; a
//! save made from a `&World` system while others run also makes a system
//! that starts meanwhile wait for the save to have written its `Local`).
//!
//! Not saved: observers (their entities are left out, their slots kept
//! retired: see below), entity observers attached with
//! [`observe`](crate::world::EntityWorldMut::observe) (the entity is saved
//! without them: attach them again after a load), removal logs (and the
//! place of each [`RemovedComponents`](crate::event::RemovedComponents)
//! reader in them), and `Local`s of systems that have been dropped or were
//! run once.
//!
//! The hierarchy (`ChildOf`, `Children`) is registered by
//! [`SerializeRegistry::new`]; other relationships are registered with
//! [`register_relationship`](SerializeRegistry::register_relationship), which
//! saves the target side as its list of sources, so that a loaded world keeps
//! each list's order.
//!
//! # What a load does
//! - Into a world with no entity but observers whose ids the saved world also
//!   gave to entities it did not save (its own observers: a fresh world that
//!   adds the same observers in the same order gets the same ids), and no
//!   handle reserved by commands: every entity keeps its id, and the entity
//!   index is the saved one, around the observers. Loaded into such a world,
//!   the result iterates exactly like the saved world and allocates the same
//!   ids afterwards (see [`crate::snapshot`] for the determinism contract);
//!   the column format also restores change ticks, the world's tick and
//!   systems' last runs, so `Changed<T>` reports what it would have. Saved
//!   `Local`s go to the systems at the same places: systems are numbered in
//!   the order they are initialized (a schedule's in schedule order when it
//!   first runs or is [initialized](crate::system::Schedule::initialize), an
//!   observer's when it is added), so **register observers and schedules in
//!   the same order, then load**, and the game continues as the saved one
//!   would have. A saved `Local` whose place now holds a system of another
//!   name, or a `Local` of another type, is dropped: that system keeps its
//!   default.
//! - Into a world that has other entities: each saved entity gets a new id,
//!   and every entity held by a loaded component (fields marked
//!   `#[entities]`, relationships) is rewritten to match, as is every entity
//!   of a resource or a message in flight registered with
//!   [`register_resource_with_entities`](SerializeRegistry::register_resource_with_entities)
//!   or [`register_message_with_entities`](SerializeRegistry::register_message_with_entities)
//!   (through its [`MapEntities`](crate::entity::MapEntities));
//!   [`World::load`](crate::World::load) returns the [`EntityMap`] from saved
//!   ids to new ones. Loaded values are stamped as added now; the systems'
//!   state of the save (ticks, `Local`s) is not loaded, as it belongs to
//!   another world's systems.
//! - Hooks and observers do not run: a load puts a consistent state in place,
//!   as a [`restore`](crate::World::restore) does.
//!
//! # Speed
//! In compact formats (postcard, bincode: any serializer that is not
//! human-readable) the column format writes each component's values with
//! code made for that component type (postcard's encoding, inlined) and hands
//! the format byte strings, instead of one type-erased call per field; a
//! table column of a `#[component(pod)]` type is written as its bytes and
//! read back with one `memcpy` (on little-endian machines, which refuse to
//! misread a big-endian save and say so). An archetype's entities travel as
//! one byte string as well, each entity relative to the one before it, so
//! that entities spawned together take a byte each. Human-readable formats
//! keep one serde value per component value, readable and editable, at the
//! cost of the erased calls. The row format is made to be read, not to be
//! fast.
//!
//! # Bad input
//! Every check happens while parsing, before any world is touched, and fails
//! with a [`LoadError`] naming what is wrong: data the serde format cannot read
//! (truncated, malformed), a save from a newer format version, an unknown
//! component name, a value that does not deserialize, a duplicate entity or
//! component, an entity reference to an entity the save does not hold, an entity
//! index whose slots do not add up, relationships whose two sides disagree or
//! form a cycle. A load that fails changes nothing.

mod codec;
mod column;
mod compact;
mod entity_list;
mod error;
mod load;
mod locals;
mod plan;
mod registry;
mod resources;
mod row;
mod save;
mod schema_values;
mod validate;
mod values;

pub use column::Columns;
pub use error::LoadError;
pub use registry::SerializeRegistry;
pub use row::Rows;
pub use save::{EntityMap, WorldSave};

/// The format version this build writes, and the newest it reads. Saves carry
/// it first; a save from a newer version is refused with
/// [`LoadError::NewerVersion`] instead of being misread.
///
/// Version 2 changed the column format in compact formats (values and ticks
/// as byte strings, see [`SerializeRegistry::columns`]); row saves of version
/// 1 read as they are. Version 3 added systems' `Local`s and message cursors
/// at the end of both formats; saves of version 2 read as they are (with
/// none). Version 4 writes an archetype's entities in compact formats as one
/// byte string, each entity relative to the one before (a byte each for
/// entities spawned together); saves of versions 2 and 3 read as they are.
pub const FORMAT_VERSION: u32 = 4;
