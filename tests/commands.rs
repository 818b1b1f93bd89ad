//! Deferred commands: spawned handles are usable at once, commands apply in order,
//! and commands on dead entities are skipped and reported, never applied to a
//! reused index.

use std::sync::{Arc, Mutex};

use ecs_core::command::{CommandQueue, Commands};
use ecs_core::prelude::*;

mod common;
use common::panic_message;

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
    let a = commands.spawn(Health(1)).id();
    let b = commands.spawn((Health(2), Name("b"))).id();
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
    let spawned = commands.spawn(Health(1)).id();
    let never = commands.spawn(Health(2)).id();
    // Despawning the second before it exists: its spawn comes first, so it
    // exists, then goes.
    commands.despawn(never);
    queue.apply(&mut world);
    assert!(world.contains(spawned) && !world.contains(never));
    assert!(log.lock().unwrap().is_empty());
    // Reservations whose commands are dropped unapplied are released later.
    let mut dropped = CommandQueue::default();
    let lost = Commands::new(&mut dropped, &world).spawn(Health(3)).id();
    drop(dropped);
    let normal = world.spawn(Health(4));
    assert_ne!(normal, lost);
    world.release_reserved_entities();
    world.check_invariants().unwrap();
    assert!(!world.contains(lost));
    assert_eq!(world.len(), 2);
}

/// A component whose drop panics (once armed), like a buggy `Drop` in user code.
#[derive(Component)]
struct Bomb(bool);

impl Drop for Bomb {
    fn drop(&mut self) {
        if self.0 {
            panic!("bomb went off");
        }
    }
}

#[test]
fn a_panicking_command_does_not_drop_the_rest_of_its_queue() {
    let mut world = World::new();
    let doomed = world.spawn(Bomb(true));
    let target = world.spawn(Health(1));
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.despawn(doomed);
    let spawned = commands.spawn(Health(5)).id();
    commands.insert(target, Name("after the panic"));
    commands.run(move |world| world.get_mut::<Health>(spawned).unwrap().0 += 1);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| queue.apply(&mut world)));
    assert_eq!(panic_message(result.unwrap_err()), "bomb went off", "the panic goes on");
    assert!(queue.is_empty());
    assert!(!world.contains(doomed));
    assert_eq!(world.get::<Health>(spawned), Some(&Health(6)), "the reserved handle became a live entity");
    assert_eq!(world.get::<Name>(target), Some(&Name("after the panic")));
    world.check_invariants().unwrap();
}

#[test]
fn a_panicking_command_in_a_schedule_keeps_the_other_systems_commands() {
    fn detonate(q: Query<(Entity, &Bomb)>, mut commands: Commands) {
        for (e, _) in q.iter() {
            commands.despawn(e);
        }
    }
    fn spawn_survivor(mut commands: Commands) {
        commands.spawn(Name("survivor"));
    }
    let mut world = World::new();
    world.spawn(Bomb(true));
    let mut schedule = Schedule::new();
    schedule.add_systems(detonate).add_systems(spawn_survivor);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| schedule.run(&mut world)));
    assert_eq!(panic_message(result.unwrap_err()), "bomb went off");
    let names: Vec<&str> = world.query::<&Name>().iter().map(|n| n.0).collect();
    assert_eq!(names, ["survivor"], "the later system's queue was applied too");
    assert_eq!(world.query::<&Bomb>().iter().count(), 0);
    world.check_invariants().unwrap();
    schedule.run(&mut world);
    assert_eq!(world.query::<&Name>().iter().count(), 2, "the schedule keeps working");
}

#[test]
fn entity_commands_chain_and_spawn_returns_them() {
    let mut world = World::new();
    let hero = world.spawn((Health(10), Name("hero")));
    let log = errors(&mut world);
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    let minion = commands.spawn(Health(1)).insert(Name("minion")).id();
    commands.entity(hero).remove::<Name>().insert(Health(11));
    let mut doomed = commands.spawn(Health(0));
    let doomed_id = doomed.id();
    doomed.insert(Name("doomed")).despawn();
    queue.apply(&mut world);
    assert_eq!(world.get::<Name>(minion), Some(&Name("minion")));
    assert_eq!((world.get::<Health>(hero), world.has::<Name>(hero)), (Some(&Health(11)), false));
    assert!(!world.contains(doomed_id));
    assert!(log.lock().unwrap().is_empty(), "{:?}", log.lock().unwrap());
}

#[test]
fn entity_commands_on_a_dead_entity_are_skipped_and_reported() {
    let mut world = World::new();
    let gone = world.spawn(Health(1));
    world.despawn(gone).unwrap();
    let log = errors(&mut world);
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).entity(gone).insert(Name("x")).remove::<Health>().despawn();
    queue.apply(&mut world);
    assert_eq!(log.lock().unwrap().len(), 3, "each command is reported: {:?}", log.lock().unwrap());
    assert!(world.is_empty());
}

#[derive(SystemParam)]
struct TwoQueues<'w> {
    first: Commands<'w>,
    second: Commands<'w>,
}

#[test]
fn a_panicking_command_does_not_stop_the_other_parameters_of_its_system() {
    fn tuple(bombs: Query<(Entity, &Bomb)>, mut first: Commands, mut second: Commands) {
        bombs.iter().for_each(|(e, _)| first.despawn(e));
        second.spawn(Name("tuple"));
    }
    fn derived(bombs: Query<(Entity, &Bomb)>, mut queues: TwoQueues) {
        bombs.iter().for_each(|(e, _)| queues.first.despawn(e));
        queues.second.spawn(Name("derived"));
    }
    for (system, name) in [(0, "tuple"), (1, "derived")] {
        let mut world = World::new();
        world.spawn(Bomb(true));
        let mut schedule = Schedule::new();
        if system == 0 {
            schedule.add_systems(tuple);
        } else {
            schedule.add_systems(derived);
        }
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| schedule.run(&mut world)));
        assert_eq!(panic_message(result.unwrap_err()), "bomb went off");
        let names: Vec<&str> = world.query::<&Name>().iter().map(|n| n.0).collect();
        assert_eq!(names, [name], "the second queue of the {name} system was applied");
        world.check_invariants().unwrap();
    }
}

#[test]
fn removing_a_bundle_through_commands_removes_what_the_entity_has_as_entity_world_mut_does() {
    let mut world = World::new();
    let log = errors(&mut world);
    let by_commands = world.spawn((Health(1), Name("only health and name")));
    let directly = world.spawn((Health(1), Name("the same")));
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.entity(by_commands).remove::<(Health, Marker)>();
    queue.apply(&mut world);
    world.entity_mut(directly).unwrap().remove::<(Health, Marker)>();
    for entity in [by_commands, directly] {
        let entity = world.entity(entity).unwrap();
        assert!(!entity.contains::<Health>() && entity.contains::<Name>());
    }
    assert!(log.lock().unwrap().is_empty(), "nothing skipped: {:?}", log.lock().unwrap());
}

#[derive(Component)]
struct Marker;

#[derive(Debug, Default, PartialEq)]
struct Score(u32);

struct Level(u32);
impl FromWorld for Level {
    fn from_world(world: &mut World) -> Self {
        Level(world.len() as u32)
    }
}

#[test]
fn resources_spawns_and_closures_through_commands() {
    let mut world = World::new();
    let log = errors(&mut world);
    world.spawn(Health(1));
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.insert_resource(Score(3));
    commands.init_resource::<Level>();
    commands.spawn_batch((0..4).map(Health));
    let empty = commands.spawn_empty().insert(Name("late")).id();
    commands.queue(|world: &mut World| world.resource_mut::<Score>().0 += 1);
    commands.queue(move |world: &mut World| world.despawn(empty));
    commands.queue(move |world: &mut World| world.despawn(empty)); // reported: gone
    queue.apply(&mut world);
    assert_eq!(world.resource::<Score>(), &Score(4));
    assert_eq!(world.resource::<Level>().0, 1, "made when applied, from the world then");
    assert_eq!(world.query::<&Health>().iter().count(), 5);
    assert!(!world.contains(empty));
    assert_eq!(log.lock().unwrap().len(), 1, "{:?}", log.lock().unwrap());

    let mut commands = Commands::new(&mut queue, &world);
    commands.init_resource::<Level>(); // kept: there is one
    commands.remove_resource::<Score>();
    queue.apply(&mut world);
    assert_eq!(world.resource::<Level>().0, 1);
    assert!(world.get_resource::<Score>().is_none());
}

#[test]
fn try_commands_skip_a_gone_entity_without_a_report() {
    let mut world = World::new();
    let log = errors(&mut world);
    let gone = world.spawn(Health(1));
    let kept = world.spawn(Health(2));
    world.despawn(gone).unwrap();
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.entity(gone).try_insert(Name("x")).try_remove::<Health>().try_despawn();
    commands.entity(kept).try_insert(Name("kept")).try_remove::<Health>();
    commands.entity(kept).try_despawn();
    commands.entity(kept).try_despawn(); // despawned by the one before: skipped too
    queue.apply(&mut world);
    assert!(log.lock().unwrap().is_empty(), "{:?}", log.lock().unwrap());
    assert!(!world.contains(kept));
    // Other errors are still reported: a link to a dead parent.
    let child = world.spawn(Health(3));
    let mut commands = Commands::new(&mut queue, &world);
    commands.entity(child).try_insert(ChildOf(gone));
    queue.apply(&mut world);
    assert_eq!(log.lock().unwrap().len(), 1, "{:?}", log.lock().unwrap());
    assert!(!world.has::<ChildOf>(child));
}
