//! Queries kept apart only by a per-row filter (a tag or a sparse component in
//! `With`/`Without`) share an archetype: rows with the tag and rows without it sit
//! in the same columns. Two such systems may run side by side only if neither
//! touches the other's rows — values *or* change ticks — and a write never stamps
//! rows it did not hand out.

use ecs_core::prelude::*;

#[derive(Component, Clone, Copy, Debug)]
struct A(u64);
/// A tag: stored per row, so it does not split the archetype.
#[derive(Component)]
struct S;
/// A sparse component with data: also per row.
#[derive(Component)]
#[component(storage = "sparse")]
struct Sp(#[allow(dead_code)] u8);

#[derive(Default)]
struct Seen(Vec<usize>);

fn write_tagged(mut q: Query<&mut A, With<S>>) {
    for a in &mut q {
        a.0 += 1;
    }
}

fn count_changed_untagged(q: Query<Entity, (Changed<A>, Without<S>)>, mut seen: ResMut<Seen>) {
    seen.0.push(q.iter().count());
}

fn write_sparse(mut q: Query<&mut A, With<Sp>>) {
    q.iter_mut().for_each(|a| a.0 += 1);
}

fn count_changed_without_sparse(q: Query<Entity, (Changed<A>, Without<Sp>)>, mut seen: ResMut<Seen>) {
    seen.0.push(q.iter().count());
}

fn run<M1, M2>(
    marker: impl Fn(&mut World, u64),
    writer: impl IntoSystemConfig<M1>,
    reader: impl IntoSystemConfig<M2>,
) -> Vec<usize> {
    let mut world = World::new();
    world.insert_resource(Seen::default());
    for i in 0..12_800u64 {
        if i % 2 == 0 {
            marker(&mut world, i);
        } else {
            world.spawn(A(i));
        }
    }
    let mut schedule = Schedule::new();
    schedule.add_systems(writer).add_systems(reader);
    for _ in 0..60 {
        schedule.run(&mut world);
    }
    world.remove_resource::<Seen>().unwrap().0
}

#[test]
fn a_writer_of_tagged_rows_never_shows_untagged_rows_as_changed() {
    let seen = run(
        |w, i| {
            w.spawn((A(i), S));
        },
        write_tagged,
        count_changed_untagged,
    );
    // The first run sees every row as added; after that nothing without `S` is written.
    assert_eq!(seen[0], 6_400);
    assert!(seen[1..].iter().all(|&n| n == 0), "untagged rows reported changed: {seen:?}");
}

#[test]
fn a_writer_of_sparse_rows_never_shows_other_rows_as_changed() {
    let seen = run(
        |w, i| {
            w.spawn((A(i), Sp(1)));
        },
        write_sparse,
        count_changed_without_sparse,
    );
    assert_eq!(seen[0], 6_400);
    assert!(seen[1..].iter().all(|&n| n == 0), "rows without `Sp` reported changed: {seen:?}");
}

/// The one shape that could read ticks a writer stamps from another thread: both
/// queries in one system, the reader walked inside the writer's parallel loop.
/// Refused now, with a message naming the component.
fn reader_inside_parallel_writer(mut a: Query<&mut A, With<S>>, b: Query<Entity, (Changed<A>, Without<S>)>) {
    a.par_for_each_mut(|x| {
        x.0 += 1;
        if x.0 % 1024 == 0 {
            assert_eq!(b.iter().count(), 0);
        }
    });
}

#[test]
#[should_panic(expected = "component `per_row_disjoint::A` is written by one, and a filter of the other \
                           (`Changed<per_row_disjoint::A>`")]
fn a_tick_filter_kept_apart_from_a_writer_only_per_row_is_refused() {
    let mut schedule = Schedule::new();
    schedule.add_systems(reader_inside_parallel_writer);
}

fn presence_of_written_sparse(mut a: Query<&mut Sp, With<Sp>>, b: Query<&A, Without<Sp>>) {
    a.par_for_each_mut(|sp| sp.0 = b.iter().count() as u8);
}

#[test]
#[should_panic(expected = "component `per_row_disjoint::Sp` is written by one")]
fn a_presence_filter_kept_apart_from_a_writer_of_that_component_only_per_row_is_refused() {
    Schedule::new().add_systems(presence_of_written_sparse);
}

/// What stays accepted: per-row proofs where neither side reads rows it does
/// not hand out, `Ref<A>` in place of a tick filter, and tick filters beside a
/// writer kept apart by a table component (separate archetypes).
#[derive(Component)]
struct Table(#[allow(dead_code)] u8);

fn split_by_tag(mut a: Query<&mut A, With<S>>, mut b: Query<&mut A, Without<S>>) {
    a.iter_mut().for_each(|x| x.0 += 1);
    b.iter_mut().for_each(|x| x.0 += 2);
}

fn ref_beside_writer(mut a: Query<&mut A, With<S>>, b: Query<Ref<A>, Without<S>>, mut seen: ResMut<Seen>) {
    a.par_for_each_mut(|x| x.0 += 1);
    seen.0.push(b.iter().filter(|r| r.is_changed()).count());
}

fn changed_split_by_table(mut a: Query<&mut A, With<Table>>, b: Query<Entity, (Changed<A>, Without<Table>)>) {
    a.par_for_each_mut(|x| {
        x.0 += 1;
        let _ = b.iter().count();
    });
}

#[test]
fn proofs_that_keep_rows_apart_stay_accepted() {
    let mut world = World::new();
    world.insert_resource(Seen::default());
    for i in 0..2_000u64 {
        match i % 3 {
            0 => world.spawn((A(i), S)),
            1 => world.spawn((A(i), Table(0))),
            _ => world.spawn(A(i)),
        };
    }
    let mut schedule = Schedule::new();
    schedule.add_systems(split_by_tag).add_systems(ref_beside_writer).add_systems(changed_split_by_table);
    for _ in 0..5 {
        schedule.run(&mut world);
    }
    // `ref_beside_writer` sees every untagged row added on its first run, then
    // each run the rows `split_by_tag` and `changed_split_by_table` wrote since.
    let seen = &world.resource::<Seen>().0;
    assert_eq!(seen[0], 1_333);
    assert!(seen[1..].iter().all(|&n| n == 1_333), "{seen:?}");
}
