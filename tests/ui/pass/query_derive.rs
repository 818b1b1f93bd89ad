//! derive(QueryData) is hygienic and read-only derived queries work on `&World`.
#![no_implicit_prelude]

#[derive(::ecs_core::Component)]
struct Position(f32);

#[derive(::ecs_core::Component)]
struct Velocity(f32);

#[derive(::ecs_core::QueryData)]
struct Movement<'w> {
    pos: &'w mut Position,
    vel: &'w Velocity,
    vel_again: ::core::option::Option<&'w Velocity>,
    id: ::ecs_core::Entity,
}

#[derive(::ecs_core::QueryData)]
struct View<'q> {
    pos: &'q Position,
}

#[derive(::ecs_core::QueryData)]
struct Outer<'w> {
    view: View<'w>,
    vel: ::core::option::Option<&'w Velocity>,
}

fn main() {
    let mut world = ::ecs_core::World::new();
    world.spawn((Position(0.0), Velocity(1.0)));
    for m in world.query_mut::<Movement>() {
        m.pos.0 += m.vel.0;
        let _ = (m.vel_again, m.id);
    }
    let total: f32 = ::core::iter::Iterator::sum(::core::iter::Iterator::map(
        world.query::<Outer>().iter(),
        |o| o.view.pos.0 + o.vel.map_or(0.0, |v| v.0),
    ));
    ::std::assert_eq!(total, 2.0);
}
