//! `#[derive(Bundle)]` expansion.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::parse::BundleDef;

pub fn bundle(def: BundleDef<'_>) -> TokenStream {
    let BundleDef { ident, generics, krate, fields } = def;
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    // Each field's calls are spanned at the field's type, so "`X` is not a bundle"
    // points at the field that is wrong.
    let register = fields.iter().map(|(_, ty)| {
        quote_spanned! {ty.span()=> <#ty as #krate::Bundle>::register(__components, __ids); }
    });
    let tys: Vec<_> = fields.iter().map(|(_, ty)| *ty).collect();
    let members: Vec<_> = fields.iter().map(|(member, _)| member).collect();
    let take = fields.iter().map(|(member, ty)| {
        quote_spanned! {ty.span()=> <#ty as #krate::Bundle>::take(self.#member, __f); }
    });
    // The `unsafe` blocks themselves keep the macro's call-site span: spanned at the
    // user's field, they would trip a user's `#![forbid(unsafe_code)]`.
    let write = fields.iter().map(|(member, ty)| {
        let call = quote_spanned! {ty.span()=> <#ty as #krate::Bundle>::write(self.#member, __slot) };
        quote! {
            // SAFETY: forwarded from the caller: `__slot` yields valid slots in order.
            unsafe { #call };
        }
    });
    let build = fields.iter().map(|(member, ty)| {
        let call = quote_spanned! {ty.span()=> <#ty as #krate::Bundle>::from_components(__next) };
        quote! {
            // SAFETY: forwarded from the caller: `__next` yields this field's values in order.
            #member: unsafe { #call },
        }
    });
    quote! {
        const _: () = {
            #[automatically_derived]
            // SAFETY: every method visits the fields in declaration order, and each
            // field's own `Bundle` impl upholds the contract for its components.
            unsafe impl #impl_generics #krate::Bundle for #ident #ty_generics #where_clause {
                #[inline]
                fn register(
                    __components: &mut #krate::__private::Components,
                    __ids: &mut impl ::core::ops::FnMut(#krate::ComponentId),
                ) {
                    #(#register)*
                }

                #[inline(always)]
                fn take(self, __f: &mut impl ::core::ops::FnMut(#krate::__private::OwningPtr<'_>)) {
                    #(#take)*
                }

                #[inline(always)]
                unsafe fn write(self, __slot: &mut impl ::core::ops::FnMut() -> ::core::ptr::NonNull<::core::primitive::u8>) {
                    #(#write)*
                }

                #[inline(always)]
                unsafe fn from_components<'__a>(
                    __next: &mut impl ::core::ops::FnMut() -> #krate::__private::OwningPtr<'__a>,
                ) -> Self {
                    Self { #(#build)* }
                }

                const __HOOKED: bool = false #(|| <#tys as #krate::Bundle>::__HOOKED)*;

                const __LINKS: bool = false #(|| <#tys as #krate::Bundle>::__LINKS)*;

                fn __check_links(
                    &self,
                    __world: &#krate::World,
                    __entity: ::core::option::Option<#krate::Entity>,
                ) -> ::core::result::Result<(), #krate::EcsError> {
                    #(<#tys as #krate::Bundle>::__check_links(&self.#members, __world, __entity)?;)*
                    ::core::result::Result::Ok(())
                }

                fn __remove_present(__world: &mut #krate::World, __entity: #krate::Entity) {
                    #(<#tys as #krate::Bundle>::__remove_present(__world, __entity);)*
                }
            }
        };
    }
}
