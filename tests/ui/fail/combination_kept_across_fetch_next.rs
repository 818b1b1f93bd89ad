//! `iter_combinations_mut` lends each combination until the next step: keeping
//! an item across `fetch_next` would let two `&mut` to one entity coexist.
use ecs_core::prelude::*;

#[derive(Component)]
struct Hits(u32);

fn main() {
    let mut world = World::new();
    world.spawn(Hits(0));
    world.spawn(Hits(0));
    world.spawn(Hits(0));
    let mut hits = world.query_state::<&mut Hits>();
    let mut pairs = hits.iter_combinations_mut::<2>(&mut world);
    let [first, _] = pairs.fetch_next().unwrap();
    let [second, _] = pairs.fetch_next().unwrap();
    first.0 += 1;
    second.0 += 1;
}
