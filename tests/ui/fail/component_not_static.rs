use ecs_core::prelude::*;

#[derive(Component)]
struct Borrowed<'a>(&'a str);

fn main() {}
