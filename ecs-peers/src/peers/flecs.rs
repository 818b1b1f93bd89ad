//! flecs (the C library) through `flecs_ecs`: cached queries (`new_query`),
//! systems run by `world.progress()`, multi-threaded systems for heavy_compute,
//! an observer of a custom payload event for `observers`.

use flecs_ecs::prelude::*;

use super::Runner;
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
#[derive(Component)]
struct Health(i64);
/// The event of `observers`, with its payload (flecs events are components).
#[derive(Component)]
struct Hit(i64);

macro_rules! types {
    ($($name:ident)*) => { $(#[derive(Component, Clone, Copy)] struct $name(f32);)* };
}
macro_rules! tags {
    ($($name:ident)*) => { $(#[derive(Component)] struct $name;)* };
}

types!(F0 F1 F2 F3 F4 F5 F6 F7 F8 F9 F10 F11 F12 F13 F14 F15 F16 F17 F18 F19 F20 F21 F22 F23 F24 F25);
tags!(T0 T1 T2 T3 T4 T5 T6 T7 T8 T9);

macro_rules! tinies {
    ($($name:ident)*) => {
        types!($($name)*);
        fn tiny_setup(world: &World) {
            $(
                for _ in 0..10 {
                    world.entity().set($name(0.0));
                }
                world.system::<&mut $name>().each(|t| t.0 += 1.0);
            )*
        }
    };
}

tinies!(
    Y0 Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 Y10 Y11 Y12 Y13 Y14 Y15 Y16 Y17 Y18 Y19 Y20 Y21 Y22 Y23 Y24 Y25 Y26 Y27 Y28 Y29
    Y30 Y31 Y32 Y33 Y34 Y35 Y36 Y37 Y38 Y39 Y40 Y41 Y42 Y43 Y44 Y45 Y46 Y47 Y48 Y49 Y50 Y51 Y52 Y53 Y54 Y55 Y56 Y57
    Y58 Y59 Y60 Y61 Y62 Y63 Y64 Y65 Y66 Y67 Y68 Y69 Y70 Y71 Y72 Y73 Y74 Y75 Y76 Y77 Y78 Y79 Y80 Y81 Y82 Y83 Y84 Y85
    Y86 Y87 Y88 Y89 Y90 Y91 Y92 Y93 Y94 Y95 Y96 Y97 Y98 Y99
);

fn bodies(world: &World, n: usize) {
    for _ in 0..n {
        world.entity().set(Transform(identity())).set(Position(UNIT_X)).set(Rotation(UNIT_X)).set(Velocity(UNIT_X));
    }
}

pub fn runner(workload: Workload) -> Option<Runner> {
    Some(match workload {
        Workload::SimpleInsert => Box::new(|| {
            let world = World::new();
            bodies(&world, 10_000);
            std::hint::black_box(&world);
        }),
        Workload::SimpleIter => {
            let world = World::new();
            bodies(&world, 10_000);
            let q = world.new_query::<(&Velocity, &mut Position)>();
            // The query must drop before its world: keep both, query first.
            let held = (q, world);
            Box::new(move || {
                let (q, _world) = &held;
                q.each(|(v, p)| add(&mut p.0, &v.0))
            })
        }
        Workload::SimpleIterFor | Workload::SimpleIterSystemFor => return runner(Workload::SimpleIter),
        Workload::FragmentedIter => {
            let world = World::new();
            macro_rules! frags { ($($name:ident)*) => { $(for _ in 0..20 { world.entity().set($name(0.0)).set(Data(1.0)); })* }; }
            frags!(F0 F1 F2 F3 F4 F5 F6 F7 F8 F9 F10 F11 F12 F13 F14 F15 F16 F17 F18 F19 F20 F21 F22 F23 F24 F25);
            let q = world.new_query::<&mut Data>();
            let held = (q, world);
            Box::new(move || {
                let (q, _world) = &held;
                q.each(|d| d.0 *= 2.0)
            })
        }
        Workload::HeavyCompute => {
            let world = World::new();
            world.set_threads(rayon::current_num_threads() as i32);
            bodies(&world, 1000);
            world.system::<(&mut Position, &mut Transform)>().par_each(|(p, t)| heavy(&mut t.0, &mut p.0));
            Box::new(move || {
                world.progress();
            })
        }
        Workload::AddRemoveSparse
        | Workload::Events
        | Workload::Changed
        | Workload::EntityObservers
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
            let world = World::new();
            let entities: Vec<Entity> = (0..10_000).map(|_| world.entity().set(A(0.0)).id()).collect();
            Box::new(move || {
                for &e in &entities {
                    world.entity_from_id(e).set(B(0.0));
                }
                for &e in &entities {
                    world.entity_from_id(e).remove(B::id());
                }
            })
        }
        Workload::RandomGet => {
            let world = World::new();
            let mut entities: Vec<Entity> =
                (0..10_000).map(|_| world.entity().set(Position(UNIT_X)).set(Velocity(UNIT_X)).id()).collect();
            shuffle(&mut entities);
            Box::new(move || {
                let mut sum = 0.0;
                for &e in &entities {
                    sum += world.entity_from_id(e).get::<&Position>(|p| p.0[0]);
                }
                std::hint::black_box(sum);
            })
        }
        Workload::WorldGet => return runner(Workload::RandomGet),
        Workload::WorldNew => Box::new(|| drop(std::hint::black_box(World::new()))),
        Workload::ManyArchetypes => {
            let world = World::new();
            for mask in 0..1024 {
                for _ in 0..4 {
                    let e = world.entity().set(Data(1.0));
                    macro_rules! tag { ($($bit:literal $name:ident)*) => { $(if mask & (1 << $bit) != 0 { e.add($name::id()); })* }; }
                    tag!(0 T0 1 T1 2 T2 3 T3 4 T4 5 T5 6 T6 7 T7 8 T8 9 T9);
                }
            }
            let q = world.new_query::<&mut Data>();
            let held = (q, world);
            Box::new(move || {
                let (q, _world) = &held;
                q.each(|d| d.0 *= 2.0)
            })
        }
        Workload::Schedule(n) => {
            let world = World::new();
            for i in 0..4 * n {
                let e = world.entity().set(A(0.0)).set(B(1.0));
                if i >= n {
                    e.set(C(2.0));
                }
                if (2 * n..3 * n).contains(&i) {
                    e.set(D(3.0));
                }
                if i >= 3 * n {
                    e.set(E(4.0));
                }
            }
            world.system::<(&mut A, &mut B)>().each(|(a, b)| core::mem::swap(&mut a.0, &mut b.0));
            world.system::<(&mut C, &mut D)>().each(|(c, d)| core::mem::swap(&mut c.0, &mut d.0));
            world.system::<(&mut C, &mut E)>().each(|(c, e)| core::mem::swap(&mut c.0, &mut e.0));
            Box::new(move || {
                world.progress();
            })
        }
        Workload::TinySystems => {
            let world = World::new();
            tiny_setup(&world);
            Box::new(move || {
                world.progress();
            })
        }
        Workload::Observers => {
            let world = World::new();
            let target = world.entity().set(Health(0)).id();
            // The observer's query term (`&mut Health`) matches the event's id and
            // hands the target's Health to the callback; the payload is `it.param()`.
            world.observer::<Hit, &mut Health>().each_iter(|it, _, h| h.0 -= it.param().0);
            world.event().add(Health::id()).entity(target).emit(&Hit(1));
            assert_eq!(world.entity_from_id(target).get::<&Health>(|h| h.0), -1, "the observer ran once");
            Box::new(move || {
                for _ in 0..TRIGGERS {
                    world.event().add(Health::id()).entity(target).emit(&Hit(1));
                }
            })
        }
    })
}
