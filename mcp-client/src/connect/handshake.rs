//! The era handshake, the same for every transport: the `server/discover`
//! probe (2026-07-28), the legacy `initialize`, and the fallbacks between
//! them the spec describes. Transports only hear which era was chosen
//! (`Transport::set_era`, `Transport::initialized`).

use std::time::Duration;

use oxmcp_types::call::CallError;
use oxmcp_types::jsonrpc::code;
use oxmcp_types::modern::{meta as meta_key, UnsupportedVersionData};
use oxmcp_types::{
    method, ErrorObject, Implementation, JsonObject, Meta, ProtocolVersion, ServerCapabilities,
};
use serde::Deserialize;

use super::ClientBuilder;
use crate::connection::{legacy_list, SessionInfo};
use crate::connection::{Conn, Req};
use crate::error::{http_status, is_modern_code};
use crate::options::Era;

impl ClientBuilder {
    /// Agrees on an era with the server over `conn`, whatever its transport.
    pub(super) async fn handshake(&self, conn: &Conn) -> Result<SessionInfo, CallError> {
        if self.era != Era::Legacy {
            let wait = if self.era == Era::Auto {
                self.probe_timeout
            } else {
                self.connect_timeout
            };
            conn.transport.set_era(true);
            match discover(conn, wait).await? {
                Discovered::Modern(session) => return Ok(*session),
                Discovered::Legacy(why) if self.era == Era::Modern => return Err(not_modern(&why)),
                Discovered::Legacy(why) => {
                    tracing::debug!(%why, "not a 2026-07-28 server; trying initialize");
                }
            }
            conn.transport.set_era(false);
        }
        let session = match conn.initialize(self.connect_timeout).await {
            Ok(session) => session,
            // The probe's answer came late and the server already speaks the
            // modern era on this connection: ask again, patiently.
            Err(CallError::Protocol(e)) if self.era == Era::Auto && rejects_for_modern(&e) => {
                tracing::debug!("initialize refused for 2026-07-28; probing again");
                conn.transport.set_era(true);
                return match discover(conn, self.connect_timeout).await? {
                    Discovered::Modern(session) => Ok(*session),
                    Discovered::Legacy(_) => Err(CallError::Protocol(e)),
                };
            }
            Err(e) => return Err(e),
        };
        conn.transport.initialized(session.version);
        conn.notify(method::INITIALIZED, None).await?;
        conn.transport.opened().await;
        conn.renewal.enable(conn.transport.has_sessions());
        Ok(session)
    }
}

/// Whether an error (to `initialize`, or to a `server/discover` probe) says
/// the server speaks 2026-07-28.
fn rejects_for_modern(e: &ErrorObject) -> bool {
    e.code == code::UNSUPPORTED_PROTOCOL_VERSION
        && e.data
            .as_ref()
            .and_then(|d| UnsupportedVersionData::deserialize(d).ok())
            .is_some_and(|d| {
                d.supported
                    .iter()
                    .any(|v| v == ProtocolVersion::V2026_07_28.as_str())
            })
}

pub(super) fn not_modern(why: &str) -> CallError {
    CallError::Protocol(ErrorObject::new(
        code::UNSUPPORTED_PROTOCOL_VERSION,
        format!("the server does not speak protocol 2026-07-28 ({why})"),
    ))
}

/// What the `server/discover` probe found out.
enum Discovered {
    Modern(Box<SessionInfo>),
    /// Not a modern server (why, for the log).
    Legacy(String),
}

/// The fields of a `server/discover` result the client needs, read leniently.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Discover {
    supported_versions: Vec<String>,
    #[serde(default)]
    capabilities: ServerCapabilities,
    #[serde(default)]
    instructions: Option<String>,
    #[serde(rename = "_meta", default)]
    meta: Option<Meta>,
}

/// Probes with `server/discover` (modern `_meta`). Any answer that is not a
/// discover result or a recognized modern error, or no answer in time,
/// means a legacy server (the spec's stdio and HTTP fallback rules). A
/// server that refuses the version (-32022) while naming 2026-07-28 among
/// those it supports is asked once more with it, as SEP-2575 says a client
/// retries with a supported version.
async fn discover(conn: &Conn, wait: Duration) -> Result<Discovered, CallError> {
    match discover_once(conn, wait).await {
        Err(CallError::Protocol(e)) if rejects_for_modern(&e) => discover_once(conn, wait).await,
        other => other,
    }
}

async fn discover_once(conn: &Conn, wait: Duration) -> Result<Discovered, CallError> {
    let req = Req {
        timeout: Some(wait),
        // Nothing but `initialize` may follow at a legacy server.
        cancellable: false,
        ..Req::new(method::SERVER_DISCOVER, JsonObject::new(), true)
    };
    let legacy_versions = |supported: &[String]| {
        supported
            .iter()
            .any(|v| ProtocolVersion::parse(v).is_some_and(ProtocolVersion::is_legacy))
    };
    match conn.request(req).await {
        Ok(value) => {
            let Ok(d) = Discover::deserialize(&value) else {
                return Ok(Discovered::Legacy(
                    "server/discover returned something else than a discover result".into(),
                ));
            };
            if d.supported_versions
                .iter()
                .any(|v| v == ProtocolVersion::V2026_07_28.as_str())
            {
                let server_info = d
                    .meta
                    .as_ref()
                    .and_then(|m| m.get(meta_key::SERVER_INFO))
                    .and_then(|v| Implementation::deserialize(v).ok())
                    .unwrap_or_else(|| Implementation::new("", ""));
                Ok(Discovered::Modern(Box::new(SessionInfo {
                    version: ProtocolVersion::V2026_07_28,
                    server_info,
                    capabilities: d.capabilities,
                    instructions: d.instructions,
                })))
            } else if legacy_versions(&d.supported_versions) {
                Ok(Discovered::Legacy(format!(
                    "it supports {:?}",
                    d.supported_versions
                )))
            } else {
                Err(CallError::Protocol(ErrorObject::new(
                    code::UNSUPPORTED_PROTOCOL_VERSION,
                    format!(
                        "the server supports only {:?}; this client speaks 2026-07-28 and {}",
                        d.supported_versions,
                        legacy_list()
                    ),
                )))
            }
        }
        Err(CallError::Protocol(e)) if e.code == code::UNSUPPORTED_PROTOCOL_VERSION => {
            let supported = e
                .data
                .as_ref()
                .and_then(|d| UnsupportedVersionData::deserialize(d).ok())
                .map(|d| d.supported)
                .unwrap_or_default();
            if legacy_versions(&supported) {
                Ok(Discovered::Legacy(format!("it supports {supported:?}")))
            } else {
                Err(CallError::Protocol(e))
            }
        }
        Err(CallError::Protocol(e)) if is_modern_code(e.code) => Err(CallError::Protocol(e)),
        Err(CallError::Protocol(e)) => Ok(Discovered::Legacy(format!(
            "server/discover failed with {}: {}",
            e.code, e.message
        ))),
        Err(CallError::Timeout(d)) => Ok(Discovered::Legacy(format!(
            "no answer to server/discover within {d:?}"
        ))),
        Err(e) => match http_status(&e) {
            Some(s) if s.status.is_client_error() && !s.modern_error => Ok(Discovered::Legacy(
                oxmcp_types::error::Chain(&e).to_string(),
            )),
            _ => Err(e),
        },
    }
}
