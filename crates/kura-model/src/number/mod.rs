//! `Number`: DynamoDB's exact decimal number.
//!
//! A DynamoDB number is a decimal with up to 38 significant digits whose most significant
//! digit has an exponent between -130 and +125 (Developer Guide, "Data types": positive
//! range 1E-130 to 9.9999999999999999999999999999999999999E+125), plus zero and the
//! negatives. Arithmetic is exact; DynamoDB never rounds.
//!
//! # Representation
//!
//! `value = (-1)^negative × coefficient × 10^exponent`, kept canonical: the coefficient has
//! no trailing zero digit and zero is `(false, 0, 0)`. Every value therefore has exactly one
//! representation, so the derived `PartialEq`, `Eq` and `Hash` compare by value ("1.0" ==
//! "1", "-0" == "0"); `Ord` is implemented by hand and is numeric.
//!
//! # Decisions
//!
//! - Accepted text: optional `+`/`-`, ASCII digits with an optional `.` (at least one digit
//!   on either side), optional exponent `e`/`E` with optional sign and at least one digit.
//!   "+3", ".123", "1.", "0001.23", "1e+5" are accepted (ScyllaDB's DynamoDB-verified
//!   `test/alternator/test_number.py::test_invalid_numbers`); "", ".", "1e", "NaN",
//!   "Infinity", hex and any whitespace are rejected.
//! - An exponent literal beyond ±2147483647 is "not a number", as in
//!   `java.math.BigDecimal(String)`, whose error wording DynamoDB's messages echo.
//! - Errors are checked in dynalite's order (`validations/index.js` `checkNum`): overflow,
//!   then underflow, then precision.
//! - Significant digits exclude leading and trailing zeros (Developer Guide, "Item sizes
//!   and formats": "Leading and trailing zeroes are trimmed"; dynalite counts big.js's
//!   trimmed coefficient), so a 39-digit integer ending in zeros is fine.
//! - Zero is accepted with any exponent ("0e1000", "0.0e126"). DynamoDB itself rejects
//!   "0e126" and "0e-131" but accepts "0.0e126"; ScyllaDB calls that a DynamoDB bug and so
//!   do we (`test_number_magnitude_not_allowed_zero`).
//! - An inexact sum or difference is an error, never rounded. DynamoDB reports it with the
//!   *overflow* message (`test_update_expression_plus_imprecise`: "1e50 + 1"), so
//!   [`NumberError::Inexact`] has that text but stays a distinct variant.

use crate::messages;
use std::cmp::Ordering;
use std::fmt::{self, Write as _};
use std::str::FromStr;

/// The most significant digits a number may have.
pub const MAX_SIGNIFICANT_DIGITS: u32 = 38;
/// The largest allowed exponent of a number's most significant digit.
pub const MAX_SCIENTIFIC_EXPONENT: i32 = 125;
/// The smallest allowed exponent of a non-zero number's most significant digit.
pub const MIN_SCIENTIFIC_EXPONENT: i32 = -130;

/// Why a text or an arithmetic result is not a DynamoDB number.
///
/// Every variant is a `ValidationException` on the wire; `Display` is DynamoDB's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NumberError {
    /// The text is not a number; holds the input. Empty input drops the ": input" suffix,
    /// as DynamoDB does (dynalite `checkNum`).
    #[error("{}", not_a_number_message(.0))]
    NotANumber(String),
    #[error("{}", messages::NUMBER_OVERFLOW)]
    Overflow,
    #[error("{}", messages::NUMBER_UNDERFLOW)]
    Underflow,
    #[error("{}", messages::NUMBER_TOO_PRECISE)]
    TooPrecise,
    /// An exact sum or difference needs more than 38 significant digits. DynamoDB words
    /// this as an overflow (see the module documentation).
    #[error("{}", messages::NUMBER_OVERFLOW)]
    Inexact,
}

fn not_a_number_message(input: &str) -> String {
    messages::not_a_number(input)
}

/// An exact DynamoDB number. See the module documentation for its rules.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Number {
    negative: bool,
    coefficient: u128,
    exponent: i32,
}

impl Number {
    /// Zero, the only number that is neither negative nor positive.
    pub const ZERO: Number = Number {
        negative: false,
        coefficient: 0,
        exponent: 0,
    };

    /// Parses DynamoDB's number text. Total: any input gives a number or an error.
    ///
    /// ```
    /// use kura_model::Number;
    /// assert_eq!(Number::parse("0001.500").unwrap().to_string(), "1.5");
    /// assert_eq!(Number::parse("-17e2").unwrap().to_string(), "-1700");
    /// assert!(Number::parse("1E126").is_err());
    /// ```
    pub fn parse(input: &str) -> Result<Number, NumberError> {
        let bad = || NumberError::NotANumber(input.to_owned());
        let bytes = input.as_bytes();
        let (negative, rest) = match bytes {
            [b'-', rest @ ..] => (true, rest),
            [b'+', rest @ ..] => (false, rest),
            _ => (false, bytes),
        };
        let (int_digits, rest) = split_digits(rest);
        let (frac_digits, rest) = match rest {
            [b'.', after @ ..] => split_digits(after),
            _ => (&[][..], rest),
        };
        if int_digits.is_empty() && frac_digits.is_empty() {
            return Err(bad());
        }
        let written_exponent = match rest {
            [] => 0,
            [b'e' | b'E', exponent @ ..] => parse_exponent(exponent).ok_or_else(bad)?,
            _ => return Err(bad()),
        };

        let digits = || int_digits.iter().chain(frac_digits);
        let Some(first) = digits().position(|&d| d != b'0') else {
            return Ok(Number::ZERO);
        };
        let total = int_digits.len() + frac_digits.len();
        let trailing = digits().rev().take_while(|&&d| d == b'0').count();
        // `first` indexes a non-zero digit, so it is below `total - trailing`.
        let significant = total.saturating_sub(trailing).saturating_sub(first);

        // Exponent of the first significant digit: the last integer digit has exponent 0.
        let scientific = len_i64(int_digits.len()) - 1 - len_i64(first) + written_exponent;
        if scientific > i64::from(MAX_SCIENTIFIC_EXPONENT) {
            return Err(NumberError::Overflow);
        }
        if scientific < i64::from(MIN_SCIENTIFIC_EXPONENT) {
            return Err(NumberError::Underflow);
        }
        if significant > MAX_SIGNIFICANT_DIGITS as usize {
            return Err(NumberError::TooPrecise);
        }
        // At most 38 digits: fits in a u128 (10^38 < 2^127).
        let coefficient = digits()
            .skip(first)
            .take(significant)
            .fold(0u128, |acc, &d| acc * 10 + u128::from(d.wrapping_sub(b'0')));
        let exponent = scientific - len_i64(significant) + 1;
        Ok(Number {
            negative,
            coefficient,
            exponent: i32::try_from(exponent).map_err(|_| NumberError::Overflow)?,
        })
    }

    /// Builds `(-1)^negative × coefficient × 10^exponent`, normalising it and checking
    /// DynamoDB's range and precision (trailing zeros of `coefficient` do not count).
    pub fn from_parts(
        negative: bool,
        coefficient: u128,
        exponent: i32,
    ) -> Result<Number, NumberError> {
        Self::checked_new(
            negative,
            coefficient,
            i64::from(exponent),
            NumberError::TooPrecise,
        )
    }

    fn checked_new(
        negative: bool,
        mut coefficient: u128,
        mut exponent: i64,
        too_precise: NumberError,
    ) -> Result<Number, NumberError> {
        if coefficient == 0 {
            return Ok(Number::ZERO);
        }
        while coefficient.is_multiple_of(10) {
            coefficient /= 10;
            exponent += 1;
        }
        let digits = digit_count(coefficient);
        let scientific = exponent + i64::from(digits) - 1;
        if scientific > i64::from(MAX_SCIENTIFIC_EXPONENT) {
            return Err(NumberError::Overflow);
        }
        if scientific < i64::from(MIN_SCIENTIFIC_EXPONENT) {
            return Err(NumberError::Underflow);
        }
        if digits > MAX_SIGNIFICANT_DIGITS {
            return Err(too_precise);
        }
        Ok(Number {
            negative,
            coefficient,
            exponent: i32::try_from(exponent).map_err(|_| NumberError::Overflow)?,
        })
    }

    /// Normalises a value known to be within range (integers of at most 38 digits).
    fn from_small_integer(negative: bool, mut coefficient: u128) -> Number {
        if coefficient == 0 {
            return Number::ZERO;
        }
        let mut exponent = 0;
        while coefficient.is_multiple_of(10) {
            coefficient /= 10;
            exponent += 1;
        }
        Number {
            negative,
            coefficient,
            exponent,
        }
    }

    /// Converts an `i128`; fails with [`NumberError::TooPrecise`] past 38 significant digits.
    pub fn from_i128(value: i128) -> Result<Number, NumberError> {
        Self::from_parts(value < 0, value.unsigned_abs(), 0)
    }

    /// Converts an `i64` (always representable).
    pub fn from_i64(value: i64) -> Number {
        Self::from_small_integer(value < 0, u128::from(value.unsigned_abs()))
    }

    /// The value as an `i64`, or `None` if it has a fraction or does not fit.
    pub fn to_i64(&self) -> Option<i64> {
        self.to_i128().and_then(|v| i64::try_from(v).ok())
    }

    /// The value as an `i128`, or `None` if it has a fraction or does not fit.
    pub fn to_i128(&self) -> Option<i128> {
        let shift = u32::try_from(self.exponent).ok()?;
        let magnitude = i128::try_from(self.coefficient)
            .ok()?
            .checked_mul(10i128.checked_pow(shift)?)?;
        Some(if self.negative { -magnitude } else { magnitude })
    }

    /// A DynamoDB number's text as the nearest `f32` (what [`Number::to_f32`] gives of its
    /// parse), or None when it is not a valid number or lies beyond f32's range: a search
    /// vector's elements arrive as text, and parsing the text once is cheaper than
    /// parsing it into a number and converting that.
    pub fn parse_f32(text: &str) -> Option<f32> {
        let n = Number::parse(text).ok()?;
        let x = if n.is_zero() {
            0.0
        } else {
            // Both conversions round the same exact decimal; the text's own is used when
            // Rust's float syntax accepts it.
            text.parse::<f32>().unwrap_or_else(|_| n.to_f32())
        };
        x.is_finite().then_some(x)
    }

    /// The nearest `f32` (correctly rounded; infinite beyond its range), without
    /// allocating or formatting: vector indexes convert every element of every vector
    /// they read. The digits and exponent are written as `[-]DIGITSeEXP` and parsed.
    pub fn to_f32(&self) -> f32 {
        // A sign, 39 digits, `e` and an exponent of at most 11 characters.
        let mut buffer = [0u8; 64];
        let mut at = 0;
        if self.negative {
            buffer[0] = b'-';
            at = 1;
        }
        at += write_digits(self.coefficient, &mut buffer[at..]);
        buffer[at] = b'e';
        at += 1;
        let exponent = self.exponent;
        if exponent < 0 {
            buffer[at] = b'-';
            at += 1;
        }
        at += write_digits(u128::from(exponent.unsigned_abs()), &mut buffer[at..]);
        std::str::from_utf8(&buffer[..at])
            .ok()
            .and_then(|text| text.parse().ok())
            .unwrap_or(f32::NAN)
    }

    pub fn is_zero(&self) -> bool {
        self.coefficient == 0
    }

    /// True for values below zero (never for zero: "-0" parses to zero).
    pub fn is_negative(&self) -> bool {
        self.negative
    }

    /// True for values above zero.
    pub fn is_positive(&self) -> bool {
        !self.negative && self.coefficient != 0
    }

    /// True if the value has no fractional part.
    pub fn is_integer(&self) -> bool {
        self.exponent >= 0
    }

    /// Significant digits, leading and trailing zeros excluded; 0 for zero.
    pub fn significant_digits(&self) -> u32 {
        digit_count(self.coefficient)
    }

    /// The canonical coefficient: no trailing zero digit, 0 only for zero.
    pub fn coefficient(&self) -> u128 {
        self.coefficient
    }

    /// The canonical exponent: the value is `±coefficient × 10^exponent`; 0 for zero.
    pub fn exponent(&self) -> i32 {
        self.exponent
    }

    /// The exponent of the most significant digit (big.js's `e`), in -130..=125; `None`
    /// for zero.
    pub fn scientific_exponent(&self) -> Option<i32> {
        if self.is_zero() {
            return None;
        }
        // Digits ≤ 38, so the sum stays far inside i32.
        Some(self.exponent + self.significant_digits().cast_signed() - 1)
    }

    /// The number with its sign flipped (zero stays zero).
    pub fn negated(&self) -> Number {
        Number {
            negative: !self.negative && self.coefficient != 0,
            ..self.clone()
        }
    }

    /// The absolute value.
    pub fn abs(&self) -> Number {
        Number {
            negative: false,
            ..self.clone()
        }
    }

    /// The exact sum. Fails if it is out of range or needs more than 38 significant digits
    /// (DynamoDB does not round, see [`NumberError::Inexact`]).
    ///
    /// ```
    /// use kura_model::Number;
    /// let sum = Number::parse("0.1").unwrap().checked_add(&Number::parse("0.2").unwrap());
    /// assert_eq!(sum, Number::parse("0.3"));
    /// ```
    pub fn checked_add(&self, other: &Number) -> Result<Number, NumberError> {
        if self.is_zero() {
            return Ok(other.clone());
        }
        if other.is_zero() {
            return Ok(self.clone());
        }
        let min_exponent = self.exponent.min(other.exponent);
        if let Some(result) = self.add_narrow(other, min_exponent) {
            return result;
        }
        self.add_wide(other, min_exponent)
    }

    /// The exact difference `self - other`; errors as [`Number::checked_add`].
    pub fn checked_sub(&self, other: &Number) -> Result<Number, NumberError> {
        self.checked_add(&other.negated())
    }

    /// Size under DynamoDB's item-size rule, without the attribute name.
    ///
    /// Follows dynalite's `valSize` for `N` (architect/dynalite `db/index.js`): zero takes
    /// 1 byte; otherwise 1 exponent byte, one byte per base-100 digit when digits are paired
    /// around the decimal point (`ceil(n/2)`, one more when `n` and the scientific exponent
    /// are both even), and 1 terminator byte for negatives. The Developer Guide ("Item
    /// sizes and formats") gives the approximation "1 byte per two significant digits + 1".
    pub fn size_in_bytes(&self) -> usize {
        let Some(scientific) = self.scientific_exponent() else {
            return 1;
        };
        let digits = self.significant_digits();
        let misaligned = digits.is_multiple_of(2) && scientific % 2 == 0;
        let pairs = digits.div_ceil(2) + u32::from(misaligned);
        1 + pairs as usize + usize::from(self.negative)
    }

    fn signum(&self) -> i8 {
        match (self.negative, self.coefficient) {
            (_, 0) => 0,
            (true, _) => -1,
            (false, _) => 1,
        }
    }

    /// The coefficient scaled to exactly 38 digits (below 10^38), for magnitude comparison.
    fn left_aligned(&self) -> u128 {
        let pad = MAX_SIGNIFICANT_DIGITS.saturating_sub(self.significant_digits());
        self.coefficient.saturating_mul(10u128.saturating_pow(pad))
    }

    fn cmp_magnitude(&self, other: &Number) -> Ordering {
        self.scientific_exponent()
            .cmp(&other.scientific_exponent())
            .then_with(|| self.left_aligned().cmp(&other.left_aligned()))
    }

    /// The sum in `i128` when both aligned operands and the sum fit; `None` otherwise.
    fn add_narrow(&self, other: &Number, min_exponent: i32) -> Option<Result<Number, NumberError>> {
        let a = self.aligned_i128(min_exponent)?;
        let b = other.aligned_i128(min_exponent)?;
        let sum = a.checked_add(b)?;
        Some(Self::checked_new(
            sum < 0,
            sum.unsigned_abs(),
            i64::from(min_exponent),
            NumberError::Inexact,
        ))
    }

    fn aligned_i128(&self, min_exponent: i32) -> Option<i128> {
        let shift = u32::try_from(self.exponent.checked_sub(min_exponent)?).ok()?;
        let magnitude = i128::try_from(self.coefficient)
            .ok()?
            .checked_mul(10i128.checked_pow(shift)?)?;
        Some(if self.negative { -magnitude } else { magnitude })
    }

    /// The sum with decimal digit vectors. Exponents lie in -167..=125, so an aligned
    /// operand has at most 293 digits.
    fn add_wide(&self, other: &Number, min_exponent: i32) -> Result<Number, NumberError> {
        let a = self.digits_le(min_exponent);
        let b = other.digits_le(min_exponent);
        let (negative, magnitude) = if self.negative == other.negative {
            (self.negative, add_digits(&a, &b))
        } else {
            match cmp_digits(&a, &b) {
                Ordering::Equal => return Ok(Number::ZERO),
                Ordering::Greater => (self.negative, sub_digits(&a, &b)),
                Ordering::Less => (other.negative, sub_digits(&b, &a)),
            }
        };
        from_digits_le(negative, &magnitude, min_exponent)
    }

    /// Little-endian decimal digits of the coefficient, shifted to `min_exponent`.
    fn digits_le(&self, min_exponent: i32) -> Vec<u8> {
        let shift = usize::try_from(self.exponent.saturating_sub(min_exponent)).unwrap_or(0);
        let mut digits = vec![0u8; shift];
        let mut c = self.coefficient;
        while c > 0 {
            digits.push((c % 10) as u8);
            c /= 10;
        }
        digits
    }
}

fn split_digits(bytes: &[u8]) -> (&[u8], &[u8]) {
    let n = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    bytes.split_at_checked(n).unwrap_or((bytes, &[]))
}

/// Optional sign and at least one digit; `None` beyond ±i32::MAX (BigDecimal's limit).
fn parse_exponent(bytes: &[u8]) -> Option<i64> {
    let (negative, digits) = match bytes {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, bytes),
    };
    if digits.is_empty() {
        return None;
    }
    let mut value: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        value = value * 10 + i64::from(d - b'0');
        if value > i64::from(i32::MAX) {
            return None;
        }
    }
    Some(if negative { -value } else { value })
}

fn len_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn digit_count(c: u128) -> u32 {
    c.checked_ilog10().map_or(0, |log| log + 1)
}

fn add_digits(a: &[u8], b: &[u8]) -> Vec<u8> {
    let len = a.len().max(b.len());
    let mut out = Vec::with_capacity(len + 1);
    let mut carry = 0u8;
    for i in 0..len {
        let d = a.get(i).copied().unwrap_or(0) + b.get(i).copied().unwrap_or(0) + carry;
        out.push(d % 10);
        carry = d / 10;
    }
    if carry > 0 {
        out.push(carry);
    }
    out
}

/// `a - b` for `a >= b`.
fn sub_digits(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len());
    let mut borrow = 0u8;
    for (i, &da) in a.iter().enumerate() {
        let subtrahend = b.get(i).copied().unwrap_or(0) + borrow;
        if da >= subtrahend {
            out.push(da - subtrahend);
            borrow = 0;
        } else {
            out.push(da + 10 - subtrahend);
            borrow = 1;
        }
    }
    out
}

/// Compares little-endian digit vectors whose top digit is non-zero.
fn cmp_digits(a: &[u8], b: &[u8]) -> Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.iter().rev().cmp(b.iter().rev()))
}

fn from_digits_le(negative: bool, digits: &[u8], exponent: i32) -> Result<Number, NumberError> {
    let low = digits.iter().take_while(|&&d| d == 0).count();
    let high = digits.len() - digits.iter().rev().take_while(|&&d| d == 0).count();
    let significant = digits.get(low..high).unwrap_or(&[]);
    if significant.is_empty() {
        return Ok(Number::ZERO);
    }
    let exponent = i64::from(exponent) + len_i64(low);
    let scientific = exponent + len_i64(significant.len()) - 1;
    if scientific > i64::from(MAX_SCIENTIFIC_EXPONENT) {
        return Err(NumberError::Overflow);
    }
    if scientific < i64::from(MIN_SCIENTIFIC_EXPONENT) {
        return Err(NumberError::Underflow);
    }
    if significant.len() > MAX_SIGNIFICANT_DIGITS as usize {
        return Err(NumberError::Inexact);
    }
    let coefficient = significant
        .iter()
        .rev()
        .fold(0u128, |acc, &d| acc * 10 + u128::from(d));
    Ok(Number {
        negative,
        coefficient,
        exponent: i32::try_from(exponent).map_err(|_| NumberError::Overflow)?,
    })
}

impl Ord for Number {
    fn cmp(&self, other: &Self) -> Ordering {
        let (a, b) = (self.signum(), other.signum());
        if a != b || a == 0 {
            return a.cmp(&b);
        }
        let magnitude = self.cmp_magnitude(other);
        if self.negative {
            magnitude.reverse()
        } else {
            magnitude
        }
    }
}

impl PartialOrd for Number {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Plain decimal notation as DynamoDB returns it: no exponent, no "+", no leading or
/// trailing zeros, "0." before a pure fraction ("1e-3" → "0.001", "1.50" → "1.5").
impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.negative {
            f.write_char('-')?;
        }
        let digits = self.coefficient.to_string();
        let point = len_i64(digits.len()) + i64::from(self.exponent);
        if self.exponent >= 0 {
            f.write_str(&digits)?;
            for _ in 0..self.exponent {
                f.write_char('0')?;
            }
        } else if point > 0 {
            let (int, frac) = digits
                .split_at_checked(usize::try_from(point).unwrap_or(0))
                .unwrap_or((&digits, ""));
            write!(f, "{int}.{frac}")?;
        } else {
            f.write_str("0.")?;
            for _ in 0..point.unsigned_abs() {
                f.write_char('0')?;
            }
            f.write_str(&digits)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Number({self})")
    }
}

impl FromStr for Number {
    type Err = NumberError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Number::parse(s)
    }
}

impl Default for Number {
    fn default() -> Self {
        Number::ZERO
    }
}

impl From<i64> for Number {
    fn from(value: i64) -> Self {
        Number::from_i64(value)
    }
}

impl From<i32> for Number {
    fn from(value: i32) -> Self {
        Number::from_i64(i64::from(value))
    }
}

impl From<u32> for Number {
    fn from(value: u32) -> Self {
        Number::from_i64(i64::from(value))
    }
}

impl From<u64> for Number {
    fn from(value: u64) -> Self {
        Number::from_small_integer(false, u128::from(value))
    }
}

impl From<usize> for Number {
    fn from(value: usize) -> Self {
        // usize is at most 64 bits on every supported target.
        Number::from_small_integer(false, value as u128)
    }
}

#[cfg(test)]
pub(crate) mod strategies {
    use super::Number;
    use proptest::prelude::*;

    /// Numbers across the whole range and precision, plus small values that often tie.
    pub(crate) fn arb_number() -> impl Strategy<Value = Number> {
        prop_oneof![
            any::<i64>().prop_map(Number::from),
            (-30i64..30, -3i32..3).prop_filter_map("in range", |(c, e)| {
                Number::from_parts(c < 0, u128::from(c.unsigned_abs()), e).ok()
            }),
            (any::<bool>(), 1u32..=38, any::<u128>(), -130i32..=125).prop_filter_map(
                "in range",
                |(negative, digits, raw, scientific)| {
                    let coefficient = raw % 10u128.pow(digits);
                    let exponent = scientific - digits.cast_signed() + 1;
                    Number::from_parts(negative, coefficient, exponent).ok()
                }
            ),
        ]
    }
}

/// Writes `value` in decimal at the start of `out` (which holds at least 39 bytes);
/// returns the number of digits.
fn write_digits(mut value: u128, out: &mut [u8]) -> usize {
    let mut digits = [0u8; 39];
    let mut count = 0;
    // Above 64 bits, divide in u128 down to a u64 (u128 division is a slow call).
    while value > u128::from(u64::MAX) {
        digits[count] = b'0' + (value % 10) as u8;
        count += 1;
        value /= 10;
    }
    let mut small = value as u64;
    loop {
        digits[count] = b'0' + (small % 10) as u8;
        count += 1;
        small /= 10;
        if small == 0 {
            break;
        }
    }
    for (slot, digit) in out.iter_mut().zip(digits[..count].iter().rev()) {
        *slot = *digit;
    }
    count
}

#[cfg(test)]
mod tests;
