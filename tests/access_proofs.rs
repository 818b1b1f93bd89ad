//! What counts as proof that two queries of one system (or two systems) never
//! touch the same rows: `&T` of a tag or sparse component proves `T` as
//! `With<T>` does, and `Or` filters count, clause by clause. What is not sound
//! stays refused.
#![allow(clippy::type_complexity, reason = "the filters are the subject, spelled out")]

use std::panic::{AssertUnwindSafe, catch_unwind};

use ecs_core::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Pos(i32);
#[derive(Component)]
struct Tag;
#[derive(Component)]
#[component(storage = "sparse")]
struct Marked(#[allow(dead_code)] u8);
#[derive(Component)]
struct A;
#[derive(Component)]
struct B;
#[derive(Component)]
struct Table(#[allow(dead_code)] u8);

fn world() -> (World, [Entity; 6]) {
    let mut world = World::new();
    let ids = [
        world.spawn((Pos(0), Tag)),
        world.spawn(Pos(0)),
        world.spawn((Pos(0), Marked(1))),
        world.spawn((Pos(0), A, Table(0))),
        world.spawn((Pos(0), B)),
        world.spawn((Pos(0), A, B)),
    ];
    (world, ids)
}

fn refusal(system: impl FnOnce()) -> String {
    let payload = catch_unwind(AssertUnwindSafe(system)).expect_err("refused");
    payload.downcast_ref::<String>().cloned().unwrap_or_default()
}

fn positions(world: &mut World, ids: &[Entity]) -> Vec<i32> {
    ids.iter().map(|&e| world.get::<Pos>(e).unwrap().0).collect()
}

#[test]
fn a_read_of_a_tag_proves_it_as_with_does() {
    fn split(mut tagged: Query<(&mut Pos, &Tag)>, mut untagged: Query<&mut Pos, Without<Tag>>) {
        for (pos, _) in &mut tagged {
            pos.0 += 1;
        }
        for pos in &mut untagged {
            pos.0 += 10;
        }
    }
    let (mut world, ids) = world();
    let mut schedule = Schedule::new();
    schedule.add_systems(split);
    schedule.run(&mut world);
    assert_eq!(positions(&mut world, &ids), [1, 10, 10, 10, 10, 10]);
}

#[test]
fn a_read_of_a_sparse_component_proves_it_too() {
    fn split(mut marked: Query<(&mut Pos, &Marked)>, mut rest: Query<&mut Pos, Without<Marked>>) {
        marked.iter_mut().for_each(|(pos, _)| pos.0 += 1);
        rest.iter_mut().for_each(|pos| pos.0 += 10);
    }
    let (mut world, ids) = world();
    world.run_system_once(split).unwrap();
    assert_eq!(positions(&mut world, &ids), [10, 10, 1, 10, 10, 10]);
}

#[test]
fn or_filters_count_clause_by_clause() {
    fn split(
        mut either: Query<&mut Pos, Or<(With<A>, With<B>)>>,
        mut neither: Query<&mut Pos, (Without<A>, Without<B>)>,
    ) {
        either.iter_mut().for_each(|pos| pos.0 += 1);
        neither.iter_mut().for_each(|pos| pos.0 += 10);
    }
    let (mut world, ids) = world();
    world.run_system_once(split).unwrap();
    assert_eq!(positions(&mut world, &ids), [10, 10, 10, 1, 1, 1]);

    // Nested: (A or B) and Table, against no A, or no Table.
    fn nested(
        mut some: Query<&mut Pos, (Or<(With<A>, With<B>)>, With<Table>)>,
        mut others: Query<&mut Pos, Or<(Without<Table>, (Without<A>, Without<B>))>>,
    ) {
        some.iter_mut().for_each(|pos| pos.0 += 100);
        others.iter_mut().for_each(|pos| pos.0 += 1000);
    }
    world.run_system_once(nested).unwrap();
    assert_eq!(positions(&mut world, &ids), [1010, 1010, 1010, 101, 1001, 1001]);
}

#[test]
fn what_could_alias_stays_refused() {
    // `Or<(With<A>, With<B>)>` and `Without<A>` share the rows with B only.
    fn overlap(_: Query<&mut Pos, Or<(With<A>, With<B>)>>, _: Query<&mut Pos, Without<A>>) {}
    let message = refusal(|| {
        let _ = World::new().run_system_once(overlap);
    });
    assert!(message.contains("Pos"), "{message}");

    // A writer of the tag itself, beside a filter that reads the tag's presence
    // on every row: the proof separates rows, and the filter reads them all.
    fn writes_the_proof(_: Query<(&Pos, &mut Marked)>, _: Query<&mut Pos, Without<Marked>>) {}
    let message = refusal(|| {
        let _ = World::new().run_system_once(writes_the_proof);
    });
    assert!(message.contains("Marked"), "{message}");

    // `Mut`/`Ref` of a sparse component read its ticks on every row they pass
    // over: beside a writer kept apart only per row, refused.
    fn ticks_beside_writer(_: Query<Mut<Marked>, With<Tag>>, _: Query<Ref<Marked>, Without<Tag>>) {}
    let message = refusal(|| {
        let _ = World::new().run_system_once(ticks_beside_writer);
    });
    assert!(message.contains("Marked"), "{message}");

    // `Option<&Tag>` proves nothing.
    fn optional(_: Query<(&mut Pos, Option<&Tag>)>, _: Query<&mut Pos, Without<Tag>>) {}
    let message = refusal(|| {
        let _ = World::new().run_system_once(optional);
    });
    assert!(message.contains("Pos"), "{message}");
}

#[derive(QueryData)]
struct TaggedPos<'w> {
    pos: &'w mut Pos,
    _tag: &'w Tag,
}

#[test]
fn a_derived_query_keeps_its_fields_proofs() {
    fn split(mut tagged: Query<TaggedPos>, mut untagged: Query<&mut Pos, Without<Tag>>) {
        for item in &mut tagged {
            item.pos.0 += 1;
        }
        untagged.iter_mut().for_each(|pos| pos.0 += 10);
    }
    let (mut world, ids) = world();
    world.run_system_once(split).unwrap();
    assert_eq!(positions(&mut world, &ids), [1, 10, 10, 10, 10, 10]);
}
