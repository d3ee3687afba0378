//! The JSON-RPC messages the tests send, and the checks of what comes back.

use serde_json::{json, Value};

/// The latest protocol version of the legacy (session) era.
pub const LATEST_LEGACY: &str = "2025-11-25";

/// The key of the first input request of an `input_required` result (the
/// response's `result`), which the retry's `inputResponses` answers.
pub fn first_input_key(result: &Value) -> String {
    result["inputRequests"]
        .as_object()
        .and_then(|requests| requests.keys().next())
        .unwrap_or_else(|| panic!("no input request: {result}"))
        .clone()
}

/// The `_meta` of a 2026-07-28 request from a client with no capabilities.
pub fn modern_meta() -> Value {
    modern_meta_with(&json!({}))
}

/// The `_meta` of a 2026-07-28 request from a client with `capabilities`.
pub fn modern_meta_with(capabilities: &Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}
    })
}

/// `initialize` at `version` from a client with no capabilities.
pub fn initialize_request(id: &Value, version: &str) -> Value {
    initialize_request_with(id, version, &json!({}))
}

/// `initialize` at `version` from a client with `capabilities`.
pub fn initialize_request_with(id: &Value, version: &str, capabilities: &Value) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"initialize","params":{
        "protocolVersion": version, "capabilities": capabilities, "clientInfo": {"name":"t","version":"1"}}})
}

pub fn initialized() -> Value {
    json!({"jsonrpc":"2.0","method":"notifications/initialized"})
}

/// `tools/call add(a, b)` in the legacy era.
pub fn legacy_add(id: &Value, a: f64, b: f64) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"add","arguments":{"a":a,"b":b}}})
}

/// `tools/call add(a, b)` in the stateless era.
pub fn modern_add(id: &Value, a: f64, b: f64) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"add","arguments":{"a":a,"b":b},"_meta":modern_meta()}})
}

pub fn cancel(id: &Value) -> Value {
    json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":id,"reason":"test"}})
}

/// The text of a tool result's first content block.
pub fn result_text(reply: &Value) -> Option<&str> {
    reply["result"]["content"][0]["text"].as_str()
}

/// Whether `v` is a well-formed JSON-RPC response (success or error) and, if
/// so, nothing else: `jsonrpc` 2.0, an `id`, exactly one of `result`/`error`,
/// an error with an integer code and a string message.
pub fn check_response(v: &Value) -> Result<(), String> {
    let Some(obj) = v.as_object() else {
        return Err(format!("not an object: {v}"));
    };
    if obj.get("jsonrpc") != Some(&json!("2.0")) {
        return Err(format!("no jsonrpc 2.0: {v}"));
    }
    if obj.contains_key("method") {
        return Err(format!("a request or notification, not a response: {v}"));
    }
    let Some(id) = obj.get("id") else {
        return Err(format!("no id: {v}"));
    };
    if !(id.is_null() || id.is_string() || id.is_i64() || id.is_u64()) {
        return Err(format!("an id of the wrong type: {v}"));
    }
    match (obj.get("result"), obj.get("error")) {
        (Some(_), None) if !id.is_null() => Ok(()),
        (Some(_), None) => Err(format!("a result with a null id: {v}")),
        (None, Some(e)) => {
            if !e["code"].is_i64() || !e["message"].is_string() {
                return Err(format!("a malformed error: {v}"));
            }
            Ok(())
        }
        _ => Err(format!("not exactly one of result/error: {v}")),
    }
}
