use ecs_core::prelude::*;

struct Gravity(f32);

#[derive(SystemParam)]
struct NoLifetime {
    gravity: Res<'static, Gravity>,
}

fn main() {}
