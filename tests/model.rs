//! Random operation sequences against a naive reference model.
//!
//! The model is a `HashMap<Entity, Expected>`; after every step the world must agree
//! with it entity by entity and component by component, and
//! `World::check_invariants` must pass. Handles of despawned entities stay in the
//! pool of handles the operations pick from, so stale handles are exercised too.
//! Component values hold an `Arc` token, so leaks and double drops show up as a
//! wrong strong count at the end.

mod common;

use std::collections::HashMap;
use std::sync::Arc;

use ecs_core::ComponentId;
use ecs_core::prelude::*;
use proptest::prelude::*;

/// Zero-sized.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Tag;

/// Over-aligned.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[repr(align(64))]
struct Aligned(u64);

/// Has `Drop` glue (a `String` and an `Arc`).
#[derive(Component, Clone, Debug)]
struct Named(String, #[expect(dead_code, reason = "held only for its strong count")] Arc<()>);

impl PartialEq for Named {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

/// Plain data.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Small(u16);

/// Sparse (stored per row), over-aligned, with `Drop` glue.
#[derive(Component, Clone, Debug)]
#[component(storage = "sparse")]
#[repr(align(32))]
struct Boost(String, #[expect(dead_code, reason = "held only for its strong count")] Arc<()>);

#[derive(Clone, Debug, Default, PartialEq)]
struct Expected {
    tag: bool,
    aligned: Option<Aligned>,
    named: Option<String>,
    small: Option<Small>,
    boost: Option<String>,
    /// The runtime component `Script` (table): `hp` and `label`.
    script: Option<(i32, String)>,
    /// The runtime component `Mark` (sparse): `text`.
    mark: Option<String>,
}

/// `Script { hp: i32, label: String, origin: Entity }`, a table component
/// defined at run time, and `Mark { text: String }`, a sparse one.
fn runtime_components(world: &mut World) -> (ComponentId, ComponentId) {
    use ecs_core::component::{ComponentDescriptor, FieldKind, SchemaBuilder};
    let script = SchemaBuilder::new("Script")
        .field("hp", FieldKind::I32)
        .field("label", FieldKind::String)
        .field("origin", FieldKind::Entity)
        .build()
        .unwrap();
    let mark = SchemaBuilder::new("Mark").field("text", FieldKind::String).build().unwrap();
    (
        world.register_dynamic(&ComponentDescriptor::new("Script", script)).unwrap(),
        world.register_dynamic(&ComponentDescriptor::new("Mark", mark).sparse()).unwrap(),
    )
}

#[derive(Clone, Debug)]
enum Shape {
    Empty,
    Tag,
    AlignedNamed(u64, String),
    All(u64, String, u16),
    Small(u16),
    /// `(Small, Boost)`: a table and a sparse component.
    Boosted(u16, String),
}

#[derive(Clone, Debug)]
enum Op {
    Spawn(Shape),
    SpawnBatch(u8, Shape),
    InsertTag(usize),
    InsertAligned(usize, u64),
    InsertNamed(usize, String),
    InsertPair(usize, u64, String),
    RemoveTag(usize),
    RemoveAligned(usize),
    RemoveNamed(usize),
    RemovePair(usize),
    Despawn(usize),
    Clear,
    GetMut(usize, u16),
    InsertBoost(usize, String),
    /// `(Aligned, Boost)`: an archetype move that also puts a sparse value.
    InsertAlignedBoost(usize, u64, String),
    RemoveBoost(usize),
    /// `(Small, Boost)`: an archetype move that also takes a sparse value.
    RemoveSmallBoost(usize),
    GetMutBoost(usize, String),
    InsertScript(usize, i32, String),
    RemoveScript(usize),
    SetScriptHp(usize, i32),
    InsertMark(usize, String),
    RemoveMark(usize),
    /// An `EntityBuilder` of `Small` and `Script`.
    BuildSpawn(u16, i32, String),
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Empty),
        Just(Shape::Tag),
        (any::<u64>(), "[a-z]{0,12}").prop_map(|(a, n)| Shape::AlignedNamed(a, n)),
        (any::<u64>(), "[a-z]{0,12}", any::<u16>()).prop_map(|(a, n, s)| Shape::All(a, n, s)),
        any::<u16>().prop_map(Shape::Small),
        (any::<u16>(), "[a-z]{0,12}").prop_map(|(s, n)| Shape::Boosted(s, n)),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let pick = any::<usize>();
    prop_oneof![
        4 => shape().prop_map(Op::Spawn),
        1 => (0u8..40, shape()).prop_map(|(n, s)| Op::SpawnBatch(n, s)),
        2 => pick.prop_map(Op::InsertTag),
        2 => (pick, any::<u64>()).prop_map(|(e, a)| Op::InsertAligned(e, a)),
        2 => (pick, "[a-z]{0,12}").prop_map(|(e, n)| Op::InsertNamed(e, n)),
        2 => (pick, any::<u64>(), "[a-z]{0,8}").prop_map(|(e, a, n)| Op::InsertPair(e, a, n)),
        2 => pick.prop_map(Op::RemoveTag),
        2 => pick.prop_map(Op::RemoveAligned),
        2 => pick.prop_map(Op::RemoveNamed),
        2 => pick.prop_map(Op::RemovePair),
        3 => pick.prop_map(Op::Despawn),
        1 => pick.prop_map(|_| Op::Clear),
        2 => (pick, any::<u16>()).prop_map(|(e, s)| Op::GetMut(e, s)),
        3 => (pick, "[a-z]{0,12}").prop_map(|(e, n)| Op::InsertBoost(e, n)),
        1 => (pick, any::<u64>(), "[a-z]{0,8}").prop_map(|(e, a, n)| Op::InsertAlignedBoost(e, a, n)),
        3 => pick.prop_map(Op::RemoveBoost),
        1 => pick.prop_map(Op::RemoveSmallBoost),
        1 => (pick, "[a-z]{0,8}").prop_map(|(e, n)| Op::GetMutBoost(e, n)),
        2 => (pick, any::<i32>(), "[a-z]{0,8}").prop_map(|(e, h, n)| Op::InsertScript(e, h, n)),
        2 => pick.prop_map(Op::RemoveScript),
        1 => (pick, any::<i32>()).prop_map(|(e, h)| Op::SetScriptHp(e, h)),
        2 => (pick, "[a-z]{0,8}").prop_map(|(e, n)| Op::InsertMark(e, n)),
        2 => pick.prop_map(Op::RemoveMark),
        2 => (any::<u16>(), any::<i32>(), "[a-z]{0,8}").prop_map(|(s, h, n)| Op::BuildSpawn(s, h, n)),
    ]
}

struct Harness {
    world: World,
    /// The runtime components `Script` and `Mark`.
    script: ComponentId,
    mark: ComponentId,
    model: HashMap<Entity, Expected>,
    /// Every handle ever issued, live or not.
    issued: Vec<Entity>,
    token: Arc<()>,
}

impl Harness {
    fn new() -> Self {
        let mut world = World::new();
        let (script, mark) = runtime_components(&mut world);
        Self { world, script, mark, model: HashMap::new(), issued: Vec::new(), token: Arc::new(()) }
    }

    fn named(&self, name: &str) -> Named {
        Named(name.to_owned(), self.token.clone())
    }

    fn boost(&self, name: &str) -> Boost {
        Boost(name.to_owned(), self.token.clone())
    }

    fn pick(&self, index: usize) -> Option<Entity> {
        (!self.issued.is_empty()).then(|| self.issued[index % self.issued.len()])
    }

    fn spawn(&mut self, shape: &Shape) -> Entity {
        let (entity, expected) = match shape.clone() {
            Shape::Empty => (self.world.spawn(()), Expected::default()),
            Shape::Tag => (self.world.spawn(Tag), Expected { tag: true, ..Default::default() }),
            Shape::AlignedNamed(a, n) => (
                self.world.spawn((Aligned(a), self.named(&n))),
                Expected { aligned: Some(Aligned(a)), named: Some(n), ..Default::default() },
            ),
            Shape::All(a, n, s) => (
                self.world.spawn((Small(s), Tag, self.named(&n), Aligned(a))),
                Expected {
                    tag: true,
                    aligned: Some(Aligned(a)),
                    named: Some(n),
                    small: Some(Small(s)),
                    ..Default::default()
                },
            ),
            Shape::Small(s) => (self.world.spawn(Small(s)), Expected { small: Some(Small(s)), ..Default::default() }),
            Shape::Boosted(s, n) => (
                self.world.spawn((Small(s), self.boost(&n))),
                Expected { small: Some(Small(s)), boost: Some(n), ..Default::default() },
            ),
        };
        self.record(entity, expected);
        entity
    }

    fn spawn_batch(&mut self, count: u8, shape: &Shape) {
        let count = count as usize;
        let spawned: Vec<Entity> = match shape.clone() {
            Shape::Empty => self.world.spawn_batch((0..count).map(|_| ())).collect(),
            Shape::Tag => self.world.spawn_batch((0..count).map(|_| Tag)).collect(),
            Shape::AlignedNamed(a, n) => {
                let named = self.named(&n);
                self.world.spawn_batch((0..count).map(|_| (Aligned(a), named.clone()))).collect()
            }
            Shape::All(a, n, s) => {
                let named = self.named(&n);
                self.world.spawn_batch((0..count).map(|_| (Small(s), Tag, named.clone(), Aligned(a)))).collect()
            }
            Shape::Small(s) => self.world.spawn_batch((0..count).map(|_| Small(s))).collect(),
            Shape::Boosted(s, n) => {
                let boost = self.boost(&n);
                self.world.spawn_batch((0..count).map(|_| (Small(s), boost.clone()))).collect()
            }
        };
        assert_eq!(spawned.len(), count);
        for entity in spawned {
            let expected = match shape.clone() {
                Shape::Empty => Expected::default(),
                Shape::Tag => Expected { tag: true, ..Default::default() },
                Shape::AlignedNamed(a, n) => {
                    Expected { aligned: Some(Aligned(a)), named: Some(n), ..Default::default() }
                }
                Shape::All(a, n, s) => Expected {
                    tag: true,
                    aligned: Some(Aligned(a)),
                    named: Some(n),
                    small: Some(Small(s)),
                    ..Default::default()
                },
                Shape::Small(s) => Expected { small: Some(Small(s)), ..Default::default() },
                Shape::Boosted(s, n) => Expected { small: Some(Small(s)), boost: Some(n), ..Default::default() },
            };
            self.record(entity, expected);
        }
    }

    fn record(&mut self, entity: Entity, expected: Expected) {
        assert!(!self.model.contains_key(&entity), "handle {entity} issued twice while live");
        assert!(!self.issued.contains(&entity), "handle {entity} reissued after despawn");
        self.model.insert(entity, expected);
        self.issued.push(entity);
    }

    /// Applies a fallible world call and checks its result against the model.
    fn expect_result<T>(&self, entity: Entity, result: Result<T, EcsError>, missing: Option<&str>) -> Option<T> {
        match (self.model.contains_key(&entity), result) {
            (false, Err(EcsError::NoSuchEntity(e))) => {
                assert_eq!(e, entity);
                None
            }
            (true, Err(EcsError::MissingComponent { entity: e, component })) => {
                assert_eq!(e, entity);
                assert_eq!(Some(component), missing, "unexpected missing component");
                None
            }
            (true, Ok(value)) => {
                assert_eq!(missing, None, "remove succeeded though {missing:?} was missing");
                Some(value)
            }
            (live, Err(e)) => panic!("entity live={live} got unexpected error {e}"),
            (false, Ok(_)) => panic!("operation on dead entity {entity} succeeded"),
        }
    }

    /// A `Script` value.
    fn script_value(&self, hp: i32, label: &str) -> ecs_core::world::DynamicValue {
        let mut value = ecs_core::world::DynamicValue::new(&self.world, self.script).unwrap();
        value.set("hp", hp).unwrap().set_string("label", label).unwrap();
        value
    }

    fn apply(&mut self, op: &Op) {
        match op {
            Op::InsertScript(i, hp, label) => {
                let Some(e) = self.pick(*i) else { return };
                let value = self.script_value(*hp, label);
                let result = self.world.insert_by_id(e, self.script, value);
                if self.expect_result(e, result, None).is_some() {
                    self.model.get_mut(&e).unwrap().script = Some((*hp, label.clone()));
                }
            }
            Op::RemoveScript(i) => {
                let Some(e) = self.pick(*i) else { return };
                let missing = self.model.get(&e).is_some_and(|m| m.script.is_none()).then_some("Script");
                let result = self.world.remove_by_id(e, self.script);
                if self.expect_result(e, result, missing).is_some() {
                    self.model.get_mut(&e).unwrap().script = None;
                }
            }
            Op::SetScriptHp(i, hp) => {
                let Some(e) = self.pick(*i) else { return };
                let missing = self.model.get(&e).is_some_and(|m| m.script.is_none()).then_some("Script");
                let result = self.world.get_mut_by_id(e, self.script).map(|mut view| view.set("hp", *hp).unwrap());
                if self.expect_result(e, result, missing).is_some() {
                    self.model.get_mut(&e).unwrap().script.as_mut().unwrap().0 = *hp;
                }
            }
            Op::InsertMark(i, text) => {
                let Some(e) = self.pick(*i) else { return };
                let mut value = ecs_core::world::DynamicValue::new(&self.world, self.mark).unwrap();
                value.set_string("text", text).unwrap();
                let result = self.world.insert_by_id(e, self.mark, value);
                if self.expect_result(e, result, None).is_some() {
                    self.model.get_mut(&e).unwrap().mark = Some(text.clone());
                }
            }
            Op::RemoveMark(i) => {
                let Some(e) = self.pick(*i) else { return };
                let missing = self.model.get(&e).is_some_and(|m| m.mark.is_none()).then_some("Mark");
                let result = self.world.remove_by_id(e, self.mark);
                if self.expect_result(e, result, missing).is_some() {
                    self.model.get_mut(&e).unwrap().mark = None;
                }
            }
            Op::BuildSpawn(small, hp, label) => {
                let mut builder = ecs_core::world::EntityBuilder::new();
                builder.add_dynamic(self.script_value(*hp, label)).add(Small(*small));
                let e = builder.spawn(&mut self.world).unwrap();
                let expected =
                    Expected { small: Some(Small(*small)), script: Some((*hp, label.clone())), ..Default::default() };
                self.record(e, expected);
            }
            Op::Spawn(shape) => {
                self.spawn(shape);
            }
            Op::SpawnBatch(count, shape) => self.spawn_batch(*count, shape),
            Op::Despawn(i) => {
                let Some(e) = self.pick(*i) else { return };
                let result = self.world.despawn(e);
                if self.expect_result(e, result, None).is_some() {
                    self.model.remove(&e);
                }
            }
            Op::Clear => {
                self.world.clear();
                self.model.clear();
            }
            Op::GetMut(i, value) => {
                let Some(e) = self.pick(*i) else { return };
                match (self.world.get_mut::<Small>(e), self.model.get_mut(&e).and_then(|m| m.small.as_mut())) {
                    (Some(mut actual), Some(expected)) => {
                        actual.0 = *value;
                        expected.0 = *value;
                    }
                    (None, None) => {}
                    (actual, expected) => panic!("get_mut disagrees: {actual:?} vs {expected:?}"),
                }
            }
            Op::GetMutBoost(i, value) => {
                let Some(e) = self.pick(*i) else { return };
                match (self.world.get_mut::<Boost>(e), self.model.get_mut(&e).and_then(|m| m.boost.as_mut())) {
                    (Some(mut actual), Some(expected)) => {
                        actual.0.clone_from(value);
                        expected.clone_from(value);
                    }
                    (None, None) => {}
                    (actual, expected) => panic!("get_mut disagrees: {actual:?} vs {expected:?}"),
                }
            }
            Op::InsertBoost(i, n) => {
                let boost = self.boost(n);
                self.insert(*i, boost, |m| m.boost = Some(n.clone()))
            }
            Op::InsertAlignedBoost(i, a, n) => {
                let boost = self.boost(n);
                self.insert(*i, (Aligned(*a), boost), |m| {
                    m.aligned = Some(Aligned(*a));
                    m.boost = Some(n.clone());
                })
            }
            Op::RemoveBoost(i) => self.remove::<Boost>(
                *i,
                |m| m.boost.take().map(|b| Removed { boost: Some(b), ..Default::default() }),
                |v, r| assert_eq!(Some(v.0), r.boost),
            ),
            Op::RemoveSmallBoost(i) => self.remove::<(Small, Boost)>(
                *i,
                |m| match (m.small.take(), m.boost.take()) {
                    (Some(s), Some(b)) => Some(Removed { small: Some(s), boost: Some(b), ..Default::default() }),
                    _ => None,
                },
                |(s, b), r| {
                    assert_eq!(Some(s), r.small);
                    assert_eq!(Some(b.0), r.boost);
                },
            ),
            Op::InsertTag(i) => self.insert(*i, Tag, |m| m.tag = true),
            Op::InsertAligned(i, a) => self.insert(*i, Aligned(*a), |m| m.aligned = Some(Aligned(*a))),
            Op::InsertNamed(i, n) => {
                let named = self.named(n);
                self.insert(*i, named, |m| m.named = Some(n.clone()))
            }
            Op::InsertPair(i, a, n) => {
                let named = self.named(n);
                self.insert(*i, (named, Aligned(*a)), |m| {
                    m.named = Some(n.clone());
                    m.aligned = Some(Aligned(*a));
                })
            }
            Op::RemoveTag(i) => {
                self.remove::<Tag>(*i, |m| std::mem::take(&mut m.tag).then(Removed::default), |v, _| assert_eq!(v, Tag))
            }
            Op::RemoveAligned(i) => self.remove::<Aligned>(
                *i,
                |m| m.aligned.take().map(|a| Removed { aligned: Some(a), ..Default::default() }),
                |v, r| assert_eq!(Some(v), r.aligned),
            ),
            Op::RemoveNamed(i) => self.remove::<Named>(
                *i,
                |m| m.named.take().map(|n| Removed { named: Some(n), ..Default::default() }),
                |v, r| assert_eq!(Some(v.0), r.named),
            ),
            Op::RemovePair(i) => self.remove::<(Aligned, Named)>(
                *i,
                |m| match (m.aligned.take(), m.named.take()) {
                    (Some(a), Some(n)) => Some(Removed { aligned: Some(a), named: Some(n), ..Default::default() }),
                    _ => None,
                },
                |(a, n), r| {
                    assert_eq!(Some(a), r.aligned);
                    assert_eq!(Some(n.0), r.named);
                },
            ),
        }
    }

    fn insert<B: Bundle>(&mut self, i: usize, bundle: B, update: impl FnOnce(&mut Expected)) {
        let Some(e) = self.pick(i) else { return };
        let result = self.world.insert(e, bundle);
        if self.expect_result(e, result, None).is_some() {
            update(self.model.get_mut(&e).unwrap());
        }
    }

    /// `take` updates a copy of the model entity and says what was removed, or `None`
    /// when the entity lacks part of `B`; `check` compares the returned values with it.
    fn remove<B: Bundle>(
        &mut self,
        i: usize,
        take: impl FnOnce(&mut Expected) -> Option<Removed>,
        check: impl FnOnce(B, &Removed),
    ) {
        let Some(e) = self.pick(i) else { return };
        let mut staged = self.model.get(&e).cloned();
        let removed = staged.as_mut().and_then(take);
        let missing = match (&staged, &removed) {
            (Some(_), None) => Some(first_missing::<B>(self.model.get(&e).unwrap())),
            _ => None,
        };
        let result = self.world.remove::<B>(e);
        if let Some(value) = self.expect_result(e, result, missing) {
            check(value, &removed.unwrap());
            self.model.insert(e, staged.unwrap());
        }
    }

    fn check(&self) {
        self.world.check_invariants().unwrap();
        assert_eq!(self.world.len(), self.model.len());
        assert_eq!(self.world.iter().count(), self.model.len());
        for &e in &self.issued {
            let Some(expected) = self.model.get(&e) else {
                assert!(!self.world.contains(e), "{e} should be dead");
                assert!(self.world.get::<Small>(e).is_none());
                continue;
            };
            assert!(self.world.contains(e));
            assert_eq!(self.world.has::<Tag>(e), expected.tag, "{e} Tag");
            assert_eq!(self.world.get::<Tag>(e).is_some(), expected.tag);
            assert_eq!(self.world.get::<Aligned>(e), expected.aligned.as_ref(), "{e} Aligned");
            assert_eq!(self.world.get::<Named>(e).map(|n| &n.0), expected.named.as_ref(), "{e} Named");
            assert_eq!(self.world.get::<Small>(e), expected.small.as_ref(), "{e} Small");
            assert_eq!(self.world.get::<Boost>(e).map(|b| &b.0), expected.boost.as_ref(), "{e} Boost");
            assert_eq!(self.world.has::<Boost>(e), expected.boost.is_some(), "{e} has Boost");
            let script = self
                .world
                .get_by_id(e, self.script)
                .ok()
                .map(|v| (v.get::<i32>("hp").unwrap(), v.get_str("label").unwrap().to_owned()));
            assert_eq!(script, expected.script, "{e} Script");
            let mark = self.world.get_by_id(e, self.mark).ok().map(|v| v.get_str("text").unwrap().to_owned());
            assert_eq!(mark, expected.mark, "{e} Mark");
            if let Some(b) = self.world.get::<Boost>(e) {
                assert_eq!(std::ptr::from_ref(b) as usize % 32, 0, "Boost is misaligned");
            }
            if let Some(a) = self.world.get::<Aligned>(e) {
                assert_eq!(std::ptr::from_ref(a) as usize % 64, 0, "Aligned is misaligned");
            }
        }
        let live_names = self.model.values().filter(|m| m.named.is_some()).count();
        let live_boosts = self.model.values().filter(|m| m.boost.is_some()).count();
        assert_eq!(
            Arc::strong_count(&self.token),
            1 + live_names + live_boosts,
            "a Named or Boost leaked or dropped twice"
        );
        let mut queried: Vec<(Entity, String)> =
            self.world.query::<(Entity, &Boost)>().iter().map(|(e, b)| (e, b.0.clone())).collect();
        let mut expected: Vec<(Entity, String)> =
            self.model.iter().filter_map(|(&e, m)| Some((e, m.boost.clone()?))).collect();
        queried.sort_by_key(|(e, _)| e.to_bits());
        expected.sort_by_key(|(e, _)| e.to_bits());
        assert_eq!(queried, expected, "a query over the sparse Boost disagrees");
    }
}

/// What a successful remove took out, per the model.
#[derive(Default)]
struct Removed {
    aligned: Option<Aligned>,
    named: Option<String>,
    small: Option<Small>,
    boost: Option<String>,
}

/// The type name of the first component of `B` (in bundle order) the entity lacks.
fn first_missing<B: 'static>(m: &Expected) -> &'static str {
    use std::any::{TypeId, type_name};
    let b = TypeId::of::<B>();
    let candidates: &[(bool, &'static str)] = if b == TypeId::of::<Tag>() {
        &[(m.tag, type_name::<Tag>())]
    } else if b == TypeId::of::<Aligned>() {
        &[(m.aligned.is_some(), type_name::<Aligned>())]
    } else if b == TypeId::of::<Named>() {
        &[(m.named.is_some(), type_name::<Named>())]
    } else if b == TypeId::of::<Boost>() {
        &[(m.boost.is_some(), type_name::<Boost>())]
    } else if b == TypeId::of::<(Small, Boost)>() {
        &[(m.small.is_some(), type_name::<Small>()), (m.boost.is_some(), type_name::<Boost>())]
    } else {
        &[(m.aligned.is_some(), type_name::<Aligned>()), (m.named.is_some(), type_name::<Named>())]
    };
    candidates.iter().find(|(has, _)| !has).map(|(_, name)| *name).expect("something is missing")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::cases(256), ..ProptestConfig::default() })]

    #[test]
    fn world_matches_reference_model(ops in proptest::collection::vec(op(), 1..80)) {
        let mut harness = Harness::new();
        for op in &ops {
            harness.apply(op);
            harness.check();
        }
        let token = harness.token.clone();
        drop(harness);
        prop_assert_eq!(Arc::strong_count(&token), 1, "dropping the world must drop every Named once");
    }
}
