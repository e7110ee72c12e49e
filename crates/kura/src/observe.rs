//! `kura insights` and `kura advise`: clients of a `kura serve`'s own `/kura/` endpoints,
//! printing a report for people, or its JSON with `--json`.

// These commands' answers are their standard output.
#![allow(clippy::print_stdout)]

use bytes::Bytes;
use clap::Args;
use http_body_util::{BodyExt, Full};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

/// Where the Kura server is.
#[derive(Args)]
pub struct KuraEndpoint {
    /// The `kura serve` to ask (its DynamoDB endpoint).
    #[arg(long, default_value = "http://127.0.0.1:8000", env = "KURA_ENDPOINT",
          value_parser = crate::endpoint::parse)]
    endpoint: String,
    /// Print the server's JSON instead of a report.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct InsightsArgs {
    #[command(flatten)]
    endpoint: KuraEndpoint,
    /// The table whose Contributor Insights to show.
    table: String,
    /// A global secondary index of the table instead of the table itself.
    #[arg(long)]
    index: Option<String>,
    /// The window: the last N minutes (1 to 60).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..=60))]
    minutes: u32,
    /// How many keys of each list.
    #[arg(long, default_value_t = 10)]
    top: u32,
}

/// The client the commands reach a `kura serve` with: https:// as well as http:// (a
/// `kura serve --tls-cert`), trusting the web PKI roots.
pub fn http_client<B>() -> Client<HttpsConnector<HttpConnector>, B>
where
    B: hyper::body::Body + Send,
    B::Data: Send,
{
    Client::builder(TokioExecutor::new()).build(https_or_http())
}

/// The connector of every client command: https:// with the web PKI roots, or http://.
pub fn https_or_http() -> HttpsConnector<HttpConnector> {
    hyper_rustls::HttpsConnectorBuilder::new()
        .with_webpki_roots()
        .https_or_http()
        .enable_http1()
        .build()
}

/// GETs `path` from the server; the body as JSON, or the server's message as the error.
pub async fn get_json(endpoint: &str, path: &str) -> Result<Value, String> {
    request_json(hyper::Method::GET, endpoint, path, None).await
}

/// Sends `method` to `path` with `body` as JSON; the answer as JSON, or the server's
/// message as the error.
pub async fn request_json(
    method: hyper::Method,
    endpoint: &str,
    path: &str,
    body: Option<&Value>,
) -> Result<Value, String> {
    let url = format!("{}{path}", endpoint.trim_end_matches('/'));
    let uri: hyper::Uri = url.parse().map_err(|e| format!("{url}: {e}"))?;
    let client = http_client::<Full<Bytes>>();
    let bytes = body.map(|b| b.to_string()).unwrap_or_default();
    let request = hyper::Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(bytes)))
        .map_err(|e| e.to_string())?;
    let response = client
        .request(request)
        .await
        .map_err(|e| crate::endpoint::unreachable(endpoint, &e))?;
    let status = response.status();
    let body = response
        .into_body()
        .collect()
        .await
        .map_err(|e| {
            format!(
                "cannot read the answer of {endpoint}: {}",
                crate::endpoint::root_cause(&e)
            )
        })?
        .to_bytes();
    // The test controls are routed only on a server started with them.
    if status == hyper::StatusCode::NOT_FOUND && path.starts_with("/kura/admin/") {
        return Err(format!(
            "{endpoint} has no test controls: start it with `kura serve --test-controls` (docs/testing.md)"
        ));
    }
    let value: Value = serde_json::from_slice(&body).map_err(|_| {
        format!(
            "{endpoint} answered {status} without JSON (is it a kura serve?): {}",
            String::from_utf8_lossy(&body)
        )
    })?;
    if !status.is_success() {
        let message = value["message"].as_str().unwrap_or("no message");
        return Err(format!("{endpoint} answered {status}: {message}"));
    }
    Ok(value)
}

/// Percent-encodes a path segment or query value (RFC 3986, as SigV4 does).
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    kura_auth::sigv4::uri_encode(text.as_bytes(), &mut out);
    out
}

pub async fn insights(args: InsightsArgs) -> Result<(), String> {
    let mut path = format!(
        "/kura/insights/{}?minutes={}&top={}",
        encode(&args.table),
        args.minutes,
        args.top
    );
    if let Some(index) = &args.index {
        path.push_str(&format!("&index={}", encode(index)));
    }
    let report = get_json(&args.endpoint.endpoint, &path).await?;
    if args.endpoint.json {
        println!("{report:#}");
        return Ok(());
    }
    let target = match &args.index {
        Some(index) => format!("{} (index {index})", args.table),
        None => args.table.clone(),
    };
    println!(
        "Contributor Insights for {target}, last {} minute(s)",
        report["minutes"]
    );
    for (title, field) in [
        ("Most accessed partition keys", "mostAccessedPartitionKeys"),
        (
            "Most accessed items (partition | sort key)",
            "mostAccessedItems",
        ),
        (
            "Most throttled partition keys",
            "mostThrottledPartitionKeys",
        ),
        (
            "Most throttled items (partition | sort key)",
            "mostThrottledItems",
        ),
    ] {
        let list = &report[field];
        println!(
            "\n{title}: {} event(s), counts within ±{}",
            list["events"], list["errorBound"]
        );
        let keys = list["keys"].as_array().cloned().unwrap_or_default();
        if keys.is_empty() {
            println!("  (none)");
        }
        for key in keys {
            println!(
                "  {:>10}  {}",
                key["count"],
                key["key"].as_str().unwrap_or_default()
            );
        }
    }
    Ok(())
}

#[derive(Args)]
pub struct AdviseArgs {
    #[command(flatten)]
    endpoint: KuraEndpoint,
    /// text (for people), json (the server's, with suppressions applied), sarif (2.1.0,
    /// for code scanning) or junit (XML, for CI test reports). `--json` is `--format json`.
    #[arg(long, value_enum, default_value = "text")]
    format: AdviceFormat,
    /// The lowest severity that makes the exit status 1 (unless suppressed).
    #[arg(long, value_enum, default_value = "error")]
    fail_on: crate::advice_report::FailOn,
    /// Accepted exceptions: a JSON file `{"suppressions": [{"rule": "api.scan",
    /// "table": "dev-*", "reason": "...", "expires": "2027-03-31"}]}`; suppressed findings
    /// are listed as suppressed, never hidden (docs/advisor.md).
    #[arg(long)]
    suppressions: Option<std::path::PathBuf>,
    /// Check the tables a template declares instead of a server's: CloudFormation or SAM
    /// (JSON; CDK's synth output), a Terraform plan (`terraform show -json`), or
    /// DescribeTable/CreateTable JSON. No server is needed (docs/advisor.md).
    #[arg(long)]
    template: Option<std::path::PathBuf>,
    /// A CloudFormation parameter's value for `--template`, over its Default
    /// (`--parameter Env=prod`, repeatable): what the intrinsic functions resolve from.
    #[arg(long = "parameter", value_name = "NAME=VALUE", requires = "template", value_parser = parse_parameter)]
    parameters: Vec<(String, String)>,
    /// The environment identifiers table names start with, comma-separated (the
    /// guideline's `dev,stg,prod` by default): a team with `qa` or `uat` names its own.
    #[arg(long, value_name = "ENV,ENV,...", value_parser = kura_advisor::Options::with_environments)]
    environments: Option<kura_advisor::Options>,
    /// Check the identity policies of a credentials file (`kura serve --auth`'s) without
    /// a server: people given every action, grants on every environment's tables. With
    /// `--template`, both; alone, the policies only (docs/advisor.md).
    #[arg(long)]
    credentials: Option<std::path::PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum AdviceFormat {
    Text,
    Json,
    Sarif,
    Junit,
}

/// Prints the design advisor's findings with the suppressions applied, in the format
/// asked for; fails (exit 1) when an unsuppressed finding is at or above `--fail-on`, so
/// CI can gate on it.
pub async fn advise(args: AdviseArgs) -> Result<(), String> {
    use crate::advice_report::{self as report, FailOn};
    let suppressions = match &args.suppressions {
        Some(path) => report::read_suppressions(
            &std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?,
        )
        .map_err(|e| format!("{}: {e}", path.display()))?,
        None => Vec::new(),
    };
    let mut advice = match (&args.template, &args.credentials) {
        (Some(path), _) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let parameters = args.parameters.iter().cloned().collect();
            let options = args.environments.clone().unwrap_or_default();
            kura_advisor::template::advise(&text, &parameters, &options)
                .await
                .map_err(|e| format!("{}: {e}", path.display()))?
        }
        (None, Some(_)) => serde_json::json!({
            "tables": 0,
            "rulesChecked": kura_advisor::rules::RULES.len(),
            "rulesCheckable": kura_advisor::CHECKABLE,
            "findings": [],
        }),
        (None, None) => {
            let path = match &args.environments {
                Some(options) => format!(
                    "/kura/advise?environments={}",
                    options.environments.join(",")
                ),
                None => "/kura/advise".to_owned(),
            };
            get_json(&args.endpoint.endpoint, &path).await?
        }
    };
    if let Some(path) = &args.credentials {
        let credentials = kura_server::Credentials::load(path).map_err(|e| e.to_string())?;
        let environments = args.environments.clone().unwrap_or_default().environments;
        let found = kura_advisor::identities_with(&credentials.principals(), &environments);
        if let Some(findings) = advice["findings"].as_array_mut() {
            findings.extend(found.iter().filter_map(|f| serde_json::to_value(f).ok()));
        }
    }
    let artifact = args.template.as_ref().map(|p| p.display().to_string());
    let findings = advice["findings"].as_array().cloned().unwrap_or_default();
    let reported = report::report(&findings, &suppressions, report::today());
    let warnings = report::warnings(&suppressions, &reported);
    // On standard error too, whatever the format: a pipeline's log shows them.
    for line in report::warning_lines(&warnings) {
        eprintln!("warning: {line}");
    }
    let format = if args.endpoint.json {
        AdviceFormat::Json
    } else {
        args.format
    };
    match format {
        AdviceFormat::Text => print!("{}", report::text(&advice, &reported, &warnings)),
        AdviceFormat::Json => println!("{:#}", report::json(&advice, &reported, &warnings)),
        AdviceFormat::Sarif => println!(
            "{:#}",
            report::sarif(
                &reported,
                &warnings,
                crate::version::VERSION,
                artifact.as_deref()
            )
        ),
        AdviceFormat::Junit => print!("{}", report::junit(&reported, &warnings, args.fail_on)),
    }
    let failing = report::failing(&reported, args.fail_on);
    if failing > 0 {
        let level = match args.fail_on {
            FailOn::Error => "error",
            FailOn::Warning => "warning or error",
            FailOn::Info | FailOn::Never => "any severity",
        };
        return Err(format!("{failing} finding(s) of severity {level}"));
    }
    Ok(())
}

/// `NAME=VALUE` of `--parameter`.
fn parse_parameter(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_owned(), value.to_owned())),
        _ => Err(format!("expected NAME=VALUE, got {text:?}")),
    }
}
