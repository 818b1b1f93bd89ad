use ecs_core::prelude::*;

#[derive(Component)]
#[component(layout = "soa")]
struct Particle {
    x: f32,
    vx: f32,
}

fn main() {
    let mut world = World::new();
    world.spawn(Particle { x: 0.0, vx: 1.0 });
    let mut kept = None;
    for p in world.query_mut::<&mut Particle>() {
        kept = Some(p);
    }
    // The view borrows the world: no structural change while it lives.
    world.spawn(Particle { x: 1.0, vx: 1.0 });
    *kept.unwrap().x += 1.0;
}
