//! Growth without stalls: no spawn, insert or archetype move copies more than a
//! constant amount of what was already stored, however large the world grows
//! (counted, not timed: `growth_copied_bytes`, a test hook). Linux only: elsewhere
//! arrays grow through the global allocator, which may copy them whole.
#![cfg(target_os = "linux")]

use ecs_core::__private::{MAPPED_FROM, growth_copied_bytes};
use ecs_core::prelude::*;

#[derive(Component, Clone, Copy)]
struct A([f32; 4]);
#[derive(Component, Clone, Copy)]
struct B([f32; 4]);
#[derive(Component, Clone, Copy)]
struct C([f32; 4]);
#[derive(Component, Clone, Copy)]
struct D([f32; 4]);
#[derive(Component, Clone, Copy)]
struct Moved(u64);

const N: usize = 100_000;
/// Arrays one spawn or move may grow at once: four columns and their ticks,
/// the target's entity list, the entity index, and the extra column a move
/// targets, each at most once.
const ARRAYS: u64 = 12;
/// A bound independent of the world's size: each array copies at most
/// `MAPPED_FROM` bytes, once, when it first reaches that size.
const BOUND: u64 = ARRAYS * MAPPED_FROM as u64;

/// Runs `step(i)` for `i in 0..n`, returning the most bytes one step copied
/// and the bytes copied by the steps after the first `n / 4`.
fn copies(n: usize, mut step: impl FnMut(usize)) -> (u64, u64) {
    let (mut most, mut late) = (0, 0);
    for i in 0..n {
        let before = growth_copied_bytes();
        step(i);
        let copied = growth_copied_bytes() - before;
        most = most.max(copied);
        if i >= n / 4 {
            late += copied;
        }
    }
    (most, late)
}

#[test]
fn no_spawn_copies_more_than_a_constant_and_large_worlds_copy_nothing() {
    let mut world = World::new();
    let v = |i: usize| [i as f32; 4];
    let (most, late) = copies(N, |i| {
        world.spawn((A(v(i)), B(v(i)), C(v(i)), D(v(i))));
    });
    assert!(most <= BOUND, "one spawn copied {most} bytes (bound {BOUND})");
    assert_eq!(late, 0, "spawns into arrays past {MAPPED_FROM} bytes copy nothing");
    // Every value is where it was written.
    let mut seen = 0;
    world.query::<(&A, &D)>().for_each(|(a, d)| {
        assert_eq!(a.0, d.0);
        seen += 1;
    });
    assert_eq!(seen, N);
    world.query::<(&B, &C)>().for_each(|(b, c)| assert_eq!(b.0, c.0));
}

#[test]
fn no_archetype_move_copies_more_than_a_constant() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..N).map(|i| world.spawn((A([i as f32; 4]), B([0.0; 4])))).collect();
    let (most, late) = copies(N, |i| {
        world.insert(entities[i], Moved(i as u64)).expect("alive");
    });
    assert!(most <= BOUND, "one move copied {most} bytes (bound {BOUND})");
    assert_eq!(late, 0, "moves into arrays past {MAPPED_FROM} bytes copy nothing");
    for (i, &e) in entities.iter().enumerate() {
        assert_eq!(world.get::<Moved>(e).map(|m| m.0), Some(i as u64));
        assert_eq!(world.get::<A>(e).map(|a| a.0[0]), Some(i as f32));
    }
    // And back, one at a time: the source archetype, which shrinks, copies nothing.
    let (most, _) = copies(N, |i| {
        world.remove::<Moved>(entities[i]).expect("has it");
    });
    assert!(most <= BOUND, "one move back copied {most} bytes (bound {BOUND})");
}

/// Worlds built after others were dropped reuse their reservations (pages kept
/// for the next large array): what was left there never shows through, on any
/// thread.
#[test]
fn worlds_built_on_reused_pages_hold_exactly_what_they_were_given() {
    let threads: Vec<_> = (0..2u64)
        .map(|t| {
            std::thread::spawn(move || {
                for round in 0..4u64 {
                    let n = 20_000 + 15_000 * ((round + t) % 3) as usize;
                    let mut world = World::new();
                    let entities: Vec<Entity> = (0..n)
                        .map(|i| {
                            let v = (i as u64 * 7 + round + t * 1000) as f32;
                            world.spawn((A([v; 4]), Moved(i as u64)))
                        })
                        .collect();
                    for &e in entities.iter().step_by(3) {
                        world.despawn(e).expect("alive");
                    }
                    let mut count = 0;
                    world.query::<(&A, &Moved, Option<&B>)>().for_each(|(a, m, b)| {
                        assert!(b.is_none());
                        assert_eq!(a.0[3], (m.0 * 7 + round + t * 1000) as f32);
                        assert_ne!(m.0 % 3, 0, "despawned rows are gone");
                        count += 1;
                    });
                    assert_eq!(count, n - n.div_ceil(3));
                    assert_eq!(world.query::<&A>().iter().filter(|a| a.0[0] != a.0[3]).count(), 0);
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("no panic");
    }
}
