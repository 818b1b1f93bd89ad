//! The determinism contract (see `ecs_core::snapshot`): a random simulation run
//! by a schedule (spawns, despawns, inserts, removes, queries, commands, change
//! detection) gives the same world hash when it is replayed from a snapshot,
//! from a snapshot restored into a new world, when it is built twice by the same
//! operations, whatever the number of threads running `par_for_each_mut`, and
//! when it is saved (column format) and loaded into a new world, in this
//! process or in a fresh one.

use std::hash::{DefaultHasher, Hash, Hasher};

use ecs_core::prelude::*;
use ecs_core::serialize::SerializeRegistry;
use serde::{Deserialize, Serialize};

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Position(f32, f32);

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Velocity(f32, f32);

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Health(u32);

#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Label(String);

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[component(storage = "sparse")]
struct Burning(u8);

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Shielded;

/// The simulation's random numbers: a resource, so snapshots hold its state.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// How many entities `Changed<Position>` reported, frame after frame.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct ChangedLog(Vec<usize>);

fn movement(mut query: Query<(&mut Position, &Velocity)>) {
    query.par_for_each_mut(|(position, velocity)| {
        position.0 += velocity.0;
        position.1 += velocity.1;
    });
}

fn spawner(mut rng: ResMut<Rng>, mut commands: Commands) {
    for _ in 0..rng.below(4) {
        let v = rng.below(100) as f32 / 10.0;
        match rng.below(3) {
            0 => commands.spawn((Position(v, -v), Velocity(1.0, v), Health(rng.below(5) as u32 + 1))),
            1 => commands.spawn((Position(v, v), Health(3), Label(format!("unit {v}")))),
            _ => commands.spawn((Position(0.0, v), Velocity(-v, 0.0), Health(2), Shielded)),
        };
    }
}

fn fire(mut rng: ResMut<Rng>, query: Query<Entity, With<Health>>, mut commands: Commands) {
    for entity in &query {
        match rng.below(16) {
            0 => commands.entity(entity).insert(Burning(3)),
            1 => commands.entity(entity).remove::<Burning>(),
            2 => commands.entity(entity).remove::<Shielded>(),
            3 => commands.entity(entity).remove::<Velocity>(),
            _ => continue,
        };
    }
}

fn burn(mut query: Query<(&mut Health, &mut Burning), Without<Shielded>>) {
    for (health, burning) in &mut query {
        health.0 = health.0.saturating_sub(1);
        burning.0 = burning.0.saturating_sub(1);
    }
}

fn reap(query: Query<(Entity, &Health)>, mut commands: Commands) {
    for (entity, health) in &query {
        if health.0 == 0 {
            commands.entity(entity).despawn();
        }
    }
}

fn watch(changed: Query<&Position, Changed<Position>>, mut log: ResMut<ChangedLog>) {
    log.0.push(changed.iter().count());
}

fn simulation() -> Schedule {
    let mut schedule = Schedule::new();
    schedule.add_systems((spawner, fire, movement, burn, reap, watch).chain());
    schedule
}

fn new_world(seed: u64) -> World {
    let mut world = World::new();
    world.insert_resource(Rng(seed));
    world.insert_resource(ChangedLog::default());
    world.register_snapshot_resource::<Rng>();
    world.register_snapshot_resource::<ChangedLog>();
    for i in 0..50 {
        world.spawn((Position(i as f32, 0.0), Velocity(0.5, 1.0), Health(4)));
    }
    world
}

fn run(world: &mut World, schedule: &mut Schedule, frames: usize) {
    for _ in 0..frames {
        schedule.run(world);
    }
}

/// Every entity in iteration order with its id and components, the RNG and the
/// log of what change detection reported.
fn hash(world: &World) -> u64 {
    let mut h = DefaultHasher::new();
    for entity in world.iter() {
        entity.id().to_bits().hash(&mut h);
        if let Some(p) = entity.get::<Position>() {
            (p.0.to_bits(), p.1.to_bits()).hash(&mut h);
        }
        if let Some(v) = entity.get::<Velocity>() {
            (v.0.to_bits(), v.1.to_bits()).hash(&mut h);
        }
        entity.get::<Health>().map(|x| x.0).hash(&mut h);
        entity.get::<Label>().map(|x| x.0.clone()).hash(&mut h);
        entity.get::<Burning>().map(|x| x.0).hash(&mut h);
        entity.contains::<Shielded>().hash(&mut h);
    }
    world.resource::<Rng>().0.hash(&mut h);
    world.resource::<ChangedLog>().0.hash(&mut h);
    h.finish()
}

#[test]
fn a_replay_from_a_snapshot_ends_in_the_same_world() {
    let mut world = new_world(7);
    let mut schedule = simulation();
    run(&mut world, &mut schedule, 30);
    let snapshot = world.snapshot().unwrap();
    let at_snapshot = hash(&world);
    run(&mut world, &mut schedule, 40);
    let expected = hash(&world);
    assert!(world.len() > 20, "the simulation keeps a population: {}", world.len());

    for attempt in 0..3 {
        world.restore(&snapshot).unwrap();
        assert_eq!(hash(&world), at_snapshot);
        run(&mut world, &mut schedule, 40);
        world.check_invariants().unwrap();
        assert_eq!(hash(&world), expected, "replay {attempt}");
    }

    // In a new world with a schedule built the same way: its systems take up
    // the snapshotted systems' last runs, so the replay is the same, down to
    // what change detection reports and the next ids.
    let mut fresh = World::new();
    fresh.restore(&snapshot).unwrap();
    let mut fresh_schedule = simulation();
    assert_eq!(hash(&fresh), at_snapshot);
    run(&mut fresh, &mut fresh_schedule, 40);
    assert_eq!(hash(&fresh), expected);
    assert_eq!(fresh.spawn(()), world.spawn(()));
}

#[test]
fn the_same_operations_build_worlds_that_iterate_identically() {
    let build = || {
        let mut world = new_world(11);
        let mut schedule = simulation();
        run(&mut world, &mut schedule, 25);
        world
    };
    let (mut a, mut b) = (build(), build());
    assert_eq!(hash(&a), hash(&b));
    let ids = |w: &World| w.iter().map(|e| e.id()).collect::<Vec<_>>();
    assert_eq!(ids(&a), ids(&b));
    assert_eq!(a.spawn(()), b.spawn(()), "and allocate the same ids");
}

#[test]
fn results_do_not_depend_on_running_inline_or_in_parallel() {
    // A multi-threaded schedule (and each `par_for_each`) runs inline or on the
    // worker pool as it measures, switching back and forth over the first
    // frames; a single-threaded one always runs inline. Both end the same.
    let hash_with = |multi_threaded: bool| {
        let mut world = new_world(3);
        let mut schedule = simulation();
        schedule.set_multi_threaded(multi_threaded);
        run(&mut world, &mut schedule, 60);
        hash(&world)
    };
    assert_eq!(hash_with(false), hash_with(true));
}

fn save_registry() -> SerializeRegistry {
    SerializeRegistry::new()
        .register::<Position>("Position")
        .register::<Velocity>("Velocity")
        .register::<Health>("Health")
        .register::<Label>("Label")
        .register::<Burning>("Burning")
        .register::<Shielded>("Shielded")
        .register_resource::<Rng>("Rng")
        .register_resource::<ChangedLog>("ChangedLog")
}

/// A new world loaded from a column save, run `frames` frames by a new
/// schedule: its hash and the next id it hands out.
fn replay_save(bytes: &[u8], frames: usize) -> (u64, Entity) {
    let save = save_registry().load_columns(&mut postcard::Deserializer::from_bytes(bytes)).unwrap();
    let mut world = World::new();
    world.load(save);
    world.check_invariants().unwrap();
    let mut schedule = simulation();
    run(&mut world, &mut schedule, frames);
    (hash(&world), world.spawn(()))
}

/// The variable that makes [`child_process_replays_a_save`] do its work.
const REPLAY_SAVE: &str = "ECS_DETERMINISM_REPLAY_SAVE";

#[test]
fn a_replay_from_a_save_ends_in_the_same_world_in_this_process_and_in_a_fresh_one() {
    let mut world = new_world(19);
    let mut schedule = simulation();
    run(&mut world, &mut schedule, 30);
    let bytes = postcard::to_allocvec(&save_registry().columns(&world)).unwrap();
    run(&mut world, &mut schedule, 40);
    let expected = (hash(&world), world.spawn(()));
    assert!(world.len() > 20, "the simulation keeps a population: {}", world.len());

    assert_eq!(replay_save(&bytes, 40), expected, "loaded in this process");

    let path = std::env::temp_dir().join(format!("ecs-determinism-{}.save", std::process::id()));
    std::fs::write(&path, &bytes).unwrap();
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_process_replays_a_save", "--nocapture", "--test-threads=1"])
        .env(REPLAY_SAVE, &path)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "the child failed: {stdout}{}", String::from_utf8_lossy(&output.stderr));
    let line =
        stdout.lines().find_map(|l| l.split_once("replayed: ").map(|(_, r)| r)).expect("the child printed its result");
    assert_eq!(line, format!("{} {}", expected.0, expected.1.to_bits()), "loaded in a fresh process");
}

/// The fresh process of the test above: run by it with the save's path in
/// `ECS_DETERMINISM_REPLAY_SAVE`; without the variable (a plain `cargo test`)
/// there is nothing to replay.
#[test]
fn child_process_replays_a_save() {
    let Some(path) = std::env::var_os(REPLAY_SAVE) else { return };
    let (hash, next) = replay_save(&std::fs::read(path).unwrap(), 40);
    println!("replayed: {hash} {}", next.to_bits());
}
