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
//! the call by [`enter`], and used only when the function was called on that
//! call's own world object (the table the script received): a function kept
//! past its call, or called on something else, goes to the full function,
//! which refuses it as it always did.
//!
//! The instruction budget's interrupt is a plain Luau callback too (see
//! [`install_interrupt`]): Luau runs it at every loop step and call of every
//! script, where mlua's would pay its callback machinery each time.
//!
//! This is the crate's only `unsafe`.

use std::cell::Cell;
use std::ffi::{CStr, c_void};
use std::marker::PhantomData;
use std::os::raw::c_int;
use std::panic::{AssertUnwindSafe, catch_unwind};

use ecs_core::entity::Entity;
use mlua::{Function, LightUserData, Lua, Table, Value, ffi};

use crate::api::{Lent, quick_get, quick_has, quick_set};
use crate::host::Shared;

/// The call under way on this thread.
#[derive(Clone, Copy)]
struct Current {
    /// Its world object, by address: the only table the direct functions
    /// accept as `self`.
    object: *const c_void,
    /// The world it lent (lifetimes erased; valid while the [`Entered`]
    /// that set it lives).
    lent: *const Lent<'static, 'static, 'static>,
    shared: *const Shared,
}

thread_local! {
    /// The call under way on this thread, if any (a Luau VM runs on one
    /// thread at a time, and a call runs to its end on the thread that made
    /// it; another host's call nested inside it restores it when it ends).
    static CURRENT: Cell<Option<Current>> = const { Cell::new(None) };
}

/// A call under way, from [`enter`] until dropped.
pub(crate) struct Entered<'l> {
    previous: Option<Current>,
    _borrows: PhantomData<&'l ()>,
}

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        let _ = CURRENT.try_with(|current| current.set(self.previous));
    }
}

/// Makes `object` (the call's world object), `lent` and `shared` the call
/// the direct functions reach on this thread, until the guard is dropped.
/// The guard borrows both, so it cannot outlive them.
pub(crate) fn enter<'l>(object: &'l Table, lent: &'l Lent<'_, '_, '_>, shared: &'l Shared) -> Entered<'l> {
    let current = Current {
        object: object.to_pointer(),
        lent: std::ptr::from_ref(lent).cast::<Lent<'static, 'static, 'static>>(),
        shared: std::ptr::from_ref(shared),
    };
    let previous = CURRENT.with(|slot| slot.replace(Some(current)));
    Entered { previous, _borrows: PhantomData }
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

/// The direct function for `which`, handing every case it does not do to
/// `full` (the mlua function doing the whole of it).
pub(crate) fn wrap(lua: &Lua, which: Direct, full: Function) -> mlua::Result<Function> {
    let (f, name): (ffi::lua_CFunction, &CStr) = match which {
        Direct::Set => (set, c"set"),
        Direct::Get => (get, c"get"),
        Direct::Has => (has, c"has"),
    };
    // SAFETY: `exec_raw` calls the closure protected, with `full` pushed as
    // its one argument: `lua_pushcclosurek` pops it as the closure's one
    // upvalue and pushes the closure, the one value returned. `name` is a
    // static C string.
    unsafe {
        lua.exec_raw::<Function>(full, |state| {
            ffi::lua_pushcclosurek(state, f, name.as_ptr(), 1, None);
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

/// Runs `common` on the call's world when the function was called on the
/// current call's world object with exactly `args` arguments (the object
/// counted; as many as the common case takes), an entity second and a
/// component third; `None` otherwise, or when `common` declines or panics
/// (the full function then does the call, and a panic there is reported as
/// mlua reports any).
///
/// # Safety
/// `state` is the running C function's.
unsafe fn attempt<R>(
    state: *mut ffi::lua_State,
    args: c_int,
    common: impl FnOnce(&Lent<'_, '_, '_>, &Shared, Target) -> Option<R>,
) -> Option<R> {
    // `try_with`: no panic may leave this function, even at thread exit.
    let current = CURRENT.try_with(Cell::get).ok().flatten()?;
    // SAFETY: reading the running function's own arguments, as the caller
    // promises (`lua_gettop` is their count); none of these raises an error
    // (`lua_tonumberx` only on a number: it would convert a string).
    let target = unsafe {
        // (`lua_topointer` of the object's address answers for its type: a
        // light userdata of the same address would only reach this same
        // call's world, which is live; `lua_tolightuserdata` is null, no
        // entity, for anything but a light userdata.)
        if ffi::lua_gettop(state) != args
            || ffi::lua_topointer(state, 1) != current.object
            || ffi::lua_type(state, 3) != ffi::LUA_TNUMBER
        {
            return None;
        }
        let bits = ffi::lua_tolightuserdata(state, 2) as usize as u64;
        Target { entity: Entity::from_bits(bits)?, component: ffi::lua_tonumberx(state, 3, std::ptr::null_mut()) }
    };
    // SAFETY: `CURRENT` holds these pointers only while the `Entered` that
    // set them lives, which borrows both, so they point to live values; the
    // world object passed is that call's (a table's address is unique while
    // it lives, and the call's object lives in the call). `lent` is only
    // borrowed through its `RefCell`, as every world function does.
    let (lent, shared) = unsafe { (&*current.lent, &*current.shared) };
    catch_unwind(AssertUnwindSafe(|| common(lent, shared, target))).ok().flatten()
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
    // the value is read only when there are four arguments.
    unsafe {
        let done = attempt(state, 4, |lent, shared, target| {
            let value = scalar(state, 4)?;
            quick_set(lent, shared, target.entity, target.component, &value)
        });
        if done.is_some() {
            return 0;
        }
        full(state)
    }
}

/// `world:get(e, C)`.
unsafe extern "C-unwind" fn get(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: as for `set`; a C function has `LUA_MINSTACK` free slots for
    // the one value pushed.
    unsafe {
        if let Some(value) = attempt(state, 3, |lent, shared, t| quick_get(lent, shared, t.entity, t.component)) {
            push(state, &value);
            return 1;
        }
        full(state)
    }
}

/// `world:has(e, C)`.
unsafe extern "C-unwind" fn has(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: as for `get`.
    unsafe {
        if let Some(found) = attempt(state, 3, |lent, shared, t| quick_has(lent, shared, t.entity, t.component)) {
            ffi::lua_pushboolean(state, c_int::from(found));
            return 1;
        }
        full(state)
    }
}

/// A Luau array of `values` filled in one native step, when every value is
/// plain (`nil`, a boolean, a number or an entity), as a `for` loop's
/// columns are: `None` otherwise, for [`pack::sequence`](crate::pack::sequence)
/// to make.
pub(crate) fn plain_array(lua: &Lua, values: &[Value]) -> Option<mlua::Result<Table>> {
    let plain = |v: &Value| matches!(v, Value::Nil | Value::Boolean(_) | Value::Number(_) | Value::LightUserData(_));
    if !values.iter().all(plain) {
        return None;
    }
    let n = c_int::try_from(values.len()).ok()?;
    // SAFETY: `exec_raw` runs the closure protected on a valid state with
    // room for three values: the table made takes one, each value pushed
    // the second until `lua_rawseti` pops it into the table's array part
    // (made for `n` elements, indices 1..=n fit a `c_int`). Making the table
    // may raise an out-of-memory error, which the protected call catches;
    // this closure holds nothing to drop then.
    Some(unsafe {
        lua.exec_raw::<Table>((), |state| {
            ffi::lua_createtable(state, n, 0);
            for (i, value) in (1..).zip(values) {
                push(state, value);
                ffi::lua_rawseti(state, -2, i);
            }
        })
    })
}

/// A Luau array of `entities` (light userdata, as scripts hold them),
/// filled in one native step.
pub(crate) fn entity_array(lua: &Lua, entities: &[Entity]) -> mlua::Result<Table> {
    let n = c_int::try_from(entities.len()).map_err(|_| mlua::Error::runtime("too many rows for one Luau array"))?;
    // SAFETY: as in `plain_array`: one table and one value at a time on a
    // protected call's stack, indices within the array part made for `n`.
    unsafe {
        lua.exec_raw::<Table>((), |state| {
            ffi::lua_createtable(state, n, 0);
            for (i, entity) in (1..).zip(entities) {
                ffi::lua_pushlightuserdata(state, crate::codec::entity_data(*entity).0);
                ffi::lua_rawseti(state, -2, i);
            }
        })
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
