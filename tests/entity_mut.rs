//! Entity-scoped access: `World::entity_mut` and `spawn_empty` chains that follow
//! the entity across its own archetype moves, their error paths, and
//! `World::get_many_mut`, which refuses an entity named twice and hands out nothing
//! when any entity is refused.

use ecs_core::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Position(f32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Velocity(f32);

#[derive(Component, Clone, Debug, PartialEq)]
struct Name(String);

#[derive(Component, Clone, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Stunned(u32);

#[derive(Component, Debug, PartialEq)]
struct Frozen;

#[test]
fn a_chain_of_changes_follows_the_entity_across_archetypes() {
    let mut world = World::new();
    let neighbour = world.spawn((Position(-1.0), Velocity(-1.0)));
    let mut e = world.spawn_empty();
    let id = e.id();
    let empty = e.location().archetype;
    e.insert(Position(1.0)).insert((Velocity(2.0), Name("ship".into()))).insert(Stunned(3)).insert(Frozen);
    assert_ne!(e.location().archetype, empty, "the entity moved");
    e.get_mut::<Position>().unwrap().0 += 10.0;
    assert_eq!(e.get::<Position>(), Some(&Position(11.0)));
    assert_eq!(e.get::<Name>().map(|n| n.0.as_str()), Some("ship"));
    assert!(e.contains::<Stunned>() && e.contains::<Frozen>());
    e.remove::<Frozen>().remove::<Stunned>();
    assert!(!e.contains::<Frozen>() && !e.contains::<Stunned>());
    assert_eq!(e.take::<(Velocity, Name)>(), Ok((Velocity(2.0), Name("ship".into()))));
    assert_eq!(e.as_ref().components().count(), 1);
    assert_eq!(e.world().len(), 2);
    world.check_invariants().unwrap();
    assert_eq!(world.get::<Position>(id), Some(&Position(11.0)));
    assert_eq!(world.get::<Position>(neighbour), Some(&Position(-1.0)), "the neighbour is untouched");
    world.entity_mut(id).unwrap().despawn();
    assert!(!world.contains(id));
    world.check_invariants().unwrap();
}

#[test]
fn entity_mut_of_a_dead_or_stale_entity_is_an_error() {
    let mut world = World::new();
    let e = world.spawn(Position(0.0));
    world.despawn(e).unwrap();
    assert_eq!(world.entity_mut(e).err(), Some(EcsError::NoSuchEntity(e)));
    let reused = world.spawn(Position(1.0));
    assert_eq!(reused.index(), e.index(), "the index is reused");
    assert_eq!(world.entity_mut(e).err(), Some(EcsError::NoSuchEntity(e)), "the old handle stays stale");
    assert!(world.entity_mut(reused).is_ok());
}

#[test]
fn taking_a_bundle_the_entity_only_partly_has_takes_nothing_and_says_why() {
    let mut world = World::new();
    let id = world.spawn((Position(0.0), Name("a".into())));
    let mut e = world.entity_mut(id).unwrap();
    assert!(matches!(
        e.take::<(Position, Velocity)>(),
        Err(EcsError::MissingComponent { entity, component }) if entity == id && component.ends_with("Velocity")
    ));
    assert!(e.contains::<Position>(), "a failed take removes nothing");
    assert_eq!(e.take::<Name>(), Ok(Name("a".into())));
    e.remove::<(Position, Velocity)>();
    assert!(!e.contains::<Position>(), "remove takes the part that is there");
}

#[test]
fn get_many_mut_gives_distinct_references_and_refuses_duplicates() {
    let mut world = World::new();
    let a = world.spawn(Position(1.0));
    let b = world.spawn((Position(2.0), Velocity(0.0)));
    let c = world.spawn(Velocity(0.0));
    let mut changed = world.query_state_filtered::<Entity, Changed<Position>>();
    changed.iter(&world).count();
    {
        let [pa, pb] = world.get_many_mut::<Position, 2>([a, b]).unwrap();
        std::mem::swap(pa, pb);
    }
    assert_eq!((world.get::<Position>(a), world.get::<Position>(b)), (Some(&Position(2.0)), Some(&Position(1.0))));
    assert_eq!(changed.iter(&world).count(), 2);
    assert_eq!(world.get_many_mut::<Position, 3>([a, b, a]).err(), Some(EcsError::AliasedMutability(a)));
    assert!(matches!(
        world.get_many_mut::<Position, 2>([a, c]),
        Err(EcsError::MissingComponent { entity, .. }) if entity == c
    ));
    world.despawn(b).unwrap();
    assert_eq!(world.get_many_mut::<Position, 2>([a, b]).err(), Some(EcsError::NoSuchEntity(b)));
    assert_eq!(changed.iter(&world).count(), 0, "a refused call marks nothing changed");
    let [only] = world.get_many_mut::<Position, 1>([a]).unwrap();
    only.0 = 7.0;
    assert_eq!(world.get::<Position>(a), Some(&Position(7.0)));
}

#[test]
fn sparse_components_through_get_many_mut() {
    let mut world = World::new();
    let a = world.spawn((Position(0.0), Stunned(1)));
    let b = world.spawn(Stunned(2));
    let plain = world.spawn(Position(0.0));
    let [sa, sb] = world.get_many_mut::<Stunned, 2>([a, b]).unwrap();
    sa.0 += sb.0;
    assert_eq!(world.get::<Stunned>(a), Some(&Stunned(3)));
    assert!(matches!(world.get_many_mut::<Stunned, 2>([a, plain]), Err(EcsError::MissingComponent { .. })));
}

#[test]
fn remove_takes_away_the_part_of_a_bundle_the_entity_has() {
    #[derive(Component, Debug, PartialEq)]
    struct Burning(u8);
    #[derive(Component, Debug, PartialEq)]
    #[component(storage = "sparse")]
    struct Wet;
    #[derive(Component, Debug, PartialEq)]
    struct Hp(u32);
    #[derive(Bundle)]
    struct Status {
        burning: Burning,
        wet: Wet,
    }
    let mut world = World::new();
    let e = world.spawn((Hp(3), Burning(1)));
    world.entity_mut(e).unwrap().remove::<(Burning, Wet)>();
    assert!(!world.has::<Burning>(e) && world.has::<Hp>(e));
    world.insert(e, Wet).unwrap();
    world.entity_mut(e).unwrap().remove::<Status>();
    assert!(!world.has::<Wet>(e));
    // Nothing of the bundle: nothing happens.
    world.entity_mut(e).unwrap().remove::<Status>();
    assert_eq!(world.get::<Hp>(e), Some(&Hp(3)));
    // `take` still needs every component.
    assert!(matches!(world.entity_mut(e).unwrap().take::<(Hp, Wet)>(), Err(EcsError::MissingComponent { .. })));
    assert!(world.has::<Hp>(e));
}
