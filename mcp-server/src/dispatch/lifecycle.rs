//! The lifecycle: `initialize` and `ping` (legacy era), `server/discover`
//! (2026-07-28), and `logging/setLevel` (legacy; the modern era sends the
//! level in every request's `_meta`).

use std::sync::Arc;

use oxmcp_types::jsonrpc::RawJson;
#[cfg(feature = "http")]
use oxmcp_types::jsonrpc::RawMessage;
use oxmcp_types::jsonrpc::Response;
use oxmcp_types::lifecycle::{EmptyResult, MetaParams};
use oxmcp_types::modern::{meta as meta_key, RawRequestMeta, RequestMeta};
use oxmcp_types::notification::SetLevelParams;
use oxmcp_types::{
    method, CacheScope, DiscoverResult, ErrorObject, InitializeParams, InitializeResult,
    JsonObject, ProtocolVersion, RequestId, ResultType, ServerCapabilities,
};
use oxmcp_wire::sync::lock;
use serde_json::Value;

use super::era::{
    check_modern, era_of, is_modern_request, params, raw_modern, required_params, Era,
};
use super::session::{LegacyState, Session};
use super::{encode, failed, Capability, Outcome, Reply, Request, ServerCore};

/// Whether `msg` opens a legacy session (`initialize`): what a transport
/// that keeps sessions of its own (HTTP, with `Mcp-Session-Id`) asks before
/// it looks for the session a message names.
#[cfg(feature = "http")]
pub(crate) fn opens_session(msg: &RawMessage<'_>) -> bool {
    matches!(msg, RawMessage::Request { method, .. } if method == method::INITIALIZE)
}

/// Whether `msg`, arriving on `session`, may be owed to another instance
/// serving the same session: a response (or error) to a request this one
/// did not send, or a cancellation (the call may run elsewhere). What the
/// bus between instances forwards.
#[cfg(feature = "http")]
pub(crate) fn owed_elsewhere(session: &Session, msg: &RawMessage<'_>) -> bool {
    match msg {
        RawMessage::Response { id, .. } | RawMessage::Error { id: Some(id), .. } => {
            !session.pending.waits_for(id)
        }
        RawMessage::Notification {
            method,
            params: Some(_),
        } => method == method::CANCELLED,
        _ => false,
    }
}

/// The lifecycle requests, answered the same on every transport, and the
/// instructions the handshake and discovery give the client.
pub(crate) struct Lifecycle {
    instructions: Option<String>,
}

impl Lifecycle {
    pub(super) fn new(instructions: Option<String>) -> Lifecycle {
        Lifecycle { instructions }
    }
}

impl Capability for Lifecycle {
    fn methods(&self) -> &'static [&'static str] {
        &[
            method::INITIALIZE,
            method::PING,
            method::LOGGING_SET_LEVEL,
            method::SERVER_DISCOVER,
        ]
    }

    /// `logging`: `logging/setLevel` is answered here.
    fn declare(&self, declared: &mut ServerCapabilities) {
        declared.logging = Some(JsonObject::new());
    }

    fn request<'a>(
        &self,
        core: &Arc<ServerCore>,
        req: Request<'a>,
    ) -> Result<Outcome, Request<'a>> {
        let reply = match req.method {
            // Removed in 2026-07-28: a modern request names no handshake, and
            // no ping. In the legacy era a client may ping even before
            // `initialize` is answered.
            method::INITIALIZE | method::PING if is_modern_request(req.params) => {
                Err(ErrorObject::method_not_found(req.method))
            }
            method::INITIALIZE => self.initialize(core, req.session, &req.id, req.params),
            method::PING => params::<MetaParams>(req.params)
                .map(|_| encode(&Response::new(req.id.clone(), EmptyResult::default()))),
            method::LOGGING_SET_LEVEL => set_level(req.session, &req.id, req.params),
            method::SERVER_DISCOVER => self.discover(core, &req.id, req.params),
            _ => return Err(req),
        };
        Ok(match reply {
            Ok(bytes) => Outcome::Reply(bytes),
            Err(e) => failed(req.id, e),
        })
    }
}

impl Lifecycle {
    fn initialize(
        &self,
        core: &ServerCore,
        session: &Session,
        id: &RequestId,
        raw: Option<RawJson<'_>>,
    ) -> Reply {
        let p: InitializeParams = required_params(raw)?;
        let version = ProtocolVersion::negotiate_legacy(&p.protocol_version);
        tracing::info!(
            client = %p.client_info.name,
            requested = %p.protocol_version,
            negotiated = %version,
            "initialize"
        );
        *lock(&session.legacy) = Some(LegacyState {
            version,
            log_level: None,
            client_capabilities: Arc::new(p.capabilities),
            client: Arc::new(p.client_info.clone()),
        });
        Ok(encode(&Response::new(
            id.clone(),
            InitializeResult {
                protocol_version: version,
                capabilities: core.declared.clone(),
                server_info: core.info.clone(),
                instructions: self.instructions.clone(),
                meta: None,
            },
        )))
    }

    fn discover(&self, core: &ServerCore, id: &RequestId, raw: Option<RawJson<'_>>) -> Reply {
        let p: MetaParams = params(raw)?;
        let m = p.meta.as_ref().ok_or_else(|| {
            ErrorObject::invalid_params(format!(
                "missing `_meta[\"{}\"]`",
                meta_key::PROTOCOL_VERSION
            ))
        })?;
        check_modern(RequestMeta::from_meta(m))?;
        Ok(encode(&Response::new(
            id.clone(),
            DiscoverResult {
                result_type: ResultType::Complete,
                supported_versions: ProtocolVersion::ALL
                    .iter()
                    .map(|v| v.as_str().to_owned())
                    .collect(),
                capabilities: core.declared.clone(),
                instructions: self.instructions.clone(),
                ttl_ms: core.list_ttl_ms,
                cache_scope: CacheScope::Public,
                meta: Some(core.complete_meta()),
            },
        )))
    }
}

fn set_level(session: &Session, id: &RequestId, raw: Option<RawJson<'_>>) -> Reply {
    let (p, era) = era_of::<SetLevelParamsOpt<'_>>(session, raw, |p| raw_modern(p.meta.as_ref()))?;
    if let Era::Modern(_) = era {
        return Err(ErrorObject::method_not_found(method::LOGGING_SET_LEVEL));
    }
    let level: SetLevelParams = match p.level {
        Some(_) => required_params(raw)?,
        None => return Err(ErrorObject::invalid_params("missing `level`")),
    };
    if let Some(state) = lock(&session.legacy).as_mut() {
        state.log_level = Some(level.level);
        session.mark_changed();
    }
    Ok(encode(&Response::new(id.clone(), EmptyResult::default())))
}

/// `logging/setLevel` params read leniently first, to route by era before validating.
#[derive(serde::Deserialize, Default)]
struct SetLevelParamsOpt<'a> {
    #[serde(default)]
    level: Option<Value>,
    #[serde(rename = "_meta", default, borrow)]
    meta: Option<RawRequestMeta<'a>>,
}
