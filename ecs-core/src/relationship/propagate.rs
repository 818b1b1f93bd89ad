//! Visiting a hierarchy parent before child, for propagation (global
//! transforms from local ones, inherited visibility): sequentially, or in
//! parallel with one task per tree.

use super::{Relationship, RelationshipTarget};
use crate::archetype::ArchetypeId;
use crate::component::component_id;
use crate::entity::Entity;
use crate::parallel::{Mode, for_each_index, threads};
use crate::query::{FetchContext, QueryData, QueryFilter, QueryState};
use crate::storage::Column;
use crate::system::Query;
use crate::world::World;

impl<Q: QueryData, F: QueryFilter> Query<'_, Q, F> {
    /// Visits every tree of the relationship `R` (`ChildOf` for the hierarchy)
    /// among the query's entities, each parent before its children: `f` gets
    /// the value its parent returned (`None` for a root) and the entity's item,
    /// and returns the value for the entity's children, or `None` to skip them.
    /// Roots are the query's entities without an `R`; a node the query does not
    /// match ends the walk of its subtree.
    ///
    /// Trees are visited in parallel (spread over the worker pool) by
    /// [`par_propagate`](Self::par_propagate); this is the sequential form.
    ///
    /// # Example
    /// ```
    /// use ecs_core::prelude::*;
    /// #[derive(Component)] struct Local(f32);
    /// #[derive(Component)] struct Global(f32);
    /// fn propagate(mut nodes: Query<(&Local, &mut Global)>) {
    ///     nodes.propagate::<ChildOf, f32>(|parent, (local, global)| {
    ///         global.0 = parent.copied().unwrap_or(0.0) + local.0;
    ///         Some(global.0)
    ///     });
    /// }
    /// let mut world = World::new();
    /// let root = world.spawn((Local(1.0), Global(0.0)));
    /// let child = world.spawn((Local(2.0), Global(0.0), ChildOf(root)));
    /// let grandchild = world.spawn((Local(4.0), Global(0.0), ChildOf(child)));
    /// Schedule::new().add_systems(propagate).run(&mut world);
    /// assert_eq!(world.get::<Global>(grandchild).map(|g| g.0), Some(7.0));
    /// ```
    pub fn propagate<R: Relationship, S>(&mut self, f: impl for<'i> Fn(Option<&S>, Q::Item<'i>) -> Option<S>) {
        let (world, state, ctx) = self.parts();
        let mut walker = Walker::<R, Q, F, S>::new(world, state, ctx);
        for root in roots::<R, Q, F>(world, state) {
            // SAFETY: `&mut self` holds the query's access; the walker hands out
            // one item at a time, each dropped before the next is made.
            unsafe { walker.walk(root, &f) };
        }
    }

    /// [`propagate`](Self::propagate) with the trees visited in parallel, spread
    /// over the [worker pool](crate::parallel) in runs of roots; within a tree,
    /// parents still come first. Use it when there are many trees (a scene of
    /// objects), not one deep one. Like `par_for_each`, it runs inline instead
    /// where the query measured that to be faster.
    ///
    /// Sound for any `f`: an entity is visited from a parent only when its own
    /// `R` names that parent, and `R` is an immutable component with one target
    /// per entity, so no two tasks ever reach the same entity.
    ///
    /// # Example: only what changed
    /// With few changed nodes, mark each changed node and its ancestors first
    /// (in parallel, from the changed nodes, stopping at a node already marked),
    /// then let the walk descend only into marked or recomputed subtrees. The
    /// walk passes every marked node, so it can clear the marks as it goes.
    /// ```
    /// use ecs_core::prelude::*;
    /// use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
    /// #[derive(Component)] struct Local(f32);
    /// #[derive(Component)] struct Global(f32);
    /// /// Marks by entity index: "a changed node is at or below this one".
    /// struct Dirty(Vec<AtomicBool>);
    ///
    /// fn mark(changed: Query<Entity, Changed<Local>>, parents: Query<&ChildOf>, dirty: Res<Dirty>) {
    ///     changed.par_for_each(|e| {
    ///         for a in std::iter::once(e).chain(parents.iter_ancestors(e)) {
    ///             if dirty.0[a.index() as usize].swap(true, Relaxed) {
    ///                 break; // the rest of the way up is marked already
    ///             }
    ///         }
    ///     });
    /// }
    /// fn propagate(mut nodes: Query<(Entity, Ref<Local>, Mut<Global>)>, dirty: Res<Dirty>) {
    ///     nodes.par_propagate::<ChildOf, (f32, bool)>(|parent, (e, local, mut global)| {
    ///         let recompute = parent.is_some_and(|p| p.1) || local.is_changed();
    ///         if recompute {
    ///             global.0 = parent.map_or(0.0, |p| p.0) + local.0;
    ///         }
    ///         let marked = dirty.0[e.index() as usize].swap(false, Relaxed);
    ///         // `then`, not `then_some`: an untouched node's global is not read.
    ///         (recompute || marked).then(|| (global.0, recompute))
    ///     });
    /// }
    /// let mut world = World::new();
    /// let root = world.spawn((Local(1.0), Global(0.0)));
    /// let arm = world.spawn((Local(2.0), Global(0.0), ChildOf(root)));
    /// let hand = world.spawn((Local(4.0), Global(0.0), ChildOf(arm)));
    /// world.insert_resource(Dirty((0..3).map(|_| AtomicBool::new(false)).collect()));
    /// let mut schedule = Schedule::new();
    /// // Both only read `Dirty` (the marks are atomic): `chain` orders them.
    /// schedule.add_systems((mark, propagate).chain());
    /// schedule.run(&mut world);
    /// assert_eq!(world.get::<Global>(hand).unwrap().0, 7.0);
    /// world.get_mut::<Local>(arm).unwrap().0 = 3.0;
    /// schedule.run(&mut world);
    /// assert_eq!(world.get::<Global>(hand).unwrap().0, 8.0);
    /// ```
    pub fn par_propagate<R: Relationship, S: Send>(
        &mut self,
        f: impl for<'i> Fn(Option<&S>, Q::Item<'i>) -> Option<S> + Send + Sync,
    ) where
        Q::State: Sync,
    {
        let (world, state, ctx) = self.parts();
        let roots = roots::<R, Q, F>(world, state);
        state.parallel().run(|mode| {
            // Runs of roots, several per thread so that uneven trees even out.
            let tasks = match mode {
                Mode::Inline => 1,
                Mode::Parallel => (4 * threads()).min(roots.len()),
            };
            let per_task = roots.len().div_ceil(tasks.max(1)).max(1);
            for_each_index(tasks, &|task| {
                let mut walker = Walker::<R, Q, F, S>::new(world, state, ctx);
                for &root in roots.iter().skip(task * per_task).take(per_task) {
                    // SAFETY: `&mut self` holds the query's access; the trees are
                    // disjoint (see above) and each root is in one task's run, so
                    // tasks make items of distinct entities; in a task, one item at
                    // a time.
                    unsafe { walker.walk(root, &f) };
                }
            });
        });
    }
}

/// The query's entities without an `R`, in storage order: whole archetypes
/// without the component, row by row only where `R` is sparse.
fn roots<R: Relationship, Q: QueryData, F: QueryFilter>(world: &World, state: &QueryState<Q, F>) -> Vec<Entity> {
    let archetypes = world.archetypes();
    let relationship = component_id::<R>();
    let mut roots = Vec::new();
    for archetype in state.matched().iter().filter_map(|&id| archetypes.get(id)) {
        if !archetype.has(relationship) {
            roots.extend_from_slice(archetype.entities());
        } else if crate::component::is_sparse::<R>() {
            let rows = archetype.entities().iter().enumerate();
            roots.extend(rows.filter(|&(row, _)| !archetype.has_at(relationship, row)).map(|(_, &e)| e));
        }
    }
    roots
}

/// What a walk needs of one archetype, looked up the first time it meets a
/// node stored there: nodes of a forest sit in a handful of archetypes, so
/// each visit costs one entity lookup and a few loads.
struct Lookup<'w, Q: QueryData, F: QueryFilter> {
    /// The query's fetches, `None` when the query does not match the archetype.
    fetches: Option<(Q::Fetch<'w>, F::Fetch<'w>)>,
    /// The column of `R`, if the archetype has one.
    links: Option<&'w Column>,
    /// The column of `R::Target`, if the archetype has one.
    sources: Option<&'w Column>,
}

/// Walks trees of one query, reusing its archetype lookups and its stack from
/// tree to tree (one walker per thread).
struct Walker<'w, 's, R: Relationship, Q: QueryData, F: QueryFilter, S> {
    nodes: Nodes<'w, 's, R, Q, F>,
    /// The path from the root: each node, its children still to visit, and the
    /// value it passes them.
    stack: Vec<(Entity, &'w [Entity], S)>,
}

/// Visits single nodes, through per-archetype lookups.
struct Nodes<'w, 's, R: Relationship, Q: QueryData, F: QueryFilter> {
    world: &'w World,
    state: &'s QueryState<Q, F>,
    ctx: FetchContext,
    /// Archetype index -> 1 + index in `lookups` (0: not looked up yet).
    slots: Vec<u32>,
    lookups: Vec<Lookup<'w, Q, F>>,
    marker: core::marker::PhantomData<fn() -> R>,
}

impl<'w, 's, R: Relationship, Q: QueryData, F: QueryFilter, S> Walker<'w, 's, R, Q, F, S> {
    fn new(world: &'w World, state: &'s QueryState<Q, F>, ctx: FetchContext) -> Self {
        // The walk reads `R` and `R::Target` outside the query's access: a
        // relationship whose target can be written by id does not compile.
        let () = R::__WRITTEN_STRUCTURALLY_ONLY;
        let nodes =
            Nodes { world, state, ctx, slots: Vec::new(), lookups: Vec::new(), marker: core::marker::PhantomData };
        Self { nodes, stack: Vec::new() }
    }

    /// Visits `root`'s tree depth-first, parents first, with an explicit stack
    /// (a deep chain does not overflow the thread's stack).
    ///
    /// # Safety
    /// The caller holds the query's whole access for `'w`, and no other live
    /// item of the query refers to an entity of this tree.
    unsafe fn walk(&mut self, root: Entity, f: &impl for<'i> Fn(Option<&S>, Q::Item<'i>) -> Option<S>) {
        let Self { nodes, stack } = self;
        // SAFETY: forwarded; a root needs no link check.
        let Some((value, children)) = (unsafe { nodes.visit(root, None, f) }) else { return };
        stack.push((root, children, value));
        while let Some((parent, children, _)) = stack.last_mut() {
            let parent = *parent;
            let Some((&child, rest)) = children.split_first() else {
                stack.pop();
                continue;
            };
            *children = rest;
            let value = &stack.last().expect("the parent's frame").2;
            // SAFETY: forwarded; `visit` checks that the child's own link names `parent`.
            if let Some((next, grandchildren)) = unsafe { nodes.visit(child, Some((parent, value)), f) } {
                stack.push((child, grandchildren, next));
            }
        }
    }
}

impl<'w, 's, R: Relationship, Q: QueryData, F: QueryFilter> Nodes<'w, 's, R, Q, F> {
    /// The lookup of `archetype`, made on first use.
    ///
    /// # Safety
    /// The caller holds the query's whole access for `'w` (the fetches made
    /// here are used for as long).
    #[inline]
    unsafe fn lookup(&mut self, archetype: ArchetypeId) -> &Lookup<'w, Q, F> {
        let index = archetype.index();
        if self.slots.len() <= index {
            self.slots.resize(index + 1, 0);
        }
        if self.slots[index] == 0 {
            let stored = self.world.archetypes().get(archetype).expect("a live entity's archetype exists");
            let fetches = self.state.matched_index(archetype).map(|matched| {
                // SAFETY: `matched` indexes the state's matched archetypes, the
                // state is up to date (a system query's is, before its system
                // runs), and the access is the caller's.
                unsafe { self.state.fetches_of(self.world, matched, self.ctx) }
            });
            let links = stored.column(component_id::<R>());
            let sources = stored.column(component_id::<R::Target>());
            self.lookups.push(Lookup { fetches, links, sources });
            self.slots[index] = self.lookups.len() as u32;
        }
        &self.lookups[self.slots[index] as usize - 1]
    }

    /// Calls `f` with `entity`'s item if the query matches it (and, for a child,
    /// if its own `R` names `parent`), returning what `f` returned and the
    /// entity's children.
    ///
    /// # Safety
    /// As for [`Walker::walk`].
    #[inline]
    unsafe fn visit<S>(
        &mut self,
        entity: Entity,
        parent: Option<(Entity, &S)>,
        f: &impl for<'i> Fn(Option<&S>, Q::Item<'i>) -> Option<S>,
    ) -> Option<(S, &'w [Entity])> {
        let location = self.world.location(entity)?;
        let row = location.row.index();
        // SAFETY: forwarded.
        let lookup = unsafe { self.lookup(location.archetype) };
        let (fetch, filter) = lookup.fetches.as_ref()?;
        if let Some((parent, _)) = parent {
            // Only a child whose own link names this parent: what keeps trees
            // disjoint, whatever the target's list says.
            // SAFETY: `links` is `R`'s column; `R` is immutable, written only by
            // structural changes, which the shared world excludes.
            let link = unsafe { read::<R>(lookup.links, row) }?;
            if link.get() != parent {
                return None;
            }
        }
        // SAFETY: the row is the live entity's, below the archetype's length;
        // the fetches are this archetype's; the access and the uniqueness of the
        // item are the caller's.
        let item = unsafe {
            if !(Q::filter_row(fetch, row) && F::filter(filter, row)) {
                return None;
            }
            Q::mark_written(fetch, row..row + 1);
            Q::fetch(fetch, row)
        };
        let next = f(parent.map(|(_, value)| value), item)?;
        // Read after `f`: most visits of a partial propagation end at `f`, and
        // the children are a load from another column.
        // SAFETY: as for `links`, for `R::Target` (immutable too).
        let children = unsafe { read::<R::Target>(lookup.sources, row) }.map_or(&[][..], |t| t.sources());
        Some((next, children))
    }
}

/// Row `row` of `column`, a column of `T`s, if it holds a value.
///
/// # Safety
/// `column` stores `T`s, and nothing writes it while the reference lives.
#[inline]
unsafe fn read<T: 'static>(column: Option<&Column>, row: usize) -> Option<&T> {
    let column = column?;
    // SAFETY: `holds` checked the row is in bounds and holds a value; the
    // column stores whole values (`T` is a relationship or its target, both
    // `WholeComponent`); the caller vouches for the type and for no writer.
    column.holds(row).then(|| unsafe { column.get_unchecked(row).deref::<T>() })
}
