//! Per-field (`#[component(layout = "soa")]`) against whole-value storage.
//!
//! - `soa_partial_update`: 100,000 entities with `Particle { x, y, z, vx, vy, vz,
//!   mass, age }` (f32); `x += vx` only. The per-field layout reads two arrays
//!   of 400 KB; the default layout reads every 32-byte value.
//! - `soa_full_update`: the six position and velocity fields updated, where the
//!   split has nothing to save.
//!
//! Each beside the same loop over hand-written `Vec<f32>` per field. The ECS
//! rows use `for_each_chunk` (one slice per field per archetype) and a per-row
//! `for_each`. Run with `cargo bench --bench layout`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use ecs_core::prelude::*;

const N: usize = 100_000;

#[derive(Component, Clone, Copy)]
#[component(layout = "soa")]
struct Particle {
    x: f32,
    y: f32,
    z: f32,
    vx: f32,
    vy: f32,
    vz: f32,
    mass: f32,
    age: f32,
}

/// The same fields, stored whole (the default layout). `mass` and `age` ride
/// along, as in `Particle`, unread.
#[derive(Component, Clone, Copy)]
#[allow(dead_code)]
struct Whole {
    x: f32,
    y: f32,
    z: f32,
    vx: f32,
    vy: f32,
    vz: f32,
    mass: f32,
    age: f32,
}

fn value(i: usize) -> [f32; 8] {
    let f = i as f32;
    [f, -f, 0.5 * f, 1.0, 0.5, 0.25, 1.0 + f, 0.0]
}

fn soa_world() -> World {
    let mut world = World::new();
    world.spawn_batch((0..N).map(|i| {
        let [x, y, z, vx, vy, vz, mass, age] = value(i);
        Particle { x, y, z, vx, vy, vz, mass, age }
    }));
    world
}

fn whole_world() -> World {
    let mut world = World::new();
    world.spawn_batch((0..N).map(|i| {
        let [x, y, z, vx, vy, vz, mass, age] = value(i);
        Whole { x, y, z, vx, vy, vz, mass, age }
    }));
    world
}

/// One `Vec<f32>` per field.
struct Lanes {
    x: Vec<f32>,
    y: Vec<f32>,
    z: Vec<f32>,
    vx: Vec<f32>,
    vy: Vec<f32>,
    vz: Vec<f32>,
    rest: [Vec<f32>; 2],
}

fn lanes() -> Lanes {
    let lane = |f: usize| (0..N).map(|i| value(i)[f]).collect::<Vec<f32>>();
    Lanes { x: lane(0), y: lane(1), z: lane(2), vx: lane(3), vy: lane(4), vz: lane(5), rest: [lane(6), lane(7)] }
}

fn soa_partial_update(c: &mut Criterion) {
    let mut group = c.benchmark_group("soa_partial_update");
    group.bench_function("ecs_soa_chunk", |b| {
        let mut world = soa_world();
        let mut query = world.query_state::<&mut Particle>();
        b.iter(|| {
            query.for_each_chunk(&mut world, |p: ParticleSlicesMut| {
                for (x, vx) in p.x.iter_mut().zip(p.vx.iter()) {
                    *x += vx;
                }
            })
        })
    });
    group.bench_function("ecs_soa_for_each", |b| {
        let mut world = soa_world();
        let mut query = world.query_state::<&mut Particle>();
        b.iter(|| query.iter_mut(&mut world).for_each(|p| *p.x += *p.vx))
    });
    group.bench_function("ecs_soa_for", |b| {
        let mut world = soa_world();
        let mut query = world.query_state::<&mut Particle>();
        b.iter(|| {
            for p in query.iter_mut(&mut world) {
                *p.x += *p.vx;
            }
        })
    });
    group.bench_function("ecs_default_layout", |b| {
        let mut world = whole_world();
        let mut query = world.query_state::<&mut Whole>();
        b.iter(|| {
            query.for_each_chunk(&mut world, |p: &mut [Whole]| {
                for p in p {
                    p.x += p.vx;
                }
            })
        })
    });
    group.bench_function("ecs_default_layout_for_each", |b| {
        let mut world = whole_world();
        let mut query = world.query_state::<&mut Whole>();
        b.iter(|| query.iter_mut(&mut world).for_each(|p| p.x += p.vx))
    });
    group.bench_function("baseline_vec", |b| {
        let mut lanes = lanes();
        b.iter(|| {
            for (x, vx) in lanes.x.iter_mut().zip(&lanes.vx) {
                *x += vx;
            }
        });
        black_box(&lanes.rest);
    });
    group.finish();
}

fn soa_full_update(c: &mut Criterion) {
    let mut group = c.benchmark_group("soa_full_update");
    group.bench_function("ecs_soa_chunk", |b| {
        let mut world = soa_world();
        let mut query = world.query_state::<&mut Particle>();
        b.iter(|| {
            query.for_each_chunk(&mut world, |p: ParticleSlicesMut| {
                for (x, vx) in p.x.iter_mut().zip(p.vx.iter()) {
                    *x += vx;
                }
                for (y, vy) in p.y.iter_mut().zip(p.vy.iter()) {
                    *y += vy;
                }
                for (z, vz) in p.z.iter_mut().zip(p.vz.iter()) {
                    *z += vz;
                }
                for (vx, vy) in p.vx.iter_mut().zip(p.vy.iter_mut()) {
                    *vx *= 0.99;
                    *vy -= 0.01;
                }
                for vz in p.vz.iter_mut() {
                    *vz *= 0.99;
                }
            })
        })
    });
    group.bench_function("ecs_soa_for_each", |b| {
        let mut world = soa_world();
        let mut query = world.query_state::<&mut Particle>();
        b.iter(|| {
            query.iter_mut(&mut world).for_each(|p| {
                *p.x += *p.vx;
                *p.y += *p.vy;
                *p.z += *p.vz;
                *p.vx *= 0.99;
                *p.vy -= 0.01;
                *p.vz *= 0.99;
            })
        })
    });
    group.bench_function("ecs_default_layout", |b| {
        let mut world = whole_world();
        let mut query = world.query_state::<&mut Whole>();
        b.iter(|| {
            query.for_each_chunk(&mut world, |p: &mut [Whole]| {
                for p in p {
                    p.x += p.vx;
                    p.y += p.vy;
                    p.z += p.vz;
                    p.vx *= 0.99;
                    p.vy -= 0.01;
                    p.vz *= 0.99;
                }
            })
        })
    });
    group.bench_function("baseline_vec", |b| {
        let mut l = lanes();
        b.iter(|| {
            let Lanes { x, y, z, vx, vy, vz, .. } = &mut l;
            for i in 0..x.len().min(y.len()).min(z.len()).min(vx.len()).min(vy.len()).min(vz.len()) {
                x[i] += vx[i];
                y[i] += vy[i];
                z[i] += vz[i];
                vx[i] *= 0.99;
                vy[i] -= 0.01;
                vz[i] *= 0.99;
            }
        });
        black_box(&l.rest);
    });
    group.finish();
}

criterion_group!(benches, soa_partial_update, soa_full_update);
criterion_main!(benches);
