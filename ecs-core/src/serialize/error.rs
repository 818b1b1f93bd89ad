//! [`LoadError`]: why a save was refused.

use core::fmt;

use crate::entity::Entity;

/// Why a save could not be loaded. Loading checks everything before it touches
/// a world, so a load that fails changes nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoadError {
    /// The serde format could not read the data: truncated, malformed, or not a
    /// save of this crate. Holds the format's own message.
    Format(String),
    /// The save was written by a newer format version than this build reads.
    NewerVersion {
        /// The save's version.
        found: u32,
        /// [`FORMAT_VERSION`](super::FORMAT_VERSION) of this build.
        supported: u32,
    },
    /// The save names a component the registry does not know.
    UnknownComponent(String),
    /// The save names a resource the registry does not know.
    UnknownResource(String),
    /// The save holds a system's `Local` (or message cursor) of a type the
    /// registry does not know.
    UnknownLocal(String),
    /// A component or resource value did not deserialize.
    InvalidValue {
        /// The component's (or resource's) stable name.
        component: String,
        /// The entity holding it, when the format says (the row format does).
        entity: Option<Entity>,
        /// The format's message.
        message: String,
    },
    /// An entity appears twice (or its slot is also listed as free or retired).
    DuplicateEntity(Entity),
    /// An entity, an archetype or the resources list the same name twice.
    DuplicateComponent(String),
    /// A component holds an entity the save does not hold.
    DanglingEntity {
        /// The entity holding the component.
        entity: Entity,
        /// The component's stable name.
        component: String,
        /// The entity it refers to.
        target: Entity,
    },
    /// The saved entity index does not add up: a slot is missing, out of
    /// range, or listed twice.
    InvalidEntityIndex(String),
    /// A relationship and its target's list of sources disagree, or links form
    /// a cycle.
    InvalidRelationship(String),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Format(message) => write!(f, "the save could not be read: {message}"),
            LoadError::NewerVersion { found, supported } => write!(
                f,
                "the save has format version {found}, newer than the versions up to {supported} this build reads: \
                 load it with a newer build"
            ),
            LoadError::UnknownComponent(name) => write!(
                f,
                "the save holds component `{name}`, which the registry does not know: register it with \
                 `SerializeRegistry::register::<T>(\"{name}\")`"
            ),
            LoadError::UnknownResource(name) => write!(
                f,
                "the save holds resource `{name}`, which the registry does not know: register it with \
                 `SerializeRegistry::register_resource::<R>(\"{name}\")`"
            ),
            LoadError::UnknownLocal(name) => write!(
                f,
                "the save holds a system's `Local` of type `{name}`, which the registry does not know: register it \
                 with `SerializeRegistry::register_local::<T>(\"{name}\")` (or `register_message` for a message \
                 reader's place)"
            ),
            LoadError::InvalidValue { component, entity: Some(entity), message } => {
                write!(f, "component `{component}` of entity {entity} did not deserialize: {message}")
            }
            LoadError::InvalidValue { component, entity: None, message } => {
                write!(f, "a value of component `{component}` did not deserialize: {message}")
            }
            LoadError::DuplicateEntity(entity) => write!(f, "entity {entity} appears twice in the save"),
            LoadError::DuplicateComponent(name) => write!(f, "`{name}` is listed twice"),
            LoadError::DanglingEntity { entity, component, target } => write!(
                f,
                "component `{component}` of entity {entity} refers to entity {target}, which the save does not hold"
            ),
            LoadError::InvalidEntityIndex(message) => write!(f, "the saved entity index is inconsistent: {message}"),
            LoadError::InvalidRelationship(message) => write!(f, "the saved relationships are inconsistent: {message}"),
        }
    }
}

impl std::error::Error for LoadError {}
