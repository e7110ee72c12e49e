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

/// A date or date-time in one of the non-ISO forms docs/advisor.md lists for
/// `types.datetime-iso8601`.
pub fn is_non_iso_datetime(text: &str) -> bool {
    // Long: one pattern per non-ISO form the catalogue lists.
    let time = |c: &mut Cursor| {
        let mut t = *c;
        if (t.lit(" ") || t.lit("T")) && t.digits(1, 2) && t.lit(":") && t.digits(2, 2) {
            let mut seconds = t;
            if seconds.lit(":") && seconds.digits(2, 2) {
                t = seconds;
            }
            *c = t;
        }
    };
    let slashes_year_first = {
        let mut c = Cursor(text);
        c.digits(4, 4) && c.lit("/") && c.digits(1, 2) && c.lit("/") && c.digits(1, 2) && {
            time(&mut c);
            c.end()
        }
    };
    let slashes_year_last = {
        let mut c = Cursor(text);
        c.digits(1, 2) && c.lit("/") && c.digits(1, 2) && c.lit("/") && c.digits(4, 4) && {
            time(&mut c);
            c.end()
        }
    };
    let dots = {
        let mut c = Cursor(text);
        c.digits(4, 4) && c.lit(".") && c.digits(1, 2) && c.lit(".") && c.digits(1, 2) && c.end()
    };
    let space_for_t = {
        let mut c = Cursor(text);
        c.digits(4, 4)
            && c.lit("-")
            && c.digits(2, 2)
            && c.lit("-")
            && c.digits(2, 2)
            && c.lit(" ")
            && c.digits(2, 2)
            && c.lit(":")
            && c.digits(2, 2)
            && {
                let mut s = c;
                if s.lit(":") && s.digits(2, 2) {
                    let mut f = s;
                    if f.lit(".") && f.digits(1, 9) {
                        s = f;
                    }
                    c = s;
                }
                let mut z = c;
                if z.lit("Z") {
                    c = z;
                } else {
                    let mut o = c;
                    if (o.lit("+") || o.lit("-")) && o.digits(2, 2) && {
                        o.lit(":");
                        o.digits(2, 2)
                    } {
                        c = o;
                    }
                }
                c.end()
            }
    };
    let japanese = {
        let mut c = Cursor(text);
        c.digits(4, 4)
            && c.lit("年")
            && c.digits(1, 2)
            && c.lit("月")
            && c.digits(1, 2)
            && c.lit("日")
    };
    let rfc1123 = {
        let mut c = Cursor(text);
        ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
            .iter()
            .any(|d| {
                let mut probe = c;
                probe.lit(d)
            })
            && {
                c.0 = &c.0[3..];
                c.lit(", ")
            }
            && c.digits(1, 2)
            && c.lit(" ")
            && c.month()
            && c.lit(" ")
            && c.digits(4, 4)
            && c.lit(" ")
            && c.digits(2, 2)
            && c.lit(":")
            && c.digits(2, 2)
            && c.lit(":")
            && c.digits(2, 2)
            && c.lit(" ")
            && !c.0.is_empty()
    };
    slashes_year_first
        || slashes_year_last
        || dots
        || space_for_t
        || japanese
        || rfc1123
        || worded(text)
        || day_first(text)
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

/// A date with its month in words, in any order: `Nov 26, 2026`, `26 November 2026`,
/// `26-Nov-2026`, `Thursday, November 26, 2026 10:00 AM`. Every token must be a part of a
/// date-time (a year, a day, a month, a weekday, a time, AM/PM or a zone), so text that
/// merely mentions a month is not one.
fn worded(text: &str) -> bool {
    if text.len() > 48 || !text.bytes().any(|b| b.is_ascii_digit()) {
        return false;
    }
    let (mut year, mut month, mut day) = (false, false, false);
    for token in text
        .split([' ', ',', '-', '/', '.'])
        .filter(|t| !t.is_empty())
    {
        let lower = token.to_ascii_lowercase();
        let digits = token.bytes().all(|b| b.is_ascii_digit());
        if digits && token.len() == 4 && !year {
            year = true;
        } else if digits
            && token.len() <= 2
            && !day
            && token.parse::<u8>().is_ok_and(|d| (1..=31).contains(&d))
        {
            day = true;
        } else if !month && is_month(&lower) {
            month = true;
        } else if !(lower.contains(':') && lower.bytes().all(|b| b.is_ascii_digit() || b == b':')
            || ["am", "pm", "gmt", "utc", "jst", "z"].contains(&lower.as_str())
            || ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
                .iter()
                .any(|d| {
                    lower.starts_with(d) && lower.len() <= 9 && lower.ends_with('y') || lower == *d
                }))
        {
            return false;
        }
    }
    year && month && day
}

/// A day-first date with dashes or dots: `26-11-2026`, `26.11.2026`.
fn day_first(text: &str) -> bool {
    [b'-', b'.'].iter().any(|&sep| {
        let parts: Vec<&str> = text.split(sep as char).collect();
        parts.len() == 3
            && parts[0].len() <= 2
            && parts[1].len() <= 2
            && parts[2].len() == 4
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            && parts[0].parse::<u8>().is_ok_and(|d| (1..=31).contains(&d))
            && parts[1].parse::<u8>().is_ok_and(|m| (1..=12).contains(&m))
    })
}

/// A position in a string being matched.
#[derive(Clone, Copy)]
struct Cursor<'a>(&'a str);

impl Cursor<'_> {
    fn lit(&mut self, text: &str) -> bool {
        match self.0.strip_prefix(text) {
            Some(rest) => {
                self.0 = rest;
                true
            }
            None => false,
        }
    }

    /// Between `min` and `max` ASCII digits.
    fn digits(&mut self, min: usize, max: usize) -> bool {
        let n = self
            .0
            .bytes()
            .take(max)
            .take_while(u8::is_ascii_digit)
            .count();
        if n < min {
            return false;
        }
        self.0 = &self.0[n..];
        true
    }

    /// `Jan` ... `Dec` style: an upper-case letter and two lower-case ones.
    fn month(&mut self) -> bool {
        let b = self.0.as_bytes();
        let ok = b.len() >= 3
            && b[0].is_ascii_uppercase()
            && b[1].is_ascii_lowercase()
            && b[2].is_ascii_lowercase();
        if ok {
            self.0 = &self.0[3..];
        }
        ok
    }

    fn end(&self) -> bool {
        self.0.is_empty()
    }
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
