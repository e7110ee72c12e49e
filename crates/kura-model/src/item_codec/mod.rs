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
    let mut reader = Reader::versioned(bytes)?;
    let item = reader.map(0)?;
    reader.finish()?;
    Ok(item)
}

/// Decodes only the top-level attributes `wanted` accepts and walks past the others
/// without building them: a reader that projects most of a large item away (a vector
/// index's answers leave out their vectors) skips the cost of making the rest. The values
/// walked past are checked for their shape (tags, lengths, depth), not for canonical
/// numbers; the item's names are checked for order as [`decode_item`] checks them.
pub fn decode_item_where(
    bytes: &[u8],
    mut wanted: impl FnMut(&str) -> bool,
) -> Result<Item, CodecError> {
    let mut reader = Reader::versioned(bytes)?;
    let item = reader.map_where(0, &mut wanted)?;
    reader.finish()?;
    Ok(item)
}

/// The element count of the top-level attribute `name` when it is a list (L), without
/// decoding it: None when the item has no such attribute or it is of another type.
pub fn top_level_list_len(bytes: &[u8], name: &str) -> Result<Option<usize>, CodecError> {
    let mut reader = Reader::versioned(bytes)?;
    let count = reader.count()?;
    let mut last: Option<&str> = None;
    for _ in 0..count {
        let this = reader.name(last)?;
        last = Some(this);
        if this == name {
            return Ok(match reader.byte()? {
                TAG_L => Some(reader.count()?),
                _ => None,
            });
        }
        if this > name {
            // Names are sorted: it is not in this item.
            return Ok(None);
        }
        reader.skip_value(1)?;
    }
    Ok(None)
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
    /// A reader past the version byte of an item encoding.
    fn versioned(bytes: &'a [u8]) -> Result<Reader<'a>, CodecError> {
        let (&version, rest) = bytes.split_first().ok_or(CodecError::Truncated)?;
        if version != ITEM_CODEC_VERSION {
            return Err(CodecError::UnknownVersion(version));
        }
        Ok(Reader { input: rest })
    }

    fn finish(&self) -> Result<(), CodecError> {
        if self.input.is_empty() {
            Ok(())
        } else {
            Err(CodecError::TrailingBytes(self.input.len()))
        }
    }

    /// An attribute name, borrowed, that must sort after `last`.
    fn name(&mut self, last: Option<&str>) -> Result<&'a str, CodecError> {
        let name = self.str()?;
        if last.is_some_and(|last| name <= last) {
            return Err(CodecError::NonCanonical("attribute names out of order"));
        }
        Ok(name)
    }

    /// Walks past a value at nesting level `level` without building it.
    fn skip_value(&mut self, level: usize) -> Result<(), CodecError> {
        match self.byte()? {
            TAG_S | TAG_B => {
                self.bytes()?;
            }
            TAG_N => self.skip_number()?,
            TAG_FALSE | TAG_TRUE | TAG_NULL => {}
            tag @ (TAG_L | TAG_M) => {
                if level > MAX_DECODE_DEPTH {
                    return Err(CodecError::TooDeep);
                }
                for _ in 0..self.count()? {
                    if tag == TAG_M {
                        self.bytes()?;
                    }
                    self.skip_value(level + 1)?;
                }
            }
            TAG_SS | TAG_BS => {
                for _ in 0..self.count()? {
                    self.bytes()?;
                }
            }
            TAG_NS => {
                for _ in 0..self.count()? {
                    self.skip_number()?;
                }
            }
            other => return Err(CodecError::InvalidTag(other)),
        }
        Ok(())
    }

    /// Walks past a LEB128 integer without reading its value.
    fn skip_uleb(&mut self) -> Result<(), CodecError> {
        let last = self
            .input
            .iter()
            .position(|b| b & 0x80 == 0)
            .ok_or(CodecError::Truncated)?;
        self.input = &self.input[last + 1..];
        Ok(())
    }

    fn skip_number(&mut self) -> Result<(), CodecError> {
        match self.byte()? {
            NUMBER_ZERO => Ok(()),
            NUMBER_POSITIVE | NUMBER_NEGATIVE => {
                self.skip_uleb()?;
                self.skip_uleb()
            }
            other => Err(CodecError::InvalidTag(other)),
        }
    }

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

    fn str(&mut self) -> Result<&'a str, CodecError> {
        std::str::from_utf8(self.bytes()?).map_err(|_| CodecError::InvalidUtf8)
    }

    fn string(&mut self) -> Result<String, CodecError> {
        self.str().map(str::to_owned)
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
        self.map_where(level, &mut |_| true)
    }

    /// [`Reader::map`] that builds only the values whose names `wanted` accepts and walks
    /// past the others.
    fn map_where(
        &mut self,
        level: usize,
        wanted: &mut impl FnMut(&str) -> bool,
    ) -> Result<Item, CodecError> {
        let count = self.count()?;
        let mut map = BTreeMap::new();
        let mut last: Option<&str> = None;
        for _ in 0..count {
            let name = self.name(last)?;
            last = Some(name);
            if wanted(name) {
                map.insert(name.to_owned(), self.value(level + 1)?);
            } else {
                self.skip_value(level + 1)?;
            }
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
mod tests;
