//! `#[derive(Bundle)]` expansion.

use proc_macro::TokenStream;

use crate::tokens::code;
use crate::validate::BundleDef;

pub fn bundle(def: BundleDef<'_>) -> TokenStream {
    let BundleDef { ident, generics, krate, fields } = def;
    let impl_generics = generics.impl_generics();
    let ty_generics = generics.ty_generics();
    // As std's derives bound each type parameter: a field whose type names one
    // (`foo: T`, `foo: Wrapper<T>`) must be a bundle, so the impl holds for
    // exactly the arguments that make every field one.
    let params: Vec<String> =
        generics.params.iter().filter(|p| p.kind == crate::read::ParamKind::Type).map(|p| p.name.to_string()).collect();
    let bounds: Vec<_> = fields
        .iter()
        .filter(|(_, ty)| names_any(&ty.0, &params))
        .map(|(_, ty)| code!(ty.span() => "$ty: $krate::Bundle", ty, krate))
        .collect();
    let where_clause = generics.where_clause(&bounds);
    let mut register = Vec::new();
    let mut take = Vec::new();
    let mut write = Vec::new();
    let mut build = Vec::new();
    let mut hooked = Vec::new();
    let mut links = Vec::new();
    let mut check_links = Vec::new();
    let mut remove_present = Vec::new();
    for (member, ty) in &fields {
        // Each field's calls are spanned at the field's type, so "`X` is not a bundle"
        // points at the field that is wrong.
        let span = ty.span();
        register.push(code!(span => "<$ty as $krate::Bundle>::register(__components, __ids);", ty, krate));
        take.push(code!(span => "<$ty as $krate::Bundle>::take(self.$member, __f);", ty, krate, member));
        // The `unsafe` blocks themselves keep the macro's call-site span: spanned at the
        // user's field, they would trip a user's `#![forbid(unsafe_code)]`.
        // SAFETY (of each block): forwarded from the caller: `__slot` yields valid
        // slots in order, and `__next` this field's values in order.
        let call = code!(span => "<$ty as $krate::Bundle>::write(self.$member, __slot)", ty, krate, member);
        write.push(code!("unsafe { $call };", call));
        let call = code!(span => "<$ty as $krate::Bundle>::from_components(__next)", ty, krate);
        build.push(code!("$member: unsafe { $call },", member, call));
        hooked.push(code!("|| <$ty as $krate::Bundle>::__HOOKED", ty, krate));
        links.push(code!("|| <$ty as $krate::Bundle>::__LINKS", ty, krate));
        check_links.push(code!(
            "<$ty as $krate::Bundle>::__check_links(&self.$member, __world, __entity)?;",
            ty,
            krate,
            member
        ));
        remove_present.push(code!("<$ty as $krate::Bundle>::__remove_present(__world, __entity);", ty, krate));
    }
    // SAFETY (of the emitted impl): every method visits the fields in
    // declaration order, and each field's own `Bundle` impl upholds the
    // contract for its components.
    code!(
        "const _: () = {
            #[automatically_derived]
            unsafe impl $impl_generics $krate::Bundle for $ident $ty_generics $where_clause {
                #[inline]
                fn register(
                    __components: &mut $krate::__private::Components,
                    __ids: &mut impl ::core::ops::FnMut($krate::ComponentId),
                ) {
                    $register
                }

                #[inline(always)]
                fn take(self, __f: &mut impl ::core::ops::FnMut($krate::__private::OwningPtr<'_>)) {
                    $take
                }

                #[inline(always)]
                unsafe fn write(self, __slot: &mut impl ::core::ops::FnMut() -> ::core::ptr::NonNull<::core::primitive::u8>) {
                    $write
                }

                #[inline(always)]
                unsafe fn from_components<'__a>(
                    __next: &mut impl ::core::ops::FnMut() -> $krate::__private::OwningPtr<'__a>,
                ) -> Self {
                    Self { $build }
                }

                const __HOOKED: bool = false $hooked;

                const __LINKS: bool = false $links;

                fn __check_links(
                    &self,
                    __world: &$krate::World,
                    __entity: ::core::option::Option<$krate::Entity>,
                ) -> ::core::result::Result<(), $krate::EcsError> {
                    $check_links
                    ::core::result::Result::Ok(())
                }

                fn __remove_present(__world: &mut $krate::World, __entity: $krate::Entity) {
                    $remove_present
                }
            }
        };",
        impl_generics,
        krate,
        ident,
        ty_generics,
        where_clause,
        register,
        take,
        write,
        build,
        hooked,
        links,
        check_links,
        remove_present
    )
}

/// Whether `tokens` name one of the type parameters `params` anywhere.
fn names_any(tokens: &[proc_macro::TokenTree], params: &[String]) -> bool {
    use proc_macro::TokenTree;
    tokens.iter().any(|token| match token {
        TokenTree::Ident(ident) => params.iter().any(|p| *p == ident.to_string()),
        TokenTree::Group(group) => names_any(&group.stream().into_iter().collect::<Vec<_>>(), params),
        _ => false,
    })
}
