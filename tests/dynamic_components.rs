//! Components defined at run time: registration, values by id, builders,
//! hooks and snapshots, with typed components alongside.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ecs_core::component::{ComponentDescriptor, ComponentId, FieldKind, SchemaBuilder, enum_schema};
use ecs_core::prelude::*;
use ecs_core::world::{DynamicValue, EntityBuilder, EntityBuilderClone, RegisterError};

fn health_schema() -> &'static ecs_core::component::Schema {
    let state = enum_schema("Mood", &[("Calm", 0), ("Angry", 3)]).unwrap();
    SchemaBuilder::new("Health")
        .field("hp", FieldKind::I32)
        .field("name", FieldKind::String)
        .field("tags", FieldKind::array(FieldKind::String, 2))
        .field("mood", FieldKind::Enum(state))
        .field("target", FieldKind::Entity)
        .build()
        .unwrap()
}

fn health(world: &mut World) -> ComponentId {
    world.register_dynamic(&ComponentDescriptor::new("Health", health_schema())).unwrap()
}

#[test]
fn one_definition_is_one_id_in_every_world_and_a_clash_names_both() {
    let mut a = World::new();
    let mut b = World::new();
    let id = health(&mut a);
    assert_eq!(health(&mut a), id);
    assert_eq!(health(&mut b), id, "ids are process-wide");
    assert_eq!(a.component_id_by_name("Health"), Some(id));
    assert!(a.components().get(id).unwrap().is_dynamic());

    let other = SchemaBuilder::new("Health").field("hp", FieldKind::F32).build().unwrap();
    let err = a.register_dynamic(&ComponentDescriptor::new("Health", other)).unwrap_err();
    let RegisterError::NameTaken { registered, requested, .. } = &err else { panic!("{err:?}") };
    assert!(registered.contains("hp: i32") && registered.contains("name: String"), "{registered}");
    assert!(requested.contains("hp: f32"), "{requested}");
    assert!(err.to_string().contains("Health"));
}

#[test]
fn values_by_id_are_read_written_removed_and_dropped() {
    let mut world = World::new();
    let id = health(&mut world);
    let mut value = DynamicValue::new(&world, id).unwrap();
    assert_eq!(value.view().get::<i32>("hp"), Ok(0));
    assert_eq!(value.view().variant("mood"), Ok("Calm"));
    assert_eq!(value.view().get::<Entity>("target"), Ok(Entity::PLACEHOLDER));
    value.set("hp", 40).unwrap().set_string("name", "orc").unwrap().set_string("tags[1]", "big").unwrap();
    value.set_variant("mood", "Angry").unwrap();
    assert!(value.set("hp", 1.0f32).is_err(), "no reinterpretation");
    assert!(value.set("nope", 1).is_err());
    let copy = value.clone();

    let e = world.spawn(());
    world.entity_mut(e).unwrap().insert_by_id(id, value).unwrap();
    {
        let view = world.get_by_id(e, id).unwrap();
        assert_eq!(view.get::<i32>("hp"), Ok(40));
        assert_eq!(view.get_str("name"), Ok("orc"));
        assert_eq!(view.get_str("tags[1]"), Ok("big"));
        assert_eq!(view.variant("mood"), Ok("Angry"));
    }
    world.get_mut_by_id(e, id).unwrap().set_string("name", "troll").unwrap();
    // Replacing drops the old value (valgrind checks the strings are freed).
    world.entity_mut(e).unwrap().insert_by_id(id, copy).unwrap();
    assert_eq!(world.get_by_id(e, id).unwrap().get_str("name"), Ok("orc"));
    world.entity_mut(e).unwrap().remove_by_id(id).unwrap();
    assert!(world.get_by_id(e, id).is_err());
    assert!(matches!(world.remove_by_id(e, id), Err(EcsError::MissingComponent { .. })));

    let f = world.spawn(());
    let mut value = DynamicValue::new(&world, id).unwrap();
    value.set_string("name", "left in the world").unwrap();
    world.insert_by_id(f, id, value).unwrap();
    world.despawn(f).unwrap();
    let g = world.spawn(());
    world.insert_by_id(g, id, DynamicValue::new(&world, id).unwrap()).unwrap();
    drop(world);
}

#[test]
fn wrong_ids_are_errors_that_change_nothing() {
    let mut world = World::new();
    let id = health(&mut world);
    let mana = SchemaBuilder::new("Mana").field("points", FieldKind::F32).build().unwrap();
    let mana = world.register_dynamic(&ComponentDescriptor::new("Mana", mana)).unwrap();
    let e = world.spawn(());
    let value = DynamicValue::new(&world, id).unwrap();
    assert!(matches!(world.insert_by_id(e, mana, value), Err(EcsError::ValueOfOtherComponent { .. })));
    assert!(world.get_by_id(e, mana).is_err());

    let mut fresh = World::new();
    assert!(matches!(DynamicValue::new(&fresh, id), Err(EcsError::UnknownComponent { .. })));
    let e = fresh.spawn(());
    assert!(matches!(fresh.remove_by_id(e, id), Err(EcsError::UnknownComponent { .. })));
    let parent = world.spawn(());
    let child = world.spawn(ChildOf(parent));
    let child_of = world.component_id_by_name("ChildOf").unwrap();
    assert!(matches!(world.remove_by_id(child, child_of), Err(EcsError::RelationshipById { .. })));
    assert!(world.get::<ChildOf>(child).is_some());
}

#[test]
fn sparse_and_per_field_runtime_components_hold_their_values() {
    let mut world = World::new();
    let vec = SchemaBuilder::new("Vel").field("x", FieldKind::F32).field("y", FieldKind::F32).build().unwrap();
    let sparse = world.register_dynamic(&ComponentDescriptor::new("Burning", health_schema()).sparse()).unwrap();
    let soa = world.register_dynamic(&ComponentDescriptor::new("Vel", vec).per_field()).unwrap();
    let mut entities = Vec::new();
    for i in 0..10 {
        let e = world.spawn(());
        let mut v = DynamicValue::new(&world, soa).unwrap();
        v.set("x", i as f32).unwrap().set("y", -(i as f32)).unwrap();
        world.insert_by_id(e, soa, v).unwrap();
        if i % 2 == 0 {
            let mut b = DynamicValue::new(&world, sparse).unwrap();
            b.set_string("name", format!("fire {i}")).unwrap();
            world.insert_by_id(e, sparse, b).unwrap();
        }
        entities.push(e);
    }
    let query = world.dynamic_query().read(soa).build(&world).unwrap();
    let mut xs = Vec::new();
    query.for_each_archetype(&world, |a| xs.extend_from_slice(a.field::<f32>(soa, "x").unwrap()));
    xs.sort_by(f32::total_cmp);
    assert_eq!(xs, (0..10).map(|i| i as f32).collect::<Vec<_>>());
    for (i, &e) in entities.iter().enumerate() {
        let name = world.get_by_id(e, sparse).ok().map(|v| v.get_str("name").unwrap().to_owned());
        assert_eq!(name, (i % 2 == 0).then(|| format!("fire {i}")));
    }
    world.remove_by_id(entities[0], sparse).unwrap();
    world.remove_by_id(entities[1], soa).unwrap();
    assert!(world.get_by_id(entities[0], sparse).is_err());
}

#[derive(Component, Debug, PartialEq, Clone)]
#[component(describe)]
struct Stats {
    level: u8,
    title: String,
}

#[test]
fn a_described_rust_component_is_inserted_by_id_with_its_hooks() {
    let mut world = World::new();
    let added = Arc::new(AtomicUsize::new(0));
    let seen = added.clone();
    world.add_observer(move |_: On<Add, Stats>| {
        seen.fetch_add(1, Ordering::Relaxed);
    });
    let id = world.register_component::<Stats>();
    let mut value = DynamicValue::new(&world, id).unwrap();
    value.set("level", 3u8).unwrap().set_string("title", "knight").unwrap();
    let e = world.spawn(());
    world.insert_by_id(e, id, value).unwrap();
    assert_eq!(world.get::<Stats>(e), Some(&Stats { level: 3, title: "knight".into() }));
    assert_eq!(added.load(Ordering::Relaxed), 1);
    world.remove_by_id(e, id).unwrap();
    assert!(world.get::<Stats>(e).is_none());
}

struct Counted(Arc<AtomicUsize>);
impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}
#[derive(Component)]
struct Owned(#[allow(dead_code)] Counted);
#[derive(Component, Debug, PartialEq, Clone)]
struct Pos(f32, f32);

#[test]
fn entity_builder_spawns_typed_and_dynamic_components_in_one_move() {
    let drops = Arc::new(AtomicUsize::new(0));
    let mut world = World::new();
    let id = health(&mut world);
    let mut builder = EntityBuilder::new();
    let mut value = DynamicValue::new(&world, id).unwrap();
    value.set("hp", 9).unwrap();
    builder.add(Pos(1.0, 2.0)).add(Owned(Counted(drops.clone()))).add_dynamic(value);
    builder.add(Owned(Counted(drops.clone())));
    assert_eq!(drops.load(Ordering::Relaxed), 1, "a replaced value is dropped");
    assert_eq!(builder.get::<Pos>(), Some(&Pos(1.0, 2.0)));
    let e = builder.spawn(&mut world).unwrap();
    assert_eq!(world.get::<Pos>(e), Some(&Pos(1.0, 2.0)));
    assert_eq!(world.get_by_id(e, id).unwrap().get::<i32>("hp"), Ok(9));
    assert!(world.get::<Owned>(e).is_some());
    // Same components, another order: the same archetype.
    let archetypes = world.archetypes().len();
    builder.add_dynamic(DynamicValue::new(&world, id).unwrap()).add(Owned(Counted(drops.clone()))).add(Pos(0.0, 0.0));
    builder.spawn(&mut world).unwrap();
    assert_eq!(world.archetypes().len(), archetypes, "the same archetype");
    builder.add(Owned(Counted(drops.clone())));
    drop(builder);
    assert_eq!(drops.load(Ordering::Relaxed), 2, "an unspawned builder drops its values");
    world.despawn(e).unwrap();
    assert_eq!(drops.load(Ordering::Relaxed), 3);

    let mut other = World::new();
    let mut builder = EntityBuilder::new();
    builder.add(Pos(5.0, 5.0)).add_dynamic(DynamicValue::new(&world, id).unwrap());
    assert!(matches!(builder.spawn(&mut other), Err(EcsError::UnknownComponent { .. })));
    assert!(builder.has::<Pos>(), "a failed spawn keeps the values");
    health(&mut other);
    builder.spawn(&mut other).unwrap();
}

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Byte(u8);
#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Wide([u64; 3]);

/// A builder reused for many entities spawns each with its own values,
/// whatever order and replacements its adds came in (the layout of its
/// buffer then differs from one spawn to the next).
#[test]
fn a_reused_entity_builder_spawns_each_entity_with_its_own_values() {
    let mut world = World::new();
    let mut builder = EntityBuilder::new();
    let mut spawned = Vec::new();
    for i in 0..12u8 {
        let wide = Wide([u64::from(i); 3]);
        match i % 4 {
            0 | 1 => builder.add(Byte(i)).add(wide).add(Pos(f32::from(i), 0.0)),
            // Another order: the same archetype, other offsets.
            2 => builder.add(Pos(f32::from(i), 0.0)).add(wide).add(Byte(i)),
            // A replacement: the entry moves to the end, its room stays, so
            // the order is the last spawn's at other offsets.
            _ => builder.add(Byte(0)).add(wide).add(Pos(f32::from(i), 0.0)).add(Byte(i)),
        };
        spawned.push((builder.spawn(&mut world).unwrap(), i));
    }
    for (e, i) in spawned {
        assert_eq!(world.get::<Byte>(e), Some(&Byte(i)));
        assert_eq!(world.get::<Wide>(e), Some(&Wide([u64::from(i); 3])));
        assert_eq!(world.get::<Pos>(e), Some(&Pos(f32::from(i), 0.0)));
    }
}

#[derive(Component, Debug, PartialEq, Clone, Copy)]
#[repr(align(64))]
struct Aligned([u8; 3]);
#[derive(Component, Debug, PartialEq)]
#[repr(align(32))]
struct AlignedTag;

/// Values of large alignment sit aligned in a builder (its buffer grows to
/// the most demanding one), before and after a spawn empties it, beside a
/// zero-sized one of large alignment (whose slot a unit test checks: `get`
/// never hands a zero-sized value's slot out).
#[test]
fn an_entity_builder_keeps_every_value_aligned() {
    let mut world = World::new();
    let mut builder = EntityBuilder::new();
    for i in 0..3u8 {
        builder.add(AlignedTag).add(Byte(i)).add(Aligned([i; 3]));
        let at = builder.get::<Aligned>().unwrap() as *const Aligned as usize;
        assert_eq!(at % 64, 0, "an align(64) value at {at:#x}");
        let e = builder.spawn(&mut world).unwrap();
        assert_eq!(world.get::<Aligned>(e), Some(&Aligned([i; 3])));
        assert_eq!(world.get::<Byte>(e), Some(&Byte(i)));
        assert!(world.get::<AlignedTag>(e).is_some());
    }
}

/// Lookups by id of many components of every storage kind, whose tables
/// grow and move as archetypes are made in between: each reads its own
/// entity's value (the world keeps a small cache of some components' tables
/// for these lookups, which must follow every table it copies).
#[test]
fn lookups_by_id_follow_every_component_through_new_archetypes() {
    let mut world = World::new();
    let ids: Vec<ComponentId> = (0..20)
        .map(|i| {
            let name = format!("Lookup{i}");
            let schema = SchemaBuilder::new(&name).field("v", FieldKind::I64).build().unwrap();
            let descriptor = ComponentDescriptor::new(name, schema);
            let descriptor = match i % 3 {
                0 => descriptor,
                1 => descriptor.sparse(),
                _ => descriptor.per_field(),
            };
            world.register_dynamic(&descriptor).unwrap()
        })
        .collect();
    let mut expected: Vec<(Entity, Vec<(ComponentId, i64)>)> = Vec::new();
    for round in 0..6i64 {
        for (n, &id) in ids.iter().enumerate() {
            // Each entity holds `id` and the next component: one archetype per
            // pair, made in an order that moves the tables made before.
            let other = ids[(n + 1 + round as usize) % ids.len()];
            let e = world.spawn(());
            let mut values = Vec::new();
            for (k, &c) in [id, other].iter().enumerate() {
                let v = round * 1000 + n as i64 * 10 + k as i64;
                let mut value = DynamicValue::new(&world, c).unwrap();
                value.set("v", v).unwrap();
                world.entity_mut(e).unwrap().insert_by_id(c, value).unwrap();
                values.push((c, v));
            }
            expected.push((e, values));
        }
        world.check_invariants().unwrap();
        for (e, values) in &expected {
            for &(c, v) in values {
                assert_eq!(world.get_by_id(*e, c).unwrap().get::<i64>("v"), Ok(v));
            }
            let missing = ids.iter().find(|id| values.iter().all(|(c, _)| c != *id)).unwrap();
            assert!(matches!(world.get_by_id(*e, *missing), Err(EcsError::MissingComponent { .. })));
        }
    }
    let (e, values) = expected.swap_remove(3);
    world.despawn(e).unwrap();
    assert!(matches!(world.get_by_id(e, values[0].0), Err(EcsError::NoSuchEntity(_))));
    for (e, values) in &expected {
        assert_eq!(world.get_by_id(*e, values[1].0).unwrap().get::<i64>("v"), Ok(values[1].1));
    }
}

#[test]
fn entity_builder_clone_spawns_many_copies() {
    let mut world = World::new();
    let id = health(&mut world);
    let mut prefab = EntityBuilderClone::new();
    let mut value = DynamicValue::new(&world, id).unwrap();
    value.set_string("name", "goblin").unwrap();
    prefab.add(Pos(3.0, 4.0)).add_dynamic(value);
    let prefab = prefab.build();
    let spawned: Vec<Entity> = (0..5).map(|_| prefab.spawn(&mut world).unwrap()).collect();
    for &e in &spawned {
        assert_eq!(world.get::<Pos>(e), Some(&Pos(3.0, 4.0)));
        assert_eq!(world.get_by_id(e, id).unwrap().get_str("name"), Ok("goblin"));
    }
    world.get_mut_by_id(spawned[0], id).unwrap().set_string("name", "changed").unwrap();
    assert_eq!(world.get_by_id(spawned[1], id).unwrap().get_str("name"), Ok("goblin"), "each spawn is a copy");
}

#[test]
fn snapshots_clone_runtime_components_by_schema() {
    let mut world = World::new();
    let id = health(&mut world);
    let e = world.spawn(());
    let mut value = DynamicValue::new(&world, id).unwrap();
    value.set_string("name", "before").unwrap();
    world.insert_by_id(e, id, value).unwrap();
    let snapshot = world.snapshot().unwrap();
    world.get_mut_by_id(e, id).unwrap().set_string("name", "after").unwrap();
    world.restore(&snapshot).unwrap();
    assert_eq!(world.get_by_id(e, id).unwrap().get_str("name"), Ok("before"));
}

#[derive(Default)]
struct Log(Vec<String>);

fn log_add(mut world: ecs_core::world::DeferredWorld, ctx: HookContext) {
    world.resource_mut::<Log>().0.push(format!("hook add {:?}", ctx.component_id));
}

fn log_remove(mut world: ecs_core::world::DeferredWorld, ctx: HookContext) {
    world.resource_mut::<Log>().0.push(format!("hook remove {:?}", ctx.component_id));
}

#[test]
fn hooks_observers_and_removal_logs_work_by_id() {
    let mut world = World::new();
    world.insert_resource(Log::default());
    let id = health(&mut world);
    world
        .set_component_hooks_by_id(
            id,
            ecs_core::component::ComponentHooks {
                on_add: Some(log_add),
                on_remove: Some(log_remove),
                ..Default::default()
            },
        )
        .unwrap();
    let stats = world.register_component::<Stats>();
    assert!(matches!(
        world.set_component_hooks_by_id(stats, Default::default()),
        Err(EcsError::HooksOfRustComponent { .. })
    ));
    world
        .add_observer_by_id(&[id], |t: On<Insert>, mut log: ResMut<Log>| {
            log.0.push(format!("observer insert {:?}", t.component().unwrap()));
        })
        .unwrap();
    let ghost = SchemaBuilder::new("Ghost").field("x", FieldKind::U8).build().unwrap();
    let ghost = World::new().register_dynamic(&ComponentDescriptor::new("Ghost", ghost)).unwrap();
    assert!(matches!(world.add_observer_by_id(&[ghost], |_: On<Add>| {}), Err(EcsError::UnknownComponent { .. })));
    let mut removed = world.removed_by_id(id).unwrap();

    let e = world.spawn(());
    world.insert_by_id(e, id, DynamicValue::new(&world, id).unwrap()).unwrap();
    world.insert_by_id(e, id, DynamicValue::new(&world, id).unwrap()).unwrap();
    world.remove_by_id(e, id).unwrap();
    let mut builder = EntityBuilder::new();
    builder.add_dynamic(DynamicValue::new(&world, id).unwrap());
    let f = builder.spawn(&mut world).unwrap();
    world.despawn(f).unwrap();
    let expected = [
        format!("hook add {id:?}"),
        format!("observer insert {id:?}"),
        format!("observer insert {id:?}"),
        format!("hook remove {id:?}"),
        format!("hook add {id:?}"),
        format!("observer insert {id:?}"),
        format!("hook remove {id:?}"),
    ];
    assert_eq!(world.resource::<Log>().0, expected);
    assert_eq!(removed.read(&world).collect::<Vec<_>>(), [e, f]);
}

#[derive(Component, Clone, Copy)]
#[component(describe, layout = "soa")]
struct Body {
    x: f32,
    y: f32,
}

#[derive(Component)]
struct Frozen;

#[test]
fn a_dynamic_system_runs_beside_typed_ones_under_the_same_access_rules() {
    use ecs_core::system::{DynamicSystem, IntoSystem, Schedule, System};
    let mut world = World::new();
    let vel = SchemaBuilder::new("Vel").field("dx", FieldKind::F32).build().unwrap();
    let vel = world.register_dynamic(&ComponentDescriptor::new("Vel", vel).per_field()).unwrap();
    for i in 0..100 {
        let e = world.spawn(Body { x: 0.0, y: i as f32 });
        let mut v = DynamicValue::new(&world, vel).unwrap();
        v.set("dx", 2.0f32).unwrap();
        world.insert_by_id(e, vel, v).unwrap();
        if i % 10 == 0 {
            world.entity_mut(e).unwrap().insert(Frozen);
        }
    }
    let body = world.register_component::<Body>();
    let frozen = world.register_component::<Frozen>();
    let query = world.dynamic_query().write(body).read(vel).build(&world).unwrap();
    let step = DynamicSystem::new("step", query, move |q| {
        q.for_each_archetype(|a| {
            let dx = a.field::<f32>(vel, "dx").unwrap();
            for (x, dx) in a.field_mut::<f32>(body, "x").unwrap().iter_mut().zip(dx) {
                *x += dx;
            }
        })
    });
    // Writes `Body`: conflicts with a typed reader of `Body`, not with one of `Frozen` alone.
    let reader = IntoSystem::into_system(|q: Query<&Body>| assert!(q.iter().count() > 0));
    let other = IntoSystem::into_system(|q: Query<Entity, With<Frozen>>| assert_eq!(q.iter().count(), 10));
    assert!(step.access().conflict(reader.access()).is_some_and(|m| m.contains("Body")));
    assert!(step.access().conflict(other.access()).is_none());
    // A per-row (tag) filter proves nothing for a system that visits whole archetypes.
    let without_frozen = world.dynamic_query().write(body).without(frozen).build(&world).unwrap();
    let skip = DynamicSystem::new("skip", without_frozen, |_| {});
    let frozen_writer = IntoSystem::into_system(|mut q: Query<&mut Body, With<Frozen>>| q.iter_mut().for_each(|_| ()));
    assert!(skip.access().conflict(frozen_writer.access()).is_some());

    let mut schedule = Schedule::new();
    schedule.add_systems((
        step,
        |q: Query<&Body>| assert!(q.iter().all(|b| *b.x >= 0.0)),
        |q: Query<Entity, With<Frozen>>| assert_eq!(q.iter().count(), 10),
    ));
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    assert!(world.query::<&Body>().iter().all(|b| *b.x == 6.0));
}

mod saves {
    use super::*;
    use ecs_core::serialize::{LoadError, SerializeRegistry};

    #[derive(Component, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Tag(u32);

    fn descriptor() -> ComponentDescriptor {
        let mood = enum_schema("Mood", &[("Calm", 0), ("Angry", 3)]).unwrap();
        let schema = SchemaBuilder::new("Monster")
            .field("hp", FieldKind::I32)
            .field("name", FieldKind::String)
            .field("path", FieldKind::array(FieldKind::F32, 3))
            .field("mood", FieldKind::Enum(mood))
            .field("target", FieldKind::Entity)
            .build()
            .unwrap();
        ComponentDescriptor::new("Monster", schema)
    }

    fn registry() -> SerializeRegistry {
        SerializeRegistry::new().register::<Tag>("Tag").register_dynamic(&descriptor())
    }

    /// Two monsters, the second targeting the first; a sparse runtime
    /// component on one.
    fn world() -> (World, ComponentId, Entity, Entity) {
        let mut world = World::new();
        let monster = world.register_dynamic(&descriptor()).unwrap();
        let a = world.spawn(Tag(1));
        let b = world.spawn(Tag(2));
        for (e, name, target) in [(a, "orc", Entity::PLACEHOLDER), (b, "troll", a)] {
            let mut v = DynamicValue::new(&world, monster).unwrap();
            v.set("hp", 30).unwrap().set_string("name", name).unwrap().set("path[2]", 1.5f32).unwrap();
            v.set_variant("mood", "Angry").unwrap().set("target", target).unwrap();
            world.insert_by_id(e, monster, v).unwrap();
        }
        (world, monster, a, b)
    }

    fn check(world: &World, monster: ComponentId, a: Entity, b: Entity) {
        let view = world.get_by_id(b, monster).unwrap();
        assert_eq!(view.get_str("name"), Ok("troll"));
        assert_eq!(view.get::<f32>("path[2]"), Ok(1.5));
        assert_eq!(view.variant("mood"), Ok("Angry"));
        assert_eq!(view.get::<Entity>("target"), Ok(a), "entities are remapped");
        assert_eq!(world.get_by_id(a, monster).unwrap().get_str("name"), Ok("orc"));
    }

    #[test]
    fn runtime_components_round_trip_in_both_formats_with_entities_remapped() {
        let (world, monster, a, b) = world();
        let json = serde_json::to_string(&registry().rows(&world)).unwrap();
        assert!(json.contains(r#""name":"troll""#) && json.contains(r#""mood":"Angry""#), "{json}");
        let bytes = postcard::to_allocvec(&registry().columns(&world)).unwrap();

        // Into a world that registered other components first and holds
        // entities already: names, not ids, find the components.
        for round in 0..2 {
            let mut loaded = World::new();
            let other = SchemaBuilder::new("Other").field("x", FieldKind::U8).build().unwrap();
            loaded.register_dynamic(&ComponentDescriptor::new("Other", other)).unwrap();
            loaded.spawn(Tag(9));
            let save = if round == 0 {
                registry().load_rows(&mut serde_json::Deserializer::from_str(&json)).unwrap()
            } else {
                registry().load_columns(&mut postcard::Deserializer::from_bytes(&bytes)).unwrap()
            };
            let map = loaded.load(save);
            check(&loaded, monster, map.get(a).unwrap(), map.get(b).unwrap());
        }
    }

    #[test]
    fn unknown_names_and_fields_are_errors_naming_them_and_missing_fields_default() {
        let (world, monster, _, b) = world();
        let json = serde_json::to_string(&registry().rows(&world)).unwrap();
        let without = SerializeRegistry::new().register::<Tag>("Tag");
        let err = without.load_rows(&mut serde_json::Deserializer::from_str(&json)).map(|_| ()).unwrap_err();
        assert!(matches!(&err, LoadError::UnknownComponent(name) if name == "Monster"), "{err}");

        let extra = json.replacen(r#""hp":30"#, r#""hp":30,"wings":2"#, 1);
        let err = registry().load_rows(&mut serde_json::Deserializer::from_str(&extra)).map(|_| ()).unwrap_err();
        assert!(err.to_string().contains("wings") && err.to_string().contains("Monster"), "{err}");
        let bad = json.replacen(r#""mood":"Angry""#, r#""mood":"Sleepy""#, 1);
        let err = registry().load_rows(&mut serde_json::Deserializer::from_str(&bad)).map(|_| ()).unwrap_err();
        assert!(err.to_string().contains("Sleepy"), "{err}");

        let fewer = json.replace(r#""hp":30,"#, "");
        let mut loaded = World::new();
        loaded.load(registry().load_rows(&mut serde_json::Deserializer::from_str(&fewer)).unwrap());
        assert_eq!(loaded.get_by_id(b, monster).unwrap().get::<i32>("hp"), Ok(0), "a missing field is its default");
        assert_eq!(loaded.get_by_id(b, monster).unwrap().get_str("name"), Ok("troll"));
    }
}

#[test]
fn builders_write_in_place_and_archetype_rows_read_and_write_whole_arrays() {
    let mut world = World::new();
    let vec3 = FieldKind::array(FieldKind::F32, 3);
    let pos = SchemaBuilder::new("P3").field("v", vec3).field("tag", FieldKind::String).build().unwrap();
    let vel = SchemaBuilder::new("V3").field("v", vec3).build().unwrap();
    let pos = world.register_dynamic(&ComponentDescriptor::new("P3", pos)).unwrap();
    let vel = world.register_dynamic(&ComponentDescriptor::new("V3", vel)).unwrap();
    let mut builder = EntityBuilder::new();
    for i in 0..5 {
        builder.add_by_id(&world, pos).unwrap().set("v", [i as f32, 0.0, 0.0]).unwrap();
        builder.add_by_id(&world, vel).unwrap().set("v", [1.0f32, 2.0, 3.0]).unwrap();
        // Added again: the first value is replaced (and dropped).
        let mut view = builder.add_by_id(&world, pos).unwrap();
        view.set("v", [i as f32, 0.0, 0.0]).unwrap();
        view.set_string("tag", format!("p{i}")).unwrap();
        assert!(view.set("v", [1.0f32, 2.0]).is_err(), "a [f32; 2] is not a [f32; 3]");
        builder.spawn(&mut world).unwrap();
    }
    let stats = world.register_component::<Stats>();
    let child_of = ChildOfId::of(&mut world);
    assert!(matches!(builder.add_by_id(&world, child_of), Err(EcsError::RelationshipById { .. })));
    assert!(builder.add_by_id(&world, stats).is_ok());
    builder.clear();

    let query = world.dynamic_query().write(pos).read(vel).build(&world).unwrap();
    query.for_each_archetype_mut(&mut world, |archetype| {
        let (velocities, mut positions) = (archetype.rows(vel).unwrap(), archetype.rows_mut(pos).unwrap());
        assert_eq!(velocities.len(), 5);
        assert!(velocities.get(5).is_none());
        for row in 0..velocities.len() {
            let v: [f32; 3] = velocities.get(row).unwrap().get("v").unwrap();
            let mut p = positions.get_mut(row).unwrap();
            let mut x: [f32; 3] = p.get("v").unwrap();
            for i in 0..3 {
                x[i] += v[i];
            }
            p.set("v", x).unwrap();
            assert_eq!(archetype.get(vel, row).unwrap().get::<[f32; 3]>("v"), Ok(v));
        }
    });
    let mut seen = Vec::new();
    world.dynamic_query().read(pos).build(&world).unwrap().for_each(&world, |row| {
        let view = row.get(pos).unwrap();
        seen.push((view.get::<[f32; 3]>("v").unwrap(), view.get_str("tag").unwrap().to_owned()));
    });
    seen.sort_by(|a, b| a.0[0].total_cmp(&b.0[0]));
    let expected: Vec<_> = (0..5).map(|i| ([i as f32 + 1.0, 2.0, 3.0], format!("p{i}"))).collect();
    assert_eq!(seen, expected);
}

/// `ChildOf`'s id, registered.
struct ChildOfId;
impl ChildOfId {
    fn of(world: &mut World) -> ComponentId {
        world.register_component::<ChildOf>()
    }
}

fn panic_on_insert(_: ecs_core::world::DeferredWorld, _: HookContext) {
    panic!("on_insert refuses");
}

#[test]
fn a_panicking_hook_after_an_insert_by_id_leaves_the_value_to_the_world_alone() {
    let mut world = World::new();
    let id = health(&mut world);
    world
        .set_component_hooks_by_id(
            id,
            ecs_core::component::ComponentHooks { on_insert: Some(panic_on_insert), ..Default::default() },
        )
        .unwrap();
    let e = world.spawn(());
    for name in ["first", "second"] {
        let mut value = DynamicValue::new(&world, id).unwrap();
        value.set_string("name", name).unwrap();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.insert_by_id(e, id, value)));
        assert!(result.is_err(), "the hook panics");
        // The value moved into the world before the hook ran: it is the
        // world's, read here and dropped once (with the world, or when replaced).
        assert_eq!(world.get_by_id(e, id).unwrap().get_str("name"), Ok(name));
    }
    // An entity that is gone: the value is dropped by the call, once.
    world.despawn(e).unwrap();
    let mut value = DynamicValue::new(&world, id).unwrap();
    value.set_string("name", "never inserted").unwrap();
    assert!(matches!(world.insert_by_id(e, id, value), Err(EcsError::NoSuchEntity(_))));
}

#[derive(Component)]
#[component(on_add = panic_on_add)]
struct Fragile(#[allow(dead_code)] String);

fn panic_on_add(_: ecs_core::world::DeferredWorld, _: HookContext) {
    panic!("on_add refuses");
}

#[test]
fn a_panicking_hook_after_a_builder_spawn_leaves_the_values_to_the_world_alone() {
    let mut world = World::new();
    let mut builder = EntityBuilder::new();
    builder.add(Fragile("owned by the world once spawned".into())).add(Pos(1.0, 1.0));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| builder.spawn(&mut world)));
    assert!(result.is_err(), "the hook panics");
    assert!(!builder.has::<Fragile>(), "the builder let go of the values before the hook ran");
    drop(builder);
    let spawned: Vec<Entity> = world.query_filtered::<Entity, With<Fragile>>().iter().collect();
    assert_eq!(spawned.len(), 1);
    assert_eq!(world.get::<Pos>(spawned[0]), Some(&Pos(1.0, 1.0)));
    drop(world);
}

/// A per-field component is viewed by id like one stored whole: each field read
/// from (and written to) its own array, writes stamped changed; the typed
/// per-field view sees the same values.
#[test]
fn per_field_components_are_viewed_and_written_by_id() {
    #[derive(Component, Clone, Debug, PartialEq)]
    #[component(describe, layout = "soa")]
    struct Mover {
        x: f32,
        hp: i32,
        dir: [f32; 3],
        alive: bool,
    }
    let mut world = World::new();
    let mood = enum_schema("Mood", &[("Calm", 0), ("Angry", 3)]).unwrap();
    let schema = SchemaBuilder::new("Spirit")
        .field("power", FieldKind::F64)
        .field("name", FieldKind::String)
        .field("path", FieldKind::array(FieldKind::I16, 3))
        .field("mood", FieldKind::Enum(mood))
        .build()
        .unwrap();
    let spirit = world.register_dynamic(&ComponentDescriptor::new("Spirit", schema).per_field()).unwrap();
    let mover = world.register_component::<Mover>();
    let mut entities = Vec::new();
    for i in 0..20 {
        let e = world.spawn(Mover { x: i as f32, hp: 100 - i, dir: [0.0, 1.0, i as f32], alive: i % 2 == 0 });
        let mut value = DynamicValue::new(&world, spirit).unwrap();
        value.set("power", f64::from(i) * 0.5).unwrap();
        value.set_string("name", format!("spirit {i}")).unwrap();
        value.set("path[1]", i as i16).unwrap();
        value.set_variant("mood", if i % 3 == 0 { "Angry" } else { "Calm" }).unwrap();
        world.insert_by_id(e, spirit, value).unwrap();
        entities.push(e);
    }
    for (i, &e) in entities.iter().enumerate() {
        let view = world.get_by_id(e, spirit).unwrap();
        assert_eq!(view.get::<f64>("power"), Ok(i as f64 * 0.5));
        assert_eq!(view.get_str("name"), Ok(&*format!("spirit {i}")));
        assert_eq!(view.get::<[i16; 3]>("path"), Ok([0, i as i16, 0]));
        assert_eq!(view.variant("mood"), Ok(if i % 3 == 0 { "Angry" } else { "Calm" }));
        assert!(view.get::<f32>("power").is_err(), "an f64 is never read as an f32");
        let typed = world.get_by_id(e, mover).unwrap();
        assert_eq!(typed.get::<f32>("x"), Ok(i as f32));
        assert_eq!(typed.get::<i32>("hp"), Ok(100 - i as i32));
        assert_eq!(typed.get::<f32>("dir[2]"), Ok(i as f32));
        assert_eq!(typed.get::<bool>("alive"), Ok(i % 2 == 0));
    }
    let mut changed = world.query_state_filtered::<Entity, Changed<Mover>>();
    changed.iter(&world).for_each(drop);
    let target = entities[7];
    {
        let mut view = world.get_mut_by_id(target, mover).unwrap();
        view.set("hp", -1).unwrap();
        view.set("dir", [9.0f32, 8.0, 7.0]).unwrap();
        let mut view = world.get_mut_by_id(target, spirit).unwrap();
        view.set_string("name", "renamed").unwrap();
        view.set("path[2]", -4i16).unwrap();
    }
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [target]);
    let typed = world.query::<(Entity, &Mover)>().iter().find(|(e, _)| *e == target).map(|(_, m)| (*m.hp, *m.dir));
    assert_eq!(typed, Some((-1, [9.0, 8.0, 7.0])));
    assert_eq!(world.get_by_id(target, spirit).unwrap().get_str("name"), Ok("renamed"));
    assert_eq!(world.get_by_id(target, spirit).unwrap().get::<[i16; 3]>("path"), Ok([0, 7, -4]));
    // Neighbouring rows untouched.
    assert_eq!(world.get_by_id(entities[6], spirit).unwrap().get_str("name"), Ok("spirit 6"));
    assert_eq!(world.get_by_id(entities[8], mover).unwrap().get::<i32>("hp"), Ok(92));
    // A row visit of a dynamic query writes per-field rows too.
    let query = world.dynamic_query().write(spirit).build(&world).unwrap();
    query.for_each_mut(&mut world, |mut row| {
        let mut view = row.get_mut(spirit).unwrap();
        let power = view.get::<f64>("power").unwrap();
        view.set("power", power + 1.0).unwrap();
    });
    for (i, &e) in entities.iter().enumerate() {
        assert_eq!(world.get_by_id(e, spirit).unwrap().get::<f64>("power"), Ok(i as f64 * 0.5 + 1.0));
    }
    // Values survive archetype moves (gathered and scattered whole).
    world.entity_mut(entities[3]).unwrap().insert(Frozen);
    assert_eq!(world.get_by_id(entities[3], spirit).unwrap().get_str("name"), Ok("spirit 3"));
    assert_eq!(world.get_by_id(entities[3], mover).unwrap().get::<f32>("dir[2]"), Ok(3.0));
}

/// A builder adding one component by id again and again starts each value
/// at the component's defaults (strings empty, the enum's first variant, the
/// placeholder entity), however the earlier values were written: the
/// defaults it copies after the first are never a value it handed out.
#[test]
fn a_builder_adding_by_id_starts_every_value_at_the_defaults() {
    let mut world = World::new();
    let id = health(&mut world);
    let target = world.spawn(());
    let mut builder = EntityBuilder::new();
    let mut spawned = Vec::new();
    for i in 0..4 {
        let mut value = builder.add_by_id(&world, id).unwrap();
        assert_eq!(value.get::<i32>("hp"), Ok(0));
        assert_eq!(value.get_str("name"), Ok(""));
        assert_eq!(value.get_str("tags[1]"), Ok(""));
        assert_eq!(value.variant("mood"), Ok("Calm"));
        assert_eq!(value.get::<Entity>("target"), Ok(Entity::PLACEHOLDER));
        value.set("hp", i).unwrap();
        value.set_string("name", format!("orc {i}")).unwrap();
        value.set_string("tags[1]", "loud").unwrap();
        value.set_variant("mood", "Angry").unwrap();
        value.set("target", target).unwrap();
        spawned.push(builder.spawn(&mut world).unwrap());
    }
    for (i, &e) in spawned.iter().enumerate() {
        let view = world.get_by_id(e, id).unwrap();
        assert_eq!(view.get::<i32>("hp"), Ok(i as i32));
        assert_eq!(view.get_str("name").unwrap(), format!("orc {i}"));
        assert_eq!(view.variant("mood"), Ok("Angry"));
    }
    // A value added and replaced before spawning is dropped once.
    builder.add_by_id(&world, id).unwrap().set_string("name", "dropped").unwrap();
    builder.add_by_id(&world, id).unwrap();
    drop(builder);
}

static SAW_BOTH: AtomicUsize = AtomicUsize::new(0);

#[derive(Component, Debug, PartialEq)]
#[component(describe)]
struct Armor {
    points: u8,
}

fn count_if_armored(world: ecs_core::world::DeferredWorld, ctx: HookContext) {
    if world.get::<Armor>(ctx.entity).is_some() {
        SAW_BOTH.fetch_add(1, Ordering::Relaxed);
    }
}

/// Several values by id go in with one move: a hook of one sees the others;
/// a refused insert changes nothing and drops each value once (strings in
/// them, under valgrind); a panicking hook leaves the values to the world.
#[test]
fn insert_by_ids_places_every_value_at_once() {
    let mut world = World::new();
    let id = health(&mut world);
    let armor = world.register_component::<Armor>();
    world
        .set_component_hooks_by_id(
            id,
            ecs_core::component::ComponentHooks { on_add: Some(count_if_armored), ..Default::default() },
        )
        .unwrap();
    let e = world.spawn(());
    let mut value = DynamicValue::new(&world, id).unwrap();
    value.set_string("name", "both at once").unwrap();
    let mut plate = DynamicValue::new(&world, armor).unwrap();
    plate.set("points", 7u8).unwrap();
    world.insert_by_ids(e, vec![value, plate]).unwrap();
    assert_eq!(SAW_BOTH.load(Ordering::Relaxed), 1, "Health's on_add saw Armor there");
    assert_eq!(world.get_by_id(e, id).unwrap().get_str("name"), Ok("both at once"));
    assert_eq!(world.get::<Armor>(e), Some(&Armor { points: 7 }));

    // Refused: two values of one component, an unknown id, a dead entity.
    let named = |world: &World, name: &str| {
        let mut value = DynamicValue::new(world, id).unwrap();
        value.set_string("name", name).unwrap();
        value
    };
    let f = world.spawn(());
    let twice = vec![named(&world, "one"), named(&world, "two")];
    assert!(matches!(world.insert_by_ids(f, twice), Err(EcsError::DuplicateComponent { .. })));
    let mut other = World::new();
    let elsewhere = other.register_dynamic(&ComponentDescriptor::new("Elsewhere", health_schema())).unwrap();
    let foreign = DynamicValue::new(&other, elsewhere).unwrap();
    assert!(matches!(
        world.insert_by_ids(f, vec![named(&world, "x"), foreign]),
        Err(EcsError::UnknownComponent { .. })
    ));
    assert!(world.entity(f).unwrap().components().next().is_none(), "nothing inserted");
    world.despawn(f).unwrap();
    assert!(matches!(world.insert_by_ids(f, vec![named(&world, "gone")]), Err(EcsError::NoSuchEntity(_))));

    // A hook that panics after the move: the values are the world's alone.
    world
        .set_component_hooks_by_id(
            id,
            ecs_core::component::ComponentHooks { on_insert: Some(panic_on_insert), ..Default::default() },
        )
        .unwrap();
    let g = world.spawn(());
    let result =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.insert_by_ids(g, vec![named(&world, "kept")])));
    assert!(result.is_err(), "the hook panics");
    assert_eq!(world.get_by_id(g, id).unwrap().get_str("name"), Ok("kept"));
}
