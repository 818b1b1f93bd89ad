//! Run conditions: `run_if` with function conditions, the helpers, the
//! combinators, and a condition's access counting for conflicts.

use ecs_core::prelude::*;

#[derive(Component)]
struct Enemy;

#[derive(Default)]
struct Ran(u32);
#[derive(Default)]
struct Flag(bool);
#[derive(Default)]
struct Other(u32);
struct Paused;

fn count_run(mut ran: ResMut<Ran>) {
    ran.0 += 1;
}

fn world() -> World {
    let mut world = World::new();
    world.insert_resource(Ran::default());
    world.insert_resource(Flag::default());
    world
}

fn flag_set(flag: Res<Flag>) -> bool {
    flag.0
}

fn runs_with(schedule: &mut Schedule, world: &mut World, times: u32) -> u32 {
    let before = world.resource::<Ran>().0;
    for _ in 0..times {
        schedule.run(world);
    }
    world.resource::<Ran>().0 - before
}

#[test]
fn a_function_condition_gates_its_system() {
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems(count_run.run_if(flag_set));
    assert_eq!(runs_with(&mut schedule, &mut world, 2), 0);
    world.resource_mut::<Flag>().0 = true;
    assert_eq!(runs_with(&mut schedule, &mut world, 3), 3);
}

#[test]
fn a_query_condition_sees_the_world() {
    fn no_enemies_left(enemies: Query<(), With<Enemy>>) -> bool {
        enemies.is_empty()
    }
    fn spawn_wave(mut ran: ResMut<Ran>, mut commands: Commands) {
        ran.0 += 1;
        commands.spawn(Enemy);
    }
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems(spawn_wave.run_if(no_enemies_left));
    assert_eq!(runs_with(&mut schedule, &mut world, 3), 1);
    let enemy = world.query_mut_filtered::<Entity, With<Enemy>>().next().unwrap();
    world.despawn(enemy).unwrap();
    assert_eq!(runs_with(&mut schedule, &mut world, 3), 1);
}

#[test]
fn any_with_component_follows_spawn_and_despawn() {
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems(count_run.run_if(any_with_component::<Enemy>));
    // A system writing `Enemy`s beside it: the condition's read is counted.
    schedule.add_systems(|_: Query<&mut Enemy>| {});
    assert_eq!(runs_with(&mut schedule, &mut world, 2), 0);
    let enemy = world.spawn(Enemy);
    assert_eq!(runs_with(&mut schedule, &mut world, 2), 2);
    world.despawn(enemy).unwrap();
    assert_eq!(runs_with(&mut schedule, &mut world, 1), 0);
}

#[test]
fn resource_exists_follows_insert_and_remove() {
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems(count_run.run_if(resource_exists::<Paused>));
    assert_eq!(runs_with(&mut schedule, &mut world, 1), 0);
    world.insert_resource(Paused);
    assert_eq!(runs_with(&mut schedule, &mut world, 2), 2);
    world.remove_resource::<Paused>();
    assert_eq!(runs_with(&mut schedule, &mut world, 1), 0);
}

#[test]
fn resource_changed_sees_inserts_and_writes_once_each() {
    fn write_other(other: Option<ResMut<Other>>, flag: Res<Flag>) {
        if let (Some(mut other), true) = (other, flag.0) {
            other.0 += 1;
        }
    }
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems(write_other).add_sync_point().add_systems(count_run.run_if(resource_changed::<Other>));
    // Missing: not changed, no panic.
    assert_eq!(runs_with(&mut schedule, &mut world, 1), 0);
    world.insert_resource(Other::default());
    // Inserted: changed once; `write_other` does not write (flag off), and only
    // reading through `ResMut` without `&mut` use would not count either.
    assert_eq!(runs_with(&mut schedule, &mut world, 1), 1);
    assert_eq!(runs_with(&mut schedule, &mut world, 2), 0);
    // Written from outside the schedule.
    world.resource_mut::<Other>().0 = 7;
    assert_eq!(runs_with(&mut schedule, &mut world, 1), 1);
    assert_eq!(runs_with(&mut schedule, &mut world, 1), 0);
    // Written by a system each run, before the condition.
    world.resource_mut::<Flag>().0 = true;
    assert_eq!(runs_with(&mut schedule, &mut world, 3), 3);
}

#[test]
fn res_mut_without_a_write_is_not_a_change() {
    fn look(other: ResMut<Other>) {
        let _ = other.0;
    }
    let mut world = world();
    world.insert_resource(Other::default());
    let mut schedule = Schedule::new();
    schedule.add_systems(look).add_systems(count_run.run_if(resource_changed::<Other>));
    assert_eq!(runs_with(&mut schedule, &mut world, 1), 1);
    assert_eq!(runs_with(&mut schedule, &mut world, 3), 0);
}

#[test]
fn resource_added_holds_once_per_insert() {
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems(count_run.run_if(resource_added::<Other>));
    assert_eq!(runs_with(&mut schedule, &mut world, 1), 0);
    world.insert_resource(Other::default());
    assert_eq!(runs_with(&mut schedule, &mut world, 3), 1);
    // Replacing keeps the resource: changed, not added.
    world.insert_resource(Other(3));
    assert_eq!(runs_with(&mut schedule, &mut world, 1), 0);
    world.remove_resource::<Other>();
    world.insert_resource(Other(4));
    assert_eq!(runs_with(&mut schedule, &mut world, 1), 1);
}

#[test]
fn resource_equals_compares_the_value() {
    #[derive(PartialEq)]
    enum State {
        Menu,
        Playing,
    }
    let mut world = world();
    world.insert_resource(State::Menu);
    let mut schedule = Schedule::new();
    schedule.add_systems(count_run.run_if(resource_equals(State::Playing)));
    assert_eq!(runs_with(&mut schedule, &mut world, 1), 0);
    world.insert_resource(State::Playing);
    assert_eq!(runs_with(&mut schedule, &mut world, 2), 2);
}

#[test]
fn combinators_follow_their_truth_tables() {
    fn yes() -> bool {
        true
    }
    fn no() -> bool {
        false
    }
    let cases: Vec<(&str, SystemConfigMaker, u32)> = vec![
        ("not(no)", |s| s.run_if(not(no)), 1),
        ("not(yes)", |s| s.run_if(not(yes)), 0),
        ("yes.and(yes)", |s| s.run_if(yes.and(yes)), 1),
        ("yes.and(no)", |s| s.run_if(yes.and(no)), 0),
        ("no.and(yes)", |s| s.run_if(no.and(yes)), 0),
        ("no.or(no)", |s| s.run_if(no.or(no)), 0),
        ("no.or(yes)", |s| s.run_if(no.or(yes)), 1),
        ("yes.or(no)", |s| s.run_if(yes.or(no)), 1),
        ("not(no.or(no)).and(yes)", |s| s.run_if(not(no.or(no)).and(yes)), 1),
        ("two run_ifs, one false", |s| s.run_if(yes).run_if(no), 0),
        ("two run_ifs, both true", |s| s.run_if(yes).run_if(not(no)), 1),
    ];
    for (name, make, expected) in cases {
        let mut world = world();
        let mut schedule = Schedule::new();
        schedule.add_systems(make(count_run));
        assert_eq!(runs_with(&mut schedule, &mut world, 1), expected, "{name}");
    }
}

type SystemConfigMaker = fn(fn(ResMut<Ran>)) -> ecs_core::system::ScheduleConfigs;

#[test]
fn and_short_circuits_but_every_run_if_is_evaluated() {
    fn no() -> bool {
        false
    }
    fn counted(mut calls: Local<u32>, flag: Res<Flag>) -> bool {
        *calls += 1;
        flag.0 || *calls > 100
    }
    let mut world = world();
    let mut schedule = Schedule::new();
    // Short-circuit: `counted` never runs behind a false `no`, so its count
    // stays below 100 however often the schedule runs.
    schedule.add_systems(count_run.run_if(no.and(counted)));
    assert_eq!(runs_with(&mut schedule, &mut world, 150), 0);
    // Separate `run_if`s: each is evaluated every run, so after 100 runs
    // `counted` holds even with the first condition false... and the system
    // still does not run, because all must hold.
    let mut schedule = Schedule::new();
    schedule.add_systems(count_run.run_if(no).run_if(counted));
    assert_eq!(runs_with(&mut schedule, &mut world, 150), 0);
    let mut schedule = Schedule::new();
    schedule.add_systems(count_run.run_if(counted).run_if(not(no)));
    assert_eq!(runs_with(&mut schedule, &mut world, 150), 50);
}

#[test]
fn a_conditions_access_orders_it_after_a_writer() {
    // `mark` writes `Flag` and runs after `first` (which writes `Other`), so it is in
    // the second batch. `gated` touches only `Ran`, so without its condition's read
    // of `Flag` it would sit in the first batch and see the flag unset.
    fn first(mut other: ResMut<Other>) {
        other.0 += 1;
    }
    fn mark(mut flag: ResMut<Flag>) {
        flag.0 = true;
    }
    for multi_threaded in [false, true] {
        let mut world = world();
        world.insert_resource(Other::default());
        let mut schedule = Schedule::new();
        schedule.set_multi_threaded(multi_threaded);
        schedule.add_systems(first).add_systems(mark.after(first)).add_systems(count_run.run_if(flag_set));
        assert_eq!(runs_with(&mut schedule, &mut world, 1), 1, "multi_threaded: {multi_threaded}");
    }
}

#[test]
fn a_condition_reading_what_its_system_writes_is_allowed() {
    fn bump(mut flag: ResMut<Flag>, mut ran: ResMut<Ran>) {
        flag.0 = !flag.0;
        ran.0 += 1;
    }
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems(bump.run_if(not(flag_set)));
    // Runs, flips the flag on; skipped; and so on: the condition sees the write.
    assert_eq!(runs_with(&mut schedule, &mut world, 4), 1);
}

#[test]
fn exclusive_systems_take_conditions() {
    fn exclusive(world: &mut World) {
        world.resource_mut::<Ran>().0 += 1;
    }
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems(exclusive.run_if(flag_set));
    assert_eq!(runs_with(&mut schedule, &mut world, 2), 0);
    world.resource_mut::<Flag>().0 = true;
    assert_eq!(runs_with(&mut schedule, &mut world, 2), 2);
}

#[test]
fn a_skipped_system_sees_the_skipped_changes_later() {
    #[derive(Component)]
    struct Hp(u32);
    #[derive(Default)]
    struct Seen(usize);
    fn watch(q: Query<&Hp, Changed<Hp>>, mut seen: ResMut<Seen>) {
        seen.0 += q.iter().count();
    }
    let mut world = world();
    world.insert_resource(Seen::default());
    let mut schedule = Schedule::new();
    schedule.add_systems(watch.run_if(flag_set));
    let e = world.spawn(Hp(1));
    schedule.run(&mut world);
    world.get_mut::<Hp>(e).unwrap().0 = 2;
    world.resource_mut::<Flag>().0 = true;
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, 1);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, 1);
}

#[test]
fn a_panicking_condition_propagates_and_the_schedule_runs_again() {
    fn explode(flag: Res<Flag>) -> bool {
        assert!(!flag.0, "condition exploded");
        true
    }
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems(count_run.run_if(explode));
    world.resource_mut::<Flag>().0 = true;
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| schedule.run(&mut world)));
    assert!(panic.is_err());
    world.resource_mut::<Flag>().0 = false;
    assert_eq!(runs_with(&mut schedule, &mut world, 1), 1);
}
