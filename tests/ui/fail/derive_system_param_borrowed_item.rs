use ecs_core::prelude::*;

#[derive(Component)]
struct Position(f32);

#[derive(Component)]
struct Enemy;

// The lifetime rustc suggests first; the item must borrow for `'static`.
#[derive(SystemParam)]
struct Targets<'w> {
    enemies: Query<'w, &'w Position, With<Enemy>>,
}

fn main() {}
