//! The derives read items of every shape the language allows: generic
//! parameters with bounds and defaults, const parameters, where clauses before
//! braces and after parentheses, restricted visibilities, attributes and doc
//! comments on fields, and field types with commas and arrows inside them.
use ecs_core::prelude::*;
use std::collections::HashMap;
use std::marker::PhantomData;

/// A doc comment, and attributes the derive must step over.
#[derive(Component, Clone, Debug, PartialEq)]
#[repr(C)]
pub(crate) struct Table<K: Clone + Send + Sync + 'static = u8, const N: usize = 2>
where
    K: Default,
{
    /// A doc comment on a field.
    #[allow(dead_code)]
    pub(in crate) keys: [K; N],
    map: HashMap<u8, Vec<(u8, u16)>>,
    call: PhantomData<fn(u8, u8) -> u8>,
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Pair<T>(T, T)
where
    T: Copy + Send + Sync + 'static;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
enum Mode<T: Copy + Send + Sync + 'static>
where
    T: PartialEq,
{
    Off,
    On(T),
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(crate = r"::ecs_core", layout = "soa")]
pub struct Point {
    pub(crate) x: f32,
    pub y: f32,
}

/// A const argument in braces inside a where clause.
pub trait Sized2<const N: usize> {}
impl<T> Sized2<2> for T {}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Braced<T: Copy + Send + Sync + 'static>(T)
where
    T: Sized2<{ 1 + 1 }>;

/// A raw identifier names a per-field component; its views drop the `r#`.
#[allow(non_camel_case_types)]
#[derive(Component, Clone, Copy)]
#[component[layout = "soa"]]
struct r#type {
    r#in: f32,
}

#[derive(Bundle)]
#[bundle(crate = "ecs_core")]
struct Everything<T: Copy + PartialEq + Send + Sync + 'static> {
    table: Table,
    pair: Pair<T>,
    mode: Mode<T>,
    point: Point,
}

fn main() {
    let mut world = World::new();
    let table = Table::<u8, 2> { keys: [1, 2], map: HashMap::from([(1, vec![(2, 3)])]), call: PhantomData };
    let e = world.spawn(Everything {
        table: table.clone(),
        pair: Pair(1u32, 2),
        mode: Mode::On(7u32),
        point: Point { x: 1.0, y: 2.0 },
    });
    assert_eq!(world.get::<Table>(e), Some(&table));
    assert_eq!(world.get::<Pair<u32>>(e), Some(&Pair(1, 2)));
    assert_eq!(world.get::<Mode<u32>>(e), Some(&Mode::On(7)));
    assert_eq!(world.get::<Mode<u32>>(e).map(|m| *m != Mode::Off), Some(true));
    assert_eq!(world.fields::<Point>(e).map(|p| (*p.x, *p.y)), Some((1.0, 2.0)));
    let braced = world.spawn((Braced(1u8), r#type { r#in: 2.0 }));
    assert_eq!(world.get::<Braced<u8>>(braced), Some(&Braced(1)));
    let view: typeRef<'_> = world.fields::<r#type>(braced).unwrap();
    assert_eq!(*view.r#in, 2.0);
    let wide = world.spawn(Table::<u16, 3> { keys: [4; 3], map: HashMap::new(), call: PhantomData });
    assert_eq!(world.get::<Table<u16, 3>>(wide).map(|t| t.keys), Some([4; 3]));
}
