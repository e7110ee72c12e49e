//! Tests of exact numbers: parsing, normalising, ordering, arithmetic, sizes.

use super::strategies::arb_number;
use super::*;
use proptest::prelude::*;

fn n(s: &str) -> Number {
    match Number::parse(s) {
        Ok(n) => n,
        Err(e) => panic!("{s:?} should parse: {e}"),
    }
}

fn err(s: &str) -> NumberError {
    match Number::parse(s) {
        Ok(n) => panic!("{s:?} should not parse, got {n}"),
        Err(e) => e,
    }
}

#[test]
fn normalises_like_dynamodb() {
    // Cases from ScyllaDB's DynamoDB-verified `_NORMALIZATION_CASES` plus the brief's.
    let cases = [
        ("1", "1"),
        ("123", "123"),
        ("-5", "-5"),
        ("0", "0"),
        ("10", "10"),
        ("1000", "1000"),
        ("007", "7"),
        ("001.23", "1.23"),
        ("00", "0"),
        ("+3", "3"),
        ("+0", "0"),
        ("+1.5", "1.5"),
        ("1.0", "1"),
        ("1.00", "1"),
        ("1.10", "1.1"),
        ("100.000", "100"),
        ("0.0", "0"),
        ("0.10", "0.1"),
        ("1e3", "1000"),
        ("1E3", "1000"),
        ("1e+3", "1000"),
        ("1E+3", "1000"),
        ("5e1", "50"),
        ("-3e2", "-300"),
        ("1.5e2", "150"),
        ("1.23e4", "12300"),
        ("1e-3", "0.001"),
        ("5e-1", "0.5"),
        ("123e-2", "1.23"),
        ("1.23e-1", "0.123"),
        ("1.0e3", "1000"),
        ("1.00e2", "100"),
        ("1.0e-1", "0.1"),
        ("-0", "0"),
        ("-0.0", "0"),
        ("0e5", "0"),
        ("0.0e3", "0"),
        ("0e-5", "0"),
        (".5", "0.5"),
        (".123", "0.123"),
        ("-.5", "-0.5"),
        ("1.", "1"),
        ("1e20", "100000000000000000000"),
        ("9.9e10", "99000000000"),
        ("1e-20", "0.00000000000000000001"),
        ("3.14159", "3.14159"),
        ("-273.15", "-273.15"),
        ("0.001", "0.001"),
        ("0001.500", "1.5"),
        ("1e2", "100"),
        ("0e1000", "0"),
        ("0.0e126", "0"),
        ("0e126", "0"),
        ("-0e-131", "0"),
        ("1e0000000000000000000000002", "100"),
    ];
    for (input, expected) in cases {
        assert_eq!(n(input).to_string(), expected, "input {input:?}");
    }
    assert_eq!(n("1e125").to_string(), format!("1{}", "0".repeat(125)));
    assert_eq!(n("1E-130").to_string(), format!("0.{}1", "0".repeat(129)));
    assert_eq!(n("-1E-130").to_string(), format!("-0.{}1", "0".repeat(129)));
}

#[test]
fn rejects_non_numbers_with_dynamodb_message() {
    for s in [
        ".",
        "1e",
        "1e+",
        "e5",
        "NaN",
        "-NaN",
        "Infinity",
        "-Infinity",
        "inf",
        "0x10",
        "dog",
        "-dog",
        " 1",
        "1 ",
        "1 0",
        "--1",
        "+-1",
        "1..2",
        "1.2.3",
        "1e5.5",
        "1e5e5",
        "+",
        "-",
        "-.",
        ".e1",
        "١",
        "1_000",
        "1,5",
        "e",
        "\u{0}",
        "1e2147483648",
        "0e-2147483648",
    ] {
        assert_eq!(
            err(s),
            NumberError::NotANumber(s.to_owned()),
            "input {s:?} should not be a number"
        );
        assert_eq!(
            err(s).to_string(),
            format!("The parameter cannot be converted to a numeric value: {s}")
        );
    }
    assert_eq!(
        err("").to_string(),
        "The parameter cannot be converted to a numeric value"
    );
    // The exponent limit is BigDecimal's ±2147483647, not the magnitude.
    assert_eq!(err("1e2147483647"), NumberError::Overflow);
    assert_eq!(err("1e-2147483647"), NumberError::Underflow);
    assert_eq!(n("0e2147483647"), Number::ZERO);
}

#[test]
fn range_limits() {
    n("1E-130");
    n("-1E-130");
    n("9.9999999999999999999999999999999999999E+125");
    n("-9.9999999999999999999999999999999999999E+125");
    n("1e125");
    n("0.1e126");
    n("10e-131");
    assert_eq!(err("1E-131"), NumberError::Underflow);
    assert_eq!(err("0.9e-130"), NumberError::Underflow);
    assert_eq!(err("-1E-131"), NumberError::Underflow);
    assert_eq!(err("1E126"), NumberError::Overflow);
    assert_eq!(err("11e125"), NumberError::Overflow);
    assert_eq!(err("-1E126"), NumberError::Overflow);
    assert_eq!(err("1.0e100000000"), NumberError::Overflow);
    assert_eq!(
        err("1E126").to_string(),
        "Number overflow. Attempting to store a number with magnitude larger than supported range"
    );
    assert_eq!(
        err("1E-131").to_string(),
        "Number underflow. Attempting to store a number with magnitude smaller than supported range"
    );
}

#[test]
fn precision_limits() {
    let digits38 = "12345678901234567890123456789012345678";
    assert_eq!(n(digits38).significant_digits(), 38);
    assert_eq!(n(digits38).to_string(), digits38);
    assert_eq!(err(&format!("{digits38}9")), NumberError::TooPrecise);
    assert_eq!(
        err(&format!("{digits38}9")).to_string(),
        "Attempting to store more than 38 significant digits in a Number"
    );
    // Trailing and leading zeros are not significant.
    let big = format!("1{}", "0".repeat(38));
    assert_eq!(n(&big).significant_digits(), 1);
    assert_eq!(n(&big).to_string(), big);
    assert_eq!(n(&format!("0.000{digits38}000")).significant_digits(), 38);
    // ScyllaDB's DynamoDB-verified precision cases.
    n("3.1415926535897932384626433832795028841");
    n("314159265358979323846.26433832795028841");
    n("31415926535897932384626433832795028841e30");
    for s in [
        "3.14159265358979323846264338327950288419",
        "314159265358979323846.264338327950288419",
        "314159265358979323846264338327950288419e30",
    ] {
        assert_eq!(err(s), NumberError::TooPrecise, "{s}");
    }
    // Overflow is checked before precision, as dynalite does.
    assert_eq!(err(&format!("{digits38}9e100")), NumberError::Overflow);
}

#[test]
fn equality_and_order_are_by_value() {
    assert_eq!(n("1.0"), n("1"));
    assert_eq!(n("-0"), n("0"));
    assert_eq!(n("1e3"), n("001000.000"));
    assert!(n("-1") < n("0"));
    assert!(n("0") < n("1E-130"));
    assert!(n("-1E-130") < n("0"));
    assert!(n("9") < n("10"));
    assert!(n("-10") < n("-9"));
    assert!(n("1.5") < n("1.55"));
    assert!(n("-1.55") < n("-1.5"));
    assert!(n("99") < n("100"));
    assert!(n("0.0999") < n("0.1"));
    let mut sorted = [n("3"), n("-2.5"), n("0"), n("1e-5"), n("-1e10"), n("2.50")];
    sorted.sort();
    let shown: Vec<String> = sorted.iter().map(ToString::to_string).collect();
    assert_eq!(shown, ["-10000000000", "-2.5", "0", "0.00001", "2.5", "3"]);
    use std::collections::HashSet;
    let set: HashSet<Number> = ["1", "1.0", "1e0", "10e-1", "+1"]
        .iter()
        .map(|s| n(s))
        .collect();
    assert_eq!(set.len(), 1);
}

#[test]
fn addition_is_exact() {
    let add = |a: &str, b: &str| n(a).checked_add(&n(b));
    assert_eq!(add("0.1", "0.2"), Ok(n("0.3")));
    assert_eq!(
        add("1", "10000000000000000000000"),
        Ok(n("10000000000000000000001"))
    );
    assert_eq!(
        n("10000000000000000000000").checked_sub(&n("1")),
        Ok(n("9999999999999999999999"))
    );
    assert_eq!(add("9e125", "9e124"), Ok(n("9.9e125")));
    assert_eq!(add("9e125", "9e125"), Err(NumberError::Overflow));
    assert_eq!(
        n("9e125").checked_sub(&n("-9e125")),
        Err(NumberError::Overflow)
    );
    assert_eq!(add("1e50", "1"), Err(NumberError::Inexact));
    assert_eq!(n("1e50").checked_sub(&n("1")), Err(NumberError::Inexact));
    assert_eq!(
        NumberError::Inexact.to_string(),
        "Number overflow. Attempting to store a number with magnitude larger than supported range"
    );
    assert_eq!(add("1e125", "1e-130"), Err(NumberError::Inexact));
    assert_eq!(add("-5", "5"), Ok(Number::ZERO));
    assert_eq!(add("0", "-5"), Ok(n("-5")));
    assert_eq!(add("1.5", "-0.5"), Ok(n("1")));
    // Carries past the i128 fast path but the result fits in 38 digits.
    let nines = "9".repeat(37);
    assert_eq!(
        add(&format!("{nines}5"), &format!("{nines}5")),
        Ok(n(&format!("1{nines}e1")))
    );
    assert_eq!(
        add("1.8e38", &format!("-9{}1", "0".repeat(36))),
        Ok(n(&format!("8{}", "9".repeat(37))))
    );
    // Cancellation down to a small exact result.
    assert_eq!(
        add("1.0000000000000000000000000000000000001e40", "-1e40"),
        Ok(n("1e3"))
    );
    // Cancellation below the smallest magnitude.
    assert_eq!(
        add("1.0000000000000000000000000000000000001e-130", "-1e-130"),
        Err(NumberError::Underflow)
    );
    // 38 nines plus one rounds nothing: 1e38 is one significant digit.
    assert_eq!(add(&"9".repeat(38), "1"), Ok(n("1e38")));
    assert_eq!(
        add("9.9999999999999999999999999999999999999E+125", "1e88"),
        Err(NumberError::Overflow)
    );
}

#[test]
fn size_follows_dynalite() {
    let size = |s: &str| n(s).size_in_bytes();
    assert_eq!(size("0"), 1);
    assert_eq!(size("1"), 2);
    assert_eq!(size("10"), 2);
    assert_eq!(size("12"), 2);
    assert_eq!(size("120"), 3); // "1|20": misaligned pair
    assert_eq!(size("123"), 3);
    assert_eq!(size("1234"), 3);
    assert_eq!(size("1.2"), 3); // "1.|2"
    assert_eq!(size("0.12"), 2);
    assert_eq!(size("-1"), 3);
    assert_eq!(size("-123"), 4);
    assert_eq!(size(&"9".repeat(38)), 20);
    assert_eq!(size(&format!("9{}", "8".repeat(37))), 20);
    assert_eq!(size(&format!("9.{}", "8".repeat(37))), 21);
    assert_eq!(size("1e-130"), 2);
}

#[test]
fn accessors_and_conversions() {
    assert_eq!(Number::from(-1500i64), n("-1.5e3"));
    assert_eq!(n("-1.5e3").coefficient(), 15);
    assert_eq!(n("-1.5e3").exponent(), 2);
    assert_eq!(n("-1.5e3").scientific_exponent(), Some(3));
    assert_eq!(Number::ZERO.scientific_exponent(), None);
    assert_eq!(n("-1.5e3").to_i64(), Some(-1500));
    assert_eq!(n("1.5").to_i64(), None);
    assert_eq!(n("1e30").to_i64(), None);
    assert_eq!(n("1e30").to_i128(), Some(10i128.pow(30)));
    assert_eq!(Number::from(i64::MIN).to_i64(), Some(i64::MIN));
    assert_eq!(Number::from(u64::MAX).to_string(), u64::MAX.to_string());
    assert_eq!(Number::from_i128(i128::MAX), Err(NumberError::TooPrecise));
    assert_eq!(Number::from_i128(10i128.pow(38)), Ok(n("1e38")));
    assert!(n("-2").is_negative() && !n("-0").is_negative() && n("2").is_positive());
    assert!(n("0.0").is_zero() && n("10").is_integer() && !n("0.5").is_integer());
    assert_eq!(n("-2").negated(), n("2"));
    assert_eq!(Number::ZERO.negated(), Number::ZERO);
    assert_eq!(n("-2").abs(), n("2"));
    assert_eq!(Number::from_parts(true, 0, 99), Ok(Number::ZERO));
    assert_eq!(Number::from_parts(false, 1000, -3), Ok(n("1")));
    assert_eq!(
        Number::from_parts(false, 1, 126),
        Err(NumberError::Overflow)
    );
    assert_eq!(format!("{:?}", n("-1.50")), "Number(-1.5)");
    assert_eq!("2.50".parse::<Number>(), Ok(n("2.5")));
}

/// An independent comparison of plain decimal strings, for checking `Ord`.
fn reference_cmp(a: &str, b: &str) -> Ordering {
    fn parts(s: &str) -> (bool, String, String) {
        let (negative, s) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
        let (int, frac) = s.split_once('.').unwrap_or((s, ""));
        (negative, int.to_owned(), frac.to_owned())
    }
    let (na, ia, fa) = parts(a);
    let (nb, ib, fb) = parts(b);
    let is_zero = |i: &str, f: &str| i == "0" && f.is_empty();
    let sign = |neg: bool, zero: bool| {
        if zero {
            0
        } else if neg {
            -1
        } else {
            1
        }
    };
    let (sa, sb) = (sign(na, is_zero(&ia, &fa)), sign(nb, is_zero(&ib, &fb)));
    if sa != sb || sa == 0 {
        return sa.cmp(&sb);
    }
    let width = fa.len().max(fb.len());
    let magnitude = ia
        .len()
        .cmp(&ib.len())
        .then_with(|| ia.cmp(&ib))
        .then_with(|| format!("{fa:0<width$}").cmp(&format!("{fb:0<width$}")));
    if sa < 0 {
        magnitude.reverse()
    } else {
        magnitude
    }
}

proptest! {
    #[test]
    fn integers_match_i128(a in any::<i64>(), b in any::<i64>()) {
        let (x, y) = (Number::from(a), Number::from(b));
        prop_assert_eq!(x.cmp(&y), a.cmp(&b));
        prop_assert_eq!(x.to_string(), a.to_string());
        prop_assert_eq!(x.to_i64(), Some(a));
        let sum = i128::from(a) + i128::from(b);
        let diff = i128::from(a) - i128::from(b);
        prop_assert_eq!(x.checked_add(&y), Number::from_i128(sum));
        prop_assert_eq!(x.checked_sub(&y), Number::from_i128(diff));
        prop_assert_eq!(x.checked_add(&y).ok().and_then(|s| s.to_i128()), Some(sum));
    }

    #[test]
    fn decimals_add_exactly(a in any::<i64>(), ka in 0i32..12, b in any::<i64>(), kb in 0i32..12) {
        let x = Number::from_parts(a < 0, u128::from(a.unsigned_abs()), -ka).unwrap();
        let y = Number::from_parts(b < 0, u128::from(b.unsigned_abs()), -kb).unwrap();
        let k = ka.max(kb);
        let scale = |v: i64, kv: i32| i128::from(v) * 10i128.pow((k - kv).cast_unsigned());
        let sum = scale(a, ka) + scale(b, kb);
        let expected = Number::from_parts(sum < 0, sum.unsigned_abs(), -k);
        prop_assert_eq!(x.checked_add(&y), expected);
        prop_assert_eq!(x.checked_add(&y), y.checked_add(&x));
    }

    #[test]
    fn order_matches_reference(x in arb_number(), y in arb_number()) {
        prop_assert_eq!(x.cmp(&y), reference_cmp(&x.to_string(), &y.to_string()));
        prop_assert_eq!(x == y, x.cmp(&y) == Ordering::Equal);
    }

    #[test]
    fn add_then_sub_round_trips(x in arb_number(), y in arb_number()) {
        if let Ok(sum) = x.checked_add(&y) {
            prop_assert_eq!(sum.checked_sub(&y), Ok(x.clone()));
            prop_assert_eq!(sum.cmp(&x), y.cmp(&Number::ZERO));
        }
        let diff = x.checked_sub(&x);
        prop_assert_eq!(diff, Ok(Number::ZERO));
    }

    #[test]
    fn display_and_other_spellings_parse_back(x in arb_number(), pad in 0usize..4) {
        prop_assert_eq!(Number::parse(&x.to_string()), Ok(x.clone()));
        let sign = if x.is_negative() { "-" } else { "+" };
        let zeros = "0".repeat(pad);
        let scientific = format!(
            "{sign}{zeros}{}{zeros}E{}",
            x.coefficient(),
            i64::from(x.exponent()) - pad as i64
        );
        prop_assert_eq!(Number::parse(&scientific), Ok(x.clone()));
        let size = x.size_in_bytes();
        let digits = x.significant_digits() as usize;
        prop_assert!(size >= 1 && size <= 2 + digits / 2 + 2);
    }

    #[test]
    fn parse_is_total(s in "[-+0-9.eE]{0,48}") {
        if let Ok(x) = Number::parse(&s) {
            prop_assert_eq!(Number::parse(&x.to_string()), Ok(x));
        }
    }

    #[test]
    fn parse_never_panics(s in "\\PC{0,64}") {
        let _ = Number::parse(&s);
    }

    #[test]
    fn parse_f32_is_parse_then_to_f32(s in "[-+ ]?[0-9]{0,40}(\\.[0-9]{0,20})?([eE][-+]?[0-9]{1,3})? ?") {
        let expected = Number::parse(&s).ok().map(|n| n.to_f32()).filter(|x| x.is_finite());
        let got = Number::parse_f32(&s);
        prop_assert_eq!(got.map(f32::to_bits), expected.map(f32::to_bits), "{}", s);
    }

    #[test]
    fn to_f32_is_the_correctly_rounded_text_conversion(s in "-?[0-9]{1,38}(\\.[0-9]{1,20})?(e-?[0-9]{1,3})?") {
        if let Ok(x) = Number::parse(&s) {
            let expected: f32 = x.to_string().parse().unwrap();
            let got = x.to_f32();
            prop_assert!(got == expected || (got.is_nan() && expected.is_nan()), "{} {} {}", s, got, expected);
        }
    }
}
