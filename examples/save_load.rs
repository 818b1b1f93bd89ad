//! Saving a game to a file and loading it back: a small colony with a
//! hierarchy (ships docked at stations), entity references (targets), a sparse
//! status and a resource, saved in both formats. The row format (JSON) is for
//! reading and editing; the column format (postcard) is compact and exact.
//! Then the save is loaded into a world that already has entities, where ids
//! are remapped, and a corrupted save is refused without touching the world.
//!
//! Run with `cargo run --release --example save_load`.

use std::time::Instant;

use ecs_core::prelude::*;
use ecs_core::serialize::{LoadError, SerializeRegistry};
use serde::{Deserialize, Serialize};

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Name(String);

/// Which entity a ship is flying to: declared with `#[entities]`, so that a
/// load into a busy world rewrites it.
#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Heading(#[entities] Entity);

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[component(storage = "sparse")]
struct Damaged(u8);

/// Render state: never saved.
#[derive(Component, Debug)]
struct Sprite(#[allow(dead_code)] u32);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct GameClock {
    day: u32,
}

fn registry() -> SerializeRegistry {
    SerializeRegistry::new() // knows ChildOf and Children
        .register::<Position>("Position")
        .register::<Name>("Name")
        .register::<Heading>("Heading")
        .register::<Damaged>("Damaged")
        .register_resource::<GameClock>("GameClock")
        .skip::<Sprite>()
}

fn colony() -> World {
    let mut world = World::new();
    world.insert_resource(GameClock { day: 42 });
    let mut ships = Vec::new();
    for s in 0..200 {
        let station = world.spawn((Name(format!("station {s}")), Position { x: s as f32, y: 0.0 }, Sprite(1)));
        for k in 0..50 {
            let ship =
                world.spawn((Name(format!("ship {s}-{k}")), Position { x: s as f32, y: k as f32 }, ChildOf(station)));
            if k % 7 == 0 {
                world.insert(ship, Damaged(k as u8)).unwrap();
            }
            ships.push(ship);
        }
    }
    for (i, &ship) in ships.iter().enumerate() {
        world.insert(ship, Heading(ships[(i * 31 + 7) % ships.len()])).unwrap();
    }
    world
}

/// Every entity in iteration order, with what a save holds.
fn describe(world: &World) -> Vec<String> {
    world
        .iter()
        .map(|e| {
            format!(
                "{} {:?} {:?} {:?} {:?} {:?}",
                e.id(),
                e.get::<Name>(),
                e.get::<Position>(),
                e.get::<Heading>(),
                e.get::<Damaged>(),
                e.get::<ChildOf>()
            )
        })
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = registry();
    let world = colony();
    let dir = std::env::temp_dir().join(format!("ecs-save-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;

    // Save, in both formats.
    let started = Instant::now();
    let json = serde_json::to_string_pretty(&registry.rows(&world))?;
    let json_time = started.elapsed();
    let started = Instant::now();
    let bytes = postcard::to_allocvec(&registry.columns(&world))?;
    let postcard_time = started.elapsed();
    std::fs::write(dir.join("colony.json"), &json)?;
    std::fs::write(dir.join("colony.bin"), &bytes)?;
    println!(
        "saved {} entities: rows as JSON {} KiB in {json_time:.2?}, columns as postcard {} KiB in {postcard_time:.2?}",
        world.len(),
        json.len() / 1024,
        bytes.len() / 1024
    );
    println!("the JSON reads like this:\n{}", json.lines().skip(6).take(12).collect::<Vec<_>>().join("\n"));

    // Load each file into a new game: the same ids, the same iteration order.
    for file in ["colony.json", "colony.bin"] {
        let data = std::fs::read(dir.join(file))?;
        let started = Instant::now();
        let save = if file.ends_with(".json") {
            registry.load_rows(&mut serde_json::Deserializer::from_slice(&data))?
        } else {
            registry.load_columns(&mut postcard::Deserializer::from_bytes(&data))?
        };
        let mut loaded = World::new();
        loaded.load(save);
        println!("loaded {file} in {:.2?}", started.elapsed());
        loaded.check_invariants()?;
        assert_eq!(describe(&loaded), describe(&world), "{file}: the loaded world is the saved one");
        assert_eq!(loaded.resource::<GameClock>(), &GameClock { day: 42 });
        assert!(loaded.iter().all(|e| !e.contains::<Sprite>()), "render state is not saved");
    }

    // Into a world that already has entities: new ids, references follow.
    let mut busy = World::new();
    let mine = busy.spawn(Name("my station".into()));
    let save = registry.load_columns(&mut postcard::Deserializer::from_bytes(&bytes))?;
    let map = busy.load(save);
    let (old_ship, new_ship) = map.iter().find(|&(old, _)| world.get::<Heading>(old).is_some()).unwrap();
    let old_heading = world.get::<Heading>(old_ship).unwrap().0;
    assert_eq!(busy.get::<Heading>(new_ship), Some(&Heading(map.get(old_heading).unwrap())));
    assert_eq!(busy.parent(new_ship), world.parent(old_ship).and_then(|p| map.get(p)));
    assert_eq!(busy.get::<Name>(mine), Some(&Name("my station".into())));
    println!("merged into a busy world: {old_ship} became {new_ship}, its heading and parent followed");

    // A corrupted file is refused with a reason, and the world is untouched.
    let before = describe(&busy);
    let corrupted = json.replacen("\"Heading\": \"", "\"Heading\": \"99999", 1);
    match registry.load_rows(&mut serde_json::Deserializer::from_str(&corrupted)) {
        Err(error @ LoadError::DanglingEntity { .. }) => println!("a corrupted save is refused: {error}"),
        other => panic!("expected a dangling reference, got {other:?}"),
    }
    assert_eq!(describe(&busy), before);
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
