//! The stdio runner: a case's bytes, then a follow-up request that must
//! succeed on the same connection, then a ping that flushes whatever else
//! the case caused; everything before that ping is the case's answer.

use std::time::Duration;

use serde_json::{json, Value};

use crate::support::{self, legacy_add, modern_add, result_text, Client};
use crate::table::{Case, Setup};

/// Runs every case on a connection of its own, made by `connect`; returns
/// what failed, each line naming its case.
pub(crate) async fn each_on_its_own(cases: &[Case], connect: impl Fn() -> Client) -> Vec<String> {
    let mut failures = Vec::new();
    for c in cases {
        let mut conn = connect();
        if let Err(e) = run(&mut conn, c, true).await {
            failures.push(format!("{}: {e}", c.name));
        }
        let rest = conn.finish().await;
        if !rest.is_empty() {
            failures.push(format!("{}: more output after the end: {rest:?}", c.name));
        }
    }
    failures
}

/// Sends a case (after its setup, if `setup`), its follow-up and a final
/// sync request; checks everything in between.
pub(crate) async fn run(conn: &mut Client, c: &Case, setup: bool) -> Result<(), String> {
    if setup {
        if let Setup::Legacy(v) = c.setup {
            conn.initialize(v).await;
        }
    }
    conn.write_bytes(&c.input).await;
    let follow_id = json!("follow-up");
    conn.send(follow_up(c.setup, &follow_id)).await;
    let (follow, mut got) = until_follow_up(conn, &follow_id, c.stdio.lines()).await?;
    got.extend(flush(conn).await?);
    if result_text(&follow) != Some("5") {
        return Err(format!("the follow-up failed: {follow}"));
    }
    c.stdio.check(&got).map_err(|e| {
        let shown: Vec<String> = got
            .iter()
            .map(|g| support::truncate(&g.to_string()))
            .collect();
        format!("{e}; got {shown:?}")
    })
}

/// A request that must succeed after each case: `add(2, 3)`.
fn follow_up(setup: Setup, id: &Value) -> Value {
    match setup {
        Setup::Fresh => modern_add(id, 2.0, 3.0),
        Setup::Legacy(_) => legacy_add(id, 2.0, 3.0),
    }
}

/// Reads until the follow-up's response and at least `want` other
/// messages; returns the follow-up's response and the others.
async fn until_follow_up(
    conn: &mut Client,
    follow_id: &Value,
    want: usize,
) -> Result<(Value, Vec<Value>), String> {
    let mut got = Vec::new();
    let mut follow = None;
    while follow.is_none() || got.len() < want {
        let v = next_line(conn)
            .await
            .map_err(|e| format!("{e}; so far {} line(s)", got.len()))?;
        if follow.is_none() && v.get("id") == Some(follow_id) && v.get("method").is_none() {
            follow = Some(v);
        } else {
            got.push(v);
        }
    }
    Ok((follow.expect("the loop ends on the follow-up"), got))
}

/// Sends a ping and returns what arrives before its answer: anything still
/// on its way arrives first.
async fn flush(conn: &mut Client) -> Result<Vec<Value>, String> {
    let sync_id = json!("sync");
    conn.send(json!({"jsonrpc":"2.0","id":sync_id,"method":"ping"}))
        .await;
    let mut got = Vec::new();
    loop {
        let v = next_line(conn).await?;
        if v.get("id") == Some(&sync_id) {
            return Ok(got);
        }
        got.push(v);
    }
}

async fn next_line(conn: &mut Client) -> Result<Value, String> {
    let line = tokio::time::timeout(Duration::from_secs(20), conn.lines.next_line())
        .await
        .map_err(|_| "timed out waiting for the server".to_owned())?
        .map_err(|e| format!("reading: {e}"))?
        .ok_or("the server closed its output")?;
    serde_json::from_str(&line)
        .map_err(|e| format!("a non-JSON line ({e}): {}", support::truncate(&line)))
}
