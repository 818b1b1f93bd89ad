//! Walking relationships: ancestors, descendants depth- and breadth-first, the
//! root; from `&World` (the hierarchy) or from a system's `Query<&Children>` /
//! `Query<&ChildOf>` (any relationship). No step allocates: the depth-first
//! stack and the breadth-first queue hold slices of the lists and grow only as
//! deep or wide as the tree.

use std::collections::VecDeque;

use super::{ChildOf, Children, Relationship, RelationshipTarget};
use crate::entity::Entity;
use crate::query::QueryFilter;
use crate::system::Query;
use crate::world::World;

/// The ancestors of an entity, nearest first (its parent, the parent's parent, …).
pub struct Ancestors<F> {
    next: Option<Entity>,
    parent_of: F,
}

impl<F: FnMut(Entity) -> Option<Entity>> Iterator for Ancestors<F> {
    type Item = Entity;
    #[inline]
    fn next(&mut self) -> Option<Entity> {
        let current = self.next?;
        self.next = (self.parent_of)(current);
        Some(current)
    }
}

/// The descendants of an entity, depth-first in pre-order (a child, then its
/// children, then its next sibling): every parent comes before its children.
pub struct Descendants<'a, F> {
    stack: Vec<&'a [Entity]>,
    children_of: F,
}

impl<'a, F: FnMut(Entity) -> &'a [Entity]> Iterator for Descendants<'a, F> {
    type Item = Entity;
    #[inline]
    fn next(&mut self) -> Option<Entity> {
        loop {
            let top = self.stack.last_mut()?;
            let Some((&first, rest)) = top.split_first() else {
                self.stack.pop();
                continue;
            };
            *top = rest;
            let children = (self.children_of)(first);
            if !children.is_empty() {
                self.stack.push(children);
            }
            return Some(first);
        }
    }
}

/// The descendants of an entity, level by level (all children, then all
/// grandchildren, …).
pub struct DescendantsBreadthFirst<'a, F> {
    queue: VecDeque<&'a [Entity]>,
    children_of: F,
}

impl<'a, F: FnMut(Entity) -> &'a [Entity]> Iterator for DescendantsBreadthFirst<'a, F> {
    type Item = Entity;
    #[inline]
    fn next(&mut self) -> Option<Entity> {
        loop {
            let front = self.queue.front_mut()?;
            let Some((&first, rest)) = front.split_first() else {
                self.queue.pop_front();
                continue;
            };
            *front = rest;
            let children = (self.children_of)(first);
            if !children.is_empty() {
                self.queue.push_back(children);
            }
            return Some(first);
        }
    }
}

fn ancestors<F: FnMut(Entity) -> Option<Entity>>(entity: Entity, mut parent_of: F) -> Ancestors<F> {
    Ancestors { next: parent_of(entity), parent_of }
}

fn descendants<'a, F: FnMut(Entity) -> &'a [Entity]>(entity: Entity, mut children_of: F) -> Descendants<'a, F> {
    let first = children_of(entity);
    Descendants { stack: if first.is_empty() { Vec::new() } else { vec![first] }, children_of }
}

fn breadth_first<'a, F: FnMut(Entity) -> &'a [Entity]>(
    entity: Entity,
    mut children_of: F,
) -> DescendantsBreadthFirst<'a, F> {
    let first = children_of(entity);
    let queue = if first.is_empty() { VecDeque::new() } else { VecDeque::from([first]) };
    DescendantsBreadthFirst { queue, children_of }
}

impl World {
    /// The ancestors of `entity` through [`ChildOf`], nearest first.
    ///
    /// # Example
    /// ```
    /// use ecs_core::prelude::*;
    /// let mut world = World::new();
    /// let root = world.spawn(());
    /// let arm = world.spawn(ChildOf(root));
    /// let hand = world.spawn(ChildOf(arm));
    /// assert_eq!(world.iter_ancestors(hand).collect::<Vec<_>>(), [arm, root]);
    /// assert_eq!(world.iter_descendants(root).collect::<Vec<_>>(), [arm, hand]);
    /// assert_eq!(world.root_ancestor(hand), root);
    /// ```
    pub fn iter_ancestors(&self, entity: Entity) -> Ancestors<impl FnMut(Entity) -> Option<Entity> + '_> {
        ancestors(entity, |e| self.parent(e))
    }

    /// The descendants of `entity` through [`Children`], depth-first, each parent
    /// before its children.
    pub fn iter_descendants<'s>(&'s self, entity: Entity) -> Descendants<'s, impl FnMut(Entity) -> &'s [Entity] + 's> {
        descendants(entity, |e| self.children(e))
    }

    /// The descendants of `entity`, level by level.
    pub fn iter_descendants_breadth_first<'s>(
        &'s self,
        entity: Entity,
    ) -> DescendantsBreadthFirst<'s, impl FnMut(Entity) -> &'s [Entity] + 's> {
        breadth_first(entity, |e| self.children(e))
    }

    /// The topmost ancestor of `entity` (itself when it has no parent).
    pub fn root_ancestor(&self, entity: Entity) -> Entity {
        self.iter_ancestors(entity).last().unwrap_or(entity)
    }

    /// The entities with no parent that have children: the roots of the
    /// hierarchy's trees, in storage order.
    pub fn hierarchy_roots(&self) -> Vec<Entity> {
        let mut roots =
            self.query_state_filtered::<Entity, (crate::query::With<Children>, crate::query::Without<ChildOf>)>();
        roots.iter(self).collect()
    }
}

/// Traversal from inside a system, through a query of the relationship's
/// components: `Query<&Children>` walks down, `Query<&ChildOf>` walks up (any
/// relationship works the same way).
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// #[derive(Component)] struct Root;
/// #[derive(Default)] struct Count(usize);
/// fn count(roots: Query<Entity, With<Root>>, children: Query<&Children>, mut n: ResMut<Count>) {
///     for root in roots.iter() {
///         n.0 += children.iter_descendants(root).count();
///     }
/// }
/// let mut world = World::new();
/// world.insert_resource(Count::default());
/// let root = world.spawn(Root);
/// world.entity_mut(root)?.with_children(|c| {
///     c.spawn(()).with_children(|c| { c.spawn(()); });
/// });
/// Schedule::new().add_systems(count).run(&mut world);
/// assert_eq!(world.resource::<Count>().0, 2);
/// # Ok::<(), EcsError>(())
/// ```
impl<'w, 'a, T: RelationshipTarget, F: QueryFilter> Query<'w, &'a T, F> {
    /// The sources of `entity` (its children, for `Query<&Children>`), in link
    /// order; none if it has none or does not match. bevy_ecs's name; the list
    /// itself is [`sources_of`](Self::sources_of).
    pub fn relationship_sources(&self, entity: Entity) -> core::iter::Copied<core::slice::Iter<'_, Entity>> {
        self.sources_of(entity).iter().copied()
    }

    /// The list of `entity`'s sources, in link order (empty if none).
    pub fn sources_of(&self, entity: Entity) -> &[Entity] {
        // A leaf has no list: a miss at every leaf of a walk, so it stays a
        // reason and never becomes an error (which names the query).
        self.get_or_none(entity).map_or(&[], |t| t.sources())
    }

    /// The children of `entity`, in link order: [`sources_of`](Self::sources_of)
    /// under the name [`World::children`] and bevy's `HierarchyQueryExt` use.
    pub fn children(&self, entity: Entity) -> &[Entity] {
        self.sources_of(entity)
    }

    /// The descendants of `entity`, depth-first, each parent before its children.
    pub fn iter_descendants<'s>(&'s self, entity: Entity) -> Descendants<'s, impl FnMut(Entity) -> &'s [Entity] + 's> {
        descendants(entity, |e| self.sources_of(e))
    }

    /// The descendants of `entity`, level by level.
    pub fn iter_descendants_breadth_first<'s>(
        &'s self,
        entity: Entity,
    ) -> DescendantsBreadthFirst<'s, impl FnMut(Entity) -> &'s [Entity] + 's> {
        breadth_first(entity, |e| self.sources_of(e))
    }
}

impl<'w, 'a, R: Relationship, F: QueryFilter> Query<'w, &'a R, F> {
    /// The target of `entity` (its parent, for `Query<&ChildOf>`): the entity it
    /// is related to, as bevy_ecs's `related` (whose relationship is a type
    /// parameter; here it is the query's).
    pub fn related(&self, entity: Entity) -> Option<Entity> {
        self.get_or_none(entity).map(R::get)
    }

    /// The parent of `entity`: [`related`](Self::related) under the name
    /// [`World::parent`] and bevy's `HierarchyQueryExt` use.
    pub fn parent(&self, entity: Entity) -> Option<Entity> {
        self.related(entity)
    }

    /// The ancestors of `entity`, nearest first.
    pub fn iter_ancestors(&self, entity: Entity) -> Ancestors<impl FnMut(Entity) -> Option<Entity> + '_> {
        ancestors(entity, |e| self.related(e))
    }

    /// The topmost ancestor of `entity` (itself when it has no target).
    pub fn root_ancestor(&self, entity: Entity) -> Entity {
        self.iter_ancestors(entity).last().unwrap_or(entity)
    }
}
