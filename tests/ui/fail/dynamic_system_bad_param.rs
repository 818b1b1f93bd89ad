// A dynamic system's function takes the query first, then system parameters
// only: a plain value is not one.
use ecs_core::prelude::*;
use ecs_core::system::{DynamicSystem, DynamicSystemQuery};

#[derive(Component)]
#[component(describe)]
struct Health {
    hp: i32,
}

fn heal(q: &mut DynamicSystemQuery, amount: i32) {
    let _ = (q, amount);
}

fn main() {
    let mut world = World::new();
    let health = world.register_component::<Health>();
    let query = world.dynamic_query().write(health).build(&world).unwrap();
    let _system = DynamicSystem::with_params("heal", query, heal);
}
