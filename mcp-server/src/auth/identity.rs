//! [`Identity`]: who a verified access token speaks for.

use std::collections::BTreeSet;
use std::sync::Arc;

use oxmcp_types::JsonObject;
use serde_json::Value;

/// Who a verified access token speaks for: its subject, the client it was
/// issued to, its scopes, the audience it was accepted for and all its claims. Tools read it with
/// [`Context::identity`](crate::Context::identity); hooks and middleware with
/// [`Caller::identity`](crate::policy::Caller::identity).
///
/// ```
/// use oxmcp_server::auth::Identity;
///
/// let who = Identity::new()
///     .with_subject("alice")
///     .with_scopes(["notes:read"]);
/// assert!(who.has_scope("notes:read"));
/// assert!(!who.has_scope("notes:write"));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Identity {
    subject: Option<String>,
    client_id: Option<String>,
    issuer: Option<String>,
    /// The audience (of those the verifier accepts) the token names.
    audience: Option<String>,
    scopes: Vec<String>,
    /// The scopes granted and those they imply.
    effective: BTreeSet<String>,
    claims: JsonObject,
    expires_at: Option<u64>,
}

impl Identity {
    /// An identity with nothing known yet (for a custom verifier).
    pub fn new() -> Self {
        Identity::default()
    }

    /// Reads the registered claims of a JWT or an introspection answer:
    /// `sub`, `client_id` (else `azp`), `iss`, `exp`, and the scopes from
    /// `scope` (space-separated) or `scp` (a list or a string).
    pub fn from_claims(claims: JsonObject) -> Self {
        let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
        let scopes: Vec<String> = match (claims.get("scope"), claims.get("scp")) {
            (Some(Value::String(s)), _) | (None, Some(Value::String(s))) => {
                s.split_whitespace().map(str::to_owned).collect()
            }
            (None, Some(Value::Array(a))) => a
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        };
        Identity {
            subject: text("sub"),
            client_id: text("client_id").or_else(|| text("azp")),
            issuer: text("iss"),
            audience: None,
            effective: scopes.iter().cloned().collect(),
            scopes,
            expires_at: claims.get("exp").and_then(Value::as_u64),
            claims,
        }
    }

    /// Sets the subject.
    #[must_use]
    pub fn with_subject(mut self, subject: impl Into<String>) -> Self {
        self.subject = Some(subject.into());
        self
    }

    /// Sets the client the token was issued to.
    #[must_use]
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// Sets the audience the token was accepted for (a verifier that checks
    /// `aud` against several says which matched).
    #[must_use]
    pub fn with_audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// Sets the granted scopes.
    #[must_use]
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self.effective = self.scopes.iter().cloned().collect();
        self
    }

    /// Sets the claims.
    #[must_use]
    pub fn with_claims(mut self, claims: JsonObject) -> Self {
        self.claims = claims;
        self
    }

    /// The subject (`sub`): the user, or the client itself for machine clients.
    pub fn subject(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// The client the token was issued to (`client_id` or `azp`).
    pub fn client_id(&self) -> Option<&str> {
        self.client_id.as_deref()
    }

    /// The issuer (`iss`).
    pub fn issuer(&self) -> Option<&str> {
        self.issuer.as_deref()
    }

    /// The audience the token was accepted for: the one of the verifier's
    /// audiences its `aud` names (the resource URI by default; an API's
    /// client id or `api://` URI for some identity providers: see
    /// `JwtVerifier::audiences` with the `auth` feature).
    /// `None` from a verifier that does not say. The whole claim is in
    /// [`claims`](Self::claims).
    pub fn audience(&self) -> Option<&str> {
        self.audience.as_deref()
    }

    /// The scopes the token grants, as written in it.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Whether the token grants `scope`, directly or through a broader scope
    /// the server said implies it.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.effective.contains(scope)
    }

    /// Those of `needed` the token does not grant.
    pub fn missing_scopes<'a>(&self, needed: &'a [&'a str]) -> Vec<&'a str> {
        needed
            .iter()
            .copied()
            .filter(|s| !self.has_scope(s))
            .collect()
    }

    /// Every claim of the token (or of the introspection answer).
    pub fn claims(&self) -> &JsonObject {
        &self.claims
    }

    /// When the token expires (`exp`, seconds since the Unix epoch).
    pub fn expires_at(&self) -> Option<u64> {
        self.expires_at
    }

    /// Who the identity is, for binding what it opened (a session, an
    /// input round) to it: the subject at its issuer, else the client the
    /// token was issued to; `None` when the token names neither.
    pub(crate) fn principal(&self) -> Option<Principal> {
        let issuer = self.issuer.as_deref().map(Box::from);
        match (&self.subject, &self.client_id) {
            (Some(subject), _) => Some(Principal::Subject {
                issuer,
                subject: subject.as_str().into(),
            }),
            (None, Some(client)) => Some(Principal::Client {
                issuer,
                client: client.as_str().into(),
            }),
            (None, None) => None,
        }
    }

    /// Adds the scopes implied by those granted (`(broad, narrower)` pairs,
    /// followed until nothing new is implied).
    #[cfg(feature = "auth")]
    pub(crate) fn imply(&mut self, implies: &[(String, Vec<String>)]) {
        loop {
            let before = self.effective.len();
            for (broad, narrower) in implies {
                if self.effective.contains(broad) {
                    self.effective.extend(narrower.iter().cloned());
                }
            }
            if self.effective.len() == before {
                break;
            }
        }
    }
}

/// Who a token speaks for: see [`Identity::principal`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Principal {
    /// The token's subject (`sub`), at its issuer (`iss`).
    Subject {
        issuer: Option<Box<str>>,
        subject: Box<str>,
    },
    /// No subject: the client (`client_id`, else `azp`), at its issuer.
    Client {
        issuer: Option<Box<str>>,
        client: Box<str>,
    },
}

impl Principal {
    /// A text naming the principal and nothing else (its parts cannot run
    /// into each other: each is length-prefixed).
    pub(crate) fn key(&self) -> String {
        let (kind, issuer, name) = match self {
            Principal::Subject { issuer, subject } => ("sub", issuer, subject),
            Principal::Client { issuer, client } => ("client", issuer, client),
        };
        let issuer = issuer.as_deref().unwrap_or_default();
        format!("{kind}:{}:{issuer}{}:{name}", issuer.len(), name.len())
    }
}

/// The OAuth scopes a caller's token needs for one entry (HTTP with
/// [`Authorization`](crate::auth)): without them it is left out of its
/// list, and a request for it gets the step-up challenge. Empty: anyone may.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scopes(Arc<[Box<str>]>);

impl Scopes {
    /// The scopes a spec names (the macros list each once).
    pub(crate) fn of(scopes: &[&str]) -> Scopes {
        Scopes(scopes.iter().map(|s| Box::from(*s)).collect())
    }

    /// These and `more`, each once, in order.
    pub(crate) fn with<S: AsRef<str>>(&self, more: impl IntoIterator<Item = S>) -> Scopes {
        let mut all: Vec<Box<str>> = self.0.to_vec();
        for s in more {
            if !all.iter().any(|have| **have == *s.as_ref()) {
                all.push(Box::from(s.as_ref()));
            }
        }
        Scopes(all.into())
    }

    /// Each scope, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|s| &**s)
    }

    /// Whether `who` may reach the entry: no token was verified (nothing to
    /// check: stdio, or HTTP without authorization), or its token has every
    /// scope.
    pub(crate) fn allow(&self, who: Option<&Identity>) -> bool {
        who.is_none_or(|who| self.iter().all(|s| who.has_scope(s)))
    }
}

#[cfg(all(test, feature = "auth"))]
mod tests {
    use super::*;

    #[test]
    fn claims_and_implied_scopes() {
        let claims = serde_json::json!({
            "sub": "alice", "azp": "cli", "iss": "https://as", "exp": 99,
            "scp": ["a:write"]
        });
        let serde_json::Value::Object(claims) = claims else {
            unreachable!()
        };
        let mut who = Identity::from_claims(claims);
        assert_eq!(who.subject(), Some("alice"));
        assert_eq!(who.client_id(), Some("cli"));
        assert_eq!(who.expires_at(), Some(99));
        assert_eq!(who.missing_scopes(&["a:write", "a:read"]), ["a:read"]);
        who.imply(&[
            ("a:write".into(), vec!["a:read".into()]),
            ("a:read".into(), vec!["a:list".into()]),
        ]);
        assert!(who.has_scope("a:read") && who.has_scope("a:list"));
        assert_eq!(who.scopes(), ["a:write"]);
    }
}
