//! Prey and predators on a torus: prey flock (separation, alignment, cohesion)
//! and flee, predators hunt through a spatial grid, caught prey are despawned,
//! well-fed prey reproduce, and entities gain and lose components as their state
//! changes, so archetype moves happen every frame.
//!
//! ```text
//! cargo run --release --example flocking -- [--prey N] [--predators N] [--frames N] [--output PATH]
//! ```
//! Prints per-frame timing (median and worst frame), entity and archetype counts,
//! and writes a PNG of the final frame.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use ecs_core::prelude::*;

const WORLD: f32 = 1000.0;
const CELL: f32 = 16.0;
const CELLS: usize = 62; // floor(WORLD / CELL)

#[derive(Component, Clone, Copy, Debug, Default, Pod, Zeroable)]
#[repr(C)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Copy, Debug, Default, Pod, Zeroable)]
#[repr(C)]
struct Velocity {
    x: f32,
    y: f32,
}

/// Prey: energy grows over time; at the threshold the prey splits.
#[derive(Component, Clone, Copy, Pod, Zeroable)]
#[repr(C)]
struct Prey {
    energy: f32,
}

/// Predator: hunger grows; catching prey resets it.
#[derive(Component)]
struct Predator {
    hunger: f32,
    catches: u32,
}

/// A predator's recent path (heap data that moves with the entity).
#[derive(Component)]
struct Trail(Vec<Position>);

/// Prey that sees a predator; carries whom it flees from. Gained and lost every
/// few frames, so it is stored sparse: inserting or removing it writes the
/// entity's row in place instead of moving the entity to another archetype.
#[derive(Component, Clone, Copy)]
#[component(storage = "sparse")]
struct Fleeing {
    from: Entity,
}

/// A tag: prey born this run (tags do not move entities).
#[derive(Component)]
struct Newborn;

#[derive(Clone, Copy)]
struct Params {
    dt: f32,
    prey_speed: f32,
    predator_speed: f32,
    view: f32,
    catch: f32,
    max_prey: usize,
}

/// The spatial grid: each cell lists the entities in it, with a copy of their
/// position and velocity, rebuilt every frame.
struct Grid {
    cells: Vec<Vec<(Entity, Position, Velocity, bool)>>,
}

impl Grid {
    fn cell(p: Position) -> (usize, usize) {
        // The last row and column are a little wider than CELL, so every
        // neighbour within CELL is in the 3x3 block around a position's cell.
        (((p.x / CELL) as usize).min(CELLS - 1), ((p.y / CELL) as usize).min(CELLS - 1))
    }

    fn neighbours(&self, p: Position) -> impl Iterator<Item = &(Entity, Position, Velocity, bool)> {
        let (cx, cy) = Self::cell(p);
        (0..9).flat_map(move |i| {
            let x = (cx + CELLS + i % 3 - 1) % CELLS;
            let y = (cy + CELLS + i / 3 - 1) % CELLS;
            self.cells[y * CELLS + x].iter()
        })
    }
}

/// The shortest offset from `a` to `b` on the torus.
fn offset(a: Position, b: Position) -> (f32, f32) {
    let wrap = |d: f32| {
        if d > WORLD / 2.0 {
            d - WORLD
        } else if d < -WORLD / 2.0 {
            d + WORLD
        } else {
            d
        }
    };
    (wrap(b.x - a.x), wrap(b.y - a.y))
}

/// A small deterministic generator (xorshift), so runs are repeatable.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

#[derive(Default)]
struct Counters {
    caught: u32,
    born: u32,
    started_fleeing: u32,
    stopped_fleeing: u32,
}

fn build_grid(entities: Query<(Entity, &Position, &Velocity, Option<&Predator>)>, mut grid: ResMut<Grid>) {
    grid.cells.iter_mut().for_each(Vec::clear);
    for (e, p, v, predator) in entities.iter() {
        let (x, y) = Grid::cell(*p);
        grid.cells[y * CELLS + x].push((e, *p, *v, predator.is_some()));
    }
}

fn flock(mut prey: Query<(&Position, &mut Velocity), With<Prey>>, grid: Res<Grid>, params: Res<Params>) {
    let params = *params;
    prey.par_for_each_mut(|(p, v)| {
        let (mut sep, mut align, mut centre, mut flee, mut n) = ((0.0, 0.0), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0), 0.0);
        for (_, q, w, is_predator) in grid.neighbours(*p) {
            let (dx, dy) = offset(*p, *q);
            let d2 = dx * dx + dy * dy;
            if d2 > params.view * params.view || d2 == 0.0 {
                continue;
            }
            if *is_predator {
                flee.0 -= dx / d2;
                flee.1 -= dy / d2;
                continue;
            }
            sep.0 -= dx / d2;
            sep.1 -= dy / d2;
            align.0 += w.x;
            align.1 += w.y;
            centre.0 += dx;
            centre.1 += dy;
            n += 1.0;
        }
        if n > 0.0 {
            v.x += 0.05 * (align.0 / n - v.x) + 0.002 * centre.0 / n + 1.5 * sep.0;
            v.y += 0.05 * (align.1 / n - v.y) + 0.002 * centre.1 / n + 1.5 * sep.1;
        }
        v.x += 200.0 * flee.0;
        v.y += 200.0 * flee.1;
        let speed = (v.x * v.x + v.y * v.y).sqrt().max(1e-3);
        let limit = speed.min(params.prey_speed) / speed;
        v.x *= limit;
        v.y *= limit;
    });
}

fn notice(
    prey: Query<(Entity, &Position, Option<&Fleeing>), With<Prey>>,
    grid: Res<Grid>,
    params: Res<Params>,
    mut counters: ResMut<Counters>,
    mut commands: Commands,
) {
    for (e, p, fleeing) in prey.iter() {
        let threat = grid.neighbours(*p).find(|(_, q, _, is_predator)| {
            let (dx, dy) = offset(*p, *q);
            *is_predator && dx * dx + dy * dy < params.view * params.view
        });
        match (threat, fleeing) {
            (Some(&(predator, ..)), None) => {
                commands.insert(e, Fleeing { from: predator });
                counters.started_fleeing += 1;
            }
            (None, Some(_)) => {
                commands.remove::<Fleeing>(e);
                counters.stopped_fleeing += 1;
            }
            _ => {}
        }
    }
}

fn hunt(mut predators: Query<(&Position, &mut Velocity, &mut Predator)>, grid: Res<Grid>, params: Res<Params>) {
    for (p, v, predator) in predators.iter_mut() {
        predator.hunger += params.dt;
        let target = grid
            .neighbours(*p)
            .filter(|(.., is_predator)| !is_predator)
            .map(|(_, q, ..)| offset(*p, *q))
            .min_by(|a, b| (a.0 * a.0 + a.1 * a.1).total_cmp(&(b.0 * b.0 + b.1 * b.1)));
        if let Some((dx, dy)) = target {
            let d = (dx * dx + dy * dy).sqrt().max(1e-3);
            v.x += 0.3 * (dx / d * params.predator_speed - v.x);
            v.y += 0.3 * (dy / d * params.predator_speed - v.y);
        }
    }
}

fn movement(mut moving: Query<(&mut Position, &Velocity)>, params: Res<Params>) {
    let dt = params.dt;
    moving.par_for_each_mut(|(p, v)| {
        p.x = (p.x + v.x * dt).rem_euclid(WORLD);
        p.y = (p.y + v.y * dt).rem_euclid(WORLD);
    });
}

fn catch(
    mut predators: Query<(&Position, &mut Predator, &mut Trail)>,
    grid: Res<Grid>,
    params: Res<Params>,
    mut eaten: Local<HashSet<Entity>>,
    mut commands: Commands,
) {
    eaten.clear();
    for (p, predator, trail) in predators.iter_mut() {
        if trail.0.len() == 16 {
            trail.0.remove(0);
        }
        trail.0.push(*p);
        let prey = grid.neighbours(*p).find(|(e, q, _, is_predator)| {
            let (dx, dy) = offset(*p, *q);
            !is_predator && dx * dx + dy * dy < params.catch * params.catch && !eaten.contains(e)
        });
        if let Some(&(e, ..)) = prey {
            eaten.insert(e);
            commands.despawn(e);
            predator.hunger = 0.0;
            predator.catches += 1;
        }
    }
}

fn reproduce(
    mut prey: Query<(&Position, &mut Prey)>,
    params: Res<Params>,
    mut rng: ResMut<Rng>,
    mut counters: ResMut<Counters>,
    mut commands: Commands,
) {
    let mut population = prey.iter_mut().count();
    for (p, prey) in prey.iter_mut() {
        prey.energy += params.dt * (0.5 + rng.next());
        if prey.energy >= 10.0 && population < params.max_prey {
            prey.energy = 0.0;
            population += 1;
            counters.born += 1;
            let child = Position {
                x: (p.x + rng.next() * 4.0).rem_euclid(WORLD),
                y: (p.y + rng.next() * 4.0).rem_euclid(WORLD),
            };
            let v = Velocity { x: rng.next() - 0.5, y: rng.next() - 0.5 };
            commands.spawn((child, v, Prey { energy: 0.0 }, Newborn));
        }
    }
}

struct Args {
    prey: usize,
    predators: usize,
    frames: usize,
    output: String,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args { prey: 20_000, predators: 150, frames: 200, output: "flocking.png".into() };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match flag.as_str() {
            "--prey" => args.prey = value("--prey")?.parse().map_err(|e| format!("--prey: {e}"))?,
            "--predators" => args.predators = value("--predators")?.parse().map_err(|e| format!("--predators: {e}"))?,
            "--frames" => args.frames = value("--frames")?.parse().map_err(|e| format!("--frames: {e}"))?,
            "--output" => args.output = value("--output")?,
            "--help" | "-h" => {
                println!(
                    "flocking: prey and predators on a torus, run by an ecs-core schedule\n\n\
                     USAGE: cargo run --release --example flocking -- [OPTIONS]\n\n\
                     OPTIONS:\n  --prey N        prey at the start (default 20000)\n  \
                     --predators N   predators (default 150)\n  --frames N      frames to simulate (default 200)\n  \
                     --output PATH   PNG of the final frame (default flocking.png)\n  --help          this text"
                );
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument `{other}` (try --help)")),
        }
    }
    Ok(args)
}

fn render(world: &World, path: &str) -> std::io::Result<()> {
    const SIZE: usize = 800;
    let mut pixels = vec![[12u8, 14, 24]; SIZE * SIZE];
    let mut plot = |p: Position, colour: [u8; 3], radius: isize| {
        let (cx, cy) = ((p.x / WORLD * SIZE as f32) as isize, (p.y / WORLD * SIZE as f32) as isize);
        for dy in -radius..=radius {
            for dx in -radius..=radius {
                let (x, y) = ((cx + dx).rem_euclid(SIZE as isize), (cy + dy).rem_euclid(SIZE as isize));
                pixels[y as usize * SIZE + x as usize] = colour;
            }
        }
    };
    for (p, fleeing, newborn) in
        world.query_filtered::<(&Position, Option<&Fleeing>, Option<&Newborn>), With<Prey>>().iter()
    {
        let colour = match (fleeing.is_some(), newborn.is_some()) {
            (true, _) => [250, 210, 60],
            (false, true) => [120, 220, 140],
            (false, false) => [70, 150, 230],
        };
        plot(*p, colour, 0);
    }
    for trail in world.query::<&Trail>().iter() {
        for p in &trail.0 {
            plot(*p, [120, 40, 40], 0);
        }
    }
    for (p, _) in world.query::<(&Position, &Predator)>().iter() {
        plot(*p, [240, 60, 50], 2);
    }
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut encoder = png::Encoder::new(file, SIZE as u32, SIZE as u32);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(std::io::Error::other)?;
    writer.write_image_data(pixels.as_flattened()).map_err(std::io::Error::other)?;
    Ok(())
}

fn main() {
    let args = parse_args().unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2);
    });
    let mut world = World::new();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    world.spawn_batch(
        (0..args.prey)
            .map(|_| {
                let p = Position { x: rng.next() * WORLD, y: rng.next() * WORLD };
                let v = Velocity { x: rng.next() * 2.0 - 1.0, y: rng.next() * 2.0 - 1.0 };
                (p, v, Prey { energy: rng.next() * 10.0 })
            })
            .collect::<Vec<_>>(),
    );
    world.spawn_batch(
        (0..args.predators)
            .map(|_| {
                let p = Position { x: rng.next() * WORLD, y: rng.next() * WORLD };
                (p, Velocity::default(), Predator { hunger: 0.0, catches: 0 }, Trail(Vec::with_capacity(16)))
            })
            .collect::<Vec<_>>(),
    );
    world.insert_resource(rng);
    world.insert_resource(Grid { cells: vec![Vec::new(); CELLS * CELLS] });
    world.insert_resource(Counters::default());
    world.insert_resource(Params {
        dt: 1.0 / 30.0,
        prey_speed: 40.0,
        predator_speed: 55.0,
        view: CELL,
        catch: 3.0,
        max_prey: args.prey + args.prey / 2,
    });

    // Catches are counted where prey disappear, not by the hunters: an observer
    // of the prey's despawn, whatever system (or command) despawns it.
    world.add_observer(|_: On<Despawn, Prey>, mut counters: ResMut<Counters>| counters.caught += 1);

    let mut schedule = Schedule::new();
    schedule
        .add_systems(build_grid)
        .add_systems(flock.after(build_grid))
        .add_systems(notice.after(build_grid))
        .add_systems(hunt.after(build_grid))
        .add_systems(catch.after(hunt))
        .add_systems(reproduce)
        .add_systems(movement.after(flock).after(hunt).after(catch));

    let mut frames: Vec<Duration> = Vec::with_capacity(args.frames);
    for _ in 0..args.frames {
        let start = Instant::now();
        schedule.run(&mut world);
        frames.push(start.elapsed());
    }
    frames.sort();
    let counters = world.get_resource::<Counters>().expect("inserted above");
    let archetypes = world.archetypes().iter().filter(|a| !a.is_empty()).count();
    let prey = world.query_filtered::<Entity, With<Prey>>().iter().count();
    let predators = world.query_filtered::<Entity, With<Predator>>().iter().count();
    let fleeing = world.query::<&Fleeing>().iter().filter(|f| world.contains(f.from)).count();
    let best = world.query::<&Predator>().iter().map(|p| p.catches).max().unwrap_or(0);
    if let (Some(median), Some(worst)) = (frames.get(frames.len() / 2), frames.last()) {
        println!("frames: {}  median {:.2?}  worst {:.2?}", frames.len(), median, worst);
    }
    println!(
        "entities: {} ({prey} prey, {predators} predators, {} observer)  archetypes in use: {archetypes}",
        world.len(),
        world.observer_count()
    );
    println!(
        "caught {}  born {}  started fleeing {}  stopped fleeing {}  fleeing now {fleeing}  best hunter {best}",
        counters.caught, counters.born, counters.started_fleeing, counters.stopped_fleeing
    );
    world.check_invariants().expect("the world is consistent");
    match render(&world, &args.output) {
        Ok(()) => println!("wrote {}", args.output),
        Err(e) => {
            eprintln!("error: could not write {}: {e}", args.output);
            std::process::exit(1);
        }
    }
}
