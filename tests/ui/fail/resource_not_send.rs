//! `#[derive(Resource)]` on a type that cannot be shared between threads is
//! refused at the type's name.
use ecs_core::prelude::*;
use std::rc::Rc;

#[derive(Resource)]
struct Shared(Rc<u32>);

fn main() {}
