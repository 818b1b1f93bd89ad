use ecs_core::prelude::*;

#[derive(Bundle)]
union Bits {
    int: u32,
}

fn main() {}
