//! Stress test of the multi-threaded [`Schedule`]: two systems whose data access
//! conflicts never run at the same time, whatever systems a schedule holds and in
//! whatever order they were added.
//!
//! A menu of thirty-seven systems, each a distinct function with a fixed access set
//! (`Query` with `&`/`&mut`/`Option`/`With`/`Without`/`Or`/`Changed` on table and
//! sparse components, `Res`, `ResMut`, `Option<Res…>`, `&World`, `Commands`,
//! `Local`, a `#[derive(SystemParam)]` struct, and one exclusive `&mut World`
//! system), is sampled by proptest: a random subset in a random order, with
//! consistent `before`/`after` constraints and sync points, run many times on a
//! world of a few hundred entities spread over several archetypes.
//!
//! Every system registers what it really touches in a tracker of atomics (a
//! reader set and a writer per component or resource) when it starts, works for
//! longer than the schedule's inline threshold so that tasks overlap, and
//! unregisters when it ends. Pinned:
//! - no system writes what another system is reading or writing at that moment;
//! - every system runs exactly once per run;
//! - each explicit `after`/`before` constraint, sync point and exclusive system
//!   orders the systems on either side of it;
//! - systems that conflict run in the order they were added (the constraints here
//!   always point from an earlier-added system to a later-added one, so insertion
//!   order is also the documented "explicit constraints first" order).
//!
//! `Query<&mut C4, With<Flag>>` (or `Query<(&mut C4, &Flag)>`) and
//! `Query<&mut C4, Without<Flag>>` touch disjoint rows, so the tracker splits `C4`
//! into a flagged and a plain half: the scheduler may run such systems side by
//! side. `C3` is split the same way by `Or<(With<C1>, With<Sp>)>` against
//! `(Without<C1>, Without<Sp>)`. `With`/`Or` filters read no component data,
//! so they are not registered; `Changed<C0>` reads `C0`'s change ticks, which
//! writers of `C0` write, so it is registered as a read of `C0`. A tick filter
//! beside a per-row filter (`(Changed<C4>, Without<Flag>)`, `(Changed<C1>,
//! Without<Sp>)`) scans the ticks of rows the per-row filter then drops, so it is
//! registered as a read of the whole component, both halves of `C4` included.
//!
//! A last test shows the tracker is not blind: it flags a writer that enters while
//! a reader is inside, and it sees two read-only systems run at the same time.
//!
//! `ECS_STRESS_RUNS` sets the schedule runs per case (default 32, or 8 when
//! `PROPTEST_CASES` is set below 64, as under valgrind).

mod common;

use std::sync::atomic::Ordering::SeqCst;
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use ecs_core::prelude::*;
use ecs_core::system::ScheduleConfigs;
use proptest::prelude::*;
use proptest::sample::Index;

#[derive(Component, Clone, Copy, Debug)]
struct C0(u64);
#[derive(Component, Clone, Copy, Debug)]
struct C1(u64);
#[derive(Component, Clone, Copy, Debug)]
struct C2(u64);
#[derive(Component, Clone, Copy, Debug)]
struct C3(u64);
#[derive(Component, Clone, Copy, Debug)]
struct C4(u64);
#[derive(Component, Clone, Copy, Debug)]
#[component(storage = "sparse")]
struct Sp(u64);
/// Splits `C4`'s rows into two halves for `With`/`Without` disjointness.
#[derive(Component)]
struct Flag;
/// Entities spawned and despawned through commands on every run.
#[derive(Component)]
struct Temp;

struct R0(u64);
struct R1(u64);

/// What the tracker watches, as bits: a component (or half of `C4`) or a resource.
mod slot {
    pub const C0: u16 = 1 << 0;
    pub const C1: u16 = 1 << 1;
    pub const C2: u16 = 1 << 2;
    /// `C3` of entities with `C1` or `Sp`.
    pub const C3_EITHER: u16 = 1 << 3;
    /// `C4` of entities with `Flag`.
    pub const C4_FLAGGED: u16 = 1 << 4;
    /// `C4` of entities without `Flag`.
    pub const C4_PLAIN: u16 = 1 << 5;
    pub const C4: u16 = C4_FLAGGED | C4_PLAIN;
    pub const SP: u16 = 1 << 6;
    pub const R0: u16 = 1 << 7;
    pub const R1: u16 = 1 << 8;
    /// `C3` of entities with neither `C1` nor `Sp`.
    pub const C3_NEITHER: u16 = 1 << 9;
    pub const C3: u16 = C3_EITHER | C3_NEITHER;
    pub const NONE: u16 = 0;
    pub const COUNT: usize = 10;
    pub const ALL: u16 = (1 << COUNT) - 1;
    pub const NAMES: [&str; COUNT] = [
        "C0",
        "C1",
        "C2",
        "C3 (with C1 or Sp)",
        "C4 (with Flag)",
        "C4 (without Flag)",
        "Sp",
        "R0",
        "R1",
        "C3 (with neither)",
    ];

    /// The slots of a mask.
    pub fn each(mask: u16) -> impl Iterator<Item = usize> {
        (0..COUNT).filter(move |s| mask & (1 << s) != 0)
    }
}

// ---------------------------------------------------------------------------
// The tracker
// ---------------------------------------------------------------------------

/// System ids are bits of a `u64`; the menu uses the low ones.
const MAX_SYSTEMS: usize = 64;
/// Two readers used only by the last test.
const SHARED_READER_A: usize = 62;
const SHARED_READER_B: usize = 63;

/// Per slot: one bit per system reading it now.
static READERS: [AtomicU64; slot::COUNT] = [const { AtomicU64::new(0) }; slot::COUNT];
/// Per slot: 1 + the id of the system writing it now, 0 when none.
static WRITER: [AtomicUsize; slot::COUNT] = [const { AtomicUsize::new(0) }; slot::COUNT];
/// Every overlap of a writer with another user of the same slot.
static VIOLATIONS: Mutex<Vec<String>> = Mutex::new(Vec::new());
/// How many times a reader entered a slot another reader was in (allowed).
static SHARED_READS: AtomicUsize = AtomicUsize::new(0);
/// A global clock: each system takes a tick when it starts and when it ends.
static CLOCK: AtomicU64 = AtomicU64::new(1);
static STARTED: [AtomicU64; MAX_SYSTEMS] = [const { AtomicU64::new(0) }; MAX_SYSTEMS];
static ENDED: [AtomicU64; MAX_SYSTEMS] = [const { AtomicU64::new(0) }; MAX_SYSTEMS];
static RUNS: [AtomicUsize; MAX_SYSTEMS] = [const { AtomicUsize::new(0) }; MAX_SYSTEMS];

/// Longer than the schedule's inline threshold (20 µs), so systems become tasks.
const WORK: Duration = Duration::from_micros(50);

/// The tests of this file share the tracker: they take turns.
fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn violations() -> MutexGuard<'static, Vec<String>> {
    VIOLATIONS.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn reset_tracker() {
    for s in 0..slot::COUNT {
        READERS[s].store(0, SeqCst);
        WRITER[s].store(0, SeqCst);
    }
    violations().clear();
    SHARED_READS.store(0, SeqCst);
}

fn system_name(id: usize) -> &'static str {
    match id {
        SHARED_READER_A => "shared_reader_a",
        SHARED_READER_B => "shared_reader_b",
        _ => MENU.get(id).map_or("?", |entry| entry.name),
    }
}

fn names_of(bits: u64) -> String {
    let names: Vec<_> = (0..MAX_SYSTEMS).filter(|id| bits & (1 << id) != 0).map(system_name).collect();
    names.join("`, `")
}

fn busy(duration: Duration) {
    let start = Instant::now();
    while start.elapsed() < duration {
        std::hint::spin_loop();
    }
}

/// A system's stay inside the tracker, from its first line to its last.
struct Visit {
    id: usize,
    reads: u16,
    writes: u16,
}

impl Visit {
    /// Enters menu system `id` with its declared access.
    fn start(id: usize) -> Self {
        let entry = &MENU[id];
        Self::enter(id, entry.reads, entry.writes)
    }

    /// Takes the start tick, then registers each read (the slot must have no
    /// writer) and each write (the slot must have no writer and no reader).
    /// Sequentially consistent atomics: of a reader and a writer entering one slot
    /// at the same time, at least one sees the other.
    fn enter(id: usize, reads: u16, writes: u16) -> Self {
        STARTED[id].store(CLOCK.fetch_add(1, SeqCst), SeqCst);
        RUNS[id].fetch_add(1, SeqCst);
        let me = 1u64 << id;
        let name = system_name(id);
        for s in slot::each(reads) {
            if READERS[s].fetch_or(me, SeqCst) & !me != 0 {
                SHARED_READS.fetch_add(1, SeqCst);
            }
            let writer = WRITER[s].load(SeqCst);
            if writer != 0 {
                let other = system_name(writer - 1);
                violations().push(format!("`{name}` reads {} while `{other}` writes it", slot::NAMES[s]));
            }
        }
        for s in slot::each(writes) {
            if let Err(writer) = WRITER[s].compare_exchange(0, id + 1, SeqCst, SeqCst) {
                let other = system_name(writer - 1);
                violations().push(format!("`{name}` writes {} while `{other}` writes it", slot::NAMES[s]));
            }
            let readers = READERS[s].load(SeqCst) & !me;
            if readers != 0 {
                let others = names_of(readers);
                violations().push(format!("`{name}` writes {} while `{others}` read it", slot::NAMES[s]));
            }
        }
        Self { id, reads, writes }
    }

    /// Works a little longer, unregisters, and takes the end tick.
    fn finish(self) {
        busy(WORK);
        self.leave();
    }

    fn leave(self) {
        let me = 1u64 << self.id;
        for s in slot::each(self.reads) {
            READERS[s].fetch_and(!me, SeqCst);
        }
        for s in slot::each(self.writes) {
            // Fails only after a violation, when another writer holds the slot.
            let _ = WRITER[s].compare_exchange(self.id + 1, 0, SeqCst, SeqCst);
        }
        ENDED[self.id].store(CLOCK.fetch_add(1, SeqCst), SeqCst);
    }
}

// ---------------------------------------------------------------------------
// The menu
// ---------------------------------------------------------------------------

/// A menu system's declared access, as the tracker sees it: the data it really
/// touches while it runs.
struct Entry {
    id: usize,
    name: &'static str,
    reads: u16,
    writes: u16,
    exclusive: bool,
}

impl Entry {
    fn conflicts_with(&self, other: &Entry) -> bool {
        self.exclusive
            || other.exclusive
            || self.writes & (other.reads | other.writes) != 0
            || other.writes & self.reads != 0
    }
}

/// Defines each system (its body wrapped in a [`Visit`]), the `MENU` table, and
/// `config`, `after` and `before`, which dispatch on a menu index to the function
/// of that index (constraints name systems by their function type).
macro_rules! menu {
    ($(
        $id:literal $(#[$exclusive:ident])? $name:ident($($params:tt)*)
        reads $reads:expr, writes $writes:expr, $body:block
    )*) => {
        $(
            fn $name($($params)*) {
                let visit = Visit::start($id);
                $body
                visit.finish();
            }
        )*

        const MENU: &[Entry] = &[$(Entry {
            id: $id,
            name: stringify!($name),
            reads: $reads,
            writes: $writes,
            exclusive: menu!(@exclusive $($exclusive)?),
        }),*];

        fn config(id: usize) -> ScheduleConfigs {
            match id {
                $($id => $name.into_configs(),)*
                _ => unreachable!("no menu system {id}"),
            }
        }

        fn after(config: ScheduleConfigs, id: usize) -> ScheduleConfigs {
            match id {
                $($id => config.after($name),)*
                _ => unreachable!("no menu system {id}"),
            }
        }

        fn before(config: ScheduleConfigs, id: usize) -> ScheduleConfigs {
            match id {
                $($id => config.before($name),)*
                _ => unreachable!("no menu system {id}"),
            }
        }
    };
    (@exclusive exclusive) => { true };
    (@exclusive) => { false };
}

type WithC0OrSp = Or<(With<C0>, With<Sp>)>;
type ChangedC1WithoutSp = (Changed<C1>, Without<Sp>);
type C1OrSp = Or<(With<C1>, With<Sp>)>;
type NeitherC1NorSp = (Without<C1>, Without<Sp>);

#[derive(SystemParam)]
struct C2Writer<'w> {
    values: Query<'w, &'static mut C2>,
    scale: Res<'w, R1>,
}

menu! {
    0 r_c0(q: Query<&C0>) reads slot::C0, writes slot::NONE, {
        std::hint::black_box(q.iter().map(|c| c.0).fold(0, u64::wrapping_add));
    }
    1 r_c0_c1(q: Query<(&C0, &C1)>) reads slot::C0 | slot::C1, writes slot::NONE, {
        std::hint::black_box(q.iter().map(|(a, b)| a.0 ^ b.0).fold(0, u64::wrapping_add));
    }
    2 w_c0(mut q: Query<&mut C0>) reads slot::NONE, writes slot::C0, {
        q.iter_mut().for_each(|c| c.0 = c.0.wrapping_add(1));
    }
    3 w_c1_r_c2(mut q: Query<(&mut C1, &C2)>) reads slot::C2, writes slot::C1, {
        q.iter_mut().for_each(|(a, b)| a.0 = a.0.wrapping_add(b.0));
    }
    4 w_c2_res_r0(mut q: Query<&mut C2>, r0: Res<R0>) reads slot::R0, writes slot::C2, {
        q.iter_mut().for_each(|c| c.0 = c.0.wrapping_add(r0.0));
    }
    5 w_c3_r_c0(mut q: Query<&mut C3>, other: Query<&C0>) reads slot::C0, writes slot::C3, {
        let sum = other.iter().map(|c| c.0).fold(0, u64::wrapping_add);
        q.iter_mut().for_each(|c| c.0 = c.0.wrapping_add(sum));
    }
    6 r_c3_c4(q: Query<(&C3, &C4)>) reads slot::C3 | slot::C4, writes slot::NONE, {
        std::hint::black_box(q.iter().map(|(a, b)| a.0 ^ b.0).fold(0, u64::wrapping_add));
    }
    7 w_c4_flagged(mut q: Query<&mut C4, With<Flag>>) reads slot::NONE, writes slot::C4_FLAGGED, {
        q.iter_mut().for_each(|c| c.0 = c.0.wrapping_add(1));
    }
    8 w_c4_plain_res_r1(mut q: Query<&mut C4, Without<Flag>>, r1: Res<R1>) reads slot::R1, writes slot::C4_PLAIN, {
        q.iter_mut().for_each(|c| c.0 = c.0.wrapping_add(r1.0));
    }
    9 w_c4_r_c1(mut q: Query<(&mut C4, &C1)>) reads slot::C1, writes slot::C4, {
        q.iter_mut().for_each(|(a, b)| a.0 ^= b.0);
    }
    10 w_sp(mut q: Query<&mut Sp>) reads slot::NONE, writes slot::SP, {
        q.iter_mut().for_each(|s| s.0 = s.0.wrapping_add(1));
    }
    11 w_c0_r_sp(mut q: Query<(&mut C0, &Sp)>) reads slot::SP, writes slot::C0, {
        q.iter_mut().for_each(|(c, s)| c.0 = c.0.wrapping_add(s.0));
    }
    12 toggle_sp(q: Query<(Entity, &C3, Option<&Sp>)>, mut commands: Commands, mut turn: Local<usize>)
        reads slot::C3 | slot::SP, writes slot::NONE, {
        let n = q.iter().count();
        if let Some((e, _, sp)) = q.iter().nth(*turn % n.max(1)) {
            if sp.is_some() {
                commands.remove::<Sp>(e);
            } else {
                commands.insert(e, Sp(1));
            }
        }
        *turn += 7;
    }
    13 w_res_r0(mut r0: ResMut<R0>) reads slot::NONE, writes slot::R0, {
        r0.0 = r0.0.wrapping_add(1) % 5;
    }
    14 w_res_r1_r_r0(mut r1: ResMut<R1>, r0: Res<R0>) reads slot::R0, writes slot::R1, {
        r1.0 = (r1.0 + r0.0) % 3;
    }
    15 opt_res_r0_r_c2(r0: Option<Res<R0>>, q: Query<&C2>) reads slot::R0 | slot::C2, writes slot::NONE, {
        let base = r0.map_or(0, |r| r.0);
        std::hint::black_box(q.iter().map(|c| c.0 ^ base).fold(0, u64::wrapping_add));
    }
    16 opt_w_res_r1(r1: Option<ResMut<R1>>, mut runs: Local<u32>) reads slot::NONE, writes slot::R1, {
        *runs += 1;
        if let Some(mut r1) = r1 {
            r1.0 = (r1.0 + u64::from(*runs)) % 3;
        }
    }
    17 world_reader(world: &World) reads slot::ALL, writes slot::NONE, {
        let c0 = world.query::<&C0>();
        let (c4, rest) = (world.query::<(&C4, Option<&Sp>)>(), world.query::<(&C1, &C2, &C3)>());
        let sum = c0.iter().map(|c| c.0).fold(0, u64::wrapping_add)
            ^ c4.iter().map(|(c, s)| c.0 ^ s.map_or(0, |s| s.0)).fold(0, u64::wrapping_add)
            ^ rest.iter().map(|(a, b, c)| a.0 ^ b.0 ^ c.0).fold(0, u64::wrapping_add);
        let res = world.get_resource::<R0>().map_or(0, |r| r.0) + world.get_resource::<R1>().map_or(0, |r| r.0);
        std::hint::black_box(sum ^ res);
    }
    18 world_toggle_flag(world: &World, mut commands: Commands, mut turn: Local<usize>)
        reads slot::ALL, writes slot::NONE, {
        let n = world.query::<(Entity, &C1)>().iter().count();
        if let Some((e, _)) = world.query::<(Entity, &C1)>().iter().nth(*turn % n.max(1)) {
            if world.get::<Flag>(e).is_some() {
                commands.remove::<Flag>(e);
            } else {
                commands.insert(e, Flag);
            }
        }
        *turn += 11;
    }
    19 local_only(mut n: Local<u64>) reads slot::NONE, writes slot::NONE, {
        *n = n.wrapping_add(1);
    }
    20 respawn_temp(q: Query<Entity, With<Temp>>, mut commands: Commands) reads slot::NONE, writes slot::NONE, {
        for e in q.iter() {
            commands.despawn(e);
        }
        for i in 0..3 {
            commands.spawn((C0(i), C2(i), Temp));
        }
    }
    21 w_c0_c2_res_r1(mut q: Query<(&mut C0, &mut C2)>, r1: Res<R1>) reads slot::R1, writes slot::C0 | slot::C2, {
        q.iter_mut().for_each(|(a, b)| {
            a.0 = a.0.wrapping_add(r1.0);
            b.0 = b.0.wrapping_add(1);
        });
    }
    22 r_c1_res_both(q: Query<&C1>, r0: Res<R0>, r1: Res<R1>) reads slot::C1 | slot::R0 | slot::R1, writes slot::NONE, {
        std::hint::black_box(q.iter().map(|c| c.0 ^ r0.0 ^ r1.0).fold(0, u64::wrapping_add));
    }
    23 w_c3_r_c4_flagged(mut q: Query<(&mut C3, &C4), With<Flag>>) reads slot::C4_FLAGGED, writes slot::C3, {
        q.iter_mut().for_each(|(a, b)| a.0 ^= b.0);
    }
    24 r_optional(q: Query<(&C0, Option<&C1>, Option<&Sp>)>) reads slot::C0 | slot::C1 | slot::SP, writes slot::NONE, {
        let values = q.iter().map(|(a, b, s)| a.0 ^ b.map_or(0, |b| b.0) ^ s.map_or(0, |s| s.0));
        std::hint::black_box(values.fold(0, u64::wrapping_add));
    }
    25 w_c1_opt_w_sp(mut q: Query<(&mut C1, Option<&mut Sp>)>) reads slot::NONE, writes slot::C1 | slot::SP, {
        q.iter_mut().for_each(|(c, s)| {
            c.0 = c.0.wrapping_add(1);
            if let Some(s) = s {
                s.0 = s.0.wrapping_add(c.0);
            }
        });
    }
    26 changed_c0(q: Query<(Entity, &C2), Changed<C0>>) reads slot::C0 | slot::C2, writes slot::NONE, {
        std::hint::black_box(q.iter().map(|(_, c)| c.0).fold(0, u64::wrapping_add));
    }
    27 or_filter(q: Query<&C3, WithC0OrSp>) reads slot::C3, writes slot::NONE, {
        std::hint::black_box(q.iter().map(|c| c.0).fold(0, u64::wrapping_add));
    }
    28 derived_param(mut p: C2Writer) reads slot::R1, writes slot::C2, {
        let scale = p.scale.0;
        p.values.iter_mut().for_each(|c| c.0 = c.0.wrapping_mul(scale | 1));
    }
    29 #[exclusive] exclusive(world: &mut World) reads slot::NONE, writes slot::ALL, {
        world.query_mut::<&mut C0>().for_each(|c| c.0 = c.0.wrapping_add(3));
        let r0 = world.get_resource_mut::<R0>().expect("inserted");
        r0.0 = (r0.0 + 1) % 5;
    }
    // Per-row filters beside tick filters: `Changed<C4>` scans the ticks of every
    // row of `C4`'s archetypes, flagged rows included, so it reads both halves.
    30 changed_c4_plain(q: Query<Entity, (Changed<C4>, Without<Flag>)>) reads slot::C4, writes slot::NONE, {
        std::hint::black_box(q.iter().count());
    }
    31 w_c1_with_sp(mut q: Query<&mut C1, With<Sp>>) reads slot::SP, writes slot::C1, {
        q.iter_mut().for_each(|c| c.0 = c.0.wrapping_add(5));
    }
    32 changed_c1_without_sp(q: Query<(Entity, &C3), ChangedC1WithoutSp>)
        reads slot::C1 | slot::C3 | slot::SP, writes slot::NONE, {
        std::hint::black_box(q.iter().map(|(_, c)| c.0).fold(0, u64::wrapping_add));
    }
    33 w_c4_flagged_ref_plain(mut a: Query<&mut C4, With<Flag>>, b: Query<Ref<C4>, Without<Flag>>)
        reads slot::C4_PLAIN, writes slot::C4_FLAGGED, {
        let changed = b.iter().filter(|c| c.is_changed()).count() as u64;
        a.iter_mut().for_each(|c| c.0 = c.0.wrapping_add(changed));
    }
    // Proofs through a read of the tag itself, and through `Or` clauses (which
    // read `Sp`'s presence on every row they pass over).
    34 w_c4_ref_flag(mut q: Query<(&mut C4, &Flag)>) reads slot::NONE, writes slot::C4_FLAGGED, {
        q.iter_mut().for_each(|(c, _)| c.0 = c.0.wrapping_add(2));
    }
    35 w_c3_c1_or_sp(mut q: Query<&mut C3, C1OrSp>) reads slot::SP, writes slot::C3_EITHER, {
        q.iter_mut().for_each(|c| c.0 = c.0.wrapping_add(3));
    }
    36 w_c3_neither(mut q: Query<&mut C3, NeitherC1NorSp>) reads slot::SP, writes slot::C3_NEITHER, {
        q.iter_mut().for_each(|c| c.0 = c.0.wrapping_add(4));
    }
}

// ---------------------------------------------------------------------------
// The stress test
// ---------------------------------------------------------------------------

/// 240 entities over the archetypes of `C0` plus any of `C1`..`C4`, some with the
/// sparse `Sp`, some with the `Flag` tag; the two resources.
fn populated_world() -> World {
    let mut world = World::new();
    for i in 0..240u64 {
        let e = world.spawn(C0(i));
        if i % 2 == 0 {
            world.insert(e, C1(i)).unwrap();
        }
        if i % 3 == 0 {
            world.insert(e, C2(i)).unwrap();
        }
        if i % 5 != 0 {
            world.insert(e, C3(i)).unwrap();
        }
        if i % 4 != 1 {
            world.insert(e, C4(i)).unwrap();
        }
        if i % 7 < 3 {
            world.insert(e, Flag).unwrap();
        }
        if i % 3 == 1 {
            world.insert(e, Sp(i)).unwrap();
        }
    }
    world.insert_resource(R0(1));
    world.insert_resource(R1(2));
    world
}

/// One sampled schedule: menu systems in the order added, constraints between
/// positions (always from an earlier-added to a later-added system), and the
/// positions that get a sync point before them.
#[derive(Clone, Debug)]
struct Case {
    systems: Vec<usize>,
    /// `(first, then, written as first.before(then))`, else `then.after(first)`.
    constraints: Vec<(usize, usize, bool)>,
    syncs_before: Vec<usize>,
}

fn case() -> impl Strategy<Value = Case> {
    let all: Vec<usize> = (0..MENU.len()).collect();
    (
        proptest::sample::subsequence(all, 2..=MENU.len()).prop_shuffle(),
        proptest::collection::vec((any::<Index>(), any::<Index>(), any::<bool>()), 0..8),
        proptest::collection::vec(any::<Index>(), 0..3),
    )
        .prop_map(|(systems, pairs, syncs)| {
            let n = systems.len();
            let constraints = pairs
                .into_iter()
                .map(|(a, b, as_before)| (a.index(n), b.index(n), as_before))
                .filter(|(a, b, _)| a != b)
                .map(|(a, b, as_before)| (a.min(b), a.max(b), as_before))
                .collect();
            let mut syncs_before: Vec<usize> = syncs.into_iter().map(|s| 1 + s.index(n - 1)).collect();
            syncs_before.sort_unstable();
            syncs_before.dedup();
            Case { systems, constraints, syncs_before }
        })
}

/// The schedule of a case, and each position's segment (sync points and exclusive
/// systems start new ones).
fn build(case: &Case) -> (Schedule, Vec<usize>) {
    let n = case.systems.len();
    let mut afters = vec![Vec::new(); n];
    let mut befores = vec![Vec::new(); n];
    for &(first, then, as_before) in &case.constraints {
        if as_before {
            befores[first].push(case.systems[then]);
        } else {
            afters[then].push(case.systems[first]);
        }
    }
    let mut schedule = Schedule::new();
    let mut segments = Vec::with_capacity(n);
    let mut segment = 0;
    for (pos, &id) in case.systems.iter().enumerate() {
        if case.syncs_before.contains(&pos) {
            schedule.add_sync_point();
            segment += 1;
        }
        let mut system = config(id);
        for &other in &afters[pos] {
            system = after(system, other);
        }
        for &other in &befores[pos] {
            system = before(system, other);
        }
        schedule.add_systems(system);
        if MENU[id].exclusive {
            segments.push(segment + 1);
            segment += 2;
        } else {
            segments.push(segment);
        }
    }
    (schedule, segments)
}

/// Checks one run's clock readings against the case.
fn check_run(case: &Case, segments: &[usize], run: usize) -> Result<(), TestCaseError> {
    let found = violations().clone();
    prop_assert!(found.is_empty(), "run {run}: systems with conflicting access overlapped:\n{}", found.join("\n"));
    let ids = &case.systems;
    for &id in ids {
        let runs = RUNS[id].load(SeqCst);
        prop_assert_eq!(runs, 1, "run {}: `{}` ran {} times", run, MENU[id].name, runs);
    }
    let (start, end) = (|id: usize| STARTED[id].load(SeqCst), |id: usize| ENDED[id].load(SeqCst));
    for &(first, then, as_before) in &case.constraints {
        let (f, t) = (ids[first], ids[then]);
        let how = if as_before { "before" } else { "after" };
        prop_assert!(
            end(f) < start(t),
            "run {run}: `{}` was ordered {how} `{}` but they ran at ticks {}..{} and {}..{}",
            if as_before { MENU[f].name } else { MENU[t].name },
            if as_before { MENU[t].name } else { MENU[f].name },
            start(f),
            end(f),
            start(t),
            end(t)
        );
    }
    for (a, &x) in ids.iter().enumerate() {
        for (b, &y) in ids.iter().enumerate().skip(a + 1) {
            let why = if segments[a] < segments[b] {
                "a sync point or an exclusive system separates them"
            } else if MENU[x].conflicts_with(&MENU[y]) {
                "they conflict and the first was added first"
            } else {
                continue;
            };
            prop_assert!(
                end(x) < start(y),
                "run {run}: `{}` must end before `{}` starts ({why}), but they ran at ticks {}..{} and {}..{}",
                MENU[x].name,
                MENU[y].name,
                start(x),
                end(x),
                start(y),
                end(y)
            );
        }
    }
    Ok(())
}

fn env_number(name: &str) -> Option<usize> {
    std::env::var(name).ok()?.trim().parse().ok()
}

/// Schedule runs per proptest case.
fn runs_per_case() -> usize {
    env_number("ECS_STRESS_RUNS").unwrap_or(match env_number("PROPTEST_CASES") {
        Some(cases) if cases < 64 => 8,
        _ => 32,
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::cases(48), max_shrink_iters: 200, ..ProptestConfig::default() })]

    #[test]
    fn systems_with_conflicting_access_never_overlap_and_constraints_hold(case in case()) {
        let _serial = serial();
        reset_tracker();
        let mut world = populated_world();
        let command_errors = Arc::new(Mutex::new(Vec::new()));
        let sink = command_errors.clone();
        world.set_command_error_handler(move |e| sink.lock().unwrap().push(e.to_string()));
        let (mut schedule, segments) = build(&case);
        for run in 0..runs_per_case() {
            for id in &case.systems {
                RUNS[*id].store(0, SeqCst);
            }
            schedule.run(&mut world);
            check_run(&case, &segments, run)?;
        }
        let errors = command_errors.lock().unwrap().clone();
        prop_assert!(errors.is_empty(), "the menu's commands never fail: {:?}", errors);
        prop_assert!(world.check_invariants().is_ok(), "{:?}", world.check_invariants());
    }
}

#[test]
fn the_menu_is_consistent_and_every_system_runs_on_one_thread() {
    for (index, entry) in MENU.iter().enumerate() {
        assert_eq!(entry.id, index, "`{}` sits at its id", entry.name);
        assert_eq!(entry.reads & entry.writes, 0, "`{}` reads or writes each slot, not both", entry.name);
    }
    assert!(MENU.len() <= SHARED_READER_A, "menu ids stay below the test-only ids");
    // Every system of the menu in one schedule, on one thread: the world holds what
    // every system needs, the bodies do not panic, and the checks pass.
    let _serial = serial();
    reset_tracker();
    let mut world = populated_world();
    let all = Case { systems: (0..MENU.len()).collect(), constraints: Vec::new(), syncs_before: Vec::new() };
    let (mut schedule, segments) = build(&all);
    schedule.set_multi_threaded(false);
    for run in 0..3 {
        RUNS.iter().for_each(|runs| runs.store(0, SeqCst));
        schedule.run(&mut world);
        check_run(&all, &segments, run).unwrap();
    }
    assert_eq!(SHARED_READS.load(SeqCst), 0, "one thread: no two systems are ever inside together");
}

// ---------------------------------------------------------------------------
// The tracker sees overlaps
// ---------------------------------------------------------------------------

/// Waits (at most 100 ms) until another system reads the slot `mask` too.
fn wait_for_another_reader(me: usize, mask: u16) {
    let (slot, start) = (mask.trailing_zeros() as usize, Instant::now());
    while READERS[slot].load(SeqCst) & !(1 << me) == 0 && start.elapsed() < Duration::from_millis(100) {
        std::thread::yield_now();
    }
}

fn shared_reader_a(q: Query<&C0>) {
    let visit = Visit::enter(SHARED_READER_A, slot::C0, slot::NONE);
    wait_for_another_reader(SHARED_READER_A, slot::C0);
    std::hint::black_box(q.iter().map(|c| c.0).fold(0, u64::wrapping_add));
    visit.finish();
}

fn shared_reader_b(q: Query<(&C0, &C2)>) {
    let visit = Visit::enter(SHARED_READER_B, slot::C0 | slot::C2, slot::NONE);
    wait_for_another_reader(SHARED_READER_B, slot::C0);
    std::hint::black_box(q.iter().map(|(a, b)| a.0 ^ b.0).fold(0, u64::wrapping_add));
    visit.finish();
}

#[test]
fn the_tracker_flags_a_writer_beside_a_reader_and_sees_readers_run_together() {
    let _serial = serial();
    reset_tracker();
    // A writer entering while a reader is inside, the other way round, and two
    // writers: flagged, naming both systems.
    let menu_id = |name: &str| MENU.iter().position(|entry| entry.name == name).expect("in the menu");
    let (r_c0, w_c0, w_c0_r_sp) = (menu_id("r_c0"), menu_id("w_c0"), menu_id("w_c0_r_sp"));
    let reader = Visit::start(r_c0);
    let writer = Visit::start(w_c0);
    writer.leave();
    reader.leave();
    let writer = Visit::start(w_c0);
    let reader = Visit::start(r_c0);
    reader.leave();
    let second_writer = Visit::start(w_c0_r_sp);
    second_writer.leave();
    writer.leave();
    let found = std::mem::take(&mut *violations());
    assert_eq!(
        found,
        [
            "`w_c0` writes C0 while `r_c0` read it",
            "`r_c0` reads C0 while `w_c0` writes it",
            "`w_c0_r_sp` writes C0 while `w_c0` writes it",
        ],
    );
    // Two readers of one component side by side are no violation, and the schedule
    // really runs them at the same time (when there are threads to do it).
    reset_tracker();
    let parallel = std::thread::available_parallelism().is_ok_and(|n| n.get() > 1) && ecs_core::parallel::threads() > 1;
    let mut world = populated_world();
    let mut schedule = Schedule::new();
    schedule.add_systems(shared_reader_a).add_systems(shared_reader_b);
    for _ in 0..50 {
        schedule.run(&mut world);
        if SHARED_READS.load(SeqCst) > 0 {
            break;
        }
    }
    let found = violations().clone();
    assert!(found.is_empty(), "{found:?}");
    if parallel {
        assert!(SHARED_READS.load(SeqCst) > 0, "two systems reading only `C0` never ran at the same time");
    }
}
