//! Every way of running a dynamic query visits the same rows with the same
//! values as its typed twin: `DynamicQuery::for_each` and `for_each_mut` on the
//! world, row and archetype visits from a `DynamicSystem` in a schedule, and
//! archetype visits (sequential and parallel) on the world, for queries without
//! per-row terms.
//!
//! Random worlds (table and sparse components with schemas, a tag, inserts,
//! removes and despawns, so rows move and sparse columns have empty rows) are
//! checked for a menu of query shapes (read, write, optional; `with`/`without`
//! on table, sparse and tag components; `changed`), each mode with its own
//! query, first when every row is new, then after a random set of typed writes,
//! when a `changed` query sees exactly those. A system's row visit then writes
//! every row it is handed, and the world must show the writes on exactly the
//! typed twin's rows.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use ecs_core::ComponentId;
use ecs_core::prelude::*;
use ecs_core::query::DynamicQuery;
use ecs_core::system::{DynamicSystem, DynamicSystemQuery, Schedule};
use proptest::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(describe)]
struct A {
    v: u32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(describe)]
struct B {
    v: u32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(describe, storage = "sparse")]
struct S {
    v: u32,
}

/// A tag: stored per row.
#[derive(Component, Debug)]
struct T;

#[derive(Clone, Debug)]
enum Op {
    Spawn { a: bool, b: bool, s: bool, t: bool, v: u32 },
    Insert { at: usize, which: u8, v: u32 },
    Remove { at: usize, which: u8 },
    Despawn { at: usize },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), 0..1000u32)
            .prop_map(|(a, b, s, t, v)| Op::Spawn { a, b, s, t, v }),
        2 => (any::<usize>(), 0..4u8, 0..1000u32).prop_map(|(at, which, v)| Op::Insert { at, which, v }),
        2 => (any::<usize>(), 0..4u8).prop_map(|(at, which)| Op::Remove { at, which }),
        1 => any::<usize>().prop_map(|at| Op::Despawn { at }),
    ]
}

fn build(ops: &[Op]) -> (World, Vec<Entity>) {
    let mut world = World::new();
    let mut alive: Vec<Entity> = Vec::new();
    for op in ops {
        match *op {
            Op::Spawn { a, b, s, t, v } => {
                let mut e = world.spawn_empty();
                if a {
                    e.insert(A { v });
                }
                if b {
                    e.insert(B { v: v + 1 });
                }
                if s {
                    e.insert(S { v: v + 2 });
                }
                if t {
                    e.insert(T);
                }
                alive.push(e.id());
            }
            Op::Insert { at, which, v } if !alive.is_empty() => {
                let e = alive[at % alive.len()];
                let mut e = world.entity_mut(e).unwrap();
                match which {
                    0 => e.insert(A { v }),
                    1 => e.insert(B { v }),
                    2 => e.insert(S { v }),
                    _ => e.insert(T),
                };
            }
            Op::Remove { at, which } if !alive.is_empty() => {
                let e = alive[at % alive.len()];
                let mut e = world.entity_mut(e).unwrap();
                match which {
                    0 => e.remove::<A>(),
                    1 => e.remove::<B>(),
                    2 => e.remove::<S>(),
                    _ => e.remove::<T>(),
                };
            }
            Op::Despawn { at } if !alive.is_empty() => {
                let e = alive.swap_remove(at % alive.len());
                world.despawn(e).unwrap();
            }
            _ => {}
        }
    }
    (world, alive)
}

struct Ids {
    a: ComponentId,
    b: ComponentId,
    s: ComponentId,
    t: ComponentId,
}

/// What a visit saw: entity → (`A.v`, `B.v`, `S.v`) where fetched and present.
type Rows = BTreeMap<Entity, (Option<u32>, Option<u32>, Option<u32>)>;

/// A query shape: the dynamic query, which of `A`, `B`, `S` it fetches, whether
/// some term is decided row by row (no archetype visits then), and the rows
/// its typed twin yields.
struct Shape {
    name: &'static str,
    make: fn(&Ids, &World) -> DynamicQuery,
    fetch: Fetch,
    per_row: bool,
    typed: fn(&mut World) -> Rows,
}

#[derive(Clone, Copy)]
struct Fetch {
    a: bool,
    b: bool,
    s: bool,
}

fn shapes() -> Vec<Shape> {
    vec![
        Shape {
            name: "read A",
            make: |i, w| w.dynamic_query().read(i.a).build(w).unwrap(),
            fetch: Fetch { a: true, b: false, s: false },
            per_row: false,
            typed: |w| w.query::<(Entity, &A)>().iter().map(|(e, a)| (e, (Some(a.v), None, None))).collect(),
        },
        Shape {
            name: "write A, read B",
            make: |i, w| w.dynamic_query().write(i.a).read(i.b).build(w).unwrap(),
            fetch: Fetch { a: true, b: true, s: false },
            per_row: false,
            typed: |w| {
                w.query::<(Entity, &A, &B)>().iter().map(|(e, a, b)| (e, (Some(a.v), Some(b.v), None))).collect()
            },
        },
        Shape {
            name: "read A, optional B, without S",
            make: |i, w| w.dynamic_query().read(i.a).optional(i.b).without(i.s).build(w).unwrap(),
            fetch: Fetch { a: true, b: true, s: false },
            per_row: true,
            typed: |w| {
                let q = w.query_filtered::<(Entity, &A, Option<&B>), Without<S>>();
                q.iter().map(|(e, a, b)| (e, (Some(a.v), b.map(|b| b.v), None))).collect()
            },
        },
        Shape {
            name: "read S, with T",
            make: |i, w| w.dynamic_query().read(i.s).with(i.t).build(w).unwrap(),
            fetch: Fetch { a: false, b: false, s: true },
            per_row: true,
            typed: |w| {
                w.query_filtered::<(Entity, &S), With<T>>().iter().map(|(e, s)| (e, (None, None, Some(s.v)))).collect()
            },
        },
        Shape {
            name: "write A, with S, without T",
            make: |i, w| w.dynamic_query().write(i.a).with(i.s).without(i.t).build(w).unwrap(),
            fetch: Fetch { a: true, b: false, s: false },
            per_row: true,
            typed: |w| {
                let q = w.query_filtered::<(Entity, &A), (With<S>, Without<T>)>();
                q.iter().map(|(e, a)| (e, (Some(a.v), None, None))).collect()
            },
        },
        Shape {
            name: "read A, with B",
            make: |i, w| w.dynamic_query().read(i.a).with(i.b).build(w).unwrap(),
            fetch: Fetch { a: true, b: false, s: false },
            per_row: false,
            typed: |w| {
                w.query_filtered::<(Entity, &A), With<B>>().iter().map(|(e, a)| (e, (Some(a.v), None, None))).collect()
            },
        },
    ]
}

fn field(view: Option<ecs_core::world::ComponentRef<'_>>) -> Option<u32> {
    view.map(|v| v.get::<u32>("v").unwrap())
}

/// One mode of visiting, with its own query (and, for a system's visits, its
/// own schedule, so that a second visit is the same system's second run).
struct Visitor {
    mode: usize,
    query: DynamicQuery,
    fetch: Fetch,
    per_row: bool,
    system: Option<(Schedule, Arc<Mutex<Rows>>)>,
}

impl Visitor {
    fn new(mode: usize, ids: &Ids, query: DynamicQuery, fetch: Fetch, per_row: bool) -> Self {
        let system = (mode == 2 || mode == 3).then(|| {
            let (a, b, s) = (ids.a, ids.b, ids.s);
            let out = Arc::new(Mutex::new(Rows::new()));
            let sink = out.clone();
            let system = DynamicSystem::new("visit", query.clone(), move |q: &mut DynamicSystemQuery| {
                let mut sink = sink.lock().unwrap();
                let mut take = |e, got: &dyn Fn(ComponentId, bool) -> Option<u32>| {
                    sink.insert(e, (got(a, fetch.a), got(b, fetch.b), got(s, fetch.s)));
                };
                if mode == 2 {
                    q.for_each(|row| take(row.entity(), &|id, f| if f { field(row.get(id)) } else { None }));
                } else {
                    q.for_each_mut(|row| take(row.entity(), &|id, f| if f { field(row.get(id)) } else { None }));
                }
            });
            let mut schedule = Schedule::new();
            schedule.add_systems(system);
            (schedule, out)
        });
        Self { mode, query, fetch, per_row, system }
    }

    /// The rows of one visit; `None` where the mode does not apply (archetype
    /// visits of a query decided row by row).
    fn visit(&mut self, ids: &Ids, world: &mut World) -> Option<Rows> {
        let (a, b, s) = (ids.a, ids.b, ids.s);
        let fetch = self.fetch;
        let query = &self.query;
        let mut rows = Rows::new();
        match self.mode {
            0 => query.for_each(world, |row| {
                let got = |id, f: bool| if f { field(row.get(id)) } else { None };
                rows.insert(row.entity(), (got(a, fetch.a), got(b, fetch.b), got(s, fetch.s)));
            }),
            1 => query.for_each_mut(world, |row| {
                let got = |id, f: bool| if f { field(row.get(id)) } else { None };
                rows.insert(row.entity(), (got(a, fetch.a), got(b, fetch.b), got(s, fetch.s)));
            }),
            2 | 3 => {
                let (schedule, out) = self.system.as_mut().unwrap();
                schedule.run(world);
                rows = std::mem::take(&mut *out.lock().unwrap());
            }
            4 => {
                if self.per_row {
                    return None;
                }
                query.for_each_archetype(world, |arch| {
                    for (row, &e) in arch.entities().iter().enumerate() {
                        let got = |id, f: bool| if f { field(arch.get(id, row)) } else { None };
                        rows.insert(e, (got(a, fetch.a), got(b, fetch.b), got(s, fetch.s)));
                    }
                });
            }
            5 => {
                if self.per_row {
                    return None;
                }
                let out = Mutex::new(Rows::new());
                query.par_for_each_archetype(world, |arch| {
                    for (row, &e) in arch.entities().iter().enumerate() {
                        let got = |id, f: bool| if f { field(arch.get(id, row)) } else { None };
                        out.lock().unwrap().insert(e, (got(a, fetch.a), got(b, fetch.b), got(s, fetch.s)));
                    }
                });
                rows = out.into_inner().unwrap();
            }
            _ => unreachable!(),
        }
        Some(rows)
    }
}

const MODES: usize = 6;

const A_ONLY: Fetch = Fetch { a: true, b: false, s: false };

fn ids(world: &mut World) -> Ids {
    Ids {
        a: world.register_component::<A>(),
        b: world.register_component::<B>(),
        s: world.register_component::<S>(),
        t: world.register_component::<T>(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_mode_visits_the_typed_twins_rows(ops in prop::collection::vec(op(), 1..60)) {
        let (mut world, _) = build(&ops);
        let ids = ids(&mut world);
        for shape in shapes() {
            let expected = (shape.typed)(&mut world);
            for mode in 0..MODES {
                let query = (shape.make)(&ids, &world);
                let mut visitor = Visitor::new(mode, &ids, query, shape.fetch, shape.per_row);
                if let Some(rows) = visitor.visit(&ids, &mut world) {
                    prop_assert_eq!(&rows, &expected, "{} in mode {}", shape.name, mode);
                }
            }
        }
    }

    #[test]
    fn changed_terms_see_the_same_writes_in_every_mode(
        ops in prop::collection::vec(op(), 1..60),
        picks in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let (mut world, _) = build(&ops);
        let ids = ids(&mut world);
        // One query per mode: the first visit sees every row with `A`.
        let mut visitors: Vec<Visitor> = (0..MODES)
            .map(|mode| {
                let query = world.dynamic_query().read(ids.a).changed(ids.a).build(&world).unwrap();
                Visitor::new(mode, &ids, query, A_ONLY, true)
            })
            .collect();
        let all: Rows = world.query::<(Entity, &A)>().iter().map(|(e, a)| (e, (Some(a.v), None, None))).collect();
        for (mode, visitor) in visitors.iter_mut().enumerate() {
            if let Some(rows) = visitor.visit(&ids, &mut world) {
                prop_assert_eq!(&rows, &all, "first visit, mode {}", mode);
            }
        }
        let with_a: Vec<Entity> = all.keys().copied().collect();
        let mut written = Rows::new();
        for pick in picks.iter().filter(|_| !with_a.is_empty()) {
            let e = with_a[pick % with_a.len()];
            let mut a = world.get_mut::<A>(e).unwrap();
            a.v += 1;
            written.insert(e, (Some(a.v), None, None));
        }
        for (mode, visitor) in visitors.iter_mut().enumerate() {
            if let Some(rows) = visitor.visit(&ids, &mut world) {
                prop_assert_eq!(&rows, &written, "after writes, mode {}", mode);
            }
        }
    }

    #[test]
    fn a_systems_row_writes_land_on_the_typed_twins_rows(ops in prop::collection::vec(op(), 1..60)) {
        let (mut world, _) = build(&ops);
        let ids = ids(&mut world);
        let before: BTreeMap<Entity, u32> = world.query::<(Entity, &A)>().iter().map(|(e, a)| (e, a.v)).collect();
        let twin: Vec<Entity> =
            world.query_filtered::<Entity, (With<A>, With<S>, Without<T>)>().iter().collect();
        let query = world.dynamic_query().write(ids.a).with(ids.s).without(ids.t).build(&world).unwrap();
        let a = ids.a;
        let mut schedule = Schedule::new();
        schedule.add_systems(DynamicSystem::new("bump", query, move |q: &mut DynamicSystemQuery| {
            q.for_each_mut(|mut row| {
                let mut view = row.get_mut(a).unwrap();
                let v = view.get::<u32>("v").unwrap();
                view.set("v", v + 100).unwrap();
            })
        }));
        let mut changed = world.query_state_filtered::<Entity, Changed<A>>();
        changed.iter(&world).for_each(drop);
        schedule.run(&mut world);
        for (e, v) in &before {
            let now = world.get::<A>(*e).unwrap().v;
            prop_assert_eq!(now, if twin.contains(e) { v + 100 } else { *v });
        }
        let mut seen: Vec<Entity> = changed.iter(&world).collect();
        seen.sort();
        let mut twin = twin;
        twin.sort();
        prop_assert_eq!(seen, twin, "writes through the row views are stamped changed");
    }
}
