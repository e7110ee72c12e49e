//! The stream operations of Kinesis Data Streams: CreateStream, DeleteStream,
//! DescribeStream, DescribeStreamSummary, ListStreams, ListShards, the retention period and
//! tags. A stream is ACTIVE as soon as CreateStream returns (Kinesis takes seconds; a
//! waiter polling DescribeStream sees ACTIVE on its first call), and gone as soon as
//! DeleteStream returns, its records removed in the background.

use kura_model::constraint::Constraints;

use super::stream::{
    KinesisStream, Mode, ON_DEMAND_SHARDS, epoch_seconds, shard_number, stream_name_constraint,
};
use super::{MAX_SHARDS, invalid_argument, resolve};
use crate::api::kinesis::*;
use crate::error::{EngineError, Result};
use crate::purge::PurgeTarget;
use crate::{ACCOUNT_ID, Engine, RequestContext, keys};
use kura_store::{Direction, KeyRange, Space};

const MIN_RETENTION_HOURS: i64 = 24;
const MAX_RETENTION_HOURS: i64 = 8760;
const MAX_TAGS: usize = 50;

impl Engine {
    pub async fn kinesis_create_stream(&self, input: CreateStreamInput) -> Result<()> {
        let mut c = Constraints::new();
        stream_name_constraint(&mut c, "streamName", input.stream_name.as_deref(), true);
        c.at_least("shardCount", input.shard_count, 1);
        let mode = input
            .stream_mode_details
            .as_ref()
            .map(|d| d.stream_mode.as_deref());
        if let Some(mode) = mode {
            c.not_null("streamModeDetails.streamMode", mode.as_ref());
            c.one_of(
                "streamModeDetails.streamMode",
                mode,
                &["PROVISIONED", "ON_DEMAND"],
            );
        }
        c.finish()?;
        let name = input.stream_name.unwrap_or_default();
        let mode = mode
            .flatten()
            .and_then(Mode::parse)
            .unwrap_or(Mode::Provisioned);
        let shards = match (mode, input.shard_count) {
            (Mode::OnDemand, Some(_)) => {
                return Err(invalid_argument(
                    "ShardCount must not be specified for a stream in ON_DEMAND mode.",
                ));
            }
            (Mode::OnDemand, None) => ON_DEMAND_SHARDS,
            (Mode::Provisioned, None) => {
                return Err(invalid_argument(
                    "ShardCount is required for a stream in PROVISIONED mode.",
                ));
            }
            (Mode::Provisioned, Some(n)) => u32::try_from(n).unwrap_or(u32::MAX),
        };
        let tags = input.tags.unwrap_or_default();
        check_tags(tags.keys().map(String::as_str), tags.values())?;
        // The account's shard quota, counted on the committed streams: two creates racing
        // may pass it together (a quota, not a data rule; docs/compat.md).
        let open = self.kinesis_open_shard_count()?;
        if u64::from(open) + u64::from(shards) > u64::from(MAX_SHARDS) {
            return Err(EngineError::LimitExceeded(format!(
                "This request would exceed the shard limit for the account {ACCOUNT_ID}. \
                 Current shard count for the account: {open}. Limit: {MAX_SHARDS}. Number of \
                 additional shards that would have resulted from this request: {shards}."
            )));
        }
        let now = self.clock.now_ms();
        self.writer
            .submit(false, move |w| {
                let name_key = keys::kinesis_name_key(&name);
                if w.get(Space::Meta, &name_key)?.is_some() {
                    return Err(EngineError::ResourceInUse(format!(
                        "Stream {name} under account {ACCOUNT_ID} already exists."
                    )));
                }
                let id = crate::streams::specification::next_stream_id(w)?;
                let mut stream = KinesisStream::new(id, &name, mode, shards, now);
                stream.tags = tags;
                w.put(Space::Meta, name_key, id.to_be_bytes().to_vec());
                w.put(Space::Meta, stream.key(), stream.encode()?);
                Ok(())
            })
            .await
    }

    pub async fn kinesis_delete_stream(&self, input: DeleteStreamInput) -> Result<()> {
        let stream = self.kinesis_stream(&input)?;
        let purger = self.purger.clone();
        let id = stream.id;
        self.writer
            .submit(false, move |w| {
                // Gone meanwhile: the other delete answered.
                if w.get(Space::Meta, &keys::kinesis_stream_key(id))?.is_none() {
                    return Err(not_found(&stream.name));
                }
                w.delete(Space::Meta, keys::kinesis_name_key(&stream.name));
                w.delete(Space::Meta, keys::kinesis_stream_key(id));
                w.put(Space::Meta, keys::kinesis_purge_key(id), Vec::new());
                w.after_commit(move || purger.submit(PurgeTarget::KinesisStream(id)));
                Ok(())
            })
            .await
    }

    pub fn kinesis_describe_stream(
        &self,
        ctx: &RequestContext,
        input: DescribeStreamInput,
    ) -> Result<DescribeStreamOutput> {
        let mut c = Constraints::new();
        c.at_least("limit", input.limit, 1);
        c.at_most("limit", input.limit, 10_000);
        c.finish()?;
        let stream = self.kinesis_stream(&input)?;
        let limit = usize::try_from(input.limit.unwrap_or(100)).unwrap_or(100);
        let after = input.exclusive_start_shard_id.as_deref();
        let mut shards = shards_after(&stream, after);
        let has_more_shards = shards.len() > limit;
        shards.truncate(limit);
        Ok(DescribeStreamOutput {
            stream_description: StreamDescription {
                stream_name: stream.name.clone(),
                stream_arn: stream.arn(&ctx.region),
                stream_status: "ACTIVE".into(),
                stream_mode_details: mode_details(stream.mode),
                shards,
                has_more_shards,
                retention_period_hours: stream.retention_hours,
                stream_creation_timestamp: epoch_seconds(stream.created_ms),
                enhanced_monitoring: no_enhanced_monitoring(),
                encryption_type: "NONE".into(),
            },
        })
    }

    pub fn kinesis_describe_stream_summary(
        &self,
        ctx: &RequestContext,
        input: DescribeStreamSummaryInput,
    ) -> Result<DescribeStreamSummaryOutput> {
        let stream = self.kinesis_stream(&input)?;
        Ok(DescribeStreamSummaryOutput {
            stream_description_summary: StreamDescriptionSummary {
                stream_name: stream.name.clone(),
                stream_arn: stream.arn(&ctx.region),
                stream_status: "ACTIVE".into(),
                stream_mode_details: mode_details(stream.mode),
                retention_period_hours: stream.retention_hours,
                stream_creation_timestamp: epoch_seconds(stream.created_ms),
                enhanced_monitoring: no_enhanced_monitoring(),
                encryption_type: "NONE".into(),
                open_shard_count: stream.shards.iter().filter(|s| s.is_open()).count(),
                consumer_count: 0,
            },
        })
    }

    pub fn kinesis_list_streams(
        &self,
        ctx: &RequestContext,
        input: ListStreamsInput,
    ) -> Result<ListStreamsOutput> {
        let mut c = Constraints::new();
        c.at_least("limit", input.limit, 1);
        c.at_most("limit", input.limit, 10_000);
        c.finish()?;
        let limit = usize::try_from(input.limit.unwrap_or(100)).unwrap_or(100);
        // The token is the last name of the page before: the names are listed in order.
        let after = match (&input.next_token, &input.exclusive_start_stream_name) {
            (Some(_), Some(_)) => {
                return Err(invalid_argument(
                    "NextToken and ExclusiveStartStreamName cannot be provided together.",
                ));
            }
            (Some(token), None) => Some(decode_token(token)?),
            (None, start) => start.clone(),
        };
        let snapshot = self.store.snapshot()?;
        let mut streams = Vec::new();
        for row in snapshot.range(
            Space::Meta,
            KeyRange::prefix(keys::kinesis_name_prefix()),
            Direction::Forward,
        ) {
            let (key, id) = row?;
            let name = String::from_utf8_lossy(&key[keys::kinesis_name_prefix().len()..]);
            if after.as_deref().is_some_and(|a| *name <= *a) {
                continue;
            }
            let id =
                u64::from_be_bytes(id.as_slice().try_into().map_err(|_| {
                    EngineError::Internal("corrupt Kinesis stream name record".into())
                })?);
            if let Some(bytes) = snapshot.get(Space::Meta, &keys::kinesis_stream_key(id))? {
                streams.push(KinesisStream::decode(&bytes)?);
            }
            if streams.len() > limit {
                break;
            }
        }
        let has_more_streams = streams.len() > limit;
        streams.truncate(limit);
        Ok(ListStreamsOutput {
            stream_names: streams.iter().map(|s| s.name.clone()).collect(),
            has_more_streams,
            next_token: has_more_streams
                .then(|| streams.last().map(|s| encode_token(&s.name)))
                .flatten(),
            stream_summaries: streams
                .iter()
                .map(|s| StreamSummary {
                    stream_name: s.name.clone(),
                    stream_arn: s.arn(&ctx.region),
                    stream_status: "ACTIVE".into(),
                    stream_mode_details: mode_details(s.mode),
                    stream_creation_timestamp: epoch_seconds(s.created_ms),
                })
                .collect(),
        })
    }

    pub fn kinesis_list_shards(&self, input: ListShardsInput) -> Result<ListShardsOutput> {
        let mut c = Constraints::new();
        c.at_least("maxResults", input.max_results, 1);
        c.at_most("maxResults", input.max_results, 10_000);
        c.finish()?;
        let limit = usize::try_from(input.max_results.unwrap_or(1000)).unwrap_or(1000);
        // A NextToken carries the stream and the last shard listed; it excludes the rest.
        let (stream, after) = match &input.next_token {
            Some(token) => {
                if input.stream_name.is_some() || input.stream_arn.is_some() {
                    return Err(invalid_argument(
                        "NextToken and StreamName cannot be provided together.",
                    ));
                }
                let text = decode_token(token)?;
                let (name, after) = text
                    .split_once('\n')
                    .ok_or_else(|| invalid_argument("Invalid ListShards token."))?;
                let stream = self.kinesis_stream(&ListShardsInput {
                    stream_name: Some(name.to_owned()),
                    ..ListShardsInput::default()
                })?;
                (stream, Some(after.to_owned()))
            }
            None => (
                self.kinesis_stream(&input)?,
                input.exclusive_start_shard_id.clone(),
            ),
        };
        let mut shards = shards_after(&stream, after.as_deref());
        if let Some(filter) = &input.shard_filter {
            shards = filter_shards(&stream, shards, filter)?;
        }
        let more = shards.len() > limit;
        shards.truncate(limit);
        let next_token = more
            .then(|| shards.last())
            .flatten()
            .map(|last| encode_token(&format!("{}\n{}", stream.name, last.shard_id)));
        Ok(ListShardsOutput { shards, next_token })
    }

    pub async fn kinesis_increase_retention(&self, input: RetentionPeriodInput) -> Result<()> {
        self.kinesis_retention(input, true).await
    }

    pub async fn kinesis_decrease_retention(&self, input: RetentionPeriodInput) -> Result<()> {
        self.kinesis_retention(input, false).await
    }

    async fn kinesis_retention(&self, input: RetentionPeriodInput, increase: bool) -> Result<()> {
        let mut c = Constraints::new();
        c.not_null(
            "retentionPeriodHours",
            input.retention_period_hours.as_ref(),
        );
        c.at_least("retentionPeriodHours", input.retention_period_hours, 1);
        c.finish()?;
        let hours = input.retention_period_hours.unwrap_or_default();
        let stream = self.kinesis_stream(&input)?;
        if !(MIN_RETENTION_HOURS..=MAX_RETENTION_HOURS).contains(&hours) {
            let (word, bound) = if hours < MIN_RETENTION_HOURS {
                ("shorter", format!("minimum value of {MIN_RETENTION_HOURS}"))
            } else {
                ("longer", format!("maximum value of {MAX_RETENTION_HOURS}"))
            };
            return Err(invalid_argument(format!(
                "Requested retention period ({hours} hours) for stream {} can not be {word} \
                 than the {bound} hours.",
                stream.name
            )));
        }
        let current = i64::from(stream.retention_hours);
        if increase && hours < current {
            return Err(invalid_argument(format!(
                "Requested retention period ({hours} hours) for stream {} can not be shorter \
                 than existing retention period ({current} hours). Use \
                 DecreaseRetentionPeriod API.",
                stream.name
            )));
        }
        if !increase && hours > current {
            return Err(invalid_argument(format!(
                "Requested retention period ({hours} hours) for stream {} can not be longer \
                 than existing retention period ({current} hours). Use \
                 IncreaseRetentionPeriod API.",
                stream.name
            )));
        }
        let hours = u32::try_from(hours).unwrap_or(24);
        self.update_kinesis_stream(stream, move |s| {
            s.retention_hours = hours;
            Ok(())
        })
        .await
    }

    pub async fn kinesis_add_tags(&self, input: AddTagsToStreamInput) -> Result<()> {
        let mut c = Constraints::new();
        c.not_null("tags", input.tags.as_ref());
        c.finish()?;
        let tags = input.tags.clone().unwrap_or_default();
        check_tags(tags.keys().map(String::as_str), tags.values())?;
        let stream = self.kinesis_stream(&input)?;
        self.update_kinesis_stream(stream, move |s| {
            s.tags.extend(tags);
            if s.tags.len() > MAX_TAGS {
                return Err(invalid_argument(format!(
                    "Failed to add tags to stream {} under account {ACCOUNT_ID} because a \
                     given stream cannot have more than {MAX_TAGS} tags.",
                    s.name
                )));
            }
            Ok(())
        })
        .await
    }

    pub async fn kinesis_remove_tags(&self, input: RemoveTagsFromStreamInput) -> Result<()> {
        let mut c = Constraints::new();
        c.not_null("tagKeys", input.tag_keys.as_ref());
        if let Some(keys) = &input.tag_keys {
            c.length("tagKeys", &format!("{keys:?}"), keys.len(), 1, MAX_TAGS);
        }
        c.finish()?;
        let remove = input.tag_keys.clone().unwrap_or_default();
        let stream = self.kinesis_stream(&input)?;
        self.update_kinesis_stream(stream, move |s| {
            for key in &remove {
                s.tags.remove(key);
            }
            Ok(())
        })
        .await
    }

    pub fn kinesis_list_tags(
        &self,
        input: ListTagsForStreamInput,
    ) -> Result<ListTagsForStreamOutput> {
        let mut c = Constraints::new();
        c.at_least("limit", input.limit, 1);
        c.at_most("limit", input.limit, 50);
        c.finish()?;
        let stream = self.kinesis_stream(&input)?;
        let limit = usize::try_from(input.limit.unwrap_or(50)).unwrap_or(50);
        let after = input.exclusive_start_tag_key.as_deref();
        let mut tags: Vec<KinesisTag> = stream
            .tags
            .iter()
            .filter(|(k, _)| after.is_none_or(|a| k.as_str() > a))
            .map(|(k, v)| KinesisTag {
                key: k.clone(),
                value: v.clone(),
            })
            .collect();
        let has_more_tags = tags.len() > limit;
        tags.truncate(limit);
        Ok(ListTagsForStreamOutput {
            tags,
            has_more_tags,
        })
    }

    /// Rewrites a stream's metadata with `change` applied, in a writer job (so a PutRecord
    /// of the same group sees it).
    async fn update_kinesis_stream(
        &self,
        stream: KinesisStream,
        change: impl FnOnce(&mut KinesisStream) -> Result<()> + Send + 'static,
    ) -> Result<()> {
        self.writer
            .submit(false, move |w| {
                let key = stream.key();
                let bytes = w
                    .get(Space::Meta, &key)?
                    .ok_or_else(|| not_found(&stream.name))?;
                let mut current = KinesisStream::decode(&bytes)?;
                change(&mut current)?;
                w.put(Space::Meta, key, current.encode()?);
                Ok(())
            })
            .await
    }

    /// Each stream's name, records written so far and open shards (for `/metrics`).
    pub fn kinesis_figures(&self) -> Result<Vec<(String, u64, usize)>> {
        let snapshot = self.store.snapshot()?;
        let mut figures = Vec::new();
        for row in snapshot.range(
            Space::Meta,
            KeyRange::prefix(keys::kinesis_stream_prefix()),
            Direction::Forward,
        ) {
            let stream = KinesisStream::decode(&row?.1)?;
            let open = stream.shards.iter().filter(|s| s.is_open()).count();
            figures.push((stream.name, stream.next_seq - 1, open));
        }
        self.counters
            .kinesis
            .retain(|name| figures.iter().any(|(n, _, _)| n == name));
        Ok(figures)
    }

    /// Open shards of every stream: what the account's shard quota counts.
    pub(crate) fn kinesis_open_shard_count(&self) -> Result<u32> {
        let snapshot = self.store.snapshot()?;
        let mut open = 0u32;
        for row in snapshot.range(
            Space::Meta,
            KeyRange::prefix(keys::kinesis_stream_prefix()),
            Direction::Forward,
        ) {
            let stream = KinesisStream::decode(&row?.1)?;
            let count = stream.shards.iter().filter(|s| s.is_open()).count();
            open = open.saturating_add(u32::try_from(count).unwrap_or(u32::MAX));
        }
        Ok(open)
    }

    /// The stream an input names, as committed.
    pub(crate) fn kinesis_stream(&self, input: &impl NamesStream) -> Result<KinesisStream> {
        let name = resolve(input.stream())?;
        let snapshot = self.store.snapshot()?;
        super::stream_by_name(snapshot.as_ref(), name)?.ok_or_else(|| not_found(name))
    }
}

pub(crate) fn not_found(name: &str) -> EngineError {
    EngineError::ResourceNotFound(format!(
        "Stream {name} under account {ACCOUNT_ID} not found."
    ))
}

fn shards_after(stream: &KinesisStream, after: Option<&str>) -> Vec<Shard> {
    let after = after.and_then(shard_number);
    stream
        .shards
        .iter()
        .filter(|s| after.is_none_or(|a| s.number > a))
        .map(|s| s.wire())
        .collect()
}

/// ListShards' `ShardFilter`: AT_LATEST (open shards), AT_TRIM_HORIZON and
/// FROM_TRIM_HORIZON (every shard kept), AFTER_SHARD_ID (after `ShardId`), AT_TIMESTAMP and
/// FROM_TIMESTAMP (shards open at or after `Timestamp`).
fn filter_shards(
    stream: &KinesisStream,
    shards: Vec<Shard>,
    filter: &ShardFilterInput,
) -> Result<Vec<Shard>> {
    let kind = filter
        .filter_type
        .as_deref()
        .ok_or_else(|| invalid_argument("ShardFilter Type is required."))?;
    let open = |s: &Shard| stream.shard(&s.shard_id).is_some_and(|s| s.is_open());
    Ok(match kind {
        "AT_LATEST" | "AT_TIMESTAMP" | "FROM_TIMESTAMP" => {
            shards.into_iter().filter(|s| open(s)).collect()
        }
        "AT_TRIM_HORIZON" | "FROM_TRIM_HORIZON" => shards,
        "AFTER_SHARD_ID" => {
            let id = filter.shard_id.as_deref().ok_or_else(|| {
                invalid_argument("ShardId must be provided for the AFTER_SHARD_ID filter.")
            })?;
            let after = shard_number(id).unwrap_or(u32::MAX);
            shards
                .into_iter()
                .filter(|s| shard_number(&s.shard_id).is_some_and(|n| n > after))
                .collect()
        }
        other => {
            return Err(EngineError::validation(kura_model::messages::constraint(
                Some(other),
                "shardFilter.type",
                &kura_model::messages::enum_values(&[
                    "AFTER_SHARD_ID",
                    "AT_TRIM_HORIZON",
                    "FROM_TRIM_HORIZON",
                    "AT_LATEST",
                    "AT_TIMESTAMP",
                    "FROM_TIMESTAMP",
                ]),
            )));
        }
    })
}

fn mode_details(mode: Mode) -> StreamModeDetails {
    StreamModeDetails {
        stream_mode: mode.wire().to_owned(),
    }
}

fn no_enhanced_monitoring() -> Vec<EnhancedMetrics> {
    vec![EnhancedMetrics {
        shard_level_metrics: Vec::new(),
    }]
}

/// Tag keys of 1 to 128 characters, values of 0 to 256.
fn check_tags<'a>(
    keys: impl Iterator<Item = &'a str>,
    values: impl Iterator<Item = &'a String>,
) -> Result<()> {
    for key in keys {
        if key.is_empty() || key.chars().count() > 128 {
            return Err(invalid_argument(format!(
                "Tag key {key} must be between 1 and 128 characters."
            )));
        }
    }
    for value in values {
        if value.chars().count() > 256 {
            return Err(invalid_argument(
                "Tag values must be at most 256 characters.",
            ));
        }
    }
    Ok(())
}

fn encode_token(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(text)
}

fn decode_token(token: &str) -> Result<String> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(token)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .ok_or_else(|| invalid_argument(format!("Invalid NextToken: {token}")))
}
