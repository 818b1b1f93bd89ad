//! hecs: `spawn_batch`, `PreparedQuery`, batched parallel iteration with rayon. It
//! has no scheduler and no hierarchy: the hierarchy workloads keep `Parent` and
//! `Children` links by hand and walk them through a `View`, one thread.

use std::any::TypeId;

use hecs::serialize::column::{
    DeserializeContext, SerializeContext, deserialize_column, try_serialize, try_serialize_id,
};
use hecs::{Archetype, ColumnBatchBuilder, ColumnBatchType, Entity, PreparedQuery, World};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{Runner, twenty_six};
use crate::workload::*;

#[derive(Clone, Copy, Serialize, Deserialize)]
struct Transform(Mat4);
#[derive(Clone, Copy, Serialize, Deserialize)]
struct Position([f32; 3]);
#[derive(Clone, Copy, Serialize, Deserialize)]
struct Rotation([f32; 3]);
#[derive(Clone, Copy, Serialize, Deserialize)]
struct Velocity([f32; 3]);
#[derive(Clone, Copy)]
struct A(f32);
#[derive(Clone, Copy)]
struct B(f32);
#[derive(Clone, Copy)]
struct Data(f32);
#[derive(Clone, Copy)]
struct Frag<const N: usize>(f32);
struct Tag<const N: usize>;

fn bodies(world: &mut World, n: usize) {
    world.spawn_batch((0..n).map(|_| (Transform(identity()), Position(UNIT_X), Rotation(UNIT_X), Velocity(UNIT_X))));
}

fn tag<const N: usize>(world: &mut World, e: Entity, mask: usize) {
    if mask & (1 << N) != 0 {
        world.insert_one(e, Tag::<N>).unwrap();
    }
}

pub fn runner(workload: Workload) -> Option<Runner> {
    Some(match workload {
        Workload::SimpleInsert => Box::new(|| {
            let mut world = World::new();
            bodies(&mut world, 10_000);
            std::hint::black_box(&world);
        }),
        Workload::SimpleIter => {
            let mut world = World::new();
            bodies(&mut world, 10_000);
            let mut q = PreparedQuery::<(&Velocity, &mut Position)>::default();
            Box::new(move || {
                for (_, (v, p)) in q.query_mut(&mut world) {
                    add(&mut p.0, &v.0);
                }
            })
        }
        Workload::SimpleIterFor | Workload::SimpleIterSystemFor => return runner(Workload::SimpleIter),
        Workload::FragmentedIter => {
            let mut world = World::new();
            macro_rules! frags { ($($n:literal)*) => { $(world.spawn_batch((0..20).map(|_| (Frag::<$n>(0.0), Data(1.0))));)* }; }
            twenty_six!(frags);
            let mut q = PreparedQuery::<&mut Data>::default();
            Box::new(move || {
                for (_, d) in q.query_mut(&mut world) {
                    d.0 *= 2.0;
                }
            })
        }
        Workload::HeavyCompute => {
            let mut world = World::new();
            bodies(&mut world, 1000);
            Box::new(move || {
                world.query::<(&mut Position, &mut Transform)>().iter_batched(64).par_bridge().for_each(|batch| {
                    for (_, (p, t)) in batch {
                        heavy(&mut t.0, &mut p.0);
                    }
                })
            })
        }
        Workload::AddRemove => {
            let mut world = World::new();
            let entities: Vec<Entity> = world.spawn_batch((0..10_000).map(|_| (A(0.0),))).collect();
            Box::new(move || {
                for &e in &entities {
                    world.insert_one(e, B(0.0)).unwrap();
                }
                for &e in &entities {
                    world.remove_one::<B>(e).unwrap();
                }
            })
        }
        Workload::RandomGet => {
            let mut world = World::new();
            let mut entities: Vec<Entity> =
                world.spawn_batch((0..10_000).map(|_| (Position(UNIT_X), Velocity(UNIT_X)))).collect();
            shuffle(&mut entities);
            Box::new(move || {
                let mut sum = 0.0;
                for &e in &entities {
                    sum += world.get::<&Position>(e).unwrap().0[0];
                }
                std::hint::black_box(sum);
            })
        }
        Workload::WorldGet => return runner(Workload::RandomGet),
        Workload::WorldGetMut | Workload::EntityGet => {
            let mut world = World::new();
            let mut entities: Vec<Entity> =
                world.spawn_batch((0..10_000).map(|_| (Position(UNIT_X), Velocity(UNIT_X)))).collect();
            shuffle(&mut entities);
            if workload == Workload::WorldGetMut {
                Box::new(move || {
                    let mut sum = 0.0;
                    for &e in &entities {
                        sum += world.get::<&mut Position>(e).unwrap().0[0];
                    }
                    std::hint::black_box(sum);
                })
            } else {
                Box::new(move || {
                    let mut sum = 0.0;
                    for &e in &entities {
                        sum += world.entity(e).unwrap().get::<&Position>().unwrap().0[0];
                    }
                    std::hint::black_box(sum);
                })
            }
        }
        Workload::WorldNew => Box::new(|| drop(std::hint::black_box(World::new()))),
        Workload::ManyArchetypes => {
            let mut world = World::new();
            for mask in 0..1024 {
                for _ in 0..4 {
                    let e = world.spawn((Data(1.0),));
                    tag::<0>(&mut world, e, mask);
                    tag::<1>(&mut world, e, mask);
                    tag::<2>(&mut world, e, mask);
                    tag::<3>(&mut world, e, mask);
                    tag::<4>(&mut world, e, mask);
                    tag::<5>(&mut world, e, mask);
                    tag::<6>(&mut world, e, mask);
                    tag::<7>(&mut world, e, mask);
                    tag::<8>(&mut world, e, mask);
                    tag::<9>(&mut world, e, mask);
                }
            }
            let mut q = PreparedQuery::<&mut Data>::default();
            Box::new(move || {
                for (_, d) in q.query_mut(&mut world) {
                    d.0 *= 2.0;
                }
            })
        }
        Workload::AddRemoveSparse
        | Workload::Schedule(_)
        | Workload::TinySystems
        | Workload::Events
        | Workload::Observers
        | Workload::EntityObservers
        | Workload::Changed
        | Workload::QueryGet => return None,
        // hecs has no hierarchy: its users keep the links by hand, a `Parent`
        // on each child and the `Children` a walk down needs.
        Workload::PropagateFull => {
            let (mut world, all, roots) = forest_world();
            let mut stack = Vec::new();
            let mut run = move |world: &mut World| {
                let mut view = world.view_mut::<(&LocalT, &mut GlobalT, &Children)>();
                for &root in &roots {
                    stack.push((root, IDENTITY));
                    while let Some((e, parent)) = stack.pop() {
                        let (local, global, children) = view.get_mut(e).unwrap();
                        global.0 = mul(&parent, &local.0);
                        let g = global.0;
                        stack.extend(children.0.iter().map(|&c| (c, g)));
                    }
                }
            };
            run(&mut world);
            check_forest(&world, &all);
            Box::new(move || run(&mut world))
        }
        Workload::PropagateOnePercent => {
            let (mut world, all, roots) = forest_world();
            // Marks by entity id: the forest's entities are the world's only ones.
            let mut dirty = vec![false; all.len()];
            let mut changed = vec![false; all.len()];
            let mut stack: Vec<(Entity, Affine, bool)> = Vec::new();
            let mut seed = 11;
            let check = all.clone();
            let mut frame = move |world: &mut World, first: bool| {
                if !first {
                    for i in changed_nodes(&mut seed, all.len()) {
                        world.get::<&mut LocalT>(all[i]).unwrap().0[4] += 0.01;
                        changed[all[i].id() as usize] = true;
                        let mut at = Some(all[i]);
                        while let Some(a) = at {
                            if std::mem::replace(&mut dirty[a.id() as usize], true) {
                                break;
                            }
                            at = world.get::<&Parent>(a).ok().map(|p| p.0);
                        }
                    }
                }
                let mut view = world.view_mut::<(&LocalT, &mut GlobalT, &Children)>();
                for &root in &roots {
                    if !first && !dirty[root.id() as usize] {
                        continue;
                    }
                    stack.push((root, IDENTITY, first));
                    while let Some((e, parent, above)) = stack.pop() {
                        let (local, global, children) = view.get_mut(e).unwrap();
                        let recompute = above || std::mem::take(&mut changed[e.id() as usize]);
                        dirty[e.id() as usize] = false;
                        if recompute {
                            global.0 = mul(&parent, &local.0);
                        }
                        let g = global.0;
                        stack.extend(
                            children
                                .0
                                .iter()
                                .filter(|c| recompute || dirty[c.id() as usize])
                                .map(|&c| (c, g, recompute)),
                        );
                    }
                }
            };
            frame(&mut world, true);
            frame(&mut world, false);
            check_forest(&world, &check);
            Box::new(move || frame(&mut world, false))
        }
        Workload::Reparent => {
            let mut world = World::new();
            let (mut from, mut to) = (world.spawn(()), world.spawn(()));
            let kids: Vec<Entity> = world.spawn_batch((0..HIERARCHY_BATCH).map(|_| (Parent(from),))).collect();
            Box::new(move || {
                for &kid in &kids {
                    world.insert_one(kid, Parent(to)).unwrap();
                }
                assert!(world.get::<&Parent>(kids[0]).is_ok_and(|p| p.0 == to));
                core::mem::swap(&mut from, &mut to);
            })
        }
        Workload::DespawnSubtree => {
            let mut world = World::new();
            let mut stack = Vec::new();
            Box::new(move || {
                let (root, leaf) = crate::untimed(|| {
                    let mut tree = vec![world.spawn((Children(Vec::new()),))];
                    for i in 1..HIERARCHY_BATCH {
                        let parent = tree[subtree_parent(i)];
                        let e = world.spawn((LocalT(IDENTITY), Parent(parent), Children(Vec::new())));
                        world.get::<&mut Children>(parent).unwrap().0.push(e);
                        tree.push(e);
                    }
                    (tree[0], tree[HIERARCHY_BATCH - 1])
                });
                stack.push(root);
                while let Some(e) = stack.pop() {
                    if let Ok(children) = world.remove_one::<Children>(e) {
                        stack.extend(children.0);
                    }
                    world.despawn(e).unwrap();
                }
                assert!(!world.contains(leaf), "the whole tree is gone");
            })
        }
        Workload::SaveLoad | Workload::SaveLoadPod => {
            let mut world = World::new();
            bodies(&mut world, SAVED);
            Box::new(move || {
                let mut serializer = postcard::Serializer { output: postcard::ser_flavors::AllocVec::new() };
                hecs::serialize::column::serialize(&world, &mut Saving, &mut serializer).unwrap();
                let bytes = postcard::ser_flavors::Flavor::finalize(serializer.output).unwrap();
                let mut loading = Loading(Vec::new());
                let mut deserializer = postcard::Deserializer::from_bytes(&bytes);
                let loaded = hecs::serialize::column::deserialize(&mut loading, &mut deserializer).unwrap();
                assert_eq!(loaded.len() as usize, SAVED);
            })
        }
        Workload::SoaPartialUpdate => {
            let mut world = World::new();
            world.spawn_batch((0..PARTICLES).map(|i| (Particle::new(particle(i)),)));
            let mut q = PreparedQuery::<&mut Particle>::default();
            Box::new(move || q.query_mut(&mut world).for_each(|(_, p)| p.x += p.vx))
        }
        Workload::SoaFullUpdate => {
            let mut world = World::new();
            world.spawn_batch((0..PARTICLES).map(|i| (Particle::new(particle(i)),)));
            let mut q = PreparedQuery::<&mut Particle>::default();
            Box::new(move || q.query_mut(&mut world).for_each(|(_, p)| p.full_update()))
        }
        Workload::SoaPartialUpdateAos | Workload::SoaFullUpdateAos => return None,
        Workload::DynamicIter | Workload::DynamicGet | Workload::DynamicSpawn => return None,
    })
}

struct LocalT(Affine);
struct GlobalT(Affine);
/// A child's link to its parent, kept by hand.
struct Parent(Entity);
/// A node's children, kept by hand.
struct Children(Vec<Entity>);

/// The propagation forest, linked by hand: the world, every node in spawn
/// order, the roots.
fn forest_world() -> (World, Vec<Entity>, Vec<Entity>) {
    let mut world = World::new();
    let mut all: Vec<Entity> = Vec::with_capacity(TREES * PER_TREE);
    let mut roots = Vec::new();
    for (i, parent) in forest().into_iter().enumerate() {
        let (l, g) = (LocalT(local(i)), GlobalT(IDENTITY));
        all.push(match parent {
            None => {
                let e = world.spawn((l, g, Children(Vec::new())));
                roots.push(e);
                e
            }
            Some(p) => {
                let e = world.spawn((l, g, Parent(all[p]), Children(Vec::new())));
                world.get::<&mut Children>(all[p]).unwrap().0.push(e);
                e
            }
        });
    }
    (world, all, roots)
}

/// Checks every global against its parent's global and its own local.
fn check_forest(world: &World, all: &[Entity]) {
    let parents = forest();
    for (i, &e) in all.iter().enumerate() {
        let parent = parents[i].map_or(IDENTITY, |p| world.get::<&GlobalT>(all[p]).unwrap().0);
        let expected = mul(&parent, &world.get::<&LocalT>(e).unwrap().0);
        assert_eq!(world.get::<&GlobalT>(e).unwrap().0, expected, "node {i} propagated");
    }
}

/// The particle of `soa_partial_update` (hecs stores it whole).
#[derive(Clone, Copy)]
#[allow(dead_code, reason = "mass and age ride along, unread, as in the workload")]
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

impl Particle {
    fn new([x, y, z, vx, vy, vz, mass, age]: [f32; 8]) -> Self {
        Self { x, y, z, vx, vy, vz, mass, age }
    }

    #[inline]
    fn full_update(&mut self) {
        self.x += self.vx;
        self.y += self.vy;
        self.z += self.vz;
        self.vx *= 0.99;
        self.vy -= 0.01;
        self.vz *= 0.99;
    }
}

/// The four component types of `save_load`, as the hecs docs name them.
#[derive(Clone, Copy, Serialize, Deserialize)]
enum Saved {
    Transform,
    Position,
    Rotation,
    Velocity,
}

struct Saving;

impl SerializeContext for Saving {
    fn component_count(&self, archetype: &Archetype) -> usize {
        let saved =
            [TypeId::of::<Transform>(), TypeId::of::<Position>(), TypeId::of::<Rotation>(), TypeId::of::<Velocity>()];
        archetype.component_types().filter(|t| saved.contains(t)).count()
    }

    fn serialize_component_ids<S: serde::ser::SerializeTuple>(
        &mut self,
        archetype: &Archetype,
        mut out: S,
    ) -> Result<S::Ok, S::Error> {
        try_serialize_id::<Transform, _, _>(archetype, &Saved::Transform, &mut out)?;
        try_serialize_id::<Position, _, _>(archetype, &Saved::Position, &mut out)?;
        try_serialize_id::<Rotation, _, _>(archetype, &Saved::Rotation, &mut out)?;
        try_serialize_id::<Velocity, _, _>(archetype, &Saved::Velocity, &mut out)?;
        out.end()
    }

    fn serialize_components<S: serde::ser::SerializeTuple>(
        &mut self,
        archetype: &Archetype,
        mut out: S,
    ) -> Result<S::Ok, S::Error> {
        try_serialize::<Transform, _>(archetype, &mut out)?;
        try_serialize::<Position, _>(archetype, &mut out)?;
        try_serialize::<Rotation, _>(archetype, &mut out)?;
        try_serialize::<Velocity, _>(archetype, &mut out)?;
        out.end()
    }
}

/// The components of the archetype being loaded.
struct Loading(Vec<Saved>);

impl DeserializeContext for Loading {
    fn deserialize_component_ids<'de, A: serde::de::SeqAccess<'de>>(
        &mut self,
        mut seq: A,
    ) -> Result<ColumnBatchType, A::Error> {
        self.0.clear();
        let mut batch = ColumnBatchType::new();
        while let Some(id) = seq.next_element()? {
            match id {
                Saved::Transform => batch.add::<Transform>(),
                Saved::Position => batch.add::<Position>(),
                Saved::Rotation => batch.add::<Rotation>(),
                Saved::Velocity => batch.add::<Velocity>(),
            };
            self.0.push(id);
        }
        Ok(batch)
    }

    fn deserialize_components<'de, A: serde::de::SeqAccess<'de>>(
        &mut self,
        entity_count: u32,
        mut seq: A,
        batch: &mut ColumnBatchBuilder,
    ) -> Result<(), A::Error> {
        for id in &self.0 {
            match id {
                Saved::Transform => deserialize_column::<Transform, _>(entity_count, &mut seq, batch)?,
                Saved::Position => deserialize_column::<Position, _>(entity_count, &mut seq, batch)?,
                Saved::Rotation => deserialize_column::<Rotation, _>(entity_count, &mut seq, batch)?,
                Saved::Velocity => deserialize_column::<Velocity, _>(entity_count, &mut seq, batch)?,
            }
        }
        Ok(())
    }
}
