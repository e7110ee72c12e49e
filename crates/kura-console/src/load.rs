//! Loading many items at once: a JSON array (or JSON lines) of items in plain or DynamoDB
//! JSON, pasted or read from a file by the page, written with BatchWriteItem 25 at a time
//! (unprocessed items sent again), as `aws dynamodb batch-write-item` users do by hand.

use axum::extract::Path;
use axum::response::Response;
use maud::{Markup, html};
use serde_json::{Map, Value, json};

use super::layout::{self, Section, Tab, csrf, table_path};
use super::tables::describe;
use super::values;
use super::{Ctx, Fields, Posted, field, raw};
use kura_api::error::ApiError;
use kura_api::operation::Op;

/// Sends of one batch's unprocessed items before giving up on them.
const RETRIES: usize = 8;

/// `GET /console/tables/{table}/load`.
pub(crate) async fn form(ctx: Ctx, Path(table): Path<String>) -> Response {
    if let Err(e) = describe(&ctx, &table).await {
        return ctx.page(&table, Tab::Tables, layout::error(&e));
    }
    let body = page(&ctx, &table, &Fields::new(), None);
    ctx.page(&table, Tab::Table(&table, Section::Items), body)
}

fn page(ctx: &Ctx, table: &str, f: &Fields, failed: Option<&ApiError>) -> Markup {
    let format = field(f, "format");
    html! {
        h2 { "Load items" }
        @if let Some(e) = failed { (layout::error(e)) }
        p.hint { "A JSON array of items, or one item per line; each in plain JSON (" code { r#"{"id": "a", "n": 1}"# } ") or DynamoDB JSON (" code { r#"{"id": {"S": "a"}}"# } "). They are written with BatchWriteItem, 25 at a time; an item with the key of one already there replaces it." }
        form.load method="post" action=(format!("/console/tables/{}/load", layout::encode(table))) {
            (csrf(ctx))
            div.row {
                label { "Read a file" input #load-file type="file" accept=".json,.jsonl,application/json" data-fills="load-items"; }
                label { "Format"
                    select name="format" {
                        option value="auto" selected[format.is_empty() || format == "auto"] { "detect" }
                        option value="plain" selected[format == "plain"] { "plain JSON" }
                        option value="dynamodb" selected[format == "dynamodb"] { "DynamoDB JSON" }
                    }
                }
            }
            textarea #load-items name="items" rows="16" spellcheck="false" aria-label="Items to load" { (raw(f, "items")) }
            div.row {
                button type="submit" { "Load items" }
                a.button.secondary href=(table_path(table, Section::Items)) { "Back to items" }
            }
        }
    }
}

/// The items of a load, each with where it came from ("line 7", "item 3"), so that an
/// item DynamoDB refuses is named by its place in what the user pasted.
struct Parsed {
    items: Vec<Map<String, Value>>,
    places: Vec<String>,
}

/// The items of the text: a JSON array, or one JSON object per line.
fn parse(text: &str, format: &str) -> Result<Parsed, ApiError> {
    let trimmed = text.trim();
    let (list, places): (Vec<Value>, Vec<String>) = if trimmed.starts_with('[') {
        let list: Vec<Value> = serde_json::from_str(trimmed)
            .map_err(|e| ApiError::validation(format!("The items are not a JSON array: {e}")))?;
        let places = (1..=list.len()).map(|n| format!("Item {n}")).collect();
        (list, places)
    } else {
        // Numbered as the text's lines, blank ones included, as an editor shows them.
        let start = text.len() - text.trim_start().len();
        let skipped = text[..start].matches('\n').count();
        trimmed
            .lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .map(|(n, line)| {
                let place = format!("Line {}", n + 1 + skipped);
                serde_json::from_str(line)
                    .map(|value| (value, place.clone()))
                    .map_err(|e| ApiError::validation(format!("{place} is not a JSON object: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .unzip()
    };
    let items = list
        .into_iter()
        .zip(&places)
        .map(|(item, place)| match item {
            Value::Object(map) => {
                // Detected: DynamoDB JSON when every attribute is one typed value.
                let typed = match format {
                    "dynamodb" => true,
                    "plain" => false,
                    _ => !map.is_empty() && map.values().all(values::is_typed),
                };
                Ok(if typed {
                    map
                } else {
                    values::to_typed_map(&map)
                })
            }
            _ => Err(ApiError::validation(format!(
                "{place} is not a JSON object"
            ))),
        })
        .collect::<Result<_, _>>()?;
    Ok(Parsed { items, places })
}

/// The most text a load takes (DynamoDB's own request limit).
const MAX_TEXT: usize = 16 << 20;

/// The items in BatchWriteItem's groups, as indexes into `items`: 25 at most, and a key
/// never twice in one group (BatchWriteItem refuses that; the later item goes in the next
/// group and replaces the earlier one, as two puts would).
fn batches(items: &[Map<String, Value>], key: &[&str]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut keys: Vec<String> = Vec::new();
    for (n, item) in items.iter().enumerate() {
        let this = key
            .iter()
            .map(|k| item.get(*k).map(Value::to_string).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\u{0}");
        let full = groups.last().is_none_or(|g| g.len() == 25);
        if full || keys.contains(&this) {
            groups.push(Vec::new());
            keys.clear();
        }
        keys.push(this);
        if let Some(group) = groups.last_mut() {
            group.push(n);
        }
    }
    groups
}

/// Writes one group, adding to `written` as items are written; when DynamoDB refuses the
/// group (a missing or mistyped key, an item too large), writes its items one at a time
/// to name the one refused by its place.
async fn write_placed(
    ctx: &Ctx,
    table: &str,
    parsed: &Parsed,
    group: &[usize],
    written: &mut usize,
) -> Result<(), ApiError> {
    let items: Vec<&Map<String, Value>> = group.iter().map(|&n| &parsed.items[n]).collect();
    match write_group(ctx, table, &items).await {
        Ok(n) => {
            *written += n;
            Ok(())
        }
        Err(e) if e.name() == "ValidationException" && group.len() > 1 => {
            for &n in group {
                *written += write_group(ctx, table, &[&parsed.items[n]])
                    .await
                    .map_err(|e| placed(e, &parsed.places[n]))?;
            }
            Ok(())
        }
        Err(e) => Err(match group {
            [n] => placed(e, &parsed.places[*n]),
            _ => e,
        }),
    }
}

/// `e` with the place of the item it refused before its message.
fn placed(e: ApiError, place: &str) -> ApiError {
    let message = format!("{place}: {}", e.message.as_deref().unwrap_or(""));
    ApiError {
        message: Some(message),
        ..e
    }
}

/// Writes one group, sending unprocessed or throttled items again with a growing pause
/// (50 ms doubling, at most 2 s between tries); Ok is how many were written.
async fn write_group(
    ctx: &Ctx,
    table: &str,
    group: &[&Map<String, Value>],
) -> Result<usize, ApiError> {
    let mut pending: Vec<Value> = group
        .iter()
        .map(|item| json!({ "PutRequest": { "Item": item } }))
        .collect();
    let mut written = 0;
    let mut pause = std::time::Duration::from_millis(50);
    for attempt in 0..RETRIES {
        if attempt > 0 {
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(std::time::Duration::from_secs(2));
        }
        let sent = pending.len();
        match ctx
            .call(
                Op::BatchWriteItem,
                json!({ "RequestItems": { table: pending.clone() } }),
            )
            .await
        {
            Ok(out) => {
                pending = out["UnprocessedItems"][table]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                written += sent.saturating_sub(pending.len());
                if pending.is_empty() {
                    return Ok(written);
                }
            }
            Err(e) if is_throttle(&e) => {}
            Err(e) => return Err(e),
        }
    }
    Err(ApiError::validation(format!(
        "{} items were still unprocessed after {RETRIES} tries (the table is throttled)",
        pending.len()
    )))
}

fn is_throttle(e: &ApiError) -> bool {
    matches!(
        e.name(),
        "ProvisionedThroughputExceededException" | "ThrottlingException" | "RequestLimitExceeded"
    )
}

/// `POST /console/tables/{table}/load`.
pub(crate) async fn load(Path(table): Path<String>, Posted { ctx, fields: f }: Posted) -> Response {
    let mut written = 0usize;
    let result = async {
        let text = raw(&f, "items");
        if text.len() > MAX_TEXT {
            return Err(ApiError::validation(format!(
                "The items are {} bytes; a load takes at most {MAX_TEXT} (load them in parts)",
                text.len()
            )));
        }
        let parsed = parse(text, field(&f, "format"))?;
        if parsed.items.is_empty() {
            return Err(ApiError::validation(
                "There are no items to load".to_owned(),
            ));
        }
        let t = describe(&ctx, &table).await?;
        let key: Vec<&str> = t["KeySchema"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|k| k["AttributeName"].as_str())
            .collect();
        for group in batches(&parsed.items, &key) {
            write_placed(&ctx, &table, &parsed, &group, &mut written).await?;
        }
        Ok(())
    }
    .await;
    match result {
        Ok(()) => ctx.redirect_notice(
            &table_path(&table, Section::Items),
            &format!("Loaded {written} items"),
        ),
        Err(e) => {
            // What was written stays written: say how far it got.
            let e = if written > 0 {
                ApiError {
                    message: Some(format!(
                        "{} ({written} items were written before it)",
                        e.message.as_deref().unwrap_or("")
                    )),
                    ..e
                }
            } else {
                e
            };
            let body = page(&ctx, &table, &f, Some(&e));
            ctx.page(&table, Tab::Table(&table, Section::Items), body)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_come_as_an_array_or_lines_in_either_json() {
        let array = parse(r#"[{"id": "a", "n": 1}, {"id": {"S": "b"}}]"#, "auto").expect("array");
        assert_eq!(
            Value::Object(array.items[0].clone()),
            json!({"id": {"S": "a"}, "n": {"N": "1"}})
        );
        assert_eq!(
            Value::Object(array.items[1].clone()),
            json!({"id": {"S": "b"}})
        );
        assert_eq!(array.places, ["Item 1", "Item 2"]);
        let lines = parse("\n{\"id\": \"a\"}\n\n{\"id\": \"b\"}\n", "plain").expect("lines");
        assert_eq!(lines.items.len(), 2);
        // Places are the text's own line numbers, blank lines counted.
        assert_eq!(lines.places, ["Line 2", "Line 4"]);
        assert!(parse("[1]", "auto").is_err());
        // A key twice starts a new group; 25 fill one.
        let many: Vec<Map<String, Value>> = (0..30)
            .map(|n| {
                let id = if n == 3 { 1 } else { n };
                json!({"id": {"N": id.to_string()}})
                    .as_object()
                    .cloned()
                    .unwrap_or_default()
            })
            .collect();
        let sizes: Vec<usize> = batches(&many, &["id"]).iter().map(Vec::len).collect();
        assert_eq!(sizes, vec![3, 25, 2]);
        let refused = parse("{\"id\": 1}\nnot json", "auto")
            .err()
            .expect("refused");
        assert!(
            refused
                .message
                .as_deref()
                .unwrap_or("")
                .starts_with("Line 2 is not a JSON object: "),
            "{refused:?}"
        );
    }
}
