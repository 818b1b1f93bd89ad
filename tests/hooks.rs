//! Component hooks: which run, in which order, for every structural operation,
//! and what a panicking hook leaves behind.

use std::sync::atomic::{AtomicUsize, Ordering};

use ecs_core::command::{CommandQueue, Commands};
use ecs_core::prelude::*;

mod common;
use common::panic_message;

#[derive(Default)]
struct Log(Vec<String>);

fn log(world: &mut DeferredWorld, line: String) {
    world.resource_mut::<Log>().0.push(line);
}

#[derive(Component, Debug)]
#[component(on_add = hp_add, on_insert = hp_insert, on_discard = hp_replace, on_remove = hp_remove, on_despawn = hp_despawn)]
struct Hp(u32);

fn hp_add(mut world: DeferredWorld, ctx: HookContext) {
    let value = world.get::<Hp>(ctx.entity).map(|h| h.0);
    log(&mut world, format!("add Hp {value:?}"));
}
fn hp_insert(mut world: DeferredWorld, ctx: HookContext) {
    let value = world.get::<Hp>(ctx.entity).map(|h| h.0);
    log(&mut world, format!("insert Hp {value:?}"));
}
fn hp_replace(mut world: DeferredWorld, ctx: HookContext) {
    let value = world.get::<Hp>(ctx.entity).map(|h| h.0);
    log(&mut world, format!("replace Hp {value:?}"));
}
fn hp_remove(mut world: DeferredWorld, ctx: HookContext) {
    let value = world.get::<Hp>(ctx.entity).map(|h| h.0);
    log(&mut world, format!("remove Hp {value:?}"));
}
fn hp_despawn(mut world: DeferredWorld, ctx: HookContext) {
    let value = world.get::<Hp>(ctx.entity).map(|h| h.0);
    log(&mut world, format!("despawn Hp {value:?}"));
}

/// A sparse component with hooks.
#[derive(Component)]
#[component(storage = "sparse", on_add = stun_add, on_remove = stun_remove)]
struct Stun(#[allow(dead_code)] u8);

fn stun_add(mut world: DeferredWorld, _: HookContext) {
    log(&mut world, "add Stun".into());
}
fn stun_remove(mut world: DeferredWorld, ctx: HookContext) {
    let present = world.get::<Stun>(ctx.entity).is_some();
    log(&mut world, format!("remove Stun {present}"));
}

/// A tag with hooks.
#[derive(Component)]
#[component(on_add = tag_add, on_remove = tag_remove)]
struct Marked;

fn tag_add(mut world: DeferredWorld, _: HookContext) {
    log(&mut world, "add Marked".into());
}
fn tag_remove(mut world: DeferredWorld, _: HookContext) {
    log(&mut world, "remove Marked".into());
}

#[derive(Component)]
struct Plain;

fn world_with_log() -> World {
    let mut world = World::new();
    world.insert_resource(Log::default());
    world
}

fn take_log(world: &mut World) -> Vec<String> {
    std::mem::take(&mut world.resource_mut::<Log>().0)
}

#[test]
fn the_first_spawn_in_a_fresh_world_runs_hooks() {
    let mut world = world_with_log();
    world.spawn(Hp(1));
    assert_eq!(take_log(&mut world), ["add Hp Some(1)", "insert Hp Some(1)"]);
}

#[test]
fn spawn_runs_every_on_add_before_any_on_insert() {
    let mut world = world_with_log();
    world.spawn((Hp(1), Marked, Stun(0), Plain));
    assert_eq!(take_log(&mut world), ["add Hp Some(1)", "add Marked", "add Stun", "insert Hp Some(1)"]);
}

#[test]
fn insert_new_then_insert_replacing() {
    let mut world = world_with_log();
    let e = world.spawn(Plain);
    world.insert(e, Hp(1)).unwrap();
    assert_eq!(take_log(&mut world), ["add Hp Some(1)", "insert Hp Some(1)"]);
    world.insert(e, Hp(2)).unwrap();
    assert_eq!(take_log(&mut world), ["replace Hp Some(1)", "insert Hp Some(2)"], "old value readable in on_discard");
    assert_eq!(world.get::<Hp>(e).unwrap().0, 2);
}

#[test]
fn remove_runs_replace_then_remove_with_the_value_readable() {
    let mut world = world_with_log();
    let e = world.spawn((Hp(4), Stun(1), Marked));
    take_log(&mut world);
    assert_eq!(world.remove::<Hp>(e).unwrap().0, 4);
    assert_eq!(take_log(&mut world), ["replace Hp Some(4)", "remove Hp Some(4)"]);
    world.remove::<Stun>(e).unwrap();
    world.remove::<Marked>(e).unwrap();
    assert_eq!(take_log(&mut world), ["remove Stun true", "remove Marked"]);
    assert!(world.remove::<Hp>(e).is_err());
    assert!(take_log(&mut world).is_empty(), "a failed remove runs no hook");
}

#[test]
fn despawn_runs_despawn_replace_remove_for_every_component() {
    let mut world = world_with_log();
    let e = world.spawn((Hp(7), Stun(0)));
    take_log(&mut world);
    world.despawn(e).unwrap();
    assert_eq!(
        take_log(&mut world),
        ["despawn Hp Some(7)", "replace Hp Some(7)", "remove Hp Some(7)", "remove Stun true"]
    );
    assert!(world.despawn(e).is_err());
    assert!(take_log(&mut world).is_empty());
}

#[test]
fn clear_despawns_with_hooks() {
    let mut world = world_with_log();
    world.spawn(Hp(1));
    world.spawn(Hp(2));
    take_log(&mut world);
    world.clear();
    let log = take_log(&mut world);
    assert_eq!(log.iter().filter(|l| l.starts_with("remove Hp")).count(), 2, "{log:?}");
    assert!(world.is_empty());
}

#[test]
fn entity_world_mut_remove_of_a_partly_present_bundle_runs_hooks_of_what_it_has() {
    let mut world = world_with_log();
    let e = world.spawn((Hp(3), Plain));
    take_log(&mut world);
    world.entity_mut(e).unwrap().remove::<(Hp, Stun)>();
    assert_eq!(take_log(&mut world), ["replace Hp Some(3)", "remove Hp Some(3)"]);
}

#[test]
fn commands_run_hooks_when_applied() {
    let mut world = world_with_log();
    let target = world.spawn(Plain);
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    let spawned = commands.spawn(Hp(1)).id();
    commands.insert(target, Hp(2));
    commands.despawn(spawned);
    assert!(take_log(&mut world).is_empty(), "nothing runs before the queue is applied");
    queue.apply(&mut world);
    assert_eq!(
        take_log(&mut world),
        [
            "add Hp Some(1)",
            "insert Hp Some(1)",
            "add Hp Some(2)",
            "insert Hp Some(2)",
            "despawn Hp Some(1)",
            "replace Hp Some(1)",
            "remove Hp Some(1)"
        ]
    );
}

#[test]
fn spawn_batch_runs_hooks_for_each_entity() {
    let mut world = world_with_log();
    let spawned: Vec<Entity> = world.spawn_batch((0..3).map(Hp)).collect();
    assert_eq!(spawned.len(), 3);
    let log = take_log(&mut world);
    assert_eq!(log.iter().filter(|l| l.starts_with("add Hp")).count(), 3, "{log:?}");
}

#[derive(Component)]
struct Armor(u32);

#[derive(Component)]
#[component(on_add = equip)]
struct Knight;

fn equip(mut world: DeferredWorld, ctx: HookContext) {
    world.commands().entity(ctx.entity).insert(Armor(5));
}

#[test]
fn a_hook_queues_structural_changes_that_run_after_the_operation() {
    let mut world = World::new();
    let k = world.spawn(Knight);
    assert_eq!(world.get::<Armor>(k).map(|a| a.0), Some(5));
    let other = world.spawn(Plain);
    world.insert(other, Knight).unwrap();
    assert_eq!(world.get::<Armor>(other).map(|a| a.0), Some(5));
    world.check_invariants().unwrap();
}

#[derive(Component)]
#[component(on_insert = clamp)]
struct Speed(f32);

fn clamp(mut world: DeferredWorld, ctx: HookContext) {
    let mut speed = world.get_mut::<Speed>(ctx.entity).unwrap();
    speed.0 = speed.0.min(10.0);
}

#[test]
fn a_hook_writes_the_component() {
    let mut world = World::new();
    let e = world.spawn(Speed(50.0));
    assert_eq!(world.get::<Speed>(e).unwrap().0, 10.0);
}

static DROPS: AtomicUsize = AtomicUsize::new(0);

#[derive(Component)]
#[component(on_add = explode_on_add, on_remove = explode_on_remove)]
struct Fragile(u32);

impl Drop for Fragile {
    fn drop(&mut self) {
        DROPS.fetch_add(1, Ordering::SeqCst);
    }
}

fn explode_on_add(world: DeferredWorld, ctx: HookContext) {
    if world.get::<Fragile>(ctx.entity).is_some_and(|f| f.0 == 13) {
        panic!("unlucky");
    }
}
fn explode_on_remove(world: DeferredWorld, ctx: HookContext) {
    if world.get::<Fragile>(ctx.entity).is_some_and(|f| f.0 == 99) {
        panic!("cursed");
    }
}

#[test]
fn a_panicking_hook_leaves_the_world_consistent_and_drops_once() {
    DROPS.store(0, Ordering::SeqCst);
    let mut world = World::new();
    let ok = world.spawn(Fragile(1));
    let spawn = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.spawn(Fragile(13))));
    assert!(spawn.is_err());
    world.check_invariants().unwrap();
    assert_eq!(world.len(), 2, "the entity was spawned before on_add ran");
    let cursed = world.spawn(Fragile(2));
    world.get_mut::<Fragile>(cursed).unwrap().0 = 99;
    let remove = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.despawn(cursed)));
    assert!(remove.is_err());
    world.check_invariants().unwrap();
    assert!(world.contains(cursed), "on_remove panicked before the despawn happened");
    assert_eq!(DROPS.load(Ordering::SeqCst), 0);
    world.get_mut::<Fragile>(cursed).unwrap().0 = 3;
    world.despawn(cursed).unwrap();
    world.despawn(ok).unwrap();
    drop(world);
    assert_eq!(DROPS.load(Ordering::SeqCst), 3, "each value dropped exactly once");
}

static BRITTLE_DROPS: AtomicUsize = AtomicUsize::new(0);

/// A component whose discard hook panics on the value 98.
#[derive(Component)]
#[component(on_discard = brittle_discard)]
struct Brittle(u32);

impl Drop for Brittle {
    fn drop(&mut self) {
        BRITTLE_DROPS.fetch_add(1, Ordering::SeqCst);
    }
}

static VOLATILE_DROPS: AtomicUsize = AtomicUsize::new(0);

/// A hooked component whose drop panics on the value 7.
#[derive(Component)]
#[component(on_insert = volatile_insert)]
struct Volatile(u32);

impl Drop for Volatile {
    fn drop(&mut self) {
        VOLATILE_DROPS.fetch_add(1, Ordering::SeqCst);
        if self.0 == 7 {
            panic!("volatile");
        }
    }
}

fn volatile_insert(mut world: DeferredWorld, ctx: HookContext) {
    let value = world.get::<Volatile>(ctx.entity).map(|v| v.0);
    log(&mut world, format!("insert Volatile {value:?}"));
}

fn brittle_discard(world: DeferredWorld, ctx: HookContext) {
    if world.get::<Brittle>(ctx.entity).is_some_and(|b| b.0 == 98) {
        panic!("brittle");
    }
}

/// Replacing a held component runs the same hooks, sees the same values and
/// leaves the same world whether or not some observer watches lifecycle
/// events elsewhere (which takes the insert off its in-place path): values,
/// the hook log, `Changed`, a bundle holding the component, and a discard
/// hook that panics (the old value stays, the new one is dropped once), and an
/// old value whose drop panics (the insert hook still runs).
#[test]
fn replacing_a_held_component_is_the_same_with_or_without_lifecycle_observers() {
    #[derive(Component)]
    struct Elsewhere;
    let run = |observed: bool| {
        BRITTLE_DROPS.store(0, Ordering::SeqCst);
        let mut world = world_with_log();
        if observed {
            world.add_observer(|_: On<Discard, Elsewhere>| {});
            world.add_observer(|_: On<Insert, Elsewhere>| {});
        }
        let e = world.spawn((Hp(1), Plain));
        let mut changed = world.query_state_filtered::<&Hp, Changed<Hp>>();
        changed.iter(&world).count();
        world.insert(e, Hp(2)).unwrap();
        world.insert(e, (Hp(3), Marked)).unwrap();
        let seen: Vec<u32> = changed.iter(&world).map(|h| h.0).collect();
        let brittle = world.spawn(Brittle(5));
        world.insert(brittle, Brittle(98)).unwrap();
        let panicked =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.insert(brittle, Brittle(6)))).is_err();
        world.check_invariants().unwrap();
        let kept = world.get::<Brittle>(brittle).map(|b| b.0);
        let drops = BRITTLE_DROPS.load(Ordering::SeqCst);
        // A drop that panics as the old value is replaced: the new value is in
        // place, its insert hook still runs (what it keeps in step stays so),
        // then the panic reaches the caller.
        VOLATILE_DROPS.store(0, Ordering::SeqCst);
        let volatile = world.spawn(Volatile(7));
        let dropped =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.insert(volatile, Volatile(8)))).is_err();
        world.check_invariants().unwrap();
        let replaced = (dropped, world.get::<Volatile>(volatile).map(|v| v.0), VOLATILE_DROPS.load(Ordering::SeqCst));
        world.despawn(volatile).unwrap();
        (take_log(&mut world), world.get::<Hp>(e).map(|h| h.0), seen, panicked, kept, drops, replaced)
    };
    let plain = run(false);
    assert_eq!(
        plain.0,
        [
            "add Hp Some(1)",
            "insert Hp Some(1)",
            "replace Hp Some(1)",
            "insert Hp Some(2)",
            "replace Hp Some(2)",
            "add Marked",
            "insert Hp Some(3)",
            "insert Volatile Some(7)",
            "insert Volatile Some(8)"
        ]
    );
    assert_eq!(plain.6, (true, Some(8), 1), "the new value in place, the old dropped once");
    assert_eq!((plain.1, plain.2.as_slice()), (Some(3), &[3][..]));
    assert_eq!((plain.3, plain.4, plain.5), (true, Some(98), 2), "old value kept; 5 replaced, 6 dropped once");
    assert_eq!(run(true), plain);
}

/// Panics when dropped holding 1; its insert hook panics when it holds 2.
#[derive(Component)]
#[component(on_insert = touchy_insert)]
struct Touchy(u32);

impl Drop for Touchy {
    fn drop(&mut self) {
        if self.0 == 1 && !std::thread::panicking() {
            panic!("touchy drop");
        }
    }
}

fn touchy_insert(world: DeferredWorld, ctx: HookContext) {
    if world.get::<Touchy>(ctx.entity).is_some_and(|t| t.0 == 2) {
        panic!("touchy insert");
    }
}

/// A replace whose old value's drop panics and whose insert hook panics too:
/// the first panic (the drop's) reaches the caller, the new value is in place
/// and the world is consistent, on the in-place path and the general one.
#[test]
fn the_first_panic_of_a_replace_goes_on() {
    for observed in [false, true] {
        let mut world = World::new();
        if observed {
            world.add_observer(|_: On<Insert, Touchy>| {});
        }
        let e = world.spawn(Touchy(1));
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.insert(e, Touchy(2))));
        assert_eq!(panic_message(caught.expect_err("both panic")), "touchy drop", "observed: {observed}");
        world.check_invariants().unwrap();
        assert_eq!(world.get::<Touchy>(e).map(|t| t.0), Some(2));
    }
}
