//! A particle system in both layouts: the same component stored whole (the
//! default) and per field (`#[component(layout = "soa")]`), the same three
//! systems over each, and the time of a frame in each.
//!
//! Each frame applies gravity (`vy` only), moves every particle (`x, y, z` from
//! `vx, vy, vz`) and ages it (`age` only). A particle carries twelve fields
//! (48 bytes), so the per-field layout reads only what each system uses: one,
//! six and one array of twelve.
//!
//! `cargo run --release --example particles [PARTICLES] [FRAMES]` (default
//! 200,000 particles, 120 frames).

use std::time::{Duration, Instant};

use ecs_core::prelude::*;

/// One particle, stored whole.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Particle {
    x: f32,
    y: f32,
    z: f32,
    vx: f32,
    vy: f32,
    vz: f32,
    mass: f32,
    age: f32,
    r: f32,
    g: f32,
    b: f32,
    a: f32,
}

/// The same fields, each in its own array.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(layout = "soa")]
struct SoaParticle {
    x: f32,
    y: f32,
    z: f32,
    vx: f32,
    vy: f32,
    vz: f32,
    mass: f32,
    age: f32,
    r: f32,
    g: f32,
    b: f32,
    a: f32,
}

const DT: f32 = 1.0 / 60.0;
const GRAVITY: f32 = 9.81;

/// A fountain: particles leave the origin upwards, spread on a cone.
fn emitted(i: usize) -> Particle {
    let t = i as f32 * 0.618_034;
    let (s, c) = (t * std::f32::consts::TAU).sin_cos();
    let spread = (i % 97) as f32 / 97.0;
    Particle {
        x: 0.0,
        y: 0.0,
        z: 0.0,
        vx: c * spread * 2.0,
        vy: 8.0 + spread,
        vz: s * spread * 2.0,
        mass: 1.0,
        age: 0.0,
        r: spread,
        g: 0.5,
        b: 1.0 - spread,
        a: 1.0,
    }
}

fn split(p: Particle) -> SoaParticle {
    let Particle { x, y, z, vx, vy, vz, mass, age, r, g, b, a } = p;
    SoaParticle { x, y, z, vx, vy, vz, mass, age, r, g, b, a }
}

fn gravity(mut particles: Query<&mut Particle>) {
    particles.iter_mut().for_each(|p| p.vy -= GRAVITY * DT);
}

fn movement(mut particles: Query<&mut Particle>) {
    particles.iter_mut().for_each(|p| {
        p.x += p.vx * DT;
        p.y += p.vy * DT;
        p.z += p.vz * DT;
    });
}

fn aging(mut particles: Query<&mut Particle>) {
    particles.iter_mut().for_each(|p| p.age += DT);
}

// The same systems over the per-field particle: `&mut SoaParticle` yields a
// `SoaParticleMut`, a `&mut` per field.
fn soa_gravity(mut particles: Query<&mut SoaParticle>) {
    particles.iter_mut().for_each(|p| *p.vy -= GRAVITY * DT);
}

fn soa_movement(mut particles: Query<&mut SoaParticle>) {
    particles.iter_mut().for_each(|p| {
        *p.x += *p.vx * DT;
        *p.y += *p.vy * DT;
        *p.z += *p.vz * DT;
    });
}

fn soa_aging(mut particles: Query<&mut SoaParticle>) {
    particles.iter_mut().for_each(|p| *p.age += DT);
}

/// Runs `frames` frames and returns the median frame time.
fn run(world: &mut World, schedule: &mut Schedule, frames: usize) -> Duration {
    let mut times: Vec<Duration> = (0..frames)
        .map(|_| {
            let start = Instant::now();
            schedule.run(world);
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>().expect("PARTICLES FRAMES: two numbers"));
    let particles = args.next().unwrap_or(200_000);
    let frames = args.next().unwrap_or(120).max(1);

    let mut whole = World::new();
    whole.spawn_batch((0..particles).map(emitted));
    let mut whole_schedule = Schedule::new();
    whole_schedule.add_systems((gravity, movement, aging).chain());

    let mut soa = World::new();
    soa.spawn_batch((0..particles).map(|i| split(emitted(i))));
    let mut soa_schedule = Schedule::new();
    soa_schedule.add_systems((soa_gravity, soa_movement, soa_aging).chain());

    let whole_frame = run(&mut whole, &mut whole_schedule, frames);
    let soa_frame = run(&mut soa, &mut soa_schedule, frames);

    // Both layouts simulated the same particles the same way.
    let mut checked = 0;
    for (p, q) in whole.query::<&Particle>().iter().zip(soa.query::<&SoaParticle>().iter()) {
        assert_eq!(split(*p), SoaParticle { x: *q.x, y: *q.y, z: *q.z, vx: *q.vx, vy: *q.vy, vz: *q.vz, ..split(*p) });
        assert_eq!((p.age, p.mass), (*q.age, *q.mass));
        checked += 1;
    }
    assert_eq!(checked, particles);
    let highest = soa.query::<&SoaParticle>().iter().map(|p| *p.y).fold(f32::MIN, f32::max);

    println!("{particles} particles, {frames} frames (gravity, movement, aging); median frame time:");
    println!("  whole values (default layout):            {:>9.1} µs", whole_frame.as_secs_f64() * 1e6);
    println!("  per field (#[component(layout = \"soa\")]): {:>9.1} µs", soa_frame.as_secs_f64() * 1e6);
    println!(
        "  per field is {:.2}x the speed of whole values; the highest particle is at y = {highest:.2}",
        whole_frame.as_secs_f64() / soa_frame.as_secs_f64()
    );
}
