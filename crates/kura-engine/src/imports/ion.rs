//! A reader for the Ion text DynamoDB exports and imports: one value per line,
//! `$ion_1_0 {Item:{...}}`, with DynamoDB's mapping (Developer Guide, "DynamoDB table
//! export output format"): strings are S, decimals and integers N, blobs `{{...}}` B,
//! `true`/`false` BOOL, `null` (of any type) NULL, lists L, structs M, and lists
//! annotated `$dynamodb_SS::`, `$dynamodb_NS::`, `$dynamodb_BS::` the sets.
//!
//! Covered: version markers, comments, quoted and bare field names, short strings and
//! `'''long'''` strings with Ion's escapes, decimals with `d` exponents, integers (with
//! `_` separators, hex and binary), floats (as numbers), blobs, annotations. Not covered
//! (an error naming the position): clobs, timestamps and S-expressions, which no DynamoDB
//! value maps to. Nesting is bounded, so no input can exhaust the stack.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use kura_model::wire::{AttributeValueJson, ItemJson};

/// Deepest nesting accepted (DynamoDB allows 32 levels of attribute values).
const MAX_DEPTH: usize = 64;

/// An Ion value, already in DynamoDB's JSON shape where one applies.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Json(serde_json::Value),
    Struct(Vec<(String, Value)>),
}

pub struct Reader<'a> {
    text: &'a [u8],
    pos: usize,
}

pub type Error = String;

impl<'a> Reader<'a> {
    pub fn new(text: &'a str) -> Self {
        Reader {
            text: text.as_bytes(),
            pos: 0,
        }
    }

    fn error(&self, what: &str) -> Error {
        format!("invalid Ion at offset {}: {what}", self.pos)
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn skip_space(&mut self) {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) => self.pos += 1,
                Some(b'/') if self.text.get(self.pos + 1) == Some(&b'/') => {
                    while self.peek().is_some_and(|b| b != b'\n') {
                        self.pos += 1;
                    }
                }
                Some(b'/') if self.text.get(self.pos + 1) == Some(&b'*') => {
                    self.pos += 2;
                    while self.pos < self.text.len() && !self.text[self.pos..].starts_with(b"*/") {
                        self.pos += 1;
                    }
                    self.pos = (self.pos + 2).min(self.text.len());
                }
                _ => return,
            }
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), Error> {
        self.skip_space();
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected '{}'", byte as char)))
        }
    }

    /// The next top-level value, skipping version markers; None at the end.
    pub fn next_value(&mut self) -> Result<Option<Value>, Error> {
        loop {
            self.skip_space();
            if self.peek().is_none() {
                return Ok(None);
            }
            if self.text[self.pos..].starts_with(b"$ion_1_0") {
                let end = self.pos + 8;
                if self.text.get(end).is_none_or(|b| !is_symbol_char(*b)) {
                    self.pos = end;
                    continue;
                }
            }
            return self.value(0).map(Some);
        }
    }

    fn identifier(&mut self) -> &'a str {
        let start = self.pos;
        while self.peek().is_some_and(is_symbol_char) {
            self.pos += 1;
        }
        std::str::from_utf8(&self.text[start..self.pos]).unwrap_or_default()
    }

    fn value(&mut self, depth: usize) -> Result<Value, Error> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        self.skip_space();
        // Annotations: `name::` or `'name'::`, any number of them.
        let mut annotations = Vec::new();
        loop {
            let save = self.pos;
            let name = match self.peek() {
                Some(b'\'') if !self.text[self.pos..].starts_with(b"'''") => self.quoted(b'\'')?,
                Some(b) if is_symbol_start(b) => self.identifier().to_owned(),
                _ => break,
            };
            self.skip_space();
            if self.text[self.pos..].starts_with(b"::") {
                self.pos += 2;
                annotations.push(name);
                self.skip_space();
            } else {
                self.pos = save;
                break;
            }
        }
        let value = self.bare_value(depth)?;
        match annotations.last().map(String::as_str) {
            Some(set @ ("$dynamodb_SS" | "$dynamodb_NS" | "$dynamodb_BS")) => {
                let Some(serde_json::Value::Array(items)) = (match value {
                    Value::Json(mut list) => list.get_mut("L").map(serde_json::Value::take),
                    Value::Struct(_) => None,
                }) else {
                    return Err(self.error("a set annotation on something other than a list"));
                };
                let key = &set[10..];
                let wanted = match key {
                    "SS" => "S",
                    "NS" => "N",
                    _ => "B",
                };
                let mut members = Vec::new();
                for item in items {
                    match item.get(wanted) {
                        Some(v) => members.push(v.clone()),
                        None => {
                            return Err(self.error(&format!("a {key} member that is not {wanted}")));
                        }
                    }
                }
                Ok(Value::Json(serde_json::json!({ key: members })))
            }
            _ => Ok(value),
        }
    }

    fn bare_value(&mut self, depth: usize) -> Result<Value, Error> {
        let json = |v: serde_json::Value| Ok(Value::Json(v));
        match self.peek() {
            None => Err(self.error("unexpected end")),
            Some(b'{') if self.text.get(self.pos + 1) == Some(&b'{') => self.blob(),
            Some(b'{') => self.structure(depth),
            Some(b'[') => self.list(depth),
            Some(b'"') => {
                let s = self.quoted(b'"')?;
                json(serde_json::json!({ "S": s }))
            }
            Some(b'\'') if self.text[self.pos..].starts_with(b"'''") => {
                let mut s = String::new();
                while self.text[self.pos..].starts_with(b"'''") {
                    s.push_str(&self.long_string()?);
                    self.skip_space();
                }
                json(serde_json::json!({ "S": s }))
            }
            Some(b'(') => Err(self.error("S-expressions have no DynamoDB type")),
            Some(b) if b == b'-' || b == b'+' || b.is_ascii_digit() => self.number(),
            Some(b) if is_symbol_start(b) => {
                let word = self.identifier();
                match word {
                    "true" => json(serde_json::json!({ "BOOL": true })),
                    "false" => json(serde_json::json!({ "BOOL": false })),
                    "null" => {
                        // `null.string` and the like are nulls too.
                        if self.peek() == Some(b'.') {
                            self.pos += 1;
                            self.identifier();
                        }
                        json(serde_json::json!({ "NULL": true }))
                    }
                    "nan" => Err(self.error("nan is not a DynamoDB number")),
                    other => Err(self.error(&format!("the symbol {other} has no DynamoDB type"))),
                }
            }
            Some(_) => Err(self.error("unexpected character")),
        }
    }

    /// `{{ base64 }}`: a blob (a clob, `{{ "text" }}`, has no DynamoDB type).
    fn blob(&mut self) -> Result<Value, Error> {
        self.pos += 2;
        let start = self.pos;
        while self.pos < self.text.len() && !self.text[self.pos..].starts_with(b"}}") {
            self.pos += 1;
        }
        if self.pos >= self.text.len() {
            return Err(self.error("unterminated blob"));
        }
        let raw: String = self.text[start..self.pos]
            .iter()
            .filter(|b| !b.is_ascii_whitespace())
            .map(|b| *b as char)
            .collect();
        self.pos += 2;
        if raw.starts_with('"') {
            return Err(self.error("clobs have no DynamoDB type"));
        }
        BASE64
            .decode(raw.as_bytes())
            .map_err(|_| self.error("a blob that is not base64"))?;
        Ok(Value::Json(serde_json::json!({ "B": raw })))
    }

    /// `{ name: value, ... }`.
    fn structure(&mut self, depth: usize) -> Result<Value, Error> {
        self.pos += 1;
        let mut fields = Vec::new();
        loop {
            self.skip_space();
            if self.peek() == Some(b'}') {
                self.pos += 1;
                return Ok(Value::Struct(fields));
            }
            let name = match self.peek() {
                Some(b'\'') => self.quoted(b'\'')?,
                Some(b'"') => self.quoted(b'"')?,
                Some(b) if is_symbol_start(b) => self.identifier().to_owned(),
                _ => return Err(self.error("expected a field name")),
            };
            self.expect(b':')?;
            let value = self.value(depth + 1)?;
            fields.push((name, value));
            self.skip_space();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {}
                _ => return Err(self.error("expected ',' or '}'")),
            }
        }
    }

    /// `[ value, ... ]`: a DynamoDB list.
    fn list(&mut self, depth: usize) -> Result<Value, Error> {
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.skip_space();
            if self.peek() == Some(b']') {
                self.pos += 1;
                return Ok(Value::Json(serde_json::json!({ "L": items })));
            }
            items.push(to_json(self.value(depth + 1)?));
            self.skip_space();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {}
                _ => return Err(self.error("expected ',' or ']'")),
            }
        }
    }

    /// A quoted string or symbol, its escapes resolved.
    fn quoted(&mut self, quote: u8) -> Result<String, Error> {
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            let Some(b) = self.peek() else {
                return Err(self.error("unterminated string"));
            };
            self.pos += 1;
            match b {
                b if b == quote => break,
                b'\\' => self.escape(&mut out)?,
                b'\n' if quote == b'"' => return Err(self.error("a newline in a short string")),
                b => out.push(b),
            }
        }
        String::from_utf8(out).map_err(|_| self.error("a string that is not UTF-8"))
    }

    fn long_string(&mut self) -> Result<String, Error> {
        self.pos += 3;
        let mut out = Vec::new();
        loop {
            if self.text[self.pos..].starts_with(b"'''") {
                self.pos += 3;
                break;
            }
            let Some(b) = self.peek() else {
                return Err(self.error("unterminated long string"));
            };
            self.pos += 1;
            match b {
                b'\\' => self.escape(&mut out)?,
                b => out.push(b),
            }
        }
        String::from_utf8(out).map_err(|_| self.error("a string that is not UTF-8"))
    }

    fn escape(&mut self, out: &mut Vec<u8>) -> Result<(), Error> {
        let Some(b) = self.peek() else {
            return Err(self.error("unterminated escape"));
        };
        self.pos += 1;
        let simple = match b {
            b'n' => Some(b'\n'),
            b't' => Some(b'\t'),
            b'r' => Some(b'\r'),
            b'0' => Some(0),
            b'a' => Some(7),
            b'b' => Some(8),
            b'v' => Some(0x0b),
            b'f' => Some(0x0c),
            b'\\' | b'"' | b'\'' | b'/' | b'?' => Some(b),
            b'\n' => return Ok(()), // an escaped newline continues the string
            _ => None,
        };
        if let Some(c) = simple {
            out.push(c);
            return Ok(());
        }
        let digits = match b {
            b'x' => 2,
            b'u' => 4,
            b'U' => 8,
            _ => return Err(self.error("unknown escape")),
        };
        let hex = self
            .text
            .get(self.pos..self.pos + digits)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| self.error("a bad hex escape"))?;
        self.pos += digits;
        let c = char::from_u32(hex).ok_or_else(|| self.error("not a Unicode scalar"))?;
        let mut buf = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        Ok(())
    }

    /// An integer, decimal or float, as a DynamoDB number string.
    fn number(&mut self) -> Result<Value, Error> {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'+' | b'_'))
        {
            self.pos += 1;
        }
        let raw = std::str::from_utf8(&self.text[start..self.pos]).unwrap_or_default();
        let (negative, body) = match raw.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, raw),
        };
        let sign = if negative { "-" } else { "" };
        let text = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            u128::from_str_radix(&hex.replace('_', ""), 16)
                .map(|n| format!("{sign}{n}"))
                .map_err(|_| self.error("a bad hex integer"))?
        } else if let Some(bin) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
            u128::from_str_radix(&bin.replace('_', ""), 2)
                .map(|n| format!("{sign}{n}"))
                .map_err(|_| self.error("a bad binary integer"))?
        } else {
            let plain = body.replace('_', "").replace(['d', 'D'], "e");
            if plain.contains('T') || plain.matches('-').count() > 1 {
                return Err(self.error("timestamps have no DynamoDB type"));
            }
            let plain = plain.strip_suffix('.').map(str::to_owned).unwrap_or(plain);
            let plain = plain.replace(".e", "e");
            format!("{sign}{plain}")
        };
        Ok(Value::Json(serde_json::json!({ "N": text })))
    }
}

fn is_symbol_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$'
}

fn is_symbol_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// A value in DynamoDB JSON: a struct becomes a map.
pub fn to_json(value: Value) -> serde_json::Value {
    match value {
        Value::Json(v) => v,
        Value::Struct(fields) => {
            let map: serde_json::Map<String, serde_json::Value> =
                fields.into_iter().map(|(k, v)| (k, to_json(v))).collect();
            serde_json::json!({ "M": map })
        }
    }
}

/// The attributes of a struct, as an item in DynamoDB JSON.
pub fn struct_item(value: Value) -> Result<ItemJson, Error> {
    let Value::Struct(fields) = value else {
        return Err("expected a struct".into());
    };
    fields
        .into_iter()
        .map(|(name, v)| {
            serde_json::from_value::<AttributeValueJson>(to_json(v))
                .map(|v| (name, v))
                .map_err(|e| e.to_string())
        })
        .collect()
}

/// The `Item` field of a line's top-level struct.
pub fn item_of_line(line: &str) -> Result<Option<ItemJson>, Error> {
    let mut reader = Reader::new(line);
    let Some(value) = reader.next_value()? else {
        return Ok(None);
    };
    if reader.next_value()?.is_some() {
        return Err("more than one value on a line".into());
    }
    let Value::Struct(fields) = value else {
        return Err("a line that is not a struct".into());
    };
    let item = fields
        .into_iter()
        .find(|(name, _)| name == "Item")
        .ok_or_else(|| "a struct without an Item field".to_owned())?;
    struct_item(item.1).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_developer_guides_example() {
        let line = r#"$ion_1_0 {Item:{Authors:$dynamodb_SS::["Author1","Author2"],Dimensions:"8.5 x 11.0 x 1.5",ISBN:"333-3333333333",Id:103.,InPublication:false,PageCount:6d2,Price:2d3,ProductCategory:"Book",Title:"Book 103 Title"}}"#;
        let item = item_of_line(line).expect("parses").expect("an item");
        let item = kura_model::wire::item_from_json(item).expect("valid");
        let json = serde_json::to_value(&item).expect("json");
        assert_eq!(
            json["Authors"],
            serde_json::json!({"SS": ["Author1", "Author2"]})
        );
        assert_eq!(json["Id"], serde_json::json!({"N": "103"}));
        assert_eq!(json["PageCount"], serde_json::json!({"N": "600"}));
        assert_eq!(json["InPublication"], serde_json::json!({"BOOL": false}));
    }

    #[test]
    fn round_trips_what_the_export_writes() {
        let item: kura_model::Item = kura_model::wire::item_from_json(
            serde_json::from_str(
                r#"{"s":{"S":"a \"q\" \n é"},"n":{"N":"-1.25"},"b":{"B":"AAE="},"t":{"BOOL":true},
                    "z":{"NULL":true},"l":{"L":[{"N":"1"},{"S":"x"}]},"m":{"M":{"x y":{"NS":["1","2.5"]},"null":{"BS":["AAE="]}}}}"#,
            )
            .expect("json"),
        )
        .expect("item");
        let line = crate::exports::format::item_line(crate::exports::format::Format::Ion, &item);
        let back = item_of_line(&line).expect("parses").expect("an item");
        assert_eq!(kura_model::wire::item_from_json(back).expect("valid"), item);
    }

    #[test]
    fn refuses_what_has_no_dynamodb_type_without_panicking() {
        for bad in [
            "{Item:{a:2007-01-01T}}",
            "{Item:{a:(x y)}}",
            "{Item:{a:sym}}",
            "{Item:",
            "{Item:{a:\"x}}",
            "[",
            &"[".repeat(200),
        ] {
            assert!(item_of_line(bad).is_err(), "{bad}");
        }
    }
}
