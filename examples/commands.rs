//! Deferred changes from systems: `Commands` spawns, inserts, removes and despawns
//! while queries are borrowed, and the schedule applies them after the system ran:
//! at the end of the run, or before a system ordered after it.
//! A command whose entity is gone by then is skipped and reported to the world's
//! command error handler, never applied to another entity.
//!
//! Run with `cargo run --example commands`.

use std::sync::{Arc, Mutex};

use ecs_core::prelude::*;

#[derive(Component, Debug, PartialEq)]
struct Health(i32);

#[derive(Component)]
struct Poisoned;

#[derive(Component)]
struct Corpse;

#[derive(Component, Debug, PartialEq)]
struct Name(&'static str);

/// Spawns a poisoned minion once; `spawn` returns `EntityCommands` for chaining,
/// and the handle from `.id()` is valid at once (the entity exists after the run).
fn summon(mut commands: Commands, mut done: Local<bool>) {
    if !std::mem::replace(&mut *done, true) {
        let minion = commands.spawn(Health(1)).insert((Poisoned, Name("minion"))).id();
        println!("summoned {minion:?}");
    }
}

/// The dead become corpses; corpses are cleared away one frame later.
fn reaper(living: Query<(Entity, &Health)>, corpses: Query<Entity, With<Corpse>>, mut commands: Commands) {
    for (e, h) in living.iter() {
        if h.0 <= 0 {
            commands.entity(e).remove::<(Health, Poisoned)>().insert(Corpse);
        }
    }
    for e in corpses.iter() {
        commands.entity(e).despawn();
    }
}

fn poison(mut q: Query<&mut Health, With<Poisoned>>) {
    q.iter_mut().for_each(|h| h.0 -= 1);
}

fn main() {
    let mut world = World::new();
    // Collect skipped commands instead of printing them to stderr.
    let skipped = Arc::new(Mutex::new(Vec::new()));
    let sink = skipped.clone();
    world.set_command_error_handler(move |err| sink.lock().unwrap().push(*err));

    let hero = world.spawn((Health(3), Name("hero")));
    let mut schedule = Schedule::new();
    schedule.add_systems(summon).add_systems(poison.after(summon)).add_systems(reaper.after(poison));

    // `poison` is ordered after `summon`, which queues commands: the schedule
    // applies them in between (a sync point, as bevy_ecs does), so the minion
    // is poisoned to 0 in the run that summons it, and the reaper (whose
    // commands wait for the end of the run) makes it a corpse.
    schedule.run(&mut world);
    let minion = world.query_filtered::<Entity, With<Corpse>>().single().expect("one corpse");
    assert!(!world.has::<Health>(minion) && !world.has::<Poisoned>(minion));
    schedule.run(&mut world); // the corpse is despawned
    assert!(!world.contains(minion));
    assert_eq!(world.get::<Health>(hero), Some(&Health(3)), "the hero was never poisoned");

    // A command on a dead entity: skipped, reported, nothing else touched.
    let haunt = move |mut commands: Commands| {
        commands.entity(minion).insert(Name("ghost"));
    };
    world.run_system_once(haunt).expect("needs no resource");
    let skipped = skipped.lock().unwrap();
    println!("skipped: {}", skipped[0]);
    assert_eq!(skipped.as_slice(), [EcsError::NoSuchEntity(minion)]);
    assert_eq!(world.len(), 1);
}
