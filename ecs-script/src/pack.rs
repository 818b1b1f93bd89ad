//! Filling Luau arrays from Rust in a few calls, not one protected call per
//! element.
//!
//! Under a memory limit every table store from Rust runs in a protected call
//! of its own (a store may raise an out-of-memory error, which must not
//! unwind through Rust): an array of ten thousand values costs ten thousand
//! of them. Values pushed as a function's arguments allocate nothing, so they
//! go over in chunks to [`PACK`], which stores them in Luau.

use mlua::{Function, Lua, MultiValue, Table, Value};

/// `pack(t, total, from, ...)`: stores the arguments after `from` at
/// `t[from]`, `t[from + 1]`, …, making `t` (room for `total`) when it is `nil`.
pub(crate) const PACK: &str = r##"
return function(t, total, from, ...)
    if t == nil then t = table.create(total) end
    local n = select("#", ...)
    if n > 0 then table.move({...}, 1, n, from, t) end
    return t
end
"##;

/// Values per call: well below the stack a native function may use (Luau's
/// `LUAI_MAXCSTACK`, 8,000 slots), arguments and the rest included.
const CHUNK: usize = 4000;

/// A Luau array of `values`, in order, made through `pack` (the function
/// [`PACK`] returns).
pub(crate) fn sequence(lua: &Lua, pack: &Function, values: Vec<Value>) -> mlua::Result<Table> {
    let total = values.len();
    if total == 0 {
        return lua.create_table();
    }
    // Plain values (the commonest: entities, numbers) without a call into
    // Luau at all.
    if let Some(table) = crate::direct::plain_array(lua, &values) {
        return table;
    }
    let mut table = Value::Nil;
    let mut values = values.into_iter();
    let mut from = 1;
    while from <= total {
        let mut args = MultiValue::with_capacity(CHUNK.min(total - from + 1) + 3);
        args.push_back(table);
        args.push_back(Value::Number(total as f64));
        args.push_back(Value::Number(from as f64));
        args.extend(values.by_ref().take(CHUNK));
        from += args.len() - 3;
        table = pack.call(args)?;
    }
    match table {
        Value::Table(table) => Ok(table),
        _ => unreachable!("`pack` returns its table"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_of_any_length_read_back_in_order() -> mlua::Result<()> {
        let lua = Lua::new();
        lua.set_memory_limit(64 << 20)?;
        let pack: Function = lua.load(PACK).eval()?;
        for n in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 7] {
            let values: Vec<Value> = (0..n).map(|i| Value::Number(i as f64)).collect();
            let table = sequence(&lua, &pack, values)?;
            assert_eq!(table.raw_len(), n);
            for i in 0..n {
                assert_eq!(table.raw_get::<f64>(i + 1)?, i as f64);
            }
        }
        Ok(())
    }

    #[test]
    fn nil_values_keep_their_places() -> mlua::Result<()> {
        let lua = Lua::new();
        let pack: Function = lua.load(PACK).eval()?;
        let table = sequence(&lua, &pack, vec![Value::Number(1.0), Value::Nil, Value::Boolean(true)])?;
        assert_eq!(table.raw_get::<Value>(2)?, Value::Nil);
        assert!(table.raw_get::<bool>(3)?);
        Ok(())
    }
}
