use ecs_core::prelude::*;

#[derive(Component)]
struct Position(f32);

struct NotAComponent;

#[derive(Bundle)]
struct Body {
    pos: Position,
    other: NotAComponent,
}

fn main() {}
