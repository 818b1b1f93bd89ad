//! Bad input commits no memory it never fills: a size hint that lies, or a
//! count in a save file that the values do not follow, leaves the process's
//! resident set where it was (measured from `/proc/self/status`), the world
//! unchanged, and the process alive.
//!
//! One test, so that nothing else in this process allocates while it measures.

#![cfg(target_os = "linux")]

use core::marker::PhantomData;

use ecs_core::prelude::*;
use ecs_core::serialize::SerializeRegistry;
use serde::{Deserialize, Serialize};

#[derive(Component)]
struct Kilo(#[allow(dead_code)] [u8; 1024]);

#[derive(Component)]
struct Big(#[allow(dead_code)] [u8; 64 * 1024]);

/// 8 KiB of values, and serde can read it (arrays up to 32 long).
#[derive(Component, Serialize, Deserialize)]
struct Wide([[u64; 32]; 32]);

#[derive(Component, Serialize, Deserialize)]
struct Byte(u8);

/// Claims `claim` items and yields none: a safe iterator may.
struct Liar<T> {
    claim: usize,
    marker: PhantomData<T>,
}

impl<T> Iterator for Liar<T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        None
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.claim, Some(self.claim))
    }
}

fn liar<T>(claim: usize) -> Liar<T> {
    Liar { claim, marker: PhantomData }
}

/// The process's resident set, in bytes.
fn resident() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("a VmRSS line");
    let kib: usize = line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).expect("VmRSS in kB");
    kib * 1024
}

/// How much `f` grew the resident set.
fn growth(f: impl FnOnce()) -> usize {
    let before = resident();
    f();
    resident().saturating_sub(before)
}

/// Far below what the lies claim (hundreds of MiB to GiBs; before the fix the
/// smallest case grew the process by 157 MiB), far above what the honest work in
/// each case takes (a growth step, a small save) — under valgrind too, whose own
/// bookkeeping of the mappings made grew it by 19 MiB.
const BOUND: usize = 64 << 20;

#[test]
fn lying_size_hints_and_counts_in_a_save_commit_no_memory() {
    // 300,000 rows of a 1 KiB component claimed, none given: 293 MiB if trusted.
    let mut world = World::new();
    let grew = growth(|| assert_eq!(world.spawn_batch(liar::<Kilo>(300_000)).count(), 0));
    assert!(grew < BOUND, "a lying size hint made the process {} KiB larger", grew >> 10);
    assert!(world.is_empty());
    world.check_invariants().unwrap();

    // The same claim of a 64 KiB component: 18 GiB if trusted; a million rows
    // (the old row cap) 64 GiB.
    for claim in [300_000, 1 << 20, usize::MAX / 2] {
        let grew = growth(|| assert_eq!(world.spawn_batch(liar::<Big>(claim)).count(), 0));
        assert!(grew < BOUND, "a claim of {claim} rows made the process {} KiB larger", grew >> 10);
    }
    assert!(world.is_empty());
    // The world still spawns, in the archetypes those batches made.
    let e = world.spawn(Big([7; 64 * 1024]));
    assert_eq!(world.get::<Big>(e).map(|b| b.0[100]), Some(7));
    world.check_invariants().unwrap();

    // A save whose `Wide` column claims 20,000 values (8 KiB each: 156 MiB)
    // that are not there: it holds the bytes of a one-byte component. The
    // load is refused before any world sees it, committing nothing.
    let mut source = World::new();
    source.spawn_batch((0..20_000u32).map(|i| Byte(i as u8)));
    let bytes = postcard::to_allocvec(&SerializeRegistry::new().register::<Byte>("Wide").columns(&source)).unwrap();
    assert!(bytes.len() < 128 << 10, "the save is small: {} bytes", bytes.len());
    let reader = SerializeRegistry::new().register::<Wide>("Wide");
    let mut refused = None;
    let grew = growth(|| refused = reader.load_columns(&mut postcard::Deserializer::from_bytes(&bytes)).err());
    let error = refused.expect("values of the wrong type are refused");
    assert!(error.to_string().contains("Wide"), "{error}");
    assert!(grew < BOUND, "a count in a save made the process {} KiB larger", grew >> 10);
}
