//! Queries beyond the plain loop: `single`/`single_mut` with their two errors,
//! `count`/`is_empty`, `get_many_mut`, pairs via `iter_combinations(_mut)`, the
//! filters `With`, `Without`, `Or`, `Added`, `Changed`, and a named-field query
//! made with `#[derive(QueryData)]`.
//!
//! Run with `cargo run --example queries`.

use ecs_core::prelude::*;

#[derive(Component, Debug, PartialEq)]
struct Position(f32);
#[derive(Component)]
struct Velocity(f32);
#[derive(Component)]
struct Player;
#[derive(Component)]
struct Enemy;
#[derive(Component)]
struct Frozen;

/// Fields instead of tuple positions: `m.pos` reads better than `m.1`.
#[derive(QueryData)]
struct Mover<'w> {
    pos: &'w mut Position,
    vel: &'w Velocity,
}

type EnemyOrFrozen = Or<(With<Enemy>, With<Frozen>)>;

fn movement(mut movers: Query<Mover, Without<Frozen>>) {
    movers.iter_mut().for_each(|m| m.pos.0 += m.vel.0);
}

fn main() -> Result<(), EcsError> {
    let mut world = World::new();
    let player_x = |players: Query<&Position, With<Player>>| players.single().map(|p| p.0);
    // `single` tells "none" from "several": both are errors a game can act on.
    assert!(matches!(world.run_system_once(player_x)?, Err(EcsError::NoEntities { .. })));
    let player = world.spawn((Player, Position(0.0), Velocity(1.0)));
    let enemy = world.spawn((Enemy, Position(10.0), Velocity(-1.0)));
    let rock = world.spawn((Position(5.0), Velocity(0.0), Frozen));
    world.run_system_once(|mut q: Query<&mut Position, With<Player>>| q.single_mut().map(|p| p.0 = 1.0))??;
    assert_eq!(world.run_system_once(player_x)?, Ok(1.0));

    // `Or` (aliased above, to keep signatures short) matches either; `count` and `is_empty` need no loop.
    assert_eq!(world.run_system_once(|q: Query<(), EnemyOrFrozen>| (q.count(), q.is_empty()))?, (2, false));

    // Reused query states remember their last run: that is what `Added`/`Changed` compare to.
    let mut arrived = world.query_state_filtered::<Entity, Added<Enemy>>();
    let mut moved = world.query_state_filtered::<Entity, Changed<Position>>();
    assert_eq!((arrived.iter(&world).count(), moved.iter(&world).count()), (1, 3)); // all new
    world.run_system_once(movement)?; // the frozen rock is skipped
    assert_eq!(moved.iter(&world).collect::<Vec<_>>(), [player, enemy]);
    assert_eq!(arrived.iter(&world).count(), 0, "no enemy arrived since the last look");

    // Two entities mutably at once; the same one twice would alias and is refused.
    world.run_system_once(move |mut q: Query<&mut Position>| -> Result<(), EcsError> {
        let [p, e] = q.get_many_mut([player, enemy])?;
        core::mem::swap(p, e);
        assert_eq!(q.get_many_mut([rock, rock]).err(), Some(EcsError::AliasedMutability(rock)));
        Ok(())
    })??;
    assert_eq!(world.get::<Position>(player), Some(&Position(9.0)));
    // Every unordered pair once: 3 entities give 3 pairs.
    let close = world.run_system_once(|q: Query<&Position>| {
        q.iter_combinations::<2>().filter(|[a, b]| (a.0 - b.0).abs() < 5.0).count()
    })?;
    assert_eq!(close, 2); // (9, 2) is too far apart; (9, 5) and (2, 5) are close
    world.run_system_once(|mut q: Query<&mut Position>| {
        let mut pairs = q.iter_combinations_mut::<2>();
        while let Some([a, b]) = pairs.fetch_next() {
            let push = if a.0 < b.0 { -1.0 } else { 1.0 };
            (a.0, b.0) = (a.0 + push, b.0 - push);
        }
    })?;
    let xs = [player, enemy, rock].map(|e| world.get::<Position>(e).map(|p| p.0));
    println!("player, enemy, rock after pushing apart: {xs:?}");
    assert_eq!(xs, [Some(11.0), Some(0.0), Some(5.0)]);
    Ok(())
}
