//! Schedule benchmarks.
//!
//! - `schedule` (ecs_bench_suite): 10,000 entities each of (A, B), (A, B, C),
//!   (A, B, C, D) and (A, B, C, E); three systems swap A/B, C/D and C/E; one run
//!   of the schedule per iteration, next to the same three loops hand-written.
//! - `tiny_systems`: 100 systems, each over its own small archetype (10 entities);
//!   measures the schedule's own per-run overhead, single- and multi-threaded.
//!
//! Run with `cargo bench --bench schedule`.

use criterion::{Criterion, criterion_group, criterion_main};
use ecs_core::prelude::*;

#[derive(Component, Clone, Copy)]
struct A(f32);
#[derive(Component, Clone, Copy)]
struct B(f32);
#[derive(Component, Clone, Copy)]
struct C(f32);
#[derive(Component, Clone, Copy)]
struct D(f32);
#[derive(Component, Clone, Copy)]
struct E(f32);

fn ab(mut q: Query<(&mut A, &mut B)>) {
    q.iter_mut().for_each(|(a, b)| core::mem::swap(&mut a.0, &mut b.0));
}

fn cd(mut q: Query<(&mut C, &mut D)>) {
    q.iter_mut().for_each(|(c, d)| core::mem::swap(&mut c.0, &mut d.0));
}

fn ce(mut q: Query<(&mut C, &mut E)>) {
    q.iter_mut().for_each(|(c, e)| core::mem::swap(&mut c.0, &mut e.0));
}

fn schedule_world() -> World {
    let mut world = World::new();
    world.spawn_batch((0..10_000).map(|_| (A(0.0), B(1.0))));
    world.spawn_batch((0..10_000).map(|_| (A(0.0), B(1.0), C(2.0))));
    world.spawn_batch((0..10_000).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
    world.spawn_batch((0..10_000).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
    world
}

fn schedule(c: &mut Criterion) {
    let mut group = c.benchmark_group("schedule");
    for (name, multi) in [("ecs", true), ("ecs_single_threaded", false)] {
        group.bench_function(name, |b| {
            let mut world = schedule_world();
            let mut schedule = Schedule::new();
            schedule.set_multi_threaded(multi).add_systems(ab).add_systems(cd).add_systems(ce);
            b.iter(|| schedule.run(&mut world))
        });
    }
    group.bench_function("baseline_vec", |b| {
        // The same data as plain vectors: A/B for 40k rows, C for 30k, D and E 10k.
        let mut a = vec![0.0f32; 40_000];
        let mut bs = vec![1.0f32; 40_000];
        let mut cs = vec![2.0f32; 30_000];
        let mut d = vec![3.0f32; 10_000];
        let mut e = vec![4.0f32; 10_000];
        b.iter(|| {
            a.iter_mut().zip(bs.iter_mut()).for_each(|(a, b)| core::mem::swap(a, b));
            cs[10_000..20_000].iter_mut().zip(d.iter_mut()).for_each(|(c, d)| core::mem::swap(c, d));
            cs[20_000..30_000].iter_mut().zip(e.iter_mut()).for_each(|(c, e)| core::mem::swap(c, e));
        })
    });
    group.finish();
}

#[derive(Component, Clone, Copy)]
struct Tiny<const N: usize>(f32);

fn tiny<const N: usize>(mut q: Query<&mut Tiny<N>>) {
    q.iter_mut().for_each(|t| t.0 += 1.0);
}

macro_rules! tiny_world {
    ($($n:literal)*) => {
        fn tiny_setup(multi: bool) -> (World, Schedule) {
            let mut world = World::new();
            let mut schedule = Schedule::new();
            schedule.set_multi_threaded(multi);
            $(
                world.spawn_batch((0..10).map(|_| Tiny::<$n>(0.0)));
                schedule.add_systems(tiny::<$n>);
            )*
            (world, schedule)
        }
    };
}

tiny_world!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99);

fn tiny_systems(c: &mut Criterion) {
    let mut group = c.benchmark_group("tiny_systems");
    for (name, multi) in [("ecs", true), ("ecs_single_threaded", false)] {
        group.bench_function(name, |b| {
            let (mut world, mut schedule) = tiny_setup(multi);
            b.iter(|| schedule.run(&mut world))
        });
    }
    group.finish();
}

criterion_group!(benches, schedule, tiny_systems);
criterion_main!(benches);
