//! The single-table view: a table's items grouped by entity type, as the seed documents
//! design them (`pk = USER#1`, `sk = ORDER#2026-…`) and NoSQL Workbench's facets show them.
//! An item's type is its sort key's prefix before the first `#` (its partition key's when
//! the sort key has none, or the table has no sort key). Each type gets its count, its key
//! shapes and its attributes (how often present, with which types), and the access
//! patterns that serve it: the table's own key conditions, each GSI whose keys its items
//! carry, and how much of that the traffic Kura has seen used.
//!
//! It reads a sample (a few Scan pages, as the console's own traffic), and says so.

use std::collections::BTreeMap;

use axum::extract::Path;
use axum::response::Response;
use maud::{Markup, html};
use serde_json::{Map, Value, json};

use super::Ctx;
use super::layout::{self, Section, Tab, table_path};
use super::tables::describe;
use super::values;
use kura_api::operation::Op;

/// Items the view reads at most, in Scan pages of [`PAGE`].
const SAMPLE: usize = 2000;
const PAGE: usize = 500;

/// One entity type as the sample shows it.
#[derive(Default)]
struct EntityType {
    items: usize,
    /// Partition key prefixes (before `#`, with it) and how many items had each.
    pk_prefixes: BTreeMap<String, usize>,
    sk_prefixes: BTreeMap<String, usize>,
    /// Attribute → (items that have it, the DynamoDB types seen).
    attributes: BTreeMap<String, (usize, std::collections::BTreeSet<String>)>,
    /// A key of one item, for the "open one" link.
    example: Option<Value>,
}

/// A key value's prefix up to and with its first `#` (`ORDER#` of `ORDER#2026-11-28`).
fn prefix(value: Option<&Value>) -> Option<String> {
    let text = value?.get("S")?.as_str()?;
    text.find('#').map(|at| text[..=at].to_owned())
}

/// The entity type of an item: the sort key's prefix, else the partition key's.
fn type_of(item: &Map<String, Value>, pk: &str, sk: Option<&str>) -> String {
    sk.and_then(|sk| prefix(item.get(sk)))
        .or_else(|| prefix(item.get(pk)))
        .map(|p| p.trim_end_matches('#').to_owned())
        .unwrap_or_else(|| "(no prefix)".to_owned())
}

/// Groups `items` by entity type.
fn group(items: &[Map<String, Value>], pk: &str, sk: Option<&str>) -> BTreeMap<String, EntityType> {
    let mut types: BTreeMap<String, EntityType> = BTreeMap::new();
    for item in items {
        let entry = types.entry(type_of(item, pk, sk)).or_default();
        entry.items += 1;
        if let Some(p) = prefix(item.get(pk)) {
            *entry.pk_prefixes.entry(p).or_default() += 1;
        }
        if let Some(p) = sk.and_then(|sk| prefix(item.get(sk))) {
            *entry.sk_prefixes.entry(p).or_default() += 1;
        }
        for (name, value) in item {
            let seen = entry.attributes.entry(name.clone()).or_default();
            seen.0 += 1;
            seen.1.insert(values::type_of(value).to_owned());
        }
        if entry.example.is_none() {
            let mut key = Map::new();
            for name in std::iter::once(pk).chain(sk) {
                if let Some(v) = item.get(name) {
                    key.insert(name.to_owned(), v.clone());
                }
            }
            entry.example = Some(Value::Object(key));
        }
    }
    types
}

/// The most common of a prefix count.
fn most(prefixes: &BTreeMap<String, usize>) -> Option<&str> {
    prefixes
        .iter()
        .max_by_key(|(_, n)| **n)
        .map(|(p, _)| p.as_str())
}

/// A global secondary index's name and key attribute names.
struct Index {
    name: String,
    pk: String,
    sk: Option<String>,
}

fn indexes(t: &Value) -> Vec<Index> {
    ["GlobalSecondaryIndexes", "LocalSecondaryIndexes"]
        .iter()
        .flat_map(|kind| t[*kind].as_array().into_iter().flatten())
        .filter_map(|i| {
            let key = |kind: &str| {
                i["KeySchema"]
                    .as_array()?
                    .iter()
                    .find(|k| k["KeyType"] == kind)
                    .and_then(|k| k["AttributeName"].as_str())
                    .map(str::to_owned)
            };
            Some(Index {
                name: i["IndexName"].as_str()?.to_owned(),
                pk: key("HASH")?,
                sk: key("RANGE"),
            })
        })
        .collect()
}

/// `GET /console/tables/{table}/entities`.
pub(crate) async fn page(ctx: Ctx, Path(table): Path<String>) -> Response {
    let t = match describe(&ctx, &table).await {
        Ok(t) => t,
        Err(e) => return ctx.page(&table, Tab::Tables, layout::error(&e)),
    };
    let body = match sample(&ctx, &table).await {
        Ok((items, complete)) => view(&ctx, &table, &t, &items, complete),
        Err(e) => layout::error(&e),
    };
    ctx.page(&table, Tab::Table(&table, Section::Entities), body)
}

/// Up to [`SAMPLE`] items, and whether they are all of the table's.
async fn sample(
    ctx: &Ctx,
    table: &str,
) -> Result<(Vec<Map<String, Value>>, bool), kura_api::error::ApiError> {
    let mut items = Vec::new();
    let mut start: Option<Value> = None;
    loop {
        let mut request = json!({ "TableName": table, "Limit": PAGE });
        if let Some(key) = start.take() {
            request["ExclusiveStartKey"] = key;
        }
        let out = ctx.call(Op::Scan, request).await?;
        items.extend(
            out["Items"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|i| i.as_object().cloned()),
        );
        match out.get("LastEvaluatedKey") {
            Some(key) if items.len() < SAMPLE => start = Some(key.clone()),
            Some(_) => return Ok((items, false)),
            None => return Ok((items, true)),
        }
    }
}

fn view(ctx: &Ctx, table: &str, t: &Value, items: &[Map<String, Value>], complete: bool) -> Markup {
    let (pk, sk) = super::items::keys_of(t, "").unwrap_or_default();
    let types = group(items, &pk, sk.as_deref());
    let indexes = indexes(t);
    // Query and Scan pages each index served since the server started (the application's
    // traffic; the console's own is counted apart).
    let engine = ctx.server.slot().current();
    let pages: BTreeMap<String, u64> = engine
        .telemetry()
        .existing(table)
        .map(|c| {
            c.index_consumption()
                .into_iter()
                .map(|(_, name, used)| {
                    (name, used.pages.load(std::sync::atomic::Ordering::Relaxed))
                })
                .collect()
        })
        .unwrap_or_default();
    html! {
        p.hint {
            @if complete { "All " (items.len()) " items of the table, " }
            @else { "A sample of the first " (items.len()) " items (of about " (t["ItemCount"]) "), " }
            "grouped by entity type: the sort key's prefix before " code { "#" } " (the partition key's when the sort key has none)."
        }
        // What each index served is the index's, not a type's: said once (issue 55: it was
        // repeated under every type whose items carry the index's key).
        @if !indexes.is_empty() {
            section.indexes {
                h2 { "Indexes" }
                ul {
                    @for index in &indexes {
                        li {
                            strong { (index.name) } ": " code { (index.pk) @if let Some(isk) = &index.sk { ", " (isk) } }
                            " — " (pages.get(&index.name).copied().unwrap_or(0)) " Query and Scan pages read by the application since the server started"
                        }
                    }
                }
            }
        }
        @if types.is_empty() { p.empty { "The table has no items." } }
        @for (name, entity) in &types {
            section.entity {
                h2 { (name) " " span.count { "· " (entity.items) " items" } }
                div.entity-columns {
                    div {
                        h3 { "Attributes" }
                        table.grid {
                            thead { tr { th { "Attribute" } th { "Types" } th { "On" } } }
                            tbody {
                                @for (attribute, (count, kinds)) in &entity.attributes {
                                    tr {
                                        td { code { (attribute) } }
                                        td { (kinds.iter().cloned().collect::<Vec<_>>().join(", ")) }
                                        td.num { (count * 100 / entity.items.max(1)) "%" }
                                    }
                                }
                            }
                        }
                    }
                    div.access {
                        h3 { "Access patterns" }
                        ul {
                            (patterns(table, &pk, sk.as_deref(), entity))
                            @for index in &indexes {
                                @let carried = entity.attributes.get(&index.pk).map_or(0, |(n, _)| *n);
                                @if carried > 0 {
                                    li {
                                        "Query index " strong { (index.name) } ": " code { (index.pk) " = :value" }
                                        @if let Some(isk) = &index.sk { code { " [AND " (isk) " …]" } }
                                        " — its key is on " (carried * 100 / entity.items.max(1)) "% of " (name) " items"
                                        " · " a href=(format!("{}?op=query&index={}", table_path(table, Section::Items), super::layout::encode(&index.name))) { "query it" }
                                    }
                                }
                            }
                        }
                        @if let Some(example) = &entity.example {
                            p { a href=(format!("{}/item?key={}", table_path(table, Section::Overview), values::pack(example))) { "Open one " (name) " item" } }
                        }
                    }
                }
            }
        }
    }
}

/// The table's own key conditions that serve one entity type.
fn patterns(table: &str, pk: &str, sk: Option<&str>, entity: &EntityType) -> Markup {
    let pk_prefix = most(&entity.pk_prefixes);
    let sk_prefix = most(&entity.sk_prefixes);
    let pk_text = pk_prefix.map_or_else(|| ":value".to_owned(), |p| format!("'{p}…'"));
    // The Scan's filter is the type's own rule (`type_of`): a type named by the sort key's
    // prefix is the items whose sort key begins with it; one named by the partition key's
    // is those whose partition key begins with it and whose sort key has no `#` (issue 55:
    // it listed the other types sharing the partition too).
    let browse = |prefix: &str, attribute: &str| {
        let (filter, names, values) = match sk {
            Some(sk) if attribute == pk => (
                "begins_with(#k, :p) AND NOT contains(#s, :h)",
                json!({ "#k": attribute, "#s": sk }),
                json!({ ":p": prefix, ":h": "#" }),
            ),
            _ => (
                "begins_with(#k, :p)",
                json!({ "#k": attribute }),
                json!({ ":p": prefix }),
            ),
        };
        let query = [
            ("op", "scan".to_owned()),
            ("filter", filter.to_owned()),
            ("names", names.to_string()),
            ("values", values.to_string()),
        ];
        format!(
            "{}?{}",
            table_path(table, Section::Items),
            query
                .iter()
                .map(|(k, v)| format!("{k}={}", super::layout::encode(v)))
                .collect::<Vec<_>>()
                .join("&")
        )
    };
    html! {
        li {
            "GetItem: " code { (pk) " = " (pk_text) }
            @if let Some(sk) = sk { code { ", " (sk) " = " (sk_prefix.map_or_else(|| ":value".to_owned(), |p| format!("'{p}…'"))) } }
        }
        @if let (Some(sk), Some(prefix)) = (sk, sk_prefix) {
            li {
                "Query the collection: " code { (pk) " = " (pk_text) " AND begins_with(" (sk) ", '" (prefix) "')" }
                " · " a href=(browse(prefix, sk)) { "browse them (a filtered Scan)" }
            }
        } @else if let Some(prefix) = pk_prefix {
            li {
                "By partition key only: " code { (pk) " = '" (prefix) "…'" }
                " · " a href=(browse(prefix, pk)) { "browse them (a filtered Scan)" }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(pk: &str, sk: &str, more: &[(&str, Value)]) -> Map<String, Value> {
        let mut map = Map::new();
        map.insert("pk".into(), json!({ "S": pk }));
        map.insert("sk".into(), json!({ "S": sk }));
        for (k, v) in more {
            map.insert((*k).into(), v.clone());
        }
        map
    }

    #[test]
    fn items_group_by_the_sort_key_prefix_then_the_partition_key_prefix() {
        let items = vec![
            item("USER#1", "PROFILE", &[("name", json!({"S": "Ada"}))]),
            item("USER#1", "ORDER#0001", &[("status", json!({"S": "open"}))]),
            item("USER#2", "ORDER#0002", &[("total", json!({"N": "3"}))]),
            item("plain", "plain", &[]),
        ];
        let types = group(&items, "pk", Some("sk"));
        assert_eq!(
            types.keys().collect::<Vec<_>>(),
            ["(no prefix)", "ORDER", "USER"]
        );
        let orders = &types["ORDER"];
        assert_eq!(orders.items, 2);
        assert_eq!(most(&orders.pk_prefixes), Some("USER#"));
        assert_eq!(most(&orders.sk_prefixes), Some("ORDER#"));
        assert_eq!(orders.attributes["status"].0, 1);
        assert_eq!(orders.attributes["pk"].0, 2);
        assert_eq!(types["USER"].items, 1);
    }
}
