//! Order-preserving byte encoding of key attribute values (types S, N and B).
//!
//! For two values of one type, the byte order of their encodings is the order DynamoDB
//! sorts them in: String by UTF-8 bytes, Binary by unsigned bytes, Number by numeric value.
//! Every encoding is self-delimiting, so `encode(pk) ++ encode(sk)` sorts as the pair
//! `(pk, sk)` and decodes back. The type is not encoded: the key schema fixes it.
//!
//! # Format (version 1, persisted in storage keys: never change it in place)
//!
//! - **S and B**: the bytes with each `0x00` written as `0x00 0xFF`, then the terminator
//!   `0x00 0x01` (FoundationDB's tuple layer, with a two-byte terminator so that the byte
//!   after any `0x00` decides the order before the next field starts).
//! - **N**: one sign byte, `0x01` negative, `0x02` zero (nothing follows), `0x03`
//!   positive. Then the exponent of the most significant digit plus 130 (0..=255, one
//!   byte), then the significant digits in pairs, left aligned (an odd count is padded with
//!   a 0), each pair `p` written as `p + 1` (1..=100), then the terminator `0x00`. A
//!   shorter digit string is a prefix of a longer one and its terminator sorts below any
//!   pair, as a shorter decimal fraction sorts below a longer one. For negatives the
//!   exponent byte and each pair byte are bit-inverted and the terminator is `0xFF`, which
//!   reverses the magnitude order. At most 22 bytes (19 pairs).
//!
//! Decoding accepts only canonical encodings (no leading zero digit, no trailing zero
//! pair, range and precision checked), so equal values have equal encodings and
//! `encode(decode(bytes))` gives back the consumed bytes.

use serde::{Deserialize, Serialize};

use crate::number::{MIN_SCIENTIFIC_EXPONENT, Number};
use crate::value::{AttributeValue, ValueType};

/// The types a key attribute may have, named as in `AttributeDefinitions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ScalarType {
    S,
    N,
    B,
}

impl ScalarType {
    /// The descriptor DynamoDB uses: `S`, `N` or `B`.
    pub fn descriptor(self) -> &'static str {
        match self {
            ScalarType::S => "S",
            ScalarType::N => "N",
            ScalarType::B => "B",
        }
    }

    /// The scalar type of a value, `None` for the types a key cannot have.
    pub fn of(value: &AttributeValue) -> Option<ScalarType> {
        match value {
            AttributeValue::S(_) => Some(ScalarType::S),
            AttributeValue::N(_) => Some(ScalarType::N),
            AttributeValue::B(_) => Some(ScalarType::B),
            _ => None,
        }
    }

    /// The corresponding [`ValueType`].
    pub fn value_type(self) -> ValueType {
        match self {
            ScalarType::S => ValueType::S,
            ScalarType::N => ValueType::N,
            ScalarType::B => ValueType::B,
        }
    }

    /// Parses a descriptor (`"S"`, `"N"`, `"B"`).
    pub fn from_descriptor(descriptor: &str) -> Option<ScalarType> {
        match descriptor {
            "S" => Some(ScalarType::S),
            "N" => Some(ScalarType::N),
            "B" => Some(ScalarType::B),
            _ => None,
        }
    }
}

/// Why a value cannot be encoded or bytes cannot be decoded.
///
/// These are internal errors (a caller bug or corrupt storage), not DynamoDB messages:
/// key types are validated against the schema before encoding.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyCodeError {
    #[error("a key value must be of type S, N or B, not {}", .0.descriptor())]
    NotScalar(ValueType),
    #[error("encoded key value is truncated")]
    Truncated,
    #[error("invalid byte 0x{0:02x} after 0x00 in an encoded key value")]
    InvalidEscape(u8),
    #[error("encoded key string is not valid UTF-8")]
    InvalidUtf8,
    #[error("invalid encoded key number")]
    InvalidNumber,
}

const ESCAPE: u8 = 0x00;
const ESCAPED_ZERO: u8 = 0xFF;
const TERMINATOR: u8 = 0x01;

const NUMBER_NEGATIVE: u8 = 0x01;
const NUMBER_ZERO: u8 = 0x02;
const NUMBER_POSITIVE: u8 = 0x03;
const DIGITS_END: u8 = 0x00;
/// Pairs needed for 38 digits.
const MAX_PAIRS: usize = 19;

/// Appends the order-preserving encoding of a key value (S, N or B) to `out`.
///
/// ```
/// use kura_model::{AttributeValue, Number};
/// use kura_model::keycode::{decode_key_value, encode_key_value, ScalarType};
/// let (mut nine, mut ten) = (Vec::new(), Vec::new());
/// encode_key_value(&AttributeValue::N(Number::from(9)), &mut nine).unwrap();
/// encode_key_value(&AttributeValue::N(Number::from(10)), &mut ten).unwrap();
/// assert!(nine < ten);
/// let mut input = &ten[..];
/// let back = decode_key_value(ScalarType::N, &mut input).unwrap();
/// assert_eq!(back, AttributeValue::N(Number::from(10)));
/// assert!(input.is_empty());
/// ```
pub fn encode_key_value(value: &AttributeValue, out: &mut Vec<u8>) -> Result<(), KeyCodeError> {
    match value {
        AttributeValue::S(s) => encode_bytes(s.as_bytes(), out),
        AttributeValue::B(b) => encode_bytes(b, out),
        AttributeValue::N(n) => encode_number(n, out),
        other => return Err(KeyCodeError::NotScalar(other.value_type())),
    }
    Ok(())
}

/// Decodes one value of type `ty` from the front of `input` and advances `input` past it.
/// On error `input` is left unchanged. Total: never panics, whatever the bytes.
pub fn decode_key_value(ty: ScalarType, input: &mut &[u8]) -> Result<AttributeValue, KeyCodeError> {
    let mut rest = *input;
    let value = match ty {
        ScalarType::S => {
            let bytes = decode_bytes(&mut rest)?;
            AttributeValue::S(String::from_utf8(bytes).map_err(|_| KeyCodeError::InvalidUtf8)?)
        }
        ScalarType::B => AttributeValue::B(decode_bytes(&mut rest)?),
        ScalarType::N => AttributeValue::N(decode_number(&mut rest)?),
    };
    *input = rest;
    Ok(value)
}

fn encode_bytes(bytes: &[u8], out: &mut Vec<u8>) {
    out.reserve(bytes.len() + 2);
    for &b in bytes {
        out.push(b);
        if b == ESCAPE {
            out.push(ESCAPED_ZERO);
        }
    }
    out.extend_from_slice(&[ESCAPE, TERMINATOR]);
}

fn decode_bytes(input: &mut &[u8]) -> Result<Vec<u8>, KeyCodeError> {
    let mut out = Vec::new();
    let mut rest = *input;
    loop {
        let zero = rest
            .iter()
            .position(|&b| b == ESCAPE)
            .ok_or(KeyCodeError::Truncated)?;
        let (chunk, after) = rest.split_at_checked(zero).ok_or(KeyCodeError::Truncated)?;
        out.extend_from_slice(chunk);
        match after {
            [ESCAPE, ESCAPED_ZERO, tail @ ..] => {
                out.push(0);
                rest = tail;
            }
            [ESCAPE, TERMINATOR, tail @ ..] => {
                *input = tail;
                return Ok(out);
            }
            [ESCAPE, other, ..] => return Err(KeyCodeError::InvalidEscape(*other)),
            _ => return Err(KeyCodeError::Truncated),
        }
    }
}

fn encode_number(n: &Number, out: &mut Vec<u8>) {
    let Some(scientific) = n.scientific_exponent() else {
        out.push(NUMBER_ZERO);
        return;
    };
    let negative = n.is_negative();
    // Number's invariant keeps the exponent in -130..=125, so the clamp never acts.
    let exponent_byte = (scientific - MIN_SCIENTIFIC_EXPONENT).clamp(0, 255) as u8;
    let (pairs, count) = digit_pairs(n);
    out.push(if negative {
        NUMBER_NEGATIVE
    } else {
        NUMBER_POSITIVE
    });
    out.push(if negative {
        !exponent_byte
    } else {
        exponent_byte
    });
    for &pair in pairs.iter().take(count) {
        let byte = pair + 1;
        out.push(if negative { !byte } else { byte });
    }
    out.push(if negative { !DIGITS_END } else { DIGITS_END });
}

/// The significant digits in pairs, most significant first, padded on the right.
fn digit_pairs(n: &Number) -> ([u8; MAX_PAIRS], usize) {
    let mut c = n.coefficient();
    if n.significant_digits() % 2 == 1 {
        // At most 37 digits here, so this stays below 10^38.
        c *= 10;
    }
    let count = n.significant_digits().div_ceil(2) as usize;
    let mut pairs = [0u8; MAX_PAIRS];
    for slot in pairs.iter_mut().take(count).rev() {
        *slot = (c % 100) as u8;
        c /= 100;
    }
    (pairs, count)
}

fn decode_number(input: &mut &[u8]) -> Result<Number, KeyCodeError> {
    let (&sign, rest) = input.split_first().ok_or(KeyCodeError::Truncated)?;
    let negative = match sign {
        NUMBER_ZERO => {
            *input = rest;
            return Ok(Number::ZERO);
        }
        NUMBER_NEGATIVE => true,
        NUMBER_POSITIVE => false,
        _ => return Err(KeyCodeError::InvalidNumber),
    };
    let invert = |b: u8| if negative { !b } else { b };
    let (&exponent_byte, mut rest) = rest.split_first().ok_or(KeyCodeError::Truncated)?;
    let scientific = i32::from(invert(exponent_byte)) + MIN_SCIENTIFIC_EXPONENT;

    let mut coefficient: u128 = 0;
    let mut pairs = 0usize;
    let mut last_pair = 0u8;
    loop {
        let (&byte, tail) = rest.split_first().ok_or(KeyCodeError::Truncated)?;
        rest = tail;
        let byte = invert(byte);
        if byte == DIGITS_END {
            break;
        }
        let pair = byte - 1;
        // A pair is 0..=99; the first one must not start with a zero digit.
        if pair > 99 || (pairs == 0 && pair < 10) || pairs == MAX_PAIRS {
            return Err(KeyCodeError::InvalidNumber);
        }
        coefficient = coefficient * 100 + u128::from(pair);
        pairs += 1;
        last_pair = pair;
    }
    if pairs == 0 || last_pair == 0 {
        return Err(KeyCodeError::InvalidNumber);
    }
    let mut digits = 2 * pairs;
    if last_pair.is_multiple_of(10) {
        // The padding digit of an odd count.
        coefficient /= 10;
        digits -= 1;
    }
    let digits = i32::try_from(digits).map_err(|_| KeyCodeError::InvalidNumber)?;
    let number = Number::from_parts(negative, coefficient, scientific - digits + 1)
        .map_err(|_| KeyCodeError::InvalidNumber)?;
    *input = rest;
    Ok(number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::number::strategies::arb_number;
    use proptest::prelude::*;
    use std::cmp::Ordering;

    fn enc(value: &AttributeValue) -> Vec<u8> {
        let mut out = Vec::new();
        encode_key_value(value, &mut out).unwrap();
        out
    }

    fn num(s: &str) -> AttributeValue {
        AttributeValue::N(Number::parse(s).unwrap())
    }

    /// DynamoDB's order for two values of one scalar type.
    fn key_cmp(a: &AttributeValue, b: &AttributeValue) -> Ordering {
        match (a, b) {
            (AttributeValue::S(x), AttributeValue::S(y)) => x.as_bytes().cmp(y.as_bytes()),
            (AttributeValue::B(x), AttributeValue::B(y)) => x.cmp(y),
            (AttributeValue::N(x), AttributeValue::N(y)) => x.cmp(y),
            _ => panic!("values of different types"),
        }
    }

    fn arb_key(ty: ScalarType) -> BoxedStrategy<AttributeValue> {
        match ty {
            ScalarType::S => prop_oneof![
                "[a\\x00\\u{7f}\\u{80}\\u{ffff}\\u{10000}-]{0,6}",
                any::<String>(),
            ]
            .prop_map(AttributeValue::S)
            .boxed(),
            ScalarType::B => prop_oneof![
                proptest::collection::vec(
                    prop_oneof![Just(0u8), Just(1), Just(0xFF), Just(0x7F)],
                    0..6
                ),
                proptest::collection::vec(any::<u8>(), 0..24),
            ]
            .prop_map(AttributeValue::B)
            .boxed(),
            ScalarType::N => arb_number().prop_map(AttributeValue::N).boxed(),
        }
    }

    fn arb_type() -> impl Strategy<Value = ScalarType> {
        prop_oneof![
            Just(ScalarType::S),
            Just(ScalarType::N),
            Just(ScalarType::B)
        ]
    }

    fn arb_same_type_pair() -> impl Strategy<Value = (ScalarType, AttributeValue, AttributeValue)> {
        arb_type().prop_flat_map(|ty| (Just(ty), arb_key(ty), arb_key(ty)))
    }

    #[test]
    fn strings_escape_zero_bytes() {
        assert_eq!(enc(&AttributeValue::s("a\0b")), b"a\x00\xFFb\x00\x01");
        assert_eq!(enc(&AttributeValue::s("")), b"\x00\x01");
        assert_eq!(
            enc(&AttributeValue::B(vec![0, 0xFF])),
            b"\x00\xFF\xFF\x00\x01"
        );
        assert!(enc(&AttributeValue::s("a")) < enc(&AttributeValue::s("a\0")));
        assert!(enc(&AttributeValue::s("a\0")) < enc(&AttributeValue::s("a\u{1}")));
    }

    #[test]
    fn number_layout() {
        assert_eq!(enc(&num("0")), [NUMBER_ZERO]);
        assert_eq!(enc(&num("1")), [NUMBER_POSITIVE, 130, 11, 0]);
        assert_eq!(enc(&num("12.5")), [NUMBER_POSITIVE, 131, 13, 51, 0]);
        assert_eq!(enc(&num("-1")), [NUMBER_NEGATIVE, !130, !11, 0xFF]);
        assert_eq!(enc(&num("1e-130")), [NUMBER_POSITIVE, 0, 11, 0]);
        assert_eq!(
            enc(&num("9.9999999999999999999999999999999999999e125")).len(),
            22
        );
        let ordered = [
            "-1e125", "-10", "-9.5", "-9", "-1e-130", "0", "1e-130", "0.5", "1", "1.5", "9", "10",
            "1e125",
        ];
        for pair in ordered.windows(2) {
            assert!(
                enc(&num(pair[0])) < enc(&num(pair[1])),
                "{} < {}",
                pair[0],
                pair[1]
            );
        }
    }

    #[test]
    fn rejects_non_scalars_and_bad_bytes() {
        let mut out = Vec::new();
        assert_eq!(
            encode_key_value(&AttributeValue::Null, &mut out),
            Err(KeyCodeError::NotScalar(ValueType::Null))
        );
        assert!(out.is_empty());
        let cases: &[(ScalarType, &[u8], KeyCodeError)] = &[
            (ScalarType::S, b"abc", KeyCodeError::Truncated),
            (ScalarType::S, b"a\x00", KeyCodeError::Truncated),
            (ScalarType::S, b"a\x00\x02", KeyCodeError::InvalidEscape(2)),
            (
                ScalarType::S,
                b"\xC3\x28\x00\x01",
                KeyCodeError::InvalidUtf8,
            ),
            (ScalarType::N, b"", KeyCodeError::Truncated),
            (ScalarType::N, b"\x04", KeyCodeError::InvalidNumber),
            (ScalarType::N, b"\x03\x82", KeyCodeError::Truncated),
            (ScalarType::N, b"\x03\x82\x00", KeyCodeError::InvalidNumber), // no digits
            (
                ScalarType::N,
                b"\x03\x82\x01\x00",
                KeyCodeError::InvalidNumber,
            ), // leading 0
            (
                ScalarType::N,
                b"\x03\x82\x0B\x01\x00",
                KeyCodeError::InvalidNumber,
            ), // trailing 00
            (
                ScalarType::N,
                b"\x03\x82\x66\x00",
                KeyCodeError::InvalidNumber,
            ), // pair 101
        ];
        for (ty, bytes, expected) in cases {
            let mut input = *bytes;
            assert_eq!(
                decode_key_value(*ty, &mut input).as_ref(),
                Err(expected),
                "{bytes:?}"
            );
            assert_eq!(input, *bytes, "input must be unchanged on error");
        }
        // 20 pairs is more than 38 digits.
        let mut long = vec![NUMBER_POSITIVE, 150];
        long.extend([12u8; 20]);
        long.push(0);
        assert_eq!(
            decode_key_value(ScalarType::N, &mut &long[..]),
            Err(KeyCodeError::InvalidNumber)
        );
    }

    #[test]
    fn scalar_type_names() {
        assert_eq!(ScalarType::of(&num("1")), Some(ScalarType::N));
        assert_eq!(ScalarType::of(&AttributeValue::Bool(true)), None);
        for ty in [ScalarType::S, ScalarType::N, ScalarType::B] {
            assert_eq!(ScalarType::from_descriptor(ty.descriptor()), Some(ty));
            assert_eq!(ty.value_type().descriptor(), ty.descriptor());
            assert_eq!(
                serde_json::to_string(&ty).unwrap(),
                format!("\"{}\"", ty.descriptor())
            );
        }
    }

    type TwoKeys = (
        ScalarType,
        ScalarType,
        AttributeValue,
        AttributeValue,
        AttributeValue,
        AttributeValue,
        bool,
    );

    /// Two (pk, sk) pairs with the same key types; `bool` asks the test to share the pk.
    fn arb_two_keys() -> impl Strategy<Value = TwoKeys> {
        (arb_type(), arb_type()).prop_flat_map(|(h, r)| {
            (
                Just(h),
                Just(r),
                arb_key(h),
                arb_key(r),
                arb_key(h),
                arb_key(r),
                any::<bool>(),
            )
        })
    }

    proptest! {
        #[test]
        fn byte_order_is_value_order((_, a, b) in arb_same_type_pair()) {
            prop_assert_eq!(enc(&a).cmp(&enc(&b)), key_cmp(&a, &b));
        }

        #[test]
        fn pair_order_is_preserved(
            (hash_ty, range_ty, pk1, sk1, pk2, sk2, share_pk) in arb_two_keys(),
        ) {
            let pk2 = if share_pk { pk1.clone() } else { pk2 };
            let encode_pair = |pk: &AttributeValue, sk: &AttributeValue| {
                let mut out = enc(pk);
                out.extend(enc(sk));
                out
            };
            let (e1, e2) = (encode_pair(&pk1, &sk1), encode_pair(&pk2, &sk2));
            let expected = key_cmp(&pk1, &pk2).then_with(|| key_cmp(&sk1, &sk2));
            prop_assert_eq!(e1.cmp(&e2), expected);
            let mut input = &e1[..];
            prop_assert_eq!(decode_key_value(hash_ty, &mut input), Ok(pk1));
            prop_assert_eq!(decode_key_value(range_ty, &mut input), Ok(sk1));
            prop_assert!(input.is_empty());
        }

        #[test]
        fn round_trips((ty, a, _) in arb_same_type_pair(), suffix in proptest::collection::vec(any::<u8>(), 0..4)) {
            let mut bytes = enc(&a);
            let len = bytes.len();
            bytes.extend(&suffix);
            let mut input = &bytes[..];
            prop_assert_eq!(decode_key_value(ty, &mut input), Ok(a));
            prop_assert_eq!(input, &bytes[len..]);
        }

        #[test]
        fn decoding_random_bytes_is_total_and_canonical(
            ty in arb_type(),
            bytes in proptest::collection::vec(
                prop_oneof![any::<u8>(), Just(0u8), Just(1), Just(2), Just(3), Just(0xFF)], 0..40),
        ) {
            let mut input = &bytes[..];
            if let Ok(value) = decode_key_value(ty, &mut input) {
                let consumed = bytes.len() - input.len();
                prop_assert_eq!(&enc(&value)[..], &bytes[..consumed]);
            } else {
                prop_assert_eq!(input, &bytes[..]);
            }
        }
    }
}
