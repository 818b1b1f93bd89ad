//! Column batches (hecs's `ColumnBatch`): filled a column at a time, spawned
//! together; hecs's own cases (a new archetype, an existing one, an empty
//! batch, a column left short) and what a panicking hook or a dropped batch
//! leaves: every value dropped exactly once, the world consistent.

use std::sync::atomic::{AtomicI64, Ordering};

use ecs_core::prelude::*;
use ecs_core::world::{BatchIncomplete, ColumnBatchType};

#[derive(Component, Debug, PartialEq)]
struct Num(i32);

#[derive(Component, Debug, PartialEq)]
struct Flag(bool);

#[derive(Component, Debug, PartialEq, Clone, Copy)]
#[component(storage = "sparse")]
struct Rare(u8);

/// Components that count themselves: made minus dropped, one counter per
/// type, so that tests running side by side do not share one.
macro_rules! counted {
    ($name:ident, $live:ident) => {
        static $live: AtomicI64 = AtomicI64::new(0);

        #[derive(Component, Debug)]
        struct $name(#[allow(dead_code)] u32);

        impl $name {
            fn new(n: u32) -> Self {
                $live.fetch_add(1, Ordering::SeqCst);
                $name(n)
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                $live.fetch_sub(1, Ordering::SeqCst);
            }
        }
    };
}

counted!(Counted, LIVE);
counted!(Counted2, LIVE2);

#[test]
fn batches_spawn_into_new_and_existing_archetypes() {
    let mut world = World::new();
    let ty = || ColumnBatchType::new().add::<Num>().add::<Flag>().add::<Num>();
    let mut batch = ty().into_batch(2);
    let mut flags = batch.writer::<Flag>().unwrap();
    flags.push(Flag(true)).unwrap();
    flags.push(Flag(false)).unwrap();
    assert_eq!(flags.push(Flag(true)), Err(Flag(true)), "the column is full");
    assert_eq!(flags.fill(), 2);
    let mut nums = batch.writer::<Num>().unwrap();
    nums.push(Num(42)).unwrap();
    nums.push(Num(43)).unwrap();
    assert!(batch.writer::<Rare>().is_none(), "not a component of the batch");
    let first: Vec<Entity> = world.spawn_column_batch(batch.build().unwrap()).unwrap().collect();
    assert_eq!(first.len(), 2);
    assert_eq!((world.get::<Num>(first[0]), world.get::<Flag>(first[0])), (Some(&Num(42)), Some(&Flag(true))));
    assert_eq!((world.get::<Num>(first[1]), world.get::<Flag>(first[1])), (Some(&Num(43)), Some(&Flag(false))));

    // The same archetype again: the first entities keep their values.
    let mut batch = ty().into_batch(3);
    let mut nums = batch.writer::<Num>().unwrap();
    for n in 0..3 {
        nums.push(Num(n)).unwrap();
    }
    let mut flags = batch.writer::<Flag>().unwrap();
    for _ in 0..3 {
        flags.push(Flag(true)).unwrap();
    }
    let second: Vec<Entity> = world.spawn_column_batch(batch.build().unwrap()).unwrap().collect();
    assert_eq!(second.len(), 3);
    assert_eq!(world.get::<Num>(first[1]), Some(&Num(43)));
    assert_eq!(world.get::<Num>(second[2]), Some(&Num(2)));
    assert_eq!(world.query::<(&Num, &Flag)>().iter().count(), 5);

    // An empty batch spawns nothing; a batch of no components spawns empty entities.
    let empty = ty().into_batch(0).build().unwrap();
    assert!(empty.is_empty());
    assert_eq!(world.spawn_column_batch(empty).unwrap().count(), 0);
    let bare: Vec<Entity> =
        world.spawn_column_batch(ColumnBatchType::new().into_batch(2).build().unwrap()).unwrap().collect();
    assert!(bare.iter().all(|&e| world.entity(e).is_some() && world.get::<Num>(e).is_none()));

    // A sparse component in a batch.
    let mut batch = ColumnBatchType::new().add::<Rare>().add::<Num>().into_batch(2);
    batch.writer::<Rare>().unwrap().push(Rare(7)).unwrap();
    batch.writer::<Rare>().unwrap().push(Rare(8)).unwrap();
    batch.writer::<Num>().unwrap().push(Num(-1)).unwrap();
    batch.writer::<Num>().unwrap().push(Num(-2)).unwrap();
    let rare: Vec<Entity> = world.spawn_column_batch(batch.build().unwrap()).unwrap().collect();
    assert_eq!(world.get::<Rare>(rare[1]), Some(&Rare(8)));
    assert_eq!(world.query_filtered::<&Num, With<Rare>>().iter().map(|n| n.0).sum::<i32>(), -3);
}

#[test]
fn a_short_column_is_an_error_naming_it_and_its_values_are_dropped() {
    let before = LIVE.load(Ordering::SeqCst);
    let mut batch = ColumnBatchType::new().add::<Counted>().add::<Num>().into_batch(3);
    batch.writer::<Num>().unwrap().push(Num(1)).unwrap();
    for n in 0..3 {
        batch.writer::<Counted>().unwrap().push(Counted::new(n)).unwrap();
    }
    let error = batch.build().err().expect("the Num column is short");
    assert_eq!(error, BatchIncomplete { component: error.component, filled: 1, size: 3 });
    assert!(error.component.contains("Num") && error.to_string().contains("1 of the batch's 3"), "{error}");
    assert_eq!(LIVE.load(Ordering::SeqCst), before, "the pushed values were dropped");
    // A built batch dropped unspawned drops its values too.
    let mut batch = ColumnBatchType::new().add::<Counted>().into_batch(2);
    batch.writer::<Counted>().unwrap().push(Counted::new(1)).unwrap();
    batch.writer::<Counted>().unwrap().push(Counted::new(2)).unwrap();
    drop(batch.build().unwrap());
    assert_eq!(LIVE.load(Ordering::SeqCst), before);
}

static SEEN: AtomicI64 = AtomicI64::new(0);

fn explode_on_third(_world: ecs_core::world::DeferredWorld, _ctx: ecs_core::component::HookContext) {
    if SEEN.fetch_add(1, Ordering::SeqCst) == 2 {
        panic!("third add");
    }
}

#[derive(Component)]
#[component(on_add = explode_on_third)]
struct Fragile;

#[test]
fn a_hook_panicking_mid_batch_leaves_every_value_owned_once() {
    let before = LIVE2.load(Ordering::SeqCst);
    let mut world = World::new();
    let mut batch = ColumnBatchType::new().add::<Counted2>().add::<Fragile>().into_batch(5);
    for n in 0..5 {
        batch.writer::<Counted2>().unwrap().push(Counted2::new(n)).unwrap();
        assert!(batch.writer::<Fragile>().unwrap().push(Fragile).is_ok());
    }
    let batch = batch.build().unwrap();
    let spawned =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.spawn_column_batch(batch).unwrap().count()));
    assert!(spawned.is_err());
    // Three entities were spawned (the third's hook panicked after it was in
    // the world); the other two values were dropped with the batch.
    assert_eq!(world.query::<&Counted2>().iter().count(), 3);
    assert_eq!(LIVE2.load(Ordering::SeqCst) - before, 3);
    drop(world);
    assert_eq!(LIVE2.load(Ordering::SeqCst), before);
}

#[test]
fn hooks_and_observers_see_batch_spawns_as_spawns() {
    #[derive(Default)]
    struct Added(Vec<i32>);
    let mut world = World::new();
    world.insert_resource(Added::default());
    world.add_observer(|trigger: On<Add, Num>, nums: Query<&Num>, mut added: ResMut<Added>| {
        added.0.push(nums.get(trigger.target()).unwrap().0);
    });
    let mut batch = ColumnBatchType::new().add::<Num>().into_batch(3);
    for n in [5, 6, 7] {
        batch.writer::<Num>().unwrap().push(Num(n)).unwrap();
    }
    world.spawn_column_batch(batch.build().unwrap()).unwrap().for_each(drop);
    assert_eq!(world.resource::<Added>().0, [5, 6, 7]);
}
