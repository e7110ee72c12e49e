//! `kura regions`: the disaster-recovery drill of a running `kura serve --regions separate
//! --test-controls`: shows the regions, their outages and the replication backlog (what an
//! isolated region's loss would lose: the RPO), and isolates or heals a region
//! (docs/global-tables.md).

// This command's answers are its standard output.
#![allow(clippy::print_stdout)]

use clap::{Args, Subcommand};

use crate::observe::request_json;

#[derive(Args)]
pub struct RegionsArgs {
    /// The `kura serve --regions separate --test-controls` to drill.
    #[arg(
        long,
        default_value = "http://127.0.0.1:8000",
        env = "KURA_ENDPOINT",
        global = true,
        value_parser = crate::endpoint::parse
    )]
    endpoint: String,
    #[command(subcommand)]
    command: Option<RegionsCommand>,
}

#[derive(Subcommand)]
enum RegionsCommand {
    /// The regions, outages, backlog and replication latency (the default).
    Status,
    /// Make a region unreachable: its requests get 503, nothing replicates to or from it.
    Isolate { region: String },
    /// End a region's isolation: replication catches up.
    Heal { region: String },
}

pub async fn regions(args: RegionsArgs) -> Result<(), String> {
    let endpoint = &args.endpoint;
    let answer = match args.command.unwrap_or(RegionsCommand::Status) {
        RegionsCommand::Status => {
            request_json(hyper::Method::GET, endpoint, "/kura/admin/regions", None).await?
        }
        RegionsCommand::Isolate { region } => {
            let path = format!("/kura/admin/regions/{region}/isolate");
            request_json(hyper::Method::POST, endpoint, &path, None).await?
        }
        RegionsCommand::Heal { region } => {
            let path = format!("/kura/admin/regions/{region}/heal");
            request_json(hyper::Method::POST, endpoint, &path, None).await?
        }
    };
    println!(
        "{}",
        serde_json::to_string_pretty(&answer).map_err(|e| e.to_string())?
    );
    Ok(())
}
