//! Working on one entity at a time: `spawn_empty` and `entity_mut` give an
//! `EntityWorldMut` for chained changes, `entity` a read-only view, `get_many_mut`
//! several entities' components at once, and stale handles an error, not a panic.
//!
//! Run with `cargo run --example entity_access`.

use ecs_core::prelude::*;

#[derive(Component, Debug, PartialEq)]
struct Fuel(u32);

#[derive(Component, Debug, PartialEq)]
struct Cargo(&'static str);

/// A tag: adding or removing it moves nothing.
#[derive(Component)]
struct Docked;

fn main() -> Result<(), EcsError> {
    let mut world = World::new();

    // Build an entity up step by step; `id()` keeps the handle for later.
    let tug = world.spawn_empty().insert((Fuel(10), Cargo("ore"))).insert(Docked).id();
    let barge = world.spawn(Fuel(0));

    // One handle, many changes: the world stays borrowed until `ship` is dropped.
    let mut ship = world.entity_mut(tug)?;
    ship.remove::<Docked>(); // `remove` drops the value and never fails...
    let cargo = ship.take::<Cargo>()?; // ...`take` hands it back, or says what is missing
    assert_eq!(cargo, Cargo("ore"));
    assert!(matches!(ship.take::<Cargo>(), Err(EcsError::MissingComponent { .. })));
    ship.get_mut::<Fuel>().expect("inserted above").0 -= 4;
    assert_eq!(ship.get::<Fuel>(), Some(&Fuel(6)));
    assert!(!ship.contains::<Docked>() && !ship.contains::<Cargo>());
    assert_eq!(ship.id(), tug);

    // Read-only view: no `&mut World` needed, so several can coexist.
    let view = world.entity(tug).expect("tug is alive");
    println!("tug: {view:?}");
    assert!(view.contains::<Fuel>() && !view.contains::<Cargo>());

    // Two entities' components at once, e.g. to transfer fuel.
    let [from, to] = world.get_many_mut::<Fuel, 2>([tug, barge])?;
    from.0 -= 3;
    to.0 += 3;
    assert_eq!((world.get::<Fuel>(tug), world.get::<Fuel>(barge)), (Some(&Fuel(3)), Some(&Fuel(3))));
    // Naming an entity twice would hand out two `&mut` to one value: refused.
    let aliased = world.get_many_mut::<Fuel, 2>([tug, tug]).unwrap_err();
    assert_eq!(aliased, EcsError::AliasedMutability(tug));
    println!("{aliased}");

    // Despawning consumes the handle; afterwards `tug` is stale everywhere.
    world.entity_mut(tug)?.despawn();
    let stale = world.entity_mut(tug).unwrap_err();
    assert_eq!(stale, EcsError::NoSuchEntity(tug));
    assert!(world.entity(tug).is_none());
    assert_eq!(world.get_many_mut::<Fuel, 2>([barge, tug]).err(), Some(EcsError::NoSuchEntity(tug)));
    println!("{stale}");

    assert_eq!(world.len(), 1);
    world.check_invariants().expect("the world is consistent");
    Ok(())
}
