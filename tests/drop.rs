//! Drop accounting: every component value is dropped exactly once, whatever path it
//! leaves the world by, and a panicking `Drop` leaves the world consistent.
//!
//! Documented behaviour when a component's `Drop` panics:
//! - `despawn`: the entity is already gone; all its other components are dropped;
//!   the panic is re-raised after that.
//! - `insert` replacing a value: the new value is in place; the panic is re-raised.
//! - `clear` and dropping the world: every other component is dropped; the first
//!   panic is re-raised once the world is empty.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex};

use ecs_core::prelude::*;

/// Records its id in a shared log when dropped.
#[derive(Component)]
struct Tracked {
    id: u32,
    log: Arc<Mutex<Vec<u32>>>,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.log.lock().unwrap().push(self.id);
    }
}

/// Same, as a second, over-aligned component type.
#[derive(Component)]
#[repr(align(128))]
struct TrackedAligned(Tracked);

/// Panics when dropped while armed.
#[derive(Component)]
struct Bomb(bool);

impl Drop for Bomb {
    fn drop(&mut self) {
        if self.0 && !std::thread::panicking() {
            panic!("bomb went off");
        }
    }
}

#[derive(Component)]
struct Marker;

#[derive(Default, Clone)]
struct Log(Arc<Mutex<Vec<u32>>>);

impl Log {
    fn tracked(&self, id: u32) -> Tracked {
        Tracked { id, log: self.0.clone() }
    }

    fn dropped(&self) -> Vec<u32> {
        let mut ids = self.0.lock().unwrap().clone();
        ids.sort();
        ids
    }

    fn assert_dropped_once(&self, expected: impl IntoIterator<Item = u32>) {
        let mut expected: Vec<_> = expected.into_iter().collect();
        expected.sort();
        assert_eq!(self.dropped(), expected);
    }
}

fn panic_message(result: std::thread::Result<impl Sized>) -> String {
    match result {
        Ok(_) => panic!("expected a panic"),
        Err(payload) => payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default(),
    }
}

#[test]
fn despawn_drops_each_component_once() {
    let log = Log::default();
    let mut world = World::new();
    let ids: Vec<_> = (0..10).map(|i| world.spawn((log.tracked(i), TrackedAligned(log.tracked(100 + i))))).collect();
    for &e in &ids[..5] {
        world.despawn(e).unwrap();
    }
    log.assert_dropped_once((0..5).chain(100..105));
    let aligned = world.get::<TrackedAligned>(ids[9]).unwrap();
    assert_eq!(aligned.0.id, 109);
    assert_eq!(std::ptr::from_ref(aligned) as usize % 128, 0);
    drop(world);
    log.assert_dropped_once((0..10).chain(100..110));
}

#[test]
fn remove_hands_values_back_without_dropping() {
    let log = Log::default();
    let mut world = World::new();
    let e = world.spawn((log.tracked(1), Marker));
    let value = world.remove::<Tracked>(e).unwrap();
    assert!(log.dropped().is_empty());
    assert_eq!(value.id, 1);
    drop(value);
    log.assert_dropped_once([1]);
    drop(world);
    log.assert_dropped_once([1]);
}

#[test]
fn moves_between_archetypes_never_drop() {
    let log = Log::default();
    let mut world = World::new();
    let ids: Vec<_> = (0..50).map(|i| world.spawn(log.tracked(i))).collect();
    for _ in 0..3 {
        for &e in &ids {
            world.insert(e, Marker).unwrap();
        }
        for &e in &ids {
            world.remove::<Marker>(e).unwrap();
        }
    }
    assert!(log.dropped().is_empty());
    world.check_invariants().unwrap();
    drop(world);
    log.assert_dropped_once(0..50);
}

#[test]
fn replace_on_insert_drops_the_old_value_once() {
    let log = Log::default();
    let mut world = World::new();
    let e = world.spawn(log.tracked(1));
    world.insert(e, log.tracked(2)).unwrap();
    log.assert_dropped_once([1]);
    // Replace while also moving to a new archetype.
    world.insert(e, (log.tracked(3), Marker)).unwrap();
    log.assert_dropped_once([1, 2]);
    assert_eq!(world.get::<Tracked>(e).unwrap().id, 3);
    drop(world);
    log.assert_dropped_once([1, 2, 3]);
}

#[test]
fn insert_on_a_dead_entity_drops_the_bundle() {
    let log = Log::default();
    let mut world = World::new();
    let e = world.spawn(Marker);
    world.despawn(e).unwrap();
    assert!(world.insert(e, log.tracked(7)).is_err());
    log.assert_dropped_once([7]);
}

#[test]
fn clear_and_world_drop_drop_everything_once() {
    let log = Log::default();
    let mut world = World::new();
    world.spawn_batch((0..1000).map(|i| log.tracked(i)));
    world.spawn_batch((1000..1010).map(|i| (log.tracked(i), Marker)));
    world.clear();
    log.assert_dropped_once(0..1010);
    world.spawn(log.tracked(5000));
    drop(world);
    log.assert_dropped_once((0..1010).chain([5000]));
}

#[test]
fn panicking_drop_in_despawn_drops_the_rest_and_leaves_the_world_consistent() {
    let log = Log::default();
    let mut world = World::new();
    let before = world.spawn((Bomb(false), log.tracked(1)));
    let e = world.spawn((Bomb(true), log.tracked(2)));
    let after = world.spawn((Bomb(false), log.tracked(3)));
    let message = panic_message(catch_unwind(AssertUnwindSafe(|| world.despawn(e))));
    assert_eq!(message, "bomb went off");
    assert!(!world.contains(e), "the entity is gone");
    log.assert_dropped_once([2]);
    world.check_invariants().unwrap();
    assert_eq!(world.get::<Tracked>(before).unwrap().id, 1);
    assert_eq!(world.get::<Tracked>(after).unwrap().id, 3);
    // The world stays usable.
    let new = world.spawn((Bomb(false), log.tracked(4)));
    world.despawn(before).unwrap();
    assert_eq!(world.len(), 2);
    assert!(world.contains(new));
    drop(world);
    log.assert_dropped_once([1, 2, 3, 4]);
}

#[test]
fn panicking_drop_on_replace_keeps_the_new_value() {
    let log = Log::default();
    let mut world = World::new();
    let e = world.spawn((Bomb(true), log.tracked(1)));
    let message = panic_message(catch_unwind(AssertUnwindSafe(|| world.insert(e, (Bomb(false), Marker)))));
    assert_eq!(message, "bomb went off");
    world.check_invariants().unwrap();
    assert!(world.has::<Marker>(e), "the rest of the bundle was inserted");
    assert!(!world.get::<Bomb>(e).unwrap().0, "the new value is in place");
    assert!(log.dropped().is_empty());
    drop(world);
    log.assert_dropped_once([1]);
}

#[test]
fn panicking_drop_in_clear_still_drops_everything_else() {
    let log = Log::default();
    let mut world = World::new();
    world.spawn_batch((0..10).map(|i| (Bomb(i == 3), log.tracked(i))));
    world.spawn_batch((10..20).map(|i| log.tracked(i)));
    let message = panic_message(catch_unwind(AssertUnwindSafe(|| world.clear())));
    assert_eq!(message, "bomb went off");
    log.assert_dropped_once(0..20);
    assert!(world.is_empty());
    world.check_invariants().unwrap();
    world.spawn(log.tracked(99));
    drop(world);
    log.assert_dropped_once((0..20).chain([99]));
}

#[test]
fn panicking_drop_when_the_world_drops_still_drops_everything_else() {
    let log = Log::default();
    let mut world = World::new();
    world.spawn_batch((0..10).map(|i| (Bomb(i % 4 == 0), log.tracked(i))));
    let message = panic_message(catch_unwind(AssertUnwindSafe(move || drop(world))));
    assert_eq!(message, "bomb went off");
    log.assert_dropped_once(0..10);
}

#[derive(Component)]
struct Items(Vec<usize>);

#[derive(Component)]
struct Shared(Arc<String>);

#[test]
fn zero_sized_and_heap_components_survive_growth() {
    let mut world = World::new();
    let ids: Vec<_> = world
        .spawn_batch((0..5000).map(|i| (Marker, Items(vec![i; i % 7]), Shared(Arc::new(i.to_string())))))
        .collect();
    for &e in ids.iter().step_by(3) {
        world.despawn(e).unwrap();
    }
    for (i, &e) in ids.iter().enumerate().filter(|(i, _)| i % 3 != 0) {
        assert_eq!(world.get::<Items>(e).unwrap().0.len(), i % 7);
        assert_eq!(*world.get::<Shared>(e).unwrap().0, i.to_string());
    }
    world.check_invariants().unwrap();
}
