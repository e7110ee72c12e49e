//! The PartiQL editor: ExecuteStatement with parameters, a page at a time. The tokens of
//! the pages before ride in the form, so "previous" runs the statement from that page's
//! token again.

use axum::response::Response;
use maud::{Markup, html};
use serde_json::{Map, Value, json};

use super::layout::{self, Tab, csrf};
use super::values;
use super::{Ctx, Fields, Posted, code, field, grid, paging};
use kura_api::error::ApiError;
use kura_api::operation::Op;

/// Separates the NextTokens of the pages before (tokens are base64: no spaces).
const BACK_SEPARATOR: char = ' ';

/// `GET /console/partiql`.
pub(crate) async fn page(ctx: Ctx) -> Response {
    let body = editor(&ctx, &Fields::new(), None);
    ctx.page("PartiQL", Tab::PartiQl, body)
}

/// `POST /console/partiql`: runs the statement from `token` (the page asked for).
pub(crate) async fn run(Posted { ctx, fields: mut f }: Posted) -> Response {
    // A token belongs to the statement and parameters it came from: once either is
    // edited, Next and Previous run the new one from its first page.
    let same = field(&f, "statement") == field(&f, "ran_statement")
        && field(&f, "parameters") == field(&f, "ran_parameters");
    match field(&f, "go") {
        "previous" if same => {
            let back = field(&f, "back").to_owned();
            let (last, rest) = paging::pop(&back, BACK_SEPARATOR);
            let (last, rest) = (last.to_owned(), rest.to_owned());
            f.insert("token".into(), last);
            f.insert("back".into(), rest);
        }
        "next" if same => {
            let back = paging::push(field(&f, "back"), field(&f, "token"), BACK_SEPARATOR);
            let next = field(&f, "next").to_owned();
            f.insert("back".into(), back);
            f.insert("token".into(), next);
        }
        _ => {
            f.remove("token");
            f.remove("back");
        }
    }
    let result = match statement_request(&f) {
        Ok(request) => ctx
            .call(Op::ExecuteStatement, request.clone())
            .await
            .map(|out| (out, request)),
        Err(e) => Err(e),
    };
    let body = editor(&ctx, &f, Some(&result));
    ctx.page("PartiQL", Tab::PartiQl, body)
}

/// The ExecuteStatement request the form describes.
fn statement_request(f: &Fields) -> Result<Value, ApiError> {
    let mut request =
        json!({ "Statement": field(f, "statement"), "ReturnConsumedCapacity": "TOTAL" });
    let parameters = field(f, "parameters");
    if !parameters.is_empty() {
        match serde_json::from_str::<Value>(parameters) {
            Ok(Value::Array(list)) => {
                request["Parameters"] = list.iter().map(values::to_typed).collect();
            }
            _ => {
                return Err(ApiError::validation(
                    "Parameters must be a JSON array (plain or DynamoDB JSON values)".to_owned(),
                ));
            }
        }
    }
    if let Ok(limit) = field(f, "limit").parse::<u64>() {
        request["Limit"] = json!(limit);
    }
    if field(f, "consistent") == "on" {
        request["ConsistentRead"] = json!(true);
    }
    let token = field(f, "token");
    if !token.is_empty() {
        request["NextToken"] = json!(token);
    }
    Ok(request)
}

/// The form, and the outcome of the request it ran: the answer and the request itself.
fn editor(ctx: &Ctx, f: &Fields, result: Option<&Result<(Value, Value), ApiError>>) -> Markup {
    html! {
        h1 { "PartiQL" }
        form.partiql method="post" action="/console/partiql" {
            (csrf(ctx))
            label.wide { "Statement"
                textarea name="statement" rows="4" spellcheck="false" placeholder=r#"SELECT * FROM "orders" WHERE pk = ?"# { (field(f, "statement")) }
            }
            div.row {
                label.wide { "Parameters (JSON array, plain or DynamoDB JSON)" input name="parameters" value=(field(f, "parameters")) placeholder=r#"["customer#1"]"#; }
                label { "Limit" input name="limit" type="number" min="1" value=(field(f, "limit")); }
                label.check { input type="checkbox" name="consistent" value="on" checked[field(f, "consistent") == "on"]; "Strongly consistent" }
            }
            input type="hidden" name="token" value=(field(f, "token"));
            input type="hidden" name="ran_statement" value=(field(f, "statement"));
            input type="hidden" name="ran_parameters" value=(field(f, "parameters"));
            input type="hidden" name="back" value=(field(f, "back"));
            @if let Some(Ok((out, _))) = result {
                input type="hidden" name="next" value=(out["NextToken"].as_str().unwrap_or(""));
            }
            div.row {
                button type="submit" name="go" value="run" { "Run" }
                @if !field(f, "back").is_empty() {
                    button.secondary type="submit" name="go" value="previous" { "← Previous" }
                }
                @if let Some(Ok((out, _))) = result {
                    @if out["NextToken"].is_string() {
                        button.secondary type="submit" name="go" value="next" { "Next →" }
                    }
                }
            }
        }
        @match result {
            None => {}
            Some(Err(e)) => (layout::error(e)),
            Some(Ok((out, request))) => {
                (items(out))
                (code::section(Op::ExecuteStatement, request, &ctx.endpoint(), ctx.region()))
            }
        }
    }
}

fn items(out: &Value) -> Markup {
    let items: Vec<&Map<String, Value>> = out["Items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .collect();
    let columns = grid::columns(&[], &items);
    html! {
        p.counts {
            strong { (items.len()) } " items"
            @if let Some(units) = out["ConsumedCapacity"]["CapacityUnits"].as_f64() { " · " (units) " capacity units" }
        }
        @if !items.is_empty() {
            (grid::grid("partiql", &columns, &items, None))
        }
    }
}
