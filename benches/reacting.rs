//! Reacting to change: buffered events, observers and `Changed` queries, each
//! next to a hand-written baseline doing the same work.
//!
//! - `events`: send 1,000,000 small events and read them all, one frame
//!   (`Messages` + `MessageCursor`, the machinery of `MessageWriter`/`MessageReader`).
//! - `observers`: trigger an entity event 100,000 times; one global observer
//!   (with a `Query`) and one entity observer; and once on each of 10,000
//!   entities with an observer each (`ecs_entity_10k`).
//! - `changed`: 1,000,000 entities over 100 archetypes, 10 rows written per
//!   frame through `world.get_mut`; a `Changed` query visits what changed,
//!   against a full scan of the same component.
//!
//! Run with `cargo bench --bench reacting`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs_core::message::{MessageCursor, Messages};
use ecs_core::prelude::*;

#[derive(Message, Clone, Copy)]
struct Small(u32);

fn events(c: &mut Criterion) {
    const EVENTS: u32 = 1_000_000;
    let mut group = c.benchmark_group("events");
    group.bench_function("ecs", |b| {
        let mut events = Messages::<Small>::default();
        let mut cursor = MessageCursor::<Small>::default();
        b.iter(|| {
            for i in 0..EVENTS {
                events.write(Small(i));
            }
            let sum = cursor.read(&events).fold(0u64, |sum, e| sum + u64::from(e.0));
            events.update();
            black_box(sum)
        })
    });
    group.bench_function("baseline_vec", |b| {
        let mut events: Vec<Small> = Vec::new();
        b.iter(|| {
            events.clear();
            for i in 0..EVENTS {
                events.push(Small(i));
            }
            black_box(events.iter().fold(0u64, |sum, e| sum + u64::from(e.0)))
        })
    });
    group.finish();
}

#[derive(Component)]
struct Health(i64);

#[derive(Event)]
struct Hit(i64);

fn observers(c: &mut Criterion) {
    const TRIGGERS: usize = 100_000;
    let mut group = c.benchmark_group("observers");
    group.bench_function("ecs_global", |b| {
        let mut world = World::new();
        let target = world.spawn(Health(0));
        world.add_observer(|hit: On<Hit>, mut q: Query<&mut Health>| {
            if let Ok(h) = q.get_mut(hit.target()) {
                h.0 -= hit.0;
            }
        });
        b.iter(|| {
            for _ in 0..TRIGGERS {
                world.trigger_targets(Hit(1), target);
            }
        })
    });
    group.bench_function("ecs_entity", |b| {
        let mut world = World::new();
        let target = world.spawn(Health(0));
        world.entity_mut(target).unwrap().observe(|hit: On<Hit>, mut n: Local<i64>| *n += hit.0);
        b.iter(|| {
            for _ in 0..TRIGGERS {
                world.trigger_targets(Hit(1), target);
            }
        })
    });
    group.bench_function("ecs_entity_10k", |b| {
        // 10,000 entities, each with its own observer, each triggered once:
        // the lookup of a target's observers among many.
        let mut world = World::new();
        let targets: Vec<Entity> = (0..10_000).map(|_| world.spawn(Health(0))).collect();
        for &target in &targets {
            world.entity_mut(target).unwrap().observe(|hit: On<Hit>, mut q: Query<&mut Health>| {
                if let Ok(h) = q.get_mut(hit.target()) {
                    h.0 -= hit.0;
                }
            });
        }
        b.iter(|| {
            for &target in &targets {
                world.trigger_targets(Hit(1), target);
            }
        })
    });
    group.bench_function("baseline_closure", |b| {
        let mut health = vec![Health(0)];
        type Handler = Box<dyn FnMut(&mut [Health], usize, &Hit)>;
        let mut handlers: Vec<Handler> =
            vec![Box::new(|h: &mut [Health], target: usize, hit: &Hit| h[target].0 -= hit.0)];
        b.iter(|| {
            for _ in 0..TRIGGERS {
                let hit = Hit(1);
                for handler in handlers.iter_mut() {
                    handler(black_box(&mut health), 0, &hit);
                }
            }
        })
    });
    group.finish();
}

#[derive(Component, Clone, Copy)]
struct Value(u64);

macro_rules! markers {
    ($($name:ident)*) => {
        $(#[derive(Component, Clone, Copy)] struct $name(#[expect(dead_code, reason = "makes an archetype")] u8);)*
        /// Spawns `per` entities into each of the archetypes made by one marker.
        fn spawn_archetypes(world: &mut World, per: usize) -> Vec<Entity> {
            let mut entities = Vec::new();
            $(entities.extend(world.spawn_batch((0..per).map(|i| (Value(i as u64), $name(0)))));)*
            entities
        }
    };
}

markers!(
    M00 M01 M02 M03 M04 M05 M06 M07 M08 M09 M10 M11 M12 M13 M14 M15 M16 M17 M18 M19
    M20 M21 M22 M23 M24 M25 M26 M27 M28 M29 M30 M31 M32 M33 M34 M35 M36 M37 M38 M39
    M40 M41 M42 M43 M44 M45 M46 M47 M48 M49 M50 M51 M52 M53 M54 M55 M56 M57 M58 M59
    M60 M61 M62 M63 M64 M65 M66 M67 M68 M69 M70 M71 M72 M73 M74 M75 M76 M77 M78 M79
    M80 M81 M82 M83 M84 M85 M86 M87 M88 M89 M90 M91 M92 M93 M94 M95 M96 M97 M98 M99
);

fn changed(c: &mut Criterion) {
    const PER_ARCHETYPE: usize = 10_000;
    let mut group = c.benchmark_group("changed");
    let mut world = World::new();
    let entities = spawn_archetypes(&mut world, PER_ARCHETYPE);
    // Ten rows per frame, spread over the archetypes.
    let step = entities.len() / 10 + 7;
    let mut changed = world.query_state_filtered::<&Value, Changed<Value>>();
    let mut all = world.query_state::<&Value>();
    let mut frame = 0usize;
    group.bench_function("ecs_changed", |b| {
        b.iter(|| {
            frame += 1;
            for k in 0..10 {
                let e = entities[(frame + k * step) % entities.len()];
                world.get_mut::<Value>(e).unwrap().0 += 1;
            }
            black_box(changed.iter(&world).fold(0u64, |sum, v| sum + v.0))
        })
    });
    group.bench_function("ecs_full_scan", |b| {
        b.iter(|| {
            frame += 1;
            for k in 0..10 {
                let e = entities[(frame + k * step) % entities.len()];
                world.get_mut::<Value>(e).unwrap().0 += 1;
            }
            black_box(all.iter(&world).fold(0u64, |sum, v| sum + v.0))
        })
    });
    group.finish();
}

criterion_group!(benches, events, observers, changed);
criterion_main!(benches);
