//! Parsing and validation: from `syn::DeriveInput` to a checked description, with
//! every error spanned at the user's token that causes it.

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Error, GenericParam, Generics, Ident, Member, Path, Type};

/// A type to implement `Component` for.
pub struct ComponentDef<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub krate: Path,
}

/// A struct to implement `Bundle` for.
pub struct BundleDef<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub krate: Path,
    pub fields: Vec<(Member, &'a Type)>,
}

pub fn component(input: &DeriveInput) -> syn::Result<ComponentDef<'_>> {
    let mut errors = Errors::default();
    if let Data::Union(data) = &input.data {
        errors.push(Error::new(
            data.union_token.span,
            "`Component` cannot be derived for a union: the world could not know which field to drop; \
             wrap the union in a struct that knows",
        ));
    }
    for param in &input.generics.params {
        if let GenericParam::Lifetime(lifetime) = param {
            errors.push(Error::new(
                lifetime.span(),
                format!(
                    "`Component` requires `Send + Sync + 'static`, so a component cannot borrow: \
                     remove the lifetime `{}` and store owned data (or an `Entity`) instead",
                    lifetime.lifetime
                ),
            ));
        }
    }
    let krate = errors.keep(crate_attribute(input, "component"));
    errors.finish()?;
    Ok(ComponentDef { ident: &input.ident, generics: &input.generics, krate: krate.expect("no error") })
}

pub fn bundle(input: &DeriveInput) -> syn::Result<BundleDef<'_>> {
    let mut errors = Errors::default();
    let krate = errors.keep(crate_attribute(input, "bundle"));
    let fields = match &input.data {
        Data::Struct(data) => &data.fields,
        Data::Enum(data) => {
            return Err(Error::new(
                data.enum_token.span,
                "`Bundle` cannot be derived for an enum: a bundle always holds all of its components; \
                 derive `Component` to store the enum as one component",
            ));
        }
        Data::Union(data) => {
            return Err(Error::new(data.union_token.span, "`Bundle` cannot be derived for a union; use a struct"));
        }
    };
    let fields: Vec<_> = fields
        .iter()
        .enumerate()
        .map(|(i, f)| (f.ident.clone().map_or_else(|| Member::from(i), Member::Named), &f.ty))
        .collect();
    for (i, (member, ty)) in fields.iter().enumerate() {
        let written = ty.to_token_stream().to_string();
        if let Some((first, _)) = fields[..i].iter().find(|(_, t)| t.to_token_stream().to_string() == written) {
            errors.push(Error::new(
                ty.span(),
                format!(
                    "fields `{}` and `{}` both have type `{written}`: an entity holds at most one value \
                     of each component type",
                    display(first),
                    display(member)
                ),
            ));
        }
    }
    errors.finish()?;
    Ok(BundleDef { ident: &input.ident, generics: &input.generics, krate: krate.expect("no error"), fields })
}

fn display(member: &Member) -> String {
    match member {
        Member::Named(ident) => ident.to_string(),
        Member::Unnamed(index) => index.index.to_string(),
    }
}

/// Reads `#[name(crate = path)]`, refusing any other key. Defaults to `::ecs_core`.
fn crate_attribute(input: &DeriveInput, name: &str) -> syn::Result<Path> {
    let mut krate: Path = syn::parse_quote!(::ecs_core);
    let mut errors = Errors::default();
    for attr in input.attrs.iter().filter(|a| a.path().is_ident(name)) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                krate = meta.value()?.parse::<syn::LitStr>()?.parse()?;
                Ok(())
            } else {
                Err(meta.error(format!(
                    "unknown key `{}` in `#[{name}(...)]`; the only key is `crate = \"path\"`",
                    meta.path.to_token_stream()
                )))
            }
        });
        if let Err(error) = result {
            errors.push(error);
        }
    }
    errors.finish()?;
    Ok(krate)
}

/// Several errors reported at once, so the user fixes them in one pass.
#[derive(Default)]
struct Errors(Option<Error>);

impl Errors {
    fn push(&mut self, error: Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    fn keep<T>(&mut self, result: syn::Result<T>) -> Option<T> {
        result.map_err(|e| self.push(e)).ok()
    }

    fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}
