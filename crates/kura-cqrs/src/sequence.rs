//! Sequences: atomic counters (`if_not_exists(seq, 0) + 1`) per key, rotated by day,
//! month, year or fiscal year (with a configurable start month) in an explicit time zone,
//! and the seed framework's format mini-language:
//!
//! - `%%name%%` inserts a value as is; `%%name#:0>N%%` pads it on the left with `0` to `N`
//!   characters (any fill character, any width);
//! - names: `no` (the number), `year`, `month`, `day`, `date` (`YYYYMMDD`), `fiscal_year`,
//!   `code1` ... `code5`;
//! - a prefix and a postfix go around the whole.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};
use time::{Date, Month, OffsetDateTime, UtcOffset};

use crate::command::now_timestamp;
use crate::error::{CqrsError, Result};
use crate::keys::{KEY_SEPARATOR, seq_pk};
use crate::names::{SEQ, TYPE};
use crate::rows::key;

/// The widest padding a format field may ask for.
pub const MAX_WIDTH: usize = 64;

/// When a sequence starts again from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RotateBy {
    None,
    Daily,
    Monthly,
    Yearly,
    FiscalYearly,
}

/// How a sequence is counted and shown.
#[derive(Debug, Clone, PartialEq)]
pub struct SequenceSettings {
    pub format: String,
    pub rotate_by: RotateBy,
    /// First month of the fiscal year (1-12).
    pub start_month: u8,
    /// When set, `fiscal_year` counts fiscal years from the one holding this date (its
    /// first is 1); otherwise it is the calendar year the fiscal year starts in.
    pub register_date: Option<Date>,
    /// The time zone dates are taken in (a fixed offset, stated explicitly).
    pub offset: UtcOffset,
    pub prefix: String,
    pub postfix: String,
}

impl Default for SequenceSettings {
    fn default() -> Self {
        SequenceSettings {
            format: "%%no%%".into(),
            rotate_by: RotateBy::None,
            start_month: 4,
            register_date: None,
            offset: UtcOffset::UTC,
            prefix: String::new(),
            postfix: String::new(),
        }
    }
}

/// One number handed out.
#[derive(Debug, Clone, PartialEq)]
pub struct Sequence {
    /// The counter's key: `SEQ#tenant#typeCode#codes...#rotation`.
    pub id: String,
    pub no: i64,
    pub formatted_no: String,
    pub issued_at: String,
}

/// The calendar year the fiscal year holding `date` starts in.
pub fn fiscal_start_year(date: Date, start_month: u8) -> i32 {
    if u8::from(date.month()) >= start_month {
        date.year()
    } else {
        date.year() - 1
    }
}

/// The `fiscal_year` value for `date`.
pub fn fiscal_year(date: Date, settings: &SequenceSettings) -> i32 {
    let year = fiscal_start_year(date, settings.start_month);
    match settings.register_date {
        Some(registered) => year - fiscal_start_year(registered, settings.start_month) + 1,
        None => year,
    }
}

/// The part of the counter key that changes when the sequence rotates.
pub fn rotation(date: Date, settings: &SequenceSettings) -> String {
    match settings.rotate_by {
        RotateBy::None => "none".into(),
        RotateBy::Daily => format!(
            "{:04}{:02}{:02}",
            date.year(),
            u8::from(date.month()),
            date.day()
        ),
        RotateBy::Monthly => format!("{:04}{:02}", date.year(), u8::from(date.month())),
        RotateBy::Yearly => format!("{:04}", date.year()),
        RotateBy::FiscalYearly => format!("FY{}", fiscal_start_year(date, settings.start_month)),
    }
}

/// Renders `settings.format` for number `no` on `date` with codes `codes`.
pub fn format_number(
    settings: &SequenceSettings,
    no: i64,
    date: Date,
    codes: &[String],
) -> Result<String> {
    let mut out = settings.prefix.clone();
    let mut rest = settings.format.as_str();
    while let Some(start) = rest.find("%%") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after.find("%%").ok_or_else(|| {
            CqrsError::InvalidKey(format!("unclosed %% in format {:?}", settings.format))
        })?;
        out.push_str(&render(&after[..end], settings, no, date, codes)?);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out.push_str(&settings.postfix);
    Ok(out)
}

fn render(
    spec: &str,
    settings: &SequenceSettings,
    no: i64,
    date: Date,
    codes: &[String],
) -> Result<String> {
    let bad = || CqrsError::InvalidKey(format!("bad format field %%{spec}%%"));
    let (name, padding) = match spec.split_once("#:") {
        Some((name, padding)) => (name, Some(padding)),
        None => (spec, None),
    };
    let value = match name {
        "no" => no.to_string(),
        "year" => date.year().to_string(),
        "month" => u8::from(date.month()).to_string(),
        "day" => date.day().to_string(),
        "date" => format!(
            "{:04}{:02}{:02}",
            date.year(),
            u8::from(date.month()),
            date.day()
        ),
        "fiscal_year" => fiscal_year(date, settings).to_string(),
        code => {
            let index: usize = code
                .strip_prefix("code")
                .and_then(|n| n.parse().ok())
                .filter(|n| (1..=5).contains(n))
                .ok_or_else(bad)?;
            codes.get(index - 1).cloned().unwrap_or_default()
        }
    };
    let Some(padding) = padding else {
        return Ok(value);
    };
    // `F>N`: fill with F on the left to N characters.
    let mut chars = padding.chars();
    let fill = chars.next().ok_or_else(bad)?;
    if chars.next() != Some('>') {
        return Err(bad());
    }
    // Widths are for number fields; a huge one would only allocate.
    let width: usize = chars
        .as_str()
        .parse()
        .ok()
        .filter(|w| *w <= MAX_WIDTH)
        .ok_or_else(bad)?;
    let len = value.chars().count();
    Ok(std::iter::repeat_n(fill, width.saturating_sub(len))
        .chain(value.chars())
        .collect())
}

/// Hands out sequence numbers from one table.
#[derive(Debug, Clone)]
pub struct SequenceService {
    client: Client,
    table: String,
}

impl SequenceService {
    pub fn new(client: Client, table: impl Into<String>) -> SequenceService {
        SequenceService {
            client,
            table: table.into(),
        }
    }

    /// The next number of `type_code` (and its codes) for `tenant_code` at `at`.
    pub async fn next(
        &self,
        tenant_code: &str,
        type_code: &str,
        codes: &[String],
        settings: &SequenceSettings,
        at: OffsetDateTime,
    ) -> Result<Sequence> {
        if !(1..=12).contains(&settings.start_month) {
            return Err(CqrsError::InvalidKey(format!(
                "start month {} is not 1 to 12",
                settings.start_month
            )));
        }
        let date = at.to_offset(settings.offset).date();
        let mut sk_parts = vec![type_code.to_owned()];
        sk_parts.extend(codes.iter().cloned());
        sk_parts.push(rotation(date, settings));
        let sk = sk_parts.join(KEY_SEPARATOR);
        let pk = seq_pk(Some(tenant_code));
        let updated = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key(&pk, &sk)))
            .update_expression("SET #seq = if_not_exists(#seq, :zero) + :one, #type = :type")
            .expression_attribute_names("#seq", SEQ)
            .expression_attribute_names("#type", TYPE)
            .expression_attribute_values(":zero", AttributeValue::N("0".into()))
            .expression_attribute_values(":one", AttributeValue::N("1".into()))
            .expression_attribute_values(":type", AttributeValue::S("sequence".into()))
            .return_values(ReturnValue::UpdatedNew)
            .send()
            .await
            .map_err(CqrsError::dynamo)?;
        let no = match updated.attributes().and_then(|a| a.get(SEQ)) {
            Some(AttributeValue::N(n)) => n
                .parse()
                .map_err(|_| CqrsError::Malformed(format!("sequence {sk}: {n}")))?,
            other => return Err(CqrsError::Malformed(format!("sequence {sk}: {other:?}"))),
        };
        Ok(Sequence {
            id: format!("{pk}{KEY_SEPARATOR}{sk}"),
            no,
            formatted_no: format_number(settings, no, date, codes)?,
            issued_at: now_timestamp(),
        })
    }
}

/// A calendar date, for settings written by hand.
pub fn date(year: i32, month: u8, day: u8) -> Result<Date> {
    let month = Month::try_from(month).map_err(|e| CqrsError::InvalidKey(e.to_string()))?;
    Date::from_calendar_date(year, month, day).map_err(|e| CqrsError::InvalidKey(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: i32, m: u8, day: u8) -> Date {
        date(y, m, day).expect("date")
    }

    #[test]
    fn the_seed_framework_examples() {
        let monthly = SequenceSettings {
            format: "%%year%%-%%month#:0>2%%-%%no#:0>4%%".into(),
            rotate_by: RotateBy::Monthly,
            prefix: "DOC-".into(),
            ..SequenceSettings::default()
        };
        assert_eq!(
            format_number(&monthly, 1, d(2024, 1, 15), &[]).ok(),
            Some("DOC-2024-01-0001".into())
        );
        let coded = SequenceSettings {
            format: "%%code2#:0>7%%-%%fiscal_year#:0>2%%-%%code3%%%%no#:0>3%%".into(),
            start_month: 3,
            register_date: Some(d(2020, 3, 1)),
            ..SequenceSettings::default()
        };
        let codes = ["A".to_owned(), "42".to_owned(), "X".to_owned()];
        // 2024-03-01 starts the fiscal year 2024, the fifth since 2020.
        assert_eq!(
            format_number(&coded, 5, d(2024, 3, 1), &codes).ok(),
            Some("0000042-05-X005".into())
        );
        assert_eq!(
            format_number(&coded, 5, d(2024, 2, 29), &codes).ok(),
            Some("0000042-04-X005".into())
        );
        assert_eq!(
            format_number(&SequenceSettings::default(), 12, d(2024, 1, 1), &[]).ok(),
            Some("12".into())
        );
    }

    #[test]
    fn widths_fills_and_errors() {
        let s = |format: &str| SequenceSettings {
            format: format.into(),
            ..SequenceSettings::default()
        };
        assert_eq!(
            format_number(&s("%%no#:0>12%%"), 7, d(2024, 1, 1), &[]).ok(),
            Some("000000000007".into())
        );
        assert_eq!(
            format_number(&s("%%no#:*>3%%"), 7, d(2024, 1, 1), &[]).ok(),
            Some("**7".into())
        );
        assert_eq!(
            format_number(&s("%%no#:0>2%%"), 1234, d(2024, 1, 1), &[]).ok(),
            Some("1234".into())
        );
        assert_eq!(
            format_number(&s("%%date%%"), 1, d(2024, 2, 3), &[]).ok(),
            Some("20240203".into())
        );
        assert!(format_number(&s("%%no"), 1, d(2024, 1, 1), &[]).is_err());
        assert!(format_number(&s("%%code6%%"), 1, d(2024, 1, 1), &[]).is_err());
        assert!(format_number(&s("%%no#:0<3%%"), 1, d(2024, 1, 1), &[]).is_err());
        assert!(format_number(&s("%%color%%"), 1, d(2024, 1, 1), &[]).is_err());
        assert!(format_number(&s("%%no#:0>999999999%%"), 1, d(2024, 1, 1), &[]).is_err());
    }

    #[test]
    fn rotation_keys() {
        let fiscal = |start_month| SequenceSettings {
            rotate_by: RotateBy::FiscalYearly,
            start_month,
            ..SequenceSettings::default()
        };
        assert_eq!(rotation(d(2024, 3, 31), &fiscal(4)), "FY2023");
        assert_eq!(rotation(d(2024, 4, 1), &fiscal(4)), "FY2024");
        assert_eq!(rotation(d(2024, 1, 1), &fiscal(1)), "FY2024");
        assert_eq!(rotation(d(2024, 9, 30), &fiscal(10)), "FY2023");
        let by = |rotate_by| SequenceSettings {
            rotate_by,
            ..SequenceSettings::default()
        };
        assert_eq!(rotation(d(2024, 2, 3), &by(RotateBy::Daily)), "20240203");
        assert_eq!(rotation(d(2024, 2, 3), &by(RotateBy::Monthly)), "202402");
        assert_eq!(rotation(d(2024, 2, 3), &by(RotateBy::Yearly)), "2024");
        assert_eq!(rotation(d(2024, 2, 3), &by(RotateBy::None)), "none");
    }
}
