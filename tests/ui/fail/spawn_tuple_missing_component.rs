use ecs_core::prelude::*;

#[derive(Component)]
struct Position(f32);

// `#[derive(Component)]` forgotten.
struct Health(u32);

fn main() {
    let mut world = World::new();
    world.spawn((Position(0.0), Health(3)));
}
