//! Several sets configured at once, as bevy_ecs users write them:
//! `configure_sets((A, B, C).chain())`, and a group's `run_if`, `before`,
//! `after` and `in_set`.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use common::{panic_message, position};
use ecs_core::prelude::*;

#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
struct Input;
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
struct Physics;
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
struct Render;
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
struct Gameplay;

#[derive(Default)]
struct Log(Vec<&'static str>);
#[derive(Default)]
struct Paused(bool);

macro_rules! logger {
    ($($name:ident),*) => {$(
        fn $name(mut log: ResMut<Log>) {
            log.0.push(stringify!($name));
        }
    )*};
}
logger!(keys, gravity, collide, draw, audio);

fn world() -> World {
    let mut world = World::new();
    world.insert_resource(Log::default());
    world.insert_resource(Paused::default());
    world
}

fn run(schedule: &mut Schedule, world: &mut World) -> Vec<&'static str> {
    schedule.run(world);
    std::mem::take(&mut world.resource_mut::<Log>().0)
}

#[test]
fn a_chain_of_sets_orders_their_systems_against_insertion_order() {
    let mut schedule = Schedule::new();
    schedule
        .add_systems(draw.in_set(Render))
        .add_systems((gravity, collide).in_set(Physics))
        .add_systems(keys.in_set(Input))
        .configure_sets((Input, Physics, Render).chain());
    for multi_threaded in [false, true] {
        schedule.set_multi_threaded(multi_threaded);
        let log = run(&mut schedule, &mut world());
        assert_eq!(log.len(), 4, "{log:?}");
        assert_eq!(log[0], "keys", "{log:?}");
        assert_eq!(log[3], "draw", "{log:?}");
    }
}

#[test]
fn a_nested_group_is_one_step_of_a_chain() {
    let mut schedule = Schedule::new();
    schedule
        .add_systems(draw.in_set(Render))
        .add_systems(gravity.in_set(Physics))
        .add_systems(keys.in_set(Input))
        .configure_sets(((Input, Physics), Render).chain());
    let log = run(&mut schedule, &mut world());
    assert_eq!(log.last(), Some(&"draw"), "after both sets of the first step: {log:?}");
    // Inside the first step nothing is ordered: conflicting systems keep
    // their insertion order.
    assert!(position(&log, "gravity") < position(&log, "keys"), "{log:?}");
}

#[test]
fn a_chain_element_may_carry_its_own_configuration() {
    let mut schedule = Schedule::new();
    schedule
        .add_systems(draw.in_set(Render))
        .add_systems(gravity.in_set(Physics))
        .add_systems(audio)
        .configure_sets((Physics.after(audio), Render).chain());
    let log = run(&mut schedule, &mut world());
    assert_eq!(log, ["audio", "gravity", "draw"]);
}

static EVALUATED: AtomicUsize = AtomicUsize::new(0);

fn not_paused(paused: Res<Paused>) -> bool {
    EVALUATED.fetch_add(1, Ordering::Relaxed);
    !paused.0
}

#[test]
fn a_group_run_if_is_evaluated_once_a_run_and_decides_for_every_set() {
    let mut schedule = Schedule::new();
    schedule
        .add_systems((draw.in_set(Render), gravity.in_set(Physics), collide.in_set(Physics), keys))
        .configure_sets((Physics, Render).run_if(not_paused));
    let mut world = world();
    EVALUATED.store(0, Ordering::Relaxed);
    let log = run(&mut schedule, &mut world);
    assert_eq!(log.len(), 4, "{log:?}");
    assert_eq!(EVALUATED.load(Ordering::Relaxed), 1, "once for the whole group");
    world.resource_mut::<Paused>().0 = true;
    assert_eq!(run(&mut schedule, &mut world), ["keys"], "both sets skipped, the rest runs");
    assert_eq!(EVALUATED.load(Ordering::Relaxed), 2);
}

#[test]
fn a_chained_group_takes_a_run_condition_too() {
    let mut schedule = Schedule::new();
    schedule
        .add_systems((draw.in_set(Render), gravity.in_set(Physics)))
        .configure_sets((Physics, Render).chain().run_if(|paused: Res<Paused>| !paused.0));
    let mut world = world();
    assert_eq!(run(&mut schedule, &mut world), ["gravity", "draw"]);
    world.resource_mut::<Paused>().0 = true;
    assert!(run(&mut schedule, &mut world).is_empty());
}

#[test]
fn a_group_is_ordered_and_nested_as_one() {
    let mut schedule = Schedule::new();
    schedule
        .add_systems((draw.in_set(Render), gravity.in_set(Physics), keys, audio))
        .configure_sets((Physics, Render).after(keys).before(audio))
        .configure_sets((Physics, Render).in_set(Gameplay))
        .configure_sets(Gameplay.run_if(|paused: Res<Paused>| !paused.0));
    let mut world = world();
    let log = run(&mut schedule, &mut world);
    assert_eq!(log.first(), Some(&"keys"), "{log:?}");
    assert_eq!(log.last(), Some(&"audio"), "{log:?}");
    world.resource_mut::<Paused>().0 = true;
    assert_eq!(run(&mut schedule, &mut world), ["keys", "audio"], "the parent set's condition holds for both");
}

#[derive(Component)]
struct Enemy;
#[derive(Default)]
struct Seen(usize);

#[test]
fn a_chain_of_sets_applies_commands_between_its_steps() {
    let mut schedule = Schedule::new();
    schedule
        .add_systems((|q: Query<&Enemy>, mut seen: ResMut<Seen>| seen.0 = q.iter().count()).in_set(Render))
        .add_systems(
            (|mut commands: Commands| {
                commands.spawn(Enemy);
            })
            .in_set(Physics),
        )
        .configure_sets((Physics, Render).chain());
    let mut world = world();
    world.insert_resource(Seen::default());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, 1, "the spawn is applied before the count runs");
}

#[test]
fn a_chain_against_an_opposite_order_is_refused_naming_the_sets() {
    let mut schedule = Schedule::new();
    schedule
        .add_systems((draw.in_set(Render), gravity.in_set(Physics)))
        .configure_sets((Physics, Render).chain())
        .configure_sets(Render.before(Physics));
    let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| schedule.run(&mut world())))
        .expect_err("the orders contradict each other");
    let message = panic_message(payload);
    assert!(message.contains("cycle"), "{message}");
    assert!(message.contains("`Render` -> `Physics`"), "{message}");
}
