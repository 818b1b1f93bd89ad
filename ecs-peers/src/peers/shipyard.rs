//! shipyard: sparse sets; views, `bulk_add_entity`, `par_iter`, its `Workload`s.

use shipyard::{
    AddComponent, Component, EntityId, Get, IntoIter, IntoWorkload, Remove, View, ViewMut,
    Workload as ShipyardWorkload, World,
};

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

fn bodies(world: &mut World, n: usize) {
    world
        .bulk_add_entity((0..n).map(|_| (Transform(identity()), Position(UNIT_X), Rotation(UNIT_X), Velocity(UNIT_X))));
}

fn ab(mut a: ViewMut<A>, mut b: ViewMut<B>) {
    for (a, b) in (&mut a, &mut b).iter() {
        core::mem::swap(&mut a.0, &mut b.0);
    }
}
fn cd(mut c: ViewMut<C>, mut d: ViewMut<D>) {
    for (c, d) in (&mut c, &mut d).iter() {
        core::mem::swap(&mut c.0, &mut d.0);
    }
}
fn ce(mut c: ViewMut<C>, mut e: ViewMut<E>) {
    for (c, e) in (&mut c, &mut e).iter() {
        core::mem::swap(&mut c.0, &mut e.0);
    }
}
fn tiny<const N: usize>(mut t: ViewMut<Tiny<N>>) {
    for t in (&mut t).iter() {
        t.0 += 1.0;
    }
}

fn tag<const N: usize>(world: &mut World, e: EntityId, mask: usize) {
    if mask & (1 << N) != 0 {
        world.add_component(e, Tag::<N>);
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
            Box::new(move || {
                world.run(|v: View<Velocity>, mut p: ViewMut<Position>| {
                    for (v, p) in (&v, &mut p).iter() {
                        add(&mut p.0, &v.0);
                    }
                })
            })
        }
        Workload::SimpleIterFor | Workload::SimpleIterSystemFor => return runner(Workload::SimpleIter),
        Workload::FragmentedIter => {
            let mut world = World::new();
            macro_rules! frags { ($($n:literal)*) => { $(world.bulk_add_entity((0..20).map(|_| (Frag::<$n>(0.0), Data(1.0))));)* }; }
            twenty_six!(frags);
            Box::new(move || {
                world.run(|mut d: ViewMut<Data>| {
                    for d in (&mut d).iter() {
                        d.0 *= 2.0;
                    }
                })
            })
        }
        Workload::HeavyCompute => {
            let mut world = World::new();
            bodies(&mut world, 1000);
            Box::new(move || {
                world.run(|mut p: ViewMut<Position>, mut t: ViewMut<Transform>| {
                    use rayon::prelude::*;
                    (&mut p, &mut t).par_iter().for_each(|(p, t)| heavy(&mut t.0, &mut p.0));
                })
            })
        }
        Workload::AddRemove | Workload::AddRemoveSparse => {
            let mut world = World::new();
            let entities: Vec<EntityId> = world.bulk_add_entity((0..10_000).map(|_| (A(0.0),))).collect();
            Box::new(move || {
                world.run(|mut bs: ViewMut<B>| {
                    for &e in &entities {
                        bs.add_component_unchecked(e, B(0.0));
                    }
                    for &e in &entities {
                        bs.remove(e);
                    }
                })
            })
        }
        Workload::RandomGet => {
            let mut world = World::new();
            let mut entities: Vec<EntityId> =
                world.bulk_add_entity((0..10_000).map(|_| (Position(UNIT_X), Velocity(UNIT_X)))).collect();
            shuffle(&mut entities);
            Box::new(move || {
                world.run(|p: View<Position>| {
                    let mut sum = 0.0;
                    for &e in &entities {
                        sum += (&p).get(e).unwrap().0[0];
                    }
                    std::hint::black_box(sum);
                })
            })
        }
        Workload::WorldGet | Workload::EntityGet | Workload::QueryGet => return runner(Workload::RandomGet),
        Workload::WorldGetMut => {
            let mut world = World::new();
            let mut entities: Vec<EntityId> =
                world.bulk_add_entity((0..10_000).map(|_| (Position(UNIT_X), Velocity(UNIT_X)))).collect();
            shuffle(&mut entities);
            Box::new(move || {
                world.run(|mut p: ViewMut<Position>| {
                    let mut sum = 0.0;
                    for &e in &entities {
                        sum += (&mut p).get(e).unwrap().0[0];
                    }
                    std::hint::black_box(sum);
                })
            })
        }
        Workload::WorldNew => Box::new(|| drop(std::hint::black_box(World::new()))),
        Workload::ManyArchetypes => {
            let mut world = World::new();
            for mask in 0..1024 {
                for _ in 0..4 {
                    let e = world.add_entity((Data(1.0),));
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
            Box::new(move || {
                world.run(|mut d: ViewMut<Data>| {
                    for d in (&mut d).iter() {
                        d.0 *= 2.0;
                    }
                })
            })
        }
        Workload::Schedule(n) => {
            let mut world = World::new();
            world.bulk_add_entity((0..n).map(|_| (A(0.0), B(1.0))));
            world.bulk_add_entity((0..n).map(|_| (A(0.0), B(1.0), C(2.0))));
            world.bulk_add_entity((0..n).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
            world.bulk_add_entity((0..n).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
            world.add_workload(|| (ab, cd, ce).into_workload());
            Box::new(move || world.run_default_workload().unwrap())
        }
        Workload::TinySystems => {
            let mut world = World::new();
            let mut workload = ShipyardWorkload::new("tiny");
            macro_rules! tiny_setup { ($($n:literal)*) => { $(
                world.bulk_add_entity((0..10).map(|_| (Tiny::<$n>(0.0),)));
                workload = workload.with_system(tiny::<$n>);
            )* }; }
            hundred!(tiny_setup);
            workload.add_to_world(&world).unwrap();
            Box::new(move || world.run_workload("tiny").unwrap())
        }
        Workload::Events
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
        | Workload::DynamicSpawn => return None,
    })
}
