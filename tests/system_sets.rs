//! System sets: membership, ordering between sets and systems, nesting, and the
//! same refusals as for systems (cycles, orders a sync point reverses).

mod common;

use common::{panic_message, position};
use ecs_core::prelude::*;

#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
struct Physics;
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
struct Render;
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
struct Gameplay;
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
enum Stage {
    Early,
    Late,
}

#[derive(Default)]
struct Log(Vec<&'static str>);

macro_rules! logger {
    ($($name:ident),*) => {$(
        fn $name(mut log: ResMut<Log>) {
            log.0.push(stringify!($name));
        }
    )*};
}
logger!(gravity, collide, draw, ui, input, audio);

fn run(schedule: &mut Schedule) -> Vec<&'static str> {
    let mut world = World::new();
    world.insert_resource(Log::default());
    schedule.run(&mut world);
    std::mem::take(&mut world.resource_mut::<Log>().0)
}

#[test]
fn sets_order_their_systems_against_insertion_order() {
    let mut schedule = Schedule::new();
    schedule
        .add_systems(draw.in_set(Render))
        .add_systems(ui.in_set(Render))
        .add_systems(gravity.in_set(Physics))
        .add_systems(collide.in_set(Physics))
        .configure_sets(Physics.before(Render));
    for multi_threaded in [false, true] {
        schedule.set_multi_threaded(multi_threaded);
        let log = run(&mut schedule);
        for late in ["draw", "ui"] {
            for early in ["gravity", "collide"] {
                assert!(position(&log, early) < position(&log, late), "{log:?}");
            }
        }
    }
}

#[test]
fn after_works_the_same_way() {
    let mut schedule = Schedule::new();
    schedule
        .configure_sets(Render.after(Physics))
        .add_systems(draw.in_set(Render))
        .add_systems(gravity.in_set(Physics));
    assert_eq!(run(&mut schedule), ["gravity", "draw"]);
}

#[test]
fn systems_order_against_sets_and_sets_against_systems() {
    let mut schedule = Schedule::new();
    schedule
        .add_systems(draw.after(Physics))
        .add_systems(gravity.in_set(Physics))
        .add_systems(audio)
        .configure_sets(Physics.after(audio))
        .add_systems(input.before(Physics));
    let log = run(&mut schedule);
    assert!(position(&log, "gravity") < position(&log, "draw"), "{log:?}");
    assert!(position(&log, "audio") < position(&log, "gravity"), "{log:?}");
    assert!(position(&log, "input") < position(&log, "gravity"), "{log:?}");
}

#[test]
fn enum_variants_are_distinct_sets() {
    let mut schedule = Schedule::new();
    schedule
        .add_systems(draw.in_set(Stage::Late))
        .add_systems(gravity.in_set(Stage::Early))
        .add_systems(ui.in_set(Stage::Late))
        .configure_sets(Stage::Early.before(Stage::Late));
    assert_eq!(run(&mut schedule), ["gravity", "draw", "ui"]);
}

#[test]
fn nested_sets_take_their_parents_ordering() {
    let mut schedule = Schedule::new();
    schedule
        .add_systems(draw.in_set(Render))
        .add_systems(gravity.in_set(Physics))
        .configure_sets(Physics.in_set(Gameplay))
        .configure_sets(Gameplay.before(Render));
    assert_eq!(run(&mut schedule), ["gravity", "draw"]);
}

#[test]
fn a_system_may_be_in_several_sets() {
    let mut schedule = Schedule::new();
    schedule
        .add_systems(ui.in_set(Render))
        .add_systems(collide.in_set(Physics).in_set(Stage::Early))
        .add_systems(gravity.in_set(Stage::Early))
        .configure_sets(Render.after(Stage::Early));
    let log = run(&mut schedule);
    assert_eq!(position(&log, "ui"), 2, "{log:?}");
}

#[test]
fn an_empty_set_orders_nothing() {
    let mut schedule = Schedule::new();
    schedule
        .configure_sets(Physics.before(Render))
        .add_systems(draw.in_set(Render))
        .add_systems(gravity.after(Physics));
    assert_eq!(run(&mut schedule), ["draw", "gravity"]);
}

#[test]
fn a_cycle_through_sets_names_the_systems() {
    let mut schedule = Schedule::new();
    schedule
        .add_systems(gravity.in_set(Physics))
        .add_systems(draw.in_set(Render).before(gravity))
        .configure_sets(Physics.before(Render));
    let message =
        panic_message(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&mut schedule))).unwrap_err());
    assert!(message.contains("cycle"), "{message}");
    assert!(message.contains("gravity") && message.contains("draw"), "{message}");
}

#[test]
fn a_system_in_two_ordered_sets_is_refused() {
    let mut schedule = Schedule::new();
    schedule.add_systems(gravity.in_set(Physics).in_set(Render)).configure_sets(Physics.before(Render));
    let message =
        panic_message(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&mut schedule))).unwrap_err());
    assert!(message.contains("gravity") && message.contains("itself"), "{message}");
    assert!(message.contains("Physics") && message.contains("Render"), "{message}");
}

#[test]
fn a_set_order_reversed_by_a_sync_point_is_refused() {
    let mut schedule = Schedule::new();
    schedule
        .add_systems(draw.in_set(Render))
        .add_sync_point()
        .add_systems(gravity.in_set(Physics))
        .configure_sets(Physics.before(Render));
    let message =
        panic_message(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&mut schedule))).unwrap_err());
    assert!(message.contains("sync point"), "{message}");
    assert!(message.contains("gravity") && message.contains("draw") && message.contains("Physics"), "{message}");

    // The order the sync point already keeps is fine.
    let mut schedule = Schedule::new();
    schedule
        .add_systems(gravity.in_set(Physics))
        .add_sync_point()
        .add_systems(draw.in_set(Render))
        .configure_sets(Physics.before(Render));
    assert_eq!(run(&mut schedule), ["gravity", "draw"]);
}

#[test]
fn a_set_ordered_against_a_missing_system_is_refused() {
    let mut schedule = Schedule::new();
    schedule.add_systems(gravity.in_set(Physics)).configure_sets(Physics.after(audio));
    let message =
        panic_message(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&mut schedule))).unwrap_err());
    assert!(message.contains("Physics") && message.contains("not in the schedule"), "{message}");
}

#[test]
fn sets_with_run_conditions_on_their_systems() {
    struct Paused;
    let mut schedule = Schedule::new();
    schedule
        .add_systems(gravity.in_set(Physics).run_if(not(resource_exists::<Paused>)))
        .add_systems(draw.in_set(Render))
        .configure_sets(Physics.before(Render));
    assert_eq!(run(&mut schedule), ["gravity", "draw"]);
    let mut world = World::new();
    world.insert_resource(Log::default());
    world.insert_resource(Paused);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0, ["draw"]);
}
