//! A hand-written `Component` impl cannot hand out another type's id cell: two
//! types sharing one component id would write values into a column of the wrong
//! layout. The cell's type names its component, invariantly.
#![forbid(unsafe_code)]

use ecs_core::__private::ComponentIdCell;
use ecs_core::prelude::*;

#[derive(Component)]
struct Position(f32);

struct Impostor(String);

impl Component for Impostor {
    fn __id_cell() -> Option<&'static ComponentIdCell<Self>> {
        <Position as Component>::__id_cell()
    }
}

struct Wrap<T>(T);

ecs_core::component_bundle!(Impostor);

impl Component for Wrap<for<'a> fn(&'a ())> {}
ecs_core::component_bundle!(Wrap<for<'a> fn(&'a ())>);

impl Component for Wrap<fn(&'static ())> {
    fn __id_cell() -> Option<&'static ComponentIdCell<Self>> {
        <Wrap<for<'a> fn(&'a ())> as Component>::__id_cell()
    }
}

fn main() {}
