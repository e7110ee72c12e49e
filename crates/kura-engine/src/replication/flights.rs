//! The items of MRSC tables being written, and the region writing each: a write holds its
//! items (or, when they are not known, its whole table) until it is acknowledged, and a
//! write from another region to a held item is a conflict (`strong`).

use std::collections::HashMap;

/// The items of MRSC tables being written, per table, and which region writes them.
#[derive(Default)]
pub(crate) struct Flights {
    tables: HashMap<String, TableFlights>,
}

#[derive(Default)]
struct TableFlights {
    /// A write whose items are not known here (a PartiQL statement) holds the whole table.
    whole: Option<Holder>,
    items: HashMap<Vec<u8>, Holder>,
}

/// The region holding an item, and how many of its writes do.
struct Holder {
    region: String,
    count: usize,
}

impl Holder {
    /// Whether `region` may share this hold: another region's write is a conflict.
    fn admits(&self, region: &str) -> bool {
        self.region == region
    }
}

impl Flights {
    /// Holds `items` (None: the whole table) of `table` for `region`, all or none; false
    /// if another region holds one of them.
    pub(super) fn hold(&mut self, table: &str, region: &str, items: Option<&[Vec<u8>]>) -> bool {
        let held = self.tables.entry(table.to_owned()).or_default();
        if held.whole.as_ref().is_some_and(|h| !h.admits(region)) {
            return false;
        }
        let take = |slot: &mut Option<Holder>| match slot {
            Some(h) => h.count += 1,
            None => {
                *slot = Some(Holder {
                    region: region.to_owned(),
                    count: 1,
                })
            }
        };
        match items {
            None => {
                if held.items.values().any(|h| !h.admits(region)) {
                    return false;
                }
                take(&mut held.whole);
            }
            Some(items) => {
                if items
                    .iter()
                    .any(|i| held.items.get(i).is_some_and(|h| !h.admits(region)))
                {
                    return false;
                }
                for item in items {
                    held.items
                        .entry(item.clone())
                        .and_modify(|h| h.count += 1)
                        .or_insert_with(|| Holder {
                            region: region.to_owned(),
                            count: 1,
                        });
                }
            }
        }
        true
    }

    /// Gives back what [`Flights::hold`] took.
    pub(super) fn release(&mut self, table: &str, items: Option<&[Vec<u8>]>) {
        let Some(held) = self.tables.get_mut(table) else {
            return;
        };
        let release = |slot: &mut Option<Holder>| {
            if let Some(h) = slot {
                h.count -= 1;
                if h.count == 0 {
                    *slot = None;
                }
            }
        };
        match items {
            None => release(&mut held.whole),
            Some(items) => {
                for item in items {
                    if let Some(h) = held.items.get_mut(item) {
                        h.count -= 1;
                        if h.count == 0 {
                            held.items.remove(item);
                        }
                    }
                }
            }
        }
        if held.whole.is_none() && held.items.is_empty() {
            self.tables.remove(table);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_region_holds_an_item_against_the_others_until_every_hold_is_released() {
        let mut flights = Flights::default();
        let item = vec![b"k".to_vec()];
        assert!(flights.hold("t", "us-east-1", Some(&item)));
        assert!(
            flights.hold("t", "us-east-1", Some(&item)),
            "the same region"
        );
        assert!(!flights.hold("t", "us-east-2", Some(&item)));
        assert!(!flights.hold("t", "us-east-2", None), "the whole table");
        assert!(flights.hold("t", "us-east-2", Some(&[b"other".to_vec()])));
        flights.release("t", Some(&[b"other".to_vec()]));
        flights.release("t", Some(&item));
        assert!(
            !flights.hold("t", "us-east-2", Some(&item)),
            "one hold left"
        );
        flights.release("t", Some(&item));
        assert!(flights.hold("t", "us-east-2", None));
        assert!(!flights.hold("t", "us-east-1", Some(&item)));
        flights.release("t", None);
        assert!(flights.tables.is_empty());
    }
}
