//! A relationship target written by hand that lets code write it by id
//! (`Component::__MUTABLE`) would be changed while propagation reads it
//! outside any query's access: propagating along it does not compile.
use ecs_core::prelude::*;
use ecs_core::relationship::{RelationshipSourceCollection, RelationshipTarget};

#[derive(Component)]
#[relationship(target = Followers)]
struct Following(Entity);

struct Followers(Vec<Entity>);
impl Component for Followers {
    const __MUTABLE: bool = true;
}
ecs_core::component_bundle!(Followers);
impl RelationshipTarget for Followers {
    type Relationship = Following;
    const LINKED_SPAWN: bool = false;
    fn sources(&self) -> &[Entity] {
        &self.0
    }
    fn __sources(&self) -> &dyn RelationshipSourceCollection {
        &self.0
    }
    fn __sources_mut(&mut self) -> &mut dyn RelationshipSourceCollection {
        &mut self.0
    }
    fn __from_sources(sources: Vec<Entity>) -> Self {
        Self(sources)
    }
}

#[derive(Component)]
struct Depth(u32);

fn depth(mut q: Query<&mut Depth>) {
    q.propagate::<Following, u32>(|parent, depth| {
        depth.0 = parent.map_or(0, |d| d + 1);
        Some(depth.0)
    });
}

fn main() {
    let mut world = World::new();
    world.run_system_once(depth).unwrap();
}
