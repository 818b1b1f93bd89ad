use ecs_core::prelude::*;
use ecs_core::system::SystemState;

#[derive(Component)]
struct Health(i32);

fn main() {
    let mut world = World::new();
    let mut state: SystemState<Query<&mut Health>> = SystemState::new(&mut world);
    // `get` shares the world: only read-only parameters; `get_mut` takes it whole.
    for health in &mut state.get(&world) {
        health.0 -= 1;
    }
}
