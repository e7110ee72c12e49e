//! Time to live: the TTL index kept with every item write, and the rule for when an item
//! has expired.
//!
//! An item expires when its TTL attribute is a top-level Number of epoch seconds in the
//! past, no more than five years in the past (Developer Guide, "Time to Live"). The TTL
//! index holds one entry per item whose attribute is a Number that can be an epoch time,
//! keyed by expiry time, so the expirer reads only what is due and never scans a table.

pub(crate) mod settings;

use kura_model::{AttributeValue, Item, limits};

use crate::catalog::TableRecord;
use crate::error::Result;
use crate::keys;
use crate::writer::WriteContext;
use kura_store::Space;

/// The expiry time, in epoch seconds, that `item` carries in `attribute`, if any.
pub(crate) fn expiry_of(item: &Item, attribute: &str) -> Option<u64> {
    match item.get(attribute)? {
        AttributeValue::N(n) => n.to_string().split('.').next()?.parse::<u64>().ok(),
        _ => None,
    }
}

/// Whether an item with expiry `expiry_s` is due at `now_ms`: in the past, and not more
/// than five years in the past (older values are ignored, as DynamoDB ignores them).
pub(crate) fn is_due(expiry_s: u64, now_ms: i64) -> bool {
    let now_s = now_ms.div_euclid(1000);
    let Ok(expiry) = i64::try_from(expiry_s) else {
        return false;
    };
    expiry < now_s && expiry >= now_s - limits::TTL_IGNORE_OLDER_THAN_S
}

/// Keeps the TTL index in step with one item change.
pub(crate) fn update_ttl_index(
    w: &mut WriteContext<'_>,
    table: &TableRecord,
    storage_key: &[u8],
    old: Option<&Item>,
    new: Option<&Item>,
) -> Result<()> {
    let Some(attribute) = table.ttl.as_ref().and_then(|t| t.active_attribute()) else {
        return Ok(());
    };
    let old_expiry = old.and_then(|i| expiry_of(i, attribute));
    let new_expiry = new.and_then(|i| expiry_of(i, attribute));
    if old_expiry == new_expiry {
        return Ok(());
    }
    if let Some(e) = old_expiry {
        w.delete(Space::Ttl, keys::ttl_key(table.id, e, storage_key));
    }
    if let Some(e) = new_expiry {
        w.put(
            Space::Ttl,
            keys::ttl_key(table.id, e, storage_key),
            Vec::new(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kura_model::number::Number;

    fn item(value: AttributeValue) -> Item {
        [("exp".to_owned(), value)].into_iter().collect()
    }

    fn n(text: &str) -> AttributeValue {
        AttributeValue::N(Number::parse(text).expect("number"))
    }

    #[test]
    fn expiry_needs_a_top_level_number() {
        assert_eq!(
            expiry_of(&item(n("1700000000")), "exp"),
            Some(1_700_000_000)
        );
        assert_eq!(
            expiry_of(&item(n("1700000000.9")), "exp"),
            Some(1_700_000_000)
        );
        assert_eq!(expiry_of(&item(n("-5")), "exp"), None);
        assert_eq!(expiry_of(&item(n("1e40")), "exp"), None);
        assert_eq!(
            expiry_of(&item(AttributeValue::s("1700000000")), "exp"),
            None
        );
        assert_eq!(expiry_of(&item(n("1")), "other"), None);
    }

    #[test]
    fn due_only_in_the_recent_past() {
        let now_ms = 1_800_000_000_000;
        assert!(is_due(1_799_999_999, now_ms));
        assert!(!is_due(1_800_000_001, now_ms));
        assert!(!is_due(1_800_000_000 - 6 * 365 * 86_400, now_ms));
        assert!(!is_due(u64::MAX, now_ms));
    }
}
