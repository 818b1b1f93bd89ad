//! bevy_ecs: cached `QueryState`s, `spawn_batch`, `par_iter_mut`, its multi-threaded
//! `Schedule`; `Messages` + `MessageCursor`, a global observer of an
//! `EntityEvent`, a cached `Changed` query.

use bevy_ecs::message::MessageCursor;
use bevy_ecs::prelude::*;

use super::{Runner, hundred, twenty_six};
use crate::workload::*;

#[derive(Component, Clone, Copy)]
struct Transform(Mat4);
#[derive(Component, Clone, Copy)]
struct Position([f32; 3]);
#[derive(Component, Clone, Copy)]
struct Rotation([f32; 3]);
#[derive(Component, Clone, Copy)]
struct Velocity([f32; 3]);
#[derive(Component, Clone, Copy)]
struct A(f32);
#[derive(Component, Clone, Copy)]
struct B(f32);
#[derive(Component, Clone, Copy)]
#[component(storage = "SparseSet")]
struct SparseB(f32);
#[derive(Component, Clone, Copy)]
struct C(f32);
#[derive(Component, Clone, Copy)]
struct D(f32);
#[derive(Component, Clone, Copy)]
struct E(f32);
#[derive(Component, Clone, Copy)]
struct Data(f32);
#[derive(Component, Clone, Copy)]
struct Frag<const N: usize>(f32);
#[derive(Component)]
struct Tag<const N: usize>;
#[derive(Component, Clone, Copy)]
struct Tiny<const N: usize>(f32);
#[derive(Message, Clone, Copy)]
struct Small(u32);
#[derive(Component)]
struct Health(i64);
#[derive(EntityEvent)]
struct Hit {
    entity: Entity,
    amount: i64,
}
#[derive(Component, Clone, Copy)]
struct Value(u64);
/// Data (`u8`), not a tag: ecs-core's zero-sized tags do not split archetypes.
#[derive(Component, Clone, Copy)]
struct Marker<const N: usize>(u8);

#[derive(Component, Clone, Copy)]
struct LocalT(Affine);
#[derive(Component, Clone, Copy)]
struct GlobalT(Affine);

/// Which entities (by index) have a changed local at or below them this frame.
#[derive(Resource, Default)]
struct Dirty {
    marked: Vec<bool>,
    list: Vec<u32>,
}

/// The propagation forest; entities in [`forest`] order.
fn forest_world() -> (World, Vec<Entity>) {
    let mut world = World::new();
    let mut all: Vec<Entity> = Vec::with_capacity(TREES * PER_TREE);
    for (i, parent) in forest().into_iter().enumerate() {
        let (l, g) = (LocalT(local(i)), GlobalT(IDENTITY));
        all.push(match parent {
            None => world.spawn((l, g)).id(),
            Some(p) => world.spawn((l, g, ChildOf(all[p]))).id(),
        });
    }
    (world, all)
}

/// Checks every global against its parent's global and its own local.
fn check_forest(world: &World, all: &[Entity]) {
    let parents = forest();
    for (i, &e) in all.iter().enumerate() {
        let parent = parents[i].map_or(IDENTITY, |p| world.get::<GlobalT>(all[p]).unwrap().0);
        let expected = mul(&parent, &world.get::<LocalT>(e).unwrap().0);
        assert_eq!(world.get::<GlobalT>(e).unwrap().0, expected, "node {i} propagated");
    }
}

type Roots<'w, 's, L> = Query<'w, 's, (Entity, &'static Children, L, &'static mut GlobalT), Without<ChildOf>>;
type Nodes<'w, 's, L> = Query<'w, 's, (L, &'static mut GlobalT, Option<&'static Children>), With<ChildOf>>;

/// `bevy_transform`'s propagation: roots in parallel, then down `Children`
/// with `get_unchecked`, each child's `ChildOf` checked against its parent.
fn propagate_full(mut roots: Roots<&'static LocalT>, nodes: Nodes<&'static LocalT>, parents: Query<&'static ChildOf>) {
    roots.par_iter_mut().for_each(|(entity, children, local, mut global)| {
        global.0 = local.0;
        for &child in children {
            // SAFETY: a child is fetched only if its own `ChildOf` names the
            // parent being walked, so each entity is reached from one root.
            unsafe { descend_full(&global.0, &nodes, &parents, child, entity) };
        }
    });
}

/// # Safety
/// No other item of `nodes` refers to `entity` or its descendants.
unsafe fn descend_full(
    parent_global: &Affine,
    nodes: &Nodes<&'static LocalT>,
    parents: &Query<&'static ChildOf>,
    entity: Entity,
    parent: Entity,
) {
    if parents.get(entity).map(|c| c.parent()) != Ok(parent) {
        return;
    }
    // SAFETY: forwarded.
    let Ok((local, mut global, children)) = (unsafe { nodes.get_unchecked(entity) }) else { return };
    global.0 = mul(parent_global, &local.0);
    for &child in children.into_iter().flatten() {
        // SAFETY: forwarded.
        unsafe { descend_full(&global.0, nodes, parents, child, entity) };
    }
}

fn mark_dirty(changed: Query<Entity, Changed<LocalT>>, parents: Query<&ChildOf>, mut dirty: ResMut<Dirty>) {
    let dirty = &mut *dirty;
    for e in changed.iter() {
        for a in std::iter::once(e).chain(parents.iter_ancestors::<ChildOf>(e)) {
            let i = a.index_u32() as usize;
            if dirty.marked.len() <= i {
                dirty.marked.resize(i + 1, false);
            }
            if std::mem::replace(&mut dirty.marked[i], true) {
                break;
            }
            dirty.list.push(a.index_u32());
        }
    }
}

/// [`propagate_full`] recomputing only changed locals and what is below them,
/// and walking only subtrees with a change.
fn propagate_dirty(
    mut roots: Roots<Ref<'static, LocalT>>,
    nodes: Nodes<Ref<'static, LocalT>>,
    parents: Query<&'static ChildOf>,
    mut dirty: ResMut<Dirty>,
) {
    let marked = &dirty.marked;
    roots.par_iter_mut().for_each(|(entity, children, local, mut global)| {
        let recompute = local.is_changed();
        if recompute {
            global.0 = local.0;
        }
        if !(recompute || marked.get(entity.index_u32() as usize).copied().unwrap_or(false)) {
            return;
        }
        for &child in children {
            // SAFETY: as in `propagate_full`.
            unsafe { descend_dirty(&global.0, recompute, marked, &nodes, &parents, child, entity) };
        }
    });
    let dirty = &mut *dirty;
    for i in dirty.list.drain(..) {
        dirty.marked[i as usize] = false;
    }
}

/// # Safety
/// As for [`descend_full`].
unsafe fn descend_dirty(
    parent_global: &Affine,
    parent_recomputed: bool,
    marked: &[bool],
    nodes: &Nodes<Ref<'static, LocalT>>,
    parents: &Query<&'static ChildOf>,
    entity: Entity,
    parent: Entity,
) {
    if parents.get(entity).map(|c| c.parent()) != Ok(parent) {
        return;
    }
    // SAFETY: forwarded.
    let Ok((local, mut global, children)) = (unsafe { nodes.get_unchecked(entity) }) else { return };
    let recompute = parent_recomputed || local.is_changed();
    if recompute {
        global.0 = mul(parent_global, &local.0);
    }
    if !(recompute || marked.get(entity.index_u32() as usize).copied().unwrap_or(false)) {
        return;
    }
    for &child in children.into_iter().flatten() {
        // SAFETY: forwarded.
        unsafe { descend_dirty(&global.0, recompute, marked, nodes, parents, child, entity) };
    }
}

fn bodies(world: &mut World, n: usize) {
    world.spawn_batch((0..n).map(|_| (Transform(identity()), Position(UNIT_X), Rotation(UNIT_X), Velocity(UNIT_X))));
}

fn ab(mut q: Query<(&mut A, &mut B)>) {
    for (mut a, mut b) in q.iter_mut() {
        core::mem::swap(&mut a.0, &mut b.0);
    }
}
fn cd(mut q: Query<(&mut C, &mut D)>) {
    for (mut c, mut d) in q.iter_mut() {
        core::mem::swap(&mut c.0, &mut d.0);
    }
}
fn ce(mut q: Query<(&mut C, &mut E)>) {
    for (mut c, mut e) in q.iter_mut() {
        core::mem::swap(&mut c.0, &mut e.0);
    }
}
fn tiny<const N: usize>(mut q: Query<&mut Tiny<N>>) {
    for mut t in q.iter_mut() {
        t.0 += 1.0;
    }
}

fn tag<const N: usize>(world: &mut World, e: Entity, mask: usize) {
    if mask & (1 << N) != 0 {
        world.entity_mut(e).insert(Tag::<N>);
    }
}

/// The entities `query_get` reads, in shuffled order.
#[derive(Resource)]
struct Shuffled(Vec<Entity>);

fn sum_positions(positions: Query<&Position>, order: Res<Shuffled>) {
    let mut sum = 0.0;
    for &e in &order.0 {
        sum += positions.get(e).unwrap().0[0];
    }
    std::hint::black_box(sum);
}

pub fn runner(workload: Workload) -> Option<Runner> {
    bevy_tasks::ComputeTaskPool::get_or_init(bevy_tasks::TaskPool::default);
    Some(match workload {
        Workload::SimpleInsert => Box::new(|| {
            let mut world = World::new();
            bodies(&mut world, 10_000);
            std::hint::black_box(&world);
        }),
        Workload::SimpleIter => {
            let mut world = World::new();
            bodies(&mut world, 10_000);
            let mut q = world.query::<(&Velocity, &mut Position)>();
            Box::new(move || q.iter_mut(&mut world).for_each(|(v, mut p)| add(&mut p.0, &v.0)))
        }
        Workload::SimpleIterFor => {
            let mut world = World::new();
            bodies(&mut world, 10_000);
            let mut q = world.query::<(&Velocity, &mut Position)>();
            Box::new(move || {
                for (v, mut p) in q.iter_mut(&mut world) {
                    add(&mut p.0, &v.0);
                }
            })
        }
        Workload::SimpleIterSystemFor => {
            fn movement(mut q: Query<(&Velocity, &mut Position)>) {
                for (v, mut p) in &mut q {
                    add(&mut p.0, &v.0);
                }
            }
            let mut world = World::new();
            bodies(&mut world, 10_000);
            let mut schedule = Schedule::default();
            schedule.add_systems(movement);
            Box::new(move || schedule.run(&mut world))
        }
        Workload::FragmentedIter => {
            let mut world = World::new();
            macro_rules! frags { ($($n:literal)*) => { $(world.spawn_batch((0..20).map(|_| (Frag::<$n>(0.0), Data(1.0))));)* }; }
            twenty_six!(frags);
            let mut q = world.query::<&mut Data>();
            Box::new(move || q.iter_mut(&mut world).for_each(|mut d| d.0 *= 2.0))
        }
        Workload::HeavyCompute => {
            let mut world = World::new();
            bodies(&mut world, 1000);
            let mut q = world.query::<(&mut Position, &mut Transform)>();
            Box::new(move || q.par_iter_mut(&mut world).for_each(|(mut p, mut t)| heavy(&mut t.0, &mut p.0)))
        }
        Workload::AddRemove => {
            let mut world = World::new();
            let entities: Vec<Entity> = world.spawn_batch((0..10_000).map(|_| A(0.0))).collect();
            Box::new(move || {
                for &e in &entities {
                    world.entity_mut(e).insert(B(0.0));
                }
                for &e in &entities {
                    world.entity_mut(e).remove::<B>();
                }
            })
        }
        Workload::AddRemoveSparse => {
            let mut world = World::new();
            let entities: Vec<Entity> = world.spawn_batch((0..10_000).map(|_| A(0.0))).collect();
            Box::new(move || {
                for &e in &entities {
                    world.entity_mut(e).insert(SparseB(0.0));
                }
                for &e in &entities {
                    world.entity_mut(e).remove::<SparseB>();
                }
            })
        }
        Workload::RandomGet => {
            let mut world = World::new();
            let mut entities: Vec<Entity> =
                world.spawn_batch((0..10_000).map(|_| (Position(UNIT_X), Velocity(UNIT_X)))).collect();
            shuffle(&mut entities);
            Box::new(move || {
                let mut sum = 0.0;
                for &e in &entities {
                    sum += world.get::<Position>(e).unwrap().0[0];
                }
                std::hint::black_box(sum);
            })
        }
        Workload::WorldGet | Workload::WorldGetMut | Workload::EntityGet | Workload::QueryGet => {
            let mut world = World::new();
            let mut entities: Vec<Entity> =
                world.spawn_batch((0..10_000).map(|_| (Position(UNIT_X), Velocity(UNIT_X)))).collect();
            shuffle(&mut entities);
            match workload {
                Workload::WorldGet => return runner(Workload::RandomGet),
                Workload::WorldGetMut => Box::new(move || {
                    let mut sum = 0.0;
                    for &e in &entities {
                        sum += world.get_mut::<Position>(e).unwrap().0[0];
                    }
                    std::hint::black_box(sum);
                }),
                Workload::EntityGet => Box::new(move || {
                    let mut sum = 0.0;
                    for &e in &entities {
                        sum += world.entity(e).get::<Position>().unwrap().0[0];
                    }
                    std::hint::black_box(sum);
                }),
                _ => {
                    world.insert_resource(Shuffled(entities));
                    let mut schedule = Schedule::default();
                    schedule.add_systems(sum_positions);
                    Box::new(move || schedule.run(&mut world))
                }
            }
        }
        Workload::WorldNew => Box::new(|| drop(std::hint::black_box(World::new()))),
        Workload::ManyArchetypes => {
            let mut world = World::new();
            for mask in 0..1024 {
                for _ in 0..4 {
                    let e = world.spawn(Data(1.0)).id();
                    tag::<0>(&mut world, e, mask);
                    tag::<1>(&mut world, e, mask);
                    tag::<2>(&mut world, e, mask);
                    tag::<3>(&mut world, e, mask);
                    tag::<4>(&mut world, e, mask);
                    tag::<5>(&mut world, e, mask);
                    tag::<6>(&mut world, e, mask);
                    tag::<7>(&mut world, e, mask);
                    tag::<8>(&mut world, e, mask);
                    tag::<9>(&mut world, e, mask);
                }
            }
            let mut q = world.query::<&mut Data>();
            Box::new(move || q.iter_mut(&mut world).for_each(|mut d| d.0 *= 2.0))
        }
        Workload::Schedule(n) => {
            let mut world = World::new();
            world.spawn_batch((0..n).map(|_| (A(0.0), B(1.0))));
            world.spawn_batch((0..n).map(|_| (A(0.0), B(1.0), C(2.0))));
            world.spawn_batch((0..n).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
            world.spawn_batch((0..n).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
            let mut schedule = Schedule::default();
            schedule.add_systems((ab, cd, ce));
            Box::new(move || schedule.run(&mut world))
        }
        Workload::TinySystems => {
            let mut world = World::new();
            let mut schedule = Schedule::default();
            macro_rules! tiny_setup { ($($n:literal)*) => { $(
                world.spawn_batch((0..10).map(|_| Tiny::<$n>(0.0)));
                schedule.add_systems(tiny::<$n>);
            )* }; }
            hundred!(tiny_setup);
            Box::new(move || schedule.run(&mut world))
        }
        Workload::Events => {
            let mut messages = Messages::<Small>::default();
            let mut cursor = MessageCursor::<Small>::default();
            Box::new(move || {
                for i in 0..EVENTS {
                    messages.write(Small(i));
                }
                let sum = cursor.read(&messages).fold(0u64, |sum, m| sum + u64::from(m.0));
                messages.update();
                std::hint::black_box(sum);
            })
        }
        Workload::Observers => {
            let mut world = World::new();
            let target = world.spawn(Health(0)).id();
            world.add_observer(|hit: On<Hit>, mut q: Query<&mut Health>| {
                if let Ok(mut h) = q.get_mut(hit.entity) {
                    h.0 -= hit.amount;
                }
            });
            world.trigger(Hit { entity: target, amount: 1 });
            assert_eq!(world.get::<Health>(target).map(|h| h.0), Some(-1), "the observer ran once");
            Box::new(move || {
                for _ in 0..TRIGGERS {
                    world.trigger(Hit { entity: target, amount: 1 });
                }
            })
        }
        Workload::EntityObservers => {
            let mut world = World::new();
            let targets: Vec<Entity> = (0..OBSERVED).map(|_| world.spawn(Health(0)).id()).collect();
            for &target in &targets {
                world.entity_mut(target).observe(|hit: On<Hit>, mut q: Query<&mut Health>| {
                    if let Ok(mut h) = q.get_mut(hit.entity) {
                        h.0 -= hit.amount;
                    }
                });
            }
            world.trigger(Hit { entity: targets[0], amount: 1 });
            assert_eq!(world.get::<Health>(targets[0]).map(|h| h.0), Some(-1), "the observer ran once");
            assert_eq!(world.get::<Health>(targets[1]).map(|h| h.0), Some(0), "only its own");
            Box::new(move || {
                for &target in &targets {
                    world.trigger(Hit { entity: target, amount: 1 });
                }
            })
        }
        Workload::Changed => {
            let mut world = World::new();
            let mut entities: Vec<Entity> = Vec::new();
            macro_rules! marked { ($($n:literal)*) => { $(
                entities.extend(world.spawn_batch((0..CHANGED_PER_ARCHETYPE).map(|i| (Value(i as u64), Marker::<$n>(0)))));
            )* }; }
            hundred!(marked);
            let mut changed = world.query_filtered::<&Value, Changed<Value>>();
            // A `QueryState` run on a `&World` compares against the world's last
            // change tick, which `clear_trackers` advances once a frame (as
            // `App::update` does): the spawns are behind it from here on.
            world.clear_trackers();
            let mut frame = 0;
            Box::new(move || {
                frame += 1;
                for k in 0..CHANGED_ROWS {
                    let e = entities[changed_row(frame, k, entities.len())];
                    world.get_mut::<Value>(e).unwrap().0 += 1;
                }
                let (count, sum) = changed.iter(&world).fold((0, 0u64), |(n, sum), v| (n + 1, sum + v.0));
                assert_eq!(count, CHANGED_ROWS, "Changed<Value> yields exactly the rows written");
                std::hint::black_box(sum);
                world.clear_trackers();
            })
        }
        Workload::PropagateFull => {
            let (mut world, all) = forest_world();
            let mut schedule = Schedule::default();
            schedule.add_systems(propagate_full);
            schedule.run(&mut world);
            check_forest(&world, &all);
            Box::new(move || schedule.run(&mut world))
        }
        Workload::PropagateOnePercent => {
            let (mut world, all) = forest_world();
            world.insert_resource(Dirty::default());
            let mut schedule = Schedule::default();
            schedule.add_systems((mark_dirty, propagate_dirty).chain());
            schedule.run(&mut world);
            world.clear_trackers();
            let check = all.clone();
            let mut seed = 11;
            let mut frame = move |world: &mut World| {
                for i in changed_nodes(&mut seed, all.len()) {
                    world.get_mut::<LocalT>(all[i]).unwrap().0[4] += 0.01;
                }
                schedule.run(world);
                // What `App::update` does once a frame: later writes are newer
                // than this frame's systems.
                world.clear_trackers();
            };
            frame(&mut world);
            check_forest(&world, &check);
            Box::new(move || frame(&mut world))
        }
        Workload::Reparent => {
            let mut world = World::new();
            let (mut from, mut to) = (world.spawn_empty().id(), world.spawn_empty().id());
            let kids: Vec<Entity> = world.spawn_batch((0..HIERARCHY_BATCH).map(|_| ChildOf(from))).collect();
            Box::new(move || {
                for &kid in &kids {
                    world.entity_mut(kid).insert(ChildOf(to));
                }
                assert_eq!(world.get::<Children>(to).map(|c| c.len()), Some(HIERARCHY_BATCH));
                core::mem::swap(&mut from, &mut to);
            })
        }
        Workload::DespawnSubtree => {
            let mut world = World::new();
            Box::new(move || {
                let (root, leaf) = crate::untimed(|| {
                    let mut tree = vec![world.spawn_empty().id()];
                    for i in 1..HIERARCHY_BATCH {
                        tree.push(world.spawn((LocalT(IDENTITY), ChildOf(tree[subtree_parent(i)]))).id());
                    }
                    (tree[0], tree[HIERARCHY_BATCH - 1])
                });
                world.despawn(root);
                assert!(world.get_entity(leaf).is_err(), "the whole tree is gone");
            })
        }
        // bevy_ecs alone has no serialization of a world (bevy_scene goes through
        // reflection and the asset system).
        Workload::SaveLoad | Workload::SaveLoadPod => return None,
        Workload::SoaPartialUpdate => {
            let mut world = World::new();
            world.spawn_batch((0..PARTICLES).map(|i| Particle::new(particle(i))));
            let mut q = world.query::<&mut Particle>();
            Box::new(move || q.iter_mut(&mut world).for_each(|mut p| p.x += p.vx))
        }
        Workload::SoaFullUpdate => {
            let mut world = World::new();
            world.spawn_batch((0..PARTICLES).map(|i| Particle::new(particle(i))));
            let mut q = world.query::<&mut Particle>();
            Box::new(move || q.iter_mut(&mut world).for_each(|mut p| p.full_update()))
        }
        Workload::SoaPartialUpdateAos | Workload::SoaFullUpdateAos => return None,
        Workload::DynamicSpawn => Box::new(|| {
            let mut world = World::new();
            let ids = dynamic_components(&mut world);
            dynamic_spawn(&mut world, &ids, 10_000);
            std::hint::black_box(&world);
        }),
        Workload::DynamicGet => {
            let mut world = World::new();
            let ids = dynamic_components(&mut world);
            let mut entities = dynamic_spawn(&mut world, &ids, 10_000);
            shuffle(&mut entities);
            Box::new(move || {
                let mut sum = 0.0;
                for &e in &entities {
                    let ptr = world.get_by_id(e, ids[0]).unwrap();
                    // SAFETY: the component's values are `[f32; 3]` (its layout,
                    // registered in `dynamic_components`, and every value spawned).
                    sum += unsafe { ptr.deref::<[f32; 3]>() }[0];
                }
                std::hint::black_box(sum);
            })
        }
        Workload::DynamicIter => {
            let mut world = World::new();
            let ids = dynamic_components(&mut world);
            dynamic_spawn(&mut world, &ids, 10_000);
            let (pos, vel) = (ids[0], ids[1]);
            let mut query =
                QueryBuilder::<bevy_ecs::world::FilteredEntityMut>::new(&mut world).mut_id(pos).ref_id(vel).build();
            Box::new(move || {
                for mut entity in query.iter_mut(&mut world) {
                    // SAFETY: both components' values are `[f32; 3]`.
                    let v = unsafe { *entity.get_by_id(vel).unwrap().deref::<[f32; 3]>() };
                    // SAFETY: as above.
                    let p = unsafe { entity.get_mut_by_id(pos).unwrap().into_inner().deref_mut::<[f32; 3]>() };
                    add(p, &v);
                }
            })
        }
    })
}

/// The particle of `soa_partial_update` (bevy_ecs stores it whole).
#[derive(Component, Clone, Copy)]
#[allow(dead_code, reason = "mass and age ride along, unread, as in the workload")]
struct Particle {
    x: f32,
    y: f32,
    z: f32,
    vx: f32,
    vy: f32,
    vz: f32,
    mass: f32,
    age: f32,
}

impl Particle {
    fn new([x, y, z, vx, vy, vz, mass, age]: [f32; 8]) -> Self {
        Self { x, y, z, vx, vy, vz, mass, age }
    }

    #[inline]
    fn full_update(&mut self) {
        self.x += self.vx;
        self.y += self.vy;
        self.z += self.vz;
        self.vx *= 0.99;
        self.vy -= 0.01;
        self.vz *= 0.99;
    }
}

/// Four components defined at run time, each three `f32`s (no drop).
fn dynamic_components(world: &mut World) -> [bevy_ecs::component::ComponentId; 4] {
    use bevy_ecs::component::{ComponentCloneBehavior, ComponentDescriptor, StorageType};
    ["DynPosition", "DynVelocity", "DynRotation", "DynTransform"].map(|name| {
        // SAFETY: a plain `[f32; 3]` layout without drop, sendable and shareable.
        let descriptor = unsafe {
            ComponentDescriptor::new_with_layout(
                name,
                StorageType::Table,
                std::alloc::Layout::new::<[f32; 3]>(),
                None,
                true,
                true,
                ComponentCloneBehavior::Default,
                None,
            )
        };
        world.register_component_with_descriptor(descriptor)
    })
}

/// Spawns `n` entities of the four runtime components.
fn dynamic_spawn(world: &mut World, ids: &[bevy_ecs::component::ComponentId; 4], n: usize) -> Vec<Entity> {
    (0..n)
        .map(|i| {
            let mut values = [UNIT_X, UNIT_X, [i as f32; 3], [0.0; 3]];
            let ptrs = values.iter_mut().map(|v| {
                // SAFETY: each points at a live `[f32; 3]`, which needs no drop and
                // is not used after it is moved into the world.
                unsafe { bevy_ecs::ptr::OwningPtr::new(std::ptr::NonNull::from(v).cast()) }
            });
            let mut entity = world.spawn_empty();
            // SAFETY: the ids are this world's, each pointer a value of its layout.
            unsafe { entity.insert_by_ids(ids, ptrs) };
            entity.id()
        })
        .collect()
}
