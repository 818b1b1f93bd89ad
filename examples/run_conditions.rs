//! Run conditions: `system.run_if(condition)` runs a system only when a read-only
//! function returning `bool` says so. Shown: a query condition, the helpers
//! `resource_exists`, `resource_added`, `resource_changed`, `resource_equals`, and
//! the combinators `not`, `.and`, `.or`.
//!
//! Run with `cargo run --example run_conditions`.

use ecs_core::prelude::*;

#[derive(Component)]
struct Enemy;

#[derive(PartialEq)]
enum GameState {
    Playing,
    Won,
}
struct Paused;
struct Settings {
    volume: u8,
}

/// What ran, frame by frame, to check against below.
#[derive(Default)]
struct Log(Vec<&'static str>);

fn no_enemies_left(q: Query<(), With<Enemy>>) -> bool {
    q.is_empty()
}

fn spawn_wave(mut commands: Commands, mut log: ResMut<Log>) {
    commands.spawn(Enemy);
    log.0.push("wave");
}

fn apply_settings(settings: Res<Settings>, mut log: ResMut<Log>) {
    log.0.push(if settings.volume > 0 { "sound on" } else { "sound off" });
}

fn load_settings(mut log: ResMut<Log>) {
    log.0.push("loaded");
}

fn show_menu(mut log: ResMut<Log>) {
    log.0.push("menu");
}

fn main() {
    let mut world = World::new();
    world.insert_resource(Log::default());
    world.insert_resource(GameState::Playing);
    let mut schedule = Schedule::new();
    schedule
        // Conditions are evaluated right before their system would run, every frame.
        .add_systems(spawn_wave.run_if(no_enemies_left.and(not(resource_exists::<Paused>))))
        .add_systems(load_settings.run_if(resource_added::<Settings>)) // inserted since the last check
        .add_systems(apply_settings.run_if(resource_changed::<Settings>)) // inserted or written since then
        .add_systems(show_menu.run_if(resource_exists::<Paused>.or(resource_equals(GameState::Won))));

    let mut frame = |world: &mut World, label: &'static str| {
        world.resource_mut::<Log>().0.push(label);
        schedule.run(world);
    };
    frame(&mut world, "1"); // no enemy yet: a wave; no `Settings`: nothing to apply
    frame(&mut world, "2"); // an enemy is alive: no wave
    let enemy = world.query_filtered::<Entity, With<Enemy>>().single().expect("one enemy");
    world.despawn(enemy).expect("alive");
    world.insert_resource(Paused);
    world.insert_resource(Settings { volume: 5 });
    frame(&mut world, "3"); // no enemy, but paused: no wave; settings added: loaded and applied
    world.remove_resource::<Paused>();
    world.resource_mut::<Settings>().volume = 0;
    *world.resource_mut::<GameState>() = GameState::Won;
    frame(&mut world, "4"); // a wave; settings changed, not added; won: the menu
    frame(&mut world, "5"); // an enemy is alive and nothing changed: only the menu

    let log = &world.resource::<Log>().0;
    println!("{log:?}");
    assert_eq!(log.join(", "), "1, wave, 2, 3, loaded, sound on, menu, 4, wave, sound off, menu, 5, menu");
}
