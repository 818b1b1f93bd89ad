use ecs_core::prelude::*;

#[derive(Component)]
struct Owner(Entity);

#[derive(EntityEvent)]
#[entity_event(propagate = Owner)]
struct Claim {
    entity: Entity,
}

fn main() {}
