//! Schemas: `#[derive(Describe)]` and `#[component(describe)]` describe a type
//! field by field (names, offsets, kinds), the world lists components with
//! their schemas and finds them by name, and a schema never attaches to a type
//! it does not describe.

use ecs_core::component::{Describe, FieldKind};
use ecs_core::prelude::*;

#[derive(Describe, Clone, Copy, Debug, PartialEq)]
enum Mood {
    Calm,
    Angry = 7,
    Asleep,
}

#[derive(Describe)]
struct Stats {
    speed: f32,
    mood: Mood,
}

#[derive(Component)]
#[component(describe)]
struct Creature {
    alive: bool,
    level: u8,
    hp: i32,
    xp: u64,
    name: String,
    target: Entity,
    path: [[i16; 2]; 3],
    stats: Stats,
    r#type: i8,
}

#[derive(Component)]
#[component(describe, storage = "sparse")]
struct Velocity(f32, f64);

#[derive(Describe)]
struct Pair<T> {
    first: T,
    second: T,
}

fn schema_of(kind: FieldKind) -> &'static ecs_core::component::Schema {
    match kind {
        FieldKind::Struct(schema) => schema,
        other => panic!("not a struct: {other}"),
    }
}

#[test]
fn a_struct_describes_every_field_with_its_offset_and_kind() {
    let schema = schema_of(Creature::KIND);
    assert_eq!(schema.name(), "Creature");
    assert_eq!(schema.size(), size_of::<Creature>());
    let listed: Vec<(&str, String)> = schema.fields().iter().map(|f| (f.name(), f.kind().to_string())).collect();
    assert_eq!(
        listed,
        [
            ("alive", "bool".to_owned()),
            ("level", "u8".to_owned()),
            ("hp", "i32".to_owned()),
            ("xp", "u64".to_owned()),
            ("name", "String".to_owned()),
            ("target", "Entity".to_owned()),
            ("path", "[[i16; 2]; 3]".to_owned()),
            ("stats", "Stats".to_owned()),
            ("type", "i8".to_owned()),
        ]
    );
    assert_eq!(schema.field("hp").unwrap().offset(), core::mem::offset_of!(Creature, hp));
    assert_eq!(schema.field("stats").unwrap().offset(), core::mem::offset_of!(Creature, stats));
    assert!(schema.is_type::<Creature>() && !schema.is_type::<Stats>());
    let stats = schema_of(*schema.field("stats").unwrap().kind());
    assert_eq!(stats.field("speed").unwrap().offset(), core::mem::offset_of!(Stats, speed));

    let tuple = schema_of(Velocity::KIND);
    let names: Vec<&str> = tuple.fields().iter().map(|f| f.name()).collect();
    assert_eq!(names, ["0", "1"]);
    assert_eq!(tuple.field("1").unwrap().offset(), core::mem::offset_of!(Velocity, 1));
}

#[test]
fn an_enum_describes_its_variants_and_discriminants() {
    let FieldKind::Enum(schema) = Mood::KIND else { panic!("an enum") };
    let variants: Vec<(&str, i64)> = schema.variants().iter().map(|v| (v.name(), v.discriminant())).collect();
    assert_eq!(variants, [("Calm", 0), ("Angry", 7), ("Asleep", 8)]);
    assert_eq!(schema.size(), size_of::<Mood>());
}

#[test]
fn generic_types_describe_each_instance() {
    let a = schema_of(<Pair<u16> as Describe>::KIND);
    let b = schema_of(<Pair<[f32; 4]> as Describe>::KIND);
    assert_eq!(a.field("second").unwrap().offset(), 2);
    assert_eq!(b.field("second").unwrap().offset(), 16);
    assert!(a.is_type::<Pair<u16>>() && b.is_type::<Pair<[f32; 4]>>());
    assert!(!a.same_as(b), "same name, other field kinds");
    assert!(a.same_as(schema_of(<Pair<u16> as Describe>::KIND)));
}

#[derive(Component)]
struct Plain(#[allow(dead_code)] u8);

mod elsewhere {
    #[derive(ecs_core::Component)]
    pub struct Plain(#[allow(dead_code)] pub u8);
}

#[test]
fn the_world_lists_components_with_their_schemas_and_finds_them_by_name() {
    let mut world = World::new();
    world.spawn((Creature_default(), Velocity(1.0, 2.0), Plain(1)));
    let creature = world.component_id_by_name("Creature").unwrap();
    assert_eq!(Some(creature), world.component_id_by_name(core::any::type_name::<Creature>()));
    let info = world.components().get(creature).unwrap();
    assert!(matches!(info.kind(), Some(FieldKind::Struct(s)) if s.name() == "Creature"));
    let velocity = world.component_id_by_name("Velocity").unwrap();
    assert!(world.components().get(velocity).unwrap().kind().is_some());
    let plain = world.component_id_by_name("Plain").unwrap();
    assert!(world.components().get(plain).unwrap().kind().is_none(), "not described");
    let described: Vec<&str> =
        world.components().iter().filter(|c| c.kind().is_some()).map(|c| c.short_name()).collect();
    assert_eq!(described.len(), 2, "{described:?}");

    // Two components share the short name: ask by full path then.
    world.spawn(elsewhere::Plain(2));
    assert_eq!(world.component_id_by_name("Plain"), None);
    assert_eq!(world.component_id_by_name(core::any::type_name::<Plain>()), Some(plain));
    assert_eq!(world.component_id_by_name("Nothing"), None);
}

#[allow(non_snake_case)]
fn Creature_default() -> Creature {
    Creature {
        alive: true,
        level: 1,
        hp: 10,
        xp: 0,
        name: "Bob".into(),
        target: Entity::PLACEHOLDER,
        path: [[0; 2]; 3],
        stats: Stats { speed: 1.0, mood: Mood::Calm },
        r#type: 0,
    }
}

/// A hand-written component claiming another type's schema: ignored, as code
/// reading it by schema would read the wrong bytes.
struct Liar(#[allow(dead_code)] u8);
impl Component for Liar {
    const __KIND: Option<FieldKind> = Some(Creature::KIND);
}
ecs_core::component_bundle!(Liar);

#[test]
fn a_schema_of_another_type_is_not_attached() {
    let mut world = World::new();
    world.spawn(Liar(1));
    let id = world.component_id_by_name("Liar").unwrap();
    assert!(world.components().get(id).unwrap().kind().is_none());
}

// ---------------------------------------------------------------------------
// Views by id
// ---------------------------------------------------------------------------

use ecs_core::world::{FieldError, FieldHandle};

#[derive(Component)]
#[component(describe, immutable)]
struct Frozen(u32);

fn creature_world() -> (World, Entity, ecs_core::ComponentId) {
    let mut world = World::new();
    let target = world.spawn(());
    let mut bob = Creature_default();
    bob.target = target;
    bob.path = [[1, 2], [3, 4], [5, 6]];
    bob.stats.mood = Mood::Angry;
    let e = world.spawn((bob, Velocity(0.5, 1.5), Frozen(3)));
    let id = world.component_id_by_name("Creature").unwrap();
    (world, e, id)
}

#[test]
fn a_view_reads_every_kind_by_path_or_handle() {
    let (world, e, id) = creature_world();
    let view = world.get_by_id(e, id).unwrap();
    assert_eq!(view.get::<bool>("alive"), Ok(true));
    assert_eq!(view.get::<u8>("level"), Ok(1));
    assert_eq!(view.get::<i32>("hp"), Ok(10));
    assert_eq!(view.get_str("name"), Ok("Bob"));
    assert_eq!(view.get::<Entity>("target"), Ok(world.get::<Creature>(e).unwrap().target));
    assert_eq!(view.get::<i16>("path[2][1]"), Ok(6));
    assert_eq!(view.get::<f32>("stats.speed"), Ok(1.0));
    assert_eq!(view.variant("stats.mood"), Ok("Angry"));
    assert_eq!(view.get::<i8>("type"), Ok(0));
    let hp: FieldHandle = view.field("hp").unwrap();
    assert_eq!(view.get::<i32>(&hp), Ok(10));

    let velocity = world.get_by_id(e, world.component_id_by_name("Velocity").unwrap()).unwrap();
    assert_eq!(velocity.get::<f64>("1"), Ok(1.5), "sparse components too");
}

#[test]
fn a_wrong_kind_or_an_unknown_field_is_an_error_naming_them() {
    let (world, e, id) = creature_world();
    let view = world.get_by_id(e, id).unwrap();
    let error = view.get::<f32>("hp").unwrap_err();
    assert!(matches!(&error, FieldError::WrongKind { holds, asked, .. } if holds == "i32" && asked == "f32"));
    assert_eq!(error.to_string(), "field `hp` of component `Creature` holds `i32`, not `f32`");
    for path in ["mana", "path[3]", "path[1][2]", "stats.speed.x", "hp.x", "path[x]", "stats..speed"] {
        assert!(matches!(view.get::<i32>(path), Err(FieldError::UnknownField { .. })), "{path}");
    }
    assert!(matches!(view.get_str("level"), Err(FieldError::WrongKind { .. })));
    assert!(matches!(view.variant("hp"), Err(FieldError::WrongKind { .. })));
    assert!(matches!(view.get::<i32>("stats"), Err(FieldError::WrongKind { .. })), "a whole struct is not an i32");
    assert!(matches!(view.get::<i32>(""), Err(FieldError::WrongKind { .. })), "nor the whole component");
    // A handle of another component.
    let velocity = world.get_by_id(e, world.component_id_by_name("Velocity").unwrap()).unwrap();
    let handle = velocity.field("0").unwrap();
    assert!(matches!(view.get::<f32>(&handle), Err(FieldError::OtherComponent { .. })));
}

#[derive(Component)]
#[component(describe)]
struct Gauges {
    a: f32,
    b: [f32; 3],
    c: [f32; 2],
    d: [i32; 3],
    e: [[f32; 2]; 2],
    f: u32,
    g: i32,
    h: Entity,
}

#[derive(Component)]
#[component(describe)]
struct OtherGauges {
    a: f32,
    b: [f32; 3],
}

/// Reading through a handle agrees with reading through its path, for every
/// field and every kind asked (a handle's check is a stamp of component and
/// kind: it must refuse exactly what the schema refuses), on a component in
/// tables (`get_by_id`'s cached path) as on a sparse one.
#[test]
fn a_handle_is_refused_exactly_where_its_path_is() {
    fn agree<T: ecs_core::world::FieldValue + PartialEq + core::fmt::Debug>(
        view: &ecs_core::world::ComponentRef<'_>,
        handle: &FieldHandle,
    ) {
        let by_handle = view.get::<T>(handle);
        let by_path = view.get::<T>(handle.path());
        assert_eq!(by_handle, by_path, "field `{}` read as {}", handle.path(), core::any::type_name::<T>());
    }
    let mut world = World::new();
    let target = world.spawn(());
    let e = world.spawn((
        Gauges { a: 1.0, b: [2.0; 3], c: [3.0; 2], d: [4; 3], e: [[5.0; 2]; 2], f: 6, g: -7, h: target },
        OtherGauges { a: 8.0, b: [9.0; 3] },
        Creature_default(),
    ));
    for name in ["Gauges", "Creature"] {
        let view = world.get_by_id(e, world.component_id_by_name(name).unwrap()).unwrap();
        let FieldKind::Struct(schema) = view.kind() else { panic!("a struct") };
        for field in schema.fields() {
            let handle = view.field(field.name()).unwrap();
            agree::<f32>(&view, &handle);
            agree::<[f32; 3]>(&view, &handle);
            agree::<[f32; 2]>(&view, &handle);
            agree::<[i32; 3]>(&view, &handle);
            agree::<[[f32; 2]; 2]>(&view, &handle);
            agree::<[[i16; 2]; 3]>(&view, &handle);
            agree::<u32>(&view, &handle);
            agree::<i32>(&view, &handle);
            agree::<u64>(&view, &handle);
            agree::<u8>(&view, &handle);
            agree::<i8>(&view, &handle);
            agree::<bool>(&view, &handle);
            agree::<Entity>(&view, &handle);
            assert_eq!(view.get_str(&handle), view.get_str(handle.path()));
        }
    }
    let gauges = world.get_by_id(e, world.component_id_by_name("Gauges").unwrap()).unwrap();
    assert_eq!(gauges.get::<[f32; 3]>(&gauges.field("b").unwrap()), Ok([2.0; 3]));
    assert_eq!(gauges.get::<[[f32; 2]; 2]>(&gauges.field("e").unwrap()), Ok([[5.0; 2]; 2]));
    // Same fields, same kinds, offsets in another component: refused.
    let other = world.get_by_id(e, world.component_id_by_name("OtherGauges").unwrap()).unwrap();
    for path in ["a", "b"] {
        let handle = other.field(path).unwrap();
        assert!(matches!(gauges.get::<f32>(&handle), Err(FieldError::OtherComponent { .. })), "{path}");
        assert!(matches!(gauges.get::<[f32; 3]>(&handle), Err(FieldError::OtherComponent { .. })), "{path}");
    }
}

#[test]
fn a_write_view_writes_through_the_schema_and_marks_the_change() {
    let (mut world, e, id) = creature_world();
    let mut changed = world.query_state_filtered::<Entity, Changed<Creature>>();
    assert_eq!(changed.iter(&world).count(), 1, "added");
    assert_eq!(changed.iter(&world).count(), 0);
    {
        let mut view = world.get_mut_by_id(e, id).unwrap();
        view.set("hp", 3i32).unwrap();
        view.set("path[0][1]", -9i16).unwrap();
        view.set("stats.speed", 2.5f32).unwrap();
        view.set_string("name", "Robert").unwrap();
        view.set_variant("stats.mood", "Asleep").unwrap();
        assert!(matches!(view.set("hp", 3.0f32), Err(FieldError::WrongKind { .. })));
        assert!(matches!(view.set_variant("stats.mood", "Furious"), Err(FieldError::UnknownVariant { .. })));
        assert_eq!(view.get::<i32>("hp"), Ok(3), "reads see writes");
    }
    let bob = world.get::<Creature>(e).unwrap();
    assert_eq!((bob.hp, bob.path[0][1], bob.stats.speed, bob.name.as_str()), (3, -9, 2.5, "Robert"));
    assert_eq!(bob.stats.mood, Mood::Asleep);
    assert_eq!(changed.iter(&world).count(), 1, "the write is seen by `Changed`");
}

#[test]
fn views_refuse_what_they_cannot_serve() {
    let (mut world, e, _) = creature_world();
    let frozen = world.component_id_by_name("Frozen").unwrap();
    assert_eq!(world.get_by_id(e, frozen).unwrap().get::<u32>("0"), Ok(3));
    assert!(matches!(world.get_mut_by_id(e, frozen), Err(EcsError::Immutable { .. })));
    let child_of = world.spawn(ChildOf(e));
    let link = world.component_id_by_name("ChildOf").unwrap();
    assert!(matches!(world.get_by_id(child_of, link), Err(EcsError::NotDescribed { .. })));
    let other = World::new().component_id_by_name("Creature");
    assert_eq!(other, None, "a fresh world knows no component");
    let mut fresh = World::new();
    let stranger = fresh.spawn(());
    let id = world.component_id_by_name("Creature").unwrap();
    assert_eq!(fresh.get_by_id(stranger, id).err(), Some(EcsError::UnknownComponent { index: id.index() }));
    let plain = world.spawn(());
    assert!(matches!(world.get_by_id(plain, id), Err(EcsError::MissingComponent { .. })));
    world.despawn(plain).unwrap();
    assert_eq!(world.get_by_id(plain, id).err(), Some(EcsError::NoSuchEntity(plain)));
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(describe)]
enum Phase {
    Day,
    Night,
}

#[derive(Component)]
#[component(describe)]
struct Boxed<T: Send + Sync + 'static> {
    value: T,
}

#[test]
fn enum_and_generic_components_are_viewed_whole_or_by_field() {
    let mut world = World::new();
    let e = world.spawn((Phase::Day, Boxed { value: 7u16 }));
    let phase = world.component_id_by_name("Phase").unwrap();
    assert_eq!(world.get_by_id(e, phase).unwrap().variant(""), Ok("Day"));
    world.get_mut_by_id(e, phase).unwrap().set_variant("", "Night").unwrap();
    assert_eq!(world.get::<Phase>(e), Some(&Phase::Night));
    let boxed = world.component_id_by_name(core::any::type_name::<Boxed<u16>>()).unwrap();
    assert_eq!(world.get_by_id(e, boxed).unwrap().get::<u16>("value"), Ok(7));
}
