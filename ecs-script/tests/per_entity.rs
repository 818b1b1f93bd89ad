//! `world:set`, `world:get` and `world:has`, the calls a game makes per
//! entity: their common case and every other one agree, whatever the
//! arguments, whoever reacts to an insert, in a call or in a system, and the
//! instruction budget stops every call.

use std::sync::{Arc, Mutex};

use ecs_core::component::{ComponentHooks, HookContext};
use ecs_core::prelude::*;
use ecs_core::system::Schedule;
use ecs_core::world::DeferredWorld;
use ecs_script::{Limits, ScriptHost, entity, script_system};

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(describe)]
struct Armor(u8);

#[derive(Default)]
struct Added(u32);

fn count_added(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<Added>().0 += 1;
}

const CALLS: &str = r#"
local calls = {}

function calls.setup(world)
    local P = world:component("P", "f64")
    local Flag = world:component("Flag", "bool")
    local Owner = world:component("Owner", "entity")
    local e = world:entity()
    world:set(e, P, 1)
    world:set(e, Flag, true)
    world:set(e, Owner, e)
    return e
end

-- Every argument the common case could mistake: each must fail as the full
-- function fails, naming what is wrong, and change nothing.
function calls.bad(world, e, which)
    local P = world:component("P")
    if which == "string value" then world:set(e, P, "lots")
    elseif which == "table value" then world:set(e, P, { 1 })
    elseif which == "bool for number" then world:set(e, P, true)
    elseif which == "number for bool" then world:set(e, world:component("Flag"), 1)
    elseif which == "unknown component" then world:set(e, 4096, 1)
    elseif which == "string component" then world:set(e, tostring(P), 1)
    elseif which == "number entity" then world:set(0, P, 1)
    elseif which == "nil entity" then world:set(nil, P, 1)
    elseif which == "fraction component" then world:set(e, P + 0.5, 1)
    elseif which == "get unknown" then return world:get(e, 4096)
    elseif which == "get string component" then return world:get(e, tostring(P))
    elseif which == "get number entity" then return world:get(1, P)
    elseif which == "has unknown" then return world:has(e, 4096)
    elseif which == "has number entity" then return world:has(1, P)
    end
end

function calls.read(world, e)
    local P, Flag, Owner = world:component("P"), world:component("Flag"), world:component("Owner")
    return world:get(e, P), world:get(e, Flag), world:get(e, Owner) == e, world:has(e, P), world:has(e, Flag)
end

function calls.write(world, e, p)
    world:set(e, world:component("P"), p)
    world:set(e, world:component("Flag"), false)
end

function calls.absent(world)
    local e = world:entity()
    local P = world:component("P")
    return world:get(e, P), world:has(e, P)
end

local kept, kept_set, kept_get, kept_has
function calls.keep(world) kept, kept_set, kept_get, kept_has = world, world.set, world.get, world.has end
function calls.use_kept(_, e, which)
    local P = kept:component("P")
    if which == "set" then kept:set(e, P, 99)
    elseif which == "get" then return kept:get(e, P)
    else return kept:has(e, P) end
end
-- The functions alone, called on the new call's own world object.
function calls.use_kept_functions(world, e, which)
    local P = world:component("P")
    if which == "set" then kept_set(world, e, P, 99)
    elseif which == "get" then return kept_get(world, e, P)
    else return kept_has(world, e, P) end
end

-- Called through another table or with the object left out.
function calls.detached(world, e)
    local set, get = world.set, world.get
    set(world, e, world:component("P"), 7)
    local other = setmetatable({}, { __index = world })
    return get(world, e, world:component("P")), pcall(function() return other:get(e, world:component("P")) end)
end

function calls.insert(world, which)
    local C = world:component(which)
    local e = world:entity()
    world:set(e, C, 3)
    return e
end

function calls.in_batch(world)
    local P = world:component("P")
    world:query(P):batch(function(entities) world:set(entities[1], P, 5) end)
end

function calls.stale(world, e)
    world:despawn(e)
    local P = world:component("P")
    return pcall(function() world:set(e, P, 1) end), pcall(function() return world:get(e, P) end),
        pcall(function() return world:has(e, P) end)
end

function calls.spin_caught(world)
    -- The budget's error caught, and the script keeps going: stopped again.
    while true do pcall(function() while true do end end) end
end

function calls.armor(world, e, by)
    local Armor = world:component("Armor")
    world:set(e, Armor, world:get(e, Armor) + by)
end

function calls.all_p(world)
    local out = {}
    for _, p in world:query(world:component("P")) do table.insert(out, p) end
    return out
end

function calls.count(world, n)
    local P = world:component("P")
    local e = world:entity()
    for i = 1, n do world:set(e, P, i) end
    return world:get(e, P)
end

return calls
"#;

fn host() -> ScriptHost {
    let mut host = ScriptHost::new().unwrap();
    host.load("calls", CALLS).unwrap();
    host
}

fn p_of(world: &World, e: Entity) -> f64 {
    let id = world.components().id_by_name("P").unwrap();
    world.get_by_id(e, id).unwrap().get::<f64>("0").unwrap()
}

#[test]
fn the_common_case_reads_and_writes_what_rust_sees() {
    let mut world = World::new();
    let mut host = host();
    let e: mlua_entity::E = host.call(&mut world, "calls", "setup").unwrap();
    let e = e.0;
    let read: (f64, bool, bool, bool, bool) = host.call_with(&mut world, "calls", "read", entity(e)).unwrap();
    assert_eq!(read, (1.0, true, true, true, true));
    let before = world.change_tick();
    host.call_with::<()>(&mut world, "calls", "write", (entity(e), 2.5)).unwrap();
    assert_eq!(p_of(&world, e), 2.5);
    let read: (f64, bool, bool, bool, bool) = host.call_with(&mut world, "calls", "read", entity(e)).unwrap();
    assert_eq!(read, (2.5, false, true, true, true));
    assert!(world.change_tick() >= before);
    let absent: (Option<f64>, bool) = host.call(&mut world, "calls", "absent").unwrap();
    assert_eq!(absent, (None, false));
    // A Rust newtype: the same columns, range-checked as the full `set` does.
    world.register_component::<Armor>();
    let knight = world.spawn(Armor(3));
    host.call_with::<()>(&mut world, "calls", "armor", (entity(knight), 1)).unwrap();
    assert_eq!(world.get::<Armor>(knight), Some(&Armor(4)));
    let error = host.call_with::<()>(&mut world, "calls", "armor", (entity(knight), 300)).unwrap_err();
    assert!(error.message.contains("Armor"), "{error}");
    assert_eq!(world.get::<Armor>(knight), Some(&Armor(4)), "out of range for u8: nothing written");
}

#[test]
fn every_argument_the_common_case_declines_fails_as_before_and_changes_nothing() {
    let mut world = World::new();
    let mut host = host();
    let e: mlua_entity::E = host.call(&mut world, "calls", "setup").unwrap();
    let e = e.0;
    let cases = [
        ("string value", "holds"),
        ("table value", "holds"),
        ("bool for number", "holds"),
        ("number for bool", "holds"),
        ("unknown component", "unknown component"),
        ("string component", "expected a component"),
        ("number entity", "expected an entity"),
        ("nil entity", "expected an entity"),
        ("fraction component", "unknown component"),
        ("get unknown", "unknown component"),
        ("get string component", "expected a component"),
        ("get number entity", "expected an entity"),
        ("has unknown", "unknown component"),
        ("has number entity", "expected an entity"),
    ];
    let entities = world.len();
    for (which, says) in cases {
        let error = host.call_with::<()>(&mut world, "calls", "bad", (entity(e), which)).unwrap_err();
        assert!(error.message.contains(says), "{which}: {error}");
        assert!(error.message.contains("calls:"), "{which}: names the script's line: {error}");
        assert_eq!(p_of(&world, e), 1.0, "{which}: nothing changed");
        assert_eq!(world.len(), entities, "{which}: nothing spawned");
    }
}

#[test]
fn a_world_object_kept_past_its_call_or_used_through_another_table_goes_nowhere() {
    let mut world = World::new();
    let mut host = host();
    let e: mlua_entity::E = host.call(&mut world, "calls", "setup").unwrap();
    let e = e.0;
    host.call::<()>(&mut world, "calls", "keep").unwrap();
    for which in ["set", "get", "has"] {
        let error = host.call_with::<()>(&mut world, "calls", "use_kept", (entity(e), which)).unwrap_err();
        assert_eq!(error.function, "use_kept", "{which}: {error}");
        let error = host.call_with::<()>(&mut world, "calls", "use_kept_functions", (entity(e), which)).unwrap_err();
        assert_eq!(error.function, "use_kept_functions", "{which}: a kept function expired with its call: {error}");
    }
    assert_eq!(p_of(&world, e), 1.0, "the kept object wrote nothing");
    // Functions taken off the object work on it; a table that merely reads
    // through to it does not reach the world in the common case, and the
    // full function treats it as it treats any first argument.
    let (p, ok, _): (f64, bool, mlua_value::V) = host.call_with(&mut world, "calls", "detached", entity(e)).unwrap();
    assert_eq!(p, 7.0);
    assert!(ok, "the full function takes any first argument, as it always did");
}

#[test]
fn inserts_something_reacts_to_run_their_hooks_and_observers() {
    let mut world = World::new();
    world.insert_resource(Added::default());
    let mut host = host();
    host.call::<mlua_entity::E>(&mut world, "calls", "setup").unwrap();
    // A runtime component with a hook, one with a Rust observer, one with a
    // script observer, one with nothing: every insert through `set`.
    host.load(
        "define",
        r#"return {
            run = function(world)
                world:component("Hooked", "f64")
                world:component("Watched", "f64")
                world:component("Scripted", "f64")
                world:component("Quiet", "f64")
                world:component("Seen", "u32")
                world:observe("OnAdd", world:component("Scripted"), function(world, e)
                    world:set(e, world:component("Seen"), 1)
                end)
            end,
        }"#,
    )
    .unwrap();
    host.call::<()>(&mut world, "define", "run").unwrap();
    let hooked = world.components().id_by_name("Hooked").unwrap();
    world
        .set_component_hooks_by_id(hooked, ComponentHooks { on_add: Some(count_added), ..Default::default() })
        .unwrap();
    let watched = world.components().id_by_name("Watched").unwrap();
    let seen_by_rust = Arc::new(Mutex::new(Vec::new()));
    let log = seen_by_rust.clone();
    world.add_observer_by_id(&[watched], move |on: On<Add>| log.lock().unwrap().push(on.target())).unwrap();
    let a: mlua_entity::E = host.call_with(&mut world, "calls", "insert", "Hooked").unwrap();
    assert_eq!(world.resource::<Added>().0, 1, "the hook ran");
    let b: mlua_entity::E = host.call_with(&mut world, "calls", "insert", "Watched").unwrap();
    assert_eq!(*seen_by_rust.lock().unwrap(), vec![b.0], "the Rust observer ran");
    let c: mlua_entity::E = host.call_with(&mut world, "calls", "insert", "Scripted").unwrap();
    let seen = world.components().id_by_name("Seen").unwrap();
    assert!(world.entity(c.0).unwrap().contains_id(seen), "the script observer ran");
    let d: mlua_entity::E = host.call_with(&mut world, "calls", "insert", "Quiet").unwrap();
    let quiet = world.components().id_by_name("Quiet").unwrap();
    assert!(world.entity(d.0).unwrap().contains_id(quiet));
    assert!(world.entity(a.0).unwrap().contains_id(hooked) && world.entity(b.0).unwrap().contains_id(watched));
}

#[test]
fn a_batchs_function_and_a_stale_entity_are_refused() {
    let mut world = World::new();
    let mut host = host();
    let e: mlua_entity::E = host.call(&mut world, "calls", "setup").unwrap();
    let error = host.call::<()>(&mut world, "calls", "in_batch").unwrap_err();
    assert!(error.message.contains("in use"), "{error}");
    assert_eq!(p_of(&world, e.0), 1.0);
    let caught: (bool, bool, bool) = host.call_with(&mut world, "calls", "stale", entity(e.0)).unwrap();
    assert_eq!(caught, (false, false, false), "set, get and has refuse a despawned entity");
}

#[test]
fn in_a_system_writes_follow_its_declaration_and_inserts_wait_for_the_sync_point() {
    let mut world = World::new();
    let host = Arc::new(Mutex::new(host()));
    let e: mlua_entity::E = host.lock().unwrap().call(&mut world, "calls", "setup").unwrap();
    host.lock()
        .unwrap()
        .load(
            "sys",
            r#"return {
                write = function(world, e) world:set(e, world:component("P"), 42) end,
                sneak = function(world)
                    local P = world:component("P")
                    for e in world:query(P) do world:set(e, P, -1) end
                end,
                spawn = function(world)
                    local P = world:component("P")
                    local e = world:entity()
                    world:set(e, P, 8)
                    -- not applied yet: the entity is reserved, its value deferred
                    assert(world:contains(e) and world:get(e, P) == nil and not world:has(e, P))
                end,
            }"#,
        )
        .unwrap();
    let sneak = script_system(&host, &world, "sneak", "sys", "sneak", &["P"], &[]).unwrap();
    let spawn = script_system(&host, &world, "spawn", "sys", "spawn", &[], &["P"]).unwrap();
    let mut schedule = Schedule::new();
    schedule.add_systems(sneak);
    schedule.run(&mut world);
    let errors = host.lock().unwrap().take_errors();
    assert_eq!(errors.len(), 1, "an undeclared write is refused");
    assert_eq!(p_of(&world, e.0), 1.0, "and wrote nothing");
    let before = world.len();
    let mut schedule = Schedule::new();
    schedule.add_systems(spawn);
    schedule.run(&mut world);
    let errors = host.lock().unwrap().take_errors();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(world.len(), before + 1);
    let values: Vec<f64> = host.lock().unwrap().call(&mut world, "calls", "all_p").unwrap();
    assert!(values.contains(&8.0), "the deferred insert was applied: {values:?}");
}

#[test]
fn the_budget_stops_every_call_and_counts_each_call_afresh() {
    let mut world = World::new();
    let mut host = ScriptHost::with_limits(Limits { memory: 64 << 20, instructions: 50_000 }).unwrap();
    host.load("calls", CALLS).unwrap();
    host.call::<mlua_entity::E>(&mut world, "calls", "setup").unwrap();
    let error = host.call::<()>(&mut world, "calls", "spin_caught").unwrap_err();
    assert!(error.message.contains("instruction budget"), "{error}");
    // Each call has the whole budget: many calls that each fit all pass.
    for _ in 0..20 {
        assert_eq!(host.call_with::<f64>(&mut world, "calls", "count", 10_000).unwrap(), 10_000.0);
    }
    assert!(host.call_with::<f64>(&mut world, "calls", "count", 100_000).is_err(), "one that does not is stopped");
    // Outside a call from Rust, the game's own use of the VM is not counted.
    let n: f64 = host.lua().load("local n = 0 for i = 1, 200000 do n += 1 end return n").eval().unwrap();
    assert_eq!(n, 200_000.0);
}

/// An entity returned by a script.
mod mlua_entity {
    use ecs_core::entity::Entity;
    use ecs_script::mlua::{self, FromLua, Lua, Value};

    pub struct E(pub Entity);

    impl FromLua for E {
        fn from_lua(value: Value, _: &Lua) -> mlua::Result<Self> {
            match value {
                Value::LightUserData(data) => Entity::from_bits(data.0 as usize as u64)
                    .map(E)
                    .ok_or_else(|| mlua::Error::runtime("not an entity")),
                other => Err(mlua::Error::runtime(format!("expected an entity, got {}", other.type_name()))),
            }
        }
    }
}

/// Any value, ignored.
mod mlua_value {
    use ecs_script::mlua::{self, FromLua, Lua, Value};

    pub struct V;

    impl FromLua for V {
        fn from_lua(_: Value, _: &Lua) -> mlua::Result<Self> {
            Ok(V)
        }
    }
}
