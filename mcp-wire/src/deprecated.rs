//! The spec's deprecated features, each warned about once per process the
//! first time a server or client really uses it.
//!
//! Revision 2026-07-28 deprecates roots, sampling and logging (SEP-2577) and
//! Dynamic Client Registration (PR #2858); the HTTP+SSE transport has been
//! deprecated since 2025-03-26. They keep working in both eras until the
//! spec removes them (no earlier than the first revision after 2027-07-28),
//! so the API that exists only for them carries `#[deprecated]` and a
//! program that uses one hears about it once, in its log, rather than on
//! every message.

use std::sync::atomic::{AtomicBool, Ordering};

/// A feature the spec has deprecated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feature {
    /// `sampling/createMessage`: the server asking the client's model.
    Sampling,
    /// `roots/list`: the server asking the client for its roots.
    Roots,
    /// `notifications/message` and the log level asked for.
    Logging,
    /// OAuth 2.0 Dynamic Client Registration (RFC 7591).
    DynamicClientRegistration,
    /// The HTTP+SSE transport of revision 2024-11-05.
    HttpSse,
}

const COUNT: usize = 5;

impl Feature {
    /// The feature's name, as the warning gives it.
    pub fn name(self) -> &'static str {
        match self {
            Feature::Sampling => "sampling",
            Feature::Roots => "roots",
            Feature::Logging => "logging",
            Feature::DynamicClientRegistration => "Dynamic Client Registration",
            Feature::HttpSse => "the HTTP+SSE transport",
        }
    }

    /// The protocol revision that deprecated it.
    pub fn since(self) -> &'static str {
        match self {
            Feature::HttpSse => "2025-03-26",
            _ => "2026-07-28",
        }
    }

    /// What to use instead, as the spec's registry of deprecated features
    /// says, in this project's terms.
    pub fn instead(self) -> &'static str {
        match self {
            Feature::Sampling => "call the model provider's API directly (oxmcp-agent's models)",
            Feature::Roots => {
                "pass directories or files as tool parameters, resource URIs or server configuration"
            }
            Feature::Logging => {
                "log to stderr (tracing) or export telemetry with OpenTelemetry (oxmcp-otel)"
            }
            Feature::DynamicClientRegistration => {
                "give the client a Client ID Metadata Document URL (OAuth::client_metadata_url) or pre-register it (OAuth::client)"
            }
            Feature::HttpSse => "use the Streamable HTTP transport",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Which features have been warned about: one flag each.
#[derive(Debug)]
pub struct Warned([AtomicBool; COUNT]);

impl Warned {
    /// None yet.
    pub const fn new() -> Self {
        Warned([const { AtomicBool::new(false) }; COUNT])
    }

    /// Whether this is the first use of `feature` (and marks it used).
    pub fn first(&self, feature: Feature) -> bool {
        !self.0[feature.index()].swap(true, Ordering::Relaxed)
    }
}

impl Default for Warned {
    fn default() -> Self {
        Warned::new()
    }
}

static PROCESS: Warned = Warned::new();

/// Records a use of `feature`: the first in this process logs a warning
/// (target `oxmcp::deprecated`) naming the revision that deprecated it and
/// what replaces it.
pub fn used(feature: Feature) {
    if PROCESS.first(feature) {
        tracing::warn!(
            target: "oxmcp::deprecated",
            feature = feature.name(),
            since = feature.since(),
            "{} is deprecated since MCP {} and will be removed: {}",
            feature.name(),
            feature.since(),
            feature.instead()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::{Feature, Warned};

    #[test]
    fn each_feature_is_first_once() {
        let warned = Warned::new();
        assert!(warned.first(Feature::Sampling));
        assert!(!warned.first(Feature::Sampling));
        assert!(warned.first(Feature::Roots), "a feature's flag is its own");
        assert!(!warned.first(Feature::Roots));
        assert!(warned.first(Feature::HttpSse));
    }
}
