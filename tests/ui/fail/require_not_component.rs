use ecs_core::prelude::*;

#[derive(Default)]
struct Score(u32);

#[derive(Component)]
#[require(Score)]
struct Player;

fn main() {}
