//! A run condition decides whether its system runs; it may only read. One that
//! takes `ResMut` is refused at compile time, pointing at the condition.
use ecs_core::prelude::*;

struct Budget(u32);

fn spend(mut budget: ResMut<Budget>) -> bool {
    budget.0 = budget.0.saturating_sub(1);
    budget.0 > 0
}

fn work() {}

fn main() {
    Schedule::new().add_systems(work.run_if(spend));
}
