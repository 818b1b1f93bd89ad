//! Chains as bevy_ecs users write them: an explicit order after a system with
//! commands puts a sync point between the two, so the later one sees what the
//! earlier one queued in the same run.

use ecs_core::prelude::*;

mod common;
use common::panic_message;

#[derive(Component)]
struct Enemy;

#[derive(Default)]
struct Counted(Vec<usize>);

fn spawn(mut commands: Commands) {
    commands.spawn(Enemy);
}

fn count(enemies: Query<(), With<Enemy>>, mut counted: ResMut<Counted>) {
    counted.0.push(enemies.iter().count());
}

fn world() -> World {
    let mut world = World::new();
    world.insert_resource(Counted::default());
    world
}

#[test]
fn a_chained_system_sees_the_commands_of_the_one_before() {
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems((spawn, count).chain());
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counted>().0, [1, 2]);
}

#[test]
fn chain_ignore_deferred_orders_without_a_sync_point() {
    // `count` added first: only the chain puts it after `spawn`.
    fn spawn_and_log(mut commands: Commands, mut counted: ResMut<Counted>) {
        commands.spawn(Enemy);
        counted.0.push(usize::MAX);
    }
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems((spawn_and_log, count).chain_ignore_deferred());
    schedule.run(&mut world);
    schedule.run(&mut world);
    // In order, and each run's spawn is seen only in the next run.
    assert_eq!(world.resource::<Counted>().0, [usize::MAX, 0, usize::MAX, 1]);
}

#[test]
fn after_and_before_put_a_sync_point_too() {
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems(count.after(spawn)).add_systems(spawn);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counted>().0, [1]);

    let mut world = self::world();
    let mut schedule = Schedule::new();
    schedule.add_systems(spawn.before(count)).add_systems(count);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counted>().0, [1]);
}

#[test]
fn ordering_left_to_insertion_order_adds_no_sync_point() {
    // `count` runs after `spawn` only because they were added in that order
    // (they do not even conflict): commands wait for the end of the run.
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems((spawn, count));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counted>().0, [0]);
    assert_eq!(world.query::<&Enemy>().iter().count(), 1, "applied at the end of the run");
}

#[test]
fn a_long_chain_applies_between_each_step_that_has_commands() {
    #[derive(Component)]
    struct Boss;
    fn spawn_boss(mut commands: Commands) {
        commands.spawn(Boss);
    }
    fn tag_bosses(bosses: Query<Entity, With<Boss>>, mut commands: Commands) {
        for boss in &bosses {
            commands.entity(boss).insert(Enemy);
        }
    }
    let mut world = world();
    let mut schedule = Schedule::new();
    // Without sync points `count` would see nothing; with one only after
    // `spawn_boss`, `tag_bosses`'s insert would still be pending.
    schedule.add_systems((spawn_boss, tag_bosses, count).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counted>().0, [1]);
}

#[derive(SystemSet, Debug, PartialEq, Eq)]
struct Gameplay;
#[derive(SystemSet, Debug, PartialEq, Eq)]
struct Ai;

#[derive(Default)]
struct Paused(bool);
#[derive(Default)]
struct Log(Vec<&'static str>);
fn not_paused(paused: Res<Paused>, mut evaluated: Local<u32>, evaluations: Res<EvaluationsCell>) -> bool {
    *evaluated += 1;
    evaluations.0.store(*evaluated, std::sync::atomic::Ordering::Relaxed);
    !paused.0
}

/// Counts a condition's evaluations from inside it (conditions read only).
#[derive(Default)]
struct EvaluationsCell(std::sync::atomic::AtomicU32);

fn log_world() -> World {
    let mut world = World::new();
    world.insert_resource(Paused::default());
    world.insert_resource(Log::default());
    world.insert_resource(EvaluationsCell::default());
    world
}

fn evaluations(world: &World) -> u32 {
    world.resource::<EvaluationsCell>().0.load(std::sync::atomic::Ordering::Relaxed)
}

fn move_units(mut log: ResMut<Log>) {
    log.0.push("move");
}
fn think(mut log: ResMut<Log>) {
    log.0.push("think");
}
fn draw(mut log: ResMut<Log>) {
    log.0.push("draw");
}

#[test]
fn a_set_run_condition_pauses_its_systems_and_those_of_sets_inside_it() {
    let mut world = log_world();
    let mut schedule = Schedule::new();
    schedule
        .configure_sets(Gameplay.run_if(not_paused))
        .configure_sets(Ai.in_set(Gameplay))
        .add_systems((move_units.in_set(Gameplay), think.in_set(Ai), draw).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0, ["move", "think", "draw"]);
    assert_eq!(evaluations(&world), 1, "once per run, for both systems of the set");
    world.resource_mut::<Paused>().0 = true;
    world.resource_mut::<Log>().0.clear();
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0, ["draw"]);
    assert_eq!(evaluations(&world), 2);
}

#[test]
fn a_group_takes_run_if_in_set_after_and_before() {
    fn first(mut log: ResMut<Log>) {
        log.0.push("first");
    }
    fn last(mut log: ResMut<Log>) {
        log.0.push("last");
    }
    let mut world = log_world();
    let mut schedule = Schedule::new();
    schedule
        .add_systems(last)
        .add_systems((move_units, think).chain().run_if(not_paused).in_set(Gameplay).after(first).before(last))
        .add_systems(first);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0, ["first", "move", "think", "last"]);
    assert_eq!(evaluations(&world), 1, "a group's condition is evaluated once per run");
    world.resource_mut::<Paused>().0 = true;
    world.resource_mut::<Log>().0.clear();
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0, ["first", "last"]);
}

#[test]
fn tuples_nest_groups() {
    let mut world = log_world();
    let mut schedule = Schedule::new();
    schedule.add_systems(((think, move_units).chain(), draw.run_if(not_paused)).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0, ["think", "move", "draw"]);
}

#[test]
fn one_function_added_twice_is_two_systems_in_a_chain() {
    let mut world = log_world();
    let mut schedule = Schedule::new();
    schedule.add_systems((think, move_units, think).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0, ["think", "move", "think"]);

    let mut world = self::world();
    let mut schedule = Schedule::new();
    schedule.add_systems((spawn, spawn, count).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counted>().0, [2]);
}

/// The message a schedule built by `build` panics with when it runs.
fn refusal(build: impl FnOnce(&mut Schedule)) -> String {
    let mut schedule = Schedule::new();
    build(&mut schedule);
    let mut world = log_world();
    panic_message(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| schedule.run(&mut world))).unwrap_err())
}

#[test]
fn ordering_against_a_function_added_twice_is_ambiguous() {
    let message = refusal(|s| {
        s.add_systems(think).add_systems(think).add_systems(draw.after(think));
    });
    assert!(message.contains("added 2 times") && message.contains("ambiguous"), "{message}");
    assert!(message.contains("draw") && message.contains("think"), "{message}");
}

#[derive(SystemSet, Debug, PartialEq, Eq)]
struct Physics;
#[derive(SystemSet, Debug, PartialEq, Eq)]
struct Render;

#[test]
fn set_configurations_that_cannot_hold_are_refused_even_without_systems() {
    let message = refusal(|s| {
        s.configure_sets(Physics.after(Physics));
    });
    assert!(message.contains("`Physics` is ordered after itself"), "{message}");

    let message = refusal(|s| {
        s.configure_sets(Physics.after(Render)).configure_sets(Render.after(Physics));
    });
    assert!(message.contains("cycle") && message.contains("Physics") && message.contains("Render"), "{message}");

    let message = refusal(|s| {
        s.configure_sets(Physics.in_set(Ai))
            .configure_sets(Ai.in_set(Gameplay))
            .configure_sets(Gameplay.in_set(Physics));
    });
    assert!(message.contains("inside itself"), "{message}");

    let message = refusal(|s| {
        s.configure_sets(Ai.in_set(Gameplay)).configure_sets(Ai.after(Gameplay));
    });
    assert!(message.contains("`Ai` is inside set `Gameplay` and ordered against it"), "{message}");

    let message = refusal(|s| {
        s.configure_sets(Physics.before(Render)).add_systems(think.in_set(Physics).in_set(Render));
    });
    assert!(message.contains("think") && message.contains("Physics") && message.contains("Render"), "{message}");
}

#[test]
fn a_chain_orders_its_elements_and_a_nested_group_is_one_element() {
    // `(think, move_units)` is one step: `draw` after both of them; the two
    // are not ordered between themselves, so their insertion order (they
    // conflict on `Log`) decides.
    let mut world = log_world();
    let mut schedule = Schedule::new();
    schedule.add_systems(((move_units, think), draw).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0, ["move", "think", "draw"]);

    // Without the explicit order, a nested pair runs as added; `draw.before(…)`
    // of the group's members holds for each.
    let mut world = log_world();
    let mut schedule = Schedule::new();
    schedule.add_systems((think, (draw, move_units)).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0, ["think", "draw", "move"]);
}
