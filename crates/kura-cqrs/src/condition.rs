//! A condition on a sort key (of the data table or of an index), as a key condition
//! expression.

/// A condition on a sort key.
#[derive(Debug, Clone, PartialEq)]
pub enum SkCondition {
    BeginsWith(String),
    Between(String, String),
    Eq(String),
    Lt(String),
    Le(String),
    Gt(String),
    Ge(String),
}

impl SkCondition {
    /// The condition on the attribute `name` (a name or a `#placeholder`), with the
    /// operands it binds to `:a` (and `:b`).
    pub fn expression_on(&self, name: &str) -> (String, Vec<String>) {
        match self {
            SkCondition::BeginsWith(p) => (format!("begins_with({name}, :a)"), vec![p.clone()]),
            SkCondition::Between(a, b) => (
                format!("{name} BETWEEN :a AND :b"),
                vec![a.clone(), b.clone()],
            ),
            SkCondition::Eq(v) => (format!("{name} = :a"), vec![v.clone()]),
            SkCondition::Lt(v) => (format!("{name} < :a"), vec![v.clone()]),
            SkCondition::Le(v) => (format!("{name} <= :a"), vec![v.clone()]),
            SkCondition::Gt(v) => (format!("{name} > :a"), vec![v.clone()]),
            SkCondition::Ge(v) => (format!("{name} >= :a"), vec![v.clone()]),
        }
    }
}
