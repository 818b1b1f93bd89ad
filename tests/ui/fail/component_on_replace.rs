use ecs_core::prelude::*;

fn gone(_: DeferredWorld, _: HookContext) {}

#[derive(Component)]
#[component(on_replace = gone)]
struct Shield(u32);

fn main() {}
