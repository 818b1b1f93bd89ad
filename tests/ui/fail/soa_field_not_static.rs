use ecs_core::prelude::*;

#[derive(Component)]
#[component(layout = "soa")]
struct Label<'a> {
    text: &'a str,
    size: f32,
}

fn main() {}
