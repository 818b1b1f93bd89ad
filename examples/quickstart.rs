//! A first tour: entities from bundles, systems run by a schedule, commands that
//! change entities between frames, and queries that read the result.
//!
//! Run with `cargo run --release --example quickstart`.

use std::time::Instant;

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

#[derive(Component)]
struct Fuel(f32);

#[derive(Component)]
struct Name(String);

/// A tag: zero-sized, so docking moves no data.
#[derive(Component)]
struct Docked;

#[derive(Bundle)]
struct Ship {
    pos: Position,
    vel: Velocity,
    fuel: Fuel,
}

struct DeltaTime(f32);

#[derive(Default)]
struct Stats {
    docked: u32,
    launched: u32,
}

fn movement(mut ships: Query<(&mut Position, &Velocity), Without<Docked>>, dt: Res<DeltaTime>) {
    for (p, v) in ships.iter_mut() {
        p.x += v.x * dt.0;
        p.y += v.y * dt.0;
    }
}

fn burn(mut ships: Query<(Entity, &mut Fuel), Without<Docked>>, mut commands: Commands, mut stats: ResMut<Stats>) {
    for (e, fuel) in ships.iter_mut() {
        fuel.0 -= 1.0;
        if fuel.0 <= 0.0 {
            commands.insert(e, Docked);
            stats.docked += 1;
        }
    }
}

fn refuel(mut docked: Query<(Entity, &mut Fuel), With<Docked>>, mut commands: Commands, mut stats: ResMut<Stats>) {
    for (e, fuel) in docked.iter_mut() {
        fuel.0 += 5.0;
        if fuel.0 >= 20.0 {
            commands.remove::<Docked>(e);
            stats.launched += 1;
        }
    }
}

fn main() -> Result<(), EcsError> {
    let mut world = World::new();
    world.insert_resource(DeltaTime(1.0 / 60.0));
    world.insert_resource(Stats::default());
    let flagship =
        world.spawn(Ship { pos: Position { x: 0.0, y: 0.0 }, vel: Velocity { x: 1.0, y: 0.5 }, fuel: Fuel(1_000.0) });
    world.insert(flagship, Name("Flagship".into()))?;
    world.spawn_batch((0..10_000).map(|i| Ship {
        pos: Position { x: i as f32, y: 0.0 },
        vel: Velocity { x: 0.0, y: 1.0 },
        fuel: Fuel((i % 50) as f32 + 1.0),
    }));

    let mut schedule = Schedule::new();
    schedule.add_systems(movement).add_systems(burn).add_systems(refuel);
    let start = Instant::now();
    for _ in 0..120 {
        schedule.run(&mut world);
    }
    let elapsed = start.elapsed();

    let docked = world.query_filtered::<Entity, With<Docked>>().iter().count();
    let stats = world.get_resource::<Stats>().expect("inserted above");
    println!("{} entities in {} archetypes", world.len(), world.archetypes().iter().filter(|a| !a.is_empty()).count());
    println!("120 frames in {elapsed:.2?} ({:.1} us/frame)", elapsed.as_secs_f64() * 1e6 / 120.0);
    println!("{} dockings, {} launches, {docked} docked now", stats.docked, stats.launched);
    let name = world.get::<Name>(flagship).map(|n| n.0.as_str());
    println!("{name:?} is at {:?}", world.get::<Position>(flagship));
    world.despawn(flagship)?;
    println!("{}", world.despawn(flagship).unwrap_err());
    world.check_invariants().expect("the world is consistent");
    Ok(())
}
