//! Rollback netcode in miniature: a deterministic simulation driven by
//! per-frame inputs, where the other player's inputs arrive up to 8 frames late.
//! Each frame runs on a predicted input (the last one received); when a late
//! input differs from what was predicted, the world rolls back to the snapshot
//! of that frame and re-simulates every frame since. At the end the world is
//! hashed and compared with a run that had every input on time: they must be
//! identical, down to entity ids and what `Changed` reported.
//!
//! Run with `cargo run --release --example rollback`.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::{Duration, Instant};

use ecs_core::prelude::*;
use ecs_core::snapshot::Snapshot;

const FRAMES: usize = 600;
const ROCKS: usize = 20_000;
/// Frames kept for rollback: an input may arrive this many frames late.
const MAX_DELAY: usize = 8;

#[derive(Component, Clone, Copy, Debug, Pod, Zeroable)]
#[repr(C)]
#[component(pod)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Copy, Debug, Pod, Zeroable)]
#[repr(C)]
#[component(pod)]
struct Velocity {
    x: f32,
    y: f32,
}

/// A ship, steered by player 0 or 1.
#[derive(Component, Clone, Copy, Debug)]
struct Ship(usize);

/// A rock ships can mine: it breaks into debris.
#[derive(Component, Clone, Copy, Debug)]
struct Rock;

#[derive(Component, Clone, Copy, Debug)]
struct Debris {
    frames_left: u32,
}

/// One player's input for one frame: a thrust direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct Input {
    dx: i8,
    dy: i8,
}

/// The inputs the current frame runs on.
#[derive(Clone, Copy, Default)]
struct FrameInputs([Input; 2]);

/// Rocks mined per player: part of the simulated state, so snapshots hold it.
#[derive(Clone, Default, Debug, Hash)]
struct Score([u32; 2]);

/// How many rocks `Changed<Position>` saw, summed over frames (part of the
/// hash: change detection must replay exactly too).
#[derive(Clone, Default, Debug, Hash)]
struct Moved(u64);

fn steer(inputs: Res<FrameInputs>, mut ships: Query<(&Ship, &mut Velocity)>) {
    for (ship, velocity) in &mut ships {
        let input = inputs.0[ship.0];
        velocity.x = (velocity.x + f32::from(input.dx) * 0.1).clamp(-2.0, 2.0);
        velocity.y = (velocity.y + f32::from(input.dy) * 0.1).clamp(-2.0, 2.0);
    }
}

fn movement(mut query: Query<(&mut Position, &Velocity)>) {
    query.par_for_each_mut(|(position, velocity)| {
        position.x = (position.x + velocity.x).rem_euclid(1000.0);
        position.y = (position.y + velocity.y).rem_euclid(1000.0);
    });
}

fn mine(
    ships: Query<(&Ship, &Position)>,
    rocks: Query<(Entity, &Position), With<Rock>>,
    mut score: ResMut<Score>,
    mut commands: Commands,
) {
    for (ship, at) in &ships {
        for (rock, position) in &rocks {
            if (position.x - at.x).abs() < 6.0 && (position.y - at.y).abs() < 6.0 {
                commands.entity(rock).despawn();
                score.0[ship.0] += 1;
                for i in 0..3 {
                    let angle = i as f32 * 2.1;
                    commands.spawn((
                        *position,
                        Velocity { x: angle.cos(), y: angle.sin() },
                        Debris { frames_left: 30 },
                    ));
                }
            }
        }
    }
}

fn decay(mut debris: Query<(Entity, &mut Debris)>, mut commands: Commands) {
    for (entity, debris) in &mut debris {
        debris.frames_left -= 1;
        if debris.frames_left == 0 {
            commands.entity(entity).despawn();
        }
    }
}

fn count_moved(moved: Query<(), (Changed<Position>, With<Rock>)>, mut total: ResMut<Moved>) {
    total.0 += moved.iter().count() as u64;
}

fn new_world() -> (World, Schedule) {
    let mut world = World::new();
    world.insert_resource(FrameInputs::default());
    world.insert_resource(Score::default());
    world.insert_resource(Moved::default());
    world.register_snapshot_resource::<Score>();
    world.register_snapshot_resource::<Moved>();
    world.spawn_batch((0..ROCKS).map(|i| {
        let f = i as f32;
        (
            Position { x: (f * 7.31) % 1000.0, y: (f * 3.17) % 1000.0 },
            // Every third rock drifts; `movement` writes them all the same.
            Velocity { x: if i % 3 == 0 { (f * 0.37).sin() * 0.2 } else { 0.0 }, y: 0.0 },
            Rock,
        )
    }));
    world.spawn((Position { x: 200.0, y: 500.0 }, Velocity { x: 0.0, y: 0.0 }, Ship(0)));
    world.spawn((Position { x: 800.0, y: 500.0 }, Velocity { x: 0.0, y: 0.0 }, Ship(1)));
    let mut schedule = Schedule::new();
    schedule.add_systems((steer, movement, mine, decay, count_moved).chain());
    (world, schedule)
}

/// The inputs both players actually gave, frame by frame (a fixed pseudo-random
/// script, so the example is reproducible).
fn script() -> Vec<[Input; 2]> {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut held = [Input::default(); 2];
    (0..FRAMES)
        .map(|_| {
            for input in &mut held {
                // Players change direction now and then, and hold it in between.
                if next() % 10 == 0 {
                    *input = Input { dx: (next() % 3) as i8 - 1, dy: (next() % 3) as i8 - 1 };
                }
            }
            held
        })
        .collect()
}

fn world_hash(world: &World) -> u64 {
    let mut h = DefaultHasher::new();
    for entity in world.iter() {
        entity.id().to_bits().hash(&mut h);
        if let Some(p) = entity.get::<Position>() {
            (p.x.to_bits(), p.y.to_bits()).hash(&mut h);
        }
        if let Some(v) = entity.get::<Velocity>() {
            (v.x.to_bits(), v.y.to_bits()).hash(&mut h);
        }
        entity.get::<Debris>().map(|d| d.frames_left).hash(&mut h);
    }
    world.resource::<Score>().hash(&mut h);
    world.resource::<Moved>().hash(&mut h);
    h.finish()
}

fn simulate_frame(world: &mut World, schedule: &mut Schedule, inputs: [Input; 2]) {
    world.resource_mut::<FrameInputs>().0 = inputs;
    schedule.run(world);
}

#[derive(Default)]
struct Costs {
    snapshot: Duration,
    restore: Duration,
    resimulate: Duration,
    simulate: Duration,
    rollbacks: usize,
    resimulated_frames: usize,
}

fn main() {
    let script = script();

    // The reference: every input on time.
    let (mut reference, mut schedule) = new_world();
    for inputs in &script {
        simulate_frame(&mut reference, &mut schedule, *inputs);
    }
    let expected = world_hash(&reference);

    // Player 1's input for frame `f` arrives at frame `f + delay(f)`.
    let delay = |frame: usize| (frame * 7 + frame / 5) % (MAX_DELAY + 1);
    let (mut world, mut schedule) = new_world();
    let mut ring: Vec<Snapshot> = (0..=MAX_DELAY).map(|_| Snapshot::new()).collect();
    let mut known: Vec<Option<Input>> = vec![None; FRAMES];
    let mut used: Vec<[Input; 2]> = Vec::with_capacity(FRAMES);
    let mut costs = Costs::default();
    // Player 1's last input received, frame by frame: what a frame predicts with.
    let predict = |known: &[Option<Input>], frame: usize| known[..=frame].iter().rev().find_map(|i| *i);

    for frame in 0..FRAMES {
        // Late inputs arriving now: the earliest frame whose prediction was wrong.
        let mut rollback_to = None;
        for (past, input) in script.iter().enumerate().take(frame + 1) {
            if past + delay(past) == frame {
                known[past] = Some(input[1]);
                if past < frame && used[past][1] != input[1] && rollback_to.is_none_or(|r| past < r) {
                    rollback_to = Some(past);
                }
            }
        }
        if let Some(from) = rollback_to {
            let start = Instant::now();
            // The snapshot of `from` (taken before it ran) takes the world's place.
            world.swap_snapshot(&mut ring[from % (MAX_DELAY + 1)]).expect("a complete snapshot");
            costs.restore += start.elapsed();
            costs.rollbacks += 1;
            let start = Instant::now();
            for past in from..frame {
                let inputs = [script[past][0], predict(&known, past).unwrap_or_default()];
                world.snapshot_into(&mut ring[past % (MAX_DELAY + 1)]).expect("every component is Copy");
                simulate_frame(&mut world, &mut schedule, inputs);
                used[past] = inputs;
                costs.resimulated_frames += 1;
            }
            costs.resimulate += start.elapsed();
        }
        let start = Instant::now();
        world.snapshot_into(&mut ring[frame % (MAX_DELAY + 1)]).expect("every component is Copy");
        costs.snapshot += start.elapsed();
        let inputs = [script[frame][0], predict(&known, frame).unwrap_or_default()];
        let start = Instant::now();
        simulate_frame(&mut world, &mut schedule, inputs);
        costs.simulate += start.elapsed();
        used.push(inputs);
    }
    // The last inputs arrive after the last frame: roll back once more.
    let late = (0..FRAMES).filter(|&f| f + delay(f) >= FRAMES).min().unwrap_or(FRAMES);
    for (frame, input) in script.iter().enumerate().skip(late) {
        known[frame] = Some(input[1]);
    }
    if let Some(from) = (late..FRAMES).find(|&f| used[f][1] != script[f][1]) {
        world.swap_snapshot(&mut ring[from % (MAX_DELAY + 1)]).expect("a complete snapshot");
        costs.rollbacks += 1;
        for (past, inputs) in script.iter().enumerate().skip(from) {
            simulate_frame(&mut world, &mut schedule, *inputs);
            used[past] = *inputs;
            costs.resimulated_frames += 1;
        }
    }

    let got = world_hash(&world);
    let per = |d: Duration, n: usize| d.as_secs_f64() * 1e6 / n.max(1) as f64;
    println!("{FRAMES} frames, {} entities at the end, inputs up to {MAX_DELAY} frames late", world.len());
    println!(
        "  {} rollbacks re-simulated {} frames ({:.1} per rollback)",
        costs.rollbacks,
        costs.resimulated_frames,
        costs.resimulated_frames as f64 / costs.rollbacks.max(1) as f64
    );
    println!("  per frame:    simulate {:>8.1} µs", per(costs.simulate, FRAMES));
    println!("                snapshot {:>8.1} µs", per(costs.snapshot, FRAMES));
    println!("  per rollback: restore  {:>8.1} µs", per(costs.restore, costs.rollbacks));
    println!("                re-simulate {:>8.1} µs", per(costs.resimulate, costs.rollbacks));
    println!("  score {:?}, rocks moved {}", world.resource::<Score>().0, world.resource::<Moved>().0);
    println!("  world hash {got:016x}, with every input on time {expected:016x}");
    assert_eq!(got, expected, "the rolled-back run must end in exactly the world of the on-time run");
    assert_eq!(world.spawn(()), reference.spawn(()), "and hand out the same next id");
    println!("  identical: rollback and re-simulation reproduced the on-time run exactly");
}
