//! Items written by a `macro_rules!` macro reach the derives with their
//! fragments (`$vis:vis`, `$ty:ty`, `$lit:literal`, `$path:path`) wrapped in
//! invisible groups; the derives see through them.
use ecs_core::prelude::*;
use ecs_core::relationship::RelationshipTarget;

macro_rules! components {
    ($($vis:vis struct $name:ident($ty:ty) in $storage:literal;)*) => {$(
        #[derive(Component, Debug, PartialEq)]
        #[component(storage = $storage)]
        $vis struct $name($vis $ty);
    )*};
}

components! {
    pub struct Health(u32) in "table";
    struct Poisoned(Option<u8>) in "sparse";
}

macro_rules! relationship {
    ($name:ident -> $target:path, $targets:ident) => {
        #[derive(Component)]
        #[relationship(target = $target)]
        struct $name(Entity);

        #[derive(Component)]
        #[relationship_target(relationship = $name)]
        struct $targets(RelationshipSources);
    };
}

relationship!(Aiming -> Aimers, Aimers);

// Attributes passed as `$m:meta` still take effect: `Marker` is sparse,
// which `main` checks.
macro_rules! with_attributes {
    ($(#[$m:meta])* struct $name:ident;) => {
        #[derive(Component)]
        $(#[$m])*
        struct $name;
    };
}

with_attributes! {
    #[component(storage = "sparse", immutable)]
    struct Marker;
}

macro_rules! arguments {
    ($kv:meta, $name:ident) => {
        #[derive(Component)]
        #[component($kv)]
        struct $name(u8);
    };
}

arguments!(storage = "sparse", Flag);

macro_rules! bundle {
    ($name:ident { $($field:ident: $ty:ty),* }) => {
        #[derive(Bundle)]
        struct $name { $($field: $ty),* }
    };
}

bundle!(Unit { health: Health, poisoned: Poisoned });

fn main() {
    assert!(matches!(<Marker as Component>::STORAGE, ecs_core::StorageType::Sparse));
    assert!(matches!(<Flag as Component>::STORAGE, ecs_core::StorageType::Sparse));
    let mut world = World::new();
    let unit = world.spawn(Unit { health: Health(3), poisoned: Poisoned(Some(1)) });
    assert_eq!(world.get::<Health>(unit), Some(&Health(3)));
    assert_eq!(world.get::<Poisoned>(unit), Some(&Poisoned(Some(1))));
    let archer = world.spawn(Aiming(unit));
    assert_eq!(world.get::<Aimers>(unit).map(|a| a.sources().to_vec()), Some(vec![archer]));
}
