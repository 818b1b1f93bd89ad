//! Errors reported as `compile_error!`s at the user's tokens.

use proc_macro::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};

/// One or more messages, each at a range of the user's source.
pub struct Error {
    messages: Vec<(Span, Span, String)>,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// A message at one token.
    pub fn new(span: Span, message: impl Into<String>) -> Self {
        Self::range(span, span, message)
    }

    /// A message underlining `start` through `end`.
    pub fn range(start: Span, end: Span, message: impl Into<String>) -> Self {
        Self { messages: vec![(start, end, message.into())] }
    }

    /// Where the first message starts.
    pub fn span(&self) -> Span {
        self.messages[0].0
    }

    /// Reports `other`'s messages after this one's.
    pub fn combine(&mut self, other: Error) {
        self.messages.extend(other.messages);
    }

    /// `::core::compile_error! { "…" }` for each message. The path carries the
    /// start span and the braces the end span: the compiler underlines the
    /// invocation, so the whole range, which a single span cannot do on stable.
    pub fn into_compile_error(self) -> TokenStream {
        let mut out = TokenStream::new();
        for (start, end, message) in self.messages {
            let punct = |c: char, spacing: Spacing| {
                let mut punct = Punct::new(c, spacing);
                punct.set_span(start);
                TokenTree::Punct(punct)
            };
            let mut literal = Literal::string(&message);
            literal.set_span(end);
            let mut group = Group::new(Delimiter::Brace, TokenStream::from_iter([TokenTree::Literal(literal)]));
            group.set_span(end);
            out.extend([
                punct(':', Spacing::Joint),
                punct(':', Spacing::Alone),
                TokenTree::Ident(Ident::new("core", start)),
                punct(':', Spacing::Joint),
                punct(':', Spacing::Alone),
                TokenTree::Ident(Ident::new("compile_error", start)),
                punct('!', Spacing::Alone),
                TokenTree::Group(group),
            ]);
        }
        out
    }
}

/// Several errors reported at once, so the user fixes them in one pass.
#[derive(Default)]
pub struct Errors(Option<Error>);

impl Errors {
    pub fn push(&mut self, error: Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    pub fn keep<T>(&mut self, result: Result<T>) -> Option<T> {
        result.map_err(|e| self.push(e)).ok()
    }

    pub fn finish(self) -> Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}
