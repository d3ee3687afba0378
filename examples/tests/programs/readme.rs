//! Every ```` ```rust ```` block of the README, compiled (not run, like a
//! `no_run` doc test): `examples/build.rs` wraps each block as its marker
//! comment says, and this file gives the fragments what a real program around
//! them would have in scope. A README example that no longer compiles fails
//! here, with the README line in the generated code's comments.

#![allow(dead_code, unused_imports, clippy::pedantic)]

use std::time::Duration;

use axum::Router;
use oxmcp_client::Client;
use oxmcp_server::http::HttpConfig;
use oxmcp_server::policy::{from_fn, AuditLog, Rate, RateLimit, ResultCache};
use oxmcp_server::{Server, ToolEntry};
use serde_json::json;
use tokio::net::TcpListener;
use tower::limit::ConcurrencyLimitLayer;
use tower::timeout::TimeoutLayer;
use tower::ServiceBuilder;

/// Any error a README fragment's `?` meets.
type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The user-written middleware the README's middleware fragment names.
use mcp_examples::middleware::no_secrets;

/// The bearer-token layer the README's tower fragment names.
use mcp_examples::tower_layers::BearerAuth;

// The README's first block (the calculator) is `calculator`; fragments use
// its `Calculator` and generated `CalculatorClient`.
use calculator::{Calculator, CalculatorClient};

include!(concat!(env!("OUT_DIR"), "/readme.rs"));
