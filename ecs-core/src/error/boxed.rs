//! [`BoxedError`] and [`Result`]: what a fallible system or observer returns.

use core::fmt;

/// Any error, boxed: what a system or an observer returning
/// [`Result`](type@Result) fails with. `?` converts into it every error type
/// (every `std::error::Error + Send + Sync + 'static`), and a `String` or a
/// `&str` message, as `Box<dyn Error>` does.
///
/// It is not itself a `std::error::Error` (that would make its blanket
/// conversion overlap the identity one, as for bevy_ecs's `BevyError`); reach
/// the error inside with [`as_error`](Self::as_error) or
/// [`downcast_ref`](Self::downcast_ref).
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
///
/// #[derive(Component)] struct Player;
/// #[derive(Component)] struct Health(u32);
///
/// fn heal(mut player: Query<&mut Health, With<Player>>) -> Result {
///     let health = player.single_mut()?; // `EcsError` when there is no single player
///     health.0 = health.0.checked_add(10).ok_or("health overflowed")?;
///     Ok(())
/// }
///
/// let mut world = World::new();
/// world.spawn((Player, Health(5)));
/// world.run_system_once(heal)??;
/// assert_eq!(world.query::<&Health>().single()?.0, 15);
/// # Ok::<(), BoxedError>(())
/// ```
pub struct BoxedError {
    inner: Box<dyn std::error::Error + Send + Sync + 'static>,
}

impl BoxedError {
    /// The error inside.
    pub fn as_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.inner
    }

    /// The error inside, when it is an `E`.
    pub fn downcast_ref<E: std::error::Error + 'static>(&self) -> Option<&E> {
        self.inner.downcast_ref::<E>()
    }

    /// The error inside, unboxed one level.
    pub fn into_inner(self) -> Box<dyn std::error::Error + Send + Sync + 'static> {
        self.inner
    }
}

impl<E> From<E> for BoxedError
where
    Box<dyn std::error::Error + Send + Sync + 'static>: From<E>,
{
    #[cold]
    fn from(error: E) -> Self {
        BoxedError { inner: error.into() }
    }
}

impl fmt::Display for BoxedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.inner, f)
    }
}

impl fmt::Debug for BoxedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}

/// `Result<T, BoxedError>`, with `T = ()`: `-> Result` is a fallible
/// system's or observer's return type (bevy_ecs's `Result`). Any `E` may be
/// named instead (`Result<u32, MyError>`), so the alias can stand in for
/// `core::result::Result` where the prelude is imported.
pub type Result<T = (), E = BoxedError> = core::result::Result<T, E>;
