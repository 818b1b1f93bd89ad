use ecs_core::prelude::*;

#[derive(Component)]
struct Health(u32);

#[derive(Component)]
#[require(Health = 100)]
struct Player;

fn main() {}
