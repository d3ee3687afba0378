//! The helpers of mcp-agent's integration tests, one file a job. A test file
//! that needs them declares `mod support;`; the `agent` example's tests
//! include this folder too (`#[path]`), and the `agent_interop` example its
//! `strict_check.rs`.
//!
//! - `scripted_model`: [`ScriptedModel`], the scripted model server
//!   (`tests/agent/scripted_model.py`) that speaks OpenAI's (Chat
//!   Completions and Responses) and Anthropic's wire formats and checks
//!   every request against their official SDKs.
//! - `calc`: [`Calc`], a toolbox of four tools (one always fails).
//! - `providers`: [`Provider`], the three models pointed at a scripted server.
//! - `in_process`: MCP servers served over in-memory pipes to real clients.
//! - `scripted_chat`: [`Scripted`], an in-process `ChatModel` answering
//!   from a script, for the loop's tests.
//! - [`strict_check`]: checks a strict schema against OpenAI's strict-mode
//!   rules, independently of the converter (by its module's name).
//!
//! The parsing of a raw HTTP response ([`Response`]) is shared with other
//! crates' tests: it lives in the workspace's `tests/support/`.
#![allow(dead_code, unreachable_pub, clippy::missing_panics_doc)]

mod calc;
mod in_process;
mod providers;
mod scripted_chat;
mod scripted_model;
pub mod strict_check;

#[path = "../../../tests/support/http_response.rs"]
mod http_response;

// Each test file uses part of what is re-exported here.
#[allow(unused_imports)]
pub use calc::*;
#[allow(unused_imports)]
pub use http_response::*;
#[allow(unused_imports)]
pub use in_process::*;
#[allow(unused_imports)]
pub use providers::*;
#[allow(unused_imports)]
pub use scripted_chat::*;
#[allow(unused_imports)]
pub use scripted_model::*;
