//! The `for` loop over a query (`for e, a, b in world:query(A, B) do`): the
//! matching rows copied out column by column in one native step, then
//! stepped through in Luau.

use ecs_core::component::ComponentId;
use ecs_core::entity::Entity;
use ecs_core::query::DynamicArchetype;
use mlua::{Function, Lua, MultiValue, Table, Value};

use crate::api::Backend;
use crate::codec::{self, Scalar};
use crate::host::Shared;
use crate::lane::Lane;
use crate::query::{Spec, ecs_error};

/// One column of the rows a `for` loop visits.
pub(crate) enum Column {
    /// A Luau array: the entities, or any component's values.
    Array(Table),
    /// A numeric newtype's values as a Luau `buffer` of `f64`s (the numbers
    /// scripts see), filled in one copy: no value goes over one at a time.
    Numbers(mlua::Buffer),
}

impl Column {
    pub(crate) fn value(&self) -> Value {
        match self {
            Column::Array(table) => Value::Table(table.clone()),
            Column::Numbers(buffer) => Value::Buffer(buffer.clone()),
        }
    }
}

/// Every matching row, column by column: the entities, and a copy of each
/// fetched component's values (`nil` where a row has none), as Luau arrays,
/// or as buffers of numbers for numeric newtypes when `numbers` allows.
pub(crate) fn rows(
    lua: &Lua,
    backend: &mut Backend<'_, '_, '_>,
    shared: &Shared,
    spec: &Spec,
    numbers: bool,
) -> mlua::Result<Vec<Column>> {
    let codecs = spec.fetch.iter().map(|&id| backend.codec(shared, id)).collect::<mlua::Result<Vec<_>>>()?;
    // The entities apart: plain bits, made Luau values in one native step.
    let mut entities: Vec<Entity> = Vec::new();
    let mut columns: Vec<Vec<Value>> = vec![Vec::new(); spec.fetch.len()];
    let query = match backend {
        Backend::World(world) => spec.builder(false).build(world),
        Backend::System { world, .. } => world.build_query(spec.builder(false)),
    }
    .map_err(ecs_error)?;
    // Newtypes of numbers or booleans, by far the commonest script
    // components, come out of whole column slices, archetype by archetype.
    let lanes: Option<Vec<Scalar>> = codecs.iter().map(|c| c.bare.then(|| bare_lane(&c.root)).flatten()).collect();
    if let Some(lanes) = lanes.filter(|_| !query.filters_rows()) {
        // Numbers go to buffers (bytes, one copy each), the rest to arrays.
        let in_buffer: Vec<bool> = lanes.iter().map(|&lane| numbers && lane != Scalar::Bool).collect();
        let mut bytes: Vec<Vec<u8>> = vec![Vec::new(); lanes.len()];
        let mut unread = None;
        let mut visit = |archetype: DynamicArchetype<'_, '_>| {
            entities.extend_from_slice(archetype.entities());
            for (i, (&id, &lane)) in spec.fetch.iter().zip(&lanes).enumerate() {
                let out = if in_buffer[i] { LaneOut::Numbers(&mut bytes[i]) } else { LaneOut::Values(&mut columns[i]) };
                if !copy_lane(&archetype, id, lane, out) {
                    unread = Some(id);
                }
            }
        };
        match backend {
            Backend::World(world) => query.for_each_archetype(world, &mut visit),
            Backend::System { world, .. } => world.for_each_archetype(&query, &mut visit).map_err(ecs_error)?,
        }
        if let Some(id) = unread {
            let name = backend.components().get(id).map_or("?", |info| info.short_name());
            return Err(mlua::Error::runtime(format!(
                "query: component `{name}` has an archetype whose values cannot be read"
            )));
        }
        let mut out = Vec::with_capacity(columns.len() + 1);
        out.push(Column::Array(crate::direct::entity_array(lua, &entities)?));
        for (i, column) in columns.into_iter().enumerate() {
            out.push(match in_buffer[i] {
                true => Column::Numbers(lua.create_buffer(&bytes[i])?),
                false => Column::Array(crate::pack::sequence(lua, &shared.pack, column)?),
            });
        }
        return Ok(out);
    }
    let mut failed = None;
    let mut visit = |row: ecs_core::query::DynamicRow<'_, '_>| {
        if failed.is_some() {
            return;
        }
        entities.push(row.entity());
        for ((&id, codec), column) in spec.fetch.iter().zip(&codecs).zip(&mut columns) {
            match row.get(id).map(|view| codec::to_lua(lua, &view, &codec.root)) {
                Some(Ok(value)) => column.push(value),
                Some(Err(e)) => failed = Some(e),
                None => column.push(Value::Nil),
            }
        }
    };
    match backend {
        Backend::World(world) => query.for_each(world, &mut visit),
        Backend::System { world, .. } => world.for_each(&query, &mut visit).map_err(ecs_error)?,
    }
    if let Some(e) = failed {
        return Err(e);
    }
    let entities = Column::Array(crate::direct::entity_array(lua, &entities)?);
    let values = columns.into_iter().map(|column| Ok(Column::Array(crate::pack::sequence(lua, &shared.pack, column)?)));
    std::iter::once(Ok(entities)).chain(values).collect()
}

/// The `for` loop's iterator over columns [`rows`] filled, written in Luau,
/// for any number of components, all in arrays (past four components; see
/// [`iterator_source`] for up to four): stepping through rows costs no call
/// into Rust.
/// `rows(n, k, entities, a, b, c, d, all)` with `k` components, the first
/// four as `a`..`d` and, past four, all of them in `all`.
pub(crate) const ROWS: &str = r#"
return function(n, k, es, a, b, c, d, all)
    local i = 0
    if k == 0 then
        return function() i += 1 if i <= n then return es[i] end return nil end
    elseif k == 1 then
        return function() i += 1 if i <= n then return es[i], a[i] end return nil end
    elseif k == 2 then
        return function() i += 1 if i <= n then return es[i], a[i], b[i] end return nil end
    elseif k == 3 then
        return function() i += 1 if i <= n then return es[i], a[i], b[i], c[i] end return nil end
    elseif k == 4 then
        return function() i += 1 if i <= n then return es[i], a[i], b[i], c[i], d[i] end return nil end
    end
    return function()
        i += 1
        if i > n then return nil end
        local row = table.create(k)
        for j = 1, k do row[j] = all[j][i] end
        return es[i], table.unpack(row, 1, k)
    end
end
"#;

/// The `for` loop's iterator over columns [`rows`] filled, for up to four
/// components each read from an array (`a[i]`) or a buffer of numbers
/// (`buffer.readf64(a, (i - 1) * 8)`, a built-in the compiler calls
/// directly): `factory(n, entities, a, b, c, d)`. `buffers` has bit `j` set
/// where component `j` comes in a buffer.
pub(crate) fn iterator_source(k: usize, buffers: u8) -> String {
    let reads: Vec<String> = (0..k)
        .map(|j| {
            let name = ["a", "b", "c", "d"][j];
            if buffers & (1 << j) != 0 { format!("buffer.readf64({name}, o)") } else { format!("{name}[i]") }
        })
        .collect();
    let offset = if buffers != 0 { "local o = (i - 1) * 8 " } else { "" };
    let returned = std::iter::once("es[i]".to_owned()).chain(reads).collect::<Vec<_>>().join(", ");
    format!(
        "return function(n, es, a, b, c, d)\n    local i = 0\n    return function() i += 1 if i <= n then {offset}return {returned} end return nil end\nend\n"
    )
}

/// The lane of a newtype whose one field is a number or a boolean.
fn bare_lane(root: &codec::Node) -> Option<Scalar> {
    match root {
        codec::Node::Scalar(_, Scalar::Entity) => None,
        codec::Node::Scalar(_, scalar) => Some(*scalar),
        _ => None,
    }
}

/// Where [`copy_lane`] appends a newtype's values: as Luau values (an array
/// to be), or as the little-endian `f64`s scripts would see (a buffer to be;
/// numbers only).
enum LaneOut<'a> {
    Values(&'a mut Vec<Value>),
    Numbers(&'a mut Vec<u8>),
}

/// Appends the archetype's values of newtype `id` (lane `lane`) to `out`.
/// `false` when the archetype lends them neither as a slice nor row by row
/// (not reached: a query that does not filter rows matches only archetypes
/// holding each fetched newtype in a table column).
fn copy_lane(archetype: &DynamicArchetype<'_, '_>, id: ComponentId, lane: Scalar, out: LaneOut<'_>) -> bool {
    /// Calls `f` with each value in row order, from the column's slice or
    /// row by row.
    fn each<F: Lane>(archetype: &DynamicArchetype<'_, '_>, id: ComponentId, mut f: impl FnMut(F)) -> bool {
        if let Some(values) = archetype.field::<F>(id, codec::NEWTYPE_FIELD) {
            values.iter().for_each(|&v| f(v));
        } else if let Some(rows) = archetype.field_rows::<F>(id, codec::NEWTYPE_FIELD) {
            rows.iter().for_each(f);
        } else {
            return false;
        }
        true
    }
    fn copy<F: Lane>(archetype: &DynamicArchetype<'_, '_>, id: ComponentId, out: LaneOut<'_>) -> bool {
        match out {
            LaneOut::Values(column) => {
                column.reserve(archetype.len());
                each::<F>(archetype, id, |v| column.push(v.to_lua()))
            }
            LaneOut::Numbers(bytes) => {
                bytes.reserve(archetype.len() * 8);
                each::<F>(archetype, id, |v| match v.to_lua() {
                    Value::Number(n) => bytes.extend_from_slice(&n.to_le_bytes()),
                    _ => unreachable!("only numeric lanes go to buffers (`rows`)"),
                })
            }
        }
    }
    match lane {
        Scalar::Bool => copy::<bool>(archetype, id, out),
        Scalar::I8 => copy::<i8>(archetype, id, out),
        Scalar::I16 => copy::<i16>(archetype, id, out),
        Scalar::I32 => copy::<i32>(archetype, id, out),
        Scalar::I64 => copy::<i64>(archetype, id, out),
        Scalar::U8 => copy::<u8>(archetype, id, out),
        Scalar::U16 => copy::<u16>(archetype, id, out),
        Scalar::U32 => copy::<u32>(archetype, id, out),
        Scalar::U64 => copy::<u64>(archetype, id, out),
        Scalar::F32 => copy::<f32>(archetype, id, out),
        Scalar::F64 => copy::<f64>(archetype, id, out),
        Scalar::Entity => false,
    }
}

/// Starts a `for` loop over the query `spec` describes: copies its rows out
/// ([`rows`]) and returns the iterator over them.
pub(crate) fn start(
    lua: &Lua,
    backend: &mut Backend<'_, '_, '_>,
    shared: &Shared,
    spec: &Spec,
) -> mlua::Result<Function> {
    let k = spec.fetch.len();
    let columns = rows(lua, backend, shared, spec, k <= 4)?;
    let Column::Array(entities) = &columns[0] else { unreachable!("entities come in an array") };
    let n = Value::Number(entities.raw_len() as f64);
    let mut args = MultiValue::with_capacity(8);
    if k <= 4 {
        let buffers = columns[1..].iter().enumerate().fold(0u8, |mask, (j, c)| match c {
            Column::Numbers(_) => mask | (1 << j),
            Column::Array(_) => mask,
        });
        args.push_back(n);
        args.extend(columns.iter().map(Column::value));
        return shared.iterator(k, buffers).call::<Function>(args);
    }
    // Past four components every column is an array (`rows` was told so).
    let columns: Vec<Table> = columns
        .into_iter()
        .map(|c| match c {
            Column::Array(table) => table,
            Column::Numbers(_) => unreachable!("no buffers past four components"),
        })
        .collect();
    args.push_back(n);
    args.push_back(Value::Number(k as f64));
    for i in 0..5 {
        args.push_back(columns.get(i).map_or(Value::Nil, |c| Value::Table(c.clone())));
    }
    args.push_back(Value::Table(lua.create_sequence_from(columns[1..].iter().cloned())?));
    shared.rows.call::<Function>(args)
}
