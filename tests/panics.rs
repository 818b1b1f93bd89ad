//! The statements of `ecs_core::panics`, one test each: a panic in user code (an
//! iterator given to `spawn_batch` and its `Clone`s, query closures in every
//! iteration mode, a system) reaches the caller and leaves the world consistent,
//! with exactly the effects the page promises. `Drop` panics are pinned in
//! `tests/drop.rs`, command panics in `tests/commands.rs`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};

use ecs_core::prelude::*;

mod common;
use common::panic_message;

#[derive(Component, Debug, PartialEq)]
struct Health(u32);

#[derive(Component, Debug, PartialEq)]
struct Armor(u32);

/// Panics on its `limit`-th clone.
#[derive(Component, Debug)]
struct Fragile {
    clones: &'static AtomicUsize,
    limit: usize,
}

impl Clone for Fragile {
    fn clone(&self) -> Self {
        if self.clones.fetch_add(1, Ordering::SeqCst) + 1 == self.limit {
            panic!("clone failed");
        }
        Self { clones: self.clones, limit: self.limit }
    }
}

#[test]
fn a_panicking_clone_in_spawn_batch_keeps_the_entities_spawned_before() {
    static CLONES: AtomicUsize = AtomicUsize::new(0);
    let mut world = World::new();
    let template = Fragile { clones: &CLONES, limit: 4 };
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.spawn_batch((0..10).map(|_| (template.clone(), Health(1))));
    }));
    assert_eq!(panic_message(result.unwrap_err()), "clone failed");
    world.check_invariants().unwrap();
    assert_eq!(world.query::<(&Fragile, &Health)>().iter().count(), 3, "the three items before the panic");
    assert_eq!(CLONES.load(Ordering::SeqCst), 4, "the iterator is not polled again while unwinding");
}

fn world_of(n: u32) -> World {
    let mut world = World::new();
    world.spawn_batch((0..n).map(|i| (Health(i), Armor(0))));
    world
}

/// Runs `visit` (which panics at the row whose `Health` is 5, after setting
/// `Armor` to 1 on every row it saw) and checks the page's promises: the panic
/// arrives, earlier writes stay, every written row reads as changed, the world is
/// consistent and the query state still works.
fn check_query_closure_panic(visit: impl FnOnce(&mut World, &mut QueryState<(&Health, &mut Armor), ()>)) {
    let mut world = world_of(20);
    let mut changed = world.query_state_filtered::<&Health, Changed<Armor>>();
    changed.iter(&world).count();
    let mut state = world.query_state::<(&Health, &mut Armor)>();
    let result = catch_unwind(AssertUnwindSafe(|| visit(&mut world, &mut state)));
    assert_eq!(panic_message(result.unwrap_err()), "row 5");
    world.check_invariants().unwrap();
    let written: Vec<u32> =
        world.query::<(&Health, &Armor)>().iter().filter(|(_, a)| a.0 == 1).map(|(h, _)| h.0).collect();
    assert!(!written.is_empty(), "writes before the panic stay");
    let stamped: Vec<u32> = changed.iter(&world).map(|h| h.0).collect();
    assert!(written.iter().all(|h| stamped.contains(h)), "every written row is changed: {written:?} {stamped:?}");
    assert_eq!(state.iter_mut(&mut world).count(), 20, "the state stays usable");
}

#[test]
fn a_panicking_for_loop_body_keeps_earlier_writes_and_marks_them_changed() {
    check_query_closure_panic(|world, state| {
        for (health, armor) in state.iter_mut(world) {
            armor.0 = 1;
            assert!(health.0 != 5, "row 5");
        }
    });
}

#[test]
fn a_panicking_for_each_closure_keeps_earlier_writes_and_marks_them_changed() {
    check_query_closure_panic(|world, state| {
        state.iter_mut(world).for_each(|(health, armor)| {
            armor.0 = 1;
            assert!(health.0 != 5, "row 5");
        });
    });
}

#[test]
fn a_panicking_chunk_closure_keeps_earlier_writes_and_marks_them_changed() {
    check_query_closure_panic(|world, state| {
        state.for_each_chunk(world, |(health, armor): (&[Health], &mut [Armor])| {
            for (h, a) in health.iter().zip(armor) {
                a.0 = 1;
                assert!(h.0 != 5, "row 5");
            }
        });
    });
}

#[test]
fn a_panicking_par_for_each_closure_reaches_the_caller_and_leaves_the_world_consistent() {
    check_query_closure_panic(|world, state| {
        state.par_for_each(world, |(health, armor)| {
            armor.0 = 1;
            assert!(health.0 != 5, "row 5");
        });
    });
}

#[derive(Default)]
struct Runs(Vec<&'static str>);

fn recorder(mut commands: Commands, mut runs: ResMut<Runs>) {
    runs.0.push("recorder");
    commands.spawn(Armor(7));
}

fn bomb(q: Query<&Health>) {
    assert!(q.iter().count() > 1, "bomb");
}

fn after_bomb(mut runs: ResMut<Runs>) {
    runs.0.push("after_bomb");
}

#[test]
fn a_panicking_system_stops_the_run_and_the_commands_recorded_are_applied_to_its_world() {
    let mut world = World::new();
    world.insert_resource(Runs::default());
    let mut schedule = Schedule::new();
    schedule.add_systems(recorder).add_systems(bomb.after(recorder)).add_systems(after_bomb.after(bomb));
    let result = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world)));
    assert_eq!(panic_message(result.unwrap_err()), "bomb");
    world.check_invariants().unwrap();
    assert_eq!(world.get_resource::<Runs>().unwrap().0, ["recorder"], "no system starts after the panic");
    assert_eq!(world.query::<&Armor>().iter().count(), 1, "the recorded spawn is applied as the panic unwinds");
    world.spawn(Health(1));
    world.spawn(Health(2));
    schedule.run(&mut world);
    assert_eq!(world.get_resource::<Runs>().unwrap().0, ["recorder", "recorder", "after_bomb"]);
    assert_eq!(world.query::<&Armor>().iter().count(), 2, "both runs' commands were applied once each");
}

/// The case that lost commands: after the panic, the same schedule runs on
/// another world. Every handle `Commands::spawn` gave out on the first world is
/// a live entity there, and nothing of the first world's queue reaches the second.
#[test]
fn commands_recorded_before_a_panic_stay_with_their_world_when_the_schedule_moves_on() {
    #[derive(Default)]
    struct Handed(Vec<Entity>);
    fn spawner(mut commands: Commands, mut handed: ResMut<Handed>) {
        handed.0.push(commands.spawn(Armor(3)).id());
    }
    fn bomb_once(q: Query<&Health>) {
        assert!(q.iter().count() != 1, "bomb");
    }
    let mut first = World::new();
    first.insert_resource(Handed::default());
    first.spawn(Health(1));
    let mut schedule = Schedule::new();
    schedule.add_systems(spawner).add_systems(bomb_once.after(spawner));
    let result = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut first)));
    assert_eq!(panic_message(result.unwrap_err()), "bomb");
    first.check_invariants().unwrap();
    let handed = first.resource::<Handed>().0.clone();
    assert_eq!(handed.len(), 1);
    assert_eq!(first.get::<Armor>(handed[0]).map(|a| a.0), Some(3), "the spawn reached its own world");

    let mut second = World::new();
    second.insert_resource(Handed::default());
    schedule.run(&mut second);
    second.check_invariants().unwrap();
    assert_eq!(second.query::<&Armor>().iter().count(), 1, "only the second world's own spawn");
    assert_eq!(first.query::<&Armor>().iter().count(), 1);
    // The first world hands out fresh ids after the reserved one, which is live.
    let next = first.spawn(Health(9));
    assert_ne!(next, handed[0]);
    assert!(first.contains(handed[0]));
}
