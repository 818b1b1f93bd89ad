//! `Changed<T>` after single-row writes (`world.get_mut`) reads only the runs
//! of rows those writes stamped, so its cost follows the rows written, not the
//! rows stored; and it still finds every changed row while rows move between
//! runs (a despawn's swap-remove), between archetypes, and while other rows are
//! added, against a model of what changed.

use std::collections::BTreeSet;
use std::sync::Mutex;

use ecs_core::prelude::*;
use ecs_core::query::QueryFilter;
use proptest::prelude::*;

mod common;
use common::{CountRows, reset_rows_asked, rows_asked};

#[derive(Component)]
struct Value(u32);

#[derive(Component)]
struct Other(#[allow(dead_code)] u8);

#[derive(Component)]
#[component(storage = "sparse")]
struct Loose(u32);

/// One operation between two runs of the queries.
#[derive(Clone, Debug)]
enum Op {
    /// `world.get_mut::<Value>` on the entity at this index (mod the live count).
    Write(usize),
    /// The same on the entity in the last row of the archetype with (or
    /// without) `Other`: the row a despawn moves into the hole it leaves.
    WriteLast(bool),
    /// The same on `Loose`, the sparse component.
    WriteLoose(usize),
    /// A read through `get_mut` (no write).
    Read(usize),
    Despawn(usize),
    /// Moves the entity to the archetype with (or without) `Other`.
    Toggle(usize),
    Spawn,
    /// Runs the queries and checks them.
    Check,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => any::<usize>().prop_map(Op::Write),
        3 => any::<bool>().prop_map(Op::WriteLast),
        2 => any::<usize>().prop_map(Op::WriteLoose),
        1 => any::<usize>().prop_map(Op::Read),
        3 => any::<usize>().prop_map(Op::Despawn),
        2 => any::<usize>().prop_map(Op::Toggle),
        1 => Just(Op::Spawn),
        2 => Just(Op::Check),
    ]
}

/// The entities each query must yield, in four iteration modes (each state
/// is one mode's, run once per check).
fn check<F: QueryFilter>(
    world: &mut World,
    states: &mut [QueryState<Entity, F>; 4],
    expected: &BTreeSet<Entity>,
    what: &str,
) -> Result<(), TestCaseError>
where
    F::State: Sync,
{
    let sorted = |mut v: Vec<Entity>| {
        v.sort();
        v
    };
    let expected: Vec<Entity> = expected.iter().copied().collect();
    prop_assert_eq!(sorted(states[0].iter(world).collect()), expected.clone(), "{} by next", what);
    let mut folded = Vec::new();
    states[1].iter(world).for_each(|e| folded.push(e));
    prop_assert_eq!(sorted(folded), expected.clone(), "{} by for_each", what);
    let parallel = Mutex::new(Vec::new());
    states[2].par_for_each(world, |e| parallel.lock().unwrap().push(e));
    prop_assert_eq!(sorted(parallel.into_inner().unwrap()), expected.clone(), "{} by par_for_each", what);
    prop_assert_eq!(states[3].count(world), expected.len(), "{} by count", what);
    // `count` is not a run: one by `next` marks it.
    states[3].iter(world).for_each(drop);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::cases(48), ..ProptestConfig::default() })]
    #[test]
    fn changed_finds_every_written_row_while_rows_move(
        sizes in (1usize..1200, 0usize..700),
        ops in proptest::collection::vec(op(), 1..60),
    ) {
        let mut world = World::new();
        let mut live: Vec<Entity> = world.spawn_batch((0..sizes.0).map(|i| (Value(i as u32), Loose(0)))).collect();
        live.extend(world.spawn_batch((0..sizes.1).map(|i| (Value(i as u32), Other(0), Loose(0)))));
        let mut value_states: [QueryState<Entity, Changed<Value>>; 4] =
            std::array::from_fn(|_| world.query_state_filtered());
        let mut loose_states: [QueryState<Entity, Changed<Loose>>; 4] =
            std::array::from_fn(|_| world.query_state_filtered());
        let everyone: BTreeSet<Entity> = live.iter().copied().collect();
        check(&mut world, &mut value_states, &everyone, "first run")?;
        check(&mut world, &mut loose_states, &everyone, "first run, sparse")?;
        let (mut changed, mut changed_loose) = (BTreeSet::new(), BTreeSet::new());
        for op in ops.into_iter().chain([Op::Check]) {
            let pick = |i: usize| (!live.is_empty()).then(|| i % live.len());
            match op {
                Op::Write(i) => if let Some(i) = pick(i) {
                    world.get_mut::<Value>(live[i]).unwrap().0 += 1;
                    changed.insert(live[i]);
                },
                Op::WriteLast(with_other) => {
                    // Query order is row order: the last item sits in the last row.
                    let last = if with_other {
                        world.query_filtered::<Entity, (With<Value>, With<Other>)>().iter().last()
                    } else {
                        world.query_filtered::<Entity, (With<Value>, Without<Other>)>().iter().last()
                    };
                    if let Some(e) = last {
                        world.get_mut::<Value>(e).unwrap().0 += 1;
                        changed.insert(e);
                    }
                }
                Op::WriteLoose(i) => if let Some(i) = pick(i) {
                    world.get_mut::<Loose>(live[i]).unwrap().0 += 1;
                    changed_loose.insert(live[i]);
                },
                Op::Read(i) => if let Some(i) = pick(i) {
                    let _ = world.get_mut::<Value>(live[i]).unwrap().0;
                },
                Op::Despawn(i) => if let Some(i) = pick(i) {
                    let e = live.swap_remove(i);
                    world.despawn(e).unwrap();
                    changed.remove(&e);
                    changed_loose.remove(&e);
                },
                Op::Toggle(i) => if let Some(i) = pick(i) {
                    let e = live[i];
                    if world.get::<Other>(e).is_some() {
                        world.remove::<Other>(e).unwrap();
                    } else {
                        world.insert(e, Other(0)).unwrap();
                    }
                },
                Op::Spawn => {
                    let e = world.spawn((Value(7), Loose(7)));
                    live.push(e);
                    changed.insert(e);
                    changed_loose.insert(e);
                }
                Op::Check => {
                    check(&mut world, &mut value_states, &changed, "Changed<Value>")?;
                    check(&mut world, &mut loose_states, &changed_loose, "Changed<Loose>")?;
                    changed.clear();
                    changed_loose.clear();
                }
            }
        }
    }
}

/// Counts the rows a filter asks about: with one row written in each of three
/// archetypes of 4,000, a run's worth of rows each, not the archetypes.
#[test]
fn changed_after_get_mut_reads_the_written_runs_only() {
    #[derive(Component)]
    struct A(#[allow(dead_code)] u8);
    #[derive(Component)]
    struct B(#[allow(dead_code)] u8);

    let mut world = World::new();
    let plain: Vec<Entity> = world.spawn_batch((0..4000).map(|i| (Value(i),))).collect();
    let with_a: Vec<Entity> = world.spawn_batch((0..4000).map(|i| (Value(i), A(0)))).collect();
    let with_b: Vec<Entity> = world.spawn_batch((0..4000).map(|i| (Value(i), B(0)))).collect();
    let mut changed = world.query_state_filtered::<(CountRows, Entity), Changed<Value>>();
    assert_eq!(changed.iter(&world).count(), 12_000);
    for e in [plain[3999], with_a[0], with_b[2100]] {
        world.get_mut::<Value>(e).unwrap().0 += 1;
    }
    reset_rows_asked();
    let mut found: Vec<Entity> = changed.iter(&world).map(|(_, e)| e).collect();
    found.sort();
    assert_eq!(found, [plain[3999], with_a[0], with_b[2100]]);
    let visited = rows_asked();
    assert!(visited <= 3 * 256, "{visited} rows asked about for three written among 12,000");
    reset_rows_asked();
    assert_eq!(changed.iter(&world).count(), 0);
    assert_eq!(rows_asked(), 0, "nothing written since: nothing read");
}
