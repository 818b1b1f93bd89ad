//! [`ScriptHost`]: one sandboxed Luau VM, its scripts, and their limits.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ecs_core::component::ComponentId;
use ecs_core::prelude::*;
use mlua::{Function, Lua, Table, Value};

use crate::api::Backend;
use crate::codec::Codec;

/// How much a script may take: memory for the whole VM (and for what one
/// call adds to the world), and work per call.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Bytes the VM may hold, scripts' values and tables included; also
    /// the most one call may add to the world (entities, values inserted,
    /// spawned or triggered, strings written, a system's deferred changes,
    /// observers, definitions), so that one call cannot grow the game's
    /// memory without end either.
    pub memory: usize,
    /// Interrupts (Luau checks at every loop iteration and call) one call
    /// from Rust may take before it is stopped. Counted per call on the
    /// thread that makes it; Luau the game runs itself through
    /// [`ScriptHost::lua`], outside any call, is not counted.
    pub instructions: u64,
}

impl Default for Limits {
    /// 64 MiB and ten million interrupt checks per call.
    fn default() -> Self {
        Self { memory: 64 << 20, instructions: 10_000_000 }
    }
}

/// A script failed: which script and function, and Luau's message (with the
/// line), or why it was stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptError {
    /// The script's name (as loaded).
    pub script: String,
    /// The function called, or `"load"` while the script itself ran.
    pub function: String,
    /// The system that called it, for a [`ScriptSystem`](crate::ScriptSystem).
    pub system: Option<String>,
    /// What went wrong, with the script's line where Luau knows it.
    pub message: String,
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "script `{}`, function `{}`", self.script, self.function)?;
        if let Some(system) = &self.system {
            write!(f, ", system `{system}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ScriptError {}

/// An event waiting for the scripts' observers: the event's name (`OnAdd`,
/// `OnInsert`, `OnRemove`, or [`EVENT`] for a [`ScriptEvent`](crate::ScriptEvent)),
/// the component (or the event's declared id), the entity (the target, if
/// any), and a script event's payload.
pub(crate) struct Fired {
    /// The world it happened in.
    pub(crate) world: ecs_core::world::WorldId,
    pub(crate) event: &'static str,
    pub(crate) id: ComponentId,
    pub(crate) entity: Option<Entity>,
    pub(crate) value: Option<ecs_core::world::DynamicValue>,
}

/// The name [`Fired`] and the observer list give script events.
pub(crate) const EVENT: &str = "event";

/// Events waiting for the scripts' observers, and whether there are any:
/// most world functions fire nothing, and ask without a lock.
#[derive(Default)]
pub(crate) struct FiredQueue {
    list: Mutex<Vec<Fired>>,
    any: std::sync::atomic::AtomicBool,
}

impl FiredQueue {
    pub(crate) fn push(&self, fired: Fired) {
        self.list.lock().expect("not poisoned").push(fired);
        self.any.store(true, Ordering::Release);
    }

    /// Every waiting event, oldest first (none: an empty list, no lock taken).
    pub(crate) fn take(&self) -> Vec<Fired> {
        if !self.any.load(Ordering::Acquire) {
            return Vec::new();
        }
        let mut list = self.list.lock().expect("not poisoned");
        self.any.store(false, Ordering::Release);
        std::mem::take(&mut *list)
    }

    /// The waiting events of `world`, oldest first; another world's stay
    /// waiting for a call with it.
    pub(crate) fn take_of(&self, world: ecs_core::world::WorldId) -> Vec<Fired> {
        let (here, elsewhere): (Vec<Fired>, Vec<Fired>) = self.take().into_iter().partition(|f| f.world == world);
        elsewhere.into_iter().for_each(|f| self.push(f));
        here
    }

    pub(crate) fn is_empty(&self) -> bool {
        !self.any.load(Ordering::Acquire)
    }
}

/// A system a script declares: its function, and the components it reads
/// and writes, by name.
pub(crate) struct DeclaredAccess {
    pub(crate) function: String,
    pub(crate) reads: Vec<String>,
    pub(crate) writes: Vec<String>,
}

/// A script's observer (`world:observe`): what it watches, in which world,
/// and the function, filed under the script whose chunk defined it.
pub(crate) struct ScriptObserver {
    /// `OnAdd`, `OnInsert`, `OnRemove`, or [`EVENT`].
    pub(crate) event: &'static str,
    /// The component, or the script event's declared id.
    pub(crate) id: ComponentId,
    pub(crate) world: ecs_core::world::WorldId,
    /// The script the function comes from: reloading it drops the observer
    /// (the new version adds its own when its setup runs again).
    pub(crate) script: String,
    pub(crate) f: Function,
}

/// What the world functions share across calls: each component's codec, and
/// the components scripts have named.
pub(crate) struct Shared {
    /// The names scripts were loaded under.
    loaded: Mutex<std::collections::HashSet<String>>,
    /// Script observers, in the order they were added.
    pub(crate) observers: Mutex<Vec<ScriptObserver>>,
    /// The Rust observers that queue events for them, one per event,
    /// component and world: the event, the component, the world, the
    /// observer's entity (made again if a script despawned it).
    pub(crate) bridges: Mutex<Vec<(&'static str, ComponentId, ecs_core::world::WorldId, Entity)>>,
    /// Events waiting to be handed to the scripts' observers (lifecycle
    /// events of observed components, script events).
    pub(crate) fired: Arc<FiredQueue>,
    /// Whether events are being handed to the scripts' observers (see
    /// `api::dispatch`).
    pub(crate) dispatching: std::sync::atomic::AtomicBool,
    /// The world object of the call under way, for observers.
    pub(crate) current: Mutex<Option<Table>>,
    /// Each component's codec, by component index.
    codecs: Mutex<Vec<Option<Arc<Codec>>>>,
    /// Component ids by index, as scripts hold them (numbers).
    ids: Mutex<Vec<Option<ComponentId>>>,
    /// Fills arrays from Rust (see `pack::PACK`).
    pub(crate) pack: Function,
    /// [`Limits::instructions`].
    instructions: u64,
    /// Bytes the call under way has added to the world (see [`charge`](Self::charge)).
    added: AtomicU64,
    /// [`Limits::memory`].
    memory: u64,
}

impl Shared {
    /// Counts `bytes` the call under way is about to add to the world
    /// (values inserted or spawned, strings written, events queued) against
    /// the memory limit, which bounds what one call puts in the world as it
    /// bounds the VM's own memory (per call: the world keeps what the game
    /// needs). Over it, an error, and the change is not made.
    pub(crate) fn charge(&self, bytes: usize) -> mlua::Result<()> {
        let added = self.added.load(Ordering::Relaxed).saturating_add(bytes as u64);
        if added > self.memory {
            return Err(mlua::Error::runtime(format!(
                "stopped: the call would add more than its memory limit ({} bytes) to the world",
                self.memory
            )));
        }
        self.added.store(added, Ordering::Relaxed);
        Ok(())
    }

    /// Whether a script was loaded under `name`.
    pub(crate) fn is_loaded(&self, name: &str) -> bool {
        self.loaded.lock().expect("not poisoned").contains(name)
    }

    /// Starts a call from Rust: what it adds to the world counts from zero,
    /// and its interrupts from its budget until the guard is dropped.
    #[must_use = "the budget holds while the guard lives"]
    fn start_call(&self) -> crate::direct::Budget {
        self.added.store(0, Ordering::Relaxed);
        crate::direct::budget(self.instructions)
    }

    /// The component a script named by its number.
    pub(crate) fn component(&self, value: &Value) -> mlua::Result<ComponentId> {
        let index = match value {
            Value::Integer(i) => *i as f64,
            Value::Number(n) => *n,
            other => return Err(mlua::Error::runtime(format!("expected a component, got {}", other.type_name()))),
        };
        let known = (index.fract() == 0.0 && index >= 0.0)
            .then(|| {
                self.ids.lock().expect("not poisoned: nothing panics while it is held").get(index as usize).copied()
            })
            .flatten()
            .flatten();
        known.ok_or_else(|| mlua::Error::runtime(format!("unknown component {index}")))
    }

    /// A component's number for scripts, remembered.
    pub(crate) fn remember(&self, id: ComponentId) -> f64 {
        let mut ids = self.ids.lock().expect("not poisoned");
        if ids.len() <= id.index() {
            ids.resize(id.index() + 1, None);
        }
        ids[id.index()] = Some(id);
        id.index() as f64
    }

    /// The codec of component `id`, made by `make` the first time.
    pub(crate) fn codec(
        &self,
        id: ComponentId,
        make: impl FnOnce() -> Result<Codec, String>,
    ) -> mlua::Result<Arc<Codec>> {
        if let Some(Some(codec)) = self.codecs.lock().expect("not poisoned").get(id.index()) {
            return Ok(codec.clone());
        }
        let codec = Arc::new(make().map_err(mlua::Error::runtime)?);
        let mut codecs = self.codecs.lock().expect("not poisoned");
        if codecs.len() <= id.index() {
            codecs.resize(id.index() + 1, None);
        }
        codecs[id.index()] = Some(codec.clone());
        Ok(codec)
    }
}

/// A sandboxed Luau VM whose scripts read and write a [`World`] through
/// the `world` object each script function is called with.
///
/// Scripts have no file or OS access: Luau's standard library (no `io`;
/// `os` has only time functions), without `require`, `loadstring`,
/// `getfenv` and `setfenv`, in Luau's sandbox (the libraries read-only,
/// each script's globals its own, a reload starting from none). The VM's
/// memory is bounded, and each call from Rust stops after
/// [`Limits::instructions`] interrupt checks; both are errors
/// naming the script and function, and the world stays consistent: every
/// world function a script called before the error took effect whole, none
/// after it.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
/// use ecs_script::ScriptHost;
///
/// let mut host = ScriptHost::new()?;
/// host.load("rules", r#"
///     local rules = {}
///     function rules.setup(world)
///         local Health = world:component("Health", { hp = "i32" })
///         for i = 1, 3 do
///             world:set(world:entity(), Health, { hp = 10 * i })
///         end
///     end
///     function rules.total(world)
///         local Health = world:component("Health")
///         local sum = 0
///         for _, h in world:query(Health) do sum += h.hp end
///         return sum
///     end
///     return rules
/// "#)?;
/// let mut world = World::new();
/// host.call::<()>(&mut world, "rules", "setup")?;
/// assert_eq!(host.call::<i64>(&mut world, "rules", "total")?, 60);
/// # Ok::<(), ecs_script::ScriptError>(())
/// ```
pub struct ScriptHost {
    lua: Lua,
    shared: Arc<Shared>,
    scripts: HashMap<String, Table>,
    /// Errors of script systems, which have no caller to return them to.
    errors: Vec<ScriptError>,
}

impl ScriptHost {
    /// A VM with the default [`Limits`].
    ///
    /// # Errors
    /// When the VM cannot be made (out of memory).
    pub fn new() -> Result<Self, ScriptError> {
        Self::with_limits(Limits::default())
    }

    /// A VM with the given limits.
    ///
    /// # Errors
    /// As for [`new`](Self::new).
    pub fn with_limits(limits: Limits) -> Result<Self, ScriptError> {
        let fail = |e: mlua::Error| ScriptError {
            script: String::new(),
            function: "new".into(),
            system: None,
            message: e.to_string(),
        };
        let lua = Lua::new();
        let pack = lua.load(crate::pack::PACK).set_name("=ecs-script pack").eval().map_err(fail)?;
        let shared = Arc::new(Shared {
            pack,
            loaded: Mutex::default(),
            observers: Mutex::default(),
            bridges: Mutex::default(),
            fired: Arc::default(),
            dispatching: std::sync::atomic::AtomicBool::new(false),
            current: Mutex::default(),
            codecs: Mutex::default(),
            ids: Mutex::default(),
            instructions: limits.instructions,
            added: AtomicU64::new(0),
            memory: limits.memory as u64,
        });
        // No file access (`require` reads modules from disk), and no code
        // from strings or environments swapped behind the sandbox's back.
        let globals = lua.globals();
        for name in ["require", "loadstring", "getfenv", "setfenv", "dofile", "loadfile", "load"] {
            globals.raw_remove(name).map_err(fail)?;
        }
        globals.raw_set("kernels", crate::kernels::table(&lua).map_err(fail)?).map_err(fail)?;
        lua.sandbox(true).map_err(fail)?;
        lua.set_memory_limit(limits.memory).map_err(fail)?;
        crate::direct::install_interrupt(&lua).map_err(fail)?;
        Ok(Self { lua, shared, scripts: HashMap::new(), errors: Vec::new() })
    }

    /// Runs a script's source as `name`: it returns a table of functions
    /// (its systems and hooks), which replaces the script loaded under that
    /// name before, if any (a reload: the world's state stays in the world).
    ///
    /// # Errors
    /// A syntax or run-time error, naming the script and line; the script
    /// loaded before under `name` stays then.
    pub fn load(&mut self, name: &str, source: &str) -> Result<(), ScriptError> {
        let fail = |e: mlua::Error| ScriptError {
            script: name.into(),
            function: "load".into(),
            system: None,
            message: message(&e),
        };
        let _budget = self.shared.start_call();
        // Each script runs in a thread of its own in Luau's sandbox, whose
        // globals are a fresh table reading through to the read-only
        // libraries: a chunk loaded there keeps that table as its globals
        // (its functions too, whichever thread calls them), so one script's
        // globals never reach another, a reload starts from none, and the
        // libraries' built-ins stay fast (the table is a safe environment).
        let loader = self.lua.create_function(|lua, (source, chunk): (mlua::String, String)| {
            // Text only: bytes that look like compiled bytecode would go to
            // Luau's loader unchecked, which trusts bytecode to be its
            // compiler's (crafted bytecode could break the host).
            lua.load(&*source.as_bytes()).set_name(chunk).set_mode(mlua::ChunkMode::Text).eval::<Value>()
        });
        let thread = loader.and_then(|loader| self.lua.create_thread(loader)).map_err(fail)?;
        thread.sandbox().map_err(fail)?;
        let source = self.lua.create_string(source).map_err(fail)?;
        let exports: Value = thread.resume((source, format!("={name}"))).map_err(fail)?;
        let Value::Table(exports) = exports else {
            return Err(ScriptError {
                script: name.into(),
                function: "load".into(),
                system: None,
                message: format!("the script returned {}, not a table of functions", exports.type_name()),
            });
        };
        self.scripts.insert(name.to_owned(), exports);
        // The old version's observers go with it.
        self.shared.observers.lock().expect("not poisoned").retain(|o| o.script != name);
        self.shared.loaded.lock().expect("not poisoned").insert(name.to_owned());
        Ok(())
    }

    /// [`load`](Self::load) from a file, named by its path.
    ///
    /// # Errors
    /// As for `load`, and when the file cannot be read.
    pub fn load_file(&mut self, path: impl AsRef<std::path::Path>) -> Result<(), ScriptError> {
        let path = path.as_ref();
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("script").to_owned();
        let source = std::fs::read_to_string(path).map_err(|e| ScriptError {
            script: name.clone(),
            function: "load".into(),
            system: None,
            message: format!("cannot read {}: {e}", path.display()),
        })?;
        self.load(&name, &source)
    }

    /// Calls function `function` of script `script` with the world object,
    /// and converts what it returns.
    ///
    /// # Errors
    /// A Luau error (naming the script, function and line), a stop for the
    /// instruction budget or memory, a missing script or function.
    pub fn call<R: mlua::FromLuaMulti>(
        &mut self,
        world: &mut World,
        script: &str,
        function: &str,
    ) -> Result<R, ScriptError> {
        self.call_with(world, script, function, ())
    }

    /// [`call`](Self::call) with more arguments after the world object.
    ///
    /// # Errors
    /// As for `call`.
    pub fn call_with<R: mlua::FromLuaMulti>(
        &mut self,
        world: &mut World,
        script: &str,
        function: &str,
        args: impl mlua::IntoLuaMulti,
    ) -> Result<R, ScriptError> {
        self.run(Backend::World(world), script, function, args)
    }

    /// Calls `function` of `script` with the world a system sees: the whole
    /// world, or what a script system declared (see [`ScriptSystem`](crate::ScriptSystem)).
    pub(crate) fn run<R: mlua::FromLuaMulti>(
        &mut self,
        backend: Backend<'_, '_, '_>,
        script: &str,
        function: &str,
        args: impl mlua::IntoLuaMulti,
    ) -> Result<R, ScriptError> {
        let fail =
            |message: String| ScriptError { script: script.into(), function: function.into(), system: None, message };
        let exports = self.scripts.get(script).ok_or_else(|| fail("no script loaded under this name".into()))?;
        let f: Function = match exports.raw_get(function) {
            Ok(Value::Function(f)) => f,
            _ => return Err(fail("the script has no such function".into())),
        };
        let mut args = args.into_lua_multi(&self.lua).map_err(|e| fail(message(&e)))?;
        let _budget = self.shared.start_call();
        let mut backend = backend;
        if let Backend::World(world) = &mut backend {
            crate::api::repair_bridges(&self.shared, world).map_err(|e| fail(message(&e)))?;
        }
        let lent = RefCell::new(crate::api::Call::new(backend));
        let world = lent.borrow().world_id();
        let shared = &self.shared;
        let result = self.lua.scope(|scope| {
            let object = crate::api::world_object(&self.lua, scope, &lent, shared)?;
            *shared.current.lock().expect("not poisoned") = Some(object.clone());
            // The direct world functions reach this call's world until the
            // call ends (see `direct.rs`).
            crate::direct::entered(&object, &lent, shared, || {
                // Changes applied since the last call (a script system's
                // deferred ones) are observed first.
                crate::api::dispatch(&self.lua, shared, &lent)?;
                args.push_front(Value::Table(object.clone()));
                f.call::<R>(args)
            })
        });
        *shared.current.lock().expect("not poisoned") = None;
        if result.is_err() {
            // Events the failed call caused and did not hand out are after
            // its error: dropped, as its other changes after it are not made
            // (an observer that keeps causing its own event would otherwise
            // take every later call down with it).
            drop(shared.fired.take_of(world));
        }
        // A panic in Rust code a direct world function ran (it could not
        // unwind through Luau) goes on to the caller, as any other does.
        if let Some(panic) = crate::direct::take_panic() {
            std::panic::resume_unwind(panic);
        }
        result.map_err(|e| fail(message(&e)))
    }

    /// The systems script `script` declares in the `systems` table of its
    /// exports (see [`script_systems`](crate::script_systems)): each
    /// function's name and the components it reads and writes, by name, in
    /// name order; none without the table.
    pub(crate) fn declared_systems(&self, script: &str) -> Result<Vec<DeclaredAccess>, ScriptError> {
        let fail = |function: &str, message: String| ScriptError {
            script: script.into(),
            function: function.into(),
            system: None,
            message,
        };
        let exports =
            self.scripts.get(script).ok_or_else(|| fail("systems", "no script loaded under this name".into()))?;
        let systems = match exports.raw_get::<Value>("systems") {
            Ok(Value::Table(systems)) => systems,
            Ok(Value::Nil) => return Ok(Vec::new()),
            Ok(other) => {
                return Err(fail("systems", format!("`systems` is a {}, not a table of systems", other.type_name())));
            }
            Err(e) => return Err(fail("systems", message(&e))),
        };
        let names = |function: &str, list: Value, key: &str| -> Result<Vec<String>, ScriptError> {
            let wrong = || fail(function, format!("system `{function}`: `{key}` is a list of component names"));
            match list {
                Value::Nil => Ok(Vec::new()),
                Value::Table(list) => list
                    .sequence_values::<Value>()
                    .map(|name| match name {
                        Ok(Value::String(name)) => name.to_str().map(|n| n.to_owned()).map_err(|_| wrong()),
                        _ => Err(wrong()),
                    })
                    .collect(),
                _ => Err(wrong()),
            }
        };
        let mut declared = Vec::new();
        for pair in systems.pairs::<Value, Value>() {
            let (key, entry) = pair.map_err(|e| fail("systems", message(&e)))?;
            let Value::String(function) = key else {
                return Err(fail(
                    "systems",
                    format!("`systems` is keyed by function name, not by {}", key.type_name()),
                ));
            };
            let function = function.to_string_lossy();
            let Value::Table(entry) = entry else {
                return Err(fail(
                    &function,
                    format!("system `{function}`: expected {{ reads = {{…}}, writes = {{…}} }}"),
                ));
            };
            for pair in entry.pairs::<Value, Value>() {
                let (key, _) = pair.map_err(|e| fail(&function, message(&e)))?;
                if !matches!(&key, Value::String(k) if k == "reads" || k == "writes") {
                    let key = key.to_string().unwrap_or_else(|_| key.type_name().to_owned());
                    return Err(fail(&function, format!("system `{function}`: unknown key `{key}` (reads, writes)")));
                }
            }
            if !matches!(exports.raw_get::<Value>(function.as_str()), Ok(Value::Function(_))) {
                return Err(fail(&function, format!("system `{function}`: the script has no function `{function}`")));
            }
            let reads = names(&function, entry.raw_get("reads").unwrap_or(Value::Nil), "reads")?;
            let writes = names(&function, entry.raw_get("writes").unwrap_or(Value::Nil), "writes")?;
            declared.push(DeclaredAccess { function, reads, writes });
        }
        declared.sort_by(|a, b| a.function.cmp(&b.function));
        Ok(declared)
    }

    /// Errors of script systems since the last call, oldest first.
    pub fn take_errors(&mut self) -> Vec<ScriptError> {
        std::mem::take(&mut self.errors)
    }

    pub(crate) fn report(&mut self, error: ScriptError) {
        self.errors.push(error);
    }

    /// The Luau VM, to add functions of the game's own.
    pub fn lua(&self) -> &Lua {
        &self.lua
    }
}

/// Luau's message, without mlua's wrapping of callback errors.
fn message(error: &mlua::Error) -> String {
    match error {
        mlua::Error::CallbackError { traceback, cause } => {
            // The script's frame: the first below the native call (`[C]`),
            // `name:line: in function …`.
            let cause = message(cause);
            let frame = traceback.lines().skip(1).map(str::trim).find(|l| !l.starts_with("[C]"));
            match frame.and_then(|f| f.split(": in ").next()) {
                Some(at) => format!("{cause} (at {at})"),
                None => cause,
            }
        }
        mlua::Error::RuntimeError(m) | mlua::Error::SyntaxError { message: m, .. } => m.clone(),
        mlua::Error::MemoryError(m) => format!("stopped: out of script memory ({m})"),
        other => other.to_string(),
    }
}
