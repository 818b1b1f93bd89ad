//! What a user coming from bevy_ecs types first: `Has<T>`, `init_resource`,
//! `(a, b, c).chain()`, `for item in &query`, and the run-time messages for the
//! mistakes they make (each names the user's system and says what to write).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;

use ecs_core::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Health(i32);
#[derive(Component)]
struct Shield;
#[derive(Component)]
#[component(storage = "sparse")]
struct Stunned;

/// The panic message of `f`, which must panic.
fn panic_message(f: impl FnOnce()) -> String {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("it panics");
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .expect("a text message")
}

#[test]
fn has_is_an_item_not_a_filter_and_every_mode_agrees() {
    let mut world = World::new();
    let mut expected = Vec::new();
    for i in 0..40 {
        let e = world.spawn(Health(i));
        let (shield, stunned) = (i % 3 == 0, i % 4 == 0);
        if shield {
            world.insert(e, Shield).unwrap();
        }
        if stunned {
            world.insert(e, Stunned).unwrap();
        }
        expected.push((e, shield, stunned));
    }
    type Item = (Entity, Has<Shield>, Has<Stunned>);
    let mut by_iter: Vec<(Entity, bool, bool)> = world.query::<Item>().iter().collect();
    by_iter.sort_by_key(|t| t.0);
    assert_eq!(by_iter, expected, "`Has` filters nothing and answers per entity");
    let mut by_for_each = Vec::new();
    world.query::<Item>().for_each(|t| by_for_each.push(t));
    by_for_each.sort_by_key(|t| t.0);
    assert_eq!(by_for_each, expected);
    let mut state = world.query_state::<Item>();
    for &(e, shield, stunned) in &expected {
        assert_eq!(state.get(&world, e).ok(), Some((e, shield, stunned)));
    }
    let mut by_chunks = Vec::new();
    world.query_state::<Item>().for_each_chunk(&mut world, |(entities, shields, stuns)| {
        for (i, &e) in entities.iter().enumerate() {
            by_chunks.push((e, shields.get(i), stuns.get(i)));
        }
    });
    by_chunks.sort_by_key(|t| t.0);
    assert_eq!(by_chunks, expected);
    // A data component needs no access: `&mut Shield` beside `Has<Shield>` is fine.
    let mut state = world.query_state::<(&mut Health, Has<Shield>)>();
    for (health, shielded) in state.iter_mut(&mut world) {
        if !shielded {
            health.0 = -1;
        }
    }
    let unshielded = world.query::<&Health>().iter().filter(|h| h.0 == -1).count();
    assert_eq!(unshielded, expected.iter().filter(|t| !t.1).count());
}

#[test]
fn has_of_a_sparse_component_conflicts_with_writing_it() {
    let message = panic_message(|| {
        let world = World::new();
        let _ = world.query_state::<(&mut Stunned, Has<Stunned>)>();
    });
    assert!(message.contains("Stunned"), "{message}");
}

#[derive(Default, Debug, PartialEq)]
struct Score(u32);

struct EntityCount(usize);

impl FromWorld for EntityCount {
    fn from_world(world: &mut World) -> Self {
        EntityCount(world.len())
    }
}

#[test]
fn init_resource_inserts_a_default_once_and_keeps_what_is_there() {
    let mut world = World::new();
    world.init_resource::<Score>();
    assert_eq!(*world.resource::<Score>(), Score(0));
    world.resource_mut::<Score>().0 = 7;
    world.init_resource::<Score>();
    assert_eq!(*world.resource::<Score>(), Score(7), "an existing resource is kept");
    world.spawn(Health(1));
    world.spawn(Health(2));
    world.init_resource::<EntityCount>();
    assert_eq!(world.resource::<EntityCount>().0, 2, "made from the world");
}

static LOG: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());

// Three systems with no access in common: nothing but `chain` orders them.
fn first() {
    LOG.lock().unwrap().push("first");
}
fn second(_: Query<&Health>) {
    LOG.lock().unwrap().push("second");
}
fn third(_: Query<&Shield>) {
    LOG.lock().unwrap().push("third");
}

#[test]
fn chain_orders_a_tuple_of_systems_either_spelling() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut world = World::new();
    let mut bevy_spelling = Schedule::new();
    bevy_spelling.add_systems((third, second, first).chain());
    let mut ours = Schedule::new();
    ours.add_systems((second, first, third).chain());
    for _ in 0..20 {
        LOG.lock().unwrap().clear();
        bevy_spelling.run(&mut world);
        assert_eq!(*LOG.lock().unwrap(), ["third", "second", "first"]);
        LOG.lock().unwrap().clear();
        ours.run(&mut world);
        assert_eq!(*LOG.lock().unwrap(), ["second", "first", "third"]);
    }
    // Unchained, the tuple adds each system as one by one.
    let mut plain = Schedule::new();
    plain.add_systems((first, second.after(third), third));
    assert_eq!(plain.len(), 3);
    LOG.lock().unwrap().clear();
    plain.run(&mut world);
    let log = LOG.lock().unwrap();
    let at = |name| log.iter().position(|&n| n == name).unwrap();
    assert!(at("third") < at("second"));
}

/// The tests that use `LOG` run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

#[test]
fn for_loops_over_query_references() {
    let mut world = World::new();
    world.spawn(Health(1));
    world.spawn(Health(2));
    world.insert_resource(Score::default());
    let mut schedule = Schedule::new();
    schedule.add_systems(|mut healths: Query<&mut Health>| {
        for health in &mut healths {
            health.0 *= 10;
        }
    });
    schedule.add_systems(|healths: Query<&Health>, mut score: ResMut<Score>| {
        for health in &healths {
            score.0 += health.0 as u32;
        }
    });
    schedule.run(&mut world);
    assert_eq!(world.resource::<Score>().0, 30);
}

fn spawn_enemies() {}
fn aim(_: Query<&Health>) {}

#[test]
fn ordering_after_a_missing_system_names_it_when_the_schedule_is_built() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_systems(aim.after(spawn_enemies));
    let message = panic_message(|| schedule.initialize(&mut world));
    assert!(message.contains("spawn_enemies"), "the missing system is named: {message}");
    assert!(message.contains("aim"), "the constrained system is named: {message}");
    assert!(message.contains("schedule.add_systems(spawn_enemies)"), "the fix is given: {message}");
}

fn double_score(_read: Res<Score>, _write: ResMut<Score>) {}

#[test]
fn a_resource_conflict_gets_resource_advice() {
    let message = panic_message(|| {
        Schedule::new().add_systems(double_score);
    });
    assert!(message.contains("Score"), "{message}");
    assert!(message.contains("keep only the `ResMut`"), "{message}");
    assert!(!message.contains("With`/`Without"), "filters cannot separate resources: {message}");
}

fn needs_score(_: Res<Score>) {}

#[test]
fn a_missing_resource_names_where_the_system_was_added() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    let line = line!() + 1;
    schedule.add_systems(needs_score);
    let message = panic_message(|| schedule.run(&mut world));
    assert!(message.contains("Score") && message.contains("needs_score"), "{message}");
    assert!(message.contains(&format!("newcomer.rs:{line}")), "points at the add_systems line: {message}");
}

fn conflicting(_: Query<&mut Health>, _: Query<&Health>) {}

#[test]
fn user_mistakes_panic_at_the_users_line() {
    use std::sync::Arc;
    let locations: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = Arc::clone(&locations);
    let previous = std::panic::take_hook();
    let this_test = std::thread::current().id();
    std::panic::set_hook(Box::new(move |info| {
        // Other tests panic on their own threads meanwhile.
        if let Some(location) = info.location().filter(|_| std::thread::current().id() == this_test) {
            seen.lock().unwrap().push(location.file().to_owned());
        }
    }));
    let world = World::new();
    let _ = catch_unwind(AssertUnwindSafe(|| {
        Schedule::new().add_systems(conflicting);
    }));
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let _ = world.query_state::<(&mut Health, &Health)>();
    }));
    let _ = catch_unwind(AssertUnwindSafe(|| {
        Schedule::new().add_systems(aim.after(spawn_enemies)).run(&mut World::new());
    }));
    std::panic::set_hook(previous);
    let locations = locations.lock().unwrap();
    assert_eq!(locations.len(), 3, "{locations:?}");
    for file in locations.iter() {
        assert!(file.ends_with("newcomer.rs"), "a panic points into the crate: {file}");
    }
}

#[test]
fn add_systems_takes_a_single_system_as_bevy_users_write_it() {
    #[derive(Default)]
    struct Runs(u32);
    fn count(mut runs: ResMut<Runs>) {
        runs.0 += 1;
    }
    let mut world = World::new();
    world.init_resource::<Runs>();
    let mut schedule = Schedule::new();
    schedule.add_systems(count);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().0, 1);
}

/// What the `Changed` docs promise, access by access.
#[test]
fn changed_reports_what_its_docs_say_for_each_kind_of_access() {
    #[derive(Component)]
    struct Hp(u32);
    #[derive(Component)]
    struct Tag;
    let mut world = World::new();
    let a = world.spawn(Hp(1));
    let b = world.spawn(Hp(1));
    let mut changed = world.query_state_filtered::<Entity, Changed<Hp>>();
    assert_eq!(changed.iter(&world).count(), 2, "spawned: added, and so changed");

    // `Mut<T>`: only when written.
    let _ = world.get_mut::<Hp>(a).unwrap().0;
    assert_eq!(changed.iter(&world).count(), 0, "a read through `Mut` is not a change");
    world.get_mut::<Hp>(a).unwrap().0 = 2;
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [a]);

    // `&mut T` items: every row handed out, once a `Changed<Hp>` query exists.
    world.query_mut::<&mut Hp>().for_each(|_| {});
    assert_eq!(changed.iter(&world).count(), 2, "handed out as `&mut`, written or not");

    // Moving to another archetype keeps the ticks; replacing by insert is a change.
    world.insert(b, Tag).unwrap();
    assert_eq!(changed.iter(&world).count(), 0, "an archetype move is not a change");
    world.insert(b, Hp(5)).unwrap();
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [b]);
}

/// Every component implements `Bundle` itself (so that a tuple with a
/// non-component in it is reported by the element's name), and `Bundle` is a
/// supertrait of `Component`: generic code bounded by `C: Component` still
/// spawns, inserts and removes a `C`, and a hand-written `Component` impl gets
/// its bundle from `component_bundle!`.
fn spawn_one<C: Component>(world: &mut World, value: C) -> Entity {
    world.spawn(value)
}

fn replace_with<C: Component>(world: &mut World, entity: Entity, value: C) -> Option<C> {
    let old = world.remove::<C>(entity).ok();
    world.insert(entity, value).expect("alive");
    old
}

struct HandWritten(u8);
impl Component for HandWritten {}
ecs_core::component_bundle!(HandWritten);

#[derive(Component)]
struct Generic<T: Send + Sync + 'static>(T);

#[test]
fn generic_code_bounded_by_component_spawns_and_hand_written_impls_are_bundles() {
    let mut world = World::new();
    let e = spawn_one(&mut world, Health(3));
    assert_eq!(replace_with(&mut world, e, Health(4)), Some(Health(3)));
    assert_eq!(world.get::<Health>(e), Some(&Health(4)));

    let h = spawn_one(&mut world, HandWritten(7));
    world.insert(h, (Health(1), Generic(2u16))).expect("alive");
    assert_eq!(world.get::<HandWritten>(h).map(|v| v.0), Some(7));
    assert_eq!(world.get::<Generic<u16>>(h).map(|v| v.0), Some(2));
    let (hand, generic): (HandWritten, Generic<u16>) = world.remove(h).expect("has both");
    assert_eq!((hand.0, generic.0), (7, 2));
    assert!(!world.has::<HandWritten>(h) && world.has::<Health>(h));
}
