//! The web console under `/console`: server-rendered pages (maud) with a little
//! JavaScript, every asset compiled into the binary (docs/adr/0017-console.md). A front
//! end of `kura-server` ([`front_end`]): it reaches the server only through its
//! [`ServerHandle`].
//!
//! Every page acts through [`Ctx::call`], which runs the DynamoDB operation through the
//! server's one request pipeline, as `POST /` does, as the signed-in principal: what the console may do is what
//! that principal's policies allow. Forms carry the session's CSRF token, cookies are
//! `SameSite=Lax`, a POST from another origin is refused, and the pages' content
//! security policy allows no inline script, so a stored value can never run as code.

mod advisor;
mod assets;
pub mod code;
mod entities;
mod framework;
mod grid;
mod items;
mod kinesis;
mod layout;
mod load;
mod metrics;
mod paging;
mod partiql;
mod protection;
mod session;
mod sign_in_limit;
mod streams;
mod tables;
mod values;
mod vectors;

use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use bytes::Bytes;
use maud::Markup;
use serde_json::Value;

use kura_api::error::ApiError;
use kura_api::operation::Op;
use kura_api::pipeline::{Origin, Request};
use kura_server::{FrontEnd, ServerHandle};
pub(crate) use layout::Tab;

/// The console's own state: sessions, the metrics samples its charts draw, and the
/// advisor's last findings.
#[derive(Default)]
struct Console {
    sessions: session::Sessions,
    sign_ins: sign_in_limit::SignInLimiter,
    samples: metrics::Sampler,
    advice: advisor::AdviceCache,
    /// The server speaks HTTPS: the session cookie is `Secure`.
    secure: bool,
}

/// What every console handler shares: its server and its own state.
#[derive(Clone)]
pub(crate) struct Shared {
    server: ServerHandle,
    console: Arc<Console>,
}

/// The console as a front end of a server: `secure` when the server speaks HTTPS (the
/// session cookie is then `Secure`).
pub fn front_end(secure: bool) -> FrontEnd {
    Arc::new(move |server| {
        let console = Arc::new(Console {
            secure,
            ..Console::default()
        });
        console.samples.start(&server, &console);
        let shared = Shared { server, console };
        routes().with_state(shared)
    })
}

/// The console's routes.
fn routes() -> Router<Shared> {
    Router::new()
        .route("/console", get(tables::list))
        .route("/console/", get(tables::list))
        .route("/console/assets/{name}", get(assets::serve))
        .route("/console/signin", get(sign_in_form).post(sign_in))
        .route("/console/signout", post(sign_out))
        .route("/console/region", post(choose_region))
        .route("/console/tables", get(tables::list).post(tables::create))
        .route("/console/new-table", get(tables::new_form))
        .route("/console/tables/{table}", get(tables::show))
        .route("/console/tables/{table}/update", post(tables::update))
        .route("/console/tables/{table}/delete", post(tables::delete))
        .route("/console/tables/{table}/items", get(items::browse))
        .route(
            "/console/tables/{table}/item",
            get(items::edit).post(items::save),
        )
        .route("/console/tables/{table}/item/delete", post(items::delete))
        .route(
            "/console/tables/{table}/load",
            // A load takes 16 MB of items, which form encoding may grow up to three times.
            get(load::form)
                .post(load::load)
                .layer(axum::extract::DefaultBodyLimit::max(64 << 20)),
        )
        .route("/console/tables/{table}/entities", get(entities::page))
        .route("/console/tables/{table}/vectors", get(vectors::page))
        .route("/console/tables/{table}/stream", get(streams::page))
        .route("/console/tables/{table}/stream/poll", post(streams::poll))
        .route("/console/tables/{table}/metrics", get(metrics::table_page))
        .route(
            "/console/tables/{table}/metrics/charts",
            get(metrics::charts),
        )
        .route(
            "/console/tables/{table}/protection",
            get(protection::page).post(protection::act),
        )
        .route("/console/partiql", get(partiql::page).post(partiql::run))
        .route("/console/advisor", get(advisor::page).post(advisor::apply))
        .route("/console/advisor/template", post(advisor::template))
        .route("/console/kinesis", get(kinesis::list))
        .route("/console/kinesis/{stream}", get(kinesis::show))
        .route("/console/framework", get(framework::list))
        .route("/console/framework/{module}", get(framework::module))
}

/// One console request: the shared server state, the visitor's session, and when the
/// request started (pages report their server time in `Server-Timing`).
pub(crate) struct Ctx {
    server: ServerHandle,
    console: Arc<Console>,
    session: session::Session,
    /// Set when this request started the session (the response sets the cookie).
    new_session: bool,
    started: Instant,
    source_ip: Option<std::net::IpAddr>,
    host: String,
    user_agent: Option<String>,
    /// The region the visitor chose (`--regions separate`), from its cookie.
    chosen_region: Option<String>,
}

/// The cookie that keeps the region the console acts in.
const REGION_COOKIE: &str = "kura-console-region";

impl FromRequestParts<Shared> for Ctx {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, shared: &Shared) -> Result<Ctx, Response> {
        let started = Instant::now();
        let console = shared.console.clone();
        if parts.method != axum::http::Method::GET && !same_origin(&parts.headers) {
            return Err((
                StatusCode::FORBIDDEN,
                "the console refuses a form sent from another site",
            )
                .into_response());
        }
        let (session, new_session) = console.sessions.open(
            session::cookie(&parts.headers, session::COOKIE),
            shared.server.auth().map(|a| a.as_ref()),
        );
        let header = |name: header::HeaderName| {
            parts
                .headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let ctx = Ctx {
            server: shared.server.clone(),
            console,
            session,
            new_session,
            started,
            source_ip: parts
                .extensions
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                .map(|info| info.0.ip()),
            host: header(header::HOST).unwrap_or_else(|| "localhost:8000".to_owned()),
            user_agent: header(header::USER_AGENT),
            chosen_region: session::cookie(&parts.headers, REGION_COOKIE)
                .filter(|r| kura_engine::replication::valid_region(r))
                .filter(|_| !shared.server.regions().is_empty())
                .map(str::to_owned),
        };
        let path = parts.uri.path();
        if ctx.server.auth().is_some()
            && ctx.session.signed_in.is_none()
            && path != "/console/signin"
        {
            // A script's fetch (the tail, the charts) gets a status it can tell apart.
            let answer = if path.ends_with("/poll") || path.ends_with("/charts") {
                (
                    StatusCode::UNAUTHORIZED,
                    "signed out: reload the page to sign in",
                )
                    .into_response()
            } else {
                Redirect::to("/console/signin").into_response()
            };
            return Err(ctx.finish(answer));
        }
        Ok(ctx)
    }
}

/// A POST's `Origin` (when the browser sends one) must be this server: `Host` as the
/// request names it.
fn same_origin(headers: &axum::http::HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return true;
    };
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let origin_host = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .unwrap_or("");
    !host.is_empty() && origin_host.eq_ignore_ascii_case(host)
}

/// A form's fields (names are unique in the console's forms).
pub(crate) type Fields = std::collections::BTreeMap<String, String>;

/// A posted form whose CSRF token is this session's, with the request's [`Ctx`]: every
/// POST handler takes one, so none can act on a forged form.
pub(crate) struct Posted {
    pub ctx: Ctx,
    pub fields: Fields,
}

impl axum::extract::FromRequest<Shared> for Posted {
    type Rejection = Response;

    async fn from_request(
        request: axum::extract::Request,
        shared: &Shared,
    ) -> Result<Posted, Response> {
        let (mut parts, body) = request.into_parts();
        let ctx = Ctx::from_request_parts(&mut parts, shared).await?;
        let request = axum::extract::Request::from_parts(parts, body);
        let fields = match axum::Form::<Fields>::from_request(request, shared).await {
            Ok(axum::Form(fields)) => fields,
            Err(refused) => return Err(ctx.finish(refused.into_response())),
        };
        ctx.check_form(&fields)?;
        Ok(Posted { ctx, fields })
    }
}

/// A form or query field, trimmed ("" when absent).
pub(crate) fn field<'a>(fields: &'a Fields, name: &str) -> &'a str {
    fields.get(name).map_or("", |v| v.trim())
}

/// A field as typed, spaces kept (key values may begin or end with one).
pub(crate) fn raw<'a>(fields: &'a Fields, name: &str) -> &'a str {
    fields.get(name).map_or("", String::as_str)
}

impl Ctx {
    /// The engine of the region the console acts in (the home one if that region is
    /// unreachable: the API calls then get its 503).
    fn engine(&self) -> Arc<kura_engine::Engine> {
        self.server
            .engine_for(self.region())
            .unwrap_or_else(|_| self.server.engine())
    }

    /// Runs `op` as the session's principal through the API's pipeline: metered and
    /// audited like any other request (fault injection is for the API's clients only).
    /// Typed, so a console call names an operation of the one table and its API.
    pub async fn call(&self, op: Op, body: Value) -> Result<Value, ApiError> {
        let engine = self.server.engine_for(self.region())?;
        let request_id = kura_api::pipeline::request_id();
        let request = Request {
            api: op.api(),
            operation: op.name(),
            body: Bytes::from(serde_json::to_vec(&body).unwrap_or_default()),
            verified: self.session.signed_in.clone(),
            region: self.region().to_owned(),
            source_ip: self.source_ip,
            host: &self.host,
            user_agent: self.user_agent.as_deref(),
            request_id: &request_id,
            origin: Origin::Console,
            received: None,
        };
        let bytes = self.server.run(&engine, request).await?;
        // TagResource and UntagResource answer an empty body.
        if bytes.is_empty() {
            return Ok(Value::Object(serde_json::Map::new()));
        }
        serde_json::from_slice(&bytes)
            .map_err(|e| ApiError::from(kura_engine::EngineError::Internal(e.to_string())))
    }

    /// The API's endpoint as this browser reaches it (the console shares its port), for
    /// the code the pages show.
    pub fn endpoint(&self) -> String {
        let scheme = if self.console.secure { "https" } else { "http" };
        format!("{scheme}://{}", self.host)
    }

    /// The region the session acts in: the one chosen in the header (`--regions
    /// separate`), else the one signed in with (`us-east-1` when open).
    pub(crate) fn region(&self) -> &str {
        if let Some(chosen) = &self.chosen_region {
            return chosen;
        }
        self.session
            .signed_in
            .as_ref()
            .map_or(kura_auth::DEFAULT_REGION, |v| v.region.as_str())
    }

    /// The regions the header offers (none when every region shares one namespace).
    pub(crate) fn regions(&self) -> Vec<String> {
        self.server.regions()
    }

    /// Whether the session's principal may call `op` on `table` (always, when the
    /// server runs open). For what the console shows from outside the API (hot keys, the
    /// advisor's evidence): key values are data, so they need a read of the table.
    pub fn allowed(&self, op: Op, table: &str) -> bool {
        let verified = self.session.signed_in.as_ref();
        self.server
            .allows(verified, self.region(), self.source_ip, op, table)
    }

    /// Refuses a form whose CSRF token is not this session's.
    #[allow(clippy::result_large_err)] // the error is the response itself, returned at once
    fn check_form(&self, fields: &Fields) -> Result<(), Response> {
        use subtle::ConstantTimeEq;
        match fields.get("csrf") {
            Some(token) if bool::from(token.as_bytes().ct_eq(self.session.csrf.as_bytes())) => {
                Ok(())
            }
            _ => Err(self.finish(
                (
                    StatusCode::FORBIDDEN,
                    "the form's CSRF token is missing or stale: reload the page and try again",
                )
                    .into_response(),
            )),
        }
    }

    /// The whole page: the layout around `body`, with the session cookie when new and the
    /// server time.
    pub fn page(&self, title: &str, tab: Tab<'_>, body: Markup) -> Response {
        let html = layout::page(self, title, tab, body);
        self.finish(html.into_response())
    }

    /// A fragment of a page (charts refreshed in place), or JSON, with the same headers.
    pub fn fragment(&self, body: Markup) -> Response {
        self.finish(body.into_response())
    }

    pub fn json(&self, value: &Value) -> Response {
        self.finish(
            (
                [(header::CONTENT_TYPE, "application/json")],
                serde_json::to_vec(value).unwrap_or_default(),
            )
                .into_response(),
        )
    }

    /// 303 to `to` after a form did its work.
    pub fn redirect(&self, to: &str) -> Response {
        self.finish(Redirect::to(to).into_response())
    }

    /// 303 to `path` with a notice for the page to show.
    pub fn redirect_notice(&self, path: &str, notice: &str) -> Response {
        let join = if path.contains('?') { '&' } else { '?' };
        self.redirect(&format!("{path}{join}notice={}", layout::encode(notice)))
    }

    /// Adds the headers every console response carries.
    fn finish(&self, mut response: Response) -> Response {
        let headers = response.headers_mut();
        if self.new_session
            && let Ok(v) = HeaderValue::from_str(&session::set_cookie(
                &self.session.token,
                self.console.secure,
            ))
        {
            headers.insert(header::SET_COOKIE, v);
        }
        let ms = self.started.elapsed().as_secs_f64() * 1000.0;
        if let Ok(v) = HeaderValue::from_str(&format!("app;dur={ms:.3}")) {
            headers.insert("server-timing", v);
        }
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(
                "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
            ),
        );
        headers.insert(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        );
        headers.insert(
            header::REFERRER_POLICY,
            HeaderValue::from_static("same-origin"),
        );
        response
    }
}

async fn sign_in_form(ctx: Ctx) -> Response {
    if ctx.server.auth().is_none() {
        return ctx.redirect("/console/tables");
    }
    ctx.page("Sign in", Tab::None, layout::sign_in(&ctx, None))
}

async fn sign_in(Posted { ctx, fields }: Posted) -> Response {
    let Some(auth) = ctx.server.auth().cloned() else {
        return ctx.redirect("/console/tables");
    };
    let secret = raw(&fields, "secret_access_key");
    let token = Some(field(&fields, "session_token")).filter(|t| !t.is_empty());
    let region = match field(&fields, "region") {
        "" => kura_auth::DEFAULT_REGION,
        region => region,
    };
    let now = Instant::now();
    if let Some(wait) = ctx.console.sign_ins.wait(ctx.source_ip, now) {
        let refused = ApiError::access_denied(format!(
            "too many failed sign-ins from this address: try again in {} s",
            wait.as_secs().max(1)
        ));
        return ctx.page("Sign in", Tab::None, layout::sign_in(&ctx, Some(&refused)));
    }
    let key_id = field(&fields, "access_key_id");
    match auth.sign_in(key_id, secret, token, region) {
        Ok(verified) => {
            ctx.console.sign_ins.succeeded(ctx.source_ip);
            let fingerprint = kura_auth::fingerprint(secret, token);
            let session = ctx
                .console
                .sessions
                .sign_in(&ctx.session.token, verified, fingerprint);
            let mut response = ctx.redirect("/console/tables");
            let cookie = session::set_cookie(&session.token, ctx.console.secure);
            if let Ok(v) = HeaderValue::from_str(&cookie) {
                response.headers_mut().insert(header::SET_COOKIE, v);
            }
            response
        }
        Err(e) => {
            ctx.console.sign_ins.failed(ctx.source_ip, now);
            let error = ApiError::from(e);
            tracing::warn!(
                source_ip = ?ctx.source_ip,
                access_key_id = key_id,
                error = error.name(),
                "console sign-in failed"
            );
            ctx.page("Sign in", Tab::None, layout::sign_in(&ctx, Some(&error)))
        }
    }
}

/// `POST /console/region`: the region the console acts in from now on (a cookie), when
/// regions are kept apart; back to the tables of that region.
async fn choose_region(Posted { ctx, fields }: Posted) -> Response {
    let region = field(&fields, "region");
    if ctx.regions().is_empty() || !kura_engine::replication::valid_region(region) {
        return ctx.redirect_notice("/console/tables", "No such region");
    }
    let mut response = ctx.redirect("/console/tables");
    let secure = if ctx.console.secure { "; Secure" } else { "" };
    if let Ok(v) = HeaderValue::from_str(&format!(
        "{REGION_COOKIE}={region}; Path=/console; SameSite=Strict; HttpOnly{secure}"
    )) {
        response.headers_mut().append(header::SET_COOKIE, v);
    }
    response
}

async fn sign_out(Posted { ctx, .. }: Posted) -> Response {
    ctx.console.sessions.sign_out(&ctx.session.token);
    ctx.redirect("/console/signin")
}
