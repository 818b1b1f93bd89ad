use ecs_core::prelude::*;

#[derive(Component)]
struct Score(u32);

#[derive(Component)]
#[relationship(target = Score)]
struct Following(Entity);

fn main() {}
