use ecs_core::prelude::*;
use std::rc::Rc;

#[derive(Component)]
struct Shared(Rc<u32>);

fn main() {}
