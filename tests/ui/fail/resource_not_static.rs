//! A resource outlives any borrow: `#[derive(Resource)]` refuses a lifetime.
use ecs_core::prelude::*;

#[derive(Resource)]
struct Borrowed<'a>(&'a str);

fn main() {}
