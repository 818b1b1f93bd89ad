//! Snapshot and restore, for rollback: 100,000 entities of the `simple_insert`
//! shape (Transform, Position, Rotation, Velocity: four `Pod` components).
//!
//! - `ecs`: `snapshot_into` a reused snapshot, then `restore` it (one rollback
//!   step; both reuse their allocations).
//! - `ecs_swap`: `snapshot_into`, then `swap_snapshot` (the world takes the
//!   snapshot's arrays, the snapshot the world's: one copy per rollback step).
//! - `memcpy`: the same component bytes copied out of four `Vec`s into four
//!   buffers and back, with `copy_from_slice`: the floor for any snapshot.
//! - `respawn`: the alternative without snapshots: clear the world and spawn
//!   the entities again from a `Vec` of tuples (`spawn_batch`), and
//!   `respawn_one_by_one` with a `spawn` per entity. Neither gives the entities
//!   their old ids back, which a snapshot does.
//!
//! Run with `cargo bench --bench snapshot`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs_core::prelude::*;
use ecs_core::snapshot::Snapshot;

#[derive(Component, Clone, Copy, Pod, Zeroable)]
#[repr(C)]
#[component(pod)]
struct Transform([[f32; 4]; 4]);

#[derive(Component, Clone, Copy, Pod, Zeroable)]
#[repr(C)]
#[component(pod)]
struct Position([f32; 3]);

#[derive(Component, Clone, Copy, Pod, Zeroable)]
#[repr(C)]
#[component(pod)]
struct Rotation([f32; 3]);

#[derive(Component, Clone, Copy, Pod, Zeroable)]
#[repr(C)]
#[component(pod)]
struct Velocity([f32; 3]);

const N: usize = 100_000;

fn tuple(i: usize) -> (Transform, Position, Rotation, Velocity) {
    let f = i as f32;
    (Transform([[f; 4]; 4]), Position([f; 3]), Rotation([f; 3]), Velocity([f; 3]))
}

fn snapshot_restore(c: &mut Criterion) {
    let mut group = c.benchmark_group("snapshot_restore");
    group.sample_size(30);

    let mut world = World::new();
    world.spawn_batch((0..N).map(tuple));
    let mut snapshot = Snapshot::new();
    world.snapshot_into(&mut snapshot).unwrap();
    world.restore(&snapshot).unwrap();
    group.bench_function("ecs", |b| {
        b.iter(|| {
            world.snapshot_into(&mut snapshot).unwrap();
            world.restore(black_box(&snapshot)).unwrap();
        })
    });
    group.bench_function("ecs_swap", |b| {
        b.iter(|| {
            world.snapshot_into(&mut snapshot).unwrap();
            world.swap_snapshot(black_box(&mut snapshot)).unwrap();
        })
    });
    group.bench_function("ecs_snapshot_only", |b| b.iter(|| world.snapshot_into(black_box(&mut snapshot)).unwrap()));
    group.bench_function("ecs_restore_only", |b| b.iter(|| world.restore(black_box(&snapshot)).unwrap()));

    let mut columns = (
        (0..N).map(|i| tuple(i).0).collect::<Vec<_>>(),
        (0..N).map(|i| tuple(i).1).collect::<Vec<_>>(),
        (0..N).map(|i| tuple(i).2).collect::<Vec<_>>(),
        (0..N).map(|i| tuple(i).3).collect::<Vec<_>>(),
    );
    let mut saved = columns.clone();
    group.bench_function("memcpy", |b| {
        b.iter(|| {
            saved.0.copy_from_slice(&columns.0);
            saved.1.copy_from_slice(&columns.1);
            saved.2.copy_from_slice(&columns.2);
            saved.3.copy_from_slice(&columns.3);
            black_box(&mut saved);
            columns.0.copy_from_slice(&saved.0);
            columns.1.copy_from_slice(&saved.1);
            columns.2.copy_from_slice(&saved.2);
            columns.3.copy_from_slice(&saved.3);
            black_box(&mut columns);
        })
    });

    let tuples: Vec<_> = (0..N).map(tuple).collect();
    group.bench_function("respawn", |b| {
        b.iter(|| {
            world.clear();
            world.spawn_batch(black_box(&tuples).iter().copied());
        })
    });
    group.bench_function("respawn_one_by_one", |b| {
        b.iter(|| {
            world.clear();
            for &t in black_box(&tuples) {
                world.spawn(t);
            }
        })
    });
    group.finish();
}

criterion_group!(benches, snapshot_restore);
criterion_main!(benches);
