use ecs_core::prelude::*;

// `pod` promises plain old data; a `String` is not.
#[derive(Component, Clone)]
#[component(pod)]
struct Label(String);

fn main() {}
