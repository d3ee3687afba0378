//! The HTTP server as an OAuth protected resource (the `auth` feature):
//! its configuration and metadata ([`Authorization`]), bearer tokens
//! checked by a [`TokenVerifier`] ([`JwtVerifier`], [`Introspection`]),
//! DPoP-bound tokens ([`Dpop`]), and the tower layer that checks a request
//! before MCP sees it ([`AuthLayer`]).

mod audience;
mod dpop;
mod introspect;
mod jwt;
mod layer;
mod resource;
mod verify;

use super::{Identity, Verified};

pub use audience::InvalidAudience;
pub use dpop::Dpop;
pub use introspect::Introspection;
pub use jwt::JwtVerifier;
pub use layer::{AuthLayer, AuthService};
pub use resource::{Authorization, Denied, InvalidResource};
pub use verify::{TokenError, TokenVerifier, VerifyFuture};
