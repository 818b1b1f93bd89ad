//! The process-wide `TypeId -> ComponentId` registry and the per-type id cache.

use core::any::TypeId;
use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

use super::{Component, ComponentId};

/// A per-type cache of a component's id, placed in a `static` by
/// `#[derive(Component)]`.
///
/// It stores the `TypeId` beside the id, so a cell handed to the wrong type is
/// detected and ignored rather than trusted.
pub struct ComponentIdCell(OnceLock<(TypeId, ComponentId)>);

impl ComponentIdCell {
    /// An empty cell.
    #[expect(clippy::new_without_default, reason = "only used in `static` initialisers")]
    pub const fn new() -> Self {
        Self(OnceLock::new())
    }
}

#[derive(Default)]
struct Registry {
    by_type: HashMap<TypeId, ComponentId>,
}

fn registry() -> &'static RwLock<Registry> {
    static REGISTRY: OnceLock<RwLock<Registry>> = OnceLock::new();
    REGISTRY.get_or_init(Default::default)
}

/// The id of component type `T`, assigning one on first use.
///
/// For a derived, non-generic component this is a load and a compare.
#[inline]
pub fn component_id<T: Component>() -> ComponentId {
    if let Some(cell) = T::__id_cell() {
        let &(type_id, id) = cell.0.get_or_init(|| (TypeId::of::<T>(), lookup(TypeId::of::<T>())));
        if type_id == TypeId::of::<T>() {
            return id;
        }
    }
    lookup(TypeId::of::<T>())
}

#[cold]
fn lookup(type_id: TypeId) -> ComponentId {
    // A poisoned lock only means another thread panicked while inserting; the map is
    // still valid (insertion is a single `HashMap::insert`).
    if let Some(&id) = registry().read().unwrap_or_else(|e| e.into_inner()).by_type.get(&type_id) {
        return id;
    }
    let mut registry = registry().write().unwrap_or_else(|e| e.into_inner());
    let next = u32::try_from(registry.by_type.len()).expect("more than 2^32 component types");
    *registry.by_type.entry(type_id).or_insert(ComponentId::new(next))
}
