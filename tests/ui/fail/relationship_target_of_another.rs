use ecs_core::prelude::*;

// `Following` lists its sources in `Followers`, not in `Fans`: the pair must
// name each other.
#[derive(Component)]
#[relationship(target = Followers)]
struct Following(Entity);

#[derive(Component, Default)]
#[relationship_target(relationship = Following)]
struct Followers(RelationshipSources);

#[derive(Component, Default)]
#[relationship_target(relationship = Following)]
struct Fans(RelationshipSources);

fn main() {}
