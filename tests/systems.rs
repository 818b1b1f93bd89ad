//! Systems and schedules: parameters, access conflicts, ordering, parallelism,
//! determinism, commands at sync points, change detection, panics.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ecs_core::prelude::*;

mod common;
use common::panic_message;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Position(f32);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Velocity(f32);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Health(i32);
#[derive(Component)]
struct Player;

struct DeltaTime(f32);
#[derive(Default)]
struct Spawned(u32);

fn movement(mut q: Query<(&mut Position, &Velocity)>, dt: Res<DeltaTime>) {
    for (p, v) in q.iter_mut() {
        p.0 += v.0 * dt.0;
    }
}

fn reaper(q: Query<(Entity, &Health)>, mut commands: Commands) {
    for (e, h) in q.iter() {
        if h.0 <= 0 {
            commands.despawn(e);
        }
    }
}

fn spawner(mut commands: Commands, mut count: ResMut<Spawned>, mut runs: Local<u32>) {
    *runs += 1;
    if *runs % 2 == 1 {
        commands.spawn((Position(0.0), Velocity(1.0), Health(1)));
        count.0 += 1;
    }
}

#[test]
fn systems_run_with_queries_resources_locals_and_commands() {
    let mut world = World::new();
    world.insert_resource(DeltaTime(0.5));
    world.insert_resource(Spawned::default());
    let mover = world.spawn((Position(0.0), Velocity(2.0), Health(3)));
    let dead = world.spawn((Position(0.0), Health(0)));
    let mut schedule = Schedule::new();
    schedule.add_systems(movement).add_systems(reaper.after(movement)).add_systems(spawner);
    schedule.run(&mut world);
    assert_eq!(world.get::<Position>(mover), Some(&Position(1.0)));
    assert!(!world.contains(dead));
    assert_eq!(world.len(), 2, "one spawned by commands at the end of the run");
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.get_resource::<Spawned>().unwrap().0, 2, "Local counts runs per system");
    assert_eq!(world.len(), 3);
    world.check_invariants().unwrap();
}

#[test]
fn optional_resources_and_world_access() {
    fn reads(dt: Option<Res<DeltaTime>>, world: &World, mut commands: Commands) {
        let seen = dt.map_or(0, |d| d.0 as u32) + world.len() as u32;
        commands.run(move |w| w.get_resource_mut::<Spawned>().unwrap().0 = seen);
    }
    let mut world = World::new();
    world.insert_resource(Spawned::default());
    world.spawn(Health(1));
    let mut schedule = Schedule::new();
    schedule.add_systems(reads);
    schedule.run(&mut world);
    assert_eq!(world.get_resource::<Spawned>().unwrap().0, 1);
    world.insert_resource(DeltaTime(10.0));
    schedule.run(&mut world);
    assert_eq!(world.get_resource::<Spawned>().unwrap().0, 11);
}

#[test]
#[should_panic(expected = "system `systems::missing_resource_panics::uses_dt` (added at tests/systems.rs:92:21) \
                           needs the resource `systems::DeltaTime`")]
fn missing_resource_panics() {
    fn uses_dt(_dt: Res<DeltaTime>) {}
    let mut world = World::new();
    Schedule::new().add_systems(uses_dt).run(&mut world);
}

#[test]
#[should_panic(expected = "parameters `Query<&mut systems::Position>` and `Query<&systems::Position>` conflict: \
                           component `systems::Position` is written by one and used by the other")]
fn conflicting_queries_are_refused_when_added() {
    fn bad(_a: Query<&mut Position>, _b: Query<&Position>) {}
    Schedule::new().add_systems(bad);
}

#[test]
#[should_panic(expected = "resource `systems::DeltaTime` is written by one and read by the other")]
fn res_and_res_mut_of_one_type_are_refused() {
    fn bad(_a: Res<DeltaTime>, _b: ResMut<DeltaTime>) {}
    Schedule::new().add_systems(bad);
}

#[test]
fn disjoint_queries_are_accepted() {
    fn split(mut players: Query<&mut Health, With<Player>>, others: Query<&Health, Without<Player>>) {
        let total: i32 = others.iter().map(|h| h.0).sum();
        for h in players.iter_mut() {
            h.0 += total;
        }
    }
    let mut world = World::new();
    let player = world.spawn((Health(1), Player));
    world.spawn(Health(10));
    world.spawn(Health(20));
    Schedule::new().add_systems(split).run(&mut world);
    assert_eq!(world.get::<Health>(player), Some(&Health(31)));
}

/// Waits for `other` to be set, for at most two seconds; `false` on timeout.
fn rendezvous(mine: &AtomicBool, other: &AtomicBool) -> bool {
    mine.store(true, Ordering::SeqCst);
    let start = Instant::now();
    while !other.load(Ordering::SeqCst) {
        if start.elapsed() > Duration::from_secs(2) {
            return false;
        }
        std::thread::yield_now();
    }
    true
}

static A_IN: AtomicBool = AtomicBool::new(false);
static B_IN: AtomicBool = AtomicBool::new(false);
static MET: AtomicUsize = AtomicUsize::new(0);

fn left(_q: Query<&mut Position>) {
    if rendezvous(&A_IN, &B_IN) {
        MET.fetch_add(1, Ordering::SeqCst);
    }
}

fn right(_q: Query<&mut Velocity>) {
    if rendezvous(&B_IN, &A_IN) {
        MET.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn non_conflicting_systems_really_run_at_the_same_time() {
    if ecs_core::parallel::threads() < 2 {
        return; // A one-thread pool cannot show it.
    }
    let mut world = World::new();
    world.spawn((Position(0.0), Velocity(0.0)));
    let mut schedule = Schedule::new();
    schedule.add_systems(left).add_systems(right);
    schedule.run(&mut world);
    assert_eq!(MET.load(Ordering::SeqCst), 2, "each system saw the other running");
}

#[test]
fn conflicting_systems_never_overlap_and_keep_insertion_order() {
    static INSIDE: AtomicBool = AtomicBool::new(false);
    static OVERLAPS: AtomicUsize = AtomicUsize::new(0);
    fn enter() {
        if INSIDE.swap(true, Ordering::SeqCst) {
            OVERLAPS.fetch_add(1, Ordering::SeqCst);
        }
        std::thread::sleep(Duration::from_micros(200));
        INSIDE.store(false, Ordering::SeqCst);
    }
    fn first(mut q: Query<&mut Health>) {
        enter();
        q.iter_mut().for_each(|h| h.0 *= 2);
    }
    fn second(mut q: Query<&mut Health>) {
        enter();
        q.iter_mut().for_each(|h| h.0 += 1);
    }
    let mut world = World::new();
    let e = world.spawn(Health(1));
    let mut schedule = Schedule::new();
    schedule.add_systems(first).add_systems(second);
    for _ in 0..20 {
        schedule.run(&mut world);
    }
    assert_eq!(OVERLAPS.load(Ordering::SeqCst), 0);
    // (x * 2) + 1 repeated: insertion order is kept.
    let mut expected = 1;
    for _ in 0..20 {
        expected = expected * 2 + 1;
    }
    assert_eq!(world.get::<Health>(e), Some(&Health(expected)));
}

#[test]
fn explicit_ordering_is_respected() {
    let log: Arc<Mutex<Vec<&'static str>>> = Arc::new(Mutex::new(Vec::new()));
    let mut world = World::new();
    world.insert_resource(log.clone());
    fn a(log: Res<Arc<Mutex<Vec<&'static str>>>>) {
        log.lock().unwrap().push("a");
    }
    fn b(log: Res<Arc<Mutex<Vec<&'static str>>>>) {
        log.lock().unwrap().push("b");
    }
    fn c(log: Res<Arc<Mutex<Vec<&'static str>>>>) {
        log.lock().unwrap().push("c");
    }
    let mut schedule = Schedule::new();
    schedule.add_systems(c.after(b)).add_systems(a.before(b)).add_systems(b);
    for _ in 0..10 {
        schedule.run(&mut world);
        assert_eq!(std::mem::take(&mut *log.lock().unwrap()), vec!["a", "b", "c"]);
    }
    let mut chained = Schedule::new();
    chained.add_systems([c.into_config(), b.into_config(), a.into_config()].chain());
    chained.run(&mut world);
    assert_eq!(*log.lock().unwrap(), vec!["c", "b", "a"]);
}

#[test]
#[should_panic(expected = "form a cycle")]
fn cyclic_ordering_is_refused() {
    fn a() {}
    fn b() {}
    let mut world = World::new();
    Schedule::new().add_systems(a.after(b)).add_systems(b.after(a)).run(&mut world);
}

#[test]
fn commands_apply_at_sync_points_and_later_systems_see_them() {
    fn spawn_one(mut commands: Commands) {
        commands.spawn(Health(7));
    }
    fn count(q: Query<&Health>, mut seen: ResMut<Spawned>) {
        seen.0 = q.iter().count() as u32;
    }
    let mut world = World::new();
    world.insert_resource(Spawned::default());
    let mut no_sync = Schedule::new();
    // Unordered (insertion order only): no sync point between them. (An
    // explicit `after` adds one: `tests/chains.rs`.)
    no_sync.add_systems(spawn_one).add_systems(count);
    no_sync.run(&mut world);
    assert_eq!(world.get_resource::<Spawned>().unwrap().0, 0, "not applied before the end of the run");
    let mut synced = Schedule::new();
    synced.add_systems(spawn_one).add_sync_point().add_systems(count);
    synced.run(&mut world);
    assert_eq!(world.get_resource::<Spawned>().unwrap().0, 2, "applied at the sync point");
}

#[test]
fn commands_on_entities_despawned_meanwhile_are_skipped() {
    fn despawn_all(q: Query<Entity>, mut commands: Commands) {
        for e in q.iter() {
            commands.despawn(e);
        }
    }
    fn hurt_all(q: Query<Entity>, mut commands: Commands) {
        for e in q.iter() {
            commands.insert(e, Health(-1));
        }
    }
    let mut world = World::new();
    let errors = Arc::new(AtomicUsize::new(0));
    let sink = errors.clone();
    world.set_command_error_handler(move |_| {
        sink.fetch_add(1, Ordering::SeqCst);
    });
    world.spawn_batch((0..5).map(|_| Health(1)));
    let mut schedule = Schedule::new();
    schedule.add_systems(despawn_all).add_systems(hurt_all);
    schedule.run(&mut world);
    assert!(world.is_empty());
    assert_eq!(errors.load(Ordering::SeqCst), 5);
    world.check_invariants().unwrap();
}

#[test]
fn changed_in_a_system_means_since_that_system_last_ran() {
    fn watch(q: Query<Entity, Changed<Health>>, mut seen: ResMut<Spawned>) {
        seen.0 = q.iter().count() as u32;
    }
    let mut world = World::new();
    world.insert_resource(Spawned::default());
    let a = world.spawn(Health(1));
    world.spawn(Health(2));
    let mut schedule = Schedule::new();
    schedule.add_systems(watch);
    schedule.run(&mut world);
    assert_eq!(world.get_resource::<Spawned>().unwrap().0, 2);
    schedule.run(&mut world);
    assert_eq!(world.get_resource::<Spawned>().unwrap().0, 0);
    world.get_mut::<Health>(a).unwrap().0 = 5;
    schedule.run(&mut world);
    assert_eq!(world.get_resource::<Spawned>().unwrap().0, 1);
}

#[test]
fn a_panicking_system_propagates_and_leaves_the_world_consistent() {
    fn boom(mut q: Query<&mut Health>) {
        for h in q.iter_mut() {
            h.0 += 1;
            if h.0 > 1 {
                panic!("boom");
            }
        }
    }
    let mut world = World::new();
    world.spawn_batch((0..10).map(|_| Health(0)));
    let mut schedule = Schedule::new();
    schedule.add_systems(boom);
    schedule.run(&mut world);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| schedule.run(&mut world)));
    assert!(result.is_err());
    world.check_invariants().unwrap();
    assert_eq!(world.len(), 10);
}

#[test]
fn exclusive_systems_run_alone_with_the_whole_world() {
    fn grow(world: &mut World) {
        world.spawn(Health(100));
    }
    fn count(q: Query<&Health>, mut seen: ResMut<Spawned>) {
        seen.0 = q.iter().count() as u32;
    }
    let mut world = World::new();
    world.insert_resource(Spawned::default());
    let mut schedule = Schedule::new();
    schedule.add_systems(grow).add_systems(count);
    schedule.run(&mut world);
    assert_eq!(world.get_resource::<Spawned>().unwrap().0, 1);
}

fn randomized_world(seed: u64) -> World {
    let mut world = World::new();
    let mut state = seed;
    for _ in 0..500 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let e = world.spawn((Position((state % 100) as f32), Health((state % 7) as i32)));
        if state % 3 == 0 {
            world.insert(e, Velocity((state % 5) as f32)).unwrap();
        }
        if state % 4 == 0 {
            world.insert(e, Player).unwrap();
        }
    }
    world.insert_resource(DeltaTime(0.25));
    world.insert_resource(Spawned::default());
    world
}

fn snapshot(world: &World) -> Vec<(f32, i32, bool)> {
    let mut rows: Vec<_> = world
        .query::<(Entity, &Position, &Health, Option<&Player>)>()
        .iter()
        .map(|(e, p, h, pl)| (e, (p.0, h.0, pl.is_some())))
        .collect();
    rows.sort_by_key(|(e, _)| *e);
    rows.into_iter().map(|(_, r)| r).collect()
}

#[test]
fn single_and_multi_threaded_runs_give_identical_worlds() {
    fn decay(mut q: Query<&mut Health, Without<Player>>) {
        q.iter_mut().for_each(|h| h.0 -= 1);
    }
    fn heal(mut q: Query<&mut Health, With<Player>>) {
        q.iter_mut().for_each(|h| h.0 += 2);
    }
    fn promote(q: Query<(Entity, &Position), Without<Player>>, mut commands: Commands) {
        for (e, p) in q.iter() {
            if p.0 > 90.0 {
                commands.insert(e, Player);
            }
        }
    }
    let build = |multi: bool| {
        let mut schedule = Schedule::new();
        schedule
            .set_multi_threaded(multi)
            .add_systems(movement)
            .add_systems(decay)
            .add_systems(heal)
            .add_systems(reaper)
            .add_systems(promote)
            .add_systems(spawner);
        schedule
    };
    for seed in [1, 7, 42] {
        let mut a = randomized_world(seed);
        let mut b = randomized_world(seed);
        let (mut sa, mut sb) = (build(false), build(true));
        for _ in 0..20 {
            sa.run(&mut a);
            sb.run(&mut b);
        }
        assert_eq!(snapshot(&a), snapshot(&b), "seed {seed}");
        a.check_invariants().unwrap();
    }
}

#[test]
#[should_panic(expected = "`&World` reads everything another parameter writes")]
fn world_reference_with_a_writer_is_refused() {
    fn bad(_w: &World, _h: Query<&mut Health>) {}
    Schedule::new().add_systems(bad);
}

struct Gravity(f32);

#[derive(SystemParam)]
struct Physics<'w> {
    bodies: Query<'w, (&'static mut Position, &'static Velocity)>,
    gravity: Res<'w, Gravity>,
    commands: Commands<'w>,
}

#[test]
fn derived_system_params_group_parameters() {
    fn step(mut physics: Physics, mut runs: Local<u32>) {
        *runs += 1;
        let g = physics.gravity.0;
        for (p, v) in physics.bodies.iter_mut() {
            p.0 += v.0 + g;
        }
        if *runs == 1 {
            physics.commands.spawn(Health(1));
        }
    }
    let mut world = World::new();
    world.insert_resource(Gravity(-1.0));
    let e = world.spawn((Position(0.0), Velocity(3.0)));
    let mut schedule = Schedule::new();
    schedule.add_systems(step);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.get::<Position>(e), Some(&Position(4.0)));
    assert_eq!(world.len(), 2);
}

type Log = Arc<Mutex<Vec<&'static str>>>;

#[test]
fn an_explicit_constraint_wins_over_insertion_order() {
    fn reader(_q: Query<&Health>, log: Res<Log>) {
        log.lock().unwrap().push("reader");
    }
    fn writer(mut q: Query<&mut Health>, log: Res<Log>) {
        q.iter_mut().for_each(|h| h.0 += 1);
        log.lock().unwrap().push("writer");
    }
    let log = Log::default();
    let mut world = World::new();
    world.insert_resource(log.clone());
    world.spawn(Health(0));
    let mut schedule = Schedule::new();
    schedule.add_systems(reader).add_systems(writer.before(reader));
    for _ in 0..5 {
        schedule.run(&mut world);
        assert_eq!(std::mem::take(&mut *log.lock().unwrap()), ["writer", "reader"]);
    }
    let mut after = Schedule::new();
    after.add_systems(writer).add_systems(reader).add_systems(unrelated_writer.after(reader));
    after.run(&mut world);
    assert_eq!(*log.lock().unwrap(), ["writer", "reader", "unrelated"]);
    fn unrelated_writer(mut q: Query<&mut Health>, log: Res<Log>) {
        q.iter_mut().for_each(|h| h.0 -= 1);
        log.lock().unwrap().push("unrelated");
    }
}

#[test]
fn a_cycle_of_explicit_constraints_is_refused_naming_its_systems() {
    fn first() {}
    fn second() {}
    fn third() {}
    fn bystander() {}
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule
        .add_systems(bystander)
        .add_systems(first.after(third))
        .add_systems(second.after(first))
        .add_systems(third.after(second));
    let message =
        panic_message(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| schedule.run(&mut world))).unwrap_err());
    assert!(message.contains("form a cycle"), "{message}");
    for name in ["first", "second", "third"] {
        assert!(message.contains(&format!("::{name}")), "{message} names {name}");
    }
    assert!(!message.contains("bystander"), "{message} names only the systems on the cycle");
}

#[test]
fn a_constraint_across_a_sync_point_is_honoured_or_refused() {
    fn early(log: Res<Log>) {
        log.lock().unwrap().push("early");
    }
    fn late(log: Res<Log>) {
        log.lock().unwrap().push("late");
    }
    let log = Log::default();
    let mut world = World::new();
    world.insert_resource(log.clone());
    // Kept by the sync point: `late` runs after `early` anyway.
    let mut kept = Schedule::new();
    kept.add_systems(early.before(late)).add_sync_point().add_systems(late.after(early));
    kept.run(&mut world);
    assert_eq!(std::mem::take(&mut *log.lock().unwrap()), ["early", "late"]);
    // Reversed by the sync point: refused, naming both systems.
    let mut reversed = Schedule::new();
    reversed.add_systems(early.after(late)).add_sync_point().add_systems(late);
    let message =
        panic_message(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| reversed.run(&mut world))).unwrap_err());
    assert!(message.contains("::early") && message.contains("::late") && message.contains("sync point"), "{message}");
    assert!(log.lock().unwrap().is_empty(), "nothing ran");
}

/// A hand-written parameter with deferred work and the default `DEFERRED`:
/// its `apply` runs even beside parameters that have none (which let systems
/// and observers skip the call).
struct CountApplies;

// SAFETY: records no access and touches no world data in `get_param`.
unsafe impl ecs_core::system::SystemParam for CountApplies {
    type State = ();
    type Item<'w> = CountApplies;
    fn access(meta: &mut ecs_core::system::SystemMeta) {
        meta.add_param("CountApplies", ecs_core::system::SystemAccess::default());
    }
    fn init_state(_: &mut World) {}
    unsafe fn get_param<'w>(_: &'w mut (), _: &ecs_core::system::SystemMeta, _: &'w World) -> CountApplies {
        CountApplies
    }
    fn apply(_: &mut (), world: &mut World) {
        world.resource_mut::<Applied>().0 += 1;
    }
}

#[derive(Default)]
struct Applied(u32);

#[test]
fn a_hand_written_parameter_with_deferred_work_is_applied_beside_params_without() {
    let mut world = World::new();
    world.insert_resource(Applied::default());
    world.spawn(Position(1.0));
    let mut schedule = Schedule::new();
    schedule.add_systems(|_: CountApplies, q: Query<&Position>, _: Res<Applied>| assert_eq!(q.iter().count(), 1));
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.get_resource::<Applied>().map(|a| a.0), Some(2));
    world.add_observer(|_: On<Ping>, _: CountApplies, _: Query<&Position>| {});
    world.trigger(Ping);
    assert_eq!(world.get_resource::<Applied>().map(|a| a.0), Some(3));
}

#[derive(Event)]
struct Ping;

/// A system's `Query::get` takes a faster path from its second run on (the
/// only matched archetype's fetches made up front): every run must answer as
/// the first did, for matches, mismatches, dead entities and per-row filters,
/// and `get_mut` must still mark what it hands out as changed.
#[test]
fn query_get_answers_the_same_on_every_run() {
    #[derive(Default)]
    struct Asked(Vec<Entity>);
    #[derive(Default)]
    struct Answers(Vec<Vec<String>>);
    fn answer<T: std::fmt::Debug>(result: Result<T, EcsError>) -> String {
        match result {
            Ok(value) => format!("{value:?}"),
            Err(EcsError::NoSuchEntity(_)) => "dead".into(),
            Err(EcsError::QueryMismatch { .. }) => "mismatch".into(),
            Err(other) => format!("{other}"),
        }
    }
    fn ask(
        plain: Query<&Health, Without<Position>>,
        changed: Query<&Health, (Without<Position>, Changed<Health>)>,
        asked: Res<Asked>,
        mut answers: ResMut<Answers>,
    ) {
        let mut run = Vec::new();
        for &e in &asked.0 {
            run.push(format!("{}/{}", answer(plain.get(e)), answer(changed.get(e))));
        }
        answers.0.push(run);
    }
    // Heals the first asked entity through `get_mut`: `changed` sees it next run.
    fn heal(mut writes: Query<&mut Health, Without<Position>>, asked: Res<Asked>) {
        // `both` and `other` lack a match, `dead` is gone (a hand-out would stamp).
        for &e in &asked.0[2..] {
            assert!(writes.get_mut(e).is_err());
        }
        if let Ok(health) = writes.get_mut(asked.0[0]) {
            health.0 += 1;
        }
    }

    let mut world = World::new();
    let a = world.spawn(Health(1));
    let b = world.spawn(Health(2));
    let both = world.spawn((Health(3), Position(0.0)));
    let other = world.spawn(Position(0.0));
    let dead = world.spawn(Health(4));
    world.despawn(dead).unwrap();
    world.insert_resource(Asked(vec![a, b, both, other, dead]));
    world.init_resource::<Answers>();
    let (mut asking, mut healing) = (Schedule::new(), Schedule::new());
    asking.add_systems(ask);
    healing.add_systems(heal);
    let mut run = |world: &mut World| {
        asking.run(world);
        healing.run(world);
    };
    for _ in 0..3 {
        run(&mut world);
    }
    // A new matching archetype: the query no longer has a single one.
    world.insert(b, Velocity(1.0)).unwrap();
    run(&mut world);
    world.despawn(a).unwrap();
    run(&mut world);

    let answers = &world.resource::<Answers>().0;
    let expected: [&[&str]; 5] = [
        // First run: everything is new to `changed`.
        &["Health(1)/Health(1)", "Health(2)/Health(2)", "mismatch/mismatch", "mismatch/mismatch", "dead/dead"],
        // `a` was healed by the previous run; `b` was not touched.
        &["Health(2)/Health(2)", "Health(2)/mismatch", "mismatch/mismatch", "mismatch/mismatch", "dead/dead"],
        &["Health(3)/Health(3)", "Health(2)/mismatch", "mismatch/mismatch", "mismatch/mismatch", "dead/dead"],
        &["Health(4)/Health(4)", "Health(2)/mismatch", "mismatch/mismatch", "mismatch/mismatch", "dead/dead"],
        &["dead/dead", "Health(2)/mismatch", "mismatch/mismatch", "mismatch/mismatch", "dead/dead"],
    ];
    for (run, (got, want)) in answers.iter().zip(expected).enumerate() {
        assert_eq!(got, want, "run {run}");
    }
    assert_eq!(answers.len(), 5);
}

/// A hand-written system that does not say whether it defers work (the
/// default `has_deferred`) has its `apply` called at every sync point, beside
/// function systems that say they have none (which the sync point skips).
#[test]
fn a_hand_written_system_is_applied_at_each_sync_point() {
    struct Deferring {
        access: ecs_core::system::SystemAccess,
    }
    // SAFETY: reads and writes nothing in `run_unchecked`, and is not exclusive.
    unsafe impl ecs_core::system::System for Deferring {
        fn name(&self) -> &'static str {
            "Deferring"
        }
        fn access(&self) -> &ecs_core::system::SystemAccess {
            &self.access
        }
        fn is_exclusive(&self) -> bool {
            false
        }
        fn label(&self) -> std::any::TypeId {
            std::any::TypeId::of::<Self>()
        }
        fn initialize(&mut self, _: &mut World) {}
        unsafe fn run_unchecked(&mut self, _: &World) {}
        fn run_exclusive(&mut self, _: &mut World) {
            unreachable!("not exclusive")
        }
        fn apply(&mut self, world: &mut World) {
            world.resource_mut::<Applied>().0 += 1;
        }
    }
    impl ecs_core::system::IntoSystem<()> for Deferring {
        type System = Self;
        fn into_system(self) -> Self {
            self
        }
    }
    let mut world = World::new();
    world.insert_resource(Applied::default());
    world.spawn(Position(1.0));
    let mut schedule = Schedule::new();
    schedule
        .add_systems(|q: Query<&Position>| assert_eq!(q.iter().count(), 1))
        .add_systems(Deferring { access: Default::default() })
        .add_sync_point()
        .add_systems(|mut commands: Commands| {
            commands.spawn(Position(2.0));
        })
        .add_systems(Deferring { access: Default::default() });
    schedule.run(&mut world);
    // Each of the two sync points calls both systems' `apply` (a queue of a
    // system that has not run yet is empty).
    assert_eq!(world.get_resource::<Applied>().map(|a| a.0), Some(4));
    assert_eq!(world.query::<&Position>().iter().count(), 2, "the commands were applied");
}

/// A system written by hand: it reads nothing of the world and counts its runs.
struct Counted {
    runs: Arc<AtomicUsize>,
    access: ecs_core::system::SystemAccess,
}

// SAFETY: `run_unchecked` touches nothing of the world, which the empty access says.
unsafe impl ecs_core::system::System for Counted {
    fn name(&self) -> &'static str {
        "counted"
    }
    fn access(&self) -> &ecs_core::system::SystemAccess {
        &self.access
    }
    fn is_exclusive(&self) -> bool {
        false
    }
    fn label(&self) -> std::any::TypeId {
        std::any::TypeId::of::<Self>()
    }
    fn initialize(&mut self, _: &mut World) {}
    unsafe fn run_unchecked(&mut self, _: &World) {
        self.runs.fetch_add(1, Ordering::Relaxed);
    }
    fn run_exclusive(&mut self, _: &mut World) {
        self.runs.fetch_add(1, Ordering::Relaxed);
    }
    fn apply(&mut self, _: &mut World) {}
    fn has_deferred(&self) -> bool {
        false
    }
}

struct CountedMarker;

impl ecs_core::system::IntoSystem<CountedMarker> for Counted {
    type System = Counted;
    fn into_system(self) -> Counted {
        self
    }
}

fn add_velocity(mut q: Query<(&mut Position, &Velocity)>) {
    q.iter_mut().for_each(|(p, v)| p.0 += v.0);
}

fn count_moved(q: Query<&Position, Changed<Position>>, mut moved: ResMut<Spawned>) {
    moved.0 += q.iter().count() as u32;
}

/// The schedule hands each system of a batch a change tick it took in advance
/// (`System::run_unchecked_at`); a hand-written system that only implements
/// `run_unchecked` still runs, and change detection across batches and runs is
/// what it was.
#[test]
fn hand_written_systems_run_beside_function_systems_and_changes_are_seen_once() {
    let runs = Arc::new(AtomicUsize::new(0));
    let mut world = World::new();
    world.insert_resource(Spawned::default());
    world.spawn_batch((0..100).map(|i| (Position(0.0), Velocity(i as f32))));
    let mut schedule = Schedule::new();
    let counted = Counted { runs: runs.clone(), access: ecs_core::system::SystemAccess::default() };
    schedule.add_systems(counted).add_systems(add_velocity).add_systems(count_moved.after(add_velocity));
    for run in 1..=3u32 {
        schedule.run(&mut world);
        assert_eq!(runs.load(Ordering::Relaxed), run as usize);
        // The first run sees all 100 as changed (spawned and written); later
        // runs see the 100 `add_velocity` wrote in that run, not the earlier ones.
        assert_eq!(world.resource::<Spawned>().0, 100 * run);
    }
    let sum: f32 = world.query::<&Position>().iter().map(|p| p.0).sum();
    assert_eq!(sum, 3.0 * (0..100).sum::<i32>() as f32);
}
