//! Queries built at run time over component ids: the same rows as the typed
//! query they stand for, reads and writes through schemas or typed slices,
//! and the typed queries' aliasing rules.

use ecs_core::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(describe)]
struct Pos {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Vel(f32, f32);

#[derive(Component)]
struct Tag;

#[derive(Component, Clone, Copy)]
#[component(storage = "sparse")]
struct Stunned(#[allow(dead_code)] u8);

#[derive(Component)]
struct Static;

fn world() -> World {
    let mut world = World::new();
    for i in 0..40u8 {
        let e = world.spawn((Pos { x: f32::from(i), y: 0.0 }, Vel(1.0, 2.0)));
        if i % 2 == 0 {
            world.insert(e, Tag).unwrap();
        }
        if i % 3 == 0 {
            world.insert(e, Stunned(i)).unwrap();
        }
        if i % 5 == 0 {
            world.remove::<Vel>(e).unwrap();
            world.insert(e, Static).unwrap();
        }
    }
    world
}

fn id<T: Component>(world: &World) -> ecs_core::ComponentId {
    let name = core::any::type_name::<T>();
    world.component_id_by_name(name).unwrap()
}

fn sorted(mut v: Vec<Entity>) -> Vec<Entity> {
    v.sort();
    v
}

#[test]
fn a_dynamic_query_matches_the_rows_of_its_typed_twin() {
    let world = world();
    let (pos, vel, tag, stunned, fixed) =
        (id::<Pos>(&world), id::<Vel>(&world), id::<Tag>(&world), id::<Stunned>(&world), id::<Static>(&world));
    let rows = |query: ecs_core::query::DynamicQuery| {
        let mut out = Vec::new();
        query.for_each(&world, |row| out.push(row.entity()));
        sorted(out)
    };
    let typed = |v: Vec<Entity>| sorted(v);
    assert_eq!(
        rows(world.dynamic_query().read(pos).read(vel).build(&world).unwrap()),
        typed(world.query_filtered::<Entity, (With<Pos>, With<Vel>)>().iter().collect())
    );
    assert_eq!(
        rows(world.dynamic_query().read(pos).with(tag).without(stunned).build(&world).unwrap()),
        typed(world.query_filtered::<Entity, (With<Pos>, With<Tag>, Without<Stunned>)>().iter().collect())
    );
    assert_eq!(
        rows(world.dynamic_query().read(pos).optional(vel).without(fixed).build(&world).unwrap()),
        typed(world.query_filtered::<Entity, (With<Pos>, Without<Static>)>().iter().collect())
    );
    assert_eq!(
        rows(world.dynamic_query().read(stunned).build(&world).unwrap()),
        typed(world.query_filtered::<Entity, With<Stunned>>().iter().collect())
    );
}

#[test]
fn rows_read_and_write_through_schemas_and_types() {
    let mut world = world();
    let (pos, vel, fixed) = (id::<Pos>(&world), id::<Vel>(&world), id::<Static>(&world));
    let query = world.dynamic_query().write(pos).optional(vel).build(&world).unwrap();
    query.for_each_mut(&mut world, |mut row| {
        let speed = row.get_typed::<Vel>(vel).map_or(0.0, |v| v.0);
        let mut p = row.get_mut(pos).unwrap();
        let y = p.get::<f32>("y").unwrap();
        p.set("y", y + speed).unwrap();
    });
    let moved = world.query_filtered::<&Pos, With<Vel>>().iter().all(|p| p.y == 1.0);
    let still = world.query_filtered::<&Pos, With<Static>>().iter().all(|p| p.y == 0.0);
    assert!(moved && still);
    // Typed reads of a component without a schema.
    let read = world.dynamic_query().read(vel).without(fixed).build(&world).unwrap();
    let mut n = 0;
    read.for_each(&world, |row| {
        assert_eq!(row.get_typed::<Vel>(vel), Some(&Vel(1.0, 2.0)));
        assert_eq!(row.get_typed::<Pos>(vel), None, "not its type");
        n += 1;
    });
    assert_eq!(n, world.query::<&Vel>().iter().count());
}

#[test]
fn archetypes_lend_typed_column_slices_and_writes_are_seen_as_changes() {
    let mut world = world();
    let (pos, vel, tag) = (id::<Pos>(&world), id::<Vel>(&world), id::<Tag>(&world));
    let mut changed = world.query_state_filtered::<Entity, Changed<Pos>>();
    changed.iter(&world).count();
    let query = world.dynamic_query().write(pos).read(vel).build(&world).unwrap();
    query.for_each_archetype_mut(&mut world, |archetype| {
        let velocities = archetype.column::<Vel>(vel).unwrap();
        let positions = archetype.column_mut::<Pos>(pos).unwrap();
        for (p, v) in positions.iter_mut().zip(velocities) {
            p.x += v.0;
            p.y += v.1;
        }
        assert!(archetype.column::<Vel>(pos).is_none(), "not the component's type");
    });
    assert!(world.query_filtered::<&Pos, With<Vel>>().iter().all(|p| p.y == 2.0));
    assert_eq!(changed.iter(&world).count(), world.query::<(&Pos, &Vel)>().iter().count());

    // Read-only views lend shared slices only.
    let read = world.dynamic_query().read(pos).with(vel).build(&world).unwrap();
    let mut total = 0;
    read.for_each_archetype(&world, |archetype| total += archetype.column::<Pos>(pos).unwrap().len());
    assert_eq!(total, world.query::<(&Pos, &Vel)>().iter().count());
    let _ = tag;
}

#[test]
fn misuse_is_refused() {
    let mut world = world();
    let (pos, vel, tag) = (id::<Pos>(&world), id::<Vel>(&world), id::<Tag>(&world));
    assert!(matches!(world.dynamic_query().write(pos).read(pos).build(&world), Err(EcsError::AliasedComponent { .. })));
    assert!(matches!(
        world.dynamic_query().write(pos).write(pos).build(&world),
        Err(EcsError::AliasedComponent { .. })
    ));
    assert!(world.dynamic_query().read(pos).read(pos).build(&world).is_ok(), "two reads share");
    let other = {
        let mut other = World::new();
        #[derive(Component)]
        struct Elsewhere;
        other.spawn(Elsewhere);
        other.component_id_by_name("Elsewhere").unwrap()
    };
    assert!(matches!(world.dynamic_query().read(other).build(&world), Err(EcsError::UnknownComponent { .. })));

    let panics = |f: &mut dyn FnMut()| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err();
    let query = world.dynamic_query().write(pos).read(vel).build(&world).unwrap();
    assert!(
        panics(&mut || query.for_each_archetype_mut(&mut world, |a| {
            let _first = a.column_mut::<Pos>(pos);
            let _again = a.column_mut::<Pos>(pos);
        })),
        "a column lent twice"
    );
    assert!(panics(&mut || query.for_each_archetype(&World::new(), |_| {})), "another world");
    let read_only = world.dynamic_query().write(pos).build(&world).unwrap();
    assert!(
        panics(&mut || read_only.for_each_archetype(&world, |a| {
            let _ = a.column_mut::<Pos>(pos);
        })),
        "writes need the mutable visit"
    );
    let per_row = world.dynamic_query().read(pos).with(tag).build(&world).unwrap();
    assert!(
        panics(&mut || per_row.for_each_archetype(&world, |a| {
            let _ = a.column::<Pos>(pos);
        })),
        "a tag filters rows one by one: no whole-column slices"
    );
    assert!(
        panics(&mut || query.for_each(&world, |row| {
            let _ = row.get(tag);
        })),
        "not fetched"
    );
}

#[test]
fn added_and_changed_terms_see_what_their_typed_twins_see() {
    let mut world = world();
    let (pos, vel) = (id::<Pos>(&world), id::<Vel>(&world));
    let changed = world.dynamic_query().read(pos).changed(pos).build(&world).unwrap();
    let added = world.dynamic_query().read(pos).added(vel).build(&world).unwrap();
    let count = |q: &ecs_core::query::DynamicQuery, world: &World| {
        let mut n = 0;
        q.for_each(world, |_| n += 1);
        n
    };
    assert_eq!(count(&changed, &world), 40, "first visit: everything is new");
    assert_eq!(count(&added, &world), world.query::<&Vel>().iter().count());
    assert_eq!(count(&changed, &world), 0);
    assert_eq!(count(&added, &world), 0);
    // Writes through a typed query and through a view, and a new entity.
    let mut expected = Vec::new();
    for (entity, p) in world.query_mut::<(Entity, &mut Pos)>().take(3) {
        p.x += 1.0;
        expected.push(entity);
    }
    let e = world.query::<Entity>().iter().find(|e| !expected.contains(e)).unwrap();
    world.get_mut_by_id(e, pos).unwrap().set("y", 5.0f32).unwrap();
    expected.push(e);
    expected.push(world.spawn((Pos { x: 0.0, y: 0.0 }, Vel(0.0, 0.0))));
    let mut seen = Vec::new();
    changed.for_each(&world, |row| seen.push(row.entity()));
    assert_eq!(sorted(seen), sorted(expected));
    assert_eq!(count(&added, &world), 1);
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(describe, layout = "soa")]
struct Body {
    x: f32,
    y: f32,
    alive: bool,
}

#[test]
fn a_per_field_component_lends_one_field_as_a_slice() {
    let mut world = World::new();
    for i in 0..100u8 {
        world.spawn((Body { x: f32::from(i), y: 0.0, alive: i % 2 == 0 }, Vel(1.0, 2.0)));
    }
    let (body, vel) = (id::<Body>(&world), id::<Vel>(&world));
    let mut changed = world.query_state_filtered::<Entity, Changed<Body>>();
    changed.iter(&world).count();
    let query = world.dynamic_query().write(body).read(vel).build(&world).unwrap();
    query.for_each_archetype_mut(&mut world, |archetype| {
        let velocities = archetype.column::<Vel>(vel).unwrap();
        let xs = archetype.field_mut::<f32>(body, "x").unwrap();
        let ys = archetype.field_mut::<f32>(body, "y").unwrap();
        for ((x, y), v) in xs.iter_mut().zip(ys.iter_mut()).zip(velocities) {
            *x += v.0;
            *y += v.1;
        }
        let alive = archetype.field::<bool>(body, "alive").unwrap();
        assert_eq!(alive.iter().filter(|&&a| a).count(), 50);
        assert!(archetype.field::<f32>(body, "alive").is_none(), "a bool is never read as an f32");
        assert!(archetype.field::<f32>(body, "z").is_none());
        assert!(archetype.column::<Body>(body).is_none(), "per-field: no whole values to lend");
    });
    let bodies: Vec<Body> = world.query::<&Body>().iter().map(|b| Body { x: *b.x, y: *b.y, alive: *b.alive }).collect();
    assert!(bodies.iter().enumerate().all(|(i, b)| b.x == i as f32 + 1.0 && b.y == 2.0), "{bodies:?}");
    assert_eq!(changed.iter(&world).count(), 100);

    // One field lent twice, or a field beside the whole column: refused.
    let panics = |f: &mut dyn FnMut()| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err();
    assert!(panics(&mut || query.for_each_archetype_mut(&mut world, |a| {
        let _x = a.field_mut::<f32>(body, "x");
        let _again = a.field::<f32>(body, "x");
    })));
}

#[test]
fn immutable_components_are_not_written_by_id() {
    let mut world = World::new();
    let parent = world.spawn(());
    world.spawn(ChildOf(parent));
    let link = world.component_id_by_name("ChildOf").unwrap();
    assert!(matches!(world.dynamic_query().write(link).build(&world), Err(EcsError::Immutable { .. })));
    assert!(world.dynamic_query().read(link).build(&world).is_ok());
}

#[test]
fn parallel_archetype_visits_write_what_sequential_ones_do() {
    #[derive(Component)]
    struct K0;
    #[derive(Component)]
    struct K1;
    #[derive(Component)]
    struct K2;
    let make = || {
        let mut world = World::new();
        for i in 0..3000u32 {
            let e = world.spawn((Pos { x: i as f32, y: 0.0 }, Vel(1.0, 0.5)));
            match i % 4 {
                0 => world.insert(e, K0).unwrap(),
                1 => world.insert(e, (K1, Static)).unwrap(),
                2 => world.insert(e, (K2, Static)).unwrap(),
                _ => {}
            }
        }
        world
    };
    let run = |parallel: bool| {
        let mut world = make();
        let (pos, vel) = (id::<Pos>(&world), id::<Vel>(&world));
        let query = world.dynamic_query().write(pos).read(vel).build(&world).unwrap();
        let body = |archetype: ecs_core::query::DynamicArchetype<'_, '_>| {
            let velocities = archetype.column::<Vel>(vel).unwrap();
            for (p, v) in archetype.column_mut::<Pos>(pos).unwrap().iter_mut().zip(velocities) {
                p.x += v.0;
                p.y += v.1 * p.x;
            }
        };
        if parallel {
            query.par_for_each_archetype_mut(&mut world, body);
        } else {
            query.for_each_archetype_mut(&mut world, body);
        }
        let mut out: Vec<(Entity, Pos)> = world.query::<(Entity, &Pos)>().iter().map(|(e, p)| (e, *p)).collect();
        out.sort_by_key(|(e, _)| *e);
        out
    };
    assert_eq!(run(true), run(false));
    let world = make();
    let pos = id::<Pos>(&world);
    let read = world.dynamic_query().read(pos).build(&world).unwrap();
    let total = std::sync::atomic::AtomicUsize::new(0);
    read.par_for_each_archetype(&world, |a| {
        total.fetch_add(a.column::<Pos>(pos).unwrap().len(), std::sync::atomic::Ordering::Relaxed);
    });
    assert_eq!(total.into_inner(), 3000);
}

/// A dynamic system takes typed parameters beside its query: resources,
/// typed queries of other components, commands; its row visits write through
/// schemas and are stamped changed.
#[test]
fn a_dynamic_system_takes_typed_parameters_beside_its_query() {
    use ecs_core::system::{DynamicSystem, DynamicSystemQuery, Schedule};
    struct Gravity(f32);
    #[derive(Default)]
    struct Spawned(usize);
    let mut world = world();
    world.insert_resource(Gravity(-1.5));
    world.insert_resource(Spawned::default());
    let (pos, stunned) = (id::<Pos>(&world), id::<Stunned>(&world));
    let query = world.dynamic_query().write(pos).without(stunned).build(&world).unwrap();
    let system = DynamicSystem::with_params(
        "fall",
        query,
        move |q: &mut DynamicSystemQuery,
              gravity: Res<Gravity>,
              vel: Query<&Vel>,
              mut spawned: ResMut<Spawned>,
              mut commands: Commands| {
            let moving = vel.iter().count();
            q.for_each_mut(|mut row| {
                let mut p = row.get_mut(pos).unwrap();
                let y = p.get::<f32>("y").unwrap();
                p.set("y", y + gravity.0).unwrap();
            });
            commands.spawn(Static);
            spawned.0 = moving;
        },
    );
    let mut changed = world.query_state_filtered::<Entity, Changed<Pos>>();
    changed.iter(&world).for_each(drop);
    let statics = world.query::<&Static>().iter().count();
    let mut schedule = Schedule::new();
    schedule.add_systems(system);
    schedule.run(&mut world);
    let fell = world.query_filtered::<&Pos, Without<Stunned>>().iter().all(|p| p.y == -1.5);
    let stayed = world.query_filtered::<&Pos, With<Stunned>>().iter().all(|p| p.y == 0.0);
    assert!(fell && stayed);
    assert_eq!(world.resource::<Spawned>().0, world.query::<&Vel>().iter().count());
    assert_eq!(world.query::<&Static>().iter().count(), statics + 1, "the system's commands were applied");
    let mut seen = changed.iter(&world).collect::<Vec<_>>();
    seen.sort();
    let twin = sorted(world.query_filtered::<Entity, (With<Pos>, Without<Stunned>)>().iter().collect());
    assert_eq!(seen, twin);
}

/// A typed parameter that aliases the query is refused when the system is
/// made, with the message typed queries get, naming both parameters.
#[test]
fn a_dynamic_system_whose_parameters_alias_its_query_is_refused() {
    use ecs_core::system::{DynamicSystem, DynamicSystemQuery};
    let world = world();
    let pos = id::<Pos>(&world);
    let refusal = |query: ecs_core::query::DynamicQuery| {
        let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            DynamicSystem::with_params("alias", query, |_: &mut DynamicSystemQuery, _: Query<&Pos>| {})
        }));
        let payload = made.err().expect("refused");
        payload.downcast_ref::<String>().cloned().unwrap_or_default()
    };
    let message = refusal(world.dynamic_query().write(pos).build(&world).unwrap());
    assert!(message.contains("system `alias` is refused"), "{message}");
    assert!(message.contains("DynamicQuery<&mut") && message.contains("Query<&"), "{message}");
    assert!(message.contains("Pos"), "{message}");
    // Reading beside reading is fine; so is a write kept apart by `Without`.
    let reads = world.dynamic_query().read(pos).build(&world).unwrap();
    DynamicSystem::with_params("reads", reads, |_: &mut DynamicSystemQuery, _: Query<&Pos>| {});
    // (By a table component: a tag or sparse filter is decided per row, which
    // proves nothing for a query that visits whole archetypes.)
    let vel = id::<Vel>(&world);
    let apart = world.dynamic_query().write(pos).with(vel).build(&world).unwrap();
    DynamicSystem::with_params("apart", apart, |_: &mut DynamicSystemQuery, _: Query<&Pos, Without<Vel>>| {});
}

/// One field of a component stored whole, row by row: read one field while
/// writing another of the same component, the writes stamped; the same field
/// lent twice mutably is refused.
#[test]
fn fields_of_components_stored_whole_are_lent_row_by_row() {
    let mut world = world();
    let (pos, vel) = (id::<Pos>(&world), id::<Vel>(&world));
    let query = world.dynamic_query().write(pos).with(vel).build(&world).unwrap();
    let mut changed = world.query_state_filtered::<Entity, Changed<Pos>>();
    changed.iter(&world).for_each(drop);
    let mut visited = 0;
    query.for_each_archetype_mut(&mut world, |a| {
        let xs = a.field_rows::<f32>(pos, "x").unwrap();
        let mut ys = a.field_rows_mut::<f32>(pos, "y").unwrap();
        assert_eq!((xs.len(), ys.len()), (a.len(), a.len()));
        for (x, y) in xs.iter().zip(ys.iter_mut()) {
            *y = x * 2.0;
        }
        assert_eq!(ys.get(a.len()), None);
        assert!(a.field_rows::<u32>(pos, "x").is_none(), "an f32 is never read as a u32");
        assert!(a.field_rows::<f32>(pos, "z").is_none());
        visited += a.len();
    });
    assert_eq!(visited, world.query_filtered::<(), (With<Pos>, With<Vel>)>().iter().count());
    assert!(world.query_filtered::<&Pos, With<Vel>>().iter().all(|p| p.y == p.x * 2.0));
    assert!(world.query_filtered::<&Pos, Without<Vel>>().iter().all(|p| p.y == 0.0));
    assert_eq!(changed.iter(&world).count(), visited);
    // The same field lent twice, once mutably: refused.
    let twice = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        query.for_each_archetype_mut(&mut world, |a| {
            let _ys = a.field_rows_mut::<f32>(pos, "y").unwrap();
            let _again = a.field_rows::<f32>(pos, "y");
        })
    }));
    assert!(twice.is_err());
}

/// A system that declares its components by id: reads and writes beyond the
/// declaration are errors naming the component; the declaration is its
/// access, checked like any system's.
#[test]
fn declared_systems_reach_only_what_they_declare() {
    use ecs_core::system::{DeclaredSystem, DeclaredWorld, IntoSystem, Schedule, System};
    let mut world = world();
    let (pos, vel) = (id::<Pos>(&world), id::<Vel>(&world));
    let e = world.query_filtered::<Entity, With<Vel>>().iter().next().unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    let system = DeclaredSystem::new(
        "declared",
        &world,
        &[vel],
        &[pos],
        move |w: &mut DeclaredWorld, mut commands: Commands| {
            let mut log = log.lock().unwrap();
            log.push(format!("{:?}", w.get_by_id(e, pos).map(|v| v.get::<f32>("x").unwrap())));
            let mut view = w.get_mut_by_id(e, pos).unwrap();
            view.set("y", 7.0f32).unwrap();
            let undeclared = world_error(w.get_mut_by_id(e, vel).err());
            log.push(undeclared);
            let query = w.build_query(ecs_core::query::DynamicQueryBuilder::default().write(vel)).unwrap();
            log.push(world_error(w.for_each(&query, |_| ()).err()));
            commands.spawn(Static);
        },
    );
    fn world_error(e: Option<EcsError>) -> String {
        e.map(|e| e.to_string()).unwrap_or_default()
    }
    let reader = IntoSystem::into_system(|q: Query<&Pos>| assert!(q.iter().count() < usize::MAX));
    let other = IntoSystem::into_system(|mut q: Query<&mut Tag>| q.iter_mut().for_each(|_| ()));
    assert!(system.access().conflict(reader.access()).is_some_and(|m| m.contains("Pos")));
    assert!(system.access().conflict(other.access()).is_none());
    let statics = world.query::<&Static>().iter().count();
    let mut schedule = Schedule::new();
    schedule.add_systems(system);
    schedule.run(&mut world);
    let seen = seen.lock().unwrap();
    assert!(seen[0].starts_with("Ok("), "{seen:?}");
    assert!(seen[1].contains("not declared written") && seen[1].contains("Vel"), "{seen:?}");
    assert!(seen[2].contains("not declared written") && seen[2].contains("Vel"), "{seen:?}");
    assert_eq!(world.get::<Pos>(e).map(|p| p.y), Some(7.0));
    assert_eq!(world.query::<&Static>().iter().count(), statics + 1, "its commands were applied");
}
