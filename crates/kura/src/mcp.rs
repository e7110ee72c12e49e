//! `kura mcp`: the Model Context Protocol server (crate `kura-mcp`) in front of a DynamoDB
//! endpoint, over stdio (what an assistant starts) or streamable HTTP (`--http`).

use std::net::SocketAddr;

use clap::Args;
use kura_mcp::{McpConfig, SigningKey};

#[derive(Args)]
pub struct McpArgs {
    /// The DynamoDB endpoint the tools use: a `kura serve`, DynamoDB Local, or AWS.
    #[arg(long, default_value = "http://127.0.0.1:8000", env = "KURA_ENDPOINT",
          value_parser = crate::endpoint::parse)]
    endpoint: String,
    /// Serve MCP's streamable HTTP transport at http://ADDR/mcp (e.g. 127.0.0.1:8765)
    /// instead of stdio.
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    /// With --http: clients must send `Authorization: Bearer TOKEN` (at least 16
    /// characters). Needed to bind an address other than loopback.
    #[arg(long, env = "KURA_MCP_TOKEN", hide_env_values = true)]
    http_token: Option<String>,
    /// Offer the write tools (put_item, update_item, delete_item) and PartiQL writes.
    /// Without it the server only reads.
    #[arg(long)]
    allow_writes: bool,
    /// The region requests are signed for.
    #[arg(long, default_value = "us-east-1", env = "AWS_REGION")]
    region: String,
    /// The access key requests are signed with: with `kura serve --auth`, the key whose
    /// policies the assistant is held to (any value for an open server).
    #[arg(long, default_value = "kura", env = "AWS_ACCESS_KEY_ID")]
    access_key_id: String,
    /// Its secret (from the environment: a command line is visible to other users).
    #[arg(
        long,
        default_value = "kura",
        env = "AWS_SECRET_ACCESS_KEY",
        hide_env_values = true
    )]
    secret_access_key: String,
    /// A session token, for temporary credentials.
    #[arg(long, env = "AWS_SESSION_TOKEN", hide_env_values = true)]
    session_token: Option<String>,
}

pub async fn run(args: McpArgs) -> Result<(), String> {
    let config = McpConfig {
        endpoint: args.endpoint,
        region: args.region,
        key: SigningKey {
            access_key_id: args.access_key_id,
            secret_access_key: args.secret_access_key,
            session_token: args.session_token,
        },
        allow_writes: args.allow_writes,
        advisor: Some(advise),
    };
    let served = match args.http {
        None => kura_mcp::serve_stdio(&config).await,
        Some(addr) => {
            let ready = |bound: SocketAddr| {
                // The line scripts and tests wait for, as `kura serve`'s "kura ready on".
                eprintln!("kura mcp ready on http://{bound}/mcp");
            };
            let access = kura_mcp::HttpAccess {
                token: args.http_token,
            };
            kura_mcp::serve_http(
                &config,
                addr,
                access,
                ready,
                crate::signals::shutdown_signal(),
            )
            .await
        }
    };
    served.map_err(|e| e.to_string())
}

/// kura-advisor's findings as the MCP server hands them to an assistant.
fn advise(engine: &kura_engine::Engine) -> serde_json::Value {
    serde_json::to_value(kura_advisor::advise(engine)).unwrap_or_else(|e| {
        serde_json::json!({ "findings": [], "error": format!("the advice did not serialise: {e}") })
    })
}
