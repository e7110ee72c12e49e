//! The tables pages: the list, the create form, and one table's overview with the forms
//! that change it (capacity, stream, TTL, deletion protection, tags, indexes, delete).
//! Every change is the API call it names; its error is shown as the API returns it.

use axum::extract::{Path, Query};
use axum::response::Response;
use maud::{Markup, html};
use serde_json::{Map, Value, json};

use super::layout::{self, Section, Tab, csrf, table_path};
use super::values::time_text;
use super::{Ctx, Fields, Posted, field};
use kura_api::error::ApiError;
use kura_api::operation::Op;

/// Every table name, through ListTables' pages.
pub(crate) async fn table_names(ctx: &Ctx) -> Result<Vec<String>, ApiError> {
    let mut names = Vec::new();
    let mut start: Option<String> = None;
    loop {
        let mut body = json!({ "Limit": 100 });
        if let Some(s) = &start {
            body["ExclusiveStartTableName"] = json!(s);
        }
        let page = ctx.call(Op::ListTables, body).await?;
        for name in page["TableNames"].as_array().into_iter().flatten() {
            names.extend(name.as_str().map(str::to_owned));
        }
        match page["LastEvaluatedTableName"].as_str() {
            Some(next) => start = Some(next.to_owned()),
            None => return Ok(names),
        }
    }
}

pub(crate) async fn describe(ctx: &Ctx, table: &str) -> Result<Value, ApiError> {
    let out = ctx
        .call(Op::DescribeTable, json!({ "TableName": table }))
        .await?;
    Ok(out["Table"].clone())
}

/// `GET /console/tables`.
pub(crate) async fn list(ctx: Ctx, Query(query): Query<Fields>) -> Response {
    let names = match table_names(&ctx).await {
        Ok(names) => names,
        Err(e) => return ctx.page("Tables", Tab::Tables, layout::error(&e)),
    };
    // `?filter=` keeps the tables whose name contains it (any case); the page's script
    // filters the same way as the user types.
    let filter = field(&query, "filter");
    let wanted = filter.to_lowercase();
    let mut rows = Vec::with_capacity(names.len());
    for name in names.iter().filter(|n| n.to_lowercase().contains(&wanted)) {
        rows.push((name, describe(&ctx, name).await));
    }
    let body = html! {
        (layout::notice(query.get("notice").map(String::as_str)))
        div.bar {
            h1 { "Tables" }
            form.table-filter method="get" action="/console/tables" {
                label { "Filter tables" input #table-filter name="filter" type="search" value=(filter) placeholder="name contains…"; }
            }
            a.button href="/console/new-table" { "Create table" }
        }
        @if rows.is_empty() && filter.is_empty() {
            p.empty { "No tables yet. " a href="/console/new-table" { "Create one" } "." }
        } @else if rows.is_empty() {
            p.empty { "No table name contains " code { (filter) } "." }
        } @else {
            table.grid.tables {
                thead { tr {
                    th { "Name" } th { "Status" } th { "Items" } th { "Size" } th { "Keys" }
                    th { "Capacity" } th { "Indexes" } th { "Stream" } th { "Protection" }
                } }
                tbody {
                    @for (name, described) in &rows {
                        tr data-name=(name.to_lowercase()) {
                            td { a href=(table_path(name, Section::Items)) { (name) } }
                            @match described {
                                Ok(t) => {
                                    td { (t["TableStatus"].as_str().unwrap_or("")) }
                                    td.num { (t["ItemCount"]) }
                                    td.num { (bytes(t["TableSizeBytes"].as_u64().unwrap_or(0))) }
                                    td { (key_schema(&t["KeySchema"], &t["AttributeDefinitions"])) }
                                    td { (capacity(t)) }
                                    td { (index_count(t)) }
                                    td { (stream_text(t)) }
                                    td { @if t["DeletionProtectionEnabled"] == json!(true) { "deletion protection" } }
                                }
                                Err(e) => { td colspan="8" { (layout::error(e)) } }
                            }
                        }
                    }
                }
            }
        }
    };
    ctx.page("Tables", Tab::Tables, body)
}

/// `1.2 MB` and the like.
pub(crate) fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// `pk (S) · sk (N)`.
pub(crate) fn key_schema(schema: &Value, definitions: &Value) -> String {
    schema
        .as_array()
        .into_iter()
        .flatten()
        .map(|k| {
            let name = k["AttributeName"].as_str().unwrap_or("");
            format!("{name} ({})", attribute_type(definitions, name))
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The type an attribute is defined with (`S`, `N`, `B`).
pub(crate) fn attribute_type<'a>(definitions: &'a Value, name: &str) -> &'a str {
    definitions
        .as_array()
        .into_iter()
        .flatten()
        .find(|d| d["AttributeName"] == name)
        .and_then(|d| d["AttributeType"].as_str())
        .unwrap_or("S")
}

fn capacity(t: &Value) -> String {
    let mode = t["BillingModeSummary"]["BillingMode"]
        .as_str()
        .unwrap_or("PROVISIONED");
    if mode == "PAY_PER_REQUEST" {
        return "on-demand".to_owned();
    }
    let p = &t["ProvisionedThroughput"];
    format!(
        "{} RCU · {} WCU",
        p["ReadCapacityUnits"], p["WriteCapacityUnits"]
    )
}

fn index_count(t: &Value) -> String {
    let count = |k: &str| t[k].as_array().map_or(0, Vec::len);
    let (g, l) = (
        count("GlobalSecondaryIndexes"),
        count("LocalSecondaryIndexes"),
    );
    match (g, l) {
        (0, 0) => String::new(),
        _ => format!("{g} GSI · {l} LSI"),
    }
}

fn stream_text(t: &Value) -> String {
    if t["StreamSpecification"]["StreamEnabled"] == json!(true) {
        t["StreamSpecification"]["StreamViewType"]
            .as_str()
            .unwrap_or("on")
            .to_owned()
    } else {
        String::new()
    }
}

const KEY_TYPES: [&str; 3] = ["S", "N", "B"];
const PROJECTIONS: [&str; 3] = ["ALL", "KEYS_ONLY", "INCLUDE"];
/// The stream choices of the forms: off, or a view type.
const STREAM_CHOICES: [&str; 5] = [
    "off",
    "NEW_AND_OLD_IMAGES",
    "NEW_IMAGE",
    "OLD_IMAGE",
    "KEYS_ONLY",
];

fn select(name: &str, options: &[&str], chosen: &str) -> Markup {
    html! {
        select name=(name) {
            @for o in options {
                option value=(o) selected[*o == chosen] { (o) }
            }
        }
    }
}

/// `GET /console/new-table`.
pub(crate) async fn new_form(ctx: Ctx) -> Response {
    let body = create_form(&ctx, &Fields::new(), None);
    ctx.page("Create table", Tab::Tables, body)
}

fn create_form(ctx: &Ctx, f: &Fields, failed: Option<&ApiError>) -> Markup {
    let v = |name: &str| field(f, name).to_owned();
    let or = |name: &str, default: &str| {
        let value = field(f, name);
        if value.is_empty() {
            default.to_owned()
        } else {
            value.to_owned()
        }
    };
    html! {
        h1 { "Create table" }
        @if let Some(e) = failed { (layout::error(e)) }
        form.create method="post" action="/console/tables" {
            (csrf(ctx))
            fieldset {
                legend { "Table" }
                label { "Table name" input name="name" value=(v("name")) required; }
                div.row {
                    label { "Partition key" input name="pk" value=(v("pk")) required; }
                    label { "Type" (select("pk_type", &KEY_TYPES, &or("pk_type", "S"))) }
                }
                div.row {
                    label { "Sort key (optional)" input name="sk" value=(v("sk")); }
                    label { "Type" (select("sk_type", &KEY_TYPES, &or("sk_type", "S"))) }
                }
            }
            fieldset {
                legend { "Capacity" }
                div.row {
                    label { "Billing mode" (select("billing", &["PAY_PER_REQUEST", "PROVISIONED"], &or("billing", "PAY_PER_REQUEST"))) }
                    label { "Read capacity units" input name="rcu" type="number" value=(or("rcu", "5")); }
                    label { "Write capacity units" input name="wcu" type="number" value=(or("wcu", "5")); }
                }
            }
            fieldset {
                legend { "Global secondary index (optional)" }
                div.row {
                    label { "Index name" input name="gsi_name" value=(v("gsi_name")); }
                    label { "Projection" (select("gsi_projection", &PROJECTIONS, &or("gsi_projection", "ALL"))) }
                    label { "Included attributes (INCLUDE)" input name="gsi_include" value=(v("gsi_include")) placeholder="a, b"; }
                }
                div.row {
                    label { "Partition key" input name="gsi_pk" value=(v("gsi_pk")); }
                    label { "Type" (select("gsi_pk_type", &KEY_TYPES, &or("gsi_pk_type", "S"))) }
                    label { "Sort key" input name="gsi_sk" value=(v("gsi_sk")); }
                    label { "Type" (select("gsi_sk_type", &KEY_TYPES, &or("gsi_sk_type", "S"))) }
                }
            }
            fieldset {
                legend { "Local secondary index (optional, needs the table's sort key)" }
                div.row {
                    label { "Index name" input name="lsi_name" value=(v("lsi_name")); }
                    label { "Sort key" input name="lsi_sk" value=(v("lsi_sk")); }
                    label { "Type" (select("lsi_sk_type", &KEY_TYPES, &or("lsi_sk_type", "S"))) }
                    label { "Projection" (select("lsi_projection", &PROJECTIONS, &or("lsi_projection", "ALL"))) }
                }
            }
            fieldset {
                legend { "Options" }
                div.row {
                    label { "Stream" (select("stream", &STREAM_CHOICES, &or("stream", "off"))) }
                    label.check { input type="checkbox" name="deletion_protection" value="on" checked[!v("deletion_protection").is_empty()]; "Deletion protection" }
                    label { "Tags" input name="tags" value=(v("tags")) placeholder="team=orders, env=dev"; }
                }
            }
            details {
                summary { "Or paste a CreateTable request (JSON): it is sent as it is" }
                textarea name="json" rows="10" spellcheck="false" aria-label="CreateTable request (JSON)" { (v("json")) }
            }
            button type="submit" { "Create table" }
        }
    }
}

/// The CreateTable request the form describes.
fn create_request(f: &Fields) -> Result<Value, ApiError> {
    let raw = field(f, "json");
    if !raw.is_empty() {
        return serde_json::from_str(raw)
            .map_err(|e| ApiError::serialization(format!("The request is not JSON: {e}")));
    }
    let mut definitions: Vec<(String, String)> = Vec::new();
    let mut define = |name: &str, kind: &str| {
        if !definitions.iter().any(|(n, t)| n == name && t == kind) {
            definitions.push((name.to_owned(), kind.to_owned()));
        }
    };
    let mut key = |pk: &str, pk_type: &str, sk: &str, sk_type: &str| {
        define(pk, pk_type);
        let mut schema = vec![json!({ "AttributeName": pk, "KeyType": "HASH" })];
        if !sk.is_empty() {
            define(sk, sk_type);
            schema.push(json!({ "AttributeName": sk, "KeyType": "RANGE" }));
        }
        schema
    };
    let table_key = key(
        field(f, "pk"),
        field(f, "pk_type"),
        field(f, "sk"),
        field(f, "sk_type"),
    );
    let gsi_key = (!field(f, "gsi_name").is_empty()).then(|| {
        key(
            field(f, "gsi_pk"),
            field(f, "gsi_pk_type"),
            field(f, "gsi_sk"),
            field(f, "gsi_sk_type"),
        )
    });
    let lsi_key = (!field(f, "lsi_name").is_empty()).then(|| {
        key(
            field(f, "pk"),
            field(f, "pk_type"),
            field(f, "lsi_sk"),
            field(f, "lsi_sk_type"),
        )
    });
    let provisioned = field(f, "billing") == "PROVISIONED";
    let mut request = json!({
        "TableName": field(f, "name"),
        "KeySchema": table_key,
        "BillingMode": field(f, "billing"),
    });
    if provisioned {
        request["ProvisionedThroughput"] = throughput(f)?;
    }
    if let Some(schema) = gsi_key {
        let mut index = json!({
            "IndexName": field(f, "gsi_name"),
            "KeySchema": schema,
            "Projection": projection(field(f, "gsi_projection"), field(f, "gsi_include")),
        });
        if provisioned {
            index["ProvisionedThroughput"] = throughput(f)?;
        }
        request["GlobalSecondaryIndexes"] = json!([index]);
    }
    if let Some(schema) = lsi_key {
        request["LocalSecondaryIndexes"] = json!([{
            "IndexName": field(f, "lsi_name"),
            "KeySchema": schema,
            "Projection": projection(field(f, "lsi_projection"), ""),
        }]);
    }
    let stream = field(f, "stream");
    if !stream.is_empty() && stream != "off" {
        request["StreamSpecification"] = json!({ "StreamEnabled": true, "StreamViewType": stream });
    }
    if !field(f, "deletion_protection").is_empty() {
        request["DeletionProtectionEnabled"] = json!(true);
    }
    let tags = tags(field(f, "tags"));
    if !tags.is_empty() {
        request["Tags"] = json!(tags);
    }
    request["AttributeDefinitions"] = definitions
        .into_iter()
        .map(|(n, t)| json!({ "AttributeName": n, "AttributeType": t }))
        .collect();
    Ok(request)
}

/// The form's read and write capacity units as ProvisionedThroughput (the API checks
/// their range; text that is no whole number is refused here, naming the field).
fn throughput(f: &Fields) -> Result<Value, ApiError> {
    let units = |name: &str, label: &str| {
        field(f, name).parse::<i64>().map_err(|_| {
            ApiError::validation(format!(
                "{label} must be a whole number, not {:?}",
                field(f, name)
            ))
        })
    };
    Ok(json!({
        "ReadCapacityUnits": units("rcu", "Read capacity units")?,
        "WriteCapacityUnits": units("wcu", "Write capacity units")?,
    }))
}

fn projection(kind: &str, include: &str) -> Value {
    let mut p = json!({ "ProjectionType": kind });
    if kind == "INCLUDE" {
        p["NonKeyAttributes"] = include
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(|a| json!(a))
            .collect();
    }
    p
}

/// `team=orders, env=dev` as TagResource's list.
fn tags(text: &str) -> Vec<Value> {
    text.split(',')
        .filter_map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let k = k.trim();
            (!k.is_empty()).then(|| json!({ "Key": k, "Value": v.trim() }))
        })
        .collect()
}

/// `POST /console/tables`.
pub(crate) async fn create(Posted { ctx, fields: f }: Posted) -> Response {
    let result = match create_request(&f) {
        Ok(request) => ctx.call(Op::CreateTable, request).await,
        Err(e) => Err(e),
    };
    match result {
        Ok(out) => {
            let name = out["TableDescription"]["TableName"].as_str().unwrap_or("");
            ctx.redirect_notice(
                &table_path(name, Section::Overview),
                &format!("Created table {name}"),
            )
        }
        Err(e) => {
            let body = create_form(&ctx, &f, Some(&e));
            ctx.page("Create table", Tab::Tables, body)
        }
    }
}

/// `GET /console/tables/{table}`.
pub(crate) async fn show(
    ctx: Ctx,
    Path(table): Path<String>,
    Query(query): Query<Fields>,
) -> Response {
    overview(ctx, &table, query.get("notice").map(String::as_str), None).await
}

async fn overview(
    ctx: Ctx,
    table: &str,
    notice: Option<&str>,
    failed: Option<&ApiError>,
) -> Response {
    let t = match describe(&ctx, table).await {
        Ok(t) => t,
        Err(e) => {
            let body =
                html! { (layout::error(&e)) p { a href="/console/tables" { "All tables" } } };
            return ctx.page(table, Tab::Tables, body);
        }
    };
    let ttl = ctx
        .call(Op::DescribeTimeToLive, json!({ "TableName": table }))
        .await
        .map(|o| o["TimeToLiveDescription"].clone())
        .unwrap_or(Value::Null);
    let pitr = ctx
        .call(Op::DescribeContinuousBackups, json!({ "TableName": table }))
        .await
        .map(|o| o["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"].clone())
        .unwrap_or(Value::Null);
    let arn = t["TableArn"].as_str().unwrap_or("").to_owned();
    let tags = ctx
        .call(Op::ListTagsOfResource, json!({ "ResourceArn": arn }))
        .await
        .map(|o| o["Tags"].clone())
        .unwrap_or(Value::Null);
    let body = overview_body(&ctx, table, &t, &ttl, &pitr, &tags, notice, failed);
    ctx.page(table, Tab::Table(table, Section::Overview), body)
}

#[allow(clippy::too_many_arguments)] // one page's parts, each from its own API call
fn overview_body(
    ctx: &Ctx,
    table: &str,
    t: &Value,
    ttl: &Value,
    pitr: &Value,
    tags: &Value,
    notice: Option<&str>,
    failed: Option<&ApiError>,
) -> Markup {
    // Long: the page's markup, one section per API answer.
    let update = table_path(table, Section::Overview) + "/update";
    let definitions = &t["AttributeDefinitions"];
    let mode = t["BillingModeSummary"]["BillingMode"]
        .as_str()
        .unwrap_or("PROVISIONED");
    let streaming = t["StreamSpecification"]["StreamEnabled"] == json!(true);
    let protected = t["DeletionProtectionEnabled"] == json!(true);
    let ttl_on = ttl["TimeToLiveStatus"] == "ENABLED";
    let indexes: Vec<(&str, &Value)> = ["GlobalSecondaryIndexes", "LocalSecondaryIndexes"]
        .iter()
        .flat_map(|k| {
            let kind = if k.starts_with("Global") {
                "GSI"
            } else {
                "LSI"
            };
            t[*k]
                .as_array()
                .into_iter()
                .flatten()
                .map(move |i| (kind, i))
        })
        .collect();
    html! {
        (layout::notice(notice))
        @if let Some(e) = failed { (layout::error(e)) }
        dl.facts {
            dt { "Status" } dd { (t["TableStatus"].as_str().unwrap_or("")) }
            dt { "Items" } dd { (t["ItemCount"]) }
            dt { "Size" } dd { (bytes(t["TableSizeBytes"].as_u64().unwrap_or(0))) }
            dt { "Key schema" } dd { (key_schema(&t["KeySchema"], definitions)) }
            dt { "Capacity" } dd { (capacity(t)) }
            dt { "Stream" } dd { @if streaming { (stream_text(t)) br; code { (t["LatestStreamArn"].as_str().unwrap_or("")) } } @else { "off" } }
            dt { "Time to live" } dd { @if ttl_on { "on: " code { (ttl["AttributeName"].as_str().unwrap_or("")) } } @else { (ttl["TimeToLiveStatus"].as_str().unwrap_or("DISABLED")) } }
            dt { "Point-in-time recovery" } dd { (pitr["PointInTimeRecoveryStatus"].as_str().unwrap_or("DISABLED")) }
            dt { "Deletion protection" } dd { @if protected { "on" } @else { "off" } }
            dt { "ARN" } dd { code { (t["TableArn"].as_str().unwrap_or("")) } }
            dt { "Created" } dd { (time_text(&t["CreationDateTime"])) }
        }
        h2 { "Indexes" }
        @if indexes.is_empty() { p.empty { "No secondary indexes." } } @else {
            table.grid {
                thead { tr { th { "Name" } th { "Kind" } th { "Keys" } th { "Projection" } th { "Status" } th { "Items" } th { span.sr { "Actions" } } } }
                tbody {
                    @for (kind, i) in &indexes {
                        @let name = i["IndexName"].as_str().unwrap_or("");
                        tr {
                            td { a href=(format!("{}?index={}", table_path(table, Section::Items), layout::encode(name))) { (name) } }
                            td { (kind) }
                            td { (key_schema(&i["KeySchema"], definitions)) }
                            td { (i["Projection"]["ProjectionType"].as_str().unwrap_or("")) }
                            td { (i["IndexStatus"].as_str().unwrap_or("ACTIVE")) }
                            td.num { (i["ItemCount"]) }
                            td { @if *kind == "GSI" {
                                form.inline method="post" action=(update)
                                    data-confirm=(format!("Delete the index {name}? Queries on it fail until it is created and backfilled again.")) {
                                    (csrf(ctx))
                                    input type="hidden" name="action" value="delete_gsi";
                                    input type="hidden" name="index" value=(name);
                                    button.danger type="submit" { "Delete" }
                                }
                            } }
                        }
                    }
                }
            }
        }
        (super::vectors::indexes_section(table, t))
        div.forms {
            form method="post" action=(update) {
                (csrf(ctx))
                input type="hidden" name="action" value="create_gsi";
                h3 { "Add a global secondary index" }
                div.row {
                    label { "Index name" input name="gsi_name" required; }
                    label { "Projection" (select("gsi_projection", &PROJECTIONS, "ALL")) }
                }
                div.row {
                    label { "Partition key" input name="gsi_pk" required; }
                    label { "Type" (select("gsi_pk_type", &KEY_TYPES, "S")) }
                    label { "Sort key" input name="gsi_sk"; }
                    label { "Type" (select("gsi_sk_type", &KEY_TYPES, "S")) }
                }
                @if mode == "PROVISIONED" {
                    div.row {
                        label { "Read capacity units" input name="rcu" type="number" value="5"; }
                        label { "Write capacity units" input name="wcu" type="number" value="5"; }
                    }
                }
                button type="submit" { "Create index" }
            }
            form method="post" action=(update) {
                (csrf(ctx))
                input type="hidden" name="action" value="capacity";
                h3 { "Capacity" }
                div.row {
                    label { "Billing mode" (select("billing", &["PAY_PER_REQUEST", "PROVISIONED"], mode)) }
                    label { "Read capacity units" input name="rcu" type="number" value=(t["ProvisionedThroughput"]["ReadCapacityUnits"]); }
                    label { "Write capacity units" input name="wcu" type="number" value=(t["ProvisionedThroughput"]["WriteCapacityUnits"]); }
                }
                button type="submit" { "Update capacity" }
            }
            form method="post" action=(update)
                data-confirm=[streaming.then_some("Turn the stream off? Consumers and triggers stop at its last record, and a stream turned on again is a new stream with a new ARN.")]
                data-confirm-when="stream=off" {
                (csrf(ctx))
                input type="hidden" name="action" value="stream";
                h3 { "Stream" }
                label { "Stream" (select("stream", &STREAM_CHOICES, if streaming { stream_text(t) } else { "off".to_owned() }.as_str())) }
                button type="submit" { "Update stream" }
            }
            form method="post" action=(update)
                data-confirm=[ttl_on.then_some("Turn TTL off? Expired items are no longer deleted until it is turned on again.")] {
                (csrf(ctx))
                input type="hidden" name="action" value="ttl";
                h3 { "Time to live" }
                label { "Attribute" input name="ttl_attribute" value=(ttl["AttributeName"].as_str().unwrap_or("expires_at")); }
                input type="hidden" name="enable" value=(if ttl_on { "false" } else { "true" });
                button type="submit" { @if ttl_on { "Turn TTL off" } @else { "Turn TTL on" } }
            }
            form method="post" action=(update)
                data-confirm=[protected.then_some("Turn deletion protection off? The table can then be deleted.")] {
                (csrf(ctx))
                input type="hidden" name="action" value="protection";
                input type="hidden" name="enable" value=(if protected { "false" } else { "true" });
                h3 { "Deletion protection" }
                button type="submit" { @if protected { "Turn deletion protection off" } @else { "Turn deletion protection on" } }
            }
            form method="post" action=(update) {
                (csrf(ctx))
                input type="hidden" name="action" value="tag";
                h3 { "Tags" }
                ul.tags {
                    @for tag in tags.as_array().into_iter().flatten() {
                        li { code { (tag["Key"].as_str().unwrap_or("")) "=" (tag["Value"].as_str().unwrap_or("")) } }
                    }
                }
                div.row {
                    label { "Add tags" input name="tags" placeholder="team=orders"; }
                    label { "Remove keys" input name="untag" placeholder="team"; }
                }
                button type="submit" { "Update tags" }
            }
            form.delete method="post" action=(table_path(table, Section::Overview) + "/delete") {
                (csrf(ctx))
                h3 { "Delete table" }
                label { "Type the table name to confirm" input name="confirm" autocomplete="off"; }
                button.danger type="submit" { "Delete table" }
            }
        }
    }
}

/// `POST /console/tables/{table}/update`: the form's `action` names the change.
pub(crate) async fn update(
    Path(table): Path<String>,
    Posted { ctx, fields: f }: Posted,
) -> Response {
    let result = match update_call(&ctx, &table, &f).await {
        Ok(done) => {
            return ctx.redirect_notice(&table_path(&table, Section::Overview), &done);
        }
        Err(e) => e,
    };
    overview(ctx, &table, None, Some(&result)).await
}

/// Makes the change; Ok is the notice to show.
async fn update_call(ctx: &Ctx, table: &str, f: &Fields) -> Result<String, ApiError> {
    let enable = field(f, "enable") == "true";
    match field(f, "action") {
        "capacity" => {
            let billing = field(f, "billing");
            let mut request = json!({ "TableName": table, "BillingMode": billing });
            if billing == "PROVISIONED" {
                request["ProvisionedThroughput"] = throughput(f)?;
            }
            ctx.call(Op::UpdateTable, request).await?;
            Ok("Updated the capacity".to_owned())
        }
        "stream" => {
            let view = field(f, "stream");
            let spec = if view == "off" || view.is_empty() {
                json!({ "StreamEnabled": false })
            } else {
                json!({ "StreamEnabled": true, "StreamViewType": view })
            };
            ctx.call(
                Op::UpdateTable,
                json!({ "TableName": table, "StreamSpecification": spec }),
            )
            .await?;
            Ok("Updated the stream".to_owned())
        }
        "ttl" => {
            ctx.call(
                Op::UpdateTimeToLive,
                json!({ "TableName": table, "TimeToLiveSpecification": {
                    "AttributeName": field(f, "ttl_attribute"), "Enabled": enable } }),
            )
            .await?;
            Ok(format!("Turned TTL {}", if enable { "on" } else { "off" }))
        }
        "protection" => {
            ctx.call(
                Op::UpdateTable,
                json!({ "TableName": table, "DeletionProtectionEnabled": enable }),
            )
            .await?;
            Ok(format!(
                "Turned deletion protection {}",
                if enable { "on" } else { "off" }
            ))
        }
        "tag" => update_tags(ctx, table, f).await,
        "create_gsi" => create_gsi(ctx, table, f).await,
        "delete_gsi" => {
            ctx.call(
                Op::UpdateTable,
                json!({ "TableName": table,
                        "GlobalSecondaryIndexUpdates": [{ "Delete": { "IndexName": field(f, "index") } }] }),
            )
            .await?;
            Ok(format!("Deleting index {}", field(f, "index")))
        }
        other => Err(ApiError::validation(format!(
            "unknown console action {other:?}"
        ))),
    }
}

/// The tags the form adds, then those it removes.
async fn update_tags(ctx: &Ctx, table: &str, f: &Fields) -> Result<String, ApiError> {
    let arn = describe(ctx, table).await?["TableArn"].clone();
    let add = tags(field(f, "tags"));
    if !add.is_empty() {
        ctx.call(Op::TagResource, json!({ "ResourceArn": arn, "Tags": add }))
            .await?;
    }
    let remove: Vec<&str> = field(f, "untag")
        .split(',')
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .collect();
    if !remove.is_empty() {
        ctx.call(
            Op::UntagResource,
            json!({ "ResourceArn": arn, "TagKeys": remove }),
        )
        .await?;
    }
    Ok("Updated the tags".to_owned())
}

/// A new GSI from the form: keys, projection, and capacity on a provisioned table.
async fn create_gsi(ctx: &Ctx, table: &str, f: &Fields) -> Result<String, ApiError> {
    let t = describe(ctx, table).await?;
    let mut definitions: Map<String, Value> = Map::new();
    for d in t["AttributeDefinitions"].as_array().into_iter().flatten() {
        if let Some(n) = d["AttributeName"].as_str() {
            definitions.insert(n.to_owned(), d["AttributeType"].clone());
        }
    }
    let mut schema = vec![json!({ "AttributeName": field(f, "gsi_pk"), "KeyType": "HASH" })];
    definitions.insert(
        field(f, "gsi_pk").to_owned(),
        json!(field(f, "gsi_pk_type")),
    );
    if !field(f, "gsi_sk").is_empty() {
        schema.push(json!({ "AttributeName": field(f, "gsi_sk"), "KeyType": "RANGE" }));
        definitions.insert(
            field(f, "gsi_sk").to_owned(),
            json!(field(f, "gsi_sk_type")),
        );
    }
    let mut create = json!({
        "IndexName": field(f, "gsi_name"),
        "KeySchema": schema,
        "Projection": projection(field(f, "gsi_projection"), field(f, "gsi_include")),
    });
    if f.contains_key("rcu") {
        create["ProvisionedThroughput"] = throughput(f)?;
    }
    let definitions: Vec<Value> = definitions
        .into_iter()
        .map(|(n, t)| json!({ "AttributeName": n, "AttributeType": t }))
        .collect();
    ctx.call(
        Op::UpdateTable,
        json!({ "TableName": table, "AttributeDefinitions": definitions,
                "GlobalSecondaryIndexUpdates": [{ "Create": create }] }),
    )
    .await?;
    Ok(format!("Creating index {}", field(f, "gsi_name")))
}

/// `POST /console/tables/{table}/delete`: only when the name was typed to confirm.
pub(crate) async fn delete(
    Path(table): Path<String>,
    Posted { ctx, fields: f }: Posted,
) -> Response {
    if field(&f, "confirm") != table {
        let e = ApiError::validation("Type the table's name to confirm the deletion".to_owned());
        return overview(ctx, &table, None, Some(&e)).await;
    }
    match ctx
        .call(Op::DeleteTable, json!({ "TableName": table }))
        .await
    {
        Ok(_) => ctx.redirect_notice("/console/tables", &format!("Deleted table {table}")),
        Err(e) => overview(ctx, &table, None, Some(&e)).await,
    }
}
