//! Small pieces of bevy_ecs's API games lean on: `Query::contains`, the
//! `on_message` and `run_once` conditions, `Name`, `EntityHashMap`.

use ecs_core::entity::{EntityHashMap, EntityHashSet};
use ecs_core::prelude::*;

#[derive(Component, Debug, PartialEq)]
struct Health(u32);

#[derive(Component)]
#[component(storage = "sparse")]
struct Stunned;

#[derive(Message, Clone, Copy)]
struct Scored(u32);

#[derive(Default)]
struct Runs(Vec<&'static str>);

#[test]
fn contains_answers_without_marking_anything_changed() {
    let mut world = World::new();
    let a = world.spawn(Health(1));
    let b = world.spawn((Health(2), Stunned));
    let c = world.spawn(());
    let gone = world.spawn(Health(3));
    world.despawn(gone).unwrap();
    let found = world
        .run_system_once(move |healths: Query<&mut Health>, stunned: Query<(), With<Stunned>>| {
            let healthy: Vec<bool> = [a, b, c, gone].iter().map(|&e| healths.contains(e)).collect();
            let stunned: Vec<bool> = [a, b, c, gone].iter().map(|&e| stunned.contains(e)).collect();
            (healthy, stunned)
        })
        .unwrap();
    assert_eq!(found, (vec![true, true, false, false], vec![false, true, false, false]));
    // Nothing was written: a `Changed` query after the first run sees nothing.
    let id = world.register_system(|changed: Query<Entity, Changed<Health>>| changed.iter().count());
    assert_eq!(world.run_system(id).unwrap(), 2, "the first run sees every row as changed");
    world.run_system_once(move |healths: Query<&mut Health>| assert!(healths.contains(a))).unwrap();
    assert_eq!(world.run_system(id).unwrap(), 0, "contains marked nothing");
    // A row filter: only rows that pass it.
    let changed_only = world
        .run_system_once(move |changed: Query<Entity, Changed<Health>>| (changed.contains(a), changed.contains(b)))
        .unwrap();
    assert_eq!(changed_only, (true, true), "a one-off run sees everything as changed");
    // The same on a query of the world.
    let healths = world.query::<&Health>();
    assert_eq!([a, b, c, gone].map(|e| healths.contains(e)), [true, true, false, false]);
    let stunned = world.query_filtered::<Entity, With<Stunned>>();
    assert_eq!([a, b, c, gone].map(|e| stunned.contains(e)), [false, true, false, false]);
}

#[test]
fn on_message_runs_once_per_new_batch_and_run_once_once() {
    fn add_up(mut scored: MessageReader<Scored>, mut runs: ResMut<Runs>) {
        assert!(scored.read().map(|s| s.0).sum::<u32>() > 0, "run only when there is something to read");
        runs.0.push("add_up");
    }
    fn setup(mut runs: ResMut<Runs>) {
        runs.0.push("setup");
    }
    let mut world = World::new();
    world.init_resource::<Runs>();
    world.add_message::<Scored>();
    let mut schedule = Schedule::new();
    schedule.add_systems((setup.run_if(run_once), add_up.run_if(on_message::<Scored>)).chain());
    schedule.run(&mut world);
    world.write_message(Scored(1));
    schedule.run(&mut world);
    schedule.run(&mut world);
    world.write_message(Scored(2));
    world.write_message(Scored(3));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().0, ["setup", "add_up", "add_up"]);
}

#[test]
fn names_read_print_and_change() {
    let mut world = World::new();
    let hero = world.spawn(Name::new("hero"));
    let guard = world.spawn(Name::from(format!("guard {}", 2)));
    assert_eq!(world.get::<Name>(hero).map(Name::as_str), Some("hero"));
    assert_eq!(
        format!("{} / {:?}", world.get::<Name>(guard).unwrap(), world.get::<Name>(hero).unwrap()),
        "guard 2 / \"hero\""
    );
    world.get_mut::<Name>(hero).unwrap().mutate(|name| name.push_str(" of the realm"));
    assert_eq!(&**world.get::<Name>(hero).unwrap(), "hero of the realm");
    world.get_mut::<Name>(guard).unwrap().set("captain");
    let names: Vec<String> = world.query::<&Name>().iter().map(|n| n.to_string()).collect();
    assert_eq!(names, ["hero of the realm", "captain"]);
}

#[test]
fn entity_maps_and_sets() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..100).map(|_| world.spawn(())).collect();
    let mut map: EntityHashMap<usize> = EntityHashMap::default();
    let mut set = EntityHashSet::default();
    for (i, &e) in entities.iter().enumerate() {
        map.insert(e, i);
        set.insert(e);
    }
    assert_eq!(map.len(), 100);
    assert!(entities.iter().enumerate().all(|(i, e)| map[e] == i && set.contains(e)));
    world.despawn(entities[0]).unwrap();
    let reused = world.spawn(());
    assert!(!set.contains(&reused), "a reused index is another entity");
}
