//! Which era a request is served in, decided once for every transport: the
//! 2026-07-28 era when its `params._meta` names a protocol version (checked
//! here), the connection's legacy session otherwise.

use oxmcp_types::jsonrpc::code;
use oxmcp_types::jsonrpc::RawJson;
use oxmcp_types::modern::{MetaError, RawRequestMeta, RequestMeta, UnsupportedVersionData};
use oxmcp_types::{ErrorObject, ProtocolVersion};
use oxmcp_wire::route::is_object;
use oxmcp_wire::sync::lock;
use serde::Deserialize;
use serde_json::Value;

use super::session::{LegacyState, Session};

/// Which era a request is served in.
pub(super) enum Era {
    Legacy(LegacyState),
    Modern(Box<RequestMeta>),
}

impl Era {
    pub(super) fn version(&self) -> ProtocolVersion {
        match self {
            Era::Legacy(s) => s.version,
            Era::Modern(_) => ProtocolVersion::V2026_07_28,
        }
    }

    /// What the client declared: at `initialize`, or in this request's `_meta`.
    pub(super) fn client_capabilities(&self) -> &oxmcp_types::ClientCapabilities {
        match self {
            Era::Legacy(s) => &s.client_capabilities,
            Era::Modern(m) => &m.client_capabilities,
        }
    }
}

/// Parses params and decides the era: modern when `_meta` names a protocol
/// version, else the session's legacy state (which must exist).
pub(super) fn era_of<'a, P: Deserialize<'a> + Default>(
    session: &Session,
    raw: Option<RawJson<'a>>,
    modern: impl FnOnce(&P) -> Option<Result<RequestMeta, MetaError>>,
) -> Result<(P, Era), ErrorObject> {
    let p = params(raw)?;
    let era = era_for(session, &p, modern)?;
    Ok((p, era))
}

/// Decides the era of a request whose params `p` are read: modern when
/// `modern(&p)` says so, else the session's legacy state (which must exist).
pub(super) fn era_for<P>(
    session: &Session,
    p: &P,
    modern: impl FnOnce(&P) -> Option<Result<RequestMeta, MetaError>>,
) -> Result<Era, ErrorObject> {
    era_from(session, modern(p))
}

/// [`era_for`] once the params' modern fields are read (`None`: not modern).
fn era_from(
    session: &Session,
    modern: Option<Result<RequestMeta, MetaError>>,
) -> Result<Era, ErrorObject> {
    let era = match modern {
        Some(read) => Era::Modern(Box::new(check_modern(read)?)),
        None => match lock(&session.legacy).clone() {
            Some(state) => Era::Legacy(state),
            None => {
                return Err(ErrorObject::invalid_request(
                    "the session is not initialized: send `initialize` first, or use the \
                     2026-07-28 `_meta` protocol fields (see `server/discover`)",
                ))
            }
        },
    };
    Ok(era)
}

pub(super) fn params<'a, T: Deserialize<'a> + Default>(
    raw: Option<RawJson<'a>>,
) -> Result<T, ErrorObject> {
    match raw {
        None => Ok(T::default()),
        Some(raw) => required_params(Some(raw)),
    }
}

pub(super) fn required_params<'a, T: Deserialize<'a>>(
    raw: Option<RawJson<'a>>,
) -> Result<T, ErrorObject> {
    serde_json::from_str(params_text(raw)?).map_err(|e| invalid_params(&e))
}

/// The text of params that must be there, as an object.
fn params_text(raw: Option<RawJson<'_>>) -> Result<&str, ErrorObject> {
    let raw = raw.ok_or_else(|| ErrorObject::invalid_params("missing params"))?;
    // MCP names its params: JSON-RPC's by-position array is not a form of
    // them (serde would read one into a struct field by field).
    if !is_object(raw) {
        return Err(ErrorObject::invalid_params("params must be a JSON object"));
    }
    Ok(raw.get())
}

/// -32602 for params that do not read as their type.
fn invalid_params(e: &serde_json::Error) -> ErrorObject {
    ErrorObject::invalid_params(format!("invalid params: {e}"))
}

/// Whether raw params carry the modern `_meta` protocol version.
pub(super) fn is_modern_request(raw: Option<RawJson<'_>>) -> bool {
    oxmcp_wire::route::Peek::read(raw).is_modern()
}

/// The modern protocol fields of a raw `_meta`, if it names a version.
pub(super) fn raw_modern(
    meta: Option<&RawRequestMeta<'_>>,
) -> Option<Result<RequestMeta, MetaError>> {
    meta.filter(|m| m.is_modern()).map(RawRequestMeta::read)
}

/// Checks a modern request's `_meta` as read: required fields (-32602) and a
/// supported modern version (-32022 with the supported list).
pub(super) fn check_modern(
    read: Result<RequestMeta, MetaError>,
) -> Result<RequestMeta, ErrorObject> {
    let rm = read.map_err(|e| ErrorObject::invalid_params(e.to_string()))?;
    match ProtocolVersion::parse(&rm.protocol_version) {
        Some(v) if !v.is_legacy() => Ok(rm),
        _ => Err(ErrorObject::new(
            code::UNSUPPORTED_PROTOCOL_VERSION,
            format!("unsupported protocol version: {}", rm.protocol_version),
        )
        .with_data(
            serde_json::to_value(UnsupportedVersionData {
                supported: ProtocolVersion::MODERN
                    .iter()
                    .map(|v| v.as_str().to_owned())
                    .collect(),
                requested: rm.protocol_version,
            })
            .unwrap_or(Value::Null),
        )),
    }
}
