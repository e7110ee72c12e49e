//! DynamoDB's request-framework validation: constraint failures are collected (up to ten,
//! as DynamoDB reports them) and returned together as one `ValidationException`.

use crate::error::ModelError;
use crate::limits::{TABLE_NAME_MAX, TABLE_NAME_MIN};
use crate::messages;

const MAX_REPORTED: usize = 10;

/// Collects constraint failures for one request.
#[derive(Debug, Default)]
pub struct Constraints {
    failures: Vec<String>,
}

impl Constraints {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn fail(&mut self, value: Option<&str>, path: &str, constraint: &str) {
        if self.failures.len() < MAX_REPORTED {
            self.failures
                .push(messages::constraint(value, path, constraint));
        }
    }

    /// A failure in the framework's 2026 wording, which quotes no value
    /// ([`messages::constraint_unquoted`]).
    pub fn fail_unquoted(&mut self, path: &str, constraint: &str) {
        if self.failures.len() < MAX_REPORTED {
            self.failures
                .push(messages::constraint_unquoted(path, constraint));
        }
    }

    /// A required member.
    pub fn not_null<T>(&mut self, path: &str, value: Option<&T>) {
        if value.is_none() {
            self.fail(None, path, messages::MUST_NOT_BE_NULL);
        }
    }

    /// A map member's keys that are not table names: one failure per such key, each
    /// quoting the whole map, as DynamoDB reports the keys of BatchGetItem's and
    /// BatchWriteItem's RequestItems.
    pub fn table_name_keys<'a>(
        &mut self,
        path: &str,
        rendered: &str,
        keys: impl IntoIterator<Item = &'a String>,
    ) {
        for key in keys {
            if !is_table_name(key) {
                self.fail(
                    Some(rendered),
                    path,
                    &messages::map_keys(&messages::table_name_key_constraints()),
                );
            }
        }
    }

    /// A map member's values whose lengths are outside `min..=max`: one failure per such
    /// value, each quoting the whole map.
    pub fn value_lengths(
        &mut self,
        path: &str,
        rendered: &str,
        lengths: impl IntoIterator<Item = usize>,
        min: usize,
        max: usize,
    ) {
        for len in lengths {
            if len < min || len > max {
                self.fail(
                    Some(rendered),
                    path,
                    &messages::map_values(&[messages::max_length(max), messages::min_length(min)]),
                );
            }
        }
    }

    /// A table or index name: 3..=255 characters of `[a-zA-Z0-9_.-]`.
    pub fn name(&mut self, path: &str, value: Option<&str>) {
        let Some(name) = value else {
            self.fail(None, path, messages::MUST_NOT_BE_NULL);
            return;
        };
        if !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        {
            self.fail(Some(name), path, messages::NAME_PATTERN);
        }
        let len = name.chars().count();
        if len < TABLE_NAME_MIN {
            self.fail(Some(name), path, &messages::min_length(TABLE_NAME_MIN));
        }
        if len > TABLE_NAME_MAX {
            self.fail(Some(name), path, &messages::max_length(TABLE_NAME_MAX));
        }
    }

    /// The TableName of PutItem and UpdateItem: as [`Constraints::name`], except that an
    /// empty name breaks a minimum length of 1 (the data-plane member accepts table ARNs
    /// too). Source: AWS us-east-1 and eu-west-2 2026-10-09 (UpdateItem, exact) and the
    /// 2026-06 four-region capture (PutItem), paritysuite/dynamodb-conformance
    /// `tests/tier3/validation-ordering/updateItem.test.ts` and
    /// `tests/tier3/error-messages/putItem.test.ts`. Names of 1 or 2 characters keep the
    /// minimum of 3 until a capture shows otherwise.
    pub fn item_table_name(&mut self, path: &str, value: Option<&str>) {
        if value == Some("") {
            self.fail(Some(""), path, &messages::min_length(1));
        } else {
            self.name(path, value);
        }
    }

    /// A member restricted to an enumeration.
    pub fn one_of(&mut self, path: &str, value: Option<&str>, allowed: &[&str]) {
        if let Some(v) = value
            && !allowed.contains(&v)
        {
            self.fail(Some(v), path, &messages::enum_values(allowed));
        }
    }

    /// A number with a lower bound.
    pub fn at_least(&mut self, path: &str, value: Option<i64>, min: i64) {
        if let Some(v) = value
            && v < min
        {
            self.fail(Some(&v.to_string()), path, &messages::min_value(min));
        }
    }

    /// A number with an upper bound.
    pub fn at_most(&mut self, path: &str, value: Option<i64>, max: i64) {
        if let Some(v) = value
            && v > max
        {
            self.fail(Some(&v.to_string()), path, &messages::max_value(max));
        }
    }

    /// A required string member of `min` to `max` characters (ARNs, bucket names).
    pub fn required_text(&mut self, path: &str, value: Option<&str>, min: usize, max: usize) {
        match value {
            None => self.fail(None, path, messages::MUST_NOT_BE_NULL),
            Some(v) => self.length(path, v, v.chars().count(), min, max),
        }
    }

    /// An optional string member of `min` to `max` characters.
    pub fn text(&mut self, path: &str, value: Option<&str>, min: usize, max: usize) {
        if let Some(v) = value {
            self.length(path, v, v.chars().count(), min, max);
        }
    }

    /// A string, list or map length between `min` and `max`.
    pub fn length(&mut self, path: &str, rendered: &str, len: usize, min: usize, max: usize) {
        if len < min {
            self.fail(Some(rendered), path, &messages::min_length(min));
        } else if len > max {
            self.fail(Some(rendered), path, &messages::max_length(max));
        }
    }

    pub fn finish(self) -> Result<(), ModelError> {
        if self.failures.is_empty() {
            Ok(())
        } else {
            Err(ModelError::Validation(messages::constraint_summary(
                &self.failures,
            )))
        }
    }
}

/// Whether `name` is a table name: 3..=255 characters of `[a-zA-Z0-9_.-]`.
pub fn is_table_name(name: &str) -> bool {
    (TABLE_NAME_MIN..=TABLE_NAME_MAX).contains(&name.chars().count())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_failure_reads_like_dynamodb() {
        let mut c = Constraints::new();
        c.name("tableName", Some("a b"));
        assert_eq!(
            c.finish(),
            Err(ModelError::Validation(
                "1 validation error detected: Value 'a b' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+".into()
            ))
        );
    }

    #[test]
    fn failures_are_joined_and_counted() {
        let mut c = Constraints::new();
        c.not_null::<String>("tableName", None);
        c.one_of(
            "billingMode",
            Some("FREE"),
            &["PROVISIONED", "PAY_PER_REQUEST"],
        );
        let Err(ModelError::Validation(m)) = c.finish() else {
            panic!("expected failure")
        };
        assert!(
            m.starts_with("2 validation errors detected: Value null at 'tableName'"),
            "{m}"
        );
        assert!(m.contains("; Value 'FREE' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]"), "{m}");
    }

    #[test]
    fn names_count_characters() {
        let mut c = Constraints::new();
        c.name("tableName", Some("ab"));
        c.name("tableName", Some(&"a".repeat(256)));
        c.name("tableName", Some("abc"));
        let Err(ModelError::Validation(m)) = c.finish() else {
            panic!("expected failure")
        };
        assert!(m.starts_with("2 validation errors"), "{m}");
    }
}
