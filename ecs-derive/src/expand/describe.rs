//! `#[derive(Describe)]` (and `#[component(describe)]`) expansion: an
//! `unsafe impl Describe` whose schema is made from `offset_of!` and each
//! field type's own `Describe` impl.

use proc_macro::{Literal, TokenStream};

use crate::read::ParamKind;
use crate::tokens::code;
use crate::validate::{DescribeDef, DescribeShape};

pub fn describe(def: DescribeDef<'_>) -> TokenStream {
    let DescribeDef { ident, generics, krate, shape } = def;
    let c = code!("$krate::component", krate);
    let name = Literal::string(&unraw(ident));
    let impl_generics = generics.impl_generics();
    let ty_generics = generics.ty_generics();
    // Every type parameter must describe itself for a field of its type to.
    let bounds: Vec<TokenStream> = generics
        .params
        .iter()
        .filter(|p| p.kind == ParamKind::Type)
        .map(|p| {
            let param = &p.name;
            code!("$param: $c::Describe", param, c)
        })
        .collect();
    let where_clause = generics.where_clause(&bounds);
    let mut extra = TokenStream::new();
    let kind = match shape {
        DescribeShape::Struct(fields) => {
            let fields: Vec<TokenStream> = fields
                .iter()
                .map(|(member, field_name, ty)| {
                    let field_name = Literal::string(field_name);
                    code!(
                        "$c::Field::new($field_name, ::core::mem::offset_of!(Self, $member), <$ty as $c::Describe>::KIND),",
                        c,
                        field_name,
                        member,
                        ty
                    )
                })
                .collect();
            code!("$c::FieldKind::Struct(&unsafe { $c::Schema::of_type::<Self>($name, &[$fields]) })", c, name, fields)
        }
        DescribeShape::Enum(variants) => {
            let listed: Vec<TokenStream> = variants
                .iter()
                .map(|v| {
                    let text = Literal::string(&unraw(v));
                    code!("$c::Variant::new($text, Self::$v as i64),", c, text, v)
                })
                .collect();
            let reads: Vec<TokenStream> = variants.iter().map(|v| code!("Self::$v => Self::$v as i64,", v)).collect();
            let writes: Vec<TokenStream> =
                variants.iter().map(|v| code!("if __d == Self::$v as i64 { Self::$v } else", v)).collect();
            let converters = code!(
                "#[automatically_derived]
                impl $impl_generics $ident $ty_generics $where_clause {
                    #[doc(hidden)]
                    unsafe fn __ecs_describe_read(__ptr: *const u8) -> i64 {
                        // SAFETY: the schema's contract: a valid value.
                        match unsafe { &*__ptr.cast::<Self>() } {
                            $reads
                        }
                    }
                    #[doc(hidden)]
                    unsafe fn __ecs_describe_write(__ptr: *mut u8, __d: i64) {
                        let __value = $writes { return };
                        // SAFETY: the schema's contract: memory for a `Self`,
                        // aligned and writable; what it held is not read.
                        unsafe { __ptr.cast::<Self>().write(__value) };
                    }
                }",
                impl_generics,
                ident,
                ty_generics,
                where_clause,
                reads,
                writes
            );
            extra = converters;
            code!(
                "$c::FieldKind::Enum(&unsafe {
                    $c::EnumSchema::of_type::<Self>(
                        $name,
                        &[$listed],
                        Self::__ecs_describe_read,
                        Self::__ecs_describe_write,
                    )
                })",
                c,
                name,
                listed
            )
        }
    };
    code!(
        "const _: () = {
            // SAFETY: the schema is `Self`'s own: offsets from `offset_of!`, each
            // field's kind from its type's `Describe` impl, whose contract says
            // it is true; an enum's variants, discriminants and converters are
            // its own.
            #[automatically_derived]
            unsafe impl $impl_generics $c::Describe for $ident $ty_generics $where_clause {
                const KIND: $c::FieldKind = $kind;
            }
            $extra
        };",
        impl_generics,
        c,
        ident,
        ty_generics,
        where_clause,
        kind,
        extra
    )
}

/// The identifier as a schema spells it: `r#type` is `type`.
fn unraw(ident: &proc_macro::Ident) -> String {
    let name = ident.to_string();
    name.strip_prefix("r#").map_or(name.clone(), str::to_owned)
}
