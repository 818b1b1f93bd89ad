//! `#[derive(SystemParam)]` expansion: `SystemParam` for the struct, forwarding to
//! its fields in order.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::parse::SystemParamDef;

pub fn system_param(def: SystemParamDef<'_>) -> TokenStream {
    let SystemParamDef { ident, lifetime, krate, fields } = def;
    let s = quote!(#krate::system);
    let tys: Vec<_> = fields.iter().map(|(_, ty)| *ty).collect();
    let indices: Vec<_> = (0..fields.len()).map(syn::Index::from).collect();
    let w = syn::Lifetime::new("'__w", lifetime.span());
    let count = fields.len();
    // As in the Query derive: the call is spanned at the field, the `unsafe` block
    // is not, so a user's `#![forbid(unsafe_code)]` does not see it as theirs.
    let gets = fields.iter().zip(&indices).map(|((name, ty), index)| {
        let call =
            quote_spanned! {ty.span()=> <#ty as #s::SystemParam>::get_param(&mut __state.#index, __meta, __world) };
        quote! {
            // SAFETY: forwarded from the caller; each field gets its own state.
            #name: unsafe { #call },
        }
    });
    quote! {
        const _: () = {
            #[automatically_derived]
            // SAFETY: every method forwards to the fields' own implementations, so
            // the recorded access is exactly the union of the fields'.
            unsafe impl<#lifetime> #s::SystemParam for #ident<#lifetime> {
                type State = (#(<#tys as #s::SystemParam>::State,)*);
                type Item<#w> = #ident<#w>;
                const DEFERRED: bool = false #(|| <#tys as #s::SystemParam>::DEFERRED)*;

                fn access(__meta: &mut #s::SystemMeta) {
                    #(<#tys as #s::SystemParam>::access(__meta);)*
                }
                fn init_state(__world: &mut #krate::World) -> Self::State {
                    (#(<#tys as #s::SystemParam>::init_state(__world),)*)
                }
                unsafe fn get_param<#w>(
                    __state: &#w mut Self::State,
                    __meta: &#s::SystemMeta,
                    __world: &#w #krate::World,
                ) -> Self::Item<#w> {
                    #ident { #(#gets)* }
                }
                fn apply(__state: &mut Self::State, __world: &mut #krate::World) {
                    if !<Self as #s::SystemParam>::DEFERRED {
                        return;
                    }
                    // Every field applies its deferred work even if one panics; the
                    // first panic goes on afterwards.
                    #krate::__private::run_in_order(#count, |__i| match __i {
                        #(#indices => <#tys as #s::SystemParam>::apply(&mut __state.#indices, __world),)*
                        _ => ::core::unreachable!(),
                    });
                }
                fn validate(
                    __state: &Self::State,
                    __world: &#krate::World,
                ) -> ::core::result::Result<(), #krate::EcsError> {
                    #(<#tys as #s::SystemParam>::validate(&__state.#indices, __world)?;)*
                    ::core::result::Result::Ok(())
                }
            }

            #[automatically_derived]
            // SAFETY: read-only exactly when every field is (the bounds say so).
            unsafe impl<#lifetime> #s::ReadOnlySystemParam for #ident<#lifetime>
            where
                #(#tys: #s::ReadOnlySystemParam,)*
            {}
        };
    }
}
