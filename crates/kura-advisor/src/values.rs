//! What the advisor recognises in sampled values: epoch-like numbers, compressed payloads,
//! and date-times written in a form other than ISO 8601 (docs/advisor.md, "Terms").

use kura_model::AttributeValue;

/// An integer of epoch seconds or milliseconds: [1e9, 1e10) or [1e12, 1e13).
pub fn is_epoch_like(value: &AttributeValue) -> bool {
    let AttributeValue::N(n) = value else {
        return false;
    };
    let text = n.to_string();
    if text.contains(['.', 'e', 'E', '-']) {
        return false;
    }
    matches!(text.len(), 10 | 13)
}

/// gzip (`1F 8B 08`) or zstd (`28 B5 2F FD`) bytes.
pub fn is_compressed(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b, 0x08]) || bytes.starts_with(&[0x28, 0xb5, 0x2f, 0xfd])
}

/// A string that is base64 of gzip or zstd bytes.
pub fn is_compressed_base64(text: &str) -> bool {
    text.starts_with("H4sI") || text.starts_with("KLUv/")
}

/// A value written as a date or date-time, but not in the guideline's ISO 8601 form
/// (`YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS[.s]][zone]`). Judged by the format itself: the
/// value is read as date and time parts ([`date_parts`]), and then held to ISO 8601's
/// extended grammar ([`is_iso_8601`]), so a form no list names (`2026-1-5`,
/// `2026-11-26T10:00:00 +0900`, `Mon Nov 26 10:00:00 UTC 2026`) is seen too.
pub fn is_non_iso_datetime(text: &str) -> bool {
    date_parts(text) && !is_iso_8601(text)
}

/// ISO 8601's extended date, or date and time: `YYYY-MM-DD`, then optionally `T`,
/// `HH:MM`, `:SS`, a fraction, and `Z` or an offset (`+09:00`, `+0900`, `+09`).
pub fn is_iso_8601(text: &str) -> bool {
    let b = text.as_bytes();
    let digits = |from: usize, n: usize| {
        b.get(from..from + n)
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
    };
    let number =
        |from: usize, n: usize| text.get(from..from + n).and_then(|t| t.parse::<u32>().ok());
    let date = digits(0, 4)
        && b.get(4) == Some(&b'-')
        && digits(5, 2)
        && b.get(7) == Some(&b'-')
        && digits(8, 2)
        && number(5, 2).is_some_and(|m| (1..=12).contains(&m))
        && number(8, 2).is_some_and(|d| (1..=31).contains(&d));
    if !date {
        return false;
    }
    if b.len() == 10 {
        return true;
    }
    if b.get(10) != Some(&b'T')
        || !digits(11, 2)
        || b.get(13) != Some(&b':')
        || !digits(14, 2)
        || number(11, 2).is_none_or(|h| h > 24)
        || number(14, 2).is_none_or(|m| m > 59)
    {
        return false;
    }
    let mut at = 16;
    if b.get(at) == Some(&b':') {
        if !digits(at + 1, 2) || number(at + 1, 2).is_none_or(|s| s > 60) {
            return false;
        }
        at += 3;
        if matches!(b.get(at), Some(b'.' | b',')) {
            let fraction = b[at + 1..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            if fraction == 0 {
                return false;
            }
            at += 1 + fraction;
        }
    }
    match &b[at..] {
        [] | [b'Z'] => true,
        [b'+' | b'-', rest @ ..] => {
            matches!(
                rest,
                [h1, h2] | [h1, h2, b':', _, _] | [h1, h2, _, _] if h1.is_ascii_digit() && h2.is_ascii_digit()
            ) && rest.iter().all(|c| c.is_ascii_digit() || *c == b':')
        }
        _ => false,
    }
}

/// English month names, as dates are written in words, in full or in three letters.
const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// `word` is a month's name or its first three letters (`Sept` too).
fn is_month(word: &str) -> bool {
    MONTHS
        .iter()
        .any(|m| word == *m || word == &m[..3] || (*m == "september" && word == "sept"))
}

/// `word` is a weekday's name or its first three letters.
fn is_weekday(word: &str) -> bool {
    [
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    ]
    .iter()
    .any(|d| word == *d || word == &d[..3])
}

/// Words a date-time may hold besides months and weekdays: the ISO `T`, AM/PM, zone
/// names, ordinal suffixes.
const DATE_WORDS: &[&str] = &[
    "t", "z", "am", "pm", "utc", "gmt", "jst", "kst", "est", "edt", "cst", "cdt", "pst", "pdt",
    "cet", "cest", "bst", "st", "nd", "rd", "th",
];

/// Whether `text` is made only of date and time parts, with a year, a month and a day
/// among them: digits, month and weekday names, [`DATE_WORDS`], and the separators dates
/// are written with (`-`, `/`, `.`, `:`, `,`, `+`, spaces, 年月日時分秒). A lone run of digits
/// (an id, an epoch) is not a date here.
fn date_parts(text: &str) -> bool {
    if text.len() > 64 {
        return false;
    }
    let mut numbers: Vec<&str> = Vec::new();
    let mut month_named = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let run = |pred: fn(char) -> bool| rest.find(|x: char| !pred(x)).unwrap_or(rest.len());
        if c.is_ascii_digit() {
            let n = run(|x| x.is_ascii_digit());
            numbers.push(&rest[..n]);
            rest = &rest[n..];
        } else if c.is_ascii_alphabetic() {
            let n = run(|x| x.is_ascii_alphabetic());
            let word = rest[..n].to_ascii_lowercase();
            if is_month(&word) {
                month_named = true;
            } else if !is_weekday(&word) && !DATE_WORDS.contains(&word.as_str()) {
                return false;
            }
            rest = &rest[n..];
        } else if "-/.:,+ 年月日時分秒".contains(c) {
            rest = &rest[c.len_utf8()..];
        } else {
            return false;
        }
    }
    if numbers.len() < 2 || numbers.len() > 10 {
        return false;
    }
    // A year of four digits, and a day (and a month, unless it is named) among the
    // numbers beside it.
    let Some(year) = numbers
        .iter()
        .position(|n| n.len() == 4 && n.parse::<u32>().is_ok_and(|y| (1900..=2199).contains(&y)))
    else {
        return false;
    };
    let small: Vec<u32> = numbers
        .iter()
        .enumerate()
        .filter(|(i, n)| *i != year && n.len() <= 2)
        .filter_map(|(_, n)| n.parse().ok())
        .take(2)
        .collect();
    match (month_named, small.as_slice()) {
        (true, [day, ..]) => (1..=31).contains(day),
        (false, [a, b]) => (1..=31).contains(a) && (1..=31).contains(b) && (*a <= 12 || *b <= 12),
        _ => false,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Zone {
    None,
    Utc,
    Offset,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        // The matchers slice strings by position: no input may panic them.
        #[test]
        fn any_text_is_judged_without_panicking(text in any::<String>(), tail in "[0-9/.:年月日 TZ+-]{0,24}") {
            let _ = is_non_iso_datetime(&text);
            let _ = is_non_iso_datetime(&format!("2026{tail}"));
            let _ = is_non_iso_datetime(&format!("Thu, {tail}"));
            let _ = is_compressed_base64(&text);
        }
    }

    #[test]
    fn non_iso_forms_are_recognised_and_iso_is_not() {
        for text in [
            "2026/11/26",
            "2026/1/2 10:00",
            "11/26/2026",
            "2026.11.26",
            "2026-11-26 10:00:00",
            "2026-11-26 10:00:00.123+09:00",
            "2026年11月26日",
            "Thu, 26 Nov 2026 10:00:00 GMT",
            "Nov 26, 2026",
            "26 November 2026",
            "26-Nov-2026",
            "Thursday, November 26, 2026 10:00 AM",
            "26-11-2026",
            "26.11.2026",
            // Forms no list named: the format itself is checked.
            "2026-1-5",
            "2026-11-26T10:00:00 +0900",
            "2026-11-26T10:00:00+9",
            "Mon Nov 26 10:00:00 UTC 2026",
            "November 26th, 2026",
            "2026-11-26T25:00",
            "2026-11-26T10:00:00.Z",
            "2026/11/26 10時00分",
        ] {
            assert!(is_non_iso_datetime(text), "{text}");
        }
        for text in [
            "2026-11-26",
            "2026-11-26T10:00:00Z",
            "2026-11-26T10:00:00.123+09:00",
            "order#2026",
            "",
            "12/ab/2026",
            "may 2026 sale",
            "marketing-2026-12",
            "Nov 2026",
            "ORDER-11-2026",
            "1.5.2026x",
            "2026-11-26T10:00",
            "2026-11-26T10:00:00,5+0900",
            "2026-11-26T10:00:00.123456789-05",
            "20261126",
            "1795698680",
            "03-1234-5678",
            "2026-12",
            "release 2026.1",
        ] {
            assert!(!is_non_iso_datetime(text), "{text}");
        }
    }

    #[test]
    fn epoch_like_numbers_are_whole_seconds_or_milliseconds() {
        let n = |t: &str| AttributeValue::N(kura_model::number::Number::parse(t).expect("n"));
        assert!(is_epoch_like(&n("1795698680")));
        assert!(is_epoch_like(&n("1795698680767")));
        assert!(!is_epoch_like(&n("42")));
        assert!(!is_epoch_like(&n("1795698680.5")));
    }
}
