//! A game-like simulation (a tower defense: waves on a path, turrets with child
//! barrels, projectiles aimed at entities, hits as messages, a sparse `Frozen`
//! status, an `Added<Enemy>` system numbering new enemies, observers keeping
//! counts, a pause through a set run condition, `Local` timers) saved at every
//! tick, each save loaded into a fresh world set up as at start-up, and run on:
//! every tick after the load must equal the uninterrupted run, ids and values.

use ecs_core::prelude::*;
use ecs_core::serialize::{SerializeRegistry, WorldSave};
use serde::{Deserialize, Serialize};

#[derive(Component, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Enemy {
    hp: i32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct PathPos(f32);

/// Given to each enemy by `number_new_enemies`, from `Added<Enemy>`.
#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Number(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[component(storage = "sparse")]
struct Frozen(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Turret {
    cooldown: u32,
    period: u32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Barrel(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Projectile {
    #[entities]
    target: Entity,
    damage: i32,
}

#[derive(Message, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Hit {
    #[allow(dead_code, reason = "only compared through the score")]
    target: Entity,
    damage: i32,
}

#[derive(Default, Debug, PartialEq, Serialize, Deserialize)]
struct Score {
    damage: i64,
    kills: u32,
    spawned: u32,
}

#[derive(Default, Debug, PartialEq, Serialize, Deserialize)]
struct NextNumber(u32);

#[derive(Default, Debug, PartialEq, Serialize, Deserialize)]
struct Paused(bool);

/// A `Local` timer of the wave spawner.
#[derive(Default, Debug, Serialize, Deserialize)]
struct WaveTimer {
    ticks: u32,
    waves: u32,
}

#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
struct Gameplay;

fn spawn_waves(mut timer: Local<WaveTimer>, mut commands: Commands) {
    timer.ticks += 1;
    if timer.ticks % 3 == 1 {
        timer.waves += 1;
        for i in 0..2 {
            commands.spawn((Enemy { hp: 5 + timer.waves as i32 + i }, PathPos(0.0)));
        }
    }
}

fn number_new_enemies(new: Query<Entity, Added<Enemy>>, mut next: ResMut<NextNumber>, mut commands: Commands) {
    for enemy in &new {
        commands.entity(enemy).insert(Number(next.0));
        next.0 += 1;
    }
}

type Walking = (With<Enemy>, Without<Frozen>);

fn move_enemies(mut enemies: Query<(&mut PathPos, &Number), Walking>) {
    for (pos, number) in &mut enemies {
        pos.0 += 1.0 + (number.0 % 3) as f32 * 0.5;
    }
}

fn freeze(enemies: Query<(Entity, &Number, Option<&Frozen>), With<Enemy>>, mut commands: Commands) {
    for (enemy, number, frozen) in &enemies {
        match frozen {
            Some(Frozen(0)) => {
                commands.entity(enemy).remove::<Frozen>();
            }
            Some(&Frozen(left)) => {
                commands.entity(enemy).insert(Frozen(left - 1));
            }
            None if number.0 % 4 == 1 => {
                commands.entity(enemy).insert(Frozen(2));
            }
            None => {}
        }
    }
}

fn turrets_fire(
    mut turrets: Query<(&mut Turret, &Children)>,
    barrels: Query<&Barrel>,
    enemies: Query<(Entity, &PathPos), With<Enemy>>,
    mut commands: Commands,
) {
    for (turret, children) in &mut turrets {
        if turret.cooldown > 0 {
            turret.cooldown -= 1;
            continue;
        }
        // The enemy furthest along the path, the lowest id on ties.
        let target = enemies.iter().max_by(|a, b| a.1.0.total_cmp(&b.1.0).then(b.0.cmp(&a.0)));
        let Some((target, _)) = target else { continue };
        turret.cooldown = turret.period;
        let damage: u32 = children.iter().filter_map(|&c| barrels.get(c).ok()).map(|b| b.0).sum();
        commands.spawn(Projectile { target, damage: damage as i32 });
    }
}

/// Reads the hits of the tick before (it runs before `projectiles_hit`): the
/// messages written just before a save are read after its load.
fn score_hits(mut hits: MessageReader<Hit>, mut score: ResMut<Score>) {
    for hit in hits.read() {
        score.damage += i64::from(hit.damage);
    }
}

fn projectiles_hit(
    projectiles: Query<(Entity, &Projectile)>,
    mut enemies: Query<&mut Enemy>,
    mut hits: MessageWriter<Hit>,
    mut commands: Commands,
) {
    for (projectile, p) in &projectiles {
        if let Ok(enemy) = enemies.get_mut(p.target) {
            enemy.hp -= p.damage;
            hits.write(Hit { target: p.target, damage: p.damage });
        }
        commands.entity(projectile).despawn();
    }
}

fn despawn_dead(enemies: Query<(Entity, &Enemy, &PathPos)>, mut commands: Commands) {
    for (entity, enemy, pos) in &enemies {
        if enemy.hp <= 0 || pos.0 > 40.0 {
            commands.entity(entity).despawn();
        }
    }
}

/// Pauses for two ticks out of every nine, with its own `Local` clock.
fn toggle_pause(mut clock: Local<u32>, mut paused: ResMut<Paused>) {
    *clock += 1;
    paused.0 = *clock % 9 >= 7;
}

fn not_paused(paused: Res<Paused>) -> bool {
    !paused.0
}

/// What the game does at start-up in every process: observers, resources,
/// the schedule. The entities come from the level (or a save).
fn start_up(world: &mut World) -> Schedule {
    world.add_observer(|_: On<Add, Enemy>, mut score: ResMut<Score>| score.spawned += 1);
    world.add_observer(|_: On<Despawn, Enemy>, mut score: ResMut<Score>| score.kills += 1);
    world.insert_resource(Score::default());
    world.insert_resource(NextNumber::default());
    world.insert_resource(Paused::default());
    let mut schedule = Schedule::new();
    schedule.configure_sets(Gameplay.run_if(not_paused));
    schedule.add_systems(toggle_pause);
    schedule.add_systems(
        (
            spawn_waves,
            number_new_enemies,
            move_enemies,
            freeze,
            turrets_fire,
            score_hits,
            projectiles_hit,
            despawn_dead,
        )
            .chain()
            .in_set(Gameplay)
            .after(toggle_pause),
    );
    schedule
}

/// The level: two turrets with barrels.
fn level(world: &mut World) {
    for (period, barrels) in [(1, [1, 2]), (2, [3, 1])] {
        let turret = world.spawn(Turret { cooldown: 0, period });
        for damage in barrels {
            world.spawn((Barrel(damage), ChildOf(turret)));
        }
    }
}

fn registry() -> SerializeRegistry {
    SerializeRegistry::new()
        .register::<Enemy>("Enemy")
        .register::<PathPos>("PathPos")
        .register::<Number>("Number")
        .register::<Frozen>("Frozen")
        .register::<Turret>("Turret")
        .register::<Barrel>("Barrel")
        .register::<Projectile>("Projectile")
        .register_resource::<Score>("Score")
        .register_resource::<NextNumber>("NextNumber")
        .register_resource::<Paused>("Paused")
        .register_local::<WaveTimer>("WaveTimer")
        .register_local::<u32>("Clock")
        .register_message::<Hit>("Hit")
}

/// Every entity in iteration order with all it holds, and the resources.
fn dump(world: &World) -> String {
    let mut out = String::new();
    for e in world.iter() {
        out += &format!(
            "{} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}\n",
            e.id(),
            e.get::<Enemy>(),
            e.get::<PathPos>(),
            e.get::<Number>(),
            e.get::<Frozen>(),
            e.get::<Turret>(),
            e.get::<Barrel>(),
            e.get::<Projectile>(),
            e.get::<ChildOf>(),
            e.get::<Children>().map(|c| c.to_vec()),
        );
    }
    out += &format!(
        "{:?} {:?} {:?} {}",
        world.resource::<Score>(),
        world.resource::<NextNumber>(),
        world.resource::<Paused>(),
        world.len()
    );
    out
}

const TICKS: usize = 36;

fn save(world: &World, tick: usize) -> Vec<u8> {
    // Alternate a compact and a human-readable format.
    if tick % 2 == 0 {
        postcard::to_allocvec(&registry().columns(world)).unwrap()
    } else {
        serde_json::to_vec(&registry().columns(world)).unwrap()
    }
}

fn parse(bytes: &[u8], tick: usize) -> WorldSave {
    if tick % 2 == 0 {
        registry().load_columns(&mut postcard::Deserializer::from_bytes(bytes)).unwrap()
    } else {
        registry().load_columns(&mut serde_json::Deserializer::from_slice(bytes)).unwrap()
    }
}

#[test]
fn a_game_saved_at_every_tick_continues_exactly_as_the_uninterrupted_one() {
    let mut world = World::new();
    let mut schedule = start_up(&mut world);
    level(&mut world);
    let mut dumps = Vec::new();
    let mut saves = Vec::new();
    for tick in 0..TICKS {
        saves.push(save(&world, tick));
        schedule.run(&mut world);
        dumps.push(dump(&world));
    }
    let score = world.resource::<Score>();
    assert!(score.kills > 3 && score.damage > 10 && score.spawned > 10, "the game did something: {score:?}");
    let next = world.spawn(());

    for (tick, bytes) in saves.iter().enumerate() {
        let mut loaded = World::new();
        let mut schedule = start_up(&mut loaded);
        let map = loaded.load(parse(bytes, tick));
        assert!(map.iter().all(|(saved, now)| saved == now), "tick {tick}: ids kept");
        loaded.check_invariants().unwrap();
        for (later, expected) in dumps.iter().enumerate().skip(tick) {
            schedule.run(&mut loaded);
            let got = dump(&loaded);
            assert_eq!(got, *expected, "saved before tick {tick}, loaded, then run to tick {later}");
        }
        assert_eq!(loaded.spawn(()), next, "saved before tick {tick}: the next id is the uninterrupted world's");
    }
}
