use ecs_core::prelude::*;

#[derive(Component)]
#[component(layout = "soa")]
struct Particle {
    x: f32,
    vx: f32,
}

fn main() {
    let mut world = World::new();
    let e = world.spawn(Particle { x: 0.0, vx: 1.0 });
    // Each field lives in its own array: there is no `&Particle` to return.
    let _ = world.get::<Particle>(e);
    let _ = world.query::<Ref<Particle>>();
}
