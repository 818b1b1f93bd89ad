//! Bundles: groups of components spawned, inserted or removed together.
//!
//! A single [`Component`](crate::Component) is a bundle, so is a tuple of up to 16 bundles, and so is a
//! struct with `#[derive(Bundle)]` whose fields are components or nested bundles.
//! Each world gives every bundle type it meets a dense [`BundleId`] (`info.rs`), under
//! which the archetype graph caches its edges.

mod info;

pub use info::BundleId;
pub(crate) use info::BundleInfo;
pub(crate) use info::{Bundles, SpawnTarget};

use core::any::TypeId;
use core::ptr::NonNull;

use crate::component::{ComponentId, Components};
use crate::storage::OwningPtr;

/// A group of components that can be spawned, inserted and removed together.
///
/// Derive it for structs: `#[derive(Bundle)]`. Tuples of bundles (up to 16) and
/// single components are bundles already.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
///
/// #[derive(Component)] struct Position(f32);
/// #[derive(Component)] struct Velocity(f32);
/// #[derive(Component)] struct Name(String);
///
/// #[derive(Bundle)]
/// struct Body { pos: Position, vel: Velocity }
///
/// #[derive(Bundle)]
/// struct Ship { body: Body, name: Name }   // bundles nest
///
/// let mut world = World::new();
/// let e = world.spawn(Ship { body: Body { pos: Position(0.0), vel: Velocity(1.0) }, name: Name("a".into()) });
/// let body: Body = world.remove::<Body>(e).unwrap();
/// assert_eq!(body.vel.0, 1.0);
/// ```
///
/// # Safety
/// Implementors must visit the same components, in the same order, in all four of
/// [`register`](Self::register), [`take`](Self::take), [`write`](Self::write) and
/// [`from_components`](Self::from_components), and each pointer handed to `take`'s
/// callback must own a valid value of the component type registered at that position.
/// `write` must not panic: it asks `slot` once per component and writes that
/// component there (the world counts the slots as filled once it returns, and may
/// have dropped what a slot held before).
/// `register` only adds registrations (through [`Components::register`] and the
/// like): it never replaces, clears or removes what `components` holds, which the
/// world's caches of its columns rely on.
/// `__SPARSE` may be `true` only for the implementation for a single sparse component.
/// The derive upholds this; implement it by hand only with great care.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a bundle",
    label = "`{Self}` is neither a component nor a bundle",
    note = "add `#[derive(Component)]` to the definition of `{Self}` \
            (or `#[derive(Bundle)]` for a struct whose fields are components; \
            a hand-written `impl Component for {Self}` also needs `ecs_core::component_bundle!({Self})`)"
)]
pub unsafe trait Bundle: Send + Sync + 'static {
    /// Registers each component with `components` and reports its id, in order.
    fn register(components: &mut Components, ids: &mut impl FnMut(ComponentId));

    /// Moves each component out, in order, as an [`OwningPtr`]. The callback must
    /// take ownership (move the value out or drop it).
    fn take(self, f: &mut impl FnMut(OwningPtr<'_>))
    where
        Self: Sized;

    /// Moves each component, in order, into the uninitialised slot `slot` returns,
    /// without panicking (see the trait's safety contract). The fast path of
    /// spawning: a typed write per component, no type-erased copy.
    ///
    /// # Safety
    /// Each pointer `slot` returns must be valid for writing, and aligned for, a value
    /// of the component type at that position.
    unsafe fn write(self, slot: &mut impl FnMut() -> NonNull<u8>)
    where
        Self: Sized;

    /// Builds the bundle from owned values, in order.
    ///
    /// # Safety
    /// Each call to `next` must return an owned, valid value of the component type
    /// at that position.
    unsafe fn from_components<'a>(next: &mut impl FnMut() -> OwningPtr<'a>) -> Self
    where
        Self: Sized;

    /// How a world finds this bundle's cached id: a component by its component id
    /// (no hashing), any other bundle by its `TypeId`.
    #[doc(hidden)]
    #[inline(always)]
    fn __key() -> BundleKey {
        BundleKey::Type(TypeId::of::<Self>())
    }

    /// `true` for a single sparse component (then `__key` is its component id):
    /// inserting or removing it takes a path without edges or bundle ids.
    #[doc(hidden)]
    const __SPARSE: bool = false;

    /// `true` when a component of the bundle may declare hooks (known at compile
    /// time): spawns and inserts of it then look for hooks even in a world where
    /// the components are not registered yet. `true` unless a bundle knows.
    #[doc(hidden)]
    const __HOOKED: bool = true;

    /// `true` when a component of the bundle is a relationship, whose link is
    /// checked before the bundle is spawned or inserted.
    #[doc(hidden)]
    const __LINKS: bool = false;

    /// Checks the bundle's relationships (see `Component::__check_links`).
    #[doc(hidden)]
    fn __check_links(&self, _world: &crate::World, _entity: Option<crate::Entity>) -> Result<(), crate::EcsError> {
        Ok(())
    }

    /// Removes and drops whichever components of the bundle the live `entity`
    /// has, one at a time (for `EntityWorldMut::remove` when some are missing).
    #[doc(hidden)]
    fn __remove_present(world: &mut crate::World, entity: crate::Entity);

    /// For a lone relationship: `Component::__replace_link`. `Err` (the
    /// default) hands the bundle back.
    #[doc(hidden)]
    fn __replace_link(self, _world: &mut crate::World, _entity: crate::Entity) -> Result<(), Self>
    where
        Self: Sized,
    {
        Err(self)
    }
}

/// How a world looks up a bundle's [`BundleId`].
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum BundleKey {
    /// A single component.
    Component(ComponentId),
    /// A tuple or derived bundle.
    Type(TypeId),
}

/// The [`Bundle`] items of a single component: what `#[derive(Component)]`
/// emits, and what [`component_bundle!`](crate::component_bundle) writes for a
/// hand-written `Component` impl. Not for direct use.
///
/// Each component type implements `Bundle` itself rather than through a blanket
/// `impl<C: Component> Bundle for C`: with a blanket impl, rustc cannot tell which
/// impl a tuple such as `(Position, Health)` was meant to use, and reports the
/// whole tuple as "not a bundle" instead of naming the element (`Health`) that
/// lacks `#[derive(Component)]`.
#[doc(hidden)]
#[macro_export]
macro_rules! __component_bundle_items {
    () => {
        #[inline]
        fn register(
            components: &mut $crate::__private::Components,
            ids: &mut impl ::core::ops::FnMut($crate::component::ComponentId),
        ) {
            ids(components.register::<Self>());
        }

        #[inline(always)]
        fn take(self, f: &mut impl ::core::ops::FnMut($crate::__private::OwningPtr<'_>)) {
            $crate::__private::OwningPtr::make(self, f);
        }

        #[inline(always)]
        unsafe fn write(self, slot: &mut impl ::core::ops::FnMut() -> ::core::ptr::NonNull<u8>) {
            // SAFETY: `Bundle::write`'s caller guarantees the slot is valid for
            // writing, and aligned for, a value of this component type.
            unsafe { slot().cast::<Self>().write(self) }
        }

        #[inline(always)]
        unsafe fn from_components<'a>(
            next: &mut impl ::core::ops::FnMut() -> $crate::__private::OwningPtr<'a>,
        ) -> Self {
            // SAFETY: `Bundle::from_components`'s caller guarantees `next` yields
            // an owned value of this component type.
            unsafe { next().read::<Self>() }
        }

        #[inline(always)]
        fn __key() -> $crate::__private::BundleKey {
            $crate::__private::BundleKey::Component($crate::component::component_id::<Self>())
        }

        const __SPARSE: bool = $crate::component::is_sparse::<Self>();

        const __HOOKED: bool = <Self as $crate::Component>::HOOKS.any() || <Self as $crate::Component>::__REQUIRES;

        const __LINKS: bool = <Self as $crate::Component>::__LINKS;

        #[inline]
        fn __check_links(
            &self,
            world: &$crate::World,
            entity: ::core::option::Option<$crate::Entity>,
        ) -> ::core::result::Result<(), $crate::EcsError> {
            <Self as $crate::Component>::__check_links(self, world, entity)
        }

        #[inline]
        fn __replace_link(self, world: &mut $crate::World, entity: $crate::Entity) -> ::core::result::Result<(), Self> {
            <Self as $crate::Component>::__replace_link(self, world, entity)
        }

        // `#[inline]` so that it is compiled where a bundle is removed, not in
        // every crate that derives a component: the body instantiates the
        // whole `World::remove` path for `Self`.
        #[inline]
        fn __remove_present(world: &mut $crate::World, entity: $crate::Entity) {
            // Missing (or a dead entity): nothing to remove.
            let _ = world.remove::<Self>(entity);
        }
    };
}

/// Implements [`Bundle`] for a type whose [`Component`](crate::Component) impl is written by hand
/// (`#[derive(Component)]` implements both). `Bundle` is a supertrait of
/// `Component`, so that generic code bounded by `C: Component` can spawn a `C`.
///
/// For a generic type, put its parameters in brackets after `impl`:
/// `component_bundle!(impl[T: Send + Sync + 'static] Wrapper<T>)`, with an
/// optional `where [...]` after the type.
///
/// # Example
/// ```
/// use ecs_core::prelude::*;
///
/// struct Health(u32);
/// impl Component for Health {}
/// ecs_core::component_bundle!(Health);
///
/// struct Tagged<T>(T);
/// impl<T: Send + Sync + 'static> Component for Tagged<T> {}
/// ecs_core::component_bundle!(impl[T: Send + Sync + 'static] Tagged<T>);
///
/// let mut world = World::new();
/// let e = world.spawn((Health(3), Tagged("boss")));
/// assert_eq!(world.get::<Health>(e).map(|h| h.0), Some(3));
/// assert_eq!(world.get::<Tagged<&str>>(e).map(|t| t.0), Some("boss"));
/// ```
#[macro_export]
macro_rules! component_bundle {
    ($ty:ty) => {
        // SAFETY: the items visit the one component `$ty` in every method, as
        // the type registered for it.
        #[diagnostic::do_not_recommend]
        unsafe impl $crate::Bundle for $ty {
            $crate::__component_bundle_items!();
        }
        // SAFETY: a hand-written component stores whole values: only a
        // `PerField` type (an `unsafe` impl promising never to be
        // `WholeComponent`) can make its `__fields` other than `None`.
        #[diagnostic::do_not_recommend]
        unsafe impl $crate::component::WholeComponent for $ty {}
    };
    (impl [$($generics:tt)*] $ty:ty $(where [$($bounds:tt)*])?) => {
        // SAFETY: the items visit the one component `$ty` in every method, as
        // the type registered for it.
        #[diagnostic::do_not_recommend]
        unsafe impl<$($generics)*> $crate::Bundle for $ty $(where $($bounds)*)? {
            $crate::__component_bundle_items!();
        }
        // SAFETY: a hand-written component stores whole values: only a
        // `PerField` type (an `unsafe` impl promising never to be
        // `WholeComponent`) can make its `__fields` other than `None`.
        #[diagnostic::do_not_recommend]
        unsafe impl<$($generics)*> $crate::component::WholeComponent for $ty $(where $($bounds)*)? {}
    };
}

macro_rules! tuple_bundle {
    ($($name:ident),*) => {
        // SAFETY: each element is visited in tuple order in every method, and each
        // element's own `Bundle` impl upholds the contract for its part.
        // Not `do_not_recommend`: rustc then follows a failing tuple into its
        // elements, and the first error names the element that is no bundle.
        unsafe impl<$($name: Bundle),*> Bundle for ($($name,)*) {
            #[inline]
            #[allow(unused_variables, reason = "the empty tuple visits nothing")]
            fn register(components: &mut Components, ids: &mut impl FnMut(ComponentId)) {
                $($name::register(components, ids);)*
            }

            const __HOOKED: bool = false $(|| $name::__HOOKED)*;

            const __LINKS: bool = false $(|| $name::__LINKS)*;

            #[allow(unused_variables, non_snake_case, reason = "the empty tuple visits nothing")]
            fn __check_links(&self, world: &crate::World, entity: Option<crate::Entity>) -> Result<(), crate::EcsError> {
                let ($($name,)*) = self;
                $($name.__check_links(world, entity)?;)*
                Ok(())
            }

            #[allow(unused_variables, reason = "the empty tuple visits nothing")]
            fn __remove_present(world: &mut crate::World, entity: crate::Entity) {
                $($name::__remove_present(world, entity);)*
            }

            #[inline(always)]
            #[allow(unused_variables, non_snake_case, reason = "the empty tuple visits nothing")]
            fn take(self, f: &mut impl FnMut(OwningPtr<'_>)) {
                let ($($name,)*) = self;
                $($name.take(f);)*
            }

            #[inline(always)]
            #[allow(unused_variables, non_snake_case, reason = "the empty tuple visits nothing")]
            unsafe fn write(self, slot: &mut impl FnMut() -> NonNull<u8>) {
                let ($($name,)*) = self;
                // SAFETY: forwarded: each element writes its own components, in order,
                // to the slots the caller vouches for.
                $(unsafe { $name.write(slot) };)*
            }

            #[inline(always)]
            #[allow(unused_variables, clippy::unused_unit, reason = "the empty tuple visits nothing")]
            unsafe fn from_components<'a>(next: &mut impl FnMut() -> OwningPtr<'a>) -> Self {
                // SAFETY: forwarded: elements are built in order, each from its own
                // values, as the caller guarantees.
                ($(unsafe { $name::from_components(next) },)*)
            }
        }
    };
}

macro_rules! tuple_bundles {
    ($first:ident $(, $rest:ident)*) => {
        tuple_bundle!($first $(, $rest)*);
        tuple_bundles!($($rest),*);
    };
    () => {
        tuple_bundle!();
    };
}

tuple_bundles!(B0, B1, B2, B3, B4, B5, B6, B7, B8, B9, B10, B11, B12, B13, B14, B15);
