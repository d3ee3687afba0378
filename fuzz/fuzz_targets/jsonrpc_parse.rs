//! Parsing one JSON-RPC message or batch: `split_batch` and
//! `RawMessage::parse` never panic; a parsed message survives a round trip
//! (serialized, it parses again as the same kind with the same id and
//! method); a refused one maps to -32700 or -32600 with a serializable
//! error response.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxmcp_types::jsonrpc::{code, split_batch, Message, RawMessage};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match split_batch(text) {
        Some(Ok(items)) => {
            for item in items {
                check(item.get());
            }
        }
        Some(Err(e)) => refused(&e),
        None => check(text),
    }
});

fn check(text: &str) {
    match RawMessage::parse(text) {
        Ok(msg) => {
            let owned = msg.to_owned();
            let json = serde_json::to_string(&owned).expect("a message serializes");
            let back =
                Message::parse(&json).unwrap_or_else(|e| panic!("{json} does not parse back: {e}"));
            assert_eq!(shape(&back), shape(&owned), "{json}");
        }
        Err(e) => refused(&e),
    }
}

fn refused(e: &oxmcp_types::jsonrpc::DecodeError) {
    let response = e.to_response();
    assert!(
        response.error.code == code::PARSE_ERROR || response.error.code == code::INVALID_REQUEST,
        "{response:?}"
    );
    let json = serde_json::to_string(&response).expect("an error response serializes");
    serde_json::from_str::<serde_json::Value>(&json).expect("and is JSON");
}

/// Kind, id and method: what a round trip must keep.
fn shape(m: &Message) -> (u8, Option<String>, Option<String>) {
    match m {
        Message::Request(r) => (0, Some(r.id.to_string()), Some(r.method.to_string())),
        Message::Notification(n) => (1, None, Some(n.method.to_string())),
        Message::Response(r) => (2, Some(r.id.to_string()), None),
        Message::Error(e) => (3, e.id.as_ref().map(ToString::to_string), None),
    }
}
