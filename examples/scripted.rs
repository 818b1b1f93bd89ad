//! A small shooter whose game rules are a Luau script (`examples/data/waves.luau`):
//! the wave spawner and the turrets' cooling run as script systems (declared
//! by the script itself) beside the Rust systems that move bodies and resolve
//! hits, in one schedule, on one world. Halfway through, the script is
//! reloaded from its file without restarting the world.
//!
//! ```text
//! cargo run --release --example scripted
//! ```

use std::sync::{Arc, Mutex};

use ecs_core::prelude::*;
use ecs_core::system::Schedule;
use ecs_script::{ScriptHost, script_systems};

#[derive(Component, Clone, Copy, Debug)]
#[component(describe, layout = "soa")]
struct Body {
    x: f32,
    y: f32,
    vx: f32,
    vy: f32,
}

#[derive(Component, Clone, Copy, Debug)]
#[component(describe)]
struct Enemy {
    hp: i32,
}

#[derive(Default)]
struct Score {
    kills: u32,
    escaped: u32,
}

fn movement(mut bodies: Query<&mut Body>) {
    bodies.iter_mut().for_each(|b| {
        *b.x += *b.vx;
        *b.y += *b.vy;
    });
}

/// The turret at the bottom hits every enemy below y = 10 once a frame.
fn turret(mut commands: Commands, mut enemies: Query<(Entity, &mut Enemy, &Body)>, mut score: ResMut<Score>) {
    for (entity, enemy, body) in enemies.iter_mut() {
        if *body.y < 0.0 {
            score.escaped += 1;
            commands.despawn(entity);
        } else if *body.y < 10.0 {
            enemy.hp -= 1;
            if enemy.hp <= 0 {
                score.kills += 1;
                commands.despawn(entity);
            }
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut world = World::new();
    world.insert_resource(Score::default());
    world.register_component::<Body>();
    world.register_component::<Enemy>();

    let rules = concat!(env!("CARGO_MANIFEST_DIR"), "/data/waves.luau");
    let mut host = ScriptHost::new()?;
    host.load_file(rules)?;
    host.call::<()>(&mut world, "waves", "setup")?;
    let turret_heat = world.component_id_by_name("Heat").expect("defined by the script");
    let heat = world.spawn_empty().id();
    let mut value = ecs_core::world::DynamicValue::new(&world, turret_heat)?;
    value.set("value", 3.0f32)?;
    world.insert_by_id(heat, turret_heat, value)?;
    let host = Arc::new(Mutex::new(host));

    let mut schedule = Schedule::new();
    // `waves.cool` and `waves.spawn_waves`, with the access the script declares.
    for system in script_systems(&host, &world, "waves")? {
        schedule.add_systems(system);
    }
    schedule.add_systems((movement, turret));
    for frame in 0..60 {
        if frame == 30 {
            // A reload (an edited file would be read the same way): the
            // systems run the new functions; the waves go on from the world.
            host.lock().map_err(|_| "host poisoned")?.load_file(rules)?;
        }
        schedule.run(&mut world);
    }
    let errors = host.lock().map_err(|_| "host poisoned")?.take_errors();
    assert!(errors.is_empty(), "script errors: {errors:?}");

    let score = world.resource::<Score>();
    let alive = world.query::<&Enemy>().iter().count();
    let wave = world.component_id_by_name("Wave").expect("defined by the script");
    let waves = world.query::<Entity>().iter().find_map(|e| world.get_by_id(e, wave).ok()?.get::<u32>("number").ok());
    let cooled = world.get_by_id(heat, turret_heat)?.get::<f32>("value")?;
    let (kills, escaped) = (score.kills, score.escaped);
    println!(
        "after 60 frames: {waves:?} waves, {kills} kills, {escaped} escaped, {alive} enemies on screen, turret heat {cooled}"
    );
    // Waves every 11 frames (spawn, then a countdown of 10): frames 1, 12, …, 56.
    assert_eq!(waves, Some(6));
    // Every enemy spawned is killed, escaped or still on screen.
    let spawned: u32 = (0..6).map(|w| w + 2).sum();
    assert_eq!(score.kills + score.escaped + alive as u32, spawned);
    assert!(score.kills > 0);
    assert_eq!(cooled, 0.0, "the turret cooled down in its batch");
    Ok(())
}
