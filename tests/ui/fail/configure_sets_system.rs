//! `configure_sets` takes sets; a group of systems given to it is refused,
//! with a note pointing at `add_systems`.
use ecs_core::prelude::*;

fn movement() {}

fn main() {
    let mut schedule = Schedule::new();
    // A system where a set is expected: systems go to `add_systems`.
    schedule.configure_sets((movement, movement).chain());
}
