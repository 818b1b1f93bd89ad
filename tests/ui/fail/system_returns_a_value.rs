use ecs_core::prelude::*;

#[derive(Component)]
struct Health(u32);

// A system's value has nowhere to go: it returns `()` or `Result`.
fn total(healths: Query<&Health>) -> u32 {
    healths.iter().map(|h| h.0).sum()
}

fn main() {
    let mut schedule = Schedule::new();
    schedule.add_systems(total);
}
