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
            0 => cache(cell, lookup(TypeId::of::<T>())),
            // A `ComponentIdCell<T>` only ever holds `T`'s id: it is written
            // below, by this function for this `T`, and nowhere else.
            cached => ComponentId::new(cached - 1),
        },
        None => lookup(TypeId::of::<T>()),
    }
}

#[cold]
fn cache<T: ?Sized>(cell: &ComponentIdCell<T>, id: ComponentId) -> ComponentId {
    // Every thread computes the same id for the type (the registry assigns it once),
    // so racing stores store the same value; `Relaxed` is enough for a lone integer.
    let raw = u32::try_from(id.index() + 1).expect("component id fits in u32");
    cell.0.store(raw, Ordering::Relaxed);
    id
}

#[cold]
fn lookup(type_id: TypeId) -> ComponentId {
    // A poisoned lock only means another thread panicked while inserting; the map is
    // still valid (insertion is a single `HashMap::insert`).
    if let Some(&id) = registry().read().unwrap_or_else(|e| e.into_inner()).by_type.get(&type_id) {
        return id;
    }
    let mut registry = registry().write().unwrap_or_else(|e| e.into_inner());
    // Ids stop one short of `u32::MAX` so that `id + 1` fits a cell.
    let next =
        u32::try_from(registry.by_type.len()).ok().filter(|&n| n < u32::MAX - 1).expect("too many component types");
    *registry.by_type.entry(type_id).or_insert(ComponentId::new(next))
}
