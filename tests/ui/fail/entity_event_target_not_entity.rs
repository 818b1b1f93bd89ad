use ecs_core::prelude::*;

#[derive(EntityEvent)]
struct Hit {
    entity: u32,
}

fn main() {}
