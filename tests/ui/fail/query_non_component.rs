use ecs_core::prelude::*;

struct Plain(f32);

fn main() {
    let world = World::new();
    let _ = world.query::<&Plain>();
    let _ = Plain(0.0).0;
}
