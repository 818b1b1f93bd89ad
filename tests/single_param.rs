//! `Single<D, F>` and `Populated<D, F>`: the system runs only when the query
//! matches exactly one entity (at least one); otherwise it is skipped, a run
//! condition reads `false`, and `run_system_once` returns the error.

use ecs_core::prelude::*;

#[derive(Component, Debug, PartialEq)]
struct Health(i32);
#[derive(Component)]
struct Player;
#[derive(Default)]
struct Runs(u32);

fn heal(mut player: Single<&mut Health, With<Player>>, mut runs: ResMut<Runs>) {
    player.0 += 1;
    runs.0 += 1;
}

#[test]
fn a_system_runs_only_when_exactly_one_entity_matches() {
    let mut world = World::new();
    world.insert_resource(Runs::default());
    world.spawn(Health(0)); // no Player: never matched
    let mut schedule = Schedule::new();
    schedule.add_systems(heal);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().0, 0, "no player: skipped");
    let a = world.spawn((Player, Health(10)));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().0, 1);
    assert_eq!(world.get::<Health>(a), Some(&Health(11)));
    let b = world.spawn((Player, Health(20)));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().0, 1, "two players: skipped");
    world.despawn(a).unwrap();
    schedule.run(&mut world);
    assert_eq!(world.get::<Health>(b), Some(&Health(21)));
}

#[test]
fn run_system_once_reports_why_it_skipped() {
    let mut world = World::new();
    world.insert_resource(Runs::default());
    assert!(matches!(world.run_system_once(heal), Err(EcsError::NoEntities { .. })));
    world.spawn((Player, Health(1)));
    world.spawn((Player, Health(2)));
    let error = world.run_system_once(heal).unwrap_err();
    assert!(matches!(error, EcsError::MultipleEntities { .. }), "{error}");
    assert_eq!(world.resource::<Runs>().0, 0);
}

#[test]
fn a_condition_taking_a_single_reads_false_without_its_entity() {
    fn player_alive(player: Single<&Health, With<Player>>) -> bool {
        player.0 > 0
    }
    fn count(mut runs: ResMut<Runs>) {
        runs.0 += 1;
    }
    let mut world = World::new();
    world.insert_resource(Runs::default());
    let mut schedule = Schedule::new();
    schedule.add_systems(count.run_if(player_alive));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().0, 0);
    world.spawn((Player, Health(3)));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().0, 1);
}

#[test]
fn a_skipped_system_keeps_its_last_run_for_change_detection() {
    // The system sees, when it runs again, every change since it last ran.
    fn watch(player: Single<Ref<Health>, With<Player>>, mut seen: ResMut<Runs>) {
        if player.is_changed() {
            seen.0 += 1;
        }
    }
    let mut world = World::new();
    world.insert_resource(Runs::default());
    let a = world.spawn((Player, Health(1)));
    let mut schedule = Schedule::new();
    schedule.add_systems(watch);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().0, 1, "added: changed on the first run");
    let b = world.spawn((Player, Health(2)));
    world.get_mut::<Health>(a).unwrap().0 = 5;
    schedule.run(&mut world); // two players: skipped
    world.despawn(b).unwrap();
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().0, 2, "the change made while skipped is seen");
}

#[test]
fn single_in_a_derived_param_and_in_an_observer_skips_too() {
    #[derive(SystemParam)]
    struct PlayerHealth<'w> {
        health: Single<'w, &'static mut Health, With<Player>>,
        runs: ResMut<'w, Runs>,
    }
    fn derived(mut p: PlayerHealth) {
        p.health.0 += 100;
        p.runs.0 += 1;
    }
    #[derive(Event)]
    struct Ping;
    let mut world = World::new();
    world.insert_resource(Runs::default());
    world.add_observer(|_: On<Ping>, player: Single<&Health, With<Player>>, mut runs: ResMut<Runs>| {
        runs.0 += 10 * player.0 as u32;
    });
    world.trigger(Ping);
    assert!(world.run_system_once(derived).is_err());
    assert_eq!(world.resource::<Runs>().0, 0);
    world.spawn((Player, Health(1)));
    world.run_system_once(derived).unwrap();
    world.trigger(Ping);
    assert_eq!(world.resource::<Runs>().0, 1 + 1010);
}

#[test]
fn single_counts_rows_of_per_row_filters() {
    #[derive(Component)]
    struct Chosen;
    let mut world = World::new();
    world.insert_resource(Runs::default());
    for i in 0..5 {
        world.spawn((Player, Health(i)));
    }
    fn chosen(h: Single<&Health, (With<Player>, With<Chosen>)>, mut runs: ResMut<Runs>) {
        runs.0 = h.0 as u32;
    }
    let pick = world.spawn((Player, Health(42)));
    assert!(world.run_system_once(chosen).is_err());
    world.insert(pick, Chosen).unwrap();
    world.run_system_once(chosen).unwrap();
    assert_eq!(world.resource::<Runs>().0, 42);
}

#[test]
fn populated_runs_only_when_something_matches() {
    fn count(players: Populated<&Health, With<Player>>, mut runs: ResMut<Runs>) {
        runs.0 += players.iter().count() as u32;
    }
    let mut world = World::new();
    world.insert_resource(Runs::default());
    assert!(matches!(world.run_system_once(count), Err(EcsError::NoEntities { .. })));
    world.spawn((Player, Health(1)));
    world.spawn((Player, Health(2)));
    world.run_system_once(count).unwrap();
    assert_eq!(world.resource::<Runs>().0, 2);
}

#[test]
fn single_borrows_like_its_query() {
    fn aliasing(_: Single<&mut Health, With<Player>>, _: Query<&Health>) {}
    let refused = std::panic::catch_unwind(|| {
        let mut world = World::new();
        let _ = world.run_system_once(aliasing);
    });
    let message = *refused.expect_err("refused").downcast::<String>().unwrap();
    assert!(message.contains("Health"), "{message}");
}
