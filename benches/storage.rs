//! Storage benchmarks from the public ecs_bench_suite, with its parameters, each next
//! to a hand-written plain-`Vec` baseline doing the same work in the same group.
//!
//! - `simple_insert`: spawn 10,000 entities of (Transform, Position, Rotation,
//!   Velocity) into an empty world.
//! - `add_remove`: 10,000 entities with `A`; insert `B` on all, then remove it from all.
//!   `ecs` uses a table `B` (each insert and remove moves a row); `ecs_sparse` the
//!   same workload with `B` declared `#[component(storage = "sparse")]`.
//! - `random_get`: 10,000 entities of (Position, Velocity); read every `Position` in a
//!   shuffled order.
//! - `despawn`: despawn 10,000 entities of the `simple_insert` shape, one by one.
//!
//! Run with `cargo bench --bench storage`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs_core::prelude::*;

#[derive(Component, Clone, Copy, Pod, Zeroable)]
#[repr(C)]
struct Transform([[f32; 4]; 4]);

#[derive(Component, Clone, Copy, Pod, Zeroable)]
#[repr(C)]
struct Position([f32; 3]);

#[derive(Component, Clone, Copy, Pod, Zeroable)]
#[repr(C)]
struct Rotation([f32; 3]);

#[derive(Component, Clone, Copy, Pod, Zeroable)]
#[repr(C)]
struct Velocity([f32; 3]);

#[derive(Component, Clone, Copy)]
struct A(#[expect(dead_code, reason = "benchmark payload")] f32);

#[derive(Component, Clone, Copy)]
struct B(#[expect(dead_code, reason = "benchmark payload")] f32);

#[derive(Component, Clone, Copy)]
#[component(storage = "sparse")]
struct SparseB(#[expect(dead_code, reason = "benchmark payload")] f32);

const N: usize = 10_000;

fn identity() -> Transform {
    let mut m = [[0.0; 4]; 4];
    for (i, row) in m.iter_mut().enumerate() {
        row[i] = 1.0;
    }
    Transform(m)
}

const UNIT_X: [f32; 3] = [1.0, 0.0, 0.0];

/// A deterministic Fisher-Yates shuffle (xorshift), so runs are comparable.
fn shuffle<T>(items: &mut [T]) {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    for i in (1..items.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        items.swap(i, (state % (i as u64 + 1)) as usize);
    }
}

fn simple_insert(c: &mut Criterion) {
    let mut group = c.benchmark_group("simple_insert");
    group.bench_function("ecs", |b| {
        b.iter(|| {
            let mut world = World::new();
            world.spawn_batch((0..N).map(|_| (identity(), Position(UNIT_X), Rotation(UNIT_X), Velocity(UNIT_X))));
            world
        })
    });
    group.bench_function("ecs_spawn_loop", |b| {
        b.iter(|| {
            let mut world = World::new();
            for _ in 0..N {
                world.spawn((identity(), Position(UNIT_X), Rotation(UNIT_X), Velocity(UNIT_X)));
            }
            world
        })
    });
    group.bench_function("baseline_vec", |b| {
        b.iter(|| {
            let (mut t, mut p, mut r, mut v) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            for _ in 0..N {
                t.push(identity());
                p.push(Position(UNIT_X));
                r.push(Rotation(UNIT_X));
                v.push(Velocity(UNIT_X));
            }
            (t, p, r, v)
        })
    });
    group.finish();
}

fn add_remove(c: &mut Criterion) {
    let mut group = c.benchmark_group("add_remove");
    group.bench_function("ecs", |b| {
        let mut world = World::new();
        let entities: Vec<Entity> = world.spawn_batch((0..N).map(|_| A(0.0))).collect();
        b.iter(|| {
            for &entity in &entities {
                world.insert(entity, B(0.0)).unwrap();
            }
            for &entity in &entities {
                world.remove::<B>(entity).unwrap();
            }
        })
    });
    group.bench_function("ecs_sparse", |b| {
        let mut world = World::new();
        let entities: Vec<Entity> = world.spawn_batch((0..N).map(|_| A(0.0))).collect();
        b.iter(|| {
            for &entity in &entities {
                world.insert(entity, SparseB(0.0)).unwrap();
            }
            for &entity in &entities {
                world.remove::<SparseB>(entity).unwrap();
            }
        })
    });
    group.bench_function("baseline_vec", |b| {
        let a = vec![A(0.0); N];
        let mut bs: Vec<Option<B>> = vec![None; N];
        b.iter(|| {
            for slot in bs.iter_mut() {
                *slot = Some(B(0.0));
            }
            for slot in bs.iter_mut() {
                black_box(slot.take());
            }
            black_box(&a);
        })
    });
    group.finish();
}

fn random_get(c: &mut Criterion) {
    let mut group = c.benchmark_group("random_get");
    group.bench_function("ecs", |b| {
        let mut world = World::new();
        let mut entities: Vec<Entity> =
            world.spawn_batch((0..N).map(|_| (Position(UNIT_X), Velocity(UNIT_X)))).collect();
        shuffle(&mut entities);
        b.iter(|| {
            let mut sum = 0.0;
            for &entity in &entities {
                sum += world.get::<Position>(entity).unwrap().0[0];
            }
            sum
        })
    });
    group.bench_function("baseline_vec", |b| {
        let positions = vec![Position(UNIT_X); N];
        let _velocities = vec![Velocity(UNIT_X); N];
        let mut order: Vec<usize> = (0..N).collect();
        shuffle(&mut order);
        b.iter(|| {
            let mut sum = 0.0;
            for &i in &order {
                sum += positions[i].0[0];
            }
            sum
        })
    });
    group.finish();
}

fn despawn(c: &mut Criterion) {
    let mut group = c.benchmark_group("despawn");
    group.bench_function("ecs", |b| {
        b.iter_batched_ref(
            || {
                let mut world = World::new();
                let entities: Vec<Entity> = world
                    .spawn_batch((0..N).map(|_| (identity(), Position(UNIT_X), Rotation(UNIT_X), Velocity(UNIT_X))))
                    .collect();
                (world, entities)
            },
            |(world, entities)| {
                for &entity in entities.iter() {
                    world.despawn(entity).unwrap();
                }
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, simple_insert, add_remove, random_get, despawn);
criterion_main!(benches);
