//! The checks the table's expectations are made of, one small function
//! each. Every check returns what was wrong, so a runner can name the case.

use serde_json::{json, Value};

use crate::support::{self, result_text, Response, LATEST_LEGACY};

/// One error response with one of these codes and this id.
pub(crate) fn check_error(v: &Value, codes: &[i64], id: &Value) -> Result<(), String> {
    support::check_response(v)?;
    let code = v["error"]["code"].as_i64();
    if !codes.iter().any(|c| Some(*c) == code) {
        return Err(format!("expected an error code in {codes:?}"));
    }
    if &v["id"] != id {
        return Err(format!("expected the id {id}"));
    }
    Ok(())
}

/// One successful response with this id (and this text, for a tool).
pub(crate) fn check_success(v: &Value, id: &Value, text: Option<&str>) -> Result<(), String> {
    support::check_response(v)?;
    if &v["id"] != id || v.get("result").is_none() {
        return Err(format!("expected a result for id {id}"));
    }
    if v["result"]["isError"] == true {
        return Err("expected success, got isError".into());
    }
    match text {
        Some(t) if result_text(v) != Some(t) => Err(format!("expected the text {t:?}")),
        _ => Ok(()),
    }
}

/// One tool result with `isError: true` and this id.
pub(crate) fn check_tool_error(v: &Value, id: &Value) -> Result<(), String> {
    support::check_response(v)?;
    if &v["id"] != id || v["result"]["isError"] != true {
        return Err(format!("expected an isError result for id {id}"));
    }
    Ok(())
}

/// A batch reply holding `n` responses, every one well formed.
pub(crate) fn check_batch(v: &Value, n: usize) -> Result<(), String> {
    let Some(items) = v.as_array() else {
        return Err("expected a batch reply (an array)".into());
    };
    if items.len() != n {
        return Err(format!(
            "expected {n} replies in the batch, got {}",
            items.len()
        ));
    }
    items.iter().try_for_each(support::check_response)
}

/// An error with this code, whatever else the message holds.
pub(crate) fn check_code(v: &Value, code: i64) -> Result<(), String> {
    if v["error"]["code"] == code {
        Ok(())
    } else {
        Err(format!("expected the code {code}"))
    }
}

/// A transport-level error body: a JSON-RPC error object with this code.
/// (Its `id` is checked by `transport_errors_are_json_rpc_responses`.)
pub(crate) fn check_transport_error(r: &Response, code: i64) -> Result<(), String> {
    let v: Value = serde_json::from_slice(&r.body).map_err(|e| format!("not JSON: {e}"))?;
    if v["jsonrpc"] == "2.0" && v["error"]["code"] == code && v["error"]["message"].is_string() {
        Ok(())
    } else {
        Err(format!("expected a JSON-RPC error {code}, got {v}"))
    }
}

/// The isError result of a call to `add` with an unknown argument `c`.
pub(crate) fn unknown_c(got: &[Value]) -> Result<(), String> {
    let text = refused_text(got)?;
    if !text.contains("unknown argument `c`") {
        return Err(format!("expected `c` named unknown: {text}"));
    }
    Ok(())
}

/// The isError result of a call to `add` with 50,000 unknown arguments:
/// ten named, the rest counted.
pub(crate) fn fifty_thousand_unknown(got: &[Value]) -> Result<(), String> {
    let text = refused_text(got)?;
    if !text.contains("unknown arguments `k0`") || !text.contains(" and 49990 more") {
        return Err(format!("expected the first names and a count: {text}"));
    }
    if text.len() > 400 {
        return Err(format!("the message is {} bytes long", text.len()));
    }
    Ok(())
}

/// The text of one isError tool result with id 1.
fn refused_text(got: &[Value]) -> Result<&str, String> {
    let [v] = got else {
        return Err(format!("expected one message, got {}", got.len()));
    };
    support::check_response(v)?;
    if v["id"] != json!(1) || v["result"]["isError"] != true {
        return Err(format!("expected an isError result for id 1: {v}"));
    }
    result_text(v).ok_or_else(|| format!("no text: {v}"))
}

/// `count_to(2)`'s result last, every message before it a progress
/// notification echoing `token`.
pub(crate) fn progress_then_result(got: &[Value], token: Option<&Value>) -> Result<(), String> {
    let (last, notes) = got.split_last().ok_or("nothing")?;
    support::check_response(last)?;
    if result_text(last) != Some("counted to 2") {
        return Err("expected `counted to 2`".into());
    }
    for n in notes {
        if n["method"] != "notifications/progress" {
            return Err(format!("expected progress, got {n}"));
        }
        if Some(&n["params"]["progressToken"]) != token {
            return Err(format!("the token is not echoed: {n}"));
        }
    }
    Ok(())
}

/// Pings 1 and 2 answered, in order.
pub(crate) fn two_pings(got: &[Value]) -> Result<(), String> {
    if got[0]["id"] == 1 && got[1]["id"] == 2 && got.iter().all(|g| g["result"] == json!({})) {
        Ok(())
    } else {
        Err("two pings answered".into())
    }
}

/// The reply to `[ping 1, a notification, a response, {}, add(1, 2) as 2,
/// 5]`: the ping and the sum answered, `{}` and `5` refused with -32600.
pub(crate) fn mixed_batch_reply(got: &[Value]) -> Result<(), String> {
    let items = got[0].as_array().ok_or("a batch reply")?;
    items.iter().try_for_each(support::check_response)?;
    let ids: Vec<&Value> = items.iter().map(|i| &i["id"]).collect();
    let ok = items.len() == 4
        && items
            .iter()
            .any(|i| i["id"] == 1 && i["result"] == json!({}))
        && items
            .iter()
            .any(|i| i["id"] == 2 && result_text(i) == Some("3"))
        && items
            .iter()
            .filter(|i| i["error"]["code"] == -32600)
            .count()
            == 2;
    if ok {
        Ok(())
    } else {
        Err(format!("ids {ids:?}"))
    }
}

/// One batch reply answering pings 0 to 9,999, each once.
pub(crate) fn ten_thousand_replies(got: &[Value]) -> Result<(), String> {
    let items = got[0].as_array().ok_or("a batch reply")?;
    items.iter().try_for_each(support::check_response)?;
    let mut ids: Vec<i64> = items.iter().filter_map(|i| i["id"].as_i64()).collect();
    ids.sort_unstable();
    if ids == (0..10_000).collect::<Vec<_>>() {
        Ok(())
    } else {
        Err(format!("{} distinct replies", ids.len()))
    }
}

/// One well-formed response, whatever it says.
pub(crate) fn a_response(got: &[Value]) -> Result<(), String> {
    support::check_response(&got[0])
}

/// An `initialize` result that offers the latest legacy revision.
pub(crate) fn latest_legacy_offered(got: &[Value]) -> Result<(), String> {
    if got[0]["result"]["protocolVersion"] == LATEST_LEGACY {
        Ok(())
    } else {
        Err("the latest legacy version offered".into())
    }
}
