use ecs_core::prelude::*;

#[derive(Component)]
struct Enemy {
    health: i32,
}

// `iter()` on a query that writes: the fix inside a system is `iter_mut()`.
fn damage(enemies: Query<&mut Enemy>) {
    for enemy in enemies.iter() {
        enemy.health -= 1;
    }
}

fn main() {
    Schedule::new().add_systems(damage);
}
