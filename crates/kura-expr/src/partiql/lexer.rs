//! PartiQL tokens: identifiers (bare or `"quoted"`), `'strings'`, numbers, punctuation;
//! `--` and `/* */` comments are skipped.

use kura_model::messages::partiql as msg;

use crate::error::{ExprError, Result};

#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    /// A bare word: a keyword or an identifier, as written.
    Word(String),
    /// A `"double-quoted"` identifier.
    Quoted(String),
    /// A `'single-quoted'` string.
    Str(String),
    /// A number, as written.
    Num(String),
    /// Punctuation and operators: `( ) [ ] { } , . : ; * ? + - = <> != < <= > >= << >>`.
    Punct(&'static str),
}

impl Token {
    pub fn describe(&self) -> String {
        match self {
            Token::Word(w) => w.clone(),
            Token::Quoted(q) => format!("\"{q}\""),
            Token::Str(s) => format!("'{s}'"),
            Token::Num(n) => n.clone(),
            Token::Punct(p) => (*p).to_owned(),
        }
    }
}

fn error(detail: &str) -> ExprError {
    ExprError::validation(msg::not_well_formed(detail))
}

const PUNCTS: [&str; 23] = [
    "<<", ">>", "<>", "!=", "<=", ">=", "(", ")", "[", "]", "{", "}", ",", ".", ":", ";", "*", "?",
    "+", "-", "=", "<", ">",
];

/// Whether a number literal converts to a `java.math.BigDecimal`: its exponent and its
/// scale (digits after the point less the exponent) must fit a 32-bit integer. One that
/// does not is refused with nothing after the colon (AWS eu-west-2 2026-10, paritysuite
/// `partiqlGrammar.test.ts`), where a literal that converts but breaks DynamoDB's number
/// rules gets the number message.
fn fits_big_decimal(literal: &str) -> bool {
    let (mantissa, exponent) = match literal.find(['e', 'E']) {
        Some(at) => (&literal[..at], &literal[at + 1..]),
        None => (literal, "0"),
    };
    let Ok(exponent) = exponent.parse::<i32>() else {
        return false;
    };
    let fraction = mantissa.split_once('.').map_or(0, |(_, f)| f.len());
    i64::try_from(fraction)
        .ok()
        .and_then(|f| i32::try_from(f - i64::from(exponent)).ok())
        .is_some()
}

pub fn tokenize(source: &str) -> Result<Vec<Token>> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        if c.is_whitespace() {
            i += 1;
        } else if c == '-' && chars.get(i + 1) == Some(&'-') {
            while chars.get(i).is_some_and(|&c| c != '\n') {
                i += 1;
            }
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            loop {
                match (chars.get(i), chars.get(i + 1)) {
                    (Some('*'), Some('/')) => break i += 2,
                    (Some(_), _) => i += 1,
                    (None, _) => return Err(error(msg::NO_DETAIL)),
                }
            }
        } else if c == '\'' || c == '"' {
            let (text, next) = quoted(&chars, i, c)?;
            tokens.push(if c == '\'' {
                Token::Str(text)
            } else {
                Token::Quoted(text)
            });
            i = next;
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit))
        {
            let start = i;
            while chars.get(i).is_some_and(char::is_ascii_digit) {
                i += 1;
            }
            if chars.get(i) == Some(&'.') {
                i += 1;
                while chars.get(i).is_some_and(char::is_ascii_digit) {
                    i += 1;
                }
            }
            if matches!(chars.get(i), Some('e' | 'E')) {
                let mut j = i + 1;
                if matches!(chars.get(j), Some('+' | '-')) {
                    j += 1;
                }
                if chars.get(j).is_some_and(char::is_ascii_digit) {
                    i = j;
                    while chars.get(i).is_some_and(char::is_ascii_digit) {
                        i += 1;
                    }
                }
            }
            let literal: String = chars[start..i].iter().collect();
            if !fits_big_decimal(&literal) {
                return Err(error(msg::NO_DETAIL));
            }
            tokens.push(Token::Num(literal));
        } else if c.is_alphabetic() || c == '_' || c == '$' {
            let start = i;
            while chars
                .get(i)
                .is_some_and(|&c| c.is_alphanumeric() || c == '_' || c == '$')
            {
                i += 1;
            }
            tokens.push(Token::Word(chars[start..i].iter().collect()));
        } else {
            let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
            let Some(p) = PUNCTS.iter().find(|p| rest.starts_with(**p)) else {
                // A hash comment is not PartiQL: nothing after the colon (AWS eu-west-2
                // 2026-10, paritysuite `partiqlGrammar.test.ts`).
                if c == '#' {
                    return Err(error(msg::NO_DETAIL));
                }
                return Err(error(&format!("Unexpected character '{c}'")));
            };
            tokens.push(Token::Punct(p));
            i += p.chars().count();
        }
    }
    Ok(tokens)
}

/// A quoted string or identifier starting at `start`; the quote doubled escapes itself.
fn quoted(chars: &[char], start: usize, quote: char) -> Result<(String, usize)> {
    let mut text = String::new();
    let mut i = start + 1;
    loop {
        match chars.get(i) {
            None => return Err(error("Unterminated quoted text")),
            Some(&c) if c == quote => {
                if chars.get(i + 1) == Some(&quote) {
                    text.push(quote);
                    i += 2;
                } else {
                    return Ok((text, i + 1));
                }
            }
            Some(&c) => {
                text.push(c);
                i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens() {
        let t =
            tokenize("SELECT * FROM \"T\"\"x\" WHERE a<<b>> 'it''s' -- c\n 1.5e3 .5 <> /* x */ ?")
                .unwrap();
        assert_eq!(
            t,
            vec![
                Token::Word("SELECT".into()),
                Token::Punct("*"),
                Token::Word("FROM".into()),
                Token::Quoted("T\"x".into()),
                Token::Word("WHERE".into()),
                Token::Word("a".into()),
                Token::Punct("<<"),
                Token::Word("b".into()),
                Token::Punct(">>"),
                Token::Str("it's".into()),
                Token::Num("1.5e3".into()),
                Token::Num(".5".into()),
                Token::Punct("<>"),
                Token::Punct("?"),
            ]
        );
    }

    #[test]
    fn unterminated() {
        assert!(tokenize("'abc").is_err());
        assert!(tokenize("\"abc").is_err());
        assert!(tokenize("/* abc").is_err());
        assert!(tokenize("a # b").is_err());
    }
}
