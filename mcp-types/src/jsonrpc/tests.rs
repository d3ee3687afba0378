//! The envelope and the classifier, case by case.

use super::*;

#[test]
fn classifies_each_kind() {
    let m = RawMessage::parse(r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#).unwrap();
    assert!(matches!(m, RawMessage::Request { id: RequestId::String(ref s), .. } if s == "a"));
    let m = RawMessage::parse(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
    assert!(matches!(m, RawMessage::Notification { .. }));
    let m = RawMessage::parse(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#).unwrap();
    assert!(matches!(m, RawMessage::Response { .. }));
    let m =
        RawMessage::parse(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#)
            .unwrap();
    assert!(matches!(m, RawMessage::Error { id: None, .. }));
}

#[test]
fn only_an_object_is_a_message() {
    for input in [
        r#"["2.0", 1, "ping"]"#,
        r#" ["2.0", 1, "ping"]"#,
        "\"ping\"",
        "7",
        "null",
    ] {
        let err = RawMessage::parse(input).unwrap_err();
        assert_eq!(
            err.to_response().error.code,
            code::INVALID_REQUEST,
            "{input}"
        );
    }
    let err = RawMessage::parse("[\"2.0\", 1,").unwrap_err();
    assert_eq!(err.to_response().error.code, code::PARSE_ERROR);
}

#[test]
fn bad_input_gets_the_right_code_and_keeps_the_id() {
    let err = RawMessage::parse("{not json").unwrap_err();
    assert_eq!(err.to_response().error.code, code::PARSE_ERROR);
    assert_eq!(err.to_response().id, None);

    let err = RawMessage::parse(r#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#).unwrap_err();
    let resp = err.to_response();
    assert_eq!(resp.error.code, code::INVALID_REQUEST);
    assert_eq!(resp.id, Some(RequestId::Number(7)));

    for bad in [
        r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":3}"#,
        r#"{"jsonrpc":"2.0","id":1}"#,
        r#"{"id":1,"method":"ping"}"#,
        r#""just a string""#,
        r#"{"jsonrpc":"2.0","method":5}"#,
    ] {
        let err = RawMessage::parse(bad).unwrap_err();
        assert_eq!(err.to_response().error.code, code::INVALID_REQUEST, "{bad}");
    }
}

#[test]
fn extra_fields_are_ignored() {
    let m = RawMessage::parse(r#"{"jsonrpc":"2.0","id":1,"method":"ping","x":{"y":[1]}}"#);
    assert!(m.is_ok());
}

#[test]
fn owned_round_trip() {
    let text = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}}"#;
    let msg = Message::parse(text).unwrap();
    let back: Message = serde_json::from_str(&serde_json::to_string(&msg).unwrap()).unwrap();
    assert_eq!(msg, back);
    let err = ErrorResponse::new(None, ErrorObject::parse_error("x"));
    let json = serde_json::to_value(&err).unwrap();
    assert_eq!(json["id"], Value::Null);
}

/// The fast path reads every message it takes as the serde path does, over
/// a corpus and every one-byte change of it.
#[test]
fn parse_fast_matches_parse_serde() {
    let corpus = [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#,
        r#"{"method":"ping","id":"a b","jsonrpc":"2.0","x":[null]}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":9223372036854775807,"method":"m","params":null}"#,
        r#" {"jsonrpc" : "2.0", "id" : 0, "method" : "m", "params" : [1, "x"]} "#,
    ];
    let mut taken = 0;
    for text in corpus {
        assert!(RawMessage::parse_fast(text).is_some(), "{text}");
        let mut variants = vec![text.to_owned()];
        for at in 0..text.len() {
            for b in 0u8..=0x7f {
                let mut changed = text.as_bytes().to_vec();
                changed[at] = b;
                if let Ok(t) = String::from_utf8(changed) {
                    variants.push(t);
                }
            }
        }
        for v in &variants {
            if let Some(fast) = RawMessage::parse_fast(v) {
                taken += 1;
                let slow = RawMessage::parse_serde(v)
                    .unwrap_or_else(|e| panic!("{v:?}: fast path took it, serde says {e}"));
                assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{v:?}");
            }
        }
    }
    // Not vacuous: many variants (other ids, methods, values) take the fast path.
    assert!(taken > 1000, "{taken}");
    // Left to serde: responses, a repeated member, escapes in the method or
    // the id, ids that are not plain non-negative integers or strings.
    for text in [
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m\/x"}"#,
        r#"{"jsonrpc":"2.0","id":"\"","method":"m"}"#,
        r#"{"jsonrpc":"2.0","id":-1,"method":"m"}"#,
        r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#,
        r#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#,
        r#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"m"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":3}"#,
    ] {
        assert!(RawMessage::parse_fast(text).is_none(), "{text}");
    }
}
