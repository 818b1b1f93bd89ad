//! Components: the [`Component`] trait, component ids and the registry.
//!
//! Ids are assigned once per process, on first use of a type, and are dense: the
//! first registered type gets 0, the next 1, and so on. Because an id means the
//! same type in every world, `#[derive(Component)]` caches it in a `static` next to the
//! type, so finding `T`'s id is one load and one compare, no hashing. Each
//! [`World`](crate::World) keeps its own [`Components`]: the [`ComponentInfo`] (name,
//! layout, drop function) of every component it has seen.

mod dynamic;
mod hooks;
mod name;
mod per_field;
mod registry;
mod schema;
mod schema_builder;
pub(crate) mod snapshot_strategy;
pub(crate) mod value;

pub use per_field::{FieldColumn, FieldLayout, Fields, FieldsMut, LanePtr, PerField, WholeComponent};

pub use dynamic::ComponentDescriptor;
pub use hooks::{ComponentHook, ComponentHooks, HookContext};
pub(crate) use hooks::{Lifecycle, REMOVED_LOG, REQUIRES};
pub use name::Name;
pub use registry::{ComponentIdCell, component_id};
pub(crate) use registry::{known_component_id, known_component_index};
pub use schema::{Describe, EnumSchema, Field, FieldKind, Schema, Variant};
pub use schema_builder::{SchemaBuilder, SchemaError, enum_schema};

use core::alloc::Layout;
use core::any::TypeId;

use crate::storage::{DropGlue, OwningPtr};
pub(crate) use snapshot_strategy::StrategyKind;
pub use snapshot_strategy::{SnapshotStrategy, Snapshotting};

/// A type that can be stored in an entity.
///
/// Derive it: `#[derive(Component)]`. A component is `Send + Sync + 'static`, so that
/// worlds can be sent between threads and queries can run in parallel.
///
/// Every component is a [`Bundle`](crate::Bundle) of one (a supertrait, so generic
/// code bounded by `C: Component` can spawn a `C`). The derive implements both; a
/// hand-written `impl Component` adds [`component_bundle!`](crate::component_bundle).
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
///
/// #[derive(Component)]
/// struct Health(u32);
///
/// #[derive(Component)]
/// enum Team { Red, Blue }
///
/// #[derive(Component)]
/// struct Tagged<T: Send + Sync + 'static>(T);
///
/// let mut world = World::new();
/// let e = world.spawn((Health(10), Team::Red, Tagged(1u8)));
/// assert!(world.has::<Team>(e));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a component",
    label = "`{Self}` does not implement `Component`",
    note = "add `#[derive(Component)]` to the definition of `{Self}`"
)]
pub trait Component: crate::Bundle {
    /// Where this type caches its component id. Implemented by `#[derive(Component)]`
    /// for non-generic types; the default (`None`) looks the id up in the registry.
    /// The cell's type names `Self`, so no impl can hand out another type's cell.
    #[doc(hidden)]
    #[inline(always)]
    fn __id_cell() -> Option<&'static ComponentIdCell<Self>> {
        None
    }

    /// The fields of a per-field component (`#[component(layout = "soa")]`),
    /// each stored in its own array; `None` (the default) stores whole values.
    /// Only a [`PerField`] type can make a [`FieldLayout`], and only its own.
    #[doc(hidden)]
    #[inline(always)]
    fn __fields() -> Option<FieldLayout> {
        None
    }

    /// How the component is stored; `#[component(storage = "sparse")]` sets it.
    const STORAGE: StorageType = StorageType::Table;

    /// The component's own [`Describe::KIND`] when it describes itself
    /// (`#[component(describe)]`); `None` (the default) otherwise. A kind that
    /// is not a struct or enum schema of `Self` is ignored.
    #[doc(hidden)]
    const __KIND: Option<FieldKind> = None;

    /// `true` when the component may be written in place by code that names
    /// it by id ([`World::get_mut_by_id`](crate::World::get_mut_by_id),
    /// dynamic queries): the derive sets it exactly when it implements
    /// [`MutableComponent`]. A relationship or relationship target never does
    /// (the [`Relationship`](crate::relationship::Relationship) contract).
    #[doc(hidden)]
    const __MUTABLE: bool = false;

    /// A hash of the type's name, fixed at compile time: it picks the entry of
    /// a world's small cache of column tables that `EntityRef::get` and
    /// `World::get` try first (see `Archetypes::columns_for`). Set by the
    /// derive for non-generic types; `None` (the default) always takes the
    /// registry's path. Any value is safe: an entry is used only when it was
    /// filled for this type's own id cell.
    #[doc(hidden)]
    const __LOOKUP_HASH: Option<u32> = None;

    /// The component's hooks; `#[component(on_add = f, …)]` sets them (see
    /// [`ComponentHooks`]).
    const HOOKS: ComponentHooks = ComponentHooks::NONE;

    /// `false` when the component opted out of change detection with
    /// `#[component(changes = false)]`: its table columns keep no ticks and no
    /// write stamps them. `Changed`, `Added`, `Ref` and `Mut` then do not compile
    /// for it (they need [`ChangeTracked`]).
    const CHANGES: bool = true;

    /// `true` for a relationship (the derive's `#[relationship]`): inserting it
    /// checks the link first ([`__check_links`](Self::__check_links)).
    #[doc(hidden)]
    const __LINKS: bool = false;

    /// Refuses a relationship to a dead entity, to `entity` itself or to one of
    /// its descendants (`entity` is `None` for one being spawned).
    #[doc(hidden)]
    fn __check_links(&self, _world: &crate::World, _entity: Option<crate::Entity>) -> Result<(), crate::EcsError> {
        Ok(())
    }

    /// Replaces the value `entity` holds with `self` when the component is a
    /// relationship (the derive's): its upkeep done with the old and new
    /// targets in hand, as its `on_discard` and `on_insert` hooks would. Called
    /// only where those hooks are all that runs (no lifecycle observer); `Err`
    /// hands the value back for the general path (the default).
    #[doc(hidden)]
    fn __replace_link(self, _world: &mut crate::World, _entity: crate::Entity) -> Result<(), Self>
    where
        Self: Sized,
    {
        Err(self)
    }

    /// `true` when the component requires others (`#[require(…)]`): gaining
    /// it gives the entity each of them it lacks ([`__insert_required`](Self::__insert_required)).
    #[doc(hidden)]
    const __REQUIRES: bool = false;

    /// Inserts each component this one requires that `entity` lacks, made by
    /// its `Default` or the expression given (the derive's, for
    /// `#[require(…)]`); each inserted one brings its own requirements.
    #[doc(hidden)]
    fn __insert_required(_world: &mut crate::World, _entity: crate::Entity) {}

    /// For a relationship or its target (the derive's): does again, on the
    /// entity holding the component, what its upkeep hooks keep true (the
    /// source listed on its target, a list claiming only linked sources), when
    /// a panicking hook or observer stopped an operation before those hooks ran
    /// or after they ran for a removal the panic then cancelled. Idempotent;
    /// `None` (the default) for components with no upkeep.
    #[doc(hidden)]
    const __RELINK: Option<fn(&mut crate::World, crate::Entity)> = None;

    /// Rewrites every [`Entity`](crate::Entity) the component holds through `map`:
    /// what loading a saved world needs, where entities get new ids. The derive
    /// maps the fields marked `#[entities]` and the entities of relationships;
    /// the default holds none.
    fn map_entities(&mut self, _map: &mut dyn FnMut(crate::Entity) -> crate::Entity) {}

    /// Calls `f` with every [`Entity`](crate::Entity) the component holds, the
    /// ones [`map_entities`](Self::map_entities) rewrites, without changing
    /// any: saving refuses a reference to a despawned entity. The derive visits
    /// the fields marked `#[entities]`; the default holds none.
    fn visit_entities(&self, _f: &mut dyn FnMut(crate::Entity)) {}

    /// `false` when [`map_entities`](Self::map_entities) is the default, which
    /// holds no entity: a load then skips the component's values when it
    /// checks and remaps entity references. The derive sets it; it stays `true`
    /// for a hand-written impl (a `false` beside an overridden `map_entities`
    /// only leaves that component's references unchecked and unmapped).
    #[doc(hidden)]
    const __MAPS_ENTITIES: bool = true;

    /// How [`World::snapshot`](crate::World::snapshot) copies this component.
    /// `#[derive(Component)]` decides it from the type: `Copy` types are copied
    /// column-wise with `memcpy`, `Clone` types are cloned, others are
    /// [unsupported](SnapshotStrategy::unsupported); `#[component(snapshot =
    /// "skip")]` leaves the component out and `#[component(snapshot = "clone")]`
    /// is what a generic component says. A hand-written impl is unsupported
    /// unless it overrides this.
    fn snapshot_strategy() -> SnapshotStrategy<Self>
    where
        Self: Sized,
    {
        SnapshotStrategy::unsupported()
    }
}

/// A component whose changes are tracked: what `Changed<T>`, `Added<T>`, `Ref<T>`
/// and `Mut<T>` need (with `Component`; not a supertrait, so that a type that
/// fails to be a component is reported once). `#[derive(Component)]` implements it unless the component
/// says `#[component(changes = false)]`.
///
/// Implementing it by hand for a component that opted out is harmless: those
/// filters then find no ticks and match nothing.
#[diagnostic::on_unimplemented(
    message = "`{Self}` opted out of change detection",
    label = "`Changed`, `Added`, `Ref` and `Mut` need change ticks",
    note = "remove `#[component(changes = false)]` from `{Self}` to track its changes, \
            or use `&{Self}` / `&mut {Self}`, which need none"
)]
pub trait ChangeTracked {}

/// A component that may be changed in place: what `&mut T` in queries,
/// [`Mut<T>`](crate::Mut) and `get_mut` need (with `Component`; not a supertrait,
/// for the same reason as [`ChangeTracked`]). `#[derive(Component)]` implements it
/// unless the component says `#[component(immutable)]`; relationship components
/// (`ChildOf`) and their targets (`Children`) are immutable, so that their hooks
/// see every change and keep both sides in step.
///
/// An immutable component still changes: [`insert`](crate::World::insert) a new
/// value, which runs its `on_discard` and `on_insert` hooks.
///
/// # Safety
/// Implement it only for a component that is neither a [`Relationship`](crate::relationship::Relationship)
/// nor a [`RelationshipTarget`](crate::relationship::RelationshipTarget) (the derive never does).
/// The crate reads those two outside any query's declared access (hierarchy
/// traversal and propagation), trusting that only structural changes, which
/// hold the world exclusively, write them.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is an immutable component",
    label = "cannot be changed in place",
    note = "insert a new `{Self}` instead (`world.insert(entity, value)` or `commands.entity(e).insert(value)`), \
            which runs its hooks; relationships (`ChildOf`) and their targets (`Children`) are immutable so that \
            both sides stay in step"
)]
pub unsafe trait MutableComponent {}

/// How a component is stored. Choose per component type, by how it is used.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
///
/// #[derive(Component)] struct Position(f32);
/// /// Gained and lost every few frames: adding and removing it must be cheap.
/// #[derive(Component)]
/// #[component(storage = "sparse")]
/// struct Stunned { frames: u32 }
///
/// let mut world = World::new();
/// let e = world.spawn(Position(0.0));
/// let archetypes = world.archetypes().len();
/// world.insert(e, Stunned { frames: 3 })?;
/// assert_eq!(world.archetypes().len(), archetypes, "no archetype move, no new archetype");
/// assert_eq!(world.query::<(&Position, &Stunned)>().iter().count(), 1);
/// assert_eq!(world.remove::<Stunned>(e)?.frames, 3);
/// # Ok::<(), EcsError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum StorageType {
    /// The default. The component is part of the archetype's identity and every row
    /// of the archetype holds it, so iteration is a plain loop over an array;
    /// adding or removing it moves the entity's row to another archetype.
    #[default]
    Table,
    /// The component is stored per row: an archetype gets a column for it when one
    /// of its entities first gains it, and each row records whether it holds a
    /// value. Adding or removing it writes or clears that row in place (no row
    /// move, no new archetype), at the cost of a per-row presence check when
    /// iterating and one slot per row of the archetypes where it appears. Tags
    /// (zero-sized components without drop glue) are always stored this way.
    Sparse,
}

/// `true` when `T` is a tag: zero-sized, without drop glue (see [`ComponentInfo::is_tag`]).
#[inline(always)]
pub const fn is_tag<T>() -> bool {
    size_of::<T>() == 0 && !core::mem::needs_drop::<T>()
}

/// `true` when `T` is stored per row: a tag, or declared sparse (see [`StorageType`]).
#[inline(always)]
pub const fn is_sparse<T: Component>() -> bool {
    is_tag::<T>() || matches!(T::STORAGE, StorageType::Sparse)
}

/// The dense, process-wide id of a component type.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct ComponentId(u32);

impl ComponentId {
    pub(crate) const fn new(index: u32) -> Self {
        Self(index)
    }

    /// The id as an array index.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// Drops the value behind the pointer as a `T`.
///
/// # Safety
/// `ptr` must point at a valid, owned `T`.
unsafe fn drop_as<T>(ptr: OwningPtr<'_>, _: *const ()) {
    // SAFETY: the caller guarantees `ptr` is an owned, valid `T`.
    unsafe { ptr.drop_as::<T>() }
}

/// The drop glue of `T`, one `static` per type.
pub(crate) const fn typed_drop_glue<T>() -> &'static DropGlue {
    const {
        // SAFETY: `drop_as::<T>` drops an owned `T`; it reads no context.
        &unsafe { DropGlue::new(drop_as::<T>, core::ptr::null()) }
    }
}

/// What a world needs to store a component type without knowing it.
#[derive(Clone, Copy, Debug)]
pub struct ComponentInfo {
    id: ComponentId,
    name: &'static str,
    type_id: TypeId,
    layout: Layout,
    drop: Option<&'static DropGlue>,
    sparse: bool,
    hooks: ComponentHooks,
    changes: bool,
    snapshot: StrategyKind,
    /// The fields, each in its own array, of a per-field component.
    fields: Option<&'static [FieldColumn]>,
    /// What the component holds, when it describes itself: a struct or enum
    /// schema of its own type (checked).
    kind: Option<FieldKind>,
    /// Whether writes by id are allowed (see [`Component::__MUTABLE`]).
    mutable: bool,
    /// A relationship, whose value the world keeps in step with its target's
    /// list: inserted only through its type.
    links: bool,
    /// Defined at run time ([`ComponentDescriptor`]), not by a Rust type.
    dynamic: bool,
    /// Its relationship upkeep redone after a panic (see [`Component::__RELINK`]).
    relink: Option<fn(&mut crate::World, crate::Entity)>,
    /// Inserts the components it requires (see [`Component::__insert_required`]).
    required: Option<fn(&mut crate::World, crate::Entity)>,
    /// Where the world's lookup cache files the component's column table.
    /// The address of the type's id cell and its lookup hash (derived,
    /// non-generic components), from which the world's lookup cache files
    /// the component's column table.
    lookup: Option<(usize, u32)>,
}

impl ComponentInfo {
    /// An empty column for this component's values, of its storage kind.
    pub(crate) fn new_column(&self) -> crate::storage::Column {
        crate::storage::Column::new(self.layout(), self.drop, self.is_sparse(), self.tracks_changes(), self.fields())
    }

    /// The info of `T`.
    pub fn of<T: Component>() -> Self {
        Self {
            id: component_id::<T>(),
            name: core::any::type_name::<T>(),
            type_id: TypeId::of::<T>(),
            layout: Layout::new::<T>(),
            drop: core::mem::needs_drop::<T>().then_some(typed_drop_glue::<T>()),
            sparse: is_sparse::<T>(),
            hooks: T::HOOKS,
            changes: T::CHANGES,
            snapshot: T::snapshot_strategy().kind,
            fields: T::__fields().map(|layout| {
                per_field::check_fields::<T>(&layout);
                layout.fields()
            }),
            kind: T::__KIND.filter(|kind| match kind {
                // Only a schema of `T` itself: code trusts its offsets for `T`.
                FieldKind::Struct(schema) => schema.is_type::<T>(),
                FieldKind::Enum(schema) => schema.is_type::<T>(),
                _ => false,
            }),
            mutable: T::__MUTABLE && !<T as Component>::__LINKS,
            links: <T as Component>::__LINKS,
            dynamic: false,
            relink: T::__RELINK,
            required: T::__REQUIRES.then_some(T::__insert_required as fn(&mut crate::World, crate::Entity)),
            lookup: T::__id_cell().zip(T::__LOOKUP_HASH).map(|(cell, hash)| (core::ptr::from_ref(cell).addr(), hash)),
        }
    }

    /// What the component holds, field by field, when it describes itself
    /// (`#[component(describe)]`): a [`FieldKind::Struct`] or
    /// [`FieldKind::Enum`] of its own type.
    #[inline]
    pub fn kind(&self) -> Option<&FieldKind> {
        self.kind.as_ref()
    }

    /// `true` when the component may be written in place through its schema
    /// (described, and neither immutable nor a relationship).
    #[inline]
    pub fn writable_by_id(&self) -> bool {
        self.mutable && self.kind.is_some()
    }

    /// `true` when code naming the component by id may write it in place
    /// (dynamic queries): neither immutable nor a relationship.
    #[inline]
    pub fn is_mutable(&self) -> bool {
        self.mutable
    }

    /// `true` for a component defined at run time
    /// ([`World::register_dynamic`](crate::World::register_dynamic)).
    #[inline]
    pub fn is_dynamic(&self) -> bool {
        self.dynamic
    }

    /// `true` for a relationship component (inserted only through its type,
    /// which keeps the target's list in step).
    #[inline]
    pub fn is_relationship(&self) -> bool {
        self.links
    }

    /// The name scripts and data files use: a runtime component's own name,
    /// the schema's name when a Rust component describes itself, else the
    /// type's name without its path.
    #[inline]
    pub fn short_name(&self) -> &'static str {
        if self.dynamic {
            return self.name;
        }
        match &self.kind {
            Some(FieldKind::Struct(schema)) => schema.name(),
            Some(FieldKind::Enum(schema)) => schema.name(),
            _ => {
                let path = self.name.split('<').next().unwrap_or(self.name);
                path.rsplit("::").next().unwrap_or(path)
            }
        }
    }

    /// The address of the component's id cell and its lookup hash, for the
    /// world's lookup cache.
    #[inline]
    pub(crate) fn lookup_parts(&self) -> Option<(usize, u32)> {
        self.lookup
    }

    /// The fields of a per-field component (`#[component(layout = "soa")]`),
    /// each stored in its own array; `None` for one stored whole.
    #[inline]
    pub fn fields(&self) -> Option<&'static [FieldColumn]> {
        self.fields
    }

    /// How a snapshot copies the component (see [`SnapshotStrategy`]).
    #[inline]
    pub fn snapshotting(&self) -> Snapshotting {
        self.snapshot.public()
    }

    #[inline]
    pub(crate) fn snapshot_kind(&self) -> StrategyKind {
        self.snapshot
    }

    /// Its relationship upkeep, to redo after a panic (see [`Component::__RELINK`]).
    #[inline]
    pub(crate) fn relink(&self) -> Option<fn(&mut crate::World, crate::Entity)> {
        self.relink
    }

    /// What inserts the components it requires (see [`Component::__insert_required`]).
    #[inline]
    pub(crate) fn required(&self) -> Option<fn(&mut crate::World, crate::Entity)> {
        self.required
    }

    /// The component's hooks.
    #[inline]
    pub fn hooks(&self) -> &ComponentHooks {
        &self.hooks
    }

    /// `false` when the component opted out of change detection (see
    /// [`Component::CHANGES`]).
    #[inline]
    pub fn tracks_changes(&self) -> bool {
        self.changes
    }

    /// The component's id.
    #[inline]
    pub fn id(&self) -> ComponentId {
        self.id
    }

    /// The type's name, as [`core::any::type_name`] gives it.
    #[inline]
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The Rust type's id.
    #[inline]
    pub fn type_id(&self) -> TypeId {
        self.type_id
    }

    /// Size and alignment of one value.
    #[inline]
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// How a value is dropped, `None` when it needs no drop.
    #[inline]
    pub(crate) fn drop_glue(&self) -> Option<&'static DropGlue> {
        self.drop
    }

    /// `true` when a value needs dropping (its type has drop glue, or its
    /// schema holds a `String`).
    #[inline]
    pub fn needs_drop(&self) -> bool {
        self.drop.is_some()
    }

    /// `true` for a *tag*: a zero-sized component without drop glue. Tags carry no
    /// data, so they do not define archetypes: entities that differ only in tags
    /// share one archetype, and each row records which tags it has.
    #[inline]
    pub fn is_tag(&self) -> bool {
        self.layout.size() == 0 && self.drop.is_none()
    }

    /// `true` when the component is stored per row (a tag, or
    /// [`StorageType::Sparse`]): it is not part of any archetype's key, and adding
    /// or removing it moves nothing.
    #[inline]
    pub fn is_sparse(&self) -> bool {
        self.sparse
    }
}

/// The components one world has seen, indexed by [`ComponentId`], with what
/// must happen when an entity gains or loses each (its lifecycle flags: hooks,
/// observers, removal logs).
#[derive(Debug, Default)]
pub struct Components {
    infos: Vec<Option<ComponentInfo>>,
    /// Per component: which lifecycle events have a hook or an observer, and
    /// whether removals are logged.
    lifecycle: Vec<u8>,
    /// Lifecycle events observed for every component.
    lifecycle_global: u8,
    /// Some component has a lifecycle flag: structural changes must look.
    lifecycle_active: bool,
    /// The components by name, made on the first lookup by name (a world
    /// that never asks builds none), kept up to date from then on. Boxed: a
    /// new world stays small.
    names: std::sync::OnceLock<Box<NameIndex>>,
}

/// Registered components by full name and by short name, so that a lookup
/// by name (a script's `world:component("Health")`, a definition checking
/// its name is free) does not walk every component. Names can come from
/// scripts (mods): std's keyed hashing, not the crate's id hashers.
#[derive(Debug, Default)]
struct NameIndex {
    full: std::collections::HashMap<&'static str, ComponentId>,
    /// The first component of each short name, and whether another shares it.
    short: std::collections::HashMap<&'static str, (ComponentId, bool)>,
}

impl NameIndex {
    fn add(&mut self, info: &ComponentInfo) {
        self.full.entry(info.name()).or_insert(info.id());
        self.short
            .entry(info.short_name())
            .and_modify(|(first, shared)| *shared |= *first != info.id())
            .or_insert((info.id(), false));
    }
}

impl Components {
    /// Registers `T` in this world (once) and returns its id.
    #[inline]
    pub fn register<T: Component>(&mut self) -> ComponentId {
        let id = component_id::<T>();
        if self.get(id).is_none() {
            self.register_new::<T>();
        }
        id
    }

    /// The first registration of `T`: out of line, so that each place that
    /// registers a component (every bundle type naming it) carries a call,
    /// not a copy of the component's info.
    #[cold]
    #[inline(never)]
    fn register_new<T: Component>(&mut self) {
        self.register_info(&ComponentInfo::of::<T>());
    }

    /// Registers a component from its info (a snapshot restored into a world
    /// that has not seen the type yet).
    pub(crate) fn register_info(&mut self, info: &ComponentInfo) {
        let id = info.id();
        if self.get(id).is_none() {
            if self.infos.len() <= id.index() {
                self.infos.resize(id.index() + 1, None);
            }
            let requires = if info.required.is_some() { REQUIRES } else { 0 };
            self.add_lifecycle(id, info.hooks.flags() | requires);
            self.infos[id.index()] = Some(*info);
            if let Some(names) = self.names.get_mut() {
                names.add(info);
            }
        }
    }

    /// Gives the registered runtime component `id` its hooks.
    pub(crate) fn set_hooks(&mut self, id: ComponentId, hooks: ComponentHooks) {
        if let Some(Some(info)) = self.infos.get_mut(id.index()) {
            info.hooks = hooks;
            self.add_lifecycle(id, hooks.flags());
        }
    }

    /// Sets lifecycle flags of a component (registered or not).
    pub(crate) fn add_lifecycle(&mut self, id: ComponentId, flags: u8) {
        if flags == 0 {
            return;
        }
        if self.lifecycle.len() <= id.index() {
            self.lifecycle.resize(id.index() + 1, 0);
        }
        self.lifecycle[id.index()] |= flags;
        self.lifecycle_active = true;
    }

    /// Sets lifecycle flags of every component.
    pub(crate) fn add_global_lifecycle(&mut self, flags: u8) {
        self.lifecycle_global |= flags;
        self.lifecycle_active |= flags != 0;
    }

    /// `true` when some structural change may have hooks to run, observers to
    /// trigger or removals to log.
    #[inline(always)]
    pub(crate) fn lifecycle_active(&self) -> bool {
        self.lifecycle_active
    }

    /// The lifecycle flags of a component.
    #[inline]
    pub(crate) fn lifecycle(&self, id: ComponentId) -> u8 {
        self.lifecycle.get(id.index()).copied().unwrap_or(0) | self.lifecycle_global
    }

    /// `true` when adding, inserting or removing component `id` may run a
    /// hook, trigger an observer or log a removal (conservative: a flag,
    /// once set, stays). `false` promises that inserting it runs no code of
    /// the game's.
    ///
    /// # Example
    /// ```
    /// use ecs_core::prelude::*;
    /// #[derive(Component)]
    /// struct Hp(i32);
    /// let mut world = World::new();
    /// let hp = world.register_component::<Hp>();
    /// assert!(!world.components().reacts_to(hp));
    /// world.add_observer(|_: On<Add, Hp>| {});
    /// assert!(world.components().reacts_to(hp));
    /// ```
    #[inline]
    pub fn reacts_to(&self, id: ComponentId) -> bool {
        self.lifecycle_active && self.lifecycle(id) != 0
    }

    /// The info of a component this world has registered.
    #[inline]
    pub fn get(&self, id: ComponentId) -> Option<&ComponentInfo> {
        self.infos.get(id.index()).and_then(Option::as_ref)
    }

    /// The info of a component this world has registered, unchecked: for a
    /// lookup that already knows it is (a cache of this world's columns),
    /// where a check would cost a load and a branch per lookup.
    ///
    /// # Safety
    /// `id` is registered here ([`get`](Self::get) is `Some`). A world never
    /// unregisters a component.
    #[inline(always)]
    pub(crate) unsafe fn get_unchecked(&self, id: ComponentId) -> &ComponentInfo {
        debug_assert!(self.get(id).is_some(), "{id:?} is not registered");
        // SAFETY: `id` indexes a registered, so present, info (caller).
        unsafe { self.infos.get_unchecked(id.index()).as_ref().unwrap_unchecked() }
    }

    /// The name of a registered component, or `"<unregistered>"`.
    pub fn name(&self, id: ComponentId) -> &'static str {
        self.get(id).map_or("<unregistered component>", ComponentInfo::name)
    }

    /// Every registered component.
    pub fn iter(&self) -> impl Iterator<Item = &ComponentInfo> {
        self.infos.iter().flatten()
    }

    /// The registered component called `name`: its full type name
    /// (`game::Health`) or its [short name](ComponentInfo::short_name)
    /// (`Health`, or its schema's name). `None` when none is, or when the short
    /// name is shared by several components (ask by full name then).
    pub fn id_by_name(&self, name: &str) -> Option<ComponentId> {
        let names = self.names();
        if let Some(&id) = names.full.get(name) {
            return Some(id);
        }
        names.short.get(name).and_then(|&(id, shared)| (!shared).then_some(id))
    }

    /// A registered component whose full or short name is `name`, if any
    /// (several may share a short name: one of them).
    pub(crate) fn named(&self, name: &str) -> Option<&ComponentInfo> {
        let names = self.names();
        let id = names.full.get(name).copied().or_else(|| names.short.get(name).map(|&(id, _)| id))?;
        self.get(id)
    }

    fn names(&self) -> &NameIndex {
        self.names.get_or_init(|| {
            let mut names = Box::<NameIndex>::default();
            self.iter().for_each(|info| names.add(info));
            names
        })
    }
}
