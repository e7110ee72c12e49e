//! Kinesis streams: the list, and one stream's shards with its latest records. The records
//! are those that arrived in the last minutes (`?minutes=`, 15 by default), newest first,
//! read with an AT_TIMESTAMP iterator per shard, as a consumer would; a DynamoDB change
//! record (a table's streaming destination) shows its event, table and keys.

use axum::extract::{Path, Query};
use axum::response::Response;
use base64::Engine as _;
use maud::{Markup, html};
use serde::Deserialize;
use serde_json::{Value, json};

use super::Ctx;
use super::layout::{self, Tab};
use kura_api::error::ApiError;
use kura_api::operation::Op;

/// Most records the page shows.
const MAX_RECORDS: usize = 100;
/// Characters of a record's data the page shows.
const MAX_DATA: usize = 2048;

/// `GET /console/kinesis`.
pub(crate) async fn list(ctx: Ctx) -> Response {
    let body = match streams(&ctx).await {
        Err(e) => layout::error(&e),
        Ok(streams) if streams.is_empty() => html! {
            p.empty { "No Kinesis streams. Create one with "
                code { "aws kinesis create-stream --stream-name NAME --shard-count 1 --endpoint-url " (ctx.endpoint()) } "." }
        },
        Ok(streams) => html! {
            table.grid.streams {
                thead { tr { th { "Stream" } th { "Mode" } th { "Open shards" } th { "Retention" } } }
                tbody {
                    @for s in &streams {
                        @let name = s["StreamName"].as_str().unwrap_or("");
                        tr {
                            td { a href=(format!("/console/kinesis/{}", layout::encode(name))) { (name) } }
                            td { (s["StreamModeDetails"]["StreamMode"].as_str().unwrap_or("")) }
                            td { (s["OpenShardCount"]) }
                            td { (s["RetentionPeriodHours"]) " h" }
                        }
                    }
                }
            }
        },
    };
    ctx.page(
        "Kinesis streams",
        Tab::Kinesis,
        html! { h1 { "Kinesis streams" } (body) },
    )
}

/// Every stream's summary, in name order.
async fn streams(ctx: &Ctx) -> Result<Vec<Value>, ApiError> {
    let mut names = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let request = match &token {
            Some(t) => json!({ "NextToken": t }),
            None => json!({}),
        };
        let page = ctx.call(Op::KinesisListStreams, request).await?;
        names.extend(
            page["StreamNames"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|n| n.as_str().map(str::to_owned)),
        );
        match page["NextToken"].as_str() {
            Some(next) if page["HasMoreStreams"] == json!(true) => token = Some(next.to_owned()),
            _ => break,
        }
    }
    let mut out = Vec::new();
    for name in names {
        let summary = ctx
            .call(
                Op::KinesisDescribeStreamSummary,
                json!({ "StreamName": name }),
            )
            .await?;
        out.push(summary["StreamDescriptionSummary"].clone());
    }
    Ok(out)
}

#[derive(Deserialize)]
pub(crate) struct Window {
    minutes: Option<u32>,
}

/// `GET /console/kinesis/{stream}`.
pub(crate) async fn show(
    ctx: Ctx,
    Path(name): Path<String>,
    Query(window): Query<Window>,
) -> Response {
    let minutes = window.minutes.unwrap_or(15).clamp(1, 7 * 24 * 60);
    let body = match stream_page(&ctx, &name, minutes).await {
        Ok(body) => body,
        Err(e) => layout::error(&e),
    };
    ctx.page(&name, Tab::Kinesis, html! { h1 { (name) } (body) })
}

async fn stream_page(ctx: &Ctx, name: &str, minutes: u32) -> Result<Markup, ApiError> {
    let summary = ctx
        .call(
            Op::KinesisDescribeStreamSummary,
            json!({ "StreamName": name }),
        )
        .await?;
    let summary = &summary["StreamDescriptionSummary"];
    let shards = ctx
        .call(Op::KinesisListShards, json!({ "StreamName": name }))
        .await?;
    let shards = shards["Shards"].as_array().cloned().unwrap_or_default();
    // The engine's clock, which stamps arrivals (a manual clock in tests).
    let since = ctx.engine().now_ms() as f64 / 1000.0 - f64::from(minutes) * 60.0;
    let mut records = Vec::new();
    for shard in &shards {
        let id = shard["ShardId"].as_str().unwrap_or("");
        records.extend(
            shard_records(ctx, name, id, since)
                .await?
                .into_iter()
                .map(|r| (id.to_owned(), r)),
        );
    }
    // Newest first; sequence numbers increase across the stream's shards.
    records.sort_by(|a, b| {
        b.1["SequenceNumber"]
            .as_str()
            .cmp(&a.1["SequenceNumber"].as_str())
    });
    let more = records.len() > MAX_RECORDS;
    records.truncate(MAX_RECORDS);
    Ok(html! {
        dl.facts {
            dt { "ARN" } dd { code { (summary["StreamARN"].as_str().unwrap_or("")) } }
            dt { "Mode" } dd { (summary["StreamModeDetails"]["StreamMode"].as_str().unwrap_or("")) }
            dt { "Retention" } dd { (summary["RetentionPeriodHours"]) " hours" }
        }
        h2 { "Shards" }
        table.grid.shards {
            thead { tr { th { "Shard" } th { "Parents" } th { "Hash keys" } th { "State" } } }
            tbody {
                @for s in &shards {
                    tr {
                        td { code { (s["ShardId"].as_str().unwrap_or("")) } }
                        td { code { (s["ParentShardId"].as_str().unwrap_or("")) " " (s["AdjacentParentShardId"].as_str().unwrap_or("")) } }
                        td.hash { (s["HashKeyRange"]["StartingHashKey"].as_str().unwrap_or("")) " – " (s["HashKeyRange"]["EndingHashKey"].as_str().unwrap_or("")) }
                        td { @if s["SequenceNumberRange"]["EndingSequenceNumber"].is_string() { "closed" } @else { "open" } }
                    }
                }
            }
        }
        h2 { "Records of the last " (minutes) " minutes" }
        p { a href=(format!("/console/kinesis/{}?minutes={minutes}", layout::encode(name))) { "Refresh" }
            @if more { " · the newest " (MAX_RECORDS) " are shown" } }
        @if records.is_empty() {
            p.empty { "No records arrived in that time." }
        } @else {
            table.grid.records {
                thead { tr { th { "Arrived" } th { "Shard" } th { "Partition key" } th { "Data" } } }
                tbody {
                    @for (shard, r) in &records {
                        tr {
                            td { (arrived(&r["ApproximateArrivalTimestamp"])) }
                            td { code { (shard) } }
                            td.pk { (r["PartitionKey"].as_str().unwrap_or("")) }
                            td { pre.data { (data_text(r["Data"].as_str().unwrap_or(""))) } }
                        }
                    }
                }
            }
        }
    })
}

/// The records of one shard that arrived since `since` (epoch seconds), oldest first,
/// at most a page more than the page shows.
async fn shard_records(
    ctx: &Ctx,
    stream: &str,
    shard: &str,
    since: f64,
) -> Result<Vec<Value>, ApiError> {
    let iterator = ctx
        .call(Op::KinesisGetShardIterator,
            json!({ "StreamName": stream, "ShardId": shard, "ShardIteratorType": "AT_TIMESTAMP", "Timestamp": since }),
        )
        .await?;
    let mut next = iterator["ShardIterator"].as_str().map(str::to_owned);
    let mut out: Vec<Value> = Vec::new();
    while let Some(it) = next.take() {
        let page = ctx
            .call(
                Op::KinesisGetRecords,
                json!({ "ShardIterator": it, "Limit": 1000 }),
            )
            .await?;
        let got = page["Records"].as_array().cloned().unwrap_or_default();
        if got.is_empty() {
            break;
        }
        out.extend(got);
        // Only the newest are shown: keep a bounded tail.
        if out.len() > 2 * MAX_RECORDS {
            out.drain(..out.len() - MAX_RECORDS - 1);
        }
        next = page["NextShardIterator"].as_str().map(str::to_owned);
    }
    Ok(out)
}

/// A record's data as text: UTF-8 as it is (a DynamoDB change record is JSON), anything
/// else in base64; cut to [`MAX_DATA`] characters.
fn data_text(base64_data: &str) -> String {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(base64_data)
        .unwrap_or_default();
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(_) => format!("base64: {base64_data}"),
    };
    if text.chars().count() > MAX_DATA {
        let cut: String = text.chars().take(MAX_DATA).collect();
        format!("{cut}…")
    } else {
        text
    }
}

fn arrived(seconds: &Value) -> String {
    let ms = (seconds.as_f64().unwrap_or(0.0) * 1000.0) as i128;
    time::OffsetDateTime::from_unix_timestamp_nanos(ms * 1_000_000)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}
