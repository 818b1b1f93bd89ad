//! `Changed<T>` and `Added<T>` skip archetypes in which nothing changed since the
//! query last ran, without visiting their rows, and within an archetype skip the
//! rows that did not change, a block of ticks at a time. Rows visited are
//! counted by a query item that counts its row checks.

use ecs_core::prelude::*;

mod common;
use common::{CountRows, reset_rows_asked, rows_asked};

#[derive(Component)]
struct Value(u32);

macro_rules! markers {
    ($($name:ident)*) => {
        // One data component per marker, so each makes its own archetype (tags
        // would share one).
        $(#[derive(Component)] struct $name(#[allow(dead_code)] u8);)*
        /// 20 archetypes of `per` entities each.
        fn spawn_all(world: &mut World, per: u32) -> Vec<Vec<Entity>> {
            vec![$(world.spawn_batch((0..per).map(|i| (Value(i), $name(0)))).collect()),*]
        }
    };
}

markers!(M0 M1 M2 M3 M4 M5 M6 M7 M8 M9 M10 M11 M12 M13 M14 M15 M16 M17 M18 M19);

fn visits(f: impl FnOnce() -> usize) -> (usize, usize) {
    reset_rows_asked();
    let yielded = f();
    (yielded, rows_asked())
}

#[test]
fn changed_visits_only_archetypes_where_something_changed() {
    let mut world = World::new();
    let groups = spawn_all(&mut world, 50);
    let mut changed = world.query_state_filtered::<(CountRows, &Value), Changed<Value>>();
    let (first, visited) = visits(|| changed.iter(&world).count());
    assert_eq!((first, visited), (1000, 1000), "everything is new at first");
    let (none, visited) = visits(|| changed.iter(&world).count());
    assert_eq!((none, visited), (0, 0), "nothing changed: no archetype is visited");

    world.get_mut::<Value>(groups[3][7]).unwrap().0 += 1;
    world.get_mut::<Value>(groups[11][0]).unwrap().0 += 1;
    let (yielded, visited) = visits(|| changed.iter(&world).count());
    assert_eq!(yielded, 2);
    // 18 archetypes skipped whole; in the other two, of 50 rows each, only the
    // first row, the changed one and the one after it are asked about.
    assert!(visited <= 3 * yielded, "{visited} rows visited for {yielded} changed");

    // `Iterator::for_each` (the folding path) and `count` skip the same way.
    world.get_mut::<Value>(groups[5][1]).unwrap().0 += 1;
    let mut seen = 0;
    let (_, visited) = visits(|| {
        changed.iter_mut(&mut world).for_each(|_| seen += 1);
        seen
    });
    assert_eq!(seen, 1);
    assert!(visited <= 3, "{visited} rows visited for one changed");
    world.get_mut::<Value>(groups[6][1]).unwrap().0 += 1;
    let (counted, visited) = visits(|| changed.count(&world));
    assert_eq!(counted, 1);
    assert!(visited <= 3, "{visited} rows visited for one changed");
}

#[test]
fn a_read_through_mut_does_not_make_the_archetype_visited() {
    let mut world = World::new();
    let groups = spawn_all(&mut world, 10);
    let mut changed = world.query_state_filtered::<(CountRows, &Value), Changed<Value>>();
    changed.iter(&world).count();
    let value = world.get_mut::<Value>(groups[0][0]).unwrap().0;
    assert_eq!(value, 0);
    assert_eq!(visits(|| changed.iter(&world).count()), (0, 0));
}

#[test]
fn a_changed_row_that_moves_archetype_is_still_found() {
    #[derive(Component)]
    struct Extra(#[allow(dead_code)] u8);
    let mut world = World::new();
    let groups = spawn_all(&mut world, 10);
    let mut changed = world.query_state_filtered::<(Entity, &Value), Changed<Value>>();
    changed.iter(&world).count();
    let e = groups[2][3];
    world.get_mut::<Value>(e).unwrap().0 = 99;
    world.insert(e, Extra(0)).unwrap(); // moves to a new archetype
    let found: Vec<Entity> = changed.iter(&world).map(|(e, _)| e).collect();
    assert_eq!(found, [e]);
}

#[test]
fn added_visits_only_archetypes_with_new_rows() {
    let mut world = World::new();
    spawn_all(&mut world, 20);
    let mut added = world.query_state_filtered::<(CountRows, &Value), Added<Value>>();
    assert_eq!(visits(|| added.iter(&world).count()), (400, 400));
    world.spawn((Value(1), M4(0)));
    let (yielded, visited) = visits(|| added.iter(&world).count());
    assert_eq!(yielded, 1);
    assert!(visited <= 3, "only M4's archetype, and in it not its 20 old rows: {visited} visited");
}

#[test]
fn a_system_query_skips_too() {
    #[derive(Default)]
    struct Seen(Vec<usize>);
    fn watch(q: Query<(CountRows, &Value), Changed<Value>>, mut seen: ResMut<Seen>) {
        reset_rows_asked();
        let n = q.iter().count();
        seen.0.push(n * 1000 + rows_asked());
    }
    let mut world = World::new();
    world.insert_resource(Seen::default());
    let groups = spawn_all(&mut world, 10);
    let mut schedule = Schedule::new();
    schedule.set_multi_threaded(false).add_systems(watch);
    schedule.run(&mut world);
    schedule.run(&mut world);
    world.get_mut::<Value>(groups[9][9]).unwrap().0 += 1;
    schedule.run(&mut world);
    let seen = &world.resource::<Seen>().0;
    assert_eq!(seen[..2], [200 * 1000 + 200, 0]);
    assert!((1000..=1003).contains(&seen[2]), "one changed row, a few visited: {}", seen[2]);
}

mod blocks {
    //! Which rows `Changed`/`Added` yield when the rows that changed sit anywhere
    //! among many that did not (the filters skip unchanged rows a block at a
    //! time): every iteration mode against the set of rows written.

    use std::collections::BTreeSet;
    use std::sync::Mutex;

    use ecs_core::prelude::*;
    use ecs_core::query::QueryFilter;
    use proptest::prelude::*;

    #[derive(Component)]
    struct A(u32);
    #[derive(Component)]
    struct B(u32);
    #[derive(Component)]
    #[component(storage = "sparse")]
    struct S(u32);
    #[derive(Component)]
    struct Tag(#[allow(dead_code)] u8);

    /// What a case does to the world between the queries' first run and the one checked.
    #[derive(Clone, Debug)]
    struct Case {
        /// Entities in the archetype without `Tag`, then in the one with it.
        sizes: (usize, usize),
        write_a: Vec<usize>,
        write_b: Vec<usize>,
        write_s: Vec<usize>,
        insert_s: Vec<usize>,
        remove_s: Vec<usize>,
    }

    fn case() -> impl Strategy<Value = Case> {
        (1usize..90, 0usize..90).prop_flat_map(|sizes| {
            let n = sizes.0 + sizes.1;
            // Mostly isolated rows, sometimes runs of neighbours (a whole block).
            let rows = move || {
                prop_oneof![
                    proptest::collection::vec(0..n, 0..6),
                    (0..n, 1usize..40).prop_map(move |(start, len)| (start..(start + len).min(n)).collect()),
                ]
            };
            (Just(sizes), rows(), rows(), rows(), rows(), rows()).prop_map(
                |(sizes, write_a, write_b, write_s, insert_s, remove_s)| Case {
                    sizes,
                    write_a,
                    write_b,
                    write_s,
                    insert_s,
                    remove_s,
                },
            )
        })
    }

    /// One state per iteration mode, each run once before the case's writes.
    struct States<F: QueryFilter>(Vec<QueryState<Entity, F>>);

    impl<F: QueryFilter> States<F> {
        fn new(world: &mut World) -> Self {
            let mut states: Vec<QueryState<Entity, F>> = (0..6).map(|_| world.query_state_filtered()).collect();
            for state in &mut states {
                state.iter(world).count();
            }
            Self(states)
        }

        /// Every mode's rows; each must be `expected`.
        fn check(mut self, world: &mut World, expected: &BTreeSet<Entity>, what: &str) -> Result<(), TestCaseError>
        where
            F::State: Sync,
        {
            let sorted = |v: Vec<Entity>| -> Vec<Entity> {
                let mut v = v;
                v.sort();
                v
            };
            let expected: Vec<Entity> = expected.iter().copied().collect();
            let s = &mut self.0;
            let by_next: Vec<Entity> = s[0].iter(world).collect();
            prop_assert_eq!(sorted(by_next), expected.clone(), "{} by `next`", what);
            let mut by_fold = Vec::new();
            s[1].iter(world).for_each(|e| by_fold.push(e));
            prop_assert_eq!(sorted(by_fold), expected.clone(), "{} by `for_each`", what);
            // A few by `next`, then the rest folded: the fold resumes mid-archetype.
            let mut iter = s[2].iter(world);
            let mut mixed: Vec<Entity> = iter.by_ref().take(2).collect();
            iter.for_each(|e| mixed.push(e));
            prop_assert_eq!(sorted(mixed), expected.clone(), "{} by `next` then `for_each`", what);
            let parallel = Mutex::new(Vec::new());
            s[3].par_for_each(world, |e| parallel.lock().unwrap().push(e));
            prop_assert_eq!(sorted(parallel.into_inner().unwrap()), expected.clone(), "{} by `par_for_each`", what);
            let mut chunks = Vec::new();
            s[4].for_each_chunk(world, |es| chunks.extend_from_slice(es));
            prop_assert_eq!(sorted(chunks), expected.clone(), "{} by chunks", what);
            prop_assert_eq!(s[5].count(world), expected.len(), "{} by `count`", what);
            Ok(())
        }
    }

    proptest! {
        #[test]
        fn changed_and_added_rows_are_found_wherever_they_sit(case in case()) {
            let mut world = World::new();
            let mut all: Vec<Entity> = world.spawn_batch((0..case.sizes.0).map(|i| (A(0), B(0), S(i as u32)))).collect();
            all.extend(world.spawn_batch((0..case.sizes.1).map(|i| (A(0), B(0), S(i as u32), Tag(0)))));
            let tagged: BTreeSet<Entity> = all[case.sizes.0..].iter().copied().collect();
            // Some rows lose `S` before the first run: absent rows of the sparse
            // column, whose stale ticks must not pass.
            let mut with_s: BTreeSet<Entity> = all.iter().copied().collect();
            for &i in &case.remove_s {
                if with_s.remove(&all[i]) {
                    world.remove::<S>(all[i]).unwrap();
                }
            }
            let changed_a = States::<Changed<A>>::new(&mut world);
            let changed_s = States::<Changed<S>>::new(&mut world);
            let added_s = States::<Added<S>>::new(&mut world);
            let both = States::<(Changed<A>, Changed<B>)>::new(&mut world);
            let either = States::<Or<(Changed<A>, Changed<B>)>>::new(&mut world);
            let changed_or_tagged = States::<Or<(Changed<A>, With<Tag>)>>::new(&mut world);

            let pick = |rows: &[usize]| -> BTreeSet<Entity> { rows.iter().map(|&i| all[i]).collect() };
            for e in pick(&case.write_a) {
                world.get_mut::<A>(e).unwrap().0 += 1;
            }
            for e in pick(&case.write_b) {
                world.get_mut::<B>(e).unwrap().0 += 1;
            }
            let mut s_written = BTreeSet::new();
            for e in pick(&case.write_s) {
                if let Some(mut s) = world.get_mut::<S>(e) {
                    s.0 += 1;
                    s_written.insert(e);
                }
            }
            let mut s_added = BTreeSet::new();
            for e in pick(&case.insert_s) {
                if !with_s.contains(&e) {
                    world.insert(e, S(7)).unwrap();
                    with_s.insert(e);
                    s_added.insert(e);
                }
            }

            let (a, b) = (pick(&case.write_a), pick(&case.write_b));
            changed_a.check(&mut world, &a, "Changed<A>")?;
            let s_changed: BTreeSet<Entity> = s_written.union(&s_added).copied().collect();
            changed_s.check(&mut world, &s_changed, "Changed<S> (sparse)")?;
            added_s.check(&mut world, &s_added, "Added<S> (sparse)")?;
            both.check(&mut world, &a.intersection(&b).copied().collect(), "(Changed<A>, Changed<B>)")?;
            either.check(&mut world, &a.union(&b).copied().collect(), "Or<(Changed<A>, Changed<B>)>")?;
            changed_or_tagged.check(&mut world, &a.union(&tagged).copied().collect(), "Or<(Changed<A>, With<Tag>)>")?;
        }
    }
}
