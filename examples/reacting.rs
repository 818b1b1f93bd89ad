//! Reacting to change: a component hook, observers of lifecycle and custom
//! events, an entity observer, buffered events read by a system, the removals
//! of a component, and precise change detection with `Mut<T>`.
//!
//! Run with `cargo run --example reacting`; it checks what it prints.

use ecs_core::prelude::*;

/// Keeps the number of living units in a resource, whatever spawns or despawns them.
#[derive(Component)]
#[component(on_add = count_in, on_remove = count_out)]
struct Unit;

#[derive(Default)]
struct Census(u32);

fn count_in(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<Census>().0 += 1;
}
fn count_out(mut world: DeferredWorld, _: HookContext) {
    world.resource_mut::<Census>().0 -= 1;
}

#[derive(Component, PartialEq, Debug)]
struct Health(i32);

#[derive(Component)]
struct Name(&'static str);

/// Triggered at a unit: observers react at once.
#[derive(Event)]
struct Hit(i32);

/// Sent to whoever reads it, in the next system that does.
#[derive(Message, Debug)]
struct Died(&'static str);

#[derive(Default)]
struct Obituaries(Vec<String>);

fn obituaries(mut died: MessageReader<Died>, mut removed: RemovedComponents<Health>, mut log: ResMut<Obituaries>) {
    for Died(name) in died.read() {
        log.0.push(format!("{name} died"));
    }
    log.0.extend(removed.read().map(|_| "a health bar was removed".to_string()));
}

fn regenerate(mut q: Query<Mut<Health>>) {
    for mut health in q.iter_mut() {
        // Only units below 5 are written, so only they count as changed.
        let healed = Health(health.0.max(5));
        health.set_if_neq(healed);
    }
}

fn main() {
    let mut world = World::new();
    world.insert_resource(Census::default());
    world.insert_resource(Obituaries::default());

    // A global observer: any hit on any unit.
    world.add_observer(|hit: On<Hit>, mut q: Query<(&mut Health, &Name)>, mut commands: Commands| {
        let Ok((health, name)) = q.get_mut(hit.target()) else { return };
        health.0 -= hit.0;
        if health.0 <= 0 {
            commands.write_message(Died(name.0));
            commands.entity(hit.target()).despawn();
        }
    });
    // A lifecycle observer: every unit that gains health is announced.
    world.add_observer(|added: On<Add, Health>, names: Query<&Name>| {
        if let Ok(name) = names.get(added.target()) {
            println!("{} enters with health", name.0);
        }
    });

    let orc = world.spawn((Unit, Name("orc"), Health(6)));
    let elf = world.spawn((Unit, Name("elf"), Health(9)));
    assert_eq!(world.resource::<Census>().0, 2, "counted by the hook");

    // An entity observer: only hits on the elf.
    world.entity_mut(elf).expect("alive").observe(|hit: On<Hit>| println!("the elf takes {}", hit.0));

    let mut schedule = Schedule::new();
    schedule.add_systems(regenerate).add_systems(obituaries.after(regenerate));
    schedule.run(&mut world); // the log of removals starts with `obituaries`

    world.trigger_targets(Hit(7), [orc, elf]);
    assert!(!world.contains(orc), "despawned by the observer's command");
    assert_eq!(world.resource::<Census>().0, 1);

    let mut changed = world.query_state_filtered::<&Name, Changed<Health>>();
    changed.iter(&world).count(); // everything so far
    schedule.run(&mut world);
    let healed: Vec<&str> = changed.iter(&world).map(|n| n.0).collect();
    println!("healed: {healed:?}");
    assert_eq!(healed, ["elf"], "only the elf was below 5 and written");
    assert_eq!(world.get::<Health>(elf), Some(&Health(5)));

    world.remove::<Health>(elf).expect("the elf has health");
    schedule.run(&mut world);
    let log = &world.resource::<Obituaries>().0;
    println!("{log:?}");
    assert_eq!(log.as_slice(), ["orc died", "a health bar was removed", "a health bar was removed"]);
}
