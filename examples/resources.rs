//! Resources: one value per type stored in the world (settings, score, time). From
//! the world: `insert_resource`, `resource(_mut)` (panic when missing),
//! `get_resource(_mut)` (an `Option`), `resource_scope`. In systems: `Res`, `ResMut`,
//! `Option<Res>`, change detection with `is_added`/`is_changed`, and `Local`.
//!
//! Run with `cargo run --example resources`.

use ecs_core::prelude::*;

#[derive(Component)]
struct Coin(u32);

#[derive(Debug, PartialEq)]
struct Score(u32);
struct Difficulty(u32);
struct Cheats;

/// What the `report` system saw each run.
#[derive(Default)]
struct Seen(Vec<String>);

fn report(score: Res<Score>, cheats: Option<Res<Cheats>>, mut seen: ResMut<Seen>, mut runs: Local<u32>) {
    *runs += 1; // private to this system, kept between runs
    let line = format!(
        "run {}: score {} added {} changed {} cheats {}",
        *runs,
        score.0,
        score.is_added(),
        score.is_changed(),
        cheats.is_some()
    );
    seen.0.push(line);
}

fn main() -> Result<(), EcsError> {
    let mut world = World::new();
    world.insert_resource(Score(0));
    world.insert_resource(Seen::default());
    assert!(world.get_resource::<Difficulty>().is_none(), "missing is `None`, not a panic");
    assert!(world.get_resource_mut::<Difficulty>().is_none());

    // `resource_scope` lends the world and the resource together: here, to query
    // coins while adding them to the score.
    world.spawn_batch((1..=4).map(Coin));
    world.resource_scope(|world, mut score: Mut<Score>| {
        world.query_mut::<&mut Coin>().for_each(|c| score.0 += std::mem::take(&mut c.0));
    });
    assert_eq!(world.resource::<Score>(), &Score(10));

    let mut schedule = Schedule::new();
    schedule.add_systems(report);
    schedule.run(&mut world); // first run: everything is new
    schedule.run(&mut world); // nothing touched since
    world.resource_mut::<Score>().0 += 5; // counts as a change
    world.insert_resource(Cheats);
    schedule.run(&mut world);
    for line in &world.resource::<Seen>().0 {
        println!("{line}");
    }
    assert_eq!(
        world.resource::<Seen>().0,
        [
            "run 1: score 10 added true changed true cheats false",
            "run 2: score 10 added false changed false cheats false",
            "run 3: score 15 added false changed true cheats true",
        ]
    );

    // One-off systems, outside the schedule, may return a value.
    world.insert_resource(Difficulty(2));
    let bonus = Schedule::run_system_once(&mut world, |d: Res<Difficulty>, s: Res<Score>| d.0 * s.0)?;
    assert_eq!(bonus, 30);
    world.get_resource_mut::<Score>().expect("inserted").0 = bonus;
    assert_eq!(world.get_resource::<Score>(), Some(&Score(30)));
    Ok(())
}
