use ecs_core::prelude::*;

#[derive(Component, Clone, Copy)]
#[component(layout = "soa")]
#[repr(C, packed)]
struct Packed {
    tag: u8,
    value: u64,
}

fn main() {}
