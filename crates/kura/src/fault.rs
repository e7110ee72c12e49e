//! `kura fault`: adds, lists and clears a running server's fault injection rules
//! (`kura serve --test-controls`; docs/testing.md).

// This command's answers are its standard output.
#![allow(clippy::print_stdout)]

use clap::{Args, Subcommand};
use serde_json::{Value, json};

use crate::observe::request_json;

#[derive(Args)]
pub struct FaultArgs {
    /// The `kura serve --test-controls` to change.
    #[arg(
        long,
        default_value = "http://127.0.0.1:8000",
        env = "KURA_ENDPOINT",
        global = true,
        value_parser = crate::endpoint::parse
    )]
    endpoint: String,
    #[command(subcommand)]
    command: FaultCommand,
}

#[derive(Subcommand)]
enum FaultCommand {
    /// Inject an error, a latency or both into matching requests.
    Add(AddArgs),
    /// Show the rules in force and what each injected.
    List,
    /// Remove one rule, or all of them.
    Clear {
        /// The rule's id (all rules when left out).
        id: Option<u64>,
    },
}

#[derive(Args)]
struct AddArgs {
    /// The error answered: throttling (ProvisionedThroughputExceededException),
    /// ThrottlingException, InternalServerError, ServiceUnavailable,
    /// TransactionConflictException or RequestLimitExceeded.
    #[arg(long)]
    error: Option<String>,
    /// Only this operation (PutItem, Query, ...).
    #[arg(long)]
    operation: Option<String>,
    /// Only requests naming this table.
    #[arg(long)]
    table: Option<String>,
    /// Only requests whose key's partition key value starts with this.
    #[arg(long)]
    key_prefix: Option<String>,
    /// The share of matching requests that get the fault (0 to 1).
    #[arg(long)]
    rate: Option<f64>,
    /// Milliseconds added to each matching request.
    #[arg(long)]
    latency_ms: Option<u64>,
    /// Stop after this many faults.
    #[arg(long)]
    count: Option<u64>,
    /// Stop after this many seconds.
    #[arg(long)]
    duration_seconds: Option<f64>,
}

pub async fn fault(args: FaultArgs) -> Result<(), String> {
    let endpoint = &args.endpoint;
    let answer = match args.command {
        FaultCommand::Add(add) => {
            let mut spec = json!({});
            let fields: [(&str, Option<Value>); 8] = [
                ("error", add.error.map(Value::from)),
                ("operation", add.operation.map(Value::from)),
                ("table", add.table.map(Value::from)),
                ("key_prefix", add.key_prefix.map(Value::from)),
                ("rate", add.rate.map(Value::from)),
                ("latency_ms", add.latency_ms.map(Value::from)),
                ("count", add.count.map(Value::from)),
                ("duration_seconds", add.duration_seconds.map(Value::from)),
            ];
            for (name, value) in fields {
                if let Some(value) = value {
                    spec[name] = value;
                }
            }
            request_json(
                hyper::Method::POST,
                endpoint,
                "/kura/admin/faults",
                Some(&spec),
            )
            .await?
        }
        FaultCommand::List => {
            request_json(hyper::Method::GET, endpoint, "/kura/admin/faults", None).await?
        }
        FaultCommand::Clear { id } => {
            let path = match id {
                Some(id) => format!("/kura/admin/faults/{id}"),
                None => "/kura/admin/faults".to_owned(),
            };
            request_json(hyper::Method::DELETE, endpoint, &path, None).await?
        }
    };
    println!(
        "{}",
        serde_json::to_string_pretty(&answer).map_err(|e| e.to_string())?
    );
    Ok(())
}
