//! Vector search: a table's vector indexes and SearchVectors against one of them. The
//! query vector is pasted (a JSON array of numbers) or taken from an item by its key; TopK,
//! the search condition (the HASH value and INLINE_FILTER equalities) and a projection are
//! the request's own members. Results come ranked with their scores, and the request as
//! code. A search only reads, so the form is a GET: a search is a link to share.

use axum::extract::{Path, Query};
use axum::response::Response;
use maud::{Markup, html};
use serde_json::{Map, Value, json};

use super::layout::{self, Section, Tab, table_path};
use super::{Ctx, Fields, code, field, grid, values};
use kura_api::error::ApiError;
use kura_api::operation::Op;

/// `GET /console/tables/{table}/vectors`: the form, and its search when `run` is set.
pub(crate) async fn page(ctx: Ctx, Path(table): Path<String>, Query(f): Query<Fields>) -> Response {
    let t = match ctx
        .call(Op::DescribeTable, json!({ "TableName": table }))
        .await
    {
        Ok(out) => out["Table"].clone(),
        Err(e) => return ctx.page(&table, Tab::Tables, layout::error(&e)),
    };
    let indexes: Vec<&Value> = t["VectorIndexes"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    let result = if field(&f, "run").is_empty() || indexes.is_empty() {
        None
    } else {
        Some(search(&ctx, &table, &indexes, &f).await)
    };
    let body = html! {
        h1 { "Vector search" }
        @if indexes.is_empty() {
            p.empty { "This table has no vector index. Add one with UpdateTable's " code { "VectorIndexUpdates" } " (or create the table with " code { "VectorIndexes" } "): it is filled from the items in the background." }
        } @else {
            (form(&table, &indexes, &f))
        }
        @match &result {
            None => {}
            Some(Err(e)) => (layout::error(e)),
            Some(Ok((out, request))) => {
                (results(&t, out))
                (code::section(Op::SearchVectors, request, &ctx.endpoint(), ctx.region()))
            }
        }
    };
    ctx.page(&table, Tab::Table(&table, Section::Vectors), body)
}

/// The search the form describes: its request, sent, and the answer.
async fn search(
    ctx: &Ctx,
    table: &str,
    indexes: &[&Value],
    f: &Fields,
) -> Result<(Value, Value), ApiError> {
    let index = chosen(indexes, f);
    let index_name = index["IndexName"].as_str().unwrap_or_default();
    let vector = match field(f, "vector").trim() {
        "" => vector_of_item(ctx, table, index, field(f, "item_key")).await?,
        text => parse_vector(text)?,
    };
    let mut request = json!({
        "TableName": table,
        "IndexName": index_name,
        "SearchVector": vector,
        "TopK": field(f, "top_k").parse::<u64>().unwrap_or(10),
        "ReturnConsumedCapacity": "TOTAL",
    });
    let condition = field(f, "condition").trim();
    if !condition.is_empty() {
        request["SearchConditionExpression"] = json!(condition);
    }
    let projection = field(f, "projection").trim();
    if !projection.is_empty() {
        request["ProjectionExpression"] = json!(projection);
    }
    let values = field(f, "values").trim();
    if !values.is_empty() {
        match serde_json::from_str::<Value>(values) {
            Ok(Value::Object(map)) => {
                request["ExpressionAttributeValues"] = Value::Object(values::to_typed_map(&map));
            }
            _ => {
                return Err(ApiError::validation(
                    "Values must be a JSON object: {\":tenant\": \"t1\"} (plain or DynamoDB JSON)"
                        .to_owned(),
                ));
            }
        }
    }
    let out = ctx.call(Op::SearchVectors, request.clone()).await?;
    Ok((out, request))
}

/// The index the form names, else the first.
fn chosen<'a>(indexes: &[&'a Value], f: &Fields) -> &'a Value {
    let wanted = field(f, "index");
    indexes
        .iter()
        .find(|i| i["IndexName"] == wanted)
        .or_else(|| indexes.first())
        .copied()
        .unwrap_or(&Value::Null)
}

/// A pasted vector: a JSON array of numbers (or of DynamoDB JSON numbers), as SearchVector.
fn parse_vector(text: &str) -> Result<Value, ApiError> {
    let refused = || {
        ApiError::validation(
            "The vector must be a JSON array of numbers, such as [0.12, -0.5, 0.33]".to_owned(),
        )
    };
    let Ok(Value::Array(elements)) = serde_json::from_str::<Value>(text) else {
        return Err(refused());
    };
    elements
        .iter()
        .map(|e| match e {
            Value::Number(n) => Ok(json!({ "N": n.to_string() })),
            Value::Object(m) if m.len() == 1 && m["N"].is_string() => Ok(e.clone()),
            _ => Err(refused()),
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

/// The vector attribute of the item whose key is `key` (plain or DynamoDB JSON).
async fn vector_of_item(
    ctx: &Ctx,
    table: &str,
    index: &Value,
    key: &str,
) -> Result<Value, ApiError> {
    let Ok(Value::Object(key)) = serde_json::from_str::<Value>(key.trim()) else {
        return Err(ApiError::validation(
            "Paste a vector, or give the key of an item that has one, such as {\"pk\": \"doc#1\"}"
                .to_owned(),
        ));
    };
    let attribute = index["VectorAttribute"]["AttributeName"]
        .as_str()
        .unwrap_or_default();
    let out = ctx
        .call(
            Op::GetItem,
            json!({ "TableName": table, "Key": values::to_typed_map(&key) }),
        )
        .await?;
    match &out["Item"][attribute]["L"] {
        Value::Array(elements) => Ok(Value::Array(elements.clone())),
        _ => Err(ApiError::validation(format!(
            "No item with that key has a vector in {attribute}"
        ))),
    }
}

fn form(table: &str, indexes: &[&Value], f: &Fields) -> Markup {
    let index = chosen(indexes, f);
    let schema: Vec<String> = index["SearchSchema"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            format!(
                "{} ({})",
                e["AttributeName"].as_str().unwrap_or_default(),
                e["SearchSchemaElementType"].as_str().unwrap_or_default()
            )
        })
        .collect();
    let top_k = match field(f, "top_k") {
        "" => "10",
        k => k,
    };
    html! {
        form.vectors method="get" action=(table_path(table, Section::Vectors)) {
            input type="hidden" name="run" value="1";
            div.row {
                label { "Vector index"
                    select name="index" {
                        @for i in indexes {
                            @let name = i["IndexName"].as_str().unwrap_or_default();
                            option value=(name) selected[i["IndexName"] == index["IndexName"]] {
                                (name) " · " (i["Dimensions"]) " dimensions · " (i["DistanceFunction"].as_str().unwrap_or_default())
                            }
                        }
                    }
                }
                label { "Top K (1–100)" input name="top_k" type="number" min="1" max="100" value=(top_k); }
            }
            label.wide { "Query vector (a JSON array of numbers)"
                textarea name="vector" rows="3" spellcheck="false" placeholder="[0.12, -0.5, 0.33, …]" { (field(f, "vector")) }
            }
            label.wide { "…or the vector of this item (its key, plain or DynamoDB JSON)"
                input name="item_key" value=(field(f, "item_key")) placeholder=r#"{"pk": "doc#1"}"#;
            }
            div.row {
                label.wide { "Search condition" input name="condition" value=(field(f, "condition")) placeholder="tenant = :t AND color = :c"; }
                label.wide { "Values (JSON object)" input name="values" value=(field(f, "values")) placeholder=r#"{":t": "t1", ":c": "red"}"#; }
            }
            label.wide { "Projection" input name="projection" value=(field(f, "projection")) placeholder="pk, title"; }
            @if !schema.is_empty() {
                p.hint { "Search schema of this index: " (schema.join(", ")) ". The condition names the HASH value and equalities on INLINE_FILTER attributes, joined by AND." }
            }
            div.row { button type="submit" { "Search" } }
        }
    }
}

/// The answer: each result's rank and score, then its attributes.
fn results(t: &Value, out: &Value) -> Markup {
    let found: Vec<(&Map<String, Value>, &Value)> = out["SearchResults"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| Some((r["Item"].as_object()?, &r["Score"])))
        .collect();
    let keys: Vec<&str> = t["KeySchema"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|k| k["AttributeName"].as_str())
        .collect();
    let items: Vec<&Map<String, Value>> = found.iter().map(|(item, _)| *item).collect();
    let columns = grid::columns(&keys, &items);
    html! {
        p.counts {
            strong { (found.len()) } " results"
            @if let Some(bytes) = out["ConsumedCapacity"]["VectorSearchRequestBytes"].as_f64() { " · " (bytes) " vector search request bytes" }
        }
        @if !found.is_empty() {
            div.scroll {
                table.grid.results {
                    thead { tr { th { "#" } th { "Score" } @for c in &columns { th { (c) } } } }
                    tbody {
                        @for (rank, (item, score)) in found.iter().enumerate() {
                            tr {
                                td.num { (rank + 1) }
                                td.num.score { (score) }
                                @for c in &columns {
                                    td { @if let Some(v) = item.get(c) { (values::cut(&values::text(v), 60)) } }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The overview's section: each vector index's definition, state and figures, with a
/// link to search it.
pub(crate) fn indexes_section(table: &str, t: &Value) -> Markup {
    let indexes: Vec<&Value> = t["VectorIndexes"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    html! {
        @if !indexes.is_empty() {
            h2 { "Vector indexes" }
            table.grid {
                thead { tr { th { "Name" } th { "Vector" } th { "Distance" } th { "Search schema" } th { "Projection" } th { "Status" } th { "Items" } } }
                tbody {
                    @for i in &indexes {
                        @let name = i["IndexName"].as_str().unwrap_or_default();
                        tr {
                            td { a href=(format!("{}?index={}", table_path(table, Section::Vectors), layout::encode(name))) { (name) } }
                            td { code { (i["VectorAttribute"]["AttributeName"].as_str().unwrap_or_default()) } " · " (i["Dimensions"]) " dimensions" }
                            td { (i["DistanceFunction"].as_str().unwrap_or_default()) }
                            td {
                                @for e in i["SearchSchema"].as_array().into_iter().flatten() {
                                    code { (e["AttributeName"].as_str().unwrap_or_default()) } " " (e["SearchSchemaElementType"].as_str().unwrap_or_default()) " "
                                }
                            }
                            td { (i["Projection"]["ProjectionType"].as_str().unwrap_or_default()) }
                            td { (i["IndexStatus"].as_str().unwrap_or_default()) @if i["Backfilling"] == json!(true) { " (backfilling)" } }
                            td.num { (i["ItemCount"]) }
                        }
                    }
                }
            }
        }
    }
}
