//! Authorization: who a request speaks for ([`Identity`]) and, with the
//! `auth` feature, the HTTP server as an OAuth protected resource
//! ([`Authorization`], configured on
//! [`HttpConfig`](crate::http::HttpConfig::authorization)), with bearer
//! tokens checked by a [`TokenVerifier`]: [`JwtVerifier`] or
//! [`Introspection`].
//!
//! Scopes per tool come from `#[tool(scopes("..."))]` (on a tool, or on a
//! whole `#[tool]` impl block): a caller whose token lacks them does not see
//! the tool, and calling it is answered with the spec's step-up challenge
//! (HTTP 403, `error="insufficient_scope"`, the scopes named).
//!
//! Authorization applies to the HTTP transports only; a stdio server takes
//! its credentials from its environment, as the spec says.

mod identity;
#[cfg(feature = "auth")]
mod introspect;
#[cfg(feature = "auth")]
mod jwt;
#[cfg(feature = "auth")]
mod layer;
#[cfg(feature = "auth")]
mod resource;
#[cfg(feature = "auth")]
mod verify;

pub use identity::Identity;
#[cfg(feature = "auth")]
pub use introspect::Introspection;
#[cfg(feature = "auth")]
pub use jwt::JwtVerifier;
#[cfg(feature = "auth")]
pub(crate) use layer::Verified;
#[cfg(feature = "auth")]
pub use layer::{AuthLayer, AuthService};
#[cfg(feature = "auth")]
pub use resource::{Authorization, Denied, InvalidResource};
#[cfg(feature = "auth")]
pub use verify::{TokenError, TokenVerifier, VerifyFuture};
