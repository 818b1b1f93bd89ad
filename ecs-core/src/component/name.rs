//! [`Name`]: a component naming an entity for people (debug output, editors,
//! logs), as bevy_ecs's.

use std::borrow::Cow;

/// A name for an entity, for people to read: in debug output, an editor's
/// tree, a log line. Not an id: several entities may share one. It derefs to
/// `str` and prints as the name.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
///
/// let mut world = World::new();
/// let hero = world.spawn(Name::new("hero"));
/// let names = world.query::<&Name>();
/// assert_eq!(names.get(hero)?.as_str(), "hero");
/// assert_eq!(format!("{}", names.get(hero)?), "hero");
/// # Ok::<(), EcsError>(())
/// ```
#[derive(crate::Component, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[component(__do_not_recommend)]
pub struct Name(Cow<'static, str>);

impl Name {
    /// The name `name`: a `&'static str` is kept without a copy.
    pub fn new(name: impl Into<Cow<'static, str>>) -> Self {
        Name(name.into())
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Renames.
    pub fn set(&mut self, name: impl Into<Cow<'static, str>>) {
        self.0 = name.into();
    }

    /// Edits the name in place, as a `String`.
    pub fn mutate(&mut self, f: impl FnOnce(&mut String)) {
        let mut name = self.0.to_string();
        f(&mut name);
        self.0 = Cow::Owned(name);
    }
}

impl core::ops::Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl core::fmt::Display for Name {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

impl core::fmt::Debug for Name {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&*self.0, f)
    }
}

impl From<&'static str> for Name {
    fn from(name: &'static str) -> Self {
        Name::new(name)
    }
}

impl From<String> for Name {
    fn from(name: String) -> Self {
        Name::new(name)
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Name {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Name {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Name::new)
    }
}
