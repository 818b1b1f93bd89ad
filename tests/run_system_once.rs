//! `World::run_system_once` and `Schedule::run_system_once`.

mod common;

use common::panic_message;
use ecs_core::prelude::*;

#[derive(Component, Debug, PartialEq)]
struct Hp(i32);

#[derive(Default)]
struct Total(i32);

fn sum(q: Query<&Hp>, mut total: ResMut<Total>) {
    total.0 = q.iter().map(|h| h.0).sum();
}

#[test]
fn runs_a_function_system_with_its_params() {
    let mut world = World::new();
    world.insert_resource(Total::default());
    world.spawn_batch([Hp(1), Hp(2), Hp(3)]).for_each(drop);
    world.run_system_once(sum).unwrap();
    assert_eq!(world.resource::<Total>().0, 6);
    Schedule::run_system_once(&mut world, |mut total: ResMut<Total>| total.0 = -1).unwrap();
    assert_eq!(world.resource::<Total>().0, -1);
}

#[test]
fn returns_the_systems_output() {
    let mut world = World::new();
    world.spawn_batch([Hp(1), Hp(2)]).for_each(drop);
    let count = world.run_system_once(|q: Query<&Hp>| q.count()).unwrap();
    assert_eq!(count, 2);
    let exclusive = world.run_system_once(|w: &mut World| w.spawn(Hp(9))).unwrap();
    assert_eq!(world.get::<Hp>(exclusive), Some(&Hp(9)));
}

#[test]
fn applies_commands() {
    let mut world = World::new();
    let spawned = world.run_system_once(|mut commands: Commands| commands.spawn(Hp(5)).id()).unwrap();
    assert_eq!(world.get::<Hp>(spawned), Some(&Hp(5)));
}

#[test]
fn a_missing_resource_is_an_error_and_nothing_runs() {
    let mut world = World::new();
    let error = world
        .run_system_once(|_: Res<Total>, mut commands: Commands| {
            commands.spawn(Hp(1));
        })
        .unwrap_err();
    assert_eq!(error, EcsError::MissingResource(core::any::type_name::<Total>()));
    assert!(error.to_string().contains("Total"), "{error}");
    assert_eq!(world.query::<&Hp>().iter().count(), 0);
    assert!(world.run_system_once(|mut t: ResMut<Total>| t.0 += 1).is_err());
    // Optional resources are fine.
    assert_eq!(world.run_system_once(|t: Option<Res<Total>>| t.is_none()), Ok(true));
}

#[test]
fn first_run_sees_everything_as_added_and_changed() {
    let mut world = World::new();
    world.spawn(Hp(1));
    let added = world.run_system_once(|q: Query<&Hp, Added<Hp>>| q.iter().count()).unwrap();
    let changed = world.run_system_once(|q: Query<&Hp, Changed<Hp>>| q.iter().count()).unwrap();
    assert_eq!((added, changed), (1, 1));
}

#[test]
fn a_panicking_system_drops_its_commands_and_leaves_the_world_usable() {
    let mut world = World::new();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.run_system_once(|mut commands: Commands| {
            commands.spawn(Hp(1));
            panic!("system exploded");
        })
    }));
    assert_eq!(panic_message(result.unwrap_err()), "system exploded");
    assert_eq!(world.query::<&Hp>().iter().count(), 0);
    let e = world.spawn(Hp(2));
    assert_eq!(world.get::<Hp>(e), Some(&Hp(2)));
    assert_eq!(world.len(), 1);
}

#[test]
fn conflicting_parameters_panic_naming_them() {
    let mut world = World::new();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.run_system_once(|_: Query<&mut Hp>, _: Query<&Hp>| ()).ok();
    }));
    let message = panic_message(result.unwrap_err());
    assert!(message.contains("conflict") && message.contains("Hp"), "{message}");
}
