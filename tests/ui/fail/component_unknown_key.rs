use ecs_core::prelude::*;

#[derive(Component)]
#[component(sparse)]
struct Health(u32);

fn main() {}
