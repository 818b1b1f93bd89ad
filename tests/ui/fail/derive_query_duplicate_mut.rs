use ecs_core::prelude::*;

#[derive(Component)]
struct Position(f32);

#[derive(QueryData)]
struct Twice<'w> {
    a: &'w mut Position,
    b: &'w Position,
}

fn main() {}
