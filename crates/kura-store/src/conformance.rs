//! The conformance suite every [`Store`] implementation must pass.

use std::ops::Bound;

use super::{Direction, KeyRange, MAX_KEY_LEN, Space, Store, WriteBatch};

fn put(store: &dyn Store, space: Space, pairs: &[(&[u8], &[u8])]) {
    let mut batch = WriteBatch::default();
    for (k, v) in pairs {
        batch.put(space, k.to_vec(), v.to_vec());
    }
    store.commit(batch).expect("commit");
}

fn keys(store: &dyn Store, space: Space, range: KeyRange, dir: Direction) -> Vec<Vec<u8>> {
    let snap = store.snapshot().expect("snapshot");
    snap.range(space, range, dir)
        .map(|r| r.expect("row").0)
        .collect()
}

fn all() -> KeyRange {
    KeyRange {
        start: Bound::Unbounded,
        end: Bound::Unbounded,
    }
}

/// Runs every case, each on a fresh store from `fresh`.
pub fn run_all<S: Store>(fresh: impl Fn() -> S) {
    get_put_delete(&fresh());
    spaces_are_isolated(&fresh());
    ranges_are_ordered_both_ways(&fresh());
    prefix_ranges(&fresh());
    snapshots_are_stable(&fresh());
    batches_are_atomic_in_order(&fresh());
    out_of_range_keys_fail_the_whole_batch(&fresh());
    overlong_range_bounds_are_errors(&fresh());
}

fn overlong_range_bounds_are_errors(store: &dyn Store) {
    let long = vec![b'k'; MAX_KEY_LEN + 1];
    let snap = store.snapshot().expect("snapshot");
    let range = KeyRange {
        start: Bound::Included(long),
        end: Bound::Unbounded,
    };
    let mut rows = snap.range(Space::Items, range, Direction::Forward);
    assert!(matches!(rows.next(), Some(Err(_))), "an error, not a panic");
}

fn out_of_range_keys_fail_the_whole_batch(store: &dyn Store) {
    for bad in [Vec::new(), vec![7u8; super::MAX_KEY_LEN + 1]] {
        let mut batch = WriteBatch::default();
        batch.put(Space::Items, b"good".to_vec(), b"v".to_vec());
        batch.put(Space::Items, bad, b"v".to_vec());
        assert!(
            store.commit(batch).is_err(),
            "an out-of-range key is an error, not a panic"
        );
    }
    let snap = store.snapshot().expect("snapshot");
    assert_eq!(
        snap.get(Space::Items, b"good").expect("get"),
        None,
        "nothing of a refused batch lands"
    );
    let mut batch = WriteBatch::default();
    batch.put(Space::Items, vec![7u8; super::MAX_KEY_LEN], b"v".to_vec());
    store.commit(batch).expect("the longest allowed key");
}

fn get_put_delete(store: &dyn Store) {
    put(store, Space::Items, &[(b"a", b"1")]);
    let snap = store.snapshot().expect("snapshot");
    assert_eq!(
        snap.get(Space::Items, b"a").expect("get"),
        Some(b"1".to_vec())
    );
    assert_eq!(snap.get(Space::Items, b"b").expect("get"), None);
    let mut batch = WriteBatch::default();
    batch.delete(Space::Items, b"a".to_vec());
    store.commit(batch).expect("commit");
    let snap = store.snapshot().expect("snapshot");
    assert_eq!(snap.get(Space::Items, b"a").expect("get"), None);
}

fn spaces_are_isolated(store: &dyn Store) {
    for space in Space::ALL {
        put(store, space, &[(b"k", space.name().as_bytes())]);
    }
    let snap = store.snapshot().expect("snapshot");
    for space in Space::ALL {
        assert_eq!(
            snap.get(space, b"k").expect("get"),
            Some(space.name().as_bytes().to_vec())
        );
        assert_eq!(
            keys(store, space, all(), Direction::Forward),
            vec![b"k".to_vec()]
        );
        assert_eq!(
            keys(store, space, all(), Direction::Reverse),
            vec![b"k".to_vec()]
        );
    }
}

fn ranges_are_ordered_both_ways(store: &dyn Store) {
    // Unsigned byte order: 0x00 < 0x7f < 0x80 < 0xff, and a prefix sorts first.
    let input: [&[u8]; 6] = [b"\xff", b"\x80", b"\x00", b"\x7f", b"\x80\x00", b"\x00\x00"];
    for k in input {
        put(store, Space::Items, &[(k, b"v")]);
    }
    let forward = keys(store, Space::Items, all(), Direction::Forward);
    let expected: Vec<Vec<u8>> = vec![
        b"\x00".to_vec(),
        b"\x00\x00".to_vec(),
        b"\x7f".to_vec(),
        b"\x80".to_vec(),
        b"\x80\x00".to_vec(),
        b"\xff".to_vec(),
    ];
    assert_eq!(forward, expected);
    let mut reverse = keys(store, Space::Items, all(), Direction::Reverse);
    reverse.reverse();
    assert_eq!(reverse, expected);

    let bounded = KeyRange {
        start: Bound::Excluded(b"\x00\x00".to_vec()),
        end: Bound::Included(b"\x80".to_vec()),
    };
    assert_eq!(
        keys(store, Space::Items, bounded.clone(), Direction::Forward),
        vec![b"\x7f".to_vec(), b"\x80".to_vec()]
    );
    assert_eq!(
        keys(store, Space::Items, bounded, Direction::Reverse),
        vec![b"\x80".to_vec(), b"\x7f".to_vec()]
    );
}

fn prefix_ranges(store: &dyn Store) {
    put(
        store,
        Space::Items,
        &[
            (b"ab", b""),
            (b"abc", b""),
            (b"ac", b""),
            (b"a\xff", b""),
            (b"b", b""),
        ],
    );
    put(
        store,
        Space::Items,
        &[(b"\xff\xff", b""), (b"\xff\xff\x01", b"")],
    );
    assert_eq!(
        keys(
            store,
            Space::Items,
            KeyRange::prefix(b"ab"),
            Direction::Forward
        ),
        vec![b"ab".to_vec(), b"abc".to_vec()]
    );
    assert_eq!(
        keys(
            store,
            Space::Items,
            KeyRange::prefix(b"a"),
            Direction::Reverse
        ),
        vec![
            b"a\xff".to_vec(),
            b"ac".to_vec(),
            b"abc".to_vec(),
            b"ab".to_vec()
        ]
    );
    // A prefix of all-0xff bytes has no successor: the range is unbounded above.
    assert_eq!(
        keys(
            store,
            Space::Items,
            KeyRange::prefix(b"\xff\xff"),
            Direction::Forward
        ),
        vec![b"\xff\xff".to_vec(), b"\xff\xff\x01".to_vec()]
    );
}

fn snapshots_are_stable(store: &dyn Store) {
    put(store, Space::Items, &[(b"a", b"old")]);
    let before = store.snapshot().expect("snapshot");
    put(store, Space::Items, &[(b"a", b"new"), (b"b", b"new")]);
    assert_eq!(
        before.get(Space::Items, b"a").expect("get"),
        Some(b"old".to_vec())
    );
    assert_eq!(before.get(Space::Items, b"b").expect("get"), None);
    let rows: Vec<_> = before
        .range(Space::Items, all(), Direction::Forward)
        .collect();
    assert_eq!(rows.len(), 1);
    let after = store.snapshot().expect("snapshot");
    assert_eq!(
        after.get(Space::Items, b"a").expect("get"),
        Some(b"new".to_vec())
    );
}

fn batches_are_atomic_in_order(store: &dyn Store) {
    // Within one batch, a later op on the same key wins; ops span spaces.
    let mut batch = WriteBatch::default();
    batch.put(Space::Items, b"k".to_vec(), b"1".to_vec());
    batch.put(Space::Catalog, b"k".to_vec(), b"c".to_vec());
    batch.delete(Space::Items, b"k".to_vec());
    batch.put(Space::Items, b"k".to_vec(), b"2".to_vec());
    store.commit(batch).expect("commit");
    let snap = store.snapshot().expect("snapshot");
    assert_eq!(
        snap.get(Space::Items, b"k").expect("get"),
        Some(b"2".to_vec())
    );
    assert_eq!(
        snap.get(Space::Catalog, b"k").expect("get"),
        Some(b"c".to_vec())
    );
}
