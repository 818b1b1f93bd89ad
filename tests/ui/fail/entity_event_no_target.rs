use ecs_core::prelude::*;

#[derive(EntityEvent)]
struct Hit {
    victim: Entity,
    damage: u32,
}

fn main() {}
