//! Writing code without `quote`: a template is Rust source in a string, with
//! `$name` where a value is spliced in. The compiler's own lexer reads the
//! template (one call per template), so the derive crate needs no parser of its
//! own, and spliced user tokens keep their spans (errors in the generated code
//! point at the user's field, hook or type).

use proc_macro::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};

/// Something that can be spliced into a template.
pub trait ToTokens {
    fn to_tokens(&self, out: &mut TokenStream);
}

impl ToTokens for TokenStream {
    fn to_tokens(&self, out: &mut TokenStream) {
        out.extend(self.clone());
    }
}

impl ToTokens for TokenTree {
    fn to_tokens(&self, out: &mut TokenStream) {
        out.extend([self.clone()]);
    }
}

impl ToTokens for Ident {
    fn to_tokens(&self, out: &mut TokenStream) {
        out.extend([TokenTree::Ident(self.clone())]);
    }
}

impl ToTokens for Literal {
    fn to_tokens(&self, out: &mut TokenStream) {
        out.extend([TokenTree::Literal(self.clone())]);
    }
}

/// `true` or `false`.
impl ToTokens for bool {
    fn to_tokens(&self, out: &mut TokenStream) {
        out.extend([TokenTree::Ident(Ident::new(if *self { "true" } else { "false" }, Span::call_site()))]);
    }
}

/// A suffixed literal (`3usize`).
impl ToTokens for usize {
    fn to_tokens(&self, out: &mut TokenStream) {
        out.extend([TokenTree::Literal(Literal::usize_suffixed(*self))]);
    }
}

impl<T: ToTokens + ?Sized> ToTokens for &T {
    fn to_tokens(&self, out: &mut TokenStream) {
        (**self).to_tokens(out);
    }
}

/// Each element in turn, with nothing between them (`quote`'s `#(#v)*`).
impl<T: ToTokens> ToTokens for Vec<T> {
    fn to_tokens(&self, out: &mut TokenStream) {
        for item in self {
            item.to_tokens(out);
        }
    }
}

/// Fills `template`: every `$name` is replaced by the value given under that
/// name. With `span`, the template's own tokens get it (`quote_spanned`); the
/// spliced values keep theirs.
///
/// # Panics
/// If the template does not lex, or names a value it was not given: both are
/// mistakes in this crate, caught by its tests.
pub fn fill(template: &str, span: Option<Span>, values: &[(&str, &dyn ToTokens)]) -> TokenStream {
    let tokens: TokenStream = template.parse().unwrap_or_else(|e| panic!("template does not lex: {e:?}: {template}"));
    let mut out = TokenStream::new();
    splice(tokens, span, values, &mut out);
    out
}

fn splice(tokens: TokenStream, span: Option<Span>, values: &[(&str, &dyn ToTokens)], out: &mut TokenStream) {
    let mut tokens = tokens.into_iter().peekable();
    while let Some(token) = tokens.next() {
        match token {
            TokenTree::Punct(punct) if punct.as_char() == '$' => {
                let Some(TokenTree::Ident(name)) = tokens.next() else {
                    panic!("`$` without a name in a template");
                };
                let name = name.to_string();
                let (_, value) = values
                    .iter()
                    .find(|(n, _)| *n == name)
                    .unwrap_or_else(|| panic!("template names `${name}`, which it was not given"));
                value.to_tokens(out);
            }
            TokenTree::Group(group) => {
                let mut inner = TokenStream::new();
                splice(group.stream(), span, values, &mut inner);
                let mut filled = Group::new(group.delimiter(), inner);
                filled.set_span(span.unwrap_or_else(|| group.span()));
                out.extend([TokenTree::Group(filled)]);
            }
            mut other => {
                if let Some(span) = span {
                    other.set_span(span);
                }
                out.extend([other]);
            }
        }
    }
}

/// `code!("template", a, b)`: [`fill`] with the local variables `a` and `b`
/// as `$a` and `$b`; `code!(span => "template", a)` spans the template's tokens.
macro_rules! code {
    ($span:expr => $template:expr $(, $name:ident)* $(,)?) => {
        $crate::tokens::fill(
            $template,
            ::core::option::Option::Some($span),
            &[$((::core::stringify!($name), &$name as &dyn $crate::tokens::ToTokens)),*],
        )
    };
    ($template:expr $(, $name:ident)* $(,)?) => {
        $crate::tokens::fill(
            $template,
            ::core::option::Option::None,
            &[$((::core::stringify!($name), &$name as &dyn $crate::tokens::ToTokens)),*],
        )
    };
}
pub(crate) use code;

/// A copy of `tokens` with every token spanned at `span`.
pub fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|token| match token {
            TokenTree::Group(group) => {
                let mut group = Group::new(group.delimiter(), respan(group.stream(), span));
                group.set_span(span);
                TokenTree::Group(group)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}

/// `'name`, spanned.
pub fn lifetime(name: &str, span: Span) -> TokenStream {
    let mut apostrophe = Punct::new('\'', Spacing::Joint);
    apostrophe.set_span(span);
    TokenStream::from_iter([TokenTree::Punct(apostrophe), TokenTree::Ident(Ident::new(name, span))])
}

/// Items joined by `separator` (`a, b, c`), without a trailing one.
pub fn join<T: ToTokens>(items: &[T], separator: char) -> TokenStream {
    let mut out = TokenStream::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.extend([TokenTree::Punct(Punct::new(separator, Spacing::Alone))]);
        }
        item.to_tokens(&mut out);
    }
    out
}

/// `( items, )`: a tuple of the items, a one-element tuple kept a tuple.
pub fn tuple<T: ToTokens>(items: &[T]) -> TokenStream {
    let mut inner = TokenStream::new();
    for item in items {
        item.to_tokens(&mut inner);
        inner.extend([TokenTree::Punct(Punct::new(',', Spacing::Alone))]);
    }
    TokenStream::from_iter([TokenTree::Group(Group::new(Delimiter::Parenthesis, inner))])
}
