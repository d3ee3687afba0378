//! Each error type prints each level once: `Display` is its own level, the
//! cause is `source()`, and `Chain` shows them all.

use std::error::Error as _;

use oxmcp_agent::{chat::ModelError, Outcome, RunError, ToolCallError, ToolSetError};
use oxmcp_client::types::error::Chain;
use oxmcp_types::error::assert_each_level_once;

/// A client error two levels deep: `transport failed`, then the I/O error.
fn broken_pipe() -> oxmcp_client::Error {
    oxmcp_client::Error::transport(std::io::Error::new(
        std::io::ErrorKind::BrokenPipe,
        "the pipe broke",
    ))
}

fn server_down() -> ToolSetError {
    ToolSetError::Server {
        origin: "weather".to_owned(),
        error: broken_pipe(),
    }
}

fn timeout() -> ModelError {
    ModelError::Transport {
        provider: "openai".to_owned(),
        message: "HTTP request to https://api.invalid/v1 failed: timed out".to_owned(),
    }
}

#[test]
fn tool_call_error_prints_each_level_once() {
    let e = ToolCallError::Failed {
        tool: "add".to_owned(),
        error: broken_pipe(),
    };
    assert_eq!(e.to_string(), "the call to `add` failed");
    assert_eq!(
        assert_each_level_once(&e),
        "the call to `add` failed: transport failed: the pipe broke"
    );
    let e = ToolCallError::Failed {
        tool: "add".to_owned(),
        error: oxmcp_client::Error::Protocol(oxmcp_types::ErrorObject::invalid_params("bad a")),
    };
    assert_eq!(
        assert_each_level_once(&e),
        "the call to `add` failed: server error -32602: bad a"
    );
    let e = ToolCallError::InvalidArguments("`a` is required".to_owned());
    assert!(e.source().is_none());
    assert_each_level_once(&e);
}

#[test]
fn tool_set_error_prints_each_level_once() {
    let e = server_down();
    assert_eq!(
        e.to_string(),
        "the MCP server `weather` could not list its tools"
    );
    assert_eq!(
        assert_each_level_once(&e),
        "the MCP server `weather` could not list its tools: transport failed: the pipe broke"
    );
    let e = ToolSetError::UnknownTool {
        name: "x".to_owned(),
        known: "a, b".to_owned(),
    };
    assert!(e.source().is_none());
    assert_each_level_once(&e);
}

#[test]
fn run_error_prints_each_level_once() {
    let e = RunError::ToolSet(server_down());
    assert_eq!(e.to_string(), "the tool set is not usable");
    assert_eq!(
        assert_each_level_once(&e),
        "the tool set is not usable: the MCP server `weather` could not list its tools: \
         transport failed: the pipe broke"
    );
    assert_eq!(
        format!("{:#}", Chain(&e)),
        "the tool set is not usable\n\
         caused by: the MCP server `weather` could not list its tools\n\
         caused by: transport failed\n\
         caused by: the pipe broke"
    );
    let e = RunError::Model {
        turn: 2,
        error: timeout(),
        outcome: Box::default(),
    };
    assert_eq!(
        assert_each_level_once(&e),
        "the model request of turn 2 failed: openai: HTTP request to https://api.invalid/v1 failed: timed out"
    );
    let e = RunError::Cancelled {
        outcome: Box::new(Outcome::default()),
    };
    assert_each_level_once(&e);
}

#[test]
fn model_error_prints_each_level_once() {
    let e = timeout();
    assert!(e.source().is_none());
    assert_each_level_once(&e);
    let e = ModelError::Status {
        provider: "anthropic".to_owned(),
        status: 529,
        message: "overloaded".to_owned(),
        retry_after: None,
    };
    assert_eq!(
        assert_each_level_once(&e),
        "anthropic: HTTP 529: overloaded"
    );
}
