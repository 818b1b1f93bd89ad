//! `#[require(A, B = expr, C(1, 2), D { x: 1 })]` on a `#[derive(Component)]`:
//! the components an entity gains with this one when it lacks them, each made
//! by `Default`, by the expression after `=`, or by the constructor written
//! (a tuple-struct call or a struct literal, whose type is the path before it).

use proc_macro::{Delimiter, Spacing, Span, TokenStream, TokenTree};

use crate::error::{Error, Errors, Result};
use crate::read::{Input, Meta};

/// One required component: its type and the expression that makes it
/// (`None`: its `Default`).
pub struct Required {
    pub ty: TokenStream,
    pub value: Option<TokenStream>,
    /// The entry's first token, where a type error is reported.
    pub span: Span,
}

/// Every `#[require(…)]` of the component, in order.
pub fn parse(input: &Input) -> Result<Vec<Required>> {
    let mut errors = Errors::default();
    let mut required = Vec::new();
    for attr in input.attrs.iter().filter(|a| a.is("require")) {
        let Meta::List(group) = &attr.meta else {
            errors.push(Error::new(
                attr.span(),
                "write the required components in parentheses: `#[require(Transform, Health = Health(100))]`",
            ));
            continue;
        };
        for entry in split_commas(group.stream()) {
            match entry_of(entry) {
                Ok(entry) => required.push(entry),
                Err(error) => errors.push(error),
            }
        }
    }
    errors.finish()?;
    Ok(required)
}

/// The entries of a comma-separated list: commas inside groups or generic
/// arguments do not split. In a type every `<` opens arguments; in the
/// expression after `=` only a turbofish's (`::<`) does, a `<` there being
/// most likely a comparison.
fn split_commas(stream: TokenStream) -> Vec<Vec<TokenTree>> {
    let mut entries = vec![Vec::new()];
    let mut angles = 0usize;
    let mut in_value = false;
    for token in stream {
        let entry = entries.last().expect("one entry at least");
        if let TokenTree::Punct(punct) = &token {
            match punct.as_char() {
                '<' if !in_value || ends_with_colon(entry) => angles += 1,
                '>' if angles > 0 && !ends_with_joint(entry, '-') => angles -= 1,
                '=' if angles == 0 => in_value = true,
                ',' if angles == 0 => {
                    entries.push(Vec::new());
                    in_value = false;
                    continue;
                }
                _ => {}
            }
        }
        entries.last_mut().expect("one entry at least").push(token);
    }
    entries.retain(|entry| !entry.is_empty());
    entries
}

/// Whether the tokens end with a punctuation `c` joined to what follows
/// (the `-` of a `->`, whose `>` closes no angle).
fn ends_with_joint(tokens: &[TokenTree], c: char) -> bool {
    matches!(tokens.last(), Some(TokenTree::Punct(p)) if p.as_char() == c && p.spacing() == Spacing::Joint)
}

/// Whether the tokens end with a `:` (of a `::`, which a turbofish's `<`
/// follows).
fn ends_with_colon(tokens: &[TokenTree]) -> bool {
    matches!(tokens.last(), Some(TokenTree::Punct(p)) if p.as_char() == ':')
}

/// One entry: `Type`, `Type = expr`, `Type(args)` or `Type { fields }`.
fn entry_of(tokens: Vec<TokenTree>) -> Result<Required> {
    let span = tokens[0].span();
    // The first `=` outside groups and generic arguments (`A<Item = u8>`)
    // is the value's.
    let mut angles = 0usize;
    let assign = tokens.iter().position(|t| {
        let TokenTree::Punct(p) = t else { return false };
        match p.as_char() {
            '<' => angles += 1,
            '>' => angles = angles.saturating_sub(1),
            '=' => return angles == 0,
            _ => {}
        }
        false
    });
    let (ty, value) = match assign {
        Some(at) => {
            let (ty, value) = tokens.split_at(at);
            if value.len() < 2 {
                return Err(Error::new(span, "`Type = …` needs an expression after `=`"));
            }
            (ty.to_vec(), Some(value[1..].iter().cloned().collect::<TokenStream>()))
        }
        None => match tokens.last() {
            Some(TokenTree::Group(group))
                if tokens.len() > 1 && matches!(group.delimiter(), Delimiter::Parenthesis | Delimiter::Brace) =>
            {
                (tokens[..tokens.len() - 1].to_vec(), Some(tokens.iter().cloned().collect::<TokenStream>()))
            }
            _ => (tokens, None),
        },
    };
    if ty.is_empty() || !ty.iter().all(is_path_token) {
        return Err(Error::new(
            span,
            "a required component is a type, optionally with its value: `A`, `A = expr`, `A(1)` or `A { x: 1 }`",
        ));
    }
    Ok(Required { ty: ty.into_iter().collect(), value, span })
}

/// Tokens a type path is made of (`a::B<C>`).
fn is_path_token(token: &TokenTree) -> bool {
    match token {
        TokenTree::Ident(_) => true,
        TokenTree::Punct(p) => matches!(p.as_char(), ':' | '<' | '>' | ',' | '\'' | '&'),
        TokenTree::Group(_) | TokenTree::Literal(_) => false,
    }
}
