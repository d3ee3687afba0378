//! The helpers of oxmcp-agent's integration tests, one file a job. A test file
//! that needs them says `use crate::support;`.
//!
//! - [`ScriptedModel`] (`mcp_test_support::scripted_model`), the scripted model server
//!   (`tests/agent/scripted_model.py`) that speaks OpenAI's (Chat
//!   Completions and Responses) and Anthropic's wire formats and checks
//!   every request against their official SDKs.
//! - `calc`: [`Calc`], a toolbox of four tools (one always fails).
//! - `providers`: [`Provider`], the three models pointed at a scripted server.
//! - `in_process`: MCP servers served over in-memory pipes to real clients.
//! - `scripted_chat`: [`Scripted`], an in-process `ChatModel` answering
//!   from a script, for the loop's tests.
//! - [`strict_check`] (`mcp_test_support::strict_check`): checks a strict
//!   schema against OpenAI's strict-mode rules, independently of the
//!   converter (by its module's name); the `agent_interop` example uses it too.
//!
//! The parsing of a raw HTTP response ([`Response`]) is shared with other
//! crates' tests: `mcp_test_support::http_response`.
#![allow(dead_code, unreachable_pub, clippy::missing_panics_doc)]

mod calc;
mod in_process;
mod providers;
mod scripted_chat;
#[allow(unused_imports)]
pub use mcp_test_support::strict_check;

// Each test file uses part of what is re-exported here.
#[allow(unused_imports)]
pub use calc::*;
#[allow(unused_imports)]
pub use in_process::*;
#[allow(unused_imports)]
pub use mcp_test_support::http_response::*;
#[allow(unused_imports)]
pub use mcp_test_support::scripted_model::*;
#[allow(unused_imports)]
pub use providers::*;
#[allow(unused_imports)]
pub use scripted_chat::*;
