//! The hostile-input table: every case is sent to a server, gets its expected
//! answer (JSON-RPC error code and id on stdio; HTTP status and body on HTTP),
//! and a follow-up request on the same connection or session still succeeds.
//!
//! The JSON-RPC cases run against stdio in memory (`Server::serve_io`), once
//! more against the real `calculator` example as a child process, and against
//! Streamable HTTP on a real 127.0.0.1 socket. HTTP-only rows (Host, Origin,
//! framing, HTTP versions) follow, then connections (pipelining, slow
//! clients) and the bugs the table found.
//!
//! - `table`: a case and what each transport must answer; `checks`: the
//!   checks those answers are made of.
//! - `cases/`: the JSON-RPC cases, a module per theme, a group per function
//!   or const table.
//! - `stdio`, `http`: the runners that take a case and check it.
//! - `rows/`: the HTTP-only rows and their runner.
//! - `connections`, `found_bugs`: tests of their own.
#![allow(
    clippy::cast_precision_loss,
    reason = "small test numbers (call ids, sums) written as f64 arguments"
)]

// The helpers of oxmcp-server's integration tests.
use mcp_test_support::server as support;

mod cases;
mod checks;
mod connections;
mod found_bugs;
mod http;
mod raw;
mod rows;
mod stdio;
mod table;

use oxmcp_server::http::HttpConfig;
use support::{Client, LATEST_LEGACY};
use table::S11;

/// Fails with every failure, each naming its case.
fn report(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_in_memory_each_case_on_a_new_connection() {
    let connect = || Client::start(support::probed_server().0);
    report(&stdio::each_on_its_own(&cases::all(), connect).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_in_memory_every_case_in_one_session() {
    let (server, _) = support::probed_server();
    let mut conn = Client::start(server);
    conn.initialize(LATEST_LEGACY).await;
    let mut failures = Vec::new();
    for c in cases::all().into_iter().filter(|c| c.setup == S11) {
        if let Err(e) = stdio::run(&mut conn, &c, false).await {
            failures.push(format!("{}: {e}", c.name));
        }
    }
    report(&failures);
    assert!(conn.finish().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_real_calculator_process() {
    report(&stdio::each_on_its_own(&cases::all(), Client::calculator).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_json_rpc_rows() {
    let s = http::start(HttpConfig::default()).await;
    let mut failures = Vec::new();
    for c in cases::all() {
        if let Err(e) = http::run(&s, &c).await {
            failures.push(format!("{}: {e}", c.name));
        }
    }
    s.assert_serving().await;
    report(&failures);
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_transport_rows() {
    let s = http::start(HttpConfig::default()).await;
    let failures = rows::run_all(&s).await;
    s.assert_serving().await;
    report(&failures);
    s.shutdown().await;
}
