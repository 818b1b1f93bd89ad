//! `spawn_latency`: how long the slowest spawns take while a world grows.
//!
//! Spawns 1,000,000 entities of four 16-byte components one at a time into a
//! fresh world, timing every spawn, and reports the median, the 99.9th
//! percentile and the maximum for ecs-core, bevy_ecs and hecs. The crates take
//! turns, one fresh world each per run, so that a slow moment of the machine
//! does not fall on one crate only; each figure is the median over the runs.
//!
//!   cargo run --release -p ecs-peers --bin spawn_latency -- [RUNS] [ENTITIES]
//!
//! `SPAWN_LATENCY_CRATES=ecs,hecs` measures only those; `SPAWN_LATENCY_SLOWEST=1`
//! prints each run's eight slowest spawns and their indices.
//!
//! A spawn that crosses a capacity boundary pays for growing the world's
//! storage; in a crate whose columns grow by reallocation, that is a copy of
//! every row already stored (milliseconds at a million rows: frames dropped).

use std::hint::black_box;
use std::time::Instant;

type Lanes = [f32; 4];

#[allow(dead_code, reason = "the values are written, never read: spawning is what is measured")]
mod ecs {
    use ecs_core::prelude::*;
    #[derive(Component)]
    pub struct A(pub super::Lanes);
    #[derive(Component)]
    pub struct B(pub super::Lanes);
    #[derive(Component)]
    pub struct C(pub super::Lanes);
    #[derive(Component)]
    pub struct D(pub super::Lanes);
}

#[allow(dead_code, reason = "as for `ecs`")]
mod bevy {
    use bevy_ecs::prelude::*;
    #[derive(Component)]
    pub struct A(pub super::Lanes);
    #[derive(Component)]
    pub struct B(pub super::Lanes);
    #[derive(Component)]
    pub struct C(pub super::Lanes);
    #[derive(Component)]
    pub struct D(pub super::Lanes);
}

#[allow(dead_code, reason = "as for `ecs`")]
mod hecs_types {
    pub struct A(pub super::Lanes);
    pub struct B(pub super::Lanes);
    pub struct C(pub super::Lanes);
    pub struct D(pub super::Lanes);
}

/// Times each of `n` calls of `spawn(i)` into `times` (nanoseconds).
fn record(n: usize, times: &mut Vec<u64>, mut spawn: impl FnMut(f32)) {
    times.clear();
    for i in 0..n {
        let start = Instant::now();
        spawn(i as f32);
        times.push(start.elapsed().as_nanos() as u64);
    }
}

/// (median, 99.9th percentile, maximum) of `times`, in nanoseconds.
fn summary(times: &mut [u64]) -> (u64, u64, u64) {
    if std::env::var_os("SPAWN_LATENCY_SLOWEST").is_some() {
        let mut slowest: Vec<(u64, usize)> = times.iter().enumerate().map(|(i, &t)| (t, i)).collect();
        slowest.sort_unstable_by(|a, b| b.cmp(a));
        eprintln!("  slowest spawns (ns, index): {:?}", &slowest[..8]);
    }
    times.sort_unstable();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.999), times[times.len() - 1])
}

fn run(name: &str, n: usize, times: &mut Vec<u64>) -> (u64, u64, u64) {
    let v = |i: f32| [i, i, i, i];
    match name {
        "ecs" => {
            let mut world = ecs_core::World::new();
            record(n, times, |i| {
                black_box(world.spawn((ecs::A(v(i)), ecs::B(v(i)), ecs::C(v(i)), ecs::D(v(i)))));
            });
            drop(black_box(world));
        }
        "bevy_ecs" => {
            let mut world = bevy_ecs::world::World::new();
            record(n, times, |i| {
                black_box(world.spawn((bevy::A(v(i)), bevy::B(v(i)), bevy::C(v(i)), bevy::D(v(i)))).id());
            });
            drop(black_box(world));
        }
        "hecs" => {
            let mut world = hecs::World::new();
            record(n, times, |i| {
                use hecs_types::*;
                black_box(world.spawn((A(v(i)), B(v(i)), C(v(i)), D(v(i)))));
            });
            drop(black_box(world));
        }
        _ => unreachable!(),
    }
    summary(times)
}

fn median(mut xs: Vec<u64>) -> u64 {
    xs.sort_unstable();
    xs[xs.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let runs: usize = args.next().map_or(7, |a| a.parse().expect("RUNS is a number"));
    let n: usize = args.next().map_or(1_000_000, |a| a.parse().expect("ENTITIES is a number"));
    // `SPAWN_LATENCY_CRATES=hecs` measures one crate (in a fresh process, say).
    let chosen = std::env::var("SPAWN_LATENCY_CRATES").unwrap_or_else(|_| "ecs,bevy_ecs,hecs".into());
    let crates: Vec<&str> =
        ["ecs", "bevy_ecs", "hecs"].into_iter().filter(|c| chosen.split(',').any(|x| x == *c)).collect();
    assert!(!crates.is_empty(), "SPAWN_LATENCY_CRATES names none of ecs, bevy_ecs, hecs");
    let mut times = Vec::with_capacity(n);
    let mut results: Vec<Vec<(u64, u64, u64)>> = vec![Vec::new(); crates.len()];
    for r in 0..runs {
        for k in 0..crates.len() {
            let c = (k + r) % crates.len();
            let s = run(crates[c], n, &mut times);
            eprintln!("run {}/{runs} {:>8}: median {} ns, p99.9 {} ns, max {} ns", r + 1, crates[c], s.0, s.1, s.2);
            results[c].push(s);
        }
    }
    println!("spawn_latency: {n} spawns one at a time, four 16-byte components, medians of {runs} runs");
    println!("| crate | median | p99.9 | max | max over runs |");
    println!("|---|---|---|---|---|");
    for (c, name) in crates.iter().enumerate() {
        let r = &results[c];
        let worst = r.iter().map(|s| s.2).max().unwrap_or(0);
        println!(
            "| {name} | {} ns | {} ns | {:.1} µs | {:.1} µs |",
            median(r.iter().map(|s| s.0).collect()),
            median(r.iter().map(|s| s.1).collect()),
            median(r.iter().map(|s| s.2).collect()) as f64 / 1e3,
            worst as f64 / 1e3
        );
    }
}
