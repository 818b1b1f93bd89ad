use ecs_core::prelude::*;

#[derive(Component)]
#[component(storage = "sparse")]
struct Health(u32);

fn main() {}
