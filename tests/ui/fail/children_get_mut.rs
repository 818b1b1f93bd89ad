use ecs_core::prelude::*;

fn main() {
    let mut world = World::new();
    let parent = world.spawn(());
    world.spawn(ChildOf(parent));
    // `Children` is kept by the hierarchy's hooks: it cannot be edited in place.
    let _children = world.get_mut::<Children>(parent);
}
