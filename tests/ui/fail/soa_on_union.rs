use ecs_core::prelude::*;

#[derive(Component)]
#[component(layout = "soa")]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
