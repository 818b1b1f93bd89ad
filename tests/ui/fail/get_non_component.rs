use ecs_core::prelude::*;

struct Plain(u32);

fn main() {
    let mut world = World::new();
    let e = world.spawn(());
    let _ = world.get::<Plain>(e);
    let _ = Plain(0).0;
}
