//! `Query::iter_many` and `iter_many_mut`: the items of a list of entities, in
//! the list's order, skipping what the query does not match; the mutable form
//! lends one item at a time and stamps only the rows it hands out.

use ecs_core::prelude::*;

#[derive(Component, Debug, PartialEq)]
struct Health(u32);
#[derive(Component)]
struct Tag;

fn spawn(world: &mut World) -> [Entity; 4] {
    let a = world.spawn((Health(1), Tag));
    let b = world.spawn(Health(2));
    let c = world.spawn((Health(3), Tag));
    let dead = world.spawn(Health(4));
    world.despawn(dead).unwrap();
    [a, b, c, dead]
}

#[test]
fn iter_many_keeps_the_list_order_and_skips_misses() {
    let mut world = World::new();
    let [a, b, c, dead] = spawn(&mut world);
    let tagless = world.spawn(());
    let seen = world
        .run_system_once(move |q: Query<&Health>| {
            q.iter_many([c, dead, a, tagless, c, b]).map(|h| h.0).collect::<Vec<_>>()
        })
        .unwrap();
    assert_eq!(seen, [3, 1, 3, 2], "dead and non-matching entities skipped, a duplicate yields twice");
    let filtered = world
        .run_system_once(move |q: Query<&Health, With<Tag>>| q.iter_many(&[a, b, c]).map(|h| h.0).collect::<Vec<_>>())
        .unwrap();
    assert_eq!(filtered, [1, 3], "the query's filter applies");
    let hint = world.run_system_once(move |q: Query<&Health>| q.iter_many([a, b]).size_hint()).unwrap();
    assert_eq!(hint, (0, Some(2)));
}

#[test]
fn iter_many_mut_writes_each_listed_entity_in_order() {
    let mut world = World::new();
    let [a, b, c, dead] = spawn(&mut world);
    let order = world
        .run_system_once(move |mut q: Query<&mut Health, With<Tag>>| {
            let mut order = Vec::new();
            let mut items = q.iter_many_mut([c, b, dead, a, c]);
            while let Some(h) = items.fetch_next() {
                order.push(h.0);
                h.0 += 10;
            }
            order
        })
        .unwrap();
    assert_eq!(order, [3, 1, 13], "listed twice, `c` is lent twice, seeing the first write");
    assert_eq!(world.get::<Health>(a), Some(&Health(11)));
    assert_eq!(world.get::<Health>(b), Some(&Health(2)), "filtered out");
    assert_eq!(world.get::<Health>(c), Some(&Health(23)));
    world.run_system_once(move |mut q: Query<&mut Health>| q.iter_many_mut([b]).for_each(|h| h.0 = 0)).unwrap();
    assert_eq!(world.get::<Health>(b), Some(&Health(0)));
}

#[test]
fn iter_many_mut_stamps_only_the_rows_it_hands_out() {
    let mut world = World::new();
    let [a, b, c, dead] = spawn(&mut world);
    let mut schedule = Schedule::new();
    #[derive(Default)]
    struct SeenChanged(Vec<u32>);
    world.insert_resource(SeenChanged::default());
    // `b` is looked up but filtered out (no `Tag`), `dead` is gone: neither is
    // handed out, so neither may be stamped.
    let targets = [b, c, dead];
    schedule.add_systems(
        (
            move |mut q: Query<&mut Health, With<Tag>>| q.iter_many_mut(targets).for_each(|h| h.0 += 100),
            |q: Query<&Health, Changed<Health>>, mut seen: ResMut<SeenChanged>| {
                seen.0 = q.iter().map(|h| h.0).collect();
            },
        )
            .chain(),
    );
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<SeenChanged>().0, [203], "only `c` was written since the reader last ran");
    assert_eq!(world.get::<Health>(a), Some(&Health(1)));
    assert_eq!(world.get::<Health>(b), Some(&Health(2)));
}
