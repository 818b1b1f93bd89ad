//! Every derive compiles in a crate that forbids `unsafe` code: the generated
//! code must not contain any, so users of `#![forbid(unsafe_code)]` can use them.
#![forbid(unsafe_code)]

use ecs_core::prelude::*;

#[derive(Component, Clone, Copy)]
struct Position(f32);

#[derive(Component)]
#[component(storage = "sparse")]
struct Stunned;

#[derive(Bundle)]
struct Body {
    pos: Position,
    stunned: Stunned,
}

#[derive(QueryData)]
struct Moving<'w> {
    pos: &'w mut Position,
    stunned: Option<&'w Stunned>,
}

#[derive(SystemParam)]
struct Movers<'w> {
    query: Query<'w, Moving<'static>>,
}

fn step(mut movers: Movers) {
    for m in movers.query.iter_mut() {
        if m.stunned.is_none() {
            m.pos.0 += 1.0;
        }
    }
}

fn main() {
    let mut world = World::new();
    let e = world.spawn(Body { pos: Position(0.0), stunned: Stunned });
    world.spawn(Position(0.0));
    let mut schedule = Schedule::new();
    schedule.add_systems(step);
    schedule.run(&mut world);
    assert_eq!(world.get::<Position>(e).map(|p| p.0), Some(0.0));
    let _: Body = world.remove::<Body>(e).unwrap();
}
