//! [`EntityBuilder`] and [`EntityBuilderClone`]: an entity's components
//! collected at run time, typed and dynamic alike, then spawned with one
//! archetype move (hecs's builders, with components defined at run time too).

use core::alloc::Layout;
use core::ptr::NonNull;

use super::World;
use super::structural_by_id::Bytes;
use super::{ComponentMut, ComponentRef, DynamicValue};
use crate::bundle::BundleId;
use crate::component::{
    Component, ComponentId, Components, FieldKind, StrategyKind, component_id, typed_drop_glue, value,
};
use crate::entity::Entity;
use crate::error::EcsError;
use crate::storage::{CloneGlue, DropGlue, OwningPtr, Ptr};
use crate::world::WorldId;

/// One collected component: where its value lies in the buffer and how to
/// register and drop it. Small, since every `add` copies one.
#[derive(Clone, Copy)]
struct Entry {
    id: ComponentId,
    offset: usize,
    layout: Layout,
    drop: Option<&'static DropGlue>,
    /// Registers a typed component in the world it is spawned into; `None`
    /// for a dynamic one, which the world must know already.
    register: Option<fn(&mut Components) -> ComponentId>,
}

#[derive(Clone, Copy)]
enum Cloning {
    Copy,
    Glue(CloneGlue),
    /// Field by field through the component's schema.
    Schema(FieldKind),
}

/// Values packed one after another, each aligned for itself, in one block
/// aligned for the most demanding of them. Values are moved by their bytes
/// (every Rust value can be), so the block may grow by copying.
struct Buffer {
    /// Empty (zero-sized, aligned for 1) until the first value.
    block: Bytes,
    capacity: usize,
    align: usize,
    len: usize,
}

impl Default for Buffer {
    fn default() -> Self {
        Self { block: Bytes::new(Layout::new::<()>()), capacity: 0, align: 1, len: 0 }
    }
}

impl Buffer {
    /// Room for a value of `layout` at the end; its offset.
    #[inline(always)]
    fn push(&mut self, layout: Layout) -> usize {
        // An alignment is a power of two: rounding up is a mask, not the
        // division `next_multiple_of` compiles to for a run-time divisor.
        let mask = layout.align() - 1;
        let offset = self.len.checked_add(mask).expect("entity builder overflow") & !mask;
        let end = offset.checked_add(layout.size()).expect("entity builder overflow");
        if end > self.capacity || layout.align() > self.align {
            self.grow(end, layout.align());
        }
        self.len = end;
        offset
    }

    /// A block of at least `end` bytes aligned for `align`, the values so
    /// far moved into it. Out of line: a builder reused for many entities
    /// grows only for the first.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, end: usize, align: usize) {
        let align = self.align.max(align);
        let capacity = end.max(self.capacity * 2).max(64);
        let layout = Layout::from_size_align(capacity, align).expect("entity builder overflow");
        let block = Bytes::new(layout);
        // SAFETY: both blocks hold at least `len` bytes (none for the first,
        // empty one) and do not overlap; the values move with their bytes,
        // the old block is freed without dropping them.
        unsafe { core::ptr::copy_nonoverlapping(self.block.ptr().as_ptr(), block.ptr().as_ptr(), self.len) };
        self.block = block;
        self.capacity = capacity;
        self.align = align;
    }

    #[inline(always)]
    fn at(&self, offset: usize) -> NonNull<u8> {
        // SAFETY: `offset` is within the block (handed out by `push`, which
        // grew the block to hold the value, aligned for it), or 0 in the
        // first, empty block for a zero-sized value aligned for 1 (any
        // greater alignment grew the block): a pointer no byte is read
        // through.
        unsafe { self.block.ptr().add(offset) }
    }
}

/// An entity's components, collected one by one at run time (typed values
/// and [`DynamicValue`]s), then spawned in one move into their archetype.
/// Spawning empties the builder and keeps its memory for the next entity.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// use ecs_core::world::EntityBuilder;
///
/// #[derive(Component, Debug, PartialEq)] struct Pos(f32);
/// #[derive(Component, Debug, PartialEq)] struct Name(String);
///
/// let mut world = World::new();
/// let mut builder = EntityBuilder::new();
/// builder.add(Pos(1.0)).add(Name("crate".into()));
/// assert!(builder.has::<Pos>());
/// let e = builder.spawn(&mut world)?;
/// assert_eq!(world.get::<Name>(e), Some(&Name("crate".into())));
/// assert!(!builder.has::<Pos>(), "spawning empties the builder");
/// # Ok::<(), EcsError>(())
/// ```
#[derive(Default)]
pub struct EntityBuilder {
    buffer: Buffer,
    entries: Vec<Entry>,
    /// The bundle of the last spawn, by world and (sorted) components: a
    /// builder spawning the same kind of entity again skips the lookup.
    last: Option<LastSpawn>,
    /// Each component's default value as bytes, by id, made the first time
    /// [`add_by_id`](Self::add_by_id) adds it: copied after that, not built
    /// again through the schema.
    defaults: Vec<Option<Box<[u8]>>>,
}

// SAFETY: the buffer holds values of components, which are `Send + Sync`;
// the entries hold only ids, offsets, layouts and `'static` glue.
unsafe impl Send for EntityBuilder {}
// SAFETY: as for `Send`; `&EntityBuilder` only reads values.
unsafe impl Sync for EntityBuilder {}

impl EntityBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `component`, replacing (and dropping) a value of its type added
    /// before.
    // Inlined, so the value is written into the buffer from where the caller
    // made it: passed by pointer, a value the caller just stored piecewise is
    // read back whole, a store-forwarding stall per `add`.
    #[inline]
    pub fn add<T: Component>(&mut self, component: T) -> &mut Self {
        let entry = Entry {
            id: component_id::<T>(),
            offset: 0,
            layout: Layout::new::<T>(),
            drop: core::mem::needs_drop::<T>().then_some(typed_drop_glue::<T>()),
            register: Some(|components| components.register::<T>()),
        };
        let slot = self.slot(entry);
        // SAFETY: the slot is room for a `T` in the buffer (its layout),
        // aligned, holding nothing (fresh, or its old value dropped).
        unsafe { slot.cast::<T>().write(component) };
        self
    }

    /// Adds a [`DynamicValue`], replacing a value of its component added
    /// before.
    pub fn add_dynamic(&mut self, value: DynamicValue) -> &mut Self {
        let entry = Entry {
            id: value.id(),
            offset: 0,
            layout: value.info().layout(),
            drop: value.info().drop_glue(),
            register: None,
        };
        // SAFETY: the value is owned, moved into the buffer by `put`; its block
        // is freed below without dropping the value.
        unsafe { self.put(entry, value.ptr()) };
        drop(value.forget_value());
        self
    }

    /// Adds a value of component `id` (typed with a schema, or defined at run
    /// time), every field at its default, and returns a view to set its
    /// fields in place: no [`DynamicValue`] is made, so nothing is allocated
    /// per value. Replaces a value of the component added before.
    ///
    /// # Errors
    /// [`EcsError::UnknownComponent`] when `world` has no component `id`;
    /// [`EcsError::NotDescribed`] when it has no schema;
    /// [`EcsError::RelationshipById`] for a relationship. Nothing is added then.
    ///
    /// # Example
    /// ```
    /// use ecs_core::prelude::*;
    /// use ecs_core::component::{ComponentDescriptor, FieldKind, SchemaBuilder};
    /// use ecs_core::world::EntityBuilder;
    ///
    /// let mut world = World::new();
    /// let schema = SchemaBuilder::new("Mana").field("points", FieldKind::F32).build()?;
    /// let mana = world.register_dynamic(&ComponentDescriptor::new("Mana", schema))?;
    /// let mut builder = EntityBuilder::new();
    /// builder.add_by_id(&world, mana)?.set("points", 3.5f32)?;
    /// let e = builder.spawn(&mut world)?;
    /// assert_eq!(world.get_by_id(e, mana)?.get::<f32>("points"), Ok(3.5));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_by_id<'a>(&'a mut self, world: &'a World, id: ComponentId) -> Result<ComponentMut<'a>, EcsError> {
        let info = world.components.get(id).ok_or(EcsError::UnknownComponent { index: id.index() })?;
        if info.is_relationship() {
            return Err(EcsError::RelationshipById { component: info.name() });
        }
        let Some(kind) = info.kind() else { return Err(EcsError::NotDescribed { component: info.name() }) };
        let entry = Entry { id, offset: 0, layout: info.layout(), drop: info.drop_glue(), register: None };
        let slot = self.slot(entry);
        match self.defaults.get(id.index()) {
            Some(Some(default)) => {
                // SAFETY: the slot is room for the layout, holding nothing;
                // `default` is the bytes of a default value of this very
                // component (ids are process-wide, one component each), all
                // initialised (below). A default value owns nothing (zeros,
                // `false`, the placeholder entity, `String::new()`, an enum's
                // first variant), so its bitwise copy is another valid one.
                unsafe { crate::storage::copy_item(default.as_ptr(), slot.as_ptr(), default.len()) };
            }
            _ => {
                // SAFETY: the slot is room for a value of the component (its
                // layout), holding nothing; the component's schema is `kind`,
                // and a value whose fields are all valid is a valid value of
                // it (the schema's contract).
                unsafe { value::write_default(kind, slot.as_ptr()) };
                // SAFETY: `write_default` wrote every byte of the value
                // (padding too), which lives in the slot, `size` bytes.
                let bytes = unsafe { core::slice::from_raw_parts(slot.as_ptr(), info.layout().size()) };
                if self.defaults.len() <= id.index() {
                    self.defaults.resize(id.index() + 1, None);
                }
                self.defaults[id.index()] = Some(bytes.into());
            }
        }
        let view = ComponentRef::whole(info, slot);
        Ok(ComponentMut::untracked(view))
    }

    /// Moves the value at `value` into the buffer, replacing an entry of its
    /// component.
    ///
    /// # Safety
    /// `value` is an owned, valid value of `entry`'s component with its
    /// layout, which the caller forgets.
    unsafe fn put(&mut self, entry: Entry, value: NonNull<u8>) {
        let size = entry.layout.size();
        let slot = self.slot(entry);
        // SAFETY: the slot is room for the layout in the buffer, holding
        // nothing; the value is owned (caller), its bytes move.
        unsafe { crate::storage::copy_item(value.as_ptr(), slot.as_ptr(), size) };
    }

    /// Files `entry` and returns the room for its value, which the caller
    /// fills at once: the slot of an earlier value of the component (dropped
    /// here), or fresh room at the end of the buffer. Always inlined: built in
    /// registers by the caller, the entry is then stored once, not written
    /// piecewise and read back whole (a store-forwarding stall per `add`).
    #[inline(always)]
    fn slot(&mut self, mut entry: Entry) -> NonNull<u8> {
        if let Some(at) = self.entries.iter().position(|e| e.id == entry.id) {
            return self.replace(at, entry);
        }
        entry.offset = self.buffer.push(entry.layout);
        let slot = self.buffer.at(entry.offset);
        self.entries.push(entry);
        slot
    }

    /// [`slot`](Self::slot) for a component added before (entry `at`): its
    /// old value dropped, its room handed out again. Out of line, the whole
    /// of it: a rare path that rejoins `slot`'s tail costs every `add`.
    #[cold]
    #[inline(never)]
    fn replace(&mut self, at: usize, mut entry: Entry) -> NonNull<u8> {
        // The old entry leaves the list first: a panicking drop then leaves
        // neither value listed, never dropping one twice.
        let old = self.entries.swap_remove(at);
        if let Some(glue) = old.drop {
            // SAFETY: the entry's value is live in the buffer, dropped once.
            unsafe { glue.run(OwningPtr::new(self.buffer.at(old.offset))) };
        }
        entry.offset = old.offset;
        let slot = self.buffer.at(entry.offset);
        self.entries.push(entry);
        slot
    }

    /// `true` when a `T` was added.
    pub fn has<T: Component>(&self) -> bool {
        self.entries.iter().any(|e| e.id == component_id::<T>())
    }

    /// The `T` added, if any.
    pub fn get<T: Component>(&self) -> Option<&T> {
        let entry = self.entries.iter().find(|e| e.id == component_id::<T>())?;
        if size_of::<T>() == 0 {
            // SAFETY: any aligned, non-null pointer is a valid zero-sized `T`
            // (one was added, so such a value exists).
            return Some(unsafe { NonNull::<T>::dangling().as_ref() });
        }
        // SAFETY: the entry of `T`'s id holds a valid `T`, aligned in the
        // buffer: added by `add::<T>`, or a `DynamicValue` of `T` built by
        // its schema (a valid `T`: the schema describes all of `T`'s fields).
        Some(unsafe { self.buffer.at(entry.offset).cast::<T>().as_ref() })
    }

    /// The ids of the components added, in the order they were added.
    pub fn component_ids(&self) -> impl Iterator<Item = ComponentId> + '_ {
        self.entries.iter().map(|e| e.id)
    }

    /// Drops every value added.
    pub fn clear(&mut self) {
        let entries = core::mem::take(&mut self.entries);
        self.buffer.len = 0;
        for entry in &entries {
            if let Some(glue) = entry.drop {
                // SAFETY: each entry's value is live, dropped once here (the
                // list was taken first, so a panic leaks the rest, never
                // drops twice).
                unsafe { glue.run(OwningPtr::new(self.buffer.at(entry.offset))) };
            }
        }
        let mut entries = entries;
        entries.clear();
        self.entries = entries;
    }

    /// Spawns an entity with every component added, in one move, and empties
    /// the builder (keeping its memory).
    ///
    /// # Errors
    /// [`EcsError::UnknownComponent`] for a dynamic component `world` has not
    /// registered, [`EcsError::RelationshipById`] for a relationship (spawn
    /// those through their type). Nothing is spawned and the builder keeps
    /// its values then.
    pub fn spawn(&mut self, world: &mut World) -> Result<Entity, EcsError> {
        // SAFETY: the entries' values are live in the buffer; on `Ok` they
        // moved into the world and are forgotten here.
        let (entity, bundle) = unsafe { spawn_entries(world, &self.entries, &self.buffer, &mut self.last)? };
        // The values are the world's now: forgotten before any hook runs, so
        // that one that unwinds leaves nothing for this builder to drop.
        self.entries.clear();
        self.buffer.len = 0;
        world.after_spawn_raw(bundle, entity);
        Ok(entity)
    }
}

impl Drop for EntityBuilder {
    fn drop(&mut self) {
        self.clear();
    }
}

/// Spawns the entries' values.
///
/// # Safety
/// Every entry's value is live in `buffer`. On `Ok` the values were moved
/// into the world: the caller forgets them, then runs the spawn's hooks
/// ([`World::after_spawn_raw`]).
unsafe fn spawn_entries(
    world: &mut World,
    entries: &[Entry],
    buffer: &Buffer,
    last: &mut Option<LastSpawn>,
) -> Result<(Entity, BundleId), EcsError> {
    let same = last.as_ref().is_some_and(|last| {
        last.world == world.id()
            && last.order.len() == entries.len()
            && last.order.iter().zip(entries).all(|(&(id, offset), e)| id == e.id && offset == e.offset)
    });
    if !same {
        *last = Some(LastSpawn::plan(world, entries)?);
    }
    let last = last.as_ref().expect("planned above");
    let offsets = &last.offsets;
    // SAFETY: the bundle is of exactly these components in this order (the
    // plan's, made for entries with these ids at these offsets, in this
    // order), so `offsets[i]` is where a live value of the bundle's `i`th
    // component lies (caller), forgotten by the caller.
    Ok((unsafe { world.spawn_raw(last.bundle, |i| buffer.at(offsets[i])) }, last.bundle))
}

/// How the last spawn went, for a builder spawning the same kind of entity
/// again (the same components added in the same order, so at the same
/// offsets of the buffer): the world, each entry's id and offset in the order
/// added, the bundle, and where each bundle position's value lies.
struct LastSpawn {
    world: WorldId,
    order: Vec<(ComponentId, usize)>,
    bundle: BundleId,
    offsets: Vec<usize>,
}

impl LastSpawn {
    /// Registers what needs it and finds the bundle: one per set of
    /// components, whatever the order they were added in.
    fn plan(world: &mut World, entries: &[Entry]) -> Result<Self, EcsError> {
        for entry in entries {
            if world.components.get(entry.id).is_none() {
                match entry.register {
                    Some(register) => {
                        register(&mut world.components);
                    }
                    None => return Err(EcsError::UnknownComponent { index: entry.id.index() }),
                }
            }
        }
        let mut ids: Vec<ComponentId> = entries.iter().map(|e| e.id).collect();
        ids.sort_unstable();
        let bundle = world.bundle_of_ids(&ids)?;
        let offsets =
            ids.iter().map(|&id| entries.iter().find(|e| e.id == id).expect("the entries' ids").offset).collect();
        let order = entries.iter().map(|e| (e.id, e.offset)).collect();
        Ok(Self { world: world.id(), order, bundle, offsets })
    }
}

/// An [`EntityBuilder`] whose components are all clonable, built once and
/// spawned as many times as needed (a prefab): each spawn clones the values.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// use ecs_core::world::EntityBuilderClone;
///
/// #[derive(Component, Clone, Debug, PartialEq)] struct Hp(i32);
///
/// let mut world = World::new();
/// let mut goblin = EntityBuilderClone::new();
/// goblin.add(Hp(7));
/// let goblin = goblin.build();
/// let a = goblin.spawn(&mut world)?;
/// let b = goblin.spawn(&mut world)?;
/// assert_eq!(world.get::<Hp>(a), world.get::<Hp>(b));
/// # Ok::<(), EcsError>(())
/// ```
#[derive(Default)]
pub struct EntityBuilderClone {
    inner: EntityBuilder,
    /// How each component's value is cloned, by id.
    clones: Vec<(ComponentId, Cloning)>,
}

impl EntityBuilderClone {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `component`, replacing a value of its type added before.
    pub fn add<T: Component + Clone>(&mut self, component: T) -> &mut Self {
        self.inner.add(component);
        // SAFETY: `clone_as::<T>` clones a `T` into a slot for one; no context.
        let clone = Cloning::Glue(unsafe { CloneGlue::new(clone_as::<T>, core::ptr::null()) });
        self.set_cloning(component_id::<T>(), clone);
        self
    }

    /// Adds a [`DynamicValue`] (cloned by its component's clone, or field by
    /// field), replacing a value of its component added before.
    pub fn add_dynamic(&mut self, value: DynamicValue) -> &mut Self {
        let id = value.id();
        let clone = match value.info().snapshot_kind() {
            StrategyKind::Copy => Cloning::Copy,
            StrategyKind::Clone(glue) => Cloning::Glue(glue),
            StrategyKind::Skip | StrategyKind::Unsupported => {
                Cloning::Schema(*value.info().kind().expect("a dynamic value has a kind"))
            }
        };
        self.inner.add_dynamic(value);
        self.set_cloning(id, clone);
        self
    }

    fn set_cloning(&mut self, id: ComponentId, clone: Cloning) {
        match self.clones.iter_mut().find(|(other, _)| *other == id) {
            Some(known) => known.1 = clone,
            None => self.clones.push((id, clone)),
        }
    }

    /// Finishes the builder: the result spawns copies.
    pub fn build(self) -> BuiltEntityClone {
        BuiltEntityClone { inner: self.inner, clones: self.clones }
    }
}

/// A finished [`EntityBuilderClone`]: every [`spawn`](Self::spawn) makes an
/// entity with clones of its values.
pub struct BuiltEntityClone {
    inner: EntityBuilder,
    clones: Vec<(ComponentId, Cloning)>,
}

impl BuiltEntityClone {
    /// Spawns an entity with a clone of every value.
    ///
    /// # Errors
    /// As for [`EntityBuilder::spawn`]; nothing is spawned then.
    pub fn spawn(&self, world: &mut World) -> Result<Entity, EcsError> {
        let mut copy = EntityBuilder::new();
        for entry in &self.inner.entries {
            let clone = self.clones.iter().find(|(id, _)| *id == entry.id).map(|&(_, clone)| clone);
            let clone = clone.expect("every value of an EntityBuilderClone was added with its clone");
            let offset = copy.buffer.push(entry.layout);
            let src = self.inner.buffer.at(entry.offset);
            let dst = copy.buffer.at(offset);
            // SAFETY: `src` is a live value of the entry's component; `dst` is
            // fresh room for one in another block. A panicking clone leaves
            // `dst` uninitialised and out of `copy`'s entries (never dropped).
            unsafe {
                match clone {
                    Cloning::Copy => core::ptr::copy_nonoverlapping(src.as_ptr(), dst.as_ptr(), entry.layout.size()),
                    Cloning::Glue(glue) => glue.run(Ptr::new(src), dst),
                    Cloning::Schema(kind) => value::clone_into(&kind, src.as_ptr(), dst.as_ptr()),
                }
            }
            copy.entries.push(Entry { offset, ..*entry });
        }
        copy.spawn(world)
    }
}

/// # Safety
/// `src` points at a valid `T`; `dst` is valid for writing a `T`.
unsafe fn clone_as<T: Clone>(src: Ptr<'_>, dst: NonNull<u8>, _: *const ()) {
    // SAFETY: the caller's.
    unsafe { dst.cast::<T>().write(src.deref::<T>().clone()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(crate::Component)]
    #[repr(align(32))]
    struct AlignedTag;

    #[derive(crate::Component)]
    #[repr(align(64))]
    struct WiderTag;

    #[derive(crate::Component)]
    struct Byte(#[allow(dead_code)] u8);

    fn assert_aligned(builder: &EntityBuilder) {
        for entry in &builder.entries {
            let at = builder.buffer.at(entry.offset).as_ptr() as usize;
            assert_eq!(at % entry.layout.align(), 0, "component {:?} at {at:#x}", entry.id);
        }
    }

    /// `get` hands out a dangling pointer for a zero-sized value, so the
    /// slot `add` writes it to is checked here: aligned in an empty builder,
    /// and after a value of smaller alignment.
    #[test]
    fn zero_sized_values_are_written_to_aligned_slots() {
        let mut builder = EntityBuilder::new();
        builder.add(AlignedTag);
        assert_aligned(&builder);
        builder.add(Byte(1)).add(WiderTag);
        assert_aligned(&builder);
        assert_eq!(builder.entries.len(), 3);
    }
}
