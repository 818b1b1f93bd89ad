//! Query benchmarks from the public ecs_bench_suite, with its parameters, each next
//! to a hand-written baseline doing the same work on plain `Vec`s.
//!
//! - `simple_iter`: 10,000 entities of (Transform, Position, Rotation, Velocity);
//!   `pos += vel` over `(&Velocity, &mut Position)`: a `for` loop over a query
//!   state (`ecs`), over `world.query_mut` and in a system, and `for_each`.
//! - `filtered_iter` (not in the suite): the same, every other entity tagged,
//!   through `With<Tagged>`.
//! - `fragmented_iter`: 26 component types A..Z, 20 entities each, all with `Data`;
//!   `data *= 2` over `&mut Data`.
//! - `heavy_compute`: 1,000 entities of (Transform, Position, Rotation, Velocity); in
//!   parallel, invert the matrix 100 times and transform the position.
//! - `many_archetypes`: 10 zero-sized tags make 1,024 archetypes of 4 entities, all
//!   with `Data`; `data *= 2` over `&mut Data`.
//!
//! Run with `cargo bench --bench query`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs_core::prelude::*;
use rayon::prelude::*;

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
struct Data(f32);

fn identity() -> Transform {
    let mut m = [[0.0; 4]; 4];
    for (i, row) in m.iter_mut().enumerate() {
        row[i] = 1.0;
    }
    Transform(m)
}

const UNIT_X: [f32; 3] = [1.0, 0.0, 0.0];

fn add(p: &mut Position, v: &Velocity) {
    for i in 0..3 {
        p.0[i] += v.0[i];
    }
}

fn simple_iter(c: &mut Criterion) {
    let mut group = c.benchmark_group("simple_iter");
    group.bench_function("ecs", |b| {
        let mut world = World::new();
        world.spawn_batch((0..10_000).map(|_| (identity(), Position(UNIT_X), Rotation(UNIT_X), Velocity(UNIT_X))));
        let mut query = world.query_state::<(&Velocity, &mut Position)>();
        b.iter(|| {
            for (v, p) in query.iter_mut(&mut world) {
                add(p, v);
            }
        })
    });
    group.bench_function("ecs_for_each", |b| {
        let mut world = World::new();
        world.spawn_batch((0..10_000).map(|_| (identity(), Position(UNIT_X), Rotation(UNIT_X), Velocity(UNIT_X))));
        let mut query = world.query_state::<(&Velocity, &mut Position)>();
        b.iter(|| query.iter_mut(&mut world).for_each(|(v, p)| add(p, v)))
    });
    group.bench_function("ecs_world_for", |b| {
        let mut world = World::new();
        world.spawn_batch((0..10_000).map(|_| (identity(), Position(UNIT_X), Rotation(UNIT_X), Velocity(UNIT_X))));
        b.iter(|| {
            for (v, p) in world.query_mut::<(&Velocity, &mut Position)>() {
                add(p, v);
            }
        })
    });
    group.bench_function("ecs_system_for", |b| {
        fn movement(mut q: Query<(&Velocity, &mut Position)>) {
            for (v, p) in &mut q {
                add(p, v);
            }
        }
        let mut world = World::new();
        world.spawn_batch((0..10_000).map(|_| (identity(), Position(UNIT_X), Rotation(UNIT_X), Velocity(UNIT_X))));
        let mut schedule = Schedule::new();
        schedule.add_systems(movement);
        b.iter(|| schedule.run(&mut world))
    });
    group.bench_function("ecs_system_for_each", |b| {
        fn movement(mut q: Query<(&Velocity, &mut Position)>) {
            q.iter_mut().for_each(|(v, p)| add(p, v));
        }
        let mut world = World::new();
        world.spawn_batch((0..10_000).map(|_| (identity(), Position(UNIT_X), Rotation(UNIT_X), Velocity(UNIT_X))));
        let mut schedule = Schedule::new();
        schedule.add_systems(movement);
        b.iter(|| schedule.run(&mut world))
    });
    group.bench_function("ecs_chunk", |b| {
        let mut world = World::new();
        world.spawn_batch((0..10_000).map(|_| (identity(), Position(UNIT_X), Rotation(UNIT_X), Velocity(UNIT_X))));
        let mut query = world.query_state::<(&Velocity, &mut Position)>();
        b.iter(|| {
            query.for_each_chunk(&mut world, |(v, p): (&[Velocity], &mut [Position])| {
                for (p, v) in p.iter_mut().zip(v) {
                    add(p, v);
                }
            })
        })
    });
    group.bench_function("baseline_vec", |b| {
        let transforms = vec![identity(); 10_000];
        let mut positions = vec![Position(UNIT_X); 10_000];
        let rotations = vec![Rotation(UNIT_X); 10_000];
        let velocities = vec![Velocity(UNIT_X); 10_000];
        b.iter(|| {
            for (p, v) in positions.iter_mut().zip(&velocities) {
                add(p, v);
            }
        });
        black_box((transforms, rotations));
    });
    group.finish();
}

/// A tag: rows with and without it share an archetype.
#[derive(Component)]
struct Tagged;

/// `simple_iter`'s data with every other entity tagged, iterated through
/// `With<Tagged>` (a per-row filter): a `for` loop against `for_each`.
fn filtered_iter(c: &mut Criterion) {
    fn tagged_world() -> World {
        let mut world = World::new();
        for i in 0..10_000 {
            let body = (identity(), Position(UNIT_X), Rotation(UNIT_X), Velocity(UNIT_X));
            if i % 2 == 0 {
                world.spawn((body, Tagged));
            } else {
                world.spawn(body);
            }
        }
        world
    }
    let mut group = c.benchmark_group("filtered_iter");
    group.bench_function("ecs_for", |b| {
        let mut world = tagged_world();
        let mut query = world.query_state_filtered::<(&Velocity, &mut Position), With<Tagged>>();
        b.iter(|| {
            for (v, p) in query.iter_mut(&mut world) {
                add(p, v);
            }
        })
    });
    group.bench_function("ecs_for_each", |b| {
        let mut world = tagged_world();
        let mut query = world.query_state_filtered::<(&Velocity, &mut Position), With<Tagged>>();
        b.iter(|| query.iter_mut(&mut world).for_each(|(v, p)| add(p, v)))
    });
    group.bench_function("ecs_system_for", |b| {
        fn movement(mut q: Query<(&Velocity, &mut Position), With<Tagged>>) {
            for (v, p) in &mut q {
                add(p, v);
            }
        }
        let mut world = tagged_world();
        let mut schedule = Schedule::new();
        schedule.add_systems(movement);
        b.iter(|| schedule.run(&mut world))
    });
    group.finish();
}

macro_rules! fragments {
    ($($name:ident),*) => {
        $(#[derive(Component, Clone, Copy)] struct $name(#[expect(dead_code, reason = "benchmark payload")] f32);)*
        fn spawn_fragments(world: &mut World) {
            $(world.spawn_batch((0..20).map(|_| ($name(0.0), Data(1.0))));)*
        }
    };
}

fragments!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);

fn fragmented_iter(c: &mut Criterion) {
    let mut group = c.benchmark_group("fragmented_iter");
    group.bench_function("ecs", |b| {
        let mut world = World::new();
        spawn_fragments(&mut world);
        let mut query = world.query_state::<&mut Data>();
        b.iter(|| {
            for data in query.iter_mut(&mut world) {
                data.0 *= 2.0;
            }
        })
    });
    group.bench_function("ecs_for_each", |b| {
        let mut world = World::new();
        spawn_fragments(&mut world);
        let mut query = world.query_state::<&mut Data>();
        b.iter(|| query.iter_mut(&mut world).for_each(|data| data.0 *= 2.0))
    });
    group.bench_function("baseline_vec", |b| {
        let mut data = vec![Data(1.0); 26 * 20];
        b.iter(|| {
            for d in data.iter_mut() {
                d.0 *= 2.0;
            }
        })
    });
    group.finish();
}

fn invert(m: &Transform) -> Transform {
    // Gauss-Jordan elimination with partial pivoting; the identity stays the identity.
    let mut a = m.0;
    let mut inv = identity().0;
    for col in 0..4 {
        let pivot = (col..4).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs())).unwrap_or(col);
        a.swap(col, pivot);
        inv.swap(col, pivot);
        let d = a[col][col];
        if d == 0.0 {
            return *m;
        }
        for k in 0..4 {
            a[col][k] /= d;
            inv[col][k] /= d;
        }
        for row in 0..4 {
            if row != col {
                let f = a[row][col];
                for k in 0..4 {
                    a[row][k] -= f * a[col][k];
                    inv[row][k] -= f * inv[col][k];
                }
            }
        }
    }
    Transform(inv)
}

fn heavy(transform: &mut Transform, position: &mut Position) {
    for _ in 0..100 {
        *transform = invert(transform);
    }
    let m = &transform.0;
    let p = position.0;
    for (i, out) in position.0.iter_mut().enumerate() {
        *out = m[i][0] * p[0] + m[i][1] * p[1] + m[i][2] * p[2] + m[i][3];
    }
}

fn heavy_compute(c: &mut Criterion) {
    let mut group = c.benchmark_group("heavy_compute");
    group.bench_function("ecs", |b| {
        let mut world = World::new();
        world.spawn_batch((0..1000).map(|_| (identity(), Position(UNIT_X), Rotation(UNIT_X), Velocity(UNIT_X))));
        let mut query = world.query_state::<(&mut Position, &mut Transform)>();
        b.iter(|| query.par_for_each(&mut world, |(p, t)| heavy(t, p)))
    });
    group.bench_function("baseline_vec", |b| {
        let mut transforms = vec![identity(); 1000];
        let mut positions = vec![Position(UNIT_X); 1000];
        b.iter(|| {
            positions.par_iter_mut().zip(transforms.par_iter_mut()).with_min_len(64).for_each(|(p, t)| heavy(t, p))
        })
    });
    group.finish();
}

macro_rules! tags {
    ($($name:ident = $bit:literal),*) => {
        $(#[derive(Component)] struct $name;)*
        fn spawn_tagged(world: &mut World, mask: u32) {
            let e = world.spawn(Data(1.0));
            $(if mask & (1 << $bit) != 0 { world.insert(e, $name).unwrap(); })*
        }
    };
}

tags!(T0 = 0, T1 = 1, T2 = 2, T3 = 3, T4 = 4, T5 = 5, T6 = 6, T7 = 7, T8 = 8, T9 = 9);

fn many_archetypes(c: &mut Criterion) {
    let mut group = c.benchmark_group("many_archetypes");
    group.bench_function("ecs", |b| {
        let mut world = World::new();
        for mask in 0..1024 {
            for _ in 0..4 {
                spawn_tagged(&mut world, mask);
            }
        }
        let mut query = world.query_state::<&mut Data>();
        b.iter(|| query.iter_mut(&mut world).for_each(|d| d.0 *= 2.0))
    });
    group.bench_function("baseline_vec", |b| {
        let mut data = vec![Data(1.0); 4096];
        b.iter(|| data.iter_mut().for_each(|d| d.0 *= 2.0))
    });
    group.finish();
}

criterion_group!(benches, simple_iter, filtered_iter, fragmented_iter, heavy_compute, many_archetypes);
criterion_main!(benches);
