//! Systems the world keeps and runs by id: their state lives across runs, their
//! commands are applied after each run, ids die with their system, and a run
//! that cannot happen (unknown id, a run asked while running, a missing
//! resource) is an error that changes nothing.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ecs_core::prelude::*;
use ecs_core::system::SystemId;

mod common;
use common::panic_message;

#[derive(Component, Debug, PartialEq)]
struct Health(i32);

#[derive(Default)]
struct Log(Vec<String>);

fn count_runs(mut runs: Local<u32>) -> u32 {
    *runs += 1;
    *runs
}

#[test]
fn a_registered_system_keeps_its_state_and_returns_its_output() {
    let mut world = World::new();
    let id = world.register_system(count_runs);
    assert_eq!(world.run_system(id), Ok(1));
    assert_eq!(world.run_system(id), Ok(2));
    // Another registration of the same function is another system.
    let other = world.register_system(count_runs);
    assert_ne!(id, other);
    assert_eq!(world.run_system(other), Ok(1));
    assert_eq!(world.run_system(id), Ok(3));
}

#[test]
fn changed_sees_what_changed_since_the_systems_last_run() {
    fn changed(q: Query<Entity, Changed<Health>>) -> Vec<Entity> {
        q.iter().collect()
    }
    let mut world = World::new();
    let a = world.spawn(Health(1));
    let b = world.spawn(Health(2));
    let id = world.register_system(changed);
    assert_eq!(world.run_system(id).unwrap().len(), 2, "a first run sees everything");
    assert_eq!(world.run_system(id).unwrap(), []);
    world.get_mut::<Health>(b).unwrap().0 = 5;
    assert_eq!(world.run_system(id).unwrap(), [b]);
    assert!(world.contains(a));
}

#[test]
fn its_commands_are_applied_after_each_run() {
    fn spawn_one(mut commands: Commands) -> Entity {
        commands.spawn(Health(3)).id()
    }
    let mut world = World::new();
    let id = world.register_system(spawn_one);
    let e = world.run_system(id).unwrap();
    assert_eq!(world.get::<Health>(e), Some(&Health(3)));
    let f = world.run_system(id).unwrap();
    assert_ne!(e, f);
    assert_eq!(world.len(), 2);
}

#[test]
fn an_unregistered_or_foreign_id_names_nothing() {
    let mut world = World::new();
    let id = world.register_system(count_runs);
    world.unregister_system(id).unwrap();
    assert_eq!(world.run_system(id), Err(EcsError::UnknownSystem));
    assert_eq!(world.unregister_system(id), Err(EcsError::UnknownSystem));
    // The slot is reused; the old id still names nothing.
    let again = world.register_system(count_runs);
    assert_eq!(world.run_system(id), Err(EcsError::UnknownSystem));
    assert_eq!(world.run_system(again), Ok(1));
    // Two fresh worlds give their first systems the same slot and generation:
    // only the world an id belongs to answers it.
    let (mut one, mut two) = (World::new(), World::new());
    let (ones, twos) = (one.register_system(count_runs), two.register_system(count_runs));
    assert_eq!(one.run_system(twos), Err(EcsError::UnknownSystem), "another world's id");
    assert_eq!(two.unregister_system(ones), Err(EcsError::UnknownSystem));
    assert_eq!((one.run_system(ones), two.run_system(twos)), (Ok(1), Ok(1)));
    assert!(!EcsError::UnknownSystem.to_string().is_empty());
}

#[test]
fn a_system_asking_for_itself_is_refused_and_may_unregister_itself() {
    #[derive(Default)]
    struct Me(Option<SystemId<(), String>>);
    let mut world = World::new();
    world.init_resource::<Me>();
    let id = world.register_system(|world: &mut World| {
        let me = world.resource::<Me>().0.unwrap();
        let inner = world.run_system(me);
        world.unregister_system(me).unwrap();
        format!("{inner:?}")
    });
    world.resource_mut::<Me>().0 = Some(id);
    let out = world.run_system(id).unwrap();
    assert!(out.contains("SystemAlreadyRunning"), "{out}");
    assert_eq!(world.run_system(id), Err(EcsError::UnknownSystem), "it unregistered itself");
}

#[test]
fn a_missing_resource_refuses_the_run() {
    fn needs(log: Res<Log>) -> usize {
        log.0.len()
    }
    let mut world = World::new();
    let id = world.register_system(needs);
    assert!(matches!(world.run_system(id), Err(EcsError::MissingResource(_))));
    world.init_resource::<Log>();
    assert_eq!(world.run_system(id), Ok(0));
}

#[test]
fn a_panicking_system_has_its_commands_applied_and_stays_registered() {
    fn spawn_then_maybe_panic(mut commands: Commands, mut runs: Local<u32>) {
        commands.spawn(Health(0));
        *runs += 1;
        if *runs == 1 {
            panic!("first run");
        }
    }
    let mut world = World::new();
    let id = world.register_system(spawn_then_maybe_panic);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.run_system(id)));
    assert_eq!(panic_message(result.unwrap_err()), "first run");
    assert_eq!(world.len(), 1, "the spawn queued before the panic");
    world.run_system(id).unwrap();
    assert_eq!(world.len(), 2);
    world.check_invariants().unwrap();
}

#[test]
fn commands_run_and_unregister_systems() {
    fn push(mut log: ResMut<Log>) {
        log.0.push("ran".into());
    }
    let mut world = World::new();
    world.init_resource::<Log>();
    let id = world.register_system(push);
    world.run_system_once(move |mut commands: Commands| commands.run_system(id)).unwrap();
    world.run_system_once(move |mut commands: Commands| commands.run_system_cached(push)).unwrap();
    world.run_system_once(move |mut commands: Commands| commands.unregister_system(id)).unwrap();
    assert_eq!(world.resource::<Log>().0, ["ran", "ran"]);
    assert_eq!(world.run_system(id), Err(EcsError::UnknownSystem));
}

#[test]
fn run_system_cached_keeps_one_system_per_function() {
    fn other(mut runs: Local<u32>) -> u32 {
        *runs += 10;
        *runs
    }
    let mut world = World::new();
    assert_eq!(world.run_system_cached(count_runs), Ok(1));
    assert_eq!(world.run_system_cached(count_runs), Ok(2));
    assert_eq!(world.run_system_cached(other), Ok(10));
    assert_eq!(
        world.run_system_cached(|mut n: Local<u8>| {
            *n += 1;
            *n
        }),
        Ok(1)
    );
    assert_eq!(world.run_system_cached(count_runs), Ok(3));
}

#[test]
fn a_registered_system_is_dropped_once_when_unregistered_or_with_its_world() {
    let drops = Arc::new(AtomicUsize::new(0));
    struct Guard(Arc<AtomicUsize>);
    impl Drop for Guard {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let mut world = World::new();
    let guard = Guard(drops.clone());
    let id = world.register_system(move |_: &mut World| {
        let _ = &guard;
    });
    world.run_system(id).unwrap();
    world.unregister_system(id).unwrap();
    assert_eq!(drops.load(Ordering::SeqCst), 1);
    let guard = Guard(drops.clone());
    world.register_system(move |_: &mut World| {
        let _ = &guard;
    });
    drop(world);
    assert_eq!(drops.load(Ordering::SeqCst), 2);
}

/// `Commands::register_system` hands out the id at once; the system is in
/// the world once the command runs, never under an id the world gave
/// another system meanwhile.
#[test]
fn commands_register_systems_with_ids_that_hold() {
    use ecs_core::command::{CommandQueue, Commands};
    fn say(tag: &'static str) -> impl FnMut(ResMut<Log>) + Send + Sync + 'static {
        move |mut log: ResMut<Log>| log.0.push(tag.to_owned())
    }
    let mut world = World::new();
    world.init_resource::<Log>();
    let mut queue = CommandQueue::default();
    let (first, second) = {
        let mut commands = Commands::new(&mut queue, &world);
        (commands.register_system(say("first")), commands.register_system(say("second")))
    };
    assert_ne!(first, second);
    assert_eq!(world.run_system(first), Err(EcsError::UnknownSystem), "not registered before the command runs");
    // A system registered on the world meanwhile gets a slot of its own.
    let direct = world.register_system(say("direct"));
    assert!(direct != first && direct != second);
    queue.apply(&mut world);
    for id in [second, direct, first] {
        world.run_system(id).unwrap();
    }
    assert_eq!(world.resource::<Log>().0, ["second", "direct", "first"]);

    // From a system, with a run queued after it.
    world.resource_mut::<Log>().0.clear();
    let id = world
        .run_system_once(|mut commands: Commands| {
            let id = commands.register_system(say("queued"));
            commands.run_system(id);
            id
        })
        .unwrap();
    assert_eq!(world.resource::<Log>().0, ["queued"]);
    world.unregister_system(id).unwrap();
    assert_eq!(world.run_system(id), Err(EcsError::UnknownSystem));

    // A dropped command: the id stays unknown, and the world goes on.
    let mut dropped = CommandQueue::default();
    let lost = Commands::new(&mut dropped, &world).register_system(say("lost"));
    drop(dropped);
    let after = world.register_system(say("after"));
    assert_eq!(world.run_system(lost), Err(EcsError::UnknownSystem));
    world.run_system(after).unwrap();
    assert_eq!(world.resource::<Log>().0, ["queued", "after"]);
}

/// The slot of an id whose `register_system` command was dropped is freed at
/// the next sync point, as a dropped spawn's entity handle is.
#[test]
fn a_dropped_register_command_frees_its_slot_at_a_sync_point() {
    use ecs_core::command::{CommandQueue, Commands};
    let mut world = World::new();
    let mut dropped = CommandQueue::default();
    let lost = Commands::new(&mut dropped, &world).register_system(|| {});
    drop(dropped);
    let kept = world.register_system(|| {});
    assert_eq!(world.run_system(lost), Err(EcsError::UnknownSystem));
    Schedule::new().run(&mut world); // a sync point
    let reused = world.register_system(|| {});
    assert_eq!(format!("{lost:?}").replace("v0", "v1"), format!("{reused:?}"), "the same slot, a new generation");
    assert_eq!(world.run_system(lost), Err(EcsError::UnknownSystem));
    world.run_system(kept).unwrap();
    world.run_system(reused).unwrap();
}
