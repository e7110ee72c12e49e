//! The change history that backups and point-in-time restores are made from.
//!
//! While a table's `history_from` is set, every change of one of its items also writes,
//! in the same batch, the item's pre-image under `Items key ‖ change stamp` in the
//! `History` space (an empty marker when the item did not exist). The table's items are
//! its state *now*; its state at stamp `t` is, for each key, the pre-image of the first
//! change after `t` if there is one, and the current item otherwise. Both spaces are
//! ordered by the `Items` key, so [`Reconstruction`] merges them in one pass, in key
//! order, holding one key's history at a time.
//!
//! Entries at or before every point anyone can still restore to are never read again;
//! `retention` deletes them in the background.

use std::iter::Peekable;

use kura_model::Item;
use kura_model::item_codec::encode_item;

use crate::error::{EngineError, Result};
use crate::writer::WriteContext;
use kura_store::{Direction, KeyRange, KvIter, Snapshot, Space};

const ENTRY_VERSION: u8 = 1;
const ABSENT: u8 = 0;
const PRESENT: u8 = 1;

/// The `History` key of a change of the item at `storage_key`, made at `stamp`.
pub fn entry_key(storage_key: &[u8], stamp: u64) -> Vec<u8> {
    [storage_key, &stamp.to_be_bytes()].concat()
}

/// The item key and stamp of a `History` key.
pub fn split_entry_key(key: &[u8]) -> Option<(&[u8], u64)> {
    let at = key.len().checked_sub(8)?;
    let (item, stamp) = key.split_at(at);
    Some((item, u64::from_be_bytes(stamp.try_into().ok()?)))
}

/// The stored pre-image: the item's stored bytes, or none.
fn encode_entry(old: Option<&Item>) -> Vec<u8> {
    match old {
        None => vec![ENTRY_VERSION, ABSENT],
        Some(item) => {
            let mut out = vec![ENTRY_VERSION, PRESENT];
            out.extend_from_slice(&encode_item(item));
            out
        }
    }
}

/// The stored item bytes of a pre-image, `None` when the item did not exist.
pub(crate) fn pre_image(bytes: &[u8]) -> Result<Option<Vec<u8>>> {
    decode_entry(bytes)
}

fn decode_entry(bytes: &[u8]) -> Result<Option<Vec<u8>>> {
    match bytes {
        [ENTRY_VERSION, ABSENT] => Ok(None),
        [ENTRY_VERSION, PRESENT, item @ ..] => Ok(Some(item.to_vec())),
        _ => Err(EngineError::Internal("corrupt history entry".into())),
    }
}

/// Records the pre-image of one item change (called by the write path, in the change's
/// batch, for tables whose history is on).
pub(crate) fn record(w: &mut WriteContext<'_>, storage_key: &[u8], old: Option<&Item>) {
    let stamp = w.next_stamp();
    w.put(
        Space::History,
        entry_key(storage_key, stamp),
        encode_entry(old),
    );
}

/// A stored item, or `None` where the item did not exist.
type PreImage = Option<Vec<u8>>;

/// The items of table `table_id` as they were at change stamp `at`, in key order, from
/// `start` on: `(Items key, stored item)`.
pub struct Reconstruction<'a> {
    items: Peekable<KvIter<'a>>,
    history: Peekable<KvIter<'a>>,
    at: u64,
}

impl<'a> Reconstruction<'a> {
    pub fn new(snapshot: &'a dyn Snapshot, table_id: u64, at: u64, after: Option<&[u8]>) -> Self {
        let range = |space| {
            let mut range = KeyRange::prefix(&crate::keys::table_prefix(table_id));
            if let Some(after) = after {
                // Every history key of `after` starts with it, and sorts after it.
                range.start = std::ops::Bound::Excluded(match space {
                    Space::History => entry_key(after, u64::MAX),
                    _ => after.to_vec(),
                });
            }
            snapshot.range(space, range, Direction::Forward).peekable()
        };
        Reconstruction {
            items: range(Space::Items),
            history: range(Space::History),
            at,
        }
    }

    /// The state at `at` of the item whose history comes next: the pre-image of its
    /// first change after `at`, if any. Consumes that item's whole history.
    fn next_history(&mut self) -> Result<Option<(Vec<u8>, Option<PreImage>)>> {
        let Some(first) = self.history.next() else {
            return Ok(None);
        };
        let (key, value) = first?;
        let (item_key, stamp) = split_entry_key(&key)
            .ok_or_else(|| EngineError::Internal("corrupt history key".into()))?;
        let item_key = item_key.to_vec();
        let mut state = (stamp > self.at)
            .then(|| decode_entry(&value))
            .transpose()?;
        while let Some(Ok((next, _))) = self.history.peek() {
            match split_entry_key(next) {
                Some((k, _)) if k == item_key.as_slice() => {}
                _ => break,
            }
            let (next, value) = self.history.next().transpose()?.unwrap_or_default();
            let (_, stamp) = split_entry_key(&next).unwrap_or_default();
            if state.is_none() && stamp > self.at {
                state = Some(decode_entry(&value)?);
            }
        }
        Ok(Some((item_key, state)))
    }
}

impl Iterator for Reconstruction<'_> {
    type Item = Result<(Vec<u8>, Vec<u8>)>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let next_item = match self.items.peek() {
                Some(Ok((k, _))) => Some(k.clone()),
                Some(Err(_)) => return self.items.next().map(|r| r.map_err(Into::into)),
                None => None,
            };
            let next_history = match self.history.peek() {
                Some(Ok((k, _))) => split_entry_key(k).map(|(item, _)| item.to_vec()),
                Some(Err(_)) => return self.history.next().map(|r| r.map_err(Into::into)),
                None => None,
            };
            let from_history = match (&next_item, &next_history) {
                (None, None) => return None,
                (_, None) => false,
                (None, Some(_)) => true,
                (Some(item), Some(history)) => history <= item,
            };
            if !from_history {
                // No change since the history began: the item is as it is now.
                return self.items.next().map(|r| r.map_err(Into::into));
            }
            let current = if next_item.is_some() && next_item == next_history {
                match self.items.next().transpose() {
                    Ok(kv) => kv.map(|(_, v)| v),
                    Err(e) => return Some(Err(e.into())),
                }
            } else {
                None
            };
            let (key, state) = match self.next_history() {
                Ok(Some(found)) => found,
                Ok(None) => return None,
                Err(e) => return Some(Err(e)),
            };
            // Changed after `at`: the pre-image; otherwise the current item.
            match state.unwrap_or(current) {
                Some(value) => return Some(Ok((key, value))),
                None => continue,
            }
        }
    }
}
