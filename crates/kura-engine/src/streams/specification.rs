//! Enabling and disabling a table's stream (CreateTable, UpdateTable, DeleteTable), with
//! DynamoDB's checks, and what DescribeTable says about it.

use kura_model::constraint::Constraints;
use kura_model::messages;

use crate::RequestContext;
use crate::api::{StreamSpecificationInput, StreamSpecificationOut};
use crate::catalog::TableRecord;
use crate::error::{EngineError, Result};
use crate::keys;
use crate::streams::meta::{StreamMeta, ViewType};
use crate::writer::WriteContext;
use kura_store::Space;

/// What a request asks of the stream: enable with a view type, or disable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StreamChange {
    Enable(ViewType),
    Disable,
}

/// Framework constraints of a StreamSpecification.
pub(crate) fn constraints(c: &mut Constraints, spec: Option<&StreamSpecificationInput>) {
    if let Some(spec) = spec {
        c.not_null(
            "streamSpecification.streamEnabled",
            spec.stream_enabled.as_ref(),
        );
        c.one_of(
            "streamSpecification.streamViewType",
            spec.stream_view_type.as_deref(),
            &ViewType::WIRE,
        );
    }
}

/// The change a StreamSpecification asks for; `creating` selects CreateTable's messages.
pub(crate) fn requested(
    spec: Option<&StreamSpecificationInput>,
    creating: bool,
) -> Result<Option<StreamChange>> {
    let Some(spec) = spec else { return Ok(None) };
    let view = spec.stream_view_type.as_deref().and_then(ViewType::parse);
    match (spec.stream_enabled.unwrap_or(false), view) {
        (true, Some(view)) => Ok(Some(StreamChange::Enable(view))),
        (true, None) => Err(EngineError::validation(if creating {
            messages::STREAM_CREATE_NEEDS_VIEW_TYPE
        } else {
            messages::STREAM_ENABLE_NEEDS_VIEW_TYPE
        })),
        (false, Some(_)) => Err(EngineError::validation(if creating {
            messages::STREAM_CREATE_DISABLED_WITH_VIEW_TYPE
        } else {
            messages::STREAM_DISABLE_WITH_VIEW_TYPE
        })),
        // A new table without a stream is simply that.
        (false, None) if creating => Ok(None),
        (false, None) => Ok(Some(StreamChange::Disable)),
    }
}

/// Hands out a stream id, in the job's batch: DynamoDB and Kinesis streams draw from one
/// counter, so their records never share a `Streams` key prefix.
pub(crate) fn next_stream_id(w: &mut WriteContext<'_>) -> Result<u64> {
    let id = match w.get(Space::Meta, keys::META_NEXT_STREAM_ID)? {
        Some(bytes) => u64::from_be_bytes(
            bytes
                .as_slice()
                .try_into()
                .map_err(|_| EngineError::Internal("corrupt stream id counter".into()))?,
        ),
        None => 1,
    };
    w.put(
        Space::Meta,
        keys::META_NEXT_STREAM_ID.to_vec(),
        (id + 1).to_be_bytes().to_vec(),
    );
    Ok(id)
}

/// Applies `change` to the table record being written, in the same batch.
pub(crate) fn apply(
    w: &mut WriteContext<'_>,
    table: &mut TableRecord,
    change: StreamChange,
) -> Result<()> {
    let enabled = table.stream.as_ref().is_some_and(|s| s.enabled);
    match change {
        StreamChange::Enable(_) if enabled => Err(EngineError::validation(
            messages::stream_already_enabled(&table.name),
        )),
        StreamChange::Enable(view) => {
            let id = next_stream_id(w)?;
            // The label is the creation time; a name's streams never share one, even
            // when enabled twice in a millisecond or across a clock step back.
            let label_key = keys::stream_label_key(&table.name);
            let last = match w.get(Space::Meta, &label_key)? {
                Some(bytes) => i64::from_be_bytes(
                    bytes
                        .as_slice()
                        .try_into()
                        .map_err(|_| EngineError::Internal("corrupt stream label record".into()))?,
                ),
                None => i64::MIN,
            };
            let created = w.now_ms().max(last.saturating_add(1));
            w.put(Space::Meta, label_key, created.to_be_bytes().to_vec());
            let meta = StreamMeta::new(
                id,
                &table.name,
                table.id,
                table.key_schema.clone(),
                view,
                created,
                w.limits().shards.initial,
            );
            w.put(Space::Meta, meta.key(), meta.encode()?);
            table.stream = Some(meta.spec());
            tracing::info!(table = %table.name, label = %meta.label, "stream enabled");
            Ok(())
        }
        StreamChange::Disable if !enabled => Err(EngineError::validation(
            messages::no_stream_to_disable(&table.name),
        )),
        StreamChange::Disable => disable(w, table),
    }
}

/// Disables the table's stream, if enabled: its records stay readable for 24 hours.
pub(crate) fn disable(w: &mut WriteContext<'_>, table: &mut TableRecord) -> Result<()> {
    let Some(spec) = table.stream.as_mut().filter(|s| s.enabled) else {
        return Ok(());
    };
    let key = keys::stream_meta_key(spec.id);
    let bytes = w
        .get(Space::Meta, &key)?
        .ok_or_else(|| EngineError::Internal("a table's stream has no record".into()))?;
    let mut meta = StreamMeta::decode(&bytes)?;
    meta.disable(w.now_ms());
    w.put(Space::Meta, key, meta.encode()?);
    spec.enabled = false;
    Ok(())
}

/// DescribeTable's stream members: StreamSpecification (only while enabled), and the
/// latest stream's label and ARN (kept after disabling).
pub(crate) fn describe(
    ctx: &RequestContext,
    table: &TableRecord,
) -> (
    Option<StreamSpecificationOut>,
    Option<String>,
    Option<String>,
) {
    let Some(spec) = &table.stream else {
        return (None, None, None);
    };
    let specification = spec.enabled.then(|| StreamSpecificationOut {
        stream_enabled: true,
        stream_view_type: Some(spec.view_type.wire()),
    });
    (
        specification,
        Some(spec.label.clone()),
        Some(crate::arn::stream(&ctx.region, &table.name, &spec.label)),
    )
}
