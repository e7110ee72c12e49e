//! Recursive-descent parsers for the three expression grammars.
//!
//! Parsing runs in two passes, as DynamoDB's own validation does: a syntax error stops at
//! once; every other problem (an undefined placeholder, a reserved word, a wrong function)
//! is recorded by category while parsing goes on, and the error reported is the first one
//! of the most important category. The category order per grammar is dynalite's, which
//! mirrors DynamoDB's.

pub mod condition;
pub mod projection;
pub mod update;

use kura_model::{AttributeValue, limits, messages};

use crate::ast::{Path, PathElement};
use crate::bindings::Bindings;
use crate::error::{ExprError, Result};
use crate::lexer::{Token, TokenKind, syntax_error, tokenize};
use crate::reserved::is_reserved;

/// Stack left below which [`Parser::descend`] switches to a fresh segment, and its size.
const RED_ZONE: usize = 64 * 1024;
const STACK_SEGMENT: usize = 1024 * 1024;

/// The kinds of non-syntax problems, ranked per grammar by [`Diagnostics::first`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Problem {
    Parentheses,
    UnknownFunction,
    MisusedFunction,
    Reserved,
    Section,
    UndefinedName,
    UndefinedValue,
    Overlap,
    Conflict,
    OperandCount,
    Distinct,
    OperatorOperand,
    FunctionOperand,
}

#[derive(Debug, Default)]
pub(crate) struct Diagnostics {
    found: Vec<(Problem, String)>,
}

impl Diagnostics {
    pub fn record(&mut self, problem: Problem, message: String) {
        if !self.found.iter().any(|(p, _)| *p == problem) {
            self.found.push((problem, message));
        }
    }

    /// The first recorded problem in `order`, as an error.
    pub fn first(&self, order: &[Problem]) -> Option<String> {
        order.iter().find_map(|wanted| {
            self.found
                .iter()
                .find(|(p, _)| p == wanted)
                .map(|(_, m)| m.clone())
        })
    }
}

/// A parsed operand before it is given a meaning: functions are kept generic so that a
/// misplaced one gets DynamoDB's message rather than a syntax error.
#[derive(Debug, Clone)]
pub(crate) enum Term {
    Path(Path),
    Value(AttributeValue),
    Call { name: String, args: Vec<Term> },
}

pub(crate) struct Parser<'a> {
    source: &'a str,
    tokens: Vec<Token>,
    pos: usize,
    pub bindings: &'a mut Bindings,
    pub diagnostics: Diagnostics,
    /// Words that end a path or an operand in this grammar (`AND`, `SET`, ...).
    keywords: &'static [&'static str],
    depth: usize,
    pub operators: usize,
}

impl<'a> Parser<'a> {
    /// `parameter` names the expression (`ConditionExpression`, ...) for the size message.
    pub fn new(
        source: &'a str,
        bindings: &'a mut Bindings,
        keywords: &'static [&'static str],
        parameter: &str,
    ) -> Result<Parser<'a>> {
        if source.is_empty() {
            return Err(ExprError::validation(messages::EXPRESSION_EMPTY));
        }
        // DynamoDB measures Java string length: UTF-16 code units.
        let size = source.encode_utf16().count();
        if size > limits::MAX_EXPRESSION_LENGTH {
            return Err(ExprError::validation(messages::expression_too_long(
                parameter, size,
            )));
        }
        Ok(Parser {
            source,
            tokens: tokenize(source),
            pos: 0,
            bindings,
            diagnostics: Diagnostics::default(),
            keywords,
            depth: 0,
            operators: 0,
        })
    }

    pub fn peek(&self) -> &TokenKind {
        &self.tokens[self.pos].kind
    }

    pub fn peek_next(&self) -> &TokenKind {
        &self.tokens[(self.pos + 1).min(self.tokens.len() - 1)].kind
    }

    pub fn advance(&mut self) -> TokenKind {
        let kind = self.tokens[self.pos].kind.clone();
        if kind != TokenKind::Eof {
            self.pos += 1;
        }
        kind
    }

    /// A syntax error at the current token.
    pub fn unexpected(&self) -> ExprError {
        syntax_error(self.source, &self.tokens, self.pos)
    }

    pub fn expect(&mut self, kind: TokenKind) -> Result<()> {
        if *self.peek() == kind {
            self.advance();
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    pub fn expect_end(&self) -> Result<()> {
        match self.peek() {
            TokenKind::Eof => Ok(()),
            _ => Err(self.unexpected()),
        }
    }

    /// Whether the current token is the keyword `word` (any case).
    pub fn at_keyword(&self, word: &str) -> bool {
        matches!(self.peek(), TokenKind::Ident(w) if w.eq_ignore_ascii_case(word))
    }

    fn is_keyword(&self, word: &str) -> bool {
        self.keywords.iter().any(|k| k.eq_ignore_ascii_case(word))
    }

    /// Enters one level of nesting. Every level of real nesting costs an operator or is a
    /// redundant parenthesis, so legal input never comes near the bound; it only keeps
    /// adversarial input from exhausting the stack.
    pub fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > limits::MAX_PARSE_DEPTH {
            return Err(ExprError::validation(messages::REDUNDANT_PARENTHESES));
        }
        Ok(())
    }

    pub fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Runs one level of recursive descent on a stack with room for it: a valid expression
    /// may nest a few hundred levels, more than a 2 MiB thread stack holds in debug builds.
    pub fn descend<T>(&mut self, level: impl FnOnce(&mut Self) -> T) -> T {
        stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || level(self))
    }

    /// Counts one operator or function against DynamoDB's per-expression limit.
    pub fn count_operator(&mut self) -> Result<()> {
        self.operators += 1;
        if self.operators > limits::MAX_OPERATORS {
            return Err(ExprError::validation(messages::too_many_operators(
                self.operators,
            )));
        }
        Ok(())
    }

    fn attribute_name(&mut self) -> Result<String> {
        match self.peek().clone() {
            TokenKind::Ident(word) if !self.is_keyword(&word) => {
                self.advance();
                if is_reserved(&word) {
                    self.diagnostics
                        .record(Problem::Reserved, messages::reserved_keyword(&word));
                }
                Ok(word)
            }
            TokenKind::NamePlaceholder(placeholder) => {
                self.advance();
                Ok(match self.bindings.name(&placeholder) {
                    Some(name) => name,
                    None => {
                        self.diagnostics.record(
                            Problem::UndefinedName,
                            messages::undefined_name(&placeholder),
                        );
                        placeholder
                    }
                })
            }
            _ => Err(self.unexpected()),
        }
    }

    /// `name ( '.' name | '[' digits ']' )*`.
    pub fn path(&mut self) -> Result<Path> {
        let mut elements = vec![PathElement::Attribute(self.attribute_name()?)];
        loop {
            match self.peek() {
                TokenKind::Dot => {
                    self.advance();
                    elements.push(PathElement::Attribute(self.attribute_name()?));
                }
                TokenKind::LBracket => {
                    self.advance();
                    let TokenKind::Integer(digits) = self.peek() else {
                        return Err(self.unexpected());
                    };
                    let index = match digits.parse::<i32>() {
                        Ok(index) => index as usize,
                        Err(_) => {
                            return Err(ExprError::validation(messages::list_index_out_of_range(
                                digits,
                            )));
                        }
                    };
                    self.advance();
                    self.expect(TokenKind::RBracket)?;
                    elements.push(PathElement::Index(index));
                }
                _ => break,
            }
        }
        if elements.len() > limits::MAX_PATH_DEPTH {
            return Err(ExprError::validation(messages::path_too_deep(
                elements.len(),
            )));
        }
        Ok(Path(elements))
    }

    pub fn value(&mut self, placeholder: &str) -> AttributeValue {
        match self.bindings.value(placeholder) {
            Some(value) => value,
            None => {
                self.diagnostics.record(
                    Problem::UndefinedValue,
                    messages::undefined_value(placeholder),
                );
                AttributeValue::Null
            }
        }
    }

    /// A path, a `:value`, or a function call `name(term, ...)`, optionally in parentheses.
    pub fn term(&mut self) -> Result<Term> {
        self.descend(Self::term_level)
    }

    fn term_level(&mut self) -> Result<Term> {
        if *self.peek() == TokenKind::LParen {
            self.advance();
            self.enter()?;
            let redundant = *self.peek() == TokenKind::LParen;
            let inner = self.term()?;
            self.expect(TokenKind::RParen)?;
            self.leave();
            if redundant {
                self.diagnostics.record(
                    Problem::Parentheses,
                    messages::REDUNDANT_PARENTHESES.to_owned(),
                );
            }
            return Ok(inner);
        }
        match self.peek().clone() {
            TokenKind::ValuePlaceholder(placeholder) => {
                self.advance();
                Ok(Term::Value(self.value(&placeholder)))
            }
            TokenKind::Ident(name)
                if !self.is_keyword(&name) && *self.peek_next() == TokenKind::LParen =>
            {
                self.advance();
                self.advance();
                self.enter()?;
                self.count_operator()?;
                let mut args = vec![self.term()?];
                while *self.peek() == TokenKind::Comma {
                    self.advance();
                    args.push(self.term()?);
                }
                self.expect(TokenKind::RParen)?;
                self.leave();
                Ok(Term::Call { name, args })
            }
            TokenKind::Ident(_) | TokenKind::NamePlaceholder(_) => Ok(Term::Path(self.path()?)),
            _ => Err(self.unexpected()),
        }
    }
}

/// DynamoDB's rendering of a constant in messages: `{N:5}`, `{S:abc}`.
pub(crate) fn render_value(value: &AttributeValue) -> String {
    let json = serde_json::to_value(value).unwrap_or_default();
    match json.as_object().and_then(|o| o.iter().next()) {
        Some((t, serde_json::Value::String(s))) => format!("{{{t}:{s}}}"),
        Some((t, v)) => format!("{{{t}:{v}}}"),
        None => String::new(),
    }
}

/// Records overlap and conflict between `paths` (update targets or projections).
pub(crate) fn check_paths(paths: &[&Path], diagnostics: &mut Diagnostics) {
    for (i, later) in paths.iter().enumerate() {
        for earlier in &paths[..i] {
            let mut conflict = false;
            let mut diverged = false;
            for (a, b) in earlier.0.iter().zip(later.0.iter()) {
                match (a, b) {
                    (PathElement::Attribute(x), PathElement::Attribute(y)) if x == y => {}
                    (PathElement::Index(x), PathElement::Index(y)) if x == y => {}
                    (PathElement::Attribute(_), PathElement::Attribute(_))
                    | (PathElement::Index(_), PathElement::Index(_)) => {
                        diverged = true;
                        break;
                    }
                    _ => {
                        conflict = true;
                        break;
                    }
                }
            }
            let (one, two) = (earlier.to_string(), later.to_string());
            if conflict {
                diagnostics.record(Problem::Conflict, messages::paths_conflict(&one, &two));
            } else if !diverged {
                diagnostics.record(Problem::Overlap, messages::paths_overlap(&one, &two));
            }
        }
    }
}
