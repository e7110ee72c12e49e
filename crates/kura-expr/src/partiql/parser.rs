//! Recursive-descent parser for the statements DynamoDB's PartiQL accepts. Nesting is
//! bounded (`limits::MAX_PARSE_DEPTH`) and every recursion runs on a stack with room for
//! it, so no input can overflow the stack.

use kura_model::limits;
use kura_model::messages::partiql as msg;

use super::ast::{Action, Expr, Returning, Select, Source, Statement, Step};
use super::lexer::{Token, tokenize};
use crate::ast::Comparator;
use crate::error::{ExprError, Result};

/// Words that are never identifiers unless double-quoted.
const RESERVED: [&str; 26] = [
    "SELECT",
    "FROM",
    "WHERE",
    "AND",
    "OR",
    "NOT",
    "BETWEEN",
    "IN",
    "IS",
    "MISSING",
    "NULL",
    "TRUE",
    "FALSE",
    "ORDER",
    "BY",
    "INSERT",
    "INTO",
    "VALUE",
    "VALUES",
    "UPDATE",
    "SET",
    "REMOVE",
    "DELETE",
    "RETURNING",
    "EXISTS",
    "AS",
];

const RED_ZONE: usize = 64 * 1024;
const STACK_SEGMENT: usize = 1024 * 1024;

/// Kura's bound on the length of a statement, in bytes: the API Reference's limit on
/// `Statement` (the engine reports a longer statement as a constraint failure first).
pub const MAX_STATEMENT_LENGTH: usize = 8192;

pub(crate) fn syntax(detail: &str) -> ExprError {
    ExprError::validation(msg::not_well_formed(detail))
}

/// Parses one statement, with an optional `;` at its end.
pub fn parse(source: &str) -> Result<Statement> {
    if source.len() > MAX_STATEMENT_LENGTH {
        return Err(ExprError::validation(kura_model::messages::max_length(
            MAX_STATEMENT_LENGTH,
        )));
    }
    let tokens = tokenize(source)?;
    let mut p = Parser {
        tokens,
        pos: 0,
        depth: 0,
        params: 0,
    };
    let statement = p.statement()?;
    p.eat_punct(";");
    if p.peek().is_some() {
        return Err(syntax(msg::TOKEN_AFTER_EXPRESSION));
    }
    Ok(statement)
}

/// How many `?` a statement holds, counted by [`parse`] in order.
pub fn parameter_count(statement: &Statement) -> usize {
    fn count(e: &Expr) -> usize {
        match e {
            Expr::Param(i) => i + 1,
            Expr::List(v) | Expr::Bag(v) | Expr::Call(_, v) => {
                v.iter().map(count).max().unwrap_or(0)
            }
            Expr::Tuple(v) => v
                .iter()
                .map(|(k, x)| count(k).max(count(x)))
                .max()
                .unwrap_or(0),
            Expr::Compare(_, a, b)
            | Expr::And(a, b)
            | Expr::Or(a, b)
            | Expr::Plus(a, b)
            | Expr::Minus(a, b) => count(a).max(count(b)),
            Expr::Between(a, b, c) => count(a).max(count(b)).max(count(c)),
            Expr::In(a, v) => v.iter().map(count).max().unwrap_or(0).max(count(a)),
            Expr::Is { value, .. } | Expr::Not(value) => count(value),
            _ => 0,
        }
    }
    let select = |s: &Select| s.filter.as_ref().map_or(0, count);
    match statement {
        Statement::Select(s) | Statement::Exists(s) => select(s),
        Statement::Insert { item, .. } => count(item),
        Statement::Update {
            actions, filter, ..
        } => actions
            .iter()
            .map(|a| match a {
                Action::Set(_, e) => count(e),
                Action::Remove(_) => 0,
            })
            .max()
            .unwrap_or(0)
            .max(count(filter)),
        Statement::Delete { filter, .. } => count(filter),
    }
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    depth: usize,
    params: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn unexpected(&self) -> ExprError {
        match self.peek() {
            Some(t) => syntax(&format!("Unexpected token: {}", t.describe())),
            None => syntax("Unexpected end of statement"),
        }
    }

    fn is_word(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Token::Word(w)) if w.eq_ignore_ascii_case(word))
    }

    fn eat_word(&mut self, word: &str) -> bool {
        let yes = self.is_word(word);
        if yes {
            self.pos += 1;
        }
        yes
    }

    fn expect_word(&mut self, word: &str) -> Result<()> {
        if self.eat_word(word) {
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Token::Punct(q)) if *q == p)
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        let yes = self.is_punct(p);
        if yes {
            self.pos += 1;
        }
        yes
    }

    fn expect_punct(&mut self, p: &str) -> Result<()> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    /// An identifier: a double-quoted name or a bare word that is not reserved.
    fn name(&mut self) -> Result<String> {
        match self.peek() {
            Some(Token::Quoted(q)) => {
                let q = q.clone();
                self.pos += 1;
                Ok(q)
            }
            Some(Token::Word(w)) if !is_reserved(w) => {
                let w = w.clone();
                self.pos += 1;
                Ok(w)
            }
            _ => Err(self.unexpected()),
        }
    }

    fn is_name(&self) -> bool {
        match self.peek() {
            Some(Token::Quoted(_)) => true,
            Some(Token::Word(w)) => !is_reserved(w),
            _ => false,
        }
    }

    fn statement(&mut self) -> Result<Statement> {
        if self.eat_word("SELECT") {
            Ok(Statement::Select(self.select_rest()?))
        } else if self.eat_word("INSERT") {
            self.expect_word("INTO")?;
            let source = self.source()?;
            // An alias here is a token left over, not "Aliasing is not supported" (AWS
            // eu-west-2 2026-10, paritysuite `partiqlGrammar.test.ts`).
            if self.is_name() {
                return Err(syntax(msg::TOKEN_AFTER_EXPRESSION));
            }
            if self.is_word("VALUES") {
                return Err(ExprError::validation(msg::INSERT_MANY));
            }
            self.expect_word("VALUE")?;
            let item = self.expr()?;
            if self.is_word("RETURNING") {
                return Err(ExprError::validation(msg::RETURNING_IN_INSERT));
            }
            Ok(Statement::Insert { source, item })
        } else if self.eat_word("UPDATE") {
            let source = self.source()?;
            self.refuse_alias()?;
            let mut actions = Vec::new();
            loop {
                if self.eat_word("SET") {
                    loop {
                        let path = self.path()?;
                        self.expect_punct("=")?;
                        actions.push(Action::Set(path, self.expr()?));
                        if !self.eat_punct(",") {
                            break;
                        }
                    }
                } else if self.eat_word("REMOVE") {
                    loop {
                        actions.push(Action::Remove(self.path()?));
                        if !self.eat_punct(",") {
                            break;
                        }
                    }
                } else {
                    break;
                }
            }
            if actions.is_empty() {
                return Err(self.unexpected());
            }
            if !self.eat_word("WHERE") {
                if self.peek().is_none() || self.is_punct(";") {
                    return Err(ExprError::validation(msg::WHERE_NEEDS_FULL_KEY));
                }
                return Err(self.unexpected());
            }
            let filter = self.expr()?;
            let returning = self.returning()?;
            Ok(Statement::Update {
                source,
                actions,
                filter,
                returning,
            })
        } else if self.eat_word("DELETE") {
            self.expect_word("FROM")?;
            let source = self.source()?;
            self.refuse_alias()?;
            if !self.eat_word("WHERE") {
                if self.peek().is_none() || self.is_punct(";") {
                    return Err(ExprError::validation(msg::WHERE_NEEDS_FULL_KEY));
                }
                return Err(self.unexpected());
            }
            let filter = self.expr()?;
            let returning = self.returning()?;
            Ok(Statement::Delete {
                source,
                filter,
                returning,
            })
        } else if self.eat_word("EXISTS") {
            self.expect_punct("(")?;
            self.expect_word("SELECT")?;
            let select = self.select_rest()?;
            self.expect_punct(")")?;
            Ok(Statement::Exists(select))
        } else {
            Err(syntax("Expected data manipulation"))
        }
    }

    /// A table alias after an UPDATE's or DELETE's table, refused as a SELECT's is (AWS
    /// eu-west-2 2026-10, paritysuite `partiqlGrammar.test.ts`).
    fn refuse_alias(&self) -> Result<()> {
        if self.is_word("AS") || self.is_name() {
            return Err(ExprError::validation(msg::ALIASING));
        }
        Ok(())
    }

    fn returning(&mut self) -> Result<Option<Returning>> {
        if !self.eat_word("RETURNING") {
            return Ok(None);
        }
        let all = if self.eat_word("ALL") {
            true
        } else if self.eat_word("MODIFIED") {
            false
        } else {
            return Err(self.unexpected());
        };
        let old = if self.eat_word("OLD") {
            true
        } else if self.eat_word("NEW") {
            false
        } else {
            return Err(self.unexpected());
        };
        if !self.eat_punct("*") {
            return Err(ExprError::validation(
                "Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause",
            ));
        }
        Ok(Some(match (all, old) {
            (true, true) => Returning::AllOld,
            (false, true) => Returning::ModifiedOld,
            (true, false) => Returning::AllNew,
            (false, false) => Returning::ModifiedNew,
        }))
    }

    fn select_rest(&mut self) -> Result<Select> {
        let projection = if self.eat_punct("*") {
            if self.is_punct(",") {
                return Err(ExprError::validation(msg::STAR_AND_ATTRIBUTES));
            }
            None
        } else {
            let mut paths = Vec::new();
            loop {
                if self.is_punct("*") {
                    return Err(ExprError::validation(msg::STAR_AND_ATTRIBUTES));
                }
                paths.push(self.path()?);
                if self.is_word("AS") || self.is_name() {
                    return Err(ExprError::validation(msg::ALIASING));
                }
                if !self.eat_punct(",") {
                    break;
                }
            }
            Some(paths)
        };
        self.expect_word("FROM")?;
        let source = self.source()?;
        if self.is_word("AS") || self.is_name() {
            return Err(ExprError::validation(msg::ALIASING));
        }
        let filter = if self.eat_word("WHERE") {
            Some(self.expr()?)
        } else {
            None
        };
        let mut order_by = Vec::new();
        if self.eat_word("ORDER") {
            self.expect_word("BY")?;
            loop {
                let name = self.name()?;
                let descending = if self.eat_word("DESC") {
                    true
                } else {
                    self.eat_word("ASC");
                    false
                };
                order_by.push((name, descending));
                if !self.eat_punct(",") {
                    break;
                }
            }
        }
        Ok(Select {
            projection,
            source,
            filter,
            order_by,
        })
    }

    fn source(&mut self) -> Result<Source> {
        let table = self.name()?;
        let index = if self.eat_punct(".") {
            Some(self.name()?)
        } else {
            None
        };
        Ok(Source { table, index })
    }

    /// A document path: a name, then `.name` and `[n]` steps.
    fn path(&mut self) -> Result<Vec<Step>> {
        if self.is_punct("[") {
            return Err(ExprError::validation(msg::PATH_STARTS_WITH_INDEX));
        }
        let mut steps = vec![Step::Name(self.name()?)];
        self.path_steps(&mut steps)?;
        Ok(steps)
    }

    fn path_steps(&mut self, steps: &mut Vec<Step>) -> Result<()> {
        loop {
            if self.eat_punct(".") {
                steps.push(Step::Name(self.name()?));
            } else if self.eat_punct("[") {
                match self.next() {
                    Some(Token::Num(n)) if n.bytes().all(|b| b.is_ascii_digit()) => {
                        let ix = n.parse::<usize>().map_err(|_| {
                            ExprError::validation(format!(
                                "List index is not within the allowable range; index: [{n}]"
                            ))
                        })?;
                        steps.push(Step::Index(ix));
                    }
                    _ => {
                        self.pos -= 1;
                        return Err(self.unexpected());
                    }
                }
                self.expect_punct("]")?;
            } else {
                return Ok(());
            }
            if steps.len() > limits::MAX_PATH_DEPTH {
                return Err(ExprError::validation(kura_model::messages::path_too_deep(
                    steps.len(),
                )));
            }
        }
    }

    /// One nested expression, on a stack with room for it.
    fn expr(&mut self) -> Result<Expr> {
        self.depth += 1;
        if self.depth > limits::MAX_PARSE_DEPTH {
            return Err(syntax("Expression nested too deeply"));
        }
        let e = stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || self.or());
        self.depth -= 1;
        e
    }

    fn or(&mut self) -> Result<Expr> {
        let mut left = self.and()?;
        while self.eat_word("OR") {
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr> {
        let mut left = self.not()?;
        while self.eat_word("AND") {
            left = Expr::And(Box::new(left), Box::new(self.not()?));
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Expr> {
        if self.eat_word("NOT") {
            self.depth += 1;
            if self.depth > limits::MAX_PARSE_DEPTH {
                return Err(syntax("Expression nested too deeply"));
            }
            let inner = stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || self.not());
            self.depth -= 1;
            return Ok(Expr::Not(Box::new(inner?)));
        }
        self.predicate()
    }

    fn predicate(&mut self) -> Result<Expr> {
        let left = self.additive()?;
        let comparator = match self.peek() {
            Some(Token::Punct("=")) => Some(Comparator::Eq),
            Some(Token::Punct("<>" | "!=")) => Some(Comparator::Ne),
            Some(Token::Punct("<")) => Some(Comparator::Lt),
            Some(Token::Punct("<=")) => Some(Comparator::Le),
            Some(Token::Punct(">")) => Some(Comparator::Gt),
            Some(Token::Punct(">=")) => Some(Comparator::Ge),
            _ => None,
        };
        if let Some(op) = comparator {
            self.pos += 1;
            let right = self.additive()?;
            return Ok(Expr::Compare(op, Box::new(left), Box::new(right)));
        }
        if self.eat_word("IS") {
            let negated = self.eat_word("NOT");
            let type_name = match self.next() {
                Some(Token::Word(w)) => w.to_ascii_uppercase(),
                _ => {
                    self.pos -= 1;
                    return Err(self.unexpected());
                }
            };
            return Ok(Expr::Is {
                value: Box::new(left),
                negated,
                type_name,
            });
        }
        let negated = self.is_word("NOT")
            && matches!(self.tokens.get(self.pos + 1), Some(Token::Word(w))
                if w.eq_ignore_ascii_case("BETWEEN") || w.eq_ignore_ascii_case("IN"));
        if negated {
            self.pos += 1;
        }
        let e = if self.eat_word("BETWEEN") {
            let low = self.additive()?;
            self.expect_word("AND")?;
            let high = self.additive()?;
            Expr::Between(Box::new(left), Box::new(low), Box::new(high))
        } else if self.eat_word("IN") {
            let close = if self.eat_punct("[") {
                "]"
            } else if self.eat_punct("(") {
                ")"
            } else if self.eat_punct("<<") {
                ">>"
            } else {
                return Err(ExprError::validation(
                    "IN operator must have a left hand argument of type Variable Reference and right hand argument of type Seq with at least one member",
                ));
            };
            let items = self.items(close)?;
            Expr::In(Box::new(left), items)
        } else {
            return Ok(left);
        };
        Ok(if negated { Expr::Not(Box::new(e)) } else { e })
    }

    fn additive(&mut self) -> Result<Expr> {
        let mut left = self.primary()?;
        loop {
            if self.eat_punct("+") {
                left = Expr::Plus(Box::new(left), Box::new(self.primary()?));
            } else if self.eat_punct("-") {
                left = Expr::Minus(Box::new(left), Box::new(self.primary()?));
            } else {
                return Ok(left);
            }
        }
    }

    /// Comma-separated expressions up to `close` (which may come at once).
    fn items(&mut self, close: &str) -> Result<Vec<Expr>> {
        let mut items = Vec::new();
        if self.eat_punct(close) {
            return Ok(items);
        }
        loop {
            items.push(self.expr()?);
            if self.eat_punct(close) {
                return Ok(items);
            }
            self.expect_punct(",")?;
        }
    }

    fn primary(&mut self) -> Result<Expr> {
        let Some(token) = self.next() else {
            return Err(syntax("Unexpected end of statement"));
        };
        match token {
            Token::Punct("(") => {
                let e = self.expr()?;
                self.expect_punct(")")?;
                Ok(e)
            }
            Token::Punct("[") => Ok(Expr::List(self.items("]")?)),
            Token::Punct("<<") => Ok(Expr::Bag(self.items(">>")?)),
            Token::Punct("{") => {
                let mut pairs = Vec::new();
                if self.eat_punct("}") {
                    return Ok(Expr::Tuple(pairs));
                }
                loop {
                    let key = self.expr()?;
                    self.expect_punct(":")?;
                    let value = self.expr()?;
                    pairs.push((key, value));
                    if self.eat_punct("}") {
                        return Ok(Expr::Tuple(pairs));
                    }
                    self.expect_punct(",")?;
                }
            }
            Token::Punct("?") => {
                self.params += 1;
                Ok(Expr::Param(self.params - 1))
            }
            Token::Punct(sign @ ("-" | "+")) => match self.next() {
                Some(Token::Num(n)) => Ok(Expr::Num(if sign == "-" { format!("-{n}") } else { n })),
                _ => {
                    self.pos -= 1;
                    Err(self.unexpected())
                }
            },
            Token::Word(w)
                if self.is_punct("(")
                    && (!is_reserved(&w)
                        || w.eq_ignore_ascii_case("EXISTS")
                        || w.eq_ignore_ascii_case("MISSING")) =>
            {
                self.expect_punct("(")?;
                let args = self.items(")")?;
                Ok(Expr::Call(w.to_ascii_lowercase(), args))
            }
            Token::Str(s) => Ok(Expr::Str(s)),
            Token::Num(n) => Ok(Expr::Num(n)),
            Token::Word(w) if w.eq_ignore_ascii_case("TRUE") => Ok(Expr::Bool(true)),
            Token::Word(w) if w.eq_ignore_ascii_case("FALSE") => Ok(Expr::Bool(false)),
            Token::Word(w) if w.eq_ignore_ascii_case("NULL") => Ok(Expr::Null),
            Token::Word(w) if w.eq_ignore_ascii_case("MISSING") => Ok(Expr::Missing),
            Token::Word(_) | Token::Quoted(_) => {
                self.pos -= 1;
                let mut steps = vec![Step::Name(self.name()?)];
                self.path_steps(&mut steps)?;
                Ok(Expr::Path(steps))
            }
            _ => {
                self.pos -= 1;
                Err(self.unexpected())
            }
        }
    }
}

fn is_reserved(word: &str) -> bool {
    RESERVED.iter().any(|r| r.eq_ignore_ascii_case(word))
}
