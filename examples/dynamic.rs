//! A mod, as data: components defined at run time from a data file, entities
//! spawned from it beside Rust components, a system over the mod's
//! components running in the same schedule as typed systems, and a save
//! that loads back by name.
//!
//! Run with `cargo run --example dynamic`.

use ecs_core::component::{ComponentDescriptor, FieldKind, SchemaBuilder};
use ecs_core::prelude::*;
use ecs_core::serialize::SerializeRegistry;
use ecs_core::system::{DynamicSystem, Schedule};
use ecs_core::world::{DynamicValue, EntityBuilder};
use serde::Deserialize;

/// A Rust component the game defines; the mod's entities use it too.
#[derive(Component, Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Speed(f32);

#[derive(Deserialize)]
struct ModFile {
    components: Vec<ComponentDef>,
    entities: Vec<serde_json::Map<String, serde_json::Value>>,
}

#[derive(Deserialize)]
struct ComponentDef {
    name: String,
    storage: String,
    fields: Vec<(String, String)>,
}

/// The kind a mod file names, as the game's loader reads them.
fn kind(name: &str) -> Result<FieldKind, String> {
    Ok(match name {
        "bool" => FieldKind::Bool,
        "i32" => FieldKind::I32,
        "u8" => FieldKind::U8,
        "u32" => FieldKind::U32,
        "f32" => FieldKind::F32,
        "String" => FieldKind::String,
        "Entity" => FieldKind::Entity,
        other => return Err(format!("unknown field kind `{other}`")),
    })
}

fn descriptors(file: &ModFile) -> Result<Vec<ComponentDescriptor>, Box<dyn std::error::Error>> {
    let mut out = Vec::new();
    for def in &file.components {
        let mut schema = SchemaBuilder::new(&def.name);
        for (field, kind_name) in &def.fields {
            schema = schema.field(field, kind(kind_name)?);
        }
        let descriptor = ComponentDescriptor::new(&def.name, schema.build()?);
        out.push(match def.storage.as_str() {
            "sparse" => descriptor.sparse(),
            "per_field" => descriptor.per_field(),
            _ => descriptor,
        });
    }
    Ok(out)
}

#[derive(Default)]
struct Log(Vec<String>);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/goblin_mod.json");
    let file: ModFile = serde_json::from_str(&std::fs::read_to_string(path)?)?;
    let descriptors = descriptors(&file)?;

    let mut world = World::new();
    world.insert_resource(Log::default());
    for descriptor in &descriptors {
        world.register_dynamic(descriptor)?;
    }
    println!("the mod defines:");
    for descriptor in &descriptors {
        let id = world.component_id_by_name(descriptor.name()).expect("registered above");
        let info = world.components().get(id).expect("registered above");
        println!("  {}", info.kind().expect("a runtime component has a schema").definition());
    }

    // Each entity in one move: the game's typed component and the mod's.
    let mut builder = EntityBuilder::new();
    for entity in &file.entities {
        for (name, data) in entity {
            if name == "Speed" {
                builder.add(Speed(serde_json::from_value(data.clone())?));
                continue;
            }
            let id = world.component_id_by_name(name).ok_or_else(|| format!("unknown component `{name}`"))?;
            builder.add_dynamic(DynamicValue::deserialize(&world, id, data.clone())?);
        }
        builder.spawn(&mut world)?;
    }
    assert_eq!(world.len(), 3);

    // The mod's rule, a system over its components by id: mana regenerates.
    // A typed system reading `Speed` runs beside it (no shared component).
    let mana = world.component_id_by_name("Mana").expect("registered");
    let regen = world.dynamic_query().write(mana).build(&world)?;
    let mut schedule = Schedule::new();
    schedule.add_systems((
        DynamicSystem::new("mana_regen", regen, move |q| {
            q.for_each_archetype(|archetype| {
                // Mana is stored whole: read and written field by field.
                archetype.for_each_row_mut(mana, |_, mut value| {
                    let (points, rate) =
                        (value.get::<f32>("points").expect("f32"), value.get::<f32>("regen").expect("f32"));
                    value.set("points", (points + rate).min(10.0)).expect("f32");
                });
            })
        }),
        |speeds: Query<&Speed>, mut log: ResMut<Log>| {
            let total: f32 = speeds.iter().map(|s| s.0).sum();
            log.0.push(format!("{total}"));
        },
    ));
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    let mut points: Vec<f32> = Vec::new();
    world.dynamic_query().read(mana).build(&world)?.for_each(&world, |row| {
        points.push(row.get(mana).expect("read").get::<f32>("points").expect("f32"));
    });
    points.sort_by(f32::total_cmp);
    println!("mana after three frames: {points:?}");
    assert_eq!(points, [5.5, 9.0, 10.0]);
    assert_eq!(world.resource::<Log>().0, ["3.5", "3.5", "3.5"]);

    // A save names components, not ids: it loads wherever the mod is loaded.
    let registry =
        descriptors.iter().fold(SerializeRegistry::new().register::<Speed>("Speed"), |r, d| r.register_dynamic(d));
    let json = serde_json::to_string(&registry.rows(&world))?;
    let mut loaded = World::new();
    for descriptor in descriptors.iter().rev() {
        loaded.register_dynamic(descriptor)?;
    }
    loaded.load(registry.load_rows(&mut serde_json::Deserializer::from_str(&json))?);
    let title = loaded.component_id_by_name("Title").expect("registered");
    let mut titles = Vec::new();
    loaded.dynamic_query().read(title).build(&loaded)?.for_each(&loaded, |row| {
        titles.push(row.get(title).expect("read").get_str("text").expect("String").to_owned());
    });
    println!("loaded back: {} entities, titles {titles:?}", loaded.len());
    assert_eq!((loaded.len(), titles), (3, vec!["Shaman".to_owned()]));
    Ok(())
}
