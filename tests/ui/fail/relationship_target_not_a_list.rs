use ecs_core::prelude::*;

#[derive(Component)]
#[relationship(target = Followers)]
struct Following(Entity);

#[derive(Component, Default)]
#[relationship_target(relationship = Following)]
struct Followers(Vec<u32>);

fn main() {}
