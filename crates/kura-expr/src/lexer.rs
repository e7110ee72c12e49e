//! Splits an expression into tokens, each with its byte span for error messages.
//!
//! Keywords (`AND`, `SET`, ...) are not tokens of their own: they are identifiers that the
//! parser recognises case-insensitively where its grammar expects them, because which words
//! are keywords depends on the expression kind.

use crate::error::ExprError;

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
    /// A character that starts no token; the parser refuses it where it meets it.
    Unknown,
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

/// The syntax error DynamoDB reports for a bad token: the token's text (`<EOF>` at the
/// end) and, near it, the source from the previous token to the next one, whitespace kept
/// (DynamoDB's ANTLR error listener: previous, offending and next token).
pub fn syntax_error(source: &str, tokens: &[Token], at: usize) -> ExprError {
    let token = &tokens[at];
    let is_eof = token.kind == TokenKind::Eof;
    let text = if is_eof {
        "<EOF>"
    } else {
        &source[token.start..token.end]
    };
    let near_start = if at > 0 {
        tokens[at - 1].start
    } else {
        token.start
    };
    let near_end = match tokens.get(at + 1) {
        Some(next) if next.kind != TokenKind::Eof => next.end,
        _ => source.len(),
    };
    ExprError::validation(format!(
        "Syntax error; token: \"{text}\", near: \"{}\"",
        &source[near_start..near_end]
    ))
}

/// Tokenises `source`; the last token is always [`TokenKind::Eof`].
pub fn tokenize(source: &str) -> Vec<Token> {
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
                    (TokenKind::Unknown, i + 1)
                } else {
                    let text = source[start..end].to_owned();
                    let kind = if b == b'#' {
                        TokenKind::NamePlaceholder(text)
                    } else {
                        TokenKind::ValuePlaceholder(text)
                    };
                    (kind, end)
                }
            }
            // DynamoDB's INDEX token is `0|[1-9][0-9]*`: "03" is two tokens.
            b'0' => (TokenKind::Integer("0".to_owned()), i + 1),
            b'1'..=b'9' => {
                let mut end = i;
                while end < bytes.len() && bytes[end].is_ascii_digit() {
                    end += 1;
                }
                (TokenKind::Integer(source[start..end].to_owned()), end)
            }
            // Identifiers start with a letter; a lone `_` is a token of its own.
            b if b.is_ascii_alphabetic() => {
                let end = word_end(i);
                (TokenKind::Ident(source[start..end].to_owned()), end)
            }
            _ => {
                let len = source[start..].chars().next().map_or(1, char::len_utf8);
                (TokenKind::Unknown, i + len)
            }
        };
        tokens.push(Token { kind, start, end });
        i = end;
    }
    tokens.push(Token {
        kind: TokenKind::Eof,
        start: source.len(),
        end: source.len(),
    });
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<TokenKind> {
        tokenize(s).into_iter().map(|t| t.kind).collect()
    }

    fn error_at(s: &str, at: usize) -> String {
        syntax_error(s, &tokenize(s), at).message().to_owned()
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
        assert_eq!(
            kinds("a<=b>=c"),
            vec![
                Ident("a".into()),
                Le,
                Ident("b".into()),
                Ge,
                Ident("c".into()),
                Eof,
            ]
        );
        assert_eq!(
            kinds("03 _x !"),
            vec![
                Integer("0".into()),
                Integer("3".into()),
                Unknown,
                Ident("x".into()),
                Unknown,
                Eof
            ]
        );
    }

    #[test]
    fn near_spans_previous_offending_and_next_token() {
        // Captured from DynamoDB (see docs/compat.md, expressions).
        assert_eq!(
            error_at("INVALID SYNTAX HERE", 0),
            "Syntax error; token: \"INVALID\", near: \"INVALID SYNTAX\""
        );
        assert_eq!(
            error_at("GI-1-PK = :v", 1),
            "Syntax error; token: \"-\", near: \"GI-1\""
        );
        assert_eq!(
            error_at("#AMZN_MAPPED_2021-03-03", 1),
            "Syntax error; token: \"-\", near: \"#AMZN_MAPPED_2021-0\""
        );
        assert_eq!(
            error_at("_version", 0),
            "Syntax error; token: \"_\", near: \"_version\""
        );
        assert_eq!(
            error_at("SET a =", 3),
            "Syntax error; token: \"<EOF>\", near: \"=\""
        );
    }
}
