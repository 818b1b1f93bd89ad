// A dynamic system's visit cannot start another visit of the same query: the
// two would hand out aliasing views of one column.
use ecs_core::prelude::*;
use ecs_core::system::DynamicSystem;

#[derive(Component)]
#[component(describe)]
struct Pos {
    x: f32,
}

fn main() {
    let mut world = World::new();
    let pos = world.register_component::<Pos>();
    let query = world.dynamic_query().write(pos).build(&world).unwrap();
    let _system = DynamicSystem::new("twice", query, move |q| {
        q.for_each_archetype(|a| {
            let _outer = a.column_mut::<Pos>(pos);
            q.for_each_archetype(|b| drop(b.column_mut::<Pos>(pos)));
        })
    });
}
