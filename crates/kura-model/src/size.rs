//! DynamoDB's item-size rules: the size that counts against the 400 KB item limit, the key
//! size limits and capacity units.
//!
//! Sources: the Developer Guide, "DynamoDB item sizes and formats"
//! (<https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html>),
//! and dynalite's `itemSize`/`valSize` (architect/dynalite `db/index.js`), which refines the
//! guide's approximation for numbers and was checked against DynamoDB:
//!
//! - attribute name: its UTF-8 bytes;
//! - S: UTF-8 bytes; B: raw bytes; N: [`Number::size_in_bytes`];
//! - BOOL and NULL: 1 byte;
//! - L and M: 3 bytes, plus 1 byte and the size of each element (for M, each element's
//!   name counts as for a top-level attribute);
//! - SS, NS, BS: the sum of the element sizes (no per-element overhead, as dynalite).
//!
//! dynalite counts names and strings in UTF-16 code units (JavaScript `length`); we follow
//! the guide's UTF-8 bytes, which is what DynamoDB enforces.
//!
//! [`Number::size_in_bytes`]: crate::number::Number::size_in_bytes

use crate::value::{AttributeValue, Item};

/// Bytes of overhead of a List or a Map, whatever its content.
pub const CONTAINER_OVERHEAD: usize = 3;
/// Bytes of overhead per element of a List or a Map.
pub const ELEMENT_OVERHEAD: usize = 1;

/// The size of an item: each attribute's name plus its value.
///
/// ```
/// use kura_model::{AttributeValue, Item, size::item_size};
/// let mut item = Item::new();
/// item.insert("pk".into(), AttributeValue::s("héllo")); // 2 + 6
/// item.insert("ok".into(), AttributeValue::Bool(true)); // 2 + 1
/// assert_eq!(item_size(&item), 11);
/// ```
pub fn item_size(item: &Item) -> usize {
    item.iter()
        .map(|(name, value)| name.len() + value_size(value))
        .sum()
}

/// The size of one value, without its attribute name.
pub fn value_size(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => n.size_in_bytes(),
        AttributeValue::B(b) => b.len(),
        AttributeValue::Bool(_) | AttributeValue::Null => 1,
        AttributeValue::L(list) => {
            CONTAINER_OVERHEAD
                + list
                    .iter()
                    .map(|v| ELEMENT_OVERHEAD + value_size(v))
                    .sum::<usize>()
        }
        AttributeValue::M(map) => {
            CONTAINER_OVERHEAD + map.len() * ELEMENT_OVERHEAD + item_size(map)
        }
        AttributeValue::Ss(set) => set.iter().map(String::len).sum(),
        AttributeValue::Ns(set) => set.iter().map(|n| n.size_in_bytes()).sum(),
        AttributeValue::Bs(set) => set.iter().map(Vec::len).sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::number::Number;

    fn n(s: &str) -> Number {
        Number::parse(s).unwrap()
    }

    fn item(pairs: &[(&str, AttributeValue)]) -> Item {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    #[test]
    fn scalars() {
        assert_eq!(value_size(&AttributeValue::s("abc")), 3);
        assert_eq!(value_size(&AttributeValue::s("日本")), 6);
        assert_eq!(value_size(&AttributeValue::s("😀")), 4);
        assert_eq!(value_size(&AttributeValue::B(vec![0; 10])), 10);
        assert_eq!(value_size(&AttributeValue::Bool(false)), 1);
        assert_eq!(value_size(&AttributeValue::Null), 1);
        assert_eq!(value_size(&AttributeValue::N(n("0"))), 1);
        assert_eq!(value_size(&AttributeValue::N(n("123"))), 3);
        assert_eq!(value_size(&AttributeValue::N(n("-123"))), 4);
    }

    #[test]
    fn containers() {
        assert_eq!(value_size(&AttributeValue::L(vec![])), 3);
        assert_eq!(value_size(&AttributeValue::M(Item::new())), 3);
        // 3 + (1 + 1) + (1 + 2)
        let list = AttributeValue::L(vec![AttributeValue::Null, AttributeValue::s("ab")]);
        assert_eq!(value_size(&list), 8);
        // 3 + (1 + "a" 1 + "xyz" 3) + (1 + "bb" 2 + N 12 → 2)
        let map = AttributeValue::M(item(&[
            ("a", AttributeValue::s("xyz")),
            ("bb", AttributeValue::N(n("12"))),
        ]));
        assert_eq!(value_size(&map), 3 + 5 + 5);
        // Nested: L holding that map: 3 + 1 + 13.
        assert_eq!(value_size(&AttributeValue::L(vec![map])), 17);
    }

    #[test]
    fn sets() {
        let ss = AttributeValue::Ss(vec!["a".into(), "bcd".into()]);
        assert_eq!(value_size(&ss), 4);
        let ns = AttributeValue::Ns(vec![n("1"), n("-1"), n("120")]);
        assert_eq!(value_size(&ns), 2 + 3 + 3);
        let bs = AttributeValue::Bs(vec![vec![1], vec![2, 3]]);
        assert_eq!(value_size(&bs), 3);
    }

    #[test]
    fn items() {
        assert_eq!(item_size(&Item::new()), 0);
        let it = item(&[
            ("pk", AttributeValue::s("user#1")),            // 2 + 6
            ("count", AttributeValue::N(n("42"))),          // 5 + 2
            ("tags", AttributeValue::Ss(vec!["x".into()])), // 4 + 1
            ("ö", AttributeValue::Null),                    // 2 + 1
        ]);
        assert_eq!(item_size(&it), 8 + 7 + 5 + 3);
    }
}
