//! [`EcsError`]: what went wrong, in words a user can act on.

use core::fmt;

use crate::entity::Entity;

/// The error of a fallible world operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EcsError {
    /// The entity is not alive in this world: it was despawned, the world was
    /// cleared, or the handle was forged or belongs to another world.
    NoSuchEntity(Entity),
    /// The entity is alive but lacks a component the operation needs.
    MissingComponent {
        /// The entity.
        entity: Entity,
        /// The type name of the missing component.
        component: &'static str,
    },
}

impl fmt::Display for EcsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoSuchEntity(entity) => write!(
                f,
                "entity {entity} does not exist: it was despawned (or the world cleared), \
                 or the handle is stale, forged or from another world"
            ),
            Self::MissingComponent { entity, component } => {
                write!(f, "entity {entity} has no `{component}` component")
            }
        }
    }
}

impl std::error::Error for EcsError {}
