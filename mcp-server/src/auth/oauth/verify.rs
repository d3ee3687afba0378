//! [`TokenVerifier`]: how an access token becomes an [`Identity`].

use std::future::Future;
use std::pin::Pin;

use super::Identity;

/// A future a verifier returns.
pub type VerifyFuture<'a> = Pin<Box<dyn Future<Output = Result<Identity, TokenError>> + Send + 'a>>;

/// Checks an access token and says whom it speaks for.
///
/// Two come with the crate: [`JwtVerifier`](super::JwtVerifier) (JWT access
/// tokens signed by the issuer's keys) and
/// [`Introspection`](super::Introspection) (RFC 7662). A verifier must refuse
/// a token issued for another resource (its audience): the server passes no
/// token on and accepts only its own.
///
/// ```
/// use oxmcp_server::auth::{Identity, TokenError, TokenVerifier, VerifyFuture};
///
/// /// Accepts one fixed token (for a test, say).
/// struct Fixed(String);
///
/// impl TokenVerifier for Fixed {
///     fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
///         Box::pin(async move {
///             if token == self.0 {
///                 Ok(Identity::new().with_subject("tester").with_scopes(["all"]))
///             } else {
///                 Err(TokenError::invalid("unknown token"))
///             }
///         })
///     }
/// }
/// ```
pub trait TokenVerifier: Send + Sync + 'static {
    /// Verifies `token` (the text after `Bearer `).
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a>;
}

impl<V: TokenVerifier> TokenVerifier for std::sync::Arc<V> {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        (**self).verify(token)
    }
}

/// Why a token was not accepted.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// The token is not valid here: expired, forged, for another resource...
    /// (HTTP 401, `error="invalid_token"`; the text is the `error_description`).
    #[error("{0}")]
    Invalid(String),
    /// The token could not be checked now (the issuer's keys or its
    /// introspection endpoint could not be reached): HTTP 503, with
    /// `Retry-After` when the verifier knows when to try again.
    #[error("the token cannot be checked now")]
    Unavailable {
        /// What failed.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
        /// When a new attempt makes sense (a verifier backing off after a
        /// failed fetch says so; the client is told in `Retry-After`).
        retry_after: Option<std::time::Duration>,
    },
}

impl TokenError {
    /// An invalid token, with the reason given to the client.
    pub fn invalid(reason: impl Into<String>) -> Self {
        TokenError::Invalid(reason.into())
    }

    /// A token that cannot be checked now, because of `source`.
    pub fn unavailable(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        TokenError::Unavailable {
            source: source.into(),
            retry_after: None,
        }
    }

    /// The same error, telling the client when to try again.
    #[must_use]
    pub fn retry_after(self, after: std::time::Duration) -> Self {
        match self {
            TokenError::Unavailable { source, .. } => TokenError::Unavailable {
                source,
                retry_after: Some(after),
            },
            invalid @ TokenError::Invalid(_) => invalid,
        }
    }
}
