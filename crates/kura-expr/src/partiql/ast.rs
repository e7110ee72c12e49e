//! PartiQL statements as parsed, before parameters are bound and before lowering to the
//! expression trees of [`crate::ast`].

use crate::ast::Comparator;

/// One element of a path as written: `a`, `"a b"`, `.b`, `[3]`.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Name(String),
    Index(usize),
}

/// A literal value or a value built of literals and parameters.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Path(Vec<Step>),
    /// A string literal, `'...'`.
    Str(String),
    /// A number literal, as written (with its sign).
    Num(String),
    Bool(bool),
    Null,
    Missing,
    /// The n-th `?` of the statement.
    Param(usize),
    List(Vec<Expr>),
    /// `{'k': v, ...}` in order written; keys must be string literals.
    Tuple(Vec<(Expr, Expr)>),
    /// `<<a, b>>`.
    Bag(Vec<Expr>),
    Compare(Comparator, Box<Expr>, Box<Expr>),
    Between(Box<Expr>, Box<Expr>, Box<Expr>),
    In(Box<Expr>, Vec<Expr>),
    /// `x IS [NOT] TYPE`; the type as written, upper-cased.
    Is {
        value: Box<Expr>,
        negated: bool,
        type_name: String,
    },
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Plus(Box<Expr>, Box<Expr>),
    Minus(Box<Expr>, Box<Expr>),
    /// A function call; the name lower-cased.
    Call(String, Vec<Expr>),
}

/// The table (and index) a statement names.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    pub table: String,
    pub index: Option<String>,
}

/// `RETURNING ...`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Returning {
    AllOld,
    ModifiedOld,
    AllNew,
    ModifiedNew,
}

impl Returning {
    /// The `ReturnValues` of the UpdateItem/DeleteItem the statement becomes.
    pub fn return_values(self) -> &'static str {
        match self {
            Returning::AllOld => "ALL_OLD",
            Returning::ModifiedOld => "UPDATED_OLD",
            Returning::AllNew => "ALL_NEW",
            Returning::ModifiedNew => "UPDATED_NEW",
        }
    }

    pub fn text(self) -> &'static str {
        match self {
            Returning::AllOld => "ALL OLD *",
            Returning::ModifiedOld => "MODIFIED OLD *",
            Returning::AllNew => "ALL NEW *",
            Returning::ModifiedNew => "MODIFIED NEW *",
        }
    }
}

/// One `SET path = value` or `REMOVE path` of an UPDATE.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Set(Vec<Step>, Expr),
    Remove(Vec<Step>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Select {
    /// `None` for `*`.
    pub projection: Option<Vec<Vec<Step>>>,
    pub source: Source,
    pub filter: Option<Expr>,
    /// `ORDER BY name [ASC|DESC], ...`: the attribute and whether it is descending.
    pub order_by: Vec<(String, bool)>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Statement {
    Select(Select),
    Insert {
        source: Source,
        item: Expr,
    },
    Update {
        source: Source,
        actions: Vec<Action>,
        filter: Expr,
        returning: Option<Returning>,
    },
    Delete {
        source: Source,
        filter: Expr,
        returning: Option<Returning>,
    },
    /// `EXISTS(SELECT ...)`: a condition check, only in ExecuteTransaction.
    Exists(Select),
}

impl Statement {
    /// Whether the statement reads (SELECT) rather than writes.
    pub fn is_read(&self) -> bool {
        matches!(self, Statement::Select(_))
    }

    pub fn source(&self) -> &Source {
        match self {
            Statement::Select(s) | Statement::Exists(s) => &s.source,
            Statement::Insert { source, .. }
            | Statement::Update { source, .. }
            | Statement::Delete { source, .. } => source,
        }
    }
}
