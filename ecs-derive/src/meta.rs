//! The arguments of a helper attribute, `#[name(key = value, flag, …)]`, read
//! one key at a time; the reader of each key takes its value in the form it
//! expects (a string, a boolean, a path). The messages for malformed
//! arguments follow `syn`'s, which users of other derives have seen.

use proc_macro::{Ident, Span, TokenStream, TokenTree};

use crate::error::{Error, Result};
use crate::read::{Attr, Meta};

/// One key of an attribute's arguments, with the rest of them after it.
pub struct NestedMeta<'a> {
    /// The key's path (`storage`, `a::b`).
    pub path: Vec<Ident>,
    tokens: &'a [TokenTree],
    at: usize,
    /// The last token read, so that an error can underline the key through it.
    last: Span,
    /// Where the arguments end (the closing delimiter).
    end: Span,
}

/// Calls `each` for every key of `#[name(…)]`. A key is a path; after `each`
/// returns, a `,` or the end must follow.
pub fn parse_nested(attr: &Attr, mut each: impl FnMut(&mut NestedMeta<'_>) -> Result<()>) -> Result<()> {
    // Brackets and braces are accepted as well, as `syn` does.
    let group = match &attr.meta {
        Meta::List(group) => group,
        Meta::Path => {
            return Err(Error::range(
                attr.path[0].span(),
                attr.path[attr.path.len() - 1].span(),
                format!("expected attribute arguments in parentheses: #[{}(...)]", attr.path_string()),
            ));
        }
        Meta::NameValue(eq) => {
            return Err(Error::new(*eq, format!("expected parentheses: #[{}(...)]", attr.path_string())));
        }
    };
    let tokens = crate::read::flatten_invisible(group.stream());
    let end = group.span_close();
    let mut at = 0;
    while at < tokens.len() {
        let start = at;
        let mut path = Vec::new();
        loop {
            match tokens.get(at) {
                Some(TokenTree::Ident(ident)) if path.is_empty() || is_colon(tokens.get(at - 1)) => {
                    path.push(ident.clone());
                    at += 1;
                }
                Some(TokenTree::Punct(p)) if p.as_char() == ':' => at += 1,
                _ => break,
            }
        }
        if path.is_empty() {
            return Err(Error::new(tokens[start].span(), "expected identifier"));
        }
        let mut meta = NestedMeta { last: tokens[at - 1].span(), path, tokens: &tokens, at, end };
        each(&mut meta)?;
        at = meta.at;
        match tokens.get(at) {
            None => {}
            Some(TokenTree::Punct(p)) if p.as_char() == ',' => at += 1,
            Some(other) => return Err(Error::new(other.span(), "expected `,`")),
        }
    }
    Ok(())
}

fn is_colon(token: Option<&TokenTree>) -> bool {
    matches!(token, Some(TokenTree::Punct(p)) if p.as_char() == ':')
}

impl NestedMeta<'_> {
    pub fn is_ident(&self, name: &str) -> bool {
        self.path.len() == 1 && self.path[0].to_string() == name
    }

    /// The key as the compiler prints a path (`a :: b`).
    pub fn path_text(&self) -> String {
        self.path.iter().map(Ident::to_string).collect::<Vec<_>>().join(" :: ")
    }

    pub fn span(&self) -> Span {
        self.path[0].span()
    }

    /// An error underlining the key and whatever of its value has been read.
    pub fn error(&self, message: impl Into<String>) -> Error {
        Error::range(self.path[0].span(), self.last, message)
    }

    fn peek(&self) -> Option<&TokenTree> {
        self.tokens.get(self.at)
    }

    fn bump(&mut self) -> Option<TokenTree> {
        let token = self.tokens.get(self.at).cloned();
        if let Some(token) = &token {
            self.last = token.span();
            self.at += 1;
        }
        token
    }

    /// An error at the next token, or at the end of the arguments.
    fn expected(&self, what: &str) -> Error {
        match self.peek() {
            Some(token) => Error::new(token.span(), format!("expected {what}")),
            None => Error::new(self.end, format!("unexpected end of input, expected {what}")),
        }
    }

    /// `true` when the key has a value (`key = …`), not only its name.
    pub fn has_value(&self) -> bool {
        matches!(self.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '=')
    }

    /// Reads the `=` before the value.
    pub fn value(&mut self) -> Result<&mut Self> {
        match self.peek() {
            Some(TokenTree::Punct(p)) if p.as_char() == '=' => {
                self.bump();
                Ok(self)
            }
            _ => Err(self.expected("`=`")),
        }
    }

    /// A string literal's value and span.
    pub fn lit_str(&mut self) -> Result<(String, Span)> {
        let value = match self.peek() {
            Some(TokenTree::Literal(literal)) => string_value(&literal.to_string()).map(|v| (v, literal.span())),
            _ => None,
        };
        match value {
            Some(value) => {
                self.bump();
                Ok(value)
            }
            None => Err(self.expected("string literal")),
        }
    }

    /// `true` or `false`.
    pub fn lit_bool(&mut self) -> Result<bool> {
        let value = match self.peek() {
            Some(TokenTree::Ident(ident)) => match ident.to_string().as_str() {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            },
            _ => None,
        };
        match value {
            Some(value) => {
                self.bump();
                Ok(value)
            }
            None => Err(self.expected("boolean literal")),
        }
    }

    /// A path (`f`, `a::b::<T>`), up to the next `,` outside angle brackets.
    pub fn path(&mut self) -> Result<TokenStream> {
        let start = self.at;
        let mut angles = crate::read::Angles::default();
        while let Some(token) = self.peek() {
            let depth = angles.step(token);
            let part_of_path = match token {
                TokenTree::Ident(_) => true,
                TokenTree::Punct(p) => match p.as_char() {
                    ',' if depth == 0 => break,
                    ':' => true,
                    '<' => self.at > start,
                    _ => depth > 0 || p.as_char() == '>',
                },
                TokenTree::Group(_) | TokenTree::Literal(_) => depth > 0,
            };
            if !part_of_path {
                return Err(self.expected("a path"));
            }
            self.bump();
        }
        if self.at == start {
            return Err(self.expected("a path"));
        }
        Ok(self.tokens[start..self.at].iter().cloned().collect())
    }

    /// A path written in a string (`crate = "::my::ecs"`), spanned at the string.
    pub fn path_in_string(&mut self) -> Result<TokenStream> {
        let (value, span) = self.lit_str()?;
        let parsed: Option<TokenStream> = value.parse().ok();
        let is_path = parsed.as_ref().is_some_and(is_plain_path);
        match parsed {
            Some(tokens) if is_path => Ok(crate::tokens::respan(tokens, span)),
            _ => Err(Error::new(span, format!("expected a path, like `::ecs_core`, in the string; found `{value}`"))),
        }
    }
}

/// `a::b` or `::a::b`: names joined by `::`, nothing else.
fn is_plain_path(tokens: &TokenStream) -> bool {
    let tokens: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let mut rest = tokens.as_slice();
    let mut expect_name = true;
    if let [TokenTree::Punct(a), TokenTree::Punct(b), tail @ ..] = rest {
        if a.as_char() == ':' && b.as_char() == ':' {
            rest = tail;
        }
    }
    while let Some((first, tail)) = rest.split_first() {
        match (expect_name, first, tail) {
            (true, TokenTree::Ident(_), _) => rest = tail,
            (false, TokenTree::Punct(a), [TokenTree::Punct(b), tail @ ..])
                if a.as_char() == ':' && b.as_char() == ':' =>
            {
                rest = tail;
            }
            _ => return false,
        }
        expect_name = !expect_name;
    }
    !expect_name
}

/// The value of a string literal as written (`"a\"b"`, `r#"…"#`), or `None`
/// for any other literal.
fn string_value(literal: &str) -> Option<String> {
    if let Some(raw) = literal.strip_prefix('r') {
        let hashes = raw.len() - raw.trim_start_matches('#').len();
        let body = raw.get(hashes + 1..raw.len() - hashes - 1)?;
        return raw[hashes..].starts_with('"').then(|| body.to_string());
    }
    let body = literal.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '0' => out.push('\0'),
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            '\n' => {
                while chars.clone().next().is_some_and(char::is_whitespace) {
                    chars.next();
                }
            }
            'x' => {
                let hex: String = chars.by_ref().take(2).collect();
                out.push(char::from(u8::from_str_radix(&hex, 16).ok()?));
            }
            'u' => {
                let code: String = chars.by_ref().take_while(|&c| c != '}').filter(|&c| c != '{' && c != '_').collect();
                out.push(char::from_u32(u32::from_str_radix(&code, 16).ok()?)?);
            }
            _ => return None,
        }
    }
    Some(out)
}
