use ecs_core::prelude::*;
use std::rc::Rc;

#[derive(Component)]
struct Wrapper<T>(T);

fn main() {
    let mut world = World::new();
    world.spawn(Wrapper(Rc::new(1)));
}
