use ecs_core::prelude::*;

#[derive(Component)]
struct Position(f32);

fn bad(world: &mut World, q: Query<&Position>) {
    let _ = (world, q);
}

fn main() {
    let mut schedule = Schedule::new();
    schedule.add_systems(bad);
}
