//! The page shell every console page shares: the header with its navigation, a table's
//! tabs, error banners, and the small form parts (the CSRF field).

use maud::{DOCTYPE, Markup, html};

use super::Ctx;
use kura_api::error::ApiError;

/// Where a page sits in the navigation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tab<'a> {
    None,
    Tables,
    Table(&'a str, Section),
    PartiQl,
    Kinesis,
    Advisor,
    Framework,
}

/// A table's pages.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Section {
    Overview,
    Items,
    Entities,
    Vectors,
    Stream,
    Metrics,
    Protection,
}

impl Section {
    const ALL: [Section; 7] = [
        Section::Overview,
        Section::Items,
        Section::Entities,
        Section::Vectors,
        Section::Stream,
        Section::Metrics,
        Section::Protection,
    ];

    fn label(self) -> &'static str {
        match self {
            Section::Overview => "Overview",
            Section::Items => "Items",
            Section::Entities => "Entity types",
            Section::Vectors => "Vector search",
            Section::Stream => "Stream",
            Section::Metrics => "Metrics",
            Section::Protection => "Backups & PITR",
        }
    }

    fn path(self) -> &'static str {
        match self {
            Section::Overview => "",
            Section::Items => "/items",
            Section::Entities => "/entities",
            Section::Vectors => "/vectors",
            Section::Stream => "/stream",
            Section::Metrics => "/metrics",
            Section::Protection => "/protection",
        }
    }
}

/// The path of a table's page (the name percent-encoded).
pub(crate) fn table_path(table: &str, section: Section) -> String {
    format!("/console/tables/{}{}", encode(table), section.path())
}

/// Percent-encodes a path segment or query value.
pub(crate) fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    kura_auth::sigv4::uri_encode(text.as_bytes(), &mut out);
    out
}

pub(crate) fn page(ctx: &Ctx, title: &str, tab: Tab<'_>, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · Kura console" }
                link rel="stylesheet" href="/console/assets/console.css";
                script src="/console/assets/console.js" defer {}
            }
            body {
                header.top {
                    a.brand href="/console/tables" { "Kura" }
                    nav aria-label="Console" {
                        a href="/console/tables" class=[matches!(tab, Tab::Tables | Tab::Table(..)).then_some("on")] { "Tables" }
                        a href="/console/partiql" class=[(tab == Tab::PartiQl).then_some("on")] { "PartiQL" }
                        a href="/console/kinesis" class=[(tab == Tab::Kinesis).then_some("on")] { "Kinesis" }
                        a href="/console/advisor" class=[(tab == Tab::Advisor).then_some("on")] { "Advisor" }
                        a href="/console/framework" class=[(tab == Tab::Framework).then_some("on")] { "kura-cqrs" }
                    }
                    @let regions = ctx.regions();
                    @if !regions.is_empty() {
                        form.region method="post" action="/console/region" {
                            (csrf(ctx))
                            label { "Region "
                                select name="region" {
                                    @for region in &regions {
                                        option value=(region) selected[region.as_str() == ctx.region()] { (region) }
                                    }
                                }
                            }
                            button type="submit" { "Switch" }
                        }
                    }
                    @if let Some(signed_in) = &ctx.session.signed_in {
                        form.signout method="post" action="/console/signout" {
                            (csrf(ctx))
                            span.who { (signed_in.access_key_id) " · " (signed_in.region) }
                            button type="submit" { "Sign out" }
                        }
                    }
                }
                @if let Tab::Table(table, section) = tab {
                    div.tablehead role="region" aria-label=(format!("Table {table}")) {
                        h1 { (table) }
                        nav.tabs aria-label="Table sections" {
                            @for s in Section::ALL {
                                a href=(table_path(table, s)) class=[(s == section).then_some("on")] { (s.label()) }
                            }
                        }
                    }
                }
                main { (body) }
            }
        }
    }
}

/// The hidden field that carries the session's CSRF token.
pub(crate) fn csrf(ctx: &Ctx) -> Markup {
    html! { input type="hidden" name="csrf" value=(ctx.session.csrf); }
}

/// An API error as the API returns it: its type and message.
pub(crate) fn error(error: &ApiError) -> Markup {
    html! {
        div.error role="alert" {
            strong { (error.name()) }
            @if let Some(message) = &error.message { ": " (message) }
        }
    }
}

/// A notice after a form did its work.
pub(crate) fn notice(text: Option<&str>) -> Markup {
    html! {
        @if let Some(text) = text.filter(|t| !t.is_empty()) {
            div.notice role="status" { (text) }
        }
    }
}

pub(crate) fn sign_in(ctx: &Ctx, failed: Option<&ApiError>) -> Markup {
    html! {
        section.signin {
            h1 { "Sign in" }
            p { "This server checks signatures (" code { "--auth" } "): sign in with an access key from its credentials file. The console then acts with that principal's policies." }
            @if let Some(e) = failed { (error(e)) }
            form method="post" action="/console/signin" {
                (csrf(ctx))
                label { "Access key ID" input name="access_key_id" autocomplete="username" required; }
                label { "Secret access key" input name="secret_access_key" type="password" autocomplete="current-password" required; }
                label { "Session token (temporary credentials only)" input name="session_token"; }
                label { "Region (policies see the ARNs of this region)" input name="region" value=(kura_auth::DEFAULT_REGION); }
                button type="submit" { "Sign in" }
            }
        }
    }
}
