//! A component's values to and from Luau, through its schema: a struct is a
//! table of its fields, an array a table from 1, an enum its variant's name,
//! an `Entity` the same light userdata scripts hold entities as.
//!
//! Each component's fields are resolved once into handles (a [`Codec`]); a
//! value from a script is checked whole before anything is written, so a
//! wrong kind or an unknown field changes nothing.

use ecs_core::component::{ComponentId, Components, EnumSchema, FieldKind};
use ecs_core::prelude::*;
use ecs_core::world::{ComponentMut, ComponentRef, DynamicValue, FieldHandle};
use mlua::{LightUserData, Lua, Table, Value};

/// An entity as scripts hold it: its bits in a light userdata (no
/// allocation, compared and hashed by value).
pub(crate) fn entity_value(entity: Entity) -> Value {
    Value::LightUserData(entity_data(entity))
}

/// An entity as the light userdata scripts hold.
pub(crate) fn entity_data(entity: Entity) -> LightUserData {
    LightUserData(entity.to_bits() as usize as *mut core::ffi::c_void)
}

/// The entity a script passed, if the value is one.
pub(crate) fn entity_of(value: &Value) -> Option<Entity> {
    match value {
        Value::LightUserData(data) => Entity::from_bits(data.0 as usize as u64),
        _ => None,
    }
}

/// The leaf kinds a script reads and writes as numbers, booleans or entities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scalar {
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F32,
    F64,
    Entity,
}

/// One field of a component, resolved.
pub(crate) enum Node {
    Scalar(FieldHandle, Scalar),
    Str(FieldHandle),
    Enum(FieldHandle, &'static EnumSchema),
    /// The fields, and their names as Luau strings, made once per VM (the
    /// codec belongs to one host): a table of a value is read and built
    /// without interning its keys again.
    Struct(Vec<(&'static str, Node)>, std::sync::OnceLock<Vec<mlua::String>>),
    Array(Vec<Node>),
}

/// A component's fields, resolved once for every read and write.
pub(crate) struct Codec {
    pub(crate) name: &'static str,
    /// The whole value; for a newtype, its one field's.
    pub(crate) root: Node,
    /// The struct's top-level scalar fields, for the batch form: name, handle
    /// path and kind.
    pub(crate) columns: Vec<(&'static str, Scalar)>,
    /// A newtype (one field, named `0`: `struct Hp(f32)`, or a script's
    /// `world:component("Hp", "f32")`): scripts hold its value bare, a
    /// number rather than a table of one field, as jecs's components hold
    /// plain values.
    pub(crate) bare: bool,
}

impl Codec {
    /// The codec of component `id`, from a value of it at its defaults; an
    /// error naming it when it has no schema.
    pub(crate) fn new(
        components: &Components,
        id: ComponentId,
        value: Result<DynamicValue, EcsError>,
    ) -> Result<Self, String> {
        let info = components.get(id).ok_or_else(|| format!("unknown component {}", id.index()))?;
        let name = info.name();
        let kind =
            *info.kind().ok_or_else(|| format!("component `{name}` has no schema (`#[component(describe)]`)"))?;
        let value = value.map_err(|e| e.to_string())?;
        let view = value.view();
        let (root, bare) = match kind {
            FieldKind::Struct(schema) if is_newtype(schema) => {
                (node(&view, NEWTYPE_FIELD.to_owned(), schema.fields()[0].kind())?, true)
            }
            _ => (node(&view, String::new(), &kind)?, false),
        };
        let columns = match kind {
            FieldKind::Struct(schema) => {
                schema.fields().iter().filter_map(|f| scalar(f.kind()).map(|s| (f.name(), s))).collect()
            }
            _ => Vec::new(),
        };
        Ok(Codec { name, root, columns, bare })
    }

    /// `true` for a component with no fields (a tag).
    pub(crate) fn is_tag(&self) -> bool {
        matches!(&self.root, Node::Struct(fields, _) if fields.is_empty())
    }
}

/// The one field of a newtype component.
pub(crate) const NEWTYPE_FIELD: &str = "0";

fn is_newtype(schema: &ecs_core::component::Schema) -> bool {
    matches!(schema.fields(), [only] if only.name() == NEWTYPE_FIELD)
}

fn scalar(kind: &FieldKind) -> Option<Scalar> {
    Some(match kind {
        FieldKind::Bool => Scalar::Bool,
        FieldKind::I8 => Scalar::I8,
        FieldKind::I16 => Scalar::I16,
        FieldKind::I32 => Scalar::I32,
        FieldKind::I64 => Scalar::I64,
        FieldKind::U8 => Scalar::U8,
        FieldKind::U16 => Scalar::U16,
        FieldKind::U32 => Scalar::U32,
        FieldKind::U64 => Scalar::U64,
        FieldKind::F32 => Scalar::F32,
        FieldKind::F64 => Scalar::F64,
        FieldKind::Entity => Scalar::Entity,
        _ => return None,
    })
}

fn node(view: &ComponentRef<'_>, path: String, kind: &FieldKind) -> Result<Node, String> {
    let handle = |path: &str| view.field(path).map_err(|e| e.to_string());
    Ok(match kind {
        FieldKind::String => Node::Str(handle(&path)?),
        FieldKind::Enum(schema) => Node::Enum(handle(&path)?, schema),
        FieldKind::Struct(schema) => Node::Struct(
            schema
                .fields()
                .iter()
                .map(|f| {
                    let sub = if path.is_empty() { f.name().to_owned() } else { format!("{path}.{}", f.name()) };
                    node(view, sub, f.kind()).map(|n| (f.name(), n))
                })
                .collect::<Result<_, _>>()?,
            std::sync::OnceLock::new(),
        ),
        FieldKind::Array(element, len) => {
            Node::Array((0..*len).map(|i| node(view, format!("{path}[{i}]"), element)).collect::<Result<_, _>>()?)
        }
        other => Node::Scalar(handle(&path)?, scalar(other).expect("every other kind is a scalar")),
    })
}

/// A value a script gave for one field, checked against its kind.
pub(crate) enum Write<'c> {
    Scalar(&'c FieldHandle, Scalar, ScalarValue),
    Str(&'c FieldHandle, String),
    Variant(&'c FieldHandle, String),
}

#[derive(Clone, Copy)]
pub(crate) enum ScalarValue {
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Entity(Entity),
}

/// Reads a component's value into Luau.
pub(crate) fn to_lua(lua: &Lua, view: &ComponentRef<'_>, node: &Node) -> mlua::Result<Value> {
    Ok(match node {
        Node::Scalar(handle, kind) => scalar_to_lua(view, handle, *kind),
        Node::Str(handle) => Value::String(lua.create_string(view.get_str(handle).map_err(mlua::Error::external)?)?),
        Node::Enum(handle, _) => {
            Value::String(lua.create_string(view.variant(handle).map_err(mlua::Error::external)?)?)
        }
        Node::Struct(fields, keys) => {
            let table = lua.create_table_with_capacity(0, fields.len())?;
            for ((_, field), key) in fields.iter().zip(keys_of(lua, fields, keys)?) {
                table.raw_set(key, to_lua(lua, view, field)?)?;
            }
            Value::Table(table)
        }
        Node::Array(elements) => {
            let table = lua.create_table_with_capacity(elements.len(), 0)?;
            for (i, element) in elements.iter().enumerate() {
                table.raw_seti(i + 1, to_lua(lua, view, element)?)?;
            }
            Value::Table(table)
        }
    })
}

/// A value held as one scalar (`node` a [`Node::Scalar`]), as scripts see
/// it, made without the VM: `None` for any other node.
pub(crate) fn to_lua_scalar(view: &ComponentRef<'_>, node: &Node) -> Option<Value> {
    match node {
        Node::Scalar(handle, kind) => Some(scalar_to_lua(view, handle, *kind)),
        _ => None,
    }
}

fn scalar_to_lua(view: &ComponentRef<'_>, handle: &FieldHandle, kind: Scalar) -> Value {
    let get = |r: Result<f64, ecs_core::world::FieldError>| Value::Number(r.expect("the handle's own kind"));
    match kind {
        Scalar::Bool => Value::Boolean(view.get::<bool>(handle).expect("the handle's own kind")),
        Scalar::I8 => get(view.get::<i8>(handle).map(f64::from)),
        Scalar::I16 => get(view.get::<i16>(handle).map(f64::from)),
        Scalar::I32 => get(view.get::<i32>(handle).map(f64::from)),
        Scalar::I64 => get(view.get::<i64>(handle).map(|v| v as f64)),
        Scalar::U8 => get(view.get::<u8>(handle).map(f64::from)),
        Scalar::U16 => get(view.get::<u16>(handle).map(f64::from)),
        Scalar::U32 => get(view.get::<u32>(handle).map(f64::from)),
        Scalar::U64 => get(view.get::<u64>(handle).map(|v| v as f64)),
        Scalar::F32 => get(view.get::<f32>(handle).map(f64::from)),
        Scalar::F64 => get(view.get::<f64>(handle)),
        Scalar::Entity => entity_value(view.get::<Entity>(handle).expect("the handle's own kind")),
    }
}

/// The fields' names as Luau strings, made the first time.
fn keys_of<'k>(
    lua: &Lua,
    fields: &[(&'static str, Node)],
    keys: &'k std::sync::OnceLock<Vec<mlua::String>>,
) -> mlua::Result<&'k Vec<mlua::String>> {
    if let Some(keys) = keys.get() {
        return Ok(keys);
    }
    let made = fields.iter().map(|(name, _)| lua.create_string(name)).collect::<mlua::Result<Vec<_>>>()?;
    Ok(keys.get_or_init(|| made))
}

/// The one write of a value for a component held as one scalar (a bare
/// newtype), when the value is of its kind: made without a list, so the
/// commonest `world:set` allocates nothing. `None` otherwise, for
/// [`from_lua`] to do (or refuse) the whole value.
#[inline(always)]
pub(crate) fn scalar_write<'c>(codec: &'c Codec, value: &Value) -> Option<Write<'c>> {
    let Node::Scalar(handle, kind) = &codec.root else { return None };
    Some(Write::Scalar(handle, *kind, scalar_of(value, *kind)?))
}

/// The bytes of text `writes` put in the world (counted against the memory
/// limit: a string field's length is the script's to choose).
pub(crate) fn string_bytes(writes: &[Write<'_>]) -> usize {
    writes
        .iter()
        .map(|write| match write {
            Write::Str(_, text) => text.len(),
            // A variant is stored as its index, whatever its name's length.
            Write::Variant(..) | Write::Scalar(..) => 0,
        })
        .sum()
}

/// Checks a script's value for a component, field by field, into writes;
/// a field the table leaves out keeps its value. Errors name the component
/// and the field.
pub(crate) fn from_lua<'c>(lua: &Lua, codec: &'c Codec, value: &Value, out: &mut Vec<Write<'c>>) -> Result<(), String> {
    walk(lua, codec.name, "", &codec.root, value, out)
}

fn walk<'c>(
    lua: &Lua,
    component: &str,
    path: &str,
    node: &'c Node,
    value: &Value,
    out: &mut Vec<Write<'c>>,
) -> Result<(), String> {
    let wrong = |expected: &str| {
        let at = if path.is_empty() { String::new() } else { format!(" field `{path}`") };
        format!("component `{component}`{at} holds {expected}, not {}", value.type_name())
    };
    match node {
        Node::Scalar(handle, kind) => {
            out.push(Write::Scalar(handle, *kind, scalar_of(value, *kind).ok_or_else(|| wrong(scalar_name(*kind)))?))
        }
        Node::Str(handle) => match value {
            Value::String(s) => out.push(Write::Str(handle, s.to_str().map_err(|_| wrong("UTF-8 text"))?.to_owned())),
            _ => return Err(wrong("a string")),
        },
        Node::Enum(handle, schema) => match value {
            Value::String(s) => {
                let name = s.to_str().map_err(|_| wrong("a variant name"))?.to_owned();
                if schema.variant(&name).is_none() {
                    return Err(format!("component `{component}` field `{path}` has no variant `{name}`"));
                }
                out.push(Write::Variant(handle, name));
            }
            _ => return Err(wrong("a variant name")),
        },
        Node::Struct(fields, keys) => {
            let Value::Table(table) = value else { return Err(wrong("a table")) };
            check_keys(component, path, table, |key| fields.iter().any(|(name, _)| *name == key))?;
            let keys = keys_of(lua, fields, keys).map_err(|e| e.to_string())?;
            for ((name, field), key) in fields.iter().zip(keys) {
                let v: Value = table.raw_get(key).map_err(|e| e.to_string())?;
                if !v.is_nil() {
                    let sub = if path.is_empty() { (*name).to_owned() } else { format!("{path}.{name}") };
                    walk(lua, component, &sub, field, &v, out)?;
                }
            }
        }
        Node::Array(elements) => {
            let Value::Table(table) = value else { return Err(wrong("an array")) };
            if table.raw_len() > elements.len() {
                return Err(format!("component `{component}` field `{path}` holds {} elements", elements.len()));
            }
            for (i, element) in elements.iter().enumerate() {
                let v: Value = table.raw_get(i + 1).map_err(|e| e.to_string())?;
                if !v.is_nil() {
                    walk(lua, component, &format!("{path}[{i}]"), element, &v, out)?;
                }
            }
        }
    }
    Ok(())
}

/// Refuses a key the struct has no field for (a typo must not be lost).
fn check_keys(component: &str, path: &str, table: &Table, known: impl Fn(&str) -> bool) -> Result<(), String> {
    for pair in table.pairs::<Value, Value>() {
        let (key, _) = pair.map_err(|e| e.to_string())?;
        let name = match &key {
            Value::String(s) => s.to_str().map(|s| s.to_owned()).unwrap_or_default(),
            other => return Err(format!("component `{component}` has no field {other:?}")),
        };
        if !known(&name) {
            let full = if path.is_empty() { name } else { format!("{path}.{name}") };
            return Err(format!("component `{component}` has no field `{full}`"));
        }
    }
    Ok(())
}

fn scalar_name(kind: Scalar) -> &'static str {
    match kind {
        Scalar::Bool => "a boolean",
        Scalar::F32 | Scalar::F64 => "a number",
        Scalar::Entity => "an entity",
        _ => "an integer in its range",
    }
}

#[inline(always)]
fn scalar_of(value: &Value, kind: Scalar) -> Option<ScalarValue> {
    let number = match value {
        Value::Integer(i) => Some(*i as f64),
        Value::Number(n) => Some(*n),
        _ => None,
    };
    let int = |lo: f64, hi: f64| number.filter(|n| n.fract() == 0.0 && *n >= lo && *n <= hi);
    Some(match kind {
        Scalar::Bool => match value {
            Value::Boolean(b) => ScalarValue::Bool(*b),
            _ => return None,
        },
        Scalar::F32 | Scalar::F64 => ScalarValue::Float(number?),
        Scalar::Entity => ScalarValue::Entity(entity_of(value)?),
        Scalar::I8 => ScalarValue::Int(int(i8::MIN.into(), i8::MAX.into())? as i64),
        Scalar::I16 => ScalarValue::Int(int(i16::MIN.into(), i16::MAX.into())? as i64),
        Scalar::I32 => ScalarValue::Int(int(i32::MIN.into(), i32::MAX.into())? as i64),
        Scalar::I64 => ScalarValue::Int(int(-9_007_199_254_740_992.0, 9_007_199_254_740_992.0)? as i64),
        Scalar::U8 => ScalarValue::UInt(int(0.0, u8::MAX.into())? as u64),
        Scalar::U16 => ScalarValue::UInt(int(0.0, u16::MAX.into())? as u64),
        Scalar::U32 => ScalarValue::UInt(int(0.0, u32::MAX.into())? as u64),
        Scalar::U64 => ScalarValue::UInt(int(0.0, 9_007_199_254_740_992.0)? as u64),
    })
}

/// Something a checked write can go to: a value in the world or one being
/// built.
pub(crate) trait Target {
    fn apply(&mut self, write: &Write<'_>);
}

macro_rules! apply_write {
    ($self:ident, $write:ident) => {{
        let ok = match $write {
            Write::Scalar(h, kind, v) => match (kind, *v) {
                (Scalar::Bool, ScalarValue::Bool(b)) => $self.set(*h, b).is_ok(),
                (Scalar::I8, ScalarValue::Int(i)) => $self.set(*h, i as i8).is_ok(),
                (Scalar::I16, ScalarValue::Int(i)) => $self.set(*h, i as i16).is_ok(),
                (Scalar::I32, ScalarValue::Int(i)) => $self.set(*h, i as i32).is_ok(),
                (Scalar::I64, ScalarValue::Int(i)) => $self.set(*h, i).is_ok(),
                (Scalar::U8, ScalarValue::UInt(u)) => $self.set(*h, u as u8).is_ok(),
                (Scalar::U16, ScalarValue::UInt(u)) => $self.set(*h, u as u16).is_ok(),
                (Scalar::U32, ScalarValue::UInt(u)) => $self.set(*h, u as u32).is_ok(),
                (Scalar::U64, ScalarValue::UInt(u)) => $self.set(*h, u).is_ok(),
                (Scalar::F32, ScalarValue::Float(f)) => $self.set(*h, f as f32).is_ok(),
                (Scalar::F64, ScalarValue::Float(f)) => $self.set(*h, f).is_ok(),
                (Scalar::Entity, ScalarValue::Entity(e)) => $self.set(*h, e).is_ok(),
                _ => false,
            },
            Write::Str(h, s) => $self.set_string(*h, s.as_str()).is_ok(),
            Write::Variant(h, v) => $self.set_variant(*h, v).is_ok(),
        };
        debug_assert!(ok, "a checked write fits its field");
    }};
}

impl Target for ComponentMut<'_> {
    fn apply(&mut self, write: &Write<'_>) {
        apply_write!(self, write)
    }
}

impl Target for DynamicValue {
    fn apply(&mut self, write: &Write<'_>) {
        apply_write!(self, write)
    }
}
