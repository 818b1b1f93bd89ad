use ecs_core::prelude::*;

fn bad(count: u32) {
    let _ = count;
}

fn main() {
    let mut schedule = Schedule::new();
    schedule.add_systems(bad);
}
