//! Condition, filter and key-condition expressions.
//!
//! Precedence, loosest first: `OR`, `AND`, `NOT`, then comparisons, `BETWEEN`, `IN` and
//! functions (Developer Guide, "Comparison operator and function reference").

use kura_model::{AttributeValue, ValueType, limits, messages};

use super::{Parser, Problem, Term, render_value};
use crate::ast::{Comparator, Condition, Operand, Path};
use crate::bindings::Bindings;
use crate::error::{ExprError, Result};
use crate::lexer::TokenKind;

const KEYWORDS: &[&str] = &["AND", "OR", "NOT", "BETWEEN", "IN"];

/// DynamoDB's ranking of non-syntax problems in conditions.
const ORDER: &[Problem] = &[
    Problem::Parentheses,
    Problem::UnknownFunction,
    Problem::MisusedFunction,
    Problem::Reserved,
    Problem::UndefinedName,
    Problem::UndefinedValue,
    Problem::OperandCount,
    Problem::Distinct,
    Problem::FunctionOperand,
    Problem::OperatorOperand,
];

/// Parses a condition (or filter, or key condition: `parameter` names it in messages).
pub fn parse_condition(
    source: &str,
    bindings: &mut Bindings,
    parameter: &str,
) -> Result<Condition> {
    let wrap =
        |e: ExprError| ExprError::validation(messages::invalid_expression(parameter, e.message()));
    let mut parser = Parser::new(source, bindings, KEYWORDS, parameter).map_err(wrap)?;
    let node = or(&mut parser).map_err(wrap)?;
    parser.expect_end().map_err(wrap)?;
    let condition = match node {
        Node::Condition(c, _) => c,
        Node::Term(..) => return Err(wrap(parser.unexpected())),
    };
    match parser.diagnostics.first(ORDER) {
        Some(message) => Err(wrap(ExprError::validation(message))),
        None => Ok(condition),
    }
}

/// What a parenthesised stretch turned out to be, and how many parentheses wrap it.
enum Node {
    Condition(Condition, u32),
    Term(Term, u32),
}

fn need_condition(p: &Parser<'_>, node: Node) -> Result<Condition> {
    match node {
        Node::Condition(c, _) => Ok(c),
        Node::Term(..) => Err(p.unexpected()),
    }
}

fn or(p: &mut Parser<'_>) -> Result<Node> {
    p.descend(or_level)
}

fn or_level(p: &mut Parser<'_>) -> Result<Node> {
    let mut left = and(p)?;
    while p.at_keyword("OR") {
        let l = need_condition(p, left)?;
        p.advance();
        p.count_operator()?;
        let r = and(p)?;
        let r = need_condition(p, r)?;
        left = Node::Condition(Condition::Or(Box::new(l), Box::new(r)), 0);
    }
    Ok(left)
}

fn and(p: &mut Parser<'_>) -> Result<Node> {
    let mut left = not(p)?;
    while p.at_keyword("AND") {
        let l = need_condition(p, left)?;
        p.advance();
        p.count_operator()?;
        let r = not(p)?;
        let r = need_condition(p, r)?;
        left = Node::Condition(Condition::And(Box::new(l), Box::new(r)), 0);
    }
    Ok(left)
}

fn not(p: &mut Parser<'_>) -> Result<Node> {
    if p.at_keyword("NOT") {
        p.advance();
        // The operator limit bounds chains of NOT; no nesting level is spent on them.
        p.count_operator()?;
        let inner = p.descend(not)?;
        let inner = need_condition(p, inner)?;
        return Ok(Node::Condition(Condition::Not(Box::new(inner)), 0));
    }
    primary(p)
}

fn primary(p: &mut Parser<'_>) -> Result<Node> {
    let node = if *p.peek() == TokenKind::LParen {
        p.advance();
        p.enter()?;
        let inner = or(p)?;
        p.expect(TokenKind::RParen)?;
        p.leave();
        match inner {
            Node::Condition(c, n) => Node::Condition(c, n + 1),
            Node::Term(t, n) => Node::Term(t, n + 1),
        }
    } else {
        Node::Term(p.term()?, 0)
    };
    let (term, parens) = match node {
        Node::Condition(c, parens) => {
            if parens >= 2 {
                redundant(p);
            }
            return Ok(Node::Condition(c, parens));
        }
        Node::Term(t, parens) => (t, parens),
    };
    if parens >= 2 {
        redundant(p);
    }
    let comparator = match p.peek() {
        TokenKind::Eq => Some(Comparator::Eq),
        TokenKind::Ne => Some(Comparator::Ne),
        TokenKind::Lt => Some(Comparator::Lt),
        TokenKind::Le => Some(Comparator::Le),
        TokenKind::Gt => Some(Comparator::Gt),
        TokenKind::Ge => Some(Comparator::Ge),
        _ => None,
    };
    if let Some(comparator) = comparator {
        p.advance();
        p.count_operator()?;
        let right = p.term()?;
        return Ok(Node::Condition(compare(p, comparator, term, right), 0));
    }
    if p.at_keyword("BETWEEN") {
        p.advance();
        p.count_operator()?;
        let low = p.term()?;
        if !p.at_keyword("AND") {
            return Err(p.unexpected());
        }
        p.advance();
        let high = p.term()?;
        return Ok(Node::Condition(between(p, term, low, high), 0));
    }
    if p.at_keyword("IN") {
        p.advance();
        p.count_operator()?;
        p.expect(TokenKind::LParen)?;
        let mut list = vec![p.term()?];
        while *p.peek() == TokenKind::Comma {
            p.advance();
            list.push(p.term()?);
        }
        p.expect(TokenKind::RParen)?;
        if list.len() > limits::MAX_IN_OPERANDS {
            return Err(ExprError::validation(messages::too_many_in_operands(
                list.len(),
            )));
        }
        let value = operand(p, term);
        let list = list.into_iter().map(|t| operand(p, t)).collect();
        return Ok(Node::Condition(Condition::In(value, list), 0));
    }
    match term {
        Term::Call { name, args } => Ok(Node::Condition(function(p, &name, args), parens)),
        other => Ok(Node::Term(other, parens)),
    }
}

fn redundant(p: &mut Parser<'_>) {
    p.diagnostics.record(
        Problem::Parentheses,
        messages::REDUNDANT_PARENTHESES.to_owned(),
    );
}

/// Functions that exist but cannot stand where they were used: the condition functions
/// as operands, and the update functions anywhere in a condition.
const MISPLACEABLE_FUNCTIONS: &[&str] = &[
    "attribute_exists",
    "attribute_not_exists",
    "attribute_type",
    "begins_with",
    "contains",
    "if_not_exists",
    "list_append",
];

/// A term used as a value: a path, a constant or `size(...)`.
fn operand(p: &mut Parser<'_>, term: Term) -> Operand {
    match term {
        Term::Path(path) => Operand::Path(path),
        Term::Value(value) => Operand::Value(value),
        Term::Call { name, mut args } if name == "size" => {
            if args.len() != 1 {
                p.diagnostics.record(
                    Problem::OperandCount,
                    messages::operand_count("size", args.len()),
                );
                return Operand::Value(AttributeValue::Null);
            }
            let arg = operand(p, args.remove(0));
            let literal_type = match &arg {
                Operand::Value(v) => Some(v.value_type()),
                Operand::Size(_) => Some(ValueType::N),
                Operand::Path(_) => None,
            };
            if let Some(t @ (ValueType::N | ValueType::Bool | ValueType::Null)) = literal_type {
                p.diagnostics.record(
                    Problem::FunctionOperand,
                    messages::function_operand_type("size", t.descriptor()),
                );
            }
            Operand::Size(Box::new(arg))
        }
        Term::Call { name, args } => {
            if MISPLACEABLE_FUNCTIONS.contains(&name.as_str()) {
                p.diagnostics
                    .record(Problem::MisusedFunction, messages::misused_function(&name));
            } else {
                p.diagnostics
                    .record(Problem::UnknownFunction, messages::invalid_function(&name));
            }
            // Still walk the arguments so their placeholders count as used.
            for arg in args {
                operand(p, arg);
            }
            Operand::Value(AttributeValue::Null)
        }
    }
}

fn same_path(a: &Operand, b: &Operand) -> Option<Path> {
    match (a, b) {
        (Operand::Path(x), Operand::Path(y)) if x == y => Some(x.clone()),
        _ => None,
    }
}

/// `<`, `<=`, `>`, `>=` and BETWEEN order only strings, numbers and binaries: a constant
/// of another type is refused before any item is read.
fn check_orderable(p: &mut Parser<'_>, operator: &str, operand: &Operand) {
    if let Operand::Value(v) = operand
        && !matches!(v.value_type(), ValueType::S | ValueType::N | ValueType::B)
    {
        p.diagnostics.record(
            Problem::FunctionOperand,
            messages::function_operand_type(operator, v.value_type().descriptor()),
        );
    }
}

fn compare(p: &mut Parser<'_>, comparator: Comparator, left: Term, right: Term) -> Condition {
    let left = operand(p, left);
    let right = operand(p, right);
    if !matches!(comparator, Comparator::Eq | Comparator::Ne) {
        check_orderable(p, comparator.symbol(), &left);
        check_orderable(p, comparator.symbol(), &right);
    }
    if let Some(path) = same_path(&left, &right) {
        p.diagnostics.record(
            Problem::Distinct,
            messages::not_distinct(comparator.symbol(), &path.to_string()),
        );
    }
    Condition::Compare(comparator, left, right)
}

fn between(p: &mut Parser<'_>, value: Term, low: Term, high: Term) -> Condition {
    let value = operand(p, value);
    let low = operand(p, low);
    let high = operand(p, high);
    for bound in [&value, &low, &high] {
        check_orderable(p, "BETWEEN", bound);
    }
    if let (Operand::Value(l), Operand::Value(h)) = (&low, &high) {
        let (lt, ht) = (l.value_type(), h.value_type());
        if lt != ht {
            p.diagnostics.record(
                Problem::FunctionOperand,
                messages::between_types(&render_value(l), &render_value(h)),
            );
        } else if crate::eval::compare::order(l, h) == Some(std::cmp::Ordering::Greater) {
            p.diagnostics.record(
                Problem::FunctionOperand,
                messages::between_order(&render_value(l), &render_value(h)),
            );
        }
    }
    Condition::Between(value, low, high)
}

/// A function used as a condition.
fn function(p: &mut Parser<'_>, name: &str, args: Vec<Term>) -> Condition {
    let placeholder = Condition::AttributeExists(Path::attribute(""));
    let arity = match name {
        "attribute_exists" | "attribute_not_exists" => 1,
        "attribute_type" | "begins_with" | "contains" => 2,
        "size" | "if_not_exists" | "list_append" => {
            p.diagnostics
                .record(Problem::MisusedFunction, messages::misused_function(name));
            0
        }
        _ => {
            p.diagnostics
                .record(Problem::UnknownFunction, messages::invalid_function(name));
            0
        }
    };
    let args: Vec<Operand> = args.into_iter().map(|t| operand(p, t)).collect();
    if arity == 0 {
        return placeholder;
    }
    if args.len() != arity {
        p.diagnostics.record(
            Problem::OperandCount,
            messages::operand_count(name, args.len()),
        );
        return placeholder;
    }
    if args.len() == 2
        && let Some(path) = same_path(&args[0], &args[1])
    {
        p.diagnostics.record(
            Problem::Distinct,
            messages::not_distinct(name, &path.to_string()),
        );
    }
    let mut args = args.into_iter();
    let first = args.next().unwrap_or(Operand::Value(AttributeValue::Null));
    let second = args.next();
    let needs_path = |p: &mut Parser<'_>, op: Operand| match op {
        Operand::Path(path) => path,
        _ => {
            p.diagnostics
                .record(Problem::FunctionOperand, messages::requires_path(name));
            Path::attribute("")
        }
    };
    match (name, second) {
        ("attribute_exists", _) => Condition::AttributeExists(needs_path(p, first)),
        ("attribute_not_exists", _) => Condition::AttributeNotExists(needs_path(p, first)),
        // Any operand: a value's own type is tested (dynalite's grammar, built from
        // DynamoDB's, requires a path only of attribute_exists and attribute_not_exists).
        ("attribute_type", Some(type_operand)) => {
            Condition::AttributeType(first, type_name(p, &type_operand))
        }
        ("begins_with", Some(second)) => {
            for op in [&first, &second] {
                if let Operand::Value(v) = op
                    && !matches!(v.value_type(), ValueType::S | ValueType::B)
                {
                    p.diagnostics.record(
                        Problem::FunctionOperand,
                        messages::function_operand_type(name, v.value_type().descriptor()),
                    );
                }
            }
            Condition::BeginsWith(first, second)
        }
        ("contains", Some(second)) => Condition::Contains(first, second),
        _ => placeholder,
    }
}

/// The second argument of `attribute_type`: a string constant naming a type.
fn type_name(p: &mut Parser<'_>, operand: &Operand) -> ValueType {
    let Operand::Value(AttributeValue::S(name)) = operand else {
        let shown = match operand {
            Operand::Value(v) => v.value_type().descriptor().to_owned(),
            _ => "{NS,SS,L,BS,N,M,B,BOOL,NULL,S}".to_owned(),
        };
        p.diagnostics.record(
            Problem::FunctionOperand,
            messages::function_operand_type("attribute_type", &shown),
        );
        return ValueType::Null;
    };
    match name.as_str() {
        "S" => ValueType::S,
        "N" => ValueType::N,
        "B" => ValueType::B,
        "BOOL" => ValueType::Bool,
        "NULL" => ValueType::Null,
        "L" => ValueType::L,
        "M" => ValueType::M,
        "SS" => ValueType::Ss,
        "NS" => ValueType::Ns,
        "BS" => ValueType::Bs,
        other => {
            p.diagnostics
                .record(Problem::FunctionOperand, messages::invalid_type_name(other));
            ValueType::Null
        }
    }
}
