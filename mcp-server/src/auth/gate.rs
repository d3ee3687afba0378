//! What the HTTP transport knows of authorization: a [`Gate`] checks a
//! request's credentials before MCP sees it, and leaves [`Verified`] on a
//! request it let through. The transport asks these and nothing else, so
//! it is the same with and without the `auth` feature, whose
//! [`Authorization`](crate::auth::Authorization) is the one gate (directly,
//! or as the tower [`AuthLayer`](crate::auth::AuthLayer) in front).

use std::sync::Arc;

use http::{HeaderMap, Method, StatusCode, Uri};

use super::Identity;
use crate::state::Store;

/// An HTTP answer made whole: status, headers, body.
pub(crate) type Answer = (StatusCode, HeaderMap, Vec<u8>);

/// Checks an HTTP request's credentials before MCP sees it.
pub(crate) trait Gate: Send + Sync + std::fmt::Debug {
    /// The answer to a request the gate answers itself (its metadata at
    /// the well-known paths), `None` for any other.
    fn answer(&self, method: &Method, path: &str) -> Option<Answer>;

    /// Checks the request's credentials: who it speaks for, or the refusal.
    /// With `store` (the one the instances of a service share), what must
    /// be used once (a DPoP proof) is claimed there.
    fn verify<'a>(
        &'a self,
        method: &'a Method,
        uri: &'a Uri,
        headers: &'a HeaderMap,
        store: Option<&'a dyn Store>,
    ) -> oxmcp_types::call::BoxFuture<'a, Result<Verified, Answer>>;

    /// The step-up answer (403) for a request whose token lacks `needed`;
    /// a `DPoP` challenge when the token came with that scheme (`dpop`).
    fn insufficient_scope(&self, dpop: bool, needed: &[&str]) -> Answer;
}

/// What a gate leaves on a request it let through (in its extensions).
#[derive(Clone)]
pub(crate) struct Verified {
    pub(crate) identity: Arc<Identity>,
    /// The gate that let it through: what refuses it a step further.
    pub(crate) gate: Arc<dyn Gate>,
    /// The token's SHA-256: what owns a session opened by a token that
    /// names neither a subject nor a client.
    pub(crate) token: [u8; 32],
    /// Whether the token came with the `DPoP` scheme (and a proof).
    pub(crate) dpop: bool,
    /// A header the answer carries: a new DPoP nonce (`DPoP-Nonce`), the
    /// proof having had the one before.
    pub(crate) carry: Option<(http::HeaderName, http::HeaderValue)>,
}

impl Verified {
    /// The step-up answer (403) for this request: it lacks `needed`.
    pub(crate) fn insufficient_scope(&self, needed: &[&str]) -> Answer {
        self.gate.insufficient_scope(self.dpop, needed)
    }

    /// Adds what the answer to the verified request carries (a new DPoP nonce).
    pub(crate) fn dress<B>(&self, response: &mut http::Response<B>) {
        if let Some((name, value)) = &self.carry {
            response.headers_mut().insert(name.clone(), value.clone());
        }
    }

    /// How long the token has left, when it says: a stream it opened
    /// lasts no longer.
    pub(crate) fn time_left(&self) -> Option<std::time::Duration> {
        let exp = self.identity.expires_at()?;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        Some(std::time::Duration::from_secs(exp.saturating_sub(now)))
    }
}
