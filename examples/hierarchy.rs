//! A scene graph: three star systems (stars, planets, moons, a station around a
//! moon), each body placed relative to its parent. Every frame a system moves
//! the bodies along their orbits (their *local* transform) and another
//! propagates the transforms down the hierarchy, parents before children, one
//! parallel task per star system (`Query::par_propagate`). Midway a moon is
//! captured by a planet of another system (reparenting, through `Commands`), and
//! later a planet is destroyed with everything orbiting it (linked despawn).
//! The orbits traced over the run are drawn into a PNG.
//!
//! ```text
//! cargo run --release --example hierarchy -- [--frames N] [--output PATH]
//! ```
//! The picture in `docs/relationships.md` is `--output docs/hierarchy.png`.

use std::f32::consts::TAU;

use ecs_core::prelude::*;

/// Image size in pixels; the scene spans `[-1, 1]` on both axes.
const SIZE: usize = 800;

/// Where a body sits relative to its parent: a circular orbit.
#[derive(Component, Clone, Copy)]
struct Orbit {
    radius: f32,
    /// Radians per frame.
    speed: f32,
    phase: f32,
}

/// Position relative to the parent (for a star, in the scene).
#[derive(Component, Clone, Copy, Default, Debug, PartialEq)]
struct Local([f32; 2]);

/// Position in the scene, computed from the parent's.
#[derive(Component, Clone, Copy, Default, Debug, PartialEq)]
struct Global([f32; 2]);

/// How a body is drawn.
#[derive(Component, Clone, Copy)]
struct Body {
    name: &'static str,
    radius: isize,
    colour: [u8; 3],
}

/// Scene positions the body passed through, for the picture.
#[derive(Component, Default)]
struct Trail(Vec<[f32; 2]>);

/// The frame number.
#[derive(Default)]
struct Frame(u32);

/// The capture scheduled for a frame: which moon, and its new parent and orbit.
struct Capture {
    frame: u32,
    moon: Entity,
    by: Entity,
    orbit: Orbit,
}

fn advance(mut bodies: Query<(&mut Orbit, &mut Local)>) {
    for (orbit, local) in bodies.iter_mut() {
        orbit.phase = (orbit.phase + orbit.speed) % TAU;
        local.0 = [orbit.radius * orbit.phase.cos(), orbit.radius * orbit.phase.sin()];
    }
}

/// Parents before children: a body's scene position is its parent's plus its own
/// offset. The star systems are spread over the worker pool.
fn propagate(mut bodies: Query<(&Local, &mut Global)>) {
    bodies.par_propagate::<ChildOf, [f32; 2]>(|parent, (local, global)| {
        let [px, py] = parent.copied().unwrap_or_default();
        global.0 = [px + local.0[0], py + local.0[1]];
        Some(global.0)
    });
}

fn record(mut bodies: Query<(&Global, &mut Trail)>) {
    for (global, trail) in bodies.iter_mut() {
        trail.0.push(global.0);
    }
}

/// Reparents the moon when its frame comes: through a command, so the system
/// needs no exclusive access; `ChildOf` and both parents' `Children` follow.
fn capture(mut frame: ResMut<Frame>, capture: Res<Capture>, mut commands: Commands) {
    frame.0 += 1;
    if frame.0 == capture.frame {
        commands.entity(capture.moon).set_parent(capture.by).insert(capture.orbit);
    }
}

struct Args {
    frames: u32,
    output: String,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args { frames: 720, output: "target/hierarchy.png".into() };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--frames" => args.frames = value("--frames")?.parse().map_err(|e| format!("--frames: {e}"))?,
            "--output" => args.output = value("--output")?,
            "--help" | "-h" => {
                return Err(
                    "usage: hierarchy [--frames N (default 720)] [--output PATH (default target/hierarchy.png)]".into(),
                );
            }
            other => return Err(format!("unknown argument {other}; try --help")),
        }
    }
    if args.frames < 4 {
        return Err("--frames must be at least 4 (the capture and the destruction happen midway)".into());
    }
    Ok(args)
}

/// A body's components; add a `Local` (a star) or an [`orbiting`] (the rest).
fn body(name: &'static str, radius: isize, colour: [u8; 3]) -> (Body, Global, Trail) {
    (Body { name, radius, colour }, Global::default(), Trail::default())
}

fn orbit(radius: f32, period: f32, phase: f32) -> Orbit {
    Orbit { radius, speed: TAU / period, phase }
}

/// An orbit and the local position it sets each frame.
fn orbiting(radius: f32, period: f32, phase: f32) -> (Orbit, Local) {
    (orbit(radius, period, phase), Local::default())
}

/// What the scene holds that the run refers to later.
struct Scene {
    /// The moon a planet of another system captures.
    wanderer: Entity,
    /// The planet that captures it.
    captor: Entity,
    /// The planet destroyed midway, and everything orbiting it.
    doomed: Entity,
}

fn build(world: &mut World) -> Scene {
    let mut wanderer = None;
    let mut captor = None;
    let mut doomed = None;
    // The first star system: two planets, the outer one with two moons (the
    // second of which is captured later) and a station around its first moon.
    let sol = world.spawn((body("Sol", 9, [255, 214, 90]), Local([-0.45, 0.35])));
    world.entity_mut(sol).expect("just spawned").with_children(|star| {
        star.spawn((body("Ember", 3, [230, 120, 80]), orbiting(0.12, 160.0, 0.0)));
        let mut outer = star.spawn((body("Verdant", 5, [90, 200, 140]), orbiting(0.34, 420.0, 1.0)));
        outer.with_children(|planet| {
            let mut moon = planet.spawn((body("Pale", 3, [200, 200, 210]), orbiting(0.07, 70.0, 0.0)));
            moon.with_children(|moon| {
                moon.spawn((body("Outpost", 1, [250, 250, 120]), orbiting(0.025, 25.0, 0.0)));
            });
            wanderer = Some(planet.spawn((body("Wanderer", 2, [170, 150, 255]), orbiting(0.1, 110.0, 2.0))).id());
        });
    });
    // The second: a planet with three moons, destroyed midway.
    let rigel = world.spawn((body("Rigel", 8, [140, 180, 255]), Local([0.45, 0.45])));
    world.entity_mut(rigel).expect("just spawned").with_children(|star| {
        let mut giant = star.spawn((body("Titan", 6, [220, 160, 100]), orbiting(0.3, 300.0, 0.5)));
        giant.with_children(|planet| {
            for (i, name) in ["Io", "Kore", "Lys"].into_iter().enumerate() {
                planet.spawn((
                    body(name, 2, [210, 190, 160]),
                    orbiting(0.05 + 0.025 * i as f32, 40.0 + 25.0 * i as f32, i as f32),
                ));
            }
        });
        doomed = Some(giant.id());
        star.spawn((body("Frost", 3, [160, 220, 240]), orbiting(0.14, 180.0, 3.0)));
    });
    // The third: one planet, the captor.
    let vega = world.spawn((body("Vega", 8, [255, 150, 190]), Local([0.1, -0.5])));
    world.entity_mut(vega).expect("just spawned").with_children(|star| {
        captor = Some(star.spawn((body("Haven", 5, [120, 170, 250]), orbiting(0.28, 360.0, 4.0))).id());
    });
    Scene {
        wanderer: wanderer.expect("spawned above"),
        captor: captor.expect("spawned above"),
        doomed: doomed.expect("spawned above"),
    }
}

/// Every body's scene position is its parent's plus its own offset, and every
/// link is listed on both sides.
fn check(world: &World) {
    for (entity, local, global) in world.query::<(Entity, &Local, &Global)>().iter() {
        let parent = world.parent(entity).map_or([0.0; 2], |p| world.get::<Global>(p).expect("a body").0);
        let expected = [parent[0] + local.0[0], parent[1] + local.0[1]];
        let off = (global.0[0] - expected[0]).abs().max((global.0[1] - expected[1]).abs());
        assert!(off < 1e-6, "{} is {off} away from its parent's position plus its offset", name(world, entity));
        if let Some(parent) = world.parent(entity) {
            assert!(world.children(parent).contains(&entity), "{entity} is listed by its parent");
        }
    }
}

fn name(world: &World, entity: Entity) -> &'static str {
    world.get::<Body>(entity).map_or("?", |b| b.name)
}

fn main() {
    let args = parse_args().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2);
    });
    let mut world = World::new();
    let scene = build(&mut world);
    let bodies = world.len();
    world.insert_resource(Frame::default());
    world.insert_resource(Capture {
        frame: args.frames / 3,
        moon: scene.wanderer,
        by: scene.captor,
        orbit: orbit(0.09, 90.0, 0.0),
    });
    let mut schedule = Schedule::new();
    // The capture's command is applied at the sync point, so the propagation
    // that follows sees the new parent.
    schedule.add_systems(capture).add_sync_point();
    schedule.add_systems((advance, propagate, record).chain());

    let ancestry = |world: &World, e: Entity| -> Vec<&'static str> {
        std::iter::once(e).chain(world.iter_ancestors(e)).map(|a| name(world, a)).collect()
    };
    println!("{} bodies in {} star systems", bodies, world.hierarchy_roots().len());
    println!("before: {}", ancestry(&world, scene.wanderer).join(" -> "));
    let destroy_at = 2 * args.frames / 3;
    // The trails of destroyed bodies, drawn in red.
    let mut ghosts: Vec<Vec<[f32; 2]>> = Vec::new();
    for frame in 1..=args.frames {
        schedule.run(&mut world);
        check(&world);
        if frame == destroy_at {
            let doomed: Vec<Entity> =
                std::iter::once(scene.doomed).chain(world.iter_descendants(scene.doomed)).collect();
            let star = world.parent(scene.doomed).expect("a planet has a star");
            ghosts.extend(doomed.iter().filter_map(|&e| world.get::<Trail>(e)).map(|t| t.0.clone()));
            world.despawn(scene.doomed).expect("the planet is alive");
            assert!(doomed.iter().all(|&e| !world.contains(e)), "its moons went with it");
            assert!(!world.children(star).contains(&scene.doomed), "its star no longer lists it");
            println!("frame {frame}: destroyed a planet and its moons ({} bodies)", doomed.len());
        }
    }
    println!("after:  {}", ancestry(&world, scene.wanderer).join(" -> "));
    assert_eq!(world.parent(scene.wanderer), Some(scene.captor), "the capture took place");
    assert_eq!(world.root_ancestor(scene.wanderer), world.root_ancestor(scene.captor));
    assert_eq!(world.len(), bodies - 4, "the destroyed planet and its three moons are gone");

    match render(&mut world, &ghosts, &args.output) {
        Ok(()) => println!("wrote {}", args.output),
        Err(e) => {
            eprintln!("error: could not write {}: {e}", args.output);
            std::process::exit(1);
        }
    }
}

fn render(world: &mut World, ghosts: &[Vec<[f32; 2]>], path: &str) -> std::io::Result<()> {
    let mut pixels = vec![[10u8, 12, 22]; SIZE * SIZE];
    let to_pixel =
        |p: [f32; 2]| (((p[0] + 1.0) / 2.0 * SIZE as f32) as isize, ((1.0 - p[1]) / 2.0 * SIZE as f32) as isize);
    let mut plot = |p: [f32; 2], colour: [u8; 3], radius: isize| {
        let (cx, cy) = to_pixel(p);
        for dy in -radius..=radius {
            for dx in -radius..=radius {
                let (x, y) = (cx + dx, cy + dy);
                if dx * dx + dy * dy <= radius * radius
                    && (0..SIZE as isize).contains(&x)
                    && (0..SIZE as isize).contains(&y)
                {
                    pixels[y as usize * SIZE + x as usize] = colour;
                }
            }
        }
    };
    // Trails of the bodies still alive, dimmed; then the bodies themselves.
    for (body, trail) in world.query::<(&Body, &Trail)>().iter() {
        let dim = body.colour.map(|c| (c as u16 * 2 / 5) as u8);
        for &p in &trail.0 {
            plot(p, dim, 0);
        }
    }
    for trail in ghosts {
        for &p in trail {
            plot(p, [150, 40, 40], 0);
        }
        if let Some(&last) = trail.last() {
            plot(last, [220, 60, 60], 2);
        }
    }
    for (body, global) in world.query::<(&Body, &Global)>().iter() {
        plot(global.0, body.colour, body.radius);
    }
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut encoder = png::Encoder::new(file, SIZE as u32, SIZE as u32);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(std::io::Error::other)?;
    writer.write_image_data(pixels.as_flattened()).map_err(std::io::Error::other)?;
    Ok(())
}
