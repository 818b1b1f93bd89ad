//! `Changed<T>` and `Added<T>` skip archetypes in which nothing changed since the
//! query last ran, without visiting their rows. Rows visited are counted by a
//! query item that counts its row checks.

use std::cell::Cell;
use std::ops::Range;

use ecs_core::ComponentId;
use ecs_core::archetype::Archetype;
use ecs_core::prelude::*;
use ecs_core::query::{Access, CachedColumn, FetchContext, QueryData, ReadOnlyQueryData};

thread_local! {
    /// Per thread, so that tests running side by side do not count each other.
    static VISITS: Cell<usize> = const { Cell::new(0) };
}

/// Yields `()` for every row, counting the rows it is asked about.
struct CountRows;

// SAFETY: reads nothing, caches nothing, matches everything.
unsafe impl QueryData for CountRows {
    type Item<'w> = ();
    type Slice<'w> = ();
    type Fetch<'w> = ();
    type State = ();
    const COLUMNS: usize = 0;
    const DENSE: bool = false;

    fn init_state() {}
    fn access(_: &(), _: &mut Access) {}
    fn matches(_: &(), _: &Archetype) -> bool {
        true
    }
    fn required(_: &(), _: &mut impl FnMut(ComponentId)) {}
    fn columns(_: &(), _: &Archetype, _: &mut Vec<CachedColumn>) {}
    unsafe fn fetch_archetype(_: &Archetype, _: &mut &[CachedColumn], _: FetchContext) {}
    unsafe fn filter_row(_: &(), _: usize) -> bool {
        VISITS.set(VISITS.get() + 1);
        true
    }
    unsafe fn fetch<'w>(_: &Self::Fetch<'w>, _: usize) -> Self::Item<'w> {}
    fn shrink<'long: 'short, 'short>(_: ()) {}
    unsafe fn slice<'w>(_: &Self::Fetch<'w>, _: Range<usize>) -> Self::Slice<'w> {}
}

// SAFETY: reads nothing.
unsafe impl ReadOnlyQueryData for CountRows {}

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
    VISITS.set(0);
    let yielded = f();
    (yielded, VISITS.get())
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
    assert_eq!(visited, 100, "two archetypes of 50 rows visited, 18 skipped");

    // `Iterator::for_each` (the folding path) and `count` skip the same way.
    world.get_mut::<Value>(groups[5][1]).unwrap().0 += 1;
    let mut seen = 0;
    let (_, visited) = visits(|| {
        changed.iter_mut(&mut world).for_each(|_| seen += 1);
        seen
    });
    assert_eq!((seen, visited), (1, 50));
    world.get_mut::<Value>(groups[6][1]).unwrap().0 += 1;
    assert_eq!(visits(|| changed.count(&world)), (1, 50));
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
    assert_eq!(visits(|| added.iter(&world).count()), (1, 21), "only M4's archetype (20 + 1 rows)");
}

#[test]
fn a_system_query_skips_too() {
    #[derive(Default)]
    struct Seen(Vec<usize>);
    fn watch(q: Query<(CountRows, &Value), Changed<Value>>, mut seen: ResMut<Seen>) {
        VISITS.set(0);
        let n = q.iter().count();
        seen.0.push(n * 1000 + VISITS.get());
    }
    let mut world = World::new();
    world.insert_resource(Seen::default());
    let groups = spawn_all(&mut world, 10);
    let mut schedule = Schedule::new();
    schedule.set_multi_threaded(false).add_system(watch);
    schedule.run(&mut world);
    schedule.run(&mut world);
    world.get_mut::<Value>(groups[9][9]).unwrap().0 += 1;
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, [200 * 1000 + 200, 0, 1000 + 10]);
}
