//! Resources with bevy_ecs's names: `resource`/`resource_mut` panic naming the
//! missing type, `get_resource`/`get_resource_mut` return `Option`, and
//! `resource_scope` lends the world and a resource together, putting the resource
//! back however the scope ends.

use std::panic::{AssertUnwindSafe, catch_unwind};

use ecs_core::Resource;
use ecs_core::prelude::*;

mod common;
use common::panic_message;

#[derive(Debug, PartialEq)]
struct Score(u32);

#[derive(Component)]
struct Coin(u32);

#[test]
fn resource_and_resource_mut_panic_naming_the_missing_type() {
    let mut world = World::new();
    assert_eq!(world.get_resource::<Score>(), None);
    assert_eq!(world.get_resource_mut::<Score>(), None);
    let read = panic_message(catch_unwind(AssertUnwindSafe(|| world.resource::<Score>().0)).unwrap_err());
    assert!(read.contains("resources::Score") && read.contains("insert_resource"), "{read}");
    let write = panic_message(catch_unwind(AssertUnwindSafe(|| world.resource_mut::<Score>().0 += 1)).unwrap_err());
    assert!(write.contains("resources::Score"), "{write}");
    world.insert_resource(Score(1));
    world.resource_mut::<Score>().0 += 1;
    assert_eq!(world.resource::<Score>(), &Score(2));
    assert_eq!(world.get_resource::<Score>(), Some(&Score(2)));
}

#[test]
fn resource_scope_lends_the_world_and_the_resource_together() {
    let mut world = World::new();
    world.insert_resource(Score(0));
    world.spawn_batch((1..=4).map(Coin));
    let seen_inside = world.resource_scope(|world, mut score: Mut<Score>| {
        let inside = world.contains_resource::<Score>();
        for coin in world.query_mut::<&Coin>() {
            score.0 += coin.0;
        }
        inside
    });
    assert!(!seen_inside, "the resource is taken out during the scope");
    assert_eq!(world.resource::<Score>(), &Score(10));
}

#[test]
fn resource_scope_puts_the_resource_back_when_the_scope_panics() {
    let mut world = World::new();
    world.insert_resource(Score(5));
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.resource_scope(|_, mut score: Mut<Score>| {
            score.0 = 6;
            panic!("scope failed");
        })
    }));
    assert_eq!(panic_message(result.unwrap_err()), "scope failed");
    assert_eq!(world.resource::<Score>(), &Score(6));
}

#[test]
fn resource_scope_refuses_a_missing_resource_and_one_stored_meanwhile() {
    let mut world = World::new();
    let missing = catch_unwind(AssertUnwindSafe(|| world.resource_scope(|_, _: Mut<Score>| ())));
    assert!(panic_message(missing.unwrap_err()).contains("Score"));
    world.insert_resource(Score(1));
    let twice = catch_unwind(AssertUnwindSafe(|| {
        world.resource_scope(|world, _: Mut<Score>| {
            world.insert_resource(Score(99));
        })
    }));
    assert!(panic_message(twice.unwrap_err()).contains("stored again"));
    assert_eq!(world.resource::<Score>(), &Score(1), "the taken value is put back");
}

#[test]
fn resource_scope_marks_the_resource_changed_only_when_written() {
    let mut world = World::new();
    world.insert_resource(Score(0));
    let changed = |world: &mut World| world.run_system_once(resource_changed::<Score>).unwrap();
    let mut watcher = Schedule::new();
    #[derive(Default)]
    struct Seen(u32);
    world.insert_resource(Seen::default());
    watcher.add_systems((|mut seen: ResMut<Seen>| seen.0 += 1).run_if(resource_changed::<Score>));
    watcher.run(&mut world); // inserted: seen once
    world.resource_scope(|_, score: Mut<Score>| assert_eq!(score.0, 0));
    watcher.run(&mut world); // only read: not seen
    world.resource_scope(|_, mut score: Mut<Score>| score.0 += 1);
    watcher.run(&mut world); // written: seen
    world.resource_scope(|_, mut score: Mut<Score>| {
        score.bypass_change_detection().0 += 1;
    });
    watcher.run(&mut world); // written around change detection: not seen
    assert_eq!(world.resource::<Seen>().0, 2);
    assert_eq!(world.resource::<Score>(), &Score(2));
    assert!(changed(&mut world), "a first run sees the insert");
}

/// bevy_ecs's resources derive `Resource`; here the derive is optional and
/// implements the marker trait, which generic code may name.
#[derive(Resource, Default, Debug, PartialEq)]
struct Gold(u32);
#[derive(Resource, Debug, PartialEq)]
enum Difficulty {
    Easy,
    Hard,
}
#[derive(Resource, Default)]
struct Pool<T: Send + Sync + 'static>(Vec<T>);
struct ByHand;
impl Resource for ByHand {}

fn grant<R: Resource + Default>(world: &mut World) {
    world.init_resource::<R>();
}

fn count<R: Resource>(pool: Res<Pool<R>>, mut seen: ResMut<Gold>) {
    seen.0 = pool.0.len() as u32;
}

#[test]
fn derived_resources_work_as_plain_ones_and_in_generic_code() {
    let mut world = World::new();
    grant::<Gold>(&mut world);
    world.insert_resource(Difficulty::Hard);
    world.insert_resource(Pool(vec![ByHand, ByHand]));
    assert_eq!(world.resource::<Gold>(), &Gold(0));
    assert_eq!(world.resource::<Difficulty>(), &Difficulty::Hard);
    world.run_system_once(count::<ByHand>).unwrap();
    assert_eq!(world.resource::<Gold>(), &Gold(2));
    world.insert_resource(Difficulty::Easy);
    assert_eq!(world.resource::<Difficulty>(), &Difficulty::Easy);
}

#[test]
fn get_resource_or_insert_keeps_what_is_there() {
    let mut world = World::new();
    world.get_resource_or_insert_with(|| Score(1)).0 += 1;
    world.get_resource_or_insert_with(|| Score(100)).0 += 1;
    assert_eq!(world.resource::<Score>(), &Score(3));
    world.get_resource_or_init::<Gold>().0 += 5;
    world.get_resource_or_init::<Gold>().0 += 5;
    assert_eq!(world.resource::<Gold>(), &Gold(10));
}
