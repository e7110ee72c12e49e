//! The one error type of `kura mcp`: what a tool call reports back to the assistant.

/// Why a tool call or the server failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// The endpoint could not be reached, or answered something that is not DynamoDB's.
    #[error("{endpoint}: {message}")]
    Unreachable { endpoint: String, message: String },
    /// DynamoDB's own refusal, with its error type and message word for word.
    #[error("{type_name}: {message}")]
    Refused { type_name: String, message: String },
    /// A write asked of a server started without `--allow-writes`.
    #[error(
        "{0} writes, and this MCP server is read-only: start `kura mcp` with --allow-writes to let assistants write"
    )]
    WritesOff(String),
    /// A tool's arguments that cannot make a request.
    #[error("{0}")]
    Invalid(String),
    /// The MCP transport itself.
    #[error("MCP: {0}")]
    Transport(String),
}
