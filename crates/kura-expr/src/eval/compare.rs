//! DynamoDB's comparison rules: values of different types are never equal nor ordered;
//! strings order by UTF-8 bytes, binaries by unsigned bytes, numbers by value; sets are
//! equal when they hold the same elements in any order.

use std::cmp::Ordering;

use kura_model::AttributeValue;

/// The order of two scalars of the same ordered type (S, N or B); `None` otherwise.
pub fn order(a: &AttributeValue, b: &AttributeValue) -> Option<Ordering> {
    match (a, b) {
        (AttributeValue::S(x), AttributeValue::S(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (AttributeValue::N(x), AttributeValue::N(y)) => Some(x.cmp(y)),
        (AttributeValue::B(x), AttributeValue::B(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

fn same_members<T: PartialEq>(x: &[T], y: &[T]) -> bool {
    // Sets never hold duplicates, so equal length plus inclusion is equality.
    x.len() == y.len() && x.iter().all(|e| y.contains(e))
}

/// Deep equality by DynamoDB's rules.
pub fn equal(a: &AttributeValue, b: &AttributeValue) -> bool {
    match (a, b) {
        (AttributeValue::Ss(x), AttributeValue::Ss(y)) => same_members(x, y),
        (AttributeValue::Ns(x), AttributeValue::Ns(y)) => same_members(x, y),
        (AttributeValue::Bs(x), AttributeValue::Bs(y)) => same_members(x, y),
        (AttributeValue::L(x), AttributeValue::L(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal(p, q))
        }
        (AttributeValue::M(x), AttributeValue::M(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

/// Whether two items hold the same data by DynamoDB's rules (set order does not count).
pub fn items_equal(a: &kura_model::Item, b: &kura_model::Item) -> bool {
    a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| equal(v, w)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kura_model::Number;

    fn n(s: &str) -> AttributeValue {
        AttributeValue::N(Number::parse(s).unwrap())
    }

    #[test]
    fn numbers_compare_by_value() {
        assert_eq!(order(&n("10"), &n("9")), Some(Ordering::Greater));
        assert_eq!(order(&n("-1.5"), &n("-1.25")), Some(Ordering::Less));
        assert!(equal(&n("1.0"), &n("1")));
    }

    #[test]
    fn strings_compare_by_utf8_bytes() {
        // U+FF5E (3 bytes, starts 0xEF) sorts after U+00E9 (2 bytes, starts 0xC3).
        assert_eq!(
            order(&AttributeValue::s("\u{ff5e}"), &AttributeValue::s("é")),
            Some(Ordering::Greater)
        );
        assert_eq!(
            order(&AttributeValue::s("Z"), &AttributeValue::s("a")),
            Some(Ordering::Less)
        );
    }

    #[test]
    fn binaries_compare_unsigned() {
        assert_eq!(
            order(
                &AttributeValue::B(vec![0x80]),
                &AttributeValue::B(vec![0x7f])
            ),
            Some(Ordering::Greater)
        );
    }

    #[test]
    fn different_types_never_compare() {
        assert_eq!(order(&n("1"), &AttributeValue::s("1")), None);
        assert!(!equal(&n("1"), &AttributeValue::s("1")));
        assert_eq!(
            order(&AttributeValue::Bool(true), &AttributeValue::Bool(true)),
            None
        );
    }

    #[test]
    fn sets_are_unordered() {
        let a = AttributeValue::Ss(vec!["x".into(), "y".into()]);
        let b = AttributeValue::Ss(vec!["y".into(), "x".into()]);
        assert!(equal(&a, &b));
        let c = AttributeValue::Ns(vec![Number::from_i64(1), Number::from_i64(2)]);
        let d = AttributeValue::Ns(vec![Number::from_i64(2)]);
        assert!(!equal(&c, &d));
    }
}
