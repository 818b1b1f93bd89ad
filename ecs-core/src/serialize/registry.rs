//! [`SerializeRegistry`]: which components a save holds, under which names.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::component::{Component, ComponentId, ComponentInfo, component_id};
use crate::entity::Entity;
use crate::relationship::{ChildOf, Relationship, RelationshipTarget};
use crate::storage::{Column, Ptr, PtrMut, Tick};

use super::codec::{self, DecodeError, Form, Plain, Sources};

use super::locals::LocalTypeEntry;
use super::resources::ResourceEntry;

/// The components a save holds, each under a stable name, and the components
/// it leaves out. Build it once, the same way for saving and loading.
///
/// [`new`](Self::new) knows the hierarchy (`ChildOf` and `Children`, under those
/// names); add your components with [`register`](Self::register), your
/// relationships with [`register_relationship`](Self::register_relationship),
/// and leave components out with [`skip`](Self::skip). See the
/// [module docs](super) for an example.
pub struct SerializeRegistry {
    entries: Vec<Entry>,
    by_name: HashMap<String, usize>,
    by_component: HashMap<ComponentId, usize>,
    skipped: HashSet<ComponentId>,
    /// Entities holding one of these are not saved at all (observers).
    machinery: HashSet<ComponentId>,
    resources: Vec<ResourceEntry>,
    /// Types of systems' `Local`s (and message cursors) saved, by name.
    locals: Vec<LocalTypeEntry>,
    skipped_locals: HashSet<core::any::TypeId>,
    /// `TypeId`s of the `Messages<M>` buffers whose messages saves leave out.
    skipped_messages: HashSet<core::any::TypeId>,
}

/// How one registered component is written, read and remapped.
pub(crate) struct Entry {
    pub(crate) name: String,
    pub(crate) info: ComponentInfo,
    /// How values are written and read.
    pub(crate) codec: Codec,
    /// `T` is `bytemuck::Pod` (`#[component(pod)]`): compact saves write its
    /// table columns as their bytes.
    pub(crate) pod: bool,
    /// How to find the entities a value holds (remapped on load, checked on
    /// save); `None` when it holds none (`Component::__MAPS_ENTITIES`).
    pub(crate) entities: Option<EntityFields>,
    pub(crate) relation: Relation,
}

/// How one registered component's values are written and read.
#[derive(Clone, Copy)]
pub(crate) enum Codec {
    /// Through the Rust type's serde impls.
    Typed {
        /// The value behind a pointer to a `T`, as something serde can write.
        serialize: for<'a> unsafe fn(Ptr<'a>) -> &'a dyn erased_serde::Serialize,
        /// Reads one value and pushes it onto a column of `T` (stamped `tick`).
        deserialize: DeserializeFn,
        /// Appends the compact encoding of some rows of a column of `T` (see [`super::codec`]).
        encode: EncodeFn,
        /// Appends the values one byte string of a compact encoding holds to a
        /// column of `T`, up to a number of rows.
        decode: DecodeFn,
    },
    /// Through the component's schema (a component defined at run time; see
    /// [`super::schema_values`]).
    Schema(crate::component::FieldKind),
}

/// Where the entities a value holds are.
#[derive(Clone, Copy)]
pub(crate) enum EntityFields {
    /// `Component::map_entities` and `visit_entities` of the Rust type.
    Typed { map: MapEntitiesFn, visit: VisitEntitiesFn },
    /// The schema's `Entity` fields.
    Schema(crate::component::FieldKind),
}

impl EntityFields {
    /// Replaces each entity the value holds with `f` of it.
    ///
    /// # Safety
    /// `ptr` points at a valid value of the component this was made for, not
    /// aliased.
    pub(crate) unsafe fn map(&self, ptr: PtrMut<'_>, f: &mut dyn FnMut(Entity) -> Entity) {
        // SAFETY: forwarded; each function was made for the component.
        unsafe {
            match self {
                EntityFields::Typed { map, .. } => map(ptr, f),
                EntityFields::Schema(kind) => super::schema_values::map_entities(kind, ptr, f),
            }
        }
    }

    /// Calls `f` with each entity the value holds.
    ///
    /// # Safety
    /// `ptr` points at a valid value of the component this was made for.
    pub(crate) unsafe fn visit(&self, ptr: Ptr<'_>, f: &mut dyn FnMut(Entity)) {
        // SAFETY: forwarded; each function was made for the component.
        unsafe {
            match self {
                EntityFields::Typed { visit, .. } => visit(ptr, f),
                EntityFields::Schema(kind) => super::schema_values::visit_entities(kind, ptr, f),
            }
        }
    }
}

/// # Safety
/// The pointer points at a valid value of the entry's component type.
pub(crate) type VisitEntitiesFn = unsafe fn(Ptr<'_>, &mut dyn FnMut(Entity));

/// # Safety
/// The column holds values of the entry's component type.
pub(crate) type DeserializeFn = for<'a, 'de> unsafe fn(
    &'a mut dyn erased_serde::Deserializer<'de>,
    &'a mut Column,
    Tick,
) -> Result<(), erased_serde::Error>;

/// # Safety
/// The column holds values of the entry's component type.
pub(crate) type EncodeFn = unsafe fn(&Column, core::ops::Range<usize>, &mut Vec<u8>) -> Result<(), String>;

/// # Safety
/// The column holds values of the entry's component type.
pub(crate) type DecodeFn = unsafe fn(&[u8], &mut Column, usize, Tick) -> Result<(), DecodeError>;

/// # Safety
/// The pointer points at a valid value of the entry's type, not aliased.
pub(crate) type MapEntitiesFn = unsafe fn(PtrMut<'_>, &mut dyn FnMut(Entity) -> Entity);

/// The part a component plays in a relationship, for the checks of a load.
#[derive(Clone, Copy)]
pub(crate) enum Relation {
    None,
    /// A relationship: the entity it points at.
    Source {
        target: ComponentId,
        get: unsafe fn(Ptr<'_>) -> Entity,
    },
    /// A relationship target: the entities listed.
    Target {
        source: ComponentId,
        sources: for<'a> unsafe fn(Ptr<'a>) -> &'a [Entity],
    },
}

impl Default for SerializeRegistry {
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Debug for SerializeRegistry {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SerializeRegistry")
            .field("components", &self.entries.iter().map(|e| e.name.as_str()).collect::<Vec<_>>())
            .field("skipped", &self.skipped.len())
            .finish()
    }
}

impl SerializeRegistry {
    /// A registry that knows the hierarchy: [`ChildOf`] as `"ChildOf"` and
    /// [`Children`](crate::relationship::Children) as `"Children"`.
    pub fn new() -> Self {
        let mut registry = Self {
            entries: Vec::new(),
            by_name: HashMap::new(),
            by_component: HashMap::new(),
            skipped: HashSet::new(),
            machinery: HashSet::new(),
            resources: Vec::new(),
            locals: Vec::new(),
            skipped_locals: HashSet::new(),
            skipped_messages: HashSet::new(),
        };
        registry.machinery.insert(component_id::<crate::observer::Observer>());
        registry.skipped.insert(component_id::<crate::observer::ObservedBy>());
        registry.register_relationship::<ChildOf>("ChildOf", "Children")
    }

    /// Saves and loads component `T` under `name`. The name, not the type, is
    /// what a save records: keep it when the type is renamed or moved.
    ///
    /// Entities the component holds must be declared (`#[entities]` on the
    /// field) so that a load into a world with entities can remap them.
    ///
    /// # Panics
    /// When `name` or `T` is already registered, or `T` is a relationship
    /// (register those with [`register_relationship`](Self::register_relationship)).
    pub fn register<T: Component + Serialize + DeserializeOwned>(mut self, name: &str) -> Self {
        assert!(
            !<T as Component>::__LINKS,
            "`{}` is a relationship: register it with `register_relationship::<{0}>(\"{name}\", \"TargetName\")`, \
             which saves its target side too",
            crate::names::type_name::<T>()
        );
        self.add(name, entry_of::<T>(name, Relation::None));
        self
    }

    /// Saves and loads the component defined at run time by `descriptor`
    /// (see [`World::register_dynamic`](crate::World::register_dynamic))
    /// under its name, value by value through its schema: a struct as a map
    /// of field names, an enum as its variant's name, entities remapped on
    /// load. A save loads into a process that registered the same components
    /// in another order (ids differ, names do not); a field the save lacks
    /// loads as its default, one the schema lacks is an error naming it.
    ///
    /// # Panics
    /// When the name or the component is already registered.
    ///
    /// # Example
    /// ```
    /// use ecs_core::prelude::*;
    /// use ecs_core::component::{ComponentDescriptor, FieldKind, SchemaBuilder};
    /// use ecs_core::serialize::SerializeRegistry;
    /// use ecs_core::world::DynamicValue;
    ///
    /// let schema = SchemaBuilder::new("Mana").field("points", FieldKind::F32).build()?;
    /// let mana = ComponentDescriptor::new("Mana", schema);
    /// let registry = SerializeRegistry::new().register_dynamic(&mana);
    ///
    /// let mut world = World::new();
    /// let id = world.register_dynamic(&mana)?;
    /// let mut value = DynamicValue::new(&world, id)?;
    /// value.set("points", 7.5f32)?;
    /// let e = world.spawn(());
    /// world.insert_by_id(e, id, value)?;
    /// let json = serde_json::to_string(&registry.rows(&world))?;
    /// assert!(json.contains(r#""Mana":{"points":7.5}"#), "{json}");
    ///
    /// let save = registry.load_rows(&mut serde_json::Deserializer::from_str(&json))?;
    /// let mut copy = World::new();
    /// copy.load(save);
    /// assert_eq!(copy.get_by_id(e, id)?.get::<f32>("points"), Ok(7.5));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn register_dynamic(mut self, descriptor: &crate::component::ComponentDescriptor) -> Self {
        let info = ComponentInfo::dynamic(descriptor);
        let kind = *info.kind().expect("a runtime component has a schema");
        let entry = Entry {
            name: descriptor.name().to_owned(),
            info,
            codec: Codec::Schema(kind),
            pod: false,
            entities: super::schema_values::holds_entities(&kind).then_some(EntityFields::Schema(kind)),
            relation: Relation::None,
        };
        self.add(descriptor.name(), entry);
        self
    }

    /// Saves and loads relationship `R` under `source_name` and its target
    /// component (`R::Target`, such as `Children`) under `target_name`, as the
    /// list of its sources in order. Loading checks that the two sides agree
    /// and that the links form no cycle.
    ///
    /// # Panics
    /// When a name or a type is already registered.
    pub fn register_relationship<R>(mut self, source_name: &str, target_name: &str) -> Self
    where
        R: Relationship + Serialize + DeserializeOwned,
    {
        let target = component_id::<R::Target>();
        let source = component_id::<R>();
        self.add(source_name, entry_of::<R>(source_name, Relation::Source { target, get: relationship_target::<R> }));
        let entry = Entry {
            name: target_name.to_owned(),
            info: ComponentInfo::of::<R::Target>(),
            codec: Codec::Typed {
                serialize: serialize_sources::<R::Target>,
                deserialize: deserialize_as::<Sources<R::Target>>,
                encode: codec::encode::<Sources<R::Target>>,
                decode: codec::decode::<Sources<R::Target>>,
            },
            pod: false,
            entities: Some(EntityFields::Typed { map: map_entities::<R::Target>, visit: visit_entities::<R::Target> }),
            relation: Relation::Target { source, sources: listed_sources::<R::Target> },
        };
        self.add(target_name, entry);
        self
    }

    /// Saves and loads resource `R` under `name`: a save holds it when the
    /// world has it, and a load inserts it (replacing the world's). Resources
    /// not registered are neither saved nor touched by a load.
    ///
    /// # Panics
    /// When `name` or `R` is already registered as a resource.
    pub fn register_resource<R>(self, name: &str) -> Self
    where
        R: Serialize + DeserializeOwned + Send + Sync + 'static,
    {
        self.add_resource::<R>(ResourceEntry::of::<R>(name))
    }

    /// [`register_resource`](Self::register_resource) for a resource that
    /// holds entities: a load into a world that has entities (where saved
    /// entities get new ids) rewrites them through `R`'s
    /// [`MapEntities`](crate::entity::MapEntities), as it does a component's
    /// `#[entities]` fields. An entity the save does not hold is left as it is.
    ///
    /// # Panics
    /// When `name` or `R` is already registered as a resource.
    pub fn register_resource_with_entities<R>(self, name: &str) -> Self
    where
        R: crate::entity::MapEntities + Serialize + DeserializeOwned + Send + Sync + 'static,
    {
        self.add_resource::<R>(ResourceEntry::with_entities::<R>(name))
    }

    fn add_resource<R: 'static>(mut self, entry: ResourceEntry) -> Self {
        let name = entry.name.as_str();
        assert!(
            self.resource_by_name(name).is_none(),
            "the resource name \"{name}\" is already registered: each resource needs a name of its own"
        );
        let type_id = core::any::TypeId::of::<R>();
        assert!(
            !self.resources.iter().any(|r| r.type_id == type_id),
            "resource `{}` is already registered",
            crate::names::type_name::<R>()
        );
        self.resources.push(entry);
        self
    }

    /// Saves and loads every system's [`Local<T>`](crate::system::Local) under
    /// `name`. A save holds each one with its system's place (systems are
    /// numbered in the order they are initialized: a schedule's in schedule
    /// order when it first runs, an observer's when it is added); a load into
    /// a world with no entity but its observers puts each value back into the
    /// system at the same place, so register systems and observers in the
    /// same order before loading. Saving a world with a `Local` whose type is
    /// neither registered nor [skipped](Self::skip_local) fails, naming it.
    ///
    /// # Example
    /// ```
    /// use ecs_core::prelude::*;
    /// use ecs_core::serialize::SerializeRegistry;
    ///
    /// #[derive(Default, serde::Serialize, serde::Deserialize)]
    /// struct Countdown(u32);
    /// #[derive(Default)] struct Launches(u32);
    /// fn launch(mut countdown: Local<Countdown>, mut launches: ResMut<Launches>) {
    ///     countdown.0 += 1;
    ///     if countdown.0 % 3 == 0 { launches.0 += 1; }
    /// }
    /// let registry = SerializeRegistry::new().register_local::<Countdown>("Countdown");
    /// let mut world = World::new();
    /// world.insert_resource(Launches::default());
    /// let mut schedule = Schedule::new();
    /// schedule.add_systems(launch);
    /// schedule.run(&mut world);
    /// schedule.run(&mut world);
    /// let json = serde_json::to_string(&registry.columns(&world)).unwrap();
    ///
    /// let mut loaded = World::new();
    /// loaded.insert_resource(Launches::default());
    /// let mut schedule = Schedule::new();
    /// schedule.add_systems(launch);
    /// loaded.load(registry.load_columns(&mut serde_json::Deserializer::from_str(&json))?);
    /// schedule.run(&mut loaded); // the third tick of the countdown
    /// assert_eq!(loaded.resource::<Launches>().0, 1);
    /// # Ok::<(), ecs_core::serialize::LoadError>(())
    /// ```
    ///
    /// # Panics
    /// When `name` or `T` is already registered as a local type.
    pub fn register_local<T>(mut self, name: &str) -> Self
    where
        T: Serialize + DeserializeOwned + Send + Sync + 'static,
    {
        self.add_local(LocalTypeEntry::of::<T>(name), crate::names::type_name::<T>());
        self
    }

    /// Leaves every system's [`Local<T>`](crate::system::Local) out of saves
    /// (scratch buffers, caches): after a load, those systems start with
    /// `T::default()`.
    ///
    /// # Panics
    /// When `T` is registered.
    pub fn skip_local<T: Send + Sync + 'static>(mut self) -> Self {
        let type_id = core::any::TypeId::of::<T>();
        assert!(
            self.local_by_type(type_id).is_none(),
            "`Local<{}>` is registered: it cannot be skipped too",
            crate::names::type_name::<T>()
        );
        self.skipped_locals.insert(type_id);
        self
    }

    /// Saves and loads the messages of type `M` in flight (its
    /// [`Messages<M>`](crate::message::Messages) buffer, under `name`) and
    /// every [`MessageReader<M>`](crate::message::MessageReader)'s place in
    /// them, so that a message written in the tick before a save is read once
    /// after the load, as it would have been. Saving a world with messages in
    /// flight whose type is neither registered nor
    /// [skipped](Self::skip_message) fails, naming it.
    ///
    /// # Panics
    /// When `name` is already registered as a resource or a local type, or
    /// `M` is already registered.
    pub fn register_message<M>(self, name: &str) -> Self
    where
        M: crate::message::Message + Serialize + DeserializeOwned,
    {
        let buffer = ResourceEntry::of::<crate::message::Messages<M>>(name);
        self.add_message::<M>(buffer)
    }

    /// [`register_message`](Self::register_message) for messages that hold
    /// entities: a load into a world that has entities rewrites those of the
    /// messages in flight through `M`'s
    /// [`MapEntities`](crate::entity::MapEntities).
    ///
    /// # Panics
    /// As [`register_message`](Self::register_message).
    pub fn register_message_with_entities<M>(self, name: &str) -> Self
    where
        M: crate::message::Message + crate::entity::MapEntities + Serialize + DeserializeOwned,
    {
        let buffer = ResourceEntry::with_entities::<crate::message::Messages<M>>(name);
        self.add_message::<M>(buffer)
    }

    fn add_message<M: crate::message::Message>(mut self, buffer: ResourceEntry) -> Self {
        let name = buffer.name.clone();
        let name = name.as_str();
        self = self.add_resource::<crate::message::Messages<M>>(buffer);
        self.add_local(
            LocalTypeEntry::of::<crate::message::MessageCursor<M>>(name),
            crate::names::type_name::<crate::message::MessageCursor<M>>(),
        );
        self
    }

    /// Leaves messages of type `M` out of saves: a load starts with none in
    /// flight.
    ///
    /// # Panics
    /// When `M` is registered.
    pub fn skip_message<M: crate::message::Message>(mut self) -> Self {
        let buffer = core::any::TypeId::of::<crate::message::Messages<M>>();
        assert!(
            !self.saves_resource(buffer),
            "message `{}` is registered: it cannot be skipped too",
            crate::names::type_name::<M>()
        );
        self.skipped_messages.insert(buffer);
        self
    }

    fn add_local(&mut self, entry: LocalTypeEntry, type_name: &str) {
        assert!(
            self.local_by_name(&entry.name).is_none(),
            "the local name \"{}\" is already registered: each local type needs a name of its own",
            entry.name
        );
        assert!(self.local_by_type(entry.type_id).is_none(), "`{type_name}` is already registered as a local type");
        self.skipped_locals.remove(&entry.type_id);
        self.locals.push(entry);
    }

    pub(crate) fn local_by_type(&self, type_id: core::any::TypeId) -> Option<&LocalTypeEntry> {
        self.locals.iter().find(|l| l.type_id == type_id)
    }

    pub(crate) fn local_by_name(&self, name: &str) -> Option<&LocalTypeEntry> {
        self.locals.iter().find(|l| l.name == name)
    }

    pub(crate) fn is_local_skipped(&self, type_id: core::any::TypeId) -> bool {
        self.skipped_locals.contains(&type_id)
    }

    /// `true` when a resource of type `type_id` is registered.
    pub(crate) fn saves_resource(&self, type_id: core::any::TypeId) -> bool {
        self.resources.iter().any(|r| r.type_id == type_id)
    }

    pub(crate) fn is_message_skipped(&self, buffer: core::any::TypeId) -> bool {
        self.skipped_messages.contains(&buffer)
    }

    /// Leaves component `T` out of saves: entities holding it are saved
    /// without it (caches, handles to the outside world, render state).
    ///
    /// # Panics
    /// When `T` is registered.
    pub fn skip<T: Component>(mut self) -> Self {
        let id = component_id::<T>();
        assert!(
            !self.by_component.contains_key(&id),
            "`{}` is registered: it cannot be skipped too",
            crate::names::type_name::<T>()
        );
        self.skipped.insert(id);
        self
    }

    fn add(&mut self, name: &str, entry: Entry) {
        let id = entry.info.id();
        assert!(
            !self.by_name.contains_key(name),
            "the name \"{name}\" is already registered: each component needs a name of its own"
        );
        assert!(
            !self.by_component.contains_key(&id),
            "`{}` is already registered, as \"{}\"",
            entry.info.name(),
            self.entries[self.by_component[&id]].name
        );
        self.skipped.remove(&id);
        self.by_name.insert(name.to_owned(), self.entries.len());
        self.by_component.insert(id, self.entries.len());
        self.entries.push(entry);
    }

    pub(crate) fn entry(&self, index: usize) -> &Entry {
        &self.entries[index]
    }

    pub(crate) fn by_name(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    pub(crate) fn by_component(&self, id: ComponentId) -> Option<usize> {
        self.by_component.get(&id).copied()
    }

    pub(crate) fn resources(&self) -> &[ResourceEntry] {
        &self.resources
    }

    pub(crate) fn resource_by_name(&self, name: &str) -> Option<usize> {
        self.resources.iter().position(|r| r.name == name)
    }

    pub(crate) fn is_skipped(&self, id: ComponentId) -> bool {
        self.skipped.contains(&id)
    }

    /// `true` for components whose entities are runtime machinery, never saved.
    pub(crate) fn is_machinery(&self, id: ComponentId) -> bool {
        self.machinery.contains(&id)
    }
}

fn entry_of<T: Component + Serialize + DeserializeOwned>(name: &str, relation: Relation) -> Entry {
    Entry {
        name: name.to_owned(),
        info: ComponentInfo::of::<T>(),
        codec: Codec::Typed {
            serialize: serialize_value::<T>,
            deserialize: deserialize_as::<Plain<T>>,
            encode: codec::encode::<Plain<T>>,
            decode: codec::decode::<Plain<T>>,
        },
        pod: T::snapshot_strategy().pod,
        entities: T::__MAPS_ENTITIES
            .then_some(EntityFields::Typed { map: map_entities::<T>, visit: visit_entities::<T> }),
        relation,
    }
}

/// # Safety
/// `ptr` points at a valid `T`.
unsafe fn serialize_value<T: Serialize + 'static>(ptr: Ptr<'_>) -> &dyn erased_serde::Serialize {
    // SAFETY: forwarded from the caller.
    unsafe { ptr.deref::<T>() }
}

/// # Safety
/// `ptr` points at a valid `T`.
unsafe fn serialize_sources<T: RelationshipTarget>(ptr: Ptr<'_>) -> &dyn erased_serde::Serialize {
    // SAFETY: forwarded from the caller.
    unsafe { ptr.deref::<T>() }.__sources().__serializable()
}

/// # Safety
/// `column` holds `F::Component`s.
unsafe fn deserialize_as<F: Form>(
    deserializer: &mut dyn erased_serde::Deserializer<'_>,
    column: &mut Column,
    tick: Tick,
) -> Result<(), erased_serde::Error> {
    let value = F::read(deserializer)?;
    // SAFETY: `column` holds `F::Component`s (caller).
    unsafe { codec::push(column, value, tick) };
    Ok(())
}

/// # Safety
/// `ptr` points at a valid `T`, not aliased.
unsafe fn map_entities<T: Component>(ptr: PtrMut<'_>, map: &mut dyn FnMut(Entity) -> Entity) {
    // SAFETY: forwarded from the caller.
    unsafe { ptr.deref_mut::<T>() }.map_entities(map);
}

/// # Safety
/// `ptr` points at a valid `T`.
unsafe fn visit_entities<T: Component>(ptr: Ptr<'_>, f: &mut dyn FnMut(Entity)) {
    // SAFETY: forwarded from the caller.
    unsafe { ptr.deref::<T>() }.visit_entities(f);
}

/// # Safety
/// `ptr` points at a valid `R`.
unsafe fn relationship_target<R: Relationship>(ptr: Ptr<'_>) -> Entity {
    // SAFETY: forwarded from the caller.
    unsafe { ptr.deref::<R>() }.get()
}

/// # Safety
/// `ptr` points at a valid `T`.
unsafe fn listed_sources<T: RelationshipTarget>(ptr: Ptr<'_>) -> &[Entity] {
    // SAFETY: forwarded from the caller.
    unsafe { ptr.deref::<T>() }.sources()
}
