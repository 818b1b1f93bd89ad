use ecs_core::prelude::*;

#[derive(Component)]
#[relationship(target = Followers)]
struct Following(Entity);

#[derive(Component, Default)]
#[relationship_target]
struct Followers(RelationshipSources);

fn main() {}
