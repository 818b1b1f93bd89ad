//! Precise change detection: `Mut<T>` marks only the rows written through it,
//! `Ref<T>` tells added and changed rows apart, `Changed`/`Added` skip whole
//! archetypes where nothing changed yet report every changed row in every
//! iteration mode, and `#[component(changes = false)]` opts a component out.

use std::sync::Mutex;

use ecs_core::archetype::Column;
use ecs_core::change_detection::Tick;
use ecs_core::component::component_id;
use ecs_core::prelude::*;
use ecs_core::query::QueryFilter;

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Health(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Armor(u32);
/// Markers with data, so that each makes its own archetype (a zero-sized
/// marker is a tag, stored per row within one archetype).
#[derive(Component)]
struct Group(#[allow(dead_code)] u8);
#[derive(Component)]
struct Extra(#[allow(dead_code)] u8);
/// A tag: rows with and without it share an archetype.
#[derive(Component)]
struct Odd;

/// The entity a system should write.
struct Target(Entity);

/// A `Changed<Health>` state that has seen everything so far.
fn changed_state(world: &World) -> QueryState<Entity, Changed<Health>> {
    let mut state = world.query_state_filtered::<Entity, Changed<Health>>();
    state.iter(world).for_each(drop);
    state
}

fn changed(state: &mut QueryState<Entity, Changed<Health>>, world: &World) -> Vec<Entity> {
    state.iter(world).collect()
}

fn sorted(mut entities: Vec<Entity>) -> Vec<Entity> {
    entities.sort();
    entities
}

/// Visits every row through `Mut`, writing only the target's.
fn write_target(mut q: Query<(Entity, Mut<Health>)>, target: Res<Target>) {
    for (entity, mut health) in q.iter_mut() {
        if entity == target.0 {
            health.0 += 1;
        }
    }
}

#[test]
fn writing_one_row_through_mut_marks_exactly_that_row() {
    let mut world = World::new();
    let entities: Vec<Entity> = world.spawn_batch((0..10).map(Health)).collect();
    let mut state = changed_state(&world);
    world.insert_resource(Target(entities[3]));
    world.run_system_once(write_target).unwrap();
    assert_eq!(changed(&mut state, &world), [entities[3]]);
    assert_eq!(world.get::<Health>(entities[3]), Some(&Health(4)));
    world.get_mut::<Health>(entities[7]).unwrap().0 = 70;
    assert_eq!(changed(&mut state, &world), [entities[7]]);
    assert_eq!(changed(&mut state, &world), []);
}

#[test]
fn reading_set_if_neq_with_an_equal_value_and_bypassing_mark_nothing() {
    fn read_only(mut q: Query<Mut<Health>>) -> u32 {
        q.iter_mut().map(|h| h.0).sum()
    }
    fn same_values(mut q: Query<Mut<Health>>) {
        for mut health in q.iter_mut() {
            let same = *health;
            assert!(!health.set_if_neq(same));
        }
    }
    fn bypass(mut q: Query<Mut<Health>>) {
        q.iter_mut().for_each(|mut h| h.bypass_change_detection().0 += 100);
    }
    let mut world = World::new();
    let entities: Vec<Entity> = world.spawn_batch((0..10).map(Health)).collect();
    let mut state = changed_state(&world);
    assert_eq!(world.run_system_once(read_only).unwrap(), 45);
    world.run_system_once(same_values).unwrap();
    world.run_system_once(bypass).unwrap();
    let _ = world.get_mut::<Health>(entities[0]).unwrap().0;
    world.get_mut::<Health>(entities[1]).unwrap().set_if_neq(Health(101));
    assert_eq!(changed(&mut state, &world), [], "nothing was written through a tracked path");
    assert_eq!(world.get::<Health>(entities[9]), Some(&Health(109)), "the bypass did write");
    assert!(world.get_mut::<Health>(entities[2]).unwrap().set_if_neq(Health(0)));
    assert_eq!(changed(&mut state, &world), [entities[2]]);
}

#[derive(Default)]
struct Flags(Vec<(&'static str, Entity, bool, bool)>);

fn bump(mut q: Query<(Entity, Mut<Health>)>, target: Option<Res<Target>>, mut flags: ResMut<Flags>) {
    for (entity, mut health) in q.iter_mut() {
        flags.0.push(("mut", entity, health.is_added(), health.is_changed()));
        if target.as_ref().is_some_and(|t| t.0 == entity) {
            health.0 += 1;
        }
    }
}

fn observe(q: Query<(Entity, Ref<Health>)>, mut flags: ResMut<Flags>) {
    flags.0.extend(q.iter().map(|(entity, health)| ("ref", entity, health.is_added(), health.is_changed())));
}

fn frame(schedule: &mut Schedule, world: &mut World) -> Vec<(&'static str, Entity, bool, bool)> {
    world.resource_mut::<Flags>().0.clear();
    schedule.run(world);
    world.resource::<Flags>().0.clone()
}

#[test]
fn is_added_and_is_changed_on_mut_and_ref_inside_systems_across_runs() {
    let mut world = World::new();
    world.insert_resource(Flags::default());
    let a = world.spawn(Health(1));
    let mut schedule = Schedule::new();
    schedule.add_systems(bump).add_systems(observe.after(bump));
    assert_eq!(frame(&mut schedule, &mut world), [("mut", a, true, true), ("ref", a, true, true)]);
    let b = world.spawn(Health(2));
    world.insert_resource(Target(a));
    let both = |[ma, mb, ra, rb]: [(bool, bool); 4]| {
        vec![("mut", a, ma.0, ma.1), ("mut", b, mb.0, mb.1), ("ref", a, ra.0, ra.1), ("ref", b, rb.0, rb.1)]
    };
    assert_eq!(frame(&mut schedule, &mut world), both([(false, false), (true, true), (false, true), (true, true)]));
    world.remove_resource::<Target>();
    let quiet = both([(false, false); 4]);
    assert_eq!(frame(&mut schedule, &mut world), quiet, "bump's own write is older than its last run");
    world.get_mut::<Health>(b).unwrap().0 += 1;
    let mut direct = world.get_mut::<Health>(a).unwrap();
    assert!(direct.is_added() && direct.is_changed(), "world.get_mut compares against tick 0");
    assert_eq!(direct.bypass_change_detection().0, 2);
    assert_eq!(frame(&mut schedule, &mut world), both([(false, false), (false, true), (false, false), (false, true)]));
}

#[derive(QueryData)]
struct Seen<'w> {
    id: Entity,
    health: Ref<'w, Health>,
}

#[derive(QueryData)]
struct Repair<'w> {
    id: Entity,
    armor: Mut<'w, Armor>,
    health: &'w Health,
}

#[test]
fn ref_and_mut_in_tuples_and_derived_query_data() {
    let mut world = World::new();
    let a = world.spawn((Health(1), Armor(0)));
    let mut tuple = world.query_state::<(Entity, Ref<Health>, &Armor)>();
    let mut derived = world.query_state::<Seen>();
    let mut armor_changed = world.query_state_filtered::<Entity, Changed<Armor>>();
    assert_eq!(tuple.iter(&world).map(|(e, h, _)| (e, h.is_added())).collect::<Vec<_>>(), [(a, true)]);
    assert_eq!(
        derived.iter(&world).map(|s| (s.id, s.health.is_added(), s.health.0)).collect::<Vec<_>>(),
        [(a, true, 1)]
    );
    assert_eq!(armor_changed.iter(&world).count(), 1);
    let b = world.spawn((Health(2), Armor(0)));
    world.get_mut::<Health>(a).unwrap().0 = 10;
    let flags = |h: Ref<Health>| (h.is_added(), h.is_changed(), h.0);
    let by_tuple: Vec<_> = tuple.iter(&world).map(|(e, h, _)| (e, flags(h))).collect();
    let by_derived: Vec<_> = derived.iter(&world).map(|s| (s.id, flags(s.health))).collect();
    assert_eq!(by_tuple, [(a, (false, true, 10)), (b, (true, true, 2))]);
    assert_eq!(by_tuple, by_derived);
    assert_eq!(armor_changed.iter(&world).collect::<Vec<_>>(), [b]);
    for mut repair in world.query_mut::<Repair>() {
        if repair.health.0 > 5 {
            repair.armor.0 += 1;
        }
    }
    assert_eq!(armor_changed.iter(&world).collect::<Vec<_>>(), [a], "only the written row");
    assert_eq!(world.get::<Armor>(a), Some(&Armor(1)));
}

#[test]
fn every_mode_of_a_mut_query_marks_only_written_rows_but_chunks_mark_whole_slices() {
    fn by_for_each(mut q: Query<(Entity, Mut<Health>)>, target: Res<Target>) {
        q.iter_mut().filter(|(e, _)| *e == target.0).for_each(|(_, mut h)| h.0 += 1);
    }
    fn by_par(mut q: Query<(Entity, Mut<Health>)>, target: Res<Target>) {
        let target = target.0;
        q.par_for_each_mut(|(e, mut h)| {
            if e == target {
                h.0 += 1
            }
        });
    }
    let mut world = World::new();
    let entities: Vec<Entity> = (0..300).map(|i| world.spawn((Health(i), Group(0)))).collect();
    let others: Vec<Entity> = (0..5).map(|i| world.spawn(Health(i))).collect();
    let mut state = changed_state(&world);
    world.insert_resource(Target(entities[7]));
    world.run_system_once(by_for_each).unwrap();
    assert_eq!(changed(&mut state, &world), [entities[7]], "Query::iter_mut().for_each");
    world.insert_resource(Target(entities[150]));
    world.run_system_once(write_target).unwrap();
    assert_eq!(changed(&mut state, &world), [entities[150]], "Query::iter_mut");
    world.insert_resource(Target(entities[299]));
    world.run_system_once(by_par).unwrap();
    assert_eq!(changed(&mut state, &world), [entities[299]], "Query::par_for_each_mut");
    let mut q = world.query_state::<(Entity, Mut<Health>)>();
    q.iter_mut(&mut world).filter(|(e, _)| *e == others[1]).for_each(|(_, mut h)| h.0 += 1);
    assert_eq!(changed(&mut state, &world), [others[1]], "QueryState::iter_mut");
    q.par_for_each(&mut world, |(e, mut h)| {
        if e == entities[200] {
            h.0 += 1
        }
    });
    assert_eq!(changed(&mut state, &world), [entities[200]], "QueryState::par_for_each");
    let mut chunks = world.query_state_filtered::<Mut<Health>, With<Group>>();
    let mut calls = 0;
    chunks.for_each_chunk(&mut world, |slice| {
        calls += 1;
        slice[0].0 += 1;
    });
    assert_eq!(calls, 1, "one archetype, one chunk");
    let seen = sorted(changed(&mut state, &world));
    assert_eq!(seen, sorted(entities.clone()), "a chunk is plain `&mut [T]`: all of its rows count as written");
    assert_eq!(world.get::<Health>(entities[0]), Some(&Health(1)));

    let tagged: Vec<Entity> =
        (0..10).map(|i| if i % 2 == 1 { world.spawn((Health(i), Odd)) } else { world.spawn(Health(i)) }).collect();
    let mut state = changed_state(&world);
    let mut odd = world.query_state_filtered::<Mut<Health>, With<Odd>>();
    let mut lengths = Vec::new();
    odd.for_each_chunk(&mut world, |slice| lengths.push(slice.len()));
    assert_eq!(lengths, [1; 5], "a tag splits the archetype into runs of matching rows");
    let odds: Vec<Entity> = tagged.iter().copied().skip(1).step_by(2).collect();
    assert_eq!(changed(&mut state, &world), odds, "only the rows handed out count as written");
}

macro_rules! groups {
    ($($index:literal => $name:ident),* $(,)?) => {
        $(#[derive(Component)] struct $name(#[allow(dead_code)] u8);)*
        /// Spawns `bundle` with group `index`'s marker: one archetype per group.
        fn spawn_in(world: &mut World, index: usize, bundle: impl Bundle) -> Entity {
            match index {
                $($index => world.spawn((bundle, $name(0))),)*
                _ => unreachable!(),
            }
        }
    };
}

groups!(0 => G0, 1 => G1, 2 => G2, 3 => G3, 4 => G4, 5 => G5, 6 => G6, 7 => G7, 8 => G8, 9 => G9,
    10 => G10, 11 => G11, 12 => G12, 13 => G13, 14 => G14, 15 => G15, 16 => G16, 17 => G17, 18 => G18, 19 => G19);

/// 20 archetypes holding `Health` (group 0 with 400 rows, the others with 5),
/// plus one entity of group 3 with `Extra`, so that archetype exists already.
fn spread(world: &mut World) -> Vec<Vec<Entity>> {
    let groups: Vec<Vec<Entity>> =
        (0..20).map(|g| (0..if g == 0 { 400 } else { 5 }).map(|i| spawn_in(world, g, Health(i))).collect()).collect();
    spawn_in(world, 3, (Health(0), Extra(0)));
    let health = component_id::<Health>();
    assert_eq!(world.archetypes().iter().filter(|a| a.column(health).is_some()).count(), 21);
    groups
}

/// How many archetypes' `Health` columns have a `summary` tick at `since` or later:
/// those a `Changed`/`Added` query cannot skip.
fn fresh_columns(world: &World, since: Tick, summary: fn(&Column) -> Tick) -> usize {
    let health = component_id::<Health>();
    world.archetypes().iter().filter_map(|a| a.column(health)).filter(|c| summary(c).get() >= since.get()).count()
}

/// `Entity, F` read in every mode, each from a state (or system) that saw
/// everything before `change` ran; every mode must give exactly the entities
/// `change` returns, and only `fresh` archetypes may be left unskipped.
fn every_mode<F: QueryFilter + 'static>(
    world: &mut World,
    (summary, fresh): (fn(&Column) -> Tick, usize),
    change: impl FnOnce(&mut World) -> Vec<Entity>,
) {
    #[derive(Default)]
    struct Out(Vec<Entity>);
    fn system<F: QueryFilter + 'static>(q: Query<Entity, F>, mut out: ResMut<Out>) {
        out.0 = q.iter().collect();
        assert_eq!(q.count(), out.0.len(), "Query::count");
        let par = Mutex::new(Vec::new());
        q.par_for_each(|e| par.lock().unwrap().push(e));
        assert_eq!(sorted(par.into_inner().unwrap()), sorted(out.0.clone()), "a system's Query::par_for_each");
    }
    let mut states: Vec<QueryState<Entity, F>> = (0..4).map(|_| world.query_state_filtered::<Entity, F>()).collect();
    states.iter_mut().for_each(|s| s.iter(world).for_each(drop));
    world.insert_resource(Out::default());
    let mut schedule = Schedule::new();
    schedule.add_systems(system::<F>);
    schedule.run(world); // the first run sees everything
    schedule.run(world);
    assert!(world.resource::<Out>().0.is_empty() && states.iter_mut().all(|s| s.count(world) == 0));

    let before = world.change_tick();
    let expected = sorted(change(world));
    assert_eq!(fresh_columns(world, before, summary), fresh, "archetypes whose summary says 'new'");
    assert_eq!(states[0].count(world), expected.len(), "QueryState::count");
    assert_eq!(sorted(states[0].iter(world).collect()), expected, "QueryState::iter");
    let mut by_fold = Vec::new();
    states[1].iter(world).for_each(|e| by_fold.push(e));
    assert_eq!(sorted(by_fold), expected, "for_each");
    assert_eq!(states[2].iter(world).count(), expected.len(), "QueryIter::count");
    let par = Mutex::new(Vec::new());
    states[3].par_for_each(world, |e| par.lock().unwrap().push(e));
    assert_eq!(sorted(par.into_inner().unwrap()), expected, "QueryState::par_for_each");
    schedule.run(world);
    assert_eq!(sorted(world.resource::<Out>().0.clone()), expected, "a system's Query::iter");
}

#[test]
fn changed_skips_untouched_archetypes_but_reports_every_changed_row() {
    let mut world = World::new();
    let groups = spread(&mut world);
    every_mode::<Changed<Health>>(&mut world, (Column::last_change, 2), |world| {
        let picks = [groups[0][0], groups[0][257], groups[0][399], groups[12][2]];
        picks.iter().for_each(|&e| world.get_mut::<Health>(e).unwrap().0 += 1);
        picks.to_vec()
    });
    every_mode::<Changed<Health>>(&mut world, (Column::last_change, 4), |world| {
        let (moved, fresh_arch, stay) = (groups[3][1], groups[12][4], groups[3][2]);
        for e in [moved, fresh_arch, stay] {
            world.get_mut::<Health>(e).unwrap().0 += 10;
        }
        world.insert(moved, Extra(0)).unwrap(); // into an archetype that existed, untouched
        world.insert(fresh_arch, Extra(0)).unwrap(); // into a new archetype
        vec![moved, fresh_arch, stay]
    });
    assert!(world.has::<Extra>(groups[3][1]) && world.has::<Extra>(groups[12][4]));
    every_mode::<Changed<Health>>(&mut world, (Column::last_change, 2), |world| {
        world.get_mut::<Health>(groups[0][5]).unwrap().0 += 1;
        world.remove::<G0>(groups[0][5]).unwrap(); // moves out: the old archetype is swap-filled
        world.despawn(groups[0][6]).unwrap();
        vec![groups[0][5]]
    });
    world.check_invariants().unwrap();
}

#[test]
fn added_skips_untouched_archetypes_but_reports_every_added_row() {
    let mut world = World::new();
    let groups = spread(&mut world);
    let bare: Vec<Entity> = (0..2).map(|_| spawn_in(&mut world, 9, ())).collect();
    every_mode::<Added<Health>>(&mut world, (Column::last_add, 2), |world| {
        let spawned = [spawn_in(world, 0, Health(9)), spawn_in(world, 17, Health(9))];
        world.get_mut::<Health>(groups[5][0]).unwrap().0 += 1; // changed, not added
        spawned.to_vec()
    });
    every_mode::<Added<Health>>(&mut world, (Column::last_add, 4), |world| {
        world.insert(bare[0], Health(1)).unwrap(); // into the old, untouched (Health, G9) archetype
        world.insert(bare[1], (Health(1), Extra(0))).unwrap(); // into a new one
        let moved = spawn_in(world, 3, Health(5));
        world.insert(moved, Extra(0)).unwrap(); // added, then moved into an old archetype
        world.insert(groups[4][0], Health(99)).unwrap(); // a replacement is no addition
        vec![bare[0], bare[1], moved]
    });
    assert_eq!(world.get::<Health>(groups[4][0]), Some(&Health(99)));
    world.check_invariants().unwrap();
}

#[derive(Component, Debug, PartialEq)]
#[component(changes = false)]
struct Cold(u32);

#[derive(Component, Debug, PartialEq)]
#[component(storage = "sparse", changes = false)]
struct ColdSparse(u32);

#[test]
fn an_opted_out_table_component_works_without_ticks() {
    fn warm(mut q: Query<&mut Cold>) {
        q.iter_mut().for_each(|c| c.0 += 1);
    }
    let mut world = World::new();
    let a = world.spawn(Cold(1));
    let b = world.spawn((Cold(2), Health(2)));
    let batch: Vec<Entity> = world.spawn_batch((10..13).map(Cold)).collect();
    let c = world.spawn(Health(3));
    world.insert(c, Cold(3)).unwrap();
    world.insert(a, Cold(5)).unwrap(); // replaces
    world.insert(b, Armor(0)).unwrap(); // moves `Cold` along
    world.run_system_once(warm).unwrap();
    for c in world.query_mut::<&mut Cold>() {
        c.0 *= 10;
    }
    let mut all: Vec<u32> = world.query::<&Cold>().iter().map(|c| c.0).collect();
    all.sort();
    assert_eq!(all, [30, 40, 60, 110, 120, 130]);
    let mut cold = world.get_mut::<Cold>(a).unwrap();
    assert!(!cold.is_changed() && !cold.is_added() && cold.last_changed().is_none());
    cold.0 = 7;
    assert!(!cold.is_changed(), "no ticks to stamp");
    assert_eq!(world.get::<Cold>(a), Some(&Cold(7)));
    assert_eq!(world.remove::<Cold>(b).unwrap(), Cold(30));
    assert_eq!(world.get::<Armor>(b), Some(&Armor(0)));
    world.despawn(batch[1]).unwrap();
    world.entity_mut(c).unwrap().remove::<Cold>();
    assert_eq!(world.query::<&Cold>().iter().count(), 3);
    assert_eq!(world.query_filtered::<Entity, (With<Cold>, With<Health>)>().count(), 0);
    world.check_invariants().unwrap();
}

#[test]
fn an_opted_out_sparse_component_still_inserts_removes_and_queries() {
    let mut world = World::new();
    let a = world.spawn((Health(1), ColdSparse(1)));
    let b = world.spawn(Health(2));
    world.insert(b, ColdSparse(2)).unwrap();
    world.insert(a, ColdSparse(3)).unwrap();
    for c in world.query_mut::<&mut ColdSparse>() {
        c.0 += 100;
    }
    world.get_mut::<ColdSparse>(b).unwrap().0 += 1;
    assert_eq!(world.get::<ColdSparse>(a), Some(&ColdSparse(103)));
    assert_eq!(world.get::<ColdSparse>(b), Some(&ColdSparse(103)));
    assert_eq!(world.remove::<ColdSparse>(a).unwrap(), ColdSparse(103));
    assert_eq!(world.query_filtered::<Entity, With<ColdSparse>>().iter().collect::<Vec<_>>(), [b]);
    assert_eq!(world.query_filtered::<Entity, Without<ColdSparse>>().iter().collect::<Vec<_>>(), [a]);
    world.insert(a, ColdSparse(4)).unwrap();
    world.despawn(b).unwrap();
    assert_eq!(world.query::<(Entity, &ColdSparse)>().iter().map(|(e, c)| (e, c.0)).collect::<Vec<_>>(), [(a, 4)]);
    world.check_invariants().unwrap();
}

#[test]
fn counting_a_mut_query_marks_no_row_with_or_without_row_filters() {
    fn count_all(mut q: Query<&mut Health>) -> usize {
        q.iter_mut().count()
    }
    fn count_odd(mut q: Query<&mut Health, With<Odd>>) -> usize {
        q.iter_mut().count()
    }
    fn count_even(mut q: Query<&mut Health, Without<Odd>>) -> usize {
        (&mut q).into_iter().count()
    }
    fn touch_odd(mut q: Query<&mut Health, With<Odd>>) {
        q.iter_mut().for_each(drop);
    }
    let mut world = World::new();
    for i in 0..10 {
        let e = world.spawn(Health(i));
        if i % 2 == 1 {
            world.insert(e, Odd).unwrap();
        }
    }
    let mut state = changed_state(&world);
    assert_eq!(world.run_system_once(count_all).unwrap(), 10);
    assert_eq!(world.run_system_once(count_odd).unwrap(), 5);
    assert_eq!(world.run_system_once(count_even).unwrap(), 5);
    assert_eq!(changed(&mut state, &world), [], "counting hands out nothing to write through");
    // Iterating hands the rows out: those are marked.
    world.run_system_once(touch_odd).unwrap();
    assert_eq!(changed(&mut state, &world).len(), 5);
}
