//! legion: cached `Query`s, `World::extend`, `par_for_each_mut`, its `Schedule` of
//! `SystemBuilder` systems.

use legion::systems::{Resources, Schedule, SystemBuilder};
use legion::{Entity, EntityStore, IntoQuery, Read, World, Write};

use super::{Runner, hundred, twenty_six};
use crate::workload::*;

#[derive(Clone, Copy)]
struct Transform(Mat4);
#[derive(Clone, Copy)]
struct Position([f32; 3]);
#[derive(Clone, Copy)]
struct Rotation([f32; 3]);
#[derive(Clone, Copy)]
struct Velocity([f32; 3]);
#[derive(Clone, Copy)]
struct A(f32);
#[derive(Clone, Copy)]
struct B(f32);
#[derive(Clone, Copy)]
struct C(f32);
#[derive(Clone, Copy)]
struct D(f32);
#[derive(Clone, Copy)]
struct E(f32);
#[derive(Clone, Copy)]
struct Data(f32);
#[derive(Clone, Copy)]
struct Frag<const N: usize>(f32);
struct Tag<const N: usize>;
#[derive(Clone, Copy)]
struct Tiny<const N: usize>(f32);

fn bodies(world: &mut World, n: usize) {
    world.extend(
        (0..n)
            .map(|_| (Transform(identity()), Position(UNIT_X), Rotation(UNIT_X), Velocity(UNIT_X)))
            .collect::<Vec<_>>(),
    );
}

fn tag<const N: usize>(world: &mut World, e: Entity, mask: usize) {
    if mask & (1 << N) != 0 {
        world.entry(e).unwrap().add_component(Tag::<N>);
    }
}

fn swap_system<X: Send + Sync + 'static, Y: Send + Sync + 'static>(
    name: &'static str,
    swap: fn(&mut X, &mut Y),
) -> impl legion::systems::ParallelRunnable {
    SystemBuilder::new(name).with_query(<(Write<X>, Write<Y>)>::query()).build(move |_, world, _, query| {
        for (x, y) in query.iter_mut(world) {
            swap(x, y);
        }
    })
}

pub fn runner(workload: Workload) -> Option<Runner> {
    Some(match workload {
        Workload::SimpleInsert => Box::new(|| {
            let mut world = World::default();
            bodies(&mut world, 10_000);
            std::hint::black_box(&world);
        }),
        Workload::SimpleIter => {
            let mut world = World::default();
            bodies(&mut world, 10_000);
            let mut q = <(Read<Velocity>, Write<Position>)>::query();
            Box::new(move || q.for_each_mut(&mut world, |(v, p)| add(&mut p.0, &v.0)))
        }
        Workload::SimpleIterFor | Workload::SimpleIterSystemFor => {
            let mut world = World::default();
            bodies(&mut world, 10_000);
            let mut q = <(Read<Velocity>, Write<Position>)>::query();
            Box::new(move || {
                for (v, p) in q.iter_mut(&mut world) {
                    add(&mut p.0, &v.0);
                }
            })
        }
        Workload::FragmentedIter => {
            let mut world = World::default();
            macro_rules! frags { ($($n:literal)*) => { $(world.extend((0..20).map(|_| (Frag::<$n>(0.0), Data(1.0))).collect::<Vec<_>>());)* }; }
            twenty_six!(frags);
            let mut q = <Write<Data>>::query();
            Box::new(move || q.for_each_mut(&mut world, |d| d.0 *= 2.0))
        }
        Workload::HeavyCompute => {
            let mut world = World::default();
            bodies(&mut world, 1000);
            let mut q = <(Write<Position>, Write<Transform>)>::query();
            Box::new(move || q.par_for_each_mut(&mut world, |(p, t)| heavy(&mut t.0, &mut p.0)))
        }
        Workload::AddRemoveSparse
        | Workload::Events
        | Workload::Observers
        | Workload::EntityObservers
        | Workload::Changed
        | Workload::PropagateFull
        | Workload::PropagateOnePercent
        | Workload::Reparent
        | Workload::DespawnSubtree
        | Workload::SaveLoad
        | Workload::SaveLoadPod
        | Workload::SoaPartialUpdate
        | Workload::SoaPartialUpdateAos
        | Workload::SoaFullUpdate
        | Workload::SoaFullUpdateAos
        | Workload::DynamicIter
        | Workload::DynamicGet
        | Workload::DynamicSpawn
        | Workload::WorldGetMut
        | Workload::EntityGet
        | Workload::QueryGet => return None,
        Workload::AddRemove => {
            let mut world = World::default();
            let entities: Vec<Entity> = world.extend((0..10_000).map(|_| (A(0.0),)).collect::<Vec<_>>()).to_vec();
            Box::new(move || {
                for &e in &entities {
                    world.entry(e).unwrap().add_component(B(0.0));
                }
                for &e in &entities {
                    world.entry(e).unwrap().remove_component::<B>();
                }
            })
        }
        Workload::RandomGet => {
            let mut world = World::default();
            let mut entities: Vec<Entity> =
                world.extend((0..10_000).map(|_| (Position(UNIT_X), Velocity(UNIT_X))).collect::<Vec<_>>()).to_vec();
            shuffle(&mut entities);
            Box::new(move || {
                let mut sum = 0.0;
                for &e in &entities {
                    sum += world.entry_ref(e).unwrap().get_component::<Position>().unwrap().0[0];
                }
                std::hint::black_box(sum);
            })
        }
        Workload::WorldGet => return runner(Workload::RandomGet),
        Workload::WorldNew => Box::new(|| drop(std::hint::black_box(World::default()))),
        Workload::ManyArchetypes => {
            let mut world = World::default();
            for mask in 0..1024 {
                for _ in 0..4 {
                    let e = world.push((Data(1.0),));
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
            let mut q = <Write<Data>>::query();
            Box::new(move || q.for_each_mut(&mut world, |d| d.0 *= 2.0))
        }
        Workload::Schedule(n) => {
            let mut world = World::default();
            world.extend((0..n).map(|_| (A(0.0), B(1.0))).collect::<Vec<_>>());
            world.extend((0..n).map(|_| (A(0.0), B(1.0), C(2.0))).collect::<Vec<_>>());
            world.extend((0..n).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))).collect::<Vec<_>>());
            world.extend((0..n).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))).collect::<Vec<_>>());
            let mut schedule = Schedule::builder()
                .add_system(swap_system::<A, B>("ab", |a, b| core::mem::swap(&mut a.0, &mut b.0)))
                .add_system(swap_system::<C, D>("cd", |c, d| core::mem::swap(&mut c.0, &mut d.0)))
                .add_system(swap_system::<C, E>("ce", |c, e| core::mem::swap(&mut c.0, &mut e.0)))
                .build();
            let mut resources = Resources::default();
            Box::new(move || schedule.execute(&mut world, &mut resources))
        }
        Workload::TinySystems => {
            let mut world = World::default();
            let mut builder = Schedule::builder();
            macro_rules! tiny_setup { ($($n:literal)*) => { $(
                world.extend((0..10).map(|_| (Tiny::<$n>(0.0),)).collect::<Vec<_>>());
                builder.add_system(SystemBuilder::new(concat!("tiny", $n)).with_query(<Write<Tiny<$n>>>::query()).build(
                    |_, world, _, query| query.for_each_mut(world, |t| t.0 += 1.0),
                ));
            )* }; }
            hundred!(tiny_setup);
            let mut schedule = builder.build();
            let mut resources = Resources::default();
            Box::new(move || schedule.execute(&mut world, &mut resources))
        }
    })
}
