use ecs_core::prelude::*;

#[derive(Component)]
struct Position(f32);

#[derive(SystemParam)]
struct Bodies<'w> {
    bodies: Query<(&'static mut Position,)>,
    marker: Local<'w, u32>,
}

fn main() {}
