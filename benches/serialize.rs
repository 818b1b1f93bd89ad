//! Save + load of 100,000 entities of the `simple_insert` shape (Transform,
//! Position, Rotation, Velocity) through postcard, in both formats:
//!
//! - `columns`: `registry.columns(&world)` to a `Vec<u8>`, then `load_columns`
//!   and `World::load` into a new world;
//! - `columns_pod`: the same with the four components `#[component(pod)]`,
//!   whose columns a compact save writes as their bytes;
//! - `rows`: the same through the row format (a map of entities to maps of
//!   named components);
//! - `vec_of_tuples`: the floor, a `Vec` of the same tuples through postcard
//!   and `spawn_batch` into a new world (which keeps no ids).
//!
//! Run with `cargo bench --bench serialize`.

use std::hint::black_box;

use bytemuck::{Pod, Zeroable};
use criterion::{Criterion, criterion_group, criterion_main};
use ecs_core::prelude::*;
use ecs_core::serialize::SerializeRegistry;
use serde::{Deserialize, Serialize};

#[derive(Component, Clone, Copy, Serialize, Deserialize)]
struct Transform([[f32; 4]; 4]);

#[derive(Component, Clone, Copy, Serialize, Deserialize)]
struct Position([f32; 3]);

#[derive(Component, Clone, Copy, Serialize, Deserialize)]
struct Rotation([f32; 3]);

#[derive(Component, Clone, Copy, Serialize, Deserialize)]
struct Velocity([f32; 3]);

/// The same shapes, plain old data.
mod pod {
    use super::*;

    #[derive(Component, Clone, Copy, Pod, Zeroable, Serialize, Deserialize)]
    #[component(pod)]
    #[repr(transparent)]
    pub struct Transform(pub [[f32; 4]; 4]);

    #[derive(Component, Clone, Copy, Pod, Zeroable, Serialize, Deserialize)]
    #[component(pod)]
    #[repr(transparent)]
    pub struct Position(pub [f32; 3]);

    #[derive(Component, Clone, Copy, Pod, Zeroable, Serialize, Deserialize)]
    #[component(pod)]
    #[repr(transparent)]
    pub struct Rotation(pub [f32; 3]);

    #[derive(Component, Clone, Copy, Pod, Zeroable, Serialize, Deserialize)]
    #[component(pod)]
    #[repr(transparent)]
    pub struct Velocity(pub [f32; 3]);

    pub fn tuple(i: usize) -> (Transform, Position, Rotation, Velocity) {
        let f = i as f32;
        (Transform([[f; 4]; 4]), Position([f; 3]), Rotation([f; 3]), Velocity([f; 3]))
    }
}

const N: usize = 100_000;

fn tuple(i: usize) -> (Transform, Position, Rotation, Velocity) {
    let f = i as f32;
    (Transform([[f; 4]; 4]), Position([f; 3]), Rotation([f; 3]), Velocity([f; 3]))
}

fn save_load(c: &mut Criterion) {
    let mut group = c.benchmark_group("save_load");
    group.sample_size(20);
    let registry = SerializeRegistry::new()
        .register::<Transform>("Transform")
        .register::<Position>("Position")
        .register::<Rotation>("Rotation")
        .register::<Velocity>("Velocity");
    let mut world = World::new();
    world.spawn_batch((0..N).map(tuple));

    group.bench_function("columns", |b| {
        b.iter(|| {
            let bytes = postcard::to_allocvec(&registry.columns(&world)).unwrap();
            let save = registry.load_columns(&mut postcard::Deserializer::from_bytes(&bytes)).unwrap();
            let mut loaded = World::new();
            loaded.load(save);
            black_box(loaded.len())
        })
    });
    let pod_registry = SerializeRegistry::new()
        .register::<pod::Transform>("Transform")
        .register::<pod::Position>("Position")
        .register::<pod::Rotation>("Rotation")
        .register::<pod::Velocity>("Velocity");
    let mut pod_world = World::new();
    pod_world.spawn_batch((0..N).map(pod::tuple));
    group.bench_function("columns_pod", |b| {
        b.iter(|| {
            let bytes = postcard::to_allocvec(&pod_registry.columns(&pod_world)).unwrap();
            let save = pod_registry.load_columns(&mut postcard::Deserializer::from_bytes(&bytes)).unwrap();
            let mut loaded = World::new();
            loaded.load(save);
            black_box(loaded.len())
        })
    });
    group.bench_function("rows", |b| {
        b.iter(|| {
            let bytes = postcard::to_allocvec(&registry.rows(&world)).unwrap();
            let save = registry.load_rows(&mut postcard::Deserializer::from_bytes(&bytes)).unwrap();
            let mut loaded = World::new();
            loaded.load(save);
            black_box(loaded.len())
        })
    });
    let tuples: Vec<_> = (0..N).map(tuple).collect();
    group.bench_function("vec_of_tuples", |b| {
        b.iter(|| {
            let bytes = postcard::to_allocvec(&tuples).unwrap();
            let back: Vec<(Transform, Position, Rotation, Velocity)> = postcard::from_bytes(&bytes).unwrap();
            let mut loaded = World::new();
            loaded.spawn_batch(back);
            black_box(loaded.len())
        })
    });
    group.finish();
}

criterion_group!(benches, save_load);
criterion_main!(benches);
