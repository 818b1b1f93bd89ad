//! What happens to the error a system or an observer returns: the world's
//! error handler ([`World::set_error_handler`](crate::World::set_error_handler)),
//! given the error and where it came from.

use core::fmt;

use super::BoxedError;

/// Where an error handed to an [`ErrorHandler`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorContext {
    /// A system returned it: one of a schedule, or one run by a command
    /// (`commands.run_system(id)`). `World::run_system` and `run_system_once`
    /// hand a system's `Result` back to their caller instead.
    System {
        /// The system's name (its function's path).
        name: &'static str,
    },
    /// An observer returned it.
    Observer {
        /// The observer's name (its function's path).
        name: &'static str,
    },
}

impl ErrorContext {
    /// The name of the system or observer that failed.
    pub fn name(&self) -> &'static str {
        match self {
            ErrorContext::System { name } | ErrorContext::Observer { name } => name,
        }
    }

    /// `"system"` or `"observer"`.
    pub fn kind(&self) -> &'static str {
        match self {
            ErrorContext::System { .. } => "system",
            ErrorContext::Observer { .. } => "observer",
        }
    }
}

impl fmt::Display for ErrorContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} `{}`", self.kind(), self.name())
    }
}

/// What a world does with an error a system or an observer returned: a plain
/// function, so that systems running side by side on other threads can call
/// it through a shared world. [`panic()`] by default, as in bevy_ecs; [`warn`]
/// and [`ignore`] are the others.
pub type ErrorHandler = fn(BoxedError, ErrorContext);

/// Panics, naming the system or observer and the error (the default: an
/// error nobody planned for stops the program where it happened).
#[track_caller]
pub fn panic(error: BoxedError, context: ErrorContext) {
    panic!("{context} failed: {error}");
}

/// Prints the error to stderr, naming the system or observer, and goes on.
pub fn warn(error: BoxedError, context: ErrorContext) {
    eprintln!("ecs: {context} failed: {error}");
}

/// Drops the error.
pub fn ignore(_: BoxedError, _: ErrorContext) {}
