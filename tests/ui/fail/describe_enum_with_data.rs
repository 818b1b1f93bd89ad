use ecs_core::prelude::*;

#[derive(Describe)]
enum Order {
    Stop,
    Move(f32, f32),
}

fn main() {}
