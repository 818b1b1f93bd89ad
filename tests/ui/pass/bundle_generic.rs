//! `#[derive(Bundle)]` on a struct generic over its fields' types: the derive
//! bounds each field that names a type parameter (`T: Bundle`), as std's
//! derives bound theirs, so it compiles with no bound written by hand and
//! spawns with any component or bundle as the argument.

use ecs_core::prelude::*;

#[derive(Component, Debug, PartialEq)]
struct Health(u32);

#[derive(Component, Debug, PartialEq)]
struct Name(&'static str);

#[derive(Component, Debug, PartialEq)]
struct Mana(u32);

#[derive(Bundle)]
struct Foo<T> {
    foo: T,
}

#[derive(Bundle)]
struct Tagged<T, U> {
    value: T,
    nested: Foo<U>,
    health: Health,
}

fn main() {
    let mut world = World::new();
    let a = world.spawn(Foo { foo: Health(3) });
    let b = world.spawn(Tagged { value: Name("b"), nested: Foo { foo: (Mana(1),) }, health: Health(2) });
    assert_eq!(world.get::<Health>(a), Some(&Health(3)));
    assert_eq!(world.get::<Name>(b), Some(&Name("b")));
    assert_eq!(world.get::<Mana>(b), Some(&Mana(1)));
    assert_eq!(world.get::<Health>(b), Some(&Health(2)));
}
