//! Visiting a hierarchy parent before child, for propagation (global
//! transforms from local ones, inherited visibility): sequentially, or in
//! parallel with one task per tree.

use rayon::prelude::*;

use super::{Relationship, RelationshipTarget};
use crate::entity::Entity;
use crate::query::{FetchContext, QueryData, QueryFilter, QueryState};
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
    /// Trees are visited in parallel (one rayon task per root) by
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
    /// Schedule::new().add_system(propagate).run(&mut world);
    /// assert_eq!(world.get::<Global>(grandchild).map(|g| g.0), Some(7.0));
    /// ```
    pub fn propagate<R: Relationship, S>(&mut self, f: impl for<'i> Fn(Option<&S>, Q::Item<'i>) -> Option<S>) {
        let (world, state, ctx) = self.parts();
        for root in roots::<R, Q, F>(world, state) {
            // SAFETY: `&mut self` holds the query's access; `walk` hands out one
            // item at a time, each dropped before the next is made.
            unsafe { walk::<R, Q, F, S>(world, state, ctx, root, &f) };
        }
    }

    /// [`propagate`](Self::propagate) with the trees visited in parallel, one
    /// rayon task per root; within a tree, parents still come first. Use it when
    /// there are many trees (a scene of objects), not one deep one.
    ///
    /// Sound for any `f`: an entity is visited from a parent only when its own
    /// `R` names that parent, and `R` is an immutable component with one target
    /// per entity, so no two tasks ever reach the same entity.
    pub fn par_propagate<R: Relationship, S: Send>(
        &mut self,
        f: impl for<'i> Fn(Option<&S>, Q::Item<'i>) -> Option<S> + Send + Sync,
    ) where
        Q::State: Sync,
    {
        let (world, state, ctx) = self.parts();
        let roots = roots::<R, Q, F>(world, state);
        roots.par_iter().for_each(|&root| {
            // SAFETY: `&mut self` holds the query's access; the trees are
            // disjoint (see above), so tasks make items of distinct entities; in
            // a task, one item at a time.
            unsafe { walk::<R, Q, F, S>(world, state, ctx, root, &f) };
        });
    }
}

/// The query's entities without an `R`, in storage order: whole archetypes
/// without the component, row by row only where `R` is sparse.
fn roots<R: Relationship, Q: QueryData, F: QueryFilter>(world: &World, state: &QueryState<Q, F>) -> Vec<Entity> {
    let archetypes = world.archetypes();
    let relationship = crate::component::component_id::<R>();
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

/// Visits `root`'s tree depth-first, parents first, with an explicit stack (a
/// deep chain does not overflow the thread's stack).
///
/// # Safety
/// The caller holds the query's whole access for the call, and no other live
/// item of the query refers to an entity of this tree.
unsafe fn walk<R: Relationship, Q: QueryData, F: QueryFilter, S>(
    world: &World,
    state: &QueryState<Q, F>,
    ctx: FetchContext,
    root: Entity,
    f: &impl for<'i> Fn(Option<&S>, Q::Item<'i>) -> Option<S>,
) {
    // SAFETY: forwarded; the item is dropped inside `f`'s call.
    let Some(value) = (unsafe { visit(world, state, ctx, root, None, f) }) else { return };
    let mut stack: Vec<(Entity, &[Entity], S)> = vec![(root, sources::<R>(world, root), value)];
    while let Some((parent, children, _)) = stack.last_mut() {
        let parent = *parent;
        let Some((&child, rest)) = children.split_first() else {
            stack.pop();
            continue;
        };
        *children = rest;
        // Only a child whose own link names this parent: what makes trees disjoint.
        if world.get::<R>(child).map(R::get) != Some(parent) {
            continue;
        }
        let value = &stack.last().expect("the parent's frame").2;
        // SAFETY: as above.
        if let Some(next) = unsafe { visit(world, state, ctx, child, Some(value), f) } {
            stack.push((child, sources::<R>(world, child), next));
        }
    }
}

/// Calls `f` with `entity`'s item, if the query matches it.
///
/// # Safety
/// As for [`walk`].
unsafe fn visit<Q: QueryData, F: QueryFilter, S>(
    world: &World,
    state: &QueryState<Q, F>,
    ctx: FetchContext,
    entity: Entity,
    parent: Option<&S>,
    f: &impl for<'i> Fn(Option<&S>, Q::Item<'i>) -> Option<S>,
) -> Option<S> {
    // SAFETY: forwarded from the caller: the access is held and no other item of
    // this entity is live.
    let item = unsafe { state.get_unchecked_with(world, entity, ctx) }.ok()?;
    f(parent, item)
}

/// The entities listed by `entity`'s `R::Target`.
fn sources<R: Relationship>(world: &World, entity: Entity) -> &[Entity] {
    world.get::<R::Target>(entity).map_or(&[], |t| t.sources())
}
