//! Projection expressions: a comma-separated list of document paths.

use kura_model::messages;

use super::{Parser, Problem, check_paths};
use crate::ast::{Path, Projection};
use crate::bindings::Bindings;
use crate::error::{ExprError, Result};
use crate::lexer::TokenKind;

const ORDER: &[Problem] = &[
    Problem::Reserved,
    Problem::UndefinedName,
    Problem::Overlap,
    Problem::Conflict,
];

pub fn parse_projection(source: &str, bindings: &mut Bindings) -> Result<Projection> {
    let wrap = |e: ExprError| {
        ExprError::validation(messages::invalid_expression(
            "ProjectionExpression",
            e.message(),
        ))
    };
    let mut parser = Parser::new(source, bindings, &[], "ProjectionExpression").map_err(wrap)?;
    let mut paths = vec![parser.path().map_err(wrap)?];
    while *parser.peek() == TokenKind::Comma {
        parser.advance();
        paths.push(parser.path().map_err(wrap)?);
    }
    parser.expect_end().map_err(wrap)?;
    let refs: Vec<&Path> = paths.iter().collect();
    check_paths(&refs, &mut parser.diagnostics);
    match parser.diagnostics.first(ORDER) {
        Some(message) => Err(wrap(ExprError::validation(message))),
        None => Ok(paths),
    }
}
