//! The stream's live tail. The page polls `…/stream/poll`, which reads every shard a
//! consumer should read now, in lineage order: a child shard only once its parent is read
//! to its end, as the Kinesis Client Library does. The position (each shard's iterator
//! and last sequence number) goes back and forth with the page, so the server keeps no
//! state per viewer.

use std::collections::BTreeMap;

use axum::extract::Path;
use axum::response::Response;
use maud::html;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::layout::{self, Section, Tab, table_path};
use super::tables::describe;
use super::values::{self, pack, unpack};
use super::{Ctx, Fields, Posted, field};
use kura_api::error::ApiError;
use kura_api::operation::Op;

/// Records one poll returns at most (GetRecords' own most per call). A poll that fills it
/// is followed at once by the next, so a replay from the oldest record catches up at
/// thousands of records a second instead of one page a second.
const MAX_RECORDS: usize = 1000;
/// Characters of an image the tail shows; the item editor has the rest.
const MAX_IMAGE: usize = 4096;

/// Where the tail is in one shard.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct ShardPosition {
    /// The next shard iterator, while it is fresh.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    iterator: Option<String>,
    /// The last sequence number shown (a stale iterator starts again after it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    after: Option<String>,
    /// Where to start when there is neither: LATEST or TRIM_HORIZON ("" once done).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    start: String,
    /// Read to its end (a closed shard with no more records).
    #[serde(default)]
    done: bool,
}

/// The whole tail's position. The shard list is read again (DescribeStream) only when a
/// shard was read to its end: children appear when their parent closes, so an open tail
/// costs GetRecords calls only.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Cursor {
    stream: String,
    shards: BTreeMap<String, ShardPosition>,
    /// List the shards again before the next read.
    #[serde(default)]
    relist: bool,
    /// Shards the stream listed last time.
    #[serde(default)]
    listed: usize,
}

/// `GET /console/tables/{table}/stream`.
pub(crate) async fn page(ctx: Ctx, Path(table): Path<String>) -> Response {
    let t = match describe(&ctx, &table).await {
        Ok(t) => t,
        Err(e) => return ctx.page(&table, Tab::Tables, layout::error(&e)),
    };
    let arn = t["LatestStreamArn"].as_str().unwrap_or("").to_owned();
    let enabled = t["StreamSpecification"]["StreamEnabled"] == json!(true);
    let shards = if arn.is_empty() {
        Ok(Vec::new())
    } else {
        all_shards(&ctx, &arn).await
    };
    let body = html! {
        @if !enabled {
            p.empty { "The stream of this table is off. Turn it on in " a href=(table_path(&table, Section::Overview)) { "the overview" } "." }
        }
        @if !arn.is_empty() {
            dl.facts {
                dt { "Stream" } dd { code { (arn) } }
                dt { "View type" } dd { (t["StreamSpecification"]["StreamViewType"].as_str().unwrap_or("")) }
            }
            h2 { "Shards" }
            @match &shards {
                Err(e) => (layout::error(e)),
                Ok(shards) => {
                    table.grid.shards {
                        thead { tr { th { "Shard" } th { "Parent" } th { "State" } } }
                        tbody {
                            @for s in shards {
                                tr {
                                    td { code { (s["ShardId"].as_str().unwrap_or("")) } }
                                    td { code { (s["ParentShardId"].as_str().unwrap_or("")) } }
                                    td { @if s["SequenceNumberRange"]["EndingSequenceNumber"].is_string() { "closed" } @else { "open" } }
                                }
                            }
                        }
                    }
                }
            }
            h2 { "Live tail" }
            div #tail-controls.row data-poll=(table_path(&table, Section::Stream) + "/poll") data-csrf=(ctx.session.csrf) {
                label { "Start from"
                    select #tail-from {
                        option value="latest" { "now (new records only)" }
                        option value="trim_horizon" { "the oldest record kept (24 hours)" }
                    }
                }
                label { "Events"
                    select #tail-event {
                        option value="" { "all" }
                        option value="INSERT" { "INSERT" }
                        option value="MODIFY" { "MODIFY" }
                        option value="REMOVE" { "REMOVE" }
                    }
                }
                label { "Keys containing" input #tail-key type="search" placeholder="USER#1"; }
                label { "Keep the newest"
                    select #tail-keep {
                        option value="100" { "100 rows" }
                        option value="500" selected { "500 rows" }
                        option value="2000" { "2,000 rows" }
                    }
                }
                button #tail-pause type="button" { "Pause" }
                span #tail-status role="status" { "connecting…" }
            }
            table #tail.grid.tail {
                thead { tr { th { "Time" } th { "Event" } th { "Keys" } th { "Old image" } th { "New image" } th { "Shard · sequence" } } }
                tbody {}
            }
        }
    };
    ctx.page(&table, Tab::Table(&table, Section::Stream), body)
}

/// Every shard of a stream, through DescribeStream's pages.
async fn all_shards(ctx: &Ctx, arn: &str) -> Result<Vec<Value>, ApiError> {
    let mut shards = Vec::new();
    let mut start: Option<String> = None;
    loop {
        let mut request = json!({ "StreamArn": arn, "Limit": 100 });
        if let Some(s) = &start {
            request["ExclusiveStartShardId"] = json!(s);
        }
        let out = ctx.call(Op::DescribeStream, request).await?;
        let page = out["StreamDescription"]["Shards"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let last = out["StreamDescription"]["LastEvaluatedShardId"]
            .as_str()
            .map(str::to_owned);
        shards.extend(page);
        match last {
            Some(l) => start = Some(l),
            None => return Ok(shards),
        }
    }
}

/// `POST /console/tables/{table}/stream/poll` with the form's `cursor` and `from`
/// (`latest` or `trim_horizon`): the new records (images as plain JSON) and the next
/// cursor. A POST, as the cursor grows with the shards a long tail has seen.
pub(crate) async fn poll(Path(table): Path<String>, Posted { ctx, fields: q }: Posted) -> Response {
    match read(&ctx, &table, &q).await {
        Ok(answer) => ctx.json(&answer),
        Err(e) => ctx.json(
            &json!({ "error": format!("{}: {}", e.name(), e.message.as_deref().unwrap_or("")) }),
        ),
    }
}

async fn read(ctx: &Ctx, table: &str, q: &Fields) -> Result<Value, ApiError> {
    let sent: Option<Cursor> = unpack(field(q, "cursor"))
        .and_then(|v| serde_json::from_value(v).ok())
        .filter(|c: &Cursor| !c.shards.is_empty());
    let mut cursor = match sent {
        Some(cursor) => cursor,
        None => {
            let t = describe(ctx, table).await?;
            let Some(arn) = t["LatestStreamArn"].as_str() else {
                return Err(ApiError::validation("The table has no stream".to_owned()));
            };
            Cursor {
                stream: arn.to_owned(),
                relist: true,
                ..Cursor::default()
            }
        }
    };
    if cursor.relist {
        relist(ctx, &mut cursor, field(q, "from") == "trim_horizon").await?;
    }
    let active: Vec<String> = cursor
        .shards
        .iter()
        .filter(|(_, p)| !p.done)
        .map(|(id, _)| id.clone())
        .collect();
    let mut records = Vec::new();
    let mut more = false;
    for id in active {
        if records.len() >= MAX_RECORDS {
            more = true;
            break;
        }
        let stream = cursor.stream.clone();
        let Some(position) = cursor.shards.get_mut(&id) else {
            continue;
        };
        more |= read_shard(ctx, &stream, &id, position, &mut records).await?;
        if position.done {
            // Its children (if any) are listed from now: read them next poll.
            position.start.clear();
            cursor.relist = true;
        }
    }
    // Time order across shards (sequence numbers grow with time); the page keeps its rows
    // in this order across polls too.
    records.sort_by(|a, b| a.order.cmp(&b.order));
    // The page keeps the newest `keep` rows: only those are drawn (images, changes); the
    // others are counted, which is what a fast replay from the oldest record needs.
    let keep = field(q, "keep")
        .parse::<usize>()
        .unwrap_or(500)
        .clamp(1, 2000);
    let read = records.len();
    let shown: Vec<Value> = records[read.saturating_sub(keep)..]
        .iter()
        .map(Raw::render)
        .collect();
    let value = serde_json::to_value(&cursor).unwrap_or(Value::Null);
    Ok(
        json!({ "records": shown, "read": read, "cursor": pack(&value),
               "shards": cursor.listed, "more": more || cursor.relist }),
    )
}

/// Lists the stream's shards and gives a position to each one a consumer should read
/// now: every shard of a new tail (from now: the open ones at LATEST; from the oldest
/// record: the roots at TRIM_HORIZON), and any shard whose parent is read to its end or
/// trimmed away. Shards trimmed away are forgotten.
async fn relist(ctx: &Ctx, cursor: &mut Cursor, from_start: bool) -> Result<(), ApiError> {
    let fresh = cursor.shards.is_empty();
    let mut shards = all_shards(ctx, &cursor.stream).await?;
    // Parents before children: sequence numbers grow along the lineage.
    shards.sort_by_key(|s| {
        s["SequenceNumberRange"]["StartingSequenceNumber"]
            .as_str()
            .and_then(|n| n.parse::<u128>().ok())
            .unwrap_or(0)
    });
    let ids: Vec<String> = shards
        .iter()
        .filter_map(|s| s["ShardId"].as_str().map(str::to_owned))
        .collect();
    cursor.shards.retain(|id, _| ids.contains(id));
    for shard in &shards {
        let id = shard["ShardId"].as_str().unwrap_or("");
        if cursor.shards.contains_key(id) {
            continue;
        }
        let closed = shard["SequenceNumberRange"]["EndingSequenceNumber"].is_string();
        // A parent no longer listed was trimmed away; one listed must be read to its end
        // first (a grandchild waits for both).
        let parent_read = shard["ParentShardId"].as_str().is_none_or(|p| {
            !ids.iter().any(|i| i == p) || cursor.shards.get(p).is_some_and(|pos| pos.done)
        });
        let position = if fresh && !from_start {
            // A tail from now: closed shards hold only the past.
            ShardPosition {
                start: if closed {
                    String::new()
                } else {
                    "LATEST".into()
                },
                done: closed,
                ..ShardPosition::default()
            }
        } else if parent_read {
            ShardPosition {
                start: "TRIM_HORIZON".into(),
                ..ShardPosition::default()
            }
        } else {
            continue;
        };
        cursor.shards.insert(id.to_owned(), position);
    }
    cursor.relist = false;
    cursor.listed = ids.len();
    Ok(())
}

/// Reads one shard's next records into `records`, moving its position on; true when the
/// shard has more to read now (the page was full).
async fn read_shard(
    ctx: &Ctx,
    arn: &str,
    shard: &str,
    position: &mut ShardPosition,
    records: &mut Vec<Raw>,
) -> Result<bool, ApiError> {
    let iterator = match position.iterator.take() {
        Some(it) => it,
        None => fresh_iterator(ctx, arn, shard, position).await?,
    };
    let limit = (MAX_RECORDS - records.len()).max(1);
    let mut out = match ctx
        .call(
            Op::GetRecords,
            json!({ "ShardIterator": iterator, "Limit": limit }),
        )
        .await
    {
        Ok(out) => out,
        // An iterator older than 15 minutes (a paused tail): start again after the last
        // record shown, or, when that record was trimmed meanwhile, at the oldest kept.
        // A tail from now that showed nothing yet starts from now again: what was written
        // while it was paused is skipped (the "oldest record" start shows it).
        Err(e)
            if e.name() == "ExpiredIteratorException"
                || e.name() == "TrimmedDataAccessException" =>
        {
            if e.name() == "TrimmedDataAccessException" {
                position.after = None;
                position.start = "TRIM_HORIZON".into();
            }
            let iterator = match fresh_iterator(ctx, arn, shard, position).await {
                Err(e) if e.name() == "TrimmedDataAccessException" => {
                    position.after = None;
                    position.start = "TRIM_HORIZON".into();
                    fresh_iterator(ctx, arn, shard, position).await?
                }
                other => other?,
            };
            ctx.call(
                Op::GetRecords,
                json!({ "ShardIterator": iterator, "Limit": limit }),
            )
            .await?
        }
        Err(e) => return Err(e),
    };
    let got = out["Records"].as_array().map_or(0, Vec::len);
    if let Value::Array(list) = &mut out["Records"] {
        for record in list.drain(..) {
            let seq = record["dynamodb"]["SequenceNumber"]
                .as_str()
                .unwrap_or("")
                .to_owned();
            position.after = Some(seq.clone());
            records.push(Raw {
                order: order_key(&seq),
                sequence: seq,
                shard: shard.to_owned(),
                record,
            });
        }
    }
    match out["NextShardIterator"].as_str() {
        Some(next) => position.iterator = Some(next.to_owned()),
        None => position.done = true,
    }
    Ok(got >= limit && !position.done)
}

/// A record as GetRecords gave it, with where it sorts.
struct Raw {
    order: String,
    sequence: String,
    shard: String,
    record: Value,
}

impl Raw {
    /// The row the page draws: time, event, keys, images (cut), what a MODIFY changed.
    fn render(&self) -> Value {
        let d = &self.record["dynamodb"];
        json!({
            "shard": self.shard,
            "sequence": self.sequence,
            "order": self.order,
            "event": self.record["eventName"],
            "time": values::time_text(&d["ApproximateCreationDateTime"]),
            "keys": image(&d["Keys"]),
            "old": image(&d["OldImage"]),
            "new": image(&d["NewImage"]),
            "changed": changed(&d["OldImage"], &d["NewImage"]),
        })
    }
}

/// A sequence number as a key that sorts as the number does (they differ in length).
fn order_key(sequence: &str) -> String {
    format!("{sequence:0>40}")
}

/// An image as plain JSON, cut to [`MAX_IMAGE`] characters with what was left out said.
fn image(value: &Value) -> Option<String> {
    let map = value.as_object()?;
    let text = serde_json::to_string_pretty(&values::item_to_plain(map)).unwrap_or_default();
    let total = text.chars().count();
    Some(if total > MAX_IMAGE {
        format!(
            "{}\n… {} more characters (the item editor shows all of it)",
            values::cut(&text, MAX_IMAGE).trim_end_matches('…'),
            total - MAX_IMAGE
        )
    } else {
        text
    })
}

/// The attributes a MODIFY changed, added or removed, by name.
fn changed(old: &Value, new: &Value) -> Vec<String> {
    let (Some(old), Some(new)) = (old.as_object(), new.as_object()) else {
        return Vec::new();
    };
    let mut names: Vec<String> = old
        .iter()
        .filter(|(name, value)| new.get(*name) != Some(*value))
        .map(|(name, _)| name.clone())
        .chain(new.keys().filter(|name| !old.contains_key(*name)).cloned())
        .collect();
    names.sort();
    names
}

async fn fresh_iterator(
    ctx: &Ctx,
    arn: &str,
    shard: &str,
    position: &ShardPosition,
) -> Result<String, ApiError> {
    let mut request = json!({ "StreamArn": arn, "ShardId": shard });
    match &position.after {
        Some(seq) => {
            request["ShardIteratorType"] = json!("AFTER_SEQUENCE_NUMBER");
            request["SequenceNumber"] = json!(seq);
        }
        None => request["ShardIteratorType"] = json!(position.start),
    }
    let out = ctx.call(Op::GetShardIterator, request).await?;
    Ok(out["ShardIterator"].as_str().unwrap_or("").to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_keys_sort_as_the_numbers_do() {
        let mut keys = ["100", "99", "000000000000000000101"].map(order_key);
        keys.sort();
        assert_eq!(
            keys.map(|k| k.trim_start_matches('0').to_owned()),
            ["99", "100", "101"]
        );
    }

    #[test]
    fn a_modify_names_what_it_changed() {
        let old = json!({"pk": {"S": "a"}, "n": {"N": "1"}, "gone": {"S": "x"}});
        let new = json!({"pk": {"S": "a"}, "n": {"N": "2"}, "added": {"BOOL": true}});
        assert_eq!(changed(&old, &new), ["added", "gone", "n"]);
        assert!(changed(&Value::Null, &new).is_empty());
    }

    #[test]
    fn a_large_image_is_cut_and_says_so() {
        let big = json!({"v": {"S": "x".repeat(300_000)}});
        let text = image(&big).unwrap_or_default();
        assert!(text.chars().count() < MAX_IMAGE + 100);
        assert!(
            text.ends_with("more characters (the item editor shows all of it)"),
            "{}",
            &text[text.len() - 80..]
        );
    }
}
