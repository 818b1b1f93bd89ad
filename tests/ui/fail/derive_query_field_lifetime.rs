use ecs_core::prelude::*;

#[derive(Component)]
struct Position(f32);

#[derive(QueryData)]
struct Movement<'w> {
    pos: &'w mut Position,
    other: &'static Position,
}

fn main() {}
