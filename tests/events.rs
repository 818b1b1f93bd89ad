//! Buffered events (`Messages<E>`, `MessageReader`, `MessageWriter`) across schedule
//! runs, and `RemovedComponents<T>`: every reader sees each event once, events
//! last two updates, and removals are reported once to the systems asking.

use std::sync::atomic::{AtomicUsize, Ordering};

use ecs_core::prelude::*;

#[derive(Message, Debug, Clone, Copy, PartialEq)]
struct Ping(u32);

/// Holds data, so removing it moves the entity to another archetype.
#[derive(Component)]
struct Enemy(#[allow(dead_code)] u32);
/// A tag: removed in place.
#[derive(Component)]
struct Armor;
#[derive(Component)]
#[component(storage = "sparse")]
struct Stunned;

/// The frame number, set by the test before each run.
struct Frame(u32);

/// What each reader saw, by name.
#[derive(Default)]
struct Seen(Vec<(&'static str, u32)>);

impl Seen {
    fn of(&self, reader: &str) -> Vec<u32> {
        self.0.iter().filter(|(name, _)| *name == reader).map(|&(_, value)| value).collect()
    }
}

fn world() -> World {
    let mut world = World::new();
    world.insert_resource(Frame(0));
    world.insert_resource(Seen::default());
    world
}

fn run_frames(schedule: &mut Schedule, world: &mut World, frames: std::ops::RangeInclusive<u32>) {
    for frame in frames {
        world.resource_mut::<Frame>().0 = frame;
        schedule.run(world);
    }
}

/// Sends two events a frame: `10·frame` and `10·frame + 1`.
fn writer(mut out: MessageWriter<Ping>, frame: Res<Frame>) {
    out.write(Ping(frame.0 * 10));
    out.write(Ping(frame.0 * 10 + 1));
}

fn read_before(mut pings: MessageReader<Ping>, mut seen: ResMut<Seen>) {
    seen.0.extend(pings.read().map(|p| ("before", p.0)));
}

fn read_after(mut pings: MessageReader<Ping>, mut seen: ResMut<Seen>) {
    seen.0.extend(pings.read().map(|p| ("after", p.0)));
}

fn expected(frames: std::ops::RangeInclusive<u32>) -> Vec<u32> {
    frames.flat_map(|f| [f * 10, f * 10 + 1]).collect()
}

#[test]
fn readers_before_and_after_the_writer_see_each_event_exactly_once() {
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems(read_before.before(writer)).add_systems(writer).add_systems(read_after.after(writer));
    run_frames(&mut schedule, &mut world, 1..=6);
    let seen = world.resource::<Seen>();
    assert_eq!(seen.of("after"), expected(1..=6), "the later reader sees each frame's events in that frame");
    assert_eq!(seen.of("before"), expected(1..=5), "the earlier reader sees them one frame late");
    run_frames(&mut schedule, &mut world, 7..=7);
    assert_eq!(world.resource::<Seen>().of("before"), expected(1..=6));
}

#[test]
fn a_reader_that_skips_frames_misses_events_older_than_two_updates() {
    fn reading_frame(frame: Res<Frame>) -> bool {
        matches!(frame.0, 1 | 5)
    }
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems(writer).add_systems(read_after.after(writer).run_if(reading_frame));
    run_frames(&mut schedule, &mut world, 1..=5);
    assert_eq!(world.resource::<Seen>().of("after"), [10, 11, 40, 41, 50, 51], "frames 2 and 3 were dropped");
    assert_eq!(world.resource::<Messages<Ping>>().len(), 4, "frames 4 and 5 are stored");

    let mut world = World::new();
    world.write_message(Ping(1));
    let mut cursor = world.resource::<Messages<Ping>>().get_cursor();
    world.update_messages();
    assert_eq!(cursor.len(world.resource::<Messages<Ping>>()), 1, "kept for one update");
    world.update_messages();
    assert!(world.resource::<Messages<Ping>>().is_empty());
    assert_eq!(cursor.read(world.resource::<Messages<Ping>>()).count(), 0, "dropped after two");
}

#[test]
fn independent_readers_of_one_event_type_each_see_all_events() {
    fn first(mut pings: MessageReader<Ping>, mut seen: ResMut<Seen>) {
        seen.0.extend(pings.read().map(|p| ("first", p.0)));
    }
    fn second(mut pings: MessageReader<Ping>, mut seen: ResMut<Seen>) {
        seen.0.extend(pings.read().map(|p| ("second", p.0)));
    }
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems(first).add_systems(second);
    for frame in 1..=4 {
        world.write_message(Ping(frame));
        schedule.run(&mut world);
    }
    let seen = world.resource::<Seen>();
    assert_eq!(seen.of("first"), [1, 2, 3, 4], "reading does not take events from other readers");
    assert_eq!(seen.of("second"), [1, 2, 3, 4]);
}

#[test]
fn readers_of_one_event_in_one_schedule_do_not_conflict() {
    /// Counted through `Res`, so that the readers share nothing writable.
    #[derive(Default)]
    struct Counts([AtomicUsize; 3]);
    fn a(mut pings: MessageReader<Ping>, counts: Res<Counts>) {
        counts.0[0].fetch_add(pings.read().len(), Ordering::Relaxed);
    }
    fn b(mut pings: MessageReader<Ping>, counts: Res<Counts>) {
        counts.0[1].fetch_add(pings.read().len(), Ordering::Relaxed);
    }
    fn two_in_one(mut x: MessageReader<Ping>, mut y: MessageReader<Ping>, counts: Res<Counts>) {
        let from_x = x.read().count();
        assert_eq!(from_x, y.read().count(), "each parameter keeps its own cursor");
        counts.0[2].fetch_add(from_x, Ordering::Relaxed);
    }
    let mut world = World::new();
    world.insert_resource(Counts::default());
    let mut schedule = Schedule::new();
    schedule.add_systems(a).add_systems(b).add_systems(two_in_one); // a conflict would panic here
    world.write_message_batch([Ping(1), Ping(2)]);
    schedule.run(&mut world);
    world.write_message(Ping(3));
    schedule.run(&mut world);
    let counts = world.resource::<Counts>().0.each_ref().map(|c| c.load(Ordering::Relaxed));
    assert_eq!(counts, [3, 3, 3]);
}

#[test]
fn reader_len_is_empty_and_clear() {
    #[derive(Default)]
    struct Report(Vec<(usize, bool, usize, bool, Vec<u32>)>);
    fn inspect(mut pings: MessageReader<Ping>, frame: Res<Frame>, mut report: ResMut<Report>) {
        let (len, empty) = (pings.len(), pings.is_empty());
        let read = if frame.0 == 1 {
            pings.clear();
            Vec::new()
        } else {
            pings.read().map(|p| p.0).collect()
        };
        report.0.push((len, empty, pings.len(), pings.is_empty(), read));
    }
    let mut world = world();
    world.insert_resource(Report::default());
    let mut schedule = Schedule::new();
    schedule.add_systems(inspect);
    world.write_message_batch((0..3).map(Ping));
    run_frames(&mut schedule, &mut world, 1..=1);
    world.write_message_batch([Ping(7), Ping(8)]);
    run_frames(&mut schedule, &mut world, 2..=3);
    let report = &world.resource::<Report>().0;
    assert_eq!(report[0], (3, false, 0, true, vec![]), "clear marks everything read");
    assert_eq!(report[1], (2, false, 0, true, vec![7, 8]), "cleared events stay unread; new ones are read");
    assert_eq!(report[2], (0, true, 0, true, vec![]));
}

#[test]
fn events_sent_outside_systems_and_in_batches_reach_readers_in_order() {
    fn batch_writer(mut out: MessageWriter<Ping>, frame: Res<Frame>) {
        if frame.0 == 1 {
            out.write_batch([Ping(100), Ping(101)]);
            assert_eq!(out.len(), 6, "the writer derefs to the buffer");
        }
    }
    let mut world = world();
    world.write_message(Ping(1));
    world.write_message_batch([Ping(2), Ping(3)]);
    assert_eq!(world.resource::<Messages<Ping>>().iter().map(|p| p.0).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(world.resource::<Messages<Ping>>().written(), 3);
    world.resource_mut::<Messages<Ping>>().write_batch([Ping(4)]);
    let mut schedule = Schedule::new();
    schedule.add_systems(read_before.before(batch_writer)).add_systems(batch_writer);
    run_frames(&mut schedule, &mut world, 1..=2);
    assert_eq!(world.resource::<Seen>().of("before"), [1, 2, 3, 4, 100, 101]);
    assert_eq!(world.resource::<Messages<Ping>>().written(), 6);
}

#[test]
fn drain_takes_every_event_out_and_readers_then_miss_them() {
    let mut world = World::new();
    world.add_message::<Ping>();
    let mut cursor = world.resource::<Messages<Ping>>().get_cursor();
    world.write_message_batch([Ping(1), Ping(2)]);
    world.update_messages();
    world.write_message(Ping(3));
    let drained: Vec<Ping> = world.resource_mut::<Messages<Ping>>().drain().collect();
    assert_eq!(drained, [Ping(1), Ping(2), Ping(3)], "oldest first, both halves");
    let events = world.resource::<Messages<Ping>>();
    assert_eq!((events.is_empty(), events.iter().len()), (true, 0));
    assert!(cursor.is_empty(events), "a reader finds nothing after a drain");
    world.write_message(Ping(4));
    let events = world.resource::<Messages<Ping>>();
    assert_eq!(cursor.read(events).copied().collect::<Vec<_>>(), [Ping(4)], "later events are read");
    assert_eq!(events.get_cursor_current().len(events), 0);
}

#[test]
fn without_updates_events_nothing_is_dropped() {
    fn last_frame(frame: Res<Frame>) -> bool {
        frame.0 == 5
    }
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.set_updates_messages(false).add_systems(writer).add_systems(read_after.after(writer).run_if(last_frame));
    run_frames(&mut schedule, &mut world, 1..=5);
    assert_eq!(world.resource::<Seen>().of("after"), expected(1..=5), "nothing was dropped");
    assert_eq!(world.resource::<Messages<Ping>>().len(), 10);
    world.update_messages();
    assert_eq!(world.resource::<Messages<Ping>>().len(), 10, "the first update only ages them");
    world.update_messages();
    assert!(world.resource::<Messages<Ping>>().is_empty());
}

/// Each frame's removals of `Enemy`, as one system saw them.
#[derive(Default)]
struct Removals(Vec<Vec<Entity>>);

fn mourn(mut removed: RemovedComponents<Enemy>, mut log: ResMut<Removals>) {
    log.0.push(removed.read().collect());
}

fn all(log: &Removals) -> Vec<Entity> {
    log.0.iter().flatten().copied().collect()
}

#[test]
fn removed_and_despawned_entities_are_reported_once_across_frames() {
    let mut world = World::new();
    world.insert_resource(Removals::default());
    let mut schedule = Schedule::new();
    schedule.add_systems(mourn);
    let [a, b, c, d] = [(); 4].map(|_| world.spawn((Enemy(0), Armor)));
    schedule.run(&mut world); // the log starts with the system
    world.despawn(a).unwrap();
    world.remove::<Enemy>(b).unwrap();
    schedule.run(&mut world);
    schedule.run(&mut world);
    world.remove::<Armor>(d).unwrap(); // not an `Enemy` removal
    world.despawn(c).unwrap();
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    let log = world.resource::<Removals>();
    assert_eq!(log.0, [vec![], vec![a, b], vec![], vec![c], vec![], vec![]]);
    assert!(world.contains(b) && !world.has::<Enemy>(b));
}

#[test]
fn removals_before_the_system_existed_need_not_be_reported() {
    let mut world = World::new();
    world.insert_resource(Removals::default());
    let (early, late) = (world.spawn(Enemy(0)), world.spawn(Enemy(0)));
    world.remove::<Enemy>(early).unwrap();
    let mut schedule = Schedule::new();
    schedule.add_systems(mourn);
    schedule.run(&mut world);
    world.despawn(late).unwrap();
    schedule.run(&mut world);
    schedule.run(&mut world);
    let seen = all(world.resource::<Removals>());
    assert!(seen.iter().filter(|&&e| e == early).count() <= 1, "{seen:?}");
    assert_eq!(seen.iter().filter(|&&e| e == late).count(), 1, "{seen:?}");
    assert_eq!(world.resource::<Removals>().0.last(), Some(&vec![]));
}

#[test]
fn removals_by_entity_world_mut_and_by_commands_are_reported() {
    #[derive(Default)]
    struct Stuns(Vec<Entity>);
    struct Targets(Vec<Entity>);
    fn remover(targets: Res<Targets>, mut commands: Commands, mut runs: Local<u32>) {
        *runs += 1;
        if *runs == 2 {
            commands.entity(targets.0[0]).remove::<Enemy>();
            commands.remove::<(Enemy, Armor)>(targets.0[1]);
            commands.despawn(targets.0[2]);
        }
    }
    fn unstun(mut removed: RemovedComponents<Stunned>, mut log: ResMut<Stuns>) {
        let unread = removed.len();
        let read: Vec<Entity> = removed.read().collect();
        assert_eq!((unread, removed.len(), removed.is_empty()), (read.len(), 0, true));
        log.0.extend(read);
    }
    let mut world = World::new();
    world.insert_resource(Removals::default());
    world.insert_resource(Stuns::default());
    let by_commands: Vec<Entity> = (0..3).map(|_| world.spawn((Enemy(0), Armor, Stunned))).collect();
    let (whole, partial, taken) =
        (world.spawn(Enemy(0)), world.spawn((Enemy(0), Stunned)), world.spawn((Enemy(0), Armor)));
    world.insert_resource(Targets(by_commands.clone()));
    let mut schedule = Schedule::new();
    schedule.add_systems(remover).add_systems(unstun).add_systems(mourn.after(remover));
    schedule.run(&mut world);
    world.entity_mut(whole).unwrap().remove::<Enemy>();
    world.entity_mut(partial).unwrap().remove::<(Enemy, Armor)>(); // lacks `Armor`: removes what it has
    let _: (Enemy, Armor) = world.entity_mut(taken).unwrap().take().unwrap();
    world.entity_mut(partial).unwrap().remove::<Stunned>();
    // `remover`'s commands apply before `mourn`, which is ordered after it (an
    // automatic sync point): `mourn` sees them in the same run.
    schedule.run(&mut world);
    schedule.run(&mut world);
    schedule.run(&mut world);
    let log = &world.resource::<Removals>().0;
    let same_run: Vec<Entity> = [whole, partial, taken].into_iter().chain(by_commands.iter().copied()).collect();
    assert_eq!(log[1], same_run, "command removals in the same run, after the direct ones");
    assert!(log[2].is_empty() && log[3].is_empty());
    assert!(!world.has::<Enemy>(by_commands[0]) && world.has::<Armor>(by_commands[0]));
    assert!(!world.has::<Armor>(by_commands[1]) && !world.contains(by_commands[2]));
    assert_eq!(world.resource::<Stuns>().0, [partial, by_commands[2]], "sparse removals and despawns too");
}
