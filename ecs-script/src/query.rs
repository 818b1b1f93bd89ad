//! `world:query(a, b):with(c):without(d)`: jecs's query, over a
//! [`DynamicQuery`](ecs_core::query::DynamicQuery).
//!
//! - `for e, a, b in query do … end` visits each matching entity with copies
//!   of its values (write back with `world:set`), as jecs's `for` loop over a
//!   query does.
//! - `query:batch(function(entities, a, b) … end)` hands the function one
//!   archetype at a time, each component as a table of field arrays
//!   (`a.x[i]` is entity `entities[i]`'s `x`), filled in one native step per
//!   archetype and, once every archetype's arrays are checked, written back
//!   in one: the fast path (jecs's `query:archetypes()`). All or nothing: a
//!   bad value or an error anywhere leaves every row as it was. While the
//!   function runs the world's own functions are unavailable (the arrays are
//!   lent out of it); every fetched component counts as written.
//!   A query that decides rows one by one (a tag or other sparse component
//!   in it, as in `:with(Enemy)`) hands its passing rows over in one batch,
//!   gathered and written back row by row.
//! - `query:buffers(function(n, a, b) … end)` is the same with each field a
//!   Luau `buffer` of its values (`n` of them, little-endian, at the
//!   field's size: `buffer.readf32(a.x, (i - 1) * 4)`), filled and read back
//!   with one copy each: the fastest form.

use std::sync::Arc;

use ecs_core::component::ComponentId;
use ecs_core::prelude::*;
use ecs_core::query::DynamicArchetype;
use mlua::{Function, Lua, MultiValue, Scope, Table, Value};

use crate::api::{Backend, Lent, borrow};
use crate::codec::{self, Scalar, entity_value};
use crate::host::Shared;
use crate::lane::Lane;

/// A query's components, read back from its table.
pub(crate) struct Spec {
    pub(crate) fetch: Vec<ComponentId>,
    with: Vec<ComponentId>,
    without: Vec<ComponentId>,
}

fn ids_of(shared: &Shared, table: &Table, key: &str) -> mlua::Result<Vec<ComponentId>> {
    let list: Table = table.raw_get(key)?;
    (1..=list.raw_len()).map(|i| shared.component(&list.raw_get::<Value>(i)?)).collect()
}

fn spec(shared: &Shared, query: &Table) -> mlua::Result<Spec> {
    Ok(Spec {
        fetch: ids_of(shared, query, "__fetch")?,
        with: ids_of(shared, query, "__with")?,
        without: ids_of(shared, query, "__without")?,
    })
}

impl Spec {
    /// The query these components make; `write` fetches them writable.
    pub(crate) fn builder(&self, write: bool) -> ecs_core::query::DynamicQueryBuilder {
        let mut builder = ecs_core::query::DynamicQueryBuilder::default();
        for &id in &self.fetch {
            builder = if write { builder.write(id) } else { builder.read(id) };
        }
        for &id in &self.with {
            builder = builder.with(id);
        }
        for &id in &self.without {
            builder = builder.without(id);
        }
        builder
    }
}

/// A new query table: `world:query(a, b)`.
pub(crate) fn new(lua: &Lua, methods: &Table, fetch: Vec<ComponentId>) -> mlua::Result<Table> {
    let query = lua.create_table_with_capacity(0, 3)?;
    let list = lua.create_table_with_capacity(fetch.len(), 0)?;
    for (i, id) in fetch.iter().enumerate() {
        list.raw_seti(i + 1, id.index() as f64)?;
    }
    query.raw_set("__fetch", list)?;
    query.raw_set("__with", lua.create_table()?)?;
    query.raw_set("__without", lua.create_table()?)?;
    query.set_metatable(Some(methods.clone()))?;
    Ok(query)
}

pub(crate) fn ecs_error(e: EcsError) -> mlua::Error {
    mlua::Error::runtime(e.to_string())
}

/// Every fetched field's rows in the archetype, in the codecs' column
/// order, each made by `make::<F>` for the field's lane (`read_lane` or
/// `lend`; a macro, as a function pointer cannot be generic).
macro_rules! fields_with {
    ($archetype:expr, $fetch:expr, $codecs:expr, $make:ident) => {{
        let mut fields: Vec<Box<dyn FieldBuf + '_>> = Vec::new();
        for (&id, codec) in $fetch.iter().zip($codecs) {
            for &(name, kind) in &codec.columns {
                fields.push(match kind {
                    Scalar::Bool => $make::<bool>($archetype, id, codec.name, name),
                    Scalar::I8 => $make::<i8>($archetype, id, codec.name, name),
                    Scalar::I16 => $make::<i16>($archetype, id, codec.name, name),
                    Scalar::I32 => $make::<i32>($archetype, id, codec.name, name),
                    Scalar::I64 => $make::<i64>($archetype, id, codec.name, name),
                    Scalar::U8 => $make::<u8>($archetype, id, codec.name, name),
                    Scalar::U16 => $make::<u16>($archetype, id, codec.name, name),
                    Scalar::U32 => $make::<u32>($archetype, id, codec.name, name),
                    Scalar::U64 => $make::<u64>($archetype, id, codec.name, name),
                    Scalar::F32 => $make::<f32>($archetype, id, codec.name, name),
                    Scalar::F64 => $make::<f64>($archetype, id, codec.name, name),
                    Scalar::Entity => unreachable!("refused before the visit"),
                });
            }
        }
        fields
    }};
}

/// The batch form: `f(entities, a, b, …)` per archetype.
fn batch(
    lua: &Lua,
    backend: &mut Backend<'_, '_, '_>,
    shared: &Shared,
    spec: &Spec,
    f: &Function,
    buffers: bool,
) -> mlua::Result<()> {
    let codecs = spec.fetch.iter().map(|&id| backend.codec(shared, id)).collect::<mlua::Result<Vec<_>>>()?;
    for codec in &codecs {
        let fields = if codec.bare { 1 } else { field_count(&codec.root) };
        if codec.columns.len() != fields {
            return Err(mlua::Error::runtime(format!(
                "component `{}`: the batch form hands out fields that are numbers or booleans only",
                codec.name
            )));
        }
    }
    if let Some((codec, (name, _))) =
        codecs.iter().find_map(|c| c.columns.iter().find(|(_, kind)| *kind == Scalar::Entity).map(|f| (c, f)))
    {
        return Err(mlua::Error::runtime(format!(
            "component `{}` field `{name}`: the batch form hands out numbers and booleans",
            codec.name
        )));
    }
    let query = match backend {
        Backend::World(world) => spec.builder(true).build(world),
        Backend::System { world, .. } => world.build_query(spec.builder(true)),
    }
    .map_err(ecs_error)?;
    if query.filters_rows() {
        return gathered(lua, &shared.pack, backend, &query, &spec.fetch, &codecs, f, buffers);
    }
    // First every archetype's rows are handed to the function and checked,
    // read only; then, all of them good, written back in a second pass over
    // the same archetypes (nothing can change them in between: the world's
    // functions are unavailable while the batch runs). A bad value anywhere,
    // or an error in the function, leaves every row as it was.
    let mut failed = None;
    let mut handed = Vec::new();
    let mut read = |archetype: DynamicArchetype<'_, '_>| {
        if failed.is_some() {
            return;
        }
        let readers = fields_with!(&archetype, spec.fetch, &codecs, read_lane);
        match hand_over(lua, &shared.pack, f, archetype.entities(), &codecs, &readers, buffers) {
            Ok(checked) => handed.push((archetype.len(), checked)),
            Err(e) => failed = Some(e),
        }
    };
    match backend {
        Backend::World(world) => query.for_each_archetype(world, &mut read),
        Backend::System { world, .. } => world.for_each_archetype(&query, &mut read).map_err(ecs_error)?,
    }
    if let Some(e) = failed {
        return Err(e);
    }
    let mut handed = handed.into_iter();
    let mut write = |archetype: DynamicArchetype<'_, '_>| {
        if failed.is_some() {
            return;
        }
        let Some((rows, checked)) = handed.next().filter(|(rows, _)| *rows == archetype.len()) else {
            failed = Some(mlua::Error::runtime("batch: the archetypes changed during the batch"));
            return;
        };
        debug_assert_eq!(rows, archetype.len());
        let mut writers = fields_with!(&archetype, spec.fetch, &codecs, lend);
        write_back(&mut writers, checked);
    };
    match backend {
        Backend::World(world) => query.for_each_archetype_mut(world, &mut write),
        Backend::System { world, .. } => world.for_each_archetype(&query, &mut write).map_err(ecs_error)?,
    }
    failed.map_or(Ok(()), Err)
}

/// The batch form over a query that filters rows one by one (a sparse or tag
/// component, which the per-archetype views do not hand out): the rows that
/// pass, gathered into one batch through the component views, and written
/// back row by row the same way.
#[allow(clippy::too_many_arguments, reason = "the batch form's inputs, passed through")]
fn gathered(
    lua: &Lua,
    pack: &Function,
    backend: &mut Backend<'_, '_, '_>,
    query: &ecs_core::query::DynamicQuery,
    fetch: &[ComponentId],
    codecs: &[Arc<codec::Codec>],
    f: &Function,
    buffers: bool,
) -> mlua::Result<()> {
    let mut entities = Vec::new();
    match backend {
        Backend::World(world) => query.for_each(world, |row| entities.push(row.entity())),
        Backend::System { world, .. } => world.for_each(query, |row| entities.push(row.entity())).map_err(ecs_error)?,
    }
    if entities.is_empty() {
        return Ok(());
    }
    let mut fields: Vec<Box<dyn Gather>> = Vec::new();
    for (&id, codec) in fetch.iter().zip(codecs) {
        for &(name, kind) in &codec.columns {
            let at = Field { id, component: codec.name, name };
            fields.push(match kind {
                Scalar::Bool => gather::<bool>(backend, &entities, at)?,
                Scalar::I8 => gather::<i8>(backend, &entities, at)?,
                Scalar::I16 => gather::<i16>(backend, &entities, at)?,
                Scalar::I32 => gather::<i32>(backend, &entities, at)?,
                Scalar::I64 => gather::<i64>(backend, &entities, at)?,
                Scalar::U8 => gather::<u8>(backend, &entities, at)?,
                Scalar::U16 => gather::<u16>(backend, &entities, at)?,
                Scalar::U32 => gather::<u32>(backend, &entities, at)?,
                Scalar::U64 => gather::<u64>(backend, &entities, at)?,
                Scalar::F32 => gather::<f32>(backend, &entities, at)?,
                Scalar::F64 => gather::<f64>(backend, &entities, at)?,
                Scalar::Entity => unreachable!("refused before the visit"),
            });
        }
    }
    let readers: Vec<Box<dyn FieldBuf + '_>> = fields.iter_mut().map(|field| field.rows()).collect();
    let checked = hand_over(lua, pack, f, &entities, codecs, &readers, buffers)?;
    drop(readers);
    let mut writers: Vec<Box<dyn FieldBuf + '_>> = fields.iter_mut().map(|field| field.rows()).collect();
    write_back(&mut writers, checked);
    drop(writers);
    for field in &fields {
        field.scatter(backend, &entities)?;
    }
    Ok(())
}

/// Where a gathered field lives.
#[derive(Clone, Copy)]
struct Field {
    id: ComponentId,
    component: &'static str,
    name: &'static str,
}

/// One field of a batch gathered row by row.
trait Gather {
    /// The values, lent to the batch.
    fn rows(&mut self) -> Box<dyn FieldBuf + '_>;
    /// Writes the values back, row by row (each row stamped changed).
    fn scatter(&self, backend: &mut Backend<'_, '_, '_>, entities: &[Entity]) -> mlua::Result<()>;
}

struct Gathered<F> {
    at: Field,
    values: Vec<F>,
}

fn gather<F: Lane>(backend: &Backend<'_, '_, '_>, entities: &[Entity], at: Field) -> mlua::Result<Box<dyn Gather>> {
    let values = entities
        .iter()
        .map(|&e| {
            let view = backend.get(e, at.id)?.ok_or_else(|| {
                mlua::Error::runtime(format!("entity {e} lost component `{}` during the batch", at.component))
            })?;
            view.get::<F>(at.name).map_err(|e| mlua::Error::runtime(e.to_string()))
        })
        .collect::<mlua::Result<_>>()?;
    Ok(Box::new(Gathered { at, values }))
}

impl<F: Lane> Gather for Gathered<F> {
    fn rows(&mut self) -> Box<dyn FieldBuf + '_> {
        Box::new(Rows { name: self.at.name, component: self.at.component, rows: Held::Slice(&mut self.values) })
    }

    fn scatter(&self, backend: &mut Backend<'_, '_, '_>, entities: &[Entity]) -> mlua::Result<()> {
        for (&e, &value) in entities.iter().zip(&self.values) {
            backend
                .get_mut(e, self.at.id)?
                .set(self.at.name, value)
                .map_err(|e| mlua::Error::runtime(e.to_string()))?;
        }
        Ok(())
    }
}

/// The methods of the call's queries, as their metatable.
pub(crate) fn methods<'scope, 'env: 'scope, 'a: 'env, 'w: 'env, 'c: 'env>(
    lua: &Lua,
    scope: &'scope Scope<'scope, 'env>,
    lent: &'env Lent<'a, 'w, 'c>,
    shared: &'env Arc<Shared>,
) -> mlua::Result<Table> {
    let methods = lua.create_table()?;
    let index = lua.create_table()?;
    for (name, key) in [("with", "__with"), ("without", "__without")] {
        index.raw_set(
            name,
            lua.create_function(move |_, (query, ids): (Table, MultiValue)| {
                let list: Table = query.raw_get(key)?;
                for id in ids {
                    list.raw_push(id)?;
                }
                Ok(query)
            })?,
        )?;
    }
    for (name, buffers) in [("batch", false), ("buffers", true)] {
        index.raw_set(
            name,
            scope.create_function(move |lua, (query, f): (Table, Function)| {
                let spec = spec(shared, &query)?;
                let mut backend = borrow(lent)?;
                batch(lua, &mut backend, shared, &spec, &f, buffers)
            })?,
        )?;
    }
    let iterate = scope.create_function(move |lua, query: Table| {
        let spec = spec(shared, &query)?;
        crate::for_loop::start(lua, &mut *borrow(lent)?, shared, &spec)
    })?;
    index.raw_set("iter", iterate.clone())?;
    // Shared by every query of the call, whichever script makes it: neither
    // changed nor reached through `getmetatable`.
    index.set_readonly(true);
    methods.raw_set("__index", index)?;
    methods.raw_set("__iter", iterate)?;
    methods.raw_set("__metatable", false)?;
    methods.set_readonly(true);
    Ok(methods)
}

fn field_count(node: &codec::Node) -> usize {
    match node {
        codec::Node::Struct(fields, _) => fields.len(),
        _ => usize::MAX,
    }
}

/// One field's rows, for the archetype's visit: read (to hand out and check)
/// or lent writable (to write back).
trait FieldBuf {
    /// The rows as a Luau array, made through `pack` (see `pack::PACK`).
    fn fill(&self, lua: &Lua, pack: &Function) -> mlua::Result<Table>;
    /// The rows as a Luau buffer, little-endian, `SIZE` bytes each.
    fn fill_buffer(&self, lua: &Lua) -> mlua::Result<mlua::Buffer>;
    /// Checks the buffer (its length, each element a value of the kind).
    fn check_buffer(&self, buffer: &[u8]) -> mlua::Result<()>;
    fn write_buffer(&mut self, buffer: &[u8]);
    /// Checks every element of `table` (nothing written on an error) and
    /// returns them as a buffer's bytes, for [`write_buffer`](Self::write_buffer):
    /// the table itself stays the script's, which may change it after the
    /// check (in the batch's call for a later archetype).
    fn check(&self, table: &Table) -> mlua::Result<Vec<u8>>;
}

/// The rows of one field: a per-field component's slice, or a strided view
/// of one field of a component stored whole; lent writable, or read only
/// (the batch's first pass: nothing counted as written).
struct Rows<'a, F> {
    name: &'static str,
    component: &'static str,
    rows: Held<'a, F>,
}

enum Held<'a, F> {
    Slice(&'a mut [F]),
    Strided(ecs_core::query::FieldRowsMut<'a, F>),
    ReadSlice(&'a [F]),
    ReadStrided(ecs_core::query::FieldRows<'a, F>),
    /// The archetype lends no such field (not reached: checked before).
    None,
}

impl<F: Lane> Rows<'_, F> {
    fn len(&self) -> usize {
        match &self.rows {
            Held::Slice(s) => s.len(),
            Held::Strided(s) => s.len(),
            Held::ReadSlice(s) => s.len(),
            Held::ReadStrided(s) => s.len(),
            Held::None => 0,
        }
    }
    fn get(&self, i: usize) -> F {
        match &self.rows {
            Held::Slice(s) => s[i],
            Held::ReadSlice(s) => s[i],
            Held::Strided(s) => s.get(i).expect("below the length"),
            Held::ReadStrided(s) => s.get(i).expect("below the length"),
            Held::None => unreachable!("no rows"),
        }
    }
    /// The rows side by side, if they are.
    fn as_slice(&self) -> Option<&[F]> {
        match &self.rows {
            Held::Slice(s) => Some(s),
            Held::ReadSlice(s) => Some(s),
            Held::ReadStrided(s) => s.as_slice(),
            Held::Strided(_) | Held::None => None,
        }
    }
    fn set(&mut self, i: usize, v: F) {
        match &mut self.rows {
            Held::Slice(s) => s[i] = v,
            Held::Strided(s) => *s.get_mut(i).expect("below the length") = v,
            _ => unreachable!("written only when lent writable"),
        }
    }
}

impl<F: Lane> FieldBuf for Rows<'_, F> {
    fn fill_buffer(&self, lua: &Lua) -> mlua::Result<mlua::Buffer> {
        let mut bytes = Vec::with_capacity(self.len() * F::SIZE);
        match self.as_slice() {
            Some(slice) => F::put_all(slice, &mut bytes),
            None => (0..self.len()).for_each(|i| self.get(i).put(&mut bytes)),
        }
        lua.create_buffer(bytes)
    }
    fn check_buffer(&self, buffer: &[u8]) -> mlua::Result<()> {
        if buffer.len() != self.len() * F::SIZE {
            return Err(mlua::Error::runtime(format!(
                "component `{}` field `{}`: the buffer holds {} bytes, not {}",
                self.component,
                self.name,
                buffer.len(),
                self.len() * F::SIZE
            )));
        }
        if F::ANY_BYTES {
            return Ok(());
        }
        match buffer.chunks_exact(F::SIZE).position(|b| F::take(b).is_none()) {
            Some(row) => Err(mlua::Error::runtime(format!(
                "component `{}` field `{}` row {}: the bytes are no value of the field",
                self.component,
                self.name,
                row + 1
            ))),
            None => Ok(()),
        }
    }
    fn write_buffer(&mut self, buffer: &[u8]) {
        if let Held::Slice(slice) = &mut self.rows {
            return F::take_all(buffer, slice);
        }
        for (i, bytes) in buffer.chunks_exact(F::SIZE).enumerate() {
            self.set(i, F::take(bytes).expect("checked"));
        }
    }
    fn fill(&self, lua: &Lua, pack: &Function) -> mlua::Result<Table> {
        crate::pack::sequence(lua, pack, (0..self.len()).map(|i| self.get(i).to_lua()).collect())
    }
    fn check(&self, table: &Table) -> mlua::Result<Vec<u8>> {
        let mut bytes = Vec::with_capacity(self.len() * F::SIZE);
        for i in 0..self.len() {
            let value: Value = table.raw_get(i + 1)?;
            let Some(v) = F::from_lua(&value) else {
                return Err(mlua::Error::runtime(format!(
                    "component `{}` field `{}` row {}: {} does not fit the field",
                    self.component,
                    self.name,
                    i + 1,
                    value.type_name()
                )));
            };
            v.put(&mut bytes);
        }
        Ok(bytes)
    }
}

fn lend<'a, F: Lane>(
    archetype: &'a DynamicArchetype<'_, '_>,
    id: ComponentId,
    component: &'static str,
    name: &'static str,
) -> Box<dyn FieldBuf + 'a> {
    let rows = match archetype.field_mut::<F>(id, name) {
        Some(slice) => Held::Slice(slice),
        // A newtype's rows lie side by side: one slice, copied whole.
        None => match archetype.field_rows_mut::<F>(id, name).map(|rows| rows.into_mut_slice()) {
            Some(Ok(slice)) => Held::Slice(slice),
            Some(Err(rows)) => Held::Strided(rows),
            None => Held::None,
        },
    };
    Box::new(Rows { name, component, rows })
}

/// Field `name` of component `id` in the archetype, read only (nothing is
/// counted as written).
fn read_lane<'a, F: Lane>(
    archetype: &'a DynamicArchetype<'_, '_>,
    id: ComponentId,
    component: &'static str,
    name: &'static str,
) -> Box<dyn FieldBuf + 'a> {
    let rows = match archetype.field::<F>(id, name) {
        Some(slice) => Held::ReadSlice(slice),
        None => archetype.field_rows::<F>(id, name).map_or(Held::None, Held::ReadStrided),
    };
    Box::new(Rows { name, component, rows })
}

/// What the batch's function left in one field's array (a buffer or a
/// Luau array), checked, as a buffer's bytes: copied out of the script's
/// hands, so that nothing it does later changes what is written.
type Checked = Vec<u8>;

/// Calls the batch's function with the rows of `entities`, each component's
/// fields from `bufs` (one per field, in the codecs' column order), then
/// checks everything it handed out; [`write_back`] writes it.
fn hand_over(
    lua: &Lua,
    pack: &Function,
    f: &Function,
    entities: &[Entity],
    codecs: &[Arc<codec::Codec>],
    bufs: &[Box<dyn FieldBuf + '_>],
    buffers: bool,
) -> mlua::Result<Vec<Checked>> {
    let mut args = MultiValue::new();
    if buffers {
        args.push_back(Value::Number(entities.len() as f64));
    } else {
        let entities = entities.iter().map(|&e| entity_value(e)).collect();
        args.push_back(Value::Table(crate::pack::sequence(lua, pack, entities)?));
    }
    let mut bufs = bufs.iter();
    let mut lent: Vec<(Value, &dyn FieldBuf)> = Vec::new();
    for codec in codecs {
        // A newtype's one field is handed out bare, as its values are.
        let component = if codec.bare { None } else { Some(lua.create_table()?) };
        for &(name, _) in &codec.columns {
            let buf = bufs.next().expect("one per field");
            let array = if buffers { Value::Buffer(buf.fill_buffer(lua)?) } else { Value::Table(buf.fill(lua, pack)?) };
            match &component {
                Some(component) => component.raw_set(name, array.clone())?,
                None => args.push_back(array.clone()),
            }
            lent.push((array, &**buf));
        }
        if let Some(component) = component {
            args.push_back(Value::Table(component));
        }
    }
    f.call::<()>(args)?;
    lent.into_iter()
        .map(|(array, buf)| match array {
            Value::Buffer(buffer) => {
                let read = buffer.to_vec();
                buf.check_buffer(&read)?;
                Ok(read)
            }
            Value::Table(table) => buf.check(&table),
            _ => unreachable!("filled above"),
        })
        .collect()
}

/// Writes what [`hand_over`] checked into the fields it was read from, lent
/// writable now (one per field, in the same order).
fn write_back(bufs: &mut [Box<dyn FieldBuf + '_>], checked: Vec<Checked>) {
    for (buf, bytes) in bufs.iter_mut().zip(checked) {
        buf.write_buffer(&bytes);
    }
}
