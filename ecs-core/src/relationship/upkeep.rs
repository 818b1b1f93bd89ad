//! The hooks that keep a relationship and its target in step, and the check
//! that refuses a bad link before anything changes.

use super::{Relationship, RelationshipTarget};
use crate::component::{HookContext, component_id};
use crate::entity::Entity;
use crate::error::{EcsError, RelationshipProblem};
use crate::panics::{catch_each, resume_deferred};
use crate::world::{DeferredWorld, World};

/// Refuses a link from `entity` (`None`: being spawned) to `target` through `R`
/// when the target is dead, is the entity, or is one of its descendants.
///
/// # Errors
/// [`EcsError::InvalidRelationship`] naming the problem.
pub fn check_link<R: Relationship>(world: &World, entity: Option<Entity>, target: Entity) -> Result<(), EcsError> {
    let refuse = |problem| EcsError::InvalidRelationship {
        entity: entity.unwrap_or(Entity::PLACEHOLDER),
        target,
        relationship: core::any::type_name::<R>(),
        problem,
    };
    if !world.contains(target) {
        return Err(refuse(RelationshipProblem::DeadTarget));
    }
    let Some(entity) = entity else { return Ok(()) };
    if entity == target {
        return Err(refuse(RelationshipProblem::SelfTarget));
    }
    // Walk up from the target: meeting the entity means the target descends from it.
    let mut ancestor = target;
    while let Some(next) = world.get::<R>(ancestor).map(R::get) {
        if next == entity {
            return Err(refuse(RelationshipProblem::Cycle));
        }
        ancestor = next;
    }
    Ok(())
}

/// `on_insert` of a relationship: lists the source on its target.
pub fn relationship_on_insert<R: Relationship>(mut world: DeferredWorld, ctx: HookContext) {
    let source = ctx.entity;
    let Some(target) = world.get::<R>(source).map(R::get) else { return };
    link::<R>(world.world_mut_internal(), source, target);
}

/// `on_discard` of a relationship (also on remove and despawn): takes the source
/// off its target's list. An emptied list is removed, as bevy_ecs does.
pub fn relationship_on_discard<R: Relationship>(mut world: DeferredWorld, ctx: HookContext) {
    let source = ctx.entity;
    let Some(target) = world.get::<R>(source).map(R::get) else { return };
    unlink::<R>(world.world_mut_internal(), source, target);
}

/// Lists `source` on the target of the `R` it holds, unless it is listed
/// there (or waiting to be): what `on_insert` does, redone when a panicking
/// hook or observer skipped it, or when a panic cancelled a removal after
/// `on_discard` had unlinked the source
/// ([`Component::__RELINK`](crate::Component::__RELINK)). Running it again
/// changes nothing.
pub fn relationship_relink<R: Relationship>(world: &mut World, source: Entity) {
    let Some(target) = world.get::<R>(source).map(R::get) else { return };
    let listed = match world.get::<R::Target>(target) {
        Some(list) => list.sources().contains(&source),
        None => world
            .pending_links
            .by_target
            .get(&(component_id::<R::Target>(), target))
            .is_some_and(|pending| pending.contains(&source)),
    };
    if !listed {
        link::<R>(world, source, target);
    }
}

/// An insert of a relationship over the one `source` holds, where its hooks
/// are all that runs (no lifecycle observer; the link checked): what
/// `on_discard`, the replace and `on_insert` do, with the old and new targets
/// in hand instead of read back from the source by each hook. The old value is
/// dropped last, once both lists agree with the new one (a panicking drop
/// then leaves the world consistent). `Err` hands the value back when
/// `source` holds no `R`.
pub fn relationship_replace<R: Relationship>(world: &mut World, source: Entity, value: R) -> Result<(), R> {
    let new = value.get();
    let Some(mut held) = world.get_mut_internal::<R>(source) else { return Err(value) };
    let old = core::mem::replace(&mut *held, value);
    unlink::<R>(world, source, old.get());
    link::<R>(world, source, new);
    drop(old);
    Ok(())
}

/// Lists `source` on `target`'s list (made by a command when the target has
/// none yet).
fn link<R: Relationship>(world: &mut World, source: Entity, target: Entity) {
    if let Some(mut list) = world.get_mut_internal::<R::Target>(target) {
        list.__sources_mut().__push(source);
        return;
    }
    if !world.contains(target) {
        // Only a spawn links to a dead target (every other way in checks the
        // link first, and `spawn` reported it): the source loses the link, as
        // in bevy_ecs, before any later operation sees it.
        world.defer(move |world| {
            if world.get::<R>(source).is_some_and(|r| r.get() == target) {
                let _ = world.remove::<R>(source);
            }
        });
        return;
    }
    let key = (component_id::<R::Target>(), target);
    let pending = world.pending_links.by_target.entry(key).or_default();
    pending.push(source);
    if pending.len() == 1 {
        world.defer(move |world| insert_pending::<R>(world, target));
    }
}

/// Takes `source` off `target`'s list (or the links pending for it).
fn unlink<R: Relationship>(world: &mut World, source: Entity, target: Entity) {
    if let Some(mut list) = world.get_mut_internal::<R::Target>(target) {
        let sources = list.__sources_mut();
        sources.__remove(source);
        if sources.as_slice().is_empty() {
            world.defer(move |world| remove_if_empty::<R::Target>(world, target));
        }
        return;
    }
    // A target without a list is usually a dead one (a despawned parent's
    // children going with it), with no links pending.
    if world.pending_links.by_target.is_empty() {
        return;
    }
    if let Some(pending) = world.pending_links.by_target.get_mut(&(component_id::<R::Target>(), target)) {
        if let Some(index) = pending.iter().rposition(|&e| e == source) {
            pending.remove(index);
        }
    }
}

/// `on_insert` of a target: keeps only the sources that point at it. The
/// world's own lists pass unchanged; a list taken from another entity (removed
/// there, inserted here) or made empty by hand cannot claim sources it does not
/// have.
pub fn target_on_insert<T: RelationshipTarget>(mut world: DeferredWorld, ctx: HookContext) {
    keep_linked_sources::<T>(world.world_mut_internal(), ctx.entity);
}

/// What `target_on_insert` does, redone after a panic skipped it
/// ([`Component::__RELINK`](crate::Component::__RELINK)): running it again
/// changes nothing.
pub fn target_relink<T: RelationshipTarget>(world: &mut World, target: Entity) {
    keep_linked_sources::<T>(world, target);
}

/// Takes off `target`'s list the sources that do not point at it, and queues
/// the removal of a list left empty.
fn keep_linked_sources<T: RelationshipTarget>(world: &mut World, target: Entity) {
    let Some(listed) = world.get::<T>(target).map(|t| t.sources().to_vec()) else { return };
    let stale: Vec<Entity> =
        listed.iter().copied().filter(|&s| !linked_to::<T::Relationship>(world, s, target)).collect();
    if !stale.is_empty() {
        let mut list = world.get_mut_internal::<T>(target).expect("read above");
        let sources = list.__sources_mut();
        stale.into_iter().for_each(|s| {
            sources.__remove(s);
        });
    }
    if world.get::<T>(target).is_some_and(|t| t.sources().is_empty()) {
        world.defer(move |world| remove_if_empty::<T>(world, target));
    }
}

/// `on_discard` of a target (also on remove and despawn): every source loses its
/// relationship, unless the target is being despawned with a linked despawn
/// (then `on_despawn` despawns them, and unlinks any whose despawn a hook
/// stopped), or the target still lists it when the command runs (its removal
/// was cancelled by a panic, or a new list names the source).
pub fn target_on_discard<T: RelationshipTarget>(mut world: DeferredWorld, ctx: HookContext) {
    let target = ctx.entity;
    if T::LINKED_SPAWN && world.world_mut_internal().deferred.despawn_target == Some(target) {
        return;
    }
    let Some(sources) = world.get::<T>(target).map(|t| t.sources().to_vec()) else { return };
    if sources.is_empty() {
        return;
    }
    world.world_mut_internal().defer(move |world| {
        for source in sources {
            // A source the target lists still keeps its link: the removal was
            // cancelled (a later hook or observer panicked), or the list was
            // replaced by one naming it.
            let listed = world.get::<T>(target).is_some_and(|list| list.sources().contains(&source));
            if !listed && linked_to::<T::Relationship>(world, source, target) {
                let _ = world.remove::<T::Relationship>(source);
            }
        }
    });
}

/// `on_despawn` of a target with a linked despawn: despawns its sources (and,
/// through theirs, every descendant).
///
/// A source whose own hook panics stays (a panicking hook stops its entity's
/// despawn, as everywhere) and is unlinked; the other sources are still
/// despawned, and the first panic is resumed after.
/// A target still alive when the command runs is one whose despawn a later hook
/// stopped by panicking: it keeps its sources.
pub fn target_on_despawn<T: RelationshipTarget>(mut world: DeferredWorld, ctx: HookContext) {
    if !T::LINKED_SPAWN {
        return;
    }
    let target = ctx.entity;
    let Some(sources) = world.get::<T>(target).map(|t| t.sources().to_vec()) else { return };
    world.world_mut_internal().defer(move |world| {
        if world.contains(target) {
            return;
        }
        let panic = catch_each(sources.iter().copied(), |source| {
            if linked_to::<T::Relationship>(world, source, target) {
                let _ = world.despawn(source);
            }
        });
        // A source whose despawn a hook stopped stays, and loses its link
        // to the dead target (what `target_on_discard` does when the target
        // is not despawned with its sources). Only a panic stops one: without
        // one every linked source is gone, and nothing is left to look up.
        if panic.is_some() {
            for source in sources {
                if linked_to::<T::Relationship>(world, source, target) {
                    let _ = world.remove::<T::Relationship>(source);
                }
            }
        }
        resume_deferred(panic);
    });
}

/// `true` when `source` is alive and its `R` points at `target`.
fn linked_to<R: Relationship>(world: &World, source: Entity, target: Entity) -> bool {
    world.get::<R>(source).is_some_and(|r| r.get() == target)
}

/// The command of [`relationship_on_insert`] for a target without a list:
/// inserts the list with the links collected meanwhile. A target that died
/// meanwhile takes its sources with it (or unlinks them), as its despawn would
/// have had the list existed.
fn insert_pending<R: Relationship>(world: &mut World, target: Entity) {
    let key = (component_id::<R::Target>(), target);
    let Some(sources) = world.pending_links.by_target.remove(&key) else { return };
    let mut linked = core::mem::take(&mut world.pending_links.spare);
    linked.extend(sources.into_iter().filter(|&s| linked_to::<R>(world, s, target)));
    if linked.is_empty() {
        world.pending_links.spare = linked;
        return;
    }
    let sources = linked;
    if !world.contains(target) {
        for source in sources {
            let _ = if <R::Target as RelationshipTarget>::LINKED_SPAWN {
                world.despawn(source)
            } else {
                world.remove::<R>(source).map(drop)
            };
        }
        return;
    }
    if let Some(mut list) = world.get_mut_internal::<R::Target>(target) {
        let list = list.__sources_mut();
        sources.into_iter().for_each(|s| list.__push(s));
        return;
    }
    let list = R::Target::__from_sources(sources);
    world.insert(target, list).expect("the target is alive (checked above)");
}

/// Removes an emptied target list, unless it was refilled meanwhile.
fn remove_if_empty<T: RelationshipTarget>(world: &mut World, target: Entity) {
    if !world.get::<T>(target).is_some_and(|t| t.sources().is_empty()) {
        return;
    }
    // The list's buffer is kept for the next list made (see `PendingLinks`).
    if let Ok(mut list) = world.remove::<T>(target) {
        let buffer = list.__sources_mut().__take_buffer();
        if buffer.capacity() > world.pending_links.spare.capacity() {
            world.pending_links.spare = buffer;
        }
    }
}
