//! The batch forms are all or nothing: a bad value (or an error) in any
//! archetype's rows leaves every archetype's rows as they were, values and
//! change ticks; a good batch writes every archetype.

use ecs_core::prelude::*;
use ecs_script::ScriptHost;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(describe)]
struct Hp {
    hp: i32,
    alive: bool,
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(describe)]
struct Armor {
    points: f32,
}

const RULES: &str = r#"
local calls = 0
local function count() calls += 1 return calls end
return {
    -- The second archetype's rows get a value that does not fit.
    bad_array = function(world)
        calls = 0
        world:query(world:component("Hp")):batch(function(entities, hp)
            for i = 1, #entities do hp.hp[i] += 1 end
            if count() == 2 then hp.hp[1] = 2.5 end
        end)
    end,
    fails = function(world)
        calls = 0
        world:query(world:component("Hp")):batch(function(entities, hp)
            for i = 1, #entities do hp.hp[i] += 1 end
            if count() == 2 then error("refused") end
        end)
    end,
    bad_buffer = function(world)
        calls = 0
        world:query(world:component("Hp")):buffers(function(n, hp)
            for i = 0, n - 1 do buffer.writei32(hp.hp, i * 4, buffer.readi32(hp.hp, i * 4) + 1) end
            if count() == 2 then buffer.writeu8(hp.alive, 0, 7) end
        end)
    end,
    -- Changes an archetype's array after it was checked, while the batch's
    -- function runs for the next archetype: what was checked is written.
    late = function(world)
        local kept
        world:query(world:component("Hp")):batch(function(entities, hp)
            for i = 1, #entities do hp.hp[i] += 1 end
            if kept then kept[1] = "not a number" end
            kept = hp.hp
        end)
    end,
    good = function(world)
        world:query(world:component("Hp")):batch(function(entities, hp)
            for i = 1, #entities do hp.hp[i] += 1 end
        end)
    end,
}
"#;

#[test]
fn a_batch_with_a_bad_value_in_any_archetype_changes_nothing() {
    let mut world = World::new();
    let plain: Vec<Entity> = (0..3).map(|i| world.spawn(Hp { hp: i, alive: true })).collect();
    let armored: Vec<Entity> =
        (0..3).map(|i| world.spawn((Hp { hp: 10 + i, alive: true }, Armor { points: 1.0 }))).collect();
    let all: Vec<Entity> = plain.iter().chain(&armored).copied().collect();
    let values = |world: &World| all.iter().map(|&e| world.get::<Hp>(e).unwrap().hp).collect::<Vec<_>>();
    let before = values(&world);
    let mut changed = world.query_state_filtered::<Entity, Changed<Hp>>();
    assert_eq!(changed.iter(&world).count(), 6, "the spawns");
    let mut host = ScriptHost::new().unwrap();
    host.load("rules", RULES).unwrap();

    for function in ["bad_array", "fails", "bad_buffer"] {
        let error = host.call::<()>(&mut world, "rules", function).unwrap_err();
        assert!(!error.message.is_empty(), "{function}");
        assert_eq!(values(&world), before, "{function}: no archetype written");
        assert_eq!(changed.iter(&world).count(), 0, "{function}: nothing counted as written");
    }
    host.call::<()>(&mut world, "rules", "good").unwrap();
    assert_eq!(values(&world), before.iter().map(|v| v + 1).collect::<Vec<_>>(), "every archetype written");
    assert_eq!(changed.iter(&world).count(), 6);
    host.call::<()>(&mut world, "rules", "late").expect("a change after the check does not reach the world");
    assert_eq!(values(&world), before.iter().map(|v| v + 2).collect::<Vec<_>>(), "the checked values written");
}
