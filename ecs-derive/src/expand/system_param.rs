//! `#[derive(SystemParam)]` expansion: `SystemParam` for the struct, forwarding to
//! its fields in order.

use proc_macro::{Literal, Span, TokenStream};

use crate::read::index;
use crate::tokens::{code, fill, lifetime as named_lifetime, tuple};
use crate::validate::SystemParamDef;

pub fn system_param(def: SystemParamDef<'_>) -> TokenStream {
    let SystemParamDef { ident, lifetime, krate, fields } = def;
    let s = code!("$krate::system", krate);
    let indices: Vec<Literal> = (0..fields.len()).map(index).collect();
    let lifetime_span = lifetime.clone().into_iter().next().map_or_else(Span::call_site, |t| t.span());
    let w = named_lifetime("__w", lifetime_span);
    let count = fields.len();
    // As in the Query derive: the call is spanned at the field, the `unsafe` block
    // is not, so a user's `#![forbid(unsafe_code)]` does not see it as theirs.
    // SAFETY (of each block): forwarded from the caller; each field gets its own state.
    let gets: Vec<TokenStream> = fields
        .iter()
        .zip(&indices)
        .map(|((name, ty), index)| {
            let call = code!(ty.span() =>
                "<$ty as $s::SystemParam>::get_param(&mut __state.$index, __meta, __world)", ty, s, index);
            code!("$name: unsafe { $call },", name, call)
        })
        .collect();
    let per_field = |template: &str| -> Vec<TokenStream> {
        fields
            .iter()
            .zip(&indices)
            .map(|((_, ty), i)| fill(template, None, &[("ty", ty), ("s", &s), ("i", i)]))
            .collect()
    };
    let state = tuple(&per_field("<$ty as $s::SystemParam>::State"));
    let deferred = per_field("|| <$ty as $s::SystemParam>::DEFERRED");
    let access = per_field("<$ty as $s::SystemParam>::access(__meta);");
    let init = tuple(&per_field("<$ty as $s::SystemParam>::init_state(__world)"));
    let apply = per_field("$i => <$ty as $s::SystemParam>::apply(&mut __state.$i, __world),");
    let validate = per_field("<$ty as $s::SystemParam>::validate(&__state.$i, __world)?;");
    let skips = per_field("|| <$ty as $s::SystemParam>::SKIPS");
    let check_run = per_field(
        "if <$ty as $s::SystemParam>::SKIPS {
            // SAFETY: forwarded: the caller holds the access every field
            // recorded, and each field gets its own part of the state.
            unsafe { <$ty as $s::SystemParam>::check_run(&mut __state.$i, __meta, __world) }?;
        }",
    );
    let read_only = per_field("$ty: $s::ReadOnlySystemParam,");
    // SAFETY (of the emitted impls): every method forwards to the fields' own
    // implementations, so the recorded access is exactly the union of the
    // fields'; read-only exactly when every field is (the bounds say so).
    code!(
        "const _: () = {
            #[automatically_derived]
            unsafe impl<$lifetime> $s::SystemParam for $ident<$lifetime> {
                type State = $state;
                type Item<$w> = $ident<$w>;
                const DEFERRED: bool = false $deferred;

                fn access(__meta: &mut $s::SystemMeta) {
                    $access
                }
                fn init_state(__world: &mut $krate::World) -> Self::State {
                    $init
                }
                unsafe fn get_param<$w>(
                    __state: &$w mut Self::State,
                    __meta: &$s::SystemMeta,
                    __world: &$w $krate::World,
                ) -> Self::Item<$w> {
                    $ident { $gets }
                }
                fn apply(__state: &mut Self::State, __world: &mut $krate::World) {
                    if !<Self as $s::SystemParam>::DEFERRED {
                        return;
                    }
                    // Every field applies its deferred work even if one panics; the
                    // first panic goes on afterwards.
                    $krate::__private::run_in_order($count, |__i| match __i {
                        $apply
                        _ => ::core::unreachable!(),
                    });
                }
                fn validate(
                    __state: &Self::State,
                    __world: &$krate::World,
                ) -> ::core::result::Result<(), $krate::EcsError> {
                    $validate
                    ::core::result::Result::Ok(())
                }
                const SKIPS: bool = false $skips;
                #[allow(unused_variables)]
                unsafe fn check_run(
                    __state: &mut Self::State,
                    __meta: &$s::SystemMeta,
                    __world: &$krate::World,
                ) -> ::core::result::Result<(), $krate::EcsError> {
                    $check_run
                    ::core::result::Result::Ok(())
                }
            }

            #[automatically_derived]
            unsafe impl<$lifetime> $s::ReadOnlySystemParam for $ident<$lifetime>
            where
                $read_only
            {}
        };",
        lifetime,
        s,
        ident,
        state,
        w,
        deferred,
        access,
        krate,
        init,
        gets,
        count,
        apply,
        validate,
        skips,
        check_run,
        read_only
    )
}
