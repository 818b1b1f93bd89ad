//! Malformed `#[component(...)]` arguments: each is reported where it is wrong.
use ecs_core::prelude::*;

#[derive(Component)]
#[component(storage)]
struct MissingValue(u8);

#[derive(Component)]
#[component(changes = 1)]
struct NotABool(u8);

#[derive(Component)]
#[component(storage = sparse)]
struct NotAString(u8);

#[derive(Component)]
#[component(pod = true)]
struct FlagWithValue(u8);

#[derive(Component)]
#[component = "sparse"]
struct NoParentheses(u8);

#[derive(Component)]
#[component(on_add = 3)]
struct HookNotAPath(u8);

#[derive(Component)]
#[component(crate = "not a path")]
struct CrateNotAPath(u8);

fn main() {}
