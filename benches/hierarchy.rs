//! The hierarchy: transform propagation over a forest, reparenting and
//! despawning a subtree, each next to a hand-written baseline where one
//! exists.
//!
//! - `propagate_full`: 100,000 entities in 1,000 trees of depth 3–8, each with a
//!   local and a global 2D affine transform; every global recomputed
//!   (`par_propagate`, `propagate`, and recursion over `Vec`-based trees).
//! - `propagate_1pct`: the same forest with 1% of locals changed per frame;
//!   change detection finds them, their ancestors are marked, and only marked
//!   subtrees are walked.
//! - `reparent`: 10,000 children moved one by one from one parent to another.
//! - `despawn_subtree`: despawning the root of a 10,000-entity tree.
//!
//! Run with `cargo bench --bench hierarchy`.

use std::hint::black_box;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::Relaxed;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use ecs_core::prelude::*;

/// A 2D affine transform: `[a, b, c, d, tx, ty]`.
type Affine = [f32; 6];

fn mul(p: &Affine, l: &Affine) -> Affine {
    [
        p[0] * l[0] + p[2] * l[1],
        p[1] * l[0] + p[3] * l[1],
        p[0] * l[2] + p[2] * l[3],
        p[1] * l[2] + p[3] * l[3],
        p[0] * l[4] + p[2] * l[5] + p[4],
        p[1] * l[4] + p[3] * l[5] + p[5],
    ]
}

#[derive(Component, Clone, Copy)]
struct Local(Affine);
#[derive(Component, Clone, Copy)]
struct Global(Affine);

const ROOTS: usize = 1_000;
const PER_TREE: usize = 100;

/// Parent index (in the tree's own numbering, `None` for the root) of each
/// node of tree `t`: a chain to depth 3–8, the rest hung under random nodes
/// above that depth.
fn tree_shape(t: usize, seed: &mut u64) -> Vec<Option<usize>> {
    let depth = 3 + t % 6;
    let mut parents = vec![None];
    let mut depths = vec![0];
    for d in 1..=depth {
        parents.push(Some(d - 1));
        depths.push(d);
    }
    while parents.len() < PER_TREE {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let candidate = (*seed >> 33) as usize % parents.len();
        if depths[candidate] < depth {
            parents.push(Some(candidate));
            depths.push(depths[candidate] + 1);
        }
    }
    parents
}

fn local(i: usize) -> Local {
    let a = i as f32 * 0.001;
    Local([a.cos(), a.sin(), -a.sin(), a.cos(), 1.0, 0.5])
}

fn build_world() -> (World, Vec<Entity>) {
    let mut world = World::new();
    let mut seed = 7;
    let mut all = Vec::with_capacity(ROOTS * PER_TREE);
    for t in 0..ROOTS {
        let shape = tree_shape(t, &mut seed);
        let mut ids = Vec::with_capacity(shape.len());
        for (i, parent) in shape.iter().enumerate() {
            let l = local(all.len());
            let e = match parent {
                None => world.spawn((l, Global([0.0; 6]))),
                Some(p) => world.spawn((l, Global([0.0; 6]), ChildOf(ids[*p]))),
            };
            debug_assert_eq!(ids.len(), i);
            ids.push(e);
            all.push(e);
        }
    }
    (world, all)
}

/// The baseline: the same forest as `Vec`s, children by index.
struct Node {
    local: Affine,
    global: Affine,
    children: Vec<u32>,
}

fn build_vec_forest() -> (Vec<Node>, Vec<u32>) {
    let mut seed = 7;
    let mut nodes: Vec<Node> = Vec::with_capacity(ROOTS * PER_TREE);
    let mut roots = Vec::with_capacity(ROOTS);
    for t in 0..ROOTS {
        let shape = tree_shape(t, &mut seed);
        let base = nodes.len();
        for parent in shape {
            let index = nodes.len();
            nodes.push(Node { local: local(index).0, global: [0.0; 6], children: Vec::new() });
            match parent {
                None => roots.push(index as u32),
                Some(p) => nodes[base + p].children.push(index as u32),
            }
        }
    }
    (nodes, roots)
}

fn propagate_vec(nodes: &mut [Node], index: u32, parent: &Affine) {
    let node = &mut nodes[index as usize];
    node.global = mul(parent, &node.local);
    let global = node.global;
    for i in 0..nodes[index as usize].children.len() {
        let child = nodes[index as usize].children[i];
        propagate_vec(nodes, child, &global);
    }
}

const IDENTITY: Affine = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];

fn propagate_full(c: &mut Criterion) {
    let mut group = c.benchmark_group("propagate_full");
    for parallel in [true, false] {
        let (mut world, _) = build_world();
        let mut schedule = Schedule::new();
        schedule.add_systems(move |mut q: Query<(&Local, &mut Global)>| {
            let f = |parent: Option<&Affine>, (local, global): (&Local, &mut Global)| {
                global.0 = mul(parent.unwrap_or(&IDENTITY), &local.0);
                Some(global.0)
            };
            if parallel { q.par_propagate::<ChildOf, Affine>(f) } else { q.propagate::<ChildOf, Affine>(f) }
        });
        schedule.run(&mut world);
        let name = if parallel { "ecs_par" } else { "ecs" };
        group.bench_function(name, |b| b.iter(|| schedule.run(&mut world)));
    }
    let (mut nodes, roots) = build_vec_forest();
    group.bench_function("baseline_vec", |b| {
        b.iter(|| {
            for &root in &roots {
                propagate_vec(&mut nodes, root, &IDENTITY);
            }
            black_box(&nodes);
        })
    });
    group.finish();
}

/// Per-frame scratch of the 1% propagation: which entities have a changed
/// local at or below them (indexed by entity index). Atomic, so that marking
/// runs in parallel and the walk clears each mark it passes.
struct Dirty(Vec<AtomicBool>);

fn propagate_one_percent(c: &mut Criterion) {
    let mut group = c.benchmark_group("propagate_1pct");
    let (mut world, all) = build_world();
    // One mark per entity index: the forest's entities are the world's only
    // ones, so their indices stay below `all.len()`.
    world.insert_resource(Dirty((0..all.len()).map(|_| AtomicBool::new(false)).collect()));
    let mark = |changed: Query<Entity, Changed<Local>>, parents: Query<&ChildOf>, dirty: Res<Dirty>| {
        changed.par_for_each(|e| {
            for a in std::iter::once(e).chain(parents.iter_ancestors(e)) {
                if dirty.0[a.index() as usize].swap(true, Relaxed) {
                    break;
                }
            }
        });
    };
    let propagate = |mut q: Query<(Entity, Ref<Local>, Mut<Global>)>, dirty: Res<Dirty>| {
        q.par_propagate::<ChildOf, (Affine, bool)>(|parent, (entity, local, mut global)| {
            let recompute = parent.is_some_and(|p| p.1) || local.is_changed();
            if recompute {
                global.0 = mul(parent.map_or(&IDENTITY, |p| &p.0), &local.0);
            }
            let mark = &dirty.0[entity.index() as usize];
            let below = mark.load(Relaxed) && mark.swap(false, Relaxed);
            (recompute || below).then(|| (global.0, recompute))
        });
    };
    let mut schedule = Schedule::new();
    // Both only read `Dirty`: `chain` orders them.
    schedule.add_systems((mark, propagate).chain());
    schedule.run(&mut world);
    let mut seed = 11u64;
    group.bench_function("ecs_par", |b| {
        b.iter(|| {
            for _ in 0..all.len() / 100 {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let e = all[(seed >> 33) as usize % all.len()];
                world.get_mut::<Local>(e).unwrap().0[4] += 0.01;
            }
            schedule.run(&mut world);
        })
    });
    group.finish();
}

fn reparent(c: &mut Criterion) {
    const CHILDREN: usize = 10_000;
    let mut group = c.benchmark_group("reparent");
    group.bench_function("ecs", |b| {
        b.iter_batched_ref(
            || {
                let mut world = World::new();
                let (a, b) = (world.spawn(()), world.spawn(()));
                let kids: Vec<Entity> = world.spawn_batch((0..CHILDREN).map(|_| ChildOf(a))).collect();
                (world, b, kids)
            },
            |(world, b, kids)| {
                for &kid in kids.iter() {
                    world.insert(kid, ChildOf(*b)).unwrap();
                }
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

fn despawn_subtree(c: &mut Criterion) {
    let mut group = c.benchmark_group("despawn_subtree");
    group.bench_function("ecs", |b| {
        b.iter_batched_ref(
            || {
                let mut world = World::new();
                let root = world.spawn(());
                let mut level = vec![root];
                let mut count = 1;
                while count < 10_000 {
                    let mut next = Vec::new();
                    for &p in &level {
                        for _ in 0..10 {
                            if count < 10_000 {
                                next.push(world.spawn((Local(IDENTITY), ChildOf(p))));
                                count += 1;
                            }
                        }
                    }
                    level = next;
                }
                (world, root)
            },
            |(world, root)| world.despawn(*root).unwrap(),
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, propagate_full, propagate_one_percent, reparent, despawn_subtree);
criterion_main!(benches);
