//! Binding `?` parameters and lowering parsed statements to the condition, update and
//! projection trees of [`crate::ast`], which the one evaluator (`crate::eval`) runs.

use std::collections::BTreeMap;

use kura_model::messages::{self, partiql as msg};
use kura_model::{AttributeValue, Item, Number, ValueType};

use super::ast::{Action, Expr, Returning, Select, Source, Statement, Step};
use super::parser::{parameter_count, syntax};
use crate::ast::{
    Comparator, Condition, Operand, Path, PathElement, Projection, SetOperand, SetValue, Update,
};
use crate::error::{ExprError, Result};

/// A SELECT (or the SELECT of an EXISTS) with its parameters bound.
#[derive(Debug, Clone, PartialEq)]
pub struct LoweredSelect {
    pub source: Source,
    /// `None` for `*`.
    pub projection: Option<Projection>,
    pub filter: Option<Condition>,
    pub order_by: Vec<(String, bool)>,
}

/// A statement with its parameters bound, as trees the engine hands to its existing paths.
#[derive(Debug, Clone, PartialEq)]
pub enum Lowered {
    Select(LoweredSelect),
    Insert {
        source: Source,
        item: Item,
    },
    Update {
        source: Source,
        update: Update,
        filter: Condition,
        returning: Option<Returning>,
    },
    Delete {
        source: Source,
        filter: Condition,
        returning: Option<Returning>,
    },
    Exists(LoweredSelect),
}

impl Lowered {
    pub fn source(&self) -> &Source {
        match self {
            Lowered::Select(s) | Lowered::Exists(s) => &s.source,
            Lowered::Insert { source, .. }
            | Lowered::Update { source, .. }
            | Lowered::Delete { source, .. } => source,
        }
    }
}

/// Binds `params` (too few is an error, extra ones are ignored, as DynamoDB does) and
/// lowers the statement.
pub fn lower(statement: &Statement, params: &[AttributeValue]) -> Result<Lowered> {
    if parameter_count(statement) > params.len() {
        return Err(ExprError::validation(msg::PARAMETER_COUNT));
    }
    let b = Binder { params };
    Ok(match statement {
        Statement::Select(s) => Lowered::Select(b.select(s)?),
        Statement::Exists(s) => Lowered::Exists(b.select(s)?),
        Statement::Insert { source, item } => match b.value_at(item, "")? {
            AttributeValue::M(item) => Lowered::Insert {
                source: source.clone(),
                item,
            },
            _ => return Err(ExprError::validation(msg::ITEM_NOT_A_TUPLE)),
        },
        Statement::Update {
            source,
            actions,
            filter,
            returning,
        } => Lowered::Update {
            source: source.clone(),
            update: b.update(actions)?,
            filter: b.condition(filter)?,
            returning: *returning,
        },
        Statement::Delete {
            source,
            filter,
            returning,
        } => Lowered::Delete {
            source: source.clone(),
            filter: b.condition(filter)?,
            returning: *returning,
        },
    })
}

/// The conditions joined by the top-level ANDs of `condition`, left to right.
pub fn conjuncts(condition: &Condition) -> Vec<&Condition> {
    let mut out = Vec::new();
    let mut stack = vec![condition];
    while let Some(c) = stack.pop() {
        match c {
            Condition::And(a, b) => {
                stack.push(b);
                stack.push(a);
            }
            other => out.push(other),
        }
    }
    out
}

/// Joins conditions with AND, left-associated; `None` when there are none.
pub fn join(conditions: Vec<Condition>) -> Option<Condition> {
    conditions
        .into_iter()
        .reduce(|a, b| Condition::And(Box::new(a), Box::new(b)))
}

/// The top-level attribute `c` compares for equality with a value, and the value.
pub fn equality(c: &Condition) -> Option<(&str, &AttributeValue)> {
    match c {
        Condition::Compare(Comparator::Eq, Operand::Path(p), Operand::Value(v))
        | Condition::Compare(Comparator::Eq, Operand::Value(v), Operand::Path(p))
            if p.0.len() == 1 =>
        {
            Some((p.top(), v))
        }
        _ => None,
    }
}

/// Splits a WHERE condition into one equality per key attribute (in `key_names` order) and
/// the rest, which becomes the write's condition. `None` when a key attribute has no
/// equality among the top-level conjuncts.
pub fn split_key(
    condition: &Condition,
    key_names: &[&str],
) -> Option<(Vec<AttributeValue>, Option<Condition>)> {
    let mut found: BTreeMap<&str, AttributeValue> = BTreeMap::new();
    let mut rest = Vec::new();
    for c in conjuncts(condition) {
        match equality(c) {
            Some((name, value)) if key_names.contains(&name) && !found.contains_key(name) => {
                found.insert(name, value.clone());
            }
            _ => rest.push(c.clone()),
        }
    }
    let values = key_names
        .iter()
        .map(|n| found.remove(n))
        .collect::<Option<Vec<_>>>()?;
    Some((values, join(rest)))
}

struct Binder<'a> {
    params: &'a [AttributeValue],
}

fn path_of(steps: &[Step]) -> Result<Path> {
    let mut elements = Vec::with_capacity(steps.len());
    for (i, step) in steps.iter().enumerate() {
        elements.push(match step {
            Step::Name(n) if n.is_empty() => {
                return Err(ExprError::validation(
                    "Path component cannot be an empty string",
                ));
            }
            Step::Name(n) => PathElement::Attribute(n.clone()),
            Step::Index(_) if i == 0 => {
                return Err(ExprError::validation(msg::PATH_STARTS_WITH_INDEX));
            }
            Step::Index(ix) => PathElement::Index(*ix),
        });
    }
    Ok(Path(elements))
}

fn describe(e: &Expr) -> String {
    match e {
        Expr::Compare(op, ..) => op.symbol().to_owned(),
        Expr::Plus(..) => "+".into(),
        Expr::Minus(..) => "-".into(),
        Expr::Between(..) => "BETWEEN".into(),
        Expr::In(..) => "IN".into(),
        Expr::Is { .. } => "IS".into(),
        Expr::And(..) => "AND".into(),
        Expr::Or(..) => "OR".into(),
        Expr::Not(..) => "NOT".into(),
        Expr::Call(name, _) => name.clone(),
        _ => "value".into(),
    }
}

impl Binder<'_> {
    fn select(&self, s: &Select) -> Result<LoweredSelect> {
        Ok(LoweredSelect {
            source: s.source.clone(),
            projection: s
                .projection
                .as_ref()
                .map(|paths| paths.iter().map(|p| path_of(p)).collect::<Result<_>>())
                .transpose()?,
            filter: s.filter.as_ref().map(|f| self.condition(f)).transpose()?,
            order_by: s.order_by.clone(),
        })
    }

    /// A value built from literals and parameters only.
    fn value(&self, e: &Expr) -> Result<AttributeValue> {
        self.value_at(e, "root")
    }

    /// A value at `path` ("root" for an attribute's value, `root.x` and `root[1]` inside
    /// it; "" for the item of an INSERT, whose attributes are each a root), which a number
    /// literal that breaks DynamoDB's number rules names.
    fn value_at(&self, e: &Expr, path: &str) -> Result<AttributeValue> {
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.value_inner(e, path))
    }

    fn value_inner(&self, e: &Expr, path: &str) -> Result<AttributeValue> {
        let here = if path.is_empty() { "root" } else { path };
        Ok(match e {
            Expr::Str(s) => AttributeValue::S(s.clone()),
            Expr::Num(n) => AttributeValue::N(
                Number::parse(n)
                    .map_err(|e| ExprError::validation(msg::number_under(&e.to_string(), here)))?,
            ),
            Expr::Bool(b) => AttributeValue::Bool(*b),
            Expr::Null => AttributeValue::Null,
            Expr::Missing => return Err(ExprError::validation(msg::MISSING_NEEDS_IS)),
            Expr::Param(i) => self
                .params
                .get(*i)
                .cloned()
                .ok_or_else(|| ExprError::validation(msg::PARAMETER_COUNT))?,
            Expr::List(items) => AttributeValue::L(
                items
                    .iter()
                    .enumerate()
                    .map(|(n, i)| self.value_at(i, &format!("{here}[{n}]")))
                    .collect::<Result<_>>()?,
            ),
            Expr::Tuple(pairs) => {
                let mut map = Item::new();
                for (k, v) in pairs {
                    let key = match self.value(k)? {
                        AttributeValue::S(s) => s,
                        other => {
                            return Err(ExprError::validation(format!(
                                "Tuple keys must be of type String. Actual type: {} under item",
                                other.value_type().descriptor()
                            )));
                        }
                    };
                    if map.contains_key(&key) {
                        return Err(ExprError::validation(msg::duplicate_tuple_key(&key)));
                    }
                    let at = if path.is_empty() {
                        "root".to_owned()
                    } else {
                        format!("{path}.{key}")
                    };
                    let value = self.value_at(v, &at)?;
                    map.insert(key, value);
                }
                AttributeValue::M(map)
            }
            Expr::Bag(items) => self.bag(items)?,
            Expr::Path(_) => return Err(syntax("Expected a value, found a path")),
            other => {
                return Err(ExprError::validation(msg::unsupported_condition_operator(
                    &describe(other),
                )));
            }
        })
    }

    fn bag(&self, items: &[Expr]) -> Result<AttributeValue> {
        if items.is_empty() {
            return Err(ExprError::validation(msg::EMPTY_BAG));
        }
        let values = items
            .iter()
            .map(|i| self.value(i))
            .collect::<Result<Vec<_>>>()?;
        let set = match values.first().map(AttributeValue::value_type) {
            Some(ValueType::S) => AttributeValue::Ss(
                values
                    .into_iter()
                    .map(|v| match v {
                        AttributeValue::S(s) => Ok(s),
                        _ => Err(ExprError::validation(msg::BAG_TYPES)),
                    })
                    .collect::<Result<_>>()?,
            ),
            Some(ValueType::N) => AttributeValue::Ns(
                values
                    .into_iter()
                    .map(|v| match v {
                        AttributeValue::N(n) => Ok(n),
                        _ => Err(ExprError::validation(msg::BAG_TYPES)),
                    })
                    .collect::<Result<_>>()?,
            ),
            Some(ValueType::B) => AttributeValue::Bs(
                values
                    .into_iter()
                    .map(|v| match v {
                        AttributeValue::B(b) => Ok(b),
                        _ => Err(ExprError::validation(msg::BAG_TYPES)),
                    })
                    .collect::<Result<_>>()?,
            ),
            _ => return Err(ExprError::validation(msg::BAG_TYPES)),
        };
        let duplicated = match &set {
            AttributeValue::Ss(v) => (1..v.len()).any(|i| v[..i].contains(&v[i])),
            AttributeValue::Ns(v) => (1..v.len()).any(|i| v[..i].contains(&v[i])),
            AttributeValue::Bs(v) => (1..v.len()).any(|i| v[..i].contains(&v[i])),
            _ => false,
        };
        if duplicated {
            return Err(ExprError::validation(messages::NUMBER_SET_DUPLICATES));
        }
        Ok(set)
    }

    fn is_value(e: &Expr) -> bool {
        matches!(
            e,
            Expr::Str(_)
                | Expr::Num(_)
                | Expr::Bool(_)
                | Expr::Null
                | Expr::Param(_)
                | Expr::List(_)
                | Expr::Tuple(_)
                | Expr::Bag(_)
        )
    }

    fn operand(&self, e: &Expr) -> Result<Operand> {
        match e {
            Expr::Path(steps) => Ok(Operand::Path(path_of(steps)?)),
            Expr::Call(name, args) if name == "size" => match args.as_slice() {
                [inner] => Ok(Operand::Size(Box::new(self.operand(inner)?))),
                _ => Err(syntax("Incorrect number of arguments for size")),
            },
            Expr::Missing => Err(ExprError::validation(msg::MISSING_NEEDS_IS)),
            e if Self::is_value(e) => Ok(Operand::Value(self.value(e)?)),
            other => Err(ExprError::validation(msg::unsupported_condition_operator(
                &describe(other),
            ))),
        }
    }

    fn path_operand(&self, e: &Expr) -> Result<Path> {
        match e {
            Expr::Path(steps) => path_of(steps),
            _ => Err(ExprError::validation(msg::IS_OPERAND)),
        }
    }

    /// A WHERE clause as a condition tree.
    fn condition(&self, e: &Expr) -> Result<Condition> {
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.condition_inner(e))
    }

    fn condition_inner(&self, e: &Expr) -> Result<Condition> {
        Ok(match e {
            Expr::And(a, b) => {
                Condition::And(Box::new(self.condition(a)?), Box::new(self.condition(b)?))
            }
            Expr::Or(a, b) => {
                Condition::Or(Box::new(self.condition(a)?), Box::new(self.condition(b)?))
            }
            Expr::Not(a) => Condition::Not(Box::new(self.condition(a)?)),
            Expr::Compare(op, a, b) => Condition::Compare(*op, self.operand(a)?, self.operand(b)?),
            Expr::Between(v, lo, hi) => {
                Condition::Between(self.operand(v)?, self.operand(lo)?, self.operand(hi)?)
            }
            Expr::In(v, list) => {
                if list.is_empty() {
                    return Err(ExprError::validation(
                        "IN operator must have a left hand argument of type Variable Reference and right hand argument of type Seq with at least one member",
                    ));
                }
                if list.len() > kura_model::limits::MAX_IN_OPERANDS {
                    return Err(ExprError::validation(msg::TOO_MANY_READS));
                }
                Condition::In(
                    self.operand(v)?,
                    list.iter()
                        .map(|o| self.operand(o))
                        .collect::<Result<_>>()?,
                )
            }
            Expr::Is {
                value,
                negated,
                type_name,
            } => {
                let path = self.path_operand(value)?;
                let base = match type_name.as_str() {
                    "MISSING" => Condition::AttributeNotExists(path),
                    other => {
                        let ty = match other {
                            "NULL" => ValueType::Null,
                            "BOOLEAN" => ValueType::Bool,
                            "BLOB" => ValueType::B,
                            "STRING" => ValueType::S,
                            "NUMERIC" => ValueType::N,
                            "STRUCT" | "TUPLE" => ValueType::M,
                            "LIST" => ValueType::L,
                            _ => {
                                return Err(ExprError::validation(msg::unsupported_is_type(other)));
                            }
                        };
                        Condition::AttributeType(Operand::Path(path), ty)
                    }
                };
                if *negated {
                    Condition::Not(Box::new(base))
                } else {
                    base
                }
            }
            Expr::Call(name, args) => self.function(name, args)?,
            _ => return Err(ExprError::validation(msg::WHERE_NOT_BOOLEAN)),
        })
    }

    fn function(&self, name: &str, args: &[Expr]) -> Result<Condition> {
        let arity = |n: usize| {
            if args.len() == n {
                Ok(())
            } else {
                Err(syntax(&format!("Incorrect number of arguments for {name}")))
            }
        };
        Ok(match name {
            "begins_with" | "contains" => {
                arity(2)?;
                let (a, b) = (self.operand(&args[0])?, self.operand(&args[1])?);
                if name == "contains" {
                    Condition::Contains(a, b)
                } else {
                    Condition::BeginsWith(a, b)
                }
            }
            "attribute_type" => {
                arity(2)?;
                let path = self.path_operand(&args[0])?;
                let ty = match self.value(&args[1])? {
                    AttributeValue::S(s) => type_of(&s)
                        .ok_or_else(|| ExprError::validation(messages::invalid_type_name(&s)))?,
                    _ => return Err(ExprError::validation(messages::invalid_type_name(""))),
                };
                Condition::AttributeType(Operand::Path(path), ty)
            }
            "exists" | "attribute_exists" => {
                arity(1)?;
                Condition::AttributeExists(self.path_operand(&args[0])?)
            }
            "missing" | "attribute_not_exists" => {
                arity(1)?;
                Condition::AttributeNotExists(self.path_operand(&args[0])?)
            }
            "size" => return Err(ExprError::validation(msg::WHERE_NOT_BOOLEAN)),
            other => return Err(ExprError::validation(msg::unrecognized_function(other))),
        })
    }

    fn update(&self, actions: &[Action]) -> Result<Update> {
        let mut update = Update::default();
        for action in actions {
            match action {
                Action::Remove(steps) => update.remove.push(path_of(steps)?),
                Action::Set(steps, value) => {
                    let target = path_of(steps)?;
                    match value {
                        Expr::Call(name, args) if name == "set_add" || name == "set_delete" => {
                            let which = if name == "set_add" { "ADD" } else { "DELETE" };
                            let [first, second] = args.as_slice() else {
                                return Err(ExprError::validation(msg::set_function_arguments(
                                    which,
                                )));
                            };
                            if !matches!(first, Expr::Path(p) if path_of(p)? == target) {
                                return Err(ExprError::validation(msg::set_function_target(which)));
                            }
                            let set = self.value(second)?;
                            if !matches!(
                                set,
                                AttributeValue::Ss(_)
                                    | AttributeValue::Ns(_)
                                    | AttributeValue::Bs(_)
                            ) {
                                return Err(ExprError::validation(msg::set_function_value(which)));
                            }
                            if which == "ADD" {
                                update.add.push((target, set));
                            } else {
                                update.delete.push((target, set));
                            }
                        }
                        Expr::Plus(a, b) => update.set.push((
                            target,
                            SetValue::Plus(self.set_operand(a)?, self.set_operand(b)?),
                        )),
                        Expr::Minus(a, b) => update.set.push((
                            target,
                            SetValue::Minus(self.set_operand(a)?, self.set_operand(b)?),
                        )),
                        other => update
                            .set
                            .push((target, SetValue::Operand(self.set_operand(other)?))),
                    }
                }
            }
        }
        Ok(update)
    }

    fn set_operand(&self, e: &Expr) -> Result<SetOperand> {
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || match e {
            Expr::Path(steps) => Ok(SetOperand::Path(path_of(steps)?)),
            Expr::Call(name, args) if name == "list_append" => match args.as_slice() {
                [a, b] => Ok(SetOperand::ListAppend(
                    Box::new(self.set_operand(a)?),
                    Box::new(self.set_operand(b)?),
                )),
                _ => Err(syntax("Incorrect number of arguments for list_append")),
            },
            Expr::Call(name, args) if name == "if_not_exists" => match args.as_slice() {
                [Expr::Path(p), b] => Ok(SetOperand::IfNotExists(
                    path_of(p)?,
                    Box::new(self.set_operand(b)?),
                )),
                _ => Err(syntax("Incorrect arguments for if_not_exists")),
            },
            Expr::Call(name, _) => Err(ExprError::validation(msg::unrecognized_function(name))),
            e if Self::is_value(e) => Ok(SetOperand::Value(self.value(e)?)),
            other => Err(ExprError::validation(msg::unsupported_update_operator(
                &describe(other),
            ))),
        })
    }
}

fn type_of(descriptor: &str) -> Option<ValueType> {
    Some(match descriptor {
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
        _ => return None,
    })
}
