//! MCP server runtime (in progress).
