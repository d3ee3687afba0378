//! The modern era (2026-07-28): `_meta` protocol fields, `resultType`, caching
//! hints, `subscriptions/listen`, and `input_required` results (MRTR).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::lifecycle::{ClientCapabilities, Implementation};
use crate::notification::{LoggingLevel, ProgressToken};
use crate::{JsonObject, Meta};

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

/// Whether a result is final or asks the client for input first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultType {
    /// The request is answered.
    Complete,
    /// The client must gather input and retry (MRTR).
    InputRequired,
}

/// Who may share a cached result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Any client may reuse it.
    Public,
    /// Only the client that asked.
    Private,
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
        let field = |key: &str| m.get(key).filter(|v| !v.is_null());
        let protocol_version = match field(meta::PROTOCOL_VERSION) {
            Some(Value::String(s)) => s.clone(),
            Some(_) => {
                return Err(MetaError(format!(
                    "`_meta[\"{}\"]` must be a string",
                    meta::PROTOCOL_VERSION
                )))
            }
            None => {
                return Err(MetaError(format!(
                    "missing `_meta[\"{}\"]`",
                    meta::PROTOCOL_VERSION
                )))
            }
        };
        let client_capabilities = match field(meta::CLIENT_CAPABILITIES) {
            Some(v) => ClientCapabilities::deserialize(v).map_err(|e| {
                MetaError(format!(
                    "invalid `_meta[\"{}\"]`: {e}",
                    meta::CLIENT_CAPABILITIES
                ))
            })?,
            None => {
                return Err(MetaError(format!(
                    "missing `_meta[\"{}\"]`",
                    meta::CLIENT_CAPABILITIES
                )))
            }
        };
        // clientInfo SHOULD be sent but servers must not require it: a malformed one is ignored.
        let client_info =
            field(meta::CLIENT_INFO).and_then(|v| Implementation::deserialize(v).ok());
        let log_level = match field(meta::LOG_LEVEL) {
            Some(v) => Some(LoggingLevel::deserialize(v).map_err(|e| {
                MetaError(format!("invalid `_meta[\"{}\"]`: {e}", meta::LOG_LEVEL))
            })?),
            None => None,
        };
        let progress_token = match field(meta::PROGRESS_TOKEN) {
            Some(v) => Some(
                ProgressToken::deserialize(v)
                    .map_err(|e| MetaError(format!("invalid `_meta[\"progressToken\"]`: {e}")))?,
            ),
            None => None,
        };
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
}
