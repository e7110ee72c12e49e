//! How the projector walks a stream's shards, as pure decisions on what DescribeStream
//! and GetRecords answered, so the rules AWS documents are tested without AWS:
//!
//! - **Only a missing `NextShardIterator` ends a shard.** GetRecords may answer an empty
//!   `Records` list with a next iterator anywhere in a shard ("it might take multiple
//!   calls to get to a portion of the shard that contains stream records"), in an open
//!   shard and in a closed one. An empty page is never the end; the projector follows a
//!   bounded number of them per round and keeps the iterator for the next round, so it
//!   neither spins nor starts again from its checkpoint (which could meet the same empty
//!   pages every round and never get past them).
//! - **DescribeStream is rate limited** (10 calls per second on AWS), so the shard list is
//!   read again only when a shard ended (its children are new), when the list is older
//!   than the refresh interval, or after an error.
//! - **Parents first.** A child shard is read only once its parent is read to its end.

use std::time::{Duration, Instant};

use aws_sdk_dynamodbstreams::types::Shard;

/// A shard as DescribeStream listed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardInfo {
    pub id: String,
    pub parent: Option<String>,
    /// The shard had an `EndingSequenceNumber`: it gets no new records.
    pub closed: bool,
}

impl ShardInfo {
    pub fn from_shard(shard: &Shard) -> Option<ShardInfo> {
        Some(ShardInfo {
            id: shard.shard_id()?.to_owned(),
            parent: shard.parent_shard_id().map(str::to_owned),
            closed: shard
                .sequence_number_range()
                .and_then(|r| r.ending_sequence_number())
                .is_some(),
        })
    }
}

/// Orders shards so that a parent comes before its children (the order of the list
/// otherwise kept); a parent that is not in the list (trimmed) does not hold a child back.
pub fn parents_first(shards: Vec<ShardInfo>) -> Vec<ShardInfo> {
    let mut left = shards;
    let mut ordered = Vec::with_capacity(left.len());
    while !left.is_empty() {
        let waiting = |s: &ShardInfo, left: &[ShardInfo]| {
            s.parent
                .as_ref()
                .is_some_and(|p| left.iter().any(|o| &o.id == p && o.id != s.id))
        };
        let (ready, rest): (Vec<ShardInfo>, Vec<ShardInfo>) =
            left.iter().cloned().partition(|s| !waiting(s, &left));
        if ready.is_empty() {
            // A cycle cannot happen in a real stream; keep the rest as listed.
            ordered.extend(rest);
            break;
        }
        ordered.extend(ready);
        left = rest;
    }
    ordered
}

/// What the projector does after one GetRecords answer in a shard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Read the next page now.
    Follow,
    /// Stop reading this shard in this round; keep the next iterator for the next round.
    Pause,
    /// The shard is closed and read to its end: checkpoint it finished, go on to its
    /// children.
    End,
}

/// The decision after a page of `records` records, with or without a next iterator,
/// when it is the `empty_run`-th empty page in a row (0 for a page with records) and at
/// most `empty_limit` empty pages in a row are followed in one round.
pub fn after_page(records: usize, has_next: bool, empty_run: u32, empty_limit: u32) -> Step {
    if !has_next {
        Step::End
    } else if records > 0 || empty_run < empty_limit {
        Step::Follow
    } else {
        Step::Pause
    }
}

/// How many empty pages in a row the projector follows in one round in a shard: in a
/// closed shard an empty page is always short of the end, so it follows up to `limit`;
/// in an open one an empty page is most often the present, so it stops at the first.
pub fn empty_limit(shard: &ShardInfo, limit: u32) -> u32 {
    if shard.closed { limit.max(1) } else { 1 }
}

/// Whether the shard list must be read again (DescribeStream): never read, `stale`
/// (a shard ended, or a round failed), or older than `every`.
pub fn needs_refresh(read_at: Option<Instant>, now: Instant, every: Duration, stale: bool) -> bool {
    match read_at {
        None => true,
        Some(at) => stale || now.saturating_duration_since(at) >= every,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shard(id: &str, parent: Option<&str>, closed: bool) -> ShardInfo {
        ShardInfo {
            id: id.into(),
            parent: parent.map(Into::into),
            closed,
        }
    }

    /// One GetRecords answer: how many records, and whether a next iterator came with it.
    #[derive(Clone, Copy)]
    struct Page(usize, bool);

    /// Reads a shard whose GetRecords answers are `pages` the way the projector does
    /// (following pages by `after_page`, keeping its place between rounds), for at most
    /// `rounds` rounds. Returns the records read, whether the end was reached, and the
    /// GetRecords calls made in each round.
    fn read(pages: &[Page], closed: bool, limit: u32, rounds: usize) -> (usize, bool, Vec<u32>) {
        let limit = empty_limit(&shard("s", None, closed), limit);
        let mut at = 0; // the kept iterator: the next page to ask for
        let mut records = 0;
        let mut calls = Vec::new();
        for _ in 0..rounds {
            let mut empty_run = 0;
            let mut made = 0;
            loop {
                let Page(n, has_next) = pages[at];
                made += 1;
                records += n;
                empty_run = if n == 0 { empty_run + 1 } else { 0 };
                match after_page(n, has_next, empty_run, limit) {
                    Step::Follow => at += 1,
                    Step::Pause => {
                        at += 1;
                        break;
                    }
                    Step::End => {
                        calls.push(made);
                        return (records, true, calls);
                    }
                }
            }
            calls.push(made);
        }
        (records, false, calls)
    }

    // Given a closed shard whose GetRecords answers hold empty pages before its last
    // records, when the projector reads it, then it reads past them to every record and
    // ends the shard only at the page without a next iterator.
    #[test]
    fn empty_pages_are_not_the_end_of_a_closed_shard() {
        let pages = [
            Page(3, true),
            Page(0, true),
            Page(0, true),
            Page(2, true),
            Page(0, true),
            Page(1, false),
        ];
        assert_eq!(read(&pages, true, 8, 1), (6, true, vec![6]));
        // At most one empty page in a row per round: the same, over more rounds, each
        // continuing where the last stopped.
        assert_eq!(read(&pages, true, 1, 10), (6, true, vec![2, 1, 2, 1]));
        // The end may come as an empty page without a next iterator.
        assert_eq!(
            read(&[Page(1, true), Page(0, true), Page(0, false)], true, 8, 1),
            (1, true, vec![3])
        );
    }

    // Given a run of empty pages longer than the bound, when the projector reads, then
    // each round makes at most the bound of empty calls and the next round goes on from
    // the kept iterator: it never spins and never loses its place.
    #[test]
    fn empty_pages_are_bounded_per_round() {
        let mut pages = vec![Page(0, true); 20];
        pages.push(Page(4, false));
        let (records, ended, calls) = read(&pages, true, 8, 10);
        assert_eq!((records, ended), (4, true));
        assert_eq!(calls, [8, 8, 5]);
        // An open shard stops at its first empty page (most often the present).
        let (records, ended, calls) = read(&pages, false, 8, 30);
        assert_eq!((records, ended), (4, true));
        assert!(calls[..20].iter().all(|&c| c == 1), "{calls:?}");
    }

    // The decision itself: only a missing next iterator ends a shard.
    #[test]
    fn only_a_missing_next_iterator_ends_a_shard() {
        for records in [0, 1, 100] {
            for run in 0..3 {
                assert_eq!(after_page(records, false, run, 2), Step::End);
                assert_ne!(after_page(records, true, run, 2), Step::End);
            }
        }
        assert_eq!(after_page(5, true, 0, 1), Step::Follow);
        assert_eq!(after_page(0, true, 1, 2), Step::Follow);
        assert_eq!(after_page(0, true, 2, 2), Step::Pause);
    }

    #[test]
    fn parents_come_first() {
        let listed = vec![
            shard("c2", Some("c1"), false),
            shard("c1", Some("p"), true),
            shard("p", Some("trimmed"), true),
            shard("other", None, false),
        ];
        let ids: Vec<String> = parents_first(listed).into_iter().map(|s| s.id).collect();
        assert_eq!(ids, ["p", "other", "c1", "c2"]);
    }

    #[test]
    fn refresh() {
        let now = Instant::now();
        let every = Duration::from_secs(5);
        assert!(needs_refresh(None, now, every, false));
        assert!(!needs_refresh(Some(now), now, every, false));
        assert!(needs_refresh(Some(now), now, every, true));
        assert!(needs_refresh(Some(now), now + every, every, false));
        assert!(!needs_refresh(
            Some(now),
            now + Duration::from_secs(4),
            every,
            false
        ));
        assert!(needs_refresh(Some(now), now, Duration::ZERO, false));
    }
}
