use ecs_core::prelude::*;

#[derive(Component)]
#[relationship(target = Links)]
#[relationship_target(relationship = Links)]
struct Links(Entity);

fn main() {}
