//! `crate = "…"` lets a crate that re-exports `ecs_core` use the derives.
mod reexport {
    pub use ::ecs_core as ecs;
}

#[derive(ecs_core::Component)]
#[component(crate = "reexport::ecs")]
struct Speed(f32);

#[derive(ecs_core::Component)]
#[component(crate = "reexport::ecs", storage = "sparse")]
struct Boost(f32);

#[derive(ecs_core::Bundle)]
#[bundle(crate = "reexport::ecs")]
struct Mover {
    speed: Speed,
}

fn main() {
    let mut world = ecs_core::World::new();
    let e = world.spawn(Mover { speed: Speed(1.0) });
    assert_eq!(world.get::<Speed>(e).map(|s| s.0), Some(1.0));
    world.insert(e, Boost(2.0)).unwrap();
    assert_eq!(world.remove::<Boost>(e).map(|b| b.0), Ok(2.0));
}
