//! Every way of running a query visits the same rows with the same values: a `for`
//! loop, `for_each`, `next` then `for_each`, `for_each_chunk`, `par_for_each`,
//! `get_mut` for every entity, `query_mut_filtered`, and for read-only queries
//! `QueryState::iter`/`get` and `World::query_filtered`'s `iter`/`get`.
//!
//! Random worlds (table, sparse, tag, zero-sized-with-`Drop`, over-aligned and
//! heap-owning components, with inserts, removes and despawns, so rows move and
//! sparse columns have empty rows) are checked against a naive model, for a menu of
//! query shapes (tuples of `&T`, `&mut T`, `Option<&T>`, `Option<&mut T>`, `AnyOf` and
//! `Entity`, and derived queries, one nesting another) under `With`, `Without` and
//! `Or` filters on table components, sparse components and tags, and under
//! `Changed` and `Added`: each mode with a new query state, whose first run sees
//! every row, and whose second sees only the rows written or given the component
//! since.
//!
//! Chunks are also checked before they are read: every slice as long as the entity
//! slice, and an `Option` slot `Some` exactly when every row of the chunk has the
//! component and `None` exactly when none has. Mutable modes write through what
//! they are handed; the model follows, and the world must agree with it at the end.
//! Every `Z` (zero-sized, with `Drop`) made is dropped exactly once.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Mutex;

use ecs_core::prelude::*;
use ecs_core::query::{AnyOf, QueryData, QueryFilter, ReadOnlyQueryData};
use proptest::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct A(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct B(u64);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "sparse")]
struct S(u32);

/// Zero-sized without drop glue: a tag, stored per row.
#[derive(Component, Debug)]
struct T;

/// Zero-sized with drop glue: a table column. Counted, so that every one made is
/// dropped exactly once.
#[derive(Component, Debug)]
struct Z;

thread_local! {
    /// `Z`s made minus `Z`s dropped on this thread.
    static Z_LIVE: Cell<i64> = const { Cell::new(0) };
}

fn new_z() -> Z {
    Z_LIVE.with(|n| n.set(n.get() + 1));
    Z
}

fn z_live() -> i64 {
    Z_LIVE.with(Cell::get)
}

impl Drop for Z {
    fn drop(&mut self) {
        Z_LIVE.with(|n| n.set(n.get() - 1));
    }
}

/// Over-aligned: its column's rows are 64 bytes apart and must stay 64-aligned.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[repr(align(64))]
struct Big(u32);

#[derive(Component, Clone, Debug, PartialEq)]
struct Named(String);

#[derive(Component, Clone, Debug, PartialEq)]
#[component(storage = "sparse")]
struct SD(String);

/// A derived query that writes (`a` and `sd` are bumped by every mutable mode).
#[derive(QueryData)]
struct Bumped<'w> {
    entity: Entity,
    a: &'w mut A,
    s: Option<&'w S>,
    sd: Option<&'w mut SD>,
}

#[derive(QueryData)]
struct Inner<'w> {
    entity: Entity,
    s: Option<&'w S>,
    sd: Option<&'w SD>,
}

/// A derived query nesting another.
#[derive(QueryData)]
struct Outer<'w> {
    inner: Inner<'w>,
    b: &'w B,
    tag: Option<&'w T>,
    z: Option<&'w Z>,
    big: Option<&'w Big>,
}

/// What the model knows of an entity; also what a query shows of it, with the
/// fields it does not fetch left at their default.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Row {
    a: Option<u32>,
    b: Option<u64>,
    s: Option<u32>,
    t: bool,
    z: bool,
    big: Option<u32>,
    named: Option<String>,
    sd: Option<String>,
    /// `A` written since the change-detecting queries last ran (never shown).
    changed_a: bool,
    /// `S` added since the change-detecting queries last ran (never shown).
    added_s: bool,
}

impl fmt::Debug for Row {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        let mut part = |name: &str, value: Option<String>| {
            if let Some(value) = value {
                parts.push(format!("{name}({value})"));
            }
        };
        part("A", self.a.map(|v| v.to_string()));
        part("B", self.b.map(|v| v.to_string()));
        part("S", self.s.map(|v| v.to_string()));
        part("Big", self.big.map(|v| v.to_string()));
        part("Named", self.named.clone());
        part("SD", self.sd.clone());
        if self.t {
            parts.push("T".into());
        }
        if self.z {
            parts.push("Z".into());
        }
        write!(f, "[{}]", parts.join(" "))
    }
}

type Model = BTreeMap<Entity, Row>;

/// A mode's visits, sorted: the entity and what the item showed of it.
type Seen = Vec<(Entity, Row)>;

const KINDS: usize = 8;

/// Inserts component `kind` (A, B, S, T, Z, Big, Named, SD) into `e`, in world and model.
fn insert(world: &mut World, e: Entity, row: &mut Row, kind: usize, v: u32) {
    match kind {
        0 => {
            world.insert(e, A(v)).unwrap();
            row.a = Some(v);
        }
        1 => {
            let b = u64::from(v) * 1_000_003;
            world.insert(e, B(b)).unwrap();
            row.b = Some(b);
        }
        2 => {
            world.insert(e, S(v)).unwrap();
            row.s = Some(v);
        }
        3 => {
            world.insert(e, T).unwrap();
            row.t = true;
        }
        4 => {
            world.insert(e, new_z()).unwrap();
            row.z = true;
        }
        5 => {
            world.insert(e, Big(v)).unwrap();
            row.big = Some(v);
        }
        6 => {
            world.insert(e, Named(format!("n{v}"))).unwrap();
            row.named = Some(format!("n{v}"));
        }
        _ => {
            world.insert(e, SD(format!("sd{v}"))).unwrap();
            row.sd = Some(format!("sd{v}"));
        }
    }
}

/// Removes component `kind` from `e`, checking the value the world hands back.
fn remove(world: &mut World, e: Entity, row: &mut Row, kind: usize) {
    match kind {
        0 => assert_eq!(world.remove::<A>(e).ok().map(|x| x.0), row.a.take()),
        1 => assert_eq!(world.remove::<B>(e).ok().map(|x| x.0), row.b.take()),
        2 => assert_eq!(world.remove::<S>(e).ok().map(|x| x.0), row.s.take()),
        3 => assert_eq!(world.remove::<T>(e).is_ok(), std::mem::take(&mut row.t)),
        4 => assert_eq!(world.remove::<Z>(e).is_ok(), std::mem::take(&mut row.z)),
        5 => assert_eq!(world.remove::<Big>(e).ok().map(|x| x.0), row.big.take()),
        6 => assert_eq!(world.remove::<Named>(e).ok().map(|x| x.0), row.named.take()),
        _ => assert_eq!(world.remove::<SD>(e).ok().map(|x| x.0), row.sd.take()),
    }
}

#[derive(Clone, Debug)]
enum Step {
    /// Spawns an empty entity and inserts the components of the mask one by one.
    Spawn(u8, u32),
    Despawn(usize),
    Insert(usize, usize, u32),
    Remove(usize, usize),
}

/// At most this many entities are alive: one case must stay fast under valgrind.
const MAX_ENTITIES: usize = 60;

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (any::<u8>(), 0u32..1000).prop_map(|(mask, v)| Step::Spawn(mask, v)),
        1 => any::<usize>().prop_map(Step::Despawn),
        3 => (any::<usize>(), 0..KINDS, 0u32..1000).prop_map(|(i, kind, v)| Step::Insert(i, kind, v)),
        2 => (any::<usize>(), 0..KINDS).prop_map(|(i, kind)| Step::Remove(i, kind)),
    ]
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    proptest::collection::vec(step(), 1..100)
}

fn pick(model: &Model, i: usize) -> Option<Entity> {
    (!model.is_empty()).then(|| *model.keys().nth(i % model.len()).unwrap())
}

/// The world the steps make, its model, and the entities despawned on the way.
fn build(steps: &[Step]) -> (World, Model, Vec<Entity>) {
    let mut world = World::new();
    let mut model = Model::new();
    let mut dead = Vec::new();
    for step in steps {
        match *step {
            Step::Spawn(mask, v) if model.len() < MAX_ENTITIES => {
                let e = world.spawn(());
                let mut row = Row::default();
                for kind in (0..KINDS).filter(|k| mask & (1 << k) != 0) {
                    insert(&mut world, e, &mut row, kind, v + kind as u32);
                }
                model.insert(e, row);
            }
            Step::Spawn(..) => {}
            Step::Despawn(i) => {
                if let Some(e) = pick(&model, i) {
                    world.despawn(e).unwrap();
                    model.remove(&e);
                    dead.push(e);
                }
            }
            Step::Insert(i, kind, v) => {
                if let Some(e) = pick(&model, i) {
                    insert(&mut world, e, model.get_mut(&e).unwrap(), kind, v);
                }
            }
            Step::Remove(i, kind) => {
                if let Some(e) = pick(&model, i) {
                    remove(&mut world, e, model.get_mut(&e).unwrap(), kind);
                }
            }
        }
    }
    (world, model, dead)
}

/// Changes made after change-detecting queries first ran.
#[derive(Clone, Debug)]
enum Touch {
    /// Writes `A` through `World::get_mut`, where the entity has one.
    WriteA(usize),
    /// Inserts `S`: an add where the entity had none, a change where it had one.
    InsertS(usize, u32),
    RemoveS(usize),
}

fn touches() -> impl Strategy<Value = Vec<Touch>> {
    let touch = prop_oneof![
        any::<usize>().prop_map(Touch::WriteA),
        (any::<usize>(), 0u32..1000).prop_map(|(i, v)| Touch::InsertS(i, v)),
        any::<usize>().prop_map(Touch::RemoveS),
    ];
    proptest::collection::vec(touch, 0..16)
}

fn touch(world: &mut World, model: &mut Model, touches: &[Touch]) {
    for touch in touches {
        let (Touch::WriteA(i) | Touch::InsertS(i, _) | Touch::RemoveS(i)) = *touch;
        let Some(e) = pick(model, i) else { return };
        let row = model.get_mut(&e).unwrap();
        match *touch {
            Touch::WriteA(_) => match (world.get_mut::<A>(e), row.a.as_mut()) {
                (Some(mut a), Some(model_a)) => {
                    a.0 += 7;
                    *model_a += 7;
                    row.changed_a = true;
                }
                (None, None) => {}
                (a, model_a) => panic!("{e:?}: world has {a:?}, model {model_a:?}"),
            },
            Touch::InsertS(_, v) => {
                row.added_s |= row.s.is_none();
                insert(world, e, row, 2, v);
            }
            Touch::RemoveS(_) => {
                remove(world, e, row, 2);
                row.added_s = false;
            }
        }
    }
}

/// The filters under test, as predicates on a model row.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Filter {
    None,
    WithB,
    WithoutB,
    WithS,
    WithoutT,
    BOrT,
    ChangedA,
    AddedS,
}

impl Filter {
    /// The filters on which components an entity has (the others are on ticks).
    const ON_PRESENCE: [Filter; 6] =
        [Filter::None, Filter::WithB, Filter::WithoutB, Filter::WithS, Filter::WithoutT, Filter::BOrT];

    /// Whether the filter passes `row`; `fresh` when the query runs for the first
    /// time (it then sees every row as added and changed).
    fn holds(self, row: &Row, fresh: bool) -> bool {
        match self {
            Filter::None => true,
            Filter::WithB => row.b.is_some(),
            Filter::WithoutB => row.b.is_none(),
            Filter::WithS => row.s.is_some(),
            Filter::WithoutT => !row.t,
            Filter::BOrT => row.b.is_some() || row.t,
            Filter::ChangedA => row.a.is_some() && (fresh || row.changed_a),
            Filter::AddedS => row.s.is_some() && (fresh || row.added_s),
        }
    }
}

/// The ways of running a query.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    /// `for item in state.iter_mut(world)`.
    ForLoop,
    /// `state.iter_mut(world).for_each(..)`.
    ForEach,
    /// A few items by `next`, the rest by `for_each`.
    NextThenForEach,
    /// `state.for_each_chunk`.
    Chunks,
    /// `state.par_for_each`.
    Parallel,
    /// `state.get_mut` for every entity.
    GetMut,
    /// `world.query_mut_filtered` (a fresh query each time).
    QueryMut,
    /// `state.iter(&world)` (read-only queries).
    StateIter,
    /// `state.get(&world, e)` for every entity (read-only queries).
    StateGet,
    /// `world.query_filtered().iter()` (read-only queries; a fresh query each time).
    BorrowIter,
    /// `world.query_filtered().get(e)` for every entity (read-only queries).
    BorrowGet,
}

impl Mode {
    const ALL: [Mode; 11] = [
        Mode::ForLoop,
        Mode::ForEach,
        Mode::NextThenForEach,
        Mode::Chunks,
        Mode::Parallel,
        Mode::GetMut,
        Mode::QueryMut,
        Mode::StateIter,
        Mode::StateGet,
        Mode::BorrowIter,
        Mode::BorrowGet,
    ];

    /// Hands out mutable items (which the shapes that write write through).
    fn is_mutable(self) -> bool {
        !matches!(self, Mode::StateIter | Mode::StateGet | Mode::BorrowIter | Mode::BorrowGet)
    }

    /// Makes its own query each time, so it always runs for the first time.
    fn is_fresh_each_time(self) -> bool {
        matches!(self, Mode::QueryMut | Mode::BorrowIter | Mode::BorrowGet)
    }
}

/// A query shape under test and how to read its items and chunks.
trait Shape {
    type Q: QueryData;
    /// Whether a model row has everything the query requires.
    fn matches(row: &Row) -> bool;
    /// What an item of the query shows of a row.
    fn project(row: &Row) -> Row;
    /// What the item shows (before any write), then writes through its `&mut`s.
    fn see(item: <Self::Q as QueryData>::Item<'_>) -> (Entity, Row);
    /// Checks a chunk against the model before reading it, then sees each row
    /// as [`see`](Self::see) does, writes included. A chunk that fails the checks
    /// is not read.
    fn see_chunk(chunk: <Self::Q as QueryData>::Slice<'_>, model: &Model, seen: &mut Seen) -> Result<(), String>;
    /// The model's side of `see`'s writes.
    fn write(_row: &mut Row) {}
    /// Runs a read-only mode; `None` for queries that are not read-only.
    fn read_only<F: QueryFilter>(
        _mode: Mode,
        _state: &mut QueryState<Self::Q, F>,
        _world: &World,
        _model: &Model,
        _dead: &[Entity],
    ) -> Option<Result<Seen, String>> {
        None
    }
}

/// [`Shape::read_only`] for a read-only shape.
macro_rules! read_only_modes {
    () => {
        fn read_only<F: QueryFilter>(
            mode: Mode,
            state: &mut QueryState<Self::Q, F>,
            world: &World,
            model: &Model,
            dead: &[Entity],
        ) -> Option<Result<Seen, String>> {
            Some(read_only_mode::<Self, F>(mode, state, world, model, dead))
        }
    };
}

fn read_only_mode<Sh: Shape, F: QueryFilter>(
    mode: Mode,
    state: &mut QueryState<Sh::Q, F>,
    world: &World,
    model: &Model,
    dead: &[Entity],
) -> Result<Seen, String>
where
    Sh::Q: ReadOnlyQueryData,
{
    match mode {
        Mode::StateIter => Ok(state.iter(world).map(Sh::see).collect()),
        Mode::StateGet => get_each(model, dead, |e| state.get(world, e).map(Sh::see)),
        Mode::BorrowIter => Ok(world.query_filtered::<Sh::Q, F>().iter().map(Sh::see).collect()),
        Mode::BorrowGet => {
            let borrow = world.query_filtered::<Sh::Q, F>();
            get_each(model, dead, |e| borrow.get(e).map(Sh::see))
        }
        _ => unreachable!("{mode:?} is not a read-only mode"),
    }
}

/// Gets every entity of the model, and every despawned one: `Ok` for some,
/// `QueryMismatch` naming the entity for the others, `NoSuchEntity` for the dead.
fn get_each(
    model: &Model,
    dead: &[Entity],
    mut get: impl FnMut(Entity) -> Result<(Entity, Row), EcsError>,
) -> Result<Seen, String> {
    let mut seen = Vec::new();
    for &e in model.keys() {
        match get(e) {
            Ok(item) if item.0 == e => seen.push(item),
            Err(EcsError::QueryMismatch { entity, .. }) if entity == e => {}
            other => return Err(format!("`get({e:?})` of a live entity gives {other:?}")),
        }
    }
    for &e in dead {
        match get(e) {
            Err(EcsError::NoSuchEntity(entity)) if entity == e => {}
            other => return Err(format!("`get({e:?})` of a despawned entity gives {other:?}")),
        }
    }
    Ok(seen)
}

/// Runs `mode` once: the rows it visits, sorted, or what went wrong; `None` when
/// the mode does not apply to the shape.
fn run<Sh: Shape, F: QueryFilter>(
    mode: Mode,
    state: &mut QueryState<Sh::Q, F>,
    world: &mut World,
    model: &Model,
    dead: &[Entity],
    take: usize,
) -> Option<Result<Seen, String>> {
    let mut seen = Vec::new();
    match mode {
        Mode::ForLoop => {
            for item in state.iter_mut(world) {
                seen.push(Sh::see(item));
            }
        }
        Mode::ForEach => state.iter_mut(world).for_each(|item| seen.push(Sh::see(item))),
        Mode::NextThenForEach => {
            let mut iter = state.iter_mut(world);
            for item in iter.by_ref().take(take) {
                seen.push(Sh::see(item));
            }
            iter.for_each(|item| seen.push(Sh::see(item)));
        }
        Mode::Chunks => {
            let mut failure = Ok(());
            state.for_each_chunk(world, |chunk| {
                if failure.is_ok() {
                    failure = Sh::see_chunk(chunk, model, &mut seen);
                }
            });
            if let Err(failure) = failure {
                return Some(Err(failure));
            }
        }
        Mode::Parallel => {
            let shared = Mutex::new(Vec::new());
            state.par_for_each(world, |item| {
                let row = Sh::see(item);
                shared.lock().unwrap().push(row);
            });
            seen = shared.into_inner().unwrap();
        }
        Mode::GetMut => match get_each(model, dead, |e| state.get_mut(world, e).map(Sh::see)) {
            Ok(got) => seen = got,
            failure => return Some(failure),
        },
        Mode::QueryMut => {
            for item in world.query_mut_filtered::<Sh::Q, F>() {
                seen.push(Sh::see(item));
            }
        }
        Mode::StateIter | Mode::StateGet | Mode::BorrowIter | Mode::BorrowGet => {
            match Sh::read_only(mode, state, world, model, dead)? {
                Ok(got) => seen = got,
                failure => return Some(failure),
            }
        }
    }
    seen.sort();
    Some(Ok(seen))
}

/// The rows the shape under the filter should visit, sorted.
fn expected_rows<Sh: Shape>(model: &Model, filter: Filter, fresh: bool) -> Seen {
    model.iter().filter(|(_, r)| Sh::matches(r) && filter.holds(r, fresh)).map(|(&e, r)| (e, Sh::project(r))).collect()
}

/// Compares a mode's visits with the model's, naming the query and what differs.
fn compare<Sh: Shape>(
    seen: Result<Seen, String>,
    expected: &Seen,
    filter: Filter,
    mode: Mode,
    when: &str,
) -> Result<(), TestCaseError> {
    let query = std::any::type_name::<Sh::Q>();
    let seen = seen.map_err(|failure| {
        TestCaseError::fail(format!("`{query}` filtered by {filter:?}, run by {mode:?}{when}: {failure}"))
    })?;
    if seen == *expected {
        return Ok(());
    }
    let missing: Vec<_> = expected.iter().filter(|x| !seen.contains(x)).collect();
    let unexpected: Vec<_> = seen.iter().filter(|x| !expected.contains(x)).collect();
    Err(TestCaseError::fail(format!(
        "`{query}` filtered by {filter:?}, run by {mode:?}{when}: {} rows seen, {} expected; \
         missing {missing:?}; unexpected {unexpected:?}",
        seen.len(),
        expected.len(),
    )))
}

/// After a mutable mode, the model takes the writes the shape made.
fn write_model<Sh: Shape>(model: &mut Model, visited: &Seen) {
    for (e, _) in visited {
        Sh::write(model.get_mut(e).unwrap());
    }
}

/// Every mode, one after the other, on one world and one query state.
fn on_one_world<Sh: Shape, F: QueryFilter>(
    filter: Filter,
    world: &mut World,
    model: &mut Model,
    dead: &[Entity],
    take: usize,
) -> Result<(), TestCaseError> {
    let mut state = world.query_state_filtered::<Sh::Q, F>();
    for mode in Mode::ALL {
        let expected = expected_rows::<Sh>(model, filter, true);
        let Some(seen) = run::<Sh, F>(mode, &mut state, world, model, dead, take) else { continue };
        compare::<Sh>(seen, &expected, filter, mode, "")?;
        if mode.is_mutable() {
            write_model::<Sh>(model, &expected);
        }
    }
    Ok(())
}

/// [`on_one_world`] for a filter on which components an entity has.
fn by_presence<Sh: Shape>(
    filter: Filter,
    world: &mut World,
    model: &mut Model,
    dead: &[Entity],
    take: usize,
) -> Result<(), TestCaseError> {
    match filter {
        Filter::None => on_one_world::<Sh, ()>(filter, world, model, dead, take),
        Filter::WithB => on_one_world::<Sh, With<B>>(filter, world, model, dead, take),
        Filter::WithoutB => on_one_world::<Sh, Without<B>>(filter, world, model, dead, take),
        Filter::WithS => on_one_world::<Sh, With<S>>(filter, world, model, dead, take),
        Filter::WithoutT => on_one_world::<Sh, Without<T>>(filter, world, model, dead, take),
        Filter::BOrT => on_one_world::<Sh, Or<(With<B>, With<T>)>>(filter, world, model, dead, take),
        Filter::ChangedA | Filter::AddedS => unreachable!("change filters need a new state per mode"),
    }
}

/// Each mode with a query state of its own, made after the previous modes ran (so
/// that their writes are no news to it): a first run, where every row is news, then
/// touches, then a second run, which sees only the rows touched since (modes that
/// make a new query each time see every row again).
fn each_with_a_new_state<Sh: Shape, F: QueryFilter>(
    filter: Filter,
    world: &mut World,
    model: &mut Model,
    dead: &[Entity],
    touches: &[Touch],
    take: usize,
) -> Result<(), TestCaseError> {
    for mode in Mode::ALL {
        let mut state = world.query_state_filtered::<Sh::Q, F>();
        let expected = expected_rows::<Sh>(model, filter, true);
        let Some(seen) = run::<Sh, F>(mode, &mut state, world, model, dead, take) else { continue };
        compare::<Sh>(seen, &expected, filter, mode, "")?;
        if mode.is_mutable() {
            write_model::<Sh>(model, &expected);
        }
        // `get` does not end a run; an iteration does (and its own writes are no
        // news to it).
        state.iter_mut(world).count();
        for row in model.values_mut() {
            (row.changed_a, row.added_s) = (false, false);
        }
        touch(world, model, touches);
        let expected = expected_rows::<Sh>(model, filter, mode.is_fresh_each_time());
        let seen = run::<Sh, F>(mode, &mut state, world, model, dead, take).unwrap();
        compare::<Sh>(seen, &expected, filter, mode, " again, after touches")?;
        if mode.is_mutable() {
            write_model::<Sh>(model, &expected);
        }
    }
    Ok(())
}

/// [`each_with_a_new_state`] for a change filter.
fn news<Sh: Shape>(
    filter: Filter,
    world: &mut World,
    model: &mut Model,
    dead: &[Entity],
    touches: &[Touch],
    take: usize,
) -> Result<(), TestCaseError> {
    match filter {
        Filter::ChangedA => each_with_a_new_state::<Sh, Changed<A>>(filter, world, model, dead, touches, take),
        Filter::AddedS => each_with_a_new_state::<Sh, Added<S>>(filter, world, model, dead, touches, take),
        _ => unreachable!("{filter:?} is not a change filter"),
    }
}

/// The world holds exactly what the model says.
fn world_matches(world: &World, model: &Model, dead: &[Entity]) -> Result<(), TestCaseError> {
    for (&e, row) in model {
        let got = Row {
            a: world.get::<A>(e).map(|x| x.0),
            b: world.get::<B>(e).map(|x| x.0),
            s: world.get::<S>(e).map(|x| x.0),
            t: world.has::<T>(e),
            z: world.has::<Z>(e),
            big: world.get::<Big>(e).map(|x| x.0),
            named: world.get::<Named>(e).map(|x| x.0.clone()),
            sd: world.get::<SD>(e).map(|x| x.0.clone()),
            ..row.clone()
        };
        prop_assert_eq!(&got, row, "{:?}", e);
    }
    for &e in dead {
        prop_assert!(!world.contains(e), "{:?} was despawned", e);
    }
    prop_assert_eq!(world.len(), model.len());
    world.check_invariants().map_err(TestCaseError::fail)?;
    Ok(())
}

/// The checks every chunk gets before any value is read: it is not empty, each
/// required slice (`lens`) is as long as the entity slice, and each entity is alive.
fn chunk_rows<'m>(model: &'m Model, entities: &[Entity], lens: &[usize]) -> Result<Vec<&'m Row>, String> {
    if entities.is_empty() {
        return Err("`for_each_chunk` hands out an empty chunk".into());
    }
    if let Some(len) = lens.iter().find(|&&len| len != entities.len()) {
        return Err(format!("a slice of {len} rows in the chunk of {entities:?}"));
    }
    entities
        .iter()
        .map(|e| model.get(e).ok_or_else(|| format!("a chunk hands out {e:?}, which is not alive")))
        .collect()
}

/// Checks an `Option<&[_]>` slot of a chunk (given as its length) before it is
/// read: `Some`, as long as the chunk, exactly when every row has the component;
/// `None` exactly when none has.
fn check_slot(
    rows: &[&Row],
    entities: &[Entity],
    slot: Option<usize>,
    name: &str,
    has: fn(&Row) -> bool,
) -> Result<(), String> {
    let with = rows.iter().filter(|r| has(r)).count();
    let fails = match slot {
        Some(len) => len != rows.len() || with != rows.len(),
        None => with != 0,
    };
    if fails {
        let slot = slot.map_or("None".to_string(), |len| format!("Some(&[{name}; {len}])"));
        return Err(format!(
            "a chunk of {} rows, {with} of them with {name}, has `{slot}`: {entities:?} are {rows:?}",
            rows.len()
        ));
    }
    Ok(())
}

fn has_a(row: &Row) -> bool {
    row.a.is_some()
}

fn has_s(row: &Row) -> bool {
    row.s.is_some()
}

fn has_t(row: &Row) -> bool {
    row.t
}

fn aligned(big: &Big) -> u32 {
    assert!(std::ptr::from_ref(big).is_aligned(), "a `Big` at {:p} is not 64-aligned", big);
    big.0
}

/// `(Entity, &A)`
struct EntityA;
impl Shape for EntityA {
    type Q = (Entity, &'static A);
    fn matches(row: &Row) -> bool {
        row.a.is_some()
    }
    fn project(row: &Row) -> Row {
        Row { a: row.a, ..Row::default() }
    }
    fn see((e, a): (Entity, &A)) -> (Entity, Row) {
        (e, Row { a: Some(a.0), ..Row::default() })
    }
    fn see_chunk((es, a): (&[Entity], &[A]), model: &Model, seen: &mut Seen) -> Result<(), String> {
        chunk_rows(model, es, &[a.len()])?;
        seen.extend(es.iter().zip(a).map(|(&e, a)| Self::see((e, a))));
        Ok(())
    }
    read_only_modes!();
}

/// `(Entity, &A, Option<&S>)`
struct AMaybeS;
impl Shape for AMaybeS {
    type Q = (Entity, &'static A, Option<&'static S>);
    fn matches(row: &Row) -> bool {
        row.a.is_some()
    }
    fn project(row: &Row) -> Row {
        Row { a: row.a, s: row.s, ..Row::default() }
    }
    fn see((e, a, s): (Entity, &A, Option<&S>)) -> (Entity, Row) {
        (e, Row { a: Some(a.0), s: s.map(|s| s.0), ..Row::default() })
    }
    fn see_chunk((es, a, s): (&[Entity], &[A], Option<&[S]>), model: &Model, seen: &mut Seen) -> Result<(), String> {
        let rows = chunk_rows(model, es, &[a.len()])?;
        check_slot(&rows, es, s.map(<[S]>::len), "S", has_s)?;
        for (i, &e) in es.iter().enumerate() {
            seen.push(Self::see((e, &a[i], s.map(|s| &s[i]))));
        }
        Ok(())
    }
    read_only_modes!();
}

/// `(Entity, &mut A, Option<&mut S>)`: adds one to both.
struct WriteAMaybeS;
impl Shape for WriteAMaybeS {
    type Q = (Entity, &'static mut A, Option<&'static mut S>);
    fn matches(row: &Row) -> bool {
        row.a.is_some()
    }
    fn project(row: &Row) -> Row {
        Row { a: row.a, s: row.s, ..Row::default() }
    }
    fn see((e, a, s): (Entity, &mut A, Option<&mut S>)) -> (Entity, Row) {
        let row = Row { a: Some(a.0), s: s.as_deref().map(|s| s.0), ..Row::default() };
        a.0 += 1;
        if let Some(s) = s {
            s.0 += 1;
        }
        (e, row)
    }
    fn see_chunk(
        (es, a, mut s): (&[Entity], &mut [A], Option<&mut [S]>),
        model: &Model,
        seen: &mut Seen,
    ) -> Result<(), String> {
        let rows = chunk_rows(model, es, &[a.len()])?;
        check_slot(&rows, es, s.as_deref().map(<[S]>::len), "S", has_s)?;
        for (i, &e) in es.iter().enumerate() {
            seen.push(Self::see((e, &mut a[i], s.as_deref_mut().map(|s| &mut s[i]))));
        }
        Ok(())
    }
    fn write(row: &mut Row) {
        *row.a.as_mut().unwrap() += 1;
        if let Some(s) = row.s.as_mut() {
            *s += 1;
        }
    }
}

/// `(Entity, AnyOf<(&A, &S)>)`: entities with an `A`, an `S` or both.
struct AnyAS;
impl Shape for AnyAS {
    type Q = (Entity, AnyOf<(&'static A, &'static S)>);
    fn matches(row: &Row) -> bool {
        row.a.is_some() || row.s.is_some()
    }
    fn project(row: &Row) -> Row {
        Row { a: row.a, s: row.s, ..Row::default() }
    }
    fn see((e, (a, s)): (Entity, (Option<&A>, Option<&S>))) -> (Entity, Row) {
        (e, Row { a: a.map(|a| a.0), s: s.map(|s| s.0), ..Row::default() })
    }
    fn see_chunk(
        (es, (a, s)): (&[Entity], (Option<&[A]>, Option<&[S]>)),
        model: &Model,
        seen: &mut Seen,
    ) -> Result<(), String> {
        let rows = chunk_rows(model, es, &[])?;
        check_slot(&rows, es, a.map(<[A]>::len), "A", has_a)?;
        check_slot(&rows, es, s.map(<[S]>::len), "S", has_s)?;
        for (i, &e) in es.iter().enumerate() {
            seen.push(Self::see((e, (a.map(|a| &a[i]), s.map(|s| &s[i])))));
        }
        Ok(())
    }
    read_only_modes!();
}

/// `(Entity, AnyOf<(&mut A, &mut S)>)`: adds one to each that is there.
struct WriteAnyAS;
impl Shape for WriteAnyAS {
    type Q = (Entity, AnyOf<(&'static mut A, &'static mut S)>);
    fn matches(row: &Row) -> bool {
        row.a.is_some() || row.s.is_some()
    }
    fn project(row: &Row) -> Row {
        Row { a: row.a, s: row.s, ..Row::default() }
    }
    fn see((e, (a, s)): (Entity, (Option<&mut A>, Option<&mut S>))) -> (Entity, Row) {
        let row = Row { a: a.as_deref().map(|a| a.0), s: s.as_deref().map(|s| s.0), ..Row::default() };
        if let Some(a) = a {
            a.0 += 1;
        }
        if let Some(s) = s {
            s.0 += 1;
        }
        (e, row)
    }
    fn see_chunk(
        (es, (mut a, mut s)): (&[Entity], (Option<&mut [A]>, Option<&mut [S]>)),
        model: &Model,
        seen: &mut Seen,
    ) -> Result<(), String> {
        let rows = chunk_rows(model, es, &[])?;
        check_slot(&rows, es, a.as_deref().map(<[A]>::len), "A", has_a)?;
        check_slot(&rows, es, s.as_deref().map(<[S]>::len), "S", has_s)?;
        for (i, &e) in es.iter().enumerate() {
            seen.push(Self::see((e, (a.as_deref_mut().map(|a| &mut a[i]), s.as_deref_mut().map(|s| &mut s[i])))));
        }
        Ok(())
    }
    fn write(row: &mut Row) {
        if let Some(a) = row.a.as_mut() {
            *a += 1;
        }
        if let Some(s) = row.s.as_mut() {
            *s += 1;
        }
    }
}

/// `(Entity, Option<&T>)`: every entity, with or without the tag.
struct MaybeTag;
impl Shape for MaybeTag {
    type Q = (Entity, Option<&'static T>);
    fn matches(_: &Row) -> bool {
        true
    }
    fn project(row: &Row) -> Row {
        Row { t: row.t, ..Row::default() }
    }
    fn see((e, t): (Entity, Option<&T>)) -> (Entity, Row) {
        (e, Row { t: t.is_some(), ..Row::default() })
    }
    fn see_chunk((es, t): (&[Entity], Option<&[T]>), model: &Model, seen: &mut Seen) -> Result<(), String> {
        let rows = chunk_rows(model, es, &[])?;
        check_slot(&rows, es, t.map(<[T]>::len), "T", has_t)?;
        seen.extend(es.iter().map(|&e| (e, Row { t: t.is_some(), ..Row::default() })));
        Ok(())
    }
    read_only_modes!();
}

/// `(Entity, &S)`
struct SOnly;
impl Shape for SOnly {
    type Q = (Entity, &'static S);
    fn matches(row: &Row) -> bool {
        row.s.is_some()
    }
    fn project(row: &Row) -> Row {
        Row { s: row.s, ..Row::default() }
    }
    fn see((e, s): (Entity, &S)) -> (Entity, Row) {
        (e, Row { s: Some(s.0), ..Row::default() })
    }
    fn see_chunk((es, s): (&[Entity], &[S]), model: &Model, seen: &mut Seen) -> Result<(), String> {
        let rows = chunk_rows(model, es, &[s.len()])?;
        check_slot(&rows, es, Some(s.len()), "S", has_s)?;
        seen.extend(es.iter().zip(s).map(|(&e, s)| Self::see((e, s))));
        Ok(())
    }
    read_only_modes!();
}

/// `(Entity, &mut S)`: adds one.
struct WriteS;
impl Shape for WriteS {
    type Q = (Entity, &'static mut S);
    fn matches(row: &Row) -> bool {
        row.s.is_some()
    }
    fn project(row: &Row) -> Row {
        Row { s: row.s, ..Row::default() }
    }
    fn see((e, s): (Entity, &mut S)) -> (Entity, Row) {
        let row = Row { s: Some(s.0), ..Row::default() };
        s.0 += 1;
        (e, row)
    }
    fn see_chunk((es, s): (&[Entity], &mut [S]), model: &Model, seen: &mut Seen) -> Result<(), String> {
        let rows = chunk_rows(model, es, &[s.len()])?;
        check_slot(&rows, es, Some(s.len()), "S", has_s)?;
        seen.extend(es.iter().zip(s).map(|(&e, s)| Self::see((e, s))));
        Ok(())
    }
    fn write(row: &mut Row) {
        *row.s.as_mut().unwrap() += 1;
    }
}

/// `(Entity, Option<&Big>, &Named)`
struct MaybeBigNamed;
impl Shape for MaybeBigNamed {
    type Q = (Entity, Option<&'static Big>, &'static Named);
    fn matches(row: &Row) -> bool {
        row.named.is_some()
    }
    fn project(row: &Row) -> Row {
        Row { big: row.big, named: row.named.clone(), ..Row::default() }
    }
    fn see((e, big, named): (Entity, Option<&Big>, &Named)) -> (Entity, Row) {
        (e, Row { big: big.map(aligned), named: Some(named.0.clone()), ..Row::default() })
    }
    fn see_chunk(
        (es, big, named): (&[Entity], Option<&[Big]>, &[Named]),
        model: &Model,
        seen: &mut Seen,
    ) -> Result<(), String> {
        let rows = chunk_rows(model, es, &[named.len()])?;
        check_slot(&rows, es, big.map(<[Big]>::len), "Big", |r| r.big.is_some())?;
        for (i, &e) in es.iter().enumerate() {
            seen.push(Self::see((e, big.map(|b| &b[i]), &named[i])));
        }
        Ok(())
    }
    read_only_modes!();
}

/// `(Entity, &Z, Option<&SD>)`
struct ZMaybeSd;
impl Shape for ZMaybeSd {
    type Q = (Entity, &'static Z, Option<&'static SD>);
    fn matches(row: &Row) -> bool {
        row.z
    }
    fn project(row: &Row) -> Row {
        Row { z: true, sd: row.sd.clone(), ..Row::default() }
    }
    fn see((e, _, sd): (Entity, &Z, Option<&SD>)) -> (Entity, Row) {
        (e, Row { z: true, sd: sd.map(|x| x.0.clone()), ..Row::default() })
    }
    fn see_chunk((es, z, sd): (&[Entity], &[Z], Option<&[SD]>), model: &Model, seen: &mut Seen) -> Result<(), String> {
        let rows = chunk_rows(model, es, &[z.len()])?;
        check_slot(&rows, es, Some(z.len()), "Z", |r| r.z)?;
        check_slot(&rows, es, sd.map(<[SD]>::len), "SD", |r| r.sd.is_some())?;
        for (i, &e) in es.iter().enumerate() {
            seen.push(Self::see((e, &z[i], sd.map(|x| &x[i]))));
        }
        Ok(())
    }
    read_only_modes!();
}

/// The derived [`Bumped`]: adds one to `A`, appends `!` to `SD`.
struct DerivedBumped;
impl Shape for DerivedBumped {
    type Q = Bumped<'static>;
    fn matches(row: &Row) -> bool {
        row.a.is_some()
    }
    fn project(row: &Row) -> Row {
        Row { a: row.a, s: row.s, sd: row.sd.clone(), ..Row::default() }
    }
    fn see(mut item: Bumped<'_>) -> (Entity, Row) {
        let row = Row {
            a: Some(item.a.0),
            s: item.s.map(|s| s.0),
            sd: item.sd.as_deref().map(|x| x.0.clone()),
            ..Row::default()
        };
        item.a.0 += 1;
        if let Some(sd) = item.sd.as_deref_mut() {
            sd.0.push('!');
        }
        (item.entity, row)
    }
    fn see_chunk(
        (es, a, s, mut sd): (&[Entity], &mut [A], Option<&[S]>, Option<&mut [SD]>),
        model: &Model,
        seen: &mut Seen,
    ) -> Result<(), String> {
        let rows = chunk_rows(model, es, &[a.len()])?;
        check_slot(&rows, es, s.map(<[S]>::len), "S", has_s)?;
        check_slot(&rows, es, sd.as_deref().map(<[SD]>::len), "SD", |r| r.sd.is_some())?;
        for (i, &entity) in es.iter().enumerate() {
            let item = Bumped { entity, a: &mut a[i], s: s.map(|s| &s[i]), sd: sd.as_deref_mut().map(|x| &mut x[i]) };
            seen.push(Self::see(item));
        }
        Ok(())
    }
    fn write(row: &mut Row) {
        *row.a.as_mut().unwrap() += 1;
        if let Some(sd) = row.sd.as_mut() {
            sd.push('!');
        }
    }
}

/// The derived [`Outer`], which nests [`Inner`].
struct DerivedNested;
impl Shape for DerivedNested {
    type Q = Outer<'static>;
    fn matches(row: &Row) -> bool {
        row.b.is_some()
    }
    fn project(row: &Row) -> Row {
        Row { b: row.b, s: row.s, sd: row.sd.clone(), t: row.t, z: row.z, big: row.big, ..Row::default() }
    }
    fn see(item: Outer<'_>) -> (Entity, Row) {
        let row = Row {
            b: Some(item.b.0),
            s: item.inner.s.map(|s| s.0),
            sd: item.inner.sd.map(|x| x.0.clone()),
            t: item.tag.is_some(),
            z: item.z.is_some(),
            big: item.big.map(aligned),
            ..Row::default()
        };
        (item.inner.entity, row)
    }
    fn see_chunk(
        ((es, s, sd), b, tag, z, big): (
            (&[Entity], Option<&[S]>, Option<&[SD]>),
            &[B],
            Option<&[T]>,
            Option<&[Z]>,
            Option<&[Big]>,
        ),
        model: &Model,
        seen: &mut Seen,
    ) -> Result<(), String> {
        let rows = chunk_rows(model, es, &[b.len()])?;
        check_slot(&rows, es, s.map(<[S]>::len), "S", has_s)?;
        check_slot(&rows, es, sd.map(<[SD]>::len), "SD", |r| r.sd.is_some())?;
        check_slot(&rows, es, tag.map(<[T]>::len), "T", has_t)?;
        check_slot(&rows, es, z.map(<[Z]>::len), "Z", |r| r.z)?;
        check_slot(&rows, es, big.map(<[Big]>::len), "Big", |r| r.big.is_some())?;
        for (i, &entity) in es.iter().enumerate() {
            let item = Outer {
                inner: Inner { entity, s: s.map(|s| &s[i]), sd: sd.map(|x| &x[i]) },
                b: &b[i],
                tag: tag.map(|t| &t[i]),
                z: z.map(|z| &z[i]),
                big: big.map(|x| &x[i]),
            };
            seen.push(Self::see(item));
        }
        Ok(())
    }
    read_only_modes!();
}

/// `(Entity, Option<&mut T>, Option<&B>)`: a mutable tag.
struct MaybeMutTag;
impl Shape for MaybeMutTag {
    type Q = (Entity, Option<&'static mut T>, Option<&'static B>);
    fn matches(_: &Row) -> bool {
        true
    }
    fn project(row: &Row) -> Row {
        Row { t: row.t, b: row.b, ..Row::default() }
    }
    fn see((e, t, b): (Entity, Option<&mut T>, Option<&B>)) -> (Entity, Row) {
        (e, Row { t: t.is_some(), b: b.map(|b| b.0), ..Row::default() })
    }
    fn see_chunk(
        (es, t, b): (&[Entity], Option<&mut [T]>, Option<&[B]>),
        model: &Model,
        seen: &mut Seen,
    ) -> Result<(), String> {
        let rows = chunk_rows(model, es, &[])?;
        check_slot(&rows, es, t.as_deref().map(<[T]>::len), "T", has_t)?;
        check_slot(&rows, es, b.map(<[B]>::len), "B", |r| r.b.is_some())?;
        for (i, &e) in es.iter().enumerate() {
            seen.push((e, Row { t: t.is_some(), b: b.map(|b| b[i].0), ..Row::default() }));
        }
        Ok(())
    }
}

/// `(Entity, &T, Option<&Named>)`: a required tag.
struct TagMaybeNamed;
impl Shape for TagMaybeNamed {
    type Q = (Entity, &'static T, Option<&'static Named>);
    fn matches(row: &Row) -> bool {
        row.t
    }
    fn project(row: &Row) -> Row {
        Row { t: true, named: row.named.clone(), ..Row::default() }
    }
    fn see((e, _, named): (Entity, &T, Option<&Named>)) -> (Entity, Row) {
        (e, Row { t: true, named: named.map(|n| n.0.clone()), ..Row::default() })
    }
    fn see_chunk(
        (es, t, named): (&[Entity], &[T], Option<&[Named]>),
        model: &Model,
        seen: &mut Seen,
    ) -> Result<(), String> {
        let rows = chunk_rows(model, es, &[t.len()])?;
        check_slot(&rows, es, Some(t.len()), "T", has_t)?;
        check_slot(&rows, es, named.map(<[Named]>::len), "Named", |r| r.named.is_some())?;
        for (i, &e) in es.iter().enumerate() {
            seen.push(Self::see((e, &t[i], named.map(|n| &n[i]))));
        }
        Ok(())
    }
    read_only_modes!();
}

proptest! {
    #[test]
    fn every_iteration_mode_visits_the_models_rows_with_their_values(
        steps in steps(),
        // Half of the filters per case, so that a case stays quick under valgrind.
        filters in proptest::sample::subsequence(Filter::ON_PRESENCE.to_vec(), 3),
        take in 0usize..6,
    ) {
        let z_before = z_live();
        let (mut world, mut model, dead) = build(&steps);
        for filter in filters {
            let (w, m, d) = (&mut world, &mut model, dead.as_slice());
            by_presence::<EntityA>(filter, w, m, d, take)?;
            by_presence::<AMaybeS>(filter, w, m, d, take)?;
            by_presence::<WriteAMaybeS>(filter, w, m, d, take)?;
            by_presence::<MaybeTag>(filter, w, m, d, take)?;
            by_presence::<AnyAS>(filter, w, m, d, take)?;
            by_presence::<WriteAnyAS>(filter, w, m, d, take)?;
            by_presence::<SOnly>(filter, w, m, d, take)?;
            by_presence::<WriteS>(filter, w, m, d, take)?;
            by_presence::<MaybeBigNamed>(filter, w, m, d, take)?;
            by_presence::<ZMaybeSd>(filter, w, m, d, take)?;
            by_presence::<DerivedBumped>(filter, w, m, d, take)?;
            by_presence::<DerivedNested>(filter, w, m, d, take)?;
            by_presence::<MaybeMutTag>(filter, w, m, d, take)?;
            by_presence::<TagMaybeNamed>(filter, w, m, d, take)?;
        }
        world_matches(&world, &model, &dead)?;
        drop(world);
        prop_assert_eq!(z_live(), z_before, "every `Z` made is dropped exactly once");
    }

    #[test]
    fn every_iteration_mode_sees_the_same_changes_and_additions(
        steps in steps(),
        touches in touches(),
        take in 0usize..6,
    ) {
        let z_before = z_live();
        let (mut world, mut model, dead) = build(&steps);
        let (w, m, d, t) = (&mut world, &mut model, dead.as_slice(), touches.as_slice());
        news::<AMaybeS>(Filter::ChangedA, w, m, d, t, take)?;
        news::<WriteAMaybeS>(Filter::ChangedA, w, m, d, t, take)?;
        news::<MaybeTag>(Filter::ChangedA, w, m, d, t, take)?;
        news::<AnyAS>(Filter::ChangedA, w, m, d, t, take)?;
        news::<WriteAnyAS>(Filter::ChangedA, w, m, d, t, take)?;
        news::<DerivedBumped>(Filter::ChangedA, w, m, d, t, take)?;
        news::<AMaybeS>(Filter::AddedS, w, m, d, t, take)?;
        news::<WriteS>(Filter::AddedS, w, m, d, t, take)?;
        news::<DerivedNested>(Filter::AddedS, w, m, d, t, take)?;
        news::<MaybeMutTag>(Filter::AddedS, w, m, d, t, take)?;
        world_matches(&world, &model, &dead)?;
        drop(world);
        prop_assert_eq!(z_live(), z_before, "every `Z` made is dropped exactly once");
    }
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Body {
    x: f32,
    v: f32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Mass(f32);

/// `par_for_each` runs one of two compiled copies of its loop (with AVX2 where
/// the CPU has it, see `ecs_core::query` docs), alternating while it measures
/// them: every run, whichever copy it took, leaves bit-for-bit the values a
/// `for` loop leaves, float arithmetic included.
#[test]
fn par_for_each_leaves_the_values_a_for_loop_leaves_in_every_run() {
    let spawn = |world: &mut World| {
        world.spawn_batch((0..999).map(|i| (Body { x: i as f32 * 0.37, v: 1.0 / (i as f32 + 3.0) }, Mass(1.5))));
        world.spawn_batch((0..501).map(|i| Body { x: -(i as f32), v: i as f32 * 1e-3 }));
    };
    let (mut looped, mut parallel) = (World::new(), World::new());
    spawn(&mut looped);
    spawn(&mut parallel);
    let mut by_loop = looped.query_state::<(&mut Body, Option<&Mass>)>();
    let mut by_par = parallel.query_state::<(&mut Body, Option<&Mass>)>();
    let step = |(body, mass): (&mut Body, Option<&Mass>)| {
        let m = mass.map_or(1.0, |m| m.0);
        body.v = body.v * 0.999 + (body.x * 1e-4) / m;
        body.x += body.v * 0.016;
    };
    let mut snapshot = looped.query_state::<&Body>();
    let mut snapshot_par = parallel.query_state::<&Body>();
    for run in 0..40 {
        for item in by_loop.iter_mut(&mut looped) {
            step(item);
        }
        by_par.par_for_each(&mut parallel, step);
        let expected: Vec<(u32, u32)> = snapshot.iter(&looped).map(|b| (b.x.to_bits(), b.v.to_bits())).collect();
        let got: Vec<(u32, u32)> = snapshot_par.iter(&parallel).map(|b| (b.x.to_bits(), b.v.to_bits())).collect();
        assert_eq!(got, expected, "run {run}");
    }
}
