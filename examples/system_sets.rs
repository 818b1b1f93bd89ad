//! System sets: name a group of systems (`.in_set(Physics)`), order whole groups
//! (`configure_sets(Physics.before(Render))`), nest them (`Physics.in_set(Gameplay)`),
//! and order single systems against a set (`system.after(Physics)`). Each system
//! records its name in a `Log` resource, so the order can be checked.
//!
//! Run with `cargo run --example system_sets`.

use ecs_core::prelude::*;

#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
struct Gameplay;
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
struct Physics;
/// Each variant of an enum is a set of its own.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
enum Render {
    World,
    Ui,
}

#[derive(Default)]
struct Log(Vec<&'static str>);

/// One system per name; each appends its name to the log.
macro_rules! logging_systems {
    ($($name:ident),*) => {$(
        fn $name(mut log: ResMut<Log>) {
            log.0.push(stringify!($name));
        }
    )*};
}
logging_systems!(input, gravity, collide, ai, draw_sprites, draw_hud, play_sounds);

fn main() {
    let mut world = World::new();
    world.insert_resource(Log::default());
    let mut schedule = Schedule::new();
    // Added deliberately out of order: the sets, not insertion order, decide.
    schedule
        .add_systems(draw_hud.in_set(Render::Ui))
        .add_systems(draw_sprites.in_set(Render::World))
        .add_systems(play_sounds.after(Physics)) // after every system of a set
        .add_systems(collide.in_set(Physics).after(gravity))
        .add_systems(gravity.in_set(Physics))
        .add_systems(ai.in_set(Gameplay))
        .add_systems(input.before(Gameplay))
        // Physics is part of Gameplay, so it also runs after `input`.
        .configure_sets(Physics.in_set(Gameplay))
        .configure_sets(Gameplay.before(Render::World))
        .configure_sets(Render::World.before(Render::Ui));

    for _ in 0..2 {
        schedule.run(&mut world);
    }
    let log = std::mem::take(&mut world.resource_mut::<Log>().0);
    println!("{log:?}");
    assert_eq!(log.len(), 14, "every system ran once per frame");
    let frame = &log[..7];
    let at = |name: &str| frame.iter().position(|n| *n == name).expect("ran");
    // What the sets promise; systems with no order between them (ai, gravity) may
    // run either way round.
    assert_eq!(frame[0], "input");
    for gameplay in ["ai", "gravity", "collide"] {
        assert!(at(gameplay) < at("draw_sprites"), "{frame:?}");
    }
    assert!(at("gravity") < at("collide") && at("collide") < at("play_sounds"));
    assert!(at("draw_sprites") < at("draw_hud"));
    assert_eq!(&log[7..], frame, "the same order every frame");
}
