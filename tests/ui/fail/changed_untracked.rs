// A component that opted out of change detection keeps no ticks, so asking
// which rows changed is refused at compile time, naming the opt-out.
use ecs_core::prelude::*;

#[derive(Component)]
#[component(changes = false)]
struct Particle(#[allow(dead_code)] f32);

fn main() {
    let mut world = World::new();
    world.spawn(Particle(0.0));
    let mut changed = world.query_state_filtered::<&Particle, Changed<Particle>>();
    assert_eq!(changed.iter(&world).count(), 1);
}
