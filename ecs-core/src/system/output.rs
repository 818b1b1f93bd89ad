//! [`SystemOutput`]: what a system or an observer function may return.

use crate::error::{BoxedError, ErrorContext};
use crate::world::World;

mod sealed {
    pub trait Sealed {}
    impl Sealed for () {}
    impl<E> Sealed for core::result::Result<(), E> {}
    impl Sealed for super::Never {}
}

/// Names a function pointer's return type.
pub trait FnRet {
    /// The return type.
    type Output;
}

impl<R> FnRet for fn() -> R {
    type Output = R;
}

/// The never type `!`, which stable Rust does not let us write as a type (as
/// bevy_ecs names it): a closure that only panics (`|_: On<Hit>| panic!()`)
/// returns it under edition 2024's inference, and is a system all the same.
type Never = <fn() -> ! as FnRet>::Output;

/// What a system's or an observer's function may return: `()`, or a
/// `Result<(), E>` (as `-> Result`) whose error goes to the world's
/// [error handler](crate::World::set_error_handler), with the system's name.
#[diagnostic::on_unimplemented(
    message = "a system or an observer returns `()` or `Result<(), E>`, not `{Self}`",
    note = "return `Result` (from `ecs_core::prelude`) and use `?` to hand errors to the world's error handler"
)]
pub trait SystemOutput: sealed::Sealed {
    /// Hands an error to the world's error handler; `context` says where it
    /// came from.
    #[doc(hidden)]
    fn __handle(self, world: &World, context: impl FnOnce() -> ErrorContext);
}

impl SystemOutput for () {
    #[inline(always)]
    fn __handle(self, _: &World, _: impl FnOnce() -> ErrorContext) {}
}

impl<E: Into<BoxedError>> SystemOutput for core::result::Result<(), E> {
    #[inline]
    fn __handle(self, world: &World, context: impl FnOnce() -> ErrorContext) {
        if let Err(error) = self {
            failed(world, error.into(), context());
        }
    }
}

impl SystemOutput for Never {
    #[inline(always)]
    fn __handle(self, _: &World, _: impl FnOnce() -> ErrorContext) {
        // A value of `!` is never made: the run panicked before this.
        self
    }
}

/// Off the path of the runs that succeed.
#[cold]
#[inline(never)]
fn failed(world: &World, error: BoxedError, context: ErrorContext) {
    (world.error_handler())(error, context);
}
