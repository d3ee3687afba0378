//! The names the [MCP semantic conventions] and the [GenAI semantic
//! conventions] give to attributes and metrics, as this crate records them.
//!
//! [MCP semantic conventions]: https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/
//! [GenAI semantic conventions]: https://opentelemetry.io/docs/specs/semconv/gen-ai/

/// The request or notification method (`tools/call`).
pub const MCP_METHOD_NAME: &str = "mcp.method.name";
/// The protocol revision in use (`2025-11-25`, `2026-07-28`).
pub const MCP_PROTOCOL_VERSION: &str = "mcp.protocol.version";
/// The session, when the request belongs to one (`Mcp-Session-Id`).
pub const MCP_SESSION_ID: &str = "mcp.session.id";
/// The resource a request names (`resources/read`, subscriptions).
pub const MCP_RESOURCE_URI: &str = "mcp.resource.uri";
/// The JSON-RPC request id, as a string.
pub const JSONRPC_REQUEST_ID: &str = "jsonrpc.request.id";
/// The JSON-RPC error code of a failed request (`-32602`).
pub const RPC_RESPONSE_STATUS_CODE: &str = "rpc.response.status_code";
/// What the operation failed with: the JSON-RPC error code, or `tool_error`
/// for a tool result with `isError: true`.
pub const ERROR_TYPE: &str = "error.type";
/// `pipe` for stdio, `tcp` for HTTP.
pub const NETWORK_TRANSPORT: &str = "network.transport";
/// `http` on the HTTP transports.
pub const NETWORK_PROTOCOL_NAME: &str = "network.protocol.name";
/// The tool a `tools/call` names.
pub const GEN_AI_TOOL_NAME: &str = "gen_ai.tool.name";
/// The prompt a `prompts/get` names.
pub const GEN_AI_PROMPT_NAME: &str = "gen_ai.prompt.name";
/// `execute_tool` for tool calls, `chat` for model requests, `invoke_agent` for runs.
pub const GEN_AI_OPERATION_NAME: &str = "gen_ai.operation.name";
/// The model a request asks for.
pub const GEN_AI_REQUEST_MODEL: &str = "gen_ai.request.model";
/// The model that answered.
pub const GEN_AI_RESPONSE_MODEL: &str = "gen_ai.response.model";
/// The provider's id of the answer (`chatcmpl-…`, `msg_…`, `resp_…`).
pub const GEN_AI_RESPONSE_ID: &str = "gen_ai.response.id";
/// `openai`, `anthropic`.
pub const GEN_AI_PROVIDER_NAME: &str = "gen_ai.provider.name";
/// Input tokens a model request used.
pub const GEN_AI_USAGE_INPUT_TOKENS: &str = "gen_ai.usage.input_tokens";
/// Output tokens a model request used.
pub const GEN_AI_USAGE_OUTPUT_TOKENS: &str = "gen_ai.usage.output_tokens";
/// Why the model stopped (`stop`, `tool_calls`, `end_turn`).
pub const GEN_AI_RESPONSE_FINISH_REASONS: &str = "gen_ai.response.finish_reasons";
/// The id the model gave a tool call.
pub const GEN_AI_TOOL_CALL_ID: &str = "gen_ai.tool.call.id";

/// Duration of a request or notification, on the server, in seconds.
pub const MCP_SERVER_OPERATION_DURATION: &str = "mcp.server.operation.duration";
/// Duration of a request or notification, on the client, in seconds.
pub const MCP_CLIENT_OPERATION_DURATION: &str = "mcp.client.operation.duration";
/// Duration of a session, on the server, in seconds.
pub const MCP_SERVER_SESSION_DURATION: &str = "mcp.server.session.duration";
/// Duration of a session, on the client, in seconds.
pub const MCP_CLIENT_SESSION_DURATION: &str = "mcp.client.session.duration";

/// What a name or version is recorded as when it is not one the recording
/// side knows (a tool the server does not serve, a method or protocol
/// version it does not speak), as the HTTP conventions record an unknown
/// method: one value, so that a peer cannot grow the metrics' points.
pub const OTHER: &str = "_OTHER";

/// The `error.type` of a tool result with `isError: true`.
pub const TOOL_ERROR: &str = "tool_error";

/// The histograms' bucket boundaries the conventions advise, in seconds.
pub const DURATION_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];
