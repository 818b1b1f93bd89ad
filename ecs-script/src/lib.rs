//! Luau scripting on an [`ecs_core`] world: scripts see the same entities and
//! the same columns as Rust systems, through jecs's functions.
//!
//! A [`ScriptHost`] is one sandboxed Luau VM. A script is a Luau chunk that
//! returns a table of functions; [`ScriptHost::call`] calls one with the
//! `world` object (and any further arguments). Components a script defines
//! (`world:component("Health", { hp = "i32" })`) are components of the world
//! defined at run time, in the same columns as typed ones; Rust components
//! that describe themselves (`#[component(describe)]`) are visible by name
//! (`world:component("Health")`).
//!
//! | jecs | here |
//! |---|---|
//! | `world:component()` | `world:component(name, { field = "kind" })` (kinds: `bool`, `i8`…`u64`, `f32`, `f64`, `entity`, `string`, `f32[3]`); `world:component(name, "kind")`, a newtype whose values are bare numbers (as jecs's); without a schema, the component of that name |
//! | `world:entity()` | `world:entity()`; `world:spawn({ [A] = a, [Tag] = true })` spawns with initial values, placed at once |
//! | `world:set(e, C, v)` | `world:set(e, C, { field = value })`: in place when `e` has `C` (stamped changed), else inserted |
//! | `world:get(e, A, B, …)` | the same (up to four components); copies of the values, `nil` where absent |
//! | `world:has(e, A, …)` | the same (up to four) |
//! | `world:add(e, Tag)` | the same (any component: its default value, where absent) |
//! | `world:remove(e, C)` | the same |
//! | `world:delete(e)` | the same, or `world:despawn(e)` |
//! | `world:contains(e)` | the same |
//! | `world:query(A, B):with(C):without(D)` | the same; `for e, a, b in query do` |
//! | `query:archetypes()` | `query:batch(function(entities, a, b) … end)`: field arrays per archetype, written back; `query:buffers(…)`: Luau buffers, for the `kernels` library's bulk arithmetic (`kernels.axpy_f64(p, v, dt)`) |
//! | hooks (`jecs.OnAdd`) | `world:observe(world.OnAdd, C, function(world, e, c) … end)`, also `OnInsert`, `OnRemove` |
//! | (no events) | `world:event(name, schema)`, `world:trigger(E, value [, target])`, `world:observe(E, function(world, value, target) … end)`; Rust sees them as [`ScriptEvent`] |
//!
//! Entities are light userdata holding the entity's bits (compared by value,
//! usable as table keys). A function given a stale entity, an unknown
//! component, a field of the wrong kind or a field a component lacks raises a
//! Luau error naming it, and changes nothing.

mod api;
mod codec;
mod direct;
mod event;
mod for_loop;
mod host;
mod kernels;
mod lane;
mod pack;
mod query;
mod system;

pub use event::ScriptEvent;
pub use host::{Limits, ScriptError, ScriptHost};
pub use mlua;
pub use system::{ScriptRun, ScriptSystem, script_system, script_systems};

/// An entity as scripts hold it (light userdata holding its bits), to pass
/// to a script function: `host.call_with(&mut world, "combat", "hit", entity(goblin))`.
pub fn entity(entity: ecs_core::entity::Entity) -> mlua::LightUserData {
    codec::entity_data(entity)
}

/// The book's chapter on scripting, its examples compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/scripting.md")]
struct ScriptingBook;
