use ecs_core::prelude::*;

#[derive(EntityEvent)]
enum Hit {
    Light(Entity),
    Heavy(Entity),
}

fn main() {}
