//! The `world` object scripts get: jecs's functions, over the world lent for
//! one call from Rust.
//!
//! The functions are made for the call in a [`mlua::Scope`] and borrow the
//! world through a `RefCell`: they expire with the call (a script that keeps
//! the object finds its functions gone), and a world function reached while
//! another holds the world (a batch's function calling back) is an error,
//! never a second `&mut`. `set`, `get` and `has` are wrapped in plain Luau C
//! functions (`direct.rs`) that do their common case through `quick_set`,
//! `quick_get` and `quick_has` below and hand every other to these.
//!
//! Every function checks all of its arguments before it changes anything: a
//! wrong kind, an unknown component or field, or a stale entity is a Luau
//! error naming it, and the world is as it was.

use std::cell::RefCell;
use std::sync::Arc;

use ecs_core::command::Commands;
use ecs_core::component::{ComponentDescriptor, ComponentId, Components, FieldKind, SchemaBuilder};
use ecs_core::prelude::*;
use ecs_core::system::DeclaredWorld;
use ecs_core::world::{ComponentMut, ComponentRef, DynamicValue};
use mlua::{Lua, Scope, Table, Value, Variadic};

use crate::codec::{self, Codec, Target, Write, entity_of, entity_value};
use crate::direct::Direct;
use crate::event::ScriptEvent;
use crate::host::{EVENT, Fired, Shared};

pub(crate) fn error(message: impl Into<String>) -> mlua::Error {
    mlua::Error::runtime(message.into())
}

fn ecs(e: EcsError) -> mlua::Error {
    error(e.to_string())
}

/// The world a call reaches: the whole world (a call from Rust with `&mut
/// World`), or what a script system declared, its structural changes
/// deferred through its `Commands`.
pub(crate) enum Backend<'a, 'w, 'c> {
    World(&'a mut World),
    System {
        world: &'a mut DeclaredWorld<'w>,
        commands: &'a mut Commands<'c>,
        reserved: std::collections::HashSet<Entity>,
    },
}

impl Backend<'_, '_, '_> {
    pub(crate) fn components(&self) -> &Components {
        match self {
            Backend::World(world) => world.components(),
            Backend::System { world, .. } => world.components(),
        }
    }

    pub(crate) fn value(&self, id: ComponentId) -> Result<DynamicValue, EcsError> {
        match self {
            Backend::World(world) => DynamicValue::new(world, id),
            Backend::System { world, .. } => world.new_value(id),
        }
    }

    pub(crate) fn codec(&self, shared: &Shared, id: ComponentId) -> mlua::Result<Arc<Codec>> {
        shared.codec(id, || Codec::new(self.components(), id, self.value(id)))
    }

    /// The entity a script passed, alive (or spawned by this run of a
    /// system, not yet applied).
    fn live(&self, value: &Value) -> mlua::Result<Entity> {
        let entity = entity_of(value).ok_or_else(|| error(format!("expected an entity, got {}", value.type_name())))?;
        let alive = match self {
            Backend::World(world) => world.contains(entity),
            Backend::System { world, reserved, .. } => world.contains(entity) || reserved.contains(&entity),
        };
        if !alive {
            return Err(error(format!("entity {entity} is not alive (despawned, or from another world)")));
        }
        Ok(entity)
    }

    fn has(&self, entity: Entity, id: ComponentId) -> bool {
        match self {
            Backend::World(world) => world.entity(entity).is_some_and(|e| e.contains_id(id)),
            Backend::System { world, .. } => world.has(entity, id),
        }
    }

    pub(crate) fn get(&self, entity: Entity, id: ComponentId) -> mlua::Result<Option<ComponentRef<'_>>> {
        let found = match self {
            Backend::World(world) => world.get_by_id(entity, id),
            Backend::System { world, reserved, .. } => match world.get_by_id(entity, id) {
                // Spawned by this run (its read declared): nothing of it is
                // in the world yet.
                Err(EcsError::NoSuchEntity(_)) if reserved.contains(&entity) => return Ok(None),
                found => found,
            },
        };
        match found {
            Ok(view) => Ok(Some(view)),
            Err(EcsError::MissingComponent { .. }) => Ok(None),
            Err(e) => Err(ecs(e)),
        }
    }

    /// Component `id` of `entity`, writable (stamped changed).
    pub(crate) fn get_mut(&mut self, entity: Entity, id: ComponentId) -> mlua::Result<ComponentMut<'_>> {
        match self {
            Backend::World(world) => world.get_mut_by_id(entity, id),
            Backend::System { world, .. } => world.get_mut_by_id(entity, id),
        }
        .map_err(ecs)
    }

    /// Writes `writes` into component `id` of `entity`: in place when it has
    /// one, else a value built from them inserted (deferred in a system).
    fn set(&mut self, shared: &Shared, entity: Entity, id: ComponentId, writes: &[Write<'_>]) -> mlua::Result<()> {
        match self {
            // In place first, the commonest case: one lookup of the entity.
            Backend::World(world) => match world.get_mut_by_id(entity, id) {
                Ok(mut view) => {
                    for write in writes {
                        view.apply(write);
                    }
                    return Ok(());
                }
                // The entity lacks the component: inserted below.
                Err(EcsError::MissingComponent { .. }) => {}
                Err(e) => return Err(ecs(e)),
            },
            // Asked first: a component the entity lacks is inserted through
            // the commands, declared or not, as a Rust system's would be
            // (the declared world refuses an undeclared write before it
            // looks at the entity).
            Backend::System { world, .. } => {
                if world.has(entity, id) {
                    let mut view = world.get_mut_by_id(entity, id).map_err(ecs)?;
                    for write in writes {
                        view.apply(write);
                    }
                    return Ok(());
                }
            }
        }
        let deferred = if matches!(self, Backend::System { .. }) { COMMAND_BYTES } else { 0 };
        shared.charge(self.size_of(id) + deferred)?;
        let mut value = self.value(id).map_err(ecs)?;
        for write in writes {
            value.apply(write);
        }
        match self {
            Backend::World(world) => world.insert_by_id(entity, id, value).map_err(ecs),
            Backend::System { commands, .. } => {
                commands.add(move |world: &mut World| world.insert_by_id(entity, id, value));
                Ok(())
            }
        }
    }

    /// Triggers a script event (deferred in a system, as its commands are).
    fn trigger(&mut self, event: ScriptEvent, target: Option<Entity>) {
        match (self, target) {
            (Backend::World(world), None) => world.trigger(event),
            (Backend::World(world), Some(target)) => world.trigger_targets(event, target),
            (Backend::System { commands, .. }, None) => commands.trigger(event),
            (Backend::System { commands, .. }, Some(target)) => commands.trigger_targets(event, target),
        }
    }

    fn remove(&mut self, shared: &Shared, entity: Entity, id: ComponentId) -> mlua::Result<()> {
        let remove = move |world: &mut World| match world.remove_by_id(entity, id) {
            Ok(()) | Err(EcsError::MissingComponent { .. }) => Ok(()),
            Err(e) => Err(e),
        };
        match self {
            Backend::World(world) => remove(world).map_err(ecs),
            Backend::System { commands, .. } => {
                shared.charge(COMMAND_BYTES)?;
                commands.add(remove);
                Ok(())
            }
        }
    }

    fn despawn(&mut self, shared: &Shared, entity: Entity) -> mlua::Result<()> {
        match self {
            Backend::World(world) => world.despawn(entity).map_err(ecs),
            Backend::System { commands, .. } => {
                shared.charge(COMMAND_BYTES)?;
                commands.despawn(entity);
                Ok(())
            }
        }
    }

    /// The bytes a value of component `id` takes in the world.
    fn size_of(&self, id: ComponentId) -> usize {
        self.components().get(id).map_or(0, |info| info.layout().size())
    }

    /// An entity holding `values`, placed in its archetype at once (in a
    /// system, deferred as any spawn is: the entity is reserved now).
    fn spawn_with(&mut self, values: Vec<DynamicValue>) -> mlua::Result<Entity> {
        match self {
            Backend::World(world) => {
                let mut builder = ecs_core::world::EntityBuilder::new();
                for value in values {
                    builder.add_dynamic(value);
                }
                builder.spawn(world).map_err(ecs)
            }
            Backend::System { commands, reserved, .. } => {
                let entity = commands.spawn(()).id();
                reserved.insert(entity);
                if !values.is_empty() {
                    commands.add(move |world: &mut World| world.insert_by_ids(entity, values));
                }
                Ok(entity)
            }
        }
    }

    fn spawn(&mut self) -> Entity {
        match self {
            Backend::World(world) => world.spawn_empty().id(),
            Backend::System { commands, reserved, .. } => {
                let entity = commands.spawn(()).id();
                reserved.insert(entity);
                entity
            }
        }
    }
}

/// The world a call lent, and the components its functions have named so
/// far: resolved once per call, not through the host's locks each time.
pub(crate) struct Call<'a, 'w, 'c> {
    pub(crate) backend: Backend<'a, 'w, 'c>,
    /// By the number scripts hold (the component's index).
    ids: Vec<Option<ComponentId>>,
    codecs: Vec<Option<Arc<Codec>>>,
}

impl<'a, 'w, 'c> Call<'a, 'w, 'c> {
    pub(crate) fn new(backend: Backend<'a, 'w, 'c>) -> Self {
        Self { backend, ids: Vec::new(), codecs: Vec::new() }
    }

    /// The id of the world the call lent.
    pub(crate) fn world_id(&self) -> ecs_core::world::WorldId {
        match &self.backend {
            Backend::World(world) => world.id(),
            Backend::System { world, .. } => world.world_id(),
        }
    }

    /// The component a script named by its number (see [`Shared::component`]).
    pub(crate) fn component(&mut self, shared: &Shared, value: &Value) -> mlua::Result<ComponentId> {
        if let Some(Some(id)) = index_of(value).and_then(|i| self.ids.get(i)) {
            return Ok(*id);
        }
        let id = shared.component(value)?;
        remember(&mut self.ids, id.index(), id);
        Ok(id)
    }

    /// The component a script named by its number, where it names one.
    pub(crate) fn component_at(&mut self, shared: &Shared, index: f64) -> Option<ComponentId> {
        // An exact conversion back, not `fract` (a libm call), through `u32`
        // (one instruction each way; `usize` takes a sequence).
        let i = index as u32;
        if f64::from(i) == index {
            if let Some(Some(id)) = self.ids.get(i as usize) {
                return Some(*id);
            }
        }
        self.component(shared, &Value::Number(index)).ok()
    }

    /// Component `id`'s codec (see [`Backend::codec`]).
    pub(crate) fn codec(&mut self, shared: &Shared, id: ComponentId) -> mlua::Result<Arc<Codec>> {
        Ok(self.codec_and_backend(shared, id)?.0.clone())
    }

    /// [`codec_and_backend`](Self::codec_and_backend), the world writable.
    pub(crate) fn codec_and_backend_mut(
        &mut self,
        shared: &Shared,
        id: ComponentId,
    ) -> mlua::Result<(&Arc<Codec>, &mut Backend<'a, 'w, 'c>)> {
        self.codec_and_backend(shared, id)?;
        let codec = self.codecs[id.index()].as_ref().expect("remembered by the call above");
        Ok((codec, &mut self.backend))
    }

    /// Component `id`'s codec, borrowed, beside the world to read with it.
    pub(crate) fn codec_and_backend(
        &mut self,
        shared: &Shared,
        id: ComponentId,
    ) -> mlua::Result<(&Arc<Codec>, &Backend<'a, 'w, 'c>)> {
        if !matches!(self.codecs.get(id.index()), Some(Some(_))) {
            let codec = self.backend.codec(shared, id)?;
            remember(&mut self.codecs, id.index(), codec);
        }
        let codec = self.codecs[id.index()].as_ref().expect("remembered above");
        Ok((codec, &self.backend))
    }
}

impl<'a, 'w, 'c> core::ops::Deref for Call<'a, 'w, 'c> {
    type Target = Backend<'a, 'w, 'c>;
    fn deref(&self) -> &Self::Target {
        &self.backend
    }
}

impl core::ops::DerefMut for Call<'_, '_, '_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.backend
    }
}

/// The index a script's component number names, if it is one.
fn index_of(value: &Value) -> Option<usize> {
    match value {
        Value::Integer(i) => usize::try_from(*i).ok(),
        // An exact conversion back (`fract` is a libm call): no fraction, sign or
        // overflow.
        Value::Number(n) if (*n as usize) as f64 == *n && *n < usize::MAX as f64 => Some(*n as usize),
        _ => None,
    }
}

fn remember<T>(list: &mut Vec<Option<T>>, index: usize, value: T) {
    if list.len() <= index {
        list.resize_with(index + 1, || None);
    }
    list[index] = Some(value);
}

/// The world the call lent, borrowed for one function.
pub(crate) type Lent<'a, 'w, 'c> = RefCell<Call<'a, 'w, 'c>>;

pub(crate) fn borrow<'l, 'a, 'w, 'c>(
    lent: &'l Lent<'a, 'w, 'c>,
) -> mlua::Result<std::cell::RefMut<'l, Call<'a, 'w, 'c>>> {
    lent.try_borrow_mut().map_err(|_| error("the world is in use (a world function called from a batch's function)"))
}

/// A world function's arguments: the world object itself (read as a
/// boolean: converting the table would take a registry reference on every
/// call, and it is not needed), then up to three (more are ignored, as Luau
/// ignores extra arguments): a fixed list, nothing collected per call.
pub(crate) type Args = (bool, Value, Value, Value);

/// The arguments of a function that takes any number of components (`get`,
/// `has`, `query`): the first three as in [`Args`], the rest in a list.
pub(crate) type VarArgs = (bool, Value, Value, Value, Variadic<Value>);

/// The arguments of `get` and `has`, called per entity in a game's loops:
/// an entity and up to [`MANY`] components, a fixed list (a [`VarArgs`]
/// list costs as much as the rest of a `get`). The slot after the last holds
/// nothing unless a script passed more, which is then an error, not a
/// component silently left out.
pub(crate) type ManyArgs = (bool, Value, Value, Value, Value, Value, Value);

/// How many components `get` and `has` take at once (as jecs's do).
pub(crate) const MANY: usize = 4;

impl ArgList for ManyArgs {
    fn get(&self, i: usize) -> &Value {
        let all = [&self.1, &self.2, &self.3, &self.4, &self.5, &self.6];
        all.get(i).copied().unwrap_or(&Value::Nil)
    }
    fn count(&self) -> usize {
        let all = [&self.1, &self.2, &self.3, &self.4, &self.5, &self.6];
        all.iter().rposition(|v| !v.is_nil()).map_or(0, |last| last + 1)
    }
}

/// Refuses a call of `get` or `has` with more than [`MANY`] components.
fn at_most_many(function: &str, args: &ManyArgs) -> mlua::Result<()> {
    if args.6.is_nil() {
        return Ok(());
    }
    Err(error(format!("{function}: at most {MANY} components at once")))
}

/// A world function's arguments after the world object.
pub(crate) trait ArgList {
    /// The argument at `i`, `nil` past the last.
    fn get(&self, i: usize) -> &Value;
    /// How many arguments were passed, up to the last that is not `nil`.
    fn count(&self) -> usize;
}

impl ArgList for Args {
    fn get(&self, i: usize) -> &Value {
        match i {
            0 => &self.1,
            1 => &self.2,
            2 => &self.3,
            _ => &Value::Nil,
        }
    }
    fn count(&self) -> usize {
        [&self.3, &self.2, &self.1].iter().position(|v| !v.is_nil()).map_or(0, |from_end| 3 - from_end)
    }
}

impl ArgList for VarArgs {
    fn get(&self, i: usize) -> &Value {
        match i {
            0 => &self.1,
            1 => &self.2,
            2 => &self.3,
            _ => self.4.get(i - 3).unwrap_or(&Value::Nil),
        }
    }
    fn count(&self) -> usize {
        if !self.4.is_empty() {
            return 3 + self.4.len();
        }
        [&self.3, &self.2, &self.1].iter().position(|v| !v.is_nil()).map_or(0, |from_end| 3 - from_end)
    }
}

/// The argument at `i` (after the world object itself).
pub(crate) fn arg(args: &impl ArgList, i: usize) -> &Value {
    args.get(i)
}

/// How many arguments were passed after the world object, up to the last
/// that is not `nil`.
fn arg_count(args: &impl ArgList) -> usize {
    args.count()
}

/// A primitive kind of a script's schema, by name.
fn primitive(name: &str) -> Option<&'static FieldKind> {
    Some(match name {
        "bool" => &FieldKind::Bool,
        "i8" => &FieldKind::I8,
        "i16" => &FieldKind::I16,
        "i32" => &FieldKind::I32,
        "i64" => &FieldKind::I64,
        "u8" => &FieldKind::U8,
        "u16" => &FieldKind::U16,
        "u32" => &FieldKind::U32,
        "u64" => &FieldKind::U64,
        "f32" | "number" => &FieldKind::F32,
        "f64" => &FieldKind::F64,
        "entity" => &FieldKind::Entity,
        "string" => &FieldKind::String,
        _ => return None,
    })
}

/// A kind of a script's schema: a primitive, or a fixed-size array of one
/// (`f32[3]`).
fn kind_of(name: &str) -> Option<FieldKind> {
    if let Some(kind) = primitive(name) {
        return Some(*kind);
    }
    let (element, len) = name.strip_suffix(']')?.split_once('[')?;
    Some(FieldKind::array(*primitive(element)?, len.parse().ok()?))
}

/// The fields of a script's definition, in the order its schema is built
/// (by name: a Luau table has no order), each kind parsed: `{ field =
/// "kind", ... }` (none for a tag), or a kind name for a newtype, whose one
/// field is named `0` and which scripts hold bare (a number, not a table).
fn schema_fields(name: &str, schema: &Value) -> mlua::Result<Vec<(String, FieldKind)>> {
    let table = match schema {
        Value::Table(table) => table,
        Value::String(kind) => {
            let kind = kind.to_str()?;
            let parsed = kind_of(&kind).ok_or_else(|| error(format!("component `{name}`: unknown kind `{kind}`")))?;
            return Ok(vec![(codec::NEWTYPE_FIELD.to_owned(), parsed)]);
        }
        other => {
            return Err(error(format!(
                "component `{name}`: a schema is a table of fields or a kind name, not {}",
                other.type_name()
            )));
        }
    };
    let mut fields: Vec<(String, String)> = Vec::new();
    for pair in table.pairs::<String, String>() {
        let (field, kind) =
            pair.map_err(|_| error(format!("component `{name}`: a schema maps field names to kind names")))?;
        fields.push((field, kind));
    }
    fields.sort();
    fields
        .into_iter()
        .map(|(field, kind)| match kind_of(&kind) {
            Some(parsed) => Ok((field, parsed)),
            None => Err(error(format!("component `{name}` field `{field}`: unknown kind `{kind}`"))),
        })
        .collect()
}

/// Registers a script's component with the fields [`schema_fields`] read.
fn define(world: &mut World, name: &str, fields: &[(String, FieldKind)]) -> mlua::Result<ComponentId> {
    let builder =
        fields.iter().fold(SchemaBuilder::new(name), |builder, (field, kind)| builder.field(field.as_str(), *kind));
    let schema = builder.build().map_err(|e| error(format!("component `{name}`: {e}")))?;
    register(world, name, schema)
}

/// The most bytes one value of a script's component may take: scripts'
/// components are game data, every value is copied whole between the world
/// and Luau, and a schema the script wrote must not make the host allocate
/// without bound (`u8[9223372036854775807]`).
const MAX_VALUE: usize = 64 << 10;

fn register(world: &mut World, name: &str, schema: &'static ecs_core::component::Schema) -> mlua::Result<ComponentId> {
    if schema.size() > MAX_VALUE {
        return Err(error(format!(
            "component `{name}`: a value would take {} bytes; a script's component takes at most {MAX_VALUE}",
            schema.size()
        )));
    }
    world.register_dynamic(&ComponentDescriptor::new(name, schema)).map_err(|e| error(e.to_string()))
}

/// Hands waiting events to the scripts' observers, oldest first: a
/// lifecycle event as `f(world, entity, component)`, a script event as
/// `f(world, value, target)` (`target` nil when it has none); events their
/// own changes cause are handed out in turn.
///
/// Not reentrant: a world function an observer calls leaves the events it
/// causes to the loop already handing them out, so an observer that keeps
/// causing its own event runs in turn, not deeper and deeper in the stack,
/// until the instruction budget stops it.
pub(crate) fn dispatch(lua: &Lua, shared: &Shared, lent: &Lent<'_, '_, '_>) -> mlua::Result<()> {
    // Most world functions fire nothing: decided before the world object
    // is looked up.
    if shared.fired.is_empty() || shared.dispatching.swap(true, std::sync::atomic::Ordering::Acquire) {
        return Ok(());
    }
    /// Ends the dispatch, by an error or a panic too.
    struct Dispatching<'s>(&'s Shared);
    impl Drop for Dispatching<'_> {
        fn drop(&mut self) {
            self.0.dispatching.store(false, std::sync::atomic::Ordering::Release);
        }
    }
    let _dispatching = Dispatching(shared);
    // Outside a call there is no world object to hand over: the events wait.
    let Some(world) = shared.current.lock().expect("not poisoned").clone() else { return Ok(()) };
    let here = borrow(lent)?.world_id();
    let mut pending = std::collections::VecDeque::new();
    loop {
        // This world's new events go first: those the last observers caused
        // are handed out before older ones, as a nested trigger would be.
        shared.fired.take_of(here).into_iter().rev().for_each(|f| pending.push_front(f));
        let Some(Fired { event, id, entity, value, .. }) = pending.pop_front() else { return Ok(()) };
        let handed = hand_out(lua, shared, lent, &world, here, event, id, entity, value.as_ref());
        if handed.is_err() {
            // The ones not handed out wait (the script may catch the error
            // and go on; if the call fails, they are dropped with it).
            pending.into_iter().for_each(|f| shared.fired.push(f));
            return handed;
        }
    }
}

/// Calls each script observer of one event.
#[allow(clippy::too_many_arguments, reason = "one event's parts, taken apart by the caller")]
fn hand_out(
    lua: &Lua,
    shared: &Shared,
    lent: &Lent<'_, '_, '_>,
    world: &Table,
    here: ecs_core::world::WorldId,
    event: &'static str,
    id: ComponentId,
    entity: Option<Entity>,
    value: Option<&DynamicValue>,
) -> mlua::Result<()> {
    let observers: Vec<mlua::Function> = shared
        .observers
        .lock()
        .expect("not poisoned")
        .iter()
        .filter(|o| o.event == event && o.id == id && o.world == here)
        .map(|o| o.f.clone())
        .collect();
    if observers.is_empty() {
        return Ok(());
    }
    let entity = entity.map_or(Value::Nil, entity_value);
    let codec = match value {
        Some(_) => Some(borrow(lent)?.codec(shared, id)?),
        None => None,
    };
    for f in observers {
        let (second, third) = match (value, &codec) {
            // Each observer gets its own copy of the payload: one that
            // changes it (another mod's, maybe) changes nothing for the next.
            (Some(value), Some(codec)) => (codec::to_lua(lua, &value.view(), &codec.root)?, entity.clone()),
            _ => (entity.clone(), Value::Number(id.index() as f64)),
        };
        f.call::<()>((world.clone(), second, third))?;
    }
    Ok(())
}

/// Registers a script observer of a lifecycle event: a Rust observer of the
/// component's event queues each for [`dispatch`].
fn observe(shared: &Shared, world: &mut World, event: &str, id: ComponentId, f: mlua::Function) -> mlua::Result<()> {
    let event: &'static str = match event {
        "OnAdd" => "OnAdd",
        "OnInsert" => "OnInsert",
        "OnRemove" => "OnRemove",
        other => {
            return Err(error(format!(
                "unknown event `{other}`: observers watch OnAdd, OnInsert, OnRemove or an event from `world:event`"
            )));
        }
    };
    // Checked before the script's function is filed.
    let script = origin(shared, &f)?;
    shared.charge(OBSERVER_BYTES)?;
    if !bridged(shared, world, event, id) {
        bridge(shared, world, event, id)?;
    }
    file_observer(shared, world, event, id, script, f);
    Ok(())
}

/// Registers a script observer of script event `id`: a Rust observer of
/// [`ScriptEvent`] queues each of that id for [`dispatch`].
fn observe_event(shared: &Shared, world: &mut World, id: ComponentId, f: mlua::Function) -> mlua::Result<()> {
    let script = origin(shared, &f)?;
    shared.charge(OBSERVER_BYTES)?;
    if !bridged(shared, world, EVENT, id) {
        bridge(shared, world, EVENT, id)?;
    }
    file_observer(shared, world, EVENT, id, script, f);
    Ok(())
}

/// The loaded script an observer's function comes from (its chunk is named
/// `=name`): the script whose reload drops the observer. A built-in, or a
/// function of no loaded script, is refused: nothing would ever drop it.
fn origin(shared: &Shared, f: &mlua::Function) -> mlua::Result<String> {
    let info = f.info();
    let script = (info.what == "Lua")
        .then_some(info.source)
        .flatten()
        .and_then(|source| source.strip_prefix('=').map(str::to_owned))
        .filter(|script| shared.is_loaded(script));
    script.ok_or_else(|| error("observe: the observer must be a function of a loaded script, not a built-in"))
}

/// Adds the Rust observer that queues `event` on `id` in `world` for the
/// scripts' observers, and files it.
fn bridge(shared: &Shared, world: &mut World, event: &'static str, id: ComponentId) -> mlua::Result<()> {
    // Weak: once the host is gone, the world's observers queue nothing.
    let fired = Arc::downgrade(&shared.fired);
    let here = world.id();
    let queue = move |entity: Option<Entity>, value: Option<&DynamicValue>| {
        if let Some(fired) = fired.upgrade() {
            fired.push(Fired { world: here, event, id, entity, value: value.cloned() });
        }
    };
    let observer = match event {
        "OnAdd" => world.add_observer_by_id(&[id], move |t: On<Add>| queue(Some(t.target()), None)),
        "OnInsert" => world.add_observer_by_id(&[id], move |t: On<Insert>| queue(Some(t.target()), None)),
        "OnRemove" => world.add_observer_by_id(&[id], move |t: On<Remove>| queue(Some(t.target()), None)),
        _ => Ok(world.add_observer(move |t: On<ScriptEvent>| {
            if t.event().id() == id {
                queue(t.get_target(), Some(t.event().value()));
            }
        })),
    }
    .map_err(ecs)?;
    let mut bridges = shared.bridges.lock().expect("not poisoned");
    // The one it replaces, if it is gone, goes from the list: one bridge per
    // event, component and world, or each event would be queued twice.
    bridges.retain(|&(e, c, w, _)| (e, c, w) != (event, id, here));
    bridges.push((event, id, here, observer));
    Ok(())
}

/// Makes again the Rust observers of `world` that queue events for the
/// scripts' observers and that are gone: an observer is an entity, which a
/// script may despawn as any other (`for e in world:query() do
/// world:delete(e) end`). Called as each call with the whole world starts.
pub(crate) fn repair_bridges(shared: &Shared, world: &mut World) -> mlua::Result<()> {
    let gone: Vec<(&'static str, ComponentId)> = {
        let mut bridges = shared.bridges.lock().expect("not poisoned");
        let here = world.id();
        let gone = bridges.iter().filter(|b| b.2 == here && !live(world, b.3)).map(|b| (b.0, b.1)).collect();
        bridges.retain(|b| b.2 != here || live(world, b.3));
        gone
    };
    gone.into_iter().try_for_each(|(event, id)| bridge(shared, world, event, id))
}

/// Files `f` as a script observer of `event` on `id` in `world`.
fn file_observer(
    shared: &Shared,
    world: &World,
    event: &'static str,
    id: ComponentId,
    script: String,
    f: mlua::Function,
) {
    let observer = crate::host::ScriptObserver { event, id, world: world.id(), script, f };
    shared.observers.lock().expect("not poisoned").push(observer);
}

/// `true` when `world` has a live Rust observer queueing `event` on `id` for
/// the scripts (a host serving several worlds has one in each).
fn bridged(shared: &Shared, world: &World, event: &'static str, id: ComponentId) -> bool {
    let bridges = shared.bridges.lock().expect("not poisoned");
    bridges.iter().any(|&(e, c, w, observer)| e == event && c == id && w == world.id() && live(world, observer))
}

/// `true` while `observer` is an observer of `world`: alive, and not stripped
/// of its `Observer` component (a script may do either, as to any entity).
fn live(world: &World, observer: Entity) -> bool {
    world.get::<ecs_core::observer::Observer>(observer).is_some()
}

/// The components named by the arguments from `from` on.
fn ids(shared: &Shared, args: &impl ArgList, from: usize) -> mlua::Result<Vec<ComponentId>> {
    (from..arg_count(args)).map(|i| shared.component(arg(args, i))).collect()
}

/// `world:component(name [, schema])` (and `world:event`, which declares
/// an event's payload the same way): defines the component, or finds it.
fn component(lent: &Lent<'_, '_, '_>, shared: &Shared, args: &Args) -> mlua::Result<f64> {
    let name: String = match arg(args, 0) {
        Value::String(s) => s.to_str()?.to_owned(),
        other => return Err(error(format!("component: expected a name, got {}", other.type_name()))),
    };
    let mut backend = borrow(lent)?;
    let id = match (arg(args, 1), &mut backend.backend) {
        (Value::Nil, backend) => {
            backend.components().id_by_name(&name).ok_or_else(|| error(format!("unknown component `{name}`")))?
        }
        (Value::Table(_) | Value::String(_), Backend::System { .. }) => {
            return Err(error(format!(
                "component `{name}`: define components in a call with the whole world (a setup function), not in a system"
            )));
        }
        (schema, Backend::World(world)) => {
            let fields = schema_fields(&name, schema)?;
            // The name's own definition, asked for again, is found: nothing is
            // made, nothing charged.
            if let Some(id) = world.components().id_by_name(&name)
                && defined_as(world, id, &fields)
            {
                return Ok(shared.remember(id));
            }
            // Any other is charged before it is made: a schema that differs
            // from the name's is refused only after its schema and id exist,
            // which the process keeps (neither is ever freed).
            shared.charge(DEFINITION_BYTES + name.len())?;
            define(world, &name, &fields)?
        }
        (other, Backend::System { .. }) => {
            return Err(error(format!(
                "component `{name}`: a schema is a table of fields or a kind name, not {}",
                other.type_name()
            )));
        }
    };
    Ok(shared.remember(id))
}

/// `true` when `id` is a script's component (a runtime one, stored whole in
/// tables) of exactly `fields`: what defining it again would make.
fn defined_as(world: &World, id: ComponentId, fields: &[(String, FieldKind)]) -> bool {
    let Some(info) = world.components().get(id) else { return false };
    if !info.is_dynamic() || info.is_sparse() || info.fields().is_some() {
        return false;
    }
    let Some(FieldKind::Struct(schema)) = info.kind() else { return false };
    schema.fields().len() == fields.len()
        && schema
            .fields()
            .iter()
            .zip(fields)
            .all(|(field, (name, kind))| field.name() == name && same_kind(field.kind(), kind))
}

/// Two kinds of scripts' schemas (primitives and arrays of them) alike.
fn same_kind(a: &FieldKind, b: &FieldKind) -> bool {
    match (a, b) {
        (FieldKind::Array(a, n), FieldKind::Array(b, m)) => n == m && same_kind(a, b),
        (FieldKind::Array(..) | FieldKind::Struct(_) | FieldKind::Enum(_), _)
        | (_, FieldKind::Array(..) | FieldKind::Struct(_) | FieldKind::Enum(_)) => false,
        (a, b) => core::mem::discriminant(a) == core::mem::discriminant(b),
    }
}

/// What a new entity is counted as adding to the world (its slot in the
/// entity index and in its archetype), for [`Shared::charge`].
const ENTITY_BYTES: usize = 16;

/// What a change deferred by a script system is counted as (its command in
/// the system's queue), beside the value it carries.
const COMMAND_BYTES: usize = 32;

/// What a script observer is counted as (its entry in the host's list).
const OBSERVER_BYTES: usize = 64;

/// What a new component's (or event's) definition is counted as, beside
/// its name: its registration and schema live as long as the world.
const DEFINITION_BYTES: usize = 1024;

/// `world:spawn({ [C] = value, … })`: an entity with these components (a
/// tag's value is `true`), every value checked before anything is spawned.
fn spawn(lua: &Lua, lent: &Lent<'_, '_, '_>, shared: &Shared, values: &Value) -> mlua::Result<Value> {
    let mut call = borrow(lent)?;
    let mut parts: Vec<(ComponentId, Arc<Codec>, Value)> = Vec::new();
    match values {
        Value::Table(values) => {
            for pair in values.pairs::<Value, Value>() {
                let (component, value) = pair?;
                let id = call.component(shared, &component)?;
                parts.push((id, call.codec(shared, id)?, value));
            }
        }
        Value::Nil => {}
        other => {
            return Err(error(format!("spawn: expected a table of values by component, got {}", other.type_name())));
        }
    }
    // A table's pairs come in no set order: components go in by id, so that
    // hooks and observers run in the same order every time.
    parts.sort_by_key(|(id, ..)| id.index());
    let mut built = Vec::with_capacity(parts.len());
    let mut bytes = ENTITY_BYTES;
    for (id, codec, value) in &parts {
        let mut writes = Vec::new();
        if !(codec.is_tag() && matches!(value, Value::Boolean(true))) {
            codec::from_lua(lua, codec, value, &mut writes).map_err(error)?;
        }
        bytes += call.backend.size_of(*id) + codec::string_bytes(&writes);
        let mut built_value = call.backend.value(*id).map_err(ecs)?;
        for write in &writes {
            built_value.apply(write);
        }
        built.push(built_value);
    }
    shared.charge(bytes)?;
    Ok(entity_value(call.backend.spawn_with(built)?))
}

/// `world:set(e, C, v)` where `C` is held as one scalar and `v` is of its
/// kind: written in place, or inserted where that fires nothing. `None`,
/// with nothing changed, for every other case (a table value, a stale
/// entity, an unknown component, an insert something reacts to, the world
/// in use, events waiting), which the full `set` then does or refuses with
/// its error. `entity` and `component` are the script's arguments, already
/// found to be a light userdata and a number.
pub(crate) fn quick_set(
    lent: &Lent<'_, '_, '_>,
    shared: &Shared,
    entity: Entity,
    component: f64,
    value: &Value,
) -> Option<()> {
    if !shared.fired.is_empty() {
        return None;
    }
    let mut call = lent.try_borrow_mut().ok()?;
    let id = call.component_at(shared, component)?;
    let (codec, backend) = call.codec_and_backend_mut(shared, id).ok()?;
    let write = codec::scalar_write(codec, value)?;
    // The view refuses a dead entity, a missing component and an
    // undeclared write alike: all for the full `set`.
    // (Asked of the world itself: the backend's error would be formatted.)
    let view = match backend {
        Backend::World(world) => world.get_mut_by_id(entity, id),
        Backend::System { world, .. } => world.get_mut_by_id(entity, id),
    };
    match view {
        Ok(mut view) => {
            view.apply(&write);
            return Some(());
        }
        Err(EcsError::MissingComponent { .. }) => {}
        Err(_) => return None,
    }
    // An insert, made here only where nothing reacts to it now: a system's
    // is deferred; the world's runs no hook or observer of this component
    // (a script observer of it is a Rust observer too). The full `set` makes
    // it; its errors (over the memory limit) change nothing.
    if let Backend::World(world) = &*backend {
        if world.components().reacts_to(id) {
            return None;
        }
    }
    backend.set(shared, entity, id, core::slice::from_ref(&write)).ok()
}

/// `world:get(e, C)` where `C` is held as one scalar: its value (a number,
/// boolean or entity), or `nil` where `e` lacks it. `None` for every other
/// case, which the full `get` answers or refuses.
pub(crate) fn quick_get(lent: &Lent<'_, '_, '_>, shared: &Shared, entity: Entity, component: f64) -> Option<Value> {
    let mut call = lent.try_borrow_mut().ok()?;
    let id = call.component_at(shared, component)?;
    let (codec, backend) = call.codec_and_backend(shared, id).ok()?;
    let codec::Node::Scalar(..) = &codec.root else { return None };
    match backend.get(entity, id) {
        Ok(Some(view)) => codec::to_lua_scalar(&view, &codec.root),
        // Absent from a live entity (a dead one is an error).
        Ok(None) => Some(Value::Nil),
        Err(_) => None,
    }
}

/// `world:has(e, C)`; `None` where the full `has` would refuse the call.
pub(crate) fn quick_has(lent: &Lent<'_, '_, '_>, shared: &Shared, entity: Entity, component: f64) -> Option<bool> {
    let mut call = lent.try_borrow_mut().ok()?;
    let id = call.component_at(shared, component)?;
    let entity = call.live(&entity_value(entity)).ok()?;
    Some(call.has(entity, id))
}

/// The `world` object for one call: a table of functions called as methods.
pub(crate) fn world_object<'scope, 'env: 'scope, 'a: 'env, 'w: 'env, 'c: 'env>(
    lua: &Lua,
    scope: &'scope Scope<'scope, 'env>,
    lent: &'env Lent<'a, 'w, 'c>,
    shared: &'env Arc<Shared>,
) -> mlua::Result<Table> {
    let object = lua.create_table_with_capacity(0, 16)?;
    macro_rules! function {
        ($name:literal, |$lua:ident, $args:ident| $body:expr) => {
            function!($name, |$lua, $args: Args| $body)
        };
        ($name:literal, |$lua:ident, $args:ident: $ty:ty| $body:expr) => {{
            object.raw_set(
                $name,
                scope.create_function(move |$lua: &Lua, $args: $ty| {
                    let _ = (&$lua, &$args);
                    $body
                })?,
            )?;
        }};
    }

    // A function that can change what observers watch: the events it
    // causes are handed to the scripts' observers once it has let the world go
    // (or, called by an observer, once that observer returns).
    macro_rules! changing {
        ($name:literal, |$lua:ident, $args:ident| $body:expr) => {{
            object.raw_set(
                $name,
                scope.create_function(move |$lua: &Lua, $args: Args| {
                    let _ = (&$lua, &$args);
                    let done = (|| $body)();
                    dispatch($lua, shared, lent)?;
                    done
                })?,
            )?;
        }};
    }

    // world:component(name [, schema]) -> component
    function!("component", |lua, args| component(lent, shared, &args));
    // world:event(name [, schema]) -> event: declared as a component is
    // (see `ScriptEvent`)
    function!("event", |lua, args| component(lent, shared, &args));

    // world:trigger(event, value [, target])
    changing!("trigger", |lua, args| {
        let mut backend = borrow(lent)?;
        let id = backend.component(shared, arg(&args, 0))?;
        let target = match arg(&args, 2) {
            Value::Nil => None,
            entity => Some(backend.live(entity)?),
        };
        let codec = backend.codec(shared, id)?;
        let mut writes = Vec::new();
        let value = arg(&args, 1);
        if !(value.is_nil() && codec.is_tag()) {
            codec::from_lua(lua, &codec, value, &mut writes).map_err(error)?;
        }
        let deferred = if matches!(backend.backend, Backend::System { .. }) { COMMAND_BYTES } else { 0 };
        shared.charge(backend.size_of(id) + codec::string_bytes(&writes) + deferred)?;
        let mut payload = backend.value(id).map_err(ecs)?;
        for write in &writes {
            payload.apply(write);
        }
        backend.trigger(ScriptEvent::new(payload), target);
        Ok(())
    });

    // world:entity() -> entity
    function!("entity", |lua, args| {
        shared.charge(ENTITY_BYTES)?;
        Ok(entity_value(borrow(lent)?.spawn()))
    });

    // world:spawn({ [C] = value, … }) -> entity
    changing!("spawn", |lua, args| {
        let entity = spawn(lua, lent, shared, arg(&args, 0))?;
        Ok(entity)
    });

    // world:set(entity, component, value)
    changing!("set", |lua, args| {
        let mut backend = borrow(lent)?;
        let id = backend.component(shared, arg(&args, 1))?;
        let entity = backend.live(arg(&args, 0))?;
        let (codec, backend) = backend.codec_and_backend_mut(shared, id)?;
        let value = arg(&args, 2);
        if let Some(write) = codec::scalar_write(codec, value) {
            return backend.set(shared, entity, id, core::slice::from_ref(&write));
        }
        let mut writes = Vec::new();
        if !(value.is_nil() && codec.is_tag()) {
            codec::from_lua(lua, codec, value, &mut writes).map_err(error)?;
        }
        shared.charge(codec::string_bytes(&writes))?;
        backend.set(shared, entity, id, &writes)
    });

    // world:add(entity, component): its default value, where absent.
    changing!("add", |lua, args| {
        let mut backend = borrow(lent)?;
        let id = backend.component(shared, arg(&args, 1))?;
        let entity = backend.live(arg(&args, 0))?;
        if backend.has(entity, id) {
            return Ok(());
        }
        backend.set(shared, entity, id, &[])
    });

    // world:get(entity, a, b, ...) -> a, b, ... (nil where absent)
    function!("get", |lua, args: ManyArgs| {
        at_most_many("get", &args)?;
        // The first component apart: the common `get(e, C)` allocates nothing.
        let count = arg_count(&args);
        let mut backend = borrow(lent)?;
        let first = if count > 1 { Some(backend.component(shared, arg(&args, 1))?) } else { None };
        let rest = (2..count).map(|i| backend.component(shared, arg(&args, i))).collect::<mlua::Result<Vec<_>>>()?;
        let entity = backend.live(arg(&args, 0))?;
        let mut read = |id: ComponentId| -> mlua::Result<Value> {
            // The codec borrowed from the call's cache beside the world, not
            // cloned: no reference count touched per read.
            let (codec, backend) = backend.codec_and_backend(shared, id)?;
            match backend.get(entity, id)? {
                Some(view) => codec::to_lua(lua, &view, &codec.root),
                None => Ok(Value::Nil),
            }
        };
        let head = first.map_or(Ok(Value::Nil), &mut read)?;
        if rest.is_empty() {
            return Ok((head, Variadic::new()));
        }
        let tail = rest.into_iter().map(read).collect::<mlua::Result<Vec<_>>>()?;
        Ok((head, Variadic::from(tail)))
    });

    // world:has(entity, a, ...) -> every one there
    function!("has", |lua, args: ManyArgs| {
        at_most_many("has", &args)?;
        let ids = ids(shared, &args, 1)?;
        let backend = borrow(lent)?;
        let entity = backend.live(arg(&args, 0))?;
        Ok(ids.iter().all(|&id| backend.has(entity, id)))
    });

    // world:remove(entity, component)
    changing!("remove", |lua, args| {
        let mut backend = borrow(lent)?;
        let id = backend.component(shared, arg(&args, 1))?;
        let entity = backend.live(arg(&args, 0))?;
        backend.remove(shared, entity, id)
    });

    // world:despawn(entity), or jecs's world:delete(entity)
    changing!("despawn", |lua, args| {
        let mut backend = borrow(lent)?;
        let entity = backend.live(arg(&args, 0))?;
        backend.despawn(shared, entity)
    });
    changing!("delete", |lua, args| {
        let mut backend = borrow(lent)?;
        let entity = backend.live(arg(&args, 0))?;
        backend.despawn(shared, entity)
    });

    // world:contains(entity) -> alive
    function!("contains", |lua, args| {
        let backend = borrow(lent)?;
        Ok(backend.live(arg(&args, 0)).is_ok())
    });

    // world:observe(event, component, function(world, entity, component))
    // world:observe(event, function(world, value, target)), for an event
    // from `world:event`
    function!("observe", |lua, args| {
        if let event @ (Value::Number(_) | Value::Integer(_)) = arg(&args, 0) {
            let id = shared.component(event)?;
            let Value::Function(f) = arg(&args, 1).clone() else {
                return Err(error("observe: expected a function after the event"));
            };
            return match &mut borrow(lent)?.backend {
                Backend::World(world) => observe_event(shared, world, id, f),
                Backend::System { .. } => {
                    Err(error("observe in a call with the whole world (a setup function), not in a system"))
                }
            };
        }
        let event = match arg(&args, 0) {
            Value::String(s) => s.to_str()?.to_owned(),
            other => return Err(error(format!("observe: expected an event name, got {}", other.type_name()))),
        };
        let id = shared.component(arg(&args, 1))?;
        let Value::Function(f) = arg(&args, 2).clone() else {
            return Err(error("observe: expected a function"));
        };
        match &mut borrow(lent)?.backend {
            Backend::World(world) => observe(shared, world, &event, id, f),
            Backend::System { .. } => {
                Err(error("observe in a call with the whole world (a setup function), not in a system"))
            }
        }
    });
    for event in ["OnAdd", "OnInsert", "OnRemove"] {
        object.raw_set(event, event)?;
    }

    // world:query(a, b, ...) -> query (see `query.rs`)
    let methods = crate::query::methods(lua, scope, lent, shared)?;
    function!("query", |lua, args: VarArgs| crate::query::new(lua, &methods, ids(shared, &args, 0)?));

    // The functions called per entity go without mlua's callback
    // machinery in their common case (see `direct.rs`).
    for (name, which) in [("set", Direct::Set), ("get", Direct::Get), ("has", Direct::Has)] {
        let full: mlua::Function = object.raw_get(name)?;
        object.raw_set(name, crate::direct::wrap(lua, which, full, &object)?)?;
    }

    // The call's observers get the same object, whichever script they come
    // from: read-only, so that one mod cannot replace `world:set` for another.
    object.set_readonly(true);
    Ok(object)
}
