//! `iter_many_mut` lends each item until the next `fetch_next`: keeping one
//! across it would let two `&mut` to an entity listed twice coexist.
use ecs_core::prelude::*;

#[derive(Component)]
struct Hits(u32);

fn main() {
    let mut world = World::new();
    let e = world.spawn(Hits(0));
    world
        .run_system_once(move |mut q: Query<&mut Hits>| {
            let mut items = q.iter_many_mut([e, e]);
            let first = items.fetch_next().unwrap();
            let second = items.fetch_next().unwrap();
            first.0 += 1;
            second.0 += 1;
        })
        .unwrap();
}
