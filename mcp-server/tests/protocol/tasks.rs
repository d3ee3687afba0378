//! Tasks (SEP-2663) on one server, over stdio in the 2026-07-28 era: a
//! listen stream that asked for a task's id hears its states
//! (`notifications/tasks`), and only a client with the extension may ask.

use mcp_test_support::server as support;

use std::time::Duration;

use oxmcp_server::{tool, Context, Server};
use serde_json::{json, Value};
use support::{modern_meta_with, Client};

#[derive(Debug)]
pub struct Jobs;

#[tool(description = "Long jobs")]
impl Jobs {
    #[describe("Works for a moment; may run as a task")]
    #[tool(task = optional)]
    pub async fn slow(&self, ctx: Context) -> String {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(400)) => "slow done".into(),
            () = ctx.cancelled() => "cancelled".into(),
        }
    }
}

fn meta(tasks: bool) -> Value {
    let extensions = if tasks {
        json!({"io.modelcontextprotocol/tasks": {}})
    } else {
        json!({})
    };
    modern_meta_with(&json!({"extensions": extensions}))
}

#[tokio::test]
async fn a_listen_stream_hears_the_states_of_the_tasks_it_asked_for() {
    let mut c = Client::start(Server::builder("jobs", "1").toolbox(Jobs).build());
    let created = c
        .request(
            1,
            "tools/call",
            json!({"name": "slow", "arguments": {}, "_meta": meta(true)}),
        )
        .await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task = created["result"]["taskId"].as_str().unwrap().to_owned();

    // Without the extension, asking for task states is -32021.
    let refused = c
        .request(
            2,
            "subscriptions/listen",
            json!({"notifications": {"taskIds": [task]}, "_meta": meta(false)}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");

    c.send(
        json!({"jsonrpc": "2.0", "id": "listen", "method": "subscriptions/listen",
        "params": {"notifications": {"taskIds": [task, "not-a-task"]}, "_meta": meta(true)}}),
    )
    .await;
    let ack = c.recv().await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(
        ack["params"]["notifications"]["taskIds"],
        json!([task]),
        "{ack}"
    );
    let done = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let m = c.recv().await;
            if m["method"] == "notifications/tasks" && m["params"]["status"] == "completed" {
                return m;
            }
        }
    })
    .await
    .expect("no notifications/tasks with the completed state");
    assert_eq!(done["params"]["taskId"], task.as_str(), "{done}");
    assert_eq!(
        done["params"]["result"]["content"][0]["text"], "slow done",
        "{done}"
    );
    assert_eq!(
        done["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "listen",
        "{done}"
    );
}
