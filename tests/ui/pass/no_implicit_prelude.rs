//! Generated code must be hygienic: no reliance on the prelude or on local names.
#![no_implicit_prelude]

#[derive(::ecs_core::Component)]
struct Position(f32, f32);

#[derive(::ecs_core::Component)]
struct Unit;

#[derive(::ecs_core::EntityEvent)]
struct Hit {
    entity: ::ecs_core::Entity,
    damage: u32,
}

#[derive(::ecs_core::EntityEvent)]
struct Pushed<T: ::core::marker::Send + ::core::marker::Sync + 'static>(T, #[event_target] ::ecs_core::Entity);

#[derive(::ecs_core::Component)]
enum State {
    Idle,
    Moving { speed: f32 },
}

#[derive(::ecs_core::Component)]
#[component(storage = "sparse")]
struct Stunned(u32);

#[derive(::ecs_core::Component)]
#[component(storage = "sparse")]
struct SparseGeneric<T: ::core::marker::Send + ::core::marker::Sync + 'static>(T);

#[derive(::ecs_core::Component)]
struct Generic<T: ::core::marker::Send + ::core::marker::Sync + 'static>(T);

#[derive(::ecs_core::Component)]
#[component(layout = "soa")]
struct Particle {
    x: f32,
    vx: f32,
}

#[derive(::ecs_core::Component)]
#[component(layout = "soa")]
struct Pair(u8, f64);

#[derive(::ecs_core::Bundle)]
struct Body {
    pos: Position,
    state: State,
}

#[derive(::ecs_core::Bundle)]
struct Nested(Body, Unit, Generic<u8>);

#[derive(::ecs_core::Bundle)]
struct Empty;

fn main() {
    let mut world = ::ecs_core::World::new();
    let particle = world.spawn((Particle { x: 0.0, vx: 1.0 }, Pair(1, 2.0)));
    for p in world.query_mut::<(&mut Particle, &Pair)>() {
        *p.0.x += *p.0.vx + *p.1.1 as f32;
    }
    let _ = world.fields::<Particle>(particle).map(|p| *p.x + *p.vx);
    let e = world.spawn(Nested(Body { pos: Position(0.0, 0.0), state: State::Moving { speed: 1.0 } }, Unit, Generic(1)));
    world.spawn(Empty);
    ::std::assert!(world.has::<Unit>(e));
    world.insert(e, (Stunned(2), SparseGeneric(1u16))).unwrap();
    ::std::assert!(world.has::<Stunned>(e) && world.has::<SparseGeneric<u16>>(e));
    let _ = State::Idle;
    let _ = (Generic(0u8).0, Position(0.0, 0.0).1);
}
