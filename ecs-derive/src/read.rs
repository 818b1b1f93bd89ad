//! The item a derive is given, read from its tokens: attributes, visibility,
//! kind, name, generics and fields. Types are kept as the user wrote them;
//! [`Ty`] answers the few questions the derives ask of one.
//!
//! The compiler has already parsed the item, so the input is a well-formed
//! struct, enum or union: this reader only has to find the parts, not reject
//! malformed code.

use proc_macro::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};

use crate::error::{Error, Result};
use crate::tokens::{ToTokens, code};

/// A `#[derive]`d item.
pub struct Input {
    pub attrs: Vec<Attr>,
    pub vis: TokenStream,
    pub kind: Kind,
    /// The `struct`, `enum` or `union` keyword.
    pub kind_span: Span,
    pub ident: Ident,
    pub generics: Generics,
    /// A struct's or union's fields; `Fields::Unit` for an enum.
    pub fields: Fields,
    /// An enum's `{ … }` of variants, as written (the derives that accept enums
    /// only look for attributes inside it).
    pub enum_body: Option<Group>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Struct,
    Enum,
    Union,
}

/// An outer attribute `#[path …]`.
pub struct Attr {
    /// The path as written (`repr`, `component`, `a::b`).
    pub path: Vec<Ident>,
    pub meta: Meta,
}

/// What follows an attribute's path.
pub enum Meta {
    /// `#[name]`.
    Path,
    /// `#[name(…)]` (or with brackets or braces).
    List(Group),
    /// `#[name = …]`, with the `=`'s span.
    NameValue(Span),
}

impl Attr {
    /// Whether the path is the single identifier `name`.
    pub fn is(&self, name: &str) -> bool {
        self.path.len() == 1 && self.path[0].to_string() == name
    }

    pub fn span(&self) -> Span {
        self.path[0].span()
    }

    /// The path, as the compiler prints it (`a::b`).
    pub fn path_string(&self) -> String {
        self.path.iter().map(Ident::to_string).collect::<Vec<_>>().join("::")
    }
}

/// A generic parameter.
pub struct Param {
    pub kind: ParamKind,
    /// The declaration without its default (`T: Clone`, `'a: 'b`, `const N: usize`).
    pub decl: TokenStream,
    /// The name as used in the type (`T`, `'a`, `N`).
    pub name: TokenStream,
    /// The first token.
    pub span: Span,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    Lifetime,
    Type,
    Const,
}

/// The generic parameters and the where clause.
pub struct Generics {
    pub params: Vec<Param>,
    /// The where clause's predicates, each without its comma.
    pub predicates: Vec<TokenStream>,
    /// The `<` (`call_site` when there are no parameters).
    pub span: Span,
    /// The `>`: with the `<`, the generated `impl … for Name<T>` spans the
    /// user's `Name<T>`, which the compiler's notes then point at.
    pub close: Span,
}

impl Generics {
    pub fn is_empty(&self) -> bool {
        self.params.is_empty()
    }

    /// `<'a, T: Bound, const N: usize>` for `impl …`, lifetimes first; nothing
    /// when there are no parameters.
    pub fn impl_generics(&self) -> TokenStream {
        self.angled(|p| &p.decl)
    }

    /// `<'a, T, N>` for naming the type; nothing when there are no parameters.
    pub fn ty_generics(&self) -> TokenStream {
        self.angled(|p| &p.name)
    }

    fn angled(&self, part: impl Fn(&Param) -> &TokenStream) -> TokenStream {
        if self.params.is_empty() {
            return TokenStream::new();
        }
        let lifetimes = self.params.iter().filter(|p| p.kind == ParamKind::Lifetime);
        let others = self.params.iter().filter(|p| p.kind != ParamKind::Lifetime);
        let parts: Vec<TokenStream> = lifetimes.chain(others).map(|p| part(p).clone()).collect();
        let mut out = TokenStream::new();
        let mut open = Punct::new('<', Spacing::Alone);
        open.set_span(self.span);
        let mut close = Punct::new('>', Spacing::Alone);
        close.set_span(self.close);
        out.extend([TokenTree::Punct(open)]);
        out.extend(crate::tokens::join(&parts, ','));
        out.extend([TokenTree::Punct(close)]);
        out
    }

    /// `where` and the predicates followed by `extra`; nothing when there are none.
    pub fn where_clause(&self, extra: &[TokenStream]) -> TokenStream {
        let all: Vec<&TokenStream> = self.predicates.iter().chain(extra).collect();
        if all.is_empty() {
            return TokenStream::new();
        }
        let list = crate::tokens::join(&all, ',');
        code!("where $list", list)
    }
}

/// A struct's or union's fields.
pub enum Fields {
    /// `{ a: A, b: B }`, with the braces' span.
    Named(Vec<Field>, Span),
    /// `(A, B)`, with the parentheses' span.
    Unnamed(Vec<Field>, Span),
    Unit,
}

impl Fields {
    pub fn list(&self) -> &[Field] {
        match self {
            Fields::Named(fields, _) | Fields::Unnamed(fields, _) => fields,
            Fields::Unit => &[],
        }
    }

    /// The delimiters' span (`call_site` for a unit struct, which has none).
    pub fn span(&self) -> Span {
        match self {
            Fields::Named(_, span) | Fields::Unnamed(_, span) => *span,
            Fields::Unit => Span::call_site(),
        }
    }
}

pub struct Field {
    pub attrs: Vec<Attr>,
    pub vis: TokenStream,
    pub ident: Option<Ident>,
    pub ty: Ty,
    /// The first token (an attribute's `#`, the visibility, the name or the type).
    pub span: Span,
}

impl Field {
    /// `self.name` or `self.0`: how to reach the field.
    pub fn member(&self, index: usize) -> Member {
        match &self.ident {
            Some(ident) => Member::Named(ident.clone()),
            None => Member::Unnamed(index, self.span),
        }
    }
}

/// A field's name or position.
#[derive(Clone)]
pub enum Member {
    Named(Ident),
    Unnamed(usize, Span),
}

impl Member {
    pub fn display(&self) -> String {
        match self {
            Member::Named(ident) => ident.to_string(),
            Member::Unnamed(index, _) => index.to_string(),
        }
    }
}

impl ToTokens for Member {
    fn to_tokens(&self, out: &mut TokenStream) {
        match self {
            Member::Named(ident) => ident.to_tokens(out),
            Member::Unnamed(index, span) => {
                let mut literal = Literal::usize_unsuffixed(*index);
                literal.set_span(*span);
                literal.to_tokens(out);
            }
        }
    }
}

/// `0`, `1`, … as tuple indices, spanned at the macro's call site.
pub fn index(i: usize) -> Literal {
    Literal::usize_unsuffixed(i)
}

/// A type as written.
#[derive(Clone)]
pub struct Ty(pub Vec<TokenTree>);

impl ToTokens for Ty {
    fn to_tokens(&self, out: &mut TokenStream) {
        out.extend(self.0.iter().cloned());
    }
}

/// `&'a mut T`, taken apart.
pub struct Reference {
    /// The `&`.
    pub and_span: Span,
    /// The lifetime's name (`w`, `static`) and span, if one is written.
    pub lifetime: Option<(String, Span)>,
    pub mutable: bool,
    pub elem: Ty,
}

impl Ty {
    /// The first token's span, as `syn` reports a type's span on stable.
    pub fn span(&self) -> Span {
        self.0.first().map_or_else(Span::call_site, TokenTree::span)
    }

    pub fn stream(&self) -> TokenStream {
        self.0.iter().cloned().collect()
    }

    /// As the compiler prints it.
    pub fn text(&self) -> String {
        self.stream().to_string()
    }

    /// The type inside one pair of parentheses or an invisible group, if the
    /// whole type is that: `(T)` but not the tuple `(T,)`.
    fn unwrap_group(&self) -> Option<Ty> {
        match self.0.as_slice() {
            [TokenTree::Group(g)] if g.delimiter() == Delimiter::None => Some(Ty(g.stream().into_iter().collect())),
            [TokenTree::Group(g)] if g.delimiter() == Delimiter::Parenthesis => {
                let parts = split_top(g.stream().into_iter().collect(), ',');
                match parts.as_slice() {
                    [one] if !one.is_empty() && !ends_with_comma(g) => Some(Ty(one.clone())),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The elements of a tuple type `(A, B)`.
    fn tuple_elems(&self) -> Option<Vec<Ty>> {
        match self.0.as_slice() {
            [TokenTree::Group(g)] if g.delimiter() == Delimiter::Parenthesis => Some(
                split_top(g.stream().into_iter().collect(), ',')
                    .into_iter()
                    .filter(|p| !p.is_empty())
                    .map(Ty)
                    .collect(),
            ),
            _ => None,
        }
    }

    /// `&'a mut T` taken apart, if this is a reference.
    pub fn reference(&self) -> Option<Reference> {
        let (first, rest) = self.0.split_first()?;
        let TokenTree::Punct(and) = first else { return None };
        if and.as_char() != '&' {
            return None;
        }
        let mut rest = rest;
        let mut lifetime = None;
        if let [TokenTree::Punct(p), TokenTree::Ident(name), tail @ ..] = rest {
            if p.as_char() == '\'' {
                lifetime = Some((name.to_string(), p.span()));
                rest = tail;
            }
        }
        let mut mutable = false;
        if let [TokenTree::Ident(m), tail @ ..] = rest {
            if m.to_string() == "mut" {
                mutable = true;
                rest = tail;
            }
        }
        Some(Reference { and_span: and.span(), lifetime, mutable, elem: Ty(rest.to_vec()) })
    }

    /// The segments of a path type (`a::B<C, D>`): each name with its
    /// angle-bracketed arguments, if any. `None` for anything but a path
    /// (including a qualified `<T as Trait>::X`).
    fn path_segments(&self) -> Option<Vec<(Ident, Vec<Vec<TokenTree>>)>> {
        let mut segments: Vec<(Ident, Vec<Vec<TokenTree>>)> = Vec::new();
        let mut tokens = self.0.iter().peekable();
        while let Some(token) = tokens.next() {
            match token {
                TokenTree::Ident(ident) => segments.push((ident.clone(), Vec::new())),
                TokenTree::Punct(p) if p.as_char() == ':' => {}
                TokenTree::Punct(p) if p.as_char() == '<' && !segments.is_empty() => {
                    let mut angles = Angles::inside();
                    let inner: Vec<TokenTree> = tokens.by_ref().take_while(|&t| angles.step(t) > 0).cloned().collect();
                    segments.last_mut().expect("checked").1 = split_top(inner, ',');
                }
                // `Fn(A) -> B`'s arguments and output: not angle-bracketed.
                TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis && !segments.is_empty() => {
                    return Some(segments);
                }
                _ => return None,
            }
        }
        (!segments.is_empty()).then_some(segments)
    }

    /// The type arguments of a path's segments, each with its segment's name.
    fn type_arguments(&self) -> Vec<(String, Ty)> {
        let mut out = Vec::new();
        for (ident, args) in self.path_segments().unwrap_or_default() {
            for arg in args {
                if is_type_argument(&arg) {
                    out.push((ident.to_string(), Ty(arg)));
                }
            }
        }
        out
    }

    /// The argument of `Option<T>` (by its last segment's name).
    pub fn option_inner(&self) -> Option<Ty> {
        let segments = self.path_segments()?;
        let (last, args) = segments.last()?;
        if last.to_string() != "Option" {
            return None;
        }
        let first = args.first()?;
        is_type_argument(first).then(|| Ty(first.clone()))
    }

    /// For `&'a T`, `&'a mut T` or `Option<…>` of them: the reference.
    pub fn component_borrow(&self) -> Option<Reference> {
        if let Some(reference) = self.reference() {
            return Some(reference);
        }
        if let Some(inner) = self.option_inner() {
            return inner.component_borrow();
        }
        match self.0.as_slice() {
            [TokenTree::Group(g)] if g.delimiter() == Delimiter::Parenthesis => self.unwrap_group()?.component_borrow(),
            _ => None,
        }
    }

    /// `Entity`, `ecs_core::Entity`, … by its last path segment.
    pub fn is_entity(&self) -> bool {
        if let Some(inner) = self.unwrap_group() {
            return inner.is_entity();
        }
        self.path_segments().and_then(|s| s.last().map(|(ident, _)| ident.to_string() == "Entity")).unwrap_or(false)
    }

    /// The references with a named lifetime other than `'static` inside the
    /// type arguments of a `Query<…>` (at any depth: tuples, `Option`, filters).
    pub fn borrowed_query_items(&self) -> Vec<Reference> {
        let mut out = Vec::new();
        self.collect_query_items(false, &mut out);
        out
    }

    fn collect_query_items(&self, in_query: bool, out: &mut Vec<Reference>) {
        if let Some(reference) = self.reference() {
            let elem = reference.elem.clone();
            if in_query && reference.lifetime.as_ref().is_some_and(|(name, _)| name != "static") {
                out.push(reference);
            }
            elem.collect_query_items(in_query, out);
        } else if let Some(inner) = self.unwrap_group() {
            inner.collect_query_items(in_query, out);
        } else if let Some(elems) = self.tuple_elems() {
            for elem in elems {
                elem.collect_query_items(in_query, out);
            }
        } else {
            for (segment, arg) in self.type_arguments() {
                arg.collect_query_items(in_query || segment == "Query", out);
            }
        }
    }

    /// The first lifetime other than `'static` in the type's tokens (at any
    /// depth): its span and `'name`.
    pub fn borrowed_lifetime(&self) -> Option<(Span, String)> {
        fn find(tokens: TokenStream) -> Option<(Span, String)> {
            let mut tokens = tokens.into_iter().peekable();
            while let Some(token) = tokens.next() {
                match token {
                    TokenTree::Group(group) => {
                        if let Some(found) = find(group.stream()) {
                            return Some(found);
                        }
                    }
                    TokenTree::Punct(punct) if punct.as_char() == '\'' => {
                        if let Some(TokenTree::Ident(name)) = tokens.peek() {
                            if name.to_string() != "static" {
                                return Some((punct.span(), format!("'{name}")));
                            }
                        }
                    }
                    _ => {}
                }
            }
            None
        }
        find(self.stream())
    }
}

/// Whether a generic argument is a type: not a lifetime, an associated type
/// binding or constraint (`Item = T`, `Item: Bound`), or a const expression.
fn is_type_argument(arg: &[TokenTree]) -> bool {
    match arg {
        [] => false,
        [TokenTree::Punct(p), ..] if p.as_char() == '\'' => false,
        [TokenTree::Punct(p), ..] if p.as_char() == '-' => false,
        [TokenTree::Literal(_), ..] => false,
        [TokenTree::Group(g), ..] if g.delimiter() == Delimiter::Brace => false,
        [TokenTree::Ident(_), TokenTree::Punct(p), rest @ ..] if p.as_char() == '=' || p.as_char() == ':' => {
            // `a::B` is a path, `Item = T` / `Item: Bound` is not a type.
            p.as_char() == ':' && matches!(rest.first(), Some(TokenTree::Punct(q)) if q.as_char() == ':')
        }
        _ => true,
    }
}

fn ends_with_comma(group: &Group) -> bool {
    matches!(group.stream().into_iter().last(), Some(TokenTree::Punct(p)) if p.as_char() == ',')
}

/// Angle-bracket nesting along a list of tokens (`<` and `>` are not groups);
/// the `>` of `->` closes nothing.
#[derive(Default)]
pub struct Angles {
    depth: usize,
    previous_dash: bool,
}

impl Angles {
    /// Just inside an opening `<`: the `>` that closes it takes the depth to 0.
    pub fn inside() -> Self {
        Self { depth: 1, previous_dash: false }
    }

    /// Takes the next token; returns the depth after it.
    pub fn step(&mut self, token: &TokenTree) -> usize {
        if let TokenTree::Punct(p) = token {
            match p.as_char() {
                '<' => self.depth += 1,
                '>' if !self.previous_dash => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
            self.previous_dash = p.as_char() == '-';
        } else {
            self.previous_dash = false;
        }
        self.depth
    }
}

/// Splits at `separator` outside angle brackets (`HashMap<K, V>` stays whole;
/// `->` is not a closing bracket). Groups are single tokens, so their insides
/// are never split. A trailing separator leaves no empty last part.
pub fn split_top(tokens: Vec<TokenTree>, separator: char) -> Vec<Vec<TokenTree>> {
    let mut parts = vec![Vec::new()];
    let mut angles = Angles::default();
    for token in tokens {
        let depth = angles.step(&token);
        if depth == 0 && matches!(&token, TokenTree::Punct(p) if p.as_char() == separator) {
            parts.push(Vec::new());
            continue;
        }
        parts.last_mut().expect("never empty").push(token);
    }
    if parts.last().is_some_and(Vec::is_empty) {
        parts.pop();
    }
    parts
}

/// Reads the derive's input.
pub fn read(input: TokenStream) -> Result<Input> {
    let mut tokens = Cursor::new(input.into_iter().collect());
    let attrs = tokens.attrs();
    let vis = tokens.vis();
    let keyword = match tokens.next() {
        Some(TokenTree::Ident(ident)) => ident,
        other => return Err(unexpected(other.as_ref())),
    };
    let kind = match keyword.to_string().as_str() {
        "struct" => Kind::Struct,
        "enum" => Kind::Enum,
        "union" => Kind::Union,
        _ => return Err(Error::new(keyword.span(), "expected `struct`, `enum` or `union`")),
    };
    let ident = match tokens.next() {
        Some(TokenTree::Ident(ident)) => ident,
        other => return Err(unexpected(other.as_ref())),
    };
    let generics_span = tokens.peek().map_or_else(Span::call_site, TokenTree::span);
    let (params, close) = tokens.generic_params();
    let generics_span = if params.is_empty() { Span::call_site() } else { generics_span };
    let mut predicates = Vec::new();
    let mut fields = Fields::Unit;
    if let Some(TokenTree::Group(g)) = tokens.peek() {
        if g.delimiter() == Delimiter::Parenthesis && kind == Kind::Struct {
            let g = g.clone();
            tokens.next();
            fields = Fields::Unnamed(fields_of(&g, false), g.span());
        }
    }
    if tokens.peek_ident("where") {
        tokens.next();
        let mut clause = Vec::new();
        let mut angles = Angles::default();
        while let Some(token) = tokens.peek() {
            // A `{ … }` inside `<…>` is a const argument (`T: Tr<{ 1 }>`), not the body.
            let end = angles.step(token) == 0
                && match token {
                    TokenTree::Group(g) => g.delimiter() == Delimiter::Brace,
                    TokenTree::Punct(p) => p.as_char() == ';',
                    _ => false,
                };
            if end {
                break;
            }
            clause.push(tokens.next().expect("peeked"));
        }
        predicates = split_top(clause, ',').into_iter().map(|p| p.into_iter().collect()).collect();
    }
    let mut enum_body = None;
    if let Some(TokenTree::Group(g)) = tokens.peek() {
        if g.delimiter() == Delimiter::Brace && kind != Kind::Enum {
            fields = Fields::Named(fields_of(g, true), g.span());
        } else if g.delimiter() == Delimiter::Brace {
            enum_body = Some(g.clone());
        }
    }
    Ok(Input {
        attrs,
        vis,
        kind,
        kind_span: keyword.span(),
        ident,
        generics: Generics { params, predicates, span: generics_span, close },
        fields,
        enum_body,
    })
}

fn unexpected(token: Option<&TokenTree>) -> Error {
    Error::new(token.map_or_else(Span::call_site, TokenTree::span), "unexpected token in the derive's input")
}

/// A struct's fields, from the braces (`named`) or parentheses around them.
fn fields_of(group: &Group, named: bool) -> Vec<Field> {
    split_top(group.stream().into_iter().collect(), ',')
        .into_iter()
        .filter(|part| !part.is_empty())
        .map(|part| {
            let span = part[0].span();
            let mut tokens = Cursor::new(part);
            let attrs = tokens.attrs();
            let vis = tokens.vis();
            let ident = if named {
                let ident = match tokens.next() {
                    Some(TokenTree::Ident(ident)) => Some(ident),
                    _ => None,
                };
                tokens.next(); // `:`
                ident
            } else {
                None
            };
            Field { attrs, vis, ident, ty: Ty(tokens.rest()), span }
        })
        .collect()
}

/// A read position in a list of tokens.
struct Cursor {
    tokens: Vec<TokenTree>,
    at: usize,
}

impl Cursor {
    fn new(tokens: Vec<TokenTree>) -> Self {
        Self { tokens, at: 0 }
    }

    fn peek(&self) -> Option<&TokenTree> {
        self.tokens.get(self.at)
    }

    fn peek_at(&self, ahead: usize) -> Option<&TokenTree> {
        self.tokens.get(self.at + ahead)
    }

    fn next(&mut self) -> Option<TokenTree> {
        let token = self.tokens.get(self.at).cloned();
        self.at += usize::from(token.is_some());
        token
    }

    fn rest(&mut self) -> Vec<TokenTree> {
        let rest = self.tokens[self.at..].to_vec();
        self.at = self.tokens.len();
        rest
    }

    fn peek_ident(&self, name: &str) -> bool {
        matches!(self.peek(), Some(TokenTree::Ident(i)) if i.to_string() == name)
    }

    fn peek_punct(&self, c: char) -> bool {
        matches!(self.peek(), Some(TokenTree::Punct(p)) if p.as_char() == c)
    }

    /// Outer attributes: `#` then a bracketed group, each.
    fn attrs(&mut self) -> Vec<Attr> {
        let mut attrs = Vec::new();
        while self.peek_punct('#') {
            let Some(TokenTree::Group(group)) = self.peek_at(1).cloned() else { break };
            self.at += 2;
            attrs.push(attr(&group));
        }
        attrs
    }

    /// `pub`, `pub(crate)`, `pub(self)`, `pub(super)`, `pub(in path)` or nothing.
    fn vis(&mut self) -> TokenStream {
        // A macro's `$vis:vis` arrives as an invisible group, empty or `pub…`.
        if let Some(TokenTree::Group(g)) = self.peek() {
            let first = g.stream().into_iter().next();
            if g.delimiter() == Delimiter::None
                && (first.is_none() || matches!(&first, Some(TokenTree::Ident(i)) if i.to_string() == "pub"))
            {
                return self.next().into_iter().collect();
            }
        }
        if !self.peek_ident("pub") {
            return TokenStream::new();
        }
        let mut vis = vec![self.next().expect("peeked")];
        if let Some(TokenTree::Group(g)) = self.peek() {
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            let restricted = match inner.as_slice() {
                [TokenTree::Ident(i)] => matches!(i.to_string().as_str(), "crate" | "self" | "super"),
                [TokenTree::Ident(i), ..] => i.to_string() == "in",
                _ => false,
            };
            if g.delimiter() == Delimiter::Parenthesis && restricted {
                vis.push(self.next().expect("peeked"));
            }
        }
        vis.into_iter().collect()
    }

    /// `<…>` after the type's name, split into parameters, and the `>`'s span.
    fn generic_params(&mut self) -> (Vec<Param>, Span) {
        if !self.peek_punct('<') {
            return (Vec::new(), Span::call_site());
        }
        let mut close = Span::call_site();
        self.next();
        let mut inner = Vec::new();
        let mut angles = Angles::inside();
        while let Some(token) = self.next() {
            if angles.step(&token) == 0 {
                close = token.span();
                break;
            }
            inner.push(token);
        }
        (split_top(inner, ',').into_iter().filter(|p| !p.is_empty()).map(param).collect(), close)
    }
}

/// One attribute from inside its brackets.
fn attr(group: &Group) -> Attr {
    let mut tokens = Cursor::new(flatten_invisible(group.stream()));
    let mut path = Vec::new();
    loop {
        match tokens.peek() {
            Some(TokenTree::Ident(ident)) => {
                path.push(ident.clone());
                tokens.next();
            }
            Some(TokenTree::Punct(p)) if p.as_char() == ':' => {
                tokens.next();
            }
            _ => break,
        }
    }
    if path.is_empty() {
        path.push(Ident::new("__unknown", group.span()));
    }
    let meta = match tokens.next() {
        Some(TokenTree::Group(g)) => Meta::List(g),
        Some(TokenTree::Punct(p)) if p.as_char() == '=' => Meta::NameValue(p.span()),
        _ => Meta::Path,
    };
    Attr { path, meta }
}

/// The tokens with every invisible group (a macro's `$m:meta`, `$x:expr`…)
/// replaced by its contents, at any depth outside other groups.
pub fn flatten_invisible(tokens: TokenStream) -> Vec<TokenTree> {
    let mut out = Vec::new();
    for token in tokens {
        match token {
            TokenTree::Group(g) if g.delimiter() == Delimiter::None => out.extend(flatten_invisible(g.stream())),
            other => out.push(other),
        }
    }
    out
}

/// One generic parameter's tokens, taken apart.
fn param(tokens: Vec<TokenTree>) -> Param {
    let span = tokens[0].span();
    let mut cursor = Cursor::new(tokens);
    // Attributes on a parameter stay in its declaration.
    let attrs_end = {
        cursor.attrs();
        cursor.at
    };
    let body = cursor.tokens[attrs_end..].to_vec();
    let (kind, name) = match body.as_slice() {
        [TokenTree::Punct(p), TokenTree::Ident(name), ..] if p.as_char() == '\'' => {
            (ParamKind::Lifetime, [body[0].clone(), TokenTree::Ident(name.clone())].into_iter().collect())
        }
        [TokenTree::Ident(k), TokenTree::Ident(name), ..] if k.to_string() == "const" => {
            (ParamKind::Const, TokenStream::from_iter([TokenTree::Ident(name.clone())]))
        }
        [TokenTree::Ident(name), ..] => (ParamKind::Type, TokenStream::from_iter([TokenTree::Ident(name.clone())])),
        _ => (ParamKind::Type, body.iter().cloned().collect()),
    };
    // The default starts at the first `=` outside angle brackets.
    let mut decl = cursor.tokens[..attrs_end].to_vec();
    if kind == ParamKind::Lifetime {
        decl.extend(body);
    } else {
        let mut angles = Angles::default();
        for token in body {
            if angles.step(&token) == 0 && matches!(&token, TokenTree::Punct(p) if p.as_char() == '=') {
                break;
            }
            decl.push(token);
        }
    }
    Param { kind, decl: decl.into_iter().collect(), name, span }
}
