//! ecs-core (this project): cached `QueryState`s, `spawn_batch`, `par_for_each`,
//! `Schedule`, random access through a query borrow (as shipyard's `View`);
//! `Messages` + `MessageCursor`, a global observer, a cached `Changed` query.

use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::Relaxed;

use bytemuck::{Pod, Zeroable};
use ecs_core::ComponentId;
use ecs_core::message::{MessageCursor, Messages};
use ecs_core::prelude::*;
use ecs_core::serialize::SerializeRegistry;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::{Runner, hundred, twenty_six};
use crate::workload::*;

#[derive(Component, Clone, Copy, Serialize, Deserialize)]
struct Transform(Mat4);
#[derive(Component, Clone, Copy, Serialize, Deserialize)]
struct Position([f32; 3]);
#[derive(Component, Clone, Copy, Serialize, Deserialize)]
struct Rotation([f32; 3]);
#[derive(Component, Clone, Copy, Serialize, Deserialize)]
struct Velocity([f32; 3]);
#[derive(Component, Clone, Copy)]
struct A(f32);
#[derive(Component, Clone, Copy)]
struct B(f32);
#[derive(Component, Clone, Copy)]
#[component(storage = "sparse")]
struct SparseB(f32);
#[derive(Component, Clone, Copy)]
struct C(f32);
#[derive(Component, Clone, Copy)]
struct D(f32);
#[derive(Component, Clone, Copy)]
struct E(f32);
#[derive(Component, Clone, Copy)]
struct Data(f32);
#[derive(Component, Clone, Copy)]
struct Frag<const N: usize>(f32);
#[derive(Component)]
struct Tag<const N: usize>;
#[derive(Component, Clone, Copy)]
struct Tiny<const N: usize>(f32);
#[derive(Event, Message, Clone, Copy)]
struct Small(u32);
#[derive(Component)]
struct Health(i64);
#[derive(Event)]
struct Hit(i64);
#[derive(Component, Clone, Copy)]
struct Value(u64);
/// Data (`u8`), not a tag: ecs-core's zero-sized tags do not split archetypes.
#[derive(Component, Clone, Copy)]
struct Marker<const N: usize>(u8);

#[derive(Component, Clone, Copy)]
struct LocalT(Affine);
#[derive(Component, Clone, Copy)]
struct GlobalT(Affine);

/// Which entities (by index) have a changed local at or below them this frame.
struct Dirty(Vec<AtomicBool>);

/// The propagation forest; entities in [`forest`] order.
fn forest_world() -> (World, Vec<Entity>) {
    let mut world = World::new();
    let mut all: Vec<Entity> = Vec::with_capacity(TREES * PER_TREE);
    for (i, parent) in forest().into_iter().enumerate() {
        let (l, g) = (LocalT(local(i)), GlobalT(IDENTITY));
        all.push(match parent {
            None => world.spawn((l, g)),
            Some(p) => world.spawn((l, g, ChildOf(all[p]))),
        });
    }
    (world, all)
}

/// Checks every global against its parent's global and its own local.
fn check_forest(world: &World, all: &[Entity]) {
    let parents = forest();
    for (i, &e) in all.iter().enumerate() {
        let parent = parents[i].map_or(IDENTITY, |p| world.get::<GlobalT>(all[p]).unwrap().0);
        let expected = mul(&parent, &world.get::<LocalT>(e).unwrap().0);
        assert_eq!(world.get::<GlobalT>(e).unwrap().0, expected, "node {i} propagated");
    }
}

fn bodies(world: &mut World, n: usize) {
    world.spawn_batch((0..n).map(|_| (Transform(identity()), Position(UNIT_X), Rotation(UNIT_X), Velocity(UNIT_X))));
}

// `par_for_each_mut`, as the crate recommends for loops that may be large: each
// query measures whether going parallel pays and runs inline where it does not.
fn ab(mut q: ecs_core::system::Query<(&mut A, &mut B)>) {
    q.par_for_each_mut(|(a, b)| core::mem::swap(&mut a.0, &mut b.0));
}
fn cd(mut q: ecs_core::system::Query<(&mut C, &mut D)>) {
    q.par_for_each_mut(|(c, d)| core::mem::swap(&mut c.0, &mut d.0));
}
fn ce(mut q: ecs_core::system::Query<(&mut C, &mut E)>) {
    q.par_for_each_mut(|(c, e)| core::mem::swap(&mut c.0, &mut e.0));
}
fn tiny<const N: usize>(mut q: ecs_core::system::Query<&mut Tiny<N>>) {
    q.iter_mut().for_each(|t| t.0 += 1.0);
}

/// The entities `query_get` reads, in shuffled order.
struct Shuffled(Vec<Entity>);

fn sum_positions(positions: ecs_core::system::Query<&Position>, order: Res<Shuffled>) {
    let mut sum = 0.0;
    for &e in &order.0 {
        sum += positions.get(e).unwrap().0[0];
    }
    std::hint::black_box(sum);
}

fn tag<const N: usize>(world: &mut World, e: Entity, mask: usize) {
    if mask & (1 << N) != 0 {
        world.insert(e, Tag::<N>).unwrap();
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
            let mut q = world.query_state::<(&Velocity, &mut Position)>();
            Box::new(move || q.iter_mut(&mut world).for_each(|(v, p)| add(&mut p.0, &v.0)))
        }
        Workload::SimpleIterFor => {
            let mut world = World::new();
            bodies(&mut world, 10_000);
            let mut q = world.query_state::<(&Velocity, &mut Position)>();
            Box::new(move || {
                for (v, p) in q.iter_mut(&mut world) {
                    add(&mut p.0, &v.0);
                }
            })
        }
        Workload::SimpleIterSystemFor => {
            fn movement(mut q: Query<(&Velocity, &mut Position)>) {
                for (v, p) in &mut q {
                    add(&mut p.0, &v.0);
                }
            }
            let mut world = World::new();
            bodies(&mut world, 10_000);
            let mut schedule = Schedule::new();
            schedule.add_systems(movement);
            Box::new(move || schedule.run(&mut world))
        }
        Workload::FragmentedIter => {
            let mut world = World::new();
            macro_rules! frags { ($($n:literal)*) => { $(world.spawn_batch((0..20).map(|_| (Frag::<$n>(0.0), Data(1.0))));)* }; }
            twenty_six!(frags);
            let mut q = world.query_state::<&mut Data>();
            Box::new(move || q.iter_mut(&mut world).for_each(|d| d.0 *= 2.0))
        }
        Workload::HeavyCompute => {
            let mut world = World::new();
            bodies(&mut world, 1000);
            let mut q = world.query_state::<(&mut Position, &mut Transform)>();
            Box::new(move || q.par_for_each(&mut world, |(p, t)| heavy(&mut t.0, &mut p.0)))
        }
        Workload::AddRemove => {
            let mut world = World::new();
            let entities: Vec<Entity> = world.spawn_batch((0..10_000).map(|_| A(0.0))).collect();
            Box::new(move || {
                for &e in &entities {
                    world.insert(e, B(0.0)).unwrap();
                }
                for &e in &entities {
                    world.remove::<B>(e).unwrap();
                }
            })
        }
        Workload::AddRemoveSparse => {
            let mut world = World::new();
            let entities: Vec<Entity> = world.spawn_batch((0..10_000).map(|_| A(0.0))).collect();
            Box::new(move || {
                for &e in &entities {
                    world.insert(e, SparseB(0.0)).unwrap();
                }
                for &e in &entities {
                    world.remove::<SparseB>(e).unwrap();
                }
            })
        }
        Workload::RandomGet => {
            let mut world = World::new();
            let mut entities: Vec<Entity> =
                world.spawn_batch((0..10_000).map(|_| (Position(UNIT_X), Velocity(UNIT_X)))).collect();
            shuffle(&mut entities);
            Box::new(move || {
                let positions = world.query::<&Position>();
                let mut sum = 0.0;
                for &e in &entities {
                    sum += positions.get(e).unwrap().0[0];
                }
                std::hint::black_box(sum);
            })
        }
        Workload::WorldGet | Workload::WorldGetMut | Workload::EntityGet | Workload::QueryGet => {
            let mut world = World::new();
            let mut entities: Vec<Entity> =
                world.spawn_batch((0..10_000).map(|_| (Position(UNIT_X), Velocity(UNIT_X)))).collect();
            shuffle(&mut entities);
            match workload {
                Workload::WorldGet => Box::new(move || {
                    let mut sum = 0.0;
                    for &e in &entities {
                        sum += world.get::<Position>(e).unwrap().0[0];
                    }
                    std::hint::black_box(sum);
                }),
                Workload::WorldGetMut => Box::new(move || {
                    let mut sum = 0.0;
                    for &e in &entities {
                        sum += world.get_mut::<Position>(e).unwrap().0[0];
                    }
                    std::hint::black_box(sum);
                }),
                Workload::EntityGet => Box::new(move || {
                    let mut sum = 0.0;
                    for &e in &entities {
                        sum += world.entity(e).unwrap().get::<Position>().unwrap().0[0];
                    }
                    std::hint::black_box(sum);
                }),
                _ => {
                    world.insert_resource(Shuffled(entities));
                    let mut schedule = Schedule::new();
                    schedule.add_systems(sum_positions);
                    Box::new(move || schedule.run(&mut world))
                }
            }
        }
        Workload::WorldNew => Box::new(|| drop(std::hint::black_box(World::new()))),
        Workload::ManyArchetypes => {
            let mut world = World::new();
            for mask in 0..1024 {
                for _ in 0..4 {
                    let e = world.spawn(Data(1.0));
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
            let mut q = world.query_state::<&mut Data>();
            Box::new(move || q.iter_mut(&mut world).for_each(|d| d.0 *= 2.0))
        }
        Workload::Schedule(n) => {
            let mut world = World::new();
            world.spawn_batch((0..n).map(|_| (A(0.0), B(1.0))));
            world.spawn_batch((0..n).map(|_| (A(0.0), B(1.0), C(2.0))));
            world.spawn_batch((0..n).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
            world.spawn_batch((0..n).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
            let mut schedule = Schedule::new();
            schedule.add_systems(ab).add_systems(cd).add_systems(ce);
            Box::new(move || schedule.run(&mut world))
        }
        Workload::TinySystems => {
            let mut world = World::new();
            let mut schedule = Schedule::new();
            macro_rules! tiny_setup { ($($n:literal)*) => { $(
                world.spawn_batch((0..10).map(|_| Tiny::<$n>(0.0)));
                schedule.add_systems(tiny::<$n>);
            )* }; }
            hundred!(tiny_setup);
            Box::new(move || schedule.run(&mut world))
        }
        Workload::Events => {
            let mut events = Messages::<Small>::default();
            let mut cursor = MessageCursor::<Small>::default();
            Box::new(move || {
                for i in 0..EVENTS {
                    events.write(Small(i));
                }
                let sum = cursor.read(&events).fold(0u64, |sum, e| sum + u64::from(e.0));
                events.update();
                std::hint::black_box(sum);
            })
        }
        Workload::Observers => {
            let mut world = World::new();
            let target = world.spawn(Health(0));
            world.add_observer(|hit: On<Hit>, mut q: ecs_core::system::Query<&mut Health>| {
                if let Ok(h) = q.get_mut(hit.target()) {
                    h.0 -= hit.0;
                }
            });
            world.trigger_targets(Hit(1), target);
            assert_eq!(world.get::<Health>(target).map(|h| h.0), Some(-1), "the observer ran once");
            Box::new(move || {
                for _ in 0..TRIGGERS {
                    world.trigger_targets(Hit(1), target);
                }
            })
        }
        Workload::EntityObservers => {
            let mut world = World::new();
            let targets: Vec<Entity> = (0..OBSERVED).map(|_| world.spawn(Health(0))).collect();
            for &target in &targets {
                world.entity_mut(target).unwrap().observe(
                    |hit: On<Hit>, mut q: ecs_core::system::Query<&mut Health>| {
                        if let Ok(h) = q.get_mut(hit.target()) {
                            h.0 -= hit.0;
                        }
                    },
                );
            }
            world.trigger_targets(Hit(1), targets[0]);
            assert_eq!(world.get::<Health>(targets[0]).map(|h| h.0), Some(-1), "the observer ran once");
            assert_eq!(world.get::<Health>(targets[1]).map(|h| h.0), Some(0), "only its own");
            Box::new(move || {
                for &target in &targets {
                    world.trigger_targets(Hit(1), target);
                }
            })
        }
        Workload::Changed => {
            let mut world = World::new();
            let mut entities: Vec<Entity> = Vec::new();
            macro_rules! marked { ($($n:literal)*) => { $(
                entities.extend(world.spawn_batch((0..CHANGED_PER_ARCHETYPE).map(|i| (Value(i as u64), Marker::<$n>(0)))));
            )* }; }
            hundred!(marked);
            let mut changed = world.query_state_filtered::<&Value, Changed<Value>>();
            // The first run sees every spawned row; from then on, only what was written since.
            std::hint::black_box(changed.iter(&world).count());
            let mut frame = 0;
            Box::new(move || {
                frame += 1;
                for k in 0..CHANGED_ROWS {
                    let e = entities[changed_row(frame, k, entities.len())];
                    world.get_mut::<Value>(e).unwrap().0 += 1;
                }
                let (count, sum) = changed.iter(&world).fold((0, 0u64), |(n, sum), v| (n + 1, sum + v.0));
                assert_eq!(count, CHANGED_ROWS, "Changed<Value> yields exactly the rows written");
                std::hint::black_box(sum);
            })
        }
        Workload::PropagateFull => {
            let (mut world, all) = forest_world();
            let mut schedule = Schedule::new();
            schedule.add_systems(|mut nodes: ecs_core::system::Query<(&LocalT, &mut GlobalT)>| {
                nodes.par_propagate::<ChildOf, Affine>(|parent, (local, global)| {
                    global.0 = mul(parent.unwrap_or(&IDENTITY), &local.0);
                    Some(global.0)
                });
            });
            schedule.run(&mut world);
            check_forest(&world, &all);
            Box::new(move || schedule.run(&mut world))
        }
        Workload::PropagateOnePercent => {
            let (mut world, all) = forest_world();
            // One mark per entity index: the forest's entities are the world's only
            // ones, so their indices stay below `all.len()`.
            world.insert_resource(Dirty((0..all.len()).map(|_| AtomicBool::new(false)).collect()));
            // Marks each changed node and its ancestors, in parallel from the
            // changed nodes; a walk stops at an ancestor already marked.
            let mark = |changed: ecs_core::system::Query<Entity, Changed<LocalT>>,
                        parents: ecs_core::system::Query<&ChildOf>,
                        dirty: Res<Dirty>| {
                changed.par_for_each(|e| {
                    for a in std::iter::once(e).chain(parents.iter_ancestors(e)) {
                        if dirty.0[a.index() as usize].swap(true, Relaxed) {
                            break;
                        }
                    }
                });
            };
            // The walk clears each mark it passes (every marked node is on the
            // way down to a changed one).
            let propagate = |mut nodes: ecs_core::system::Query<(Entity, Ref<LocalT>, Mut<GlobalT>)>,
                             dirty: Res<Dirty>| {
                nodes.par_propagate::<ChildOf, (Affine, bool)>(|parent, (entity, local, mut global)| {
                    let recompute = parent.is_some_and(|p| p.1) || local.is_changed();
                    if recompute {
                        global.0 = mul(parent.map_or(&IDENTITY, |p| &p.0), &local.0);
                    }
                    let mark = &dirty.0[entity.index() as usize];
                    let below = mark.load(Relaxed) && mark.swap(false, Relaxed);
                    (recompute || below).then(|| (global.0, recompute))
                });
            };
            let mut schedule = Schedule::new();
            // Both only read `Dirty` (its marks are atomic): `chain` orders them.
            schedule.add_systems((mark, propagate).chain());
            schedule.run(&mut world);
            let check = all.clone();
            let mut seed = 11;
            let mut frame = move |world: &mut World| {
                for i in changed_nodes(&mut seed, all.len()) {
                    world.get_mut::<LocalT>(all[i]).unwrap().0[4] += 0.01;
                }
                schedule.run(world);
            };
            frame(&mut world);
            check_forest(&world, &check);
            Box::new(move || frame(&mut world))
        }
        Workload::Reparent => {
            let mut world = World::new();
            let (mut from, mut to) = (world.spawn(()), world.spawn(()));
            let kids: Vec<Entity> = world.spawn_batch((0..HIERARCHY_BATCH).map(|_| ChildOf(from))).collect();
            Box::new(move || {
                for &kid in &kids {
                    world.insert(kid, ChildOf(to)).unwrap();
                }
                assert_eq!(world.get::<Children>(to).map(|c| c.len()), Some(HIERARCHY_BATCH));
                core::mem::swap(&mut from, &mut to);
            })
        }
        Workload::DespawnSubtree => {
            let mut world = World::new();
            Box::new(move || {
                let (root, leaf) = crate::untimed(|| {
                    let mut tree = vec![world.spawn(())];
                    for i in 1..HIERARCHY_BATCH {
                        tree.push(world.spawn((LocalT(IDENTITY), ChildOf(tree[subtree_parent(i)]))));
                    }
                    (tree[0], tree[HIERARCHY_BATCH - 1])
                });
                world.despawn(root).unwrap();
                assert!(!world.contains(leaf), "the whole tree is gone");
            })
        }
        Workload::SaveLoad => save_load::<Transform, Position, Rotation, Velocity>(|| {
            (Transform(identity()), Position(UNIT_X), Rotation(UNIT_X), Velocity(UNIT_X))
        }),
        Workload::SaveLoadPod => save_load::<pod::Transform, pod::Position, pod::Rotation, pod::Velocity>(|| {
            (pod::Transform(identity()), pod::Position(UNIT_X), pod::Rotation(UNIT_X), pod::Velocity(UNIT_X))
        }),
        Workload::SoaPartialUpdate => {
            let mut world = World::new();
            world.spawn_batch((0..PARTICLES).map(|i| particles::split(particle(i))));
            let mut q = world.query_state::<&mut particles::Split>();
            Box::new(move || q.iter_mut(&mut world).for_each(|p| *p.x += *p.vx))
        }
        Workload::SoaPartialUpdateAos => {
            let mut world = World::new();
            world.spawn_batch((0..PARTICLES).map(|i| particles::whole(particle(i))));
            let mut q = world.query_state::<&mut particles::Whole>();
            Box::new(move || q.iter_mut(&mut world).for_each(|p| p.x += p.vx))
        }
        Workload::SoaFullUpdate => {
            let mut world = World::new();
            world.spawn_batch((0..PARTICLES).map(|i| particles::split(particle(i))));
            let mut q = world.query_state::<&mut particles::Split>();
            Box::new(move || {
                q.iter_mut(&mut world).for_each(|p| {
                    *p.x += *p.vx;
                    *p.y += *p.vy;
                    *p.z += *p.vz;
                    *p.vx *= 0.99;
                    *p.vy -= 0.01;
                    *p.vz *= 0.99;
                })
            })
        }
        Workload::SoaFullUpdateAos => {
            let mut world = World::new();
            world.spawn_batch((0..PARTICLES).map(|i| particles::whole(particle(i))));
            let mut q = world.query_state::<&mut particles::Whole>();
            Box::new(move || {
                q.iter_mut(&mut world).for_each(|p| {
                    p.x += p.vx;
                    p.y += p.vy;
                    p.z += p.vz;
                    p.vx *= 0.99;
                    p.vy -= 0.01;
                    p.vz *= 0.99;
                })
            })
        }
        Workload::DynamicSpawn => {
            let mut builder = ecs_core::world::EntityBuilder::new();
            Box::new(move || {
                let mut world = World::new();
                let ids = dynamic::components(&mut world);
                dynamic::spawn(&mut world, &mut builder, &ids, 10_000);
                std::hint::black_box(&world);
            })
        }
        Workload::DynamicGet => {
            let mut world = World::new();
            let ids = dynamic::components(&mut world);
            let mut entities = dynamic::spawn(&mut world, &mut ecs_core::world::EntityBuilder::new(), &ids, 10_000);
            shuffle(&mut entities);
            let x = world.get_by_id(entities[0], ids[0]).unwrap().field("v[0]").unwrap();
            Box::new(move || {
                let mut sum = 0.0;
                for &e in &entities {
                    sum += world.get_by_id(e, ids[0]).unwrap().get::<f32>(&x).unwrap();
                }
                std::hint::black_box(sum);
            })
        }
        Workload::DynamicIter => {
            let mut world = World::new();
            let ids = dynamic::components(&mut world);
            let entities = dynamic::spawn(&mut world, &mut ecs_core::world::EntityBuilder::new(), &ids, 10_000);
            let (pos, vel) = (ids[0], ids[1]);
            let p_v = world.get_by_id(entities[0], pos).unwrap().field("v").unwrap();
            let v_v = world.get_by_id(entities[0], vel).unwrap().field("v").unwrap();
            let query = world.dynamic_query().write(pos).read(vel).build(&world).unwrap();
            Box::new(move || {
                query.for_each_archetype_mut(&mut world, |archetype| {
                    let (velocities, mut positions) = (archetype.rows(vel).unwrap(), archetype.rows_mut(pos).unwrap());
                    for row in 0..velocities.len() {
                        let (v, mut p) = (velocities.get(row).unwrap(), positions.get_mut(row).unwrap());
                        let mut value: [f32; 3] = p.get(&p_v).unwrap();
                        add(&mut value, &v.get(&v_v).unwrap());
                        p.set(&p_v, value).unwrap();
                    }
                })
            })
        }
    })
}

/// Components defined at run time for the `dynamic_*` workloads.
mod dynamic {
    use ecs_core::component::{ComponentDescriptor, FieldKind, SchemaBuilder};
    use ecs_core::world::EntityBuilder;

    use super::*;

    /// Four components, each `{ v: [f32; 3] }`.
    pub fn components(world: &mut World) -> [ComponentId; 4] {
        ["DynPosition", "DynVelocity", "DynRotation", "DynTransform"].map(|name| {
            let schema = SchemaBuilder::new(name).field("v", FieldKind::array(FieldKind::F32, 3)).build().unwrap();
            world.register_dynamic(&ComponentDescriptor::new(name, schema)).unwrap()
        })
    }

    /// Spawns `n` entities of the four, each value written in the builder.
    pub fn spawn(world: &mut World, builder: &mut EntityBuilder, ids: &[ComponentId; 4], n: usize) -> Vec<Entity> {
        let handles: Vec<_> =
            ids.iter().map(|&id| EntityBuilder::new().add_by_id(world, id).unwrap().field("v").unwrap()).collect();
        (0..n)
            .map(|i| {
                let values = [UNIT_X, UNIT_X, [i as f32; 3], [0.0; 3]];
                for ((&id, value), handle) in ids.iter().zip(values).zip(&handles) {
                    builder.add_by_id(world, id).unwrap().set(handle, value).unwrap();
                }
                builder.spawn(world).unwrap()
            })
            .collect()
    }
}

/// The particles of `soa_partial_update` and `soa_full_update`, per field and
/// whole.
#[allow(dead_code, reason = "mass and age ride along, unread, as in the workload")]
mod particles {
    use super::*;

    #[derive(Component, Clone, Copy)]
    #[component(layout = "soa")]
    pub struct Split {
        pub x: f32,
        pub y: f32,
        pub z: f32,
        pub vx: f32,
        pub vy: f32,
        pub vz: f32,
        pub mass: f32,
        pub age: f32,
    }

    #[derive(Component, Clone, Copy)]
    pub struct Whole {
        pub x: f32,
        pub y: f32,
        pub z: f32,
        pub vx: f32,
        pub vy: f32,
        pub vz: f32,
        pub mass: f32,
        pub age: f32,
    }

    pub fn split([x, y, z, vx, vy, vz, mass, age]: [f32; 8]) -> Split {
        Split { x, y, z, vx, vy, vz, mass, age }
    }

    pub fn whole([x, y, z, vx, vy, vz, mass, age]: [f32; 8]) -> Whole {
        Whole { x, y, z, vx, vy, vz, mass, age }
    }
}

/// The components of `save_load_pod`: plain old data.
mod pod {
    use super::*;

    #[derive(Component, Clone, Copy, Pod, Zeroable, Serialize, Deserialize)]
    #[component(pod)]
    #[repr(transparent)]
    pub struct Transform(pub Mat4);
    #[derive(Component, Clone, Copy, Pod, Zeroable, Serialize, Deserialize)]
    #[component(pod)]
    #[repr(transparent)]
    pub struct Position(pub [f32; 3]);
    #[derive(Component, Clone, Copy, Pod, Zeroable, Serialize, Deserialize)]
    #[component(pod)]
    #[repr(transparent)]
    pub struct Rotation(pub [f32; 3]);
    #[derive(Component, Clone, Copy, Pod, Zeroable, Serialize, Deserialize)]
    #[component(pod)]
    #[repr(transparent)]
    pub struct Velocity(pub [f32; 3]);
}

/// `save_load` over four registered component types.
fn save_load<A, B, C, D>(make: fn() -> (A, B, C, D)) -> Runner
where
    A: Component + Serialize + DeserializeOwned,
    B: Component + Serialize + DeserializeOwned,
    C: Component + Serialize + DeserializeOwned,
    D: Component + Serialize + DeserializeOwned,
{
    let registry = SerializeRegistry::new()
        .register::<A>("Transform")
        .register::<B>("Position")
        .register::<C>("Rotation")
        .register::<D>("Velocity");
    let mut world = World::new();
    world.spawn_batch((0..SAVED).map(|_| make()));
    Box::new(move || {
        let bytes = postcard::to_allocvec(&registry.columns(&world)).unwrap();
        let save = registry.load_columns(&mut postcard::Deserializer::from_bytes(&bytes)).unwrap();
        let mut loaded = World::new();
        loaded.load(save);
        assert_eq!(loaded.len(), SAVED);
    })
}
