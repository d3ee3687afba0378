//! oxmcp-client against servers in the same process, on real 127.0.0.1
//! sockets and scripted: one test binary, a module per topic in
//! `tests/client/` (the inline `client` module below, so that this root
//! and the binaries of their own share `tests/support/`). No module here
//! changes the process (no global subscriber or telemetry, no environment
//! variable), so they share a binary; `stdio` (its own harness: the binary is also the server it
//! starts), `http` and `auth_hardening` (a global subscriber) and `otel` (a
//! global propagator) are binaries of their own. A module gated on a
//! feature names it as its binary's `required-features` did before.
//!
//! The modules are `pub`, as each file's items were at the root of a binary
//! of its own: the lints see the same reachable items as before.

mod support;

/// One module per topic (`tests/client/<topic>.rs`).
pub mod client {
    pub mod apps;
    pub mod extensions;
    pub mod fake;
    pub mod in_process;
    pub mod long_calls;
    #[cfg(feature = "skills")]
    pub mod skills;
    pub mod tasks;

    #[cfg(feature = "http")]
    pub mod prompts;

    #[cfg(feature = "auth")]
    pub mod auth;
    #[cfg(feature = "auth")]
    pub mod auth_providers;
    #[cfg(feature = "auth")]
    pub mod dpop;

    #[cfg(feature = "tls")]
    pub mod https;
}
