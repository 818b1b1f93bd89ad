//! Observers: lifecycle and custom events, entity observers, structural
//! changes through commands, recursion limits and panics.

use ecs_core::command::{CommandQueue, Commands};
use ecs_core::prelude::*;

#[derive(Default)]
struct Log(Vec<String>);

#[derive(Component, Debug)]
#[component(on_add = health_added, on_remove = health_removed)]
struct Health(i32);

fn health_added(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<Log>().0.push("hook add".into());
}
fn health_removed(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<Log>().0.push("hook remove".into());
}

#[derive(Component)]
struct Name(&'static str);

#[derive(Component)]
struct Corpse;

#[derive(Event)]
struct Hit(i32);

#[derive(Event)]
struct Ping;

fn world_with_log() -> World {
    let mut world = World::new();
    world.insert_resource(Log::default());
    world
}

fn take_log(world: &mut World) -> Vec<String> {
    std::mem::take(&mut world.resource_mut::<Log>().0)
}

#[test]
fn hooks_run_before_add_observers_and_after_remove_observers() {
    let mut world = world_with_log();
    world.add_observer(|_: On<Add, Health>, mut log: ResMut<Log>| log.0.push("observer add".into()));
    world.add_observer(|_: On<Insert, Health>, mut log: ResMut<Log>| log.0.push("observer insert".into()));
    world.add_observer(|_: On<Discard, Health>, mut log: ResMut<Log>| log.0.push("observer replace".into()));
    world.add_observer(|_: On<Remove, Health>, mut log: ResMut<Log>| log.0.push("observer remove".into()));
    world.add_observer(|_: On<Despawn, Health>, mut log: ResMut<Log>| log.0.push("observer despawn".into()));
    let e = world.spawn(Health(1));
    assert_eq!(take_log(&mut world), ["hook add", "observer add", "observer insert"]);
    world.insert(e, Health(2)).unwrap();
    assert_eq!(take_log(&mut world), ["observer replace", "observer insert"]);
    world.remove::<Health>(e).unwrap();
    assert_eq!(take_log(&mut world), ["observer replace", "observer remove", "hook remove"]);
    world.insert(e, Health(3)).unwrap();
    take_log(&mut world);
    world.despawn(e).unwrap();
    assert_eq!(take_log(&mut world), ["observer despawn", "observer replace", "observer remove", "hook remove"]);
}

#[test]
fn a_lifecycle_observer_reads_the_entity_through_queries_and_names_the_target() {
    let mut world = world_with_log();
    world.add_observer(|trigger: On<Add, Health>, names: Query<&Name>, mut log: ResMut<Log>| {
        let name = names.get(trigger.target()).map_or("?", |n| n.0);
        log.0.push(format!("{name} gained health"));
    });
    world.spawn((Name("orc"), Health(3)));
    world.spawn(Name("tree"));
    let elf = world.spawn(Name("elf"));
    world.insert(elf, Health(9)).unwrap();
    let log = take_log(&mut world);
    assert_eq!(
        log.iter().filter(|l| !l.starts_with("hook")).collect::<Vec<_>>(),
        ["orc gained health", "elf gained health"]
    );
}

#[test]
fn an_observer_of_every_component_runs_once_per_component() {
    let mut world = world_with_log();
    world.add_observer(|trigger: On<Add>, mut log: ResMut<Log>| {
        assert!(trigger.component().is_some());
        log.0.push("added".into());
    });
    // (The observer's own entity gaining its `Observer` component is one add.)
    take_log(&mut world);
    world.spawn((Name("a"), Corpse));
    assert_eq!(take_log(&mut world), ["added", "added"]);
}

#[test]
fn custom_events_reach_global_and_entity_observers() {
    let mut world = world_with_log();
    let a = world.spawn(Health(10));
    let b = world.spawn(Health(10));
    world.add_observer(|hit: On<Hit>, mut q: Query<&mut Health>| {
        if let Ok(h) = q.get_mut(hit.target()) {
            h.0 -= hit.0;
        }
    });
    world.entity_mut(a).unwrap().observe(|hit: On<Hit>, mut log: ResMut<Log>| {
        log.0.push(format!("a hit for {}", hit.event().0));
    });
    world.trigger_targets(Hit(3), [a, b]);
    world.trigger_targets(Hit(1), b);
    world.trigger(Hit(100)); // no target: the global observer finds no health
    assert_eq!(world.get::<Health>(a).unwrap().0, 7);
    assert_eq!(world.get::<Health>(b).unwrap().0, 6);
    let log = take_log(&mut world);
    assert_eq!(log.iter().filter(|l| l.starts_with("a hit")).collect::<Vec<_>>(), ["a hit for 3"]);
}

#[test]
fn observers_change_structure_through_commands() {
    let mut world = World::new();
    world.add_observer(|hit: On<Hit>, mut q: Query<&mut Health>, mut commands: Commands| {
        let target = hit.target();
        let Ok(health) = q.get_mut(target) else { return };
        health.0 -= hit.0;
        if health.0 <= 0 {
            commands.entity(target).remove::<Health>().insert(Corpse);
            commands.spawn(Name("loot"));
        }
    });
    world.insert_resource(Log::default());
    let orc = world.spawn(Health(5));
    world.trigger_targets(Hit(5), orc);
    assert!(world.has::<Corpse>(orc) && !world.has::<Health>(orc));
    assert_eq!(world.query::<&Name>().iter().count(), 1);
    world.check_invariants().unwrap();
}

#[test]
fn commands_trigger_events_when_applied() {
    let mut world = world_with_log();
    world.add_observer(|_: On<Ping>, mut log: ResMut<Log>| log.0.push("ping".into()));
    let target = world.spawn(Name("x"));
    world.entity_mut(target).unwrap().observe(|hit: On<Hit>, mut log: ResMut<Log>| {
        log.0.push(format!("hit {}", hit.0));
    });
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.trigger(Ping);
    commands.entity(target).trigger(Hit(2));
    assert!(take_log(&mut world).is_empty());
    queue.apply(&mut world);
    assert_eq!(take_log(&mut world), ["ping", "hit 2"]);
}

#[test]
fn a_system_triggers_through_commands() {
    let mut world = world_with_log();
    world.add_observer(|_: On<Ping>, mut log: ResMut<Log>| log.0.push("ping".into()));
    let mut schedule = Schedule::new();
    schedule.add_systems(|mut commands: Commands| commands.trigger(Ping));
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["ping", "ping"]);
}

#[test]
fn entity_observers_go_with_their_entity_and_observers_are_entities() {
    let mut world = world_with_log();
    let global = world.add_observer(|_: On<Ping>, mut log: ResMut<Log>| log.0.push("global".into()));
    let e = world.spawn(Name("e"));
    world.entity_mut(e).unwrap().observe(|_: On<Ping>| {});
    world.entity_mut(e).unwrap().observe(|_: On<Hit>| {});
    assert_eq!(world.observer_count(), 3);
    world.despawn(e).unwrap();
    assert_eq!(world.observer_count(), 1, "entity observers are removed with the entity");
    world.trigger(Ping);
    world.despawn(global).unwrap();
    assert_eq!(world.observer_count(), 0);
    world.trigger(Ping);
    assert_eq!(take_log(&mut world), ["global"]);
    world.check_invariants().unwrap();
}

/// Several entity observers of one event on one target run in the order
/// they were added; despawning some leaves the others running, and the
/// target can be observed again once none is left.
#[test]
fn entity_observers_of_one_target_come_and_go_in_order() {
    let mut world = world_with_log();
    let target = world.spawn(Name("t"));
    let other = world.spawn(Name("o"));
    let before: Vec<Entity> = world.query::<(Entity, &ecs_core::observer::Observer)>().iter().map(|(e, _)| e).collect();
    for n in 1..=3 {
        world.entity_mut(target).unwrap().observe(move |_: On<Hit>, mut log: ResMut<Log>| log.0.push(format!("{n}")));
    }
    world.entity_mut(other).unwrap().observe(|_: On<Hit>, mut log: ResMut<Log>| log.0.push("other".into()));
    let mut added: Vec<Entity> = world
        .query::<(Entity, &ecs_core::observer::Observer)>()
        .iter()
        .map(|(e, _)| e)
        .filter(|e| !before.contains(e))
        .collect();
    added.sort_by_key(|e| e.index());
    assert_eq!(added.len(), 4);
    world.trigger_targets(Hit(1), target);
    assert_eq!(take_log(&mut world), ["1", "2", "3"]);
    world.despawn(added[1]).unwrap();
    world.trigger_targets(Hit(1), target);
    assert_eq!(take_log(&mut world), ["1", "3"]);
    world.despawn(added[0]).unwrap();
    world.despawn(added[2]).unwrap();
    world.trigger_targets(Hit(1), [target, other]);
    assert_eq!(take_log(&mut world), ["other"], "the target's observers are gone, the other's stays");
    world.entity_mut(target).unwrap().observe(|_: On<Hit>, mut log: ResMut<Log>| log.0.push("again".into()));
    world.trigger_targets(Hit(1), target);
    assert_eq!(take_log(&mut world), ["again"]);
    // The other target's only observer goes; its slot is reused by the next
    // observer, which must not run for the other target.
    world.despawn(added[3]).unwrap();
    world.entity_mut(target).unwrap().observe(|_: On<Hit>, mut log: ResMut<Log>| log.0.push("again 2".into()));
    world.trigger_targets(Hit(1), other);
    assert_eq!(take_log(&mut world), Vec::<String>::new());
    world.trigger_targets(Hit(1), target);
    assert_eq!(take_log(&mut world), ["again", "again 2"]);
    world.check_invariants().unwrap();
}

/// An entity observer belongs to one generation of its target's index: the
/// entity that reuses the index is not observed by it, and a stale handle
/// reaches nothing once the observer is gone.
#[test]
fn entity_observers_stay_with_their_generation_when_the_index_is_reused() {
    let mut world = world_with_log();
    let old = world.spawn(Name("old"));
    world.entity_mut(old).unwrap().observe(|_: On<Hit>, mut log: ResMut<Log>| log.0.push("old".into()));
    world.entity_mut(old).unwrap().observe(|_: On<Hit>, mut log: ResMut<Log>| log.0.push("old 2".into()));
    world.despawn(old).unwrap();
    let new =
        (0..64).map(|_| world.spawn(Name("new"))).find(|e| e.index() == old.index()).expect("the index is reused");
    world.trigger_targets(Hit(1), new);
    assert_eq!(take_log(&mut world), Vec::<String>::new(), "the new entity has no observers yet");
    world.entity_mut(new).unwrap().observe(|_: On<Hit>, mut log: ResMut<Log>| log.0.push("new".into()));
    world.trigger_targets(Hit(1), [old, new]);
    assert_eq!(take_log(&mut world), ["new"]);
    assert_eq!(world.observer_count(), 1);
    world.check_invariants().unwrap();
}

#[test]
fn a_reused_observer_slot_watches_only_what_its_new_observer_watches() {
    let mut world = world_with_log();
    let knight = world.spawn((Name("knight"), Corpse, Health(1)));
    world.entity_mut(knight).unwrap().observe(|_: On<Remove, Corpse>, mut log: ResMut<Log>| {
        log.0.push("corpse".into());
    });
    take_log(&mut world);
    // Despawning the observer frees its slot; the next observer takes it.
    let observer = world.query::<(Entity, &ecs_core::observer::Observer)>().iter().next().unwrap().0;
    world.despawn(observer).unwrap();
    assert_eq!(world.observer_count(), 0);
    world.entity_mut(knight).unwrap().observe(|_: On<Remove, Health>, mut log: ResMut<Log>| {
        log.0.push("health".into());
    });
    world.remove::<Corpse>(knight).unwrap();
    assert_eq!(take_log(&mut world), Vec::<String>::new(), "the old observer's component is not watched");
    world.remove::<Health>(knight).unwrap();
    let log = take_log(&mut world);
    assert_eq!(log.iter().filter(|l| !l.starts_with("hook")).collect::<Vec<_>>(), ["health"]);
    world.check_invariants().unwrap();
}

#[test]
fn an_entity_observer_of_a_lifecycle_event_sees_only_its_entity() {
    let mut world = world_with_log();
    let a = world.spawn(Health(1));
    let b = world.spawn(Health(1));
    take_log(&mut world);
    world.entity_mut(a).unwrap().observe(|_: On<Remove, Health>, mut log: ResMut<Log>| {
        log.0.push("a lost health".into());
    });
    world.remove::<Health>(b).unwrap();
    world.remove::<Health>(a).unwrap();
    let log = take_log(&mut world);
    assert_eq!(log.iter().filter(|l| !l.starts_with("hook")).collect::<Vec<_>>(), ["a lost health"]);
}

#[test]
fn an_observer_spawned_entity_can_despawn_later() {
    let mut world = world_with_log();
    world.add_observer(|trigger: On<Add, Corpse>, mut commands: Commands| {
        commands.entity(trigger.target()).despawn();
    });
    let a = world.spawn(Health(1));
    world.insert(a, Corpse).unwrap();
    assert!(!world.contains(a), "despawned by the observer's command");
    world.check_invariants().unwrap();
}

#[test]
fn a_runaway_cycle_is_an_error_naming_the_event() {
    let mut world = World::new();
    world.add_observer(|_: On<Ping>, mut commands: Commands| commands.trigger(Ping));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.trigger(Ping)));
    let panic = result.expect_err("a cycle must be stopped");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.contains("Ping"), "{message}");
    world.check_invariants().unwrap();
}

/// The stop drops the cycle's commands, not the world's consistency: the
/// relationship upkeep queued among them (a child's first link waits for a
/// command that makes its parent's list) still runs.
#[test]
fn a_runaway_cycle_keeps_relationships_consistent() {
    let mut world = World::new();
    let handed_out = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = handed_out.clone();
    world.add_observer(move |_: On<Ping>, mut commands: Commands| {
        let parent = commands.spawn_empty().id();
        let child = commands.spawn(ChildOf(parent)).id();
        record.lock().unwrap().extend([parent, child]);
        commands.trigger(Ping);
    });
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.trigger(Ping)));
    assert!(result.is_err(), "a cycle must be stopped");
    world.check_invariants().unwrap();
    // The spawns dropped with the last round left no handle reserved for an
    // entity that will never exist: their slots are free for the next spawns.
    let dropped: Vec<Entity> = handed_out.lock().unwrap().iter().copied().filter(|&e| !world.contains(e)).collect();
    assert_eq!(dropped.len(), 2, "the last round's parent and child were dropped");
    let mut reused: Vec<u32> = (0..2).map(|_| world.spawn(()).index()).collect();
    let mut freed: Vec<u32> = dropped.iter().map(|e| e.index()).collect();
    reused.sort();
    freed.sort();
    assert_eq!(reused, freed, "the dropped spawns' slots are reused");
    let children = world.query::<(Entity, &ChildOf)>();
    let links: Vec<(Entity, Entity)> = children.iter().map(|(e, c)| (e, c.parent())).collect();
    assert!(links.len() > 1000, "the cycle ran its rounds");
    for (child, parent) in links {
        let listed = world.get::<Children>(parent).is_some_and(|list| list.contains(&child));
        assert!(listed, "{child} names {parent} as parent but is not among its children");
    }
    // The world goes on: the observer is still there and the next trigger
    // runs (and is stopped) the same way.
    world.add_observer(|_: On<Hit>, mut commands: Commands| {
        commands.spawn(Spark);
    });
    world.trigger(Hit(1));
    assert_eq!(world.query_filtered::<(), With<Spark>>().iter().count(), 1);
}

#[test]
fn a_runaway_cycle_through_hooks_is_stopped_too() {
    #[derive(Component)]
    #[component(on_add = again)]
    struct Echo;
    fn again(mut world: DeferredWorld, ctx: HookContext) {
        world.commands().entity(ctx.entity).remove::<Echo>();
        world.commands().entity(ctx.entity).insert(Echo);
    }
    let mut world = World::new();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.spawn(Echo)));
    assert!(result.is_err());
    world.check_invariants().unwrap();
}

#[test]
fn a_panicking_observer_leaves_the_world_consistent_and_keeps_observing() {
    let mut world = world_with_log();
    world.add_observer(|hit: On<Hit>, mut log: ResMut<Log>| {
        if hit.0 < 0 {
            panic!("negative hit");
        }
        log.0.push(format!("hit {}", hit.0));
    });
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.trigger(Hit(-1))));
    assert!(result.is_err());
    world.check_invariants().unwrap();
    world.trigger(Hit(4));
    assert_eq!(take_log(&mut world), ["hit 4"]);
}

#[derive(Component)]
struct Spark;

/// What a panicking observer queued before its panic is not kept in its
/// state for a run that may never come: it goes to the world, which applies
/// it with its next operation (here the observer's own despawn).
#[test]
fn a_panicking_observers_commands_are_applied_not_kept() {
    let mut world = World::new();
    let observer = world.add_observer(|hit: On<Hit>, mut commands: Commands| {
        commands.spawn(Spark);
        if hit.0 < 0 {
            panic!("negative hit");
        }
    });
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.trigger(Hit(-1))));
    assert!(result.is_err());
    world.despawn(observer).unwrap();
    assert_eq!(world.query::<&Spark>().iter().count(), 1, "the spawn queued before the panic, applied once");
    world.check_invariants().unwrap();
}

#[test]
fn a_trigger_parameter_outside_an_observer_is_refused_by_name() {
    fn listens(_: On<Ping>) {}
    let mut world = World::new();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = world.run_system_once(listens);
    }));
    let panic = result.expect_err("a On is only for observers");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.contains("add_observer"), "{message}");
    assert!(message.contains("listens") && message.contains("Ping>"), "names the system and the event: {message}");
}

#[test]
fn observers_keep_local_state_between_triggers() {
    let mut world = world_with_log();
    world.add_observer(|_: On<Ping>, mut n: Local<u32>, mut log: ResMut<Log>| {
        *n += 1;
        log.0.push(n.to_string());
    });
    for _ in 0..3 {
        world.trigger(Ping);
    }
    assert_eq!(take_log(&mut world), ["1", "2", "3"]);
}

/// Components with hooks (the hierarchy's) run their hooks whether or not any
/// observer watches the event; an observer added after many such changes is
/// still triggered, for exactly the changes made after it.
#[test]
fn observers_of_hooked_components_see_every_change_made_after_they_are_added() {
    #[derive(Default)]
    struct Seen(Vec<String>);
    let mut world = World::new();
    world.insert_resource(Seen::default());
    // Hook-only changes first: nothing observes `ChildOf` or `Children` yet.
    let old = world.spawn(());
    let early = world.spawn(ChildOf(old));
    world.despawn(old).unwrap();
    assert!(!world.contains(early));

    world.add_observer(|t: On<Add, ChildOf>, mut seen: ResMut<Seen>| seen.0.push(format!("add {}", t.target())));
    world
        .add_observer(|t: On<Discard, ChildOf>, mut seen: ResMut<Seen>| seen.0.push(format!("replace {}", t.target())));
    world.add_observer(|t: On<Despawn, Children>, mut seen: ResMut<Seen>| {
        seen.0.push(format!("despawn parent {}", t.target()))
    });
    let (a, b) = (world.spawn(()), world.spawn(()));
    let kid = world.spawn(ChildOf(a));
    world.insert(kid, ChildOf(b)).unwrap();
    world.despawn(b).unwrap();
    assert!(!world.contains(kid), "linked despawn still runs");
    assert_eq!(
        world.resource::<Seen>().0,
        [format!("add {kid}"), format!("replace {kid}"), format!("despawn parent {b}"), format!("replace {kid}"),]
    );
}

#[test]
fn lifecycle_patterns_name_the_component_inside_or_beside_the_event() {
    #[derive(Component)]
    struct Armor(#[allow(dead_code)] u32);
    #[derive(Default)]
    struct Seen(Vec<&'static str>);
    let mut world = World::new();
    world.insert_resource(Seen::default());
    // bevy_ecs 0.20's spelling, the component inside the pattern ...
    world.add_observer(|on: On<Add<Armor>>, mut seen: ResMut<Seen>| {
        assert_eq!(*on.event(), ecs_core::event::AddEvent);
        seen.0.push("add inside");
    });
    // ... and 0.17's, beside it: both watch `Armor` only.
    world.add_observer(|_: On<Add, Armor>, mut seen: ResMut<Seen>| seen.0.push("add beside"));
    world.add_observer(|_: On<Discard<Armor>>, mut seen: ResMut<Seen>| seen.0.push("discard"));
    world.add_observer(|_: On<Remove<Armor>>, mut seen: ResMut<Seen>| seen.0.push("remove"));
    world.add_observer(|_: On<Despawn<Armor>>, mut seen: ResMut<Seen>| seen.0.push("despawn"));
    world.add_observer(|_: On<Insert<Armor>>, mut seen: ResMut<Seen>| seen.0.push("insert"));
    let knight = world.spawn(Armor(3));
    world.spawn(Corpse); // not watched
    assert_eq!(world.resource::<Seen>().0, ["add inside", "add beside", "insert"]);
    world.resource_mut::<Seen>().0.clear();
    world.insert(knight, Armor(4)).unwrap();
    assert_eq!(world.resource::<Seen>().0, ["discard", "insert"]);
    world.resource_mut::<Seen>().0.clear();
    world.despawn(knight).unwrap();
    assert_eq!(world.resource::<Seen>().0, ["despawn", "discard", "remove"]);
}

/// Names its target in a field, as bevy_ecs's entity events do.
#[derive(EntityEvent)]
struct Struck {
    entity: Entity,
    damage: i32,
}

/// Its target in a marked field of a tuple struct.
#[derive(EntityEvent)]
struct Pushed(i32, #[event_target] Entity);

/// An entity event triggered by a hook (through `DeferredWorld`).
fn strike_on_add(mut world: DeferredWorld, ctx: HookContext) {
    world.trigger(Struck { entity: ctx.entity, damage: 1 });
}

#[derive(Component)]
#[component(on_add = strike_on_add)]
struct Cursed;

#[test]
fn an_entity_event_reaches_the_observers_of_the_entity_it_names() {
    let mut world = World::new();
    world.insert_resource(Log::default());
    let a = world.spawn(Health(10));
    let b = world.spawn(Health(10));
    for e in [a, b] {
        world.entity_mut(e).unwrap().observe(|hit: On<Struck>, mut q: Query<&mut Health>| {
            assert_eq!(hit.target(), hit.entity, "the target is the event's own");
            assert_eq!(hit.event_target(), hit.entity);
            q.get_mut(hit.entity).unwrap().0 -= hit.damage;
        });
    }
    #[derive(Default)]
    struct Targets(Vec<Option<Entity>>);
    world.insert_resource(Targets::default());
    world.add_observer(|hit: On<Struck>, mut seen: ResMut<Targets>| seen.0.push(hit.get_target()));
    world.trigger(Struck { entity: a, damage: 3 });
    assert_eq!(world.get::<Health>(a).unwrap().0, 7);
    assert_eq!(world.get::<Health>(b).unwrap().0, 10, "only the named entity's observers");
    // Through commands, and from a hook.
    world.run_system_once(move |mut commands: Commands| commands.trigger(Struck { entity: b, damage: 2 })).unwrap();
    assert_eq!(world.get::<Health>(b).unwrap().0, 8);
    world.insert(b, Cursed).unwrap();
    assert_eq!(world.get::<Health>(b).unwrap().0, 7);
    // A global observer sees every trigger, with its target.
    assert_eq!(world.resource::<Targets>().0, [Some(a), Some(b), Some(b)]);
    // A marked field of a tuple struct; the target can be changed before a trigger.
    world.entity_mut(a).unwrap().observe(|push: On<Pushed>, mut q: Query<&mut Health>| {
        q.get_mut(push.target()).unwrap().0 += push.0;
    });
    let mut push = Pushed(5, b);
    *push.event_target_mut() = a;
    assert_eq!(push.event_target(), a);
    world.trigger(push);
    assert_eq!(world.get::<Health>(a).unwrap().0, 12);
    // Triggered for targets given beside it, an entity event names each in
    // turn (the observers above check `target() == entity`).
    world.trigger_targets(Struck { entity: Entity::PLACEHOLDER, damage: 1 }, [a, b]);
    world
        .run_system_once(move |mut commands: Commands| {
            commands.entity(b).trigger(Struck { entity: a, damage: 1 });
        })
        .unwrap();
    assert_eq!(world.get::<Health>(a).unwrap().0, 11);
    assert_eq!(world.get::<Health>(b).unwrap().0, 5);
}
