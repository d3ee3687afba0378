//! The modern era (2026-07-28): `_meta` protocol fields, `resultType`, caching
//! hints, `subscriptions/listen`, and `input_required` results (MRTR).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::jsonrpc::RawJson;
use crate::lifecycle::{ClientCapabilities, Implementation};
use crate::notification::{LoggingLevel, ProgressToken};
use crate::{JsonObject, Meta};

pub use crate::base::{CacheScope, ResultType};

/// Reserved `_meta` keys.
pub mod meta {
    /// Request: the protocol version of this request (required in 2026-07-28).
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// Request: the client's capabilities (required in 2026-07-28).
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// Request: the client's name and version (should be present; never required).
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// Request: the least severe log level the client wants for this request.
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// Request: the token to report progress against.
    pub const PROGRESS_TOKEN: &str = "progressToken";
    /// Result: the server's name and version.
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// Listen streams: the id of the `subscriptions/listen` request.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
}

/// The protocol fields of a modern request's `_meta`, read once.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestMeta {
    /// `io.modelcontextprotocol/protocolVersion`, as sent.
    pub protocol_version: String,
    /// `io.modelcontextprotocol/clientCapabilities`.
    pub client_capabilities: ClientCapabilities,
    /// `io.modelcontextprotocol/clientInfo`, when sent.
    pub client_info: Option<Implementation>,
    /// `io.modelcontextprotocol/logLevel`: logging is off for the request without it.
    pub log_level: Option<LoggingLevel>,
    /// `progressToken`, when sent.
    pub progress_token: Option<ProgressToken>,
}

/// Why a `_meta` object does not hold valid modern protocol fields.
///
/// A leaf error: the message says everything and `source()` is `None`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaError(pub String);

impl std::fmt::Display for MetaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MetaError {}

impl RequestMeta {
    /// Whether `meta` marks a modern-era request (it names a protocol version).
    pub fn is_modern(meta: Option<&Meta>) -> bool {
        meta.is_some_and(|m| m.contains_key(meta::PROTOCOL_VERSION))
    }

    /// Reads the protocol fields of a modern request.
    ///
    /// # Errors
    ///
    /// A missing or malformed required field (the caller answers -32602).
    pub fn from_meta(m: &Meta) -> Result<RequestMeta, MetaError> {
        Self::read(m)
    }

    /// The one reading of the protocol fields, from a map or from raw text.
    fn read(fields: &impl Fields) -> Result<RequestMeta, MetaError> {
        let missing = |key: &str| MetaError(format!("missing `_meta[\"{key}\"]`"));
        let invalid = |key: &str, e: String| MetaError(format!("invalid `_meta[\"{key}\"]`: {e}"));
        let protocol_version = fields
            .field::<String>(meta::PROTOCOL_VERSION)
            .ok_or_else(|| missing(meta::PROTOCOL_VERSION))?
            .map_err(|_| {
                MetaError(format!(
                    "`_meta[\"{}\"]` must be a string",
                    meta::PROTOCOL_VERSION
                ))
            })?;
        let client_capabilities = fields
            .field::<ClientCapabilities>(meta::CLIENT_CAPABILITIES)
            .ok_or_else(|| missing(meta::CLIENT_CAPABILITIES))?
            .map_err(|e| invalid(meta::CLIENT_CAPABILITIES, e))?;
        // clientInfo SHOULD be sent but servers must not require it: a malformed one is ignored.
        let client_info = fields
            .field::<Implementation>(meta::CLIENT_INFO)
            .and_then(Result::ok);
        let log_level = fields
            .field::<LoggingLevel>(meta::LOG_LEVEL)
            .transpose()
            .map_err(|e| invalid(meta::LOG_LEVEL, e))?;
        let progress_token = fields
            .field::<ProgressToken>(meta::PROGRESS_TOKEN)
            .transpose()
            .map_err(|e| invalid(meta::PROGRESS_TOKEN, e))?;
        Ok(RequestMeta {
            protocol_version,
            client_capabilities,
            client_info,
            log_level,
            progress_token,
        })
    }

    /// Writes these fields into a `_meta` object (what a client sends).
    pub fn to_meta(&self) -> Meta {
        let mut m = Meta::new();
        m.insert(
            meta::PROTOCOL_VERSION.into(),
            Value::String(self.protocol_version.clone()),
        );
        m.insert(
            meta::CLIENT_CAPABILITIES.into(),
            serde_json::to_value(&self.client_capabilities).unwrap_or_default(),
        );
        if let Some(info) = &self.client_info {
            m.insert(
                meta::CLIENT_INFO.into(),
                serde_json::to_value(info).unwrap_or_default(),
            );
        }
        if let Some(level) = self.log_level {
            m.insert(meta::LOG_LEVEL.into(), Value::String(level.as_str().into()));
        }
        if let Some(token) = &self.progress_token {
            m.insert(
                meta::PROGRESS_TOKEN.into(),
                serde_json::to_value(token).unwrap_or_default(),
            );
        }
        m
    }
}

/// Where the protocol fields are read from: a parsed `_meta` map, or the
/// raw text of each field. A `null` field counts as absent.
trait Fields {
    fn field<T: DeserializeOwned>(&self, key: &str) -> Option<Result<T, String>>;
}

impl Fields for Meta {
    fn field<T: DeserializeOwned>(&self, key: &str) -> Option<Result<T, String>> {
        self.get(key)
            .filter(|v| !v.is_null())
            .map(|v| T::deserialize(v).map_err(|e| e.to_string()))
    }
}

/// A request's `_meta` read on arrival without building a map: the protocol
/// fields are kept as raw JSON text and read once by [`RawRequestMeta::read`];
/// every other key is skipped. For servers, on the hot path of each call.
#[derive(Debug, Default)]
pub struct RawRequestMeta<'a> {
    /// The text of each of [`RAW_FIELDS`], when present (even as `null`).
    fields: [Option<RawJson<'a>>; RAW_FIELDS.len()],
}

/// The protocol fields [`RawRequestMeta`] keeps.
const RAW_FIELDS: [&str; 5] = [
    meta::PROTOCOL_VERSION,
    meta::CLIENT_CAPABILITIES,
    meta::CLIENT_INFO,
    meta::LOG_LEVEL,
    meta::PROGRESS_TOKEN,
];

impl<'de: 'a, 'a> Deserialize<'de> for RawRequestMeta<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Fields<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Fields<'a> {
            type Value = RawRequestMeta<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a `_meta` object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Self::Value, M::Error> {
                let mut m = RawRequestMeta::default();
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    let value: &'de RawValue = map.next_value()?;
                    if let Some(slot) = m.slot(&key) {
                        // A field that is there even as `null`, unlike a plain `Option`.
                        if slot.replace(RawJson::from(value)).is_some() {
                            return Err(serde::de::Error::custom(format_args!(
                                "duplicate field `{key}`"
                            )));
                        }
                    }
                }
                Ok(m)
            }
        }
        d.deserialize_map(Fields(std::marker::PhantomData))
    }
}

impl<'a> RawRequestMeta<'a> {
    /// The fast path: reads `_meta` with the scanner; `None` when it
    /// declines, or when a protocol field is repeated (its reference, the
    /// `Deserialize` impl, names both errors). Equivalence:
    /// `tests::read_fast_matches_deserialize`.
    pub fn read_fast(raw: RawJson<'a>) -> Option<Self> {
        let mut m = RawRequestMeta::default();
        let mut repeated = false;
        raw.members(|key, value| {
            if let Some(slot) = m.slot(key) {
                repeated |= slot.replace(value).is_some();
            }
        })?;
        (!repeated).then_some(m)
    }

    /// Where the protocol field `key` goes; `None` for other keys.
    fn slot(&mut self, key: &str) -> Option<&mut Option<RawJson<'a>>> {
        let i = RAW_FIELDS.iter().position(|k| *k == key)?;
        Some(&mut self.fields[i])
    }

    /// Whether this marks a modern-era request (it names a protocol version),
    /// as [`RequestMeta::is_modern`].
    pub fn is_modern(&self) -> bool {
        // `RAW_FIELDS[0]` is the protocol version.
        self.fields[0].is_some()
    }

    /// Reads the protocol fields of a modern request, as [`RequestMeta::from_meta`].
    ///
    /// # Errors
    ///
    /// A missing or malformed required field (the caller answers -32602).
    pub fn read(&self) -> Result<RequestMeta, MetaError> {
        RequestMeta::read(self)
    }

    /// `progressToken`, when present and well-formed (in either era).
    pub fn progress_token(&self) -> Option<ProgressToken> {
        self.field(meta::PROGRESS_TOKEN).and_then(Result::ok)
    }
}

impl Fields for RawRequestMeta<'_> {
    fn field<T: DeserializeOwned>(&self, key: &str) -> Option<Result<T, String>> {
        let i = RAW_FIELDS.iter().position(|k| *k == key)?;
        self.fields[i]
            .filter(|r| r.get() != "null")
            .map(|r| serde_json::from_str(r.get()).map_err(|e| e.to_string()))
    }
}

/// What a `subscriptions/listen` stream should carry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// `notifications/resources/updated` for these URIs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// `notifications/tasks` for these tasks (the tasks extension).
    #[serde(rename = "taskIds", default, skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
}

/// Parameters of `subscriptions/listen`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsListenParams {
    /// What to listen for.
    pub notifications: SubscriptionFilter,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Parameters of `notifications/subscriptions/acknowledged`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsAcknowledgedParams {
    /// The filter the server agreed to (what it will send).
    pub notifications: SubscriptionFilter,
    /// Carries `io.modelcontextprotocol/subscriptionId`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// One request the client must fulfil before retrying (`elicitation/create`,
/// `sampling/createMessage` or `roots/list`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputRequest {
    /// The method the client should run locally.
    pub method: String,
    /// Its parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

/// An `input_required` result (MRTR): the client gathers the inputs and
/// retries the same request with `inputResponses` and the echoed `requestState`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// Always `input_required`.
    pub result_type: ResultType,
    /// The inputs, by key; the retry answers each key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<std::collections::BTreeMap<String, InputRequest>>,
    /// Opaque state to echo in the retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Data of a -32022 error: what the server speaks and what was asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnsupportedVersionData {
    /// Versions the server supports.
    pub supported: Vec<String>,
    /// The version the client asked for.
    pub requested: String,
}

/// Data of a -32021 error: the capabilities the request needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingCapabilityData {
    /// A `ClientCapabilities` object naming what is missing, e.g. `{"sampling":{}}`.
    pub required_capabilities: JsonObject,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_required_fields_and_reports_missing_ones() {
        let m: Meta = serde_json::from_value(json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"sampling": {}},
            "io.modelcontextprotocol/logLevel": "info",
            "progressToken": 7
        }))
        .unwrap();
        assert!(RequestMeta::is_modern(Some(&m)));
        let rm = RequestMeta::from_meta(&m).unwrap();
        assert_eq!(rm.protocol_version, "2026-07-28");
        assert!(rm.client_capabilities.sampling.is_some());
        assert_eq!(rm.log_level, Some(LoggingLevel::Info));
        assert_eq!(RequestMeta::from_meta(&rm.to_meta()).unwrap(), rm);

        let m: Meta = serde_json::from_value(
            json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"}),
        )
        .unwrap();
        let err = RequestMeta::from_meta(&m).unwrap_err();
        assert!(err.0.contains("clientCapabilities"), "{err}");
    }

    /// The raw reading agrees with the map reading, field for field and
    /// error for error; `null` counts as absent in both, but a `null`
    /// version still marks the request modern (and is then missing).
    #[test]
    fn raw_reading_agrees_with_the_map() {
        let cases = [
            json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
                "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
                "io.modelcontextprotocol/logLevel": "debug",
                "progressToken": "p-1",
                "other": {"deep": [1, 2, 3]}
            }),
            json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": 42,
                "io.modelcontextprotocol/logLevel": null,
                "progressToken": null
            }),
            json!({"io.modelcontextprotocol/protocolVersion": null}),
            json!({"io.modelcontextprotocol/protocolVersion": 7}),
            json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": []
            }),
            json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/logLevel": "loud"
            }),
            json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "progressToken": {"not": "a token"}
            }),
            json!({"progressToken": 3}),
        ];
        for case in cases {
            let map: Meta = serde_json::from_value(case.clone()).unwrap();
            let text = case.to_string();
            let raw: RawRequestMeta<'_> = serde_json::from_str(&text).unwrap();
            assert_eq!(
                raw.is_modern(),
                RequestMeta::is_modern(Some(&map)),
                "{case}"
            );
            let (from_raw, from_map) = (raw.read(), RequestMeta::from_meta(&map));
            match (&from_raw, &from_map) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{case}"),
                // serde_json places its errors in the text it read: compare up to that.
                (Err(a), Err(b)) => {
                    let head = |e: &MetaError| e.0.split(" at line").next().unwrap().to_owned();
                    assert_eq!(head(a), head(b), "{case}");
                }
                _ => panic!("{case}: raw {from_raw:?}, map {from_map:?}"),
            }
        }
        let raw: RawRequestMeta<'_> = serde_json::from_str(r#"{"progressToken": 3}"#).unwrap();
        assert_eq!(raw.progress_token(), Some(ProgressToken::Number(3.into())));
    }

    #[test]
    fn read_fast_matches_deserialize() {
        let corpus = [
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#,
            r#"{"progressToken":7,"other":[1,{"x":null}],"io.modelcontextprotocol/logLevel":"debug"}"#,
            r#"{"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"progressToken":null}"#,
            "{}",
            r#" { "progressToken" : "t" } "#,
            // Declined by the scanner: serde reads them (or names the error).
            r#"{"progressToken":1,"progressToken":2}"#,
            r#"{"progress\u0054oken":1}"#,
            r#""not an object""#,
            "[]",
        ];
        let mut scanned = 0;
        for text in corpus {
            let raw: &RawValue = serde_json::from_str(text).unwrap();
            let serde = serde_json::from_str::<RawRequestMeta<'_>>(raw.get());
            if let Some(ours) = RawRequestMeta::read_fast(RawJson::from(raw)) {
                scanned += 1;
                let serde = serde.unwrap_or_else(|e| panic!("{text}: scanned, but serde says {e}"));
                assert_eq!(format!("{ours:?}"), format!("{serde:?}"), "{text}");
            }
        }
        assert_eq!(scanned, 5);
    }
}
