//! Required components (`#[require(…)]`): an entity that gains a component
//! gains each component it requires and lacks, made by `Default`, by the
//! expression given or by the constructor written, transitively, by every
//! way of spawning and inserting; values given explicitly win.

use ecs_core::prelude::*;

#[derive(Component, Debug, Default, PartialEq)]
struct Transform(f32);

#[derive(Component, Debug, PartialEq)]
struct Health(u32);

#[derive(Component, Debug, PartialEq)]
struct Name(String);

#[derive(Component, Debug, Default, PartialEq)]
#[require(Transform)]
struct Visible;

#[derive(Component, Debug)]
#[require(Visible, Health = Health(100), Name("hero".into()))]
struct Player;

#[derive(Component, Debug, Default, PartialEq)]
#[require(Pong)]
struct Ping;

#[derive(Component, Debug, Default, PartialEq)]
#[require(Ping)]
struct Pong;

fn has_all(world: &World, e: Entity) -> bool {
    world.has::<Player>(e) && world.has::<Visible>(e) && world.has::<Transform>(e) && world.has::<Health>(e)
}

#[test]
fn a_spawned_component_brings_what_it_requires_transitively() {
    let mut world = World::new();
    let e = world.spawn(Player);
    assert!(has_all(&world, e));
    assert_eq!(world.get::<Health>(e), Some(&Health(100)));
    assert_eq!(world.get::<Name>(e), Some(&Name("hero".into())));
    assert_eq!(world.get::<Transform>(e), Some(&Transform(0.0)), "required by a required one, by Default");
    // Given explicitly, a value wins over the requirement's.
    let f = world.spawn((Player, Health(7), Transform(2.0)));
    assert_eq!(world.get::<Health>(f), Some(&Health(7)));
    assert_eq!(world.get::<Transform>(f), Some(&Transform(2.0)));
    world.check_invariants().unwrap();
}

#[test]
fn inserting_brings_requirements_and_keeps_what_the_entity_has() {
    let mut world = World::new();
    let e = world.spawn(Health(3));
    world.insert(e, Player).unwrap();
    assert!(has_all(&world, e));
    assert_eq!(world.get::<Health>(e), Some(&Health(3)), "an existing value stays");
    // Removing the requiring component leaves the required ones.
    world.remove::<Player>(e).unwrap();
    assert!(world.has::<Visible>(e) && world.has::<Health>(e));
    // Inserting it again over what it requires changes nothing else.
    world.insert(e, Health(9)).unwrap();
    world.insert(e, Player).unwrap();
    assert_eq!(world.get::<Health>(e), Some(&Health(9)));
}

#[test]
fn commands_batches_and_cycles() {
    let mut world = World::new();
    world
        .run_system_once(|mut commands: Commands| {
            commands.spawn(Player);
        })
        .unwrap();
    let spawned: Vec<Entity> = world.spawn_batch((0..3).map(|_| Player)).collect();
    assert!(spawned.iter().all(|&e| has_all(&world, e)));
    assert_eq!(world.query::<&Player>().iter().count(), 4);
    assert_eq!(world.query::<(&Player, &Transform)>().iter().count(), 4);
    // Two components requiring each other: each brings the other once.
    let p = world.spawn(Ping);
    assert!(world.has::<Pong>(p));
    world.check_invariants().unwrap();
}

#[test]
fn required_components_are_in_place_before_the_hooks_and_observers_run() {
    #[derive(Default)]
    struct Seen(Vec<bool>);
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.add_observer(|add: On<Add, Player>, q: Query<&Transform>, mut seen: ResMut<Seen>| {
        seen.0.push(q.get(add.target()).is_ok());
    });
    world.add_observer(|add: On<Add, Transform>, q: Query<&Player>, mut seen: ResMut<Seen>| {
        seen.0.push(q.get(add.target()).is_ok());
    });
    world.spawn(Player);
    // Transform's Add observer (run while it is inserted) sees the Player;
    // Player's sees the Transform.
    assert_eq!(world.resource::<Seen>().0, [true, true]);
}

#[derive(Component, Debug, PartialEq)]
struct Level(u32);

#[derive(Component, Debug, Default)]
#[require(Level = Level(2))]
struct Middle;

/// Its own `Level` is nearer than `Middle`'s, so it wins.
#[derive(Component, Debug)]
#[require(Middle, Level = Level(1))]
struct Top;

#[test]
fn a_nearer_requirement_wins_over_a_farther_one() {
    let mut world = World::new();
    let e = world.spawn(Top);
    assert_eq!(world.get::<Level>(e), Some(&Level(1)));
    assert!(world.has::<Middle>(e));
    let f = world.spawn(Middle);
    assert_eq!(world.get::<Level>(f), Some(&Level(2)));
}

#[test]
fn inserting_a_held_component_brings_back_a_requirement_removed_since() {
    let mut world = World::new();
    let e = world.spawn(Player);
    world.remove::<Visible>(e).unwrap();
    world.remove::<Transform>(e).unwrap();
    world.insert(e, Player).unwrap();
    assert!(world.has::<Visible>(e) && world.has::<Transform>(e));
    // With a hook-free, observer-free held component too (its own path).
    let m = world.spawn(Middle);
    world.remove::<Level>(m).unwrap();
    world.insert(m, Middle).unwrap();
    assert_eq!(world.get::<Level>(m), Some(&Level(2)));
}

const LIMIT: u32 = 1;

#[derive(Component, Debug, PartialEq)]
struct Pair(u8, u16);

fn pair<A: Into<u8>, B: Into<u16>>(a: A, b: B) -> Pair {
    Pair(a.into(), b.into())
}

#[derive(Component, Debug, PartialEq)]
struct Tagged<T: Send + Sync + 'static>(T);

/// Values written every way the attribute allows: a comparison, a turbofish
/// with a comma, `=` with no space around it, a generic type.
#[derive(Component, Debug)]
#[require(
    Level = if LIMIT < 2 { Level(7) } else { Level(8) },
    Pair=pair::<u8, u8>(1, 2),
    Health(3),
    Tagged<Vec<u8>> = Tagged(vec![1, 2]),
)]
struct Written;

#[test]
fn every_way_of_writing_a_value_is_read() {
    let mut world = World::new();
    let e = world.spawn(Written);
    assert_eq!(world.get::<Level>(e), Some(&Level(7)));
    assert_eq!(world.get::<Pair>(e), Some(&Pair(1, 2)));
    assert_eq!(world.get::<Health>(e), Some(&Health(3)));
    assert_eq!(world.get::<Tagged<Vec<u8>>>(e), Some(&Tagged(vec![1, 2])));
}

fn explode() -> Level {
    panic!("no level")
}

#[derive(Component, Debug)]
#[require(Transform, Level = explode())]
struct Doomed;

#[test]
fn a_panicking_requirement_leaves_the_values_stored_so_far() {
    let mut world = World::new();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.spawn((Doomed, Health(1)))));
    assert!(result.is_err());
    assert_eq!(world.query::<(&Doomed, &Health, &Transform)>().iter().count(), 1);
    assert_eq!(world.query::<&Level>().iter().count(), 0);
    world.check_invariants().unwrap();
    // Later operations meet their requirements again.
    let e = world.spawn(Player);
    assert!(has_all(&world, e));
}
