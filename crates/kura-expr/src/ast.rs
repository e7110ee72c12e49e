//! The expression trees, with every `#name` and `:value` already substituted. Legacy
//! parameters (`Expected`, `AttributeUpdates`, ...) translate into the same trees, so one
//! evaluator serves both.

use std::fmt;

use kura_model::{AttributeValue, ValueType};

/// One step of a document path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PathElement {
    /// A map key (or, first, a top-level attribute name).
    Attribute(String),
    /// A list index.
    Index(usize),
}

/// A document path: a top-level attribute name followed by map keys and list indexes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Path(pub Vec<PathElement>);

impl Path {
    /// A path to a top-level attribute.
    pub fn attribute(name: impl Into<String>) -> Path {
        Path(vec![PathElement::Attribute(name.into())])
    }

    /// The top-level attribute the path starts at.
    pub fn top(&self) -> &str {
        match self.0.first() {
            Some(PathElement::Attribute(name)) => name,
            _ => "",
        }
    }
}

/// Paths print as DynamoDB prints them in messages: `[a, b, [3]]`.
impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, element) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match element {
                PathElement::Attribute(name) => f.write_str(name)?,
                PathElement::Index(ix) => write!(f, "[{ix}]")?,
            }
        }
        f.write_str("]")
    }
}

/// A value in a condition: an attribute, a constant, or the size of one of them.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    Path(Path),
    Value(AttributeValue),
    Size(Box<Operand>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Comparator {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Comparator {
    pub fn symbol(self) -> &'static str {
        match self {
            Comparator::Eq => "=",
            Comparator::Ne => "<>",
            Comparator::Lt => "<",
            Comparator::Le => "<=",
            Comparator::Gt => ">",
            Comparator::Ge => ">=",
        }
    }
}

/// A condition or filter expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    Compare(Comparator, Operand, Operand),
    Between(Operand, Operand, Operand),
    In(Operand, Vec<Operand>),
    AttributeExists(Path),
    AttributeNotExists(Path),
    /// The type of a path's value (false when missing) or of any other operand.
    AttributeType(Operand, ValueType),
    BeginsWith(Operand, Operand),
    Contains(Operand, Operand),
    Not(Box<Condition>),
    And(Box<Condition>, Box<Condition>),
    Or(Box<Condition>, Box<Condition>),
}

impl Operand {
    fn collect_paths<'a>(&'a self, out: &mut Vec<&'a Path>) {
        match self {
            Operand::Path(p) => out.push(p),
            Operand::Value(_) => {}
            Operand::Size(inner) => inner.collect_paths(out),
        }
    }
}

impl Condition {
    /// Every document path the condition reads.
    pub fn paths(&self) -> Vec<&Path> {
        let mut out = Vec::new();
        self.collect_paths(&mut out);
        out
    }

    fn collect_paths<'a>(&'a self, out: &mut Vec<&'a Path>) {
        match self {
            Condition::Compare(_, a, b)
            | Condition::BeginsWith(a, b)
            | Condition::Contains(a, b) => {
                a.collect_paths(out);
                b.collect_paths(out);
            }
            Condition::Between(a, b, c) => {
                for op in [a, b, c] {
                    op.collect_paths(out);
                }
            }
            Condition::In(a, list) => {
                a.collect_paths(out);
                for op in list {
                    op.collect_paths(out);
                }
            }
            Condition::AttributeExists(p) | Condition::AttributeNotExists(p) => out.push(p),
            Condition::AttributeType(a, _) => a.collect_paths(out),
            Condition::Not(inner) => inner.collect_paths(out),
            Condition::And(a, b) | Condition::Or(a, b) => {
                a.collect_paths(out);
                b.collect_paths(out);
            }
        }
    }
}

/// An operand of a SET action.
#[derive(Debug, Clone, PartialEq)]
pub enum SetOperand {
    Path(Path),
    Value(AttributeValue),
    IfNotExists(Path, Box<SetOperand>),
    ListAppend(Box<SetOperand>, Box<SetOperand>),
}

/// The right-hand side of a SET action.
#[derive(Debug, Clone, PartialEq)]
pub enum SetValue {
    Operand(SetOperand),
    Plus(SetOperand, SetOperand),
    Minus(SetOperand, SetOperand),
}

/// An update expression, its actions grouped by clause in the order written.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Update {
    pub set: Vec<(Path, SetValue)>,
    pub remove: Vec<Path>,
    pub add: Vec<(Path, AttributeValue)>,
    pub delete: Vec<(Path, AttributeValue)>,
    /// Translated from `AttributeUpdates`, whose run-time type errors DynamoDB words
    /// differently.
    pub legacy: bool,
}

impl Update {
    /// Every path the update writes, in clause order.
    pub fn target_paths(&self) -> impl Iterator<Item = &Path> {
        self.set
            .iter()
            .map(|(p, _)| p)
            .chain(self.remove.iter())
            .chain(self.add.iter().map(|(p, _)| p))
            .chain(self.delete.iter().map(|(p, _)| p))
    }

    /// Whether the update only takes away (REMOVE, DELETE of set elements): on a missing
    /// item such an update creates nothing ("DELETE - Nothing happens; there is no
    /// attribute to delete", API Reference, AttributeValueUpdate).
    pub fn only_removes(&self) -> bool {
        (!self.remove.is_empty() || !self.delete.is_empty())
            && self.set.is_empty()
            && self.add.is_empty()
    }
}

/// A projection: the document paths to return.
pub type Projection = Vec<Path>;
