use ecs_core::prelude::*;

fn main() {
    let mut world = World::new();
    let step = 3;
    let _ = world.run_system_cached(move |mut n: Local<u32>| {
        *n += step;
        *n
    });
}
