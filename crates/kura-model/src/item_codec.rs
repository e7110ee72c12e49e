//! The versioned binary encoding of an [`Item`] as stored on disk.
//!
//! # Format, version 1
//!
//! ```text
//! item    := version:u8 (= 1) map
//! map     := count:uleb (name:bytes value)*     names in strictly ascending byte order
//! bytes   := len:uleb raw[len]                  names and S are UTF-8
//! value   := 0x01 bytes              S
//!          | 0x02 number             N
//!          | 0x03 bytes              B
//!          | 0x04 | 0x05             BOOL false | true
//!          | 0x06                    NULL
//!          | 0x07 count:uleb value*  L
//!          | 0x08 map                M
//!          | 0x09 count:uleb bytes*  SS
//!          | 0x0A count:uleb number* NS
//!          | 0x0B count:uleb bytes*  BS
//! number  := 0x00                                        zero
//!          | (0x01 | 0x02) coefficient:uleb exponent:zigzag-uleb
//!            positive | negative; value = ±coefficient × 10^exponent, canonical
//!            (coefficient non-zero without trailing zero digit), as in [`Number`]
//! ```
//!
//! `uleb` is unsigned LEB128 in its shortest form. The encoding is canonical: the decoder
//! rejects anything [`encode_item`] would not produce (over-long LEB128, unsorted or
//! duplicate names, non-canonical numbers), so `encode_item(decode_item(b)?) == b`.
//! Numbers are re-validated on decode (range, 38 digits). Set emptiness and duplicates are
//! not checked: the codec stores whatever item it is given.
//!
//! A new format gets a new version byte; the decoder keeps reading every old version, and
//! the golden test below pins version 1.

use std::collections::BTreeMap;

use crate::number::{Number, NumberError};
use crate::value::{AttributeValue, Item};

/// The version byte [`encode_item`] writes first.
pub const ITEM_CODEC_VERSION: u8 = 1;

/// The deepest L/M nesting [`decode_item`] accepts (a top-level L or M is level 1).
/// DynamoDB's limit is 32 ([`crate::limits::MAX_NESTING_DEPTH`]); this leaves room and
/// bounds the decoder's recursion.
pub const MAX_DECODE_DEPTH: usize = 40;

const TAG_S: u8 = 0x01;
const TAG_N: u8 = 0x02;
const TAG_B: u8 = 0x03;
const TAG_FALSE: u8 = 0x04;
const TAG_TRUE: u8 = 0x05;
const TAG_NULL: u8 = 0x06;
const TAG_L: u8 = 0x07;
const TAG_M: u8 = 0x08;
const TAG_SS: u8 = 0x09;
const TAG_NS: u8 = 0x0A;
const TAG_BS: u8 = 0x0B;

const NUMBER_ZERO: u8 = 0x00;
const NUMBER_POSITIVE: u8 = 0x01;
const NUMBER_NEGATIVE: u8 = 0x02;

/// Why stored bytes are not a valid item encoding (corruption or a newer format).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    #[error("unknown item encoding version {0}")]
    UnknownVersion(u8),
    #[error("item encoding is truncated")]
    Truncated,
    #[error("item encoding holds invalid UTF-8")]
    InvalidUtf8,
    #[error("unknown type tag or number sign byte 0x{0:02x} in item encoding")]
    InvalidTag(u8),
    #[error("{0} trailing bytes after the item encoding")]
    TrailingBytes(usize),
    #[error("item encoding nests deeper than {MAX_DECODE_DEPTH} levels")]
    TooDeep,
    #[error("LEB128 integer in item encoding is too large")]
    Overlong,
    #[error("item encoding is not canonical: {0}")]
    NonCanonical(&'static str),
    #[error("invalid number in item encoding: {0}")]
    InvalidNumber(NumberError),
}

/// Encodes an item; the first byte is [`ITEM_CODEC_VERSION`].
///
/// Infallible. An item nested deeper than [`MAX_DECODE_DEPTH`] encodes but does not decode:
/// validate DynamoDB's nesting limit before storing.
///
/// ```
/// use kura_model::{AttributeValue, Item};
/// use kura_model::item_codec::{decode_item, encode_item};
/// let mut item = Item::new();
/// item.insert("pk".into(), AttributeValue::s("a"));
/// let bytes = encode_item(&item);
/// assert_eq!(bytes, [1, 1, 2, b'p', b'k', 1, 1, b'a']);
/// assert_eq!(decode_item(&bytes).unwrap(), item);
/// ```
pub fn encode_item(item: &Item) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    out.push(ITEM_CODEC_VERSION);
    encode_map(item, &mut out);
    out
}

/// Decodes an item written by [`encode_item`]. Total: never panics, recursion is bounded
/// by [`MAX_DECODE_DEPTH`], allocations by the input length.
pub fn decode_item(bytes: &[u8]) -> Result<Item, CodecError> {
    let (&version, rest) = bytes.split_first().ok_or(CodecError::Truncated)?;
    if version != ITEM_CODEC_VERSION {
        return Err(CodecError::UnknownVersion(version));
    }
    let mut reader = Reader { input: rest };
    let item = reader.map(0)?;
    if !reader.input.is_empty() {
        return Err(CodecError::TrailingBytes(reader.input.len()));
    }
    Ok(item)
}

fn encode_map(map: &Item, out: &mut Vec<u8>) {
    write_uleb(map.len() as u128, out);
    for (name, value) in map {
        write_bytes(name.as_bytes(), out);
        encode_value(value, out);
    }
}

fn encode_value(value: &AttributeValue, out: &mut Vec<u8>) {
    match value {
        AttributeValue::S(s) => {
            out.push(TAG_S);
            write_bytes(s.as_bytes(), out);
        }
        AttributeValue::N(n) => {
            out.push(TAG_N);
            write_number(n, out);
        }
        AttributeValue::B(b) => {
            out.push(TAG_B);
            write_bytes(b, out);
        }
        AttributeValue::Bool(b) => out.push(if *b { TAG_TRUE } else { TAG_FALSE }),
        AttributeValue::Null => out.push(TAG_NULL),
        AttributeValue::L(list) => {
            out.push(TAG_L);
            write_uleb(list.len() as u128, out);
            for v in list {
                encode_value(v, out);
            }
        }
        AttributeValue::M(map) => {
            out.push(TAG_M);
            encode_map(map, out);
        }
        AttributeValue::Ss(set) => {
            out.push(TAG_SS);
            write_uleb(set.len() as u128, out);
            for s in set {
                write_bytes(s.as_bytes(), out);
            }
        }
        AttributeValue::Ns(set) => {
            out.push(TAG_NS);
            write_uleb(set.len() as u128, out);
            for n in set {
                write_number(n, out);
            }
        }
        AttributeValue::Bs(set) => {
            out.push(TAG_BS);
            write_uleb(set.len() as u128, out);
            for b in set {
                write_bytes(b, out);
            }
        }
    }
}

fn write_uleb(mut value: u128, out: &mut Vec<u8>) {
    loop {
        let low = (value & 0x7F) as u8;
        value >>= 7;
        if value == 0 {
            out.push(low);
            return;
        }
        out.push(low | 0x80);
    }
}

fn write_bytes(bytes: &[u8], out: &mut Vec<u8>) {
    write_uleb(bytes.len() as u128, out);
    out.extend_from_slice(bytes);
}

fn write_number(n: &Number, out: &mut Vec<u8>) {
    if n.is_zero() {
        out.push(NUMBER_ZERO);
        return;
    }
    out.push(if n.is_negative() {
        NUMBER_NEGATIVE
    } else {
        NUMBER_POSITIVE
    });
    write_uleb(n.coefficient(), out);
    write_uleb(u128::from(zigzag(n.exponent())), out);
}

fn zigzag(v: i32) -> u32 {
    ((v << 1) ^ (v >> 31)).cast_unsigned()
}

fn unzigzag(v: u32) -> i32 {
    (v >> 1).cast_signed() ^ -(v & 1).cast_signed()
}

struct Reader<'a> {
    input: &'a [u8],
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Result<u8, CodecError> {
        let (&b, rest) = self.input.split_first().ok_or(CodecError::Truncated)?;
        self.input = rest;
        Ok(b)
    }

    /// Shortest-form unsigned LEB128 of at most `bits` bits.
    fn uleb(&mut self, bits: u32) -> Result<u128, CodecError> {
        let mut value: u128 = 0;
        let mut shift: u32 = 0;
        loop {
            let byte = self.byte()?;
            let low = u128::from(byte & 0x7F);
            // `shift < bits <= 128` here, so neither shift below overflows.
            if shift + 7 > bits && low >> (bits - shift) != 0 {
                return Err(CodecError::Overlong);
            }
            value |= low << shift;
            if byte & 0x80 == 0 {
                if byte == 0 && shift > 0 {
                    return Err(CodecError::NonCanonical("over-long LEB128"));
                }
                return Ok(value);
            }
            shift += 7;
            if shift >= bits {
                return Err(CodecError::Overlong);
            }
        }
    }

    /// A length or count; an element takes at least one byte, so a count beyond the
    /// remaining input is truncation (and never drives an allocation).
    fn count(&mut self) -> Result<usize, CodecError> {
        let n = usize::try_from(self.uleb(64)?).map_err(|_| CodecError::Truncated)?;
        if n > self.input.len() {
            return Err(CodecError::Truncated);
        }
        Ok(n)
    }

    fn bytes(&mut self) -> Result<&'a [u8], CodecError> {
        let len = self.count()?;
        let (bytes, rest) = self
            .input
            .split_at_checked(len)
            .ok_or(CodecError::Truncated)?;
        self.input = rest;
        Ok(bytes)
    }

    fn string(&mut self) -> Result<String, CodecError> {
        let bytes = self.bytes()?;
        let s = std::str::from_utf8(bytes).map_err(|_| CodecError::InvalidUtf8)?;
        Ok(s.to_owned())
    }

    fn number(&mut self) -> Result<Number, CodecError> {
        let negative = match self.byte()? {
            NUMBER_ZERO => return Ok(Number::ZERO),
            NUMBER_POSITIVE => false,
            NUMBER_NEGATIVE => true,
            other => return Err(CodecError::InvalidTag(other)),
        };
        let coefficient = self.uleb(128)?;
        let zigzagged = u32::try_from(self.uleb(32)?).map_err(|_| CodecError::Overlong)?;
        let exponent = unzigzag(zigzagged);
        let n = Number::from_parts(negative, coefficient, exponent)
            .map_err(CodecError::InvalidNumber)?;
        if n.is_zero() || n.coefficient() != coefficient || n.exponent() != exponent {
            return Err(CodecError::NonCanonical("number"));
        }
        Ok(n)
    }

    /// A map whose values sit at nesting level `level + 1`.
    fn map(&mut self, level: usize) -> Result<Item, CodecError> {
        let count = self.count()?;
        let mut map = BTreeMap::new();
        for _ in 0..count {
            let name = self.string()?;
            if map
                .last_key_value()
                .is_some_and(|(last, _): (&String, _)| name.as_str() <= last.as_str())
            {
                return Err(CodecError::NonCanonical("attribute names out of order"));
            }
            let value = self.value(level + 1)?;
            map.insert(name, value);
        }
        Ok(map)
    }

    /// A value at nesting level `level` (top-level attributes are level 1).
    fn value(&mut self, level: usize) -> Result<AttributeValue, CodecError> {
        let tag = self.byte()?;
        Ok(match tag {
            TAG_S => AttributeValue::S(self.string()?),
            TAG_N => AttributeValue::N(self.number()?),
            TAG_B => AttributeValue::B(self.bytes()?.to_vec()),
            TAG_FALSE => AttributeValue::Bool(false),
            TAG_TRUE => AttributeValue::Bool(true),
            TAG_NULL => AttributeValue::Null,
            TAG_L => {
                if level > MAX_DECODE_DEPTH {
                    return Err(CodecError::TooDeep);
                }
                let count = self.count()?;
                let mut list = Vec::with_capacity(count);
                for _ in 0..count {
                    list.push(self.value(level + 1)?);
                }
                AttributeValue::L(list)
            }
            TAG_M => {
                if level > MAX_DECODE_DEPTH {
                    return Err(CodecError::TooDeep);
                }
                AttributeValue::M(self.map(level)?)
            }
            TAG_SS => {
                let count = self.count()?;
                let mut set = Vec::with_capacity(count);
                for _ in 0..count {
                    set.push(self.string()?);
                }
                AttributeValue::Ss(set)
            }
            TAG_NS => {
                let count = self.count()?;
                let mut set = Vec::with_capacity(count);
                for _ in 0..count {
                    set.push(self.number()?);
                }
                AttributeValue::Ns(set)
            }
            TAG_BS => {
                let count = self.count()?;
                let mut set = Vec::with_capacity(count);
                for _ in 0..count {
                    set.push(self.bytes()?.to_vec());
                }
                AttributeValue::Bs(set)
            }
            other => return Err(CodecError::InvalidTag(other)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::number::strategies::arb_number;
    use proptest::collection::{btree_map, vec};
    use proptest::prelude::*;

    fn n(s: &str) -> Number {
        Number::parse(s).unwrap()
    }

    /// One attribute of each of the ten types.
    fn golden_item() -> Item {
        let mut inner = Item::new();
        inner.insert("k".into(), AttributeValue::Null);
        [
            ("b", AttributeValue::B(vec![0x00, 0xFF])),
            ("bool", AttributeValue::Bool(true)),
            ("bs", AttributeValue::Bs(vec![vec![1], vec![2, 3]])),
            (
                "l",
                AttributeValue::L(vec![AttributeValue::s("x"), AttributeValue::Bool(false)]),
            ),
            ("m", AttributeValue::M(inner)),
            ("n", AttributeValue::N(n("-12.5"))),
            (
                "ns",
                AttributeValue::Ns(vec![n("0"), n("1e-130"), n("300")]),
            ),
            ("null", AttributeValue::Null),
            ("s", AttributeValue::s("é")),
            ("ss", AttributeValue::Ss(vec!["a".into(), "bc".into()])),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
    }

    /// Version 1 bytes of [`golden_item`]. Never edit: old data on disk looks like this.
    const GOLDEN_V1: &[u8] = &[
        0x01, // version
        0x0A, // 10 attributes
        0x01,
        b'b',
        TAG_B,
        0x02,
        0x00,
        0xFF, //
        0x04,
        b'b',
        b'o',
        b'o',
        b'l',
        TAG_TRUE, //
        0x02,
        b'b',
        b's',
        TAG_BS,
        0x02,
        0x01,
        0x01,
        0x02,
        0x02,
        0x03, //
        0x01,
        b'l',
        TAG_L,
        0x02,
        TAG_S,
        0x01,
        b'x',
        TAG_FALSE, //
        0x01,
        b'm',
        TAG_M,
        0x01,
        0x01,
        b'k',
        TAG_NULL, //
        0x01,
        b'n',
        TAG_N,
        NUMBER_NEGATIVE,
        0x7D,
        0x01, // -125e-1
        0x02,
        b'n',
        b's',
        TAG_NS,
        0x03,        //
        NUMBER_ZERO, //
        NUMBER_POSITIVE,
        0x01,
        0x83,
        0x02, // 1e-130: zigzag(-130) = 259
        NUMBER_POSITIVE,
        0x03,
        0x04, // 3e2
        0x04,
        b'n',
        b'u',
        b'l',
        b'l',
        TAG_NULL, //
        0x01,
        b's',
        TAG_S,
        0x02,
        0xC3,
        0xA9, //
        0x02,
        b's',
        b's',
        TAG_SS,
        0x02,
        0x01,
        b'a',
        0x02,
        b'b',
        b'c',
    ];

    #[test]
    fn golden_version_1() {
        assert_eq!(encode_item(&golden_item()), GOLDEN_V1);
        assert_eq!(decode_item(GOLDEN_V1), Ok(golden_item()));
    }

    #[test]
    fn every_truncation_fails() {
        for len in 0..GOLDEN_V1.len() {
            assert!(
                decode_item(&GOLDEN_V1[..len]).is_err(),
                "prefix of {len} bytes"
            );
        }
    }

    #[test]
    fn rejects_corruption() {
        let with = |prefix: &[u8]| [&[ITEM_CODEC_VERSION], prefix].concat();
        assert_eq!(decode_item(&[]), Err(CodecError::Truncated));
        assert_eq!(decode_item(&[2, 0]), Err(CodecError::UnknownVersion(2)));
        assert_eq!(decode_item(&with(&[0])), Ok(Item::new()));
        assert_eq!(
            decode_item(&with(&[0, 0])),
            Err(CodecError::TrailingBytes(1))
        );
        assert_eq!(
            decode_item(&with(&[1, 1, b'a', 0x0C])),
            Err(CodecError::InvalidTag(0x0C))
        );
        assert_eq!(
            decode_item(&with(&[1, 1, b'a', TAG_S, 1, 0xFF])),
            Err(CodecError::InvalidUtf8)
        );
        assert_eq!(
            decode_item(&with(&[1, 1, 0xC3, TAG_NULL])),
            Err(CodecError::InvalidUtf8)
        );
        // Names must ascend strictly: duplicates and disorder are corruption.
        let dup = with(&[2, 1, b'a', TAG_NULL, 1, b'a', TAG_NULL]);
        assert!(matches!(
            decode_item(&dup),
            Err(CodecError::NonCanonical(_))
        ));
        let disorder = with(&[2, 1, b'b', TAG_NULL, 1, b'a', TAG_NULL]);
        assert!(matches!(
            decode_item(&disorder),
            Err(CodecError::NonCanonical(_))
        ));
        // Over-long and oversized LEB128.
        assert!(matches!(
            decode_item(&with(&[0x80, 0x00])),
            Err(CodecError::NonCanonical(_))
        ));
        let huge = with(&[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]);
        assert_eq!(decode_item(&huge), Err(CodecError::Overlong));
        assert_eq!(
            decode_item(&with(&[0xFF, 0x7F])),
            Err(CodecError::Truncated)
        );
        // Numbers: bad sign byte, trailing zero, negative zero, out of range, too precise.
        let number = |bytes: &[u8]| decode_item(&with(&[&[1, 1, b'n', TAG_N], bytes].concat()));
        assert_eq!(number(&[0x03]), Err(CodecError::InvalidTag(0x03)));
        assert!(matches!(
            number(&[NUMBER_POSITIVE, 10, 0]),
            Err(CodecError::NonCanonical(_))
        ));
        assert!(matches!(
            number(&[NUMBER_NEGATIVE, 0, 0]),
            Err(CodecError::NonCanonical(_))
        ));
        assert_eq!(
            number(&[NUMBER_POSITIVE, 1, 0xFC, 0x01]), // 1e126
            Err(CodecError::InvalidNumber(NumberError::Overflow))
        );
        let mut digits39 = Vec::new();
        write_uleb(10u128.pow(38) + 1, &mut digits39);
        assert_eq!(
            number(&[&[NUMBER_POSITIVE], &digits39[..], &[0]].concat()),
            Err(CodecError::InvalidNumber(NumberError::TooPrecise))
        );
        assert_eq!(
            number(&[NUMBER_POSITIVE, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0x1F]),
            Err(CodecError::Overlong)
        );
    }

    fn nested(levels: usize) -> Item {
        let mut value = AttributeValue::Null;
        for i in 0..levels {
            value = if i % 2 == 0 {
                AttributeValue::L(vec![value])
            } else {
                AttributeValue::M([("x".to_owned(), value)].into_iter().collect())
            };
        }
        [("a".to_owned(), value)].into_iter().collect()
    }

    #[test]
    fn depth_is_limited() {
        let ok = nested(MAX_DECODE_DEPTH);
        assert_eq!(decode_item(&encode_item(&ok)), Ok(ok));
        let too_deep = encode_item(&nested(MAX_DECODE_DEPTH + 1));
        assert_eq!(decode_item(&too_deep), Err(CodecError::TooDeep));
        // A hostile million-level nesting stops at the limit instead of the stack's end.
        let mut hostile = vec![ITEM_CODEC_VERSION, 1, 1, b'a'];
        for _ in 0..1_000_000 {
            hostile.extend([TAG_L, 1]);
        }
        assert_eq!(decode_item(&hostile), Err(CodecError::TooDeep));
    }

    fn arb_value() -> impl Strategy<Value = AttributeValue> {
        let leaf = prop_oneof![
            any::<String>().prop_map(AttributeValue::S),
            arb_number().prop_map(AttributeValue::N),
            vec(any::<u8>(), 0..8).prop_map(AttributeValue::B),
            any::<bool>().prop_map(AttributeValue::Bool),
            Just(AttributeValue::Null),
            vec(any::<String>(), 0..4).prop_map(AttributeValue::Ss),
            vec(arb_number(), 0..4).prop_map(AttributeValue::Ns),
            vec(vec(any::<u8>(), 0..4), 0..4).prop_map(AttributeValue::Bs),
        ];
        leaf.prop_recursive(4, 48, 4, |inner| {
            prop_oneof![
                vec(inner.clone(), 0..4).prop_map(AttributeValue::L),
                btree_map("[a-c]{0,2}|\\PC{0,3}", inner, 0..4).prop_map(AttributeValue::M),
            ]
        })
    }

    fn arb_item() -> impl Strategy<Value = Item> {
        btree_map("[a-d]{1,2}|\\PC{1,4}", arb_value(), 0..6)
    }

    proptest! {
        #[test]
        fn round_trips(item in arb_item()) {
            let bytes = encode_item(&item);
            prop_assert_eq!(bytes.first(), Some(&ITEM_CODEC_VERSION));
            prop_assert_eq!(decode_item(&bytes), Ok(item));
        }

        #[test]
        fn random_bytes_never_panic(body in vec(any::<u8>(), 0..64), versioned in any::<bool>()) {
            let bytes = if versioned { [&[ITEM_CODEC_VERSION][..], &body].concat() } else { body };
            if let Ok(item) = decode_item(&bytes) {
                prop_assert_eq!(encode_item(&item), bytes);
            }
        }

        #[test]
        fn mutated_encodings_are_rejected_or_canonical(
            item in arb_item(),
            at in any::<prop::sample::Index>(),
            byte in any::<u8>(),
            cut in any::<bool>(),
        ) {
            let mut bytes = encode_item(&item);
            let i = at.index(bytes.len());
            if cut {
                bytes.truncate(i);
            } else if let Some(b) = bytes.get_mut(i) {
                *b = byte;
            }
            if let Ok(decoded) = decode_item(&bytes) {
                prop_assert_eq!(encode_item(&decoded), bytes);
            }
        }
    }
}
