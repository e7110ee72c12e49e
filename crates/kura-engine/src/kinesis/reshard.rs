//! Resharding: SplitShard, MergeShards and UpdateShardCount. A shard that splits or merges
//! closes at the stream's last sequence number and its children open at the next one,
//! naming it as ParentShardId (and a merge's other shard as AdjacentParentShardId), so a
//! reader that finishes parents before children reads each partition key in order.
//!
//! UpdateShardCount (UNIFORM_SCALING) reaches its target by real splits and merges: the
//! widest open shard splits in two, or the narrowest adjacent pair merges, until the count
//! is right. From an even layout, doubling and halving give an even layout again, as on
//! Kinesis; other targets give one within a factor of two of even.

use kura_model::constraint::Constraints;

use super::stream::{KinesisShard, KinesisStream};
use super::stream_admin::not_found;
use super::{MAX_SHARDS, invalid_argument, resolve};
use crate::api::kinesis::*;
use crate::error::{EngineError, Result};
use crate::{ACCOUNT_ID, Engine, RequestContext};
use kura_store::Space;

/// A change to a stream's shards, applied in a writer job.
enum Reshard {
    Split { shard: String, at: u128 },
    Merge { shard: String, adjacent: String },
    Count { target: usize },
}

impl Engine {
    pub async fn kinesis_split_shard(&self, input: SplitShardInput) -> Result<()> {
        let mut c = Constraints::new();
        c.required_text("shardToSplit", input.shard_to_split.as_deref(), 1, 128);
        c.not_null("newStartingHashKey", input.new_starting_hash_key.as_ref());
        c.finish()?;
        let text = input.new_starting_hash_key.clone().unwrap_or_default();
        let at = text.parse::<u128>().map_err(|_| {
            invalid_argument(format!(
                "NewStartingHashKey {text} must be a number between 0 and 2^128-1."
            ))
        })?;
        let shard = input.shard_to_split.clone().unwrap_or_default();
        self.reshard(&input, Reshard::Split { shard, at }).await?;
        Ok(())
    }

    pub async fn kinesis_merge_shards(&self, input: MergeShardsInput) -> Result<()> {
        let mut c = Constraints::new();
        c.required_text("shardToMerge", input.shard_to_merge.as_deref(), 1, 128);
        c.required_text(
            "adjacentShardToMerge",
            input.adjacent_shard_to_merge.as_deref(),
            1,
            128,
        );
        c.finish()?;
        let shard = input.shard_to_merge.clone().unwrap_or_default();
        let adjacent = input.adjacent_shard_to_merge.clone().unwrap_or_default();
        self.reshard(&input, Reshard::Merge { shard, adjacent })
            .await?;
        Ok(())
    }

    pub async fn kinesis_update_shard_count(
        &self,
        ctx: &RequestContext,
        input: UpdateShardCountInput,
    ) -> Result<UpdateShardCountOutput> {
        let mut c = Constraints::new();
        c.not_null("targetShardCount", input.target_shard_count.as_ref());
        c.at_least("targetShardCount", input.target_shard_count, 1);
        c.not_null("scalingType", input.scaling_type.as_ref());
        c.one_of(
            "scalingType",
            input.scaling_type.as_deref(),
            &["UNIFORM_SCALING"],
        );
        c.finish()?;
        let target = usize::try_from(input.target_shard_count.unwrap_or(1)).unwrap_or(1);
        let (before, stream) = self.reshard(&input, Reshard::Count { target }).await?;
        Ok(UpdateShardCountOutput {
            stream_name: stream.name.clone(),
            current_shard_count: before,
            target_shard_count: target,
            stream_arn: stream.arn(&ctx.region),
        })
    }

    /// Applies `change` to the stream `input` names: (open shards before, the stream after).
    async fn reshard(
        &self,
        input: &impl NamesStream,
        change: Reshard,
    ) -> Result<(usize, KinesisStream)> {
        let name = resolve(input.stream())?.to_owned();
        let stream = self.kinesis_stream(input)?;
        let others = self
            .kinesis_open_shard_count()?
            .saturating_sub(open_count(&stream) as u32);
        self.writer
            .submit(false, move |w| {
                let key = stream.key();
                let bytes = w.get(Space::Meta, &key)?.ok_or_else(|| not_found(&name))?;
                let mut stream = KinesisStream::decode(&bytes)?;
                let before = open_count(&stream);
                match change {
                    Reshard::Split { shard, at } => split(&mut stream, &shard, at)?,
                    Reshard::Merge { shard, adjacent } => merge(&mut stream, &shard, &adjacent)?,
                    Reshard::Count { target } => {
                        scale(&stream, before, target, others)?;
                        while open_count(&stream) < target {
                            let widest = widest(&stream)?;
                            let at = widest.hash_lo + (widest.hash_hi - widest.hash_lo) / 2 + 1;
                            let id = widest.id();
                            split(&mut stream, &id, at)?;
                        }
                        while open_count(&stream) > target {
                            let (a, b) = narrowest_pair(&stream)?;
                            merge(&mut stream, &a, &b)?;
                        }
                    }
                }
                if (open_count(&stream) as u32).saturating_add(others) > MAX_SHARDS {
                    return Err(EngineError::LimitExceeded(format!(
                        "This request would exceed the shard limit for the account \
                         {ACCOUNT_ID}. Limit: {MAX_SHARDS}."
                    )));
                }
                w.put(Space::Meta, key, stream.encode()?);
                Ok((before, stream))
            })
            .await
    }
}

fn open_count(stream: &KinesisStream) -> usize {
    stream.shards.iter().filter(|s| s.is_open()).count()
}

/// Kinesis's bounds on one UpdateShardCount: at most double, at least half.
fn scale(stream: &KinesisStream, current: usize, target: usize, others: u32) -> Result<()> {
    // Saturating: TargetShardCount comes from the request and may be near i64::MAX.
    if target > current.saturating_mul(2) || target.saturating_mul(2) < current {
        return Err(EngineError::LimitExceeded(format!(
            "UpdateShardCount can scale stream {} under account {ACCOUNT_ID} only between half \
             and double its current open shard count ({current}); asked for {target}.",
            stream.name
        )));
    }
    if u32::try_from(target).map_or(true, |t| t.saturating_add(others) > MAX_SHARDS) {
        return Err(EngineError::LimitExceeded(format!(
            "This request would exceed the shard limit for the account {ACCOUNT_ID}. Limit: \
             {MAX_SHARDS}."
        )));
    }
    Ok(())
}

/// The open shard `id` names, or Kinesis's errors for a missing or closed one.
fn open_shard<'a>(stream: &'a KinesisStream, id: &str) -> Result<&'a KinesisShard> {
    let shard = stream.shard(id).ok_or_else(|| {
        EngineError::ResourceNotFound(format!(
            "Could not find shard {id} in stream {} under account {ACCOUNT_ID}.",
            stream.name
        ))
    })?;
    if !shard.is_open() {
        return Err(EngineError::ResourceInUse(format!(
            "Shard {id} in stream {} under account {ACCOUNT_ID} has already been merged or \
             split, and thus is not eligible for merging or splitting.",
            stream.name
        )));
    }
    Ok(shard)
}

/// Closes `shard` at the stream's last sequence number and opens `children` after it.
fn replace(stream: &mut KinesisStream, closing: &[u32], children: Vec<KinesisShard>) {
    let last = stream.next_seq - 1;
    for shard in stream.shards.iter_mut() {
        if closing.contains(&shard.number) {
            shard.last_seq = Some(last);
        }
    }
    stream.shards.extend(children);
}

fn next_number(stream: &KinesisStream) -> u32 {
    stream
        .shards
        .iter()
        .map(|s| s.number + 1)
        .max()
        .unwrap_or(0)
}

fn split(stream: &mut KinesisStream, id: &str, at: u128) -> Result<()> {
    let parent = open_shard(stream, id)?.clone();
    if at <= parent.hash_lo || at > parent.hash_hi {
        return Err(invalid_argument(format!(
            "NewStartingHashKey {at} used in SplitShard() on shard {} in stream {} under \
             account {ACCOUNT_ID} is not both greater than one plus the shard's \
             StartingHashKey {} and less than the shard's EndingHashKey {}.",
            parent.id(),
            stream.name,
            parent.hash_lo,
            parent.hash_hi
        )));
    }
    let number = next_number(stream);
    let child = |number: u32, lo: u128, hi: u128| KinesisShard {
        number,
        parent: Some(parent.number),
        adjacent_parent: None,
        hash_lo: lo,
        hash_hi: hi,
        first_seq: stream.next_seq,
        last_seq: None,
    };
    let children = vec![
        child(number, parent.hash_lo, at - 1),
        child(number + 1, at, parent.hash_hi),
    ];
    replace(stream, &[parent.number], children);
    Ok(())
}

fn merge(stream: &mut KinesisStream, id: &str, adjacent_id: &str) -> Result<()> {
    let shard = open_shard(stream, id)?.clone();
    let adjacent = open_shard(stream, adjacent_id)?.clone();
    let touching = shard.hash_hi.checked_add(1) == Some(adjacent.hash_lo)
        || adjacent.hash_hi.checked_add(1) == Some(shard.hash_lo);
    if !touching {
        return Err(invalid_argument(format!(
            "Shards {} and {} in stream {} under account {ACCOUNT_ID} are not an adjacent \
             pair of shards eligible for merging",
            shard.id(),
            adjacent.id(),
            stream.name
        )));
    }
    let child = KinesisShard {
        number: next_number(stream),
        parent: Some(shard.number),
        adjacent_parent: Some(adjacent.number),
        hash_lo: shard.hash_lo.min(adjacent.hash_lo),
        hash_hi: shard.hash_hi.max(adjacent.hash_hi),
        first_seq: stream.next_seq,
        last_seq: None,
    };
    replace(stream, &[shard.number, adjacent.number], vec![child]);
    Ok(())
}

/// A width to compare by: the rounding of an even split (a few units) must not decide which
/// shard is wider, the position must.
fn coarse(width: u128) -> u128 {
    width >> 64
}

fn widest(stream: &KinesisStream) -> Result<KinesisShard> {
    stream
        .shards
        .iter()
        .filter(|s| s.is_open() && s.hash_hi > s.hash_lo)
        .max_by_key(|s| (coarse(s.hash_hi - s.hash_lo), std::cmp::Reverse(s.hash_lo)))
        .cloned()
        .ok_or_else(|| invalid_argument("No open shard can be split further."))
}

/// The two adjacent open shards whose merged range is narrowest (lowest first on a tie).
fn narrowest_pair(stream: &KinesisStream) -> Result<(String, String)> {
    let mut open: Vec<&KinesisShard> = stream.shards.iter().filter(|s| s.is_open()).collect();
    open.sort_by_key(|s| s.hash_lo);
    open.windows(2)
        .min_by_key(|w| (coarse(w[1].hash_hi - w[0].hash_lo), w[0].hash_lo))
        .map(|w| (w[0].id(), w[1].id()))
        .ok_or_else(|| invalid_argument("A stream with one open shard cannot merge."))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinesis::stream::Mode;

    fn stream(shards: u32) -> KinesisStream {
        let mut s = KinesisStream::new(1, "s", Mode::Provisioned, shards, 0);
        s.next_seq = 10;
        s
    }

    fn open_ranges(s: &KinesisStream) -> Vec<(u128, u128)> {
        let mut r: Vec<_> = s
            .shards
            .iter()
            .filter(|s| s.is_open())
            .map(|s| (s.hash_lo, s.hash_hi))
            .collect();
        r.sort();
        r
    }

    fn covers_everything(s: &KinesisStream) -> bool {
        let r = open_ranges(s);
        r.first().map(|f| f.0) == Some(0)
            && r.last().map(|l| l.1) == Some(u128::MAX)
            && r.windows(2).all(|w| w[0].1 + 1 == w[1].0)
    }

    #[test]
    fn a_split_closes_the_parent_and_opens_two_children() {
        let mut s = stream(1);
        split(&mut s, "shardId-000000000000", 1 << 127).expect("split");
        assert_eq!(s.shards[0].last_seq, Some(9));
        assert_eq!(s.shards[1].parent, Some(0));
        assert_eq!(s.shards[1].first_seq, 10);
        assert_eq!(
            open_ranges(&s),
            [(0, (1 << 127) - 1), (1 << 127, u128::MAX)]
        );
        assert!(split(&mut s, "shardId-000000000000", 5).is_err(), "closed");
        assert!(
            split(&mut s, "shardId-000000000001", 0).is_err(),
            "at its start"
        );
        merge(&mut s, "shardId-000000000001", "shardId-000000000002").expect("merge");
        let child = s.shards.last().expect("child");
        assert_eq!((child.parent, child.adjacent_parent), (Some(1), Some(2)));
        assert!(covers_everything(&s));
    }

    #[test]
    fn a_huge_target_is_refused_not_overflowed() {
        let s = stream(2);
        assert!(scale(&s, 2, usize::MAX, 0).is_err());
        assert!(scale(&s, 2, 4, u32::MAX).is_err());
        assert!(scale(&s, 2, 4, 0).is_ok());
    }

    #[test]
    fn uniform_scaling_doubles_and_halves_evenly() {
        let mut s = stream(3);
        for target in [6, 12, 6, 3] {
            while open_ranges(&s).len() < target {
                let w = widest(&s).expect("widest");
                let id = w.id();
                split(&mut s, &id, w.hash_lo + (w.hash_hi - w.hash_lo) / 2 + 1).expect("split");
            }
            while open_ranges(&s).len() > target {
                let (a, b) = narrowest_pair(&s).expect("pair");
                merge(&mut s, &a, &b).expect("merge");
            }
            assert!(covers_everything(&s));
            let widths: Vec<u128> = open_ranges(&s).iter().map(|r| r.1 - r.0).collect();
            let (min, max) = (widths.iter().min(), widths.iter().max());
            assert!(
                max.zip(min).is_some_and(|(max, min)| max - min <= 2),
                "{widths:?}"
            );
        }
        // Every shard but the open ones names parents that exist.
        for shard in &s.shards {
            for parent in shard.parent.iter().chain(&shard.adjacent_parent) {
                assert!(s.shards.iter().any(|p| p.number == *parent && !p.is_open()));
            }
        }
    }
}
