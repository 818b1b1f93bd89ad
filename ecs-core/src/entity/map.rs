//! [`MapEntities`]: rewriting the entities a value holds.

use super::Entity;

/// A value holding [`Entity`] handles that can be rewritten through a map: what
/// loading a saved world (whose entities get new ids) needs. Mark a component's
/// fields `#[entities]` to include them in its `Component::map_entities`.
pub trait MapEntities {
    /// Replaces each entity `e` held by `map(e)`.
    fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity);
}

impl MapEntities for Entity {
    fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity) {
        *self = map(*self);
    }
}

impl<T: MapEntities> MapEntities for Option<T> {
    fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity) {
        if let Some(value) = self {
            value.map_entities(map);
        }
    }
}

impl<T: MapEntities> MapEntities for Vec<T> {
    fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity) {
        self.iter_mut().for_each(|value| value.map_entities(map));
    }
}

impl<T: MapEntities, const N: usize> MapEntities for [T; N] {
    fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity) {
        self.iter_mut().for_each(|value| value.map_entities(map));
    }
}
