use ecs_core::prelude::*;

#[derive(EntityEvent)]
#[entity_event(auto_propagate)]
struct Click {
    entity: Entity,
}

fn main() {}
