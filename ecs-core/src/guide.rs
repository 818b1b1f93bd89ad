//! Coming from bevy_ecs or hecs: the names you know, ours beside them, and what
//! is different on purpose.
//!
//! # Names
//!
//! bevy_ecs's names are those of 0.20 (buffered events are *messages* since
//! 0.17, observers take `On`, lifecycle events are `Add`, `Insert`, `Discard`,
//! `Remove`, `Despawn`). "Same" means same name and meaning; anything else is
//! spelled out.
//!
//! | bevy_ecs 0.20 | hecs | here |
//! |---|---|---|
//! | `#[derive(Component)]`; `impl Component for T` | any `Send + Sync + 'static` type | same derive; a hand-written `impl Component for T` adds `ecs_core::component_bundle!(T)` |
//! | `#[derive(Resource)]`, `world.insert_resource` | — | no derive needed: any `Send + Sync + 'static` type; `#[derive(Resource)]` is accepted (it implements the marker trait [`Resource`](crate::Resource), for generic code); `world.insert_resource`, `init_resource` same |
//! | `world.spawn((a, b))` returns `EntityWorldMut` | `world.spawn((a, b))` returns `Entity` | returns `Entity` (as hecs); `world.spawn_empty()` returns `EntityWorldMut` |
//! | `world.entity_mut(e)` (panics when dead) | — | `world.entity_mut(e)?` (a `Result`) |
//! | `world.get::<T>(e)` | `world.get::<&T>(e)` | same as bevy (`Option<&T>`) |
//! | `entity_mut.insert(c)`, `.remove::<T>()`, `.contains::<T>()` | `world.insert_one(e, c)`, `world.remove_one::<T>(e)` | same on `EntityWorldMut`; also `world.insert(e, c)?`, `world.remove::<T>(e)?` (returns the value), `world.has::<T>(e)` |
//! | `world.query::<&mut T>().iter_mut(&mut world)` | `world.query_mut::<&mut T>()` | `world.query_mut::<&mut T>()` (as hecs); read-only: `world.query::<&T>().iter()`; cached: `world.query_state` |
//! | `QueryState`, `query.single()` | `PreparedQuery` | same as bevy |
//! | `query.contains(entity)` | `query.get(e).is_ok()` | same (on a writing query too, marking nothing) |
//! | `Name`, `EntityHashMap<V>`, `EntityHashSet` | — | same (`ecs_core::entity::{EntityHashMap, EntityHashSet}`; `Name` in the prelude) |
//! | `#[derive(QueryData)]` | `#[derive(Query)]` | same as bevy |
//! | `Query<&mut T>` item `Mut<T>` | `&mut T` | `&mut T` (as hecs); `Mut<T>` when writes must be detected precisely |
//! | `query.par_iter_mut().for_each(f)`; `query.par_iter().for_each(f)` | — | same; also spelled `query.par_for_each_mut(f)`, `query.par_for_each(f)` |
//! | `Changed`, `Added`, `With`, `Without`, `Or`, `Has`, `Ref`, `AnyOf` | `With`, `Without`, `Or` | same as bevy (`AnyOf` of up to 8 items) |
//! | `Res`, `ResMut`, `Local`, `Commands` | `CommandBuffer` | same as bevy |
//! | `commands.insert_resource`, `init_resource`, `remove_resource`, `spawn_empty`, `spawn_batch`, `queue(closure)`; `entity(e).try_insert`, `try_remove`, `try_despawn` | — | same (a `queue`d closure may return a `Result`, whose error is reported) |
//! | `world.get_resource_or_insert_with(f)`, `get_resource_or_init::<R>()` | — | same, returning `&mut R` |
//! | `#[derive(Message)]`, `MessageReader`, `MessageWriter::write`, `Messages<M>`, `world.write_message` | — | same |
//! | `#[derive(Event)]`, `world.add_observer(\|on: On<E>\| …)`, `world.trigger(e)` | — | same |
//! | `On<Add<T>>`, `On<Insert<T>>`, `On<Discard<T>>`, `On<Remove<T>>`, `On<Despawn<T>>` | — | same; 0.17's `On<Add, T>` works too |
//! | `#[derive(EntityEvent)]` (target in the field `entity` or `#[event_target]`), `world.trigger(e)`, `on.event_target()` | — | same (`on.target()` too); besides, any `Event` can be targeted at trigger time: `world.trigger_targets(e, entity)`; `#[entity_event(propagate)]` / `propagate = R`, `auto_propagate`, `on.propagate(bool)`, `on.original_event_target()` as in bevy (along `ChildOf` by default) |
//! | hooks: `#[component(on_add = f, on_insert, on_discard, on_remove, on_despawn)]` | — | same |
//! | required components: `#[require(Transform, Health = Health(100), Name("x".into()))]` | — | same values (nearer requirements win; held requirers bring back removed requirements), but not the same order of hooks: each required component is inserted as by `insert`, its hooks and observers running before the requiring component's `on_add` (bevy inserts them in the same move and runs every `on_add`, then every `on_insert`) |
//! | `RemovedComponents<T>` | — | same |
//! | `app.add_systems(Update, (a, b).chain())` | — | `schedule.add_systems((a, b).chain())`, then `schedule.run(&mut world)` (no `App`) |
//! | `IntoScheduleConfigs` (`.after`, `.before`, `.in_set`, `.run_if`, `.chain`, `.chain_ignore_deferred`), on one system or a group | — | same, with bevy's automatic sync points between explicitly ordered systems; `IntoSystemConfig` only turns one system into its `SystemConfig` |
//! | conditions `on_message::<M>`, `run_once`, `resource_exists`, `resource_changed`, `any_with_component` | — | same |
//! | `SystemCondition`, `.run_if(cond)`, `SystemSet`, `.in_set`, `configure_sets(S.run_if(c))`, `configure_sets((A, B).chain())` | — | same (a set's or a group's condition is evaluated once per run) |
//! | `despawn_related::<Children>()`, `despawn_children()`, `clear_children()` / `detach_all_children()`, `clear_related::<R>()` / `detach_all_related::<R>()`, `remove_children(&[e])`, `insert_children(i, &[e])` on an entity or its commands | — | same (0.17's and 0.18's names) |
//! | `world.run_system_once(f)` | — | same (returns `Result`) |
//! | systems and observers returning `Result` (`-> Result`, `?` on any error), `BevyError`, `DefaultErrorHandler` / `world.default_error_handler()`, handlers `panic` (the default), `warn`, `ignore`, `ErrorContext` | — | same; `BoxedError` for `BevyError`; `world.set_error_handler(error::warn)` / `world.error_handler()` (a plain `fn(BoxedError, ErrorContext)`, called on the thread the system ran on) |
//! | `SystemState::<P>::new(&mut world)`, `state.get(&world)`, `get_mut(&mut world)`, `apply(&mut world)` | — | same (a parameter that cannot be fetched panics, naming it) |
//! | `world.register_system(f)` → `SystemId`, `world.run_system(id)`, `unregister_system(id)`, `run_system_cached(f)`; `commands.run_system(id)` | — | same, with `run_system_with(id, input)`, `run_system_cached_with`, `commands.run_system_with` for systems taking `In<T>`; `commands.register_system(f)` returns the id at once |
//! | `In<T>`, `a.pipe(b)`, `world.run_system_once_with(f, input)` | — | same (`pipe` comes with the prelude's `SystemPipe`; a pipe's access is both stages', which run in turn; a stage skipped by its parameters skips the rest) |
//! | `query.iter_many(entities)`, `query.iter_many_mut(entities)` (lending: `fetch_next`) | — | same (entities the query does not match are skipped) |
//! | `Single<D, F>`, `Populated<D, F>` (the system is skipped otherwise) | — | same; a condition taking one reads `false` when skipped, `run_system_once` returns the error |
//! | `ParamSet<(Query<&mut T>, Query<&T>)>` | — | not provided: prove the queries disjoint (`With`/`Without`), or split the work into two systems. Written with elided lifetimes (`Query<&T>` inside it), bevy's `ParamSet` compiles only through an exception rustc makes for a type of that name in a crate named `bevy_ecs` (rust-lang/rust#119956); any other crate's would need `Query<&'static T>` spelled out |
//! | reflection (`#[derive(Reflect)]`); `EntityRef::get_by_id` (a raw `Ptr`), `QueryBuilder` (`unsafe` to read) | — | schemas (`#[component(describe)]`, `#[derive(Describe)]`); `world.get_by_id` / `get_mut_by_id` (views checked against the schema, safe); `world.dynamic_query()` (safe typed slices and views); components defined at run time are not built yet |
//! | `DynamicScene` + reflection for saves; `Local`s not saved | `serialize::column` | `SerializeRegistry` (feature `serde`): components, resources, `register_local`, `register_message` (`register_resource_with_entities` / `register_message_with_entities` remap their entities on a load into a busy world); a save refuses what it would lose |
//! | `ChildOf`, `Children`, `with_children`, `despawn` (recursive) | — | same, on `EntityWorldMut` and `EntityCommands` |
//! | `children![…]`, `related!(R[…])` in a bundle | — | `children![…]`, `related!(R => […])` (a [`SpawnRelated`](crate::relationship::SpawnRelated) component that spawns its list when added) |
//! | `Query<&Children>` / `Query<&ChildOf>` helpers: `children`, `parent`, `iter_descendants`, `iter_ancestors`, `root_ancestor` | — | same, for any relationship |
//! | `query.related::<R>(e)` (the target) | — | `query.related(e)` on a `Query<&R>` (the relationship is the query's) |
//! | `query.relationship_sources::<T>(e)` | — | `query.relationship_sources(e)` on a `Query<&T>`; `sources_of(e)` for the slice |
//! | `ChildSpawnerCommands::target_entity()` | — | `ChildSpawnerCommands::parent()` (as on `ChildSpawner`) |
//! | `#[relationship(relationship_target = …)]` | — | `#[relationship(target = …)]`, `#[relationship_target(relationship = …)]` |
//! | a target's `Vec<Entity>` | — | `Vec<Entity>`, or `RelationshipSources` (cheap removal at both ends) |
//! | `DynamicScene` (reflection) | `serialize::column` | `world.snapshot()` / `restore` (in memory, for rollback); `serialize` (feature `serde`) for files |
//! | — | — | `#[component(layout = "soa")]`: each field in its own array; `&T` / `&mut T` in queries yield `TRef` / `TMut` (a reference per field), chunks `TSlices` / `TSlicesMut`, `world.fields` / `fields_mut` / `get_cloned` (see [`PerField`](crate::component::PerField)) |
//!
//! # Different on purpose
//! - **Plain `&mut T` query items.** A loop over `&mut T` compiles to the loop over a
//!   `Vec` it stands for. `Changed<T>` still sees those rows (every row handed out
//!   counts as written); take `Mut<T>` where only the rows actually written should
//!   count. See [`Changed`](crate::Changed) for exactly what counts.
//! - **Resources need no derive.** Any `Send + Sync + 'static` value is one;
//!   `#[derive(Resource)]` is accepted, so code written for bevy_ecs compiles.
//! - **`spawn` returns the `Entity`.** Most spawns keep the id and move on; an
//!   `EntityWorldMut` borrowing the world would end the caller's other borrows
//!   for nothing. `spawn_empty()` returns one, and `entity_mut(e)?` makes one;
//!   `world.spawn(b).insert(…)` (or `.with_children`, `.observe`, …) is a
//!   compile error that says so.
//! - **A stale entity is an `Err`, not a panic.** `entity_mut(e)`, `insert`,
//!   `remove` and `despawn` return `Result`s; a game that despawned an entity
//!   earlier in the frame handles the case instead of crashing.
//! - **Events can name their target when triggered.** Besides bevy 0.17's
//!   `EntityEvent` (the target in the event), any `Event` can be triggered
//!   for entities (`trigger_targets(e, entity)`, read with `on.target()`), so
//!   one event type serves both global and entity observers.
//! - **Automatic sync points are per chain, not per schedule.**
//!   `.chain_ignore_deferred()` orders without them, as in bevy; bevy's
//!   schedule-wide `auto_insert_apply_deferred(false)` has no counterpart.
//! - **Deterministic schedules.** Systems whose access conflicts run in the order
//!   they were added (bevy leaves that order unspecified unless you state it), so a
//!   run is reproducible; non-conflicting systems still run in parallel.
//! - **Errors are values.** Operations on a stale entity return `Err`/`None` and
//!   change nothing; every [`EcsError`](crate::EcsError) says what to do.
//! - **Rollback is built in.** [`World::snapshot`](crate::World::snapshot) and
//!   [`World::swap_snapshot`](crate::World::swap_snapshot) save and restore a whole
//!   world with its ids, ticks and the systems' change-detection state; iteration
//!   order is specified (see [`snapshot`](crate::snapshot)).
//! - **A save continues the game.** A load into a world holding only the
//!   game's observers (added in the same order) keeps every saved id, and the
//!   systems' `Local`s and messages in flight come back (see
//!   the `serialize` module, feature `serde`); bevy's scenes remap ids and carry no
//!   system state.
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
