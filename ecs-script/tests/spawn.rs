//! `world:spawn(values)`: an entity with initial values, checked first and
//! placed at once, from a call and from a script system.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ecs_core::event::Add;
use ecs_core::prelude::*;
use ecs_core::system::Schedule;
use ecs_script::{ScriptHost, script_system};

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(describe)]
struct Health {
    hp: i32,
}

const RULES: &str = r#"
local rules = {}

function rules.setup(world)
    world:component("Speed", "f32")
    world:component("Enemy", {})
end

function rules.spawn(world)
    local Health, Speed, Enemy = world:component("Health"), world:component("Speed"), world:component("Enemy")
    return world:spawn({ [Health] = { hp = 30 }, [Speed] = 1.5, [Enemy] = true })
end

function rules.bad(world)
    -- The bad value is the last component's (by id): nothing before it goes in.
    local Health, Speed = world:component("Health"), world:component("Speed")
    return world:spawn({ [Health] = { hp = 3 }, [Speed] = "fast" })
end

function rules.empty(world)
    return world:contains(world:spawn()) and world:contains(world:spawn({}))
end

function rules.wave(world)
    local Health, Enemy, Speed = world:component("Health"), world:component("Enemy"), world:component("Speed")
    local e = world:spawn({ [Health] = { hp = 5 }, [Enemy] = true, [Speed] = 1 })
    -- Deferred in a system, but the entity is the script's to use now.
    world:set(e, world:component("Speed"), 4)
end

return rules
"#;

/// A world with the script's components, and a Rust observer counting the
/// `Health`s added to an entity that has its `Speed` already: `Health` has
/// the lower id, so only a spawn that places every value at once is seen
/// with both (one by one in id order, `Speed` would come after).
fn setup() -> (World, ScriptHost, Arc<AtomicUsize>) {
    let mut world = World::new();
    world.register_component::<Health>();
    let mut host = ScriptHost::new().unwrap();
    host.load("rules", RULES).unwrap();
    host.call::<()>(&mut world, "rules", "setup").unwrap();
    assert!(
        world.component_id_by_name("Health").unwrap().index() < world.component_id_by_name("Speed").unwrap().index()
    );
    let speed = world.component_id_by_name("Speed").unwrap();
    let together = Arc::new(AtomicUsize::new(0));
    let count = together.clone();
    world.add_observer(move |added: On<Add, Health>, world: &World| {
        if world.entity(added.target()).is_some_and(|e| e.contains_id(speed)) {
            count.fetch_add(1, Ordering::Relaxed);
        }
    });
    (world, host, together)
}

fn speed(world: &World, e: Entity) -> Option<f32> {
    let id = world.component_id_by_name("Speed").unwrap();
    world.get_by_id(e, id).ok().map(|v| v.get::<f32>("0").unwrap())
}

#[test]
fn spawn_places_every_value_at_once() {
    let (mut world, mut host, together) = setup();
    let e: ecs_script::mlua::LightUserData = host.call(&mut world, "rules", "spawn").unwrap();
    let e = Entity::from_bits(e.0 as usize as u64).unwrap();
    assert_eq!(world.get::<Health>(e), Some(&Health { hp: 30 }));
    let enemy = world.component_id_by_name("Enemy").unwrap();
    assert!(world.entity(e).unwrap().contains_id(enemy));
    assert_eq!(speed(&world, e), Some(1.5));
    assert_eq!(together.load(Ordering::Relaxed), 1, "Health arrived with Speed already there");
    assert!(host.call::<bool>(&mut world, "rules", "empty").unwrap());
}

#[test]
fn a_bad_value_spawns_nothing_and_names_it() {
    let (mut world, mut host, _) = setup();
    let before = world.len();
    let error = host.call::<()>(&mut world, "rules", "bad").unwrap_err();
    assert!(error.message.contains("Speed") && error.message.contains("string"), "{error}");
    assert_eq!(world.len(), before, "nothing spawned");
    host.load("probe", r#"return { run = function(world) world:spawn(3) end }"#).unwrap();
    let error = host.call::<()>(&mut world, "probe", "run").unwrap_err();
    assert!(error.message.contains("spawn: expected a table"), "{error}");
    host.load("probe", r#"return { run = function(world) world:spawn({ [12345] = 1 }) end }"#).unwrap();
    let error = host.call::<()>(&mut world, "probe", "run").unwrap_err();
    assert!(error.message.contains("unknown component"), "{error}");
    assert_eq!(world.len(), before, "nothing spawned");
}

#[test]
fn a_script_systems_spawn_is_deferred_to_the_sync_point() {
    let (mut world, host, together) = setup();
    let host = Arc::new(Mutex::new(host));
    let wave = script_system(&host, &world, "wave", "rules", "wave", &[], &[]).unwrap();
    let mut schedule = Schedule::new();
    schedule.add_systems(wave);
    schedule.run(&mut world);
    assert!(host.lock().unwrap().take_errors().is_empty());
    let spawned: Vec<Entity> = world.query_filtered::<Entity, With<Health>>().iter().collect();
    assert_eq!(spawned.len(), 1);
    assert_eq!(world.get::<Health>(spawned[0]), Some(&Health { hp: 5 }));
    assert_eq!(speed(&world, spawned[0]), Some(4.0), "the set after the spawn, applied after it");
    assert_eq!(together.load(Ordering::Relaxed), 1, "deferred, the values still went in at once");
}
