//! The hand-written baseline: the same data in plain `Vec`s, the same loops.

use rayon::prelude::*;

use super::Runner;
use crate::workload::*;

pub fn runner(workload: Workload) -> Option<Runner> {
    Some(match workload {
        Workload::SimpleInsert => Box::new(|| {
            let n = 10_000;
            let (mut t, mut p, mut r, mut v) =
                (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
            for _ in 0..n {
                t.push(identity());
                p.push(UNIT_X);
                r.push(UNIT_X);
                v.push(UNIT_X);
            }
            std::hint::black_box((t, p, r, v));
        }),
        Workload::SimpleIter => {
            let mut p = vec![UNIT_X; 10_000];
            let v = vec![UNIT_X; 10_000];
            Box::new(move || p.iter_mut().zip(&v).for_each(|(p, v)| add(p, v)))
        }
        Workload::SimpleIterFor | Workload::SimpleIterSystemFor => {
            let mut p = vec![UNIT_X; 10_000];
            let v = vec![UNIT_X; 10_000];
            Box::new(move || {
                for (p, v) in p.iter_mut().zip(&v) {
                    add(p, v);
                }
            })
        }
        Workload::FragmentedIter => {
            let mut data = vec![1.0f32; 26 * 20];
            Box::new(move || data.iter_mut().for_each(|d| *d *= 2.0))
        }
        Workload::HeavyCompute => {
            let mut t = vec![identity(); 1000];
            let mut p = vec![UNIT_X; 1000];
            Box::new(move || p.par_iter_mut().zip(t.par_iter_mut()).with_min_len(64).for_each(|(p, t)| heavy(t, p)))
        }
        Workload::AddRemove | Workload::AddRemoveSparse => {
            let a = vec![0.0f32; 10_000];
            let mut b: Vec<Option<f32>> = vec![None; 10_000];
            Box::new(move || {
                b.iter_mut().for_each(|b| *b = Some(0.0));
                b.iter_mut().for_each(|b| {
                    std::hint::black_box(b.take());
                });
                std::hint::black_box(&a);
            })
        }
        Workload::RandomGet => {
            let p = vec![UNIT_X; 10_000];
            let mut order: Vec<usize> = (0..10_000).collect();
            shuffle(&mut order);
            Box::new(move || {
                let sum: f32 = order.iter().map(|&i| p[i][0]).sum();
                std::hint::black_box(sum);
            })
        }
        Workload::WorldGet | Workload::WorldGetMut | Workload::EntityGet | Workload::QueryGet => {
            return runner(Workload::RandomGet);
        }
        Workload::ManyArchetypes => {
            let mut data = vec![1.0f32; 4096];
            Box::new(move || data.iter_mut().for_each(|d| *d *= 2.0))
        }
        Workload::Schedule(n) => {
            let (mut a, mut b) = (vec![0.0f32; 4 * n], vec![1.0f32; 4 * n]);
            let mut c = vec![2.0f32; 3 * n];
            let (mut d, mut e) = (vec![3.0f32; n], vec![4.0f32; n]);
            Box::new(move || {
                a.iter_mut().zip(b.iter_mut()).for_each(|(a, b)| core::mem::swap(a, b));
                c[n..2 * n].iter_mut().zip(d.iter_mut()).for_each(|(c, d)| core::mem::swap(c, d));
                c[2 * n..].iter_mut().zip(e.iter_mut()).for_each(|(c, e)| core::mem::swap(c, e));
            })
        }
        Workload::TinySystems => {
            let mut data = vec![vec![0.0f32; 10]; 100];
            Box::new(move || data.iter_mut().for_each(|v| v.iter_mut().for_each(|x| *x += 1.0)))
        }
        Workload::Events => {
            let mut events: Vec<u32> = Vec::new();
            Box::new(move || {
                events.clear();
                for i in 0..EVENTS {
                    events.push(i);
                }
                let sum = events.iter().fold(0u64, |sum, &e| sum + u64::from(e));
                std::hint::black_box(sum);
            })
        }
        Workload::PropagateFull => {
            let (mut nodes, roots) = vec_forest();
            Box::new(move || {
                for &root in &roots {
                    propagate(&mut nodes, root, &IDENTITY);
                }
                std::hint::black_box(&nodes);
            })
        }
        Workload::PropagateOnePercent => {
            let (mut nodes, roots) = vec_forest();
            let parents = forest();
            for &root in &roots {
                propagate(&mut nodes, root, &IDENTITY);
            }
            let mut marked = vec![false; nodes.len()];
            let mut changed = vec![false; nodes.len()];
            let mut list = Vec::new();
            let mut seed = 11;
            Box::new(move || {
                for i in changed_nodes(&mut seed, nodes.len()) {
                    nodes[i].local[4] += 0.01;
                    changed[i] = true;
                    let mut at = Some(i);
                    while let Some(a) = at {
                        if std::mem::replace(&mut marked[a], true) {
                            break;
                        }
                        list.push(a);
                        at = parents[a];
                    }
                }
                for &root in &roots {
                    propagate_dirty(&mut nodes, &marked, &changed, root, &IDENTITY, false);
                }
                for i in list.drain(..) {
                    marked[i] = false;
                    changed[i] = false;
                }
            })
        }
        Workload::SaveLoad | Workload::SaveLoadPod => {
            type Body = (Mat4, [f32; 3], [f32; 3], [f32; 3]);
            let bodies: Vec<Body> = vec![(identity(), UNIT_X, UNIT_X, UNIT_X); SAVED];
            Box::new(move || {
                let bytes = postcard::to_allocvec(&bodies).unwrap();
                let loaded: Vec<Body> = postcard::from_bytes(&bytes).unwrap();
                assert_eq!(loaded.len(), SAVED);
            })
        }
        Workload::SoaPartialUpdate => {
            let lane = |f: usize| (0..PARTICLES).map(|i| particle(i)[f]).collect::<Vec<f32>>();
            let (mut x, vx) = (lane(0), lane(3));
            Box::new(move || x.iter_mut().zip(&vx).for_each(|(x, vx)| *x += vx))
        }
        Workload::SoaFullUpdate => {
            let lane = |f: usize| (0..PARTICLES).map(|i| particle(i)[f]).collect::<Vec<f32>>();
            let (mut x, mut y, mut z) = (lane(0), lane(1), lane(2));
            let (mut vx, mut vy, mut vz) = (lane(3), lane(4), lane(5));
            Box::new(move || {
                for (((((x, y), z), vx), vy), vz) in x
                    .iter_mut()
                    .zip(y.iter_mut())
                    .zip(z.iter_mut())
                    .zip(vx.iter_mut())
                    .zip(vy.iter_mut())
                    .zip(vz.iter_mut())
                {
                    *x += *vx;
                    *y += *vy;
                    *z += *vz;
                    *vx *= 0.99;
                    *vy -= 0.01;
                    *vz *= 0.99;
                }
            })
        }
        Workload::Observers
        | Workload::EntityObservers
        | Workload::Changed
        | Workload::Reparent
        | Workload::DespawnSubtree
        | Workload::SoaPartialUpdateAos
        | Workload::SoaFullUpdateAos
        | Workload::DynamicIter
        | Workload::DynamicGet
        | Workload::DynamicSpawn
        | Workload::WorldNew => return None,
    })
}

/// A node of the `Vec`-based forest: children by index.
struct Node {
    local: Affine,
    global: Affine,
    children: Vec<u32>,
}

fn vec_forest() -> (Vec<Node>, Vec<u32>) {
    let mut nodes: Vec<Node> = Vec::with_capacity(TREES * PER_TREE);
    let mut roots = Vec::with_capacity(TREES);
    for (i, parent) in forest().into_iter().enumerate() {
        nodes.push(Node { local: local(i), global: IDENTITY, children: Vec::new() });
        match parent {
            None => roots.push(i as u32),
            Some(p) => nodes[p].children.push(i as u32),
        }
    }
    (nodes, roots)
}

fn propagate(nodes: &mut [Node], index: u32, parent: &Affine) {
    let node = &mut nodes[index as usize];
    node.global = mul(parent, &node.local);
    let global = node.global;
    for i in 0..nodes[index as usize].children.len() {
        let child = nodes[index as usize].children[i];
        propagate(nodes, child, &global);
    }
}

/// [`propagate`] of changed locals and what is below them, walking only
/// marked subtrees (`changed` is cleared with `marked`: a changed node is marked).
fn propagate_dirty(nodes: &mut [Node], marked: &[bool], changed: &[bool], index: u32, parent: &Affine, above: bool) {
    let i = index as usize;
    let recompute = above || changed[i];
    if recompute {
        nodes[i].global = mul(parent, &nodes[i].local);
    }
    if !(recompute || marked[i]) {
        return;
    }
    let global = nodes[i].global;
    for k in 0..nodes[i].children.len() {
        let child = nodes[i].children[k];
        propagate_dirty(nodes, marked, changed, child, &global, recompute);
    }
}
