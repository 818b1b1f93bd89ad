use ecs_core::prelude::*;

#[derive(Component)]
struct Position(f32);

#[derive(QueryData)]
struct NoLifetime {
    pos: Position,
}

fn main() {}
