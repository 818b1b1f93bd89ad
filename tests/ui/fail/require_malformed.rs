use ecs_core::prelude::*;

#[derive(Component, Default)]
struct Health(u32);

#[derive(Component)]
#[require(Health =)]
#[require(100)]
struct Player;

#[derive(Component)]
#[require]
struct Enemy;

fn main() {}
