//! Splits an expression into tokens, each with its byte span for error messages.
//!
//! Keywords (`AND`, `SET`, ...) are not tokens of their own: they are identifiers that the
//! parser recognises case-insensitively where its grammar expects them, because which words
//! are keywords depends on the expression kind.

use crate::error::{ExprError, Result};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenKind {
    /// `name`, also keywords and function names.
    Ident(String),
    /// `#name`.
    NamePlaceholder(String),
    /// `:name`.
    ValuePlaceholder(String),
    /// A run of ASCII digits (list indexes).
    Integer(String),
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Dot,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Plus,
    Minus,
    Eof,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub start: usize,
    pub end: usize,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The syntax error DynamoDB reports for a bad token: the token's text and the text from
/// the previous token's start to the bad token's end.
pub fn syntax_error(source: &str, tokens: &[Token], at: usize) -> ExprError {
    let token = &tokens[at];
    let text = if token.kind == TokenKind::Eof {
        "<EOF>"
    } else {
        &source[token.start..token.end]
    };
    let near_start = if at > 0 {
        tokens[at - 1].start
    } else {
        token.start
    };
    let near_end = if token.kind == TokenKind::Eof {
        token.start
    } else {
        token.end
    };
    ExprError::validation(format!(
        "Syntax error; token: \"{text}\", near: \"{}\"",
        &source[near_start..near_end]
    ))
}

/// Tokenises `source`; the last token is always [`TokenKind::Eof`].
pub fn tokenize(source: &str) -> Result<Vec<Token>> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
            i += 1;
            continue;
        }
        let start = i;
        let word_end = |from: usize| {
            let mut j = from;
            while j < bytes.len() && is_word_byte(bytes[j]) {
                j += 1;
            }
            j
        };
        let (kind, end) = match b {
            b'(' => (TokenKind::LParen, i + 1),
            b')' => (TokenKind::RParen, i + 1),
            b'[' => (TokenKind::LBracket, i + 1),
            b']' => (TokenKind::RBracket, i + 1),
            b',' => (TokenKind::Comma, i + 1),
            b'.' => (TokenKind::Dot, i + 1),
            b'+' => (TokenKind::Plus, i + 1),
            b'-' => (TokenKind::Minus, i + 1),
            b'=' => (TokenKind::Eq, i + 1),
            b'<' if bytes.get(i + 1) == Some(&b'>') => (TokenKind::Ne, i + 2),
            b'<' if bytes.get(i + 1) == Some(&b'=') => (TokenKind::Le, i + 2),
            b'<' => (TokenKind::Lt, i + 1),
            b'>' if bytes.get(i + 1) == Some(&b'=') => (TokenKind::Ge, i + 2),
            b'>' => (TokenKind::Gt, i + 1),
            b'#' | b':' => {
                let end = word_end(i + 1);
                if end == i + 1 {
                    return Err(lone_character(source, &tokens, start));
                }
                let text = source[start..end].to_owned();
                let kind = if b == b'#' {
                    TokenKind::NamePlaceholder(text)
                } else {
                    TokenKind::ValuePlaceholder(text)
                };
                (kind, end)
            }
            b'0'..=b'9' => {
                let end = word_end(i);
                let text = &source[start..end];
                if text.bytes().all(|c| c.is_ascii_digit()) {
                    (TokenKind::Integer(text.to_owned()), end)
                } else {
                    // `3abc`: an identifier may not start with a digit.
                    return Err(lone_character(source, &tokens, start));
                }
            }
            b if is_word_byte(b) => {
                let end = word_end(i);
                (TokenKind::Ident(source[start..end].to_owned()), end)
            }
            _ => return Err(lone_character(source, &tokens, start)),
        };
        tokens.push(Token { kind, start, end });
        i = end;
    }
    tokens.push(Token {
        kind: TokenKind::Eof,
        start: source.len(),
        end: source.len(),
    });
    Ok(tokens)
}

/// A character that starts no token: reported as a one-character token.
fn lone_character(source: &str, tokens: &[Token], start: usize) -> ExprError {
    let len = source[start..].chars().next().map_or(1, char::len_utf8);
    let mut with_bad = tokens.to_vec();
    with_bad.push(Token {
        kind: TokenKind::Ident(String::new()),
        start,
        end: start + len,
    });
    syntax_error(source, &with_bad, with_bad.len() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<TokenKind> {
        tokenize(s).unwrap().into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn tokens_of_a_condition() {
        use TokenKind::*;
        assert_eq!(
            kinds("#a.b[3] <> :v"),
            vec![
                NamePlaceholder("#a".into()),
                Dot,
                Ident("b".into()),
                LBracket,
                Integer("3".into()),
                RBracket,
                Ne,
                ValuePlaceholder(":v".into()),
                Eof
            ]
        );
        assert_eq!(kinds("a<=b>=c"), {
            vec![
                Ident("a".into()),
                Le,
                Ident("b".into()),
                Ge,
                Ident("c".into()),
                Eof,
            ]
        });
    }

    #[test]
    fn bad_characters_are_syntax_errors() {
        let e = tokenize("a = !b").unwrap_err();
        assert_eq!(e.message(), "Syntax error; token: \"!\", near: \"= !\"");
        let e = tokenize("a = # ").unwrap_err();
        assert_eq!(e.message(), "Syntax error; token: \"#\", near: \"= #\"");
        let e = tokenize("é").unwrap_err();
        assert_eq!(e.message(), "Syntax error; token: \"é\", near: \"é\"");
    }
}
