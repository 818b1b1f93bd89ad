//! bevy_ecs: cached `QueryState`s, `spawn_batch`, `par_iter_mut`, its multi-threaded
//! `Schedule`; `Messages` + `MessageCursor`, a global observer of an
//! `EntityEvent`, a cached `Changed` query.

use bevy_ecs::message::MessageCursor;
use bevy_ecs::prelude::*;

use super::{Runner, hundred, twenty_six};
use crate::workload::*;

#[derive(Component, Clone, Copy)]
struct Transform(Mat4);
#[derive(Component, Clone, Copy)]
struct Position([f32; 3]);
#[derive(Component, Clone, Copy)]
struct Rotation([f32; 3]);
#[derive(Component, Clone, Copy)]
struct Velocity([f32; 3]);
#[derive(Component, Clone, Copy)]
struct A(f32);
#[derive(Component, Clone, Copy)]
struct B(f32);
#[derive(Component, Clone, Copy)]
#[component(storage = "SparseSet")]
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
#[derive(Message, Clone, Copy)]
struct Small(u32);
#[derive(Component)]
struct Health(i64);
#[derive(EntityEvent)]
struct Hit {
    entity: Entity,
    amount: i64,
}
#[derive(Component, Clone, Copy)]
struct Value(u64);
/// Data (`u8`), not a tag: ecs-core's zero-sized tags do not split archetypes.
#[derive(Component, Clone, Copy)]
struct Marker<const N: usize>(u8);

fn bodies(world: &mut World, n: usize) {
    world.spawn_batch((0..n).map(|_| (Transform(identity()), Position(UNIT_X), Rotation(UNIT_X), Velocity(UNIT_X))));
}

fn ab(mut q: Query<(&mut A, &mut B)>) {
    for (mut a, mut b) in q.iter_mut() {
        core::mem::swap(&mut a.0, &mut b.0);
    }
}
fn cd(mut q: Query<(&mut C, &mut D)>) {
    for (mut c, mut d) in q.iter_mut() {
        core::mem::swap(&mut c.0, &mut d.0);
    }
}
fn ce(mut q: Query<(&mut C, &mut E)>) {
    for (mut c, mut e) in q.iter_mut() {
        core::mem::swap(&mut c.0, &mut e.0);
    }
}
fn tiny<const N: usize>(mut q: Query<&mut Tiny<N>>) {
    for mut t in q.iter_mut() {
        t.0 += 1.0;
    }
}

fn tag<const N: usize>(world: &mut World, e: Entity, mask: usize) {
    if mask & (1 << N) != 0 {
        world.entity_mut(e).insert(Tag::<N>);
    }
}

pub fn runner(workload: Workload) -> Option<Runner> {
    bevy_tasks::ComputeTaskPool::get_or_init(bevy_tasks::TaskPool::default);
    Some(match workload {
        Workload::SimpleInsert => Box::new(|| {
            let mut world = World::new();
            bodies(&mut world, 10_000);
            std::hint::black_box(&world);
        }),
        Workload::SimpleIter => {
            let mut world = World::new();
            bodies(&mut world, 10_000);
            let mut q = world.query::<(&Velocity, &mut Position)>();
            Box::new(move || q.iter_mut(&mut world).for_each(|(v, mut p)| add(&mut p.0, &v.0)))
        }
        Workload::FragmentedIter => {
            let mut world = World::new();
            macro_rules! frags { ($($n:literal)*) => { $(world.spawn_batch((0..20).map(|_| (Frag::<$n>(0.0), Data(1.0))));)* }; }
            twenty_six!(frags);
            let mut q = world.query::<&mut Data>();
            Box::new(move || q.iter_mut(&mut world).for_each(|mut d| d.0 *= 2.0))
        }
        Workload::HeavyCompute => {
            let mut world = World::new();
            bodies(&mut world, 1000);
            let mut q = world.query::<(&mut Position, &mut Transform)>();
            Box::new(move || q.par_iter_mut(&mut world).for_each(|(mut p, mut t)| heavy(&mut t.0, &mut p.0)))
        }
        Workload::AddRemove => {
            let mut world = World::new();
            let entities: Vec<Entity> = world.spawn_batch((0..10_000).map(|_| A(0.0))).collect();
            Box::new(move || {
                for &e in &entities {
                    world.entity_mut(e).insert(B(0.0));
                }
                for &e in &entities {
                    world.entity_mut(e).remove::<B>();
                }
            })
        }
        Workload::AddRemoveSparse => {
            let mut world = World::new();
            let entities: Vec<Entity> = world.spawn_batch((0..10_000).map(|_| A(0.0))).collect();
            Box::new(move || {
                for &e in &entities {
                    world.entity_mut(e).insert(SparseB(0.0));
                }
                for &e in &entities {
                    world.entity_mut(e).remove::<SparseB>();
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
                    sum += world.get::<Position>(e).unwrap().0[0];
                }
                std::hint::black_box(sum);
            })
        }
        Workload::ManyArchetypes => {
            let mut world = World::new();
            for mask in 0..1024 {
                for _ in 0..4 {
                    let e = world.spawn(Data(1.0)).id();
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
            let mut q = world.query::<&mut Data>();
            Box::new(move || q.iter_mut(&mut world).for_each(|mut d| d.0 *= 2.0))
        }
        Workload::Schedule => {
            let mut world = World::new();
            world.spawn_batch((0..10_000).map(|_| (A(0.0), B(1.0))));
            world.spawn_batch((0..10_000).map(|_| (A(0.0), B(1.0), C(2.0))));
            world.spawn_batch((0..10_000).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
            world.spawn_batch((0..10_000).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
            let mut schedule = Schedule::default();
            schedule.add_systems((ab, cd, ce));
            Box::new(move || schedule.run(&mut world))
        }
        Workload::TinySystems => {
            let mut world = World::new();
            let mut schedule = Schedule::default();
            macro_rules! tiny_setup { ($($n:literal)*) => { $(
                world.spawn_batch((0..10).map(|_| Tiny::<$n>(0.0)));
                schedule.add_systems(tiny::<$n>);
            )* }; }
            hundred!(tiny_setup);
            Box::new(move || schedule.run(&mut world))
        }
        Workload::Events => {
            let mut messages = Messages::<Small>::default();
            let mut cursor = MessageCursor::<Small>::default();
            Box::new(move || {
                for i in 0..EVENTS {
                    messages.write(Small(i));
                }
                let sum = cursor.read(&messages).fold(0u64, |sum, m| sum + u64::from(m.0));
                messages.update();
                std::hint::black_box(sum);
            })
        }
        Workload::Observers => {
            let mut world = World::new();
            let target = world.spawn(Health(0)).id();
            world.add_observer(|hit: On<Hit>, mut q: Query<&mut Health>| {
                if let Ok(mut h) = q.get_mut(hit.entity) {
                    h.0 -= hit.amount;
                }
            });
            world.trigger(Hit { entity: target, amount: 1 });
            assert_eq!(world.get::<Health>(target).map(|h| h.0), Some(-1), "the observer ran once");
            Box::new(move || {
                for _ in 0..TRIGGERS {
                    world.trigger(Hit { entity: target, amount: 1 });
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
            let mut changed = world.query_filtered::<&Value, Changed<Value>>();
            // A `QueryState` run on a `&World` compares against the world's last
            // change tick, which `clear_trackers` advances once a frame (as
            // `App::update` does): the spawns are behind it from here on.
            world.clear_trackers();
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
                world.clear_trackers();
            })
        }
    })
}
