use ecs_core::prelude::*;

#[derive(Component)]
struct Position(f32);

#[derive(Bundle)]
struct Twice {
    here: Position,
    there: Position,
}

fn main() {}
