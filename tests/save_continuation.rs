//! A saved game goes on exactly as the unsaved one: observers registered
//! before a load do not disturb ids, `Local`s and messages in flight are saved
//! (or the save is refused, naming them), and a game-like simulation saved at
//! every tick and loaded into a fresh world continues identically.

use ecs_core::prelude::*;
use ecs_core::serialize::SerializeRegistry;
use serde::{Deserialize, Serialize};

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Hp(i32);

#[derive(Event)]
struct Poke;

#[derive(Default)]
struct Pokes(u32);

fn hp_registry() -> SerializeRegistry {
    SerializeRegistry::new().register::<Hp>("Hp")
}

fn add_observers(world: &mut World) -> Vec<Entity> {
    vec![
        world.add_observer(|_: On<Poke>, mut pokes: ResMut<Pokes>| pokes.0 += 1),
        world.add_observer(|trigger: On<Add<Hp>>, mut hps: Query<&mut Hp>| {
            hps.get_mut(trigger.target()).unwrap().0 += 1;
        }),
    ]
}

#[test]
fn observers_registered_before_a_load_keep_the_saved_ids() {
    let mut world = World::new();
    world.insert_resource(Pokes::default());
    let observers = add_observers(&mut world);
    let a = world.spawn(Hp(1));
    let gone = world.spawn(Hp(2));
    world.spawn(Hp(3));
    world.despawn(gone).unwrap();
    let json = serde_json::to_string(&hp_registry().rows(&world)).unwrap();

    let mut loaded = World::new();
    loaded.insert_resource(Pokes::default());
    assert_eq!(add_observers(&mut loaded), observers, "a fresh world hands the observers the same ids");
    let save = hp_registry().load_rows(&mut serde_json::Deserializer::from_str(&json)).unwrap();
    let map = loaded.load(save);
    loaded.check_invariants().unwrap();
    assert!(map.iter().all(|(saved, now)| saved == now), "ids kept around the observers");
    assert_eq!(loaded.get::<Hp>(a), world.get::<Hp>(a));
    for _ in 0..3 {
        assert_eq!(loaded.spawn(Hp(0)), world.spawn(Hp(0)), "the next ids are the uninterrupted world's");
    }
    assert_eq!(loaded.get::<Hp>(world.spawn(Hp(5))), None);
    loaded.trigger(Poke);
    assert_eq!(loaded.resource::<Pokes>().0, 1, "the observers still run");
    assert_eq!(loaded.query::<&Hp>().iter().count(), world.query::<&Hp>().iter().count() - 1);
}

#[test]
fn observers_the_save_did_not_have_make_the_load_remap() {
    let mut world = World::new();
    world.insert_resource(Pokes::default());
    let a = world.spawn(Hp(1));
    let json = serde_json::to_string(&hp_registry().rows(&world)).unwrap();
    let mut loaded = World::new();
    loaded.insert_resource(Pokes::default());
    add_observers(&mut loaded);
    let save = hp_registry().load_rows(&mut serde_json::Deserializer::from_str(&json)).unwrap();
    let map = loaded.load(save);
    loaded.check_invariants().unwrap();
    let now = map.get(a).unwrap();
    assert_ne!(now, a, "slot 0 is an observer's here: the saved entity gets a new id");
    assert_eq!(loaded.get::<Hp>(now), Some(&Hp(1)));
}

#[derive(Default, Debug, PartialEq, Serialize, Deserialize)]
struct Countdown(u32);

#[derive(Default, Serialize, Deserialize)]
struct Scratch(Vec<u32>);

#[derive(Message, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Shot(u32);

#[derive(Default, Debug, PartialEq, Serialize, Deserialize)]
struct Heard(Vec<u32>);

fn count_down(mut countdown: Local<Countdown>, mut shots: MessageWriter<Shot>) {
    countdown.0 += 1;
    shots.write(Shot(countdown.0));
}

fn listen(mut shots: MessageReader<Shot>, mut heard: ResMut<Heard>) {
    heard.0.extend(shots.read().map(|s| s.0));
}

fn shooting_schedule() -> Schedule {
    let mut schedule = Schedule::new();
    // `listen` runs first: it reads the shots of the run before.
    schedule.add_systems((listen, count_down).chain());
    schedule
}

fn shooting_registry() -> SerializeRegistry {
    SerializeRegistry::new()
        .register_local::<Countdown>("Countdown")
        .register_message::<Shot>("Shot")
        .register_resource::<Heard>("Heard")
}

#[test]
fn locals_and_messages_in_flight_continue_after_a_load_in_both_formats() {
    for format in ["rows", "columns"] {
        let mut world = World::new();
        world.insert_resource(Heard::default());
        let mut schedule = shooting_schedule();
        for _ in 0..3 {
            schedule.run(&mut world);
        }
        let registry = shooting_registry();
        let json = match format {
            "rows" => serde_json::to_string(&registry.rows(&world)).unwrap(),
            _ => serde_json::to_string(&registry.columns(&world)).unwrap(),
        };
        let save = match format {
            "rows" => registry.load_rows(&mut serde_json::Deserializer::from_str(&json)),
            _ => registry.load_columns(&mut serde_json::Deserializer::from_str(&json)),
        }
        .unwrap();
        let mut loaded = World::new();
        let mut loaded_schedule = shooting_schedule();
        loaded.load(save);
        for _ in 0..3 {
            schedule.run(&mut world);
            loaded_schedule.run(&mut loaded);
            assert_eq!(loaded.resource::<Heard>(), world.resource::<Heard>(), "{format}");
        }
        assert_eq!(world.resource::<Heard>().0, [1, 2, 3, 4, 5], "each shot heard once, a run late");
    }
}

#[test]
fn a_save_that_would_lose_a_local_or_messages_is_refused_naming_them() {
    let mut world = World::new();
    world.insert_resource(Heard::default());
    let mut schedule = shooting_schedule();
    schedule.run(&mut world);

    let no_local = SerializeRegistry::new().register_message::<Shot>("Shot");
    let error = serde_json::to_string(&no_local.columns(&world)).unwrap_err().to_string();
    assert!(error.contains("system `save_continuation::count_down`"), "{error}");
    assert!(error.contains("keeps a `Local<save_continuation::Countdown>`"), "{error}");
    assert!(error.contains("register_local::<save_continuation::Countdown>"), "{error}");

    let no_message = SerializeRegistry::new().register_local::<Countdown>("Countdown");
    let error = serde_json::to_string(&no_message.rows(&world)).unwrap_err().to_string();
    assert!(error.contains("1 `save_continuation::Shot` message(s) are in flight"), "{error}");
    assert!(error.contains("register_message::<save_continuation::Shot>"), "{error}");

    // Skipped, both go: the load starts them afresh.
    let skipping = SerializeRegistry::new().skip_local::<Countdown>().skip_message::<Shot>();
    let json = serde_json::to_string(&skipping.rows(&world)).unwrap();
    let mut loaded = World::new();
    loaded.load(skipping.load_rows(&mut serde_json::Deserializer::from_str(&json)).unwrap());
    assert!(!loaded.contains_resource::<ecs_core::message::Messages<Shot>>());

    // Once no message is in flight, nothing is lost: the save goes through.
    world.update_messages();
    world.update_messages();
    let quiet = SerializeRegistry::new().register_local::<Countdown>("Countdown");
    serde_json::to_string(&quiet.rows(&world)).unwrap();
}

#[test]
fn a_local_of_an_unknown_type_in_a_save_is_refused() {
    let mut world = World::new();
    world.insert_resource(Heard::default());
    let mut schedule = shooting_schedule();
    schedule.run(&mut world);
    let json = serde_json::to_string(&shooting_registry().rows(&world)).unwrap();
    let other = SerializeRegistry::new().register_message::<Shot>("Shot").register_resource::<Heard>("Heard");
    let error = other.load_rows(&mut serde_json::Deserializer::from_str(&json)).unwrap_err();
    assert_eq!(error, ecs_core::serialize::LoadError::UnknownLocal("Countdown".into()));
}

#[test]
fn a_save_from_inside_a_system_refuses_that_systems_local_while_it_runs() {
    #[derive(Default)]
    struct Outcome(Option<String>);
    fn saver(world: &World, mut countdown: Local<Countdown>, mut outcome: Local<Scratch>) {
        countdown.0 += 1;
        outcome.0.push(1);
        let registry = SerializeRegistry::new().register_local::<Countdown>("Countdown").skip_local::<Scratch>();
        let result = serde_json::to_string(&registry.rows(world)).map_err(|e| e.to_string());
        *world.resource::<std::sync::Mutex<Outcome>>().lock().unwrap() = Outcome(result.err());
    }
    let mut world = World::new();
    world.insert_resource(std::sync::Mutex::new(Outcome::default()));
    let mut schedule = Schedule::new();
    schedule.add_systems(saver);
    schedule.run(&mut world);
    let error = world.resource::<std::sync::Mutex<Outcome>>().lock().unwrap().0.clone().expect("refused");
    assert!(error.contains("saver") && error.contains("is running"), "{error}");
    // Between runs, the same save goes through.
    let registry = SerializeRegistry::new().register_local::<Countdown>("Countdown").skip_local::<Scratch>();
    let json = serde_json::to_string(&registry.rows(&world)).unwrap();
    assert!(json.contains(r#""Countdown""#), "{json}");
}

#[test]
fn saves_of_format_version_2_load_with_no_locals() {
    let mut world = World::new();
    world.spawn(Hp(4));
    let json = serde_json::to_string(&hp_registry().rows(&world)).unwrap();
    let old = json.replace(r#""version":4"#, r#""version":2"#).replace(r#","locals":[]"#, "");
    assert!(!old.contains("locals") && old.contains(r#""version":2"#), "{old}");
    let save = hp_registry().load_rows(&mut serde_json::Deserializer::from_str(&old)).unwrap();
    let mut loaded = World::new();
    loaded.load(save);
    assert_eq!(loaded.query::<&Hp>().iter().copied().collect::<Vec<_>>(), [Hp(4)]);
}

#[test]
fn a_local_goes_back_only_to_a_system_of_the_same_name() {
    fn first(mut n: Local<Countdown>) {
        n.0 += 1;
    }
    fn second(mut n: Local<Countdown>) {
        n.0 += 100;
    }
    fn report(world: &mut World, schedule: &mut Schedule) -> u32 {
        // What each system holds shows in what it adds next: read them back
        // through a save.
        schedule.run(world);
        let json =
            serde_json::to_string(&SerializeRegistry::new().register_local::<Countdown>("C").rows(world)).unwrap();
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        value["locals"].as_array().unwrap().iter().map(|l| l[4].as_u64().unwrap() as u32).sum()
    }
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_systems((first, second));
    schedule.run(&mut world);
    schedule.run(&mut world);
    let registry = SerializeRegistry::new().register_local::<Countdown>("C");
    let json = serde_json::to_string(&registry.rows(&world)).unwrap();

    // The same systems in the same order: both values come back.
    let mut same = World::new();
    let mut same_schedule = Schedule::new();
    same_schedule.add_systems((first, second));
    same.load(registry.load_rows(&mut serde_json::Deserializer::from_str(&json)).unwrap());
    assert_eq!(report(&mut same, &mut same_schedule), 3 + 300);

    // Swapped: neither value goes to the other system; both start afresh.
    let mut swapped = World::new();
    let mut swapped_schedule = Schedule::new();
    swapped_schedule.add_systems((second, first));
    swapped.load(registry.load_rows(&mut serde_json::Deserializer::from_str(&json)).unwrap());
    assert_eq!(report(&mut swapped, &mut swapped_schedule), 1 + 100);
}
