//! Saving and loading worlds (`ecs_core::serialize`): both formats round-trip
//! every kind of component, keep ids into an empty world, remap them into a
//! busy one, and refuse bad input without touching the world.

mod common;

use ecs_core::prelude::*;
use ecs_core::serialize::{LoadError, SerializeRegistry, WorldSave};
use serde::{Deserialize, Serialize};

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Velocity(f32);

#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Name(String);

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[component(storage = "sparse")]
struct Stunned(u8);

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Frozen;

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Target(#[entities] Entity);

#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Squad(#[entities] Vec<Entity>);

/// Not registered, and skipped.
#[derive(Component, Debug)]
struct Cache(#[allow(dead_code)] u64);

fn registry() -> SerializeRegistry {
    SerializeRegistry::new()
        .register::<Position>("Position")
        .register::<Velocity>("Velocity")
        .register::<Name>("Name")
        .register::<Stunned>("Stunned")
        .register::<Frozen>("Frozen")
        .register::<Target>("Target")
        .register::<Squad>("Squad")
        .skip::<Cache>()
}

/// Every entity in iteration order with what it holds, in words.
fn dump(world: &World) -> Vec<String> {
    world
        .iter()
        .map(|e| {
            format!(
                "{} {:?} {:?} {:?} {:?} {} {:?} {:?} {:?} {:?}",
                e.id(),
                e.get::<Position>(),
                e.get::<Velocity>(),
                e.get::<Name>(),
                e.get::<Stunned>(),
                e.contains::<Frozen>(),
                e.get::<Target>(),
                e.get::<Squad>(),
                e.get::<ChildOf>(),
                e.get::<Children>().map(|c| c.to_vec()),
            )
        })
        .collect()
}

/// A world with every kind of component, a hierarchy, despawned slots and
/// references between entities.
fn sample() -> World {
    let mut world = World::new();
    let a = world.spawn((Position { x: 1.0, y: 2.0 }, Velocity(0.5)));
    let b = world.spawn((Position { x: 3.0, y: 4.0 }, Name("b".into()), Stunned(2)));
    let gone = world.spawn(Frozen);
    let c = world.spawn((Name("c".into()), Target(a), Frozen, Cache(9)));
    world.spawn((Squad(vec![a, b, c]), Stunned(1)));
    let child = world.spawn((Position { x: 0.0, y: 0.0 }, ChildOf(b)));
    world.spawn((Velocity(1.0), ChildOf(b)));
    world.spawn(ChildOf(child));
    world.despawn(gone).unwrap();
    world.spawn(());
    let gone = world.spawn(Velocity(9.0));
    world.despawn(gone).unwrap();
    world
}

fn json_rows(world: &World) -> String {
    serde_json::to_string(&registry().rows(world)).unwrap()
}

fn load_json_rows(json: &str) -> Result<WorldSave, LoadError> {
    registry().load_rows(&mut serde_json::Deserializer::from_str(json))
}

fn postcard_columns(world: &World) -> Vec<u8> {
    postcard::to_allocvec(&registry().columns(world)).unwrap()
}

fn load_postcard_columns(bytes: &[u8]) -> Result<WorldSave, LoadError> {
    registry().load_columns(&mut postcard::Deserializer::from_bytes(bytes))
}

#[test]
fn rows_round_trip_into_a_new_world_with_the_same_ids() {
    let mut world = sample();
    let json = json_rows(&world);
    let mut loaded = World::new();
    let map = loaded.load(load_json_rows(&json).unwrap());
    loaded.check_invariants().unwrap();
    assert_eq!(dump(&loaded), dump(&world));
    assert!(map.iter().all(|(saved, now)| saved == now));
    assert_eq!(loaded.spawn(()), world.spawn(()), "the next id is the same");
    assert_eq!(loaded.spawn(()), world.spawn(()));
}

#[test]
fn columns_round_trip_into_a_new_world_with_the_same_ids() {
    let mut world = sample();
    let bytes = postcard_columns(&world);
    let mut loaded = World::new();
    loaded.load(load_postcard_columns(&bytes).unwrap());
    loaded.check_invariants().unwrap();
    assert_eq!(dump(&loaded), dump(&world));
    assert_eq!(loaded.spawn(()), world.spawn(()));
    // And through a self-describing format too.
    let json = serde_json::to_string(&registry().columns(&world)).unwrap();
    let mut loaded = World::new();
    loaded.load(registry().load_columns(&mut serde_json::Deserializer::from_str(&json)).unwrap());
    assert_eq!(dump(&loaded), dump(&world));
}

/// A resource that names an entity, saved with its entities mapped.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Focus(Entity);

impl ecs_core::entity::MapEntities for Focus {
    fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity) {
        self.0 = map(self.0);
    }
}

/// A message that names an entity.
#[derive(Message, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Aimed {
    at: Entity,
}

impl ecs_core::entity::MapEntities for Aimed {
    fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity) {
        self.at = map(self.at);
    }
}

#[test]
fn loading_into_a_busy_world_remaps_resources_and_messages() {
    let registry =
        registry().register_resource_with_entities::<Focus>("Focus").register_message_with_entities::<Aimed>("Aimed");
    let mut world = sample();
    let (a, b) = {
        let mut ids = world.iter().map(|e| e.id());
        (ids.next().unwrap(), ids.nth(1).unwrap())
    };
    world.insert_resource(Focus(b));
    world.write_message(Aimed { at: a });
    world.resource_mut::<Messages<Aimed>>().update();
    world.write_message(Aimed { at: b });
    for busy_first in [false, true] {
        let save = postcard::to_allocvec(&registry.columns(&world)).unwrap();
        let save = registry.load_columns(&mut postcard::Deserializer::from_bytes(&save)).unwrap();
        let mut loaded = World::new();
        if busy_first {
            loaded.spawn(Name("mine".into()));
            loaded.spawn(Name("also mine".into()));
        }
        let map = loaded.load(save);
        assert_eq!(busy_first, map.get(a) != Some(a), "the ids are kept only in an empty world");
        assert_eq!(loaded.resource::<Focus>(), &Focus(map.get(b).unwrap()), "busy {busy_first}");
        let aimed: Vec<Entity> = loaded.resource::<Messages<Aimed>>().iter().map(|m| m.at).collect();
        assert_eq!(aimed, [map.get(a).unwrap(), map.get(b).unwrap()], "busy {busy_first}");
    }
}

#[test]
fn loading_into_a_busy_world_remaps_every_reference() {
    let world = sample();
    let mut busy = World::new();
    let mine = busy.spawn(Name("mine".into()));
    let save = load_postcard_columns(&postcard_columns(&world)).unwrap();
    let map = busy.load(save);
    busy.check_invariants().unwrap();
    assert_eq!(busy.len(), world.len() + 1);
    assert_eq!(busy.get::<Name>(mine), Some(&Name("mine".into())));
    for (saved, now) in map.iter() {
        assert!(busy.contains(now));
        let mapped = |e: Entity| map.get(e).unwrap();
        assert_eq!(busy.get::<Target>(now).map(|t| t.0), world.get::<Target>(saved).map(|t| mapped(t.0)));
        assert_eq!(
            busy.get::<Squad>(now).map(|s| s.0.clone()),
            world.get::<Squad>(saved).map(|s| s.0.iter().copied().map(mapped).collect())
        );
        assert_eq!(busy.parent(now), world.parent(saved).map(mapped));
        assert_eq!(busy.children(now), world.children(saved).iter().copied().map(mapped).collect::<Vec<_>>());
        assert_eq!(busy.get::<Position>(now), world.get::<Position>(saved));
    }
    // The hierarchy's hooks work on loaded entities.
    let (_, root) = map.iter().find(|&(s, _)| !world.children(s).is_empty()).unwrap();
    busy.despawn(root).unwrap();
    busy.check_invariants().unwrap();
}

#[test]
fn the_entity_map_answers_for_saved_entities_only() {
    let mut world = sample();
    let saved: Vec<Entity> = world.iter().map(|e| e.id()).collect();
    let stale = world.spawn(());
    world.despawn(stale).unwrap();
    let reused = world.spawn(Frozen);
    let bytes = postcard_columns(&world);
    world.despawn(reused).unwrap();
    let later = world.spawn(());
    let beyond = Entity::from_bits((1 << 32) | 1_000).unwrap();
    for busy in [false, true] {
        let mut loaded = World::new();
        if busy {
            loaded.spawn(Name("mine".into()));
        }
        let save = load_postcard_columns(&bytes).unwrap();
        let order: Vec<Entity> = save.entities().collect();
        let map = loaded.load(save);
        assert_eq!(map.len(), saved.len() + 1, "busy {busy}");
        assert!(!map.is_empty());
        assert_eq!(map.iter().map(|(s, _)| s).collect::<Vec<_>>(), order, "load order");
        for (s, now) in map.iter() {
            assert_eq!(map.get(s), Some(now), "busy {busy}");
            assert_eq!(now == s, !busy, "ids kept only into an empty world");
            assert!(loaded.contains(now));
        }
        assert!(saved.iter().chain([&reused]).all(|&e| map.get(e).is_some()));
        for never in [stale, later, beyond] {
            assert_eq!(map.get(never), None, "{never} was not saved (busy {busy})");
        }
        let shown = format!("{map:?}");
        assert!(shown.contains(&format!("{reused}")), "{shown}");
    }
}

#[test]
fn an_unregistered_component_refuses_the_save_naming_it() {
    #[derive(Component, Debug)]
    struct Secret;
    let mut world = World::new();
    world.spawn((Position { x: 0.0, y: 0.0 }, Secret));
    let error = serde_json::to_string(&registry().rows(&world)).unwrap_err().to_string();
    assert!(error.contains("Secret") && error.contains("register"), "{error}");
}

#[test]
fn bad_input_is_refused_and_changes_nothing() {
    let world = sample();
    let json = json_rows(&world);
    let mut target = World::new();
    let e = target.spawn(Name("keep".into()));
    let before = dump(&target);
    type Expect = fn(&LoadError) -> bool;
    let cases: Vec<(String, Expect)> = vec![
        (json[..json.len() / 2].to_owned(), |e| matches!(e, LoadError::Format(_) | LoadError::InvalidValue { .. })),
        (json.replace("\"Velocity\"", "\"Speed\""), |e| matches!(e, LoadError::UnknownComponent(n) if n == "Speed")),
        (
            json.replace("\"b\"", "17"),
            |e| matches!(e, LoadError::InvalidValue { component, .. } if component == "Name"),
        ),
        (json.replace("\"version\":4", "\"version\":5"), |e| matches!(e, LoadError::NewerVersion { found: 5, .. })),
        (json.replace("\"Target\":\"0v1\"", "\"Target\":\"40v1\""), |e| matches!(e, LoadError::DanglingEntity { .. })),
        (json.replace("\"1v1\":{", "\"0v1\":{"), |e| matches!(e, LoadError::DuplicateEntity(_))),
    ];
    for (input, expected) in cases {
        let error = load_json_rows(&input).expect_err(&input);
        assert!(expected(&error), "{error:?} for {input}");
        assert!(!error.to_string().is_empty());
        assert_eq!(dump(&target), before);
    }
    assert_eq!(target.get::<Name>(e), Some(&Name("keep".into())));
}

/// What a load must never do, whatever the input: panic, leave the world
/// inconsistent, or change it when it fails.
fn load_or_refuse(world: &mut World, save: Result<WorldSave, LoadError>) {
    let before = dump(world);
    match save {
        Err(error) => {
            assert!(!error.to_string().is_empty());
            assert_eq!(dump(world), before, "a refused save changed the world");
        }
        Ok(save) => {
            let count = save.len();
            let map = world.load(save);
            assert_eq!(map.len(), count);
            assert!(map.iter().all(|(_, e)| world.contains(e)));
        }
    }
    world.check_invariants().unwrap();
    // Hierarchies stay finite: no load makes a cycle.
    for entity in world.iter().map(|e| e.id()).collect::<Vec<_>>() {
        assert!(world.iter_ancestors(entity).count() <= world.len());
        assert!(world.iter_descendants(entity).count() <= world.len());
    }
}

#[derive(Clone, Debug)]
enum Mutation {
    Flip(usize, u8),
    Delete(usize, usize),
    Insert(usize, u8),
    Truncate(usize),
    Repeat(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Mutation::Flip(at, byte)),
        1 => (any::<usize>(), 1..16usize).prop_map(|(at, n)| Mutation::Delete(at, n)),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Mutation::Insert(at, byte)),
        1 => any::<usize>().prop_map(Mutation::Truncate),
        1 => (any::<usize>(), 1..24usize).prop_map(|(at, n)| Mutation::Repeat(at, n)),
    ]
}

fn mutate(mut bytes: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for m in mutations {
        if bytes.is_empty() {
            break;
        }
        let len = bytes.len();
        match *m {
            Mutation::Flip(at, byte) => bytes[at % len] ^= byte.max(1),
            Mutation::Delete(at, n) => {
                let at = at % len;
                bytes.drain(at..(at + n).min(len));
            }
            Mutation::Insert(at, byte) => bytes.insert(at % (len + 1), byte),
            Mutation::Truncate(at) => bytes.truncate(at % len),
            Mutation::Repeat(at, n) => {
                let at = at % len;
                let chunk: Vec<u8> = bytes[at..(at + n).min(len)].to_vec();
                bytes.splice(at..at, chunk);
            }
        }
    }
    bytes
}

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: common::cases(192), ..ProptestConfig::default() })]

    /// Random mutations of a valid column save (postcard): an error and the
    /// world as it was, or a load that leaves a consistent world.
    #[test]
    fn mutated_column_saves_load_or_are_refused(mutations in proptest::collection::vec(mutation(), 1..4)) {
        let bytes = mutate(postcard_columns(&sample()), &mutations);
        let mut empty = World::new();
        load_or_refuse(&mut empty, load_postcard_columns(&bytes));
        let mut busy = sample();
        load_or_refuse(&mut busy, load_postcard_columns(&bytes));
    }

    /// The same for the row format (JSON text).
    #[test]
    fn mutated_row_saves_load_or_are_refused(mutations in proptest::collection::vec(mutation(), 1..4)) {
        let bytes = mutate(json_rows(&sample()).into_bytes(), &mutations);
        let text = String::from_utf8_lossy(&bytes);
        let mut empty = World::new();
        load_or_refuse(&mut empty, load_json_rows(&text));
        let mut busy = sample();
        load_or_refuse(&mut busy, load_json_rows(&text));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::cases(192), ..ProptestConfig::default() })]

    /// Digits of a JSON row save changed: entity ids, generations, slot counts
    /// and values shift while the text stays well-formed, which reaches the
    /// entity-index, reference and relationship checks and the loads that pass
    /// them.
    #[test]
    fn saves_with_shifted_numbers_load_or_are_refused(changes in proptest::collection::vec((any::<usize>(), 0..10u8), 1..3)) {
        let mut bytes = json_rows(&sample()).into_bytes();
        let digits: Vec<usize> = (0..bytes.len()).filter(|&i| bytes[i].is_ascii_digit()).collect();
        for (at, digit) in changes {
            bytes[digits[at % digits.len()]] = b'0' + digit;
        }
        let text = String::from_utf8(bytes).unwrap();
        let mut empty = World::new();
        load_or_refuse(&mut empty, load_json_rows(&text));
        let mut busy = sample();
        load_or_refuse(&mut busy, load_json_rows(&text));
    }
}

/// Plain old data: compact column saves write these columns as their bytes.
#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize, bytemuck::Pod, bytemuck::Zeroable)]
#[component(pod)]
#[repr(C)]
struct Body {
    mass: f32,
    hits: u32,
}

/// The same name and size as `Body`, but not `pod`.
#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct FakeBody {
    mass: f32,
    hits: u32,
}

/// `pod`, but of another size than `Body`.
#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize, bytemuck::Pod, bytemuck::Zeroable)]
#[component(pod)]
#[repr(C)]
struct WideBody {
    mass: f64,
    hits: u64,
}

fn bodies() -> World {
    let mut world = World::new();
    // 3,000 names (24 bytes in memory each) take three byte strings.
    world.spawn_batch(
        (0..3_000u32).map(|i| (Body { mass: i as f32 * 0.5, hits: i }, Velocity(i as f32), Name(format!("n{i}")))),
    );
    world.spawn((Body { mass: -1.0, hits: 7 }, Stunned(3)));
    world
}

fn body_registry() -> SerializeRegistry {
    registry().register::<Body>("Body")
}

#[test]
fn pod_columns_round_trip_as_their_bytes_and_others_in_chunks() {
    let mut world = bodies();
    let tick = world.change_tick();
    // Change a few values later, so the ticks are not one run.
    world.increment_change_tick();
    let changed: Vec<Entity> = world.query::<Entity>().iter().step_by(97).collect();
    for &e in &changed {
        world.get_mut::<Velocity>(e).unwrap().0 += 1.0;
    }
    let bytes = postcard::to_allocvec(&body_registry().columns(&world)).unwrap();
    // The `Body` column is in the save byte for byte.
    let raw: Vec<u8> = (0..4u32).flat_map(|i| [(i as f32 * 0.5).to_le_bytes(), i.to_le_bytes()].concat()).collect();
    assert!(bytes.windows(raw.len()).any(|w| w == raw), "the pod column is saved as it is in memory");
    let mut loaded = World::new();
    loaded.load(body_registry().load_columns(&mut postcard::Deserializer::from_bytes(&bytes)).unwrap());
    loaded.check_invariants().unwrap();
    assert_eq!(dump(&loaded), dump(&world));
    let bodies = |w: &World| w.iter().map(|e| e.get::<Body>().copied()).collect::<Vec<_>>();
    assert_eq!(bodies(&loaded), bodies(&world));
    // Ticks came through: exactly the changed velocities are newer than `tick`.
    let mut expected = changed.clone();
    expected.sort();
    assert_eq!(changed_since(&mut loaded, tick), expected);
    assert_eq!(changed_since(&mut world, tick), expected);
}

/// The entities whose `Velocity` changed after `tick` (small ticks, no wrap).
fn changed_since(world: &mut World, tick: ecs_core::change_detection::Tick) -> Vec<Entity> {
    let entities: Vec<Entity> = world.iter().map(|e| e.id()).collect();
    let mut found: Vec<Entity> = entities
        .into_iter()
        .filter(|&e| world.get_mut::<Velocity>(e).and_then(|v| v.last_changed()).is_some_and(|t| t.get() > tick.get()))
        .collect();
    found.sort();
    found
}

#[test]
fn raw_bytes_for_a_type_that_is_not_pod_or_of_another_size_are_refused() {
    let bytes = postcard::to_allocvec(&body_registry().columns(&bodies())).unwrap();
    let mut target = World::new();
    let e = target.spawn(Name("keep".into()));
    let before = dump(&target);
    let not_pod = registry().register::<FakeBody>("Body");
    let error = not_pod.load_columns(&mut postcard::Deserializer::from_bytes(&bytes)).err().unwrap();
    assert!(
        matches!(&error, LoadError::InvalidValue { component, message, .. } if component == "Body" && message.contains("raw bytes")),
        "{error:?}"
    );
    let wide = registry().register::<WideBody>("Body");
    let error = wide.load_columns(&mut postcard::Deserializer::from_bytes(&bytes)).err().unwrap();
    assert!(
        matches!(&error, LoadError::InvalidValue { component, message, .. } if component == "Body" && message.contains("bytes of values")),
        "{error:?}"
    );
    assert_eq!(dump(&target), before);
    assert_eq!(target.get::<Name>(e), Some(&Name("keep".into())));
}

#[test]
fn a_column_with_too_few_or_too_many_values_is_refused() {
    // A world of one `Velocity` column, saved, then loaded by a registry that
    // reads it as `Position` (two floats per value): half as many values.
    let mut world = World::new();
    world.spawn_batch((0..10).map(|i| (Velocity(i as f32),)));
    let bytes = postcard::to_allocvec(&registry().columns(&world)).unwrap();
    let swapped = SerializeRegistry::new().register::<Position>("Velocity");
    let error = swapped.load_columns(&mut postcard::Deserializer::from_bytes(&bytes)).err().unwrap();
    assert!(matches!(&error, LoadError::InvalidValue { component, .. } if component == "Velocity"), "{error:?}");
    // And a `Position` column read as `Velocity`: values left over.
    let mut world = World::new();
    world.spawn_batch((0..10).map(|i| (Position { x: i as f32, y: 0.0 },)));
    let bytes = postcard::to_allocvec(&registry().columns(&world)).unwrap();
    let swapped = SerializeRegistry::new().register::<Velocity>("Position");
    let error = swapped.load_columns(&mut postcard::Deserializer::from_bytes(&bytes)).err().unwrap();
    assert!(matches!(&error, LoadError::InvalidValue { component, .. } if component == "Position"), "{error:?}");
}

/// A relationship target kept in a `Vec<Entity>` (bevy_ecs's form).
#[derive(Component, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[relationship(target = Passengers)]
struct Aboard(Entity);
#[derive(Component, Default, Debug)]
#[relationship_target(relationship = Aboard)]
struct Passengers(Vec<Entity>);

#[test]
fn a_target_kept_in_a_vec_saves_and_loads_in_link_order() {
    let registry = SerializeRegistry::new().register_relationship::<Aboard>("Aboard", "Passengers");
    let mut world = World::new();
    let ship = world.spawn(());
    let people: Vec<Entity> = (0..3).map(|_| world.spawn(Aboard(ship))).collect();
    world.remove::<Aboard>(people[1]).unwrap();
    world.insert(people[1], Aboard(ship)).unwrap();
    let expected = [people[0], people[2], people[1]];
    assert_eq!(world.get::<Passengers>(ship).unwrap().0, expected);
    let json = serde_json::to_string(&registry.rows(&world)).unwrap();
    let bytes = postcard::to_allocvec(&registry.columns(&world)).unwrap();
    for save in [
        registry.load_rows(&mut serde_json::Deserializer::from_str(&json)).unwrap(),
        registry.load_columns(&mut postcard::Deserializer::from_bytes(&bytes)).unwrap(),
    ] {
        let mut loaded = World::new();
        loaded.load(save);
        assert_eq!(loaded.get::<Passengers>(ship).unwrap().0, expected);
        assert!(expected.iter().all(|&p| loaded.get::<Aboard>(p) == Some(&Aboard(ship))));
    }
}

#[test]
fn a_reference_to_a_despawned_entity_is_refused_at_save_time_naming_it() {
    let registry = registry();
    let mut world = World::new();
    let ghost = world.spawn(Position { x: 0.0, y: 0.0 });
    let hunter = world.spawn(Target(ghost));
    let squad = world.spawn(Squad(vec![hunter, Entity::PLACEHOLDER]));
    world.despawn(ghost).unwrap();
    for result in [serde_json::to_vec(&registry.rows(&world)), serde_json::to_vec(&registry.columns(&world))] {
        let message = result.expect_err("a dangling reference is refused").to_string();
        assert!(message.contains("Target") && message.contains(&format!("{hunter}")), "{message}");
        assert!(message.contains(&format!("{ghost}")) && message.contains("not alive"), "{message}");
    }
    // Pointing it at a live entity (the placeholder names none and is kept) saves.
    world.insert(hunter, Target(squad)).unwrap();
    let bytes = serde_json::to_vec(&registry.rows(&world)).unwrap();
    let mut loaded = World::new();
    loaded.load(registry.load_rows(&mut serde_json::Deserializer::from_slice(&bytes)).unwrap());
    assert_eq!(loaded.get::<Squad>(squad), Some(&Squad(vec![hunter, Entity::PLACEHOLDER])));
}

#[test]
fn a_reference_to_an_entity_the_save_leaves_out_is_refused_too() {
    #[derive(Event)]
    struct Ping;
    let registry = registry();
    let mut world = World::new();
    let observer = world.add_observer(|_: On<Ping>| {});
    let hunter = world.spawn(Target(observer));
    let message = serde_json::to_vec(&registry.columns(&world)).expect_err("refused").to_string();
    assert!(message.contains(&format!("{hunter}")) && message.contains(&format!("{observer}")), "{message}");
    assert!(message.contains("leaves out"), "{message}");
}

/// Refuses to be written when it holds `u32::MAX`, and panics when it holds
/// `u32::MAX - 1`.
#[derive(Component, Clone, Copy, Debug, PartialEq, Deserialize)]
struct Picky(u32);

impl Serialize for Picky {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            u32::MAX => Err(serde::ser::Error::custom("picky refuses u32::MAX")),
            n if n == u32::MAX - 1 => panic!("picky panics"),
            n => serializer.serialize_u32(n),
        }
    }
}

#[derive(Component, Clone, Copy, Debug, PartialEq, Deserialize)]
#[component(storage = "sparse")]
struct SparsePicky(Picky);

impl Serialize for SparsePicky {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

#[test]
fn a_value_that_fails_or_panics_while_saving_refuses_the_save_and_the_next_save_works() {
    let registry = SerializeRegistry::new().register::<Picky>("Picky").register::<SparsePicky>("SparsePicky");
    let save = |world: &World| postcard::to_allocvec(&registry.columns(world));
    for sparse in [false, true] {
        let mut world = World::new();
        let spawn =
            |world: &mut World, n: u32| if sparse { world.spawn(SparsePicky(Picky(n))) } else { world.spawn(Picky(n)) };
        // Enough values for several byte strings, the bad one in the middle.
        let all: Vec<Entity> = (0..20_000).map(|n| spawn(&mut world, n)).collect();
        let bad = all[12_345];
        let set = |world: &mut World, n: u32| {
            if sparse {
                world.insert(bad, SparsePicky(Picky(n))).unwrap();
            } else {
                world.insert(bad, Picky(n)).unwrap();
            }
        };
        set(&mut world, u32::MAX);
        save(&world).expect_err("the value's error refuses the save");
        set(&mut world, u32::MAX - 1);
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| save(&world)));
        assert!(panicked.is_err(), "the value's panic comes through");
        world.check_invariants().unwrap();
        set(&mut world, 7);
        let bytes = save(&world).expect("saves once the value is fine");
        let mut loaded = World::new();
        loaded.load(registry.load_columns(&mut postcard::Deserializer::from_bytes(&bytes)).unwrap());
        let value = |world: &World, e| {
            if sparse { world.get::<SparsePicky>(e).map(|p| p.0) } else { world.get::<Picky>(e).copied() }
        };
        assert_eq!(value(&loaded, bad), Some(Picky(7)));
        assert_eq!(value(&loaded, all[19_999]), Some(Picky(19_999)));
        assert_eq!(loaded.len(), 20_000);
    }
}

std::thread_local!(static LOADED_DROPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) });

/// Saved as its number; a value read back counts its drop. Reading 666 fails
/// and reading 667 panics.
#[derive(Component, Debug, Serialize)]
struct Counted {
    n: u32,
    #[serde(skip)]
    loaded: bool,
}

impl Drop for Counted {
    fn drop(&mut self) {
        if self.loaded {
            LOADED_DROPS.with(|d| d.set(d.get() + 1));
        }
    }
}

impl<'de> Deserialize<'de> for Counted {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match u32::deserialize(deserializer)? {
            666 => Err(serde::de::Error::custom("counted refuses 666")),
            667 => panic!("counted panics at 667"),
            n => Ok(Counted { n, loaded: true }),
        }
    }
}

#[test]
fn a_value_that_fails_or_panics_while_loading_drops_each_value_read_before_it_once() {
    let registry = SerializeRegistry::new().register::<Counted>("Counted");
    // The bad value at an odd and an even row (values are read two at a time).
    for (bad, panics, at) in [(666, false, 12_345), (667, true, 12_345), (666, false, 12_346), (667, true, 12_346)] {
        let mut world = World::new();
        // Several byte strings of values, the bad one past the first.
        let all: Vec<Entity> = (1_000..21_000).map(|n| world.spawn(Counted { n, loaded: false })).collect();
        world.get_mut::<Counted>(all[at]).unwrap().n = bad;
        let bytes = postcard::to_allocvec(&registry.columns(&world)).unwrap();
        LOADED_DROPS.with(|d| d.set(0));
        let load = || registry.load_columns(&mut postcard::Deserializer::from_bytes(&bytes));
        if panics {
            let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(load));
            assert!(panicked.is_err(), "the value's panic comes through");
        } else {
            let message = load().expect_err("the value's error refuses the save").to_string();
            assert!(message.contains("Counted") && message.contains(&format!("{}", all[at])), "{message}");
        }
        assert_eq!(LOADED_DROPS.with(|d| d.get()), at, "each value read before the bad one dropped once");
        // The values after the bad one load once it is fine.
        world.get_mut::<Counted>(all[at]).unwrap().n = 7;
        let bytes = postcard::to_allocvec(&registry.columns(&world)).unwrap();
        let mut loaded = World::new();
        loaded.load(registry.load_columns(&mut postcard::Deserializer::from_bytes(&bytes)).unwrap());
        assert_eq!(loaded.get::<Counted>(all[at]).map(|c| c.n), Some(7));
        assert_eq!(loaded.get::<Counted>(all[19_999]).map(|c| c.n), Some(20_999));
    }
}

#[test]
fn change_ticks_in_runs_of_every_length_come_through_exactly() {
    let mut world = World::new();
    let all: Vec<Entity> = world.spawn_batch((0..600u32).map(|i| Velocity(i as f32))).collect();
    // Runs of rows written at their own tick, of lengths around the 16 the
    // saver compares at once, the last run ending the column.
    let mut row = 0;
    for length in [1, 15, 16, 17, 31, 32, 33, 2, 48, 47, 64, 5, 16] {
        world.increment_change_tick();
        for &e in &all[row..row + length] {
            world.get_mut::<Velocity>(e).unwrap().0 += 1.0;
        }
        row += length;
        // Every other run is followed by untouched rows (still the spawn's tick).
        if length % 2 == 0 {
            row += 3;
        }
    }
    world.increment_change_tick();
    for &e in &all[row..] {
        world.get_mut::<Velocity>(e).unwrap().0 += 1.0;
    }
    let bytes = postcard::to_allocvec(&registry().columns(&world)).unwrap();
    let mut loaded = World::new();
    loaded.load(registry().load_columns(&mut postcard::Deserializer::from_bytes(&bytes)).unwrap());
    let ticks = |world: &mut World| -> Vec<Option<u32>> {
        all.iter().map(|&e| world.get_mut::<Velocity>(e).and_then(|v| v.last_changed()).map(|t| t.get())).collect()
    };
    let saved = ticks(&mut world);
    assert!(saved.windows(2).filter(|w| w[0] != w[1]).count() > 15, "many runs: {saved:?}");
    assert_eq!(ticks(&mut loaded), saved);
}

#[test]
fn entities_spawned_together_take_a_byte_each_in_compact_saves() {
    let mut world = World::new();
    world.spawn_batch((0..10_000u32).map(|i| Velocity(i as f32)));
    let bytes = postcard_columns(&world);
    // Four bytes a value (a postcard `f32`), one an entity, and the frame.
    assert!(bytes.len() < 10_000 * 5 + 200, "{} bytes for 10,000 entities", bytes.len());
}

#[test]
fn entities_of_every_generation_and_order_round_trip_in_compact_saves() {
    let mut world = World::new();
    let mut alive: Vec<Entity> = world.spawn_batch((0..3000u32).map(|i| Velocity(i as f32))).collect();
    // Churn with a fixed sequence: despawns leave holes and free slots,
    // respawns reuse them in new generations and out of index order, inserts
    // move entities to another archetype in the middle of its rows.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |bound: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % bound as u64) as usize
    };
    for round in 0..4000 {
        match next(3) {
            0 if !alive.is_empty() => {
                let e = alive.swap_remove(next(alive.len()));
                world.despawn(e).unwrap();
            }
            1 => alive.push(world.spawn(Velocity(round as f32))),
            _ if !alive.is_empty() => {
                let e = alive[next(alive.len())];
                world.insert(e, Position { x: round as f32, y: 0.0 }).unwrap();
            }
            _ => {}
        }
    }
    assert!(alive.iter().any(|e| e.generation().get() > 2), "slots reused more than once");
    let bytes = postcard_columns(&world);
    let mut loaded = World::new();
    loaded.load(load_postcard_columns(&bytes).unwrap());
    loaded.check_invariants().unwrap();
    assert_eq!(dump(&loaded), dump(&world));
    assert!(alive.iter().all(|&e| loaded.get::<Velocity>(e) == world.get::<Velocity>(e)));
    assert_eq!(loaded.spawn(()), world.spawn(()), "the free list came through");
}

/// A byte string, as the compact column format writes its strings.
struct ByteString(Vec<u8>);

impl Serialize for ByteString {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.0)
    }
}

#[test]
fn compact_saves_of_format_version_3_still_load() {
    // Version 3 wrote an archetype's entities one 64-bit handle each; this is
    // a save of two `Velocity`s in that layout, written field by field.
    let (a, b) = (Entity::from_bits(1 << 32).unwrap(), Entity::from_bits(3 << 32 | 1).unwrap());
    let mut chunk = postcard::to_allocvec(&2u32).unwrap();
    chunk.extend(postcard::to_allocvec(&Velocity(1.5)).unwrap());
    chunk.extend(postcard::to_allocvec(&Velocity(-2.0)).unwrap());
    let column = (0u8, vec![ByteString(chunk)], vec![(2u32, 1u32, 1u32)]);
    let archetype = (vec!["Velocity"], vec![a, b], vec![column]);
    let no_entities: Vec<Entity> = Vec::new();
    let resources: std::collections::BTreeMap<String, u8> = Default::default();
    let save = (3u32, 2u32, 0u32, Vec::<u32>::new(), 2u32, &no_entities, &no_entities, vec![archetype], resources, ());
    let mut bytes = postcard::to_allocvec(&save).unwrap();
    // No locals: an empty sequence (the `()` above wrote nothing).
    bytes.push(0);
    let mut loaded = World::new();
    loaded.load(load_postcard_columns(&bytes).unwrap());
    loaded.check_invariants().unwrap();
    assert_eq!((loaded.get::<Velocity>(a), loaded.get::<Velocity>(b)), (Some(&Velocity(1.5)), Some(&Velocity(-2.0))));
    assert_eq!(loaded.len(), 2);
    // The same save claiming version 4 reads its entities as a byte string,
    // and is refused instead of misread.
    bytes[0] = 4;
    assert!(load_postcard_columns(&bytes).is_err());
}

/// A resource whose `Drop` panics for a value of 1 (the world's, replaced by
/// the load).
#[derive(Debug, Serialize, Deserialize)]
struct Loud(u32);
impl Drop for Loud {
    fn drop(&mut self) {
        if self.0 == 1 && !std::thread::panicking() {
            panic!("loud drop");
        }
    }
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Score(u32);

/// A replaced resource's `Drop` that panics does not stop the load half-way:
/// every saved resource (and entity) is in place, then the panic goes on.
#[test]
fn a_panicking_drop_of_a_replaced_resource_finds_the_load_complete() {
    let registry = SerializeRegistry::new()
        .register::<Position>("Position")
        .register_resource::<Loud>("Loud")
        .register_resource::<Score>("Score");
    let mut source = World::new();
    source.spawn(Position { x: 1.0, y: 2.0 });
    source.insert_resource(Loud(0));
    source.insert_resource(Score(5));
    let bytes = postcard::to_allocvec(&registry.columns(&source)).unwrap();
    let mut target = World::new();
    target.insert_resource(Loud(1));
    target.insert_resource(Score(0));
    let save = registry.load_columns(&mut postcard::Deserializer::from_bytes(&bytes)).unwrap();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| target.load(save)));
    assert!(result.is_err(), "the drop's panic goes on");
    assert_eq!(target.resource::<Loud>().0, 0);
    assert_eq!(target.resource::<Score>(), &Score(5), "loaded although an earlier resource's drop panicked");
    assert_eq!(target.query::<&Position>().iter().count(), 1);
    target.check_invariants().unwrap();
}

/// A list emptied by an operation still under way (a save taken from a hook or
/// an observer) is saved empty; the load removes it, as the world would have.
#[test]
fn an_empty_relationship_list_in_a_save_is_removed_on_load() {
    let world = sample();
    let json = json_rows(&world).replace("\"2v2\":{}", "\"2v2\":{\"Children\":[]}");
    for mut target in [World::new(), sample()] {
        // A load runs no hook or observer, this one included.
        target.add_observer(|_: On<Remove, Children>| panic!("an observer ran during a load"));
        let map = target.load(load_json_rows(&json).unwrap());
        let loaded = map.get(Entity::from_bits(2 << 32 | 2).unwrap()).unwrap();
        assert!(target.contains(loaded) && !target.has::<Children>(loaded), "the empty list stays");
        target.check_invariants().unwrap();
    }
}
