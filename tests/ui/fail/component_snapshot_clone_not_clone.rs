use ecs_core::prelude::*;

#[derive(Component)]
#[component(snapshot = "clone")]
struct Socket(u32);

#[derive(Component)]
#[component(snapshot = "copies")]
struct Typo(u32);

fn main() {}
