use ecs_core::prelude::*;

#[derive(Component)]
struct Position(f32);

fn main() {
    let world = World::new();
    for p in world.query::<&mut Position>().iter() {
        p.0 += 1.0;
    }
}
