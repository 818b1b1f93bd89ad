//! The process-wide `TypeId -> ComponentId` registry and the per-type id cache.

use core::any::TypeId;
use core::marker::PhantomData;
use core::sync::atomic::{AtomicU32, Ordering};
use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

use super::{Component, ComponentId, ComponentInfo};
use crate::parallel::annotate;

/// A cache of component type `T`'s id, placed in a `static` by
/// `#[derive(Component)]`. Holds the id, or `u32::MAX` while it is unknown: an
/// index no table reaches, so that a lookup by it misses without a test of its
/// own.
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
        Self(AtomicU32::new(UNKNOWN), PhantomData)
    }
}

/// What an id cell holds while its type has no id. Ids stay below it.
const UNKNOWN: u32 = u32::MAX;

#[derive(Default)]
struct Registry {
    by_type: HashMap<TypeId, ComponentId>,
    /// Components defined at run time, by what defines them: the same
    /// definition gets the same id in every world of the process.
    dynamic: HashMap<DynamicKey, ComponentInfo>,
    /// Ids handed out so far, typed and dynamic: one id space.
    assigned: u32,
}

/// What makes two runtime components the same: name, storage and schema (an
/// interned schema, so compared by address).
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct DynamicKey {
    pub(crate) name: String,
    pub(crate) sparse: bool,
    pub(crate) per_field: bool,
    pub(crate) kind: usize,
}

impl Registry {
    fn assign(&mut self) -> ComponentId {
        // Ids stay below `UNKNOWN`, the value of a cell without one.
        let next = self.assigned;
        assert!(next < UNKNOWN, "too many component types");
        self.assigned += 1;
        ComponentId::new(next)
    }
}

/// The info of the runtime component `key`, made by `make(id)` with a fresh
/// id the first time the process meets it.
pub(crate) fn dynamic_info(key: DynamicKey, make: impl FnOnce(ComponentId) -> ComponentInfo) -> ComponentInfo {
    let mut registry = annotate::write(registry());
    if let Some(info) = registry.dynamic.get(&key) {
        return *info;
    }
    let info = make(registry.assign());
    registry.dynamic.insert(key, info);
    info
}

fn registry() -> &'static RwLock<Registry> {
    static REGISTRY: OnceLock<RwLock<Registry>> = OnceLock::new();
    annotate::once(&REGISTRY, Default::default)
}

/// The id of component type `T`, assigning one on first use.
///
/// For a derived, non-generic component this is one load and a compare.
#[inline]
pub fn component_id<T: Component>() -> ComponentId {
    match T::__id_cell() {
        Some(cell) => match cell.0.load(Ordering::Relaxed) {
            UNKNOWN => cache(&cell.0, TypeId::of::<T>()),
            // A `ComponentIdCell<T>` only ever holds `T`'s id: it is written
            // below, by this function for this `T`, and nowhere else.
            cached => ComponentId::new(cached),
        },
        None => lookup(TypeId::of::<T>()),
    }
}

/// The id of component type `T` if one was ever assigned, without assigning one.
///
/// `None` means no world can hold a `T`: every path that stores a component
/// assigns its id through [`component_id`], which caches it before returning,
/// and that store happens before anything that makes the stored component
/// visible to another thread. So lookups can answer `None` without a call.
#[inline]
pub(crate) fn known_component_id<T: Component>() -> Option<ComponentId> {
    let index = known_component_index::<T>();
    (index != UNKNOWN as usize).then(|| ComponentId::new(index as u32))
}

/// [`known_component_id`] as a table index: [`UNKNOWN`] (beyond every table,
/// which are indexed by ids below it) when no id was assigned, so that a lookup
/// misses on its bounds check instead of a test of its own. The cell is read by
/// [`read_hoistable`], so that a loop of lookups reads it, and the world's
/// tables after it, once.
#[inline(always)]
pub(crate) fn known_component_index<T: Component>() -> usize {
    match T::__id_cell() {
        Some(cell) => read_hoistable(&cell.0) as usize,
        None => known(TypeId::of::<T>()).map_or(UNKNOWN as usize, ComponentId::index),
    }
}

/// A relaxed load of `cell` that the compiler may hoist out of a loop, as it
/// would a plain read.
///
/// An atomic load (even `Relaxed`) is an ordered access to the optimizer: no
/// load after it in a loop body is moved out of the loop, so a loop of
/// `world.get(e)` would re-read the world's tables for every entity. Here the
/// load is one instruction in an `asm!` block marked `pure` and `readonly`, which
/// the optimizer may run once for the whole loop. That is sound for this cell:
/// an aligned 32-bit load is single-copy atomic on these targets (the same
/// access a `Relaxed` load compiles to), and reading it fewer times than written
/// can only return a value it held: an id cell changes once, from [`UNKNOWN`] to
/// the id, and never again, and a lookup that could find a stored `T` is ordered
/// after that store (see [`known_component_id`]).
#[inline(always)]
fn read_hoistable(cell: &AtomicU32) -> u32 {
    #[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
    {
        let value: u32;
        // SAFETY: `cell.as_ptr()` is a valid, aligned `u32` for the borrow of
        // `cell`; the block only reads it (`readonly`) with one aligned 32-bit
        // `mov`, which x86 performs atomically, so it races with no store
        // (stores to the cell are atomic too, in `cache`); `pure` holds as the
        // result depends only on the memory read.
        unsafe {
            core::arch::asm!(
                "mov {value:e}, dword ptr [{cell}]",
                value = out(reg) value,
                cell = in(reg) cell.as_ptr(),
                options(pure, readonly, nostack, preserves_flags),
            );
        }
        value
    }
    #[cfg(target_arch = "aarch64")]
    {
        let value: u32;
        // SAFETY: as for x86: one aligned 32-bit `ldr`, single-copy atomic on
        // AArch64, reading a valid, aligned `u32`.
        unsafe {
            core::arch::asm!(
                "ldr {value:w}, [{cell}]",
                value = out(reg) value,
                cell = in(reg) cell.as_ptr(),
                options(pure, readonly, nostack, preserves_flags),
            );
        }
        value
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "x86", target_arch = "aarch64")))]
    {
        cell.load(Ordering::Relaxed)
    }
}

#[cold]
fn known(type_id: TypeId) -> Option<ComponentId> {
    annotate::read(registry()).by_type.get(&type_id).copied()
}

/// Looks `type_id` up (assigning an id) and caches it in its type's cell. Not
/// generic: compiled once, not per component.
#[cold]
fn cache(cell: &AtomicU32, type_id: TypeId) -> ComponentId {
    let id = lookup(type_id);
    // Every thread computes the same id for the type (the registry assigns it once),
    // so racing stores store the same value; `Relaxed` is enough for a lone integer.
    let raw = u32::try_from(id.index()).expect("component id fits in u32");
    annotate::atomic(cell);
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
    let mut registry = annotate::write(registry());
    if let Some(&id) = registry.by_type.get(&type_id) {
        return id;
    }
    let id = registry.assign();
    registry.by_type.insert(type_id, id);
    id
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
