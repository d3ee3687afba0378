//! Golden wire cases: every message a tools server and a tools client exchange,
//! per protocol revision, written by hand from the official schemas and the
//! spec's examples (see `tests/golden/README.md`).
//!
//! For each case the envelope is read with [`Message::parse`] (and with
//! [`RawMessage::parse`], which must agree), the payload (`params`, `result`,
//! or `error` and its `data`) is read into the typed struct the case names,
//! written back, and the whole message is compared, as `serde_json::Value`,
//! with the golden (`output` when the case has one, else `message`). So every
//! field the spec defines survives a round trip through the typed model.
//!
//! The tests read only files under `tests/golden`; nothing outside the
//! repository is touched.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};

use oxmcp_types::jsonrpc::{code, split_batch, ErrorObject, ErrorResponse, Message, RawMessage};
use oxmcp_types::lifecycle::{EmptyResult, MetaParams, ToolsCapability};
use oxmcp_types::modern::{
    meta, InputRequest, InputRequiredResult, MissingCapabilityData, RequestMeta,
    SubscriptionFilter, SubscriptionsAcknowledgedParams, SubscriptionsListenParams,
    UnsupportedVersionData,
};
use oxmcp_types::notification::{
    CancelledParams, LoggingMessageParams, NotificationMetaParams, ProgressParams, ProgressToken,
    SetLevelParams,
};
use oxmcp_types::tool::ToolExecution;
use oxmcp_types::{
    method, Annotations, AudioContent, BlobResourceContents, CacheScope, CallToolParams,
    CallToolResult, ClientCapabilities, ContentBlock, DiscoverResult, EmbeddedResource, Icon,
    ImageContent, Implementation, InitializeParams, InitializeResult, JsonObject, ListToolsParams,
    ListToolsResult, LoggingLevel, ProtocolVersion, RequestId, ResourceContents, ResourceLink,
    ResultType, Role, ServerCapabilities, TextContent, TextResourceContents, Tool, ToolAnnotations,
};

// ---------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------

/// One golden case (see `tests/golden/README.md` for the format).
struct Case {
    /// `<revision>/<file>`, for messages.
    name: String,
    revision: String,
    /// The typed struct the payload is read into.
    rust: String,
    /// The wire message, as a peer sends it.
    message: Value,
    /// What oxmcp-types writes back: `output` when present, else `message`.
    expected: Value,
    extra_fields: bool,
    /// Why `output` differs from `message`: `extraFields`, `schemaDeviation`
    /// or `outputWhy` must say so.
    output_reason: Option<String>,
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("golden")
}

fn load_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for rev in ProtocolVersion::ALL {
        let dir = golden_dir().join(rev.as_str());
        let mut files: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for path in files {
            let name = format!("{}/{}", rev, path.file_name().unwrap().to_string_lossy());
            let text = fs::read_to_string(&path).unwrap();
            let case: Value =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: not JSON: {e}"));
            let field = |k: &str| case.get(k).cloned();
            let message = field("message").unwrap_or_else(|| panic!("{name}: no `message`"));
            cases.push(Case {
                revision: rev.as_str().to_owned(),
                rust: field("rust")
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_else(|| panic!("{name}: no `rust`")),
                expected: field("output").unwrap_or_else(|| message.clone()),
                extra_fields: case.get("extraFields") == Some(&Value::Bool(true)),
                output_reason: ["extraFields", "schemaDeviation", "outputWhy"]
                    .iter()
                    .find_map(|k| case.get(*k).map(ToString::to_string)),
                message,
                name,
            });
        }
    }
    assert!(cases.len() > 100, "golden cases not found");
    cases
}

// ---------------------------------------------------------------------------
// Typed round trips
// ---------------------------------------------------------------------------

/// Reads `payload` into `T` (from text, as a server does from a `RawValue`)
/// and writes it back.
fn through<T: Serialize + DeserializeOwned>(payload: &Value) -> Result<Value, String> {
    let text = payload.to_string();
    let typed: T = serde_json::from_str(&text).map_err(|e| format!("read: {e}"))?;
    let back = serde_json::to_value(&typed).map_err(|e| format!("write: {e}"))?;
    // Reading from a Value must give the same thing as reading from text.
    let via_value: T = serde_json::from_value(payload.clone()).map_err(|e| e.to_string())?;
    if serde_json::to_value(&via_value).map_err(|e| e.to_string())? != back {
        return Err("reading from text and from a Value disagree".into());
    }
    Ok(back)
}

/// Round-trips a payload through the struct named `rust`.
fn typed(rust: &str, payload: &Value) -> Result<Value, String> {
    match rust {
        "InitializeParams" => through::<InitializeParams>(payload),
        "InitializeResult" => through::<InitializeResult>(payload),
        "MetaParams" => through::<MetaParams>(payload),
        "EmptyResult" => through::<EmptyResult>(payload),
        "NotificationMetaParams" => through::<NotificationMetaParams>(payload),
        "ListToolsParams" => through::<ListToolsParams>(payload),
        "ListToolsResult" => through::<ListToolsResult>(payload),
        "CallToolParams" => through::<CallToolParams>(payload),
        "CallToolResult" => through::<CallToolResult>(payload),
        "CancelledParams" => through::<CancelledParams>(payload),
        "ProgressParams" => through::<ProgressParams>(payload),
        "SetLevelParams" => through::<SetLevelParams>(payload),
        "LoggingMessageParams" => through::<LoggingMessageParams>(payload),
        "DiscoverResult" => through::<DiscoverResult>(payload),
        "SubscriptionsListenParams" => through::<SubscriptionsListenParams>(payload),
        "SubscriptionsAcknowledgedParams" => through::<SubscriptionsAcknowledgedParams>(payload),
        "InputRequiredResult" => through::<InputRequiredResult>(payload),
        "ErrorObject" => through::<ErrorObject>(payload),
        "UnsupportedVersionData" => through::<UnsupportedVersionData>(payload),
        "MissingCapabilityData" => through::<MissingCapabilityData>(payload),
        other => Err(format!("unknown rust type `{other}`")),
    }
}

/// The params type of each request and notification method.
fn params_type(method: &str) -> &'static str {
    match method {
        method::INITIALIZE => "InitializeParams",
        method::PING | method::SERVER_DISCOVER => "MetaParams",
        method::INITIALIZED | method::TOOLS_LIST_CHANGED => "NotificationMetaParams",
        method::TOOLS_LIST => "ListToolsParams",
        method::TOOLS_CALL => "CallToolParams",
        method::LOGGING_SET_LEVEL => "SetLevelParams",
        method::SUBSCRIPTIONS_LISTEN => "SubscriptionsListenParams",
        method::CANCELLED => "CancelledParams",
        method::PROGRESS => "ProgressParams",
        method::MESSAGE => "LoggingMessageParams",
        method::SUBSCRIPTIONS_ACKNOWLEDGED => "SubscriptionsAcknowledgedParams",
        other => panic!("no params type for method `{other}`"),
    }
}

/// The members JSON-RPC defines; anything else at the top level is dropped.
const ENVELOPE: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];

/// Checks one message: envelope classification, envelope round trip, typed
/// payload round trip. Returns what oxmcp-types writes back.
fn round_trip_message(msg: &Value, rust: &str, name: &str) -> Value {
    let text = msg.to_string();
    let owned = Message::parse(&text).unwrap_or_else(|e| panic!("{name}: Message::parse: {e}"));
    let raw = RawMessage::parse(&text).unwrap_or_else(|e| panic!("{name}: RawMessage::parse: {e}"));
    // Both views classify alike.
    match (&owned, &raw) {
        (Message::Request(r), RawMessage::Request { id, method, .. }) => {
            assert_eq!((&r.id, r.method.as_ref()), (id, method.as_ref()), "{name}");
        }
        (Message::Notification(n), RawMessage::Notification { method, .. }) => {
            assert_eq!(n.method, method.as_ref(), "{name}");
        }
        (Message::Response(r), RawMessage::Response { id, .. }) => assert_eq!(&r.id, id, "{name}"),
        (Message::Error(e), RawMessage::Error { id, error }) => {
            assert_eq!((&e.id, &e.error), (id, error), "{name}");
        }
        _ => panic!("{name}: Message and RawMessage disagree on the kind"),
    }
    // The envelope round trip keeps every JSON-RPC member and payload as is.
    let mut written = serde_json::to_value(&owned).unwrap();
    let mut envelope: Map<String, Value> = msg
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| ENVELOPE.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if envelope.contains_key("error") {
        // An error response whose id could not be read is written with `id: null`.
        envelope.entry("id").or_insert(Value::Null);
    }
    assert_eq!(
        written,
        Value::Object(envelope),
        "{name}: envelope round trip"
    );

    // The typed payload, read from the borrowed RawValue as a server does.
    let (part, payload_text) = match &raw {
        RawMessage::Request { method, params, .. }
        | RawMessage::Notification { method, params } => {
            let expected_type = params_type(method);
            assert!(
                rust == expected_type || rust == "Batch",
                "{name}: `rust` is {rust}, but {method} params are {expected_type}"
            );
            ("params", params.map(|p| p.get().to_owned()))
        }
        RawMessage::Response { result, .. } => ("result", Some(result.get().to_owned())),
        RawMessage::Error { .. } => ("error", Some(msg["error"].to_string())),
    };
    let rust = if rust == "Batch" {
        batch_element_type(msg)
    } else {
        rust.to_owned()
    };
    let Some(payload_text) = payload_text else {
        // Absent params: the typed struct must still read an empty object.
        typed(&rust, &json!({})).unwrap_or_else(|e| panic!("{name}: {rust} from {{}}: {e}"));
        return written;
    };
    let payload: Value = serde_json::from_str(&payload_text).unwrap();
    let back = if part == "error" {
        typed_error(&rust, &payload, name)
    } else {
        typed(&rust, &payload).unwrap_or_else(|e| panic!("{name}: {rust}: {e}"))
    };
    written[part] = back;
    written
}

/// For a batch element, the payload type follows from the method or kind.
fn batch_element_type(msg: &Value) -> String {
    if let Some(m) = msg.get("method").and_then(Value::as_str) {
        params_type(m).to_owned()
    } else if msg.get("error").is_some() {
        "ErrorObject".to_owned()
    } else {
        "CallToolResult".to_owned()
    }
}

/// An error object round trip, and its `data` through the typed data struct.
fn typed_error(rust: &str, error: &Value, name: &str) -> Value {
    let mut back = typed("ErrorObject", error).unwrap_or_else(|e| panic!("{name}: {e}"));
    if rust != "ErrorObject" {
        let data = error
            .get("data")
            .unwrap_or_else(|| panic!("{name}: no error.data"));
        back["data"] = typed(rust, data).unwrap_or_else(|e| panic!("{name}: {rust}: {e}"));
    }
    back
}

// ---------------------------------------------------------------------------
// The golden round trip
// ---------------------------------------------------------------------------

#[test]
fn every_golden_case_round_trips_losslessly() {
    let cases = load_cases();
    for case in &cases {
        let written = match &case.message {
            Value::Array(items) => {
                let text = case.message.to_string();
                let parts = split_batch(&text).expect("a batch").expect("a valid batch");
                assert_eq!(parts.len(), items.len(), "{}", case.name);
                // Each element as `split_batch` hands it over.
                let written: Vec<Value> = parts
                    .iter()
                    .map(|part| serde_json::from_str::<Value>(part.get()).unwrap())
                    .map(|item| round_trip_message(&item, &case.rust, &case.name))
                    .collect();
                Value::Array(written)
            }
            msg => round_trip_message(msg, &case.rust, &case.name),
        };
        assert_eq!(
            written,
            case.expected,
            "{}: written back differently:\n{}",
            case.name,
            serde_json::to_string_pretty(&written).unwrap()
        );
        assert_eq!(
            case.name.contains("extra-fields"),
            case.extra_fields,
            "{}: extra-field cases are named extra-fields-* and marked extraFields",
            case.name
        );
        if case.output_reason.is_none() {
            // What we write is exactly what we read.
            assert_eq!(
                case.message, case.expected,
                "{}: unexplained `output`",
                case.name
            );
        }
    }
}

#[test]
fn batches_are_golden_only_in_2025_03_26() {
    for case in load_cases() {
        if case.message.is_array() {
            assert_eq!(case.revision, "2025-03-26", "{}", case.name);
        }
    }
}

#[test]
fn each_revision_has_its_golden_cases() {
    let common = [
        "tools-list-request",
        "tools-list-result",
        "tools-call-request",
        "tools-call-request-integer-token",
        "tools-call-result-content",
        "tools-call-result-is-error",
        "cancelled-notification",
        "progress-notification",
        "progress-notification-fractional",
        "logging-message-notification",
        "tools-list-changed-notification",
        "error-parse",
        "error-invalid-request",
        "error-method-not-found",
        "error-invalid-params",
        "error-unsupported-version",
    ];
    let legacy = [
        "initialize-request",
        "initialize-result",
        "initialized-notification",
        "ping-request",
        "ping-result",
        "logging-set-level-request",
        "extra-fields-initialize-request",
        "extra-fields-tools-list-result",
        "extra-fields-tools-call-request",
        "extra-fields-tools-call-result",
    ];
    let modern = [
        "server-discover-request",
        "server-discover-result",
        "tools-call-result-structured",
        "tools-call-input-required",
        "tools-call-retry-request",
        "subscriptions-listen-request",
        "subscriptions-acknowledged-notification",
        "subscriptions-listen-result",
        "error-parse-id-omitted",
        "error-header-mismatch",
        "error-missing-capability",
        "extra-fields-discover-result",
        "extra-fields-tools-call-request",
        "extra-fields-input-required",
        "extra-fields-tools-list-result",
    ];
    for rev in ProtocolVersion::ALL {
        let present: BTreeSet<String> = fs::read_dir(golden_dir().join(rev.as_str()))
            .unwrap()
            .map(|e| {
                e.unwrap()
                    .path()
                    .file_stem()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        let era: &[&str] = if rev.is_legacy() { &legacy } else { &modern };
        let mut wanted: Vec<&str> = common.iter().chain(era).copied().collect();
        if rev >= ProtocolVersion::V2025_06_18 {
            wanted.push("tools-call-result-structured");
        }
        if rev == ProtocolVersion::V2025_03_26 {
            wanted.extend(["batch-request", "batch-response"]);
        }
        for name in wanted {
            assert!(present.contains(name), "{rev}: missing golden case {name}");
        }
    }
}

// ---------------------------------------------------------------------------
// Revision-specific facts read from the goldens
// ---------------------------------------------------------------------------

#[test]
fn modern_requests_carry_readable_protocol_fields() {
    for case in load_cases() {
        let Some(params) = case.message.get("params") else {
            continue;
        };
        let is_request = case.message.get("id").is_some();
        let m: Option<JsonObject> = params
            .get("_meta")
            .map(|v| serde_json::from_value(v.clone()).unwrap());
        if case.revision != "2026-07-28" {
            assert!(!RequestMeta::is_modern(m.as_ref()), "{}", case.name);
            continue;
        }
        if !is_request {
            continue;
        }
        let m = m.unwrap_or_else(|| panic!("{}: a modern request has _meta", case.name));
        assert!(RequestMeta::is_modern(Some(&m)), "{}", case.name);
        let rm = RequestMeta::from_meta(&m).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        assert_eq!(rm.protocol_version, case.revision, "{}", case.name);
        // Written back, the protocol fields are exactly what was read.
        let known: JsonObject = m
            .iter()
            .filter(|(k, _)| {
                [
                    meta::PROTOCOL_VERSION,
                    meta::CLIENT_CAPABILITIES,
                    meta::CLIENT_INFO,
                    meta::LOG_LEVEL,
                    meta::PROGRESS_TOKEN,
                ]
                .contains(&k.as_str())
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !case.extra_fields {
            assert_eq!(rm.to_meta(), known, "{}: RequestMeta round trip", case.name);
        }
    }
}

#[test]
fn legacy_handshakes_name_their_revision() {
    for case in load_cases() {
        let rev = ProtocolVersion::parse(&case.revision).unwrap();
        match case.rust.as_str() {
            "InitializeParams" => {
                let p: InitializeParams =
                    serde_json::from_value(case.message["params"].clone()).unwrap();
                assert_eq!(ProtocolVersion::parse(&p.protocol_version), Some(rev));
                assert_eq!(ProtocolVersion::negotiate_legacy(&p.protocol_version), rev);
            }
            "InitializeResult" => {
                let r: InitializeResult =
                    serde_json::from_value(case.message["result"].clone()).unwrap();
                assert_eq!(r.protocol_version, rev, "{}", case.name);
            }
            "DiscoverResult" => {
                let r: DiscoverResult =
                    serde_json::from_value(case.message["result"].clone()).unwrap();
                assert_eq!(r.result_type, ResultType::Complete);
                assert!(
                    r.supported_versions.contains(&case.revision),
                    "{}",
                    case.name
                );
            }
            _ => {}
        }
    }
}

#[test]
fn golden_error_codes_match_the_code_constants() {
    let known = [
        code::PARSE_ERROR,
        code::INVALID_REQUEST,
        code::METHOD_NOT_FOUND,
        code::INVALID_PARAMS,
        code::INTERNAL_ERROR,
        code::URL_ELICITATION_REQUIRED,
        code::HEADER_MISMATCH,
        code::MISSING_REQUIRED_CLIENT_CAPABILITY,
        code::UNSUPPORTED_PROTOCOL_VERSION,
    ];
    let mut seen = BTreeSet::new();
    for case in load_cases() {
        if let Some(err) = case.message.get("error") {
            let c = i32::try_from(err["code"].as_i64().unwrap()).unwrap();
            assert!(known.contains(&c), "{}: unexpected code {c}", case.name);
            seen.insert(c);
        }
    }
    assert_eq!(seen.len(), known.len(), "every code has a golden case");
    assert_eq!(
        (
            code::HEADER_MISMATCH,
            code::MISSING_REQUIRED_CLIENT_CAPABILITY,
            code::UNSUPPORTED_PROTOCOL_VERSION
        ),
        (-32020, -32021, -32022)
    );
}

// ---------------------------------------------------------------------------
// Targeted assertions
// ---------------------------------------------------------------------------

fn keys(v: &Value) -> Vec<&str> {
    v.as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

fn sorted<'a>(names: &[&'a str]) -> Vec<&'a str> {
    names
        .iter()
        .copied()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

fn meta_of(key: &str) -> JsonObject {
    let mut m = JsonObject::new();
    m.insert(key.into(), json!({"nested": [1, {"deep": null}]}));
    m
}

fn icon() -> Icon {
    Icon {
        src: "https://example.com/i.png".into(),
        mime_type: Some("image/png".into()),
        sizes: Some(vec!["16x16".into()]),
        theme: Some("dark".into()),
    }
}

fn full_implementation() -> Implementation {
    // `#[non_exhaustive]`: built field by field, as a user's crate must.
    let mut implementation = Implementation::new("n", "1");
    implementation.title = Some("t".into());
    implementation.description = Some("d".into());
    implementation.icons = Some(vec![icon()]);
    implementation.website_url = Some("https://example.com".into());
    implementation
}

fn full_annotations() -> Annotations {
    Annotations {
        audience: Some(vec![Role::User, Role::Assistant]),
        priority: Some(0.5),
        last_modified: Some("2025-01-01T00:00:00Z".into()),
    }
}

fn full_tool() -> Tool {
    let mut annotations = ToolAnnotations::default();
    annotations.title = Some("T".into());
    annotations.read_only_hint = Some(true);
    annotations.destructive_hint = Some(false);
    annotations.idempotent_hint = Some(true);
    annotations.open_world_hint = Some(false);
    let mut tool = Tool::new(
        "t",
        serde_json::from_value(json!({"type": "object"})).unwrap(),
    );
    tool.title = Some("T".into());
    tool.description = Some("d".into());
    tool.output_schema = Some(json!({"type": "object"}));
    tool.annotations = Some(annotations);
    tool.icons = Some(vec![icon()]);
    tool.execution = Some(ToolExecution {
        task_support: Some("optional".into()),
    });
    tool.meta = Some(meta_of("com.example/k"));
    tool
}

/// With every optional field set, each struct writes exactly the spec's
/// `camelCase` member names (and `_meta`), nothing `snake_case`.
#[test]
fn every_field_has_its_camel_case_wire_name() {
    let tool = serde_json::to_value(full_tool()).unwrap();
    assert_eq!(
        keys(&tool),
        sorted(&[
            "name",
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations",
            "icons",
            "execution",
            "_meta"
        ])
    );
    assert_eq!(
        keys(&tool["annotations"]),
        sorted(&[
            "title",
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint"
        ])
    );
    assert_eq!(
        keys(&tool["icons"][0]),
        sorted(&["src", "mimeType", "sizes", "theme"])
    );
    assert_eq!(keys(&tool["execution"]), ["taskSupport"]);
    let imp = serde_json::to_value(full_implementation()).unwrap();
    assert_eq!(
        keys(&imp),
        sorted(&[
            "name",
            "version",
            "title",
            "description",
            "icons",
            "websiteUrl"
        ])
    );
    let ann = serde_json::to_value(full_annotations()).unwrap();
    assert_eq!(
        keys(&ann),
        sorted(&["audience", "priority", "lastModified"])
    );
}

#[test]
fn tools_list_and_call_fields_have_their_wire_names() {
    let list = ListToolsResult {
        tools: vec![],
        next_cursor: Some("c".into()),
        result_type: Some(ResultType::Complete),
        ttl_ms: Some(1),
        cache_scope: Some(CacheScope::Public),
        meta: Some(meta_of("k")),
    };
    assert_eq!(
        keys(&serde_json::to_value(list).unwrap()),
        sorted(&[
            "tools",
            "nextCursor",
            "resultType",
            "ttlMs",
            "cacheScope",
            "_meta"
        ])
    );
    let params = ListToolsParams {
        cursor: Some("c".into()),
        meta: Some(meta_of("k")),
    };
    assert_eq!(
        keys(&serde_json::to_value(params).unwrap()),
        sorted(&["cursor", "_meta"])
    );

    let mut call = CallToolParams::new("t", JsonObject::new());
    call.input_responses = Some(JsonObject::new());
    call.request_state = Some("s".into());
    call.task = Some(JsonObject::new());
    call.meta = Some(meta_of("progressToken"));
    assert_eq!(
        keys(&serde_json::to_value(call).unwrap()),
        sorted(&[
            "name",
            "arguments",
            "inputResponses",
            "requestState",
            "task",
            "_meta"
        ])
    );
    let result = CallToolResult {
        content: vec![],
        structured_content: Some(json!({})),
        is_error: Some(false),
        result_type: Some(ResultType::Complete),
        meta: Some(meta_of("k")),
    };
    assert_eq!(
        keys(&serde_json::to_value(result).unwrap()),
        sorted(&[
            "content",
            "structuredContent",
            "isError",
            "resultType",
            "_meta"
        ])
    );
}

#[test]
fn lifecycle_fields_have_their_wire_names() {
    let init = InitializeParams {
        protocol_version: "2025-11-25".into(),
        capabilities: {
            let mut client = ClientCapabilities::default();
            client.roots = Some(JsonObject::new());
            client.sampling = Some(JsonObject::new());
            client.elicitation = Some(JsonObject::new());
            client.tasks = Some(JsonObject::new());
            client.experimental = Some(JsonObject::new());
            client.extensions = Some(JsonObject::new());
            client
        },
        client_info: full_implementation(),
        meta: Some(meta_of("k")),
    };
    let init = serde_json::to_value(init).unwrap();
    assert_eq!(
        keys(&init),
        sorted(&["protocolVersion", "capabilities", "clientInfo", "_meta"])
    );
    assert_eq!(
        keys(&init["capabilities"]),
        sorted(&[
            "roots",
            "sampling",
            "elicitation",
            "tasks",
            "experimental",
            "extensions"
        ])
    );
    let mut tools = ToolsCapability::default();
    tools.list_changed = Some(true);
    let mut caps = ServerCapabilities::default();
    caps.tools = Some(tools);
    caps.logging = Some(JsonObject::new());
    caps.completions = Some(JsonObject::new());
    caps.prompts = Some(JsonObject::new());
    caps.resources = Some(JsonObject::new());
    caps.tasks = Some(JsonObject::new());
    caps.experimental = Some(JsonObject::new());
    caps.extensions = Some(JsonObject::new());
    let caps = serde_json::to_value(caps).unwrap();
    assert_eq!(keys(&caps["tools"]), ["listChanged"]);
    assert_eq!(
        keys(&caps),
        sorted(&[
            "tools",
            "logging",
            "completions",
            "prompts",
            "resources",
            "tasks",
            "experimental",
            "extensions"
        ])
    );
    let result = InitializeResult {
        protocol_version: ProtocolVersion::V2025_11_25,
        capabilities: ServerCapabilities::default(),
        server_info: Implementation::new("s", "1"),
        instructions: Some("i".into()),
        meta: Some(meta_of("k")),
    };
    assert_eq!(
        keys(&serde_json::to_value(result).unwrap()),
        sorted(&[
            "protocolVersion",
            "capabilities",
            "serverInfo",
            "instructions",
            "_meta"
        ])
    );
}

#[test]
fn modern_fields_have_their_wire_names() {
    let discover = DiscoverResult {
        result_type: ResultType::Complete,
        supported_versions: vec!["2026-07-28".into()],
        capabilities: ServerCapabilities::default(),
        instructions: Some("i".into()),
        ttl_ms: 0,
        cache_scope: CacheScope::Private,
        meta: Some(meta_of(meta::SERVER_INFO)),
    };
    let discover = serde_json::to_value(discover).unwrap();
    assert_eq!(
        keys(&discover),
        sorted(&[
            "resultType",
            "supportedVersions",
            "capabilities",
            "instructions",
            "ttlMs",
            "cacheScope",
            "_meta"
        ])
    );
    assert_eq!(discover["cacheScope"], "private");
    let filter = SubscriptionFilter {
        tools_list_changed: Some(true),
        prompts_list_changed: Some(true),
        resources_list_changed: Some(true),
        resource_subscriptions: Some(vec![]),
        // The tasks extension's field, not the core schema's.
        task_ids: None,
    };
    assert_eq!(
        keys(&serde_json::to_value(filter).unwrap()),
        sorted(&[
            "toolsListChanged",
            "promptsListChanged",
            "resourcesListChanged",
            "resourceSubscriptions"
        ])
    );
    let ir = InputRequiredResult {
        result_type: ResultType::InputRequired,
        input_requests: Some(
            [(
                "k".to_owned(),
                InputRequest {
                    method: method::ROOTS_LIST.into(),
                    params: None,
                },
            )]
            .into(),
        ),
        request_state: Some("s".into()),
        meta: Some(meta_of("k")),
    };
    let ir = serde_json::to_value(ir).unwrap();
    assert_eq!(
        keys(&ir),
        sorted(&["resultType", "inputRequests", "requestState", "_meta"])
    );
    assert_eq!(ir["resultType"], "input_required");
    assert_eq!(ir["inputRequests"]["k"], json!({"method": "roots/list"}));
    let data = MissingCapabilityData {
        required_capabilities: JsonObject::new(),
    };
    assert_eq!(
        keys(&serde_json::to_value(data).unwrap()),
        ["requiredCapabilities"]
    );
}

#[test]
fn notification_fields_have_their_wire_names() {
    let progress = ProgressParams {
        progress_token: ProgressToken::String("t".into()),
        progress: 1.0,
        total: Some(2.0),
        message: Some("m".into()),
        meta: Some(meta_of("k")),
    };
    assert_eq!(
        keys(&serde_json::to_value(progress).unwrap()),
        sorted(&["progressToken", "progress", "total", "message", "_meta"])
    );
    let cancelled = CancelledParams {
        request_id: Some(RequestId::Number(1)),
        reason: Some("r".into()),
        meta: Some(meta_of("k")),
    };
    assert_eq!(
        keys(&serde_json::to_value(cancelled).unwrap()),
        sorted(&["requestId", "reason", "_meta"])
    );
    let log = LoggingMessageParams {
        level: LoggingLevel::Notice,
        logger: Some("l".into()),
        data: json!(null),
        meta: Some(meta_of("k")),
    };
    assert_eq!(
        keys(&serde_json::to_value(log).unwrap()),
        sorted(&["level", "logger", "data", "_meta"])
    );
}

#[test]
fn content_blocks_have_their_wire_names() {
    let blocks = vec![
        ContentBlock::Text(TextContent {
            text: "t".into(),
            annotations: Some(full_annotations()),
            meta: Some(meta_of("k")),
        }),
        ContentBlock::Image(ImageContent {
            data: "AA==".into(),
            mime_type: "image/png".into(),
            annotations: Some(full_annotations()),
            meta: Some(meta_of("k")),
        }),
        ContentBlock::Audio(AudioContent {
            data: "AA==".into(),
            mime_type: "audio/wav".into(),
            annotations: Some(full_annotations()),
            meta: Some(meta_of("k")),
        }),
        ContentBlock::ResourceLink(ResourceLink {
            uri: "file:///a".into(),
            name: "a".into(),
            title: Some("A".into()),
            description: Some("d".into()),
            mime_type: Some("text/plain".into()),
            size: Some(1),
            icons: Some(vec![icon()]),
            annotations: Some(full_annotations()),
            meta: Some(meta_of("k")),
        }),
        ContentBlock::Resource(EmbeddedResource {
            resource: ResourceContents::Text(TextResourceContents {
                uri: "file:///a".into(),
                mime_type: Some("text/plain".into()),
                text: "A".into(),
                meta: Some(meta_of("k")),
            }),
            annotations: Some(full_annotations()),
            meta: Some(meta_of("k")),
        }),
        ContentBlock::Resource(EmbeddedResource {
            resource: ResourceContents::Blob(BlobResourceContents {
                uri: "file:///b".into(),
                mime_type: Some("application/octet-stream".into()),
                blob: "AA==".into(),
                meta: Some(meta_of("k")),
            }),
            annotations: None,
            meta: None,
        }),
    ];
    let v = serde_json::to_value(&blocks).unwrap();
    let common = ["type", "annotations", "_meta"];
    let with = |extra: &[&'static str]| sorted(&[&common[..], extra].concat());
    assert_eq!(keys(&v[0]), with(&["text"]));
    assert_eq!(keys(&v[1]), with(&["data", "mimeType"]));
    assert_eq!(keys(&v[2]), with(&["data", "mimeType"]));
    assert_eq!(
        keys(&v[3]),
        with(&[
            "uri",
            "name",
            "title",
            "description",
            "mimeType",
            "size",
            "icons"
        ])
    );
    assert_eq!(keys(&v[4]), with(&["resource"]));
    assert_eq!(
        keys(&v[4]["resource"]),
        sorted(&["uri", "mimeType", "text", "_meta"])
    );
    assert_eq!(
        keys(&v[5]["resource"]),
        sorted(&["uri", "mimeType", "blob", "_meta"])
    );
    let tags: Vec<&str> = (0..6).map(|i| v[i]["type"].as_str().unwrap()).collect();
    assert_eq!(
        tags,
        [
            "text",
            "image",
            "audio",
            "resource_link",
            "resource",
            "resource"
        ]
    );
    // And they read back to the same values.
    let back: Vec<ContentBlock> = serde_json::from_value(v).unwrap();
    assert_eq!(back, blocks);
}

#[test]
fn unset_optional_fields_are_omitted_not_null() {
    let cases: Vec<(Value, Value)> = vec![
        (
            serde_json::to_value(CallToolResult::text("hi")).unwrap(),
            json!({"content": [{"type": "text", "text": "hi"}]}),
        ),
        (
            serde_json::to_value(CallToolResult::error("no")).unwrap(),
            json!({"content": [{"type": "text", "text": "no"}], "isError": true}),
        ),
        (
            serde_json::to_value(ListToolsResult::default()).unwrap(),
            json!({"tools": []}),
        ),
        (
            serde_json::to_value(ListToolsParams::default()).unwrap(),
            json!({}),
        ),
        (
            serde_json::to_value(EmptyResult::default()).unwrap(),
            json!({}),
        ),
        (
            serde_json::to_value(Implementation::new("n", "1")).unwrap(),
            json!({"name": "n", "version": "1"}),
        ),
        (
            serde_json::to_value(ClientCapabilities::default()).unwrap(),
            json!({}),
        ),
        (
            serde_json::to_value(CallToolParams::new("t", JsonObject::new())).unwrap(),
            json!({"name": "t", "arguments": {}}),
        ),
        (
            serde_json::to_value(ContentBlock::image("AA==", "image/png")).unwrap(),
            json!({"type": "image", "data": "AA==", "mimeType": "image/png"}),
        ),
        (
            serde_json::to_value(ContentBlock::resource(ResourceContents::blob(
                "file:///b",
                "application/pdf",
                "AA==",
            )))
            .unwrap(),
            json!({"type": "resource", "resource": {"uri": "file:///b", "mimeType": "application/pdf", "blob": "AA=="}}),
        ),
        (
            serde_json::to_value(ErrorObject::invalid_params("bad")).unwrap(),
            json!({"code": -32602, "message": "bad"}),
        ),
        (
            serde_json::to_value(SubscriptionFilter::default()).unwrap(),
            json!({}),
        ),
    ];
    for (written, expected) in cases {
        assert_eq!(written, expected);
    }
    let minimal_tool: Tool =
        serde_json::from_value(json!({"name": "t", "inputSchema": {"type": "object"}})).unwrap();
    assert_eq!(
        serde_json::to_value(minimal_tool).unwrap(),
        json!({"name": "t", "inputSchema": {"type": "object"}})
    );
}

#[test]
fn meta_is_kept_whole_on_every_type_that_has_it() {
    let meta = json!({
        "progressToken": 5,
        "com.example/a": {"b": [1, 2.5, "x", null, true]},
        "io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1", "extra": 1}
    });
    let payloads = [
        ("CallToolParams", json!({"name": "t", "_meta": meta})),
        ("CallToolResult", json!({"content": [], "_meta": meta})),
        ("ListToolsParams", json!({"_meta": meta})),
        ("ListToolsResult", json!({"tools": [], "_meta": meta})),
        ("MetaParams", json!({"_meta": meta})),
        ("EmptyResult", json!({"_meta": meta})),
        ("NotificationMetaParams", json!({"_meta": meta})),
        (
            "ProgressParams",
            json!({"progressToken": 1, "progress": 1, "_meta": meta}),
        ),
        ("CancelledParams", json!({"requestId": 1, "_meta": meta})),
        (
            "LoggingMessageParams",
            json!({"level": "info", "data": 1, "_meta": meta}),
        ),
        ("SetLevelParams", json!({"level": "info", "_meta": meta})),
        (
            "InputRequiredResult",
            json!({"resultType": "input_required", "_meta": meta}),
        ),
    ];
    for (rust, payload) in payloads {
        let back = typed(rust, &payload).unwrap();
        assert_eq!(back["_meta"], meta, "{rust}");
    }
    let tool = json!({"name": "t", "inputSchema": {"type": "object"}, "_meta": meta});
    let back: Tool = serde_json::from_value(tool.clone()).unwrap();
    assert_eq!(serde_json::to_value(back).unwrap(), tool);
}

#[test]
fn unknown_members_are_ignored_without_error() {
    let extra = json!({"surprise": {"deep": [1]}});
    let add = |mut v: Value| {
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v
    };
    let payloads = [
        (
            "InitializeParams",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
        ),
        (
            "InitializeResult",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}),
        ),
        (
            "ListToolsResult",
            json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}),
        ),
        ("CallToolParams", json!({"name": "t"})),
        (
            "CallToolResult",
            json!({"content": [{"type": "text", "text": "x"}]}),
        ),
        (
            "DiscoverResult",
            json!({"resultType": "complete", "supportedVersions": [], "capabilities": {}, "ttlMs": 0, "cacheScope": "public"}),
        ),
        (
            "InputRequiredResult",
            json!({"resultType": "input_required", "requestState": "s"}),
        ),
        (
            "ProgressParams",
            json!({"progressToken": "p", "progress": 1}),
        ),
        ("CancelledParams", json!({"requestId": "r"})),
        (
            "LoggingMessageParams",
            json!({"level": "debug", "data": "d"}),
        ),
        (
            "SubscriptionsListenParams",
            json!({"notifications": {"toolsListChanged": true}}),
        ),
        ("ErrorObject", json!({"code": -32603, "message": "m"})),
        (
            "UnsupportedVersionData",
            json!({"supported": [], "requested": "x"}),
        ),
    ];
    for (rust, payload) in payloads {
        let back = typed(rust, &add(payload.clone())).unwrap_or_else(|e| panic!("{rust}: {e}"));
        assert_eq!(
            back, payload,
            "{rust}: the unknown member is dropped, the rest kept"
        );
    }
    // Unknown members inside content blocks and the tool definition, too.
    let block: ContentBlock = serde_json::from_value(
        json!({"type": "audio", "data": "AA==", "mimeType": "audio/wav", "x": 1}),
    )
    .unwrap();
    assert!(matches!(block, ContentBlock::Audio(_)));
    // An unknown content type is an error, not silently something else.
    assert!(
        serde_json::from_value::<ContentBlock>(json!({"type": "video", "data": "AA=="})).is_err()
    );
}

#[test]
fn ids_are_strings_or_integers_and_never_null() {
    for (text, id) in [
        (
            r#"{"jsonrpc":"2.0","id":"7","method":"ping"}"#,
            RequestId::String("7".into()),
        ),
        (
            r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#,
            RequestId::Number(7),
        ),
        (
            r#"{"jsonrpc":"2.0","id":-3,"method":"ping"}"#,
            RequestId::Number(-3),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"","method":"ping"}"#,
            RequestId::String(String::new()),
        ),
        (
            r#"{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}"#,
            RequestId::Number(i64::MAX),
        ),
    ] {
        let Message::Request(req) = Message::parse(text).unwrap() else {
            panic!("{text}: not a request");
        };
        assert_eq!(req.id, id, "{text}");
        // Written back with the same JSON type: "7" stays a string, 7 a number.
        let back = serde_json::to_value(&req).unwrap();
        let orig: Value = serde_json::from_str(text).unwrap();
        assert_eq!(back["id"], orig["id"], "{text}");
    }
    for bad in [
        r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1.0,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
    ] {
        let err = Message::parse(bad).unwrap_err();
        assert_eq!(err.to_response().error.code, code::INVALID_REQUEST, "{bad}");
    }
    // A request id inside params (notifications/cancelled) keeps its type too.
    for id in [json!("12"), json!(12)] {
        let back = typed("CancelledParams", &json!({"requestId": id})).unwrap();
        assert_eq!(back["requestId"], id);
    }
    assert!(
        serde_json::from_value::<CancelledParams>(json!({"requestId": null}))
            .unwrap()
            .request_id
            .is_none()
    );
    // An error response to unreadable input: id null or absent is read as None,
    // and written as null.
    for text in [
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#,
        r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"x"}}"#,
    ] {
        let Message::Error(e) = Message::parse(text).unwrap() else {
            panic!("{text}");
        };
        assert_eq!(e.id, None);
        assert_eq!(serde_json::to_value(&e).unwrap()["id"], Value::Null);
    }
    let resp = ErrorResponse::new(Some(RequestId::from("a")), ErrorObject::internal("x"));
    assert_eq!(serde_json::to_value(resp).unwrap()["id"], "a");
}

#[test]
fn progress_tokens_keep_their_json_type_end_to_end() {
    for token in [json!("42"), json!(42), json!(-1), json!("")] {
        let request = json!({
            "name": "t",
            "_meta": {
                meta::PROTOCOL_VERSION: "2026-07-28",
                meta::CLIENT_CAPABILITIES: {},
                meta::PROGRESS_TOKEN: token
            }
        });
        // Through CallToolParams untouched ...
        assert_eq!(typed("CallToolParams", &request).unwrap(), request);
        // ... read by RequestMeta ...
        let p: CallToolParams = serde_json::from_value(request).unwrap();
        let rm = RequestMeta::from_meta(p.meta.as_ref().unwrap()).unwrap();
        let tok = rm.progress_token.clone().unwrap();
        // ... and echoed in a progress notification with the same JSON type.
        let note = ProgressParams {
            progress_token: tok,
            progress: 1.0,
            total: None,
            message: None,
            meta: None,
        };
        assert_eq!(serde_json::to_value(&note).unwrap()["progressToken"], token);
        assert_eq!(rm.to_meta()[meta::PROGRESS_TOKEN], token);
    }
    assert_ne!(
        serde_json::from_value::<ProgressToken>(json!("1")).unwrap(),
        serde_json::from_value::<ProgressToken>(json!(1)).unwrap()
    );
}

#[test]
fn numbers_are_written_as_javascript_writes_them() {
    let p: ProgressParams =
        serde_json::from_value(json!({"progressToken": 1, "progress": 50, "total": 100.0}))
            .unwrap();
    assert_eq!(
        serde_json::to_string(&p).unwrap(),
        r#"{"progressToken":1,"progress":50,"total":100}"#
    );
    let p: ProgressParams =
        serde_json::from_value(json!({"progressToken": 1, "progress": 0.5, "total": 1e300}))
            .unwrap();
    let v = serde_json::to_value(&p).unwrap();
    assert_eq!(v["progress"], json!(0.5));
    assert_eq!(v["total"], json!(1e300));
    let a: Annotations = serde_json::from_value(json!({"priority": 1})).unwrap();
    assert_eq!(serde_json::to_value(a).unwrap(), json!({"priority": 1}));
    let a: Annotations = serde_json::from_value(json!({"priority": 0.0})).unwrap();
    assert_eq!(serde_json::to_value(a).unwrap(), json!({"priority": 0}));
}

#[test]
fn structured_content_may_be_any_json_value() {
    for value in [
        json!(null),
        json!([1, 2]),
        json!("text"),
        json!(3.5),
        json!(false),
        json!({}),
    ] {
        let result = json!({"content": [], "structuredContent": value});
        assert_eq!(typed("CallToolResult", &result).unwrap(), result);
    }
    let absent: CallToolResult = serde_json::from_value(json!({"content": []})).unwrap();
    assert_eq!(absent.structured_content, None);
}
