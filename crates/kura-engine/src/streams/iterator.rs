//! Shard iterators: opaque to clients, authenticated by the engine. An iterator is hex of
//! (version, stream id, shard number, the next sequence number to read, when it was
//! issued) and an HMAC-SHA256 tag of those, cut to 16 bytes, under a key of the data
//! directory's own. A client cannot build one for another stream, shard or position, nor
//! move its issue time to outlive the 15-minute lifetime; a tampered one is
//! InvalidArgument, as DynamoDB's are. The key is made once per data directory (so
//! iterators survive a restart, as they would a DynamoDB failover) and kept in `Meta`.

use hmac::{Hmac, Mac};
use sha2::Sha256;

const VERSION: u8 = 2;
const BODY_BYTES: usize = 29;
const TAG_BYTES: usize = 16;
const TEXT_CHARS: usize = 2 * (BODY_BYTES + TAG_BYTES);
/// Version 1 (before iterators were signed): 29 bytes and a 4-byte FNV-1a check.
const VERSION_1_CHARS: usize = 66;

/// The secret shard iterators are signed with.
#[derive(Clone)]
pub(crate) struct IteratorKey([u8; 32]);

impl IteratorKey {
    /// A new key from the operating system's randomness (two v4 UUIDs: 244 random bits).
    pub(crate) fn generate() -> IteratorKey {
        let mut key = [0u8; 32];
        key[..16].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
        key[16..].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
        IteratorKey(key)
    }

    /// The key as `Meta` stores it; None for bytes of the wrong length.
    pub(crate) fn from_stored(bytes: &[u8]) -> Option<IteratorKey> {
        Some(IteratorKey(bytes.try_into().ok()?))
    }

    pub(crate) fn stored(&self) -> Vec<u8> {
        self.0.to_vec()
    }

    fn mac(&self, body: &[u8]) -> Hmac<Sha256> {
        // HMAC takes a key of any length; 32 bytes cannot fail.
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.0)
            .unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
        mac.update(body);
        mac
    }
}

impl std::fmt::Debug for IteratorKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IteratorKey(..)")
    }
}

/// Where a reader is: the next record to read in one shard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Iterator {
    pub stream_id: u64,
    pub shard: u32,
    pub next_seq: u64,
    pub issued_ms: i64,
}

impl Iterator {
    pub(crate) fn encode(&self, key: &IteratorKey) -> String {
        let mut bytes = Vec::with_capacity(BODY_BYTES + TAG_BYTES);
        bytes.push(VERSION);
        bytes.extend_from_slice(&self.stream_id.to_be_bytes());
        bytes.extend_from_slice(&self.shard.to_be_bytes());
        bytes.extend_from_slice(&self.next_seq.to_be_bytes());
        bytes.extend_from_slice(&self.issued_ms.to_be_bytes());
        let tag = key.mac(&bytes).finalize().into_bytes();
        bytes.extend_from_slice(&tag[..TAG_BYTES]);
        hex::encode(bytes)
    }

    /// The iterator `text` holds, if this data directory's key signed it.
    pub(crate) fn decode(text: &str, key: &IteratorKey) -> Option<Iterator> {
        if text.len() != TEXT_CHARS {
            return None;
        }
        let bytes = hex::decode(text).ok()?;
        let (body, tag) = bytes.split_at_checked(BODY_BYTES)?;
        // Compared in constant time, so the tag cannot be guessed a byte at a time.
        if body.first() != Some(&VERSION) || key.mac(body).verify_truncated_left(tag).is_err() {
            return None;
        }
        Some(Iterator {
            stream_id: u64::from_be_bytes(body.get(1..9)?.try_into().ok()?),
            shard: u32::from_be_bytes(body.get(9..13)?.try_into().ok()?),
            next_seq: u64::from_be_bytes(body.get(13..21)?.try_into().ok()?),
            issued_ms: i64::from_be_bytes(body.get(21..29)?.try_into().ok()?),
        })
    }
}

/// Whether `text` has the shape of a version-1 iterator, handed out by a build before
/// iterators were signed. Its position cannot be trusted, but a reader holding one across
/// an upgrade is told it expired, which every reader handles by asking again.
pub(crate) fn is_version_1(text: &str) -> bool {
    text.len() == VERSION_1_CHARS
        && text.starts_with("01")
        && text.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Iterator {
        Iterator {
            stream_id: 7,
            shard: 3,
            next_seq: 42,
            issued_ms: 1_700_000_000_000,
        }
    }

    #[test]
    fn iterators_round_trip_and_reject_tampering() {
        let key = IteratorKey::generate();
        let text = sample().encode(&key);
        assert_eq!(Iterator::decode(&text, &key), Some(sample()));
        for position in [0, 5, 20, 57, TEXT_CHARS - 1] {
            let mut tampered = text.clone().into_bytes();
            tampered[position] = if tampered[position] == b'0' {
                b'1'
            } else {
                b'0'
            };
            let tampered = String::from_utf8(tampered).expect("ascii");
            assert_eq!(Iterator::decode(&tampered, &key), None, "at {position}");
        }
        assert_eq!(Iterator::decode("nope", &key), None);
        assert_eq!(Iterator::decode(&"é".repeat(45), &key), None);
        assert_eq!(Iterator::decode(&"z".repeat(TEXT_CHARS), &key), None);
    }

    #[test]
    fn version_1_iterators_are_told_apart_from_garbage() {
        let old = format!("01{}", "ab".repeat(32));
        assert!(is_version_1(&old));
        assert_eq!(Iterator::decode(&old, &IteratorKey::generate()), None);
        assert!(!is_version_1(&format!("02{}", "ab".repeat(32))));
        assert!(!is_version_1(&format!("01{}", "zz".repeat(32))));
        assert!(!is_version_1(&sample().encode(&IteratorKey::generate())));
    }

    /// What the old FNV-1a check allowed: a client writes the fields it wants and a check
    /// it can compute. Without the key, the tag is not to be had.
    #[test]
    fn an_iterator_forged_without_the_key_is_refused() {
        let key = IteratorKey::generate();
        let forged = Iterator {
            issued_ms: i64::MAX / 2,
            ..sample()
        };
        assert_eq!(
            Iterator::decode(&forged.encode(&IteratorKey::generate()), &key),
            None
        );
        let stored = IteratorKey::from_stored(&key.stored()).expect("32 bytes");
        assert_eq!(
            Iterator::decode(&sample().encode(&key), &stored),
            Some(sample()),
            "a key read back from Meta signs as the key it was"
        );
        assert!(IteratorKey::from_stored(&[0; 31]).is_none());
    }
}
