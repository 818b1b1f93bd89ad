//! System input: [`In<T>`], the first parameter of a system that takes a
//! value from its caller (`a.pipe(b)`, `World::run_system_with`,
//! `World::run_system_once_with`).

use super::function::SystemParamFunction;
use super::param::{SystemParam, SystemParamItem};

/// The input of a system, as its first parameter: `fn double(In(x): In<u32>) -> u32`.
/// The value comes from the system piped into it ([`pipe`](super::SystemPipe::pipe)),
/// or from [`World::run_system_with`](crate::World::run_system_with) and
/// [`World::run_system_once_with`](crate::World::run_system_once_with). A system
/// that takes one cannot be added to a schedule on its own: nothing would
/// give it its value.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
///
/// #[derive(Component)] struct Health(u32);
///
/// fn damage(In(amount): In<u32>, mut healths: Query<&mut Health>) -> u32 {
///     let mut hit = 0;
///     for health in &mut healths {
///         health.0 = health.0.saturating_sub(amount);
///         hit += 1;
///     }
///     hit
/// }
///
/// let mut world = World::new();
/// world.spawn(Health(10));
/// assert_eq!(world.run_system_once_with(damage, 3)?, 1);
/// assert_eq!(world.query::<&Health>().single()?.0, 7);
/// # Ok::<(), EcsError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct In<T>(pub T);

impl<T> In<T> {
    /// The value.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> core::ops::Deref for In<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> core::ops::DerefMut for In<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for () {}
    impl<T> Sealed for super::In<T> {}
}

/// What a system takes as input: `()` (nothing) or [`In<T>`]. A
/// [`SystemId<I, O>`](super::SystemId)'s `I` is one.
pub trait SystemInput: sealed::Sealed + 'static {
    /// The value a caller passes (`T` for `In<T>`).
    type Inner;
    /// The input holding `inner`.
    fn wrap(inner: Self::Inner) -> Self;
}

impl SystemInput for () {
    type Inner = ();
    #[inline]
    fn wrap((): ()) -> Self {}
}

impl<T: 'static> SystemInput for In<T> {
    type Inner = T;
    #[inline]
    fn wrap(inner: T) -> Self {
        In(inner)
    }
}

/// Marks the [`SystemParamFunction`] implementations for functions taking an
/// [`In<T>`] first.
pub struct HasInput;

macro_rules! impl_system_function_with_input {
    ($($param:ident),*) => {
        #[allow(non_snake_case, reason = "parameters are named after their types")]
        impl<Input: 'static, Out, Func, $($param: SystemParam),*>
            SystemParamFunction<(HasInput, fn(In<Input>, $($param,)*) -> Out)> for Func
        where
            Func: Send + Sync + 'static,
            for<'a> &'a mut Func:
                FnMut(In<Input>, $($param),*) -> Out + FnMut(In<Input>, $(SystemParamItem<'_, $param>),*) -> Out,
        {
            type In = In<Input>;
            type Param = ($($param,)*);
            type Out = Out;

            #[inline]
            fn run(&mut self, input: In<Input>, params: SystemParamItem<'_, ($($param,)*)>) -> Out {
                // As for functions without input (`function.rs`): the helper
                // names the item types so the compiler picks the items' bound.
                #[allow(clippy::too_many_arguments)]
                #[inline(always)]
                fn call<Input, Out, $($param,)*>(
                    mut f: impl FnMut(In<Input>, $($param,)*) -> Out,
                    input: In<Input>,
                    $($param: $param,)*
                ) -> Out {
                    f(input, $($param,)*)
                }
                let ($($param,)*) = params;
                call(self, input, $($param),*)
            }
        }
    };
}

impl_system_function_with_input!();
impl_system_function_with_input!(P1);
impl_system_function_with_input!(P1, P2);
impl_system_function_with_input!(P1, P2, P3);
impl_system_function_with_input!(P1, P2, P3, P4);
impl_system_function_with_input!(P1, P2, P3, P4, P5);
impl_system_function_with_input!(P1, P2, P3, P4, P5, P6);
impl_system_function_with_input!(P1, P2, P3, P4, P5, P6, P7);
impl_system_function_with_input!(P1, P2, P3, P4, P5, P6, P7, P8);
impl_system_function_with_input!(P1, P2, P3, P4, P5, P6, P7, P8, P9);
impl_system_function_with_input!(P1, P2, P3, P4, P5, P6, P7, P8, P9, P10);
impl_system_function_with_input!(P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11);
impl_system_function_with_input!(P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12);
impl_system_function_with_input!(P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12, P13);
impl_system_function_with_input!(P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12, P13, P14);
impl_system_function_with_input!(P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12, P13, P14, P15);
