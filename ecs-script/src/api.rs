//! The `world` object scripts get: jecs's functions, over the world lent for
//! the call.
//!
//! Every function checks all of its arguments before it changes anything: a
//! wrong kind, an unknown component or field, or a stale entity is a Luau
//! error naming it, and the world is as it was.

use std::sync::Arc;

use ecs_core::component::{ComponentDescriptor, ComponentId, FieldKind, SchemaBuilder};
use ecs_core::prelude::*;
use ecs_core::world::DynamicValue;
use mlua::{Lua, MultiValue, Table, Value};

use crate::codec::{self, Target, Write, entity_of, entity_value};
use crate::host::Shared;

fn error(message: impl Into<String>) -> mlua::Error {
    mlua::Error::runtime(message.into())
}

/// The argument at `i` (after the world object itself).
fn arg(args: &MultiValue, i: usize) -> Value {
    args.get(i + 1).cloned().unwrap_or(Value::Nil)
}

/// A live entity of the world, or an error naming the value.
fn live(world: &World, value: &Value) -> mlua::Result<Entity> {
    let entity = entity_of(value).ok_or_else(|| error(format!("expected an entity, got {}", value.type_name())))?;
    if !world.contains(entity) {
        return Err(error(format!("entity {entity} is not alive (despawned, or from another world)")));
    }
    Ok(entity)
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

/// Registers a script's component: `{ field = "kind", ... }`, fields in name
/// order (a Luau table has no order), or none (a tag).
fn define(world: &mut World, name: &str, schema: &Table) -> mlua::Result<ComponentId> {
    let mut fields: Vec<(String, String)> = Vec::new();
    for pair in schema.pairs::<String, String>() {
        let (field, kind) =
            pair.map_err(|_| error(format!("component `{name}`: a schema maps field names to kind names")))?;
        fields.push((field, kind));
    }
    fields.sort();
    let mut builder = SchemaBuilder::new(name);
    for (field, kind) in &fields {
        let parsed =
            kind_of(kind).ok_or_else(|| error(format!("component `{name}` field `{field}`: unknown kind `{kind}`")))?;
        builder = builder.field(field.as_str(), parsed);
    }
    let schema = builder.build().map_err(|e| error(format!("component `{name}`: {e}")))?;
    world.register_dynamic(&ComponentDescriptor::new(name, schema)).map_err(|e| error(e.to_string()))
}

/// Writes `value` as component `id` of `entity`: in place when it has one
/// (stamped changed), else inserted. Checked whole first.
fn set(shared: &Shared, world: &mut World, entity: Entity, id: ComponentId, value: &Value) -> mlua::Result<()> {
    let codec = shared.codec(world, id)?;
    let mut writes: Vec<Write<'_>> = Vec::new();
    if !(value.is_nil() && codec.is_tag()) {
        codec::from_lua(&codec, value, &mut writes).map_err(error)?;
    }
    if let Ok(mut view) = world.get_mut_by_id(entity, id) {
        for write in &writes {
            view.apply(write);
        }
        return Ok(());
    }
    let mut built = DynamicValue::new(world, id).map_err(|e| error(e.to_string()))?;
    for write in &writes {
        built.apply(write);
    }
    world.insert_by_id(entity, id, built).map_err(|e| error(e.to_string()))
}

/// The `world` object: a table of functions called as methods.
pub(crate) fn world_object(lua: &Lua, shared: &Arc<Shared>) -> mlua::Result<Table> {
    let object = lua.create_table()?;
    macro_rules! function {
        ($name:literal, |$lua:ident, $shared:ident, $args:ident| $body:expr) => {{
            let $shared = shared.clone();
            object.raw_set(
                $name,
                lua.create_function(move |$lua, $args: MultiValue| {
                    let _ = (&$lua, &$args);
                    $body
                })?,
            )?;
        }};
    }

    // world:component(name [, schema]) -> component
    function!("component", |lua, shared, args| {
        let name: String = match arg(&args, 0) {
            Value::String(s) => s.to_str()?.to_owned(),
            other => return Err(error(format!("component: expected a name, got {}", other.type_name()))),
        };
        shared.with_world(|world| {
            let id = match arg(&args, 1) {
                Value::Table(schema) => define(world, &name, &schema)?,
                Value::Nil => {
                    world.component_id_by_name(&name).ok_or_else(|| error(format!("unknown component `{name}`")))?
                }
                other => {
                    return Err(error(format!("component `{name}`: a schema is a table, not {}", other.type_name())));
                }
            };
            Ok(shared.remember(id))
        })
    });

    // world:entity() -> entity
    function!("entity", |lua, shared, args| shared.with_world(|world| Ok(entity_value(world.spawn_empty().id()))));

    // world:set(entity, component, value)
    function!("set", |lua, shared, args| {
        let id = shared.component(&arg(&args, 1))?;
        shared.with_world(|world| {
            let entity = live(world, &arg(&args, 0))?;
            set(&shared, world, entity, id, &arg(&args, 2))
        })
    });

    // world:add(entity, tag): a component's default value, where absent.
    function!("add", |lua, shared, args| {
        let id = shared.component(&arg(&args, 1))?;
        shared.with_world(|world| {
            let entity = live(world, &arg(&args, 0))?;
            if world.get_by_id(entity, id).is_ok() {
                return Ok(());
            }
            let value = DynamicValue::new(world, id).map_err(|e| error(e.to_string()))?;
            world.insert_by_id(entity, id, value).map_err(|e| error(e.to_string()))
        })
    });

    // world:get(entity, a, b, ...) -> a, b, ... (nil where absent)
    function!("get", |lua, shared, args| {
        let ids: Vec<ComponentId> =
            (1..args.len().saturating_sub(1)).map(|i| shared.component(&arg(&args, i))).collect::<Result<_, _>>()?;
        shared.with_world(|world| {
            let entity = live(world, &arg(&args, 0))?;
            let mut out = MultiValue::with_capacity(ids.len());
            for &id in &ids {
                let codec = shared.codec(world, id)?;
                out.push_back(match world.get_by_id(entity, id) {
                    Ok(view) => codec::to_lua(lua, &view, &codec.root)?,
                    Err(_) => Value::Nil,
                });
            }
            Ok(out)
        })
    });

    // world:has(entity, a, ...) -> every one there
    function!("has", |lua, shared, args| {
        let ids: Vec<ComponentId> =
            (1..args.len().saturating_sub(1)).map(|i| shared.component(&arg(&args, i))).collect::<Result<_, _>>()?;
        shared.with_world(|world| {
            let entity = live(world, &arg(&args, 0))?;
            Ok(ids.iter().all(|&id| world.entity(entity).is_some_and(|e| e.contains_id(id))))
        })
    });

    // world:remove(entity, component)
    function!("remove", |lua, shared, args| {
        let id = shared.component(&arg(&args, 1))?;
        shared.with_world(|world| {
            let entity = live(world, &arg(&args, 0))?;
            match world.remove_by_id(entity, id) {
                Ok(()) | Err(EcsError::MissingComponent { .. }) => Ok(()),
                Err(e) => Err(error(e.to_string())),
            }
        })
    });

    // world:despawn(entity) (jecs: world:delete)
    for name in ["despawn", "delete"] {
        let shared = shared.clone();
        object.raw_set(
            name,
            lua.create_function(move |_, args: MultiValue| {
                shared.with_world(|world| {
                    let entity = live(world, &arg(&args, 0))?;
                    world.despawn(entity).map_err(|e| error(e.to_string()))
                })
            })?,
        )?;
    }

    // world:contains(entity) -> alive
    function!("contains", |lua, shared, args| {
        shared.with_world(|world| Ok(entity_of(&arg(&args, 0)).is_some_and(|e| world.contains(e))))
    });

    // world:query(a, b, ...) -> query (see `query.rs`)
    function!("query", |lua, shared, args| {
        let ids: Vec<ComponentId> =
            (0..args.len().saturating_sub(1)).map(|i| shared.component(&arg(&args, i))).collect::<Result<_, _>>()?;
        crate::query::new(lua, &shared, ids)
    });

    Ok(object)
}
