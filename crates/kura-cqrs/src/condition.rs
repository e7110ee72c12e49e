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

    /// Whether a sort key satisfies the condition (strings compare by bytes, as DynamoDB
    /// compares them).
    pub fn matches(&self, sk: &str) -> bool {
        match self {
            SkCondition::BeginsWith(p) => sk.starts_with(p.as_str()),
            SkCondition::Between(a, b) => a.as_str() <= sk && sk <= b.as_str(),
            SkCondition::Eq(v) => sk == v,
            SkCondition::Lt(v) => sk < v.as_str(),
            SkCondition::Le(v) => sk <= v.as_str(),
            SkCondition::Gt(v) => sk > v.as_str(),
            SkCondition::Ge(v) => sk >= v.as_str(),
        }
    }
}
