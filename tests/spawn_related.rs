//! `children![…]` and `related!(R => […])`: sources spawned with their target,
//! from `World::spawn`, `Commands::spawn` and `insert`, nested, in order.

use ecs_core::prelude::*;

#[derive(Component, Debug, PartialEq, Clone, Copy)]
struct Name(&'static str);

fn names(world: &World, entities: &[Entity]) -> Vec<&'static str> {
    entities.iter().map(|&e| world.get::<Name>(e).unwrap().0).collect()
}

fn children_of(world: &World, parent: Entity) -> Vec<Entity> {
    world.get::<Children>(parent).map(|c| c.to_vec()).unwrap_or_default()
}

#[test]
fn nested_lists_spawn_in_order_from_the_world_and_from_commands() {
    let mut world = World::new();
    let root =
        world.spawn((Name("root"), children![Name("a"), (Name("b"), children![Name("b1"), Name("b2")]), Name("c")]));
    let kids = children_of(&world, root);
    assert_eq!(names(&world, &kids), ["a", "b", "c"]);
    assert_eq!(names(&world, &children_of(&world, kids[1])), ["b1", "b2"]);
    assert_eq!(world.len(), 6);
    world.check_invariants().unwrap();

    fn spawner(mut commands: Commands) {
        commands.spawn((Name("cmd"), children![Name("x"), Name("y")]));
    }
    world.run_system_once(spawner).unwrap();
    let (cmd, _) = world.query::<(Entity, &Name)>().iter().find(|(_, n)| n.0 == "cmd").unwrap();
    assert_eq!(names(&world, &children_of(&world, cmd)), ["x", "y"]);

    // Inserted on an existing entity, after the children it has.
    world.insert(root, children![Name("d")]).unwrap();
    assert_eq!(names(&world, &children_of(&world, root)), ["a", "b", "c", "d"]);
    assert!(!world.has::<SpawnRelated<ChildOf>>(root));

    // The hierarchy is a hierarchy: despawning the root takes them all.
    world.despawn(root).unwrap();
    assert_eq!(world.len(), 3);
    world.check_invariants().unwrap();
}

#[test]
fn observers_see_the_children_arrive() {
    #[derive(Default)]
    struct Adopted(Vec<&'static str>);
    let mut world = World::new();
    world.insert_resource(Adopted::default());
    world.add_observer(|on: On<Add<ChildOf>>, names: Query<&Name>, mut adopted: ResMut<Adopted>| {
        adopted.0.push(names.get(on.target()).unwrap().0);
    });
    world.spawn((Name("p"), children![Name("1"), Name("2")]));
    assert_eq!(world.resource::<Adopted>().0, ["1", "2"]);
}

#[derive(Component)]
#[relationship(target = Followers)]
struct Following(Entity);

#[derive(Component, Default)]
#[relationship_target(relationship = Following)]
struct Followers(RelationshipSources);

#[test]
fn related_spawns_sources_of_any_relationship() {
    let mut world = World::new();
    let star = world.spawn((Name("star"), related!(Following => [Name("f1"), Name("f2")])));
    let fans = world.get::<Followers>(star).unwrap().0.to_vec();
    assert_eq!(names(&world, &fans), ["f1", "f2"]);
    assert!(fans.iter().all(|&f| world.get::<Following>(f).unwrap().0 == star));
}

#[test]
fn a_second_list_inserted_before_the_first_is_gone_is_spawned_too() {
    #[derive(Event)]
    struct Grow;
    let mut world = World::new();
    let tree = world.spawn(Name("tree"));
    world.add_observer(move |_: On<Grow>, mut commands: Commands| {
        commands.entity(tree).insert(children![Name("a")]);
        commands.entity(tree).insert(children![Name("b")]);
    });
    world.trigger(Grow);
    assert_eq!(names(&world, &children_of(&world, tree)), ["a", "b"]);
    assert!(!world.has::<SpawnRelated<ChildOf>>(tree));
}
