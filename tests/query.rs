//! Queries: items, filters, change detection, chunks, parallel iteration, random
//! access, derived queries, and the aliasing and world checks.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};

use ecs_core::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Position(f32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Velocity(f32);

#[derive(Component, Clone, Debug, PartialEq)]
struct Name(String);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Health(u32);

#[derive(Component)]
struct Frozen;

#[derive(Component)]
struct Alive;

#[derive(QueryData)]
struct Movement<'w> {
    pos: &'w mut Position,
    vel: &'w Velocity,
    hp: Option<&'w Health>,
}

#[derive(QueryData)]
struct Labelled<'w> {
    entity: Entity,
    name: &'w Name,
}

#[derive(QueryData)]
struct Nested<'w> {
    label: Labelled<'w>,
    pos: Option<&'w Position>,
}

fn world() -> (World, Vec<Entity>) {
    let mut world = World::new();
    let ids = vec![
        world.spawn((Position(0.0), Velocity(1.0), Alive)),
        world.spawn((Position(10.0), Velocity(2.0), Health(5), Alive)),
        world.spawn((Position(20.0), Velocity(3.0), Frozen, Alive)),
        world.spawn((Position(30.0), Name("named".into()))),
        world.spawn(Velocity(4.0)),
    ];
    (world, ids)
}

#[test]
fn query_mut_writes_through_and_visits_matching_entities_only() {
    let (mut world, ids) = world();
    let mut visited = 0;
    for (pos, vel) in world.query_mut::<(&mut Position, &Velocity)>() {
        pos.0 += vel.0;
        visited += 1;
    }
    assert_eq!(visited, 3);
    assert_eq!(world.get::<Position>(ids[0]), Some(&Position(1.0)));
    assert_eq!(world.get::<Position>(ids[1]), Some(&Position(12.0)));
    assert_eq!(world.get::<Position>(ids[3]), Some(&Position(30.0)));
}

#[test]
fn read_only_query_with_entity_and_option() {
    let (world, ids) = world();
    let mut seen: Vec<(Entity, f32, Option<String>)> = world
        .query::<(Entity, &Position, Option<&Name>)>()
        .iter()
        .map(|(e, p, n)| (e, p.0, n.map(|n| n.0.clone())))
        .collect();
    seen.sort_by(|a, b| a.1.total_cmp(&b.1));
    assert_eq!(seen.len(), 4);
    assert_eq!(seen[3], (ids[3], 30.0, Some("named".to_string())));
    assert!(seen[..3].iter().all(|(_, _, n)| n.is_none()));
    // A query borrow can be consumed by value too.
    assert_eq!(world.query::<&Velocity>().count(), 4);
}

#[test]
fn option_mut_writes_where_present() {
    let (mut world, ids) = world();
    for (_, hp) in world.query_mut::<(&Position, Option<&mut Health>)>() {
        if let Some(hp) = hp {
            hp.0 += 1;
        }
    }
    assert_eq!(world.get::<Health>(ids[1]), Some(&Health(6)));
}

#[test]
fn filters_with_without_or_and_tuples() {
    let (mut world, _) = world();
    let count = |world: &mut World, f: fn(&mut World) -> usize| f(world);
    assert_eq!(count(&mut world, |w| w.query_mut_filtered::<&Position, With<Alive>>().count()), 3);
    assert_eq!(count(&mut world, |w| w.query_mut_filtered::<&Position, Without<Frozen>>().count()), 3);
    assert_eq!(count(&mut world, |w| w.query_mut_filtered::<&Position, (With<Alive>, Without<Frozen>)>().count()), 2);
    assert_eq!(count(&mut world, |w| w.query_mut_filtered::<Entity, Or<(With<Name>, With<Frozen>)>>().count()), 2);
    assert_eq!(
        count(&mut world, |w| w.query_mut_filtered::<Entity, Or<(With<Health>, Without<Position>)>>().count()),
        2
    );
    let readonly: usize = world.query_filtered::<&Velocity, Without<Position>>().iter().count();
    assert_eq!(readonly, 1);
}

#[test]
fn derived_queries_yield_named_fields_and_nest() {
    let (mut world, ids) = world();
    for m in world.query_mut::<Movement>() {
        m.pos.0 += m.vel.0 * m.hp.map_or(1.0, |h| h.0 as f32);
    }
    assert_eq!(world.get::<Position>(ids[1]), Some(&Position(20.0)));
    assert_eq!(world.get::<Position>(ids[0]), Some(&Position(1.0)));
    // All-read-only derived queries work on a shared world.
    let labels: Vec<_> = world.query::<Labelled>().iter().map(|l| (l.entity, l.name.0.clone())).collect();
    assert_eq!(labels, vec![(ids[3], "named".to_string())]);
    let nested: Vec<_> = world.query::<Nested>().iter().map(|n| (n.label.entity, n.pos.copied())).collect();
    assert_eq!(nested, vec![(ids[3], Some(Position(30.0)))]);
}

#[test]
fn query_state_caches_and_picks_up_new_archetypes() {
    let (mut world, _) = world();
    let mut q = world.query_state::<&mut Position>();
    // Tags (zero-sized components) do not split archetypes: the entities with
    // Alive and Frozen share (Position, Velocity)'s archetype.
    assert_eq!(q.matched_archetypes(), 3);
    assert_eq!(q.iter_mut(&mut world).count(), 4);
    world.spawn((Position(1.0), Health(1), Name("x".into())));
    world.spawn(Health(3));
    assert_eq!(q.iter_mut(&mut world).count(), 5);
    assert_eq!(q.matched_archetypes(), 4);
}

#[test]
fn chunks_give_one_slice_per_column_per_archetype() {
    let (mut world, _) = world();
    let mut q = world.query_state::<(Entity, &mut Position, &Velocity)>();
    let mut chunks = 0;
    let mut rows = 0;
    q.for_each_chunk(&mut world, |(entities, pos, vel): (&[Entity], &mut [Position], &[Velocity])| {
        assert_eq!(entities.len(), pos.len());
        assert_eq!(pos.len(), vel.len());
        for (p, v) in pos.iter_mut().zip(vel) {
            p.0 = v.0 * 100.0;
        }
        chunks += 1;
        rows += pos.len();
    });
    // Two archetypes: (Position, Velocity) with or without tags, and with Health.
    assert_eq!((chunks, rows), (2, 3));
    let mut values: Vec<f32> = world.query::<(&Position, &Velocity)>().iter().map(|(p, _)| p.0).collect();
    values.sort_by(f32::total_cmp);
    assert_eq!(values, vec![100.0, 200.0, 300.0]);
}

#[test]
fn get_through_a_query_tells_missing_entity_from_mismatch() {
    let (mut world, ids) = world();
    let mut q = world.query_state_filtered::<(&mut Position, &Velocity), Without<Frozen>>();
    q.get_mut(&mut world, ids[0]).unwrap().0.0 = 99.0;
    assert_eq!(world.get::<Position>(ids[0]), Some(&Position(99.0)));
    let mismatch = q.get_mut(&mut world, ids[2]).unwrap_err();
    assert!(matches!(mismatch, EcsError::QueryMismatch { entity, .. } if entity == ids[2]));
    assert!(mismatch.to_string().contains("does not match"), "{mismatch}");
    assert!(matches!(q.get_mut(&mut world, ids[4]), Err(EcsError::QueryMismatch { .. })));
    world.despawn(ids[0]).unwrap();
    assert_eq!(q.get_mut(&mut world, ids[0]).unwrap_err(), EcsError::NoSuchEntity(ids[0]));
    let read = world.query::<&Name>();
    assert_eq!(read.get(ids[3]).unwrap(), &Name("named".into()));
}

#[derive(Component)]
struct Marked;

#[test]
fn random_access_through_a_shared_query_borrow() {
    let mut world = World::new();
    let ids: Vec<Entity> = world.spawn_batch((0..6).map(|i| Position(i as f32))).collect();
    world.insert(ids[1], Marked).unwrap();
    world.insert(ids[2], Name("two".into())).unwrap();
    world.despawn(ids[5]).unwrap();
    let positions = world.query::<&Position>();
    // Items of a read-only query may be held side by side.
    let (a, b) = (positions.get(ids[0]).unwrap(), positions.get(ids[2]).unwrap());
    assert_eq!((a.0, b.0), (0.0, 2.0), "found across archetypes");
    assert_eq!(positions.get(ids[5]).unwrap_err(), EcsError::NoSuchEntity(ids[5]));
    let marked = world.query_filtered::<&Position, With<Marked>>();
    assert_eq!(marked.get(ids[1]).map(|p| p.0), Ok(1.0));
    assert!(matches!(marked.get(ids[0]), Err(EcsError::QueryMismatch { entity, .. }) if entity == ids[0]));
    // A query matching one archetype takes a shorter path; the same answers.
    let named = world.query::<(&Position, &Name)>();
    assert!(matches!(named.get(ids[3]), Err(EcsError::QueryMismatch { .. })));
    assert_eq!(named.get(ids[5]).unwrap_err(), EcsError::NoSuchEntity(ids[5]));
    // The borrow can be shared between threads, for parallel random access.
    let found = std::thread::scope(|s| {
        let positions = &positions;
        let handles: Vec<_> = ids[..5].iter().map(|&e| s.spawn(move || positions.get(e).map(|p| p.0))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).filter(Result::is_ok).count()
    });
    assert_eq!(found, 5);
    assert_eq!(named.get(ids[2]).map(|(p, n)| (p.0, n.0.as_str())), Ok((2.0, "two")));
}

#[test]
fn change_detection_sees_written_and_inserted_rows_only() {
    let mut world = World::new();
    let ids: Vec<_> = (0..6).map(|i| world.spawn(Position(i as f32))).collect();
    let mut changed = world.query_state_filtered::<Entity, Changed<Position>>();
    let mut added = world.query_state_filtered::<Entity, Added<Position>>();
    // First run: everything is new.
    assert_eq!(changed.iter(&world).count(), 6);
    assert_eq!(added.iter(&world).count(), 6);
    // Nothing happened since.
    assert_eq!(changed.iter(&world).count(), 0);
    assert_eq!(added.iter(&world).count(), 0);
    // Written through &mut (by a query, and by get_mut), and one inserted.
    let mut writer = world.query_state::<&mut Position>();
    let _ = writer.get_mut(&mut world, ids[1]).unwrap();
    world.get_mut::<Position>(ids[2]).unwrap().0 = 7.0;
    let late = world.spawn(Position(100.0));
    let mut got: HashSet<Entity> = changed.iter(&world).collect();
    assert_eq!(got, HashSet::from([ids[1], ids[2], late]));
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), vec![late]);
    // Reading does not count as a change.
    assert_eq!(world.query::<&Position>().iter().count(), 7);
    assert_eq!(changed.iter(&world).count(), 0);
    // A full mutable pass marks every visited row, but only for queries that have
    // not seen it yet; the writing query does not see its own writes as changes.
    writer.iter_mut(&mut world).take(3).for_each(|p| p.0 += 1.0);
    got = changed.iter(&world).collect();
    assert_eq!(got.len(), 3);
    let mut own = world.query_state_filtered::<(&mut Position, Entity), Changed<Position>>();
    // (Handed out one by one: `count` alone hands out nothing to write through.)
    assert_eq!(own.iter_mut(&mut world).fold(0, |n, _| n + 1), 7);
    assert_eq!(own.iter_mut(&mut world).fold(0, |n, _| n + 1), 0, "its own writes are not news to the writer");
    assert_eq!(changed.iter(&world).count(), 7, "but they are news to everyone else");
    // Inserting an existing component (replace) counts as a change, not an add.
    world.insert(ids[5], Position(-1.0)).unwrap();
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![ids[5]]);
    assert_eq!(added.iter(&world).count(), 0);
}

#[test]
fn a_for_loop_stamps_exactly_the_rows_it_handed_out() {
    let mut world = World::new();
    // Two archetypes, so the loop crosses from one into the other.
    for i in 0..4 {
        world.spawn(Position(i as f32));
        world.spawn((Position(i as f32), Velocity(1.0)));
    }
    let mut changed = world.query_state_filtered::<Entity, Changed<Position>>();
    assert_eq!(changed.iter(&world).count(), 8);
    let mut writer = world.query_state::<(Entity, &mut Position)>();
    let mut handed_out = HashSet::new();
    for (e, _) in writer.iter_mut(&mut world) {
        handed_out.insert(e);
        if handed_out.len() == 6 {
            break;
        }
    }
    let got: HashSet<Entity> = changed.iter(&world).collect();
    // Six rows span both archetypes of four.
    assert_eq!(got, handed_out, "rows left behind by `break` are not changed");
    // Picking the iterator up again by hand, one item at a time.
    let mut iter = writer.iter_mut(&mut world);
    let first = iter.next().map(|(e, _)| e);
    drop(iter);
    let got: Vec<Entity> = changed.iter(&world).collect();
    assert_eq!(got.len(), 1);
    assert_eq!(Some(got[0]), first);
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(layout = "soa")]
struct Spot {
    x: f32,
    y: f32,
}

#[derive(QueryData)]
struct Mover<'w> {
    entity: Entity,
    pos: &'w mut Position,
}

#[derive(QueryData)]
struct MaybeMover<'w> {
    entity: Entity,
    pos: Option<&'w mut Position>,
}

/// A `for` loop hands a row out as plainly as it can (no per-row call) only
/// where nothing watches what it writes: with a `Changed` query, every item
/// shape that writes — a derived query, an `Option`, a tuple, a per-field
/// component — stamps exactly the rows handed out.
#[test]
fn a_for_loop_stamps_the_rows_of_every_writing_shape_once_a_changed_query_watches() {
    fn check<Q: ecs_core::query::QueryData>(name: &str, take: usize, entity: impl Fn(&Q::Item<'_>) -> Entity) {
        let mut world = World::new();
        for i in 0..6 {
            world.spawn((Position(i as f32), Spot { x: 0.0, y: 0.0 }));
            world.spawn((Position(i as f32), Spot { x: 0.0, y: 0.0 }, Velocity(1.0)));
        }
        let mut position = world.query_state_filtered::<Entity, Changed<Position>>();
        let mut spot = world.query_state_filtered::<Entity, Changed<Spot>>();
        assert_eq!(position.iter(&world).count() + spot.iter(&world).count(), 24);
        let mut writer = world.query_state::<Q>();
        let mut handed_out = HashSet::new();
        for item in writer.iter_mut(&mut world) {
            handed_out.insert(entity(&item));
            if handed_out.len() == take {
                break;
            }
        }
        let got: HashSet<Entity> = position.iter(&world).chain(spot.iter(&world)).collect();
        assert_eq!(got, handed_out, "{name}: the rows handed out, and only those, are changed");
    }
    check::<Mover>("derived", 8, |m| m.entity);
    check::<MaybeMover>("derived with an Option", 7, |m| m.entity);
    check::<(Entity, Option<&mut Position>)>("Option", 9, |m| m.0);
    check::<(Entity, (&Velocity, &mut Position))>("nested tuple", 3, |m| m.0);
    check::<(Entity, &mut Spot)>("per-field", 10, |m| m.0);
}

#[test]
fn two_queries_keep_their_own_last_run() {
    let mut world = World::new();
    let e = world.spawn(Health(1));
    let mut a = world.query_state_filtered::<Entity, Changed<Health>>();
    let mut b = world.query_state_filtered::<Entity, Changed<Health>>();
    assert_eq!(a.iter(&world).count(), 1);
    world.get_mut::<Health>(e).unwrap().0 = 2;
    assert_eq!(a.iter(&world).count(), 1);
    assert_eq!(b.iter(&world).count(), 1, "b never ran: it sees the spawn");
    assert_eq!(a.iter(&world).count(), 0);
    assert_eq!(b.iter(&world).count(), 0);
}

#[test]
#[should_panic(expected = "`query::Position` is borrowed mutably (`&mut query::Position`) and also shared")]
fn mut_and_shared_borrow_of_one_component_is_refused() {
    let mut world = World::new();
    let _ = world.query_mut::<(&mut Position, &Position)>();
}

#[test]
#[should_panic(expected = "`query::Position` is borrowed mutably twice")]
fn two_mutable_borrows_of_one_component_are_refused() {
    let world = World::new();
    let _ = world.query_state::<(&mut Position, Option<&mut Position>)>();
}

#[test]
fn a_query_may_write_what_its_change_filter_reads() {
    let mut world = World::new();
    world.spawn(Health(1));
    let mut q = world.query_state_filtered::<&mut Health, Changed<Health>>();
    q.iter_mut(&mut world).for_each(|h| h.0 += 1);
    assert_eq!(q.iter_mut(&mut world).count(), 0);
    assert_eq!(world.query::<&Health>().iter().next(), Some(&Health(2)));
}

#[test]
#[should_panic(expected = "used with a World other than the one that created it")]
fn query_state_refuses_another_world() {
    let world = World::new();
    let mut other = World::new();
    let mut q = world.query_state::<&Position>();
    let _ = q.iter_mut(&mut other).count();
}

#[test]
fn parallel_iteration_visits_each_entity_once() {
    for &count in &[1usize, 7, 100, 100_000] {
        let mut world = World::new();
        for i in 0..count {
            // Spread over many archetypes: 8 combinations of optional tags.
            let e = world.spawn((Position(i as f32), Health(0)));
            if i % 2 == 0 {
                world.insert(e, Frozen).unwrap();
            }
            if i % 3 == 0 {
                world.insert(e, Alive).unwrap();
            }
            if i % 5 == 0 {
                world.insert(e, Name(String::new())).unwrap();
            }
        }
        let visits = AtomicUsize::new(0);
        let mut q = world.query_state::<(&Position, &mut Health)>();
        q.par_for_each(&mut world, |(_, hp)| {
            hp.0 += 1;
            visits.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(visits.load(Ordering::Relaxed), count);
        assert!(world.query::<&Health>().iter().all(|h| h.0 == 1), "every entity exactly once ({count})");
        let mut frozen = world.query_state_filtered::<&mut Health, With<Frozen>>();
        frozen.par_for_each(&mut world, |hp| hp.0 += 10);
        let sum: u32 = world.query::<&Health>().iter().map(|h| h.0).sum();
        assert_eq!(sum as usize, count + 10 * count.div_ceil(2));
    }
}

#[test]
fn iterator_reports_its_length_for_archetypal_filters() {
    let (mut world, _) = world();
    let iter = world.query_mut::<&Position>();
    assert_eq!(iter.size_hint(), (4, Some(4)));
}

#[test]
fn writes_in_archetypes_made_after_a_changed_query_are_seen() {
    let mut world = World::new();
    let first = world.spawn(Position(0.0));
    let mut changed = world.query_state_filtered::<Entity, Changed<Position>>();
    assert_eq!(changed.iter(&world).count(), 1);
    // A new archetype holding Position appears after the Changed query was made,
    // and its rows are written by a mutable pass before the query runs again.
    let later = world.spawn((Position(1.0), Health(1)));
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![later]);
    let mut writer = world.query_state_filtered::<&mut Position, With<Health>>();
    writer.iter_mut(&mut world).for_each(|p| p.0 += 1.0);
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![later]);
    // And a plain `for` loop over a mutable query stamps as well.
    for p in world.query_mut::<&mut Position>() {
        p.0 += 1.0;
    }
    let mut seen: Vec<_> = changed.iter(&world).collect();
    seen.sort();
    assert_eq!(seen, vec![first, later]);
}

#[test]
fn nested_tuples_and_wide_tuples_are_queries() {
    let (world, ids) = world();
    let nested: Vec<(Entity, (f32, Option<u32>))> = world
        .query::<(Entity, (&Position, Option<&Health>))>()
        .iter()
        .map(|(e, (p, h))| (e, (p.0, h.map(|h| h.0))))
        .collect();
    assert!(nested.contains(&(ids[1], (10.0, Some(5)))));
    type Wide<'a> = (
        Entity,
        &'a Position,
        Option<&'a Velocity>,
        Option<&'a Health>,
        Option<&'a Name>,
        Option<&'a Frozen>,
        Option<&'a Alive>,
        Entity,
        Option<&'a Position>,
        Option<&'a Velocity>,
        Option<&'a Health>,
        Option<&'a Name>,
        Option<&'a Frozen>,
        Option<&'a Alive>,
        Entity,
        Option<&'a Position>,
    );
    assert_eq!(world.query::<Wide>().iter().count(), 4);
}

#[test]
fn for_each_visits_every_row_once_at_every_archetype_length() {
    // Rows go in blocks of eight, four, then one by one: every length up to
    // 2 x 8 + 4 + 3 and past, with the fold starting fresh or mid-archetype.
    for len in 0..=40usize {
        for taken in [0, 1, 5] {
            let mut world = World::new();
            world.spawn_batch((0..len).map(|i| (Position(i as f32),)));
            world.spawn_batch((0..len).map(|i| (Position(i as f32), Health(0))));
            let mut q = world.query_state::<&mut Position>();
            let mut iter = q.iter_mut(&mut world);
            for p in iter.by_ref().take(taken) {
                p.0 += 1000.0;
            }
            iter.for_each(|p| p.0 += 1000.0);
            let mut values: Vec<f32> = world.query::<&Position>().iter().map(|p| p.0).collect();
            values.sort_by(f32::total_cmp);
            let mut expected: Vec<f32> = (0..len).chain(0..len).map(|i| i as f32 + 1000.0).collect();
            expected.sort_by(f32::total_cmp);
            assert_eq!(values, expected, "len {len}, {taken} taken by next()");
        }
    }
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Poisoned(u32);

/// Collects a query's items twice, with `next` and with `for_each` (which reads
/// each archetype's length from the query's first column when that is a table
/// column, and from the archetype otherwise), and checks both agree.
fn both_ways<Q, F, T>(world: &mut World, item: impl Fn(Q::Item<'_>) -> T) -> Vec<T>
where
    Q: ecs_core::query::QueryData,
    F: ecs_core::query::QueryFilter,
    T: PartialEq + core::fmt::Debug,
{
    let mut state = world.query_state_filtered::<Q, F>();
    let by_next: Vec<T> = state.iter_mut(world).map(&item).collect();
    let mut by_fold = Vec::new();
    state.iter_mut(world).for_each(|i| by_fold.push(item(i)));
    assert_eq!(by_next, by_fold, "`{}`", core::any::type_name::<(Q, F)>());
    by_fold
}

#[test]
fn for_each_agrees_with_next_whatever_the_query_leads_with() {
    let mut world = World::new();
    world.spawn_batch((0..5).map(|i| (Position(i as f32), Health(i))));
    world.spawn_batch((0..7).map(|i| (Position(i as f32), Velocity(1.0))));
    world.spawn_batch((0..3).map(|i| (Health(10 + i), Name(format!("n{i}")))));
    world.spawn_batch((0..4).map(|i| (Name(format!("m{i}")),)));
    world.spawn(());
    let some: Vec<Entity> = world.query::<Entity>().iter().step_by(3).collect();
    for (i, &e) in some.iter().enumerate() {
        world.insert(e, Poisoned(i as u32)).unwrap();
    }

    assert_eq!(both_ways::<Entity, (), _>(&mut world, |e| e).len(), 20);
    assert_eq!(both_ways::<(Entity, &Position), (), _>(&mut world, |(_, p)| p.0).len(), 12);
    assert_eq!(both_ways::<(Option<&Health>, &Position), (), _>(&mut world, |(h, p)| (h.copied(), p.0)).len(), 12);
    assert_eq!(both_ways::<(&Poisoned, &Position), (), _>(&mut world, |(s, p)| (s.0, p.0)).len(), 4);
    assert_eq!(both_ways::<(&Health, Option<&Poisoned>), (), _>(&mut world, |(h, s)| (h.0, s.copied())).len(), 8);
    assert_eq!(both_ways::<Labelled, (), _>(&mut world, |l| l.name.0.clone()).len(), 7);
    assert_eq!(both_ways::<Nested, (), _>(&mut world, |n| (n.label.entity, n.pos.copied())).len(), 7);
    assert_eq!(both_ways::<&mut Health, With<Poisoned>, _>(&mut world, |h| h.0).len(), 2);
    assert_eq!(both_ways::<(&mut Position, &Velocity), (), _>(&mut world, |(p, v)| p.0 + v.0).len(), 7);
    assert_eq!(both_ways::<(), With<Name>, _>(&mut world, |()| ()).len(), 7);
}

#[test]
fn query_and_query_mut_both_return_iterators() {
    let mut world = World::new();
    let a = world.spawn(Position(1.0));
    world.spawn(Position(2.0));
    world.spawn((Position(3.0), Frozen));
    // Both are iterators already: adapters apply directly.
    assert_eq!(world.query::<&Position>().map(|p| p.0).sum::<f32>(), 6.0);
    assert_eq!(world.query_mut::<&mut Position>().map(|p| p.0).sum::<f32>(), 6.0);
    assert_eq!(world.query::<&Position>().count(), 3);
    assert_eq!(world.query_mut::<&Position>().count(), 3);
    assert_eq!(world.query_filtered::<&Position, Without<Frozen>>().count(), 2);
    // The read-only borrow also keeps random access and fresh passes while it
    // iterates.
    let mut borrow = world.query::<(Entity, &Position)>();
    let (first, _) = borrow.next().unwrap();
    assert_eq!(borrow.get(a).map(|(_, p)| p.0), Ok(1.0));
    assert_eq!(borrow.iter().count(), 3);
    assert_eq!((&borrow).into_iter().count(), 3);
    assert_eq!(borrow.by_ref().count(), 2, "the borrow continues after `{first:?}`");
    assert!(borrow.next().is_none());
    assert!(!borrow.is_empty());
    assert!(matches!(borrow.single(), Err(EcsError::MultipleEntities { .. })));
}

/// A query's iterator can go to another thread (`par_bridge`, a scoped worker)
/// wherever its items could.
#[test]
fn query_iterators_are_send_and_sync_where_their_items_are() {
    fn send_sync<T: Send + Sync>(_: &T) {}
    let (mut world, _) = world();
    send_sync(&world.query::<(Entity, &Position)>().iter());
    send_sync(&world.query_mut::<(&mut Position, Option<&Velocity>)>());
    let mut state = world.query_state_filtered::<&mut Position, With<Velocity>>();
    let iter = state.iter_mut(&mut world);
    send_sync(&iter);
    let moved = std::thread::scope(|s| s.spawn(move || iter.count()).join().unwrap());
    assert_eq!(moved, world.query_filtered::<&Position, With<Velocity>>().iter().count());
}
