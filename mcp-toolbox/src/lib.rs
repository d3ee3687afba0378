//! Built-in MCP toolboxes that are safe by construction: [`files`] (the
//! reference filesystem server's tools, confined to allowed roots),
//! [`http`] (`get`, `post` and `fetch`, public addresses only, checked
//! after resolution and on every redirect) and [`commands`] (`exec`, off
//! unless programs are allowed; an argument vector, never a shell).
//!
//! Each is an ordinary `#[tool]` toolbox configured by a builder whose
//! defaults are the safe ones: serve it with `oxmcp-server`, attach it to an
//! agent's tool set, or call it through its typed client.
//!
//! # Features
//!
//! | feature | brings | default |
//! |---|---|---|
//! | `files` | [`files`]: confined through cap-std (Linux, macOS, Windows) | yes |
//! | `http` | [`http`]: hyper, rustls on ring, an HTML-to-Markdown converter | no |
//! | `openapi` | [`openapi`] (and `http`): a YAML parser, globs | no |
//! | `commands` | [`commands`]: Unix only; elsewhere the build stops with an error naming it | no |
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

// `commands` kills what a program started through its process group and
// waits with `waitid`; Windows has neither (a job object would be its form).
#[cfg(all(feature = "commands", unix))]
pub mod commands;
#[cfg(all(feature = "commands", not(unix)))]
compile_error!(
    "oxmcp-toolbox: the `commands` feature needs a Unix platform (Linux, macOS): \
     it runs programs in a process group and kills the group, which Windows has \
     no form of here; leave the feature out (`default-features = false`, \
     `features = [\"files\", \"http\"]`) on this platform"
);
#[cfg(feature = "files")]
pub mod files;
#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "openapi")]
pub mod openapi;
