//! The legacy session: what `initialize` agreed on, and opening a new one
//! when the server ends it (HTTP 404 to a request in the session, as the
//! spec says: the client MUST start a new session). Both are decisions of
//! the connection core; Streamable HTTP only reports the 404.

use std::sync::atomic::Ordering;
use std::time::Duration;

use oxmcp_types::call::{BoxFuture, CallError};
use oxmcp_types::jsonrpc::code;
use oxmcp_types::{
    method, ErrorObject, Implementation, InitializeParams, InitializeResult, JsonObject,
    ProtocolVersion, ServerCapabilities,
};
use serde_json::Value;

use crate::connection::{Conn, Req};

/// What the handshake agreed on.
#[derive(Debug, Clone)]
pub(crate) struct SessionInfo {
    pub(crate) version: ProtocolVersion,
    pub(crate) server_info: Implementation,
    pub(crate) capabilities: ServerCapabilities,
    pub(crate) instructions: Option<String>,
}

impl Conn {
    /// The legacy `initialize` request, answered within `timeout`.
    pub(crate) async fn initialize(&self, timeout: Duration) -> Result<SessionInfo, CallError> {
        let params = initialize_params(self);
        let req = Req {
            timeout: Some(timeout),
            cancellable: false,
            ..Req::new(method::INITIALIZE, params, false)
        };
        let value = self.request(req).await?;
        let chosen = value
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        if !ProtocolVersion::parse(&chosen).is_some_and(ProtocolVersion::is_legacy) {
            return Err(CallError::Protocol(ErrorObject::new(
                code::INVALID_PARAMS,
                format!(
                    "the server chose protocol version `{chosen}`, which this client does not speak (it speaks {})",
                    legacy_list()
                ),
            )));
        }
        let result: InitializeResult = serde_json::from_value(value).map_err(|e| {
            CallError::Protocol(ErrorObject::internal(format!(
                "the server sent a malformed initialize result: {e}"
            )))
        })?;
        #[cfg(feature = "otel")]
        self.clock
            .opened(result.protocol_version, self.transport.network());
        Ok(SessionInfo {
            version: result.protocol_version,
            server_info: result.server_info,
            capabilities: result.capabilities,
            instructions: result.instructions,
        })
    }

    /// Opens a new legacy session after the server ended the one of
    /// generation `seen`: `initialize` again, `notifications/initialized`,
    /// and the transport's streams. Concurrent callers renew once.
    pub(crate) fn renew(&self, seen: u64) -> BoxFuture<'_, Result<(), CallError>> {
        Box::pin(async move {
            let _one = self.renewal.one_at_a_time.lock().await;
            if self.renewal.generation.load(Ordering::Acquire) != seen {
                return Ok(()); // another request already did it
            }
            tracing::info!("the server ended the session (HTTP 404); initializing a new one");
            let session = self.initialize(self.config.timeout).await?;
            self.transport.initialized(session.version);
            self.notify(method::INITIALIZED, None).await?;
            self.transport.opened().await;
            self.renewal.generation.fetch_add(1, Ordering::AcqRel);
            Ok(())
        })
    }
}

/// The params of `initialize`: the newest legacy revision, the
/// capabilities that have handlers, `clientInfo`.
fn initialize_params(conn: &Conn) -> JsonObject {
    let params = InitializeParams {
        protocol_version: ProtocolVersion::LATEST_LEGACY.as_str().to_owned(),
        capabilities: conn.config.capabilities.clone(),
        client_info: conn.config.client_info.clone(),
        meta: None,
    };
    match serde_json::to_value(params) {
        Ok(Value::Object(map)) => map,
        _ => JsonObject::new(),
    }
}

pub(crate) fn legacy_list() -> String {
    ProtocolVersion::LEGACY
        .iter()
        .map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}
