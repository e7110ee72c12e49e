//! CloudFormation and SAM templates in YAML, read into the JSON form the template reader
//! takes: the short intrinsic tags become what `cfn-flip` makes of them (`!Ref X` is
//! `{"Ref": "X"}`, `!GetAtt A.B` is `{"Fn::GetAtt": ["A", "B"]}`, `!Sub s` is
//! `{"Fn::Sub": "s"}`, any other `!Name` is `{"Fn::Name": ...}`), plain scalars are typed
//! by YAML 1.2's core schema, anchors and aliases are followed.
//!
//! yaml-rust2's event parser is used rather than a serde mapping: its events carry the
//! tags, which a serde `Value` would not keep.

use serde_json::{Map, Number, Value};
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// The JSON value of a YAML document (the first, when there are several).
pub fn to_json(text: &str) -> Result<Value, String> {
    let mut builder = Builder {
        alias_budget: alias_budget(text.len()),
        ..Builder::default()
    };
    Parser::new_from_str(text)
        .load(&mut builder, false)
        .map_err(|e| format!("not YAML ({e})"))?;
    if let Some(error) = builder.error {
        return Err(error);
    }
    builder
        .document
        .ok_or_else(|| "an empty YAML document".to_owned())
}

/// Collections nested deeper than this are refused (JSON's own reader stops at 128):
/// a JSON value that deep would be dropped and written by recursion.
const MAX_DEPTH: usize = 128;

/// What one node costs in [`Builder::size`]'s units (about a `serde_json::Value` and its
/// place in a map), beside the bytes of its text.
const NODE_SIZE: usize = 48;

/// How much the aliases of a document of `bytes` may copy, in [`Builder::size`]'s units:
/// 16 times the text, and at least 1 MiB. Without aliases a document is at most a small
/// multiple of its text; with them, each alias copies what its anchor holds, and nested
/// ones multiply (the "billion laughs": a few hundred bytes that expand to gigabytes), so
/// the copies are counted and refused past this.
fn alias_budget(bytes: usize) -> usize {
    bytes.saturating_mul(16).max(1 << 20)
}

/// A collection being read, with the tag and anchor it will be closed with, and the
/// builder's size when it opened (what it holds is the growth since).
enum Open {
    Sequence(Vec<Value>, Option<Tag>, usize, usize),
    /// The map so far and the key waiting for its value.
    Mapping(
        Map<String, Value>,
        Option<String>,
        Option<Tag>,
        usize,
        usize,
    ),
}

#[derive(Default)]
struct Builder {
    open: Vec<Open>,
    /// Each anchor's value and its size.
    anchors: std::collections::HashMap<usize, (Value, usize)>,
    document: Option<Value>,
    error: Option<String>,
    /// The size of everything built so far: [`NODE_SIZE`] a node plus the bytes of its
    /// text, aliases' copies included.
    size: usize,
    /// The part of `size` aliases may copy ([`alias_budget`]).
    alias_budget: usize,
    aliased: usize,
}

impl Builder {
    /// Puts a finished node of `size` where it belongs: into the collection open around
    /// it, or as the document.
    fn place(&mut self, value: Value, size: usize, anchor: usize, line: usize) {
        if anchor > 0 {
            self.anchors.insert(anchor, (value.clone(), size));
        }
        match self.open.last_mut() {
            None => {
                self.document.get_or_insert(value);
            }
            Some(Open::Sequence(items, ..)) => items.push(value),
            Some(Open::Mapping(map, key, ..)) => match key.take() {
                Some(name) => {
                    map.insert(name, value);
                }
                None => match value {
                    Value::String(name) => *key = Some(name),
                    Value::Number(_) | Value::Bool(_) | Value::Null => {
                        *key = Some(value.to_string());
                    }
                    _ => {
                        self.error
                            .get_or_insert(format!("line {line}: a mapping key that is not text"));
                    }
                },
            },
        }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, event: Event, mark: Marker) {
        if self.error.is_some() {
            return; // the document is refused; the rest of its events change nothing
        }
        let opens = matches!(event, Event::SequenceStart(..) | Event::MappingStart(..));
        if opens && self.open.len() >= MAX_DEPTH {
            self.error = Some(format!(
                "line {}: nested deeper than {MAX_DEPTH} levels",
                mark.line()
            ));
            self.open.clear();
            return;
        }
        match event {
            Event::Scalar(text, style, anchor, tag) => {
                let size = NODE_SIZE + text.len();
                self.size += size;
                let value = scalar(text, style, tag.as_ref());
                let value = intrinsic(tag.as_ref(), value);
                self.place(value, size, anchor, mark.line());
            }
            Event::SequenceStart(anchor, tag) => {
                self.size += NODE_SIZE;
                let at = self.size - NODE_SIZE;
                self.open.push(Open::Sequence(Vec::new(), tag, anchor, at));
            }
            Event::MappingStart(anchor, tag) => {
                self.size += NODE_SIZE;
                let at = self.size - NODE_SIZE;
                self.open
                    .push(Open::Mapping(Map::new(), None, tag, anchor, at));
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (value, tag, anchor, at) = match self.open.pop() {
                    Some(Open::Sequence(items, tag, anchor, at)) => {
                        (Value::Array(items), tag, anchor, at)
                    }
                    Some(Open::Mapping(map, _, tag, anchor, at)) => {
                        (Value::Object(map), tag, anchor, at)
                    }
                    None => return,
                };
                let size = self.size - at;
                self.place(intrinsic(tag.as_ref(), value), size, anchor, mark.line());
            }
            Event::Alias(anchor) => {
                let size = self
                    .anchors
                    .get(&anchor)
                    .map_or(NODE_SIZE, |(_, size)| *size);
                self.aliased = self.aliased.saturating_add(size);
                if self.aliased > self.alias_budget {
                    // Refused before the copy is made: what was built so far is within
                    // the budget, and so is every anchor.
                    self.error = Some(format!(
                        "line {}: aliases expand this document to more than {} KiB \
                         (16 times its size); write the repeated parts out",
                        mark.line(),
                        self.alias_budget / 1024
                    ));
                    self.open.clear();
                    self.anchors.clear();
                    return;
                }
                self.size += size;
                let value = self
                    .anchors
                    .get(&anchor)
                    .map_or(Value::Null, |(value, _)| value.clone());
                self.place(value, size, 0, mark.line());
            }
            _ => {}
        }
    }
}

/// CloudFormation's short form of an intrinsic function as its long form.
fn intrinsic(tag: Option<&Tag>, value: Value) -> Value {
    let Some(name) = tag.filter(|t| t.handle == "!").map(|t| t.suffix.as_str()) else {
        return value;
    };
    let long = match name {
        "Ref" | "Condition" => name.to_owned(),
        _ => format!("Fn::{name}"),
    };
    let value = match (name, value) {
        ("GetAtt", Value::String(path)) => match path.split_once('.') {
            Some((resource, attribute)) => Value::Array(vec![resource.into(), attribute.into()]),
            None => Value::String(path),
        },
        (_, value) => value,
    };
    let mut map = Map::new();
    map.insert(long, value);
    Value::Object(map)
}

/// A scalar's value: quoted (or `!!str`) is text; plain is typed by the core schema.
fn scalar(text: String, style: TScalarStyle, tag: Option<&Tag>) -> Value {
    let as_text =
        style != TScalarStyle::Plain || tag.is_some_and(|t| t.handle == "!" || t.suffix == "str");
    if as_text {
        return Value::String(text);
    }
    match text.as_str() {
        "" | "~" | "null" | "Null" | "NULL" => Value::Null,
        "true" | "True" | "TRUE" => Value::Bool(true),
        "false" | "False" | "FALSE" => Value::Bool(false),
        _ => number(&text).map_or(Value::String(text), Value::Number),
    }
}

fn number(text: &str) -> Option<Number> {
    if let Some(hex) = text.strip_prefix("0x") {
        return i64::from_str_radix(hex, 16).ok().map(Number::from);
    }
    if let Some(octal) = text.strip_prefix("0o") {
        return i64::from_str_radix(octal, 8).ok().map(Number::from);
    }
    let decimal = text
        .trim_start_matches(['-', '+'])
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'));
    let digit = text.chars().any(|c| c.is_ascii_digit());
    if !decimal || !digit {
        return None;
    }
    match text.parse::<i64>() {
        Ok(n) => Some(Number::from(n)),
        Err(_) => text.parse::<f64>().ok().and_then(Number::from_f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn short_intrinsics_become_their_long_form() {
        let text = "\
Resources:
  Orders:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: !Sub '${Env}-orders'
      StreamArn: !GetAtt Orders.StreamArn
      Other: !Ref Env
      Joined: !Join ['-', [a, !Ref Env]]
      Count: 5
      Ratio: 0.5
      Quoted: '5'
      On: true
      Off: ~
";
        let value = to_json(text).expect("yaml");
        let properties = &value["Resources"]["Orders"]["Properties"];
        assert_eq!(properties["TableName"], json!({"Fn::Sub": "${Env}-orders"}));
        assert_eq!(
            properties["StreamArn"],
            json!({"Fn::GetAtt": ["Orders", "StreamArn"]})
        );
        assert_eq!(properties["Other"], json!({"Ref": "Env"}));
        assert_eq!(
            properties["Joined"],
            json!({"Fn::Join": ["-", ["a", {"Ref": "Env"}]]})
        );
        assert_eq!(properties["Count"], json!(5));
        assert_eq!(properties["Ratio"], json!(0.5));
        assert_eq!(properties["Quoted"], json!("5"));
        assert_eq!(properties["On"], json!(true));
        assert_eq!(properties["Off"], Value::Null);
    }

    #[test]
    fn anchors_are_followed_and_bad_yaml_is_an_error() {
        let value = to_json("a: &k {x: 1}\nb: *k\n").expect("yaml");
        assert_eq!(value["b"], json!({"x": 1}));
        assert!(to_json("a: [1, 2\n").is_err());
        assert!(to_json("").is_err());
        assert!(
            to_json("? [1, 2]\n: x\n").is_err(),
            "a key that is not text"
        );
        let deep = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(to_json(&deep).is_err(), "too deep");
        assert!(to_json(&format!("{}1{}", "[".repeat(100), "]".repeat(100))).is_ok());
    }

    /// The billion-laughs family: each level's aliases copy the level below nine times,
    /// so a few hundred bytes would expand to gigabytes. Refused, quickly, by the alias
    /// budget; a document using its anchors a modest number of times is read.
    #[test]
    fn alias_bombs_are_refused() {
        let mut bomb = String::from("a0: &a0 [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n");
        for level in 1..=9 {
            let below = format!("*a{}", level - 1);
            let row = [below.as_str(); 9].join(", ");
            bomb.push_str(&format!("a{level}: &a{level} [{row}]\n"));
        }
        assert!(bomb.len() < 1_000, "{} bytes", bomb.len());
        let started = std::time::Instant::now();
        let refused = to_json(&bomb).expect_err("a bomb");
        assert!(
            refused.contains("aliases expand this document"),
            "{refused}"
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        // Wide instead of deep: one large anchor repeated many times.
        let big = format!(
            "big: &big [{}]\n{}",
            vec!["x"; 20_000].join(", "),
            (0..200)
                .map(|i| format!("c{i}: *big\n"))
                .collect::<String>()
        );
        assert!(to_json(&big).is_err());
        let modest = "base: &base {BillingMode: PAY_PER_REQUEST}\nA: *base\nB: *base\nC: *base\n";
        assert_eq!(
            to_json(modest).expect("a few aliases")["C"],
            json!({"BillingMode": "PAY_PER_REQUEST"})
        );
    }
}
