//! World API behaviour: spawn, insert, remove, despawn, get, iteration, clear, and
//! what every call does with a stale or forged handle.

use ecs_core::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Position(f32, f32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Velocity(f32, f32);

#[derive(Component, Clone, Debug, PartialEq)]
struct Name(String);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Frozen;

#[derive(Component, Debug, PartialEq)]
struct Wrapper<T: Send + Sync + 'static>(T);

#[derive(Bundle, Debug, PartialEq)]
struct Body {
    pos: Position,
    vel: Velocity,
}

#[derive(Bundle)]
struct Ship {
    body: Body,
    name: Name,
}

fn ok(world: &World) {
    world.check_invariants().unwrap();
}

#[test]
fn spawned_components_are_readable() {
    let mut world = World::new();
    let e = world.spawn((Position(1.0, 2.0), Name("a".into())));
    assert!(world.contains(e));
    assert_eq!(world.get::<Position>(e), Some(&Position(1.0, 2.0)));
    assert_eq!(world.get::<Name>(e), Some(&Name("a".into())));
    assert_eq!(world.get::<Velocity>(e), None);
    assert!(world.has::<Position>(e) && !world.has::<Velocity>(e));
    assert_eq!(world.len(), 1);
    ok(&world);
}

#[test]
fn single_component_and_unit_are_bundles() {
    let mut world = World::new();
    let a = world.spawn(Position(0.0, 0.0));
    let b = world.spawn(());
    assert!(world.has::<Position>(a));
    assert!(world.contains(b));
    assert_eq!(world.entity(b).unwrap().components().count(), 0);
    ok(&world);
}

#[test]
fn derived_bundles_nest_and_round_trip() {
    let mut world = World::new();
    let e =
        world.spawn(Ship { body: Body { pos: Position(1.0, 1.0), vel: Velocity(2.0, 2.0) }, name: Name("s".into()) });
    assert_eq!(world.get::<Velocity>(e), Some(&Velocity(2.0, 2.0)));
    let body: Body = world.remove::<Body>(e).unwrap();
    assert_eq!(body, Body { pos: Position(1.0, 1.0), vel: Velocity(2.0, 2.0) });
    assert!(!world.has::<Position>(e));
    assert_eq!(world.get::<Name>(e), Some(&Name("s".into())));
    ok(&world);
}

#[test]
fn generic_components_are_distinct_per_instantiation() {
    let mut world = World::new();
    let e = world.spawn((Wrapper(1u32), Wrapper(2u64)));
    assert_eq!(world.get::<Wrapper<u32>>(e), Some(&Wrapper(1)));
    assert_eq!(world.get::<Wrapper<u64>>(e), Some(&Wrapper(2)));
    assert_eq!(world.get::<Wrapper<u8>>(e), None);
}

#[test]
fn get_mut_writes_through() {
    let mut world = World::new();
    let e = world.spawn(Position(1.0, 1.0));
    world.get_mut::<Position>(e).unwrap().0 = 5.0;
    assert_eq!(world.get::<Position>(e), Some(&Position(5.0, 1.0)));
    assert!(world.get_mut::<Velocity>(e).is_none());
}

#[test]
fn insert_moves_entity_and_keeps_other_entities_intact() {
    let mut world = World::new();
    let ids: Vec<_> = (0..10).map(|i| world.spawn(Position(i as f32, 0.0))).collect();
    world.insert(ids[3], Velocity(1.0, 1.0)).unwrap();
    world.insert(ids[0], (Velocity(2.0, 2.0), Frozen)).unwrap();
    for (i, &e) in ids.iter().enumerate() {
        assert_eq!(world.get::<Position>(e), Some(&Position(i as f32, 0.0)));
    }
    assert_eq!(world.get::<Velocity>(ids[3]), Some(&Velocity(1.0, 1.0)));
    assert!(world.has::<Frozen>(ids[0]) && !world.has::<Frozen>(ids[3]));
    ok(&world);
}

#[test]
fn insert_of_existing_component_replaces_in_place() {
    let mut world = World::new();
    let e = world.spawn((Position(1.0, 1.0), Name("old".into())));
    let archetypes = world.archetypes().len();
    let before = world.location(e).unwrap();
    world.insert(e, Name("new".into())).unwrap();
    assert_eq!(world.get::<Name>(e), Some(&Name("new".into())));
    assert_eq!(world.location(e), Some(before), "replacing must not move the entity");
    assert_eq!(world.archetypes().len(), archetypes);
    // A bundle that is part new, part existing replaces the existing part.
    world.insert(e, (Name("newer".into()), Velocity(3.0, 3.0))).unwrap();
    assert_eq!(world.get::<Name>(e), Some(&Name("newer".into())));
    assert_eq!(world.get::<Velocity>(e), Some(&Velocity(3.0, 3.0)));
    ok(&world);
}

#[test]
fn remove_returns_values_and_refuses_partial_bundles() {
    let mut world = World::new();
    let e = world.spawn((Position(1.0, 2.0), Velocity(3.0, 4.0)));
    let err = world.remove::<(Position, Name)>(e).unwrap_err();
    assert_eq!(err, EcsError::MissingComponent { entity: e, component: std::any::type_name::<Name>() });
    assert!(err.to_string().contains("Name"), "{err}");
    assert_eq!(world.get::<Position>(e), Some(&Position(1.0, 2.0)), "nothing removed on error");
    assert_eq!(world.remove::<Velocity>(e), Ok(Velocity(3.0, 4.0)));
    assert_eq!(
        world.remove::<Velocity>(e),
        Err(EcsError::MissingComponent { entity: e, component: std::any::type_name::<Velocity>() })
    );
    assert_eq!(world.remove::<Position>(e), Ok(Position(1.0, 2.0)));
    assert!(world.contains(e), "an entity with no components is still alive");
    assert_eq!(world.remove::<()>(e), Ok(()));
    ok(&world);
}

#[test]
fn despawn_fixes_the_swapped_entity() {
    let mut world = World::new();
    let ids: Vec<_> = (0..5).map(|i| world.spawn((Position(i as f32, 0.0), Name(i.to_string())))).collect();
    world.despawn(ids[1]).unwrap();
    for (i, &e) in ids.iter().enumerate().filter(|&(i, _)| i != 1) {
        assert_eq!(world.get::<Name>(e), Some(&Name(i.to_string())));
    }
    assert_eq!(world.len(), 4);
    ok(&world);
}

#[test]
fn despawned_entity_is_not_found_by_any_api() {
    let mut world = World::new();
    let e = world.spawn((Position(0.0, 0.0), Name("x".into())));
    world.despawn(e).unwrap();
    assert_stale(&mut world, e);
    // The slot is reused; the old handle still must not see the new entity.
    let reused = world.spawn((Position(9.0, 9.0), Name("y".into())));
    assert_eq!(reused.index(), e.index());
    assert_ne!(reused, e);
    assert_stale(&mut world, e);
    assert_eq!(world.get::<Name>(reused), Some(&Name("y".into())));
    ok(&world);
}

#[test]
fn forged_handles_are_not_found_by_any_api() {
    let mut world = World::new();
    let real = world.spawn(Position(1.0, 1.0));
    let forged = [
        Entity::from_bits(real.to_bits() + (1 << 32)).unwrap(), // right index, wrong generation
        Entity::from_bits((1 << 32) | 12345).unwrap(),          // index never issued
        Entity::from_bits(u64::MAX).unwrap(),                   // largest possible handle
    ];
    for e in forged {
        assert_stale(&mut world, e);
    }
    assert_eq!(world.get::<Position>(real), Some(&Position(1.0, 1.0)));
    ok(&world);
}

#[test]
fn handles_from_before_clear_are_stale() {
    let mut world = World::new();
    let ids: Vec<_> = world.spawn_batch((0..100).map(|i| (Position(i as f32, 0.0),))).collect();
    world.clear();
    assert!(world.is_empty());
    for &e in &ids {
        assert_stale(&mut world, e);
    }
    let again = world.spawn(Position(1.0, 1.0));
    assert_eq!(world.len(), 1);
    assert!(!ids.contains(&again));
    ok(&world);
}

fn assert_stale(world: &mut World, e: Entity) {
    assert!(!world.contains(e));
    assert!(world.location(e).is_none());
    assert!(world.entity(e).is_none());
    assert!(world.get::<Position>(e).is_none());
    assert!(world.get_mut::<Position>(e).is_none());
    assert!(!world.has::<Position>(e));
    assert_eq!(world.insert(e, Velocity(0.0, 0.0)), Err(EcsError::NoSuchEntity(e)));
    assert_eq!(world.remove::<Position>(e), Err(EcsError::NoSuchEntity(e)));
    assert_eq!(world.despawn(e), Err(EcsError::NoSuchEntity(e)));
    assert!(world.iter().all(|r| r.id() != e));
    let message = EcsError::NoSuchEntity(e).to_string();
    assert!(message.contains(&format!("{e}")) && message.contains("does not exist"), "{message}");
}

#[test]
fn spawn_batch_spawns_lazily_and_on_drop() {
    let mut world = World::new();
    let first: Vec<_> = world.spawn_batch((0..3).map(|i| (Position(i as f32, 0.0), Frozen))).take(2).collect();
    assert_eq!(first.len(), 2);
    assert_eq!(world.len(), 3, "dropping the batch spawns the rest");
    world.spawn_batch(std::iter::repeat_n(Velocity(1.0, 1.0), 1000));
    assert_eq!(world.len(), 1003);
    assert!(world.iter().filter(|e| e.contains::<Velocity>()).count() == 1000);
    ok(&world);
}

#[test]
fn spawn_batch_with_lying_size_hint_still_works() {
    struct Liar(u32);
    impl Iterator for Liar {
        type Item = Position;
        fn next(&mut self) -> Option<Position> {
            self.0 = self.0.checked_sub(1)?;
            Some(Position(self.0 as f32, 0.0))
        }
        fn size_hint(&self) -> (usize, Option<usize>) {
            (1, Some(1))
        }
    }
    let mut world = World::new();
    world.spawn_batch(Liar(500));
    assert_eq!(world.len(), 500);
    ok(&world);
}

#[test]
fn iteration_visits_every_live_entity_once() {
    let mut world = World::new();
    let mut ids: Vec<_> = (0..50)
        .map(|i| match i % 3 {
            0 => world.spawn(Position(i as f32, 0.0)),
            1 => world.spawn((Position(i as f32, 0.0), Velocity(0.0, 0.0))),
            _ => world.spawn(Name(i.to_string())),
        })
        .collect();
    for e in ids.drain(..10) {
        world.despawn(e).unwrap();
    }
    let mut seen: Vec<_> = world.iter().map(|e| e.id()).collect();
    seen.sort();
    ids.sort();
    assert_eq!(seen, ids);
    let names: Vec<_> = world.iter().filter_map(|e| e.get::<Name>().map(|n| n.0.clone())).collect();
    assert_eq!(names.len(), world.iter().filter(|e| e.contains::<Name>()).count());
}

#[test]
fn archetype_edges_are_reused() {
    let mut world = World::new();
    let ids: Vec<_> = (0..100).map(|_| world.spawn(Position(0.0, 0.0))).collect();
    world.insert(ids[0], Velocity(0.0, 0.0)).unwrap();
    world.remove::<Velocity>(ids[0]).unwrap();
    let archetypes = world.archetypes().len();
    for &e in &ids {
        world.insert(e, Velocity(1.0, 1.0)).unwrap();
    }
    for &e in &ids {
        world.remove::<Velocity>(e).unwrap();
    }
    assert_eq!(world.archetypes().len(), archetypes);
    ok(&world);
}

#[test]
fn component_index_lists_archetypes_with_columns() {
    let mut world = World::new();
    world.spawn((Position(0.0, 0.0), Velocity(0.0, 0.0)));
    world.spawn(Position(0.0, 0.0));
    world.spawn(Velocity(0.0, 0.0));
    let position = world.components().iter().find(|c| c.name().ends_with("Position")).unwrap().id();
    let holding = world.archetypes().containing(position);
    assert_eq!(holding.len(), 2);
    for entry in holding {
        let archetype = world.archetypes().get(entry.archetype).unwrap();
        assert_eq!(archetype.components()[entry.column], position);
    }
}

#[test]
#[should_panic(expected = "more than once")]
fn tuple_with_a_repeated_component_panics_before_writing() {
    let mut world = World::new();
    world.spawn((Position(0.0, 0.0), Position(1.0, 1.0)));
}

type Alias = Position;

#[derive(Bundle)]
struct AliasedTwice {
    a: Position,
    b: Alias,
}

#[test]
fn bundle_with_a_component_twice_through_an_alias_panics_naming_it() {
    let mut world = World::new();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.spawn(AliasedTwice { a: Position(0.0, 0.0), b: Position(1.0, 1.0) })
    }));
    let message = *result.unwrap_err().downcast::<String>().unwrap();
    assert!(message.contains("Position") && message.contains("more than once"), "{message}");
    assert!(world.is_empty(), "nothing was written");
    ok(&world);
}

#[test]
fn entity_debug_is_readable() {
    let mut world = World::new();
    let e = world.spawn(Position(0.0, 0.0));
    assert_eq!(format!("{e:?}"), "0v1");
    let text = format!("{:?}", world.entity(e).unwrap());
    assert!(text.contains("Position"), "{text}");
}

#[test]
fn world_and_entities_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<World>();
    check::<Entity>();
}

#[test]
fn many_component_types_and_wide_tuples() {
    macro_rules! tags { ($($t:ident),*) => { $(#[derive(Component, Clone, Copy)] struct $t(#[allow(dead_code)] u8);)* } }
    tags!(T0, T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15);
    let mut world = World::new();
    let e = world.spawn((
        T0(0),
        T1(1),
        T2(2),
        T3(3),
        T4(4),
        T5(5),
        T6(6),
        T7(7),
        T8(8),
        T9(9),
        T10(10),
        T11(11),
        T12(12),
        T13(13),
        T14(14),
        T15(15),
    ));
    assert_eq!(world.entity(e).unwrap().components().count(), 16);
    assert!(world.has::<T15>(e));
    world.remove::<(T3, T7)>(e).unwrap();
    assert_eq!(world.entity(e).unwrap().components().count(), 14);
    ok(&world);
}

/// An iterator whose size hint claims far more items than it yields.
struct Boastful(u32);

impl Iterator for Boastful {
    type Item = (Position,);
    fn next(&mut self) -> Option<(Position,)> {
        self.0 = self.0.checked_sub(1)?;
        Some((Position(self.0 as f32, 0.0),))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

#[test]
fn spawn_batch_does_not_trust_a_huge_size_hint() {
    let mut world = World::new();
    // `collect` reserves from the batch's own hint, which caps the boast as well.
    let spawned: Vec<Entity> = world.spawn_batch(Boastful(3)).collect();
    assert_eq!(spawned.len(), 3);
    assert!(spawned.iter().all(|&e| world.get::<Position>(e).is_some()));
    world.spawn_batch(Boastful(2));
    assert_eq!(world.len(), 5);
    world.check_invariants().unwrap();
}

/// A new world allocates nothing, not even its empty archetype: everything a
/// world can do must still work from that state, whichever comes first.
#[test]
fn a_new_world_works_whichever_operation_comes_first() {
    // An entity without components first: the empty archetype is made for it.
    let mut world = World::new();
    assert_eq!(world.query::<Entity>().count(), 0);
    let bare = world.spawn_empty().id();
    assert_eq!(world.query::<Entity>().collect::<Vec<_>>(), [bare]);
    let e = world.spawn(Position(1.0, 0.0));
    world.remove::<Position>(e).unwrap();
    assert_eq!(world.query::<Entity>().count(), 2);
    world.check_invariants().unwrap();

    // A component first: the empty archetype is made before it, with id 0.
    let mut world = World::new();
    let e = world.spawn(Position(1.0, 0.0));
    world.remove::<Position>(e).unwrap();
    assert!(world.entity(e).unwrap().archetype().components().is_empty());
    assert_eq!(world.entity(e).unwrap().archetype().id(), world.archetypes().iter().next().unwrap().id());
    world.check_invariants().unwrap();

    // A snapshot of a new world restores over a busy one.
    let mut world = World::new();
    let empty = world.snapshot().unwrap();
    world.spawn((Position(1.0, 0.0), Velocity(2.0, 0.0)));
    world.spawn_empty();
    world.restore(&empty).unwrap();
    assert_eq!(world.len(), 0);
    assert_eq!(world.query::<Entity>().count(), 0);
    world.check_invariants().unwrap();

    // Commands on a new world.
    let mut world = World::new();
    let mut queue = ecs_core::command::CommandQueue::default();
    let reserved = ecs_core::command::Commands::new(&mut queue, &world).spawn(Frozen).id();
    queue.apply(&mut world);
    assert!(world.has::<Frozen>(reserved));
    world.check_invariants().unwrap();
}

/// `get` reads a component type's id with a load the optimizer may hoist out of
/// a loop: a loop whose body first stores the type must still find it on later
/// rounds (the id is unknown, 0, on the first).
#[test]
fn a_loop_of_gets_finds_a_component_type_first_stored_inside_it() {
    #[derive(Component, Clone, Copy, Debug, PartialEq)]
    struct FirstStoredInLoop(u32);
    let mut world = World::new();
    let mut found = Vec::new();
    let mut previous: Option<Entity> = None;
    for round in 0..4 {
        if let Some(e) = previous {
            found.push(world.get::<FirstStoredInLoop>(e).copied());
            found.push(world.get_mut::<FirstStoredInLoop>(e).map(|v| *v));
            found.push(world.entity(e).unwrap().get::<FirstStoredInLoop>().copied());
        } else {
            let empty = world.spawn(());
            found.push(world.get::<FirstStoredInLoop>(empty).copied());
        }
        previous = Some(world.spawn(FirstStoredInLoop(round)));
    }
    let expected = [None].into_iter().chain((0..3).flat_map(|r| [Some(FirstStoredInLoop(r)); 3])).collect::<Vec<_>>();
    assert_eq!(found, expected);
}

/// An iterator of `n` items claiming `lower` as its lower bound (more or fewer
/// than it yields).
struct Claims<I> {
    items: I,
    lower: usize,
}

impl<I: Iterator> Iterator for Claims<I> {
    type Item = I::Item;
    fn next(&mut self) -> Option<I::Item> {
        self.lower = self.lower.saturating_sub(1);
        self.items.next()
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.lower, None)
    }
}

/// A batch spawned into an archetype that already has rows gives the same world
/// as spawning each item by itself, whatever its size hint claims: its rows fill
/// the room reserved, grow past it, and stop short of it alike, with every value,
/// entity and `Added` tick where a spawn puts them.
#[test]
fn spawn_batch_gives_what_one_spawn_at_a_time_gives_for_any_hint() {
    let name = |i: usize| Name(format!("n{i}"));
    let item = |i: usize| (Position(i as f32, 0.0), Velocity(0.0, i as f32), name(i));
    for before in [0, 3, 8] {
        for n in [0, 1, 7, 8, 9, 100, 1000] {
            for lower in [0, n / 2, n, n + 5, 4 * n + 1] {
                let mut batched = World::new();
                let mut single = World::new();
                for world in [&mut batched, &mut single] {
                    for i in 0..before {
                        world.spawn(item(1_000_000 + i));
                    }
                }
                let mut added = batched.query_state_filtered::<&Position, Added<Position>>();
                added.iter(&batched).count();
                batched.spawn_batch(Claims { items: (0..n).map(item), lower });
                for i in 0..n {
                    single.spawn(item(i));
                }
                batched.check_invariants().unwrap();
                let rows = |world: &mut World| {
                    let mut rows: Vec<(Entity, Position, Velocity, Name)> = world
                        .query::<(Entity, &Position, &Velocity, &Name)>()
                        .iter()
                        .map(|(e, p, v, n)| (e, *p, *v, n.clone()))
                        .collect();
                    rows.sort_by_key(|row| row.0.to_bits());
                    rows
                };
                assert_eq!(rows(&mut batched), rows(&mut single), "before {before}, n {n}, lower {lower}");
                let mut new: Vec<f32> = added.iter(&batched).map(|p| p.0).collect();
                new.sort_by(f32::total_cmp);
                assert_eq!(new, (0..n).map(|i| i as f32).collect::<Vec<_>>(), "each new row added once");
            }
        }
    }
}
