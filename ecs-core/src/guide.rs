//! Coming from bevy_ecs or hecs: the names you know, ours beside them, and what
//! is different on purpose.
//!
//! # Names
//!
//! | bevy_ecs | hecs | here |
//! |---|---|---|
//! | `#[derive(Component)]`; `impl Component for T` | any `Send + Sync + 'static` type | `#[derive(Component)]`; a hand-written `impl Component for T` adds `ecs_core::component_bundle!(T)` |
//! | `#[derive(Resource)]`, `world.insert_resource` | — | any `Send + Sync + 'static` type: `world.insert_resource`, `init_resource` |
//! | `world.spawn((a, b))`, `world.entity_mut(e)` | `world.spawn((a, b))` | `world.spawn((a, b))`, `world.entity_mut(e)?` |
//! | `world.get::<T>(e)` | `world.get::<&T>(e)` | `world.get::<T>(e)` (`Option<&T>`) |
//! | `entity_mut.insert(c)`, `.remove::<T>()` | `world.insert_one(e, c)`, `world.remove_one::<T>(e)` | `world.insert(e, c)?`, `world.remove::<T>(e)?` (the removed value) |
//! | `world.query::<&mut T>().iter_mut(&mut world)` | `world.query_mut::<&mut T>()` | `world.query_mut::<&mut T>()`; read-only: `world.query::<&T>().iter()` |
//! | `QueryState`, `query.single()` | `PreparedQuery` | `QueryState`, `query.single()` |
//! | `Query<&mut T>` item `Mut<T>` | `&mut T` | `&mut T`; `Mut<T>` when writes must be detected precisely |
//! | `query.par_iter_mut().for_each(f)`; `query.par_iter().for_each(f)` | — | `query.par_for_each_mut(f)`; `query.par_for_each(f)` (read-only) |
//! | `Changed`, `Added`, `With`, `Without`, `Or`, `Has` | `With`, `Without`, `Or` | the same as bevy_ecs |
//! | `Res`, `ResMut`, `Local`, `Commands` | `CommandBuffer` | `Res`, `ResMut`, `Local`, `Commands` |
//! | `MessageReader`, `MessageWriter`, `Messages<E>` | — | the same |
//! | observers: `On<Add, T>`, `world.add_observer` | — | the same |
//! | hooks: `#[component(on_add = f)]` | — | the same |
//! | `RemovedComponents<T>` | — | the same |
//! | `app.add_systems(Update, (a, b).chain())` | — | `schedule.add_systems((a, b).chain())`, then `schedule.run(&mut world)` |
//! | `.run_if(cond)`, `SystemSet`, `.in_set`, `configure_sets` | — | the same |
//! | `world.run_system_once(f)` | — | the same (returns `Result`) |
//! | `ChildOf`, `Children`, `with_children`, `despawn` (recursive) | — | the same, on `EntityWorldMut` and `EntityCommands` |
//! | `Query<&Children>` / `Query<&ChildOf>` helpers: `children`, `parent`, `iter_descendants`, `iter_ancestors`, `root_ancestor` | — | the same, for any relationship |
//! | `query.related::<R>(e)` (the target), `query.relationship_sources::<T>(e)` | — | `query.target(e)` on a `Query<&R>`, `query.related(e)` on a `Query<&T>` (note: our `related` lists the sources) |
//! | `ChildSpawnerCommands::target_entity()` | — | `ChildSpawnerCommands::parent()` (as on `ChildSpawner`) |
//! | `#[relationship(relationship_target = …)]` | — | `#[relationship(target = …)]`, `#[relationship_target(relationship = …)]` |
//! | a target's `Vec<Entity>` | — | `Vec<Entity>`, or `RelationshipSources` (cheap removal at both ends) |
//! | `DynamicScene` (reflection) | `serialize::column` | `world.snapshot()` / `restore` (in memory, for rollback) |
//! | — | — | `#[component(layout = "soa")]`: each field in its own array; `&T` / `&mut T` in queries yield `TRef` / `TMut` (a reference per field), chunks `TSlices` / `TSlicesMut`, `world.fields` / `fields_mut` / `get_cloned` (see [`PerField`](crate::component::PerField)) |
//!
//! # Different on purpose
//! - **Plain `&mut T` query items.** A loop over `&mut T` compiles to the loop over a
//!   `Vec` it stands for. `Changed<T>` still sees those rows (every row handed out
//!   counts as written); take `Mut<T>` where only the rows actually written should
//!   count. See [`Changed`](crate::Changed) for exactly what counts.
//! - **Resources need no derive.** Any `Send + Sync + 'static` value is one.
//! - **Deterministic schedules.** Systems whose access conflicts run in the order
//!   they were added (bevy leaves that order unspecified unless you state it), so a
//!   run is reproducible; non-conflicting systems still run in parallel.
//! - **Errors are values.** Operations on a stale entity return `Err`/`None` and
//!   change nothing; every [`EcsError`](crate::EcsError) says what to do.
//! - **Rollback is built in.** [`World::snapshot`](crate::World::snapshot) and
//!   [`World::swap_snapshot`](crate::World::swap_snapshot) save and restore a whole
//!   world with its ids, ticks and the systems' change-detection state; iteration
//!   order is specified (see [`snapshot`](crate::snapshot)).
//! - **Tags and sparse components do not fragment.** Zero-sized components and
//!   `#[component(storage = "sparse")]` ones are stored per row: adding one moves no
//!   data and makes no archetype.
//!
//! # The same program, side by side
//! A bevy_ecs system and its schedule:
//! ```text
//! fn movement(mut q: Query<(&mut Position, &Velocity)>) {
//!     for (mut p, v) in &mut q { p.0 += v.0; }
//! }
//! app.add_systems(Update, movement);
//! ```
//! Here (the item is a plain `&mut Position`):
//! ```
//! use ecs_core::prelude::*;
//! #[derive(Component)] struct Position(f32);
//! #[derive(Component)] struct Velocity(f32);
//!
//! fn movement(mut q: Query<(&mut Position, &Velocity)>) {
//!     for (p, v) in &mut q { p.0 += v.0; }
//! }
//! let mut world = World::new();
//! let e = world.spawn((Position(0.0), Velocity(2.0)));
//! let mut schedule = Schedule::new();
//! schedule.add_systems(movement);
//! schedule.run(&mut world);
//! assert_eq!(world.get::<Position>(e).unwrap().0, 2.0);
//! ```
