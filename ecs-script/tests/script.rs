//! The script API against the Rust API: the same world seen from both sides,
//! every error naming what is wrong and changing nothing, hostile scripts
//! stopped.

use ecs_core::prelude::*;
use ecs_script::{Limits, ScriptHost};

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(describe)]
struct Health {
    hp: i32,
    regen: f32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(describe, layout = "soa")]
struct Body {
    x: f32,
    y: f32,
    vx: f32,
    vy: f32,
}

const RULES: &str = r#"
local rules = {}

function rules.setup(world)
    local Mana = world:component("Mana", { points = "f64", owner = "string", path = "i16[3]" })
    local Burning = world:component("Burning", {})
    local e = world:entity()
    world:set(e, Mana, { points = 5, owner = "shaman", path = { 1, 2, 3 } })
    world:add(e, Burning)
    return e
end

function rules.heal(world)
    local Health = world:component("Health")
    local Burning = world:component("Burning")
    local healed = 0
    for e, h in world:query(Health):without(Burning) do
        world:set(e, Health, { hp = h.hp + 1 })
        healed += 1
    end
    return healed
end

function rules.move(world)
    local Body = world:component("Body")
    world:query(Body):batch(function(entities, b)
        for i = 1, #entities do
            b.x[i] += b.vx[i]
            b.y[i] += b.vy[i]
        end
    end)
end

function rules.fail(world)
    local Health = world:component("Health")
    local e = world:entity()
    world:set(e, Health, { hp = "lots" })
end

return rules
"#;

fn host() -> ScriptHost {
    let mut host = ScriptHost::new().unwrap();
    host.load("rules", RULES).unwrap();
    host
}

#[test]
fn scripts_and_rust_see_one_world() {
    let mut world = World::new();
    world.register_component::<Health>();
    world.register_component::<Body>();
    let mut host = host();
    let e: ecs_script::mlua::LightUserData = host.call(&mut world, "rules", "setup").unwrap();
    let e = Entity::from_bits(e.0 as usize as u64).unwrap();
    let mana = world.component_id_by_name("Mana").unwrap();
    let view = world.get_by_id(e, mana).unwrap();
    assert_eq!(view.get::<f64>("points"), Ok(5.0));
    assert_eq!(view.get_str("owner"), Ok("shaman"));
    assert_eq!(view.get::<[i16; 3]>("path"), Ok([1, 2, 3]));
    let burning = world.component_id_by_name("Burning").unwrap();
    assert!(world.entity(e).unwrap().contains_id(burning));

    // Typed components, seen by name; the script's writes are Rust's reads.
    let a = world.spawn((Health { hp: 10, regen: 0.5 }, Body { x: 0.0, y: 0.0, vx: 1.0, vy: 2.0 }));
    let b = world.spawn(Health { hp: 3, regen: 0.0 });
    world.insert_by_id(b, burning, ecs_core::world::DynamicValue::new(&world, burning).unwrap()).unwrap();
    let mut changed = world.query_state_filtered::<Entity, Changed<Health>>();
    changed.iter(&world).for_each(drop);
    let healed: i64 = host.call(&mut world, "rules", "heal").unwrap();
    assert_eq!(healed, 1, "the burning one is skipped");
    assert_eq!(world.get::<Health>(a), Some(&Health { hp: 11, regen: 0.5 }), "a field left out keeps its value");
    assert_eq!(world.get::<Health>(b).unwrap().hp, 3);
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [a]);
    for _ in 0..3 {
        host.call::<()>(&mut world, "rules", "move").unwrap();
    }
    let body = world.query::<&Body>().iter().next().map(|b| (*b.x, *b.y));
    assert_eq!(body, Some((3.0, 6.0)));
}

#[test]
fn errors_name_the_script_function_line_and_what_is_wrong_and_change_nothing() {
    let mut world = World::new();
    world.register_component::<Health>();
    let mut host = host();
    let before = world.len();
    let error = host.call::<()>(&mut world, "rules", "fail").unwrap_err();
    assert_eq!((error.script.as_str(), error.function.as_str()), ("rules", "fail"));
    assert!(error.message.contains("hp") && error.message.contains("Health"), "{error}");
    assert!(error.to_string().contains("(at rules:37)"), "the line: {error}");
    // The entity was spawned (a call before the failing one), but holds nothing.
    assert_eq!(world.len(), before + 1);
    assert_eq!(world.query::<&Health>().iter().count(), 0);

    let probe = |host: &mut ScriptHost, world: &mut World, body: &str| {
        host.load("probe", &format!("return {{ run = function(world) {body} end }}")).unwrap();
        host.call::<()>(world, "probe", "run").unwrap_err().message
    };
    let m = probe(&mut host, &mut world, r#"world:component("Nope")"#);
    assert!(m.contains("unknown component `Nope`"), "{m}");
    let m = probe(
        &mut host,
        &mut world,
        r#"local H = world:component("Health"); world:set(world:entity(), H, { hq = 1 })"#,
    );
    assert!(m.contains("no field `hq`"), "{m}");
    let m = probe(
        &mut host,
        &mut world,
        r#"local H = world:component("Health"); world:set(world:entity(), H, { hp = 2.5 })"#,
    );
    assert!(m.contains("hp"), "an i32 is not given 2.5: {m}");
    let m = probe(
        &mut host,
        &mut world,
        r#"local H = world:component("Health"); local e = world:entity(); world:delete(e); world:set(e, H, { hp = 1 })"#,
    );
    assert!(m.contains("not alive"), "{m}");
    let m = probe(&mut host, &mut world, r#"world:set(42, 1, {})"#);
    assert!(m.contains("component") || m.contains("entity"), "{m}");
    assert_eq!(world.query::<&Health>().iter().count(), 0, "nothing was written");
}

#[test]
fn hostile_scripts_are_stopped_and_the_game_goes_on() {
    let mut world = World::new();
    let mut host = ScriptHost::with_limits(Limits { memory: 8 << 20, instructions: 100_000 }).unwrap();
    host.load(
        "mod",
        r#"
        local m = {}
        function m.spin(world) while true do end end
        function m.hog(world) local t = {} for i = 1, 1e9 do t[i] = string.rep("x", 1000) end end
        function m.escape(world) return io, os.execute, require, loadstring end
        function m.ok(world) return world:contains(world:entity()) end
        return m
        "#,
    )
    .unwrap();
    let e = host.call::<()>(&mut world, "mod", "spin").unwrap_err();
    assert!(e.message.contains("instruction budget") && e.function == "spin", "{e}");
    let e = host.call::<()>(&mut world, "mod", "hog").unwrap_err();
    assert!(e.message.contains("memory") || e.message.contains("budget"), "{e}");
    type Maybe = Option<ecs_script::mlua::Value>;
    let escaped: (Maybe, Maybe, Maybe, Maybe) = host.call(&mut world, "mod", "escape").unwrap();
    assert!(
        escaped.0.is_none() && escaped.1.is_none() && escaped.2.is_none() && escaped.3.is_none(),
        "no io, os.execute, require or loadstring"
    );
    assert!(host.call::<bool>(&mut world, "mod", "ok").unwrap(), "the host still works");
    // A script that tries to keep the world past its call finds it gone.
    host.load(
        "keep",
        "local kept; return { grab = function(world) kept = world end, use = function() return kept:entity() end }",
    )
    .unwrap();
    host.call::<()>(&mut world, "keep", "grab").unwrap();
    let stale = host.call::<()>(&mut world, "keep", "use").unwrap_err();
    assert_eq!(stale.function, "use", "the kept object's functions expired with their call: {stale}");
}

#[test]
fn a_script_reloads_without_losing_the_worlds_state() {
    let mut world = World::new();
    let mut host = ScriptHost::new().unwrap();
    let v1 = r#"return { tick = function(world)
        local Count = world:component("Count", { n = "u32" })
        local counters = {}
        for e, c in world:query(Count) do table.insert(counters, { e, c.n }) end
        if #counters == 0 then world:set(world:entity(), Count, { n = 1 }) return end
        for _, pair in counters do world:set(pair[1], Count, { n = pair[2] + 1 }) end
    end }"#;
    host.load("counter", v1).unwrap();
    host.call::<()>(&mut world, "counter", "tick").unwrap();
    host.call::<()>(&mut world, "counter", "tick").unwrap();
    let v2 = v1.replace("pair[2] + 1", "pair[2] + 10");
    host.load("counter", &v2).unwrap();
    host.call::<()>(&mut world, "counter", "tick").unwrap();
    let count = world.component_id_by_name("Count").unwrap();
    let values: Vec<u32> = world
        .query::<Entity>()
        .iter()
        .filter_map(|e| world.get_by_id(e, count).ok().map(|v| v.get::<u32>("n").unwrap()))
        .collect();
    assert_eq!(values, [12]);
    // A reload that fails keeps the old script.
    assert!(host.load("counter", "return {").is_err());
    host.call::<()>(&mut world, "counter", "tick").unwrap();
}

/// The buffers form: one buffer per field, read and written with Luau's
/// `buffer` library, checked before anything is written back.
#[test]
fn the_buffers_form_hands_out_fields_as_buffers() {
    let mut world = World::new();
    world.register_component::<Body>();
    for i in 0..5 {
        world.spawn(Body { x: i as f32, y: 0.0, vx: 1.5, vy: -1.0 });
    }
    let mut host = ScriptHost::new().unwrap();
    host.load(
        "fast",
        r#"return {
        step = function(world)
            local Body = world:component("Body")
            world:query(Body):buffers(function(n, b)
                for o = 0, (n - 1) * 4, 4 do
                    buffer.writef32(b.x, o, buffer.readf32(b.x, o) + buffer.readf32(b.vx, o))
                    buffer.writef32(b.y, o, buffer.readf32(b.y, o) + buffer.readf32(b.vy, o))
                end
            end)
        end,
        shrink = function(world)
            local Body = world:component("Body")
            world:query(Body):buffers(function(n, b) b.x = buffer.create(1) end)
        end,
        nested = function(world)
            local Body = world:component("Body")
            world:query(Body):buffers(function(n, b) world:entity() end)
        end,
    }"#,
    )
    .unwrap();
    host.call::<()>(&mut world, "fast", "step").unwrap();
    let mut xs: Vec<(f32, f32)> = world.query::<&Body>().iter().map(|b| (*b.x, *b.y)).collect();
    xs.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert_eq!(xs, [(1.5, -1.0), (2.5, -1.0), (3.5, -1.0), (4.5, -1.0), (5.5, -1.0)]);
    // The buffers handed out are the ones read back: one put in their place
    // changes nothing.
    host.call::<()>(&mut world, "fast", "shrink").unwrap();
    assert_eq!(world.query::<&Body>().iter().map(|b| *b.x).sum::<f32>(), 17.5);
    // The world is lent out while the function runs.
    let e = host.call::<()>(&mut world, "fast", "nested").unwrap_err();
    assert!(e.message.contains("in use"), "{e}");
}

/// Observers from scripts: each change an observed component goes through is
/// handed to the script's function once the world function that caused it
/// returns; changes the function makes are observed in turn.
#[test]
fn scripts_observe_lifecycle_events() {
    let mut world = World::new();
    world.register_component::<Health>();
    let mut host = ScriptHost::new().unwrap();
    host.load(
        "watch",
        r#"
        local log = {}
        return {
            setup = function(world)
                local Health = world:component("Health")
                local Dead = world:component("Dead", {})
                world:observe(world.OnAdd, Health, function(world, e) table.insert(log, "add") end)
                world:observe("OnInsert", Health, function(world, e)
                    local h = world:get(e, Health)
                    table.insert(log, "insert " .. h.hp)
                    if h.hp <= 0 then world:add(e, Dead) end
                end)
                world:observe("OnRemove", Health, function(world, e) table.insert(log, "remove") end)
                world:observe("OnAdd", Dead, function(world, e) table.insert(log, "dead") end)
            end,
            play = function(world)
                local Health = world:component("Health")
                local e = world:entity()
                world:set(e, Health, { hp = 3, regen = 0 })
                world:set(e, Health, { hp = 0 })   -- in place: no insert event
                world:remove(e, Health)
                world:set(e, Health, { hp = -1 })
                return table.concat(log, ", ")
            end,
            bad = function(world) world:observe("OnFire", world:component("Health"), print) end,
        }
        "#,
    )
    .unwrap();
    host.call::<()>(&mut world, "watch", "setup").unwrap();
    let log: String = host.call(&mut world, "watch", "play").unwrap();
    assert_eq!(log, "add, insert 3, remove, add, insert -1, dead");
    let e = host.call::<()>(&mut world, "watch", "bad").unwrap_err();
    assert!(e.message.contains("unknown event `OnFire`"), "{e}");
    // Rust's changes are observed too, at the scripts' next call.
    world.spawn(Health { hp: 5, regen: 0.0 });
    let log: String = host.call(&mut world, "watch", "play").unwrap();
    assert!(log.contains("insert 5"), "{log}");
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(describe)]
struct Armor(u8);

#[test]
fn newtype_components_are_bare_values_as_in_jecs() {
    let mut world = World::new();
    world.register_component::<Armor>();
    let mut host = ScriptHost::new().unwrap();
    host.load(
        "bare",
        r#"
        local bare = {}
        function bare.setup(world)
            local Hp = world:component("Hp", "f32")
            local Alive = world:component("Alive", "bool")
            local Armor = world:component("Armor")
            local C, D, E = world:component("C", "i32"), world:component("D", "f64"), world:component("E", "u16")
            for i = 1, 3 do
                local e = world:entity()
                world:set(e, Hp, i * 10)
                world:set(e, Alive, i ~= 2)
                world:set(e, Armor, i)
                world:set(e, C, -i) world:set(e, D, i / 2) world:set(e, E, 7)
            end
        end
        function bare.sum(world)
            local Hp, Alive, Armor = world:component("Hp"), world:component("Alive"), world:component("Armor")
            local C, D, E = world:component("C"), world:component("D"), world:component("E")
            local total = 0
            -- more than four fetched components, all bare
            for e, hp, alive, armor, c, d, ee in world:query(Hp, Alive, Armor, C, D, E) do
                assert(type(hp) == "number" and type(alive) == "boolean")
                local got_hp, got_armor = world:get(e, Hp, Armor)
                assert(got_hp == hp and got_armor == armor)
                if alive then total += hp + armor + c + d + ee end
                world:set(e, Hp, hp + 1)
            end
            return total
        end
        function bare.double(world)
            local Hp = world:component("Hp")
            world:query(Hp):buffers(function(n, hp)
                for i = 0, n - 1 do buffer.writef32(hp, i * 4, buffer.readf32(hp, i * 4) * 2) end
            end)
            world:query(Hp):batch(function(entities, hp)
                for i = 1, #entities do hp[i] += 1 end
            end)
        end
        function bare.wrong(world)
            local Hp = world:component("Hp")
            for e in world:query(Hp) do world:set(e, Hp, { hp = 1 }) end
        end
        function bare.bad_armor(world)
            local Armor = world:component("Armor")
            for e in world:query(Armor) do world:set(e, Armor, 300) end
        end
        return bare
        "#,
    )
    .unwrap();
    host.call::<()>(&mut world, "bare", "setup").unwrap();
    // Entities 1 and 3 alive: (10 + 1 - 1 + 0.5 + 7) + (30 + 3 - 3 + 1.5 + 7).
    assert_eq!(host.call::<f64>(&mut world, "bare", "sum").unwrap(), 17.5 + 38.5);
    let hp = world.component_id_by_name("Hp").unwrap();
    let mut values: Vec<f32> = world
        .query::<Entity>()
        .iter()
        .collect::<Vec<_>>()
        .into_iter()
        .filter_map(|e| world.get_by_id(e, hp).ok().map(|v| v.get::<f32>("0").unwrap()))
        .collect();
    values.sort_by(f32::total_cmp);
    assert_eq!(values, [11.0, 21.0, 31.0], "written back through the bare value");
    let mut armor: Vec<u8> = world.query::<&Armor>().iter().map(|a| a.0).collect();
    armor.sort();
    assert_eq!(armor, [1, 2, 3], "a Rust newtype is its field's value in Luau");

    host.call::<()>(&mut world, "bare", "double").unwrap();
    let mut values: Vec<f32> = world
        .query::<Entity>()
        .iter()
        .collect::<Vec<_>>()
        .into_iter()
        .filter_map(|e| world.get_by_id(e, hp).ok().map(|v| v.get::<f32>("0").unwrap()))
        .collect();
    values.sort_by(f32::total_cmp);
    assert_eq!(values, [23.0, 43.0, 63.0], "the batch forms hand a newtype's field out bare");

    let error = host.call::<()>(&mut world, "bare", "wrong").unwrap_err();
    assert!(error.message.contains("component `Hp` holds a number, not table"), "{error}");
    let error = host.call::<()>(&mut world, "bare", "bad_armor").unwrap_err();
    assert!(error.message.contains("Armor"), "{error}");
    let mut armor: Vec<u8> = world.query::<&Armor>().iter().map(|a| a.0).collect();
    armor.sort();
    assert_eq!(armor, [1, 2, 3], "nothing changed");

    let mut probe = |body: &str| {
        host.load("probe", &format!("return {{ run = function(world) {body} end }}")).unwrap();
        host.call::<()>(&mut world, "probe", "run").unwrap_err().message
    };
    let m = probe(r#"world:component("Bad", "f31")"#);
    assert!(m.contains("component `Bad`: unknown kind `f31`"), "{m}");
    let m = probe(r#"world:component("Bad2", 5)"#);
    assert!(m.contains("a schema is a table of fields or a kind name"), "{m}");
}

#[test]
fn kernels_do_bulk_arithmetic_on_the_batch_forms_buffers() {
    let mut world = World::new();
    let mut host = ScriptHost::new().unwrap();
    host.load(
        "k",
        r#"
        local k = {}
        function k.setup(world)
            local P = world:component("P", "f64")
            local V = world:component("V", "f64")
            local W = world:component("W", "f32")
            for i = 1, 5 do
                local e = world:entity()
                world:set(e, P, i) world:set(e, V, 10 * i) world:set(e, W, i)
            end
        end
        function k.step(world)
            local P, V, W = world:component("P"), world:component("V"), world:component("W")
            world:query(P, V):buffers(function(n, p, v)
                kernels.add_f64(p, v)          -- p = i + 10i
                kernels.axpy_f64(p, v, 0.5)    -- p += 5i
                kernels.scale_f64(v, 2)        -- v = 20i
            end)
            world:query(W):buffers(function(n, w)
                kernels.mul_f32(w, w)          -- w = i^2
                kernels.sub_f32(w, w)          -- w = 0
                kernels.fill_f32(w, 1.5)
            end)
            local sum = 0
            for _, p, v, w in world:query(P, V, W) do sum += p + v + w end
            return sum
        end
        function k.mismatch(world)
            local P, W = world:component("P"), world:component("W")
            world:query(P, W):buffers(function(n, p, w) kernels.add_f64(p, w) end)
        end
        function k.not_a_buffer(world)
            kernels.add_f64({}, {})
        end
        return k
        "#,
    )
    .unwrap();
    host.call::<()>(&mut world, "k", "setup").unwrap();
    // Each of i = 1..=5: p = 16i, v = 20i, w = 1.5.
    assert_eq!(host.call::<f64>(&mut world, "k", "step").unwrap(), 36.0 * 15.0 + 7.5);
    let p = world.component_id_by_name("P").unwrap();
    let before: Vec<f64> = world
        .query::<Entity>()
        .iter()
        .collect::<Vec<_>>()
        .into_iter()
        .filter_map(|e| world.get_by_id(e, p).ok().map(|v| v.get::<f64>("0").unwrap()))
        .collect();
    let error = host.call::<()>(&mut world, "k", "mismatch").unwrap_err();
    assert!(error.message.contains("kernels.add_f64: the buffers hold 40 and 20 bytes"), "{error}");
    let after: Vec<f64> = world
        .query::<Entity>()
        .iter()
        .collect::<Vec<_>>()
        .into_iter()
        .filter_map(|e| world.get_by_id(e, p).ok().map(|v| v.get::<f64>("0").unwrap()))
        .collect();
    assert_eq!(before, after, "nothing written");
    let error = host.call::<()>(&mut world, "k", "not_a_buffer").unwrap_err();
    assert!(error.message.contains("kernels.add_f64: argument 1 is table, not a buffer"), "{error}");
}

/// The batch forms over a query that filters rows one by one (a tag, here a
/// script's component without fields): the rows that pass, in one batch,
/// written back row by row; rows filtered out are left alone.
#[test]
fn the_batch_forms_take_queries_that_filter_rows() {
    let mut world = World::new();
    let mut host = ScriptHost::new().unwrap();
    host.load(
        "tagged",
        r#"return {
        setup = function(world)
            local P = world:component("Pos", "f64")
            local Body = world:component("Body2", { x = "f32", hp = "i32" })
            local Enemy = world:component("Enemy", {})
            for i = 1, 6 do
                local e = world:entity()
                world:set(e, P, i)
                world:set(e, Body, { x = i, hp = 10 })
                if i % 2 == 0 then world:add(e, Enemy) end
            end
        end,
        tables = function(world)
            local P, Body, Enemy = world:component("Pos"), world:component("Body2"), world:component("Enemy")
            local seen = 0
            world:query(P, Body):with(Enemy):batch(function(es, p, b)
                for i = 1, #es do p[i] *= 10 b.hp[i] -= i end
                seen += #es
            end)
            return seen
        end,
        buffers = function(world)
            local P, Enemy = world:component("Pos"), world:component("Enemy")
            local seen = 0
            world:query(P):without(Enemy):buffers(function(n, p)
                kernels.scale_f64(p, -1)
                seen += n
            end)
            return seen
        end,
        sum = function(world)
            local P, Body = world:component("Pos"), world:component("Body2")
            local sum, hp = 0, 0
            for _, p, b in world:query(P, Body) do sum += p hp += b.hp end
            return sum, hp
        end,
    }"#,
    )
    .unwrap();
    host.call::<()>(&mut world, "tagged", "setup").unwrap();
    assert_eq!(host.call::<f64>(&mut world, "tagged", "tables").unwrap(), 3.0);
    // Enemies 2, 4, 6 times ten; the others as they were.
    assert_eq!(host.call::<(f64, f64)>(&mut world, "tagged", "sum").unwrap(), (1.0 + 3.0 + 5.0 + 120.0, 60.0 - 6.0));
    assert_eq!(host.call::<f64>(&mut world, "tagged", "buffers").unwrap(), 3.0);
    assert_eq!(host.call::<(f64, f64)>(&mut world, "tagged", "sum").unwrap(), (-9.0 + 120.0, 54.0));
}

/// Script events: declared with a payload schema, triggered by scripts and
/// by Rust, observed by scripts and by Rust; a bad payload, an unknown event
/// or a stale target is an error and triggers nothing.
#[test]
fn script_events_reach_rust_and_script_observers_both_ways() {
    use ecs_script::{ScriptEvent, entity};
    use std::sync::{Arc, Mutex};

    let mut world = World::new();
    let mut host = ScriptHost::new().unwrap();
    host.load(
        "combat",
        r#"
        local combat = { log = {} }
        function combat.setup(world)
            local Damage = world:event("Damage", { amount = "f32", kind = "string" })
            local Alarm = world:event("Alarm", {})
            world:observe(Damage, function(world, value, target)
                table.insert(combat.log, value.kind .. ":" .. value.amount .. (target and ":t" or ":none"))
                -- an observer may use the world, and trigger in turn
                if value.amount > 100 then world:trigger(Alarm) end
            end)
            world:observe(Alarm, function(world, value, target)
                table.insert(combat.log, "alarm")
            end)
        end
        function combat.hit(world, target, amount)
            local Damage = world:event("Damage")
            world:trigger(Damage, { amount = amount, kind = "fire" }, target)
        end
        function combat.splash(world)
            world:trigger(world:event("Damage"), { amount = 1, kind = "water" })
        end
        function combat.bad_payload(world)
            world:trigger(world:event("Damage"), { amount = "lots" })
        end
        function combat.bad_target(world, target)
            world:trigger(world:event("Damage"), { amount = 1 }, target)
        end
        function combat.unknown(world)
            world:trigger(world:event("Nope"), {})
        end
        function combat.read_log(world)
            local log = combat.log
            combat.log = {}
            return table.concat(log, ",")
        end
        return combat
        "#,
    )
    .unwrap();
    host.call::<()>(&mut world, "combat", "setup").unwrap();

    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    world.add_observer(move |t: On<ScriptEvent>| {
        if t.event().name() != "Damage" {
            return;
        }
        let value = t.event().value().view();
        log.lock().unwrap().push((
            t.event().name(),
            t.get_target(),
            value.get::<f32>("amount").unwrap(),
            value.get_str("kind").unwrap().to_owned(),
        ));
    });

    // A script triggers: Rust's observer and the script's both see it.
    let goblin = world.spawn(());
    host.call_with::<()>(&mut world, "combat", "hit", (entity(goblin), 5.0)).unwrap();
    host.call::<()>(&mut world, "combat", "splash").unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        [("Damage", Some(goblin), 5.0, "fire".to_owned()), ("Damage", None, 1.0, "water".to_owned())]
    );
    assert_eq!(host.call::<String>(&mut world, "combat", "read_log").unwrap(), "fire:5:t,water:1:none");

    // An observer's own trigger is handed out in turn.
    host.call_with::<()>(&mut world, "combat", "hit", (entity(goblin), 500.0)).unwrap();
    assert_eq!(host.call::<String>(&mut world, "combat", "read_log").unwrap(), "fire:500:t,alarm");

    // Rust triggers for scripts: the payload is a value of the declared event;
    // the scripts' observers get it at the next call.
    let damage = world.component_id_by_name("Damage").unwrap();
    let mut value = ecs_core::world::DynamicValue::new(&world, damage).unwrap();
    value.set("amount", 2.5f32).unwrap().set_string("kind", "poison").unwrap();
    world.trigger_targets(ScriptEvent::new(value), goblin);
    assert_eq!(host.call::<String>(&mut world, "combat", "read_log").unwrap(), "poison:2.5:t");

    // Bad input: an error naming it, nothing triggered.
    seen.lock().unwrap().clear();
    let e = host.call::<()>(&mut world, "combat", "bad_payload").unwrap_err();
    assert!(e.message.contains("amount"), "{e}");
    world.despawn(goblin).unwrap();
    let e = host.call_with::<()>(&mut world, "combat", "bad_target", entity(goblin)).unwrap_err();
    assert!(e.message.contains("not alive"), "{e}");
    let e = host.call::<()>(&mut world, "combat", "unknown").unwrap_err();
    assert!(e.message.contains("Nope"), "{e}");
    assert!(seen.lock().unwrap().is_empty());
    assert_eq!(host.call::<String>(&mut world, "combat", "read_log").unwrap(), "");
}

/// Schemas a script writes cannot take the host down: a field named like a
/// path into another field (`v[0]`), or an array the size of the address
/// space, is a Luau error naming it, and nothing is registered.
#[test]
fn schemas_that_would_crash_the_host_are_refused() {
    let mut world = World::new();
    let mut host = ScriptHost::new().unwrap();
    host.load(
        "mod",
        r#"return {
        paths = function(world) world:component("P", { v = "f32[3]", ["v[0]"] = "bool" }) end,
        huge = function(world) world:component("Big", { a = "u8[9223372036854775807]" }) end,
        large = function(world) world:component("Large", "f64[100000]") end,
        fine = function(world)
            local Ok = world:component("Fine", { v = "f32[3]", w = "u8[4096]" })
            local e = world:entity()
            world:add(e, Ok)
            return world:get(e, Ok).v[3]
        end,
    }"#,
    )
    .unwrap();
    let e = host.call::<()>(&mut world, "mod", "paths").unwrap_err();
    assert!(e.message.contains("v[0]"), "{e}");
    for (function, name) in [("huge", "Big"), ("large", "Large")] {
        let e = host.call::<()>(&mut world, "mod", function).unwrap_err();
        assert!(e.message.contains(name) && e.message.contains("at most"), "{e}");
        assert!(world.component_id_by_name(name).is_none());
    }
    assert!(world.component_id_by_name("P").is_none());
    assert_eq!(host.call::<f64>(&mut world, "mod", "fine").unwrap(), 0.0);
}

/// The Rust observers that hand events to scripts are entities: a script
/// that despawns every entity despawns them too, and the next call makes
/// them again. A host serving two worlds observes each on its own.
#[test]
fn script_observers_outlive_a_script_that_despawns_everything() {
    let mut host = ScriptHost::new().unwrap();
    host.load(
        "rules",
        r#"
        local rules = { added = 0 }
        function rules.setup(world)
            local Hp = world:component("Hp", "i32")
            world:observe(world.OnAdd, Hp, function() rules.added += 1 end)
        end
        function rules.wipe(world)
            for e in world:query() do world:delete(e) end
        end
        function rules.spawn(world)
            world:set(world:entity(), world:component("Hp"), 1)
            return rules.added
        end
        return rules
        "#,
    )
    .unwrap();
    let mut world = World::new();
    host.call::<()>(&mut world, "rules", "setup").unwrap();
    assert_eq!(host.call::<f64>(&mut world, "rules", "spawn").unwrap(), 1.0);
    host.call::<()>(&mut world, "rules", "wipe").unwrap();
    assert_eq!(host.call::<f64>(&mut world, "rules", "spawn").unwrap(), 2.0);
    // Another world: observed once its own setup ran, and its events stay its own.
    let mut other = World::new();
    host.call::<()>(&mut other, "rules", "setup").unwrap();
    assert_eq!(host.call::<f64>(&mut other, "rules", "spawn").unwrap(), 3.0);
    assert_eq!(host.call::<f64>(&mut world, "rules", "spawn").unwrap(), 4.0);
}

/// An observer that keeps causing its own event (re-adding its component,
/// re-triggering its event) runs in turn, not ever deeper in the stack: the
/// instruction budget stops it with an error, and the host goes on.
#[test]
fn observers_that_cause_their_own_events_are_stopped_by_the_budget() {
    let mut host = ScriptHost::with_limits(ecs_script::Limits { instructions: 200_000, ..Default::default() }).unwrap();
    host.load(
        "loops",
        r#"
        local loops = { n = 0 }
        function loops.readd(world)
            local P = world:component("P", "f64")
            world:observe(world.OnAdd, P, function(world, e)
                loops.n += 1
                world:remove(e, P)
                world:set(e, P, 1)
            end)
            world:set(world:entity(), P, 1)
        end
        function loops.retrigger(world)
            local E = world:event("E", {})
            world:observe(E, function(world) loops.n += 1 world:trigger(E) end)
            world:trigger(E)
        end
        function loops.count(world) return loops.n end
        return loops
        "#,
    )
    .unwrap();
    let mut world = World::new();
    for function in ["readd", "retrigger"] {
        let e = host.call::<()>(&mut world, "loops", function).unwrap_err();
        assert!(e.message.contains("instruction budget"), "{e}");
    }
    assert!(host.call::<f64>(&mut world, "loops", "count").unwrap() > 1000.0);
}

/// A script that wipes the world and sets its observers up again in the
/// same call gets one delivery per event, not one per bridge made; an
/// observer's error caught by the script leaves the events not handed out
/// waiting, not lost.
#[test]
fn rebuilt_observers_deliver_once_and_caught_errors_lose_no_events() {
    let mut host = ScriptHost::new().unwrap();
    host.load(
        "level",
        r#"
        local level = { seen = 0 }
        function level.restart(world)
            for e in world:query() do world:delete(e) end
            local Hp = world:component("Hp", "i32")
            world:observe(world.OnAdd, Hp, function() level.seen += 1 end)
        end
        function level.spawn(world)
            level.seen = 0
            world:set(world:entity(), world:component("Hp"), 1)
            return level.seen
        end
        function level.fragile(world)
            local Mp = world:component("Mp", "i32")
            world:observe(world.OnAdd, Mp, function() error("add fails") end)
            world:observe(world.OnInsert, Mp, function() level.seen += 1 end)
            level.seen = 0
            local e = world:entity()
            -- One insert, two events: the first observer's error is caught.
            local ok = pcall(function() world:set(e, Mp, 1) end)
            -- The next world function hands out the insert event that waited.
            world:set(e, Mp, 2)
            return ok, level.seen
        end
        return level
        "#,
    )
    .unwrap();
    let mut world = World::new();
    host.call::<()>(&mut world, "level", "restart").unwrap();
    host.call::<()>(&mut world, "level", "restart").unwrap();
    host.call::<()>(&mut world, "level", "restart").unwrap();
    // Three script observers filed (one per restart), each called once.
    assert_eq!(host.call::<f64>(&mut world, "level", "spawn").unwrap(), 3.0);
    assert_eq!(host.call::<(bool, f64)>(&mut world, "level", "fragile").unwrap(), (false, 1.0));
}

/// `get` and `has` take up to four components, as jecs's do; a fifth is an
/// error naming the limit, never a component silently left out.
#[test]
fn get_and_has_take_up_to_four_components() {
    let mut world = World::new();
    let mut host = ScriptHost::new().unwrap();
    host.load(
        "many",
        r#"return {
        four = function(world)
            local A, B = world:component("A", "f64"), world:component("B", "f64")
            local C, D = world:component("C", "f64"), world:component("D", "f64")
            local e = world:entity()
            for i, c in { A, B, C, D } do world:set(e, c, i) end
            local a, b, c, d = world:get(e, A, B, C, D)
            return a + b + c + d, world:has(e, A, B, C, D)
        end,
        five_get = function(world)
            local A = world:component("A")
            world:get(world:entity(), A, A, A, A, A)
        end,
        five_has = function(world)
            local A = world:component("A")
            return world:has(world:entity(), A, A, A, A, A)
        end,
    }"#,
    )
    .unwrap();
    assert_eq!(host.call::<(f64, bool)>(&mut world, "many", "four").unwrap(), (10.0, true));
    for function in ["five_get", "five_has"] {
        let e = host.call::<()>(&mut world, "many", function).unwrap_err();
        assert!(e.message.contains("at most 4 components"), "{e}");
    }
}

/// A Rust newtype stored per field.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(describe, layout = "soa")]
struct Heat(f32);

/// A sparse Rust newtype.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(describe, storage = "sparse")]
struct Charge(u16);

/// The `for` loop over newtypes reads them from whole columns, archetype by
/// archetype, or row by row when the query filters rows: every storage and
/// every mix hands out the same values, in the same order, as a loop row by
/// row over each entity would.
#[test]
fn for_loops_over_newtypes_agree_across_storages_and_filters() {
    let mut world = World::new();
    let mut host = ScriptHost::new().unwrap();
    host.load(
        "mix",
        r#"return {
        setup = function(world)
            local Hp, Alive = world:component("Hp2", "f64"), world:component("Alive2", "bool")
            local Heat, Charge = world:component("Heat"), world:component("Charge")
            local Mark = world:component("Mark", {})
            for i = 1, 12 do
                local e = world:entity()
                world:set(e, Hp, i * 1.5)
                world:set(e, Heat, i)
                if i % 2 == 0 then world:set(e, Alive, i % 4 == 0) end
                if i % 3 == 0 then world:set(e, Charge, i * 100) world:add(e, Mark) end
            end
        end,
        sums = function(world)
            local Hp, Alive = world:component("Hp2"), world:component("Alive2")
            local Heat, Charge, Mark = world:component("Heat"), world:component("Charge"), world:component("Mark")
            local out = {}
            local function add(label, value) out[#out + 1] = label .. "=" .. tostring(value) end
            local s = 0
            for e, hp, heat in world:query(Hp, Heat) do
                assert(world:get(e, Hp) == hp and world:get(e, Heat) == heat)
                s += hp * heat
            end
            add("hp*heat", s)
            s = 0
            for e, hp, alive in world:query(Hp, Alive) do if alive then s += hp end end
            add("alive", s)
            s = 0
            for e, hp, charge in world:query(Hp, Charge) do s += hp + charge end
            add("charge", s)
            s = 0
            for e, heat in world:query(Heat):with(Mark) do s += heat end
            add("marked", s)
            s = 0
            for e, heat in world:query(Heat):without(Alive) do s += heat end
            add("without", s)
            return table.concat(out, " ")
        end,
    }"#,
    )
    .unwrap();
    world.register_component::<Heat>();
    world.register_component::<Charge>();
    host.call::<()>(&mut world, "mix", "setup").unwrap();
    let sums = host.call::<String>(&mut world, "mix", "sums").unwrap();
    // Entities i = 1..=12: hp = 1.5i, heat = i, alive on even i (true where
    // i % 4 == 0), charge and mark on multiples of 3.
    let hp_heat: f64 = (1..=12).map(|i| 1.5 * f64::from(i) * f64::from(i)).sum();
    let alive: f64 = [4.0, 8.0, 12.0].iter().map(|i| 1.5 * i).sum();
    let charge: f64 = [3.0, 6.0, 9.0, 12.0].iter().map(|i| 1.5 * i + 100.0 * i).sum();
    let without: i32 = (1..=12).filter(|i| i % 2 == 1).sum();
    assert_eq!(
        sums,
        format!("hp*heat={hp_heat} alive={alive} charge={charge} marked={} without={without}", 3 + 6 + 9 + 12)
    );
}

/// A `for` loop hands numeric newtypes over as native numbers and the rest
/// from arrays: for every numeric kind, `bool` and a struct, in every mix of
/// up to five, each value the loop gives is the one `world:get` reads.
#[test]
fn for_loops_give_what_get_reads_for_every_kind_and_mix() {
    let mut world = World::new();
    let mut host = ScriptHost::new().unwrap();
    host.load(
        "kinds",
        r#"return {
        run = function(world)
            local kinds = { "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64", "bool" }
            local cs = {}
            for _, kind in kinds do cs[#cs + 1] = world:component("K_" .. kind, kind) end
            cs[#cs + 1] = world:component("K_struct", { x = "f32", name = "string" })
            local values = {
                i8 = { -128, 127, -3 }, i16 = { -32768, 32767, 5 }, i32 = { -2147483648, 2147483647, -7 },
                i64 = { -9007199254740993, 9007199254740993, 11 }, u8 = { 0, 255, 13 }, u16 = { 0, 65535, 17 },
                u32 = { 0, 4294967295, 19 }, u64 = { 0, 2 ^ 53, 23 },
                f32 = { 0.1, -1e30, 3.5 }, f64 = { 0.1, -1e300, 1 / 3 }, bool = { true, false, true },
            }
            for row = 1, 3 do
                for a = 1, 2 do -- two archetypes: with and without a tag
                    local e = world:entity()
                    for i, kind in kinds do world:set(e, cs[i], values[kind][row]) end
                    world:set(e, cs[#cs], { x = row + 0.25, name = "n" .. row })
                    if a == 2 then world:add(e, world:component("K_tag", {})) end
                end
            end
            local checked = 0
            local function check(list)
                local n = 0
                for e, a, b, c, d, f in world:query(table.unpack(list)) do
                    local got = { a, b, c, d, f }
                    for j, comp in list do
                        local want = world:get(e, comp)
                        if type(want) == "table" then
                            assert(got[j].x == want.x and got[j].name == want.name, "struct differs")
                        else
                            assert(got[j] == want, "column " .. j .. ": " .. tostring(got[j]) .. " ~= " .. tostring(want))
                        end
                        checked += 1
                    end
                    n += 1
                end
                assert(n == 6, "every entity visited once: " .. n)
            end
            for start = 1, #cs do
                for k = 1, 5 do
                    local list = {}
                    for j = 0, k - 1 do list[#list + 1] = cs[(start + j * 5 - 1) % #cs + 1] end
                    check(list)
                end
            end
            return checked
        end,
    }"#,
    )
    .unwrap();
    let checked = host.call::<f64>(&mut world, "kinds", "run").unwrap();
    assert_eq!(checked, 12.0 * 6.0 * (1.0 + 2.0 + 3.0 + 4.0 + 5.0));
}

/// A script that shadows the `buffer` library changes nothing about how a
/// `for` loop reads its columns.
#[test]
fn shadowing_buffer_does_not_reach_the_for_loop() {
    let mut world = World::new();
    let mut host = ScriptHost::new().unwrap();
    host.load(
        "shadow",
        r#"return {
        run = function(world)
            local A = world:component("ShadowA", "f64")
            local B = world:component("ShadowB", "i32")
            for i = 1, 5 do local e = world:entity() world:set(e, A, i * 1.5) world:set(e, B, -i) end
            buffer = setmetatable({}, { __index = function() for _ in world:query(A) do end return function() return 0 end end })
            local sum = 0
            for e, a, b in world:query(A, B) do sum += a * b end
            return sum
        end,
    }"#,
    )
    .unwrap();
    let expected: f64 = (1..=5).map(|i| f64::from(i) * 1.5 * -f64::from(i)).sum();
    assert_eq!(host.call::<f64>(&mut world, "shadow", "run").unwrap(), expected);
}

/// A `for` loop's iterator gives more values than a native call has free
/// stack slots (30 components), keeps answering `nil` past its last row, and
/// called again after its call ended gives nothing new: the rows it copied
/// out when the loop started, then `nil`.
#[test]
fn for_loop_iterators_past_many_components_and_past_their_end() {
    let mut world = World::new();
    let mut host = ScriptHost::new().unwrap();
    host.load(
        "wide",
        r#"local kept
        return {
        run = function(world)
            local cs = {}
            for j = 1, 30 do cs[j] = world:component("W" .. j, if j % 3 == 0 then "bool" else "f64") end
            for i = 1, 4 do
                local e = world:entity()
                for j = 1, 30 do world:set(e, cs[j], if j % 3 == 0 then i % 2 == 0 else i * 100 + j) end
            end
            local sum, rows = 0, 0
            for e, a, b, c, d, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z, aa, bb, cc, dd, ee in world:query(table.unpack(cs)) do
                local got = { a, b, c, d, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z, aa, bb, cc, dd, ee }
                for col = 1, 30 do
                    assert(got[col] == world:get(e, cs[col]), "column " .. col)
                    if type(got[col]) == "number" then sum += got[col] end
                end
                rows += 1
            end
            local it = world:query(cs[1]):iter()
            local seen = 0
            while it() do seen += 1 end
            assert(it() == nil and it() == nil, "nil past the last row, every time")
            kept = world:query(cs[1], cs[3]):iter()
            return sum + rows * 1e6 + seen * 1e7
        end,
        later = function()
            local e, a, b = kept()
            assert(type(e) == "userdata" and type(a) == "number" and type(b) == "boolean", "a copied row")
            local n = 1
            while kept() do n += 1 end
            return n
        end,
    }"#,
    )
    .unwrap();
    let sum: f64 = (1..=4).flat_map(|i| (1..=30).filter(|j| j % 3 != 0).map(move |j| f64::from(i * 100 + j))).sum();
    assert_eq!(host.call::<f64>(&mut world, "wide", "run").unwrap(), sum + 4e6 + 4e7);
    world.spawn_empty();
    assert_eq!(host.call::<f64>(&mut world, "wide", "later").unwrap(), 4.0);
}

/// A `for` loop hands out the rows as they were when it started: a value
/// written ahead of the loop does not show in a later row, and an entity
/// despawned ahead of it is still handed out, no longer alive.
#[test]
fn a_for_loop_hands_out_the_rows_it_started_with() {
    let mut world = World::new();
    let mut host = ScriptHost::new().unwrap();
    host.load(
        "ahead",
        r#"return {
        run = function(world)
            local P = world:component("AheadP", "f64")
            local es = {}
            for i = 1, 4 do es[i] = world:entity() world:set(es[i], P, i) end
            local seen, dead = {}, 0
            for e, p in world:query(P) do
                seen[#seen + 1] = p
                if not world:contains(e) then dead += 1 end
                if e == es[1] then world:set(es[2], P, 100) world:delete(es[3]) end
            end
            assert(world:get(es[2], P) == 100, "the write is in the world")
            return table.concat(seen, ",") .. " dead " .. dead
        end,
    }"#,
    )
    .unwrap();
    assert_eq!(host.call::<String>(&mut world, "ahead", "run").unwrap(), "1,2,3,4 dead 1");
}
