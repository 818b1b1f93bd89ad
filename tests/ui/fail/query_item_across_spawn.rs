use ecs_core::prelude::*;

#[derive(Component)]
struct Position(f32);

fn main() {
    let mut world = World::new();
    world.spawn(Position(1.0));
    let p = world.query_mut::<&mut Position>().next().unwrap();
    world.spawn(Position(2.0));
    p.0 = 3.0;
}
