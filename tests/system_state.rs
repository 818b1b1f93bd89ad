//! `SystemState`: parameters fetched by hand keep their state between
//! fetches, see changes since the previous fetch, defer commands until
//! `apply`, and refuse what a system would refuse.

use ecs_core::prelude::*;
use ecs_core::system::SystemState;

mod common;
use common::panic_message;

#[derive(Component, Debug, PartialEq)]
struct Health(i32);

#[derive(Component)]
struct Player;

#[derive(Default)]
struct Round(u32);

#[test]
fn parameters_fetched_by_hand_write_and_defer_like_a_systems() {
    let mut world = World::new();
    world.init_resource::<Round>();
    let a = world.spawn(Health(3));
    type Params = (Query<'static, &'static mut Health>, ResMut<'static, Round>, Commands<'static>, Local<'static, u32>);
    let mut state: SystemState<Params> = SystemState::new(&mut world);
    for expected in 1..=2 {
        let (mut healths, mut round, mut commands, mut local) = state.get_mut(&mut world);
        for health in &mut healths {
            health.0 -= 1;
        }
        round.0 += 1;
        *local += 1;
        assert_eq!(*local, expected, "a Local keeps its value between fetches");
        commands.spawn(Player);
    }
    assert_eq!(world.query::<&Player>().iter().count(), 0, "commands wait for apply");
    state.apply(&mut world);
    assert_eq!(world.query::<&Player>().iter().count(), 2);
    assert_eq!(world.get::<Health>(a), Some(&Health(1)));
    assert_eq!(world.resource::<Round>().0, 2);
}

#[test]
fn each_fetch_is_a_run_for_change_detection() {
    let mut world = World::new();
    let a = world.spawn(Health(1));
    let b = world.spawn(Health(2));
    let mut state: SystemState<Query<Entity, Changed<Health>>> = SystemState::new(&mut world);
    assert_eq!(state.get(&world).iter().count(), 2, "the first fetch sees everything");
    assert_eq!(state.get(&world).iter().count(), 0);
    world.get_mut::<Health>(b).unwrap().0 = 7;
    assert_eq!(state.get(&world).iter().collect::<Vec<_>>(), [b]);
    assert!(world.contains(a));
}

#[test]
fn what_a_system_would_refuse_is_refused_by_name() {
    let mut world = World::new();
    let mut missing: SystemState<Res<Round>> = SystemState::new(&mut world);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        missing.get(&world);
    }));
    let message = panic_message(result.unwrap_err());
    assert!(message.contains("SystemState") && message.contains("Round"), "{message}");
    let mut single: SystemState<Single<&Health, With<Player>>> = SystemState::new(&mut world);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        single.get(&world);
    }));
    assert!(panic_message(result.unwrap_err()).contains("no entity matches"));
    world.spawn((Health(5), Player));
    assert_eq!(single.get(&world).0, 5);
    let conflict =
        std::panic::catch_unwind(|| SystemState::<(Query<&mut Health>, Query<&Health>)>::new(&mut World::new()));
    assert!(conflict.is_err(), "two parameters that conflict");
    let mut other = World::new();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        single.get(&other);
    }));
    assert!(panic_message(result.unwrap_err()).contains("another world"));
    other.spawn(Health(0));
}
