use ecs_core::prelude::*;

#[derive(Component)]
#[component(describe)]
#[repr(C, packed)]
struct Packed {
    a: u8,
    b: u32,
}

fn main() {}
