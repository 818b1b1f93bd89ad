//! `world:query(a, b):with(c):without(d)`: jecs's query, over a
//! [`DynamicQuery`](ecs_core::query::DynamicQuery).
//!
//! - `for e, a, b in query do … end` visits each matching entity with copies
//!   of its values (write back with `world:set`), as jecs's `for` loop over a
//!   query does.
//! - `query:batch(function(entities, a, b) … end)` hands the function one
//!   archetype at a time, each component as a table of field arrays
//!   (`a.x[i]` is entity `entities[i]`'s `x`), filled and written back in one
//!   native step per archetype: the fast path (jecs's `query:archetypes()`).
//!   While the function runs the world's own functions are unavailable (the
//!   arrays are lent out of it); every fetched component counts as written.

use std::sync::Arc;

use ecs_core::component::ComponentId;
use ecs_core::prelude::*;
use ecs_core::query::DynamicArchetype;
use ecs_core::world::FieldValue;
use mlua::{Function, Lua, MetaMethod, MultiValue, Table, UserData, UserDataMethods, Value};

use crate::codec::{self, Scalar, entity_value};
use crate::host::Shared;

/// A query a script built.
pub(crate) struct ScriptQuery {
    shared: Arc<Shared>,
    fetch: Vec<ComponentId>,
    with: Vec<ComponentId>,
    without: Vec<ComponentId>,
}

pub(crate) fn new(lua: &Lua, shared: &Arc<Shared>, fetch: Vec<ComponentId>) -> mlua::Result<mlua::AnyUserData> {
    lua.create_userdata(ScriptQuery { shared: shared.clone(), fetch, with: Vec::new(), without: Vec::new() })
}

impl ScriptQuery {
    fn build(&self, world: &World, write: bool) -> mlua::Result<ecs_core::query::DynamicQuery> {
        let mut builder = world.dynamic_query();
        for &id in &self.fetch {
            builder = if write { builder.write(id) } else { builder.read(id) };
        }
        for &id in &self.with {
            builder = builder.with(id);
        }
        for &id in &self.without {
            builder = builder.without(id);
        }
        builder.build(world).map_err(|e| mlua::Error::runtime(e.to_string()))
    }

    /// Every matching row: the entity and a copy of each fetched value.
    fn rows(&self, lua: &Lua) -> mlua::Result<Vec<MultiValue>> {
        self.shared.with_world(|world| {
            let query = self.build(world, false)?;
            let codecs = self.fetch.iter().map(|&id| self.shared.codec(world, id)).collect::<mlua::Result<Vec<_>>>()?;
            let mut rows = Vec::new();
            let mut failed = None;
            query.for_each(world, |row| {
                if failed.is_some() {
                    return;
                }
                let mut values = MultiValue::with_capacity(self.fetch.len() + 1);
                values.push_back(entity_value(row.entity()));
                for (&id, codec) in self.fetch.iter().zip(&codecs) {
                    match row.get(id).map(|view| codec::to_lua(lua, &view, &codec.root)) {
                        Some(Ok(value)) => values.push_back(value),
                        Some(Err(e)) => failed = Some(e),
                        None => values.push_back(Value::Nil),
                    }
                }
                rows.push(values);
            });
            failed.map_or(Ok(rows), Err)
        })
    }

    /// The batch form: `f(entities, a, b, …)` per archetype.
    fn batch(&self, lua: &Lua, f: Function) -> mlua::Result<()> {
        self.shared.with_world(|world| {
            let query = self.build(world, true)?;
            let codecs = self.fetch.iter().map(|&id| self.shared.codec(world, id)).collect::<mlua::Result<Vec<_>>>()?;
            for codec in &codecs {
                if codec.columns.len() != field_count(&codec.root) {
                    return Err(mlua::Error::runtime(format!(
                        "component `{}`: the batch form hands out fields that are numbers or booleans only",
                        codec.name
                    )));
                }
            }
            let mut failed = None;
            query.for_each_archetype_mut(world, |archetype| {
                if failed.is_none()
                    && let Err(e) = visit(lua, &f, &archetype, &self.fetch, &codecs)
                {
                    failed = Some(e);
                }
            });
            failed.map_or(Ok(()), Err)
        })
    }
}

fn field_count(node: &codec::Node) -> usize {
    match node {
        codec::Node::Struct(fields) => fields.len(),
        _ => usize::MAX,
    }
}

/// One field's rows, lent writable for the archetype's visit.
trait FieldBuf {
    fn fill(&self, lua: &Lua) -> mlua::Result<Table>;
    /// Checks every element of `table` (nothing written on an error).
    fn check(&self, table: &Table) -> mlua::Result<()>;
    fn write(&mut self, table: &Table) -> mlua::Result<()>;
}

/// A field kind the batch form hands out: numbers and booleans.
trait Lane: FieldValue + Copy + 'static {
    fn to_lua(self) -> Value;
    fn from_lua(value: &Value) -> Option<Self>;
}

/// A script's number as a Luau value holds it.
fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Integer(i) => Some(*i as f64),
        Value::Number(n) => Some(*n),
        _ => None,
    }
}

macro_rules! int_lane {
    ($($t:ty),*) => {$(
        impl Lane for $t {
            fn to_lua(self) -> Value {
                Value::Number(self as f64)
            }
            fn from_lua(value: &Value) -> Option<Self> {
                // Whole and in range, or refused (never wrapped).
                number(value).filter(|n| n.fract() == 0.0 && *n >= <$t>::MIN as f64 && *n <= <$t>::MAX as f64).map(|n| n as $t)
            }
        }
    )*};
}

macro_rules! float_lane {
    ($($t:ty),*) => {$(
        impl Lane for $t {
            fn to_lua(self) -> Value {
                Value::Number(f64::from(self))
            }
            fn from_lua(value: &Value) -> Option<Self> {
                number(value).map(|n| n as $t)
            }
        }
    )*};
}

int_lane!(i8, i16, i32, i64, u8, u16, u32, u64);
float_lane!(f32, f64);

impl Lane for bool {
    fn to_lua(self) -> Value {
        Value::Boolean(self)
    }
    fn from_lua(value: &Value) -> Option<Self> {
        match value {
            Value::Boolean(b) => Some(*b),
            _ => None,
        }
    }
}

/// The rows of one field: a per-field component's slice, or a strided view
/// of one field of a component stored whole.
struct Rows<'a, F> {
    name: &'static str,
    component: &'static str,
    slice: Option<&'a mut [F]>,
    strided: Option<ecs_core::query::FieldRowsMut<'a, F>>,
}

impl<F: Lane> Rows<'_, F> {
    fn len(&self) -> usize {
        self.slice.as_ref().map_or_else(|| self.strided.as_ref().map_or(0, |s| s.len()), |s| s.len())
    }
    fn get(&self, i: usize) -> F {
        match &self.slice {
            Some(s) => s[i],
            None => self.strided.as_ref().and_then(|s| s.get(i)).expect("below the length"),
        }
    }
    fn set(&mut self, i: usize, v: F) {
        match &mut self.slice {
            Some(s) => s[i] = v,
            None => *self.strided.as_mut().and_then(|s| s.get_mut(i)).expect("below the length") = v,
        }
    }
}

impl<F: Lane> FieldBuf for Rows<'_, F> {
    fn fill(&self, lua: &Lua) -> mlua::Result<Table> {
        let table = lua.create_table_with_capacity(self.len(), 0)?;
        for i in 0..self.len() {
            table.raw_seti(i + 1, self.get(i).to_lua())?;
        }
        Ok(table)
    }
    fn check(&self, table: &Table) -> mlua::Result<()> {
        for i in 0..self.len() {
            let value: Value = table.raw_get(i + 1)?;
            if F::from_lua(&value).is_none() {
                return Err(mlua::Error::runtime(format!(
                    "component `{}` field `{}` row {}: {} does not fit the field",
                    self.component,
                    self.name,
                    i + 1,
                    value.type_name()
                )));
            }
        }
        Ok(())
    }
    fn write(&mut self, table: &Table) -> mlua::Result<()> {
        for i in 0..self.len() {
            let value: Value = table.raw_get(i + 1)?;
            let v = F::from_lua(&value).expect("checked");
            self.set(i, v);
        }
        Ok(())
    }
}

fn lend<'a, F: Lane>(
    archetype: &'a DynamicArchetype<'_, '_>,
    id: ComponentId,
    component: &'static str,
    name: &'static str,
) -> Box<dyn FieldBuf + 'a> {
    let slice = archetype.field_mut::<F>(id, name);
    let strided = if slice.is_none() { archetype.field_rows_mut::<F>(id, name) } else { None };
    Box::new(Rows { name, component, slice, strided })
}

fn visit(
    lua: &Lua,
    f: &Function,
    archetype: &DynamicArchetype<'_, '_>,
    fetch: &[ComponentId],
    codecs: &[Arc<codec::Codec>],
) -> mlua::Result<()> {
    let entities = lua.create_table_with_capacity(archetype.len(), 0)?;
    for (i, &e) in archetype.entities().iter().enumerate() {
        entities.raw_seti(i + 1, entity_value(e))?;
    }
    let mut args = MultiValue::new();
    args.push_back(Value::Table(entities));
    let mut lent: Vec<(Table, Box<dyn FieldBuf + '_>)> = Vec::new();
    for (&id, codec) in fetch.iter().zip(codecs) {
        let component = lua.create_table()?;
        for &(name, kind) in &codec.columns {
            let buf = match kind {
                Scalar::Bool => lend::<bool>(archetype, id, codec.name, name),
                Scalar::I8 => lend::<i8>(archetype, id, codec.name, name),
                Scalar::I16 => lend::<i16>(archetype, id, codec.name, name),
                Scalar::I32 => lend::<i32>(archetype, id, codec.name, name),
                Scalar::I64 => lend::<i64>(archetype, id, codec.name, name),
                Scalar::U8 => lend::<u8>(archetype, id, codec.name, name),
                Scalar::U16 => lend::<u16>(archetype, id, codec.name, name),
                Scalar::U32 => lend::<u32>(archetype, id, codec.name, name),
                Scalar::U64 => lend::<u64>(archetype, id, codec.name, name),
                Scalar::F32 => lend::<f32>(archetype, id, codec.name, name),
                Scalar::F64 => lend::<f64>(archetype, id, codec.name, name),
                Scalar::Entity => {
                    return Err(mlua::Error::runtime(format!(
                        "component `{}` field `{name}`: the batch form hands out numbers and booleans",
                        codec.name
                    )));
                }
            };
            let array = buf.fill(lua)?;
            component.raw_set(name, array.clone())?;
            lent.push((array, buf));
        }
        args.push_back(Value::Table(component));
    }
    f.call::<()>(args)?;
    for (array, buf) in &lent {
        buf.check(array)?;
    }
    for (array, buf) in &mut lent {
        buf.write(array)?;
    }
    Ok(())
}

impl UserData for ScriptQuery {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_function("with", |_, (this, ids): (mlua::AnyUserData, MultiValue)| {
            {
                let mut query = this.borrow_mut::<ScriptQuery>()?;
                let ids: Vec<ComponentId> = ids.iter().map(|v| query.shared.component(v)).collect::<Result<_, _>>()?;
                query.with.extend(ids);
            }
            Ok(this)
        });
        methods.add_function("without", |_, (this, ids): (mlua::AnyUserData, MultiValue)| {
            {
                let mut query = this.borrow_mut::<ScriptQuery>()?;
                let ids: Vec<ComponentId> = ids.iter().map(|v| query.shared.component(v)).collect::<Result<_, _>>()?;
                query.without.extend(ids);
            }
            Ok(this)
        });
        methods.add_method("batch", |lua, this, f: Function| this.batch(lua, f));
        methods.add_method("iter", |lua, this, ()| iterator(lua, this));
        methods.add_meta_method(MetaMethod::Iter, |lua, this, ()| iterator(lua, this));
    }
}

/// A function returning the next row each call, then nothing.
fn iterator(lua: &Lua, query: &ScriptQuery) -> mlua::Result<Function> {
    let mut rows = query.rows(lua)?.into_iter();
    lua.create_function_mut(move |_, ()| Ok(rows.next().unwrap_or_default()))
}
