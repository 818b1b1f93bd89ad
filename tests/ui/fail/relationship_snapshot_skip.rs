//! Leaving one side of a relationship out of snapshots would restore the
//! other side alone: refused at the attribute.
use ecs_core::prelude::*;

#[derive(Component, Clone, Copy)]
#[relationship(target = Fans)]
#[component(snapshot = "skip")]
struct Follows(Entity);

#[derive(Component, Default)]
#[relationship_target(relationship = Follows)]
struct Fans(RelationshipSources);

fn main() {}
