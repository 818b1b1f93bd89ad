//! Script systems in a `Schedule`: declared access checked like any system's,
//! structural changes deferred, errors kept for the game; and a property
//! test driving the same random operations through Luau and through the
//! Rust API.

use std::sync::{Arc, Mutex};

use ecs_core::component::{ComponentDescriptor, SchemaBuilder};
use ecs_core::prelude::*;
use ecs_core::system::{IntoSystem, Schedule, System};
use ecs_core::world::DynamicValue;
use ecs_script::{ScriptHost, script_system, script_systems};
use proptest::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(describe)]
struct Health {
    hp: i32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(describe, layout = "soa")]
struct Body {
    x: f32,
    vx: f32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Score(u32);

const GAME: &str = r#"
local game = {}

function game.setup(world)
    world:component("Spawned", { by = "string" })
    world:event("LowHealth", { hp = "i32" })
end

function game.move(world)
    local Body = world:component("Body")
    world:query(Body):batch(function(entities, b)
        for i = 1, #entities do b.x[i] += b.vx[i] end
    end)
end

function game.regen(world)
    local Health = world:component("Health")
    local Spawned = world:component("Spawned")
    for e, h in world:query(Health) do
        if h.hp < 10 then world:set(e, Health, { hp = h.hp + 1 }) end
    end
    -- deferred: applied at the sync point
    world:set(world:entity(), Spawned, { by = "regen" })
end

function game.snoop(world)
    local Body = world:component("Body")
    for e in world:query() do return world:get(e, Body) end
end

function game.stuck(world)
    local Health = world:component("Health")
    for e, h in world:query(Health) do world:set(e, Health, { hp = h.hp + 1 }) end
    world:spawn({ [world:component("Spawned")] = { by = "stuck" } })
    while true do end
end

function game.alarm(world)
    local Health = world:component("Health")
    for e, h in world:query(Health) do
        if h.hp < 5 then world:trigger(world:event("LowHealth"), { hp = h.hp }, e) end
    end
end

function game.cheat(world)
    local Health = world:component("Health")
    for e in world:query(Health) do world:set(e, Health, { hp = 999 }) end
end

return game
"#;

fn setup() -> (World, Arc<Mutex<ScriptHost>>) {
    let mut world = World::new();
    world.register_component::<Health>();
    world.register_component::<Body>();
    let mut host = ScriptHost::new().unwrap();
    host.load("game", GAME).unwrap();
    host.call::<()>(&mut world, "game", "setup").unwrap();
    (world, Arc::new(Mutex::new(host)))
}

#[test]
fn script_systems_run_beside_rust_systems_under_the_same_access_rules() {
    let (mut world, host) = setup();
    let mover = world.spawn((Body { x: 0.0, vx: 2.0 }, Health { hp: 5 }, Score(0)));
    let moving = script_system(&host, &world, "move", "game", "move", &[], &["Body"]).unwrap();
    let regen = script_system(&host, &world, "regen", "game", "regen", &[], &["Health"]).unwrap();
    let scoring = IntoSystem::into_system(|mut q: Query<&mut Score>| q.iter_mut().for_each(|s| s.0 += 1));
    let body_reader = IntoSystem::into_system(|q: Query<&Body>| assert!(q.iter().count() > 0));
    // Disjoint from a Rust system writing `Score`; conflicting with one reading `Body`.
    assert!(moving.access().conflict(scoring.access()).is_none());
    assert!(moving.access().conflict(body_reader.access()).is_some_and(|m| m.contains("Body")));
    assert!(moving.access().conflict(regen.access()).is_none());

    let mut schedule = Schedule::new();
    schedule.add_systems((moving, regen, |mut q: Query<&mut Score>| q.iter_mut().for_each(|s| s.0 += 1)));
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    assert!(host.lock().unwrap().take_errors().is_empty());
    assert_eq!(world.query::<&Body>().iter().next().map(|b| (*b.x, *b.vx)), Some((6.0, 2.0)));
    assert_eq!(world.get::<Health>(mover), Some(&Health { hp: 8 }));
    assert_eq!(world.get::<Score>(mover), Some(&Score(3)));
    let spawned = world.component_id_by_name("Spawned").unwrap();
    let by: Vec<String> = world
        .query::<Entity>()
        .iter()
        .filter_map(|e| world.get_by_id(e, spawned).ok().map(|v| v.get_str("by").unwrap().to_owned()))
        .collect();
    assert_eq!(by, ["regen", "regen", "regen"], "each run's deferred spawn, applied");
}

#[test]
fn a_script_system_beyond_its_declaration_or_failing_reports_and_the_game_goes_on() {
    let (mut world, host) = setup();
    let e = world.spawn(Health { hp: 1 });
    // Writes Health, declared read only.
    let cheat = script_system(&host, &world, "cheat", "game", "cheat", &["Health"], &[]).unwrap();
    let snoop = script_system(&host, &world, "snoop", "game", "snoop", &[], &[]).unwrap();
    let mut schedule = Schedule::new();
    schedule.add_systems((cheat, snoop));
    schedule.run(&mut world);
    let errors = host.lock().unwrap().take_errors();
    assert_eq!(errors.len(), 2, "{errors:?}");
    let snoop = errors.iter().find(|e| e.system.as_deref() == Some("snoop")).unwrap();
    assert!(snoop.message.contains("Body` is not declared read"), "{snoop}");
    let cheat = errors.iter().find(|e| e.system.as_deref() == Some("cheat")).unwrap();
    assert!(cheat.message.contains("Health") && cheat.message.contains("not declared written"), "{cheat}");
    assert!(cheat.to_string().contains("system `cheat`") && cheat.to_string().contains("(at game:"), "{cheat}");
    assert_eq!(world.get::<Health>(e), Some(&Health { hp: 1 }), "nothing was written");
    assert!(
        script_system(&host, &world, "x", "game", "move", &["Nope"], &[]).is_err_and(|e| e.message.contains("Nope"))
    );
    // The schedule still runs.
    schedule.run(&mut world);
}

/// A script system stopped by its instruction budget is reported naming the
/// script, function and system; what it did before stands (its writes, and
/// its deferred changes, applied at the sync point), and the schedule goes on.
#[test]
fn a_script_system_stopped_by_its_budget_keeps_what_it_did_before() {
    let mut world = World::new();
    world.register_component::<Health>();
    let mut host = ScriptHost::with_limits(ecs_script::Limits { instructions: 100_000, ..Default::default() }).unwrap();
    host.load("game", GAME).unwrap();
    host.call::<()>(&mut world, "game", "setup").unwrap();
    let host = Arc::new(Mutex::new(host));
    let e = world.spawn(Health { hp: 1 });
    let stuck = script_system(&host, &world, "stuck", "game", "stuck", &[], &["Health"]).unwrap();
    let mut schedule = Schedule::new();
    schedule.add_systems(stuck);
    schedule.run(&mut world);
    let errors = host.lock().unwrap().take_errors();
    let [error] = errors.as_slice() else { panic!("one error: {errors:?}") };
    assert_eq!(
        (error.script.as_str(), error.function.as_str(), error.system.as_deref()),
        ("game", "stuck", Some("stuck"))
    );
    assert!(error.message.contains("instruction budget"), "{error}");
    assert_eq!(world.get::<Health>(e), Some(&Health { hp: 2 }), "the write before the stop stands");
    let spawned = world.component_id_by_name("Spawned").unwrap();
    assert_eq!(world.query::<Entity>().iter().filter(|&x| world.get_by_id(x, spawned).is_ok()).count(), 1);
    schedule.run(&mut world);
    assert_eq!(world.get::<Health>(e), Some(&Health { hp: 3 }), "the schedule goes on");
}

/// A mod declares its systems in its own source: the schedule checks their
/// access as any system's, and a reload changes what they run.
#[test]
fn a_script_declares_its_systems_and_their_access() {
    let (mut world, host) = setup();
    let e = world.spawn((Body { x: 0.0, vx: 1.0 }, Health { hp: 1 }));
    let source = r#"return {
        systems = {
            heal = { reads = { "Body" }, writes = { "Health" } },
            drift = { writes = { "Body" } },
        },
        heal = function(world)
            local Health = world:component("Health")
            for e, h in world:query(Health) do world:set(e, Health, { hp = h.hp + STEP }) end
        end,
        drift = function(world)
            local Body = world:component("Body")
            for e, b in world:query(Body) do world:set(e, Body, { x = b.x + b.vx }) end
        end,
    }"#;
    host.lock().unwrap().load("mod", &source.replace("STEP", "1")).unwrap();
    let systems = script_systems(&host, &world, "mod").unwrap();
    let names: Vec<&str> = systems.iter().map(|s| s.name()).collect();
    assert_eq!(names, ["mod.drift", "mod.heal"]);
    let body_reader = IntoSystem::into_system(|q: Query<&Body>| assert!(q.iter().count() > 0));
    assert!(systems[0].access().conflict(body_reader.access()).is_some_and(|m| m.contains("Body")));
    assert!(systems[1].access().conflict(body_reader.access()).is_none(), "heal only reads Body");
    assert!(systems[0].access().conflict(systems[1].access()).is_some(), "drift writes what heal reads");
    let mut schedule = Schedule::new();
    for system in systems {
        schedule.add_systems(system);
    }
    schedule.run(&mut world);
    assert!(host.lock().unwrap().take_errors().is_empty());
    assert_eq!(world.get::<Health>(e), Some(&Health { hp: 2 }));
    assert_eq!(world.query::<&Body>().iter().next().map(|b| *b.x), Some(1.0));
    host.lock().unwrap().load("mod", &source.replace("STEP", "10")).unwrap();
    schedule.run(&mut world);
    assert_eq!(world.get::<Health>(e), Some(&Health { hp: 12 }), "the reloaded function runs");

    // Declarations that are wrong are refused, naming what is wrong.
    let refused = |declaration: &str| {
        let source = format!("return {{ systems = {declaration}, heal = function() end }}");
        host.lock().unwrap().load("bad", &source).unwrap();
        match script_systems(&host, &world, "bad") {
            Ok(_) => panic!("{declaration} accepted"),
            Err(e) => e.message,
        }
    };
    assert!(refused(r#"{ heal = { writes = { "Nope" } } }"#).contains("unknown component `Nope`"));
    assert!(refused(r#"{ heal = { writes = "Health" } }"#).contains("`writes` is a list of component names"));
    assert!(refused(r#"{ heal = { write = { "Health" } } }"#).contains("unknown key `write`"));
    assert!(refused(r#"{ fly = { reads = {} } }"#).contains("no function `fly`"));
    assert!(refused(r#"{ heal = true }"#).contains("system `heal`"));
    assert!(refused("7").contains("not a table of systems"));
    assert!(script_systems(&host, &world, "missing").is_err());
    host.lock().unwrap().load("none", "return { heal = function() end }").unwrap();
    assert!(script_systems(&host, &world, "none").unwrap().is_empty());
}

/// A script system's trigger goes through its commands: Rust observers see
/// it once the schedule applies them.
#[test]
fn a_script_systems_events_reach_rust_observers() {
    let (mut world, host) = setup();
    let weak = world.spawn(Health { hp: 2 });
    world.spawn(Health { hp: 9 });
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    world.add_observer(move |t: On<ecs_script::ScriptEvent>| {
        log.lock().unwrap().push((t.target(), t.event().value().view().get::<i32>("hp").unwrap()));
    });
    let alarm = script_system(&host, &world, "alarm", "game", "alarm", &["Health"], &[]).unwrap();
    let mut schedule = Schedule::new();
    schedule.add_systems(alarm);
    schedule.run(&mut world);
    assert!(host.lock().unwrap().take_errors().is_empty());
    assert_eq!(*seen.lock().unwrap(), [(weak, 2)]);
}

#[derive(Clone, Debug)]
enum Op {
    Spawn(i32),
    Set(usize, i32),
    Remove(usize),
    Tag(usize),
    Untag(usize),
    Despawn(usize),
    /// `hp += v` for tagged entities, through a `for` loop and `set`.
    HealTagged(i32),
    /// The same through the batch form (a query that filters rows).
    BatchTagged(i32),
    /// `hp += v` for every entity with health, through the batch form.
    BatchAll(i32),
    /// Reads health (`world:get`), and whether health and the tag are there
    /// (`world:has`).
    Read(usize),
    /// A `set` of the wrong kind, caught by `pcall`: changes nothing.
    BadSet(usize),
    /// A `set` on the last despawned entity, caught by `pcall`: changes nothing.
    StaleSet(i32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (-100..100i32).prop_map(Op::Spawn),
        3 => (any::<usize>(), -100..100i32).prop_map(|(i, v)| Op::Set(i, v)),
        1 => any::<usize>().prop_map(Op::Remove),
        2 => any::<usize>().prop_map(Op::Tag),
        1 => any::<usize>().prop_map(Op::Untag),
        1 => any::<usize>().prop_map(Op::Despawn),
        1 => (-100..100i32).prop_map(Op::HealTagged),
        1 => (-100..100i32).prop_map(Op::BatchTagged),
        1 => (-100..100i32).prop_map(Op::BatchAll),
        2 => any::<usize>().prop_map(Op::Read),
        1 => any::<usize>().prop_map(Op::BadSet),
        1 => (-100..100i32).prop_map(Op::StaleSet),
    ]
}

const OPS: &str = r#"
return { apply = function(world, ops)
    local Health = world:component("Health")
    local Tag = world:component("Tag", {})
    local alive, reads, dead = {}, {}, nil
    for _, op in ops do
        local kind, i, v = op[1], op[2], op[3]
        local e = if #alive > 0 then alive[(i % #alive) + 1] else nil
        if kind == "stale_set" then
            if dead ~= nil then
                local ok = pcall(function() world:set(dead, Health, { hp = v }) end)
                assert(not ok, "a stale entity is refused")
            end
        elseif kind == "heal_tagged" then
            for t, h in world:query(Health):with(Tag) do world:set(t, Health, { hp = h.hp + v }) end
        elseif kind == "batch_tagged" then
            world:query(Health):with(Tag):batch(function(es, h) for k = 1, #es do h.hp[k] += v end end)
        elseif kind == "batch_all" then
            world:query(Health):batch(function(es, h) for k = 1, #es do h.hp[k] += v end end)
        elseif kind == "spawn" then
            local new = world:entity()
            world:set(new, Health, { hp = v })
            table.insert(alive, new)
        elseif e == nil then
            -- nothing to act on
        elseif kind == "set" then world:set(e, Health, { hp = v })
        elseif kind == "remove" then world:remove(e, Health)
        elseif kind == "tag" then world:add(e, Tag)
        elseif kind == "untag" then world:remove(e, Tag)
        elseif kind == "despawn" then
            world:despawn(e)
            table.remove(alive, (i % #alive) + 1)
            dead = e
        elseif kind == "read" then
            local h = world:get(e, Health)
            table.insert(reads, if h == nil then "none" else tostring(h.hp))
            local has_health, has_both = world:has(e, Health), world:has(e, Health, Tag)
            table.insert(reads, tostring(has_health) .. "/" .. tostring(has_both))
        elseif kind == "bad_set" then
            local ok = pcall(function() world:set(e, Health, { hp = "lots" }) end)
            assert(not ok, "a string is refused for an i32")
        end
    end
    return reads
end }
"#;

/// What a world holds, entity by entity: health and tag.
fn contents(world: &World, tag: ecs_core::component::ComponentId) -> Vec<(Entity, Option<i32>, bool)> {
    let mut all: Vec<_> = world
        .query::<Entity>()
        .iter()
        .map(|e| (e, world.get::<Health>(e).map(|h| h.hp), world.entity(e).unwrap().contains_id(tag)))
        .collect();
    all.sort_by_key(|(e, ..)| *e);
    all
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn luau_and_rust_make_the_same_world(ops in prop::collection::vec(op(), 0..40)) {
        // Through Luau.
        let mut scripted = World::new();
        scripted.register_component::<Health>();
        let mut host = ScriptHost::new().unwrap();
        host.load("ops", OPS).unwrap();
        let lua = host.lua();
        let list = lua.create_table().unwrap();
        for op in &ops {
            let (kind, i, v) = match *op {
                Op::Spawn(v) => ("spawn", 0, v),
                Op::Set(i, v) => ("set", i % 1000, v),
                Op::Remove(i) => ("remove", i % 1000, 0),
                Op::Tag(i) => ("tag", i % 1000, 0),
                Op::Untag(i) => ("untag", i % 1000, 0),
                Op::Despawn(i) => ("despawn", i % 1000, 0),
                Op::HealTagged(v) => ("heal_tagged", 0, v),
                Op::BatchTagged(v) => ("batch_tagged", 0, v),
                Op::BatchAll(v) => ("batch_all", 0, v),
                Op::Read(i) => ("read", i % 1000, 0),
                Op::BadSet(i) => ("bad_set", i % 1000, 0),
                Op::StaleSet(v) => ("stale_set", 0, v),
            };
            list.raw_push(lua.create_sequence_from([
                ecs_script::mlua::Value::String(lua.create_string(kind).unwrap()),
                ecs_script::mlua::Value::Number(i as f64),
                ecs_script::mlua::Value::Number(f64::from(v)),
            ]).unwrap()).unwrap();
        }
        let scripted_reads: Vec<String> = host.call_with(&mut scripted, "ops", "apply", list).unwrap();

        // Through Rust.
        let mut world = World::new();
        world.register_component::<Health>();
        let tag = world.register_dynamic(&ComponentDescriptor::new("Tag", SchemaBuilder::new("Tag").build().unwrap())).unwrap();
        let mut alive: Vec<Entity> = Vec::new();
        let mut reads: Vec<String> = Vec::new();
        for op in &ops {
            let pick = |i: usize, alive: &[Entity]| (!alive.is_empty()).then(|| (i % 1000) % alive.len());
            match *op {
                Op::Spawn(v) => {
                    let e = world.spawn_empty().id();
                    world.insert(e, Health { hp: v }).unwrap();
                    alive.push(e);
                }
                Op::Set(i, v) => if let Some(k) = pick(i, &alive) { world.insert(alive[k], Health { hp: v }).unwrap(); },
                Op::Remove(i) => if let Some(k) = pick(i, &alive) { world.entity_mut(alive[k]).unwrap().remove::<Health>(); },
                Op::Tag(i) => if let Some(k) = pick(i, &alive) {
                    if !world.entity(alive[k]).unwrap().contains_id(tag) {
                        world.insert_by_id(alive[k], tag, DynamicValue::new(&world, tag).unwrap()).unwrap();
                    }
                },
                Op::Untag(i) => if let Some(k) = pick(i, &alive) { let _ = world.remove_by_id(alive[k], tag); },
                Op::Despawn(i) => if let Some(k) = pick(i, &alive) { world.despawn(alive.remove(k)).unwrap(); },
                Op::HealTagged(v) | Op::BatchTagged(v) => {
                    for &e in &alive {
                        if world.entity(e).unwrap().contains_id(tag) && let Some(mut h) = world.get_mut::<Health>(e) {
                            h.hp += v;
                        }
                    }
                }
                Op::BatchAll(v) => world.query_mut::<&mut Health>().for_each(|h| h.hp += v),
                Op::Read(i) => if let Some(k) = pick(i, &alive) {
                    let health = world.get::<Health>(alive[k]).map(|h| h.hp);
                    reads.push(health.map_or_else(|| "none".to_owned(), |hp| hp.to_string()));
                    let tagged = world.entity(alive[k]).unwrap().contains_id(tag);
                    reads.push(format!("{}/{}", health.is_some(), health.is_some() && tagged));
                },
                Op::BadSet(_) | Op::StaleSet(_) => {}
            }
        }
        prop_assert_eq!(scripted_reads, reads);
        let scripted_tag = scripted.component_id_by_name("Tag").unwrap();
        prop_assert_eq!(contents(&scripted, scripted_tag), contents(&world, tag));
    }
}
