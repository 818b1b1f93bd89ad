//! Relationships and the hierarchy: both sides agree after every operation,
//! bad links are refused without changes, despawns cascade, traversal orders.

use std::collections::HashMap;

use ecs_core::RelationshipProblem;
use ecs_core::prelude::*;
use proptest::prelude::*;

mod common;
use common::panic_message;

#[derive(Component, Debug, PartialEq)]
struct Name(u32);

/// `ChildOf` and `Children` agree everywhere; no link points at a dead entity.
fn assert_consistent(world: &World) {
    let mut from_child_of: HashMap<Entity, Vec<Entity>> = HashMap::new();
    let mut children_of = world.query_state::<(Entity, &ChildOf)>();
    for (child, link) in children_of.iter(world) {
        assert!(world.contains(link.0), "{child} points at dead {}", link.0);
        from_child_of.entry(link.0).or_default().push(child);
    }
    let mut lists = world.query_state::<(Entity, &Children)>();
    let mut seen = 0;
    for (parent, children) in lists.iter(world) {
        assert!(!children.is_empty(), "{parent} keeps an empty Children");
        let mut listed = children.to_vec();
        listed.sort();
        let mut linked = from_child_of.get(&parent).cloned().unwrap_or_default();
        linked.sort();
        assert_eq!(listed, linked, "Children of {parent} disagree with ChildOf");
        seen += 1;
    }
    assert_eq!(seen, from_child_of.len(), "a parent with children lacks Children");
}

#[test]
fn links_are_kept_in_step_whichever_way_they_change() {
    let mut world = World::new();
    let (a, b) = (world.spawn(Name(0)), world.spawn(Name(1)));
    let c1 = world.spawn((Name(2), ChildOf(a)));
    let c2 = world.spawn(ChildOf(a));
    let c3 = world.spawn(Name(3));
    world.insert(c3, ChildOf(a)).unwrap();
    assert_eq!(world.children(a), [c1, c2, c3]);
    world.insert(c2, ChildOf(b)).unwrap(); // reparent: both sides
    assert_eq!(world.children(a), [c1, c3]);
    assert_eq!(world.children(b), [c2]);
    world.remove::<ChildOf>(c1).unwrap();
    assert_eq!(world.children(a), [c3]);
    world.despawn(c3).unwrap();
    assert!(!world.has::<Children>(a), "the emptied list is removed");
    let c4 = world.spawn(Name(9));
    world.entity_mut(a).unwrap().insert_child(0, c2).add_child(c1).insert_child(1, c4);
    assert_eq!(world.children(a), [c2, c4, c1]);
    assert_consistent(&world);
    assert_eq!(world.parent(c2), Some(a));
    assert!(!world.has::<Children>(b));
}

#[test]
fn children_of_different_parents_share_one_archetype() {
    let mut world = World::new();
    let (a, b) = (world.spawn(()), world.spawn(()));
    let x = world.spawn((Name(0), ChildOf(a)));
    let y = world.spawn((Name(1), ChildOf(b)));
    assert_eq!(world.location(x).unwrap().archetype, world.location(y).unwrap().archetype);
}

#[test]
fn bad_links_are_refused_and_change_nothing() {
    let mut world = World::new();
    let root = world.spawn(());
    let mid = world.spawn(ChildOf(root));
    let leaf = world.spawn(ChildOf(mid));
    let problem = |r: Result<(), EcsError>| match r {
        Err(EcsError::InvalidRelationship { problem, .. }) => problem,
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert_eq!(problem(world.insert(root, ChildOf(leaf))), RelationshipProblem::Cycle);
    assert_eq!(problem(world.insert(mid, ChildOf(mid))), RelationshipProblem::SelfTarget);
    let dead = world.spawn(());
    world.despawn(dead).unwrap();
    assert_eq!(problem(world.insert(leaf, ChildOf(dead))), RelationshipProblem::DeadTarget);
    let error = world.insert(root, (Name(1), ChildOf(leaf))).unwrap_err();
    assert!(error.to_string().contains("cycle"), "{error}");
    assert!(!world.has::<Name>(root), "a refused bundle inserts none of its components");
    assert_eq!(world.parent(leaf), Some(mid));
    assert_eq!(world.iter_ancestors(leaf).collect::<Vec<_>>(), [mid, root]);
    assert_consistent(&world);
    // `spawn` leaves such a link out (see below); `try_spawn` refuses it.
    let message = world.try_spawn(ChildOf(dead)).unwrap_err().to_string();
    assert!(message.contains("does not exist"), "{message}");
    assert_consistent(&world);
}

/// The messages of the command errors `world` reports from now on.
fn collect_command_errors(world: &mut World) -> std::sync::Arc<std::sync::Mutex<Vec<String>>> {
    let errors = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = errors.clone();
    world.set_command_error_handler(move |e| sink.lock().unwrap().push(e.to_string()));
    errors
}

#[test]
fn commands_report_refused_links() {
    let mut world = World::new();
    let errors = collect_command_errors(&mut world);
    let root = world.spawn(());
    let child = world.spawn(ChildOf(root));
    let mut queue = ecs_core::command::CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.entity(child).add_child(root);
    let spawned = commands.spawn(Name(5)).id();
    commands.entity(root).add_child(spawned).with_child(Name(6));
    queue.apply(&mut world);
    assert_eq!(errors.lock().unwrap().len(), 1, "{:?}", errors.lock().unwrap());
    assert_eq!(world.children(root).len(), 3);
    assert_consistent(&world);
}

#[test]
fn commands_spawn_and_attach_children_in_order() {
    let mut world = World::new();
    let errors = collect_command_errors(&mut world);
    let (ship, doomed) = (world.spawn(()), world.spawn(()));
    let loose = [world.spawn(Name(10)), world.spawn(Name(11))];
    let mut queue = ecs_core::command::CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    let mut spawned = Vec::new();
    commands.entity(ship).with_children(|c| {
        assert_eq!(c.parent(), ship);
        spawned.push(c.spawn(Name(1)).id());
        spawned.push(c.spawn(Name(2)).insert(Name(3)).id());
    });
    commands.entity(ship).add_children(&loose);
    commands.entity(doomed).despawn();
    let orphan = std::cell::Cell::new(None);
    commands.entity(doomed).with_children(|c| orphan.set(Some(c.spawn(Name(4)).id())));
    queue.apply(&mut world);
    assert_eq!(world.children(ship), [spawned[0], spawned[1], loose[0], loose[1]]);
    assert_eq!(*world.get::<Children>(ship).unwrap(), vec![spawned[0], spawned[1], loose[0], loose[1]]);
    assert_eq!(world.get::<Name>(spawned[1]), Some(&Name(3)));
    // The parent died first: the child's link is refused, reported, and the
    // child is not left alive pointing at nothing.
    assert_eq!(errors.lock().unwrap().len(), 1, "{:?}", errors.lock().unwrap());
    assert!(!world.contains(orphan.get().unwrap()));
    assert_consistent(&world);
}

#[test]
fn despawning_a_parent_despawns_the_subtree_and_unlink_keeps_sources() {
    let mut world = World::new();
    let root = world.spawn(());
    let mut leaves = Vec::new();
    world.entity_mut(root).unwrap().with_children(|c| {
        for _ in 0..3 {
            c.spawn(Name(1)).with_children(|c| {
                leaves.push(c.spawn(Name(2)).id());
            });
        }
    });
    assert_eq!(world.iter_descendants(root).count(), 6);
    world.despawn(root).unwrap();
    assert_eq!(world.len(), 0);
    assert!(leaves.iter().all(|&l| !world.contains(l)));

    #[derive(Component)]
    #[relationship(target = Followers)]
    struct Following(Entity);
    #[derive(Component, Default)]
    #[relationship_target(relationship = Following, unlink)]
    struct Followers(RelationshipSources);
    let star = world.spawn(());
    let fans: Vec<Entity> = (0..3).map(|_| world.spawn(Following(star))).collect();
    assert_eq!(&*world.get::<Followers>(star).unwrap().0, &fans[..]);
    world.despawn(star).unwrap();
    assert!(fans.iter().all(|&f| world.contains(f) && !world.has::<Following>(f)));
}

/// A relationship of the user's own, with the default (linked) despawn.
#[derive(Component, Debug, PartialEq)]
#[relationship(target = Crew)]
struct CrewOf(Entity);
#[derive(Component, Default)]
#[relationship_target(relationship = CrewOf)]
struct Crew(RelationshipSources);

#[test]
fn a_user_relationship_has_the_hierarchys_upkeep_cleanup_and_cycle_rules() {
    let mut world = World::new();
    let (ship, tug) = (world.spawn(()), world.spawn(()));
    let crew: Vec<Entity> = (0..3).map(|_| world.spawn(CrewOf(ship))).collect();
    let mate = world.spawn(CrewOf(crew[0]));
    assert_eq!(&*world.get::<Crew>(ship).unwrap().0, &crew[..]);
    // Replace (reparent): both sides, in link order.
    world.insert(crew[1], CrewOf(tug)).unwrap();
    assert_eq!(&*world.get::<Crew>(ship).unwrap().0, [crew[0], crew[2]]);
    assert_eq!(world.get::<Crew>(tug).unwrap().0, [crew[1]]);
    // Cycles and self-links are refused and change nothing.
    for (source, target) in [(ship, mate), (crew[0], crew[0]), (ship, crew[0])] {
        let refused = world.insert(source, CrewOf(target));
        assert!(matches!(refused, Err(EcsError::InvalidRelationship { .. })), "{source:?} -> {target:?}: {refused:?}");
    }
    assert!(!world.has::<CrewOf>(ship));
    assert_eq!(world.get::<CrewOf>(crew[0]), Some(&CrewOf(ship)));
    // Traversal through a system's queries works for any relationship.
    let walked = world
        .run_system_once(move |lists: Query<&Crew>, links: Query<&CrewOf>| {
            (lists.iter_descendants(ship).collect::<Vec<_>>(), links.root_ancestor(mate))
        })
        .unwrap();
    assert_eq!(walked, (vec![crew[0], mate, crew[2]], ship));
    // Removing the last link removes the emptied list.
    world.remove::<CrewOf>(crew[1]).unwrap();
    assert!(!world.has::<Crew>(tug));
    // Linked despawn by default: the ship takes its crew, and theirs, along.
    world.despawn(ship).unwrap();
    for e in [ship, crew[0], crew[2], mate] {
        assert!(!world.contains(e), "{e:?} outlived the ship");
    }
    assert!(world.contains(crew[1]) && world.contains(tug));
}

/// bevy_ecs's form of a target: a plain `Vec<Entity>`.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[relationship(target = Riders)]
struct Riding(Entity);
#[derive(Component, Default, Debug)]
#[relationship_target(relationship = Riding)]
struct Riders(Vec<Entity>);

#[test]
fn a_target_may_keep_its_sources_in_a_vec() {
    let mut world = World::new();
    let (bus, tram) = (world.spawn(()), world.spawn(()));
    let riders: Vec<Entity> = (0..4).map(|_| world.spawn(Riding(bus))).collect();
    assert_eq!(world.get::<Riders>(bus).unwrap().0, riders);
    // From the middle, the front and the back; order kept.
    world.insert(riders[2], Riding(tram)).unwrap();
    world.remove::<Riding>(riders[0]).unwrap();
    world.despawn(riders[3]).unwrap();
    assert_eq!(world.get::<Riders>(bus).unwrap().0, [riders[1]]);
    assert_eq!(ecs_core::relationship::RelationshipTarget::sources(world.get::<Riders>(tram).unwrap()), [riders[2]]);
    // A list filled by hand claims no source that does not point at it.
    let stranger = world.spawn(());
    let van = world.spawn(Riders(vec![stranger, riders[1]]));
    assert!(!world.has::<Riders>(van), "an emptied list is removed");
    assert_eq!(world.get::<Riding>(riders[1]), Some(&Riding(bus)));
    // Traversal, snapshots and the linked despawn work as with `RelationshipSources`.
    let walked = world
        .run_system_once(move |lists: Query<&Riders>| lists.relationship_sources(bus).collect::<Vec<_>>())
        .unwrap();
    assert_eq!(walked, [riders[1]]);
    let snapshot = world.snapshot().unwrap();
    world.despawn(bus).unwrap();
    assert!(!world.contains(riders[1]));
    world.restore(&snapshot).unwrap();
    assert_eq!(world.get::<Riders>(bus).unwrap().0, [riders[1]]);
    assert_eq!(world.get::<Riding>(riders[1]), Some(&Riding(bus)));
    world.remove::<Riding>(riders[1]).unwrap();
    assert!(!world.has::<Riders>(bus), "an emptied list is removed");
    assert_consistent_riders(&world);
}

/// `Riding` and `Riders` agree everywhere.
fn assert_consistent_riders(world: &World) {
    let mut lists = world.query_state::<(Entity, &Riders)>();
    for (target, list) in lists.iter(world) {
        assert!(list.0.iter().all(|&s| world.get::<Riding>(s) == Some(&Riding(target))), "{target:?}: {list:?}");
    }
    let mut links = world.query_state::<(Entity, &Riding)>();
    for (source, link) in links.iter(world) {
        assert!(world.get::<Riders>(link.0).is_some_and(|l| l.0.contains(&source)), "{source:?} is not listed");
    }
}

#[test]
fn clear_and_spawn_batch_keep_the_hierarchy_consistent() {
    let mut world = World::new();
    let parent = world.spawn(());
    let kids: Vec<Entity> = world.spawn_batch((0..100).map(|i| (Name(i), ChildOf(parent)))).collect();
    assert_eq!(world.children(parent), &kids[..]);
    world.despawn(kids[50]).unwrap();
    assert_consistent(&world);
    world.clear();
    assert_eq!(world.len(), 0);
}

#[test]
fn traversal_orders() {
    let mut world = World::new();
    let r = world.spawn(());
    let a = world.spawn(ChildOf(r));
    let b = world.spawn(ChildOf(r));
    let a1 = world.spawn(ChildOf(a));
    let b1 = world.spawn(ChildOf(b));
    let a2 = world.spawn(ChildOf(a1));
    assert_eq!(world.iter_descendants(r).collect::<Vec<_>>(), [a, a1, a2, b, b1]);
    assert_eq!(world.iter_descendants_breadth_first(r).collect::<Vec<_>>(), [a, b, a1, b1, a2]);
    assert_eq!(world.root_ancestor(a2), r);
    assert_eq!(world.root_ancestor(r), r);
    let mut found = Vec::new();
    let mut schedule = Schedule::new();
    let (tx, rx) = std::sync::mpsc::channel();
    schedule.add_systems(move |children: Query<&Children>, parents: Query<&ChildOf>| {
        tx.send((children.iter_descendants(r).collect::<Vec<_>>(), parents.iter_ancestors(a2).collect::<Vec<_>>()))
            .unwrap();
        // The other helpers of a system's queries agree with the world's.
        assert_eq!(children.iter_descendants_breadth_first(r).collect::<Vec<_>>(), [a, b, a1, b1, a2]);
        assert_eq!(children.children(r), [a, b]);
        assert_eq!(children.relationship_sources(a).collect::<Vec<_>>(), [a1]);
        assert_eq!(children.sources_of(a), [a1]);
        assert!(children.children(a2).is_empty(), "a leaf has no children");
        assert_eq!(parents.parent(a1), Some(a));
        assert_eq!(parents.related(a2), Some(a1));
        assert_eq!(parents.parent(r), None);
        assert_eq!(parents.root_ancestor(a2), r);
        assert_eq!(parents.root_ancestor(r), r);
    });
    schedule.run(&mut world);
    found.push(rx.recv().unwrap());
    assert_eq!(found[0].0, [a, a1, a2, b, b1]);
    assert_eq!(found[0].1, [a1, a, r]);
}

#[derive(Component)]
#[component(on_despawn = explode)]
struct Fragile;

fn explode(_: DeferredWorld, _: HookContext) {
    panic!("fragile");
}

#[test]
fn a_panicking_hook_during_linked_despawn_leaves_the_world_consistent() {
    let mut world = World::new();
    let root = world.spawn(());
    let mid = world.spawn((ChildOf(root), Fragile));
    let leaf = world.spawn(ChildOf(mid));
    let other = world.spawn(ChildOf(root));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.despawn(root)));
    assert!(result.is_err());
    assert_eq!(panic_message(result.unwrap_err()), "fragile");
    // No link points at a dead entity, and the linked despawn went on past the
    // panic: the root and the panicking entity's sibling are gone. The entity
    // whose hook panicked stays (a panicking hook stops its own despawn), with
    // its subtree, unlinked from its dead parent.
    assert_consistent(&world);
    assert!(!world.contains(root) && !world.contains(other), "the despawn stopped at the panic");
    assert!(world.contains(mid) && world.parent(mid).is_none());
    assert_eq!(world.children(mid), [leaf]);
    assert_eq!(world.len(), 2);
    // Nothing is left queued for a later operation to run.
    world.entity_mut(mid).unwrap().remove::<Fragile>();
    world.despawn(mid).unwrap();
    assert_eq!(world.len(), 0);
    let survivor = world.spawn(());
    let child = world.spawn(ChildOf(survivor));
    assert_eq!(world.children(survivor), [child]);
    assert_consistent(&world);
}

/// Panics in `on_despawn`, like [`Fragile`]; only the test below uses it, after
/// the hierarchy's components exist, so its id (and its hook's turn) comes after
/// `Children`'s: the entity's own linked despawn is queued before its hook panics.
#[derive(Component)]
#[component(on_despawn = explode)]
struct FragileLate;

#[test]
fn a_panicking_hook_in_a_deep_linked_despawn_stops_only_its_own_subtree() {
    let mut world = World::new();
    let warm_up = world.spawn(());
    world.spawn(ChildOf(warm_up)); // registers ChildOf and Children first
    world.despawn(warm_up).unwrap();
    let root = world.spawn(());
    let a = world.spawn(ChildOf(root));
    let a1 = world.spawn((ChildOf(a), FragileLate));
    let a2 = world.spawn(ChildOf(a1));
    let b = world.spawn(ChildOf(root));
    let b1 = world.spawn(ChildOf(b));
    let b2 = world.spawn(ChildOf(b1));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.despawn(root)));
    assert_eq!(panic_message(result.unwrap_err()), "fragile");
    // Right after the panic: consistent, every level of the sibling subtree
    // gone (later rounds of commands still ran), and the panicking entity kept
    // with its own child.
    assert_consistent(&world);
    for e in [root, a, b, b1, b2] {
        assert!(!world.contains(e), "{e:?} outlived its despawned root");
    }
    assert!(world.contains(a1) && world.parent(a1).is_none());
    assert_eq!(world.children(a1), [a2]);
    // Nothing queued by the aborted despawn runs later either.
    let other = world.spawn(());
    world.despawn(other).unwrap();
    assert!(world.contains(a2), "a command queued by the aborted despawn took a2 later");
    assert_eq!(world.len(), 2);
    assert_consistent(&world);
}

#[derive(Clone, Debug)]
enum Op {
    Spawn,
    SpawnChild(usize),
    Link(usize, usize),
    Unlink(usize),
    InsertChild(usize, usize, usize),
    RemoveChild(usize, usize),
    Despawn(usize),
    Clear,
    /// One queue of several commands, applied together.
    Commands(Vec<CommandOp>),
}

#[derive(Clone, Debug)]
enum CommandOp {
    Link(usize, usize),
    Unlink(usize),
    Despawn(usize),
    SpawnChildren(usize, usize),
}

fn command_op() -> impl Strategy<Value = CommandOp> {
    prop_oneof![
        (0..64usize, 0..64usize).prop_map(|(a, b)| CommandOp::Link(a, b)),
        (0..64usize).prop_map(CommandOp::Unlink),
        (0..64usize).prop_map(CommandOp::Despawn),
        (0..64usize, 1..3usize).prop_map(|(p, n)| CommandOp::SpawnChildren(p, n)),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => Just(Op::Spawn),
        4 => (0..64usize).prop_map(Op::SpawnChild),
        4 => (0..64usize, 0..64usize).prop_map(|(a, b)| Op::Link(a, b)),
        2 => (0..64usize).prop_map(Op::Unlink),
        2 => (0..64usize, 0..4usize, 0..64usize).prop_map(|(p, i, c)| Op::InsertChild(p, i, c)),
        1 => (0..64usize, 0..64usize).prop_map(|(p, c)| Op::RemoveChild(p, c)),
        2 => (0..64usize).prop_map(Op::Despawn),
        1 => Just(Op::Clear),
        3 => proptest::collection::vec(command_op(), 1..5).prop_map(Op::Commands),
    ]
}

/// The model: each live entity's parent, and each parent's children in link
/// order (a link appends; `insert_child` moves to a position).
#[derive(Default)]
struct Model {
    parent: HashMap<Entity, Option<Entity>>,
    children: HashMap<Entity, Vec<Entity>>,
}

impl Model {
    fn spawn(&mut self, e: Entity, parent: Option<Entity>) {
        self.parent.insert(e, None);
        if let Some(p) = parent {
            assert!(self.link(e, p));
        }
    }
    fn is_ancestor(&self, ancestor: Entity, mut of: Entity) -> bool {
        while let Some(Some(p)) = self.parent.get(&of) {
            if *p == ancestor {
                return true;
            }
            of = *p;
        }
        false
    }
    fn can_link(&self, child: Entity, parent: Entity) -> bool {
        self.parent.contains_key(&child)
            && self.parent.contains_key(&parent)
            && child != parent
            && !self.is_ancestor(child, parent)
    }
    fn link(&mut self, child: Entity, parent: Entity) -> bool {
        let ok = self.can_link(child, parent);
        if ok {
            self.unlink(child);
            self.parent.insert(child, Some(parent));
            self.children.entry(parent).or_default().push(child);
        }
        ok
    }
    fn unlink(&mut self, child: Entity) {
        if let Some(Some(p)) = self.parent.get(&child).copied() {
            let list = self.children.get_mut(&p).unwrap();
            list.retain(|&c| c != child);
            if list.is_empty() {
                self.children.remove(&p);
            }
            self.parent.insert(child, None);
        }
    }
    fn move_to(&mut self, parent: Entity, child: Entity, index: usize) {
        let list = self.children.get_mut(&parent).unwrap();
        list.retain(|&c| c != child);
        list.insert(index.min(list.len()), child);
    }
    fn despawn(&mut self, e: Entity) {
        if !self.parent.contains_key(&e) {
            return;
        }
        for kid in self.children.get(&e).cloned().unwrap_or_default() {
            self.despawn(kid);
        }
        self.unlink(e);
        self.parent.remove(&e);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::cases(64), ..ProptestConfig::default() })]
    #[test]
    fn hierarchy_matches_a_model_of_parent_links(ops in proptest::collection::vec(op(), 1..80)) {
        let mut world = World::new();
        world.set_command_error_handler(|_| {});
        let mut model = Model::default();
        let mut handles: Vec<Entity> = Vec::new();
        let pick = |handles: &Vec<Entity>, i: usize| (!handles.is_empty()).then(|| handles[i % handles.len()]);
        for op in ops {
            match op {
                Op::Spawn => {
                    let e = world.spawn(());
                    model.spawn(e, None);
                    handles.push(e);
                }
                Op::SpawnChild(p) => {
                    let Some(p) = pick(&handles, p) else { continue };
                    if model.parent.contains_key(&p) {
                        let e = world.spawn(ChildOf(p));
                        model.spawn(e, Some(p));
                        handles.push(e);
                    }
                }
                Op::Link(c, p) => {
                    let (Some(c), Some(p)) = (pick(&handles, c), pick(&handles, p)) else { continue };
                    let ok = model.link(c, p);
                    prop_assert_eq!(world.set_parent(c, p).is_ok(), ok);
                }
                Op::Unlink(c) => {
                    let Some(c) = pick(&handles, c) else { continue };
                    model.unlink(c);
                    let _ = world.remove_parent(c);
                }
                Op::InsertChild(p, index, c) => {
                    let (Some(p), Some(c)) = (pick(&handles, p), pick(&handles, c)) else { continue };
                    // A refused link panics here (set_parent returns it instead).
                    let linked = model.parent.get(&c) == Some(&Some(p));
                    if linked || model.link(c, p) {
                        model.move_to(p, c, index);
                        world.entity_mut(p).unwrap().insert_child(index, c);
                    }
                }
                Op::RemoveChild(p, c) => {
                    let (Some(p), Some(c)) = (pick(&handles, p), pick(&handles, c)) else { continue };
                    if model.parent.get(&c) == Some(&Some(p)) {
                        model.unlink(c);
                    }
                    if let Ok(mut parent) = world.entity_mut(p) {
                        parent.remove_child(c);
                    }
                }
                Op::Despawn(e) => {
                    let Some(e) = pick(&handles, e) else { continue };
                    model.despawn(e);
                    let _ = world.despawn(e);
                }
                Op::Clear => {
                    model = Model::default();
                    world.clear();
                }
                Op::Commands(ops) => {
                    let mut queue = ecs_core::command::CommandQueue::default();
                    let mut commands = Commands::new(&mut queue, &world);
                    // The model follows in queue order, as the commands apply.
                    let mut spawned = Vec::new();
                    for op in ops {
                        match op {
                            CommandOp::Link(c, p) => {
                                let (Some(c), Some(p)) = (pick(&handles, c), pick(&handles, p)) else { continue };
                                model.link(c, p);
                                commands.entity(p).add_child(c);
                            }
                            CommandOp::Unlink(c) => {
                                let Some(c) = pick(&handles, c) else { continue };
                                model.unlink(c);
                                commands.entity(c).remove_parent();
                            }
                            CommandOp::Despawn(e) => {
                                let Some(e) = pick(&handles, e) else { continue };
                                model.despawn(e);
                                commands.despawn(e);
                            }
                            CommandOp::SpawnChildren(p, n) => {
                                let Some(p) = pick(&handles, p) else { continue };
                                let alive = model.parent.contains_key(&p);
                                commands.entity(p).with_children(|c| {
                                    for _ in 0..n {
                                        spawned.push((c.spawn(()).id(), p, alive));
                                    }
                                });
                                for &(e, p, alive) in &spawned[spawned.len() - n..] {
                                    if alive {
                                        model.spawn(e, Some(p));
                                    }
                                }
                            }
                        }
                    }
                    queue.apply(&mut world);
                    for (e, _, alive) in spawned {
                        prop_assert_eq!(world.contains(e), model.parent.contains_key(&e), "{:?} (parent alive: {})", e, alive);
                        handles.push(e);
                    }
                }
            }
            assert_consistent(&world);
            prop_assert_eq!(world.len(), model.parent.len());
            for (&e, &p) in &model.parent {
                prop_assert!(world.contains(e));
                prop_assert_eq!(world.parent(e), p);
                let expected = model.children.get(&e).map_or(&[][..], |c| &c[..]);
                prop_assert_eq!(world.children(e), expected, "children of {:?}, in order", e);
            }
        }
    }
}

#[test]
fn a_list_moved_to_another_entity_claims_no_sources() {
    let mut world = World::new();
    let (p, q) = (world.spawn(()), world.spawn(()));
    world.spawn(ChildOf(p));
    world.spawn(ChildOf(p));
    let list = world.remove::<Children>(p).unwrap();
    assert_eq!(list.len(), 2);
    world.insert(q, list).unwrap();
    assert!(world.children(q).is_empty());
    assert_consistent(&world);
}

#[derive(Component, Clone, Copy)]
struct LocalT(f32);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct GlobalT(f32);

/// A forest of `roots` trees, each a chain-and-fan of `depth` levels.
fn forest(world: &mut World, roots: usize, depth: usize) -> Vec<Entity> {
    let mut all = Vec::new();
    for r in 0..roots {
        let root = world.spawn((LocalT(r as f32), GlobalT(0.0)));
        all.push(root);
        let mut level = vec![root];
        for d in 0..depth {
            let mut next = Vec::new();
            for (i, &p) in level.iter().enumerate() {
                for k in 0..(1 + (i + d) % 2) {
                    let e = world.spawn((LocalT((d * 10 + k) as f32), GlobalT(0.0), ChildOf(p)));
                    all.push(e);
                    next.push(e);
                }
            }
            level = next;
        }
    }
    all
}

#[test]
fn propagate_and_par_propagate_agree_with_a_recursive_walk() {
    let mut world = World::new();
    let all = forest(&mut world, 17, 5);
    // Expected: global = sum of locals from the root down, computed naively.
    let expected: Vec<f32> = all
        .iter()
        .map(|&e| std::iter::once(e).chain(world.iter_ancestors(e)).map(|a| world.get::<LocalT>(a).unwrap().0).sum())
        .collect();
    for parallel in [false, true] {
        for &e in &all {
            world.insert(e, GlobalT(-1.0)).unwrap();
        }
        let mut schedule = Schedule::new();
        schedule.add_systems(move |mut q: Query<(&LocalT, &mut GlobalT)>| {
            let f = |parent: Option<&f32>, (local, global): (&LocalT, &mut GlobalT)| {
                global.0 = parent.copied().unwrap_or(0.0) + local.0;
                Some(global.0)
            };
            if parallel {
                q.par_propagate::<ChildOf, f32>(f);
            } else {
                q.propagate::<ChildOf, f32>(f);
            }
        });
        schedule.run(&mut world);
        let got: Vec<f32> = all.iter().map(|&e| world.get::<GlobalT>(e).unwrap().0).collect();
        assert_eq!(got, expected, "parallel: {parallel}");
    }
}

/// A child spawned for a parent despawned earlier in the frame: `spawn` does
/// what bevy_ecs does (the entity, without the dangling link, and the error to
/// the world's handler); `try_spawn` returns the error and spawns nothing.
#[test]
fn spawning_a_child_of_a_dead_parent_spawns_it_unlinked_and_reports_the_error() {
    let mut world = World::new();
    let errors = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = errors.clone();
    world.set_command_error_handler(move |e| seen.lock().unwrap().push(e.to_string()));
    let parent = world.spawn(Name(0));
    let sibling = world.spawn((Name(1), ChildOf(parent)));
    world.despawn(parent).unwrap();
    assert!(!world.contains(sibling), "the linked despawn took the first child");

    let child = world.spawn((Name(2), ChildOf(parent)));
    assert!(world.contains(child));
    assert_eq!(world.get::<Name>(child), Some(&Name(2)));
    assert_eq!(world.get::<ChildOf>(child), None, "the link to the dead parent is dropped");
    let reported = errors.lock().unwrap().clone();
    assert_eq!(reported.len(), 1, "{reported:?}");
    assert!(reported[0].contains(&parent.to_string()), "the error names the dead target: {}", reported[0]);
    assert_consistent(&world);

    let before = world.len();
    let error = world.try_spawn((Name(3), ChildOf(parent))).unwrap_err();
    assert!(
        matches!(error, EcsError::InvalidRelationship { target, problem: RelationshipProblem::DeadTarget, .. } if target == parent),
        "{error:?}"
    );
    assert_eq!(world.len(), before, "try_spawn spawned nothing");
    assert_eq!(errors.lock().unwrap().len(), 1, "try_spawn returns the error instead of reporting it");
    // A live parent still links both ways.
    let parent = world.spawn(Name(4));
    let child = world.try_spawn((Name(5), ChildOf(parent))).unwrap();
    assert_eq!(world.children(parent), [child]);
    assert_consistent(&world);
}

/// Panics when dropped while lit (and not already unwinding).
#[derive(Default)]
struct Fuse(bool);

impl Drop for Fuse {
    fn drop(&mut self) {
        if self.0 && !std::thread::panicking() {
            panic!("the fuse went off");
        }
    }
}

#[derive(Component)]
#[relationship(target = Holders)]
struct HeldBy {
    #[relationship]
    by: Entity,
    #[expect(dead_code, reason = "held for its drop")]
    fuse: Fuse,
}

#[derive(Component, Default)]
#[relationship_target(relationship = HeldBy, unlink)]
struct Holders(RelationshipSources);

/// Reparenting by insert (the held relationship replaced where it is, its
/// upkeep done with both targets in hand) ends as the general path does (a
/// lifecycle observer sends every insert there): the same lists in the same
/// order, the same changed values, a re-link moved to the end of its list, and
/// an old value whose drop panics leaves both sides in agreement.
#[test]
fn reparenting_in_place_ends_as_the_general_path_does() {
    let run = |observed: bool| {
        let mut world = World::new();
        let (a, b) = (world.spawn(()), world.spawn(()));
        let items: Vec<Entity> = (0..5).map(|_| world.spawn(HeldBy { by: a, fuse: Fuse(false) })).collect();
        let seen = world.spawn(());
        if observed {
            world.entity_mut(seen).unwrap().observe(|_: On<Discard, HeldBy>| {});
            world.add_observer(|_: On<Insert, HeldBy>| {});
        }
        let start = world.change_tick();
        // A `Changed` query that ran before the inserts (its columns' change
        // summaries must let it see each row written since).
        let mut since = world.query_state_filtered::<Entity, Changed<HeldBy>>();
        since.iter(&world).count();
        world.increment_change_tick();
        let hold = |world: &mut World, item: Entity, by: Entity, lit: bool| {
            world.insert(item, HeldBy { by, fuse: Fuse(lit) }).unwrap();
        };
        hold(&mut world, items[2], b, false);
        hold(&mut world, items[0], a, false);
        hold(&mut world, items[1], a, true);
        let went_off = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| hold(&mut world, items[1], b, false)));
        assert_eq!(panic_message(went_off.expect_err("the lit fuse's drop panics")), "the fuse went off");
        hold(&mut world, items[3], b, false);
        hold(&mut world, items[3], a, false);
        let list = |world: &World, e: Entity| world.get::<Holders>(e).map(|h| h.0.to_vec());
        let by: Vec<Entity> = items.iter().map(|&i| world.get::<HeldBy>(i).unwrap().by).collect();
        let mut changed: Vec<Entity> = world
            .query_state::<(Entity, Ref<HeldBy>)>()
            .iter(&world)
            .filter(|(_, held)| held.last_changed().get() > start.get())
            .map(|(item, _)| item)
            .collect();
        changed.sort();
        let mut seen: Vec<Entity> = since.iter(&world).collect();
        seen.sort();
        assert_eq!(seen, changed, "a Changed query sees exactly the rows written");
        (list(&world, a), list(&world, b), by, changed, items)
    };
    let (a, b, by, changed, items) = run(false);
    assert_eq!(a, Some(vec![items[4], items[0], items[3]]), "a re-link goes to the end");
    assert_eq!(b, Some(vec![items[2], items[1]]));
    assert_eq!(by[1], by[2], "the panicking drop came after the new link");
    assert_eq!(changed, items[..4].to_vec());
    assert_eq!(run(true), (a, b, by, changed, items), "the general path ends the same");
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "sparse")]
#[relationship(target = Tethered)]
struct TetheredTo(Entity);

#[derive(Component, Default)]
#[relationship_target(relationship = TetheredTo)]
struct Tethered(RelationshipSources);

/// A sparse relationship is replaced in place too, as the general path does.
#[test]
fn a_sparse_relationship_reparents_in_place_as_the_general_path_does() {
    let run = |observed: bool| {
        let mut world = World::new();
        let (a, b) = (world.spawn(()), world.spawn(()));
        let kites: Vec<Entity> = (0..4).map(|_| world.spawn(TetheredTo(a))).collect();
        if observed {
            world.add_observer(|_: On<Insert, TetheredTo>| {});
        }
        world.insert(kites[1], TetheredTo(b)).unwrap();
        world.insert(kites[0], TetheredTo(a)).unwrap();
        world.insert(kites[3], TetheredTo(b)).unwrap();
        let list = |e: Entity| world.get::<Tethered>(e).map(|t| t.0.to_vec());
        let links: Vec<Option<TetheredTo>> = kites.iter().map(|&k| world.get::<TetheredTo>(k).copied()).collect();
        (list(a), list(b), links, kites)
    };
    let (a, b, links, kites) = run(false);
    assert_eq!(a, Some(vec![kites[2], kites[0]]));
    assert_eq!(b, Some(vec![kites[1], kites[3]]));
    assert_eq!(run(true), (a, b, links, kites));
}

#[test]
fn lists_emptied_by_moves_and_made_by_them_hold_exactly_their_sources() {
    let mut world = World::new();
    let parents: Vec<Entity> = (0..3).map(|_| world.spawn(())).collect();
    let kids: Vec<Entity> = world.spawn_batch((0..100).map(|_| ChildOf(parents[0]))).collect();
    let buses: Vec<Entity> = (0..3).map(|_| world.spawn(())).collect();
    let riders: Vec<Entity> = (0..100).map(|_| world.spawn(Riding(buses[0]))).collect();
    // Round and round: each move empties one list (removed) and makes another,
    // in orders that differ from the list's.
    for round in 1..7 {
        let (from, to) = ((round - 1) % 3, round % 3);
        let order: Vec<usize> = if round % 2 == 0 { (0..100).rev().collect() } else { (0..100).collect() };
        for &i in &order {
            world.insert(kids[i], ChildOf(parents[to])).unwrap();
            world.insert(riders[i], Riding(buses[to])).unwrap();
        }
        assert!(
            !world.has::<Children>(parents[from]) && !world.has::<Riders>(buses[from]),
            "emptied lists are removed"
        );
        let moved: Vec<Entity> = order.iter().map(|&i| kids[i]).collect();
        assert_eq!(world.get::<Children>(parents[to]).unwrap().to_vec(), moved, "round {round}");
        let moved: Vec<Entity> = order.iter().map(|&i| riders[i]).collect();
        assert_eq!(world.get::<Riders>(buses[to]).unwrap().0, moved, "round {round}");
        // A list made for one child after a large one was emptied holds that child alone.
        let lone = world.spawn(ChildOf(parents[from]));
        assert_eq!(world.get::<Children>(parents[from]).unwrap().to_vec(), [lone]);
        world.despawn(lone).unwrap();
        assert_consistent(&world);
        assert_consistent_riders(&world);
    }
}

/// Panics when added (an `on_add` hook runs before any `on_insert`, the
/// relationship's link among them).
#[derive(Component)]
#[component(on_add = explode)]
struct Unlucky;

/// Panics when removed (its `on_remove` runs after every `on_discard`, the
/// relationship's unlink among them).
#[derive(Component, Debug)]
#[component(on_remove = explode)]
struct Clingy;

/// Panics when its value is discarded (replaced or removed).
#[derive(Component)]
#[component(on_discard = explode)]
struct Jealous;

#[test]
fn a_panicking_add_hook_on_spawn_still_links_the_child() {
    let mut world = World::new();
    let parent = world.spawn(());
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.spawn((ChildOf(parent), Unlucky))));
    assert_eq!(panic_message(result.unwrap_err()), "fragile");
    // The value stored before the hook stays, so does its link.
    assert_consistent(&world);
    assert_eq!(world.children(parent).len(), 1);
    world.despawn(parent).unwrap();
    assert_eq!(world.len(), 0, "the child was not despawned with its parent");
}

#[test]
fn a_panicking_add_observer_still_links_the_child() {
    let mut world = World::new();
    world.add_observer(|_: On<Add, ChildOf>| panic!("observer"));
    let parent = world.spawn(());
    let other = world.spawn(());
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.spawn(ChildOf(parent))));
    assert_eq!(panic_message(result.unwrap_err()), "observer");
    assert_consistent(&world);
    let child = world.children(parent)[0];
    // An insert that adds a relationship, stopped the same way.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.insert(other, ChildOf(child))));
    assert_eq!(panic_message(result.unwrap_err()), "observer");
    assert_consistent(&world);
    assert_eq!(world.children(child), [other]);
}

#[test]
fn a_panicking_remove_hook_on_despawn_keeps_the_child_linked() {
    let mut world = World::new();
    let parent = world.spawn(());
    let child = world.spawn((ChildOf(parent), Clingy));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.despawn(child)));
    assert_eq!(panic_message(result.unwrap_err()), "fragile");
    // The despawn stopped: the child stays with all its components, linked.
    assert_consistent(&world);
    assert_eq!(world.children(parent), [child]);
    assert_eq!(world.parent(child), Some(parent));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.remove::<(ChildOf, Clingy)>(child)));
    assert_eq!(panic_message(result.unwrap_err()), "fragile");
    assert_consistent(&world);
    assert_eq!(world.children(parent), [child]);
}

#[test]
fn a_panicking_discard_hook_on_reparent_keeps_the_old_link() {
    let mut world = World::new();
    let warm_up = world.spawn(());
    world.spawn(ChildOf(warm_up)); // ChildOf's id (and its hooks' turn) before Jealous's
    world.despawn(warm_up).unwrap();
    let (a, b) = (world.spawn(()), world.spawn(()));
    let child = world.spawn((ChildOf(a), Jealous));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.insert(child, (ChildOf(b), Jealous))));
    assert_eq!(panic_message(result.unwrap_err()), "fragile");
    assert_consistent(&world);
    assert_eq!(world.parent(child), Some(a));
    assert_eq!(world.children(a), [child]);
}

/// Queues a spawn of a `Name(7)`, then panics.
fn spawn_then_explode(mut world: DeferredWorld, _: HookContext) {
    world.commands().spawn(Name(7));
    panic!("fragile");
}

#[derive(Component)]
#[component(on_add = spawn_then_explode)]
struct Eager;

#[test]
fn commands_a_hook_queued_before_its_panic_run_before_the_panic_goes_on() {
    let mut world = World::new();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.spawn(Eager)));
    assert_eq!(panic_message(result.unwrap_err()), "fragile");
    let mut names = world.query_state::<&Name>();
    assert_eq!(names.iter(&world).count(), 1, "the hook's spawn runs before the panic reaches the caller");
}

#[test]
fn bulk_edits_of_an_entitys_children_keep_both_sides_in_step() {
    let mut world = World::new();
    let ship = world.spawn(());
    let kids: Vec<Entity> = (0..4).map(|_| world.spawn(ChildOf(ship))).collect();
    let grandchild = world.spawn(ChildOf(kids[0]));
    let (x, y) = (world.spawn(()), world.spawn(()));
    world.entity_mut(ship).unwrap().insert_children(1, &[x, y]);
    assert_eq!(world.children(ship), [kids[0], x, y, kids[1], kids[2], kids[3]]);
    world.entity_mut(ship).unwrap().remove_children(&[x, kids[2], grandchild]);
    assert_eq!(world.children(ship), [kids[0], y, kids[1], kids[3]]);
    assert_eq!(world.parent(grandchild), Some(kids[0]), "not a child of ship: untouched");
    assert_consistent(&world);
    world.entity_mut(ship).unwrap().detach_all_children();
    assert!(world.children(ship).is_empty() && world.get::<Children>(ship).is_none());
    assert!(world.contains(y) && world.parent(y).is_none());
    assert_consistent(&world);
    for &kid in &kids {
        world.set_parent(kid, ship).unwrap();
    }
    world.entity_mut(ship).unwrap().despawn_children();
    assert!(world.contains(ship) && world.get::<Children>(ship).is_none());
    assert!(kids.iter().chain([&grandchild]).all(|&e| !world.contains(e)), "children and their descendants");
    assert_consistent(&world);
}

#[test]
fn bulk_edits_through_commands() {
    let mut world = World::new();
    let ship = world.spawn(());
    let a = world.spawn(ChildOf(ship));
    let b = world.spawn(ChildOf(ship));
    let c = world.spawn(());
    world
        .run_system_once(move |mut commands: Commands| {
            commands.entity(ship).remove_children(&[a]).insert_children(0, &[c]);
        })
        .unwrap();
    assert_eq!(world.children(ship), [c, b]);
    world
        .run_system_once(move |mut commands: Commands| {
            commands.entity(ship).despawn_related::<Children>();
        })
        .unwrap();
    assert!(!world.contains(b) && !world.contains(c) && world.contains(a));
    assert_consistent(&world);
    world.set_parent(a, ship).unwrap();
    world
        .run_system_once(move |mut commands: Commands| {
            commands.entity(ship).detach_all_related::<ChildOf>();
        })
        .unwrap();
    assert!(world.contains(a) && world.parent(a).is_none());
    assert_consistent(&world);
}

#[test]
fn a_cancelled_removal_of_a_list_keeps_its_sources_linked() {
    let mut world = World::new();
    world.add_observer(|_: On<Remove, Children>| panic!("observer"));
    let parent = world.spawn(());
    let child = world.spawn(ChildOf(parent));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.remove::<Children>(parent)));
    assert_eq!(panic_message(result.unwrap_err()), "observer");
    assert_consistent(&world);
    assert_eq!(world.parent(child), Some(parent));
    assert_eq!(world.children(parent), [child]);
    // The same for a despawn of a target whose sources stay (`unlink`).
    world.add_observer(|_: On<Remove, Holders>| panic!("holders"));
    let (owner, other) = (world.spawn(()), world.spawn(()));
    let item = world.spawn(HeldBy { by: owner, fuse: Fuse::default() });
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.despawn(owner)));
    assert_eq!(panic_message(result.unwrap_err()), "holders");
    assert!(world.contains(owner));
    assert_eq!(world.get::<HeldBy>(item).map(|h| h.by), Some(owner));
    assert_eq!(world.get::<Holders>(owner).map(|h| h.0.to_vec()), Some(vec![item]));
    // A list replaced by one naming none of its sources: they lose their links.
    let (a, b) = (world.spawn(CrewOf(other)), world.spawn(CrewOf(other)));
    world.insert(other, Crew::default()).unwrap();
    assert!(!world.has::<CrewOf>(a) && !world.has::<CrewOf>(b) && !world.has::<Crew>(other));
}

#[test]
fn a_list_replacing_another_keeps_the_sources_it_names_and_unlinks_the_others() {
    let mut world = World::new();
    let bus = world.spawn(());
    let (r1, r2) = (world.spawn(Riding(bus)), world.spawn(Riding(bus)));
    world.insert(bus, Riders(vec![r1])).unwrap();
    assert_eq!(world.get::<Riders>(bus).unwrap().0, [r1]);
    assert_eq!(world.get::<Riding>(r1), Some(&Riding(bus)));
    assert!(!world.has::<Riding>(r2), "not named by the new list: unlinked");
    assert_consistent_riders(&world);
}
