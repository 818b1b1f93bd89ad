//! The workloads, their ecs_bench_suite parameters, and the shared maths.

/// One benchmark workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// Spawn 10,000 entities of (Transform, Position, Rotation, Velocity) into an empty world.
    SimpleInsert,
    /// `pos += vel` over 10,000 entities of (Transform, Position, Rotation, Velocity).
    SimpleIter,
    /// `simple_iter` as the plain `for` loop over each crate's query iterator,
    /// the loop users write first (flecs has no external iterator: its `each`).
    SimpleIterFor,
    /// `simple_iter_for` inside a system run by the crate's scheduler (ecs and
    /// bevy `for (v, p) in &mut query` in a one-system `Schedule`, shipyard and
    /// specs their views and storages in `run`/`system_data`, as in
    /// `simple_iter`; hecs and legion, which have none, run their `for` loop).
    SimpleIterSystemFor,
    /// 26 types A..Z, 20 entities each, all with Data; `data *= 2`.
    FragmentedIter,
    /// 1,000 entities; in parallel, invert a 4x4 matrix 100 times and transform the position.
    HeavyCompute,
    /// 10,000 entities with A; insert B on all, then remove B from all.
    AddRemove,
    /// `add_remove` with B in the crate's sparse storage where it offers a choice
    /// (ecs `storage = "sparse"`, bevy `SparseSet`); sparse-set crates (shipyard,
    /// specs) run their `add_remove` code; crates without one are left out.
    AddRemoveSparse,
    /// 10,000 entities of (Position, Velocity); read every Position in a shuffled order.
    RandomGet,
    /// `random_get` through the call users write first: ecs `world.get`
    /// (`random_get` goes through a query borrow, as shipyard's `View`); the
    /// other crates' `random_get` already use their world-level `get`.
    WorldGet,
    /// `world_get` with mutable access, reading through it (ecs
    /// `world.get_mut`, bevy `get_mut`, hecs `get::<&mut _>`, shipyard `ViewMut`).
    WorldGetMut,
    /// `world_get` through an entity handle (ecs `world.entity(e).get`, bevy
    /// `world.entity(e).get`, hecs `world.entity(e)?.get`; shipyard's `View`).
    EntityGet,
    /// `world_get` from inside a system, through its query parameter (ecs and
    /// bevy `Query<&Position>::get`; shipyard `View::get` in `world.run`).
    QueryGet,
    /// `World::new()` then drop: tools and tests make many worlds.
    WorldNew,
    /// 10 zero-sized tags make 1,024 combinations of 4 entities, all with Data; `data *= 2`.
    ManyArchetypes,
    /// `n` entities in each of (A,B), (A,B,C), (A,B,C,D), (A,B,C,E); three systems
    /// swap A/B, C/D, C/E. Run at 1,000, 10,000 and 100,000 per archetype: the
    /// scheduler's choice between running inline and in parallel at each size.
    /// ecs systems loop with `par_for_each_mut` (which runs inline where it
    /// measured that faster), the other crates' with their sequential loops,
    /// as ecs_bench_suite wrote them.
    Schedule(usize),
    /// 100 systems, each over its own 10 entities: the scheduler's own overhead.
    TinySystems,
    /// Buffered events: send 1,000,000 events of a `u32` payload, read them all
    /// once with one cursor, then advance the double buffer (ecs `Messages` +
    /// `MessageCursor`, bevy `Messages` + `MessageCursor`; baseline: one `Vec`).
    Events,
    /// One entity with `Health(i64)` and one global observer subtracting the
    /// event's amount from its target's `Health` (through a query); trigger an
    /// entity-targeted event with an `i64` payload 100,000 times (ecs `On` +
    /// `trigger_targets`, bevy `EntityEvent` + `On` + `trigger`, flecs an observer
    /// of a custom payload event on `&mut Health`, emitted for the entity with
    /// `world.event().add(Health).entity(e).emit(&Hit(1))`).
    Observers,
    /// 10,000 entities with `Health(i64)`, each with its own entity observer
    /// subtracting the event's amount from its target's `Health` (through a
    /// query); trigger the entity event once on every entity (ecs
    /// `entity_mut(e).observe` + `trigger_targets`, bevy `observe` + an
    /// `EntityEvent` + `trigger`).
    EntityObservers,
    /// 1,000,000 entities of `Value(u64)` over 100 archetypes (one of 100 `u8`
    /// marker components each, 10,000 rows apiece; zero-sized markers would not
    /// split ecs-core archetypes); write 10 rows (in 10 archetypes, other rows every
    /// iteration) through tracked mutable access (`world.get_mut`), then sum what
    /// a cached `Changed<Value>` query yields (asserted to be exactly those 10).
    Changed,
    /// A forest of 100,000 entities (1,000 trees of 100, depth 3–8; see
    /// [`tree_shape`]), each with a local and a global 2D affine transform;
    /// recompute every global from its parent's, parents first, trees in
    /// parallel (ecs `Query::par_propagate`; bevy the `bevy_transform` way:
    /// `par_iter_mut` over roots, then `get_unchecked` down `Children`, checking
    /// each child's `ChildOf`; hecs links kept by hand, `Parent` and `Children`
    /// components walked through a `View`, one thread; baseline: recursion over
    /// `Vec`-based trees, one thread).
    PropagateFull,
    /// The same forest; change 1% of the locals (1,000, random), then mark their
    /// ancestors (walking `ChildOf`) and recompute only marked subtrees.
    PropagateOnePercent,
    /// Move 10,000 children, one insert of `ChildOf` each, from one parent to
    /// another (and back on the next iteration).
    Reparent,
    /// Despawn the root of a 10,000-entity tree (10 children per node), which
    /// despawns the whole tree; building the tree is not timed.
    DespawnSubtree,
    /// Save [`SAVED`] entities of (Transform, Position, Rotation, Velocity) in
    /// the crate's column format through postcard into a `Vec<u8>`, then load
    /// the bytes into a new world (ecs `SerializeRegistry::columns` +
    /// `load_columns` + `World::load`, the components plain serde types, not
    /// `#[component(pod)]`; hecs `serialize::column` with a context naming the
    /// four types; baseline: the `Vec` of tuples through postcard and back).
    SaveLoad,
    /// `save_load` with ecs-core's four components declared
    /// `#[component(pod)]`, whose columns a compact save writes as their bytes;
    /// hecs and the baseline run their `save_load` code (they have no such
    /// path).
    SaveLoadPod,
    /// 100,000 entities of `Particle { x, y, z, vx, vy, vz, mass, age }` (f32);
    /// `x += vx` only, per row. ecs declares `Particle` per field
    /// (`#[component(layout = "soa")]`, so the loop reads two arrays); bevy_ecs
    /// and hecs store it whole; baseline: a `Vec<f32>` per field.
    SoaPartialUpdate,
    /// `soa_partial_update` with ecs's `Particle` in the default layout (stored
    /// whole, like the peers'): the same-run reference for the per-field row.
    SoaPartialUpdateAos,
    /// The same particles; all six position and velocity fields updated
    /// (`p += v`, `v *= 0.99` / `-= 0.01`), per row.
    SoaFullUpdate,
    /// `soa_full_update` with ecs's `Particle` in the default layout.
    SoaFullUpdateAos,
    /// Components defined at run time (no Rust type; four of 12 bytes, three
    /// `f32`s each) on 10,000 entities: `p += v` over two of them through each
    /// crate's dynamic query (ecs `DynamicQuery` an archetype at a time, each
    /// value through its schema view; bevy `QueryBuilder` over
    /// `FilteredEntityMut`, `get_by_id`/`get_mut_by_id` per entity).
    DynamicIter,
    /// The same world; read one `f32` of a runtime component of every entity,
    /// in a shuffled order (ecs `world.get_by_id` + a field handle; bevy
    /// `world.get_by_id` + a pointer read).
    DynamicGet,
    /// Spawn 10,000 entities of the four runtime components (ecs an
    /// `EntityBuilder` with `add_by_id` values written in place; bevy
    /// `spawn_empty().insert_by_ids`).
    DynamicSpawn,
}

impl Workload {
    /// Every workload, in table order.
    pub const ALL: [Workload; 36] = [
        Workload::SimpleInsert,
        Workload::SimpleIter,
        Workload::SimpleIterFor,
        Workload::SimpleIterSystemFor,
        Workload::FragmentedIter,
        Workload::HeavyCompute,
        Workload::AddRemove,
        Workload::AddRemoveSparse,
        Workload::RandomGet,
        Workload::WorldGet,
        Workload::WorldGetMut,
        Workload::EntityGet,
        Workload::QueryGet,
        Workload::WorldNew,
        Workload::ManyArchetypes,
        Workload::Schedule(1_000),
        Workload::Schedule(10_000),
        Workload::Schedule(100_000),
        Workload::TinySystems,
        Workload::Events,
        Workload::Observers,
        Workload::EntityObservers,
        Workload::Changed,
        Workload::PropagateFull,
        Workload::PropagateOnePercent,
        Workload::Reparent,
        Workload::DespawnSubtree,
        Workload::SaveLoad,
        Workload::SaveLoadPod,
        Workload::SoaPartialUpdate,
        Workload::SoaPartialUpdateAos,
        Workload::SoaFullUpdate,
        Workload::SoaFullUpdateAos,
        Workload::DynamicIter,
        Workload::DynamicGet,
        Workload::DynamicSpawn,
    ];

    /// The ecs_bench_suite name.
    pub fn name(self) -> &'static str {
        match self {
            Workload::SimpleInsert => "simple_insert",
            Workload::SimpleIter => "simple_iter",
            Workload::SimpleIterFor => "simple_iter_for",
            Workload::SimpleIterSystemFor => "simple_iter_system_for",
            Workload::FragmentedIter => "fragmented_iter",
            Workload::HeavyCompute => "heavy_compute",
            Workload::AddRemove => "add_remove",
            Workload::AddRemoveSparse => "add_remove_sparse",
            Workload::RandomGet => "random_get",
            Workload::WorldGet => "world_get",
            Workload::WorldGetMut => "world_get_mut",
            Workload::EntityGet => "entity_get",
            Workload::QueryGet => "query_get",
            Workload::WorldNew => "world_new",
            Workload::ManyArchetypes => "many_archetypes",
            Workload::Schedule(1_000) => "schedule_1k",
            Workload::Schedule(10_000) => "schedule_10k",
            Workload::Schedule(100_000) => "schedule_100k",
            Workload::Schedule(_) => "schedule",
            Workload::TinySystems => "tiny_systems",
            Workload::Events => "events",
            Workload::Observers => "observers",
            Workload::EntityObservers => "entity_observers",
            Workload::Changed => "changed",
            Workload::PropagateFull => "propagate_full",
            Workload::PropagateOnePercent => "propagate_1pct",
            Workload::Reparent => "reparent",
            Workload::DespawnSubtree => "despawn_subtree",
            Workload::SaveLoad => "save_load",
            Workload::SaveLoadPod => "save_load_pod",
            Workload::SoaPartialUpdate => "soa_partial_update",
            Workload::SoaPartialUpdateAos => "soa_partial_update_aos",
            Workload::SoaFullUpdate => "soa_full_update",
            Workload::SoaFullUpdateAos => "soa_full_update_aos",
            Workload::DynamicIter => "dynamic_iter",
            Workload::DynamicGet => "dynamic_get",
            Workload::DynamicSpawn => "dynamic_spawn",
        }
    }
}

/// Particles in `soa_partial_update` and `soa_full_update`.
pub const PARTICLES: usize = 100_000;

/// The fields of particle `i`: x, y, z, vx, vy, vz, mass, age.
pub fn particle(i: usize) -> [f32; 8] {
    let f = i as f32;
    [f, -f, 0.5 * f, 1.0, 0.5, 0.25, 1.0 + f, 0.0]
}

/// Entities saved and loaded per iteration of `save_load`.
pub const SAVED: usize = 100_000;

/// Events sent (and read) per iteration of `events`.
pub const EVENTS: u32 = 1_000_000;

/// Triggers per iteration of `observers`.
pub const TRIGGERS: usize = 100_000;

/// Entities (each with its own observer, each triggered once) per iteration
/// of `entity_observers`.
pub const OBSERVED: usize = 10_000;

/// Rows per archetype in `changed` (100 archetypes).
pub const CHANGED_PER_ARCHETYPE: usize = 10_000;

/// Rows written per iteration of `changed`.
pub const CHANGED_ROWS: usize = 10;

/// The index (in spawn order: archetype after archetype) of the `k`-th row that
/// `changed` writes in iteration `frame`: 10 rows at least 99,937 apart, so in
/// 10 different archetypes, shifted by one every iteration.
#[inline]
pub fn changed_row(frame: usize, k: usize, len: usize) -> usize {
    let step = len / CHANGED_ROWS + 7;
    (frame + k * step) % len
}

/// A 4x4 matrix, row-major.
pub type Mat4 = [[f32; 4]; 4];

/// The identity matrix.
pub fn identity() -> Mat4 {
    let mut m = [[0.0; 4]; 4];
    for (i, row) in m.iter_mut().enumerate() {
        row[i] = 1.0;
    }
    m
}

/// Unit x, the starting value of every vector component.
pub const UNIT_X: [f32; 3] = [1.0, 0.0, 0.0];

/// `p += v`.
#[inline]
pub fn add(p: &mut [f32; 3], v: &[f32; 3]) {
    for i in 0..3 {
        p[i] += v[i];
    }
}

/// Gauss-Jordan inverse with partial pivoting (the matrix stays invertible).
pub fn invert(m: &Mat4) -> Mat4 {
    let mut a = *m;
    let mut inv = identity();
    for col in 0..4 {
        let pivot = (col..4).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs())).unwrap_or(col);
        a.swap(col, pivot);
        inv.swap(col, pivot);
        let d = a[col][col];
        if d == 0.0 {
            return *m;
        }
        for k in 0..4 {
            a[col][k] /= d;
            inv[col][k] /= d;
        }
        for row in 0..4 {
            if row != col {
                let f = a[row][col];
                for k in 0..4 {
                    a[row][k] -= f * a[col][k];
                    inv[row][k] -= f * inv[col][k];
                }
            }
        }
    }
    inv
}

/// The per-entity work of heavy_compute.
#[inline]
pub fn heavy(m: &mut Mat4, p: &mut [f32; 3]) {
    for _ in 0..100 {
        *m = invert(m);
    }
    let q = *p;
    for (i, out) in p.iter_mut().enumerate() {
        *out = m[i][0] * q[0] + m[i][1] * q[1] + m[i][2] * q[2] + m[i][3];
    }
}

/// A deterministic shuffle (xorshift), the same for every crate.
pub fn shuffle<T>(items: &mut [T]) {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    for i in (1..items.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        items.swap(i, (state % (i as u64 + 1)) as usize);
    }
}

/// A 2D affine transform, `[a, b, c, d, tx, ty]`: the local and global
/// transforms of the hierarchy workloads.
pub type Affine = [f32; 6];

/// The identity transform.
pub const IDENTITY: Affine = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];

/// `parent * local`.
#[inline]
pub fn mul(p: &Affine, l: &Affine) -> Affine {
    [
        p[0] * l[0] + p[2] * l[1],
        p[1] * l[0] + p[3] * l[1],
        p[0] * l[2] + p[2] * l[3],
        p[1] * l[2] + p[3] * l[3],
        p[0] * l[4] + p[2] * l[5] + p[4],
        p[1] * l[4] + p[3] * l[5] + p[5],
    ]
}

/// Trees in the propagation forest.
pub const TREES: usize = 1_000;

/// Nodes per tree.
pub const PER_TREE: usize = 100;

/// Children moved per iteration of `reparent`; entities in `despawn_subtree`'s tree.
pub const HIERARCHY_BATCH: usize = 10_000;

/// Parent index of each node of tree `t` in the tree's own numbering (`None`
/// for the root; a parent always comes before its children): a chain to
/// depth 3–8, the rest hung under random nodes above that depth.
pub fn tree_shape(t: usize, seed: &mut u64) -> Vec<Option<usize>> {
    let depth = 3 + t % 6;
    let mut parents = vec![None];
    let mut depths = vec![0];
    for d in 1..=depth {
        parents.push(Some(d - 1));
        depths.push(d);
    }
    while parents.len() < PER_TREE {
        let candidate = (next(seed) >> 33) as usize % parents.len();
        if depths[candidate] < depth {
            parents.push(Some(candidate));
            depths.push(depths[candidate] + 1);
        }
    }
    parents
}

/// The whole forest: for each node in spawn order, its parent's index (global
/// numbering) or `None` for a root.
pub fn forest() -> Vec<Option<usize>> {
    let mut seed = 7;
    let mut all = Vec::with_capacity(TREES * PER_TREE);
    for t in 0..TREES {
        let base = all.len();
        all.extend(tree_shape(t, &mut seed).into_iter().map(|p| p.map(|p| base + p)));
    }
    all
}

/// The local transform of node `i`.
pub fn local(i: usize) -> Affine {
    let a = i as f32 * 0.001;
    [a.cos(), a.sin(), -a.sin(), a.cos(), 1.0, 0.5]
}

/// A linear congruential step, the same for every crate.
#[inline]
pub fn next(seed: &mut u64) -> u64 {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *seed
}

/// The nodes whose locals `propagate_1pct` changes in an iteration (1%).
pub fn changed_nodes(seed: &mut u64, len: usize) -> impl Iterator<Item = usize> + '_ {
    (0..len / 100).map(move |_| (next(seed) >> 33) as usize % len)
}

/// The parent of each node of `despawn_subtree`'s tree (node 0 is the root;
/// 10 children per node, breadth first).
pub fn subtree_parent(i: usize) -> usize {
    (i - 1) / 10
}
