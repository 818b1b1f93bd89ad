//! Systems and observers returning `Result`: `?` in their bodies, the error
//! handed to the world's error handler with where it came from.

use std::sync::Mutex;

use ecs_core::error::{self, BoxedError, ErrorContext};
use ecs_core::prelude::*;

#[derive(Component)]
struct Player;

#[derive(Component, Debug, PartialEq)]
struct Health(u32);

#[derive(Event)]
struct Hit(u32);

/// What the recording handler saw: one list per test, by the handler's
/// function (a plain `fn`, as the world takes).
macro_rules! recorder {
    ($log:ident, $handler:ident) => {
        static $log: Mutex<Vec<(ErrorContext, String)>> = Mutex::new(Vec::new());
        fn $handler(error: BoxedError, context: ErrorContext) {
            $log.lock().unwrap().push((context, error.to_string()));
        }
    };
}

fn heal_the_player(mut player: Query<&mut Health, With<Player>>) -> Result {
    let health = player.single_mut()?;
    health.0 = health.0.checked_add(10).ok_or("health overflowed")?;
    Ok(())
}

#[test]
fn a_system_returning_ok_runs_as_any_other() {
    let mut world = World::new();
    let player = world.spawn((Player, Health(5)));
    let mut schedule = Schedule::new();
    schedule.add_systems(heal_the_player);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.get::<Health>(player), Some(&Health(25)));
}

#[test]
fn an_error_goes_to_the_handler_with_the_system_name() {
    recorder!(LOG, record);
    let mut world = World::new();
    world.set_error_handler(record);
    let mut schedule = Schedule::new();
    schedule.add_systems(heal_the_player);
    schedule.run(&mut world); // no player: `single_mut` fails
    world.spawn((Player, Health(u32::MAX - 3)));
    schedule.run(&mut world); // the overflow
    let log = LOG.lock().unwrap().clone();
    assert_eq!(log.len(), 2, "{log:?}");
    for (context, _) in &log {
        assert!(matches!(context, ErrorContext::System { .. }), "{context:?}");
        assert!(context.name().ends_with("heal_the_player"), "{context}");
    }
    assert!(log[0].1.contains("Health"), "the EcsError's message: {}", log[0].1);
    assert_eq!(log[1].1, "health overflowed");
}

#[test]
fn by_default_an_error_panics_naming_the_system() {
    let mut world = World::new();
    assert_eq!(world.error_handler() as *const () as usize, error::panic as *const () as usize);
    let mut schedule = Schedule::new();
    schedule.add_systems(heal_the_player);
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| schedule.run(&mut world)))
        .expect_err("the default handler panics");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.contains("heal_the_player") && message.contains("failed"), "{message}");
    // The world goes on.
    world.check_invariants().unwrap();
    world.set_error_handler(error::ignore);
    schedule.run(&mut world);
}

#[derive(Debug)]
struct OutOfAmmo {
    weapon: &'static str,
}

impl std::fmt::Display for OutOfAmmo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the {} is out of ammo", self.weapon)
    }
}

impl std::error::Error for OutOfAmmo {}

#[test]
fn errors_of_any_type_and_exclusive_systems() {
    recorder!(LOG, record);
    static TYPED: Mutex<Vec<String>> = Mutex::new(Vec::new());
    fn keep_typed(error: BoxedError, _: ErrorContext) {
        let ammo = error.downcast_ref::<OutOfAmmo>().expect("the error keeps its type");
        TYPED.lock().unwrap().push(ammo.weapon.to_owned());
    }
    fn fire() -> Result<(), OutOfAmmo> {
        Err(OutOfAmmo { weapon: "bow" })
    }
    fn exclusive(world: &mut World) -> Result {
        world.spawn(Player);
        Err(format!("{} players", world.query::<&Player>().iter().count()))?
    }
    let mut world = World::new();
    world.set_error_handler(keep_typed);
    let mut schedule = Schedule::new();
    schedule.add_systems(fire);
    schedule.run(&mut world);
    assert_eq!(*TYPED.lock().unwrap(), ["bow"]);

    world.set_error_handler(record);
    let mut schedule = Schedule::new();
    schedule.add_systems(exclusive);
    schedule.run(&mut world);
    let log = LOG.lock().unwrap().clone();
    assert_eq!(log.len(), 1);
    assert!(log[0].0.name().ends_with("exclusive"), "{:?}", log[0].0);
    assert_eq!(log[0].1, "1 players");
}

#[test]
fn an_observer_returning_an_error_reports_it_as_an_observer() {
    recorder!(LOG, record);
    fn on_hit(hit: On<Hit>, mut healths: Query<&mut Health>) -> Result {
        let health = healths.single_mut()?;
        health.0 =
            health.0.checked_sub(hit.0).ok_or_else(|| format!("a hit of {} is more than {}", hit.0, health.0))?;
        Ok(())
    }
    let mut world = World::new();
    world.set_error_handler(record);
    let target = world.spawn(Health(5));
    world.add_observer(on_hit);
    world.trigger(Hit(3));
    world.trigger(Hit(3));
    assert_eq!(world.get::<Health>(target), Some(&Health(2)));
    let log = LOG.lock().unwrap().clone();
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(matches!(log[0].0, ErrorContext::Observer { .. }), "{:?}", log[0].0);
    assert!(log[0].0.name().ends_with("on_hit"));
    assert_eq!(log[0].1, "a hit of 3 is more than 2");
    assert_eq!(log[0].0.to_string(), format!("observer `{}`", log[0].0.name()));
}

#[test]
fn systems_running_side_by_side_report_from_their_threads() {
    static COUNT: Mutex<u32> = Mutex::new(0);
    fn count(_: BoxedError, _: ErrorContext) {
        *COUNT.lock().unwrap() += 1;
    }
    fn reads_health(_: Query<&Health>) -> Result {
        Err("health".into())
    }
    fn reads_player(_: Query<&Player>) -> Result {
        Err("player".into())
    }
    let mut world = World::new();
    world.set_error_handler(count);
    let mut schedule = Schedule::new();
    schedule.add_systems((reads_health, reads_player));
    for _ in 0..50 {
        schedule.run(&mut world);
    }
    assert_eq!(*COUNT.lock().unwrap(), 100);
}

#[test]
fn run_system_once_and_registered_systems_hand_the_result_back() {
    let mut world = World::new();
    let outcome = world.run_system_once(heal_the_player).expect("the system ran");
    assert!(outcome.is_err(), "no player: the caller gets the error");
    world.spawn((Player, Health(1)));
    let id = world.register_system(heal_the_player);
    world.run_system(id).expect("the system ran").expect("healed");
    assert_eq!(world.query::<&Health>().single().unwrap(), &Health(11));
}

/// A closure that only panics returns `!` under edition 2024's inference: it
/// is a system and an observer all the same.
#[test]
fn systems_and_observers_that_only_panic_are_accepted() {
    let mut world = World::new();
    world.add_observer(|_: On<Hit>| panic!("hit"));
    let observed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.trigger(Hit(1))));
    assert!(observed.is_err());
    let mut schedule = Schedule::new();
    schedule.add_systems(|_: Query<&Health>| unreachable!("ran"));
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| schedule.run(&mut world)));
    assert!(ran.is_err());
    world.check_invariants().unwrap();
}

/// A registered system run by a command has no caller to take its
/// `Result`: the error goes to the handler, naming the system.
#[test]
fn a_registered_system_run_by_a_command_reports_its_error() {
    recorder!(LOG, record);
    use ecs_core::command::{CommandQueue, Commands};
    fn refuse() -> Result {
        Err("refused".into())
    }
    let mut world = World::new();
    world.set_error_handler(record);
    let id = world.register_system(refuse);
    assert!(world.run_system(id).unwrap().is_err(), "a direct run hands the error back");
    assert!(LOG.lock().unwrap().is_empty());
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).run_system(id);
    queue.apply(&mut world);
    let log = LOG.lock().unwrap().clone();
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(log[0].0.name().ends_with("refuse"), "{}", log[0].0);
    assert_eq!(log[0].1, "refused");
}
