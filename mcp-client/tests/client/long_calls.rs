//! Long calls: a request's timeout is a time without an answer or progress
//! (each progress notification starts it again), under a cap on the whole
//! call; every request carries a progress token, callback or not. Against
//! our server in the same process, and against a slow server written with
//! the Python `mcp` SDK (`tests/interop/slow_reference.py`).

use crate::support;

use std::time::{Duration, Instant};

use oxmcp_client::{CallOptions, Client, Era, Error};
use oxmcp_server::{tool, Context, Server};
use serde_json::json;

/// Tools that take their time.
#[derive(Debug)]
pub struct Slow;

#[tool(description = "Tools that take their time", client = false)]
impl Slow {
    #[describe("Report progress every `every_ms` milliseconds, `times` times, then answer")]
    pub async fn pulse(
        &self,
        #[param("How many reports")] times: u32,
        #[param("Milliseconds between reports")] every_ms: u64,
        ctx: Context,
    ) -> String {
        for i in 1..=times {
            tokio::time::sleep(Duration::from_millis(every_ms)).await;
            ctx.progress(f64::from(i), Some(f64::from(times)));
        }
        format!("pulsed {times}")
    }

    #[describe("Whether this call carries a progress token")]
    pub fn token(&self, ctx: Context) -> String {
        ctx.wants_progress().to_string()
    }
}

async fn slow_client(era: Era, builder: oxmcp_client::ClientBuilder) -> Client {
    let server = Server::builder("slow", "1.0").toolbox(Slow).build();
    let (client, _, _) = support::in_process(server, builder.protocol(era)).await;
    client
}

#[tokio::test]
async fn progress_keeps_a_call_alive_past_its_timeout_in_each_era() {
    for era in [Era::Legacy, Era::Modern] {
        let client = slow_client(era, Client::builder().timeout(Duration::from_millis(300))).await;
        // 8 reports 100 ms apart: 800 ms in all, never 300 ms without one.
        let started = Instant::now();
        let r = client
            .call_tool("pulse", json!({"times": 8, "every_ms": 100}))
            .await
            .unwrap();
        assert_eq!(r.content[0].as_text(), Some("pulsed 8"), "{era:?}");
        assert!(started.elapsed() >= Duration::from_millis(800));
        // Without a callback, the request carried a progress token all the same.
        let token = client.call_tool("token", ()).await.unwrap();
        assert_eq!(token.content[0].as_text(), Some("true"), "{era:?}");
        // Reports further apart than the timeout: it passes.
        let err = client
            .call_tool("pulse", json!({"times": 2, "every_ms": 600}))
            .await
            .unwrap_err();
        assert!(
            matches!(err, Error::Timeout(d) if d == Duration::from_millis(300)),
            "{err:?}"
        );
        client.close().await;
    }
}

#[tokio::test]
async fn the_cap_ends_a_call_that_keeps_reporting_progress() {
    let client = slow_client(
        Era::Legacy,
        Client::builder()
            .timeout(Duration::from_millis(300))
            .max_call_time(Duration::from_millis(500)),
    )
    .await;
    let started = Instant::now();
    let err = client
        .call_tool("pulse", json!({"times": 20, "every_ms": 100}))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Timeout(d) if d == Duration::from_millis(500)),
        "{err:?}"
    );
    assert!(started.elapsed() < Duration::from_millis(1500));
    // Per call, the cap is raised.
    let r = client
        .call_tool_with(
            "pulse",
            json!({"times": 8, "every_ms": 100}),
            CallOptions::new().max_time(Duration::from_secs(5)),
        )
        .await
        .unwrap();
    assert_eq!(r.content[0].as_text(), Some("pulsed 8"));
    // Without progress tokens, a progress report keeps nothing alive.
    let quiet = slow_client(
        Era::Legacy,
        Client::builder()
            .timeout(Duration::from_millis(300))
            .progress_tokens(false),
    )
    .await;
    let token = quiet.call_tool("token", ()).await.unwrap();
    assert_eq!(token.content[0].as_text(), Some("false"));
    client.close().await;
    quiet.close().await;
}

/// The Python SDK's slow server over stdio: a tool reporting progress every
/// second for 5 seconds finishes under a 2-second timeout; one that stalls
/// fails after 2 seconds with a timeout, and is cancelled on the server.
/// Both eras at once, each with a server of its own.
#[tokio::test]
async fn against_the_python_sdk_a_reporting_call_finishes_and_a_stalled_one_times_out() {
    let dir = std::env::temp_dir().join(format!("mcp-long-calls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let eras = [Era::Legacy, Era::Auto].map(|era| python_long_and_stalled(era, &dir));
    futures_util::future::join_all(eras).await;
    std::fs::remove_dir_all(&dir).ok();
}

async fn python_long_and_stalled(era: Era, dir: &std::path::Path) {
    let timeout = Duration::from_secs(2);
    let cancelled = dir.join(format!("cancelled-{era:?}"));
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/interop/slow_reference.py");
    let mut command = tokio::process::Command::new(mcp_test_support::scripted_model::python());
    command.arg(&script).arg("--cancelled").arg(&cancelled);
    let client = Client::builder()
        .protocol(era)
        .timeout(timeout)
        .connect_stdio(command)
        .await
        .unwrap_or_else(|e| panic!("{era:?}: {e}"));
    let started = Instant::now();
    let r = client
        .call_tool("progress_for", json!({"seconds": 5}))
        .await
        .unwrap_or_else(|e| panic!("{era:?}: {e}"));
    assert_eq!(r.content[0].as_text(), Some("done after 5 s"), "{era:?}");
    assert!(started.elapsed() >= Duration::from_secs(5));

    let started = Instant::now();
    let err = client
        .call_tool("stall", json!({"seconds": 30}))
        .await
        .unwrap_err();
    let took = started.elapsed();
    assert!(
        matches!(err, Error::Timeout(d) if d == timeout),
        "{era:?}: {err:?}"
    );
    assert!(took >= timeout && took < timeout * 3, "{era:?}: {took:?}");
    // The stalled call was cancelled on the server.
    let deadline = Instant::now() + Duration::from_secs(10);
    let was_cancelled = loop {
        let text = std::fs::read_to_string(&cancelled).unwrap_or_default();
        if text.lines().count() == 1 {
            break true;
        }
        if Instant::now() > deadline {
            break false;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        was_cancelled,
        "{era:?}: the server never saw the cancellation"
    );
    client.close().await;
}
