use ecs_core::prelude::*;

#[derive(Component)]
#[component(layout = "soa")]
enum Shape {
    Circle(f32),
    Square(f32),
}

fn main() {}
