//! Authorization: who a request speaks for ([`Identity`]) and, with the
//! `auth` feature, the HTTP server as an OAuth protected resource
//! ([`Authorization`], configured on
//! [`HttpConfig`](crate::http::HttpConfig::authorization)), with bearer
//! tokens checked by a [`TokenVerifier`]: [`JwtVerifier`] or
//! [`Introspection`], and DPoP-bound tokens (RFC 9449) with [`Dpop`].
//!
//! Scopes come from `#[tool(scopes("..."))]` on a tool, a prompt, a
//! resource or a resource template (or on a whole `#[tool]` impl block, for
//! all of its items), and from `with_scopes` on entries built by hand
//! ([`ToolEntry`](crate::ToolEntry), [`PromptEntry`](crate::prompt::PromptEntry),
//! [`ResourceEntry`](crate::resource::ResourceEntry),
//! [`TemplateEntry`](crate::resource::TemplateEntry)). A caller whose token lacks
//! them does not see the item in its list, and a request that reaches it
//! (`tools/call`, `prompts/get`, `resources/read` of the resource or of a
//! URI the template matches, `resources/subscribe`, `subscriptions/listen`
//! for its updates, `completion/complete` of the prompt's or template's
//! arguments) is answered with the spec's step-up challenge (HTTP 403,
//! `error="insufficient_scope"`, the scopes named) before any handler runs.
//! Something that does not exist is not a scope question: it gets the
//! ordinary not-found answer.
//!
//! Authorization applies to the HTTP transports only; a stdio server takes
//! its credentials from its environment, as the spec says.

#[cfg(feature = "http")]
mod gate;
mod identity;
#[cfg(feature = "auth")]
mod oauth;

#[cfg(feature = "http")]
pub(crate) use gate::{Answer, Gate, Verified};
pub use identity::Identity;
#[cfg(feature = "http")]
pub(crate) use identity::Principal;
pub(crate) use identity::Scopes;
#[cfg(feature = "auth")]
pub use oauth::{
    AuthLayer, AuthService, Authorization, Denied, Dpop, Introspection, InvalidAudience,
    InvalidResource, JwtVerifier, TokenError, TokenVerifier, VerifyFuture,
};
