//! A run condition may not take a query that writes.
use ecs_core::prelude::*;

#[derive(Component)]
struct Health(u32);

fn work() {}

fn main() {
    Schedule::new().add_systems(work.run_if(|q: Query<&mut Health>| q.is_empty()));
}
