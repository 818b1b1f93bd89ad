use ecs_core::prelude::*;

#[derive(Component)]
struct Player;
#[derive(Component)]
struct Health(i32);

fn main() {
    let mut world = World::new();
    // bevy's `spawn` returns an `EntityWorldMut`; here it returns the `Entity`.
    world.spawn(Player).insert(Health(3));
}
