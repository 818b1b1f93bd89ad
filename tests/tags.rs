//! Tags: zero-sized components without drop glue. They do not split archetypes;
//! each row records which tags it has, so adding or removing one moves nothing.

use ecs_core::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Position(f32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Health(u32);

#[derive(Component, Debug, PartialEq)]
struct Frozen;

#[derive(Component, Debug, PartialEq)]
struct Selected;

/// Zero-sized but with drop glue: a regular component, not a tag.
#[derive(Component)]
struct Noisy;

impl Drop for Noisy {
    fn drop(&mut self) {}
}

#[test]
fn tags_do_not_move_entities_or_create_archetypes() {
    let mut world = World::new();
    let a = world.spawn(Position(1.0));
    let b = world.spawn((Position(2.0), Frozen));
    assert_eq!(world.location(a).unwrap().archetype, world.location(b).unwrap().archetype);
    let before = world.location(a);
    world.insert(a, Selected).unwrap();
    assert_eq!(world.location(a), before, "adding a tag moves nothing");
    assert!(world.has::<Selected>(a) && !world.has::<Selected>(b));
    assert!(world.has::<Frozen>(b) && !world.has::<Frozen>(a));
    assert_eq!(world.get::<Frozen>(b), Some(&Frozen));
    assert_eq!(world.get::<Frozen>(a), None);
    assert_eq!(world.remove::<Selected>(a), Ok(Selected));
    assert!(!world.has::<Selected>(a));
    assert!(matches!(world.remove::<Selected>(a), Err(EcsError::MissingComponent { .. })));
    assert!(matches!(world.remove::<(Position, Frozen)>(a), Err(EcsError::MissingComponent { .. })));
    assert_eq!(world.get::<Position>(a), Some(&Position(1.0)), "a failed remove removes nothing");
    world.check_invariants().unwrap();
}

#[test]
fn a_zero_sized_component_with_drop_is_not_a_tag() {
    let mut world = World::new();
    let a = world.spawn(Position(1.0));
    let b = world.spawn((Position(2.0), Noisy));
    assert_ne!(world.location(a).unwrap().archetype, world.location(b).unwrap().archetype);
}

#[test]
fn tags_travel_with_entities_between_archetypes() {
    let mut world = World::new();
    let e = world.spawn((Position(1.0), Frozen));
    world.insert(e, Health(3)).unwrap();
    assert!(world.has::<Frozen>(e));
    let other = world.spawn((Position(0.0), Health(1)));
    assert!(!world.has::<Frozen>(other), "rows that never had the tag lack it");
    world.insert(e, Selected).unwrap();
    world.remove::<Health>(e).unwrap();
    assert!(world.has::<Frozen>(e) && world.has::<Selected>(e));
    let names: Vec<_> = world.entity(e).unwrap().components().map(|c| c.name().rsplit("::").next().unwrap()).collect();
    assert_eq!(names.len(), 3, "{names:?}");
    world.check_invariants().unwrap();
}

#[test]
fn queries_filter_tags_per_row() {
    let mut world = World::new();
    let plain = world.spawn(Position(0.0));
    let frozen = world.spawn((Position(1.0), Frozen));
    let both = world.spawn((Position(2.0), Frozen, Selected));
    let ids = |world: &mut World, f: fn(&mut World) -> Vec<Entity>| {
        let mut v = f(world);
        v.sort();
        v
    };
    assert_eq!(ids(&mut world, |w| w.query_mut_filtered::<Entity, With<Frozen>>().collect()), vec![frozen, both]);
    assert_eq!(ids(&mut world, |w| w.query_mut_filtered::<Entity, Without<Frozen>>().collect()), vec![plain]);
    assert_eq!(
        ids(&mut world, |w| w.query_mut_filtered::<Entity, (With<Frozen>, Without<Selected>)>().collect()),
        vec![frozen]
    );
    assert_eq!(
        ids(&mut world, |w| w.query_mut_filtered::<Entity, Or<(With<Selected>, Without<Frozen>)>>().collect()),
        vec![plain, both]
    );
    assert_eq!(ids(&mut world, |w| w.query_mut::<(Entity, &Frozen)>().map(|(e, _)| e).collect()), vec![frozen, both]);
    let optional: Vec<_> = world.query::<(Entity, Option<&Selected>)>().iter().map(|(e, s)| (e, s.is_some())).collect();
    assert!(optional.contains(&(both, true)) && optional.contains(&(plain, false)));
    let mut q = world.query_state::<&Frozen>();
    assert_eq!(q.get(&world, frozen), Ok(&Frozen));
    assert!(matches!(q.get(&world, plain), Err(EcsError::QueryMismatch { .. })));
}

#[test]
fn a_query_sees_tags_added_after_it_matched() {
    let mut world = World::new();
    let e = world.spawn(Position(0.0));
    let mut selected = world.query_state_filtered::<Entity, With<Selected>>();
    assert_eq!(selected.iter(&world).count(), 0);
    world.insert(e, Selected).unwrap();
    assert_eq!(selected.iter(&world).collect::<Vec<_>>(), vec![e]);
    world.remove::<Selected>(e).unwrap();
    assert_eq!(selected.iter(&world).count(), 0);
}

#[test]
fn tags_have_added_and_changed_ticks() {
    let mut world = World::new();
    let a = world.spawn(Position(0.0));
    let b = world.spawn(Position(1.0));
    let mut added = world.query_state_filtered::<Entity, Added<Frozen>>();
    let mut changed = world.query_state_filtered::<Entity, Changed<Frozen>>();
    assert_eq!(added.iter(&world).count(), 0);
    world.insert(a, Frozen).unwrap();
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), vec![a]);
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![a]);
    world.insert(a, Frozen).unwrap();
    assert_eq!(added.iter(&world).count(), 0, "inserting a tag it has is a change, not an add");
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![a]);
    world.remove::<Frozen>(a).unwrap();
    world.insert(b, Frozen).unwrap();
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), vec![b]);
}

#[test]
fn chunk_iteration_with_a_tag_filter_yields_runs_of_matching_rows() {
    let mut world = World::new();
    for i in 0..6 {
        let e = world.spawn(Position(i as f32));
        if [0, 1, 3, 5].contains(&i) {
            world.insert(e, Frozen).unwrap();
        }
    }
    let mut q = world.query_state::<(&mut Position, &Frozen)>();
    let mut runs = Vec::new();
    q.for_each_chunk(&mut world, |(p, tags): (&mut [Position], &[Frozen])| {
        assert_eq!(p.len(), tags.len());
        runs.push(p.iter().map(|p| p.0 as u32).collect::<Vec<_>>());
        p.iter_mut().for_each(|p| p.0 = -1.0);
    });
    assert_eq!(runs, vec![vec![0, 1], vec![3], vec![5]]);
    let mut thawed = world.query_state_filtered::<&Position, Without<Frozen>>();
    let mut rows = 0;
    thawed.for_each_chunk(&mut world, |p: &[Position]| {
        assert!(p.iter().all(|p| p.0 >= 0.0));
        rows += p.len();
    });
    assert_eq!(rows, 2);
}

#[test]
fn parallel_iteration_with_tag_filters_visits_matching_rows_once() {
    let mut world = World::new();
    for i in 0..10_000u32 {
        let e = world.spawn(Health(0));
        if i % 3 == 0 {
            world.insert(e, Frozen).unwrap();
        }
    }
    let mut q = world.query_state_filtered::<&mut Health, Without<Frozen>>();
    q.par_for_each(&mut world, |h| h.0 += 1);
    let thawed = world.query::<&Health>().iter().filter(|h| h.0 == 1).count();
    assert_eq!(thawed, 10_000 - 3334);
    assert_eq!(world.archetypes().iter().filter(|a| !a.is_empty()).count(), 1);
}
