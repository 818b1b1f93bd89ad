//! What one script (a mod) can do to others and to the game: nothing through
//! globals, nothing left behind by a reload, and every stop told apart.

use ecs_core::prelude::*;
use ecs_script::{Limits, ScriptHost};

#[test]
fn each_script_has_globals_of_its_own() {
    let mut world = World::new();
    let mut host = ScriptHost::new().unwrap();
    host.load(
        "a",
        r#"
        secret = 42
        math = { floor = function() return -1 end }
        return { get = function() return secret, math.floor(2.5) end }
        "#,
    )
    .unwrap();
    host.load("b", "return { peek = function() return secret, math.floor(2.5), buffer ~= nil end }").unwrap();
    let (secret, floor, buffer): (Option<f64>, f64, bool) = host.call(&mut world, "b", "peek").unwrap();
    assert_eq!((secret, floor, buffer), (None, 2.0, true), "b sees neither a's global nor a's `math`");
    let (secret, floor): (f64, f64) = host.call(&mut world, "a", "get").unwrap();
    assert_eq!((secret, floor), (42.0, -1.0), "a keeps its own");
    // A global written during a call stays the script's own too.
    host.load("c", "return { put = function() leaked = true end, get = function() return leaked end }").unwrap();
    host.call::<()>(&mut world, "c", "put").unwrap();
    assert_eq!(host.call::<Option<bool>>(&mut world, "c", "get").unwrap(), Some(true));
    host.load("d", "return { get = function() return leaked end }").unwrap();
    assert_eq!(host.call::<Option<bool>>(&mut world, "d", "get").unwrap(), None);
}

#[test]
fn a_reload_starts_with_fresh_globals_and_drops_the_old_versions_observers() {
    let mut world = World::new();
    let mut host = ScriptHost::new().unwrap();
    let v1 = r#"
        loads = (loads or 0) + 1
        local rules = {}
        function rules.setup(world)
            local Marked = world:component("Marked", {})
            local Hits = world:component("Hits", "u32")
            world:observe(world.OnAdd, Marked, function(world, e)
                world:set(e, Hits, (world:get(e, Hits) or 0) + STEP)
            end)
        end
        function rules.mark(world)
            local e = world:entity()
            world:add(e, world:component("Marked"))
            return world:get(e, world:component("Hits"))
        end
        function rules.loads() return loads end
        return rules
    "#;
    host.load("rules", &v1.replace("STEP", "1")).unwrap();
    host.call::<()>(&mut world, "rules", "setup").unwrap();
    assert_eq!(host.call::<u32>(&mut world, "rules", "mark").unwrap(), 1);

    host.load("rules", &v1.replace("STEP", "100")).unwrap();
    assert_eq!(host.call::<f64>(&mut world, "rules", "loads").unwrap(), 1.0, "the reload's globals are fresh");
    // Until the new version's setup runs, no observer of the script is left.
    assert_eq!(host.call::<Option<u32>>(&mut world, "rules", "mark").unwrap(), None);
    host.call::<()>(&mut world, "rules", "setup").unwrap();
    assert_eq!(host.call::<u32>(&mut world, "rules", "mark").unwrap(), 100, "only the new version's observer");

    // Another script's observers stay through this one's reload, and a
    // reload that fails drops nothing.
    host.load(
        "other",
        r#"return { setup = function(world)
            world:observe(world.OnAdd, world:component("Marked"), function(world, e)
                local Hits = world:component("Hits")
                world:set(e, Hits, (world:get(e, Hits) or 0) + 10000)
            end)
        end }"#,
    )
    .unwrap();
    host.call::<()>(&mut world, "other", "setup").unwrap();
    assert!(host.load("rules", "return {").is_err());
    assert_eq!(host.call::<u32>(&mut world, "rules", "mark").unwrap(), 10100);
    host.load("rules", &v1.replace("STEP", "1")).unwrap();
    assert_eq!(host.call::<u32>(&mut world, "rules", "mark").unwrap(), 10000);

    // A function no reload would ever drop is refused as an observer: a
    // built-in, or one of the binding's own (a `for` loop's iterator).
    for observer in ["error", "print", "world:query(world:component(\"Marked\")):iter()"] {
        host.load(
            "sneaky",
            &format!(
                "return {{ run = function(world) world:observe(world.OnAdd, world:component(\"Marked\"), {observer}) end }}"
            ),
        )
        .unwrap();
        let e = host.call::<()>(&mut world, "sneaky", "run").unwrap_err();
        assert!(e.message.contains("function of a loaded script"), "{observer}: {e}");
    }
    assert_eq!(host.call::<u32>(&mut world, "rules", "mark").unwrap(), 10000, "nothing was filed");
}

#[test]
fn memory_and_budget_stops_are_told_apart() {
    let mut world = World::new();
    let source = r#"return {
        spin = function(world) while true do end end,
        hog = function(world) local t = {} for i = 1, 1e9 do t[i] = string.rep("x", 1000) end end,
    }"#;
    let mut host = ScriptHost::with_limits(Limits { memory: 8 << 20, instructions: u64::MAX }).unwrap();
    host.load("mod", source).unwrap();
    let e = host.call::<()>(&mut world, "mod", "hog").unwrap_err();
    assert!(e.message.contains("out of script memory") && (e.script.as_str(), e.function.as_str()) == ("mod", "hog"));
    let mut host = ScriptHost::with_limits(Limits { memory: 1 << 30, instructions: 100_000 }).unwrap();
    host.load("mod", source).unwrap();
    let e = host.call::<()>(&mut world, "mod", "spin").unwrap_err();
    assert!(e.message.contains("instruction budget") && (e.script.as_str(), e.function.as_str()) == ("mod", "spin"));
    // The host goes on after either.
    host.load("ok", "return { run = function(world) return world:contains(world:entity()) end }").unwrap();
    assert!(host.call::<bool>(&mut world, "ok", "run").unwrap());
}

#[test]
fn every_function_refuses_a_stale_entity_naming_it_and_changes_nothing() {
    let mut world = World::new();
    let mut host = ScriptHost::new().unwrap();
    host.load(
        "setup",
        r#"return { run = function(world)
            local Hp = world:component("Hp", "i32")
            world:component("Tag", {})
            local e = world:entity()
            world:set(e, Hp, 7)
            world:delete(e)
            return e
        end }"#,
    )
    .unwrap();
    let stale: ecs_script::mlua::LightUserData = host.call(&mut world, "setup", "run").unwrap();
    let bits = stale.0 as usize as u64;
    for body in [
        "world:get(e, Hp)",
        "world:has(e, Hp)",
        "world:set(e, Hp, 1)",
        "world:add(e, Tag)",
        "world:remove(e, Hp)",
        "world:despawn(e)",
    ] {
        let len = world.len();
        host.load(
            "probe",
            &format!(
                r#"return {{ run = function(world, e)
                    local Hp, Tag = world:component("Hp"), world:component("Tag")
                    {body}
                end }}"#
            ),
        )
        .unwrap();
        let error = host.call_with::<()>(&mut world, "probe", "run", stale).unwrap_err();
        assert!(error.message.contains("not alive"), "{body}: {error}");
        let named = format!("{}", Entity::from_bits(bits).unwrap());
        assert!(error.message.contains(&named), "{body} names the entity {named}: {error}");
        assert_eq!(world.len(), len, "{body} changed nothing");
    }
}

/// What a call puts in the world counts against the memory limit too: a
/// script cannot grow the game's memory without end through the world
/// (the VM's own limit never sees those bytes).
#[test]
fn a_call_cannot_fill_the_world_past_the_memory_limit() {
    let mut world = World::new();
    // Budget enough for any of these loops to pass 4 MiB many times over.
    let mut host = ScriptHost::with_limits(Limits { memory: 4 << 20, instructions: 20_000_000 }).unwrap();
    let source = r#"return {
        setup = function(world) world:component("Note", { text = "string" }) end,
        watch = function(world)
            local Note = world:component("Note")
            local f = function() end
            while true do world:observe(world.OnAdd, Note, f) end
        end,
        define = function(world)
            local i = 0
            while true do i += 1 world:component("Junk" .. i, { x = "f32" }) end
        end,
        flood = function(world)
            local Note = world:component("Note")
            while true do world:spawn({ [Note] = { text = string.rep("x", 10000) } }) end
        end,
        grow = function(world)
            local Note = world:component("Note")
            local e = world:entity()
            while true do world:set(e, Note, { text = string.rep("y", 10000) }) end
        end,
        spawn_empty = function(world) while true do world:entity() end end,
        some = function(world)
            local Note = world:component("Note")
            for i = 1, 100 do world:spawn({ [Note] = { text = string.rep("z", 10000) } }) end
        end,
    }"#;
    host.load("mod", source).unwrap();
    host.call::<()>(&mut world, "mod", "setup").unwrap();
    for function in ["flood", "grow", "spawn_empty"] {
        let e = host.call::<()>(&mut world, "mod", function).unwrap_err();
        assert!(e.message.contains("memory limit") && e.function == function, "{e}");
    }
    // A call well within the limit goes through, as often as the game makes it.
    for _ in 0..5 {
        host.call::<()>(&mut world, "mod", "some").unwrap();
    }
    // Observers and definitions stay as long as the world: counted too (with
    // a smaller limit, as each costs more than its bytes to keep).
    for function in ["watch", "define"] {
        let mut host = ScriptHost::with_limits(Limits { memory: 1 << 20, instructions: 20_000_000 }).unwrap();
        host.load("mod", source).unwrap();
        let e = host.call::<()>(&mut world, "mod", function).unwrap_err();
        assert!(e.message.contains("memory limit") && e.function == function, "{e}");
    }
}

/// A definition that differs from its name's is refused, but only after its
/// schema and id are made, which the process keeps: each attempt counts
/// against the call's memory limit, so retrying under `pcall` cannot grow
/// the process without end. Finding a name's own definition again is free.
#[test]
fn refused_redefinitions_count_against_the_memory_limit() {
    use ecs_core::component::{ComponentDescriptor, FieldKind, SchemaBuilder};
    let fresh_id = |world: &mut World, name: &str| {
        let schema = SchemaBuilder::new(name).field("x", FieldKind::F32).build().unwrap();
        world.register_dynamic(&ComponentDescriptor::new(name, schema)).unwrap().index()
    };
    let mut world = World::new();
    let mut host = ScriptHost::with_limits(Limits { memory: 1 << 20, instructions: 200_000_000 }).unwrap();
    host.load(
        "mod",
        r#"return {
            setup = function(world) world:component("Hp", "f32") end,
            again = function(world)
                for i = 1, 5000 do world:component("Hp", "f32") end
            end,
            -- A call all but at its limit (16 bytes an entity, 1 MiB in all)
            -- still finds its components by their definitions.
            full_then_again = function(world)
                for i = 1, 65500 do world:entity() end
                world:component("Hp", "f32")
            end,
            redefine = function(world)
                local refused = 0
                for i = 1, 20000 do
                    if not pcall(world.component, world, "Hp", { ["f" .. i] = "f64" }) then refused += 1 end
                end
                return refused
            end,
        }"#,
    )
    .unwrap();
    host.call::<()>(&mut world, "mod", "setup").unwrap();
    host.call::<()>(&mut world, "mod", "again").expect("the name's own definition, found again, costs nothing");
    host.call::<()>(&mut world, "mod", "full_then_again").expect("found again at the memory limit too");
    let before = fresh_id(&mut world, "RedefineProbeBefore");
    let refused = host.call::<u32>(&mut world, "mod", "redefine").unwrap();
    let after = fresh_id(&mut world, "RedefineProbeAfter");
    assert_eq!(refused, 20000, "every redefinition is refused");
    // The limit admits about a thousand attempts (each takes an id or two);
    // unbounded, the 20000 would take at least as many.
    assert!(after - before < 5000, "{} ids taken by 20000 refused redefinitions", after - before);
}

/// A mod is source text: bytes that look like compiled Luau bytecode (which
/// Luau does not check, and crafted, could break the host) are refused.
#[test]
fn a_script_cannot_be_bytecode() {
    let mut world = World::new();
    let mut host = ScriptHost::new().unwrap();
    // Read as text, these are no script (before, the first crashed the host).
    for source in ["\u{6}\u{3}\u{0}\u{0}", "\u{0}", "\u{1}return {}"] {
        assert!(host.load("mod", source).is_err(), "{source:?}");
    }
    host.load("mod", "return { ok = function() return true end }").unwrap();
    assert!(host.call::<bool>(&mut world, "mod", "ok").unwrap());
}

/// The world object, the queries' methods and an event's payload are shared
/// by every script a call reaches (observers included): one mod cannot
/// replace them for another, nor change what the next observer is given.
#[test]
fn one_mod_cannot_rewire_the_world_object_for_another() {
    let mut world = World::new();
    let mut host = ScriptHost::new().unwrap();
    host.load(
        "evil",
        r#"return { setup = function(world)
            local Hp = world:component("Hp", "i32")
            local Hit = world:event("Hit", { amount = "i32" })
            world:observe(world.OnAdd, Hp, function(w, e)
                local tries = {
                    function() w.set = function() end end,
                    function() rawset(w, "get", function() return 0 end) end,
                    function() setmetatable(w, { __index = function() return nil end }) end,
                    function() getmetatable(w:query(Hp)).__index.iter = nil end,
                    function() setmetatable(w:query(Hp), {}) end,
                }
                for _, try in tries do assert(not pcall(try), "a shared table changed") end
            end)
            world:observe(Hit, function(w, value) value.amount = 999 end)
        end }"#,
    )
    .unwrap();
    host.load(
        "good",
        r#"return {
        setup = function(world)
            world:observe(world:component("Hit"), function(w, value)
                local Hp = w:component("Hp")
                for e in w:query(Hp) do w:set(e, Hp, value.amount) end
            end)
        end,
        run = function(world)
            local Hp = world:component("Hp")
            local e = world:entity()
            world:set(e, Hp, 5)
            world:set(e, Hp, world:get(e, Hp) + 1)
            world:trigger(world:component("Hit"), { amount = 3 })
            return world:get(e, Hp)
        end,
    }"#,
    )
    .unwrap();
    host.call::<()>(&mut world, "evil", "setup").unwrap();
    host.call::<()>(&mut world, "good", "setup").unwrap();
    assert_eq!(host.call::<i32>(&mut world, "good", "run").unwrap(), 3, "good's own set, get and payload");
}

/// A script system's deferred changes count too: commands queued without
/// end are stopped like values written without end.
#[test]
fn a_script_system_cannot_queue_commands_without_end() {
    use std::sync::{Arc, Mutex};
    let mut world = World::new();
    let mut host = ScriptHost::with_limits(Limits { memory: 1 << 20, instructions: 20_000_000 }).unwrap();
    host.load(
        "mod",
        r#"return {
        setup = function(world) world:set(world:entity(), world:component("Hp", "i32"), 1) end,
        churn = function(world)
            local Hp = world:component("Hp")
            for e in world:query(Hp) do
                while true do world:remove(e, Hp) world:despawn(e) end
            end
        end,
    }"#,
    )
    .unwrap();
    host.call::<()>(&mut world, "mod", "setup").unwrap();
    let host = Arc::new(Mutex::new(host));
    let churn = ecs_script::script_system(&host, &world, "churn", "mod", "churn", &["Hp"], &[]).unwrap();
    let mut schedule = ecs_core::system::Schedule::new();
    schedule.add_systems(churn);
    schedule.run(&mut world);
    let errors = host.lock().unwrap().take_errors();
    let [error] = errors.as_slice() else { panic!("one error: {errors:?}") };
    assert!(error.message.contains("memory limit") && error.system.as_deref() == Some("churn"), "{error}");
}
