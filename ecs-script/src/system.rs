//! [`ScriptSystem`]: a script's function as a system in a `Schedule`.

use std::sync::{Arc, Mutex, PoisonError};

use ecs_core::command::Commands;
use ecs_core::component::ComponentId;
use ecs_core::prelude::*;
use ecs_core::system::{DeclaredSystem, DeclaredWorld};

use crate::api::Backend;
use crate::host::{ScriptError, ScriptHost};

/// The function a script system runs.
pub type ScriptRun = Box<dyn FnMut(&mut DeclaredWorld<'_>, Commands<'_>) + Send + Sync>;

/// A script's function as a system: it declares the components it reads and
/// writes (by name) when it is made, the schedule checks them against every
/// other system's access, and it runs beside Rust systems that touch other
/// components.
///
/// In the system, `world:get` reads declared components, `world:set` on an
/// entity that has the component writes it in place (declared written);
/// structural changes (`entity`, `set` of a component the entity lacks,
/// `add`, `remove`, `despawn`) are deferred through the system's `Commands`,
/// applied at the schedule's next sync point, as a Rust system's are. Queries
/// may use declared components only. Components are defined in a call with
/// the whole world ([`ScriptHost::call`]), not in a system.
///
/// A Luau error (or a stop for the instruction budget or memory) ends the
/// run: what the script did before it stands (writes made, changes deferred),
/// nothing after; the error, naming the script, function, line and system,
/// waits in [`ScriptHost::take_errors`].
///
/// Script systems share their host: they run one at a time, beside any Rust
/// systems. Made by [`script_system`].
pub type ScriptSystem = DeclaredSystem<fn(Commands<'static>), ScriptRun>;

/// The system named `name` running `function` of `script`, reading the
/// components named in `reads` and writing those in `writes` (see
/// [`ScriptSystem`]).
///
/// # Errors
/// A component name `world` does not know, naming it.
///
/// # Example
/// ```
/// use std::sync::{Arc, Mutex};
/// use ecs_core::prelude::*;
/// use ecs_core::system::Schedule;
/// use ecs_script::{ScriptHost, script_system};
///
/// #[derive(Component)]
/// #[component(describe)]
/// struct Health { hp: i32 }
///
/// let mut world = World::new();
/// let e = world.spawn(Health { hp: 1 });
/// let mut host = ScriptHost::new()?;
/// host.load("rules", r#"return { regen = function(world)
///     local Health = world:component("Health")
///     for e, h in world:query(Health) do world:set(e, Health, { hp = h.hp + 1 }) end
/// end }"#)?;
/// let host = Arc::new(Mutex::new(host));
/// let mut schedule = Schedule::new();
/// schedule.add_systems(script_system(&host, &world, "regen", "rules", "regen", &[], &["Health"])?);
/// schedule.run(&mut world);
/// assert_eq!(world.get::<Health>(e).map(|h| h.hp), Some(2));
/// # Ok::<(), ecs_script::ScriptError>(())
/// ```
pub fn script_system(
    host: &Arc<Mutex<ScriptHost>>,
    world: &World,
    name: &str,
    script: &str,
    function: &str,
    reads: &[&str],
    writes: &[&str],
) -> Result<ScriptSystem, ScriptError> {
    let resolve = |names: &[&str]| {
        names
            .iter()
            .map(|n| {
                world.component_id_by_name(n).ok_or_else(|| ScriptError {
                    script: script.into(),
                    function: function.into(),
                    system: Some(name.into()),
                    message: format!("unknown component `{n}`"),
                })
            })
            .collect::<Result<Vec<ComponentId>, _>>()
    };
    let (read_ids, write_ids) = (resolve(reads)?, resolve(writes)?);
    let (host, system, script, function) = (host.clone(), name.to_owned(), script.to_owned(), function.to_owned());
    let run: ScriptRun = Box::new(move |world, mut commands| {
        let mut host = host.lock().unwrap_or_else(PoisonError::into_inner);
        let backend = Backend::System { world, commands: &mut commands, reserved: Default::default() };
        if let Err(mut error) = host.run::<()>(backend, &script, &function, ()) {
            error.system = Some(system.clone());
            host.report(error);
        }
    });
    Ok(DeclaredSystem::new(name, world, &read_ids, &write_ids, run))
}

/// The systems script `script` declares, so that a mod adds systems without
/// a change on the Rust side: the `systems` table of its exports names
/// functions of the script and the components each reads and writes.
///
/// ```lua
/// return {
///     systems = { regen = { reads = { "Armor" }, writes = { "Health" } } },
///     regen = function(world) … end,
/// }
/// ```
///
/// Each becomes a [`ScriptSystem`] named `script.function` (as
/// [`script_system`] makes it), in name order; none when the script has no
/// `systems` table. A reload changes what the systems run (they call their
/// function by name), not their declarations: call this again to pick up
/// new ones.
///
/// # Errors
/// No script of that name; a `systems` entry that is not a table of `reads`
/// and `writes` lists of names (or has another key); a function the script
/// lacks; a component name `world` does not know. Each names it.
///
/// # Example
/// ```
/// use std::sync::{Arc, Mutex};
/// use ecs_core::prelude::*;
/// use ecs_core::system::Schedule;
/// use ecs_script::{ScriptHost, script_systems};
///
/// #[derive(Component)]
/// #[component(describe)]
/// struct Health { hp: i32 }
///
/// let mut world = World::new();
/// let e = world.spawn(Health { hp: 1 });
/// let mut host = ScriptHost::new()?;
/// host.load("mod", r#"return {
///     systems = { regen = { writes = { "Health" } } },
///     regen = function(world)
///         local Health = world:component("Health")
///         for e, h in world:query(Health) do world:set(e, Health, { hp = h.hp + 1 }) end
///     end,
/// }"#)?;
/// let host = Arc::new(Mutex::new(host));
/// let mut schedule = Schedule::new();
/// for system in script_systems(&host, &world, "mod")? {
///     schedule.add_systems(system);
/// }
/// schedule.run(&mut world);
/// assert_eq!(world.get::<Health>(e).map(|h| h.hp), Some(2));
/// # Ok::<(), ecs_script::ScriptError>(())
/// ```
pub fn script_systems(
    host: &Arc<Mutex<ScriptHost>>,
    world: &World,
    script: &str,
) -> Result<Vec<ScriptSystem>, ScriptError> {
    let declared = host.lock().unwrap_or_else(PoisonError::into_inner).declared_systems(script)?;
    declared
        .iter()
        .map(|d| {
            let reads: Vec<&str> = d.reads.iter().map(String::as_str).collect();
            let writes: Vec<&str> = d.writes.iter().map(String::as_str).collect();
            let name = format!("{script}.{}", d.function);
            script_system(host, world, &name, script, &d.function, &reads, &writes)
        })
        .collect()
}
