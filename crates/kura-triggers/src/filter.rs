//! Lambda's event filtering for event source mappings: a trigger's `FilterCriteria` holds up
//! to [`MAX_FILTERS`] patterns, and a record reaches the function when it matches any of them.
//!
//! A pattern is a JSON object that mirrors the record's shape. An object value descends into
//! the record's field of that name; an array value lists the conditions the field's value may
//! meet (any one). `$or` lists patterns of which any may match. The conditions are Lambda's
//! (Developer Guide, "Filter rule syntax"):
//!
//! | condition | pattern |
//! |---|---|
//! | null | `[null]` |
//! | empty | `[""]` |
//! | equals | `["Alice"]`, `[100]`, `[true]` |
//! | equals, ignoring case | `[{"equals-ignore-case": "alice"}]` |
//! | not | `[{"anything-but": ["a", "b"]}]` (or a single value) |
//! | numeric | `[{"numeric": ["=", 100]}]`, `[{"numeric": [">", 0, "<=", 5]}]` |
//! | exists / does not exist | `[{"exists": true}]`, `[{"exists": false}]` |
//! | begins / ends with | `[{"prefix": "us-"}]`, `[{"suffix": ".png"}]` |
//!
//! A field whose value in the record is an array matches when any element does. Numeric
//! conditions compare JSON numbers only: a DynamoDB stream record carries numbers as
//! strings (`{"N": "10"}`), so, as on AWS, they match those with equals, not numeric.

use serde_json::{Map, Value};

use crate::error::TriggerError;

/// Most patterns in one FilterCriteria (Lambda's default quota).
pub const MAX_FILTERS: usize = 5;
/// Longest pattern, in characters (Lambda's limit).
pub const MAX_PATTERN_CHARS: usize = 4096;
/// Deepest nesting of objects and `$or`s Kura accepts: a bound on recursion.
pub const MAX_DEPTH: usize = 32;

/// One pattern, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct Pattern {
    fields: Vec<(String, Node)>,
    any_of: Vec<Vec<Pattern>>,
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Object(Pattern),
    Conditions(Vec<Condition>),
}

#[derive(Debug, Clone, PartialEq)]
enum Condition {
    Equals(Value),
    EqualsIgnoreCase(String),
    AnythingBut(Vec<Value>),
    Numeric(Vec<(Comparison, f64)>),
    Exists(bool),
    Prefix(String),
    Suffix(String),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Comparison {
    Equal,
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
}

impl Comparison {
    fn parse(text: &str) -> Option<Comparison> {
        Some(match text {
            "=" => Comparison::Equal,
            "<" => Comparison::Less,
            "<=" => Comparison::LessOrEqual,
            ">" => Comparison::Greater,
            ">=" => Comparison::GreaterOrEqual,
            _ => return None,
        })
    }

    fn holds(self, value: f64, bound: f64) -> bool {
        match self {
            Comparison::Equal => value == bound,
            Comparison::Less => value < bound,
            Comparison::LessOrEqual => value <= bound,
            Comparison::Greater => value > bound,
            Comparison::GreaterOrEqual => value >= bound,
        }
    }
}

fn invalid(message: impl Into<String>) -> TriggerError {
    TriggerError::InvalidPattern(message.into())
}

impl Pattern {
    /// Parses one pattern from its JSON text (the `Pattern` string of a filter).
    pub fn parse(text: &str) -> Result<Pattern, TriggerError> {
        if text.chars().count() > MAX_PATTERN_CHARS {
            return Err(invalid(format!(
                "a pattern is limited to {MAX_PATTERN_CHARS} characters"
            )));
        }
        // serde_json refuses nesting beyond 128 levels on its own.
        let value: Value = serde_json::from_str(text)
            .map_err(|e| invalid(format!("the pattern is not JSON: {e}")))?;
        match value {
            Value::Object(map) => Pattern::from_object(&map, "", 0),
            _ => Err(invalid("a pattern must be a JSON object")),
        }
    }

    fn from_object(
        map: &Map<String, Value>,
        path: &str,
        depth: usize,
    ) -> Result<Pattern, TriggerError> {
        if depth > MAX_DEPTH {
            return Err(invalid(format!(
                "the pattern nests deeper than {MAX_DEPTH} levels"
            )));
        }
        let mut pattern = Pattern {
            fields: Vec::new(),
            any_of: Vec::new(),
        };
        for (key, value) in map {
            let at = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            if key == "$or" {
                let Value::Array(options) = value else {
                    return Err(invalid(format!("{at} must be an array of patterns")));
                };
                if options.len() < 2 {
                    return Err(invalid(format!("{at} needs at least two patterns")));
                }
                let mut parsed = Vec::with_capacity(options.len());
                for option in options {
                    let Value::Object(inner) = option else {
                        return Err(invalid(format!("{at} must be an array of patterns")));
                    };
                    parsed.push(Pattern::from_object(inner, path, depth + 1)?);
                }
                pattern.any_of.push(parsed);
                continue;
            }
            let node = match value {
                Value::Object(inner) => Node::Object(Pattern::from_object(inner, &at, depth + 1)?),
                Value::Array(conditions) => {
                    if conditions.is_empty() {
                        return Err(invalid(format!("{at} lists no condition")));
                    }
                    let parsed = conditions
                        .iter()
                        .map(|c| Condition::parse(c, &at))
                        .collect::<Result<Vec<_>, _>>()?;
                    Node::Conditions(parsed)
                }
                _ => {
                    return Err(invalid(format!(
                        "{at} must be an object or an array of conditions"
                    )));
                }
            };
            pattern.fields.push((key.clone(), node));
        }
        if pattern.fields.is_empty() && pattern.any_of.is_empty() {
            return Err(invalid(format!(
                "{} is an empty pattern",
                if path.is_empty() { "the pattern" } else { path }
            )));
        }
        Ok(pattern)
    }

    /// Whether `record` (the record as Lambda's event shows it) matches.
    pub fn matches(&self, record: &Value) -> bool {
        let Value::Object(fields) = record else {
            return false;
        };
        self.fields.iter().all(|(name, node)| match node {
            Node::Object(inner) => fields.get(name).is_some_and(|v| inner.matches(v)),
            Node::Conditions(conditions) => conditions.iter().any(|c| c.holds(fields.get(name))),
        }) && self
            .any_of
            .iter()
            .all(|options| options.iter().any(|p| p.matches(record)))
    }
}

impl Condition {
    fn parse(value: &Value, at: &str) -> Result<Condition, TriggerError> {
        let Value::Object(map) = value else {
            return match value {
                Value::Array(_) => Err(invalid(format!("{at}: a condition cannot be an array"))),
                other => Ok(Condition::Equals(other.clone())),
            };
        };
        let mut entries = map.iter();
        let (Some((operator, operand)), None) = (entries.next(), entries.next()) else {
            return Err(invalid(format!(
                "{at}: a condition object holds one operator"
            )));
        };
        let text = |what: &str| -> Result<String, TriggerError> {
            operand
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| invalid(format!("{at}: {what} takes a string")))
        };
        Ok(match operator.as_str() {
            "equals-ignore-case" => Condition::EqualsIgnoreCase(text("equals-ignore-case")?),
            "prefix" => Condition::Prefix(text("prefix")?),
            "suffix" => Condition::Suffix(text("suffix")?),
            "exists" => match operand {
                Value::Bool(b) => Condition::Exists(*b),
                _ => return Err(invalid(format!("{at}: exists takes true or false"))),
            },
            "anything-but" => match operand {
                Value::Array(values) if !values.is_empty() => {
                    if values.iter().any(|v| v.is_object() || v.is_array()) {
                        return Err(invalid(format!(
                            "{at}: anything-but lists strings, numbers or booleans"
                        )));
                    }
                    Condition::AnythingBut(values.clone())
                }
                Value::String(_) | Value::Number(_) | Value::Bool(_) => {
                    Condition::AnythingBut(vec![operand.clone()])
                }
                _ => {
                    return Err(invalid(format!(
                        "{at}: anything-but takes a value or a non-empty list of values"
                    )));
                }
            },
            "numeric" => Condition::Numeric(numeric(operand, at)?),
            other => return Err(invalid(format!("{at}: unknown operator {other:?}"))),
        })
    }

    fn holds(&self, field: Option<&Value>) -> bool {
        match (self, field) {
            (Condition::Exists(wanted), found) => found.is_some() == *wanted,
            (_, None) => false,
            // An array in the record matches when any of its elements does.
            (_, Some(Value::Array(elements))) => elements.iter().any(|e| self.holds_one(e)),
            (_, Some(value)) => self.holds_one(value),
        }
    }

    fn holds_one(&self, value: &Value) -> bool {
        match self {
            Condition::Equals(expected) => same(expected, value),
            Condition::EqualsIgnoreCase(expected) => value
                .as_str()
                .is_some_and(|s| s.to_lowercase() == expected.to_lowercase()),
            Condition::AnythingBut(excluded) => {
                !value.is_object() && !excluded.iter().any(|e| same(e, value))
            }
            Condition::Numeric(bounds) => value
                .as_f64()
                .filter(|_| value.is_number())
                .is_some_and(|v| bounds.iter().all(|(c, b)| c.holds(v, *b))),
            Condition::Prefix(prefix) => value.as_str().is_some_and(|s| s.starts_with(prefix)),
            Condition::Suffix(suffix) => value.as_str().is_some_and(|s| s.ends_with(suffix)),
            Condition::Exists(_) => true,
        }
    }
}

/// JSON equality, with numbers compared by value (`10` equals `10.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// `["=", 5]` or `[">", 0, "<=", 5]`: one equality, or one or two bounds.
fn numeric(operand: &Value, at: &str) -> Result<Vec<(Comparison, f64)>, TriggerError> {
    let bad = || {
        invalid(format!(
            "{at}: numeric takes [\"op\", number] or two such pairs"
        ))
    };
    let Value::Array(items) = operand else {
        return Err(bad());
    };
    if items.len() != 2 && items.len() != 4 {
        return Err(bad());
    }
    let mut bounds = Vec::new();
    for pair in items.chunks(2) {
        let comparison = pair[0]
            .as_str()
            .and_then(Comparison::parse)
            .ok_or_else(bad)?;
        let bound = pair[1].as_f64().filter(|b| b.is_finite()).ok_or_else(bad)?;
        bounds.push((comparison, bound));
    }
    if bounds.len() == 2 && bounds.iter().any(|(c, _)| *c == Comparison::Equal) {
        return Err(bad());
    }
    Ok(bounds)
}

/// A trigger's FilterCriteria: a record passes when any pattern matches; with no pattern,
/// every record passes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FilterCriteria {
    patterns: Vec<Pattern>,
}

impl FilterCriteria {
    /// Parses the `Pattern` strings of a FilterCriteria's `Filters`.
    pub fn parse<'a>(patterns: impl IntoIterator<Item = &'a str>) -> Result<Self, TriggerError> {
        let patterns = patterns
            .into_iter()
            .map(Pattern::parse)
            .collect::<Result<Vec<_>, _>>()?;
        if patterns.len() > MAX_FILTERS {
            return Err(invalid(format!(
                "a FilterCriteria holds at most {MAX_FILTERS} filters"
            )));
        }
        Ok(FilterCriteria { patterns })
    }

    pub fn passes(&self, record: &Value) -> bool {
        self.patterns.is_empty() || self.patterns.iter().any(|p| p.matches(record))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A DynamoDB stream record as Lambda's event carries it.
    fn record() -> Value {
        json!({
            "eventID": "1",
            "eventName": "INSERT",
            "eventSource": "aws:dynamodb",
            "awsRegion": "us-east-1",
            "dynamodb": {
                "Keys": {"pk": {"S": "ORDER#1"}},
                "NewImage": {
                    "pk": {"S": "ORDER#1"},
                    "status": {"S": "Shipped"},
                    "total": {"N": "120"},
                    "tags": {"SS": ["gift", "express"]},
                    "note": {"NULL": true}
                },
                "SizeBytes": 120,
                "StreamViewType": "NEW_AND_OLD_IMAGES"
            }
        })
    }

    fn matches(pattern: &str) -> bool {
        Pattern::parse(pattern).expect("pattern").matches(&record())
    }

    #[test]
    fn each_condition_of_lambdas_syntax() {
        assert!(matches(r#"{"eventName": ["INSERT"]}"#));
        assert!(!matches(r#"{"eventName": ["REMOVE"]}"#));
        assert!(matches(r#"{"eventName": ["REMOVE", "INSERT"]}"#));
        assert!(matches(
            r#"{"dynamodb": {"NewImage": {"status": {"S": [{"equals-ignore-case": "shipped"}]}}}}"#
        ));
        assert!(matches(
            r##"{"dynamodb": {"Keys": {"pk": {"S": [{"prefix": "ORDER#"}]}}}}"##
        ));
        assert!(matches(
            r##"{"dynamodb": {"Keys": {"pk": {"S": [{"suffix": "#1"}]}}}}"##
        ));
        assert!(matches(
            r#"{"eventName": [{"anything-but": ["REMOVE", "MODIFY"]}]}"#
        ));
        assert!(!matches(r#"{"eventName": [{"anything-but": "INSERT"}]}"#));
        assert!(matches(
            r#"{"dynamodb": {"SizeBytes": [{"numeric": [">", 100, "<=", 200]}]}}"#
        ));
        assert!(matches(
            r#"{"dynamodb": {"SizeBytes": [{"numeric": ["=", 120]}]}}"#
        ));
        assert!(!matches(
            r#"{"dynamodb": {"SizeBytes": [{"numeric": ["<", 100]}]}}"#
        ));
        assert!(matches(
            r#"{"dynamodb": {"NewImage": {"status": [{"exists": true}]}}}"#
        ));
        assert!(matches(
            r#"{"dynamodb": {"NewImage": {"gone": [{"exists": false}]}}}"#
        ));
        assert!(!matches(
            r#"{"dynamodb": {"NewImage": {"gone": [{"exists": true}]}}}"#
        ));
        // Numbers are strings in DynamoDB's JSON: numeric does not match them, equals does.
        assert!(!matches(
            r#"{"dynamodb": {"NewImage": {"total": {"N": [{"numeric": [">", 1]}]}}}}"#
        ));
        assert!(matches(
            r#"{"dynamodb": {"NewImage": {"total": {"N": ["120"]}}}}"#
        ));
        // Arrays in the record match when an element does.
        assert!(matches(
            r#"{"dynamodb": {"NewImage": {"tags": {"SS": ["express"]}}}}"#
        ));
        assert!(matches(
            r#"{"dynamodb": {"NewImage": {"note": {"NULL": [true]}}}}"#
        ));
    }

    #[test]
    fn and_or_and_dollar_or() {
        assert!(matches(
            r#"{"eventName": ["INSERT"], "awsRegion": ["us-east-1"]}"#
        ));
        assert!(!matches(
            r#"{"eventName": ["INSERT"], "awsRegion": ["eu-west-1"]}"#
        ));
        assert!(matches(
            r#"{"$or": [{"eventName": ["REMOVE"]}, {"awsRegion": ["us-east-1"]}]}"#
        ));
        assert!(!matches(
            r#"{"$or": [{"eventName": ["REMOVE"]}, {"awsRegion": ["eu-west-1"]}]}"#
        ));
    }

    #[test]
    fn null_and_empty() {
        let record = json!({"a": null, "b": ""});
        assert!(
            Pattern::parse(r#"{"a": [null]}"#)
                .expect("p")
                .matches(&record)
        );
        assert!(
            Pattern::parse(r#"{"b": [""]}"#)
                .expect("p")
                .matches(&record)
        );
        assert!(
            !Pattern::parse(r#"{"b": [null]}"#)
                .expect("p")
                .matches(&record)
        );
    }

    #[test]
    fn criteria_pass_a_record_any_pattern_matches() {
        let criteria = FilterCriteria::parse([
            r#"{"eventName": ["REMOVE"]}"#,
            r#"{"eventName": ["INSERT"]}"#,
        ])
        .expect("criteria");
        assert!(criteria.passes(&record()));
        assert!(FilterCriteria::default().passes(&record()));
        let too_many: Vec<&str> = vec![r#"{"a": [1]}"#; MAX_FILTERS + 1];
        assert!(FilterCriteria::parse(too_many).is_err());
    }

    #[test]
    fn invalid_patterns_are_refused_with_where() {
        for (pattern, says) in [
            ("[]", "JSON object"),
            ("{}", "empty pattern"),
            (r#"{"a": "x"}"#, "a must be an object or an array"),
            (r#"{"a": []}"#, "a lists no condition"),
            (r#"{"a": {"b": [{"numeric": [">", "x"]}]}}"#, "a.b: numeric"),
            (r#"{"a": [{"numeric": ["=", 1, "<", 2]}]}"#, "numeric"),
            (r#"{"a": [{"prefix": 1}]}"#, "prefix takes a string"),
            (r#"{"a": [{"wildcard": "*"}]}"#, "unknown operator"),
            (r#"{"a": [{"exists": "yes"}]}"#, "exists takes"),
            (r#"{"$or": [{"a": [1]}]}"#, "at least two"),
            ("not json", "not JSON"),
        ] {
            let error = Pattern::parse(pattern).expect_err(pattern).to_string();
            assert!(error.contains(says), "{pattern}: {error}");
        }
        let deep = format!("{}{}{}", r#"{"a":"#.repeat(40), "[1]", "}".repeat(40));
        assert!(Pattern::parse(&deep).is_err());
        assert!(Pattern::parse(&format!(r#"{{"a": ["{}"]}}"#, "x".repeat(5000))).is_err());
    }

    proptest::proptest! {
        // Any text is parsed or refused, and any parsed pattern judges any record, without
        // panicking.
        #[test]
        fn any_text_is_parsed_or_refused(text in ".{0,64}", record in "[ -~]{0,64}") {
            if let Ok(pattern) = Pattern::parse(&text)
                && let Ok(value) = serde_json::from_str::<Value>(&record)
            {
                let _ = pattern.matches(&value);
            }
        }
    }
}
