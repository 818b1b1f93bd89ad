//! A first tour of the API: spawn entities from bundles, change their components
//! (moving them between archetypes), read them back, and despawn them.
//!
//! Run with `cargo run --release --example quickstart`.

use ecs_core::prelude::*;

#[derive(Component, Clone, Copy, Debug, Pod, Zeroable)]
#[repr(C)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Copy, Debug, Pod, Zeroable)]
#[repr(C)]
struct Velocity {
    x: f32,
    y: f32,
}

#[derive(Component, Debug)]
struct Name(String);

#[derive(Component)]
struct Docked;

#[derive(Bundle)]
struct Ship {
    pos: Position,
    vel: Velocity,
    name: Name,
}

fn main() -> Result<(), EcsError> {
    let mut world = World::new();
    let flagship = world.spawn(Ship {
        pos: Position { x: 0.0, y: 0.0 },
        vel: Velocity { x: 1.0, y: 0.5 },
        name: Name("Flagship".into()),
    });
    let drones: Vec<Entity> = world
        .spawn_batch((0..10_000).map(|i| (Position { x: i as f32, y: 0.0 }, Velocity { x: 0.0, y: 1.0 })))
        .collect();

    // Ten simulated steps, entity by entity (queries come with the query API).
    for _ in 0..10 {
        for &e in drones.iter().chain([&flagship]) {
            let v = *world.get::<Velocity>(e).expect("every ship moves");
            let p = world.get_mut::<Position>(e).expect("every ship has a position");
            p.x += v.x;
            p.y += v.y;
        }
    }

    // Dock every tenth drone: inserting a component moves it along the archetype edge.
    for &e in drones.iter().step_by(10) {
        world.insert(e, Docked)?;
    }
    // Docked drones stop: removing Velocity hands the value back.
    let mut stopped = 0;
    for &e in drones.iter().step_by(10) {
        let _velocity: Velocity = world.remove::<Velocity>(e)?;
        stopped += 1;
    }
    world.despawn(drones[1])?;
    let stale = world.get::<Position>(drones[1]);

    let docked = world.iter().filter(|e| e.has::<Docked>()).count();
    println!("{} entities in {} archetypes", world.len(), world.archetypes().len());
    println!("flagship {:?} is at {:?}", world.get::<Name>(flagship).map(|n| &n.0), world.get::<Position>(flagship));
    println!("{docked} docked drones, {stopped} stopped; despawned drone reads as {stale:?}");
    println!("{}", world.despawn(drones[1]).unwrap_err());
    world.check_invariants().expect("the world is consistent");
    Ok(())
}
