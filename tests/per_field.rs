//! Per-field components (`#[component(layout = "soa")]`): every field in its
//! own array, reached through the generated views, while whole values move in
//! and out exactly as for any component (spawn, insert, remove, despawn,
//! archetype moves, snapshots, saves, hooks), each dropped exactly once.

mod common;

use std::cell::Cell;
use std::collections::BTreeMap;

use ecs_core::component::{Fields, FieldsMut, PerField};
use ecs_core::prelude::*;
use ecs_core::serialize::SerializeRegistry;
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[component(layout = "soa")]
struct Particle {
    x: f32,
    y: f32,
    z: f32,
    vx: f32,
    vy: f32,
    vz: f32,
    mass: f32,
    age: f32,
}

fn particle(i: u32) -> Particle {
    let f = i as f32;
    Particle { x: f, y: -f, z: 0.5 * f, vx: 1.0, vy: 2.0, vz: 3.0, mass: 10.0 + f, age: 0.0 }
}

thread_local!(static LIVE: Cell<i64> = const { Cell::new(0) });

/// Counts the values alive, so a test can check that each is dropped once.
#[derive(Debug, PartialEq)]
struct Counted(u64);

impl Counted {
    fn new(v: u64) -> Self {
        LIVE.with(|l| l.set(l.get() + 1));
        Self(v)
    }
}

impl Clone for Counted {
    fn clone(&self) -> Self {
        Self::new(self.0)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        LIVE.with(|l| l.set(l.get() - 1));
    }
}

fn live() -> i64 {
    LIVE.with(Cell::get)
}

/// Mixed field sizes and alignments, a heap-owning field and a dropping one.
#[derive(Component, Clone, Debug, PartialEq)]
#[component(layout = "soa")]
struct Mixed {
    flag: u8,
    name: String,
    count: Counted,
    wide: u128,
}

fn mixed(v: u64) -> Mixed {
    Mixed { flag: v as u8, name: format!("m{v}"), count: Counted::new(v), wide: u128::from(v) << 70 }
}

/// A tuple struct.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(layout = "soa")]
struct Pair(u16, f64);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Tag(u32);

#[test]
fn views_read_and_write_each_field() {
    let mut world = World::new();
    let e = world.spawn(particle(3));
    let p: ParticleRef = world.fields::<Particle>(e).unwrap();
    assert_eq!((*p.x, *p.y, *p.mass), (3.0, -3.0, 13.0));
    let p: ParticleMut = world.fields_mut::<Particle>(e).unwrap();
    *p.x += *p.vx;
    assert_eq!(world.get_cloned::<Particle>(e).unwrap().x, 4.0);
    let q = world.spawn(Pair(7, 0.5));
    let pair = world.fields::<Pair>(q).unwrap();
    assert_eq!((*pair.0, *pair.1), (7, 0.5));
    assert!(world.fields::<Pair>(e).is_none(), "no Pair on e");
    world.despawn(e).unwrap();
    assert!(world.fields::<Particle>(e).is_none(), "a stale entity gives None");
    assert!(world.get_cloned::<Particle>(e).is_none());
}

#[test]
fn every_iteration_mode_agrees() {
    let mut world = World::new();
    let mut entities = Vec::new();
    for i in 0..300 {
        // Three archetypes, so chunks and archetype changes are exercised.
        let e = match i % 3 {
            0 => world.spawn(particle(i)),
            1 => world.spawn((particle(i), Tag(i))),
            _ => world.spawn((Pair(i as u16, 0.0), particle(i))),
        };
        entities.push(e);
    }
    // `for` over `&mut Particle`.
    for p in world.query_mut::<&mut Particle>() {
        *p.x += *p.vx;
    }
    // `for_each` over a tuple with Entity.
    world.query_mut::<(Entity, &mut Particle)>().for_each(|(_, p)| *p.y += *p.vy);
    // Chunks: one slice per field, as long as the archetype.
    let mut state = world.query_state::<(Entity, &mut Particle)>();
    let mut chunks = 0;
    state.for_each_chunk(&mut world, |(entities, p): (&[Entity], ParticleSlicesMut)| {
        chunks += 1;
        assert_eq!(p.z.len(), entities.len());
        assert_eq!(p.vz.len(), entities.len());
        for (z, vz) in p.z.iter_mut().zip(p.vz.iter()) {
            *z += vz;
        }
    });
    assert_eq!(chunks, 3);
    // Parallel.
    world.query_state::<&mut Particle>().par_for_each(&mut world, |p| *p.age += 1.0);
    // `FieldsMut<T>` is the same query under its own name.
    for p in world.query_mut::<FieldsMut<Particle>>() {
        *p.mass *= 2.0;
    }
    for (i, &e) in entities.iter().enumerate() {
        let want = particle(i as u32);
        let got = world.get_cloned::<Particle>(e).unwrap();
        let expected =
            Particle { x: want.x + 1.0, y: want.y + 2.0, z: want.z + 3.0, age: 1.0, mass: want.mass * 2.0, ..want };
        assert_eq!(got, expected, "entity {i}");
        // Every read path gives the same.
        let by_get = world.query::<&Particle>().get(e).map(|p| *p.x).unwrap();
        let by_fields = world.query::<Fields<Particle>>().get(e).map(|p| *p.x).unwrap();
        assert_eq!((by_get, by_fields), (expected.x, expected.x));
    }
    let sum: f32 = world.query::<&Particle>().iter().map(|p| *p.mass).sum();
    let read_chunks: f32 = {
        let mut total = 0.0;
        world
            .query_state::<&Particle>()
            .for_each_chunk(&mut world, |p: ParticleSlices| total += p.mass.iter().sum::<f32>());
        total
    };
    assert_eq!(sum, read_chunks);
    world.check_invariants().unwrap();
}

#[test]
fn whole_values_move_in_and_out_and_drop_once() {
    let before = live();
    {
        let mut world = World::new();
        let a = world.spawn(mixed(1));
        let b = world.spawn((mixed(2), Tag(2)));
        let c = world.spawn(mixed(3));
        assert_eq!(live() - before, 3);
        // An archetype move carries the fields along.
        world.insert(a, Tag(1)).unwrap();
        assert!(is_mixed(&world.get_cloned::<Mixed>(a).unwrap(), 1));
        assert_eq!(live() - before, 3, "get_cloned's clone was dropped");
        // Replacing drops the old value.
        world.insert(b, mixed(20)).unwrap();
        assert_eq!(live() - before, 3);
        assert_eq!(*world.fields::<Mixed>(b).unwrap().name, "m20");
        // Removing hands the whole value back.
        let taken = world.remove::<Mixed>(c).unwrap();
        assert_eq!(taken.name, "m3");
        assert_eq!(taken.count.0, 3);
        drop(taken);
        assert_eq!(live() - before, 2);
        // Swap-remove: despawning the first row moves the last into it.
        world.despawn(a).unwrap();
        assert_eq!(live() - before, 1);
        assert_eq!(*world.fields::<Mixed>(b).unwrap().wide, 20u128 << 70);
        world.spawn_batch((10..20).map(mixed));
        assert_eq!(live() - before, 11);
        world.check_invariants().unwrap();
    }
    assert_eq!(live(), before, "dropping the world drops every value once");
}

/// `true` when `m` is what `mixed(v)` makes.
fn is_mixed(m: &Mixed, v: u64) -> bool {
    m.flag == v as u8 && m.name == format!("m{v}") && m.count.0 == v && m.wide == u128::from(v) << 70
}

/// A derived query holds a per-field component through its views.
#[derive(QueryData)]
struct Motion<'w> {
    entity: Entity,
    particle: ParticleMut<'w>,
    pair: Option<PairRef<'w>>,
}

#[test]
fn derived_queries_and_systems_reach_per_field_components() {
    let mut world = World::new();
    let a = world.spawn(particle(1));
    let b = world.spawn((particle(2), Pair(5, 0.0)));
    for m in world.query_mut::<Motion>() {
        *m.particle.x += m.pair.map_or(0.0, |p| f32::from(*p.0));
        assert!(m.entity == a || m.entity == b);
    }
    fn step(mut particles: Query<(&mut Particle, Option<&Pair>)>) {
        for (p, pair) in particles.iter_mut() {
            *p.y = f32::from(pair.map_or(0, |p| *p.0));
        }
    }
    world.run_system_once(step).unwrap();
    assert_eq!(world.get_cloned::<Particle>(a).map(|p| (p.x, p.y)), Some((1.0, 0.0)));
    assert_eq!(world.get_cloned::<Particle>(b).map(|p| (p.x, p.y)), Some((7.0, 5.0)));
}

#[test]
fn change_detection_sees_writes_through_views() {
    let mut world = World::new();
    let a = world.spawn(particle(1));
    let b = world.spawn(particle(2));
    let mut changed = world.query_state_filtered::<Entity, Changed<Particle>>();
    let mut added = world.query_state_filtered::<Entity, Added<Particle>>();
    assert_eq!(changed.iter(&world).count(), 2);
    assert_eq!(added.iter(&world).count(), 2);
    assert_eq!(changed.iter(&world).count(), 0);
    *world.fields_mut::<Particle>(b).unwrap().x = 9.0;
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [b]);
    for p in world.query_mut_filtered::<&mut Particle, With<Particle>>() {
        *p.y = 1.0;
    }
    let mut seen = changed.iter(&world).collect::<Vec<_>>();
    seen.sort();
    assert_eq!(seen, {
        let mut v = vec![a, b];
        v.sort();
        v
    });
    assert_eq!(added.iter(&world).count(), 0);
}

#[test]
fn snapshots_restore_per_field_values() {
    let before = live();
    let mut world = World::new();
    let a = world.spawn((particle(1), mixed(1)));
    let b = world.spawn(particle(2));
    let snapshot = world.snapshot().unwrap();
    *world.fields_mut::<Particle>(a).unwrap().x = 100.0;
    world.insert(a, mixed(7)).unwrap();
    world.despawn(b).unwrap();
    world.restore(&snapshot).unwrap();
    world.check_invariants().unwrap();
    assert_eq!(world.get_cloned::<Particle>(a), Some(particle(1)));
    assert_eq!(world.get_cloned::<Particle>(b), Some(particle(2)));
    assert_eq!(world.fields::<Mixed>(a).unwrap().count.0, 1);
    drop(world);
    drop(snapshot);
    assert_eq!(live(), before);
}

#[test]
fn saves_round_trip_per_field_values() {
    #[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[component(layout = "soa")]
    struct Named {
        id: u32,
        name: String,
        target: Entity,
    }
    let registry = || SerializeRegistry::new().register::<Particle>("Particle").register::<Named>("Named");
    let mut world = World::new();
    let a = world.spawn(particle(1));
    let b = world.spawn((particle(2), Named { id: 2, name: "two".into(), target: a }));
    let json = serde_json::to_string(&registry().rows(&world)).unwrap();
    let bytes = postcard::to_allocvec(&registry().columns(&world)).unwrap();
    for save in [
        registry().load_rows(&mut serde_json::Deserializer::from_str(&json)).unwrap(),
        registry().load_columns(&mut postcard::Deserializer::from_bytes(&bytes)).unwrap(),
    ] {
        let mut loaded = World::new();
        loaded.load(save);
        loaded.check_invariants().unwrap();
        assert_eq!(loaded.get_cloned::<Particle>(a), Some(particle(1)));
        assert_eq!(loaded.get_cloned::<Particle>(b), Some(particle(2)));
        assert_eq!(loaded.get_cloned::<Named>(b), Some(Named { id: 2, name: "two".into(), target: a }));
    }
    let _ = world.spawn(());
}

#[test]
fn hooks_read_the_old_value_whole() {
    use std::sync::Mutex;
    static SEEN: Mutex<Vec<f32>> = Mutex::new(Vec::new());
    fn on_discard(world: DeferredWorld, ctx: HookContext) {
        SEEN.lock().unwrap().push(world.get_cloned::<Watched>(ctx.entity).unwrap().x);
    }
    #[derive(Component, Clone)]
    #[component(layout = "soa", on_discard = on_discard)]
    struct Watched {
        x: f32,
        y: f32,
    }
    let mut world = World::new();
    let e = world.spawn(Watched { x: 1.0, y: 0.0 });
    world.insert(e, Watched { x: 2.0, y: 0.0 }).unwrap();
    world.despawn(e).unwrap();
    assert_eq!(*SEEN.lock().unwrap(), [1.0, 2.0]);
}

#[test]
fn lanes_are_aligned_for_vectors() {
    let mut world = World::new();
    for i in 0..100 {
        world.spawn(particle(i));
    }
    let mut state = world.query_state::<&Particle>();
    state.for_each_chunk(&mut world, |p: ParticleSlices| {
        for lane in [p.x, p.y, p.z, p.vx, p.vy, p.vz, p.mass, p.age] {
            assert_eq!(lane.as_ptr() as usize % 64, 0);
        }
    });
    assert_eq!(<Particle as PerField>::FIELDS.len(), 8);
}

/// Operations of the model test.
#[derive(Clone, Debug)]
enum Op {
    Spawn(u64, bool),
    Insert(usize, u64),
    InsertTag(usize),
    RemoveTag(usize),
    Remove(usize),
    Despawn(usize),
    Write(usize, u64),
    Snapshot,
    Restore,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (any::<u64>(), any::<bool>()).prop_map(|(v, t)| Op::Spawn(v % 1000, t)),
        (any::<usize>(), any::<u64>()).prop_map(|(i, v)| Op::Insert(i, v % 1000)),
        any::<usize>().prop_map(Op::InsertTag),
        any::<usize>().prop_map(Op::RemoveTag),
        any::<usize>().prop_map(Op::Remove),
        any::<usize>().prop_map(Op::Despawn),
        (any::<usize>(), any::<u64>()).prop_map(|(i, v)| Op::Write(i, v % 1000)),
        Just(Op::Snapshot),
        Just(Op::Restore),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::cases(64), ..ProptestConfig::default() })]

    /// Random structural changes against a map of entity -> value: the world
    /// holds exactly the model's values, and every value is dropped once.
    #[test]
    fn per_field_values_follow_a_model(ops in proptest::collection::vec(op(), 1..120)) {
        let before = live();
        {
            let mut world = World::new();
            let mut model: BTreeMap<Entity, Option<u64>> = BTreeMap::new();
            let mut saved = None;
            let pick = |model: &BTreeMap<Entity, Option<u64>>, i: usize| {
                (!model.is_empty()).then(|| *model.keys().nth(i % model.len()).unwrap())
            };
            for op in ops {
                match op {
                    Op::Spawn(v, tag) => {
                        let e = if tag { world.spawn((mixed(v), Tag(0))) } else { world.spawn(mixed(v)) };
                        model.insert(e, Some(v));
                    }
                    Op::Insert(i, v) => if let Some(e) = pick(&model, i) {
                        world.insert(e, mixed(v)).unwrap();
                        model.insert(e, Some(v));
                    },
                    Op::InsertTag(i) => if let Some(e) = pick(&model, i) {
                        world.insert(e, Tag(1)).unwrap();
                    },
                    Op::RemoveTag(i) => if let Some(e) = pick(&model, i) {
                        let _ = world.remove::<Tag>(e);
                    },
                    Op::Remove(i) => if let Some(e) = pick(&model, i) {
                        let got = world.remove::<Mixed>(e).ok().map(|m| m.count.0);
                        prop_assert_eq!(got, model[&e]);
                        model.insert(e, None);
                    },
                    Op::Despawn(i) => if let Some(e) = pick(&model, i) {
                        world.despawn(e).unwrap();
                        model.remove(&e);
                    },
                    Op::Write(i, v) => if let Some(e) = pick(&model, i) {
                        if let Some(m) = world.fields_mut::<Mixed>(e) {
                            *m.count = Counted::new(v);
                            *m.name = format!("m{v}");
                            *m.flag = v as u8;
                            *m.wide = u128::from(v) << 70;
                            model.insert(e, Some(v));
                        }
                    },
                    Op::Snapshot => saved = Some((world.snapshot().unwrap(), model.clone())),
                    Op::Restore => if let Some((snapshot, m)) = &saved {
                        world.restore(snapshot).unwrap();
                        model = m.clone();
                    },
                }
                world.check_invariants().unwrap();
            }
            for (&e, &v) in &model {
                let got = world.get_cloned::<Mixed>(e);
                prop_assert_eq!(got.as_ref().map(|m| m.count.0), v);
                if let (Some(m), Some(v)) = (got, v) {
                    prop_assert!(is_mixed(&m, v));
                }
            }
            let counted: usize = world.query::<&Mixed>().iter().count();
            prop_assert_eq!(counted, model.values().filter(|v| v.is_some()).count());
        }
        prop_assert_eq!(live(), before);
    }
}

/// Holds entities and rebuilds its list when remapped, then panics when told
/// to: a `map_entities` that replaced (and so dropped) an owned field before
/// panicking.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Targets {
    list: Vec<Entity>,
    panic: bool,
}

impl ecs_core::entity::MapEntities for Targets {
    fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity) {
        self.list = self.list.iter().map(|&e| map(e)).collect();
        assert!(!self.panic, "remapping refused");
    }
}

#[test]
fn a_panic_while_remapping_a_per_field_value_frees_each_field_once() {
    #[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[component(layout = "soa")]
    struct Squad {
        #[entities]
        targets: Targets,
        size: u32,
    }
    let registry = SerializeRegistry::new().register::<Squad>("Squad");
    let mut world = World::new();
    let a = world.spawn(());
    world.spawn(Squad { targets: Targets { list: vec![a, a], panic: true }, size: 2 });
    let json = serde_json::to_string(&registry.rows(&world)).unwrap();
    // The save is dropped while the panic unwinds: the row must hold the list
    // the remap built (the old one is freed), not the freed one.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        registry.load_rows(&mut serde_json::Deserializer::from_str(&json))
    }));
    assert!(result.is_err(), "the remap's panic reaches the caller");
    let mut fine = World::new();
    fine.spawn(Squad { targets: Targets { list: vec![], panic: false }, size: 0 });
    let json = serde_json::to_string(&registry.rows(&fine)).unwrap();
    let mut loaded = World::new();
    loaded.load(registry.load_rows(&mut serde_json::Deserializer::from_str(&json)).unwrap());
    assert_eq!(loaded.query::<&Squad>().iter().map(|s| *s.size).collect::<Vec<_>>(), [0]);
}
