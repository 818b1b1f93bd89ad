use ecs_core::prelude::*;

#[derive(Component)]
struct Position(f32);

fn main() {
    let first = {
        let mut world = World::new();
        world.spawn(Position(1.0));
        world.query::<&Position>().iter().next()
    };
    println!("{}", first.unwrap().0);
}
