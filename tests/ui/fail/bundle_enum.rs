use ecs_core::prelude::*;

#[derive(Component)]
struct A;

#[derive(Bundle)]
enum Either {
    Left(A),
    Right(A),
}

fn main() {}
