//! CloudFormation's intrinsic functions, resolved as far as the template alone allows, so
//! that template mode judges what CloudFormation would deploy: parameters by their
//! `Default` (or a value the caller gives), conditions from those, `Mappings`; `Ref`,
//! `Fn::Sub`, `Fn::Join`, `Fn::If`, `Fn::Select`, `Fn::Split`, `Fn::FindInMap` and the
//! condition functions. What only the deployment knows (a parameter without a default, a
//! pseudo parameter such as `AWS::AccountId`, another resource's `Ref` or `Fn::GetAtt`, an
//! import) is not literal: the member is left out and its path and reason are reported, so
//! that no rule judges it on a guess.
//!
//! Scalars are read as CloudFormation reads them: `"true"` and `"false"` where a property
//! is a boolean, `"5"` where it is a number.
//!
//! Copies are bounded like YAML's aliases: a `Ref` to a large default used many times
//! would otherwise turn a small template into gigabytes, so what resolution produces is
//! counted and refused past 16 times the template's text (at least 1 MiB).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use serde_json::{Map, Value};

/// A part of a template whose value the template alone does not give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotLiteral {
    /// Where, as member names and indexes from the resource (`Properties.TableName`).
    pub path: String,
    /// What it depends on (`Ref AWS::AccountId`, `Fn::GetAtt Queue.Arn`, ...).
    pub reason: String,
}

/// What evaluating one value gave.
enum Outcome {
    Value(Value),
    /// `Ref: AWS::NoValue`: the member is left out, as CloudFormation leaves it out.
    NoValue,
    /// Not literal, and why.
    Unknown(String),
}

/// How deep conditions may refer to conditions.
const MAX_CONDITION_DEPTH: usize = 64;

/// What resolution may produce for a template of `bytes` (see the module's docs).
fn expansion_budget(bytes: usize) -> usize {
    bytes.saturating_mul(16).max(1 << 20)
}

/// A template's parameters, mappings and conditions, and what resolving has cost so far.
pub struct Template<'a> {
    parameters: &'a Map<String, Value>,
    /// Values given for parameters, over their defaults.
    given: HashMap<String, String>,
    mappings: &'a Map<String, Value>,
    conditions: &'a Map<String, Value>,
    resources: &'a Map<String, Value>,
    /// Each condition evaluated so far (memoised: conditions built of conditions would
    /// otherwise cost exponential time); `Err` for one that is not literal.
    decided: RefCell<HashMap<String, Result<bool, String>>>,
    /// Conditions being evaluated, to refuse a condition that names itself.
    deciding: RefCell<Vec<String>>,
    produced: Cell<usize>,
    budget: usize,
}

static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);

impl<'a> Template<'a> {
    /// The template `document` (its JSON form), read from a text of `text_bytes`;
    /// `given` values override parameters' defaults.
    pub fn new(document: &'a Value, text_bytes: usize, given: HashMap<String, String>) -> Self {
        let section = |name: &str| {
            document
                .get(name)
                .and_then(Value::as_object)
                .unwrap_or(&EMPTY)
        };
        Template {
            parameters: section("Parameters"),
            given,
            mappings: section("Mappings"),
            conditions: section("Conditions"),
            resources: section("Resources"),
            decided: RefCell::default(),
            deciding: RefCell::default(),
            produced: Cell::new(0),
            budget: expansion_budget(text_bytes),
        }
    }

    /// Whether a resource with `Condition: name` is created; the inner `Err` says why that
    /// is not literal. The outer `Err` is the budget's refusal.
    pub fn condition(&self, name: &str) -> Result<Result<bool, String>, String> {
        self.decide(name, 0)
    }

    /// `value` with every intrinsic function resolved, at `path`; the members that are not
    /// literal are left out and listed. `Err` only when resolving would produce more than
    /// the template's budget.
    pub fn resolve(&self, value: &Value, path: &str) -> Result<(Value, Vec<NotLiteral>), String> {
        let mut unknown = Vec::new();
        let resolved = match self.eval(value, path, &mut unknown)? {
            Outcome::Value(v) => v,
            Outcome::NoValue => Value::Null,
            Outcome::Unknown(reason) => {
                unknown.push(NotLiteral {
                    path: path.to_owned(),
                    reason,
                });
                Value::Null
            }
        };
        Ok((resolved, unknown))
    }

    fn eval(
        &self,
        value: &Value,
        path: &str,
        unknown: &mut Vec<NotLiteral>,
    ) -> Result<Outcome, String> {
        Ok(match value {
            Value::Object(members) => {
                if let Some((name, argument)) = single_function(members) {
                    return self.function(name, argument, path, unknown);
                }
                let mut out = Map::new();
                for (key, member) in members {
                    let at = join_path(path, key);
                    match self.eval(member, &at, unknown)? {
                        Outcome::Value(v) => {
                            out.insert(key.clone(), v);
                        }
                        Outcome::NoValue => {}
                        Outcome::Unknown(reason) => unknown.push(NotLiteral { path: at, reason }),
                    }
                }
                Outcome::Value(Value::Object(out))
            }
            Value::Array(elements) => {
                let mut out = Vec::with_capacity(elements.len());
                for (index, element) in elements.iter().enumerate() {
                    let at = format!("{path}[{index}]");
                    match self.eval(element, &at, unknown)? {
                        Outcome::Value(v) => out.push(v),
                        Outcome::NoValue => {}
                        Outcome::Unknown(reason) => unknown.push(NotLiteral { path: at, reason }),
                    }
                }
                Outcome::Value(Value::Array(out))
            }
            scalar => Outcome::Value(scalar.clone()),
        })
    }

    /// A value a function needs as its argument: literal, or the reason it is not.
    fn needed(&self, value: &Value, path: &str) -> Result<Result<Value, String>, String> {
        let mut inner = Vec::new();
        Ok(match self.eval(value, path, &mut inner)? {
            Outcome::Value(v) => match inner.into_iter().next() {
                None => Ok(v),
                Some(part) => Err(part.reason),
            },
            Outcome::NoValue => Err("AWS::NoValue where a value is needed".into()),
            Outcome::Unknown(reason) => Err(reason),
        })
    }

    fn function(
        &self,
        name: &str,
        argument: &Value,
        path: &str,
        unknown: &mut Vec<NotLiteral>,
    ) -> Result<Outcome, String> {
        // `?` for the budget, then the argument's own reason when it is not literal.
        macro_rules! need {
            ($value:expr) => {
                match self.needed($value, path)? {
                    Ok(v) => v,
                    Err(reason) => return Ok(Outcome::Unknown(reason)),
                }
            };
        }
        let malformed = || {
            Ok(Outcome::Unknown(format!(
                "{name} with a malformed argument"
            )))
        };
        match name {
            "Ref" => {
                let Some(target) = argument.as_str() else {
                    return malformed();
                };
                self.reference(target)
            }
            "Fn::If" => {
                let Some([condition, then, otherwise]) = argument.as_array().map(Vec::as_slice)
                else {
                    return malformed();
                };
                let Some(condition) = condition.as_str() else {
                    return malformed();
                };
                match self.decide(condition, 0)? {
                    Ok(true) => self.eval(then, path, unknown),
                    Ok(false) => self.eval(otherwise, path, unknown),
                    Err(reason) => Ok(Outcome::Unknown(format!("Fn::If on {condition}: {reason}"))),
                }
            }
            "Fn::Sub" => {
                let (text, variables) = match argument {
                    Value::String(text) => (text.as_str(), None),
                    Value::Array(parts) => match parts.as_slice() {
                        [Value::String(text), variables] => (text.as_str(), Some(need!(variables))),
                        _ => return malformed(),
                    },
                    _ => return malformed(),
                };
                self.substitute(text, variables.as_ref())
            }
            "Fn::Join" => {
                let Some([delimiter, list]) = argument.as_array().map(Vec::as_slice) else {
                    return malformed();
                };
                let delimiter = need!(delimiter);
                let list = need!(list);
                let (Some(delimiter), Some(list)) = (delimiter.as_str(), list.as_array()) else {
                    return malformed();
                };
                let mut parts = Vec::with_capacity(list.len());
                for part in list {
                    let Some(part) = scalar_text(part) else {
                        return malformed();
                    };
                    parts.push(part);
                }
                let joined = parts.join(delimiter);
                self.produce(joined.len())?;
                Ok(Outcome::Value(Value::String(joined)))
            }
            "Fn::Select" => {
                let Some([index, list]) = argument.as_array().map(Vec::as_slice) else {
                    return malformed();
                };
                let index = need!(index);
                let list = need!(list);
                let index = index
                    .as_u64()
                    .or_else(|| index.as_str().and_then(|t| t.parse().ok()));
                match (index, list.as_array()) {
                    (Some(index), Some(list)) => match list.get(index as usize) {
                        Some(chosen) => Ok(Outcome::Value(chosen.clone())),
                        None => malformed(),
                    },
                    _ => malformed(),
                }
            }
            "Fn::Split" => {
                let Some([delimiter, text]) = argument.as_array().map(Vec::as_slice) else {
                    return malformed();
                };
                let delimiter = need!(delimiter);
                let text = need!(text);
                match (delimiter.as_str(), text.as_str()) {
                    (Some(delimiter), Some(text)) if !delimiter.is_empty() => {
                        self.produce(text.len())?;
                        Ok(Outcome::Value(Value::Array(
                            text.split(delimiter)
                                .map(|p| Value::String(p.into()))
                                .collect(),
                        )))
                    }
                    _ => malformed(),
                }
            }
            "Fn::FindInMap" => {
                let Some(keys) = argument.as_array().filter(|k| (3..=4).contains(&k.len())) else {
                    return malformed();
                };
                let mut names = Vec::with_capacity(3);
                for key in &keys[..3] {
                    let key = need!(key);
                    let Some(text) = scalar_text(&key) else {
                        return malformed();
                    };
                    names.push(text);
                }
                let found = self
                    .mappings
                    .get(&names[0])
                    .and_then(|m| m.get(&names[1]))
                    .and_then(|m| m.get(&names[2]));
                match (found, keys.get(3)) {
                    (Some(found), _) => {
                        self.produce(weight(found))?;
                        Ok(Outcome::Value(found.clone()))
                    }
                    // AWS::LanguageExtensions' default: [map, top, second, {DefaultValue: v}].
                    (None, Some(default)) => self.eval(&default["DefaultValue"], path, unknown),
                    (None, None) => Ok(Outcome::Unknown(format!(
                        "Fn::FindInMap: {} has no {}.{}",
                        names[0], names[1], names[2]
                    ))),
                }
            }
            "Fn::GetAtt" => {
                let what = match argument {
                    Value::Array(parts) => parts
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join("."),
                    other => scalar_text(other).unwrap_or_default(),
                };
                Ok(Outcome::Unknown(format!(
                    "Fn::GetAtt {what}: known when deployed"
                )))
            }
            other => Ok(Outcome::Unknown(format!("{other}: known when deployed"))),
        }
    }

    /// `Ref target`: a parameter's value, `AWS::NoValue`, or not literal.
    fn reference(&self, target: &str) -> Result<Outcome, String> {
        if target == "AWS::NoValue" {
            return Ok(Outcome::NoValue);
        }
        if let Some(given) = self.given.get(target) {
            self.produce(given.len())?;
            return Ok(Outcome::Value(
                self.typed(target, Value::String(given.clone())),
            ));
        }
        if let Some(parameter) = self.parameters.get(target) {
            return match parameter.get("Default") {
                Some(default) => {
                    self.produce(weight(default))?;
                    Ok(Outcome::Value(self.typed(target, default.clone())))
                }
                None => Ok(Outcome::Unknown(format!(
                    "Ref {target}: a parameter with no Default"
                ))),
            };
        }
        Ok(Outcome::Unknown(if target.starts_with("AWS::") {
            format!("Ref {target}: known when deployed")
        } else if self.resources.contains_key(target) {
            format!("Ref {target}: another resource's id, known when deployed")
        } else {
            format!("Ref {target}: no such parameter or resource")
        }))
    }

    /// A parameter's value as its `Type` makes it: lists split at commas.
    fn typed(&self, parameter: &str, value: Value) -> Value {
        let kind = self
            .parameters
            .get(parameter)
            .and_then(|p| p["Type"].as_str());
        match (kind, value) {
            (Some(kind), Value::String(text))
                if kind == "CommaDelimitedList" || kind.starts_with("List<") =>
            {
                Value::Array(
                    text.split(',')
                        .map(|p| Value::String(p.trim().into()))
                        .collect(),
                )
            }
            (_, value) => value,
        }
    }

    /// `Fn::Sub`: `${Name}` from `variables`, a parameter or a pseudo parameter; `${!X}` is
    /// the text `${X}`.
    fn substitute(&self, text: &str, variables: Option<&Value>) -> Result<Outcome, String> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(open) = rest.find("${") {
            out.push_str(&rest[..open]);
            let after = &rest[open + 2..];
            let Some(close) = after.find('}') else {
                out.push_str(&rest[open..]);
                rest = "";
                break;
            };
            let name = &after[..close];
            rest = &after[close + 1..];
            if let Some(literal) = name.strip_prefix('!') {
                out.push_str("${");
                out.push_str(literal);
                out.push('}');
                continue;
            }
            let name = name.trim();
            let value = match variables.and_then(|v| v.get(name)) {
                Some(value) => Outcome::Value(value.clone()),
                None if name.contains('.') => {
                    Outcome::Unknown(format!("Fn::GetAtt {name}: known when deployed"))
                }
                None => self.reference(name)?,
            };
            match value {
                Outcome::Value(v) => match scalar_text(&v) {
                    Some(t) => out.push_str(&t),
                    None => {
                        return Ok(Outcome::Unknown(format!("Fn::Sub: {name} is not a string")));
                    }
                },
                Outcome::NoValue => {
                    return Ok(Outcome::Unknown("Fn::Sub: AWS::NoValue in a string".into()));
                }
                Outcome::Unknown(reason) => {
                    return Ok(Outcome::Unknown(format!("Fn::Sub: {reason}")));
                }
            }
        }
        out.push_str(rest);
        self.produce(out.len())?;
        Ok(Outcome::Value(Value::String(out)))
    }

    /// A named condition's truth (memoised), `Err` inside when it is not literal.
    fn decide(&self, name: &str, depth: usize) -> Result<Result<bool, String>, String> {
        if let Some(known) = self.decided.borrow().get(name) {
            return Ok(known.clone());
        }
        let Some(definition) = self.conditions.get(name) else {
            return Ok(Err(format!("no condition {name}")));
        };
        if depth > MAX_CONDITION_DEPTH || self.deciding.borrow().iter().any(|n| n == name) {
            return Ok(Err(format!("condition {name} refers to itself")));
        }
        self.deciding.borrow_mut().push(name.to_owned());
        let truth = self.truth(definition, depth + 1);
        self.deciding.borrow_mut().pop();
        let truth = truth?;
        self.decided
            .borrow_mut()
            .insert(name.to_owned(), truth.clone());
        Ok(truth)
    }

    /// A condition function's truth: `Fn::Equals`, `Fn::And`, `Fn::Or`, `Fn::Not`,
    /// `Condition`. A false part decides an `And` (a true one an `Or`) even where the
    /// others are not literal.
    fn truth(&self, value: &Value, depth: usize) -> Result<Result<bool, String>, String> {
        let Some(members) = value.as_object() else {
            return Ok(match value {
                Value::Bool(b) => Ok(*b),
                Value::String(t) if t.eq_ignore_ascii_case("true") => Ok(true),
                Value::String(t) if t.eq_ignore_ascii_case("false") => Ok(false),
                _ => Err("a condition that is not a condition function".into()),
            });
        };
        let only = (members.len() == 1)
            .then(|| members.iter().next())
            .flatten();
        let Some((name, argument)) = only else {
            return Ok(Err("a condition that is not a condition function".into()));
        };
        let name = name.as_str();
        let parts = argument.as_array().map(Vec::as_slice).unwrap_or_default();
        match name {
            "Condition" => match argument.as_str() {
                Some(other) => self.decide(other, depth),
                None => Ok(Err("Condition with a malformed argument".into())),
            },
            "Fn::Equals" => {
                let [left, right] = parts else {
                    return Ok(Err("Fn::Equals with a malformed argument".into()));
                };
                let left = self.needed(left, "Conditions")?;
                let right = self.needed(right, "Conditions")?;
                Ok(match (left, right) {
                    (Ok(l), Ok(r)) => Ok(match (scalar_text(&l), scalar_text(&r)) {
                        (Some(l), Some(r)) => l == r,
                        _ => l == r,
                    }),
                    (Err(reason), _) | (_, Err(reason)) => Err(reason),
                })
            }
            "Fn::Not" => Ok(match parts {
                [inner] => self.truth(inner, depth)?.map(|t| !t),
                _ => Err("Fn::Not with a malformed argument".into()),
            }),
            "Fn::And" | "Fn::Or" => {
                let decisive = name == "Fn::Or";
                let mut undecided = None;
                for part in parts {
                    match self.truth(part, depth)? {
                        Ok(t) if t == decisive => return Ok(Ok(decisive)),
                        Ok(_) => {}
                        Err(reason) => undecided = undecided.or(Some(reason)),
                    }
                }
                Ok(match undecided {
                    Some(reason) => Err(reason),
                    None => Ok(!decisive),
                })
            }
            other => Ok(Err(format!("{other} is not a condition function"))),
        }
    }

    /// Counts `bytes` produced; refuses the template past its budget.
    fn produce(&self, bytes: usize) -> Result<(), String> {
        let produced = self.produced.get().saturating_add(bytes);
        self.produced.set(produced);
        if produced > self.budget {
            return Err(format!(
                "intrinsic functions expand this template to more than {} KiB",
                self.budget / 1024
            ));
        }
        Ok(())
    }
}

/// `{"Ref": ...}` or `{"Fn::Name": ...}`: the function and its argument.
fn single_function(members: &Map<String, Value>) -> Option<(&str, &Value)> {
    if members.len() != 1 {
        return None;
    }
    let (name, argument) = members.iter().next()?;
    (name == "Ref" || name.starts_with("Fn::")).then_some((name.as_str(), argument))
}

fn join_path(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// A string or a number as text (CloudFormation passes both through `Fn::Sub`/`Fn::Join`).
fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// About what copying `value` costs, in bytes (each node a few, plus its text).
fn weight(value: &Value) -> usize {
    match value {
        Value::String(t) => 8 + t.len(),
        Value::Array(a) => 8 + a.iter().map(weight).sum::<usize>(),
        Value::Object(m) => 8 + m.iter().map(|(k, v)| k.len() + weight(v)).sum::<usize>(),
        _ => 8,
    }
}

/// DynamoDB resources' boolean properties: CloudFormation takes `"true"` and `"false"`.
const BOOLEANS: &[&str] = &[
    "Enabled",
    "PointInTimeRecoveryEnabled",
    "DeletionProtectionEnabled",
    "SSEEnabled",
    "DisableScaleIn",
];

/// DynamoDB resources' numeric properties: CloudFormation takes `"5"`.
const NUMBERS: &[&str] = &[
    "ReadCapacityUnits",
    "WriteCapacityUnits",
    "RecoveryPeriodInDays",
    "MaxReadRequestUnits",
    "MaxWriteRequestUnits",
    "MinCapacity",
    "MaxCapacity",
    "TargetValue",
    "ScaleInCooldown",
    "ScaleOutCooldown",
];

/// Reads the strings CloudFormation accepts for booleans and numbers as what they stand
/// for, wherever those properties are.
pub fn coerce_scalars(value: &mut Value) {
    match value {
        Value::Object(members) => {
            for (key, member) in members.iter_mut() {
                if let Value::String(text) = member {
                    if BOOLEANS.contains(&key.as_str()) {
                        if text.eq_ignore_ascii_case("true") {
                            *member = Value::Bool(true);
                        } else if text.eq_ignore_ascii_case("false") {
                            *member = Value::Bool(false);
                        }
                    } else if NUMBERS.contains(&key.as_str())
                        && let Ok(number) = text.trim().parse::<serde_json::Number>()
                    {
                        *member = Value::Number(number);
                    }
                } else {
                    coerce_scalars(member);
                }
            }
        }
        Value::Array(elements) => elements.iter_mut().for_each(coerce_scalars),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn resolve(template: &Value, value: Value) -> (Value, Vec<NotLiteral>) {
        let text = template.to_string();
        Template::new(template, text.len(), HashMap::new())
            .resolve(&value, "Properties")
            .expect("within budget")
    }

    fn template() -> Value {
        json!({
            "Parameters": {
                "Env": {"Type": "String", "Default": "prod"},
                "Billing": {"Type": "String", "Default": "PROVISIONED"},
                "Secret": {"Type": "String"},
                "Names": {"Type": "CommaDelimitedList", "Default": "a, b,c"}
            },
            "Mappings": {"Capacity": {"prod": {"Read": 10}, "dev": {"Read": 1}}},
            "Conditions": {
                "IsProd": {"Fn::Equals": [{"Ref": "Env"}, "prod"]},
                "IsDev": {"Fn::Not": [{"Condition": "IsProd"}]},
                "Unknowable": {"Fn::Equals": [{"Ref": "AWS::Region"}, "us-east-1"]},
                "ProdOrUnknowable": {"Fn::Or": [{"Condition": "IsProd"}, {"Condition": "Unknowable"}]},
                "Loop": {"Fn::Not": [{"Condition": "Loop"}]}
            },
            "Resources": {"Queue": {"Type": "AWS::SQS::Queue"}}
        })
    }

    #[test]
    fn parameters_conditions_and_mappings_resolve_from_defaults() {
        let t = template();
        let (value, unknown) = resolve(
            &t,
            json!({
                "TableName": {"Fn::Sub": "${Env}-shop-orders"},
                "Joined": {"Fn::Join": ["-", [{"Ref": "Env"}, "shop", 7]]},
                "BillingMode": {"Ref": "Billing"},
                "Read": {"Fn::FindInMap": ["Capacity", {"Ref": "Env"}, "Read"]},
                "Chosen": {"Fn::If": ["IsProd", "yes", "no"]},
                "Other": {"Fn::If": ["IsDev", "yes", {"Ref": "AWS::NoValue"}]},
                "Either": {"Fn::If": ["ProdOrUnknowable", 1, 2]},
                "Second": {"Fn::Select": [1, {"Ref": "Names"}]},
                "Split": {"Fn::Select": ["2", {"Fn::Split": [",", "x,y,z"]}]},
                "Escaped": {"Fn::Sub": ["${!Literal}-${Var}", {"Var": {"Ref": "Env"}}]}
            }),
        );
        assert_eq!(unknown, vec![]);
        assert_eq!(
            value,
            json!({
                "TableName": "prod-shop-orders", "Joined": "prod-shop-7",
                "BillingMode": "PROVISIONED", "Read": 10, "Chosen": "yes",
                "Either": 1, "Second": "b", "Split": "z", "Escaped": "${Literal}-prod"
            })
        );
    }

    #[test]
    fn what_only_the_deployment_knows_is_left_out_with_its_reason() {
        let t = template();
        let (value, unknown) = resolve(
            &t,
            json!({
                "TableName": {"Fn::Sub": "${AWS::StackName}-orders"},
                "KeyOnly": {"Ref": "Secret"},
                "Arn": {"Fn::GetAtt": ["Queue", "Arn"]},
                "Id": {"Ref": "Queue"},
                "Where": {"Fn::If": ["Unknowable", "a", "b"]},
                "Loop": {"Fn::If": ["Loop", "a", "b"]},
                "List": [{"Ref": "Env"}, {"Fn::ImportValue": "x"}],
                "Kept": "literal"
            }),
        );
        assert_eq!(value, json!({"List": ["prod"], "Kept": "literal"}));
        let reasons: HashMap<&str, &str> = unknown
            .iter()
            .map(|u| (u.path.as_str(), u.reason.as_str()))
            .collect();
        assert_eq!(
            reasons["Properties.TableName"],
            "Fn::Sub: Ref AWS::StackName: known when deployed"
        );
        assert_eq!(
            reasons["Properties.KeyOnly"],
            "Ref Secret: a parameter with no Default"
        );
        assert_eq!(
            reasons["Properties.Arn"],
            "Fn::GetAtt Queue.Arn: known when deployed"
        );
        assert!(reasons["Properties.Id"].contains("another resource"));
        assert!(reasons["Properties.Where"].contains("AWS::Region"));
        assert!(reasons["Properties.Loop"].contains("refers to itself"));
        assert_eq!(
            reasons["Properties.List[1]"],
            "Fn::ImportValue: known when deployed"
        );
    }

    #[test]
    fn given_values_override_defaults() {
        let t = template();
        let given = HashMap::from([("Env".to_owned(), "dev".to_owned())]);
        let text = t.to_string();
        let template = Template::new(&t, text.len(), given);
        let (value, _) = template
            .resolve(
                &json!({"Name": {"Fn::Sub": "${Env}-x"}, "Read": {"Fn::FindInMap": ["Capacity", {"Ref": "Env"}, "Read"]}}),
                "",
            )
            .expect("resolves");
        assert_eq!(value, json!({"Name": "dev-x", "Read": 1}));
        assert_eq!(template.condition("IsProd").expect("budget"), Ok(false));
    }

    /// A Ref to a large default, repeated, is refused before it is copied past the budget.
    #[test]
    fn copies_are_bounded_by_the_template_size() {
        let big = "x".repeat(200_000);
        let t = json!({"Parameters": {"Big": {"Type": "String", "Default": big}}});
        let refs: Vec<Value> = (0..100).map(|_| json!({"Ref": "Big"})).collect();
        let value = json!({"All": refs});
        let text = t.to_string() + &value.to_string();
        let error = Template::new(&t, text.len(), HashMap::new())
            .resolve(&value, "")
            .expect_err("refused");
        assert!(error.contains("expand this template"), "{error}");
    }

    /// Conditions built of conditions are evaluated once each: 60 levels of
    /// `And[previous, previous]` would be 2^60 evaluations without the memo.
    #[test]
    fn conditions_are_evaluated_once_each() {
        let mut conditions = Map::new();
        conditions.insert("C0".into(), json!({"Fn::Equals": ["a", "a"]}));
        for i in 1..60 {
            let previous = format!("C{}", i - 1);
            conditions.insert(
                format!("C{i}"),
                json!({"Fn::And": [{"Condition": previous}, {"Condition": previous}]}),
            );
        }
        let t = json!({"Conditions": conditions});
        let template = Template::new(&t, 1000, HashMap::new());
        assert_eq!(template.condition("C59").expect("budget"), Ok(true));
    }

    #[test]
    fn strings_read_as_booleans_and_numbers_where_cloudformation_reads_them() {
        let mut value = json!({
            "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": "true", "RecoveryPeriodInDays": "7"},
            "TimeToLiveSpecification": {"AttributeName": "true", "Enabled": "False"},
            "ProvisionedThroughput": {"ReadCapacityUnits": "5", "WriteCapacityUnits": 5},
            "TableName": "5"
        });
        coerce_scalars(&mut value);
        assert_eq!(
            value,
            json!({
                "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true, "RecoveryPeriodInDays": 7},
                "TimeToLiveSpecification": {"AttributeName": "true", "Enabled": false},
                "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
                "TableName": "5"
            })
        );
    }
}
