//! The design advisor's page: its findings on the tables the principal may read, errors
//! first, with the accepted exceptions the user gives (the suppressions JSON `kura advise
//! --suppressions` reads, pasted or read from a file by the page) listed as suppressed,
//! never hidden; and template mode: a CloudFormation, SAM, CDK or Terraform file (or a
//! `--schema` JSON) checked before it is deployed, as `kura advise --template` checks it.
//!
//! The advisor's evidence holds key values: findings are shown only for tables the
//! principal's policies let it scan. Under `--auth` the signed-in principal's own identity
//! policies are checked too (no one else's). Nothing here is kept on the server: the suppressions
//! and the template travel with the form.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::Query;
use axum::response::Response;
use maud::{Markup, html};
use parking_lot::Mutex;
use serde_json::Value;

use super::layout::{self, Section, Tab, csrf, table_path};
use super::{Ctx, Fields, Posted, field, raw};
use kura_advisor::suppressions::{self, Problem, Reported, SuppressionWarning};
use kura_api::operation::Op;

/// The advisor's last findings, kept a few seconds: it samples every table, and a page
/// reloaded in a loop should not make it do so each time.
#[derive(Default)]
pub(crate) struct AdviceCache {
    last: Mutex<Option<(Instant, Arc<kura_advisor::Advice>)>>,
}

/// How long the advisor's findings are reused.
const ADVICE_FOR: Duration = Duration::from_secs(10);

impl AdviceCache {
    async fn get(
        &self,
        engine: Arc<kura_engine::Engine>,
    ) -> Result<Arc<kura_advisor::Advice>, String> {
        if let Some((at, advice)) = &*self.last.lock()
            && at.elapsed() < ADVICE_FOR
        {
            return Ok(advice.clone());
        }
        // It samples every table: off the async workers.
        let advice = tokio::task::spawn_blocking(move || kura_advisor::advise(&engine))
            .await
            .map_err(|e| e.to_string())?;
        let advice = Arc::new(advice);
        *self.last.lock() = Some((Instant::now(), advice.clone()));
        Ok(advice)
    }
}

/// What a suppressions text says: none when it is empty, or why it is refused.
fn suppressions_of(text: &str) -> Result<Vec<suppressions::Suppression>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    suppressions::read_suppressions(text)
}

/// `GET /console/advisor`: the live findings.
pub(crate) async fn page(ctx: Ctx, Query(q): Query<Fields>) -> Response {
    live(ctx, q).await
}

/// `POST /console/advisor`: the live findings with the posted suppressions applied.
pub(crate) async fn apply(posted: Posted) -> Response {
    live(posted.ctx, posted.fields).await
}

async fn live(ctx: Ctx, f: Fields) -> Response {
    let names = match super::tables::table_names(&ctx).await {
        Ok(names) => names,
        Err(e) => return ctx.page("Advisor", Tab::Advisor, layout::error(&e)),
    };
    let mut visible = Vec::new();
    for name in names {
        if ctx.allowed(Op::Scan, &name) && super::tables::describe(&ctx, &name).await.is_ok() {
            visible.push(name);
        }
    }
    let only = field(&f, "table");
    let text = raw(&f, "suppressions");
    let body = match ctx.console.advice.get(ctx.engine()).await {
        Err(e) => html! { div.error { (e) } },
        Ok(advice) => {
            // Under --auth, the signed-in principal's own identity policies too.
            let own = ctx
                .session
                .signed_in
                .as_ref()
                .map(|v| kura_advisor::identities(&[&v.principal]))
                .unwrap_or_default();
            // Server-wide findings (table `*`) quote no item; mixed-environments names other
            // tables' environments, so only a principal who sees every table gets it.
            let sees_all = visible.len() == advice.tables;
            let shown = |f: &&kura_advisor::Finding| {
                if f.table == "*" {
                    only.is_empty() && (f.rule != "naming.mixed-environments" || sees_all)
                } else {
                    visible.contains(&f.table) && (only.is_empty() || f.table == only)
                }
            };
            let findings: Vec<Value> = advice
                .findings
                .iter()
                .filter(shown)
                .chain(own.iter().filter(|_| only.is_empty()))
                .filter_map(|f| serde_json::to_value(f).ok())
                .collect();
            let (reported, warnings, refused) = applied(&findings, text, only.is_empty());
            html! {
                h1 { "Design advisor" }
                p { (advice.rules_checked) " rules check " (advice.rules_checked) " of the " (advice.rules_checkable) " recommendations of the design guideline a program can check (docs/advisor.md), on the " (visible.len()) " tables you may read." }
                p.hint { "Traffic evidence since " (advice.traffic_since) " (the console's own browsing and test seeds left out); up to 1,000 items of each table sampled across its key space." }
                (suppressions_form(&ctx, "/console/advisor", text, only, refused.as_deref()))
                (warned(&warnings))
                (listed(&reported, false))
                (template_form(&ctx, "", text))
            }
        }
    };
    ctx.page("Advisor", Tab::Advisor, body)
}

/// `POST /console/advisor/template`: the findings on the tables a template declares.
pub(crate) async fn template(posted: Posted) -> Response {
    let Posted { ctx, fields } = posted;
    let template = raw(&fields, "template");
    let text = raw(&fields, "suppressions");
    let checked = if template.trim().is_empty() {
        Err("Paste a template or read one from a file.".to_owned())
    } else {
        kura_advisor::template::advise(template, &Default::default(), &Default::default()).await
    };
    let body = match checked {
        Err(e) => html! {
            h1 { "Design advisor: template" }
            div.error { "The template could not be read: " (e) }
            (template_form(&ctx, template, text))
        },
        Ok(advice) => {
            let findings = advice["findings"].as_array().cloned().unwrap_or_default();
            let (reported, warnings, refused) = applied(&findings, text, true);
            html! {
                h1 { "Design advisor: template" }
                p { (advice["tables"]) " tables declared, checked before deploy by the design rules (no items and no traffic): the same findings as " code { "kura advise --template" } "." }
                @if let Some(e) = &refused { div.error { "The suppressions are not applied: " (e) } }
                (warned(&warnings))
                (listed(&reported, true))
                (template_form(&ctx, template, text))
                p { a href="/console/advisor" { "← The live tables' findings" } }
            }
        }
    };
    ctx.page("Advisor", Tab::Advisor, body)
}

/// The findings with the suppressions of `text` applied, and what is wrong with them
/// (all unsuppressed, and why, when the text is refused). A page that shows one table's
/// findings (`whole` false) does not say a suppression matches nothing: its findings
/// may be on another table.
fn applied(
    findings: &[Value],
    text: &str,
    whole: bool,
) -> (Vec<Reported>, Vec<SuppressionWarning>, Option<String>) {
    let (list, refused) = match suppressions_of(text) {
        Ok(list) => (list, None),
        Err(e) => (Vec::new(), Some(e)),
    };
    let reported = suppressions::report(findings, &list, suppressions::today());
    let warnings = suppressions::warnings(&list, &reported)
        .into_iter()
        .filter(|w| whole || w.problem != Problem::MatchesNothing)
        .collect();
    (reported, warnings, refused)
}

/// What is wrong with the suppressions, each with the suppression's rule and table.
fn warned(warnings: &[SuppressionWarning]) -> Markup {
    html! {
        @if !warnings.is_empty() {
            div.warning role="status" {
                p { strong { "Suppression warnings (" (warnings.len()) ")" } }
                ul { @for w in warnings {
                    li { code { (w.suppression.rule) } @if let Some(t) = &w.suppression.table { " on " code { (t) } } ": " (w.to_string()) }
                } }
            }
        }
    }
}

fn suppressions_form(
    ctx: &Ctx,
    action: &str,
    text: &str,
    table: &str,
    refused: Option<&str>,
) -> Markup {
    html! {
        details.suppressions open[!text.trim().is_empty()] {
            summary { "Suppressions (accepted exceptions)" }
            p.hint { "The JSON " code { "kura advise --suppressions" } " reads: " code { r#"{"suppressions": [{"rule": "api.scan", "table": "dev-*", "reason": "...", "expires": "2027-03-31"}]}"# } ". A suppressed finding is listed as suppressed, with its reason, never hidden; after its last day it applies no more. Nothing is stored on the server: keep the file in your repository." }
            @if let Some(e) = refused { div.error { "The suppressions are not applied: " (e) } }
            form.suppressions method="post" action=(action) {
                (csrf(ctx))
                input type="hidden" name="table" value=(table);
                label { "Read a file" input.fills type="file" accept=".json,application/json" data-fills="advisor-suppressions"; }
                textarea #advisor-suppressions name="suppressions" rows="6" spellcheck="false" aria-label="Suppressions" { (text) }
                div.row { button type="submit" { "Apply suppressions" } }
            }
        }
    }
}

fn template_form(ctx: &Ctx, template: &str, suppressions: &str) -> Markup {
    html! {
        section.template {
            h2 { "Check a template before deploy" }
            p.hint { "A CloudFormation or SAM template (JSON or YAML), " code { "cdk synth" } " output, a Terraform plan (" code { "terraform show -json" } ") or a DescribeTable / " code { "--schema" } " JSON. Its tables are created in a scratch in-memory engine, never in this server." }
            form.template method="post" action="/console/advisor/template" {
                (csrf(ctx))
                input type="hidden" name="suppressions" value=(suppressions);
                label { "Read a file" input.fills type="file" accept=".json,.yaml,.yml,.template,application/json" data-fills="advisor-template"; }
                textarea #advisor-template name="template" rows="12" spellcheck="false" aria-label="Template" { (template) }
                div.row { button type="submit" { "Check the template" } }
            }
        }
    }
}

/// The findings, then the suppressed ones; with where a template declares each.
fn listed(reported: &[Reported], from_template: bool) -> Markup {
    let (open, suppressed): (Vec<&Reported>, Vec<&Reported>) =
        reported.iter().partition(|r| r.suppressed.is_none());
    html! {
        @if open.is_empty() { p.empty { "No findings: every checked rule holds." } }
        @else { h2 { "Findings (" (open.len()) ")" } }
        @for r in &open { (finding(r, from_template)) }
        @if !suppressed.is_empty() {
            h2 { "Suppressed (" (suppressed.len()) ")" }
            @for r in &suppressed { (finding(r, from_template)) }
        }
    }
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or_default()
}

fn finding(r: &Reported, from_template: bool) -> Markup {
    let f = &r.finding;
    let table = text(f, "table");
    let class = if r.suppressed.is_some() {
        "finding suppressed"
    } else {
        "finding"
    };
    html! {
        article class=(class) {
            h3 {
                span class=(format!("severity {}", text(f, "severity"))) { (text(f, "severity")) }
                " " (text(f, "rule")) " · "
                @if from_template {
                    (table)
                    @if let Some(resource) = f["resource"].as_str() { " · resource " code { (resource) } }
                    @if let Some(line) = f["line"].as_u64() { " · line " (line) }
                    @else if let Some(why) = f["noLine"].as_str() { " · no line (" (why) ")" }
                } @else if table == "*" {
                    "the whole server"
                } @else {
                    a href=(table_path(table, Section::Overview)) { (table) }
                }
                @if let Some(i) = f["index"].as_str() { " · index " (i) }
            }
            @if let Some(s) = &r.suppressed {
                p.suppression { strong { "Suppressed: " } (s.reason) @if let Some(day) = &s.expires { " (until " (day) ")" } }
            }
            @if let Some(s) = &r.expired {
                p.suppression.expired { "Its suppression expired on " (s.expires.as_deref().unwrap_or_default()) ": " (s.reason) }
            }
            p.evidence { (text(f, "evidence")) }
            p.seen { "Seen in " (kura_advisor::rules::seen(f)) "." }
            p.fix { strong { "Fix: " } (text(f, "fix")) }
            p.section { "Guideline: " (text(f, "section")) }
        }
    }
}
