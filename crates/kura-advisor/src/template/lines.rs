//! Where a template declares things: the line of each resource's logical id, and of a
//! property inside a resource, so that a finding points a code-scanning UI at the
//! property that breaks the rule. Read from the text (the JSON form has no lines): a
//! member name is `"NAME":` anywhere (JSON, YAML) or `NAME:` / `'NAME':` at the start of
//! a YAML line.

use std::collections::HashMap;

/// Each member name's lines, read in one pass so that locating every table of a large
/// template costs the text once, not once per table.
pub(super) struct MemberLines<'a> {
    lines: Vec<&'a str>,
    /// The first line (1-based) where each name is a member's name.
    first: HashMap<&'a str, usize>,
}

impl<'a> MemberLines<'a> {
    pub(super) fn of(text: &'a str) -> MemberLines<'a> {
        let lines: Vec<&str> = text.lines().collect();
        let mut first = HashMap::new();
        for (index, line) in lines.iter().enumerate() {
            for name in member_names(line) {
                first.entry(name).or_insert(index + 1);
            }
        }
        MemberLines { lines, first }
    }

    /// The line where `name` is first a member's name (not a `Ref` to it).
    pub(super) fn line_of(&self, name: &str) -> Option<usize> {
        self.first.get(name).copied()
    }

    /// The first line in `from..to` (1-based, `to` excluded) where `name` is a member's
    /// name: a property of the resource declared on those lines.
    pub(super) fn member_between(&self, name: &str, from: usize, to: usize) -> Option<usize> {
        self.scan(from, to, |line| member_names(line).any(|n| n == name))
    }

    /// The first line in `from..to` holding `value` as a whole scalar: `"value"`,
    /// `'value'`, or after `: ` / `- ` in YAML (an index's name, say).
    pub(super) fn value_between(&self, value: &str, from: usize, to: usize) -> Option<usize> {
        let quoted = format!("\"{value}\"");
        let single = format!("'{value}'");
        self.scan(from, to, |line| {
            line.contains(&quoted)
                || line.contains(&single)
                || line
                    .split_once(": ")
                    .map(|(_, v)| v)
                    .or_else(|| line.trim_start().strip_prefix("- "))
                    .is_some_and(|v| v.trim() == value)
        })
    }

    fn scan(&self, from: usize, to: usize, hit: impl Fn(&str) -> bool) -> Option<usize> {
        let to = to.min(self.lines.len() + 1);
        (from.max(1)..to).find(|number| hit(self.lines[number - 1]))
    }
}

/// The member names declared on one line.
fn member_names(line: &str) -> impl Iterator<Item = &str> {
    let key = line.trim_start();
    let key = key.strip_prefix("- ").unwrap_or(key).trim_start();
    let plain = match key.strip_prefix('\'') {
        Some(rest) => rest.split_once('\''),
        None if !key.starts_with('"') => {
            key.split_once(':').map(|(name, _)| (name.trim_end(), ":"))
        }
        None => None,
    }
    .filter(|(_, after)| after.trim_start().starts_with(':'))
    .map(|(name, _)| name);
    plain.into_iter().chain(QuotedMembers { rest: line })
}

/// `"NAME":` on a line. JSON strings hold no line break, so a quote left open ends with
/// its line.
struct QuotedMembers<'a> {
    rest: &'a str,
}

impl<'a> Iterator for QuotedMembers<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        while let Some(open) = self.rest.find('"') {
            let inside = &self.rest[open + 1..];
            let close = closing_quote(inside)?;
            let after = &inside[close + 1..];
            self.rest = after;
            if after.trim_start().starts_with(':') {
                return Some(&inside[..close]);
            }
        }
        None
    }
}

/// The index of the `"` that closes a JSON string starting at `text` (after its opening
/// quote), skipping escaped ones.
fn closing_quote(text: &str) -> Option<usize> {
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return Some(at),
            _ => escaped = false,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every table of a large template is found at its own line, in JSON and in YAML;
    /// the lines are read in one pass (10,000 tables used to cost a scan of the text
    /// each: 34 s).
    #[test]
    fn the_lines_of_many_tables_are_read_in_one_pass() {
        const TABLES: usize = 10_000;
        let table = r#"{"Type": "AWS::DynamoDB::Table", "Properties": {"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}}"#;
        let json_text = format!(
            "{{\"Resources\": {{\n{}\n}}}}",
            (0..TABLES)
                .map(|i| format!("  \"T{i}\": {table}"))
                .collect::<Vec<_>>()
                .join(",\n")
        );
        let lines = MemberLines::of(&json_text);
        for i in [0, 1, 4_999, TABLES - 1] {
            assert_eq!(lines.line_of(&format!("T{i}")), Some(i + 2), "T{i}");
        }
        let yaml_text = format!(
            "Resources:\n{}",
            (0..TABLES)
                .map(|i| format!("  T{i}:\n    Type: AWS::DynamoDB::Table\n"))
                .collect::<String>()
        );
        let lines = MemberLines::of(&yaml_text);
        for i in [0, 1, 4_999, TABLES - 1] {
            assert_eq!(lines.line_of(&format!("T{i}")), Some(2 + 2 * i), "T{i}");
        }
        // A quote left open on a line does not hide the members after it.
        let lines = MemberLines::of("Description: say \"hi\nOrders:\n  \"Key\": 1\n");
        assert_eq!(lines.line_of("Orders"), Some(2));
        assert_eq!(lines.line_of("Key"), Some(3));
        assert_eq!(lines.line_of("hi"), None);
    }

    #[test]
    fn properties_and_values_are_found_inside_their_resource() {
        let text = "\
Resources:
  A:
    Properties:
      BillingMode: PROVISIONED
      GlobalSecondaryIndexes:
        - IndexName: by-status
  B:
    Properties:
      BillingMode: PAY_PER_REQUEST
      GlobalSecondaryIndexes:
        - IndexName: 'by-status'
      'TableName': b
";
        let lines = MemberLines::of(text);
        assert_eq!(lines.member_between("BillingMode", 2, 7), Some(4));
        assert_eq!(lines.member_between("BillingMode", 7, 99), Some(9));
        assert_eq!(lines.member_between("IndexName", 7, 99), Some(11));
        assert_eq!(lines.value_between("by-status", 2, 7), Some(6));
        assert_eq!(lines.value_between("by-status", 7, 99), Some(11));
        assert_eq!(lines.member_between("TableName", 2, 7), None);
        assert_eq!(lines.member_between("TableName", 7, 99), Some(12));
        let json = "{\"A\": {\"Properties\": {\n  \"BillingMode\": \"PROVISIONED\",\n  \"GlobalSecondaryIndexes\": [{\"IndexName\": \"by-status\"}]}}}";
        let lines = MemberLines::of(json);
        assert_eq!(lines.member_between("BillingMode", 1, 9), Some(2));
        assert_eq!(lines.value_between("by-status", 1, 9), Some(3));
    }
}
