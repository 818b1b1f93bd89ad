//! `world:set`, `world:get` and `world:has`, the functions games call per
//! entity, as plain Luau C functions.
//!
//! A function made through mlua pays its callback machinery on every call
//! (a reserved error slot, a panic guard, arguments converted through the
//! registry) before it does anything: several times what the common case
//! itself costs. These functions read their arguments off Luau's stack and
//! do the common case themselves (a scalar written in place, read, or
//! asked for) through the same safe code as the full functions
//! ([`api::quick_set`](crate::api::quick_set) and its siblings). Anything
//! else, an error included, goes to the full mlua function, kept as the C
//! function's upvalue, with the same arguments: one behaviour, one set of
//! error messages.
//!
//! The world a call lent is found through [`CURRENT`], set for the length of
//! the call by [`entered`], and used only by that call's own functions (each
//! keeps its world object as a second upvalue): a function kept past its
//! call goes to its full function, which refuses it as it always did.
//!
//! A panic in the common case (a Rust component's `Default` run to build a
//! value to insert, say) cannot unwind through Luau: it is kept, the call
//! fails with a Luau error, and the host resumes the panic when the call
//! returns to Rust ([`take_panic`]), as mlua does with a panic in its
//! functions.
//!
//! The instruction budget's interrupt is a plain Luau callback too (see
//! [`install_interrupt`]): Luau runs it at every loop step and call of every
//! script, where mlua's would pay its callback machinery each time.
//!
//! This is the crate's only `unsafe`.

use std::cell::Cell;
use std::ffi::{CStr, c_void};
use std::os::raw::c_int;
use std::panic::{AssertUnwindSafe, catch_unwind};

use ecs_core::entity::Entity;
use mlua::{Function, LightUserData, Lua, Table, Value, ffi};

use crate::api::{Lent, quick_get, quick_has, quick_set};
use crate::host::Shared;

/// The call under way on this thread.
#[derive(Clone, Copy)]
struct Current {
    /// Its world object, by address: the direct functions of this call are
    /// those holding it.
    object: *const c_void,
    /// The world it lent (lifetimes erased; valid while [`entered`] runs).
    lent: *const Lent<'static, 'static, 'static>,
    shared: *const Shared,
}

thread_local! {
    /// The call under way on this thread, if any (a Luau VM runs on one
    /// thread at a time, and a call runs to its end on the thread that made
    /// it; another host's call nested inside it restores it when it ends).
    static CURRENT: Cell<Option<Current>> = const { Cell::new(None) };
    /// A panic the common case caught, to resume once the call is back in
    /// Rust (the first, if a script caught the error and went on).
    static PANIC: Cell<Option<Box<dyn std::any::Any + Send>>> = const { Cell::new(None) };
}

/// Runs `f` (the call: the script's function and everything it causes)
/// with `object` (the call's world object), `lent` and `shared` the call the
/// direct functions reach on this thread; the call before it, if any, is
/// restored after, by a panic too. A panic the direct functions caught in
/// the call waits in [`take_panic`].
pub(crate) fn entered<R>(object: &Table, lent: &Lent<'_, '_, '_>, shared: &Shared, f: impl FnOnce() -> R) -> R {
    /// Restores the call before, however `f` ends.
    struct Restore(Option<Current>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = CURRENT.try_with(|current| current.set(self.0));
        }
    }
    let current = Current {
        object: object.to_pointer(),
        lent: std::ptr::from_ref(lent).cast::<Lent<'static, 'static, 'static>>(),
        shared: std::ptr::from_ref(shared),
    };
    let _restore = Restore(CURRENT.with(|slot| slot.replace(Some(current))));
    f()
}

/// The panic a direct function caught on this thread since the last
/// asked, to resume once the call that caused it has cleaned up.
pub(crate) fn take_panic() -> Option<Box<dyn std::any::Any + Send>> {
    PANIC.with(Cell::take)
}

/// Which world function a direct function does.
#[derive(Clone, Copy)]
pub(crate) enum Direct {
    /// `world:set(e, C, v)`.
    Set,
    /// `world:get(e, C)`.
    Get,
    /// `world:has(e, C)`.
    Has,
}

/// The direct function for `which` of the call whose world object is
/// `object`, handing every case it does not do to `full` (the mlua function
/// doing the whole of it).
pub(crate) fn wrap(lua: &Lua, which: Direct, full: Function, object: &Table) -> mlua::Result<Function> {
    let (f, name): (ffi::lua_CFunction, &CStr) = match which {
        Direct::Set => (set, c"set"),
        Direct::Get => (get, c"get"),
        Direct::Has => (has, c"has"),
    };
    // SAFETY: `exec_raw` calls the closure protected (in a C function, with
    // `LUA_MINSTACK` free slots), with `full` and `object` pushed as its two
    // arguments: `lua_pushcclosurek` pops them as the closure's upvalues 1
    // and 2 and pushes the closure, the one value returned. `name` is a
    // static C string.
    unsafe {
        lua.exec_raw::<Function>((full, object), |state| {
            ffi::lua_pushcclosurek(state, f, name.as_ptr(), 2, None);
        })
    }
}

/// The arguments the common cases take: an entity (a light userdata) and a
/// component (a number) after the world object.
struct Target {
    entity: Entity,
    component: f64,
}

/// The value argument at `index` when it is a number, a boolean or a light
/// userdata (an entity), the kinds a scalar takes; `None` for any other.
///
/// # Safety
/// `state` is the running C function's, and `index` is at most its
/// argument count.
unsafe fn scalar(state: *mut ffi::lua_State, index: c_int) -> Option<Value> {
    // SAFETY: an index of the running function's arguments (the caller's
    // promise); each read matches the type just asked for, and none raises
    // an error.
    unsafe {
        match ffi::lua_type(state, index) {
            ffi::LUA_TNUMBER => Some(Value::Number(ffi::lua_tonumberx(state, index, std::ptr::null_mut()))),
            ffi::LUA_TBOOLEAN => Some(Value::Boolean(ffi::lua_toboolean(state, index) != 0)),
            ffi::LUA_TLIGHTUSERDATA => {
                Some(Value::LightUserData(LightUserData(ffi::lua_tolightuserdata(state, index))))
            }
            _ => None,
        }
    }
}

/// What the common case came to.
enum Outcome<R> {
    /// Done: this is the answer.
    Done(R),
    /// Not the common case: the full function does the call.
    Full,
    /// The common case panicked (the panic is kept in [`PANIC`]): the call
    /// fails.
    Panicked,
}

/// Runs `common` on the call's world when the function is one of the current
/// call's and was called with exactly `args` arguments (the object counted;
/// as many as the common case takes), an entity second and a component
/// third; [`Outcome::Full`] otherwise, or when `common` declines.
///
/// # Safety
/// `state` is the running C function's, a closure made by [`wrap`].
unsafe fn attempt<R>(
    state: *mut ffi::lua_State,
    args: c_int,
    common: impl FnOnce(&Lent<'_, '_, '_>, &Shared, Target) -> Option<R>,
) -> Outcome<R> {
    // SAFETY: forwarded (the caller's promise).
    match unsafe { attempt_inner(state, args, common) } {
        Some(Ok(Some(answer))) => Outcome::Done(answer),
        Some(Ok(None)) | None => Outcome::Full,
        Some(Err(panic)) => {
            let mut panic = Some(panic);
            let _ = PANIC.try_with(|slot| {
                // The first one stays (a script that caught its error and
                // went on may cause another).
                if let Some(first) = slot.take() {
                    slot.set(Some(first));
                } else {
                    slot.set(panic.take());
                }
            });
            // A later one is leaked, not dropped: a payload's drop may
            // panic, and nothing may unwind out of here into Luau.
            if let Some(later) = panic {
                std::mem::forget(later);
            }
            Outcome::Panicked
        }
    }
}

/// [`attempt`]'s checks and the common case, its panic caught.
///
/// # Safety
/// As for `attempt`.
unsafe fn attempt_inner<R>(
    state: *mut ffi::lua_State,
    args: c_int,
    common: impl FnOnce(&Lent<'_, '_, '_>, &Shared, Target) -> Option<R>,
) -> Option<std::thread::Result<Option<R>>> {
    // `try_with`: no panic may leave this function, even at thread exit.
    let current = CURRENT.try_with(Cell::get).ok().flatten()?;
    // SAFETY: reading the running function's own arguments, as the caller
    // promises (`lua_gettop` is their count); none of these raises an error
    // (`lua_tonumberx` only on a number: it would convert a string).
    let target = unsafe {
        // This call's function: its world object (upvalue 2, a table, kept
        // alive by the closure, so no other table has its address) is the
        // call's. The full function reads `self` as nothing but a boolean,
        // so what the script passed there changes nothing either way.
        // (`lua_tolightuserdata` is null, no entity, for anything but a
        // light userdata.)
        if ffi::lua_gettop(state) != args
            || ffi::lua_topointer(state, ffi::lua_upvalueindex(2)) != current.object
            || ffi::lua_type(state, 3) != ffi::LUA_TNUMBER
        {
            return None;
        }
        let bits = ffi::lua_tolightuserdata(state, 2) as usize as u64;
        Target { entity: Entity::from_bits(bits)?, component: ffi::lua_tonumberx(state, 3, std::ptr::null_mut()) }
    };
    // SAFETY: `CURRENT` holds these pointers only while `entered` runs, on
    // this thread, with both borrowed for its length, so they point to live
    // values. `lent` is only borrowed through its `RefCell`, as every world
    // function does.
    let (lent, shared) = unsafe { (&*current.lent, &*current.shared) };
    Some(catch_unwind(AssertUnwindSafe(|| common(lent, shared, target))))
}

/// Fails the call for a panic [`attempt`] kept.
///
/// # Safety
/// `state` is the running C function's (which has a free stack slot); the
/// error leaves through the caller's frame, which must hold nothing to drop.
unsafe fn panicked(state: *mut ffi::lua_State) -> ! {
    const MESSAGE: &str = "a Rust panic in a world function (resumed when the call returns)";
    // SAFETY: a string pushed into a free slot, then raised as the error;
    // both may raise (out of memory), through frames holding nothing.
    unsafe {
        ffi::lua_pushlstring(state, MESSAGE.as_ptr().cast(), MESSAGE.len());
        ffi::lua_error(state)
    }
}

/// Hands the call to the full function (the closure's upvalue) with the same
/// arguments, returning what it returns; its errors propagate as Luau
/// errors through this frame, which holds nothing to drop.
///
/// # Safety
/// `state` is the running C function's, a closure made by [`wrap`].
unsafe fn full(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: a C function has `LUA_MINSTACK` free slots above its
    // arguments, one of which holds the upvalue pushed; `lua_call` takes it
    // and the arguments and leaves every result on the stack.
    unsafe {
        let n = ffi::lua_gettop(state);
        ffi::lua_pushvalue(state, ffi::lua_upvalueindex(1));
        ffi::lua_insert(state, 1);
        ffi::lua_call(state, n, ffi::LUA_MULTRET);
        ffi::lua_gettop(state)
    }
}

/// Pushes a value the common cases return: a number, a boolean, an entity
/// or `nil`.
///
/// # Safety
/// `state` is the running C function's, with a free stack slot.
unsafe fn push(state: *mut ffi::lua_State, value: &Value) {
    // SAFETY: pushing a plain value into a free slot the caller promises;
    // none of these allocates or raises an error.
    unsafe {
        match value {
            Value::Number(n) => ffi::lua_pushnumber(state, *n),
            Value::Boolean(b) => ffi::lua_pushboolean(state, c_int::from(*b)),
            Value::LightUserData(data) => ffi::lua_pushlightuserdata(state, data.0),
            _ => ffi::lua_pushnil(state),
        }
    }
}

/// `world:set(e, C, v)`.
unsafe extern "C-unwind" fn set(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: Luau calls this with its own state, as a closure from `wrap`;
    // the value is read only when there are four arguments. Nothing here
    // has a destructor when `panicked` or `full` raises an error.
    unsafe {
        let outcome = attempt(state, 4, |lent, shared, target| {
            let value = scalar(state, 4)?;
            quick_set(lent, shared, target.entity, target.component, &value)
        });
        match outcome {
            Outcome::Done(()) => 0,
            Outcome::Full => full(state),
            Outcome::Panicked => panicked(state),
        }
    }
}

/// `world:get(e, C)`.
unsafe extern "C-unwind" fn get(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: as for `set`; a C function has `LUA_MINSTACK` free slots for
    // the one value pushed.
    unsafe {
        match attempt(state, 3, |lent, shared, t| quick_get(lent, shared, t.entity, t.component)) {
            Outcome::Done(value) => {
                push(state, &value);
                1
            }
            Outcome::Full => full(state),
            Outcome::Panicked => panicked(state),
        }
    }
}

/// `world:has(e, C)`.
unsafe extern "C-unwind" fn has(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: as for `get`.
    unsafe {
        match attempt(state, 3, |lent, shared, t| quick_has(lent, shared, t.entity, t.component)) {
            Outcome::Done(found) => {
                ffi::lua_pushboolean(state, c_int::from(found));
                1
            }
            Outcome::Full => full(state),
            Outcome::Panicked => panicked(state),
        }
    }
}

/// A Luau array of `values` filled in one native step, when every value is
/// plain (`nil`, a boolean, a number or an entity), as a `for` loop's
/// columns are: `None` otherwise, for [`pack::sequence`](crate::pack::sequence)
/// to make.
pub(crate) fn plain_array(lua: &Lua, values: &[Value]) -> Option<mlua::Result<Table>> {
    let plain = |v: &Value| matches!(v, Value::Nil | Value::Boolean(_) | Value::Number(_) | Value::LightUserData(_));
    // SAFETY: `push` pushes exactly one value, of the plain kinds checked,
    // into the free slot `array` gives it.
    values.iter().all(plain).then(|| unsafe { array(lua, values, |state, value| push(state, value)) })
}

/// A Luau array of `items`, each pushed by `push` and stored in one native
/// step.
///
/// # Safety
/// `push` pushes exactly one value and raises no error (nothing it pushes
/// allocates).
#[inline]
unsafe fn array<T>(lua: &Lua, items: &[T], push: unsafe fn(*mut ffi::lua_State, &T)) -> mlua::Result<Table> {
    let n = c_int::try_from(items.len()).map_err(|_| mlua::Error::runtime("too many values for one Luau array"))?;
    // SAFETY: `exec_raw` runs the closure protected, in a C function with
    // `LUA_MINSTACK` free slots: the table made takes one, each value pushed
    // (one, by the caller's promise) the second until `lua_rawseti` pops it
    // into the table's array part (made for `n` elements, indices 1..=n fit
    // a `c_int`). Making the table may raise an error (out of memory, too
    // many elements), which the protected call catches; this closure holds
    // nothing to drop then.
    unsafe {
        lua.exec_raw::<Table>((), |state| {
            ffi::lua_createtable(state, n, 0);
            for (i, item) in (1..).zip(items) {
                push(state, item);
                ffi::lua_rawseti(state, -2, i);
            }
        })
    }
}

/// A `for` loop's column as [`row_iterator`] takes it.
pub(crate) enum LoopColumn {
    /// Numbers, one a row.
    Numbers(Vec<f64>),
    /// Any values, one a row, in a Luau array.
    Array(Table),
}

/// Words before a [`row_iterator`]'s column descriptors: the next row, the
/// row count, the column count.
const HEADER: usize = 3;

/// The iterator of a `for` loop over `entities` and their `columns` (each as
/// long as `entities`), copied out when the loop starts: each step returns
/// the next row's entity and values, `nil` past the last.
///
/// The rows live in one Luau `buffer` of 64-bit words, the closure's first
/// upvalue: the header ([`HEADER`]), one descriptor a column (the word where
/// its numbers start, or 0 for a column in an array), the entities' bits,
/// then the numbers. The arrays are in a table, its second upvalue. Each step
/// is one native call: a Luau function stepping through Luau arrays pays a
/// call frame and its own instructions, several times what pushing a row
/// from native code costs.
pub(crate) fn row_iterator(lua: &Lua, entities: &[Entity], columns: &[LoopColumn]) -> mlua::Result<Function> {
    let n = entities.len();
    let numbers = columns.iter().filter(|c| matches!(c, LoopColumn::Numbers(_))).count();
    let words = n
        .checked_mul(1 + numbers)
        .and_then(|w| w.checked_add(HEADER + columns.len()))
        // A Luau buffer holds at most 1 GiB.
        .filter(|w| c_int::try_from(n).is_ok() && w.checked_mul(8).is_some_and(|bytes| bytes <= 1 << 30))
        .ok_or_else(|| mlua::Error::runtime("too many rows for one `for` loop"))?;
    // The header and the descriptors; the entities and numbers follow.
    let mut head: Vec<u64> = Vec::with_capacity(HEADER + columns.len());
    head.extend([0, n as u64, columns.len() as u64]);
    let mut at = HEADER + columns.len() + n;
    let mut numbers: Vec<&[f64]> = Vec::with_capacity(columns.len());
    for column in columns {
        match column {
            LoopColumn::Numbers(values) => {
                // Exactly `n` a column: the descriptors count `n` words.
                if values.len() != n {
                    return Err(mlua::Error::runtime("a `for` loop's column is not as long as its rows"));
                }
                head.push(at as u64);
                numbers.push(values);
                at += n;
            }
            LoopColumn::Array(_) => head.push(0),
        }
    }
    let arrays = lua.create_table_with_capacity(columns.len(), 0)?;
    for (j, column) in (1..).zip(columns) {
        if let LoopColumn::Array(array) = column {
            arrays.raw_set(j, array)?;
        }
    }
    let size = words * 8;
    // SAFETY: `exec_raw` runs the closure protected, in a C function with
    // `LUA_MINSTACK` free slots, `arrays` pushed as its argument: the buffer
    // made (which may raise an error, out of memory, caught by the protected
    // call; nothing here to drop then) is `size` bytes, `words` words, and
    // exactly that many are written: the header and descriptors, `n`
    // entities, `n` numbers a numeric column (checked above), each word in
    // bounds and unaligned. Moved below `arrays`, the two become the
    // closure's upvalues 1 and 2, and the closure the one value returned.
    unsafe {
        lua.exec_raw::<Function>(arrays, |state| {
            let mut out = ffi::lua_newbuffer(state, size).cast::<u64>();
            for &word in &head {
                out.write_unaligned(word);
                out = out.add(1);
            }
            for entity in entities {
                out.write_unaligned(entity.to_bits());
                out = out.add(1);
            }
            for values in &numbers {
                std::ptr::copy_nonoverlapping(values.as_ptr().cast::<u8>(), out.cast::<u8>(), values.len() * 8);
                out = out.add(values.len());
            }
            ffi::lua_insert(state, -2);
            ffi::lua_pushcclosurek(state, step, c"rows".as_ptr(), 2, None);
        })
    }
}

/// One step of a [`row_iterator`]: the next row, or `nil`.
unsafe extern "C-unwind" fn step(state: *mut ffi::lua_State) -> c_int {
    let mut len = 0usize;
    // SAFETY: Luau calls this with its own state, as a closure from
    // `row_iterator` (whatever arguments it is given, it reads none):
    // `lua_tobuffer` answers null for anything but a buffer, and the bytes
    // it points to are the buffer's `len`, which no word is read or
    // written past (`word`). The closure keeps the buffer alive, and
    // nothing else can reach it, so no other code uses the bytes meanwhile.
    let data = unsafe { ffi::lua_tobuffer(state, ffi::lua_upvalueindex(1), &raw mut len) }.cast::<u8>();
    let word = |index: usize| -> Option<*mut u64> {
        let offset = index.checked_mul(8)?;
        (!data.is_null() && offset.checked_add(8)? <= len)
            // SAFETY: in bounds of the buffer's bytes, checked just above.
            .then(|| unsafe { data.add(offset) }.cast::<u64>())
    };
    // SAFETY: every pointer `word` gives is in the buffer, read and written
    // unaligned; pushes go into the free slots a C function has
    // (`LUA_MINSTACK`), more made first past them (raising an error through
    // this frame, which holds nothing to drop, when the stack cannot grow).
    // `lua_rawgeti` reads a table with no metamethod, raising nothing: it is
    // called only on values just checked to be tables.
    unsafe {
        let read = |index: usize| word(index).map(|w| w.read_unaligned());
        let (Some(cursor), Some(n), Some(k)) = (word(0), read(1), read(2)) else {
            ffi::lua_pushnil(state);
            return 1;
        };
        let row = cursor.read_unaligned();
        let (true, Ok(row), Ok(k)) = (row < n, usize::try_from(row), usize::try_from(k)) else {
            ffi::lua_pushnil(state);
            return 1;
        };
        cursor.write_unaligned(row as u64 + 1);
        let Some(bits) = HEADER.checked_add(k).and_then(|at| at.checked_add(row)).and_then(read) else {
            ffi::lua_pushnil(state);
            return 1;
        };
        // The row, and at most one array on top of it while a value is read.
        let pushed = c_int::try_from(k + 1).unwrap_or(c_int::MAX - 1);
        if pushed + 1 > ffi::LUA_MINSTACK && ffi::lua_checkstack(state, pushed + 1) == 0 {
            const MESSAGE: &str =
                "a `for` loop's row does not fit on the Luau stack (too many components, or out of memory)";
            ffi::lua_pushlstring(state, MESSAGE.as_ptr().cast(), MESSAGE.len());
            ffi::lua_error(state);
        }
        ffi::lua_pushlightuserdata(state, bits as usize as *mut c_void);
        for j in 0..k {
            match read(HEADER + j) {
                Some(0) => {
                    let arrays = ffi::lua_upvalueindex(2);
                    if ffi::lua_type(state, arrays) == ffi::LUA_TTABLE {
                        ffi::lua_rawgeti(state, arrays, j as i64 + 1);
                        if ffi::lua_type(state, -1) == ffi::LUA_TTABLE {
                            ffi::lua_rawgeti(state, -1, row as i64 + 1);
                            ffi::lua_remove(state, -2);
                        } else {
                            ffi::lua_pop(state, 1);
                            ffi::lua_pushnil(state);
                        }
                    } else {
                        ffi::lua_pushnil(state);
                    }
                }
                Some(start) => match usize::try_from(start).ok().and_then(|s| s.checked_add(row)).and_then(read) {
                    Some(value) => ffi::lua_pushnumber(state, f64::from_bits(value)),
                    None => ffi::lua_pushnil(state),
                },
                None => ffi::lua_pushnil(state),
            }
        }
        pushed
    }
}

thread_local! {
    /// The interrupts left to the call under way on this thread, if any
    /// (see [`Budget`]).
    static LEFT: Cell<Option<u64>> = const { Cell::new(None) };
}

/// A call from Rust under way, with its instruction budget, from [`budget`]
/// until dropped: the interrupt counts against it on this thread.
pub(crate) struct Budget {
    previous: Option<u64>,
}

impl Drop for Budget {
    fn drop(&mut self) {
        let _ = LEFT.try_with(|left| left.set(self.previous));
    }
}

/// Starts counting `instructions` interrupts for the call about to run on
/// this thread (an enclosing call's count, another host's, resumes when the
/// guard is dropped).
pub(crate) fn budget(instructions: u64) -> Budget {
    Budget { previous: LEFT.with(|left| left.replace(Some(instructions))) }
}

/// The message of a call stopped by its budget.
const STOPPED: &str = "stopped: the call exceeded its instruction budget";

/// Makes [`interrupt`] the VM's interrupt, replacing any other.
pub(crate) fn install_interrupt(lua: &Lua) -> mlua::Result<()> {
    // SAFETY: `exec_raw` hands a valid state of the VM; the callbacks are the
    // VM's (one set for all its threads), and writing the interrupt field is
    // how Luau is told of one.
    unsafe {
        lua.exec_raw::<()>((), |state| {
            (*ffi::lua_callbacks(state)).interrupt = Some(interrupt);
        })
    }
}

/// Luau's interrupt: one step of the call's budget; past its end, an error
/// (a script that catches it is stopped again at its next loop step or
/// call). Outside a call from Rust (a game's own use of the VM), nothing.
unsafe extern "C-unwind" fn interrupt(state: *mut ffi::lua_State, gc: c_int) {
    // A collection step, not a safepoint of the script's: no error may be
    // raised there.
    if gc >= 0 {
        return;
    }
    let stopped = LEFT
        .try_with(|left| match left.get() {
            Some(0) => true,
            Some(n) => {
                left.set(Some(n - 1));
                false
            }
            None => false,
        })
        .unwrap_or(false);
    if stopped {
        // SAFETY: Luau lets the interrupt raise an error at a safepoint; a
        // slot for the message is made first (an interrupt may run with none
        // free). This frame holds nothing to drop when the error leaves it.
        unsafe {
            ffi::lua_rawcheckstack(state, 1);
            ffi::lua_pushlstring(state, STOPPED.as_ptr().cast(), STOPPED.len());
            ffi::lua_error(state);
        }
    }
}
