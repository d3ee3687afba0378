//! Faults: clients that hang up mid-call, clients that stop reading, storms
//! of cancellations. Afterwards nothing leaks: sessions
//! (`HttpService::session_count`) and tasks
//! (`RuntimeMetrics::num_alive_tasks`) return to their baseline, memory
//! (`VmRSS` of this process) stays bounded, and other clients are served.
//!
//! Each test runs alone (`serial`) on its own two-worker runtime, so the
//! process-wide measures belong to it. Run with `--nocapture` to see the
//! memory figures.
#![allow(
    clippy::too_many_lines,
    clippy::cast_precision_loss,
    reason = "scenario tests with small counters"
)]

use mcp_test_support::server as support;

use std::sync::Arc;
use std::time::Duration;

use oxmcp_server::http::HttpConfig;
use oxmcp_server::{policy::DEFAULT_MAX_RUNNING_CALLS, policy::DEFAULT_MAX_WAITING_CALLS, Server};
use serde_json::{json, Value};
use support::{
    alive_tasks, as_refs, eventually, http_request, legacy_headers, modern_call_headers,
    result_text, rss_kib, serial, Client, HttpConn, HttpServer, LATEST_LEGACY,
};

const SETTLE: Duration = Duration::from_secs(5);

fn mib(kib: u64) -> f64 {
    #[allow(clippy::cast_precision_loss, reason = "memory sizes")]
    let k = kib as f64;
    k / 1024.0
}

/// Waits until the task count is back at `baseline` (or below).
async fn tasks_back_to(baseline: usize, what: &str) {
    let settled = eventually(SETTLE, || alive_tasks() <= baseline).await;
    assert!(
        settled,
        "{what}: {} tasks alive, baseline {baseline}",
        alive_tasks()
    );
}

/// The task count once it stops changing.
async fn steady_tasks() -> usize {
    let mut last = alive_tasks();
    loop {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let now = alive_tasks();
        if now == last {
            return now;
        }
        last = now;
    }
}

/// Posts `body` on a new connection and returns it after the response head.
async fn open_call(
    s: &HttpServer,
    headers: &[(&'static str, String)],
    body: &Value,
) -> (HttpConn, support::Response) {
    let mut conn = HttpConn::connect(s.addr).await;
    conn.write(&http_request(
        "POST",
        "/mcp",
        s.port(),
        &as_refs(headers),
        body.to_string().as_bytes(),
    ))
    .await;
    let head = conn.read_head().await.expect("a response head");
    (conn, head)
}

fn call(id: &Value, tool: &str, arguments: &Value, modern: bool) -> Value {
    let mut params = json!({"name": tool, "arguments": arguments});
    if modern {
        params["_meta"] = support::modern_meta();
    }
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":params})
}

// ------------------------------------------------------------------ disconnects

#[test]
fn a_stateless_client_hanging_up_mid_call_cancels_it_and_nothing_leaks() {
    serial(|| async {
        let (server, probe) = support::probed_server();
        let s = HttpServer::start_service(&server, HttpConfig::default()).await;
        s.assert_serving().await;
        let baseline = steady_tasks().await;
        let rss_before = rss_kib();
        for round in 0..20 {
            let (conn, head) = open_call(
                &s,
                &modern_call_headers("hold"),
                &call(&json!(round), "hold", &json!({}), true),
            )
            .await;
            assert_eq!(head.status, 200);
            assert!(head.is_sse(), "a call in progress streams: {head:?}");
            assert!(eventually(SETTLE, || probe.started() > round).await);
            drop(conn);
        }
        let all_cancelled = eventually(SETTLE, || probe.cancelled() == 20).await;
        assert!(
            all_cancelled,
            "cancelled {} of 20 ({probe:?})",
            probe.cancelled()
        );
        assert_eq!(probe.finished(), 0, "no call ran to its end");
        tasks_back_to(baseline, "after 20 stateless hang-ups").await;
        assert_eq!(s.session_count(), 0);
        s.assert_serving().await;
        println!(
            "faults: stateless hang-ups: RSS {:.1} -> {:.1} MiB",
            mib(rss_before),
            mib(rss_kib())
        );
        s.shutdown().await;
    });
}

#[test]
fn a_legacy_client_hanging_up_mid_call_lets_it_finish_and_the_session_lives() {
    serial(|| async {
        let (server, probe) = support::probed_server();
        let s = HttpServer::start_service(&server, HttpConfig::default()).await;
        s.assert_serving().await;
        let baseline = steady_tasks().await;
        let sid = s.session(LATEST_LEGACY).await;
        let headers = legacy_headers(&sid, LATEST_LEGACY);
        let (mut conn, head) = open_call(
            &s,
            &headers,
            &call(&json!("s"), "sleep", &json!({"ms": 300}), false),
        )
        .await;
        assert!(head.is_sse(), "{head:?}");
        // The priming event names the stream to resume.
        let priming = conn
            .read_until("\n\n", SETTLE)
            .await
            .expect("a priming event");
        let event_id = priming
            .lines()
            .find_map(|l| l.strip_prefix("id: "))
            .expect("an event id")
            .trim()
            .to_owned();
        drop(conn);
        assert!(
            eventually(SETTLE, || probe.finished() == 1).await,
            "the call finished: {probe:?}"
        );
        assert_eq!(
            probe.cancelled(),
            0,
            "a legacy hang-up is not a cancellation"
        );
        assert_eq!(s.session_count(), 1, "the session survives");
        // Its result waits for the client to resume.
        let r = s
            .send(&http_request(
                "GET",
                "/mcp",
                s.port(),
                &[
                    ("Accept", "text/event-stream"),
                    ("Mcp-Session-Id", &sid),
                    ("Last-Event-ID", &event_id),
                ],
                b"",
            ))
            .await;
        assert_eq!(r.status, 200, "{r:?}");
        assert_eq!(result_text(&r.last()), Some("slept 300"), "{r:?}");
        // The session still serves.
        let again = s
            .post_json(
                &as_refs(&headers),
                &support::legacy_add(&json!(2), 2.0, 2.0),
            )
            .await;
        assert_eq!(result_text(&again.last()), Some("4"));
        s.delete_session(&sid).await;
        assert_eq!(s.session_count(), 0);
        tasks_back_to(baseline, "after a legacy hang-up").await;
        s.shutdown().await;
    });
}

#[test]
fn an_http_sse_client_hanging_up_ends_its_session_and_cancels_its_calls() {
    serial(|| async {
        let (server, probe) = support::probed_server();
        let s = HttpServer::start_service(&server, HttpConfig::default()).await;
        s.assert_serving().await;
        let baseline = steady_tasks().await;
        for round in 0..10 {
            let (sse, path) = s.open_sse().await;
            assert_eq!(s.session_count(), 1);
            let post = |body: Value| {
                let path = path.clone();
                let s = &s;
                async move {
                    s.send(&http_request(
                        "POST",
                        &path,
                        s.port(),
                        &[support::JSON],
                        body.to_string().as_bytes(),
                    ))
                    .await
                }
            };
            assert_eq!(
                post(support::initialize_request(&json!(0), "2024-11-05"))
                    .await
                    .status,
                202
            );
            assert_eq!(post(support::initialized()).await.status, 202);
            assert_eq!(
                post(call(&json!(1), "hold", &json!({}), false))
                    .await
                    .status,
                202
            );
            assert!(eventually(SETTLE, || probe.started() > round).await);
            drop(sse);
            let gone = eventually(SETTLE, || s.session_count() == 0).await;
            assert!(gone, "the session ends with its stream");
            let cancelled = eventually(SETTLE, || probe.cancelled() > round).await;
            assert!(cancelled, "its call is cancelled: {probe:?}");
        }
        // Each stream's keep-alive task lingers until its next tick (see
        // `keep_alive_tasks_end_with_their_stream`): at most one per stream.
        tasks_back_to(baseline + 10, "after 10 HTTP+SSE hang-ups").await;
        s.assert_serving().await;
        s.shutdown().await;
    });
}

/// When an HTTP+SSE client goes away, or a legacy session with an open GET
/// stream is deleted, the session ends at once and so do the tasks that
/// keep its streams alive (they do not wait for their next 15 s tick): a
/// client that connects and hangs up in a loop costs nothing that stays.
#[test]
fn keep_alive_tasks_end_with_their_stream() {
    serial(|| async {
        let (server, _) = support::probed_server();
        let s = HttpServer::start_service(&server, HttpConfig::default()).await;
        s.assert_serving().await;
        let baseline = steady_tasks().await;
        let (sse, _) = s.open_sse().await;
        drop(sse);
        assert!(eventually(SETTLE, || s.session_count() == 0).await);
        let sid = s.session(LATEST_LEGACY).await;
        let mut get = HttpConn::connect(s.addr).await;
        get.write(&http_request(
            "GET",
            "/mcp",
            s.port(),
            &[("Accept", "text/event-stream"), ("Mcp-Session-Id", &sid)],
            b"",
        ))
        .await;
        assert_eq!(get.read_head().await.expect("a stream").status, 200);
        s.delete_session(&sid).await;
        assert!(
            get.body_ends_within(Duration::from_secs(2)).await,
            "the GET stream of a deleted session stays open"
        );
        // The connection itself may be kept alive for another request.
        drop(get);
        tasks_back_to(baseline, "after the streams ended").await;
        s.shutdown().await;
    });
}

#[test]
fn idle_legacy_sessions_expire() {
    serial(|| async {
        let (server, _) = support::probed_server();
        let config = HttpConfig::default().session_idle_timeout(Duration::from_millis(200));
        let s = HttpServer::start_service(&server, config).await;
        for _ in 0..50 {
            s.session(LATEST_LEGACY).await;
        }
        assert_eq!(s.session_count(), 50);
        // Expired sessions are swept (at most once a second) when a session is made.
        tokio::time::sleep(Duration::from_millis(1300)).await;
        s.session(LATEST_LEGACY).await;
        assert_eq!(s.session_count(), 1, "the 50 idle sessions expired");
        s.shutdown().await;
    });
}

// ------------------------------------------------------------------ slow readers

/// Progress notifications a flooding tool sends, and their size: ~150 MiB
/// either way; fewer, larger notifications keep debug builds fast.
fn flood_size() -> (u32, u64) {
    if cfg!(debug_assertions) {
        (12_000, 12 * 1024)
    } else {
        (150_000, 1024)
    }
}

#[test]
fn clients_that_stop_reading_a_flood_of_progress_cost_bounded_memory() {
    serial(|| async {
        let (n, size) = flood_size();
        let (server, probe) = support::probed_server();
        let s = HttpServer::start_service(&server, HttpConfig::default()).await;
        s.assert_serving().await;
        let baseline = steady_tasks().await;
        let rss_before = rss_kib();
        let flood = |id: &str, modern: bool| {
            let mut c = call(&json!(id), "flood", &json!({"n": n, "size": size}), modern);
            c["params"]["_meta"]["progressToken"] = json!(id);
            c
        };
        // A legacy session's call stream, a stateless call stream, and an
        // HTTP+SSE session's one stream: none of them is read past its head.
        let sid = s.session(LATEST_LEGACY).await;
        let (mut legacy, head) = open_call(
            &s,
            &legacy_headers(&sid, LATEST_LEGACY),
            &flood("legacy", false),
        )
        .await;
        assert!(head.is_sse());
        let (modern, head) =
            open_call(&s, &modern_call_headers("flood"), &flood("modern", true)).await;
        assert!(head.is_sse());
        let (sse, path) = s.open_sse().await;
        for body in [
            support::initialize_request(&json!(0), "2024-11-05"),
            support::initialized(),
            flood("sse", false),
        ] {
            let r = s
                .send(&http_request(
                    "POST",
                    &path,
                    s.port(),
                    &[support::JSON],
                    body.to_string().as_bytes(),
                ))
                .await;
            assert_eq!(r.status, 202);
        }
        // Others are served meanwhile.
        s.assert_serving().await;
        // Each flood runs to its end or is cancelled when the server drops
        // its stream (a stateless call whose response is gone is cancelled).
        let done = eventually(Duration::from_secs(120), || {
            probe.started() == 3 && probe.running() == 0
        })
        .await;
        assert!(done, "the floods ended: {probe:?}");
        println!("faults: floods: {probe:?}");
        let rss_flooded = rss_kib();
        s.assert_serving().await;
        let sent = 3 * u64::from(n) * (size + 100) / 1024;
        println!(
            "faults: 3 unread SSE streams, {n} x {size} B progress each (~{:.0} MiB sent): RSS {:.1} -> {:.1} MiB",
            mib(sent),
            mib(rss_before),
            mib(rss_flooded)
        );
        assert!(
            rss_flooded.saturating_sub(rss_before) < 64 * 1024,
            "memory grew by {:.1} MiB",
            mib(rss_flooded.saturating_sub(rss_before))
        );
        // The legacy stream can be resumed: its replay log is bounded (256
        // events by default) and ends with the result.
        let priming = legacy
            .read_until("\n\n", SETTLE)
            .await
            .expect("the priming event");
        let event_id = priming
            .lines()
            .find_map(|l| l.strip_prefix("id: "))
            .expect("an event id")
            .trim()
            .to_owned();
        let resumed = s
            .send(&http_request(
                "GET",
                "/mcp",
                s.port(),
                &[
                    ("Accept", "text/event-stream"),
                    ("Mcp-Session-Id", &sid),
                    ("Last-Event-ID", &event_id),
                ],
                b"",
            ))
            .await;
        let replayed = resumed.messages();
        assert!(replayed.len() <= 257, "{} events replayed", replayed.len());
        assert_eq!(
            result_text(replayed.last().expect("the result")),
            Some(format!("flooded {n}").as_str())
        );
        drop((legacy, modern, sse));
        s.delete_session(&sid).await;
        let gone = eventually(SETTLE, || s.session_count() == 0).await;
        assert!(gone, "{} sessions left", s.session_count());
        tasks_back_to(baseline, "after the slow readers left").await;
        println!(
            "faults: after the slow readers left: RSS {:.1} MiB",
            mib(rss_kib())
        );
        s.shutdown().await;
    });
}

/// stdio stops reading input while more than 1 MiB of output waits, and
/// notifications from running calls go through a bounded queue: a tool that
/// floods progress to a client that does not read costs bounded memory (the
/// excess notifications are dropped), and its response still arrives once
/// the client reads again.
#[test]
fn a_stdio_client_that_never_reads_costs_bounded_memory() {
    serial(|| async {
        let (n, size) = flood_size();
        let (server, probe) = support::probed_server();
        let mut conn = Client::with_capacity(server, 64 * 1024);
        conn.initialize(LATEST_LEGACY).await;
        let rss_before = rss_kib();
        let mut c = call(&json!("f"), "flood", &json!({"n": n, "size": size}), false);
        c["params"]["_meta"] = json!({"progressToken": "f"});
        conn.send(c).await;
        // Never read: the tool still runs to its end (notifications never wait).
        let done = eventually(Duration::from_secs(120), || {
            probe.started() == 1 && probe.running() == 0
        })
        .await;
        assert!(done, "{probe:?}");
        assert_eq!(probe.finished(), 1, "{probe:?}");
        let grown = rss_kib().saturating_sub(rss_before);
        println!(
            "faults: stdio, unread flood of {n} x {size} B progress (~{:.0} MiB): RSS {:.1} -> {:.1} MiB",
            mib(u64::from(n) * size / 1024),
            mib(rss_before),
            mib(rss_before + grown)
        );
        assert!(grown < 64 * 1024, "memory grew by {:.1} MiB", mib(grown));
        // Reading again: some progress, then the response.
        let (r, notes) = conn.recv_response(json!("f")).await;
        assert_eq!(
            result_text(&r),
            Some(format!("flooded {n}").as_str()),
            "{r}"
        );
        assert!(
            !notes.is_empty() && notes.len() < usize::try_from(n).unwrap(),
            "{} notifications kept",
            notes.len()
        );
        assert!(notes
            .iter()
            .all(|v| v["method"] == "notifications/progress"));
        let after = conn
            .send_request(support::legacy_add(&json!("after"), 2.0, 3.0))
            .await;
        assert_eq!(result_text(&after), Some("5"));
        assert!(conn.finish().await.is_empty());
    });
}

// ------------------------------------------------------------------ cancellation storms

#[test]
fn a_stdio_cancellation_storm_leaves_everything_consistent() {
    serial(|| async {
        let holds = 200;
        let messages: u64 = if cfg!(debug_assertions) {
            5_000
        } else {
            50_000
        };
        let (server, probe) = support::probed_server();
        let mut conn = Client::with_capacity(server, 1 << 20);
        conn.initialize(LATEST_LEGACY).await;
        let baseline = steady_tasks().await;
        let rss_before = rss_kib();
        for h in 0..holds {
            conn.send(call(&json!(format!("h{h}")), "hold", &json!({}), false))
                .await;
        }
        assert!(
            eventually(SETTLE, || probe.started() == holds).await,
            "{probe:?}"
        );
        let mut adds = Vec::new();
        let mut bytes = Vec::new();
        let mut target = 0;
        for m in 0..messages {
            let msg = match m % 10 {
                // Running calls (each cancelled many times over).
                0 | 1 => {
                    target += 1;
                    support::cancel(&json!(format!("h{}", target % holds)))
                }
                // Finished calls.
                2 => support::cancel(&json!(format!("a{}", m.saturating_sub(10)))),
                // Unknown ids, and ids of odd types.
                3 => support::cancel(&json!(m + 1_000_000)),
                4 => support::cancel(&json!({"odd": m})),
                5 => {
                    json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":null}})
                }
                // Calls that race with their own cancellation.
                6 => {
                    let id = json!(format!("race{m}"));
                    bytes.extend(
                        call(&id, "sleep", &json!({"ms": 1}), false)
                            .to_string()
                            .into_bytes(),
                    );
                    bytes.push(b'\n');
                    support::cancel(&id)
                }
                // Calls that must be answered.
                _ => {
                    adds.push(m);
                    call(
                        &json!(format!("a{m}")),
                        "add",
                        &json!({"a": m, "b": 1}),
                        false,
                    )
                }
            };
            bytes.extend(msg.to_string().into_bytes());
            bytes.push(b'\n');
        }
        // The storm, then a ping: written while the answers are read.
        let sync = json!("sync");
        bytes.extend(
            json!({"jsonrpc":"2.0","id":sync,"method":"ping"})
                .to_string()
                .into_bytes(),
        );
        bytes.push(b'\n');
        let writer = {
            let mut w = conn.write.take().unwrap();
            tokio::spawn(async move {
                use tokio::io::AsyncWriteExt as _;
                w.write_all(&bytes).await.unwrap();
                w
            })
        };
        let mut answered = std::collections::HashSet::new();
        let mut races_answered = 0;
        loop {
            let v = conn.recv().await;
            if v["id"] == sync {
                break;
            }
            support::check_response(&v).unwrap();
            let id = v["id"]
                .as_str()
                .unwrap_or_else(|| panic!("an unexpected message: {v}"))
                .to_owned();
            assert!(!id.starts_with('h'), "a cancelled call answered: {v}");
            if let Some(m) = id.strip_prefix('a') {
                let m: u64 = m.parse().unwrap();
                assert_eq!(
                    result_text(&v),
                    Some(support::sum_text(m as f64, 1.0).as_str()),
                    "{v}"
                );
            } else {
                assert!(id.starts_with("race"), "{v}");
                races_answered += 1;
            }
            assert!(answered.insert(id), "answered twice: {v}");
        }
        conn.write = Some(writer.await.unwrap());
        // Calls racing their cancellation may still answer after the ping.
        let races = messages / 10;
        tokio::time::sleep(Duration::from_millis(100)).await;
        let ended = eventually(SETTLE, || probe.running() == 0).await;
        assert!(ended, "every call ended: {probe:?}");
        assert!(
            probe.cancelled() >= holds,
            "every hold cancelled: {probe:?}"
        );
        assert_eq!(
            probe.dropped(),
            0,
            "nothing dropped but by cancellation: {probe:?}"
        );
        assert_eq!(
            adds.iter()
                .filter(|m| answered.contains(&format!("a{m}")))
                .count(),
            adds.len(),
            "every add answered"
        );
        tasks_back_to(baseline, "after the storm").await;
        let r = conn
            .send_request(support::legacy_add(&json!("after"), 2.0, 3.0))
            .await;
        assert_eq!(result_text(&r), Some("5"));
        for v in conn.finish().await {
            let id = v["id"].as_str().unwrap_or_default();
            assert!(
                id.starts_with("race"),
                "only racing calls may answer late: {v}"
            );
            races_answered += 1;
        }
        println!(
            "faults: stdio cancellation storm of {messages} messages ({races_answered}/{races} racing calls answered): RSS {:.1} -> {:.1} MiB",
            mib(rss_before),
            mib(rss_kib())
        );
    });
}

#[test]
fn an_http_cancellation_storm_leaves_everything_consistent() {
    serial(|| async {
        let holds = 20;
        let storm: u64 = if cfg!(debug_assertions) {
            1_000
        } else {
            10_000
        };
        let (server, probe) = support::probed_server();
        let s = HttpServer::start_service(&server, HttpConfig::default()).await;
        s.assert_serving().await;
        let baseline = steady_tasks().await;
        let sid = s.session(LATEST_LEGACY).await;
        let headers = legacy_headers(&sid, LATEST_LEGACY);
        let mut streams = Vec::new();
        for h in 0..holds {
            let (conn, head) = open_call(
                &s,
                &headers,
                &call(&json!(format!("h{h}")), "hold", &json!({}), false),
            )
            .await;
            assert!(head.is_sse());
            streams.push(conn);
        }
        assert!(eventually(SETTLE, || probe.started() == holds).await);
        let mut conn = HttpConn::connect(s.addr).await;
        let mut target = 0;
        for m in 0..storm {
            let body = match m % 5 {
                0 => {
                    target += 1;
                    support::cancel(&json!(format!("h{}", target % holds)))
                }
                1 => support::cancel(&json!(m + 1_000_000)),
                2 => support::cancel(&json!([m])),
                3 => support::cancel(&json!(format!("a{}", m.saturating_sub(5)))),
                _ => call(
                    &json!(format!("a{m}")),
                    "add",
                    &json!({"a": m, "b": 1}),
                    false,
                ),
            };
            conn.write(&http_request(
                "POST",
                "/mcp",
                s.port(),
                &as_refs(&headers),
                body.to_string().as_bytes(),
            ))
            .await;
            let r = conn.read_response().await.expect("an answer");
            if m % 5 == 4 {
                assert_eq!(r.status, 200, "{r:?}");
                assert_eq!(r.last()["id"], json!(format!("a{m}")));
                assert_eq!(
                    result_text(&r.last()),
                    Some(support::sum_text(m as f64, 1.0).as_str())
                );
            } else {
                assert_eq!(r.status, 202, "{r:?}");
            }
        }
        assert!(
            eventually(SETTLE, || probe.cancelled() == holds
                && probe.running() == 0)
            .await,
            "{probe:?}"
        );
        // Every cancelled call's stream ends without a result.
        for mut stream in streams {
            let mut head = support::Response {
                version: String::new(),
                status: 200,
                headers: vec![
                    ("transfer-encoding".into(), "chunked".into()),
                    ("content-type".into(), "text/event-stream".into()),
                ],
                body: Vec::new(),
            };
            tokio::time::timeout(SETTLE, stream.read_body(&mut head))
                .await
                .expect("the stream ends");
            let msgs = head.messages();
            assert!(msgs.iter().all(|m| m.get("result").is_none()), "{msgs:?}");
        }
        drop(conn);
        s.delete_session(&sid).await;
        assert_eq!(s.session_count(), 0);
        tasks_back_to(baseline, "after the HTTP storm").await;
        s.assert_serving().await;
        s.shutdown().await;
    });
}

// ------------------------------------------------------------------ bounds on calls

#[test]
fn a_bounded_server_refuses_excess_calls_as_busy_and_recovers() {
    serial(|| async {
        let probe = Arc::new(support::Probe::default());
        let server = Server::builder("bounded", "1")
            .toolbox(support::Probed {
                probe: Arc::clone(&probe),
            })
            .max_concurrent_calls(64, 64)
            .build();
        let mut conn = Client::with_capacity(server, 1 << 20);
        conn.initialize(LATEST_LEGACY).await;
        let baseline = steady_tasks().await;
        let mut bytes = Vec::new();
        for h in 0..1000 {
            bytes.extend(
                call(&json!(h), "hold", &json!({}), false)
                    .to_string()
                    .into_bytes(),
            );
            bytes.push(b'\n');
        }
        conn.write_bytes(&bytes).await;
        let mut busy = 0;
        while busy < 1000 - 128 {
            let v = conn.recv().await;
            assert_eq!(v["error"]["code"], -32000, "only busy errors: {v}");
            busy += 1;
        }
        // 64 running and 64 waiting: the waiting ones' handlers are not
        // called before they get a slot.
        assert!(
            eventually(SETTLE, || probe.started() == 64).await,
            "64 running: {probe:?}"
        );
        let during = alive_tasks();
        assert!(
            during <= baseline + 128 + 8,
            "{during} tasks for 128 admitted calls"
        );
        // Cancel them all, the waiting ones first (a running one cancelled
        // first would hand its slot to a waiting one): the running ones see
        // it, the waiting ones never start.
        for h in (0..1000).rev() {
            conn.send(support::cancel(&json!(h))).await;
        }
        assert!(
            eventually(SETTLE, || probe.cancelled() == 64).await,
            "{probe:?}"
        );
        // The slots come back as the cancelled calls unwind, which the
        // cancellations only start: until then a new call may still be
        // refused as busy, and a client retries. It must succeed in time.
        let deadline = tokio::time::Instant::now() + SETTLE;
        let r = loop {
            let r = conn
                .send_request(support::legacy_add(&json!("after"), 2.0, 3.0))
                .await;
            if r["error"]["code"] != -32000 || tokio::time::Instant::now() > deadline {
                break r;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        assert_eq!(result_text(&r), Some("5"), "{r}");
        assert_eq!(probe.started(), 64, "{probe:?}");
        assert_eq!(probe.running(), 0, "{probe:?}");
        tasks_back_to(baseline, "after cancelling every admitted call").await;
        assert!(
            conn.finish().await.is_empty(),
            "no answer to a cancelled call"
        );
    });
}

/// "Robustness by default": a server built with no limits set still bounds
/// the calls it runs and queues. 20,000 pipelined calls to a tool that waits
/// start only `DEFAULT_MAX_RUNNING_CALLS` handlers, the waiting ones stop at
/// `DEFAULT_MAX_WAITING_CALLS`, every other call is refused as busy at once
/// (-32000, with its id), and the server still answers.
#[test]
fn a_default_server_bounds_concurrent_calls() {
    serial(|| async {
        let (server, probe) = support::probed_server();
        let mut conn = Client::with_capacity(server, 1 << 20);
        conn.initialize(LATEST_LEGACY).await;
        let total = 20_000;
        let mut bytes = Vec::new();
        for h in 0..total {
            bytes.extend(
                call(&json!(h), "hold", &json!({}), false)
                    .to_string()
                    .into_bytes(),
            );
            bytes.push(b'\n');
        }
        conn.write_bytes(&bytes).await;
        conn.send(json!({"jsonrpc": "2.0", "id": "after", "method": "ping"}))
            .await;
        let (pong, before) = conn.recv_response(json!("after")).await;
        assert_eq!(pong["result"], json!({}), "{pong}");
        // Every call beyond both bounds is answered at once, before any hold ends.
        for r in &before {
            assert_eq!(r["error"]["code"], -32000, "{r}");
            assert!(r["id"].is_i64(), "{r}");
        }
        let busy = before.len();
        assert_eq!(
            busy,
            total - DEFAULT_MAX_RUNNING_CALLS - DEFAULT_MAX_WAITING_CALLS
        );
        assert!(
            eventually(SETTLE, || probe.started() == DEFAULT_MAX_RUNNING_CALLS).await,
            "{} handlers started",
            probe.started()
        );
        println!(
            "faults: default server, {total} waiting calls: {} started, {busy} refused as busy, {} tasks alive",
            probe.started(),
            alive_tasks()
        );
    });
}

// ------------------------------------------------------------------ other bounds

#[test]
fn the_session_cap_refuses_new_sessions_with_503_until_one_ends() {
    serial(|| async {
        let (server, _) = support::probed_server();
        let s = HttpServer::start_service(&server, HttpConfig::default().max_sessions(5)).await;
        let sids: Vec<String> = {
            let mut v = Vec::new();
            for _ in 0..5 {
                v.push(s.session(LATEST_LEGACY).await);
            }
            v
        };
        let r = s
            .post(
                &[support::JSON, support::ACCEPT_BOTH],
                support::initialize_request(&json!(0), LATEST_LEGACY)
                    .to_string()
                    .as_bytes(),
            )
            .await;
        assert_eq!(r.status, 503, "{r:?}");
        assert_eq!(r.json()["error"]["code"], -32603);
        // So is an HTTP+SSE stream.
        let r = s
            .send(&http_request(
                "GET",
                "/sse",
                s.port(),
                &[("Accept", "text/event-stream")],
                b"",
            ))
            .await;
        assert_eq!(r.status, 503, "{r:?}");
        // Stateless calls need no session and are still served.
        let m = s
            .post_json(
                &as_refs(&modern_call_headers("add")),
                &support::modern_add(&json!(1), 1.0, 2.0),
            )
            .await;
        assert_eq!(result_text(&m.last()), Some("3"));
        s.delete_session(&sids[0]).await;
        s.session(LATEST_LEGACY).await;
        assert_eq!(s.session_count(), 5);
        s.shutdown().await;
    });
}

#[test]
fn a_panicking_tool_is_an_error_result_on_every_transport() {
    serial(|| async {
        let (server, probe) = support::probed_server();
        let s = HttpServer::start_service(&server, HttpConfig::default()).await;
        let sid = s.session(LATEST_LEGACY).await;
        let legacy = s
            .post_json(
                &as_refs(&legacy_headers(&sid, LATEST_LEGACY)),
                &call(&json!(1), "panic", &json!({}), false),
            )
            .await;
        assert_eq!(legacy.status, 200, "{legacy:?}");
        assert_eq!(legacy.last()["result"]["isError"], true, "{legacy:?}");
        let modern = s
            .post_json(
                &as_refs(&modern_call_headers("panic")),
                &call(&json!(2), "panic", &json!({}), true),
            )
            .await;
        assert_eq!(modern.status, 200, "{modern:?}");
        assert_eq!(modern.last()["result"]["isError"], true, "{modern:?}");
        let mut conn = Client::start(server.clone());
        conn.initialize(LATEST_LEGACY).await;
        let r = conn
            .send_request(call(&json!(3), "panic", &json!({}), false))
            .await;
        assert_eq!(r["result"]["isError"], true, "{r}");
        assert!(
            r["result"]["content"][0]["text"]
                .as_str()
                .is_some_and(|t| t.contains("on purpose")),
            "{r}"
        );
        let after = conn
            .send_request(support::legacy_add(&json!(4), 2.0, 3.0))
            .await;
        assert_eq!(result_text(&after), Some("5"));
        assert!(conn.finish().await.is_empty());
        assert_eq!(probe.started(), 3);
        s.assert_serving().await;
        s.shutdown().await;
    });
}
