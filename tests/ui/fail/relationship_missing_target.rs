use ecs_core::prelude::*;

#[derive(Component)]
#[relationship]
struct Following(Entity);

fn main() {}
