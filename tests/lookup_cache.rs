//! The world's lookup cache (column tables that `World::get`, `get_mut` and
//! `EntityRef::get` read from a fixed entry per type) must always agree with
//! the tables: through tables that grow and move, through types whose names
//! collide on one entry, and for generic types, which have no entry.

use ecs_core::prelude::*;

mod first {
    use ecs_core::prelude::*;
    #[derive(Component, Debug, PartialEq, Clone, Copy)]
    pub struct Shared(pub u32);
}

mod second {
    use ecs_core::prelude::*;
    // Same name as `first::Shared`: the same cache entry, so the second type
    // registered takes the registry's path.
    #[derive(Component, Debug, PartialEq, Clone, Copy)]
    pub struct Shared(pub u64);
}

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Generic<T: Copy + Send + Sync + 'static>(T);

#[derive(Component, Debug, PartialEq, Clone, Copy)]
#[component(storage = "sparse")]
struct Mark(i32);

#[derive(Component)]
struct Frag<const N: usize>(#[allow(dead_code)] u8);

/// Reads every entity's components through each lookup path and compares with
/// what was spawned.
fn check_all(world: &mut World, expected: &[(Entity, u32, u64, Option<i32>)]) {
    world.check_invariants().unwrap();
    for &(e, a, b, mark) in expected {
        assert_eq!(world.get::<first::Shared>(e), Some(&first::Shared(a)));
        assert_eq!(world.get::<second::Shared>(e), Some(&second::Shared(b)));
        assert_eq!(world.get::<Generic<u32>>(e), Some(&Generic(a)));
        assert_eq!(world.get::<Generic<u64>>(e), Some(&Generic(b)));
        assert_eq!(world.get::<Mark>(e).copied(), mark.map(Mark));
        let entity = world.entity(e).unwrap();
        assert_eq!(entity.get::<first::Shared>(), Some(&first::Shared(a)));
        assert_eq!(entity.get::<second::Shared>(), Some(&second::Shared(b)));
        assert_eq!(entity.get::<Generic<u64>>(), Some(&Generic(b)));
        assert_eq!(entity.get::<Mark>().copied(), mark.map(Mark));
        assert_eq!(world.get_mut::<first::Shared>(e).map(|s| s.0), Some(a));
        assert_eq!(world.get_mut::<second::Shared>(e).map(|s| s.0), Some(b));
    }
    // The loop shape the cache is for: one read of the table for many entities.
    let sum: u64 = expected.iter().map(|&(e, ..)| world.entity(e).unwrap().get::<second::Shared>().unwrap().0).sum();
    assert_eq!(sum, expected.iter().map(|&(_, _, b, _)| b).sum::<u64>());
}

#[test]
fn lookups_follow_tables_that_grow_move_and_collide() {
    let mut world = World::new();
    let mut expected = Vec::new();
    macro_rules! wave {
        ($($n:literal)*) => {$(
            for i in 0..5u32 {
                let a = $n * 100 + i;
                let e = world.spawn((
                    first::Shared(a),
                    second::Shared(u64::from(a) * 7),
                    Generic(a),
                    Generic(u64::from(a) * 7),
                    Frag::<$n>(0),
                ));
                expected.push((e, a, u64::from(a) * 7, None));
            }
            // Each new archetype lengthens every table above (and may move it);
            // the entities spawned before must still be found.
            check_all(&mut world, &expected);
        )*};
    }
    wave!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19);

    // A sparse component given to the newest archetype first, then to the
    // oldest: its table then starts at an earlier archetype (it moves), and
    // its cache entry must follow.
    let newest = expected.len() - 1;
    world.insert(expected[newest].0, Mark(-1)).unwrap();
    expected[newest].3 = Some(-1);
    check_all(&mut world, &expected);
    world.insert(expected[0].0, Mark(-2)).unwrap();
    expected[0].3 = Some(-2);
    check_all(&mut world, &expected);

    // Writes through `get_mut` land where `get` reads.
    for &(e, ..) in &expected {
        world.get_mut::<second::Shared>(e).unwrap().0 += 1;
    }
    for entry in &mut expected {
        entry.2 += 1;
        world.get_mut::<Generic<u64>>(entry.0).unwrap().0 += 1;
    }
    check_all(&mut world, &expected);
}

#[test]
fn a_type_this_world_never_stored_is_missing_even_if_another_world_cached_it() {
    let mut full = World::new();
    let e = full.spawn(first::Shared(1));
    assert_eq!(full.entity(e).unwrap().get::<first::Shared>(), Some(&first::Shared(1)));

    let mut other = World::new();
    let f = other.spawn(second::Shared(2));
    assert_eq!(other.get::<first::Shared>(f), None);
    assert_eq!(other.entity(f).unwrap().get::<first::Shared>(), None);
    assert_eq!(other.get_mut::<first::Shared>(f).map(|s| s.0), None);
    assert_eq!(other.entity(f).unwrap().get::<second::Shared>(), Some(&second::Shared(2)));
    other.check_invariants().unwrap();
}

#[test]
fn worlds_moved_between_threads_keep_their_cache() {
    let mut world = World::new();
    let entities: Vec<Entity> =
        (0..100u32).map(|i| world.spawn((first::Shared(i), second::Shared(u64::from(i))))).collect();
    let world = std::thread::spawn(move || {
        for (i, &e) in entities.iter().enumerate() {
            assert_eq!(world.entity(e).unwrap().get::<first::Shared>().unwrap().0, i as u32);
        }
        world
    })
    .join()
    .unwrap();
    world.check_invariants().unwrap();
}

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Lone(u32);

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Other(u32);

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Third(u32);

/// A component in exactly one archetype takes a shorter path (the cache keeps
/// that one column); it must miss for entities of other archetypes and stop
/// being used once a second archetype, before or after the first, has the
/// component.
#[test]
fn a_component_in_one_archetype_is_found_only_there_and_after_it_spreads() {
    let mut world = World::new();
    // Archetypes made before `Lone`'s first one: ids below its table's `first`.
    let before = world.spawn(Other(1));
    let lone = world.spawn(Lone(7));
    let lones: Vec<Entity> = (0..100).map(|i| world.spawn(Lone(i))).collect();
    world.check_invariants().unwrap();
    assert_eq!(world.get::<Lone>(lone), Some(&Lone(7)));
    assert_eq!(world.get::<Lone>(before), None, "an entity of an earlier archetype");
    assert_eq!(world.entity(before).unwrap().get::<Lone>(), None);
    assert!(world.get_mut::<Lone>(before).is_none());
    // An archetype made after: a later id.
    let after = world.spawn((Other(2), Third(0)));
    assert_eq!(world.get::<Lone>(after), None);
    for (i, &e) in lones.iter().enumerate() {
        assert_eq!(world.entity(e).unwrap().get::<Lone>(), Some(&Lone(i as u32)));
    }
    // A second archetype with `Lone`: both found, through the table.
    let both = world.spawn((Lone(8), Other(3)));
    world.check_invariants().unwrap();
    assert_eq!(world.get::<Lone>(both), Some(&Lone(8)));
    assert_eq!(world.get::<Lone>(lone), Some(&Lone(7)));
    assert_eq!(world.get::<Lone>(before), None);
    // Moving the only `Lone` entities out and back: values follow.
    world.insert(lone, Other(4)).unwrap();
    assert_eq!(world.get_mut::<Lone>(lone).map(|l| l.0), Some(7));
    world.remove::<Other>(lone).unwrap();
    assert_eq!(world.entity(lone).unwrap().get::<Lone>(), Some(&Lone(7)));
    // A dead entity misses.
    world.despawn(lone).unwrap();
    assert_eq!(world.get::<Lone>(lone), None);
    world.check_invariants().unwrap();
}

#[derive(Component)]
struct Hp(i32);

#[derive(Component)]
struct Elsewhere;

#[derive(Component, Clone, Copy)]
struct W1(i32);
#[derive(Component, Clone, Copy)]
struct W2(i32);
#[derive(Component, Clone, Copy)]
struct W3(i32);
#[derive(Component, Clone, Copy)]
struct W4(i32);

#[derive(Event)]
struct Hit(i32);

/// A system's query keeps its one archetype's columns at hand for `get`; they
/// must follow the archetype when its columns move (a sparse column added),
/// and give way when a second archetype matches. Observers, as the systems
/// that run most often with one `get` each; one query narrow, one wider than
/// the copy kept inline.
#[test]
fn a_systems_get_follows_its_archetypes_columns_as_they_move() {
    let mut world = World::new();
    let targets: Vec<Entity> = (0..3).map(|i| world.spawn((Hp(i), W1(0), W2(0), W3(0), W4(0)))).collect();
    for &target in &targets {
        world.entity_mut(target).unwrap().observe(|hit: On<Hit>, mut q: Query<&mut Hp>| {
            q.get_mut(hit.target()).unwrap().0 += hit.0;
        });
        world.entity_mut(target).unwrap().observe(|hit: On<Hit>, mut q: Query<(&mut W1, &W2, &W3, &W4, &Hp)>| {
            let (w1, w2, w3, w4, hp) = q.get_mut(hit.target()).unwrap();
            assert!(hp.0 >= 0, "read through the wide query");
            w1.0 += hit.0 + w2.0 + w3.0 + w4.0;
        });
    }
    let hp = |world: &World| targets.iter().map(|&e| world.get::<Hp>(e).unwrap().0).collect::<Vec<_>>();
    let w1 = |world: &World| targets.iter().map(|&e| world.get::<W1>(e).unwrap().0).collect::<Vec<_>>();
    // The first run of each finds the columns through the tables, the second
    // through the copy.
    world.trigger_targets(Hit(10), targets.clone());
    world.trigger_targets(Hit(10), targets.clone());
    assert_eq!(hp(&world), [20, 21, 22]);
    assert_eq!(w1(&world), [20, 20, 20]);
    // A sparse column joins the archetype: its columns move.
    world.insert(targets[1], Mark(1)).unwrap();
    for _ in 0..50 {
        world.spawn((Hp(0), W1(0), W2(0), W3(0), W4(0)));
    }
    world.trigger_targets(Hit(1), targets.clone());
    assert_eq!(hp(&world), [21, 22, 23]);
    assert_eq!(w1(&world), [21, 21, 21]);
    // A second archetype matches: the queries look the entity's archetype up.
    world.insert(targets[2], Elsewhere).unwrap();
    world.trigger_targets(Hit(1), targets.clone());
    assert_eq!(hp(&world), [22, 23, 24]);
    assert_eq!(w1(&world), [22, 22, 22]);
    world.check_invariants().unwrap();
}
