//! Snapshots: what `World::snapshot` saves and `World::restore` puts back.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use ecs_core::component::Snapshotting;
use ecs_core::prelude::*;
use proptest::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
#[component(pod)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Velocity(f32);

#[derive(Component, Clone, Debug, PartialEq)]
struct Name(String);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "sparse")]
struct Stunned(u8);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Frozen;

/// Neither `Copy` nor `Clone`.
#[derive(Component, Debug)]
struct Handle(#[allow(dead_code)] Box<u32>);

#[derive(Component, Debug)]
#[component(snapshot = "skip")]
struct Cache(#[allow(dead_code)] Vec<u8>);

#[derive(Component, Debug)]
#[component(storage = "sparse", snapshot = "skip")]
struct SparseCache(#[allow(dead_code)] u64);

#[derive(Component, Clone, Debug, PartialEq)]
#[component(snapshot = "clone")]
struct Generic<T: Clone + Send + Sync + 'static>(T);

#[test]
fn the_derive_picks_copy_clone_or_unsupported_from_the_type() {
    let mut world = World::new();
    world.spawn((Position { x: 0.0, y: 0.0 }, Velocity(0.0), Name("n".into()), Stunned(1), Frozen));
    let parent = world.spawn((Handle(Box::new(1)), Cache(vec![]), SparseCache(1), Generic(1u8)));
    world.spawn(ChildOf(parent));
    let strategy =
        |name: &str| world.components().iter().find(|i| i.name().ends_with(name)).map(|i| i.snapshotting()).unwrap();
    assert_eq!(strategy("Position"), Snapshotting::Copy);
    assert_eq!(strategy("Velocity"), Snapshotting::Copy);
    assert_eq!(strategy("Name"), Snapshotting::Clone);
    assert_eq!(strategy("Stunned"), Snapshotting::Copy);
    assert_eq!(strategy("Handle"), Snapshotting::Unsupported);
    assert_eq!(strategy("::Cache"), Snapshotting::Skip);
    assert_eq!(strategy("Generic<u8>"), Snapshotting::Clone);
    assert_eq!(strategy("ChildOf"), Snapshotting::Copy);
}

#[test]
fn restore_brings_back_ids_generations_values_and_the_free_list() {
    let mut world = World::new();
    let all: Vec<Entity> =
        (0..10).map(|i| world.spawn((Position { x: i as f32, y: 0.0 }, Name(format!("e{i}"))))).collect();
    world.despawn(all[3]).unwrap();
    world.despawn(all[7]).unwrap();
    world.insert(all[1], Stunned(2)).unwrap();
    world.insert(all[2], Velocity(1.5)).unwrap();
    let snapshot = world.snapshot().unwrap();
    assert_eq!(snapshot.len(), 8);

    // Diverge: spawn into the freed slots, despawn, change values, add archetypes.
    let later: Vec<Entity> = (0..5).map(|i| world.spawn((Velocity(i as f32), Frozen))).collect();
    world.despawn(all[0]).unwrap();
    world.get_mut::<Position>(all[1]).unwrap().x = 100.0;
    world.remove::<Stunned>(all[1]).unwrap();
    world.insert(all[4], Stunned(9)).unwrap();
    world.get_mut::<Name>(all[5]).unwrap().0.push('!');
    let after_first: Vec<Entity> = (0..3).map(|_| world.spawn(())).collect();

    world.restore(&snapshot).unwrap();
    world.check_invariants().unwrap();
    assert_eq!(world.len(), 8);
    for (i, &e) in all.iter().enumerate() {
        if i == 3 || i == 7 {
            assert!(!world.contains(e), "despawned before the snapshot: stays stale");
            continue;
        }
        assert_eq!(world.get::<Position>(e), Some(&Position { x: i as f32, y: 0.0 }));
        assert_eq!(world.get::<Name>(e), Some(&Name(format!("e{i}"))));
    }
    assert_eq!(world.get::<Stunned>(all[1]), Some(&Stunned(2)));
    assert_eq!(world.get::<Stunned>(all[4]), None);
    assert_eq!(world.get::<Velocity>(all[2]), Some(&Velocity(1.5)));
    for e in later.iter().chain(&after_first) {
        assert!(!world.contains(*e), "spawned after the snapshot: stale");
    }
    // The free list is back: the same spawns hand out the same handles.
    let again: Vec<Entity> = (0..5).map(|i| world.spawn((Velocity(i as f32), Frozen))).collect();
    assert_eq!(again, later);
    world.check_invariants().unwrap();
}

#[test]
fn a_snapshot_restores_any_number_of_times_and_into_a_new_world() {
    let mut world = World::new();
    let parent = world.spawn(Name("parent".into()));
    let children: Vec<Entity> =
        (0..3).map(|i| world.spawn((Position { x: i as f32, y: 1.0 }, ChildOf(parent)))).collect();
    world.spawn((Stunned(4), Frozen));
    let snapshot = world.snapshot().unwrap();
    let order = |world: &World| world.iter().map(|e| e.id()).collect::<Vec<_>>();
    let expected = order(&world);

    for round in 0..3 {
        world.despawn(children[round]).unwrap();
        world.spawn(Position { x: -1.0, y: -1.0 });
        world.restore(&snapshot).unwrap();
        world.check_invariants().unwrap();
        assert_eq!(order(&world), expected, "round {round}: same entities in the same order");
        assert_eq!(&world.get::<Children>(parent).unwrap()[..], &children[..], "both sides of every link are back");
    }

    let mut fresh = World::new();
    fresh.restore(&snapshot).unwrap();
    fresh.check_invariants().unwrap();
    assert_eq!(order(&fresh), expected);
    assert_eq!(fresh.get::<Name>(parent), Some(&Name("parent".into())));
    assert_eq!(fresh.get::<ChildOf>(children[2]), Some(&ChildOf(parent)));
    assert_eq!(fresh.spawn(()), world.spawn(()), "both allocate the same next id");
    // Hierarchy upkeep works on the restored links.
    fresh.despawn(parent).unwrap();
    assert!(children.iter().all(|&c| !fresh.contains(c)), "linked despawn follows restored `Children`");
    fresh.check_invariants().unwrap();
}

#[test]
fn an_unsupported_component_is_named_and_nothing_changes() {
    let mut world = World::new();
    world.spawn(Position { x: 1.0, y: 2.0 });
    let mut snapshot = world.snapshot().unwrap();
    let e = world.spawn((Position { x: 0.0, y: 0.0 }, Handle(Box::new(3))));
    let error = world.snapshot_into(&mut snapshot).unwrap_err();
    assert_eq!(error, EcsError::NotSnapshottable { component: core::any::type_name::<Handle>() });
    let message = error.to_string();
    assert!(
        message.contains("Handle` is neither") && message.contains("Clone") && message.contains("skip"),
        "{message}"
    );
    assert!(snapshot.is_complete(), "the earlier snapshot is left as it was");
    assert_eq!(snapshot.len(), 1);
    // Once no entity holds it, its (empty) archetype does not stop a snapshot.
    world.remove::<Handle>(e).unwrap();
    world.snapshot_into(&mut snapshot).unwrap();
    assert_eq!(snapshot.len(), 2);
}

#[test]
fn skipped_components_are_left_out_and_their_archetypes_merge() {
    let mut world = World::new();
    let plain = world.spawn(Position { x: 1.0, y: 0.0 });
    let cached = world.spawn((Position { x: 2.0, y: 0.0 }, Cache(vec![1, 2])));
    let sparse = world.spawn((Position { x: 3.0, y: 0.0 }, SparseCache(7), Stunned(1)));
    let only_cache = world.spawn((Cache(vec![]), Velocity(4.0)));
    let snapshot = world.snapshot().unwrap();
    world.despawn(plain).unwrap();

    for target in [&mut world, &mut World::new()] {
        target.restore(&snapshot).unwrap();
        target.check_invariants().unwrap();
        assert_eq!(target.len(), 4);
        for (e, x) in [(plain, 1.0), (cached, 2.0), (sparse, 3.0)] {
            assert_eq!(target.get::<Position>(e), Some(&Position { x, y: 0.0 }));
            assert!(!target.has::<Cache>(e) && !target.has::<SparseCache>(e));
        }
        assert_eq!(target.get::<Stunned>(sparse), Some(&Stunned(1)));
        assert_eq!(target.get::<Stunned>(cached), None);
        assert_eq!(target.get::<Velocity>(only_cache), Some(&Velocity(4.0)));
        let query = target.query::<&Position>();
        assert_eq!(query.iter().count(), 3);
        // Structural changes on the merged rows keep everything consistent.
        target.insert(cached, Stunned(5)).unwrap();
        target.despawn(plain).unwrap();
        target.check_invariants().unwrap();
    }
}

static CLONES: AtomicUsize = AtomicUsize::new(0);
static DROPS: AtomicUsize = AtomicUsize::new(0);
static PANIC_AT_CLONE: AtomicUsize = AtomicUsize::new(usize::MAX);

/// Counts clones and drops; panics on the clone numbered `PANIC_AT_CLONE`.
#[derive(Component, Debug, PartialEq)]
struct Counted(u32);

impl Clone for Counted {
    fn clone(&self) -> Self {
        let n = CLONES.fetch_add(1, Ordering::SeqCst);
        if n == PANIC_AT_CLONE.load(Ordering::SeqCst) {
            // This clone makes no value.
            CLONES.fetch_sub(1, Ordering::SeqCst);
            panic!("clone {n} fails");
        }
        Counted(self.0)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        DROPS.fetch_add(1, Ordering::SeqCst);
    }
}

/// Values alive now: made (spawned + cloned) minus dropped.
fn alive(spawned: usize) -> usize {
    spawned + CLONES.load(Ordering::SeqCst) - DROPS.load(Ordering::SeqCst)
}

#[test]
fn cloned_components_are_dropped_exactly_once_and_a_panicking_clone_changes_nothing() {
    let mut world = World::new();
    let all: Vec<Entity> = (0..20).map(|i| world.spawn((Counted(i), Position { x: i as f32, y: 0.0 }))).collect();
    let spawned = 20;
    let snapshot = world.snapshot().unwrap();
    assert_eq!(alive(spawned), 40, "the world's 20 and the snapshot's 20");
    world.despawn(all[0]).unwrap();
    world.restore(&snapshot).unwrap();
    assert_eq!(alive(spawned), 40, "the world's values replaced, the snapshot's kept");

    // A clone panicking part-way through a restore: the world is untouched.
    world.get_mut::<Position>(all[5]).unwrap().x = -5.0;
    world.despawn(all[6]).unwrap();
    PANIC_AT_CLONE.store(CLONES.load(Ordering::SeqCst) + 7, Ordering::SeqCst);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.restore(&snapshot)));
    PANIC_AT_CLONE.store(usize::MAX, Ordering::SeqCst);
    assert!(result.is_err());
    world.check_invariants().unwrap();
    assert_eq!(world.get::<Position>(all[5]).unwrap().x, -5.0);
    assert!(!world.contains(all[6]));
    assert_eq!(
        alive(spawned),
        39,
        "the world's 19 and the snapshot's 20: the clones made before the panic were dropped"
    );

    // A clone panicking part-way through a snapshot: that snapshot is refused.
    let mut second = world.snapshot().unwrap();
    PANIC_AT_CLONE.store(CLONES.load(Ordering::SeqCst) + 3, Ordering::SeqCst);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.snapshot_into(&mut second)));
    PANIC_AT_CLONE.store(usize::MAX, Ordering::SeqCst);
    assert!(result.is_err());
    assert!(!second.is_complete());
    assert_eq!(world.restore(&second), Err(EcsError::IncompleteSnapshot));
    assert!(EcsError::IncompleteSnapshot.to_string().contains("take a new one"));
    world.check_invariants().unwrap();
    assert!(!world.contains(all[6]));

    drop(second);
    drop(snapshot);
    drop(world);
    assert_eq!(alive(spawned), 0, "every value made was dropped");
}

#[derive(Clone, Debug, PartialEq)]
struct Score(u32);
#[derive(Clone, Debug, PartialEq)]
struct Settings(u32);

#[test]
fn registered_resources_are_restored_others_are_left_alone() {
    let mut world = World::new();
    world.register_snapshot_resource::<Score>();
    world.register_snapshot_resource::<Messages<Scored>>();
    world.insert_resource(Messages::<Scored>::default());
    world.insert_resource(Settings(1));
    let empty = world.snapshot().unwrap();
    world.insert_resource(Score(3));
    world.resource_mut::<Messages<Scored>>().write(Scored(1));
    let scored = world.snapshot().unwrap();

    world.resource_mut::<Score>().0 = 10;
    world.resource_mut::<Messages<Scored>>().write(Scored(2));
    world.insert_resource(Settings(2));
    world.restore(&scored).unwrap();
    assert_eq!(world.resource::<Score>(), &Score(3));
    assert_eq!(world.resource::<Messages<Scored>>().len(), 1);
    assert_eq!(world.resource::<Settings>(), &Settings(2), "not registered: not restored");

    world.restore(&empty).unwrap();
    assert!(!world.contains_resource::<Score>(), "absent in the snapshot: removed");

    // A world that never registered `Score` still restores it from a snapshot.
    let mut fresh = World::new();
    fresh.restore(&scored).unwrap();
    assert_eq!(fresh.resource::<Score>(), &Score(3));
}

#[derive(Message, Clone, Debug, PartialEq)]
struct Scored(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Hp(u32);

#[derive(Default)]
struct Frame(u32);

#[derive(Default)]
struct Seen(Vec<(usize, usize)>);

fn damage(frame: Res<Frame>, mut query: Query<(Entity, &mut Hp)>) {
    for (e, hp) in &mut query {
        if (e.index() + frame.0) % 3 == 0 {
            hp.0 += 1;
        }
    }
}

fn spawn_some(frame: Res<Frame>, mut commands: Commands) {
    if frame.0 % 2 == 0 {
        commands.spawn(Hp(0));
    }
}

fn watch(changed: Query<&Hp, Changed<Hp>>, added: Query<&Hp, Added<Hp>>, mut seen: ResMut<Seen>) {
    seen.0.push((changed.iter().count(), added.iter().count()));
}

#[test]
fn systems_see_the_same_changes_after_a_restore() {
    let mut world = World::new();
    world.insert_resource(Frame(0));
    world.insert_resource(Seen::default());
    for _ in 0..10 {
        world.spawn(Hp(0));
    }
    let mut schedule = Schedule::new();
    schedule.add_systems((damage, spawn_some, watch).chain());
    let mut run = |world: &mut World, frames: u32| {
        world.resource_mut::<Seen>().0.clear();
        for _ in 0..frames {
            world.resource_mut::<Frame>().0 += 1;
            schedule.run(world);
        }
        std::mem::take(&mut world.resource_mut::<Seen>().0)
    };
    run(&mut world, 3);
    let snapshot = world.snapshot().unwrap();
    let frame = world.resource::<Frame>().0;
    let first = run(&mut world, 5);
    world.restore(&snapshot).unwrap();
    world.resource_mut::<Frame>().0 = frame;
    let second = run(&mut world, 5);
    assert_eq!(first, second, "every system sees exactly the changes it saw the first time");
    assert!(first.iter().any(|&(changed, _)| changed > 0 && changed < world.len()));
}

#[derive(Clone, Debug)]
enum Op {
    Spawn(u8, f32),
    Despawn(usize),
    InsertStunned(usize, u8),
    RemoveVelocity(usize),
    SetX(usize, f32),
    Snapshot,
    Restore,
    Swap,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (any::<u8>(), -10.0f32..10.0).prop_map(|(k, v)| Op::Spawn(k, v)),
        2 => any::<usize>().prop_map(Op::Despawn),
        2 => (any::<usize>(), any::<u8>()).prop_map(|(i, s)| Op::InsertStunned(i, s)),
        1 => any::<usize>().prop_map(Op::RemoveVelocity),
        2 => (any::<usize>(), -10.0f32..10.0).prop_map(|(i, v)| Op::SetX(i, v)),
        1 => Just(Op::Snapshot),
        1 => Just(Op::Restore),
        1 => Just(Op::Swap),
    ]
}

/// What the model knows of one entity.
#[derive(Clone, Debug, PartialEq)]
struct Model {
    position: Option<Position>,
    velocity: Option<Velocity>,
    name: Option<Name>,
    stunned: Option<Stunned>,
}

fn observe(world: &World, e: Entity) -> Model {
    Model {
        position: world.get::<Position>(e).copied(),
        velocity: world.get::<Velocity>(e).copied(),
        name: world.get::<Name>(e).cloned(),
        stunned: world.get::<Stunned>(e).copied(),
    }
}

/// A snapshot with what the model knew then: each live entity's components,
/// the live entities, and the iteration order.
type Saved = (ecs_core::snapshot::Snapshot, Vec<(Entity, Model)>, Vec<Entity>, Vec<Entity>);

proptest! {
    #![proptest_config(ProptestConfig { cases: common::cases(64), ..ProptestConfig::default() })]

    #[test]
    fn restore_matches_a_model_of_the_world_at_the_snapshot(ops in proptest::collection::vec(op(), 1..120)) {
        let mut world = World::new();
        let mut live: Vec<Entity> = Vec::new();
        let mut ever: Vec<Entity> = Vec::new();
        let mut saved: Option<Saved> = None;
        for op in ops {
            match op {
                Op::Spawn(kind, v) => {
                    let p = Position { x: v, y: kind as f32 };
                    let e = match kind % 4 {
                        0 => world.spawn(p),
                        1 => world.spawn((p, Velocity(v))),
                        2 => world.spawn((p, Name(format!("{v}")))),
                        _ => world.spawn((Velocity(v), Stunned(kind))),
                    };
                    live.push(e);
                    ever.push(e);
                }
                Op::Despawn(i) if !live.is_empty() => {
                    let e = live.swap_remove(i % live.len());
                    world.despawn(e).unwrap();
                }
                Op::InsertStunned(i, s) if !live.is_empty() => {
                    world.insert(live[i % live.len()], Stunned(s)).unwrap();
                }
                Op::RemoveVelocity(i) if !live.is_empty() => {
                    let _ = world.remove::<Velocity>(live[i % live.len()]);
                }
                Op::SetX(i, v) if !live.is_empty() => {
                    if let Some(mut p) = world.get_mut::<Position>(live[i % live.len()]) {
                        p.x = v;
                    }
                }
                Op::Snapshot => {
                    let models = live.iter().map(|&e| (e, observe(&world, e))).collect();
                    let order = world.iter().map(|e| e.id()).collect();
                    saved = Some((world.snapshot().unwrap(), models, live.clone(), order));
                }
                Op::Restore => {
                    if let Some((snapshot, models, saved_live, order)) = &saved {
                        world.restore(snapshot).unwrap();
                        for (e, model) in models {
                            prop_assert_eq!(&observe(&world, *e), model);
                        }
                        for e in &ever {
                            prop_assert_eq!(world.contains(*e), saved_live.contains(e));
                        }
                        let now: Vec<Entity> = world.iter().map(|e| e.id()).collect();
                        prop_assert_eq!(&now, order, "iteration order is the snapshot's");
                        live = saved_live.clone();
                    }
                }
                Op::Swap => {
                    if let Some((snapshot, models, saved_live, order)) = &mut saved {
                        let before_models: Vec<(Entity, Model)> = live.iter().map(|&e| (e, observe(&world, e))).collect();
                        let before_order: Vec<Entity> = world.iter().map(|e| e.id()).collect();
                        world.swap_snapshot(snapshot).unwrap();
                        for (e, model) in models.iter() {
                            prop_assert_eq!(&observe(&world, *e), model);
                        }
                        let now: Vec<Entity> = world.iter().map(|e| e.id()).collect();
                        prop_assert_eq!(&now, &*order, "iteration order is the snapshot's");
                        // The snapshot now holds the state before the swap.
                        let restored_live = core::mem::replace(saved_live, live.clone());
                        *models = before_models;
                        *order = before_order;
                        live = restored_live;
                    }
                }
                _ => {}
            }
            world.check_invariants().map_err(TestCaseError::fail)?;
        }
    }
}

#[test]
fn swapping_trades_places_and_falls_back_when_the_layout_differs() {
    let mut world = World::new();
    let a = world.spawn((Position { x: 1.0, y: 0.0 }, Name("a".into())));
    let mut snapshot = world.snapshot().unwrap();
    world.get_mut::<Name>(a).unwrap().0 = "changed".into();
    let b = world.spawn(Velocity(2.0));
    world.swap_snapshot(&mut snapshot).unwrap();
    world.check_invariants().unwrap();
    assert_eq!(world.get::<Name>(a), Some(&Name("a".into())));
    assert!(!world.contains(b));
    world.swap_snapshot(&mut snapshot).unwrap();
    world.check_invariants().unwrap();
    assert_eq!(world.get::<Name>(a), Some(&Name("changed".into())));
    assert_eq!(world.get::<Velocity>(b), Some(&Velocity(2.0)));

    // A sparse column added since (the layout differs): restored all the same.
    world.insert(a, Stunned(1)).unwrap();
    world.swap_snapshot(&mut snapshot).unwrap();
    world.check_invariants().unwrap();
    assert_eq!(world.get::<Name>(a), Some(&Name("a".into())));
    assert!(!world.has::<Stunned>(a) && !world.contains(b));
    world.swap_snapshot(&mut snapshot).unwrap();
    assert_eq!(world.get::<Stunned>(a), Some(&Stunned(1)));
    assert_eq!(world.get::<Velocity>(b), Some(&Velocity(2.0)));

    // Into a new world: the fallback. The snapshot held the state before the
    // last swap: `a` without `Stunned`, no `b`.
    let mut fresh = World::new();
    fresh.swap_snapshot(&mut snapshot).unwrap();
    fresh.check_invariants().unwrap();
    assert_eq!(fresh.get::<Name>(a), Some(&Name("a".into())));
    assert!(!fresh.has::<Stunned>(a) && !fresh.contains(b));
    assert!(snapshot.is_empty(), "the snapshot holds the new world's former (empty) state");
}

#[derive(Component, Clone, Debug, PartialEq)]
#[component(storage = "sparse")]
struct SparseName(String);

#[derive(Component, Clone, Debug, PartialEq)]
#[component(storage = "sparse")]
struct SparseList(Vec<u32>);

/// A world whose archetype got its sparse columns in the other order: each
/// saved column must land in the column of its own component.
#[test]
fn restore_matches_columns_by_component_whatever_their_order() {
    let mut world = World::new();
    let e = world.spawn(Position { x: 1.0, y: 1.0 });
    world.insert(e, SparseName("name".into())).unwrap();
    world.insert(e, SparseList(vec![1, 2, 3])).unwrap();
    let snapshot = world.snapshot().unwrap();

    let mut other = World::new();
    let f = other.spawn(Position { x: 0.0, y: 0.0 });
    other.insert(f, SparseList(vec![9])).unwrap();
    other.insert(f, SparseName("other".into())).unwrap();
    other.restore(&snapshot).unwrap();
    other.check_invariants().unwrap();
    assert_eq!(other.get::<SparseName>(e), Some(&SparseName("name".into())));
    assert_eq!(other.get::<SparseList>(e), Some(&SparseList(vec![1, 2, 3])));
    // And a swap between two worlds of different column orders falls back.
    let mut swapped = world.snapshot().unwrap();
    other.swap_snapshot(&mut swapped).unwrap();
    other.check_invariants().unwrap();
    assert_eq!(other.get::<SparseList>(e), Some(&SparseList(vec![1, 2, 3])));
}

#[derive(Event)]
struct Ping;

/// A snapshot holds no observers (a world with observers cannot be
/// snapshotted); restoring one into a world that has them would clear their
/// entities without their hooks and hand their ids out again while they still
/// run. The restore is refused, and changes nothing.
#[test]
fn a_restore_into_a_world_with_observers_is_refused() {
    let mut world = World::new();
    let kept = world.spawn(Velocity(1.0));
    let snapshot = world.snapshot().unwrap();
    let pings = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = pings.clone();
    let observer = world.add_observer(move |_: On<Ping>| {
        counter.fetch_add(1, Ordering::Relaxed);
    });
    let later = world.spawn(Velocity(2.0));
    let error = world.restore(&snapshot).unwrap_err();
    assert!(matches!(error, EcsError::RestoreOverObservers { observers: 1 }), "{error}");
    assert!(error.to_string().contains("observers"), "{error}");
    assert!(world.contains(later) && world.contains(kept) && world.contains(observer), "nothing changed");
    world.trigger(Ping);
    assert_eq!(pings.load(Ordering::Relaxed), 1);
    world.despawn(observer).unwrap();
    world.restore(&snapshot).unwrap();
    assert!(world.contains(kept) && !world.contains(later));
    world.check_invariants().unwrap();
}
