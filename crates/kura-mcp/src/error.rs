//! The one error type of `kura mcp`: what a tool call reports back to the assistant.

/// Why a tool call or the server failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// The endpoint's refusal (DynamoDB's error type and message word for word), or why
    /// it gave no answer.
    #[error(transparent)]
    Client(#[from] kura_client::ClientError),
    /// The in-process engine the advisor re-creates tables in refused one.
    #[error("{type_name}: {message}")]
    Refused { type_name: String, message: String },
    /// A write asked of a server started without `--allow-writes`.
    #[error(
        "{0} writes, and this MCP server is read-only: start `kura mcp` with --allow-writes to let assistants write"
    )]
    WritesOff(String),
    /// The endpoint has no advisor of its own (`/kura/advise`) and none was handed in.
    #[error(
        "the endpoint does not answer /kura/advise, and this MCP server has no design advisor of its own"
    )]
    NoAdvisor,
    /// A tool's arguments that cannot make a request.
    #[error("{0}")]
    Invalid(String),
    /// The MCP transport itself.
    #[error("MCP: {0}")]
    Transport(String),
}
