use ecs_core::prelude::*;

#[derive(Component)]
enum Order {
    Idle,
    Attack(#[entities] Entity),
}

fn main() {}
