use ecs_core::prelude::*;

#[derive(Component)]
#[component(describe)]
struct Inventory {
    slots: Vec<u32>,
}

fn main() {}
