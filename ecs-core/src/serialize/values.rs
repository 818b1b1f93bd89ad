//! Type-erased component values for serde, and the parsing context both
//! formats share.

use core::cell::RefCell;
use core::fmt::Display;

use serde::de::{DeserializeSeed, Deserializer};
use serde::{Serialize, Serializer};

use super::error::LoadError;
use super::registry::{Codec, Entry, SerializeRegistry};
use super::schema_values::{self, SchemaValue};
use crate::entity::Entity;
use crate::storage::{Column, Ptr, Tick};

/// A value as serde writes it, through its registry entry.
pub(crate) struct ValueOut<'a> {
    pub(crate) entry: &'a Entry,
    /// A column of the entry's component type, holding a value in `row`.
    pub(crate) column: &'a Column,
    pub(crate) row: usize,
}

impl Serialize for ValueOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let written = self.column.with_row(self.row, |value: Ptr<'_>| match &self.entry.codec {
            // SAFETY: `value` is a value of the entry's type (field invariant:
            // the column and the registry entry are of one component).
            Codec::Typed { serialize, .. } => erased_serde::serialize(unsafe { serialize(value) }, serializer),
            // SAFETY: as above: a value of the component whose schema it is.
            Codec::Schema(kind) => unsafe { SchemaValue::new(kind, value.as_ptr()) }.serialize(serializer),
        });
        written.unwrap_or_else(|| Err(serde::ser::Error::custom("a value vanished from its row while being saved")))
    }
}

/// What parsing a save shares: the registry and the first error in words the
/// user can act on (serde's own error type can only carry a message).
pub(crate) struct Context<'r> {
    pub(crate) registry: &'r SerializeRegistry,
    error: RefCell<Option<LoadError>>,
}

impl<'r> Context<'r> {
    pub(crate) fn new(registry: &'r SerializeRegistry) -> Self {
        Self { registry, error: RefCell::new(None) }
    }

    /// Records `error` (the first one wins) and returns it as the format's error,
    /// to stop the parse.
    pub(crate) fn fail<E: serde::de::Error>(&self, error: LoadError) -> E {
        let message = E::custom(&error);
        self.error.borrow_mut().get_or_insert(error);
        message
    }

    /// The entry named `name`, or the error to stop with.
    pub(crate) fn entry<E: serde::de::Error>(&self, name: &str) -> Result<usize, E> {
        self.registry.by_name(name).ok_or_else(|| self.fail(LoadError::UnknownComponent(name.to_owned())))
    }

    /// The parse's result as a [`LoadError`]: the recorded one if any, else the
    /// format's message.
    pub(crate) fn finish<T, E: Display>(self, result: Result<T, E>) -> Result<T, LoadError> {
        match (result, self.error.into_inner()) {
            (Ok(value), None) => Ok(value),
            (_, Some(error)) => Err(error),
            (Err(error), None) => Err(LoadError::Format(error.to_string())),
        }
    }
}

/// Reads one value of an entry's type and pushes it onto a column of it.
pub(crate) struct ValueSeed<'a, 'r> {
    pub(crate) context: &'a Context<'r>,
    pub(crate) entry: &'a Entry,
    /// A column of the entry's component type.
    pub(crate) column: &'a mut Column,
    pub(crate) entity: Option<Entity>,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        let fail = |message: String| {
            self.context.fail(LoadError::InvalidValue {
                component: self.entry.name.clone(),
                entity: self.entity,
                message,
            })
        };
        match &self.entry.codec {
            Codec::Typed { deserialize, .. } => {
                let mut erased = <dyn erased_serde::Deserializer>::erase(deserializer);
                // SAFETY: `column` holds the entry's type (field invariant: it
                // was made from the entry's `ComponentInfo`).
                unsafe { deserialize(&mut erased, self.column, Tick::new(1)) }.map_err(|e| fail(e.to_string()))
            }
            Codec::Schema(kind) => {
                let value = schema_values::read_value(kind, self.entry.info.layout(), deserializer)
                    .map_err(|e| fail(e.to_string()))?;
                // SAFETY: the column holds the component whose schema `kind` is.
                unsafe { schema_values::push(self.column, value, Tick::new(1)) };
                Ok(())
            }
        }
    }
}
