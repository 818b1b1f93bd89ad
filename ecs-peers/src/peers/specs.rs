//! specs: storages and joins, `par_join`, its `Dispatcher`.

use specs::prelude::*;
use specs::{Component, NullStorage, VecStorage};

use super::{Runner, hundred, twenty_six};
use crate::workload::*;

#[derive(Component, Clone, Copy)]
#[storage(VecStorage)]
struct Transform(Mat4);
#[derive(Component, Clone, Copy)]
#[storage(VecStorage)]
struct Position([f32; 3]);
#[derive(Component, Clone, Copy)]
#[storage(VecStorage)]
struct Rotation([f32; 3]);
#[derive(Component, Clone, Copy)]
#[storage(VecStorage)]
struct Velocity([f32; 3]);
#[derive(Component, Clone, Copy)]
#[storage(VecStorage)]
struct A(f32);
#[derive(Component, Clone, Copy)]
#[storage(VecStorage)]
struct B(f32);
#[derive(Component, Clone, Copy)]
#[storage(VecStorage)]
struct C(f32);
#[derive(Component, Clone, Copy)]
#[storage(VecStorage)]
struct D(f32);
#[derive(Component, Clone, Copy)]
#[storage(VecStorage)]
struct E(f32);
#[derive(Component, Clone, Copy)]
#[storage(VecStorage)]
struct Data(f32);
#[derive(Component, Clone, Copy)]
#[storage(VecStorage)]
struct Frag<const N: usize>(f32);
#[derive(Component, Default)]
#[storage(NullStorage)]
struct Tag<const N: usize>;
#[derive(Component, Clone, Copy)]
#[storage(VecStorage)]
struct Tiny<const N: usize>(f32);

fn bodies(world: &mut World, n: usize) {
    world.register::<Transform>();
    world.register::<Position>();
    world.register::<Rotation>();
    world.register::<Velocity>();
    for _ in 0..n {
        world
            .create_entity()
            .with(Transform(identity()))
            .with(Position(UNIT_X))
            .with(Rotation(UNIT_X))
            .with(Velocity(UNIT_X))
            .build();
    }
}

macro_rules! swap_system {
    ($name:ident, $x:ident, $y:ident) => {
        struct $name;
        impl<'a> System<'a> for $name {
            type SystemData = (WriteStorage<'a, $x>, WriteStorage<'a, $y>);
            fn run(&mut self, (mut x, mut y): Self::SystemData) {
                for (x, y) in (&mut x, &mut y).join() {
                    core::mem::swap(&mut x.0, &mut y.0);
                }
            }
        }
    };
}

swap_system!(SwapAB, A, B);
swap_system!(SwapCD, C, D);
swap_system!(SwapCE, C, E);

struct TinySys<const N: usize>;

impl<'a, const N: usize> System<'a> for TinySys<N> {
    type SystemData = WriteStorage<'a, Tiny<N>>;
    fn run(&mut self, mut t: Self::SystemData) {
        for t in (&mut t).join() {
            t.0 += 1.0;
        }
    }
}

fn tag<const N: usize>(world: &World, e: Entity, mask: usize) {
    if mask & (1 << N) != 0 {
        world.write_storage::<Tag<N>>().insert(e, Tag::<N>).unwrap();
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
                let (v, mut p): (ReadStorage<Velocity>, WriteStorage<Position>) = world.system_data();
                for (v, p) in (&v, &mut p).join() {
                    add(&mut p.0, &v.0);
                }
            })
        }
        Workload::SimpleIterFor | Workload::SimpleIterSystemFor => return runner(Workload::SimpleIter),
        Workload::FragmentedIter => {
            let mut world = World::new();
            world.register::<Data>();
            macro_rules! frags { ($($n:literal)*) => { $(
                world.register::<Frag<$n>>();
                for _ in 0..20 { world.create_entity().with(Frag::<$n>(0.0)).with(Data(1.0)).build(); }
            )* }; }
            twenty_six!(frags);
            Box::new(move || {
                let mut d = world.write_storage::<Data>();
                for d in (&mut d).join() {
                    d.0 *= 2.0;
                }
            })
        }
        Workload::HeavyCompute => {
            let mut world = World::new();
            bodies(&mut world, 1000);
            Box::new(move || {
                let (mut p, mut t): (WriteStorage<Position>, WriteStorage<Transform>) = world.system_data();
                (&mut p, &mut t).par_join().for_each(|(p, t)| heavy(&mut t.0, &mut p.0));
            })
        }
        Workload::AddRemove | Workload::AddRemoveSparse => {
            let mut world = World::new();
            world.register::<A>();
            world.register::<B>();
            let entities: Vec<Entity> = (0..10_000).map(|_| world.create_entity().with(A(0.0)).build()).collect();
            Box::new(move || {
                let mut bs = world.write_storage::<B>();
                for &e in &entities {
                    bs.insert(e, B(0.0)).unwrap();
                }
                for &e in &entities {
                    bs.remove(e);
                }
            })
        }
        Workload::RandomGet => {
            let mut world = World::new();
            world.register::<Position>();
            world.register::<Velocity>();
            let mut entities: Vec<Entity> = (0..10_000)
                .map(|_| world.create_entity().with(Position(UNIT_X)).with(Velocity(UNIT_X)).build())
                .collect();
            shuffle(&mut entities);
            Box::new(move || {
                let p = world.read_storage::<Position>();
                let mut sum = 0.0;
                for &e in &entities {
                    sum += p.get(e).unwrap().0[0];
                }
                std::hint::black_box(sum);
            })
        }
        Workload::WorldGet => return runner(Workload::RandomGet),
        Workload::WorldNew => Box::new(|| drop(std::hint::black_box(World::new()))),
        Workload::ManyArchetypes => {
            let mut world = World::new();
            world.register::<Data>();
            macro_rules! reg { ($($n:literal)*) => { $(world.register::<Tag<$n>>();)* }; }
            reg!(0 1 2 3 4 5 6 7 8 9);
            for mask in 0..1024 {
                for _ in 0..4 {
                    let e = world.create_entity().with(Data(1.0)).build();
                    tag::<0>(&world, e, mask);
                    tag::<1>(&world, e, mask);
                    tag::<2>(&world, e, mask);
                    tag::<3>(&world, e, mask);
                    tag::<4>(&world, e, mask);
                    tag::<5>(&world, e, mask);
                    tag::<6>(&world, e, mask);
                    tag::<7>(&world, e, mask);
                    tag::<8>(&world, e, mask);
                    tag::<9>(&world, e, mask);
                }
            }
            Box::new(move || {
                let mut d = world.write_storage::<Data>();
                for d in (&mut d).join() {
                    d.0 *= 2.0;
                }
            })
        }
        Workload::Schedule(n) => {
            let mut world = World::new();
            world.register::<A>();
            world.register::<B>();
            world.register::<C>();
            world.register::<D>();
            world.register::<E>();
            for i in 0..4 * n {
                let builder = world.create_entity().with(A(0.0)).with(B(1.0));
                let builder = if i >= n { builder.with(C(2.0)) } else { builder };
                let builder = if (2 * n..3 * n).contains(&i) { builder.with(D(3.0)) } else { builder };
                let builder = if i >= 3 * n { builder.with(E(4.0)) } else { builder };
                builder.build();
            }
            let mut dispatcher = DispatcherBuilder::new()
                .with(SwapAB, "ab", &[])
                .with(SwapCD, "cd", &[])
                .with(SwapCE, "ce", &["cd"])
                .build();
            Box::new(move || dispatcher.dispatch(&world))
        }
        Workload::TinySystems => {
            let mut world = World::new();
            let mut builder = DispatcherBuilder::new();
            macro_rules! tiny_setup { ($($n:literal)*) => { $(
                world.register::<Tiny<$n>>();
                for _ in 0..10 { world.create_entity().with(Tiny::<$n>(0.0)).build(); }
                builder.add(TinySys::<$n>, concat!("tiny", $n), &[]);
            )* }; }
            hundred!(tiny_setup);
            let mut dispatcher = builder.build();
            Box::new(move || dispatcher.dispatch(&world))
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
        | Workload::DynamicSpawn
        | Workload::WorldGetMut
        | Workload::EntityGet
        | Workload::QueryGet => return None,
    })
}
