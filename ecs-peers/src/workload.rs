//! The workloads, their ecs_bench_suite parameters, and the shared maths.

/// One benchmark workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// Spawn 10,000 entities of (Transform, Position, Rotation, Velocity) into an empty world.
    SimpleInsert,
    /// `pos += vel` over 10,000 entities of (Transform, Position, Rotation, Velocity).
    SimpleIter,
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
    /// 10 zero-sized tags make 1,024 combinations of 4 entities, all with Data; `data *= 2`.
    ManyArchetypes,
    /// 40,000 entities of (A,B), (A,B,C), (A,B,C,D), (A,B,C,E); three systems swap A/B, C/D, C/E.
    Schedule,
    /// 100 systems, each over its own 10 entities: the scheduler's own overhead.
    TinySystems,
    /// Buffered events: send 1,000,000 events of a `u32` payload, read them all
    /// once with one cursor, then advance the double buffer (ecs `Events` +
    /// `EventCursor`, bevy `Messages` + `MessageCursor`; baseline: one `Vec`).
    Events,
    /// One entity with `Health(i64)` and one global observer subtracting the
    /// event's amount from its target's `Health` (through a query); trigger an
    /// entity-targeted event with an `i64` payload 100,000 times (ecs `Trigger` +
    /// `trigger_targets`, bevy `EntityEvent` + `On` + `trigger`, flecs an observer
    /// of a custom payload event on `&mut Health`, emitted for the entity with
    /// `world.event().add(Health).entity(e).emit(&Hit(1))`).
    Observers,
    /// 1,000,000 entities of `Value(u64)` over 100 archetypes (one of 100 `u8`
    /// marker components each, 10,000 rows apiece; zero-sized markers would not
    /// split ecs-core archetypes); write 10 rows (in 10 archetypes, other rows every
    /// iteration) through tracked mutable access (`world.get_mut`), then sum what
    /// a cached `Changed<Value>` query yields (asserted to be exactly those 10).
    Changed,
}

impl Workload {
    /// Every workload, in table order.
    pub const ALL: [Workload; 13] = [
        Workload::SimpleInsert,
        Workload::SimpleIter,
        Workload::FragmentedIter,
        Workload::HeavyCompute,
        Workload::AddRemove,
        Workload::AddRemoveSparse,
        Workload::RandomGet,
        Workload::ManyArchetypes,
        Workload::Schedule,
        Workload::TinySystems,
        Workload::Events,
        Workload::Observers,
        Workload::Changed,
    ];

    /// The ecs_bench_suite name.
    pub fn name(self) -> &'static str {
        match self {
            Workload::SimpleInsert => "simple_insert",
            Workload::SimpleIter => "simple_iter",
            Workload::FragmentedIter => "fragmented_iter",
            Workload::HeavyCompute => "heavy_compute",
            Workload::AddRemove => "add_remove",
            Workload::AddRemoveSparse => "add_remove_sparse",
            Workload::RandomGet => "random_get",
            Workload::ManyArchetypes => "many_archetypes",
            Workload::Schedule => "schedule",
            Workload::TinySystems => "tiny_systems",
            Workload::Events => "events",
            Workload::Observers => "observers",
            Workload::Changed => "changed",
        }
    }
}

/// Events sent (and read) per iteration of `events`.
pub const EVENTS: u32 = 1_000_000;

/// Triggers per iteration of `observers`.
pub const TRIGGERS: usize = 100_000;

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
