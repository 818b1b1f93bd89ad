//! `#[derive(QueryData)]` expansion: `QueryData` for the struct, forwarding each method
//! to the fields in order, and `ReadOnlyQueryData` when every field is read-only.

use proc_macro::{Literal, Span, TokenStream};

use crate::read::{Ty, index};
use crate::tokens::{code, lifetime as named_lifetime, tuple};
use crate::validate::QueryDef;

pub fn query(def: QueryDef<'_>) -> TokenStream {
    let QueryDef { ident, lifetime, krate, fields } = def;
    let q = code!("$krate::query", krate);
    let tys: Vec<&Ty> = fields.iter().map(|(_, ty)| *ty).collect();
    let indices: Vec<Literal> = (0..fields.len()).map(index).collect();
    // Spanned at the field for errors; the `unsafe` block keeps the call-site span
    // so that a user's `#![forbid(unsafe_code)]` does not see it as theirs.
    // SAFETY (of each block): forwarded from the caller.
    let fetched: Vec<TokenStream> = fields
        .iter()
        .zip(&indices)
        .map(|((name, ty), index)| {
            let call = code!(ty.span() => "<$ty as $q::QueryData>::fetch(&__fetch.$index, __row)", ty, q, index);
            code!("$name: unsafe { $call },", name, call)
        })
        .collect();
    let shrunk: Vec<TokenStream> = fields
        .iter()
        .map(|(name, ty)| code!(ty.span() => "$name: <$ty as $q::QueryData>::shrink(__item.$name),", name, ty, q))
        .collect();
    let per_field = |template: &str| -> Vec<TokenStream> {
        tys.iter()
            .zip(&indices)
            .map(|(ty, i)| crate::tokens::fill(template, None, &[("ty", ty), ("q", &q), ("i", i)]))
            .collect()
    };
    let of_fields = |template: &str| -> Vec<TokenStream> {
        tys.iter().map(|ty| crate::tokens::fill(template, None, &[("ty", ty), ("q", &q)])).collect()
    };
    let access = per_field("<$ty as $q::QueryData>::access(&__state.$i, __access);");
    let matches = per_field("&& <$ty as $q::QueryData>::matches(&__state.$i, __archetype)");
    let required = per_field("<$ty as $q::QueryData>::required(&__state.$i, __f);");
    let included = per_field("<$ty as $q::QueryData>::included(&__state.$i, __f);");
    let columns = per_field("<$ty as $q::QueryData>::columns(&__state.$i, __archetype, __out);");
    let marks = per_field(
        "unsafe { <$ty as $q::QueryData>::mark_written(&__fetch.$i, ::core::clone::Clone::clone(&__rows)) };",
    );
    let slice_marks =
        per_field("unsafe { <$ty as $q::QueryData>::mark_sliced(&__fetch.$i, ::core::clone::Clone::clone(&__rows)) };");
    let stamps = per_field("|| <$ty as $q::QueryData>::stamps(&__fetch.$i)");
    let filters = per_field("&& unsafe { <$ty as $q::QueryData>::filter_row(&__fetch.$i, __row) }");
    let run_ends = per_field(
        "let __end = if <$ty as $q::QueryData>::DENSE {
            __end
        } else {
            unsafe { <$ty as $q::QueryData>::run_end(&__fetch.$i, __rows.start..__end) }
        };",
    );
    let slices =
        per_field("unsafe { <$ty as $q::QueryData>::slice(&__fetch.$i, ::core::clone::Clone::clone(&__rows)) },");
    let lifetime_span = lifetime.clone().into_iter().next().map_or_else(Span::call_site, |t| t.span());
    let w = named_lifetime("__w", lifetime_span);
    let slice_types = tuple(&of_fields_with(&tys, &q, &w, "<$ty as $q::QueryData>::Slice<$w>"));
    let fetch_types = tuple(&of_fields_with(&tys, &q, &w, "<$ty as $q::QueryData>::Fetch<$w>"));
    let state_types = tuple(&of_fields("<$ty as $q::QueryData>::State"));
    let columns_count = of_fields("+ <$ty as $q::QueryData>::COLUMNS");
    let arrays_count = of_fields("+ <$ty as $q::QueryData>::ARRAYS");
    let dense = of_fields("&& <$ty as $q::QueryData>::DENSE");
    let leading = crate::tokens::join(
        &of_fields("(<$ty as $q::QueryData>::COLUMNS, <$ty as $q::QueryData>::LEADING_TABLE_COLUMN)"),
        ',',
    );
    let init = tuple(&of_fields("<$ty as $q::QueryData>::init_state()"));
    // SAFETY (of each block): forwarded from the caller, field by field, in order.
    let fetch_archetype =
        tuple(&of_fields("unsafe { <$ty as $q::QueryData>::fetch_archetype(__archetype, __columns, __ctx) }"));
    let read_only = of_fields("$ty: $q::ReadOnlyQueryData,");
    // SAFETY (of the emitted `QueryData` impl): every method forwards to the
    // fields' own implementations, in declaration order, so access, cached
    // columns and matching are exactly the union of the fields'; duplicate
    // mutable borrows are refused when the state is made. `ReadOnlyQueryData`
    // only when every field is read-only.
    code!(
        "const _: () = {
            #[automatically_derived]
            unsafe impl<$lifetime> $q::QueryData for $ident<$lifetime> {
                type Item<$w> = $ident<$w>;
                type Slice<$w> = $slice_types;
                type Fetch<$w> = $fetch_types;
                type State = $state_types;
                const COLUMNS: usize = 0 $columns_count;
                const ARRAYS: usize = 0 $arrays_count;
                const DENSE: bool = true $dense;
                const LEADING_TABLE_COLUMN: bool = $krate::__private::leading_table_column(&[$leading]);

                fn init_state() -> Self::State {
                    $init
                }
                fn access(__state: &Self::State, __access: &mut $q::Access) {
                    $access
                }
                #[inline]
                fn matches(__state: &Self::State, __archetype: &$krate::Archetype) -> bool {
                    true $matches
                }
                fn required(__state: &Self::State, __f: &mut impl ::core::ops::FnMut($krate::ComponentId)) {
                    $required
                }
                fn included(__state: &Self::State, __f: &mut impl ::core::ops::FnMut($krate::ComponentId)) {
                    $included
                }
                fn columns(
                    __state: &Self::State,
                    __archetype: &$krate::Archetype,
                    __out: &mut ::std::vec::Vec<$q::CachedColumn>,
                ) {
                    $columns
                }
                #[inline(always)]
                unsafe fn fetch_archetype<$w>(
                    __archetype: &$w $krate::Archetype,
                    __columns: &mut &[$q::CachedColumn],
                    __ctx: $q::FetchContext,
                ) -> Self::Fetch<$w> {
                    $fetch_archetype
                }
                #[inline(always)]
                unsafe fn fetch<$w>(__fetch: &Self::Fetch<$w>, __row: ::core::primitive::usize) -> Self::Item<$w> {
                    $ident { $fetched }
                }
                #[inline(always)]
                fn shrink<'__long: '__short, '__short>(__item: Self::Item<'__long>) -> Self::Item<'__short> {
                    $ident { $shrunk }
                }
                #[inline(always)]
                #[allow(unused_unsafe)]
                unsafe fn filter_row(__fetch: &Self::Fetch<'_>, __row: ::core::primitive::usize) -> bool {
                    true $filters
                }
                #[inline(always)]
                #[allow(unused_unsafe)]
                unsafe fn run_end(
                    __fetch: &Self::Fetch<'_>,
                    __rows: ::core::ops::Range<::core::primitive::usize>,
                ) -> ::core::primitive::usize {
                    let __end = __rows.end;
                    $run_ends
                    __end
                }
                #[inline(always)]
                #[allow(unused_unsafe)]
                unsafe fn slice<$w>(
                    __fetch: &Self::Fetch<$w>,
                    __rows: ::core::ops::Range<::core::primitive::usize>,
                ) -> Self::Slice<$w> {
                    ($slices)
                }
                #[inline(always)]
                #[allow(unused_unsafe)]
                unsafe fn mark_written(
                    __fetch: &Self::Fetch<'_>,
                    __rows: ::core::ops::Range<::core::primitive::usize>,
                ) {
                    $marks
                }

                #[inline(always)]
                #[allow(unused_unsafe)]
                unsafe fn mark_sliced(
                    __fetch: &Self::Fetch<'_>,
                    __rows: ::core::ops::Range<::core::primitive::usize>,
                ) {
                    $slice_marks
                }

                #[inline(always)]
                fn stamps(__fetch: &Self::Fetch<'_>) -> bool {
                    false $stamps
                }
            }

            #[automatically_derived]
            unsafe impl<$lifetime> $q::ReadOnlyQueryData for $ident<$lifetime>
            where
                $read_only
            {
            }
        };",
        lifetime,
        q,
        ident,
        w,
        slice_types,
        fetch_types,
        state_types,
        columns_count,
        arrays_count,
        dense,
        leading,
        init,
        access,
        krate,
        matches,
        required,
        included,
        columns,
        fetch_archetype,
        fetched,
        shrunk,
        filters,
        run_ends,
        slices,
        marks,
        slice_marks,
        stamps,
        read_only
    )
}

/// `template` filled for each field type, with `$w` the item lifetime.
fn of_fields_with(tys: &[&Ty], q: &TokenStream, w: &TokenStream, template: &str) -> Vec<TokenStream> {
    tys.iter().map(|ty| crate::tokens::fill(template, None, &[("ty", ty), ("q", q), ("w", w)])).collect()
}
