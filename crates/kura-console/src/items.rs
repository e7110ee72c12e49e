//! The items pages: a table or index browsed a page at a time (Scan or Query with `Limit`,
//! never a full scan), with a builder for every key-condition operator, filters,
//! projections and `Select COUNT`; and the item editor (DynamoDB JSON or plain JSON,
//! conditional put and delete).
//!
//! DynamoDB pages forward only: the page's start keys ride in the URL (`start`, and the
//! ones before it in `back`), so "previous" is the page before without reading anything
//! twice.

use axum::extract::{Path, Query};
use axum::response::Response;
use maud::{Markup, html};
use serde_json::{Map, Value, json};

use super::layout::{self, Section, Tab, csrf, encode, table_path};
use super::tables::{attribute_type, describe};
use super::values::{self, pack, unpack};
use super::{Ctx, Fields, Posted, code, field, grid, paging, raw};
use kura_api::error::ApiError;
use kura_api::operation::Op;

/// Items on a page unless the form says otherwise.
const PAGE: usize = 25;
/// Separates the start keys of the pages before this one in `back` (base64url has no dot).
const BACK_SEPARATOR: char = '.';

const KEY_OPERATORS: [(&str, &str); 7] = [
    ("eq", "="),
    ("lt", "<"),
    ("le", "<="),
    ("gt", ">"),
    ("ge", ">="),
    ("between", "between"),
    ("begins_with", "begins with"),
];

/// The key schema of the table or one of its indexes: (partition, sort) names.
pub(crate) fn keys_of(t: &Value, index: &str) -> Option<(String, Option<String>)> {
    let schema = if index.is_empty() {
        &t["KeySchema"]
    } else {
        ["GlobalSecondaryIndexes", "LocalSecondaryIndexes"]
            .iter()
            .flat_map(|k| t[*k].as_array().into_iter().flatten())
            .find(|i| i["IndexName"] == index)
            .map(|i| &i["KeySchema"])?
    };
    let name = |kind: &str| {
        schema
            .as_array()
            .into_iter()
            .flatten()
            .find(|k| k["KeyType"] == kind)
            .and_then(|k| k["AttributeName"].as_str())
            .map(str::to_owned)
    };
    Some((name("HASH")?, name("RANGE")))
}

fn index_names(t: &Value) -> Vec<String> {
    ["GlobalSecondaryIndexes", "LocalSecondaryIndexes"]
        .iter()
        .flat_map(|k| t[*k].as_array().into_iter().flatten())
        .filter_map(|i| i["IndexName"].as_str().map(str::to_owned))
        .collect()
}

/// A JSON object the user typed (expression values in plain or DynamoDB JSON, names).
fn object_field(
    f: &Fields,
    name: &str,
    typed: bool,
) -> Result<Option<Map<String, Value>>, ApiError> {
    let text = field(f, name);
    if text.is_empty() {
        return Ok(None);
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) if typed => Ok(Some(values::to_typed_map(&map))),
        Ok(Value::Object(map)) => Ok(Some(map)),
        _ => Err(ApiError::validation(format!(
            "The {name} field must be a JSON object"
        ))),
    }
}

/// The Scan or Query request the builder describes (without paging).
fn request(table: &str, t: &Value, f: &Fields) -> Result<(Op, Value), ApiError> {
    let index = field(f, "index");
    let mut request = json!({ "TableName": table, "ReturnConsumedCapacity": "TOTAL" });
    if !index.is_empty() {
        request["IndexName"] = json!(index);
    }
    let mut names = object_field(f, "names", false)?.unwrap_or_default();
    let mut vals = object_field(f, "values", true)?.unwrap_or_default();
    let operation = if field(f, "op") == "query" {
        let (pk, sk) = keys_of(t, index)
            .ok_or_else(|| ApiError::validation(format!("The table has no index {index}")))?;
        let definitions = &t["AttributeDefinitions"];
        names.insert("#kura_pk".into(), json!(pk));
        vals.insert(
            ":kura_pk".into(),
            values::key_value(attribute_type(definitions, &pk), raw(f, "pk")),
        );
        let mut condition = "#kura_pk = :kura_pk".to_owned();
        let sk_op = field(f, "sk_op");
        if let Some(sk) = sk.filter(|_| !raw(f, "sk1").is_empty()) {
            let kind = attribute_type(definitions, &sk);
            names.insert("#kura_sk".into(), json!(sk));
            vals.insert(":kura_sk1".into(), values::key_value(kind, raw(f, "sk1")));
            let sort = match sk_op {
                "lt" => "#kura_sk < :kura_sk1".to_owned(),
                "le" => "#kura_sk <= :kura_sk1".to_owned(),
                "gt" => "#kura_sk > :kura_sk1".to_owned(),
                "ge" => "#kura_sk >= :kura_sk1".to_owned(),
                "between" => {
                    vals.insert(":kura_sk2".into(), values::key_value(kind, raw(f, "sk2")));
                    "#kura_sk BETWEEN :kura_sk1 AND :kura_sk2".to_owned()
                }
                "begins_with" => "begins_with(#kura_sk, :kura_sk1)".to_owned(),
                _ => "#kura_sk = :kura_sk1".to_owned(),
            };
            condition = format!("{condition} AND {sort}");
        }
        request["KeyConditionExpression"] = json!(condition);
        if field(f, "order") == "desc" {
            request["ScanIndexForward"] = json!(false);
        }
        Op::Query
    } else {
        Op::Scan
    };
    for (member, name) in [
        ("FilterExpression", "filter"),
        ("ProjectionExpression", "projection"),
    ] {
        let text = field(f, name);
        if !text.is_empty() {
            request[member] = json!(text);
        }
    }
    if !names.is_empty() {
        request["ExpressionAttributeNames"] = Value::Object(names);
    }
    if !vals.is_empty() {
        request["ExpressionAttributeValues"] = Value::Object(vals);
    }
    if field(f, "select") == "count" {
        request["Select"] = json!("COUNT");
    }
    if field(f, "consistent") == "on" {
        request["ConsistentRead"] = json!(true);
    }
    let limit = field(f, "limit")
        .parse::<usize>()
        .unwrap_or(PAGE)
        .clamp(1, 1000);
    request["Limit"] = json!(limit);
    Ok((operation, request))
}

/// The browse page's URL with `changes` applied to its query.
fn browse_url(table: &str, f: &Fields, changes: &[(&str, &str)]) -> String {
    format!(
        "{}?{}",
        table_path(table, Section::Items),
        browse_query(f, changes)
    )
}

/// The browse page's query string for `f` with `changes`.
fn browse_query(f: &Fields, changes: &[(&str, &str)]) -> String {
    let mut query = f.clone();
    query.remove("notice");
    for (k, v) in changes {
        if v.is_empty() {
            query.remove(*k);
        } else {
            query.insert((*k).to_owned(), (*v).to_owned());
        }
    }
    let text: Vec<String> = query
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .collect();
    text.join("&")
}

/// The items page the editor came from: the list with its query (the editor's `list`
/// field, the browse page's query string), so "Back to items" and a delete return to
/// it, not to a fresh Scan (issue 36).
fn items_url(table: &str, list: &str) -> String {
    let path = table_path(table, Section::Items);
    // Only what browse_query writes (percent-encoded pairs): anything else, from a crafted
    // link, is dropped rather than put in a Location header.
    let plain = list
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-._~%&=+".contains(&b));
    if list.is_empty() || !plain {
        path
    } else {
        format!("{path}?{list}")
    }
}

/// An editor `url` that carries the `list` it came from.
fn with_list(url: String, list: &str) -> String {
    if list.is_empty() {
        url
    } else {
        format!("{url}&list={}", encode(list))
    }
}

/// The editor's URL for an item with `key`.
fn item_url(table: &str, key: &Value) -> String {
    format!("{}?key={}", item_path(table), pack(key))
}

/// The editor's path (its form posts there too; deletes go to `…/item/delete`).
fn item_path(table: &str) -> String {
    format!("/console/tables/{}/item", encode(table))
}

/// `GET /console/tables/{table}/items`.
pub(crate) async fn browse(
    ctx: Ctx,
    Path(table): Path<String>,
    Query(f): Query<Fields>,
) -> Response {
    let t = match describe(&ctx, &table).await {
        Ok(t) => t,
        Err(e) => return ctx.page(&table, Tab::Tables, layout::error(&e)),
    };
    let start = field(&f, "start");
    let asked = !(field(&f, "op") == "query" && raw(&f, "pk").is_empty());
    let mut sent = None;
    let result = if asked {
        match request(&table, &t, &f) {
            Ok((operation, mut request)) => {
                if let Some(key) = unpack(start) {
                    request["ExclusiveStartKey"] = key;
                }
                sent = Some((operation, request.clone()));
                ctx.call(operation, request).await.map(Some)
            }
            Err(e) => Err(e),
        }
    } else {
        Ok(None)
    };
    let body = html! {
        (layout::notice(f.get("notice").map(String::as_str)))
        (builder(&table, &t, &f))
        @match &result {
            Err(e) => (layout::error(e)),
            Ok(None) => p.empty { "Enter the partition key value to query." },
            Ok(Some(page)) => (results(&table, &t, &f, page)),
        }
        @if let Some((operation, request)) = &sent {
            (code::section(*operation, request, &ctx.endpoint(), ctx.region()))
        }
    };
    ctx.page(&table, Tab::Table(&table, Section::Items), body)
}

fn builder(table: &str, t: &Value, f: &Fields) -> Markup {
    let index = field(f, "index");
    let (pk, sk) = keys_of(t, index).unwrap_or_default();
    let op = if field(f, "op") == "query" {
        "query"
    } else {
        "scan"
    };
    let sk_op = field(f, "sk_op");
    html! {
        form.builder method="get" action=(table_path(table, Section::Items)) {
            div.row {
                label { "Operation"
                    select name="op" {
                        option value="scan" selected[op == "scan"] { "Scan" }
                        option value="query" selected[op == "query"] { "Query" }
                    }
                }
                label { "Table or index"
                    // Each target's key names, for the labels below when the choice
                    // changes (console.js).
                    select name="index" {
                        @let (table_pk, table_sk) = keys_of(t, "").unwrap_or_default();
                        option value="" selected[index.is_empty()] data-pk=(table_pk) data-sk=[table_sk] { (table) " (table)" }
                        @for name in index_names(t) {
                            @let (index_pk, index_sk) = keys_of(t, &name).unwrap_or_default();
                            option value=(name) selected[name == index] data-pk=(index_pk) data-sk=[index_sk] { (name) }
                        }
                    }
                }
                label { "Page size" input name="limit" type="number" min="1" max="1000" value=(field(f, "limit").parse::<usize>().unwrap_or(PAGE)); }
                label { "Return"
                    select name="select" {
                        option value="all" { "Items" }
                        option value="count" selected[field(f, "select") == "count"] { "Count only" }
                    }
                }
                label.check { input type="checkbox" name="consistent" value="on" checked[field(f, "consistent") == "on"]; "Strongly consistent" }
            }
            div.row.querykeys {
                label { span.pk-name { (pk) } " = " input name="pk" value=(raw(f, "pk")) placeholder="partition key value (Query)"; }
                // Drawn for every target, hidden where it has no sort key, so that choosing
                // another index shows its own key names at once.
                span.sort-keys hidden[sk.is_none()] {
                    label { span.sk-name { (sk.as_deref().unwrap_or("")) }
                        select name="sk_op" {
                            @for (value, text) in KEY_OPERATORS {
                                option value=(value) selected[value == sk_op] { (text) }
                            }
                        }
                    }
                    label { "value" input name="sk1" value=(raw(f, "sk1")); }
                    label { "and (between)" input name="sk2" value=(raw(f, "sk2")); }
                    label { "Order"
                        select name="order" {
                            option value="asc" { "ascending" }
                            option value="desc" selected[field(f, "order") == "desc"] { "descending" }
                        }
                    }
                }
            }
            @if op == "scan" && !raw(f, "pk").is_empty() {
                p.hint.scan-keys { "A Scan reads the whole table or index: key values are used by a Query only. Choose Query to use them." }
            }
            details open[!field(f, "filter").is_empty() || !field(f, "projection").is_empty()] {
                summary { "Filter and projection" }
                div.row {
                    label.wide { "Filter expression" input name="filter" value=(field(f, "filter")) placeholder="#s = :s AND price > :min"; }
                    label.wide { "Projection expression" input name="projection" value=(field(f, "projection")) placeholder="pk, sk, price"; }
                }
                div.row {
                    label.wide { "Attribute names (JSON)" input name="names" value=(field(f, "names")) placeholder=r##"{"#s": "status"}"##; }
                    label.wide { "Attribute values (plain or DynamoDB JSON)" input name="values" value=(field(f, "values")) placeholder=r#"{":s": "open", ":min": 10}"#; }
                }
            }
            div.row {
                button type="submit" { "Run" }
                a.button.secondary href=(format!("{}?new=1", item_path(table))) { "New item" }
                a.button.secondary href=(format!("/console/tables/{}/load", encode(table))) { "Load items" }
            }
        }
    }
}

fn results(table: &str, t: &Value, f: &Fields, page: &Value) -> Markup {
    let items: Vec<&Map<String, Value>> = page["Items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .collect();
    let (table_pk, table_sk) = keys_of(t, "").unwrap_or_default();
    let index_keys = keys_of(t, field(f, "index")).unwrap_or_default();
    let keys = [
        Some(table_pk.as_str()),
        table_sk.as_deref(),
        Some(index_keys.0.as_str()),
        index_keys.1.as_deref(),
    ];
    let keys: Vec<&str> = keys
        .into_iter()
        .flatten()
        .filter(|k| !k.is_empty())
        .collect();
    let columns = grid::columns(&keys, &items);
    let start = field(f, "start");
    let back = field(f, "back");
    let next = page["LastEvaluatedKey"]
        .as_object()
        .map(|k| pack(&Value::Object(k.clone())));
    let next_back = paging::push(back, start, BACK_SEPARATOR);
    let previous = (!back.is_empty()).then(|| {
        let (last, rest) = paging::pop(back, BACK_SEPARATOR);
        browse_url(table, f, &[("start", last), ("back", rest)])
    });
    let page_number = paging::number(back, BACK_SEPARATOR);
    let key_names = [Some(table_pk.as_str()), table_sk.as_deref()];
    let list = browse_query(f, &[]);
    let editor_link = |item: &Map<String, Value>| {
        key_of(item, &key_names).map(|key| with_list(item_url(table, &key), &list))
    };
    html! {
        div.pager {
            span.counts {
                "Page " (page_number) ": " strong { (page["Count"]) } " items"
                @if page["ScannedCount"] != page["Count"] { " (" (page["ScannedCount"]) " read)" }
                " · " (page["ConsumedCapacity"]["CapacityUnits"]) " capacity units"
            }
            @if let Some(url) = &previous { a.button.secondary rel="prev" href=(url) { "← Previous" } }
            @if let Some(next) = &next {
                a.button.secondary rel="next" href=(browse_url(table, f, &[("start", next), ("back", &next_back)])) { "Next →" }
            } @else {
                span.end { "end of results" }
            }
        }
        @if !items.is_empty() {
            (grid::grid(table, &columns, &items, Some(&editor_link)))
        }
    }
}

/// The table's key of `item`: None when the page left a key attribute out (a
/// projection), so no editor link is drawn from half a key.
fn key_of(item: &Map<String, Value>, names: &[Option<&str>]) -> Option<Value> {
    let mut key = Map::new();
    for name in names.iter().flatten() {
        key.insert((*name).to_owned(), item.get(*name)?.clone());
    }
    Some(Value::Object(key))
}

/// `GET /console/tables/{table}/item?key=…&view=plain|dynamodb` (or `new=1`).
pub(crate) async fn edit(ctx: Ctx, Path(table): Path<String>, Query(f): Query<Fields>) -> Response {
    let t = match describe(&ctx, &table).await {
        Ok(t) => t,
        Err(e) => return ctx.page(&table, Tab::Tables, layout::error(&e)),
    };
    let key = unpack(field(&f, "key"));
    // A key in the link that cannot be read is not a new item (issue 55: it opened a
    // blank "New item" form).
    if key.is_none() && !field(&f, "key").is_empty() {
        let e = ApiError::validation(
            "The item's key in this link cannot be read (it was cut or changed): open the item from the table's items".to_owned(),
        );
        return ctx.page(
            &table,
            Tab::Table(&table, Section::Items),
            layout::error(&e),
        );
    }
    let (item, failed) = match &key {
        Some(key) => match ctx
            .call(
                Op::GetItem,
                json!({ "TableName": table, "Key": key, "ConsistentRead": true }),
            )
            .await
        {
            Ok(out) if out["Item"].is_object() => (out["Item"].clone(), None),
            Ok(_) => (
                Value::Null,
                Some(ApiError::validation(
                    "No item has this key (it may have been deleted)".to_owned(),
                )),
            ),
            Err(e) => (Value::Null, Some(e)),
        },
        None => (template(&t), None),
    };
    let plain = field(&f, "view") == "plain";
    let text = pretty(&item, plain);
    let body = editor(
        &ctx,
        &table,
        key.as_ref(),
        &text,
        plain,
        &f,
        failed.as_ref(),
        field(&f, "notice"),
        None,
    );
    // The PutItem that writes this item as it is stored, as code to paste.
    let body = match (&key, item.is_object()) {
        (Some(_), true) => html! {
            (body)
            (code::section(Op::PutItem, &json!({ "TableName": table, "Item": item }), &ctx.endpoint(), ctx.region()))
        },
        _ => body,
    };
    ctx.page(&table, Tab::Table(&table, Section::Items), body)
}

/// A new item's starting text: its key attributes, typed.
fn template(t: &Value) -> Value {
    let (pk, sk) = keys_of(t, "").unwrap_or_default();
    let mut item = Map::new();
    for name in [Some(pk), sk].into_iter().flatten() {
        let kind = attribute_type(&t["AttributeDefinitions"], &name);
        item.insert(name, values::key_value(kind, ""));
    }
    Value::Object(item)
}

fn pretty(item: &Value, plain: bool) -> String {
    let shown = match (plain, item.as_object()) {
        (true, Some(map)) => values::item_to_plain(map),
        _ => item.clone(),
    };
    serde_json::to_string_pretty(&shown).unwrap_or_default()
}

#[allow(clippy::too_many_arguments)] // the editor's state, as the form posts it back
fn editor(
    ctx: &Ctx,
    table: &str,
    key: Option<&Value>,
    text: &str,
    plain: bool,
    f: &Fields,
    failed: Option<&ApiError>,
    notice: &str,
    saved: Option<&str>,
) -> Markup {
    let list = field(f, "list");
    let base = key
        .map(|k| with_list(item_url(table, k), list))
        .unwrap_or_default();
    // A new item is put only where no item has its key unless the user chooses otherwise:
    // a typo in a key must not overwrite another item (issue 36).
    let condition = match f.get("condition") {
        None if key.is_none() => "not_exists",
        _ => field(f, "condition"),
    };
    html! {
        (layout::notice(Some(notice)))
        @if let Some(e) = failed { (layout::error(e)) }
        div.bar {
            h2 {
                @if let Some(key) = key {
                    "Edit item "
                    (key.as_object().into_iter().flatten()
                        .map(|(name, value)| format!("{name} = {}", values::text(value)))
                        .collect::<Vec<_>>().join(", "))
                } @else { "New item" }
            }
            nav.views aria-label="Item views" {
                @if key.is_some() {
                    a href=(base.clone()) data-view="dynamodb" class=[(!plain).then_some("on")] { "DynamoDB JSON" }
                    a href=(format!("{base}&view=plain")) data-view="plain" class=[plain.then_some("on")] { "Plain JSON" }
                }
            }
        }
        @if plain { p.hint { "Plain JSON: strings, numbers, booleans, null, lists and maps. Sets and binary keep their DynamoDB JSON form (" code { r#"{"SS": ["a"]}"# } ")." } }
        form.editor method="post" action=(item_path(table)) {
            (csrf(ctx))
            input type="hidden" name="format" value=(if plain { "plain" } else { "dynamodb" });
            @if let Some(key) = key { input type="hidden" name="key" value=(pack(key)); }
            @if !list.is_empty() { input type="hidden" name="list" value=(list); }
            // Set by the page's script when the view changes with edits not saved: the
            // edits come back in the other view instead of being thrown away.
            input type="hidden" name="switch" value="";
            // The stored item in this view, when the text shown is not it (unsaved edits):
            // what leaving warns about and the diff compares with.
            textarea name="item" rows="18" spellcheck="false" aria-label="The item" data-saved=[saved] { (text) }
            (condition_fields(f, condition))
            div.row {
                button type="submit" { "Save item" }
                a.button.secondary href=(items_url(table, list)) { "Back to items" }
            }
        }
        @if let Some(key) = key {
            form.delete method="post" action=(format!("{}/delete", item_path(table))) data-confirm="Delete this item?" {
                (csrf(ctx))
                input type="hidden" name="key" value=(pack(key));
                @if !list.is_empty() { input type="hidden" name="list" value=(list); }
                (condition_fields(&Fields::new(), ""))
                button.danger type="submit" { "Delete item" }
            }
        }
    }
}

fn condition_fields(f: &Fields, chosen: &str) -> Markup {
    html! {
        div.row.condition {
            label { "Condition"
                select name="condition" {
                    option value="" { "none" }
                    option value="not_exists" selected[chosen == "not_exists"] { "only if no item has this key" }
                    option value="exists" selected[chosen == "exists"] { "only if the item exists" }
                    option value="custom" selected[chosen == "custom"] { "custom expression" }
                }
            }
            label.wide { "Condition expression" input name="condition_expression" value=(field(f, "condition_expression")) placeholder="version = :v"; }
            label.wide { "Attribute names" input name="condition_names" value=(field(f, "condition_names")) placeholder=r##"{"#v": "version"}"##; }
            label.wide { "Attribute values" input name="condition_values" value=(field(f, "condition_values")) placeholder=r#"{":v": 3}"#; }
        }
    }
}

/// Adds the chosen condition to a PutItem or DeleteItem request.
fn add_condition(t: &Value, f: &Fields, request: &mut Value) -> Result<(), ApiError> {
    let (pk, _) = keys_of(t, "").unwrap_or_default();
    match field(f, "condition") {
        "not_exists" => {
            request["ConditionExpression"] = json!("attribute_not_exists(#kura_pk)");
            request["ExpressionAttributeNames"] = json!({ "#kura_pk": pk });
        }
        "exists" => {
            request["ConditionExpression"] = json!("attribute_exists(#kura_pk)");
            request["ExpressionAttributeNames"] = json!({ "#kura_pk": pk });
        }
        "custom" => {
            request["ConditionExpression"] = json!(field(f, "condition_expression"));
            if let Some(names) = object_field(f, "condition_names", false)? {
                request["ExpressionAttributeNames"] = Value::Object(names);
            }
            if let Some(vals) = object_field(f, "condition_values", true)? {
                request["ExpressionAttributeValues"] = Value::Object(vals);
            }
        }
        _ => {}
    }
    Ok(())
}

/// `POST /console/tables/{table}/item`: PutItem of the editor's text.
pub(crate) async fn save(Path(table): Path<String>, Posted { ctx, fields: f }: Posted) -> Response {
    if !field(&f, "switch").is_empty() {
        return switch_view(ctx, table, f).await;
    }
    let plain = field(&f, "format") == "plain";
    let text = f.get("item").map_or("", String::as_str);
    let result = async {
        let t = describe(&ctx, &table).await?;
        let item = parse_item(text, plain)?;
        let mut request = json!({ "TableName": table, "Item": item });
        add_condition(&t, &f, &mut request)?;
        ctx.call(Op::PutItem, request).await?;
        let (pk, sk) = keys_of(&t, "").unwrap_or_default();
        let names = [Some(pk.as_str()), sk.as_deref()];
        // PutItem accepted it, so the key is whole.
        let key = item
            .as_object()
            .and_then(|i| key_of(i, &names))
            .unwrap_or_default();
        Ok(key)
    }
    .await;
    match result {
        Ok(key) => {
            // A changed key is a new item: PutItem leaves the one under the old key.
            let notice = match unpack(field(&f, "key")) {
                Some(old) if old != key => {
                    "Saved as a new item: the key changed, and the item under the old key is still there"
                }
                _ => "Saved",
            };
            ctx.redirect_notice(
                &with_list(item_url(&table, &key), field(&f, "list")),
                notice,
            )
        }
        Err(e) => refused(&ctx, &table, text, plain, &f, &e).await,
    }
}

/// The editor's text as a DynamoDB JSON item (`plain`: written in plain JSON).
fn parse_item(text: &str, plain: bool) -> Result<Value, ApiError> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) if plain => Ok(Value::Object(values::to_typed_map(&map))),
        Ok(Value::Object(map)) => Ok(Value::Object(map)),
        Ok(_) => Err(ApiError::validation(
            "The item must be a JSON object".to_owned(),
        )),
        Err(e) => Err(ApiError::validation(format!("The item is not JSON: {e}"))),
    }
}

/// The editor again with the text as posted and the error that refused it; the stored
/// item (in this view) stays what leaving warns about and the diff compares with.
async fn refused(
    ctx: &Ctx,
    table: &str,
    text: &str,
    plain: bool,
    f: &Fields,
    e: &ApiError,
) -> Response {
    let key = unpack(field(f, "key"));
    let saved = match &key {
        Some(key) => stored(ctx, table, key).await.map(|s| pretty(&s, plain)),
        None => None,
    };
    let body = editor(
        ctx,
        table,
        key.as_ref(),
        text,
        plain,
        f,
        Some(e),
        "",
        Some(saved.as_deref().unwrap_or("")),
    );
    ctx.page(table, Tab::Table(table, Section::Items), body)
}

/// The stored item under `key`, if any.
async fn stored(ctx: &Ctx, table: &str, key: &Value) -> Option<Value> {
    ctx.call(
        Op::GetItem,
        json!({ "TableName": table, "Key": key, "ConsistentRead": true }),
    )
    .await
    .ok()
    .map(|out| out["Item"].clone())
    .filter(Value::is_object)
}

/// The editor's text, unsaved, shown in the other view (`switch`: `plain` or `dynamodb`),
/// beside the stored item in that view for the diff. Text that does not parse stays as
/// it is, with the parse error.
async fn switch_view(ctx: Ctx, table: String, f: Fields) -> Response {
    let plain = field(&f, "format") == "plain";
    let to_plain = field(&f, "switch") == "plain";
    let text = f.get("item").map_or("", String::as_str);
    let key = unpack(field(&f, "key"));
    let item = match parse_item(text, plain) {
        Ok(item) => item,
        Err(e) => return refused(&ctx, &table, text, plain, &f, &e).await,
    };
    let saved = match &key {
        Some(key) => stored(&ctx, &table, key)
            .await
            .map(|s| pretty(&s, to_plain)),
        None => None,
    };
    let mut fields = f.clone();
    fields.remove("condition");
    let notice = if to_plain {
        "Your edits, shown as plain JSON: not saved yet"
    } else {
        "Your edits, shown as DynamoDB JSON: not saved yet"
    };
    let body = editor(
        &ctx,
        &table,
        key.as_ref(),
        &pretty(&item, to_plain),
        to_plain,
        &fields,
        None,
        notice,
        Some(saved.as_deref().unwrap_or("")),
    );
    ctx.page(&table, Tab::Table(&table, Section::Items), body)
}

/// `POST /console/tables/{table}/item/delete`.
pub(crate) async fn delete(
    Path(table): Path<String>,
    Posted { ctx, fields: f }: Posted,
) -> Response {
    let key = unpack(field(&f, "key")).unwrap_or(Value::Null);
    let result = async {
        let t = describe(&ctx, &table).await?;
        let mut request = json!({ "TableName": table, "Key": key });
        add_condition(&t, &f, &mut request)?;
        ctx.call(Op::DeleteItem, request).await
    }
    .await;
    match result {
        Ok(_) => ctx.redirect_notice(&items_url(&table, field(&f, "list")), "Deleted the item"),
        Err(e) => {
            let body = html! {
                (layout::error(&e))
                p { a href=(item_url(&table, &key)) { "Back to the item" } }
            };
            ctx.page(&table, Tab::Table(&table, Section::Items), body)
        }
    }
}
