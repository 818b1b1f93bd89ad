//! The checks a save passes before any world sees it: the entity index adds
//! up, every entity reference points at a saved entity, and relationships
//! agree on both sides and form no cycle.

use core::num::NonZeroU32;

use crate::component::ComponentId;
use crate::entity::Entity;

use super::error::LoadError;
use super::registry::Relation;
use super::save::WorldSave;

/// Runs every check (the structure of each archetype was checked while
/// parsing).
pub(crate) fn check(save: &mut WorldSave) -> Result<(), LoadError> {
    let live = check_entity_index(save)?;
    check_references(save, &live)?;
    check_relationships(save, &live)
}

/// The generation of each live saved entity by slot, after checking that
/// every slot is live, free or retired exactly once.
fn check_entity_index(save: &WorldSave) -> Result<Vec<Option<NonZeroU32>>, LoadError> {
    let listed = save.len() + save.free.len() + save.retired.len();
    if listed != save.slots as usize {
        return Err(LoadError::InvalidEntityIndex(format!(
            "{} slots, but {listed} are listed as live, free or retired",
            save.slots
        )));
    }
    // `slots` is bounded by the data actually read (checked just above).
    let mut seen = vec![false; save.slots as usize];
    let mut live = vec![None; save.slots as usize];
    let mut mark = |entity: Entity| -> Result<(), LoadError> {
        let slot = seen.get_mut(entity.index() as usize).ok_or_else(|| {
            LoadError::InvalidEntityIndex(format!("entity {entity} is beyond the {} saved slots", save.slots))
        })?;
        if core::mem::replace(slot, true) {
            return Err(LoadError::DuplicateEntity(entity));
        }
        Ok(())
    };
    for entity in save.entities() {
        mark(entity)?;
        live[entity.index() as usize] = Some(entity.generation());
    }
    save.free.iter().chain(&save.retired).try_for_each(|&entity| mark(entity))?;
    Ok(live)
}

fn is_live(live: &[Option<NonZeroU32>], entity: Entity) -> bool {
    live.get(entity.index() as usize).is_some_and(|&g| g == Some(entity.generation()))
}

/// Every entity a loaded value holds is a saved, live entity (or the
/// placeholder, which names none).
fn check_references(save: &mut WorldSave, live: &[Option<NonZeroU32>]) -> Result<(), LoadError> {
    for archetype in &mut save.archetypes {
        for loaded in &mut archetype.columns {
            let Some(map_entities) = loaded.map_entities else { continue };
            for (row, &entity) in archetype.entities.iter().enumerate() {
                let mut dangling = None;
                let mut check = |target: Entity| {
                    if target != Entity::PLACEHOLDER && !is_live(live, target) {
                        dangling.get_or_insert(target);
                    }
                    target
                };
                // SAFETY: `value` is a value of the column's type, which is the
                // type `map_entities` was made for (both from one registry entry).
                loaded.column.with_row_mut(row, |value| unsafe { map_entities.map(value, &mut check) });
                if let Some(target) = dangling {
                    return Err(LoadError::DanglingEntity { entity, component: loaded.name.clone(), target });
                }
            }
        }
    }
    Ok(())
}

/// Per relationship: each source's target lists it exactly once, each listed
/// entity points back, and following targets never comes back around. Notes
/// the empty lists in `save.empty_lists`.
fn check_relationships(save: &mut WorldSave, live: &[Option<NonZeroU32>]) -> Result<(), LoadError> {
    let mut relationships: Vec<(ComponentId, ComponentId)> = Vec::new();
    for column in save.archetypes.iter().flat_map(|a| &a.columns) {
        let pair = match column.relation {
            Relation::Source { target, .. } => (column.info.id(), target),
            Relation::Target { source, .. } => (source, column.info.id()),
            Relation::None => continue,
        };
        if !relationships.contains(&pair) {
            relationships.push(pair);
        }
    }
    for (source, target) in relationships {
        let empty = check_relationship(save, live, source, target)?;
        save.empty_lists.extend(empty.into_iter().map(|entity| (entity, target)));
    }
    Ok(())
}

/// The entities whose list of `target` is empty, once the checks pass.
fn check_relationship(
    save: &WorldSave,
    live: &[Option<NonZeroU32>],
    source: ComponentId,
    target: ComponentId,
) -> Result<Vec<Entity>, LoadError> {
    let slots = live.len();
    let mut empty_lists = Vec::new();
    let mut target_of: Vec<Option<Entity>> = vec![None; slots];
    let mut links = 0usize;
    let mut names = (String::new(), String::new());
    for archetype in &save.archetypes {
        for loaded in archetype.columns.iter().filter(|c| c.info.id() == source) {
            let Relation::Source { get, .. } = loaded.relation else { continue };
            names.0.clone_from(&loaded.name);
            for (row, &entity) in archetype.entities.iter().enumerate() {
                let Some(value) = loaded.column.get(row) else { continue };
                // SAFETY: `get` reads the relationship type this column holds
                // (both from one registry entry).
                let to = unsafe { get(value) };
                if !is_live(live, to) {
                    return Err(LoadError::InvalidRelationship(format!(
                        "`{}` of {entity} points at {to}, which the save does not hold",
                        loaded.name
                    )));
                }
                if to == entity {
                    return Err(LoadError::InvalidRelationship(format!(
                        "{entity} is its own `{}` target",
                        loaded.name
                    )));
                }
                target_of[entity.index() as usize] = Some(to);
                links += 1;
            }
        }
    }
    let mut listed = vec![false; slots];
    let mut listings = 0usize;
    for archetype in &save.archetypes {
        for loaded in archetype.columns.iter().filter(|c| c.info.id() == target) {
            let Relation::Target { sources, .. } = loaded.relation else { continue };
            names.1.clone_from(&loaded.name);
            for (row, &entity) in archetype.entities.iter().enumerate() {
                let Some(value) = loaded.column.get(row) else { continue };
                // SAFETY: `sources` reads the target type this column holds.
                let list = unsafe { sources(value) };
                // The world removes a list its last source leaves once the
                // operation doing it is complete; a save taken meanwhile (from
                // a hook or an observer) holds it empty. The load removes it.
                if list.is_empty() {
                    empty_lists.push(entity);
                }
                for &listed_source in list {
                    // Dangling entries were refused by `check_references`.
                    let index = listed_source.index() as usize;
                    if !is_live(live, listed_source) || target_of[index] != Some(entity) {
                        return Err(LoadError::InvalidRelationship(format!(
                            "`{}` of {entity} lists {listed_source}, whose `{}` does not point at {entity}",
                            loaded.name,
                            if names.0.is_empty() { "relationship" } else { &names.0 }
                        )));
                    }
                    if core::mem::replace(&mut listed[index], true) {
                        return Err(LoadError::InvalidRelationship(format!(
                            "{listed_source} is listed twice as a source of `{}`",
                            loaded.name
                        )));
                    }
                    listings += 1;
                }
            }
        }
    }
    if listings != links {
        let unlisted = (0..slots).find(|&i| target_of[i].is_some() && !listed[i]).expect("a link is unlisted");
        let to = target_of[unlisted].expect("found above");
        return Err(LoadError::InvalidRelationship(format!(
            "slot {unlisted} points at {to}, whose `{}` does not list it",
            if names.1.is_empty() { "relationship target" } else { &names.1 }
        )));
    }
    // Cycles: walk up from each source, colouring slots (1: on the current
    // path, 2: known to reach a root).
    let mut colour = vec![0u8; slots];
    for start in 0..slots {
        let mut at = start;
        while colour[at] == 0 {
            colour[at] = 1;
            match target_of[at] {
                Some(up) => at = up.index() as usize,
                None => break,
            }
        }
        if colour[at] == 1 && target_of[at].is_some() {
            return Err(LoadError::InvalidRelationship(format!("`{}` links form a cycle through slot {at}", names.0)));
        }
        let mut at = start;
        while colour[at] == 1 {
            colour[at] = 2;
            match target_of[at] {
                Some(up) => at = up.index() as usize,
                None => break,
            }
        }
    }
    Ok(empty_lists)
}
