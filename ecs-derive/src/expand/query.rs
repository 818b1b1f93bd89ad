//! `#[derive(QueryData)]` expansion: `QueryData` for the struct, forwarding each method
//! to the fields in order, and `ReadOnlyQueryData` when every field is read-only.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::parse::QueryDef;

pub fn query(def: QueryDef<'_>) -> TokenStream {
    let QueryDef { ident, lifetime, krate, fields } = def;
    let q = quote!(#krate::query);
    let tys: Vec<_> = fields.iter().map(|(_, ty)| *ty).collect();
    let indices: Vec<_> = (0..fields.len()).map(syn::Index::from).collect();
    // Spanned at the field for errors; the `unsafe` block keeps the call-site span
    // so that a user's `#![forbid(unsafe_code)]` does not see it as theirs.
    let fetched = fields.iter().zip(&indices).map(|((name, ty), index)| {
        let call = quote_spanned! {ty.span()=> <#ty as #q::QueryData>::fetch(&__fetch.#index, __row) };
        quote! {
            // SAFETY: forwarded from the caller.
            #name: unsafe { #call },
        }
    });
    let shrunk = fields.iter().map(|(name, ty)| {
        quote_spanned! {ty.span()=> #name: <#ty as #q::QueryData>::shrink(__item.#name), }
    });
    let per_field = |body: fn(&syn::Type, &syn::Index, &TokenStream) -> TokenStream| -> Vec<TokenStream> {
        tys.iter().zip(&indices).map(|(ty, index)| body(ty, index, &q)).collect()
    };
    let access = per_field(|ty, i, q| quote!(<#ty as #q::QueryData>::access(&__state.#i, __access);));
    let matches = per_field(|ty, i, q| quote!(&& <#ty as #q::QueryData>::matches(&__state.#i, __archetype)));
    let required = per_field(|ty, i, q| quote!(<#ty as #q::QueryData>::required(&__state.#i, __f);));
    let columns = per_field(|ty, i, q| quote!(<#ty as #q::QueryData>::columns(&__state.#i, __archetype, __out);));
    let marks = per_field(
        |ty, i, q| quote!(unsafe { <#ty as #q::QueryData>::mark_written(&__fetch.#i, ::core::clone::Clone::clone(&__rows)) };),
    );
    let slice_marks = per_field(
        |ty, i, q| quote!(unsafe { <#ty as #q::QueryData>::mark_sliced(&__fetch.#i, ::core::clone::Clone::clone(&__rows)) };),
    );
    let filters = per_field(|ty, i, q| quote!(&& unsafe { <#ty as #q::QueryData>::filter_row(&__fetch.#i, __row) }));
    let run_ends = per_field(|ty, i, q| {
        quote! {
            let __end = if <#ty as #q::QueryData>::DENSE {
                __end
            } else {
                unsafe { <#ty as #q::QueryData>::run_end(&__fetch.#i, __rows.start..__end) }
            };
        }
    });
    let slices = per_field(
        |ty, i, q| quote!(unsafe { <#ty as #q::QueryData>::slice(&__fetch.#i, ::core::clone::Clone::clone(&__rows)) },),
    );
    let w = syn::Lifetime::new("'__w", lifetime.span());
    quote! {
        const _: () = {
            #[automatically_derived]
            // SAFETY: every method forwards to the fields' own implementations, in
            // declaration order, so access, cached columns and matching are exactly
            // the union of the fields'; duplicate mutable borrows are refused when
            // the state is made.
            unsafe impl<#lifetime> #q::QueryData for #ident<#lifetime> {
                type Item<#w> = #ident<#w>;
                type Slice<#w> = (#(<#tys as #q::QueryData>::Slice<#w>,)*);
                type Fetch<#w> = (#(<#tys as #q::QueryData>::Fetch<#w>,)*);
                type State = (#(<#tys as #q::QueryData>::State,)*);
                const COLUMNS: usize = 0 #(+ <#tys as #q::QueryData>::COLUMNS)*;
                const ARRAYS: usize = 0 #(+ <#tys as #q::QueryData>::ARRAYS)*;
                const DENSE: bool = true #(&& <#tys as #q::QueryData>::DENSE)*;
                const LEADING_TABLE_COLUMN: bool = #q::leading_table_column(&[
                    #((<#tys as #q::QueryData>::COLUMNS, <#tys as #q::QueryData>::LEADING_TABLE_COLUMN)),*
                ]);

                fn init_state() -> Self::State {
                    (#(<#tys as #q::QueryData>::init_state(),)*)
                }
                fn access(__state: &Self::State, __access: &mut #q::Access) {
                    #(#access)*
                }
                #[inline]
                fn matches(__state: &Self::State, __archetype: &#krate::Archetype) -> bool {
                    true #(#matches)*
                }
                fn required(__state: &Self::State, __f: &mut impl ::core::ops::FnMut(#krate::ComponentId)) {
                    #(#required)*
                }
                fn columns(
                    __state: &Self::State,
                    __archetype: &#krate::Archetype,
                    __out: &mut ::std::vec::Vec<#q::CachedColumn>,
                ) {
                    #(#columns)*
                }
                #[inline(always)]
                unsafe fn fetch_archetype<#w>(
                    __archetype: &#w #krate::Archetype,
                    __columns: &mut &[#q::CachedColumn],
                    __ctx: #q::FetchContext,
                ) -> Self::Fetch<#w> {
                    // SAFETY: forwarded from the caller, field by field, in order.
                    (#(unsafe { <#tys as #q::QueryData>::fetch_archetype(__archetype, __columns, __ctx) },)*)
                }
                #[inline(always)]
                unsafe fn fetch<#w>(__fetch: &Self::Fetch<#w>, __row: ::core::primitive::usize) -> Self::Item<#w> {
                    #ident { #(#fetched)* }
                }
                #[inline(always)]
                fn shrink<'__long: '__short, '__short>(__item: Self::Item<'__long>) -> Self::Item<'__short> {
                    #ident { #(#shrunk)* }
                }
                #[inline(always)]
                #[allow(unused_unsafe)]
                unsafe fn filter_row(__fetch: &Self::Fetch<'_>, __row: ::core::primitive::usize) -> bool {
                    // SAFETY: forwarded from the caller.
                    true #(#filters)*
                }
                #[inline(always)]
                #[allow(unused_unsafe)]
                unsafe fn run_end(
                    __fetch: &Self::Fetch<'_>,
                    __rows: ::core::ops::Range<::core::primitive::usize>,
                ) -> ::core::primitive::usize {
                    let __end = __rows.end;
                    // SAFETY: forwarded from the caller: each field narrows the run,
                    // which keeps starting at `__rows.start`.
                    #(#run_ends)*
                    __end
                }
                #[inline(always)]
                #[allow(unused_unsafe)]
                unsafe fn slice<#w>(
                    __fetch: &Self::Fetch<#w>,
                    __rows: ::core::ops::Range<::core::primitive::usize>,
                ) -> Self::Slice<#w> {
                    // SAFETY: forwarded from the caller.
                    (#(#slices)*)
                }
                #[inline(always)]
                #[allow(unused_unsafe)]
                unsafe fn mark_written(
                    __fetch: &Self::Fetch<'_>,
                    __rows: ::core::ops::Range<::core::primitive::usize>,
                ) {
                    // SAFETY: forwarded from the caller.
                    #(#marks)*
                }

                #[inline(always)]
                #[allow(unused_unsafe)]
                unsafe fn mark_sliced(
                    __fetch: &Self::Fetch<'_>,
                    __rows: ::core::ops::Range<::core::primitive::usize>,
                ) {
                    // SAFETY: forwarded from the caller.
                    #(#slice_marks)*
                }
            }

            #[automatically_derived]
            // SAFETY: only when every field is read-only.
            unsafe impl<#lifetime> #q::ReadOnlyQueryData for #ident<#lifetime>
            where
                #(#tys: #q::ReadOnlyQueryData,)*
            {
            }
        };
    }
}
