//! The derive crate's own reader (`ecs-derive/src/read.rs`, which finds an
//! item's attributes, visibility, generics and fields without `syn`) and its
//! template engine (`tokens.rs`, which splices user tokens into generated code):
//! one item per shape they must handle, each checked through what the derive
//! then does. (`proc_macro` only runs inside a macro expansion, so these are
//! their tests: the rejections are the `trybuild` cases in `tests/ui/`.)

use ecs_core::prelude::*;

/// Bounds inline and in a `where` clause, a const parameter with a default.
#[derive(Component, Debug, PartialEq)]
struct Grid<T: Copy + Send + Sync + 'static, const N: usize = 4>
where
    T: core::fmt::Debug,
{
    cells: [T; N],
}

/// Doc comments and other attributes around the derive and on fields, and a
/// field that `cfg` removes before the derive sees the item.
#[derive(Component, Debug)]
#[allow(dead_code)]
/// A doc comment after the derive, too.
struct Documented {
    /// The one field that exists.
    #[allow(unused)]
    value: u32,
    #[cfg(any())]
    never: String,
}

/// Raw identifiers as the type's and a field's names.
#[derive(Component, Debug, PartialEq)]
struct r#Match {
    r#fn: u8,
}

/// Restricted visibility on the item and on a field.
mod inner {
    use ecs_core::prelude::*;

    #[derive(Component, Debug, PartialEq)]
    pub(crate) struct Scoped(pub(super) u8);

    #[derive(Component, Debug, PartialEq)]
    pub(in crate::inner) struct Private;

    pub(crate) fn private_marker() -> impl Bundle {
        Private
    }
}

/// An enum with explicit discriminants, and a unit struct (a tag).
#[derive(Component, Debug, PartialEq, Clone, Copy)]
enum Mode {
    Idle = 1,
    Busy = 5,
}

#[derive(Component, Debug, PartialEq)]
struct Marker;

/// `>>` closing two generic lists at once, and a type path with a leading `::`.
#[derive(Component, Debug, PartialEq)]
struct Nested<T: Send + Sync + 'static>(Vec<Vec<T>>, ::core::num::Wrapping<u16>);

/// An item written by `macro_rules!`: its `$ty` fragments reach the derive
/// wrapped in invisible groups.
macro_rules! component_with {
    ($name:ident, $ty:ty, $field:ident) => {
        #[derive(Component, Debug, PartialEq)]
        struct $name {
            $field: $ty,
        }
    };
}
component_with!(FromMacro, Option<u8>, held);

/// A bundle whose fields are a generic component, a path with generics, an
/// enum and a nested tuple bundle, with a trailing comma.
#[derive(Bundle)]
struct Kit<T: Component> {
    grid: Grid<u8, 2>,
    extra: T,
    mode: Mode,
    pair: (Marker, Nested<i8>),
}

/// A derived query with the world lifetime, `Option<&mut T>`, `Entity`, and a
/// type with generics inside the reference.
#[derive(QueryData)]
struct View<'w> {
    entity: Entity,
    grid: &'w Grid<u8, 2>,
    mode: Option<&'w mut Mode>,
}

/// Generic events and messages: the bounds the derive adds for a generic type.
#[derive(Event, Message, Debug, PartialEq)]
struct Ping<T: Send + Sync + 'static>(T);

/// A derived system parameter whose fields name `'static` item types.
#[derive(SystemParam)]
struct Census<'w> {
    grids: Query<'w, &'static Grid<u8, 2>>,
    pings: MessageReader<'w, Ping<u32>>,
}

#[test]
fn every_shape_of_item_derives_and_behaves() {
    let mut world = World::new();
    let a = world.spawn(Kit {
        grid: Grid { cells: [1u8, 2] },
        extra: r#Match { r#fn: 7 },
        mode: Mode::Idle,
        pair: (Marker, Nested(vec![vec![-1]], core::num::Wrapping(3))),
    });
    let b = world.spawn((Grid::<u8, 2> { cells: [3, 4] }, Documented { value: 9 }, inner::Scoped(2)));
    let c = world.spawn((FromMacro { held: Some(5) }, Grid::<f32> { cells: [0.5; 4] }, inner::private_marker()));

    assert_eq!(world.get::<r#Match>(a), Some(&r#Match { r#fn: 7 }));
    assert_eq!(world.get::<Nested<i8>>(a).map(|n| n.0[0][0]), Some(-1));
    assert!(world.entity(a).unwrap().contains::<Marker>());
    assert_eq!(world.get::<Documented>(b).map(|d| d.value), Some(9));
    assert_eq!(world.get::<inner::Scoped>(b).map(|s| s.0), Some(2));
    assert_eq!(world.get::<FromMacro>(c), Some(&FromMacro { held: Some(5) }));
    assert_eq!(world.get::<Grid<f32>>(c).map(|g| g.cells.len()), Some(4));

    let mut seen = Vec::new();
    for view in world.query_mut::<View>() {
        if let Some(mode) = view.mode {
            *mode = Mode::Busy;
        }
        seen.push((view.entity, view.grid.cells));
    }
    seen.sort_by_key(|(e, _)| *e);
    assert_eq!(seen, [(a, [1, 2]), (b, [3, 4])]);
    assert_eq!(world.get::<Mode>(a).map(|m| *m as u8), Some(5));

    #[derive(Default)]
    struct Counted(usize, u32);
    world.insert_resource(Counted::default());
    world.write_message(Ping(40u32));
    world.write_message(Ping(2u32));
    let mut schedule = Schedule::new();
    schedule.add_systems(|mut census: Census, mut counted: ResMut<Counted>| {
        counted.0 = census.grids.iter().count();
        counted.1 = census.pings.read().map(|p| p.0).sum();
    });
    schedule.set_updates_messages(false).run(&mut world);
    assert_eq!((world.resource::<Counted>().0, world.resource::<Counted>().1), (2, 42));

    world.add_observer(|ping: On<Ping<&'static str>>, mut counted: ResMut<Counted>| counted.1 = ping.0.len() as u32);
    world.trigger(Ping("four"));
    assert_eq!(world.resource::<Counted>().1, 4);
}
