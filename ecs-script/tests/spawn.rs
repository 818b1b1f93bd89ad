//! `world:spawn(values)`: an entity with initial values, checked first and
//! placed at once, from a call and from a script system.

use std::sync::{Arc, Mutex};

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
    local Speed = world:component("Speed", "f32")
    local Enemy = world:component("Enemy", {})
    local Health = world:component("Health")
    -- Placed at once: an observer of one component sees the others there.
    world:observe(world.OnAdd, Enemy, function(world, e)
        world:set(e, Speed, if world:has(e, Health) then 2 else -1)
    end)
end

function rules.spawn(world)
    local Health, Speed, Enemy = world:component("Health"), world:component("Speed"), world:component("Enemy")
    return world:spawn({ [Health] = { hp = 30 }, [Speed] = 1.5, [Enemy] = true })
end

function rules.bad(world)
    local Health, Speed = world:component("Health"), world:component("Speed")
    return world:spawn({ [Speed] = 1, [Health] = { hp = "lots" } })
end

function rules.empty(world)
    return world:contains(world:spawn()) and world:contains(world:spawn({}))
end

function rules.wave(world)
    local Health, Enemy = world:component("Health"), world:component("Enemy")
    local e = world:spawn({ [Health] = { hp = 5 }, [Enemy] = true })
    -- Deferred in a system, but the entity is the script's to use now.
    world:set(e, world:component("Speed"), 4)
end

return rules
"#;

fn setup() -> (World, ScriptHost) {
    let mut world = World::new();
    world.register_component::<Health>();
    let mut host = ScriptHost::new().unwrap();
    host.load("rules", RULES).unwrap();
    host.call::<()>(&mut world, "rules", "setup").unwrap();
    (world, host)
}

fn speed(world: &World, e: Entity) -> Option<f32> {
    let id = world.component_id_by_name("Speed").unwrap();
    world.get_by_id(e, id).ok().map(|v| v.get::<f32>("0").unwrap())
}

#[test]
fn spawn_places_every_value_at_once() {
    let (mut world, mut host) = setup();
    let e: ecs_script::mlua::LightUserData = host.call(&mut world, "rules", "spawn").unwrap();
    let e = Entity::from_bits(e.0 as usize as u64).unwrap();
    assert_eq!(world.get::<Health>(e), Some(&Health { hp: 30 }));
    let enemy = world.component_id_by_name("Enemy").unwrap();
    assert!(world.entity(e).unwrap().contains_id(enemy));
    // The observer of `Enemy` saw `Health` there and set `Speed` after the spawn's 1.5.
    assert_eq!(speed(&world, e), Some(2.0));
    assert!(host.call::<bool>(&mut world, "rules", "empty").unwrap());
}

#[test]
fn a_bad_value_spawns_nothing_and_names_it() {
    let (mut world, mut host) = setup();
    let before = world.len();
    let error = host.call::<()>(&mut world, "rules", "bad").unwrap_err();
    assert!(error.message.contains("Health") && error.message.contains("hp"), "{error}");
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
    let (mut world, host) = setup();
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
}
