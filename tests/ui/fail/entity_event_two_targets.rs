use ecs_core::prelude::*;

#[derive(EntityEvent)]
struct Hit {
    #[event_target]
    victim: Entity,
    #[event_target]
    attacker: Entity,
}

fn main() {}
