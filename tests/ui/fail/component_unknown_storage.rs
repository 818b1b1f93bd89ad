use ecs_core::prelude::*;

#[derive(Component)]
#[component(storage = "dense")]
struct Health(u32);

fn main() {}
