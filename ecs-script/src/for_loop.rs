//! The `for` loop over a query (`for e, a, b in world:query(A, B) do`): the
//! matching rows copied out column by column in one native step, then
//! stepped through by a native iterator ([`direct::row_iterator`]).

use ecs_core::component::ComponentId;
use ecs_core::entity::Entity;
use ecs_core::query::DynamicArchetype;
use mlua::{Function, Lua, Value};

use crate::api::Backend;
use crate::codec::{self, Scalar};
use crate::direct::{self, LoopColumn};
use crate::host::Shared;
use crate::lane::Lane;
use crate::query::{Spec, ecs_error};

/// Every matching row, column by column: the entities, and a copy of each
/// fetched component's values (a numeric newtype's as the numbers scripts
/// see, copied out of whole column slices; any other's as a Luau array, `nil`
/// where a row has none).
fn rows(
    lua: &Lua,
    backend: &mut Backend<'_, '_, '_>,
    shared: &Shared,
    spec: &Spec,
) -> mlua::Result<(Vec<Entity>, Vec<LoopColumn>)> {
    let codecs = spec.fetch.iter().map(|&id| backend.codec(shared, id)).collect::<mlua::Result<Vec<_>>>()?;
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
        // Numbers stay native to the end; booleans become Luau values.
        let numeric: Vec<bool> = lanes.iter().map(|&lane| lane != Scalar::Bool).collect();
        let mut numbers: Vec<Vec<f64>> = vec![Vec::new(); lanes.len()];
        let mut unread = None;
        let mut visit = |archetype: DynamicArchetype<'_, '_>| {
            entities.extend_from_slice(archetype.entities());
            for (i, (&id, &lane)) in spec.fetch.iter().zip(&lanes).enumerate() {
                let out = if numeric[i] { LaneOut::Numbers(&mut numbers[i]) } else { LaneOut::Values(&mut columns[i]) };
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
        let out = columns
            .into_iter()
            .zip(numbers)
            .zip(numeric)
            .map(|((values, numbers), numeric)| match numeric {
                true => Ok(LoopColumn::Numbers(numbers)),
                false => array(lua, shared, values),
            })
            .collect::<mlua::Result<_>>()?;
        return Ok((entities, out));
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
    let out = columns.into_iter().map(|values| array(lua, shared, values)).collect::<mlua::Result<_>>()?;
    Ok((entities, out))
}

/// A column of any values, as the Luau array the loop reads them from.
fn array(lua: &Lua, shared: &Shared, values: Vec<Value>) -> mlua::Result<LoopColumn> {
    Ok(LoopColumn::Array(crate::pack::sequence(lua, &shared.pack, values)?))
}

/// The lane of a newtype whose one field is a number or a boolean.
fn bare_lane(root: &codec::Node) -> Option<Scalar> {
    match root {
        codec::Node::Scalar(_, Scalar::Entity) => None,
        codec::Node::Scalar(_, scalar) => Some(*scalar),
        _ => None,
    }
}

/// Where [`copy_lane`] appends a newtype's values: as Luau values, or as
/// the numbers scripts would see (numbers only).
enum LaneOut<'a> {
    Values(&'a mut Vec<Value>),
    Numbers(&'a mut Vec<f64>),
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
            LaneOut::Numbers(numbers) => {
                numbers.reserve(archetype.len());
                each::<F>(archetype, id, |v| match v.to_number() {
                    Some(n) => numbers.push(n),
                    None => unreachable!("only numeric lanes come as numbers (`rows`)"),
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
    let (entities, columns) = rows(lua, backend, shared, spec)?;
    direct::row_iterator(lua, &entities, &columns)
}
