//! The query conveniences of game code: `single`/`single_mut` (with distinct errors
//! for no match and several), `count` and `is_empty`, and `get_many`/`get_many_mut`
//! (refusing an entity named twice), on `QueryState` and on the system parameter
//! `Query`, including their error paths.

use ecs_core::prelude::*;

#[derive(Component, Debug, PartialEq)]
struct Health(i32);

#[derive(Component, Debug, PartialEq)]
struct Player;

#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Stunned(u32);

#[test]
fn single_tells_none_from_several() {
    let mut world = World::new();
    let mut health = world.query_state::<&Health>();
    assert!(matches!(health.single(&world), Err(EcsError::NoEntities { .. })));
    let e = world.spawn(Health(3));
    assert_eq!(health.single(&world), Ok(&Health(3)));
    world.spawn(Health(4));
    let error = health.single(&world).unwrap_err();
    assert!(matches!(error, EcsError::MultipleEntities { .. }));
    assert!(error.to_string().contains("more than one entity"), "{error}");
    world.despawn(e).unwrap();
    let mut writer = world.query_state::<&mut Health>();
    writer.single_mut(&mut world).unwrap().0 += 10;
    assert_eq!(health.single(&world), Ok(&Health(14)));
}

#[test]
fn single_counts_only_rows_that_pass_per_row_filters() {
    let mut world = World::new();
    let a = world.spawn(Health(1));
    world.spawn(Health(2));
    let mut stunned = world.query_state_filtered::<(Entity, &Health), With<Stunned>>();
    assert!(matches!(stunned.single(&world), Err(EcsError::NoEntities { .. })));
    world.insert(a, Stunned(1)).unwrap();
    assert_eq!(stunned.single(&world).map(|(e, _)| e), Ok(a));
    let mut changed = world.query_state_filtered::<Entity, Changed<Health>>();
    changed.iter(&world).count();
    assert!(matches!(changed.single(&world), Err(EcsError::NoEntities { .. })));
    world.get_mut::<Health>(a).unwrap().0 += 1;
    assert_eq!(changed.single(&world), Ok(a));
}

#[test]
fn count_and_is_empty_agree_with_iteration() {
    let mut world = World::new();
    let entities: Vec<Entity> = world.spawn_batch((0..10).map(Health)).collect();
    world.spawn_batch((0..5).map(|i| (Health(i), Player)));
    for &e in entities.iter().step_by(3) {
        world.insert(e, Stunned(0)).unwrap();
    }
    let mut all = world.query_state::<&mut Health>();
    let mut players = world.query_state_filtered::<&Health, With<Player>>();
    let mut stunned = world.query_state_filtered::<&Health, With<Stunned>>();
    let mut none = world.query_state_filtered::<&Health, (With<Player>, With<Stunned>)>();
    assert_eq!((all.count(&world), players.count(&world), stunned.count(&world), none.count(&world)), (15, 5, 4, 0));
    assert_eq!(stunned.count(&world), stunned.iter(&world).count());
    assert!(!all.is_empty(&world) && !stunned.is_empty(&world));
    assert!(none.is_empty(&world));
    let mut changed = world.query_state_filtered::<Entity, Changed<Health>>();
    assert_eq!(changed.count(&world), 15, "counting is not a run: everything is still new");
    assert_eq!(changed.iter(&world).count(), 15);
    assert!(changed.is_empty(&world));
}

#[test]
fn get_many_mut_refuses_an_entity_named_twice_and_changes_nothing_on_error() {
    let mut world = World::new();
    let a = world.spawn(Health(1));
    let b = world.spawn(Health(2));
    let c = world.spawn(Player);
    let mut health = world.query_state::<&mut Health>();
    let mut changed = world.query_state_filtered::<Entity, Changed<Health>>();
    changed.iter(&world).count();
    {
        let [ha, hb] = health.get_many_mut(&mut world, [a, b]).unwrap();
        std::mem::swap(ha, hb);
    }
    assert_eq!((world.get::<Health>(a), world.get::<Health>(b)), (Some(&Health(2)), Some(&Health(1))));
    assert_eq!(changed.iter(&world).count(), 2);
    let aliased = health.get_many_mut(&mut world, [a, b, a]).unwrap_err();
    assert_eq!(aliased, EcsError::AliasedMutability(a));
    assert!(aliased.to_string().contains("twice"), "{aliased}");
    assert!(
        matches!(health.get_many_mut(&mut world, [a, c]), Err(EcsError::QueryMismatch { entity, .. }) if entity == c)
    );
    world.despawn(b).unwrap();
    assert_eq!(health.get_many_mut(&mut world, [a, b]).err(), Some(EcsError::NoSuchEntity(b)));
    assert_eq!(changed.iter(&world).count(), 0, "a refused call hands out nothing and marks nothing changed");
    let mut read = world.query_state::<&Health>();
    assert_eq!(read.get_many(&world, [a, a]), Ok([&Health(2), &Health(2)]), "reads may repeat");
}

#[derive(Default)]
struct Seen(Vec<String>);

fn inspect(
    mut players: Query<&mut Health, With<Player>>,
    others: Query<(Entity, &Health), Without<Player>>,
    mut seen: ResMut<Seen>,
) {
    seen.0.push(format!("players {} empty {}", players.count(), players.is_empty()));
    match players.single_mut() {
        Ok(health) => health.0 += 100,
        Err(error) => seen.0.push(error.to_string()),
    }
    let ids: Vec<Entity> = others.iter().map(|(e, _)| e).collect();
    if let [x, y, ..] = ids[..] {
        let [hx, hy] = others.get_many([x, y]).unwrap();
        seen.0.push(format!("others {} {}", hx.1.0, hy.1.0));
    }
}

#[test]
fn the_system_query_has_single_count_is_empty_and_get_many() {
    let mut world = World::new();
    world.insert_resource(Seen::default());
    world.spawn(Health(1));
    world.spawn(Health(2));
    let mut schedule = Schedule::new();
    schedule.add_systems(inspect);
    schedule.run(&mut world);
    let player = world.spawn((Player, Health(0)));
    schedule.run(&mut world);
    world.spawn((Player, Health(0)));
    schedule.run(&mut world);
    let seen = std::mem::take(&mut world.get_resource_mut::<Seen>().unwrap().0);
    assert_eq!(seen[0], "players 0 empty true");
    assert!(seen[1].starts_with("no entity matches"), "{}", seen[1]);
    assert_eq!(seen[2], "others 1 2");
    assert_eq!(seen[3], "players 1 empty false");
    assert_eq!(seen[5], "players 2 empty false");
    assert!(seen[6].starts_with("more than one entity"), "{}", seen[6]);
    assert_eq!(world.get::<Health>(player), Some(&Health(100)));
}

#[test]
fn par_iter_and_par_iter_mut_visit_what_iter_visits() {
    use std::sync::Mutex;
    fn heal(mut q: Query<&mut Health, Without<Stunned>>) {
        q.par_iter_mut().for_each(|h| h.0 += 100);
    }
    let mut world = World::new();
    for i in 0..5000 {
        let e = world.spawn(Health(i));
        if i % 3 == 0 {
            world.insert(e, Stunned(1)).unwrap();
        }
    }
    world.run_system_once(heal).unwrap();
    struct Seen(Mutex<Vec<i32>>);
    world.insert_resource(Seen(Mutex::new(Vec::new())));
    world
        .run_system_once(|q: Query<&Health>, seen: Res<Seen>| {
            q.par_iter().for_each(|h| seen.0.lock().unwrap().push(h.0));
        })
        .unwrap();
    let mut seen = world.remove_resource::<Seen>().unwrap().0.into_inner().unwrap();
    seen.sort_unstable();
    let mut expected: Vec<i32> = (0..5000).map(|i| if i % 3 == 0 { i } else { i + 100 }).collect();
    expected.sort_unstable();
    assert_eq!(seen, expected);
}

#[test]
fn a_populated_query_iterates_like_a_query() {
    fn double(mut q: Populated<&mut Health>) {
        for h in &mut q {
            h.0 *= 2;
        }
    }
    fn total(q: Populated<&Health>) -> i32 {
        let mut sum = 0;
        for h in &q {
            sum += h.0;
        }
        sum
    }
    let mut world = World::new();
    world.spawn(Health(1));
    world.spawn(Health(2));
    world.run_system_once(double).unwrap();
    assert_eq!(world.run_system_once(total).unwrap(), 6);
}
