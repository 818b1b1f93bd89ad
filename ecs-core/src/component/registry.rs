//! The process-wide `TypeId -> ComponentId` registry and the per-type id cache.

use core::any::TypeId;
use core::marker::PhantomData;
use core::sync::atomic::{AtomicU32, Ordering};
use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

use super::{Component, ComponentId};

/// A cache of component type `T`'s id, placed in a `static` by
/// `#[derive(Component)]`. Holds `id + 1`, or 0 while the id is unknown.
///
/// The cell is typed: `T::__id_cell()` can only return a `ComponentIdCell<T>`, and
/// only [`component_id::<T>`] writes one, with `T`'s own id. A hand-written
/// `Component` impl that returns another type's cell does not compile, and no
/// `unsafe` is needed to make one. `T` is invariant (`fn(T) -> T`): were the cell
/// covariant, a cell of `W<for<'a> fn(&'a ())>` would coerce to one of the distinct
/// type `W<fn(&'static ())>`, and the two types would share an id.
pub struct ComponentIdCell<T: ?Sized>(AtomicU32, PhantomData<fn(T) -> T>);

impl<T: ?Sized> ComponentIdCell<T> {
    /// An empty cell.
    #[allow(clippy::new_without_default, reason = "a `static` needs a `const fn`; `Default` is not const")]
    pub const fn new() -> Self {
        Self(AtomicU32::new(0), PhantomData)
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
/// For a derived, non-generic component this is one load and a compare.
#[inline]
pub fn component_id<T: Component>() -> ComponentId {
    match T::__id_cell() {
        Some(cell) => match cell.0.load(Ordering::Relaxed) {
            0 => cache(&cell.0, TypeId::of::<T>()),
            // A `ComponentIdCell<T>` only ever holds `T`'s id: it is written
            // below, by this function for this `T`, and nowhere else.
            cached => ComponentId::new(cached - 1),
        },
        None => lookup(TypeId::of::<T>()),
    }
}

/// The id of component type `T` if one was ever assigned, without assigning one.
///
/// `None` means no world can hold a `T`: every path that stores a component
/// assigns its id through [`component_id`], which caches it before returning,
/// and that store happens before anything that makes the stored component
/// visible to another thread. So lookups (`World::get` and friends) can answer
/// `None` without a call, and a loop of them keeps its loads hoisted.
#[inline]
pub(crate) fn known_component_id<T: Component>() -> Option<ComponentId> {
    match T::__id_cell() {
        Some(cell) => match cell.0.load(Ordering::Relaxed) {
            0 => None,
            cached => Some(ComponentId::new(cached - 1)),
        },
        None => known(TypeId::of::<T>()),
    }
}

#[cold]
fn known(type_id: TypeId) -> Option<ComponentId> {
    registry().read().unwrap_or_else(|e| e.into_inner()).by_type.get(&type_id).copied()
}

/// Looks `type_id` up (assigning an id) and caches it in its type's cell. Not
/// generic: compiled once, not per component.
#[cold]
fn cache(cell: &AtomicU32, type_id: TypeId) -> ComponentId {
    let id = lookup(type_id);
    // Every thread computes the same id for the type (the registry assigns it once),
    // so racing stores store the same value; `Relaxed` is enough for a lone integer.
    let raw = u32::try_from(id.index() + 1).expect("component id fits in u32");
    cell.store(raw, Ordering::Relaxed);
    id
}

#[cold]
fn lookup(type_id: TypeId) -> ComponentId {
    // A poisoned lock only means another thread panicked while inserting; the map is
    // still valid (insertion is a single `HashMap::insert`).
    if let Some(id) = known(type_id) {
        return id;
    }
    let mut registry = registry().write().unwrap_or_else(|e| e.into_inner());
    // Ids stop one short of `u32::MAX` so that `id + 1` fits a cell.
    let next =
        u32::try_from(registry.by_type.len()).ok().filter(|&n| n < u32::MAX - 1).expect("too many component types");
    *registry.by_type.entry(type_id).or_insert(ComponentId::new(next))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::World;

    #[derive(crate::Component)]
    struct NeverStored;

    #[derive(crate::Component)]
    struct Stored(#[allow(dead_code, reason = "only stored")] u8);

    #[derive(crate::Component)]
    struct Generic<T: Send + Sync + 'static>(#[allow(dead_code, reason = "only stored")] T);

    #[test]
    fn a_type_never_stored_has_no_known_id_and_lookups_do_not_assign_one() {
        let mut world = World::new();
        let e = world.spawn(Stored(1));
        assert!(world.get::<NeverStored>(e).is_none());
        assert!(world.entity(e).unwrap().get::<NeverStored>().is_none());
        assert!(world.get::<Generic<u16>>(e).is_none());
        assert!(known_component_id::<NeverStored>().is_none(), "a lookup assigned an id");
        assert!(known_component_id::<Generic<u16>>().is_none(), "a lookup assigned an id");
        assert_eq!(known_component_id::<Stored>(), Some(component_id::<Stored>()));
        world.spawn(Generic(3u16));
        assert_eq!(known_component_id::<Generic<u16>>(), Some(component_id::<Generic<u16>>()));
    }
}
