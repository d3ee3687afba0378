//! Tasks (SEP-2663) from the client side, against our server in the same
//! process, in both eras: a call the server turns into a task is followed
//! to its result (input it asks for answered by the handlers), refused
//! without the extension when the tool only runs as a task, and cancelled
//! at the server when the caller stops waiting.

use crate::support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use oxmcp_client::{Client, Era, Error};
use oxmcp_server::{ask::Elicited, tool, Context, Server, ToolError};
use serde_json::{json, Value};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Answer {
    /// Yes?
    yes: bool,
}

#[derive(Debug)]
pub struct Jobs {
    stopped: Arc<AtomicBool>,
}

#[tool(description = "Long jobs")]
impl Jobs {
    #[describe("Works for a moment, reporting progress; only runs as a task")]
    #[tool(task = required)]
    pub async fn report(&self, ctx: Context) -> String {
        for step in 0..3 {
            ctx.progress(f64::from(step), Some(3.0));
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        "report ready".into()
    }

    #[describe("Works a moment as a task, then asks before finishing")]
    #[tool(task = optional)]
    pub async fn confirm(&self, ctx: Context) -> Result<String, ToolError> {
        tokio::time::sleep(Duration::from_millis(100)).await;
        match ctx.ask("go").elicit::<Answer>("Go on?").await? {
            Elicited::Accepted(a) if a.yes => Ok("went on".into()),
            _ => Ok("stopped".into()),
        }
    }

    #[describe("Runs until cancelled")]
    #[tool(task = optional)]
    pub async fn forever(&self, ctx: Context) -> String {
        ctx.cancelled().await;
        self.stopped.store(true, Ordering::Release);
        "stopped".into()
    }
}

async fn connect(era: Era, tasks: bool, stopped: &Arc<AtomicBool>) -> Client {
    let server = Server::builder("jobs", "1")
        .toolbox(Jobs {
            stopped: Arc::clone(stopped),
        })
        .build();
    let builder = Client::builder()
        .protocol(era)
        .tasks(tasks)
        .elicitation_handler(|_params: Value| async {
            Ok(json!({"action": "accept", "content": {"yes": true}}))
        });
    support::in_process(server, builder).await.0
}

#[tokio::test]
async fn a_task_is_followed_to_its_result_in_each_era() {
    for era in [Era::Legacy, Era::Modern] {
        let stopped = Arc::new(AtomicBool::new(false));
        let client = connect(era, true, &stopped).await;
        let r = client.call_tool("report", json!({})).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some("report ready"), "{era:?}");
        // Input asked while it runs as a task, answered by the handler.
        let r = client.call_tool("confirm", json!({})).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some("went on"), "{era:?}");
        client.close().await;

        // Without the extension, a tool that only runs as a task is refused.
        let without = connect(era, false, &stopped).await;
        let e = without.call_tool("report", json!({})).await.unwrap_err();
        let Error::Protocol(e) = &e else {
            panic!("{era:?}: expected -32021, got {e:?}")
        };
        assert_eq!(e.code, -32021, "{era:?}");
        without.close().await;
    }
}

#[tokio::test]
async fn a_caller_that_stops_waiting_cancels_the_task() {
    for era in [Era::Legacy, Era::Modern] {
        let stopped = Arc::new(AtomicBool::new(false));
        let client = connect(era, true, &stopped).await;
        let gave_up = tokio::time::timeout(
            Duration::from_millis(800),
            client.call_tool("forever", json!({})),
        )
        .await;
        assert!(
            gave_up.is_err(),
            "{era:?}: the call should still be running"
        );
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while !stopped.load(Ordering::Acquire) {
            assert!(
                tokio::time::Instant::now() < deadline,
                "{era:?}: the task was not cancelled at the server"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        client.close().await;
    }
}
