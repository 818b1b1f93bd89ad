//! Sparse components (`#[component(storage = "sparse")]`): stored per row, so adding
//! or removing one writes or clears a row in place instead of moving the entity.
//! Everything a table component does must still hold: values, queries, filters,
//! change detection, and every value dropped exactly once.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};

use ecs_core::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Position(f32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Health(u32);

#[derive(Component, Clone, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Stunned(u32);

#[derive(Component, Clone, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Label(String);

#[derive(Component, Debug, PartialEq)]
struct Frozen;

#[test]
fn adding_and_removing_moves_nothing_and_creates_no_archetype() {
    let mut world = World::new();
    let a = world.spawn(Position(1.0));
    let b = world.spawn((Position(2.0), Stunned(5)));
    assert_eq!(world.location(a).unwrap().archetype, world.location(b).unwrap().archetype);
    let archetypes = world.archetypes().len();
    let before = world.location(a);
    world.insert(a, Stunned(1)).unwrap();
    assert_eq!(world.location(a), before, "adding a sparse component moves nothing");
    assert_eq!(world.get::<Stunned>(a), Some(&Stunned(1)));
    assert_eq!(world.get::<Stunned>(b), Some(&Stunned(5)));
    world.insert(a, Stunned(2)).unwrap();
    assert_eq!(world.get::<Stunned>(a), Some(&Stunned(2)), "inserting again replaces");
    assert_eq!(world.remove::<Stunned>(a), Ok(Stunned(2)));
    assert_eq!(world.location(a), before, "removing one moves nothing");
    assert_eq!(world.get::<Stunned>(a), None);
    assert!(!world.has::<Stunned>(a) && world.has::<Stunned>(b));
    assert_eq!(world.archetypes().len(), archetypes);
    assert_eq!(
        world.remove::<Stunned>(a),
        Err(EcsError::MissingComponent { entity: a, component: std::any::type_name::<Stunned>() })
    );
    world.check_invariants().unwrap();
}

#[test]
fn values_travel_with_their_entity_between_archetypes() {
    let mut world = World::new();
    let e = world.spawn((Position(1.0), Label("e".into())));
    let other = world.spawn(Position(9.0));
    world.insert(e, Health(3)).unwrap();
    assert_eq!(world.get::<Label>(e), Some(&Label("e".into())));
    assert_eq!(world.get::<Label>(other), None, "the row left behind is not mistaken for e's");
    world.remove::<Position>(e).unwrap();
    assert_eq!(world.get::<Label>(e), Some(&Label("e".into())));
    // A mixed bundle: a table component moves the entity, the sparse one is put in place.
    world.insert(other, (Health(1), Label("other".into()))).unwrap();
    assert_eq!(world.get::<Label>(other), Some(&Label("other".into())));
    let (health, label) = world.remove::<(Health, Label)>(other).unwrap();
    assert_eq!((health, label.0.as_str()), (Health(1), "other"));
    assert!(!world.has::<Label>(other) && !world.has::<Health>(other));
    world.check_invariants().unwrap();
}

#[test]
fn a_failed_remove_removes_nothing() {
    let mut world = World::new();
    let e = world.spawn((Position(1.0), Health(2)));
    let result = world.remove::<(Health, Stunned)>(e);
    assert_eq!(result, Err(EcsError::MissingComponent { entity: e, component: std::any::type_name::<Stunned>() }));
    assert_eq!(world.get::<Health>(e), Some(&Health(2)));
}

#[test]
fn queries_see_exactly_the_rows_that_hold_the_component() {
    let mut world = World::new();
    let entities: Vec<Entity> = world.spawn_batch((0..10).map(|i| Position(i as f32))).collect();
    world.spawn_batch((0..3).map(|i| (Position(100.0 + i as f32), Health(1))));
    for (i, &e) in entities.iter().enumerate().filter(|(i, _)| i % 3 == 0) {
        world.insert(e, Stunned(i as u32)).unwrap();
    }
    let mut stunned: Vec<(f32, u32)> = world.query::<(&Position, &Stunned)>().iter().map(|(p, s)| (p.0, s.0)).collect();
    stunned.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert_eq!(stunned, [(0.0, 0), (3.0, 3), (6.0, 6), (9.0, 9)]);
    assert_eq!(world.query_filtered::<&Position, With<Stunned>>().iter().count(), 4);
    assert_eq!(world.query_filtered::<&Position, Without<Stunned>>().iter().count(), 9);
    let optional = world.query::<Option<&Stunned>>().iter().filter(Option::is_some).count();
    assert_eq!(optional, 4);

    for s in world.query_mut::<&mut Stunned>() {
        s.0 += 1;
    }
    assert_eq!(world.get::<Stunned>(entities[3]), Some(&Stunned(4)));

    // Chunks are runs of consecutive rows that hold the component.
    let mut q = world.query_state::<(&Position, &mut Stunned)>();
    let mut rows = 0;
    q.for_each_chunk(&mut world, |(p, s): (&[Position], &mut [Stunned])| {
        assert_eq!(p.len(), s.len());
        for (p, s) in p.iter().zip(s.iter_mut()) {
            assert_eq!(p.0 as u32 + 1, s.0);
            rows += 1;
        }
    });
    assert_eq!(rows, 4);
    let mut q = world.query_state::<&Stunned>();
    assert_eq!(q.get(&world, entities[0]).map(|s| s.0), Ok(1));
    assert_eq!(
        q.get(&world, entities[1]).map(|s| s.0),
        Err(EcsError::QueryMismatch { entity: entities[1], query: "Query<&sparse::Stunned>" })
    );
}

#[test]
fn parallel_iteration_visits_each_present_row_once() {
    let mut world = World::new();
    let entities: Vec<Entity> = world.spawn_batch((0..10_000).map(|i| Position(i as f32))).collect();
    for &e in entities.iter().step_by(2) {
        world.insert(e, Stunned(0)).unwrap();
    }
    let mut q = world.query_state::<&mut Stunned>();
    q.par_for_each(&mut world, |s| s.0 += 1);
    assert!(entities.iter().step_by(2).all(|&e| world.get::<Stunned>(e) == Some(&Stunned(1))));
    assert!(entities.iter().skip(1).step_by(2).all(|&e| world.get::<Stunned>(e).is_none()));
}

#[test]
fn added_and_changed_follow_each_row() {
    let mut world = World::new();
    let a = world.spawn(Position(0.0));
    let b = world.spawn(Position(1.0));
    let mut added = world.query_state_filtered::<Entity, Added<Stunned>>();
    let mut changed = world.query_state_filtered::<Entity, Changed<Stunned>>();
    assert_eq!(added.iter(&world).count(), 0);
    assert_eq!(changed.iter(&world).count(), 0);

    world.insert(a, Stunned(1)).unwrap();
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), [a]);
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [a]);
    assert_eq!(added.iter(&world).count(), 0, "seen once");

    world.get_mut::<Stunned>(a).unwrap().0 = 2;
    world.insert(b, Stunned(1)).unwrap();
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), [b]);
    let mut seen: Vec<Entity> = changed.iter(&world).collect();
    seen.sort_by_key(|e| e.to_bits());
    assert_eq!(seen, [a, b]);

    world.remove::<Stunned>(a).unwrap();
    world.insert(a, Stunned(3)).unwrap();
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), [a], "re-adding counts as added");
}

#[test]
fn tags_and_sparse_components_mix() {
    let mut world = World::new();
    let e = world.spawn((Position(0.0), Frozen, Stunned(1)));
    world.insert(e, Label("x".into())).unwrap();
    world.remove::<(Frozen, Stunned)>(e).unwrap();
    assert!(!world.has::<Frozen>(e) && !world.has::<Stunned>(e));
    assert_eq!(world.get::<Label>(e), Some(&Label("x".into())));
    let names: Vec<&str> = world.entity(e).unwrap().components().map(|c| c.name()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    // A tuple of only per-row components: put in place, then replaced in place.
    let before = world.location(e);
    world.insert(e, (Stunned(7), Frozen)).unwrap();
    world.insert(e, (Label("y".into()), Stunned(8))).unwrap();
    assert_eq!(world.location(e), before);
    assert_eq!((world.get::<Stunned>(e), world.get::<Label>(e)), (Some(&Stunned(8)), Some(&Label("y".into()))));
    assert!(world.has::<Frozen>(e));
    world.check_invariants().unwrap();
}

static DROPS: AtomicUsize = AtomicUsize::new(0);

/// Counts its drops; panics on drop when `.1` is set.
#[derive(Component)]
#[component(storage = "sparse")]
struct Counted(u32, bool);

impl Drop for Counted {
    fn drop(&mut self) {
        DROPS.fetch_add(1, Ordering::SeqCst);
        if self.1 {
            panic!("Counted({}) refuses to drop", self.0);
        }
    }
}

fn drops() -> usize {
    DROPS.load(Ordering::SeqCst)
}

/// One test owns `DROPS`, so parallel tests cannot disturb the counts.
#[test]
fn every_value_is_dropped_exactly_once() {
    let mut world = World::new();
    let es: Vec<Entity> = world.spawn_batch((0..8).map(|i| Position(i as f32))).collect();
    for (i, &e) in es.iter().enumerate().filter(|(i, _)| i % 2 == 0) {
        world.insert(e, Counted(i as u32, false)).unwrap();
    }
    assert_eq!(drops(), 0, "absent rows and moves drop nothing");

    world.insert(es[0], Counted(100, false)).unwrap();
    assert_eq!(drops(), 1, "replacing drops the old value");
    assert_eq!(world.get::<Counted>(es[0]).map(|c| c.0), Some(100));

    let taken = world.remove::<Counted>(es[2]).unwrap();
    assert_eq!((taken.0, drops()), (2, 1), "remove hands the value out undropped");
    drop(taken);
    assert_eq!(drops(), 2);

    world.despawn(es[1]).unwrap();
    assert_eq!(drops(), 2, "despawning an entity without the component drops none");
    world.despawn(es[4]).unwrap();
    assert_eq!(drops(), 3);

    // Moving between archetypes carries the value without dropping it.
    world.insert(es[6], Health(1)).unwrap();
    world.remove::<Health>(es[6]).unwrap();
    assert_eq!(drops(), 3);
    assert_eq!(world.get::<Counted>(es[6]).map(|c| c.0), Some(6));

    world.clear();
    assert_eq!(drops(), 5, "clear drops the two left (es[0] and es[6])");

    let es: Vec<Entity> = world.spawn_batch((0..4).map(|i| (Position(i as f32), Counted(i, false)))).collect();
    world.remove::<Counted>(es[1]).unwrap();
    assert_eq!(drops(), 6);
    drop(world);
    assert_eq!(drops(), 9, "dropping the world drops the three still held");

    // A panicking Drop of a replaced value: the new value is in place, the world
    // consistent, nothing dropped twice.
    let mut world = World::new();
    let e = world.spawn((Position(0.0), Counted(1, true)));
    let other = world.spawn((Position(1.0), Counted(2, false)));
    let result = catch_unwind(AssertUnwindSafe(|| world.insert(e, Counted(3, false))));
    assert!(result.is_err(), "the old value's panic reaches the caller");
    assert_eq!(drops(), 10);
    world.check_invariants().unwrap();
    assert_eq!(world.get::<Counted>(e).map(|c| c.0), Some(3));
    assert_eq!(world.get::<Counted>(other).map(|c| c.0), Some(2));
    world.despawn(e).unwrap();
    drop(world);
    assert_eq!(drops(), 12);
}

#[derive(Component, Debug)]
#[component(storage = "sparse")]
struct Mark<const N: usize>;

/// A query state caches where each matched archetype's columns are; giving an
/// archetype a sparse column can move its column table, so a state made before
/// must still read and write the right rows afterwards, in every way of
/// iterating. (Under valgrind a stale pointer would also show as a read of freed
/// memory.)
#[test]
fn query_states_made_before_an_archetype_gains_columns_stay_correct() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..10).map(|i| world.spawn((Position(i as f32), Health(i)))).collect();
    let mut moving = world.query_state::<(&mut Position, &Health, Option<&Stunned>)>();
    let sum = |world: &mut World, moving: &mut QueryState<(&mut Position, &Health, Option<&Stunned>), ()>| {
        moving.iter_mut(world).map(|(p, h, s)| p.0 as u32 + h.0 + s.map_or(0, |s| s.0)).sum::<u32>()
    };
    let base: u32 = (0..10).map(|i| 2 * i).sum();
    assert_eq!(sum(&mut world, &mut moving), base);
    macro_rules! gain_columns {
        ($($n:literal)*) => {$(
            world.insert(entities[$n % 10], Mark::<$n>).unwrap();
            moving.iter_mut(&mut world).for_each(|(p, _, _)| p.0 += 1.0);
        )*};
    }
    // One new column per step: the archetype's column table outgrows its
    // capacity several times over.
    gain_columns!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17);
    world.insert(entities[3], Stunned(100)).unwrap();
    assert_eq!(sum(&mut world, &mut moving), base + 10 * 18 + 100);
    moving.for_each_chunk(&mut world, |(p, _, _)| p.iter_mut().for_each(|p| p.0 -= 18.0));
    moving.par_for_each(&mut world, |(p, h, _)| assert_eq!(p.0 as u32, h.0));
    let (p, h, s) = moving.get_mut(&mut world, entities[3]).unwrap();
    assert_eq!((p.0, h.0, s), (3.0, 3, Some(&Stunned(100))));
}

/// The entities of a chunk with their optional value, as `world.get` sees them.
fn expected_stunned(world: &World, entities: &[Entity]) -> Vec<(Entity, Option<u32>)> {
    let mut rows: Vec<_> = entities.iter().map(|&e| (e, world.get::<Stunned>(e).map(|s| s.0))).collect();
    rows.sort();
    rows
}

/// Three archetypes: one that never had a `Stunned` column, one where it comes and
/// goes row by row, one where every row has it.
fn mixed_stunned_world() -> (World, Vec<Entity>) {
    let mut world = World::new();
    let mut all: Vec<Entity> = (0..5).map(|i| world.spawn(Position(i as f32))).collect();
    for i in 0..9u32 {
        let e = world.spawn((Position(10.0 + i as f32), Health(i)));
        if i % 3 != 0 {
            world.insert(e, Stunned(i)).unwrap();
        }
        all.push(e);
    }
    all.extend((0..3u32).map(|i| world.spawn((Health(i), Stunned(100 + i)))));
    (world, all)
}

#[test]
fn chunks_of_an_optional_sparse_component_split_where_it_comes_and_goes() {
    let (mut world, all) = mixed_stunned_world();
    let mut seen = Vec::new();
    world.query_state::<(Entity, Option<&Stunned>)>().for_each_chunk(&mut world, |(entities, stunned)| match stunned {
        Some(stunned) => {
            assert_eq!(stunned.len(), entities.len(), "a `Some` slice covers the chunk");
            seen.extend(entities.iter().zip(stunned).map(|(&e, s)| (e, Some(s.0))));
        }
        None => seen.extend(entities.iter().map(|&e| (e, None))),
    });
    seen.sort();
    assert_eq!(seen, expected_stunned(&world, &all));
}

#[test]
fn chunks_of_an_optional_sparse_component_write_only_rows_that_have_it() {
    let (mut world, all) = mixed_stunned_world();
    let before = expected_stunned(&world, &all);
    let mut changed = world.query_state_filtered::<Entity, Changed<Stunned>>();
    changed.iter(&world).count();
    world.query_state::<(&Position, Option<&mut Stunned>)>().for_each_chunk(&mut world, |(positions, stunned)| {
        if let Some(stunned) = stunned {
            assert_eq!(stunned.len(), positions.len());
            stunned.iter_mut().for_each(|s| s.0 += 1000);
        }
    });
    let after = expected_stunned(&world, &all);
    for ((e, old), (_, new)) in before.iter().zip(&after) {
        let has_position = world.get::<Position>(*e).is_some();
        let want = old.map(|v| if has_position { v + 1000 } else { v });
        assert_eq!(*new, want, "entity {e:?}");
    }
    let stamped: Vec<Entity> = changed.iter(&world).collect();
    let written = before.iter().filter(|(e, old)| old.is_some() && world.get::<Position>(*e).is_some()).count();
    assert_eq!(stamped.len(), written, "exactly the rows handed out are stamped");
}

#[derive(QueryData)]
#[allow(dead_code, reason = "only its chunks, which are tuples, are read")]
struct MaybeStunned<'w> {
    entity: Entity,
    position: &'w Position,
    stunned: Option<&'w Stunned>,
    frozen: Option<&'w Frozen>,
}

#[test]
fn chunks_of_derived_queries_and_tags_agree_with_get() {
    let (mut world, all) = mixed_stunned_world();
    for &e in all.iter().step_by(2) {
        world.insert(e, Frozen).unwrap();
    }
    let mut seen = Vec::new();
    world.query_state::<MaybeStunned>().for_each_chunk(&mut world, |(entities, positions, stunned, frozen)| {
        assert_eq!(positions.len(), entities.len());
        assert!(stunned.is_none_or(|s| s.len() == entities.len()));
        assert!(frozen.is_none_or(|f| f.len() == entities.len()));
        for (i, &e) in entities.iter().enumerate() {
            seen.push((e, stunned.map(|s| s[i].0), frozen.is_some()));
        }
    });
    seen.sort();
    let mut expected: Vec<_> = all
        .iter()
        .filter(|&&e| world.get::<Position>(e).is_some())
        .map(|&e| (e, world.get::<Stunned>(e).map(|s| s.0), world.has::<Frozen>(e)))
        .collect();
    expected.sort();
    assert_eq!(seen, expected, "`Some` exactly for the rows that have the component or tag");
}
