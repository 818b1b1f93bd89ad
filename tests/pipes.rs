//! System input (`In<T>`) and piping: `a.pipe(b)` in schedules,
//! `run_system_with`, `run_system_once_with`, `run_system_cached_with`.

use std::sync::Mutex;

use ecs_core::command::{CommandQueue, Commands};
use ecs_core::error::{BoxedError, ErrorContext};
use ecs_core::prelude::*;
use ecs_core::system::IntoSystem;

#[derive(Component)]
struct Enemy;

#[derive(Component)]
struct Player;

#[derive(Default)]
struct Log(Vec<String>);

fn count_enemies(enemies: Query<(), With<Enemy>>) -> usize {
    enemies.iter().count()
}

fn describe(In(count): In<usize>) -> String {
    format!("{count} enemies")
}

fn write_down(In(line): In<String>, mut log: ResMut<Log>) {
    log.0.push(line);
}

fn world_with_log() -> World {
    let mut world = World::new();
    world.init_resource::<Log>();
    world
}

#[test]
fn a_pipe_runs_its_stages_in_turn_each_schedule_run() {
    let mut world = world_with_log();
    world.spawn_batch((0..3).map(|_| Enemy));
    let mut schedule = Schedule::new();
    schedule.add_systems(count_enemies.pipe(describe).pipe(write_down));
    schedule.run(&mut world);
    world.spawn(Enemy);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0, ["3 enemies", "4 enemies"]);
}

#[test]
fn stages_may_share_what_they_write_and_keep_their_locals() {
    fn bump(mut log: ResMut<Log>, mut runs: Local<u32>) -> u32 {
        *runs += 1;
        log.0.push(format!("bump {}", *runs));
        *runs
    }
    fn read_back(In(runs): In<u32>, log: Res<Log>, mut seen: Local<Vec<u32>>) -> usize {
        seen.push(runs);
        assert_eq!(log.0.last().map(String::as_str), Some(format!("bump {runs}").as_str()));
        seen.len()
    }
    fn keep(In(seen): In<usize>, mut commands: Commands) {
        commands.spawn(Player);
        assert!(seen > 0);
    }
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.add_systems(bump.pipe(read_back).pipe(keep));
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Log>().0, ["bump 1", "bump 2", "bump 3"]);
    assert_eq!(world.query::<&Player>().iter().count(), 3, "the last stage's commands were applied");
}

#[test]
fn a_pipe_holds_both_stages_access() {
    fn reads_log(_: Res<Log>) {}
    let pipe = IntoSystem::into_system(count_enemies.pipe(describe).pipe(write_down));
    let reader = IntoSystem::into_system(reads_log);
    use ecs_core::system::System;
    assert!(pipe.access().conflict(reader.access()).is_some(), "the last stage writes Log");
    fn writes_players(_: Query<&mut Player>) {}
    let writer = IntoSystem::into_system(writes_players);
    let pipe = IntoSystem::into_system(count_enemies.pipe(describe).pipe(write_down));
    assert!(pipe.access().conflict(writer.access()).is_none(), "no stage touches Player");
    fn reads_players(_: Query<&Player>) -> usize {
        0
    }
    let pipe = IntoSystem::into_system(reads_players.pipe(describe).pipe(write_down));
    assert!(pipe.access().conflict(writer.access()).is_some(), "the first stage reads Player");
}

#[test]
fn a_skipped_stage_skips_the_rest_of_the_pipe() {
    fn the_player(player: Single<Entity, With<Player>>) -> Entity {
        *player
    }
    fn name(In(player): In<Entity>, mut log: ResMut<Log>) {
        log.0.push(format!("player {player}"));
    }
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.add_systems(the_player.pipe(name));
    schedule.run(&mut world);
    assert!(world.resource::<Log>().0.is_empty());
    let player = world.spawn(Player);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0, [format!("player {player}")]);
}

#[test]
fn a_pipe_ending_in_an_error_reports_it_under_the_last_stage() {
    static LOG: Mutex<Vec<(ErrorContext, String)>> = Mutex::new(Vec::new());
    fn record(error: BoxedError, context: ErrorContext) {
        LOG.lock().unwrap().push((context, error.to_string()));
    }
    fn check(In(count): In<usize>) -> Result {
        if count > 2 { Err(format!("{count} enemies is too many"))? } else { Ok(()) }
    }
    let mut world = World::new();
    world.set_error_handler(record);
    world.spawn_batch((0..3).map(|_| Enemy));
    let mut schedule = Schedule::new();
    schedule.add_systems(count_enemies.pipe(check));
    schedule.run(&mut world);
    let log = LOG.lock().unwrap().clone();
    assert_eq!(log.len(), 1);
    assert!(log[0].0.name().ends_with("check"), "{}", log[0].0);
    assert_eq!(log[0].1, "3 enemies is too many");
}

#[test]
fn run_system_once_with_and_registered_systems_with_input() {
    fn spawn_enemies(In(count): In<usize>, mut commands: Commands, mut total: Local<usize>) -> usize {
        for _ in 0..count {
            commands.spawn(Enemy);
        }
        *total += count;
        *total
    }
    let mut world = world_with_log();
    assert_eq!(world.run_system_once_with(spawn_enemies, 2).unwrap(), 2);
    assert_eq!(world.query::<&Enemy>().iter().count(), 2);

    let id = world.register_system(spawn_enemies);
    assert_eq!(world.run_system_with(id, 1).unwrap(), 1);
    assert_eq!(world.run_system_with(id, 3).unwrap(), 4, "its Local kept the total");
    assert_eq!(world.query::<&Enemy>().iter().count(), 6);

    assert_eq!(world.run_system_cached_with(spawn_enemies, 1).unwrap(), 1);
    assert_eq!(world.run_system_cached_with(spawn_enemies, 1).unwrap(), 2, "the same cached system");

    // A command has no caller to take a value: the systems it runs return
    // `()` or a `Result`.
    let spawn_only = world.register_system(|In(count): In<usize>, mut commands: Commands| {
        for _ in 0..count {
            commands.spawn(Enemy);
        }
    });
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).run_system_with(spawn_only, 10);
    queue.apply(&mut world);
    assert_eq!(world.query::<&Enemy>().iter().count(), 18);
    assert_eq!(world.run_system_with(id, 0).unwrap(), 4, "its own total, unchanged by the other system");

    world.unregister_system(id).unwrap();
    assert_eq!(world.run_system_with(id, 1), Err(EcsError::UnknownSystem));
}

#[test]
fn a_pipe_may_begin_with_an_input() {
    let mut world = world_with_log();
    world.run_system_once_with(describe.pipe(write_down), 7).unwrap();
    assert_eq!(world.resource::<Log>().0, ["7 enemies"]);
}
