//! Typed-client encoding and decoding, end to end on results.

use super::*;
use crate::content::ContentBlock;
use serde_json::json;
use serde_json::Value;

fn structured(value: Value) -> CallToolResult {
    CallToolResult {
        content: vec![ContentBlock::text(value.to_string())],
        structured_content: Some(value),
        ..CallToolResult::default()
    }
}

#[test]
fn errors_become_tool_errors() {
    let err = decode_text("t", CallToolResult::error("boom")).unwrap_err();
    assert_eq!(err.tool_message().as_deref(), Some("boom"));
    assert!(matches!(
        decode_unit("t", CallToolResult::error("x")),
        Err(CallError::Tool(_))
    ));
}

#[test]
fn text_and_parsed() {
    assert_eq!(decode_text("t", CallToolResult::text("hi")).unwrap(), "hi");
    assert_eq!(
        decode_parsed::<i64>("t", CallToolResult::text(" -3 ")).unwrap(),
        -3
    );
    assert!(decode_parsed::<bool>("t", CallToolResult::text("true")).unwrap());
    let err = decode_parsed::<u8>("t", CallToolResult::text("x")).unwrap_err();
    assert!(err.to_string().contains("expected u8"), "{err}");
    assert!(matches!(
        decode_text("t", CallToolResult::success(vec![])),
        Err(CallError::Decode { .. })
    ));
}

#[test]
fn structured_unwraps_by_rule_or_leniently() {
    let wrapped = structured(json!({"result": [1, 2]}));
    let v: Vec<u8> = decode_structured::<_, ()>("t", wrapped.clone(), || true).unwrap();
    assert_eq!(v, [1, 2]);
    // Not wrapped by the rule: the object is the value.
    let m: Value = decode_structured::<_, ()>("t", wrapped.clone(), || false).unwrap();
    assert_eq!(m, json!({"result": [1, 2]}));
    let v: Vec<u8> = decode_structured_lenient::<_, ()>("t", wrapped).unwrap();
    assert_eq!(v, [1, 2]);
    // Text only: parsed, never unwrapped.
    let text_only = CallToolResult::text(r#"{"result": 1}"#);
    let m: Value = decode_structured::<_, ()>("t", text_only, || true).unwrap();
    assert_eq!(m, json!({"result": 1}));
    assert!(is_wrapped_output(Some(&json!({"type": "array"}))));
    assert!(!is_wrapped_output(Some(&json!({"type": "object"}))));
    assert!(!is_wrapped_output(None));
}

fn decode<R: ToolOutput<()>>(
    result: CallToolResult,
    wrapping: Wrapping,
) -> Result<R::Output, CallError> {
    R::decode("t", result, wrapping)
}

#[test]
fn tool_outputs_mirror_the_server_vocabulary() {
    let text = || CallToolResult::text("42");
    let lenient = Wrapping::Lenient;
    assert_eq!(decode::<String>(text(), lenient).unwrap(), "42");
    assert_eq!(decode::<&str>(text(), lenient).unwrap(), "42");
    assert_eq!(decode::<u8>(text(), lenient).unwrap(), 42);
    assert!((decode::<f64>(text(), lenient).unwrap() - 42.0).abs() < f64::EPSILON);
    decode::<()>(text(), lenient).unwrap();
    assert_eq!(
        decode::<ContentBlock>(text(), lenient).unwrap(),
        text().content
    );
    assert_eq!(decode::<CallToolResult>(text(), lenient).unwrap(), text());
    // A `Result` is its success type; an `isError` result is a tool error.
    assert_eq!(decode::<Result<u8, String>>(text(), lenient).unwrap(), 42);
    assert!(matches!(
        decode::<Result<u8, String>>(CallToolResult::error("no"), lenient),
        Err(CallError::Tool(_))
    ));
    // `Json<T>`: by the server's rule, or leniently.
    let wrapped = || structured(json!({"result": [1, 2]}));
    let v = decode::<Json<Vec<u8>>>(wrapped(), Wrapping::Rule(|| true)).unwrap();
    assert_eq!(v, [1, 2]);
    let m = decode::<Json<Value>>(wrapped(), Wrapping::Rule(|| false)).unwrap();
    assert_eq!(m, json!({"result": [1, 2]}));
    let v = decode::<Json<Vec<u8>>>(wrapped(), lenient).unwrap();
    assert_eq!(v, [1, 2]);
}

#[test]
fn arguments_report_the_first_bad_one() {
    let mut args = CallArguments::new("t");
    args.push::<_, ()>("a", &1);
    let mut bad = std::collections::HashMap::new();
    bad.insert((1, 2), 3);
    args.push::<_, ()>("b", &bad);
    let err = args.finish().unwrap_err();
    assert!(err.to_string().contains("argument `b`"), "{err}");
}
