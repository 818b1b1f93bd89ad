//! The design document's workloads through jecs (pure Luau) and through this
//! binding, in one Luau VM and one process, crates alternating per round.
//!
//! ```text
//! ecs-script/bench-jecs.sh            # fetches jecs 0.11.0 with `npm pack`, then runs this
//! cargo run --release -p ecs-script --example jecs_compare -- path/to/jecs.luau [rounds] [workload,…]
//! ```
//! Prints a Markdown table: each workload's median over the rounds, per side,
//! and ours / jecs.

use ecs_core::prelude::*;
use ecs_script::{Limits, ScriptHost, mlua};

/// The workloads, each a function per side returning the seconds its timed
/// part took. Ours set up and time inside one call with a fresh world.
const BENCH: &str = r#"
local N = 10000
local bench = {}

local function fresh_jecs(jecs)
    local world = jecs.world()
    return world, world:component(), world:component(), world:component(), world:component()
end

local function ours_components(world)
    local A = world:component("BenchA", "f64")
    local B = world:component("BenchB", "f64")
    local C = world:component("BenchC", "f64")
    local D = world:component("BenchD", "f64")
    return A, B, C, D
end

-- spawn N entities with 4 components
function bench.spawn_jecs(_, jecs)
    local world, A, B, C, D = fresh_jecs(jecs)
    local t0 = os.clock()
    for i = 1, N do
        local e = world:entity()
        world:set(e, A, i)
        world:set(e, B, i)
        world:set(e, C, i)
        world:set(e, D, i)
    end
    return os.clock() - t0
end
function bench.spawn_ours(world)
    local A, B, C, D = ours_components(world)
    local t0 = os.clock()
    for i = 1, N do
        local e = world:entity()
        world:set(e, A, i)
        world:set(e, B, i)
        world:set(e, C, i)
        world:set(e, D, i)
    end
    return os.clock() - t0
end

-- p = p + v over N entities, entity by entity
function bench.query_jecs(_, jecs)
    local world, P, V = fresh_jecs(jecs)
    for i = 1, N do local e = world:entity() world:set(e, P, i) world:set(e, V, 1) end
    local t0 = os.clock()
    for e, p, v in world:query(P, V) do world:set(e, P, p + v) end
    return os.clock() - t0
end
function bench.query_ours(world)
    local P, V = ours_components(world)
    for i = 1, N do local e = world:entity() world:set(e, P, i) world:set(e, V, 1) end
    local t0 = os.clock()
    for e, p, v in world:query(P, V) do world:set(e, P, p + v) end
    return os.clock() - t0
end

-- the same through each side's fastest batch form
function bench.batch_jecs(_, jecs)
    local world, P, V = fresh_jecs(jecs)
    for i = 1, N do local e = world:entity() world:set(e, P, i) world:set(e, V, 1) end
    local t0 = os.clock()
    for _, archetype in world:query(P, V):archetypes() do
        local ps, vs = archetype.columns_map[P], archetype.columns_map[V]
        for row = 1, #archetype.entities do ps[row] += vs[row] end
    end
    return os.clock() - t0
end
function bench.batch_ours(world)
    local P, V = ours_components(world)
    for i = 1, N do local e = world:entity() world:set(e, P, i) world:set(e, V, 1) end
    local t0 = os.clock()
    world:query(P, V):buffers(function(_, p, v) kernels.add_f64(p, v) end)
    return os.clock() - t0
end

local function shuffled(list)
    local state = 12345
    for i = #list, 2, -1 do
        state = (state * 1103515245 + 12345) % 2147483648
        local j = state % i + 1
        list[i], list[j] = list[j], list[i]
    end
    return list
end

-- random get of N entities
function bench.get_jecs(_, jecs)
    local world, P = fresh_jecs(jecs)
    local es = {}
    for i = 1, N do local e = world:entity() world:set(e, P, i) es[i] = e end
    shuffled(es)
    local t0 = os.clock()
    local sum = 0
    for i = 1, N do sum += world:get(es[i], P) end
    return os.clock() - t0
end
function bench.get_ours(world)
    local P = ours_components(world)
    local es = {}
    for i = 1, N do local e = world:entity() world:set(e, P, i) es[i] = e end
    shuffled(es)
    local t0 = os.clock()
    local sum = 0
    for i = 1, N do sum += world:get(es[i], P) end
    return os.clock() - t0
end

-- add then remove a tag on N entities
function bench.tag_jecs(_, jecs)
    local world, P = fresh_jecs(jecs)
    local Tag = world:entity()
    local es = {}
    for i = 1, N do local e = world:entity() world:set(e, P, i) es[i] = e end
    local t0 = os.clock()
    for i = 1, N do world:add(es[i], Tag) end
    for i = 1, N do world:remove(es[i], Tag) end
    return os.clock() - t0
end
function bench.tag_ours(world)
    local P = ours_components(world)
    local Tag = world:component("BenchTag", {})
    local es = {}
    for i = 1, N do local e = world:entity() world:set(e, P, i) es[i] = e end
    local t0 = os.clock()
    for i = 1, N do world:add(es[i], Tag) end
    for i = 1, N do world:remove(es[i], Tag) end
    return os.clock() - t0
end

-- 26 archetypes of 20 entities, data *= 2 over all
function bench.fragmented_jecs(_, jecs)
    local world, Data = fresh_jecs(jecs)
    for t = 1, 26 do
        local Tag = world:component()
        for _ = 1, 20 do local e = world:entity() world:set(e, Data, 1) world:set(e, Tag, true) end
    end
    local t0 = os.clock()
    for e, d in world:query(Data) do world:set(e, Data, d * 2) end
    return os.clock() - t0
end
function bench.fragmented_ours(world)
    local Data = ours_components(world)
    for t = 1, 26 do
        local Tag = world:component("BenchFrag" .. t, "bool")
        for _ = 1, 20 do local e = world:entity() world:set(e, Data, 1) world:set(e, Tag, true) end
    end
    local t0 = os.clock()
    for e, d in world:query(Data) do world:set(e, Data, d * 2) end
    return os.clock() - t0
end

function bench.loop_jecs(_, jecs)
    local world, P, V = fresh_jecs(jecs)
    for i = 1, N do local e = world:entity() world:set(e, P, i) world:set(e, V, 1) end
    local t0 = os.clock()
    local s = 0
    for e, p, v in world:query(P, V) do s += p + v end
    return os.clock() - t0
end
function bench.loop_ours(world)
    local P, V = ours_components(world)
    for i = 1, N do local e = world:entity() world:set(e, P, i) world:set(e, V, 1) end
    local it = world:query(P, V):iter()
    local n = 0
    for e, p, v in it do world:set(e, P, p + v) n += 1 if n == 1000 then break end end
    local t1 = os.clock()
    world:contains(false)
    return (os.clock() - t1) * 10
end
function bench.luaset_jecs(_, jecs)
    local world, P, V = fresh_jecs(jecs)
    local t = {}
    local function set(w, e, c, v) if e == t.e and type(v) == "number" then t.n += 1 return end end
    t.n = 0
    local t0 = os.clock()
    for i = 1, N do t.e = i set(world, i, P, i + 1) end
    return os.clock() - t0
end
function bench.luaset_ours(world)
    local P, V = ours_components(world)
    for i = 1, N do local e = world:entity() world:set(e, P, i) world:set(e, V, 1) end
    local M = 1000
    local t0 = os.clock()
    local bb = buffer.create(16)
    for i = 1, M do buffer.writeu32(bb, 0, i) buffer.writeu32(bb, 4, i) buffer.writef64(bb, 8, i) end
    local t1 = os.clock()
    local function f(w, e, c, v) if e == 1 then return end end
    for i = 1, M do f(world, i, P, i) end
    local t2 = os.clock()
    local it = world:query(P, V):iter()
    local e = it()
    local set = world.set
    local t3 = os.clock()
    for i = 1, M do set(world, e, P, 1.5) end
    local t4 = os.clock()
    world:contains(false)
    local t5 = os.clock()
    for i = 1, M do world:set(e, P, 1.5) end
    local t6 = os.clock()
    world:contains(false)
    print(string.format("loop %.0f ns, call %.0f ns, fast set %.0f, flush %.0f, world:set %.0f", (t1-t0)/M*1e9, (t2-t1)/M*1e9, (t4-t3)/M*1e9, (t5-t4)/M*1e9, (t6-t5)/M*1e9))
    return t1 - t0
end
return bench
"#;

const WORKLOADS: [(&str, &str); 8] = [
    ("loop", "loop only"),
    ("luaset", "lua set"),
    ("spawn", "spawn 10,000 entities with 4 components"),
    ("query", "`p = p + v` over 10,000 entities, entity by entity"),
    ("batch", "the same through each side's batch form"),
    ("get", "random `get` of 10,000 entities"),
    ("tag", "add then remove a tag on 10,000 entities"),
    ("fragmented", "26 archetypes x 20 entities, `data *= 2`"),
];

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: jecs_compare path/to/jecs.luau [rounds] (see ecs-script/bench-jecs.sh)")?;
    let rounds: usize = args.next().map_or(Ok(11), |r| r.parse())?;
    // An optional third argument names the workloads to run (`query,get`).
    let only = args.next();
    let jecs_source = std::fs::read_to_string(&path)?;
    let mut host = ScriptHost::with_limits(Limits { memory: 1 << 30, instructions: u64::MAX })?;
    host.load("bench", BENCH)?;
    let jecs: mlua::Table = host.lua().load(jecs_source).set_name("=jecs").eval()?;

    println!("| workload | jecs 0.11.0 | ecs-script | ours / jecs |");
    println!("|---|---|---|---|");
    for (name, what) in WORKLOADS {
        if only.as_deref().is_some_and(|o| !o.split(',').any(|w| w == name)) {
            continue;
        }
        let (mut theirs, mut ours) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            // Alternating which side goes first, so drift hits both alike.
            for side in if round % 2 == 0 { ["jecs", "ours"] } else { ["ours", "jecs"] } {
                let mut world = World::new();
                let seconds: f64 = host.call_with(&mut world, "bench", &format!("{name}_{side}"), jecs.clone())?;
                if side == "jecs" { theirs.push(seconds) } else { ours.push(seconds) }
            }
        }
        let (theirs, ours) = (median(theirs) * 1e3, median(ours) * 1e3);
        println!("| {what} | {theirs:.2} ms | {ours:.2} ms | {:.2}x |", ours / theirs);
    }
    Ok(())
}
