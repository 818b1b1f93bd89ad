use ecs_core::prelude::*;

// A system taking `In<T>` has no value to take in a schedule on its own:
// pipe a system into it, or run it with `run_system_with`.
fn double(In(x): In<u32>) -> u32 {
    x * 2
}

fn main() {
    let mut schedule = Schedule::new();
    schedule.add_systems(double);
}
