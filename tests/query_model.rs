//! Queries against the reference model: random worlds, random structural changes,
//! queries with each kind of filter, compared as sets of entities and values, and
//! change detection compared against the set of rows the test wrote.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use ecs_core::prelude::*;
use ecs_core::query::QueryFilter;
use proptest::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct A(u32);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct B(u32);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct C(u32);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Tag;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Row {
    a: Option<u32>,
    b: Option<u32>,
    c: Option<u32>,
    tag: bool,
}

type Model = BTreeMap<Entity, Row>;

fn spawn(world: &mut World, model: &mut Model, mask: u8, v: u32) {
    let e = world.spawn(());
    let mut row = Row::default();
    if mask & 1 != 0 {
        world.insert(e, A(v)).unwrap();
        row.a = Some(v);
    }
    if mask & 2 != 0 {
        world.insert(e, B(v + 1)).unwrap();
        row.b = Some(v + 1);
    }
    if mask & 4 != 0 {
        world.insert(e, C(v + 2)).unwrap();
        row.c = Some(v + 2);
    }
    if mask & 8 != 0 {
        world.insert(e, Tag).unwrap();
        row.tag = true;
    }
    model.insert(e, row);
}

/// The filters under test, as predicates on a model row.
const FILTERS: usize = 6;

fn filter_holds(which: usize, r: &Row) -> bool {
    match which {
        0 => true,
        1 => r.c.is_some(),
        2 => !r.tag,
        3 => r.b.is_some() || r.tag,
        4 => r.a.is_some() && r.c.is_none(),
        _ => (r.tag && r.b.is_none()) || r.c.is_some(),
    }
}

type Item = (Entity, u32, Option<u32>);

fn run<F: QueryFilter>(world: &World) -> BTreeSet<Item> {
    world.query_filtered::<(Entity, &A, Option<&B>), F>().iter().map(|(e, a, b)| (e, a.0, b.map(|b| b.0))).collect()
}

fn query_with_filter(world: &World, which: usize) -> BTreeSet<Item> {
    match which {
        0 => run::<()>(world),
        1 => run::<With<C>>(world),
        2 => run::<Without<Tag>>(world),
        3 => run::<Or<(With<B>, With<Tag>)>>(world),
        4 => run::<(With<A>, Without<C>)>(world),
        _ => run::<Or<((With<Tag>, Without<B>), With<C>)>>(world),
    }
}

#[derive(Clone, Debug)]
enum Step {
    Spawn(u8, u32),
    Despawn(usize),
    InsertC(usize, u32),
    RemoveB(usize),
    IncrementB,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0u8..16, 0u32..1000).prop_map(|(m, v)| Step::Spawn(m, v)),
        1 => any::<usize>().prop_map(Step::Despawn),
        1 => (any::<usize>(), 0u32..1000).prop_map(|(i, v)| Step::InsertC(i, v)),
        1 => any::<usize>().prop_map(Step::RemoveB),
        1 => Just(Step::IncrementB),
    ]
}

fn pick(model: &Model, i: usize) -> Option<Entity> {
    (!model.is_empty()).then(|| *model.keys().nth(i % model.len()).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::cases(128), ..ProptestConfig::default() })]

    #[test]
    fn queries_match_the_model(steps in proptest::collection::vec(step(), 1..60)) {
        let mut world = World::new();
        let mut model = Model::new();
        let mut increment = world.query_state_filtered::<&mut B, Without<Tag>>();
        for step in &steps {
            match *step {
                Step::Spawn(mask, v) => spawn(&mut world, &mut model, mask, v),
                Step::Despawn(i) => if let Some(e) = pick(&model, i) {
                    world.despawn(e).unwrap();
                    model.remove(&e);
                },
                Step::InsertC(i, v) => if let Some(e) = pick(&model, i) {
                    world.insert(e, C(v)).unwrap();
                    model.get_mut(&e).unwrap().c = Some(v);
                },
                Step::RemoveB(i) => if let Some(e) = pick(&model, i) {
                    let expected = model.get_mut(&e).unwrap().b.take();
                    prop_assert_eq!(world.remove::<B>(e).ok().map(|b| b.0), expected);
                },
                Step::IncrementB => {
                    increment.iter_mut(&mut world).for_each(|b| b.0 += 1);
                    for row in model.values_mut().filter(|r| !r.tag) {
                        if let Some(b) = row.b.as_mut() { *b += 1; }
                    }
                }
            }
            for which in 0..FILTERS {
                let expected: BTreeSet<Item> = model
                    .iter()
                    .filter(|(_, r)| r.a.is_some() && filter_holds(which, r))
                    .map(|(&e, r)| (e, r.a.unwrap(), r.b))
                    .collect();
                prop_assert_eq!(query_with_filter(&world, which), expected, "filter {}", which);
            }
        }
        world.check_invariants().unwrap();
    }

    #[test]
    fn changed_reports_exactly_the_written_rows(
        masks in proptest::collection::vec(0u8..16, 1..40),
        writes in proptest::collection::vec(any::<usize>(), 0..20),
        use_query in any::<bool>(),
    ) {
        let mut world = World::new();
        let mut model = Model::new();
        for (i, &mask) in masks.iter().enumerate() {
            spawn(&mut world, &mut model, mask | 1, i as u32);
        }
        let mut changed = world.query_state_filtered::<Entity, Changed<A>>();
        let mut added = world.query_state_filtered::<Entity, Added<A>>();
        prop_assert_eq!(changed.iter(&world).count(), model.len());
        prop_assert_eq!(added.iter(&world).count(), model.len());
        let mut written = BTreeSet::new();
        let mut writer = world.query_state::<&mut A>();
        for &w in &writes {
            let e = pick(&model, w).unwrap();
            if use_query {
                writer.get_mut(&mut world, e).unwrap().0 += 1;
            } else {
                world.get_mut::<A>(e).unwrap().0 += 1;
            }
            written.insert(e);
        }
        prop_assert_eq!(changed.iter(&world).collect::<BTreeSet<_>>(), written);
        prop_assert_eq!(added.iter(&world).count(), 0);
        prop_assert_eq!(changed.iter(&world).count(), 0);
    }
}
