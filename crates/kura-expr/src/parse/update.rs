//! Update expressions: `SET`, `REMOVE`, `ADD` and `DELETE` clauses, each at most once.

use kura_model::{AttributeValue, ValueType, messages};

use super::{Parser, Problem, Term, check_paths};
use crate::ast::{Path, SetOperand, SetValue, Update};
use crate::bindings::Bindings;
use crate::error::{ExprError, Result};
use crate::lexer::TokenKind;

const KEYWORDS: &[&str] = &["SET", "REMOVE", "ADD", "DELETE"];

/// DynamoDB's ranking of non-syntax problems in update expressions.
const ORDER: &[Problem] = &[
    Problem::Parentheses,
    Problem::Reserved,
    Problem::UnknownFunction,
    Problem::MisusedFunction,
    Problem::Section,
    Problem::UndefinedName,
    Problem::UndefinedValue,
    Problem::Overlap,
    Problem::Conflict,
    Problem::OperatorOperand,
    Problem::OperandCount,
    Problem::FunctionOperand,
];

pub fn parse_update(source: &str, bindings: &mut Bindings) -> Result<Update> {
    let wrap = |e: ExprError| {
        ExprError::validation(messages::invalid_expression(
            "UpdateExpression",
            e.message(),
        ))
    };
    let mut parser = Parser::new(source, bindings, KEYWORDS, "UpdateExpression").map_err(wrap)?;
    let update = clauses(&mut parser).map_err(wrap)?;
    let paths: Vec<&Path> = update.target_paths().collect();
    check_paths(&paths, &mut parser.diagnostics);
    match parser.diagnostics.first(ORDER) {
        Some(message) => Err(wrap(ExprError::validation(message))),
        None => Ok(update),
    }
}

fn clauses(p: &mut Parser<'_>) -> Result<Update> {
    let mut update = Update::default();
    let mut seen: Vec<&'static str> = Vec::new();
    loop {
        let Some(section) = KEYWORDS.iter().copied().find(|k| p.at_keyword(k)) else {
            if seen.is_empty() || *p.peek() != TokenKind::Eof {
                return Err(p.unexpected());
            }
            return Ok(update);
        };
        p.advance();
        if seen.contains(&section) {
            p.diagnostics
                .record(Problem::Section, messages::section_twice(section));
        }
        seen.push(section);
        loop {
            match section {
                "SET" => {
                    let path = p.path()?;
                    p.expect(TokenKind::Eq)?;
                    let value = set_value(p)?;
                    update.set.push((path, value));
                }
                "REMOVE" => update.remove.push(p.path()?),
                _ => {
                    let path = p.path()?;
                    let TokenKind::ValuePlaceholder(placeholder) = p.peek().clone() else {
                        return Err(p.unexpected());
                    };
                    p.advance();
                    let value = p.value(&placeholder);
                    check_add_delete_operand(p, section, &value);
                    if section == "ADD" {
                        update.add.push((path, value));
                    } else {
                        update.delete.push((path, value));
                    }
                }
            }
            // An action itself is not an operator (Developer Guide, expression quotas).
            if *p.peek() == TokenKind::Comma {
                p.advance();
            } else {
                break;
            }
        }
    }
}

/// ADD takes a number or a set; DELETE takes a set.
fn check_add_delete_operand(p: &mut Parser<'_>, operator: &str, value: &AttributeValue) {
    let word = match value.value_type() {
        ValueType::S => "STRING",
        ValueType::N if operator == "ADD" => return,
        ValueType::N => "NUMBER",
        ValueType::B => "BINARY",
        ValueType::Null => "NULL",
        ValueType::Bool => "BOOLEAN",
        ValueType::L => "LIST",
        ValueType::M => "MAP",
        ValueType::Ss | ValueType::Ns | ValueType::Bs => return,
    };
    p.diagnostics.record(
        Problem::OperatorOperand,
        messages::operator_operand_type(operator, word),
    );
}

/// `operand`, `operand + operand` or `operand - operand`, optionally in parentheses.
fn set_value(p: &mut Parser<'_>) -> Result<SetValue> {
    let parenthesised = *p.peek() == TokenKind::LParen && !starts_operand_in_parens(p);
    if parenthesised {
        p.advance();
    }
    let left = p.term()?;
    let operator = match p.peek() {
        TokenKind::Plus => Some("+"),
        TokenKind::Minus => Some("-"),
        _ => None,
    };
    let value = match operator {
        Some(op) => {
            p.advance();
            p.count_operator()?;
            let right = p.term()?;
            let left = set_operand(p, left);
            let right = set_operand(p, right);
            for operand in [&left, &right] {
                if let SetOperand::Value(v) = operand
                    && v.value_type() != ValueType::N
                {
                    p.diagnostics.record(
                        Problem::FunctionOperand,
                        messages::function_operand_type(op, v.value_type().descriptor()),
                    );
                }
            }
            if op == "+" {
                SetValue::Plus(left, right)
            } else {
                SetValue::Minus(left, right)
            }
        }
        None => SetValue::Operand(set_operand(p, left)),
    };
    if parenthesised {
        p.expect(TokenKind::RParen)?;
    }
    Ok(value)
}

/// Whether `(` at the current position wraps a single operand, `(a)`, rather than the
/// whole value, `(a + b)`: looks for the matching `)` and what follows it.
fn starts_operand_in_parens(p: &Parser<'_>) -> bool {
    let mut depth = 0usize;
    for token in &p.tokens[p.pos..] {
        match token.kind {
            TokenKind::LParen => depth += 1,
            TokenKind::RParen => {
                depth -= 1;
                if depth == 0 {
                    return true;
                }
            }
            TokenKind::Plus | TokenKind::Minus if depth == 1 => return false,
            TokenKind::Eof => return true,
            _ => {}
        }
    }
    true
}

fn set_operand(p: &mut Parser<'_>, term: Term) -> SetOperand {
    match term {
        Term::Path(path) => SetOperand::Path(path),
        Term::Value(value) => SetOperand::Value(value),
        Term::Call { name, args } => {
            let count = args.len();
            let args: Vec<SetOperand> = args.into_iter().map(|a| set_operand(p, a)).collect();
            let placeholder = SetOperand::Value(AttributeValue::Null);
            match name.as_str() {
                "if_not_exists" | "list_append" if count != 2 => {
                    p.diagnostics
                        .record(Problem::OperandCount, messages::operand_count(&name, count));
                    placeholder
                }
                "if_not_exists" => {
                    let mut args = args.into_iter();
                    let (first, second) = (args.next(), args.next());
                    match (first, second) {
                        (Some(SetOperand::Path(path)), Some(fallback)) => {
                            SetOperand::IfNotExists(path, Box::new(fallback))
                        }
                        _ => {
                            p.diagnostics
                                .record(Problem::FunctionOperand, messages::requires_path(&name));
                            placeholder
                        }
                    }
                }
                "list_append" => {
                    // DynamoDB refuses list_append as an argument of list_append
                    // (scylladb `test_update_expression_function_nesting`, run against
                    // AWS); if_not_exists inside is allowed.
                    if args.iter().any(|a| matches!(a, SetOperand::ListAppend(..))) {
                        p.diagnostics
                            .record(Problem::MisusedFunction, messages::misused_function(&name));
                    }
                    for arg in &args {
                        if let SetOperand::Value(v) = arg
                            && v.value_type() != ValueType::L
                        {
                            p.diagnostics.record(
                                Problem::FunctionOperand,
                                messages::function_operand_type(&name, v.value_type().descriptor()),
                            );
                        }
                    }
                    let mut args = args.into_iter();
                    match (args.next(), args.next()) {
                        (Some(a), Some(b)) => SetOperand::ListAppend(Box::new(a), Box::new(b)),
                        _ => placeholder,
                    }
                }
                _ => {
                    p.diagnostics
                        .record(Problem::UnknownFunction, messages::invalid_function(&name));
                    placeholder
                }
            }
        }
    }
}
