use ecs_core::prelude::*;

#[derive(Component, Default)]
#[relationship_target(relationship = Following)]
struct Followers(RelationshipSources);

#[derive(Component)]
#[relationship(target = Followers)]
struct Following(u64);

fn main() {}
