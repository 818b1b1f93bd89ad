use ecs_core::prelude::*;

#[derive(Component)]
#[component(layout = "soa", storage = "sparse")]
struct Particle {
    x: f32,
    vx: f32,
}

fn main() {}
