//! What a save of a world holds, decided before anything is written: the
//! archetypes and columns saved (each with its registry entry) and the entity
//! index's slots. Shared by both formats.

use crate::archetype::Archetype;
use crate::entity::Entity;
use crate::storage::Column;
use crate::world::World;

use super::registry::SerializeRegistry;

pub(crate) struct SavePlan<'w> {
    pub(crate) slots: u32,
    pub(crate) free: Vec<Entity>,
    pub(crate) retired: Vec<Entity>,
    pub(crate) archetypes: Vec<PlannedArchetype<'w>>,
}

pub(crate) struct PlannedArchetype<'w> {
    pub(crate) archetype: &'w Archetype,
    /// The saved columns, each with the index of its registry entry, in the
    /// archetype's order.
    pub(crate) columns: Vec<(&'w Column, usize)>,
}

impl SavePlan<'_> {
    pub(crate) fn entity_count(&self) -> usize {
        self.archetypes.iter().map(|a| a.archetype.len()).sum()
    }
}

/// The plan, or a message naming the first component that is neither
/// registered nor skipped and that some entity holds.
pub(crate) fn plan<'w>(registry: &SerializeRegistry, world: &'w World) -> Result<SavePlan<'w>, String> {
    super::locals::check(registry, world)?;
    let mut archetypes = Vec::new();
    let mut saved = vec![false; world.archetypes().len()];
    'archetypes: for archetype in world.archetypes().iter() {
        if archetype.components().iter().any(|&c| registry.is_machinery(c)) {
            continue;
        }
        let mut columns = Vec::new();
        for (column, &component) in archetype.columns().iter().zip(archetype.components()) {
            match registry.by_component(component) {
                Some(entry) => columns.push((column, entry)),
                None if registry.is_skipped(component) => {}
                // An empty archetype is left out rather than refused: nothing
                // would be lost. So is an empty sparse column.
                None if archetype.is_empty() => continue 'archetypes,
                None if column.is_sparse() && (0..column.len()).all(|row| !column.holds(row)) => {}
                None => {
                    let name = world.components().name(component);
                    return Err(format!(
                        "component `{}` is not registered for saving: register it with \
                         `SerializeRegistry::register::<{0}>(\"Name\")`, or leave it out with `.skip::<{0}>()`",
                        crate::names::short_name(name)
                    ));
                }
            }
        }
        saved[archetype.id().index()] = true;
        archetypes.push(PlannedArchetype { archetype, columns });
    }
    for planned in &archetypes {
        refuse_dangling(registry, world, &saved, planned.archetype, &planned.columns)?;
    }
    let saved_live = archetypes.iter().map(|planned| planned.archetype.len()).sum();
    let (slots, free, retired) = world.entities().save_layout(|archetype| saved[archetype.index()], saved_live);
    Ok(SavePlan { slots, free, retired, archetypes })
}

/// Refuses a save in which a component refers to an entity the save will not
/// hold (`#[entities]` fields, relationships): a despawned one, or one left
/// out (an observer's entity). Its load would fail, so the save is refused
/// instead, naming the component, the entity and the target. The placeholder
/// entity, which names none, is kept as loads keep it.
fn refuse_dangling(
    registry: &SerializeRegistry,
    world: &World,
    saved: &[bool],
    archetype: &Archetype,
    columns: &[(&Column, usize)],
) -> Result<(), String> {
    for &(column, entry) in columns {
        let entry = registry.entry(entry);
        let Some(visit) = entry.entities else { continue };
        for (row, &entity) in archetype.entities().iter().enumerate() {
            let mut dead = None;
            let mut check = |target: Entity| {
                let held = |location: crate::entity::EntityLocation| saved[location.archetype.index()];
                if target != Entity::PLACEHOLDER && !world.location(target).is_some_and(held) {
                    dead.get_or_insert(target);
                }
            };
            // `with_row` hands a per-field column's row over gathered into a
            // whole value (`get` has none to give); an absent row is skipped.
            // SAFETY: the column holds values of the entry's component type (the
            // plan pairs each column with its component's entry), and `value` is
            // one of them, only read.
            column.with_row(row, |value| unsafe { visit.visit(value, &mut check) });
            if let Some(target) = dead {
                let why = match world.contains(target) {
                    true => "which the save leaves out (an observer's entity, or one holding such machinery)",
                    false => "which is not alive (despawned)",
                };
                return Err(format!(
                    "component `{}` of {entity} refers to {target}, {why}: the save would not load; remove or \
                     update the reference before saving",
                    entry.name
                ));
            }
        }
    }
    Ok(())
}
