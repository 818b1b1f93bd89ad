//! Deferred commands: spawned handles are usable at once, commands apply in order,
//! and commands on dead entities are skipped and reported, never applied to a
//! reused index.

use std::sync::{Arc, Mutex};

use ecs_core::command::{CommandQueue, Commands};
use ecs_core::prelude::*;

#[derive(Component, Debug, PartialEq)]
struct Health(i32);

#[derive(Component, Debug, PartialEq)]
struct Name(&'static str);

fn errors(world: &mut World) -> Arc<Mutex<Vec<String>>> {
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink = log.clone();
    world.set_command_error_handler(move |e| sink.lock().unwrap().push(e.to_string()));
    log
}

#[test]
fn spawned_handles_are_usable_at_once_and_commands_apply_in_order() {
    let mut world = World::new();
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    let a = commands.spawn(Health(1));
    let b = commands.spawn((Health(2), Name("b")));
    commands.insert(a, Name("a"));
    commands.remove::<Health>(b);
    commands.run(move |w| w.get_mut::<Health>(a).unwrap().0 += 10);
    assert!(!world.contains(a), "nothing happens before the queue is applied");
    assert_eq!(queue.len(), 5);
    queue.apply(&mut world);
    assert_eq!(world.get::<Health>(a), Some(&Health(11)));
    assert_eq!(world.get::<Name>(a), Some(&Name("a")));
    assert_eq!(world.get::<Health>(b), None);
    assert_eq!(world.len(), 2);
    world.check_invariants().unwrap();
}

#[test]
fn commands_on_dead_entities_are_skipped_and_reported() {
    let mut world = World::new();
    let log = errors(&mut world);
    let doomed = world.spawn(Health(0));
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.despawn(doomed);
    commands.insert(doomed, Name("late"));
    commands.despawn(doomed);
    queue.apply(&mut world);
    assert!(!world.contains(doomed));
    assert_eq!(log.lock().unwrap().len(), 2, "{:?}", log.lock().unwrap());
    // The index is reused by a new entity; an old command must not touch it.
    let reused = world.spawn(Health(5));
    assert_eq!(reused.index(), doomed.index());
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).insert(doomed, Health(-1));
    queue.apply(&mut world);
    assert_eq!(world.get::<Health>(reused), Some(&Health(5)));
    assert_eq!(log.lock().unwrap().len(), 3);
    world.check_invariants().unwrap();
}

#[test]
fn reserved_but_unspawned_handles_are_released() {
    let mut world = World::new();
    let log = errors(&mut world);
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    let spawned = commands.spawn(Health(1));
    let never = commands.spawn(Health(2));
    // Despawning the second before it exists: its spawn comes first, so it
    // exists, then goes.
    commands.despawn(never);
    queue.apply(&mut world);
    assert!(world.contains(spawned) && !world.contains(never));
    assert!(log.lock().unwrap().is_empty());
    // Reservations whose commands are dropped unapplied are released later.
    let mut dropped = CommandQueue::default();
    let lost = Commands::new(&mut dropped, &world).spawn(Health(3));
    drop(dropped);
    let normal = world.spawn(Health(4));
    assert_ne!(normal, lost);
    world.release_reserved_entities();
    world.check_invariants().unwrap();
    assert!(!world.contains(lost));
    assert_eq!(world.len(), 2);
}
