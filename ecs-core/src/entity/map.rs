//! [`MapEntities`]: rewriting the entities a value holds.

use super::Entity;

/// A value holding [`Entity`] handles that can be rewritten through a map: what
/// loading a saved world (whose entities get new ids) needs. Mark a component's
/// fields `#[entities]` to include them in its `Component::map_entities`.
pub trait MapEntities {
    /// Replaces each entity `e` held by `map(e)`.
    fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity);

    /// Calls `f` with each entity held, without changing any: what saving
    /// checks (a reference to a despawned entity is refused). The default
    /// visits none, so a hand-written impl that keeps it leaves its entities
    /// unchecked at save time (a load still checks them).
    fn visit_entities(&self, _f: &mut dyn FnMut(Entity)) {}
}

impl MapEntities for Entity {
    fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity) {
        *self = map(*self);
    }
    fn visit_entities(&self, f: &mut dyn FnMut(Entity)) {
        f(*self);
    }
}

impl<T: MapEntities> MapEntities for Option<T> {
    fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity) {
        if let Some(value) = self {
            value.map_entities(map);
        }
    }
    fn visit_entities(&self, f: &mut dyn FnMut(Entity)) {
        if let Some(value) = self {
            value.visit_entities(f);
        }
    }
}

impl<T: MapEntities> MapEntities for Vec<T> {
    fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity) {
        self.iter_mut().for_each(|value| value.map_entities(map));
    }
    fn visit_entities(&self, f: &mut dyn FnMut(Entity)) {
        self.iter().for_each(|value| value.visit_entities(f));
    }
}

impl<T: MapEntities, const N: usize> MapEntities for [T; N] {
    fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity) {
        self.iter_mut().for_each(|value| value.map_entities(map));
    }
    fn visit_entities(&self, f: &mut dyn FnMut(Entity)) {
        self.iter().for_each(|value| value.visit_entities(f));
    }
}
