//! `RedisStore` against a real `redis-server`: each test starts its own on
//! a free loopback port (no persistence) and kills it at the end, with
//! `RedisServer` from `mcp_test_support::redis_server`.
//!
//! The binary is `$REDIS_SERVER`, `/usr/bin/redis-server`, or
//! `redis-server` on `PATH`; without one these tests fail (they never skip).

use mcp_test_support::redis_server;

use std::future::Future;
use std::time::{Duration, Instant};

use bytes::Bytes;
use oxmcp_redis::RedisStore;
use oxmcp_server::state::{Append, BusEvent, Store, StreamLog};
use tokio::sync::mpsc;

use redis_server::{free_port, RedisServer};

/// Every operation must fail within this when Redis does not answer.
const FAIL_WITHIN: Duration = Duration::from_millis(2500);

/// What these tests do with their server beyond the process (the support
/// file is std only).
trait RedisServerExt {
    /// A `RedisStore` on it, as `RedisStore::connect` makes it.
    async fn store(&self) -> RedisStore;
    /// A plain connection to look at what the store wrote.
    async fn inspect(&self) -> redis::aio::MultiplexedConnection;
}

impl RedisServerExt for RedisServer {
    async fn store(&self) -> RedisStore {
        RedisStore::connect(&self.url()).await.expect("connecting")
    }

    async fn inspect(&self) -> redis::aio::MultiplexedConnection {
        redis::Client::open(self.url())
            .unwrap()
            .get_multiplexed_async_connection()
            .await
            .expect("connecting to inspect")
    }
}

/// Tries `op` every 100 ms until it succeeds, for at most `within`.
async fn eventually<T, E: std::fmt::Debug, Fut: Future<Output = Result<T, E>>>(
    within: Duration,
    what: &str,
    mut op: impl FnMut() -> Fut,
) -> T {
    let start = Instant::now();
    loop {
        match op().await {
            Ok(value) => return value,
            Err(e) => {
                assert!(
                    start.elapsed() < within,
                    "{what}: still failing after {within:?}: {e:?}"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// The next event on the bus, within `within`.
async fn next_event(rx: &mut mpsc::Receiver<BusEvent>, within: Duration) -> BusEvent {
    tokio::time::timeout(within, rx.recv())
        .await
        .expect("no bus event in time")
        .expect("the bus closed")
}

/// The next message on the bus (skipping `Resubscribed`), within `within`.
async fn next_message(rx: &mut mpsc::Receiver<BusEvent>, within: Duration) -> Bytes {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Some(BusEvent::Message(m))) => return m,
            Ok(Some(BusEvent::Resubscribed)) => {}
            Ok(None) => panic!("the bus closed"),
            Err(elapsed) => panic!("no bus message in {within:?} ({elapsed})"),
        }
    }
}

fn ev(n: u64) -> (u64, Bytes) {
    (n, Bytes::from(format!("id: {n}\ndata: {{\"n\":{n}}}\n\n")))
}

fn append(session: &str, stream: u64, events: Vec<(u64, Bytes)>, ended: bool) -> Append {
    Append {
        session: session.into(),
        stream,
        events,
        ended,
    }
}

const MINUTE: Duration = Duration::from_secs(60);

#[tokio::test]
async fn sessions_expire_unless_used_and_are_removed() {
    let redis = RedisServer::start();
    let s = redis.store().await;
    assert_eq!(s.name(), "redis");
    let ttl = Duration::from_millis(300);
    let record = Bytes::from_static(br#"{"v":"2025-06-18"}"#);

    s.put_session("a", record.clone(), ttl).await.unwrap();
    assert_eq!(s.get_session("a", ttl).await.unwrap(), Some(record.clone()));
    tokio::time::sleep(Duration::from_millis(450)).await;
    assert_eq!(s.get_session("a", ttl).await.unwrap(), None);

    // get refreshes the expiry.
    s.put_session("b", record.clone(), ttl).await.unwrap();
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(s.get_session("b", ttl).await.unwrap().is_some());
    }

    // So does touch; a put replaces the record.
    s.put_session("c", Bytes::from_static(b"old"), ttl)
        .await
        .unwrap();
    s.put_session("c", record.clone(), ttl).await.unwrap();
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(s.touch_session("c", ttl).await.unwrap());
    }
    assert_eq!(s.get_session("c", ttl).await.unwrap(), Some(record.clone()));
    tokio::time::sleep(Duration::from_millis(450)).await;
    assert!(!s.touch_session("c", ttl).await.unwrap());
    assert!(!s.touch_session("never", ttl).await.unwrap());

    // remove: true once.
    s.put_session("d", record.clone(), MINUTE).await.unwrap();
    assert!(s.remove_session("d").await.unwrap());
    assert_eq!(s.get_session("d", MINUTE).await.unwrap(), None);
    assert!(!s.remove_session("d").await.unwrap());

    // Another prefix is another service.
    let other = RedisStore::builder(&redis.url())
        .prefix("other:")
        .connect()
        .await
        .unwrap();
    s.put_session("e", record.clone(), MINUTE).await.unwrap();
    assert_eq!(other.get_session("e", MINUTE).await.unwrap(), None);
    assert_eq!(other.prefix(), "other:");
    assert_eq!(s.prefix(), "mcp:");
    assert_eq!(s.timeout(), Duration::from_secs(1));
}

#[tokio::test]
async fn a_claim_is_first_once_until_it_expires() {
    let redis = RedisServer::start();
    let s = redis.store().await;
    let ttl = Duration::from_millis(300);
    assert!(s.claim("request-state:n1", ttl).await.unwrap());
    assert!(!s.claim("request-state:n1", ttl).await.unwrap());
    assert!(s.claim("request-state:n2", ttl).await.unwrap());
    tokio::time::sleep(Duration::from_millis(450)).await;
    assert!(s.claim("request-state:n1", ttl).await.unwrap());
}

#[tokio::test]
async fn a_cached_result_is_shared_and_expires() {
    let redis = RedisServer::start();
    let s = redis.store().await;
    let other = redis.store().await;
    let ttl = Duration::from_millis(300);
    let result = Bytes::from_static(br#"{"content":[{"type":"text","text":"42"}]}"#);
    s.put_cached("k1", result.clone(), ttl).await.unwrap();
    assert_eq!(other.get_cached("k1").await.unwrap(), Some(result));
    assert_eq!(other.get_cached("k2").await.unwrap(), None);
    tokio::time::sleep(Duration::from_millis(450)).await;
    assert_eq!(s.get_cached("k1").await.unwrap(), None, "expired");
}

#[tokio::test]
async fn logs_are_bounded_end_and_replay_after() {
    let redis = RedisServer::start();
    let s = redis.store().await;

    // As MemoryStore's test.
    s.append_events(
        vec![append("b", 3, (0..5).map(ev).collect(), false)],
        3,
        MINUTE,
    )
    .await
    .unwrap();
    let log = s.read_events("b", 3, 2).await.unwrap().unwrap();
    assert_eq!(log.events, vec![ev(3), ev(4)]);
    assert!(!log.ended);
    s.append_events(vec![append("b", 3, vec![ev(5)], true)], 3, MINUTE)
        .await
        .unwrap();
    let log = s.read_events("b", 3, 0).await.unwrap().unwrap();
    assert_eq!(log.events, vec![ev(3), ev(4), ev(5)]);
    assert!(log.ended);
    assert_eq!(
        s.read_events("b", 3, 5).await.unwrap(),
        Some(StreamLog {
            events: vec![],
            ended: true
        })
    );
    assert!(s.read_events("b", 4, 0).await.unwrap().is_none());
    assert!(s.read_events("nobody", 3, 0).await.unwrap().is_none());
    assert!(!s.remove_session("b").await.unwrap());
    assert!(s.read_events("b", 3, 0).await.unwrap().is_none());
}

#[tokio::test]
async fn a_batch_keeps_its_order_and_any_bytes() {
    let redis = RedisServer::start();
    let s = redis.store().await;

    // One batch, several sessions and streams, in order; a stream appended
    // twice in the batch keeps both parts in order.
    s.append_events(
        vec![
            append("p", 1, vec![ev(1), ev(2)], false),
            append("q", 1, vec![ev(1)], true),
            append("p", 2, vec![ev(7)], false),
            append("p", 1, vec![ev(3)], true),
        ],
        10,
        MINUTE,
    )
    .await
    .unwrap();
    let p1 = s.read_events("p", 1, 0).await.unwrap().unwrap();
    assert_eq!(p1.events, vec![ev(1), ev(2), ev(3)]);
    assert!(p1.ended);
    let q1 = s.read_events("q", 1, 0).await.unwrap().unwrap();
    assert_eq!((q1.events, q1.ended), (vec![ev(1)], true));
    let p2 = s.read_events("p", 2, 0).await.unwrap().unwrap();
    assert_eq!((p2.events, p2.ended), (vec![ev(7)], false));

    // A stream known without events: appended nothing, or ended with nothing.
    s.append_events(
        vec![append("r", 1, vec![], false), append("r", 2, vec![], true)],
        10,
        MINUTE,
    )
    .await
    .unwrap();
    assert_eq!(
        s.read_events("r", 1, 0).await.unwrap(),
        Some(StreamLog::default())
    );
    assert_eq!(
        s.read_events("r", 2, 0).await.unwrap(),
        Some(StreamLog {
            events: vec![],
            ended: true
        })
    );
    // Once ended, a stream stays ended.
    s.append_events(vec![append("r", 2, vec![ev(1)], false)], 10, MINUTE)
        .await
        .unwrap();
    assert!(s.read_events("r", 2, 0).await.unwrap().unwrap().ended);
    s.append_events(vec![], 10, MINUTE).await.unwrap();

    // Large events and large batches.
    let big: Vec<(u64, Bytes)> = (1..=1000)
        .zip(1000..)
        .map(|(n, len)| (n, Bytes::from(vec![b'x'; len])))
        .collect();
    s.append_events(vec![append("big", 1, big.clone(), false)], 600, MINUTE)
        .await
        .unwrap();
    let log = s.read_events("big", 1, 0).await.unwrap().unwrap();
    assert_eq!(log.events, big[400..].to_vec());
    // Arbitrary bytes (and sequence numbers past 2^53) come back as written.
    let odd = vec![
        (u64::MAX - 1, Bytes::from_static(b"\0\xff\r\n")),
        (u64::MAX, Bytes::new()),
    ];
    s.append_events(vec![append("odd", 1, odd.clone(), false)], 10, MINUTE)
        .await
        .unwrap();
    assert_eq!(
        s.read_events("odd", 1, 0).await.unwrap().unwrap().events,
        odd
    );
}

#[tokio::test]
async fn logs_expire_unless_appended_to_or_touched() {
    let redis = RedisServer::start();
    let s = redis.store().await;

    // Logs expire unless appended to.
    let short = Duration::from_millis(300);
    s.append_events(vec![append("t", 1, vec![ev(1)], true)], 10, short)
        .await
        .unwrap();
    for n in 2..5 {
        tokio::time::sleep(Duration::from_millis(200)).await;
        s.append_events(vec![append("t", 2, vec![ev(n)], false)], 10, short)
            .await
            .unwrap();
    }
    assert!(s.read_events("t", 1, 0).await.unwrap().is_none());
    assert_eq!(
        s.read_events("t", 2, 0).await.unwrap().unwrap().events,
        vec![ev(2), ev(3), ev(4)]
    );
    tokio::time::sleep(Duration::from_millis(450)).await;
    assert!(s.read_events("t", 2, 0).await.unwrap().is_none());

    // touch_session refreshes the session's logs too: three touches 400 ms
    // apart outlive a 1 s time to live (600 ms of slack each, for a loaded
    // machine), which the logs would not without them.
    let ttl = Duration::from_secs(1);
    s.put_session("u", Bytes::from_static(b"{}"), ttl)
        .await
        .unwrap();
    s.append_events(
        vec![
            append("u", 1, vec![ev(1)], false),
            append("u", 2, vec![ev(1)], true),
        ],
        10,
        ttl,
    )
    .await
    .unwrap();
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert!(s.touch_session("u", ttl).await.unwrap());
    }
    assert!(s.read_events("u", 1, 0).await.unwrap().is_some());
    let u2 = s.read_events("u", 2, 0).await.unwrap().unwrap();
    assert!(u2.ended, "the ended flag lives as long as the log");
}

#[tokio::test]
async fn remove_session_deletes_the_logs() {
    let redis = RedisServer::start();
    let s = redis.store().await;

    // remove_session deletes the logs (and every key of the session).
    s.put_session("v", Bytes::from_static(b"{}"), MINUTE)
        .await
        .unwrap();
    s.append_events(
        vec![
            append("v", 1, vec![ev(1)], false),
            append("v", 2, vec![ev(1)], true),
            append("v", 3, vec![], false),
        ],
        10,
        MINUTE,
    )
    .await
    .unwrap();
    let mut conn = redis.inspect().await;
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg("mcp:*:v*")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!(keys.len() >= 5, "{keys:?}");
    assert!(s.remove_session("v").await.unwrap());
    for stream in 1..=3 {
        assert!(s.read_events("v", stream, 0).await.unwrap().is_none());
    }
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg("mcp:*:v*")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!(keys.is_empty(), "left behind: {keys:?}");
}

#[tokio::test]
async fn every_key_expires_and_stream_lists_stay_small() {
    let redis = RedisServer::start();
    let s = redis.store().await;
    let ttl = Duration::from_secs(30);

    for i in 0..20 {
        let session = format!("s{i}");
        s.put_session(&session, Bytes::from_static(b"{}"), ttl)
            .await
            .unwrap();
        let appends = (0..3)
            .map(|stream| append(&session, stream, (0..5).map(ev).collect(), stream == 1))
            .collect();
        s.append_events(appends, 3, ttl).await.unwrap();
        assert!(s.get_session(&session, ttl).await.unwrap().is_some());
        if i % 3 == 0 {
            assert!(s.touch_session(&session, ttl).await.unwrap());
        }
        if i % 5 == 0 {
            assert!(s.remove_session(&session).await.unwrap());
        }
    }
    // A claimed requestState, a cached tool result.
    assert!(s.claim("request-state:x", ttl).await.unwrap());
    s.put_cached("result", Bytes::from_static(b"{}"), ttl)
        .await
        .unwrap();
    // Logs of sessions that have no record, and a stream that only ended.
    s.append_events(
        vec![
            append("orphan", 9, vec![ev(1)], false),
            append("orphan", 10, vec![], true),
            append("orphan", 11, vec![], false),
        ],
        3,
        ttl,
    )
    .await
    .unwrap();
    s.publish(Bytes::from_static(b"x")).await.unwrap();

    let mut conn = redis.inspect().await;
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg("*")
        .query_async(&mut conn)
        .await
        .unwrap();
    for kind in ["mcp:s:", "mcp:e:", "mcp:x:", "mcp:k:", "mcp:r:"] {
        assert!(
            keys.iter().any(|k| k.starts_with(kind)),
            "no {kind} key in {keys:?}"
        );
    }
    for key in &keys {
        let pttl: i64 = redis::cmd("PTTL")
            .arg(key)
            .query_async(&mut conn)
            .await
            .unwrap();
        assert!(pttl > 0, "{key} has no expiry (PTTL {pttl})");
        assert!(pttl <= 30_000, "{key} expires too late (PTTL {pttl})");
    }
    println!("{} keys, all expiring", keys.len());

    // A long session's list of streams holds its live streams only.
    let short = Duration::from_millis(200);
    for stream in 0..20 {
        s.append_events(vec![append("long", stream, vec![ev(1)], true)], 3, short)
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    s.append_events(vec![append("long", 99, vec![ev(1)], false)], 3, short)
        .await
        .unwrap();
    let members: i64 = redis::cmd("ZCARD")
        .arg("mcp:k:long")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(members, 1, "expired streams are pruned from the list");
}

/// `INFO memory`'s `used_memory`.
async fn used_memory(conn: &mut redis::aio::MultiplexedConnection) -> i64 {
    let info: String = redis::cmd("INFO")
        .arg("memory")
        .query_async(conn)
        .await
        .unwrap();
    info.lines()
        .find_map(|l| l.strip_prefix("used_memory:"))
        .expect("used_memory in INFO memory")
        .trim()
        .parse()
        .unwrap()
}

#[tokio::test]
async fn an_idle_session_costs_less_than_a_kibibyte() {
    const SESSIONS: i64 = 1000;
    let redis = RedisServer::start();
    let s = redis.store().await;
    let mut conn = redis.inspect().await;
    // Warm up (the script cache, the connection's buffers).
    s.put_session("warm", Bytes::from(vec![b'w'; 300]), MINUTE)
        .await
        .unwrap();
    s.remove_session("warm").await.unwrap();

    let before = used_memory(&mut conn).await;
    for i in 0..SESSIONS {
        // A 32-character id and a ~300-byte JSON record, as the framework writes.
        let id = format!("{i:032x}");
        let record = format!(
            r#"{{"v":"2025-06-18","client":{{"name":"client-{i}","version":"1.0.0"}},"caps":{{"roots":{{"listChanged":true}},"sampling":{{}},"elicitation":{{}}}},"level":"info","subs":[],"owner":"inst-{i:08}","pad":"{}"}}"#,
            "x".repeat(110)
        );
        assert!((280..=320).contains(&record.len()), "{}", record.len());
        s.put_session(&id, Bytes::from(record), Duration::from_secs(3600))
            .await
            .unwrap();
    }
    let after = used_memory(&mut conn).await;
    let keys: i64 = redis::cmd("DBSIZE").query_async(&mut conn).await.unwrap();
    assert_eq!(keys, SESSIONS, "an idle session is one key");
    let per_session = (after - before) / SESSIONS;
    println!(
        "Redis used_memory: {before} -> {after} bytes for {SESSIONS} idle sessions: \
         {per_session} bytes per session (~300-byte record)"
    );
    assert!(per_session <= 1024, "{per_session} bytes per idle session");
}

#[tokio::test]
async fn the_bus_reaches_every_subscriber() {
    let redis = RedisServer::start();
    let s = redis.store().await;
    let other_instance = redis.store().await;
    let mut rx_a = s.subscribe().await.unwrap();
    let mut rx_b = other_instance.subscribe().await.unwrap();
    let elsewhere = RedisStore::builder(&redis.url())
        .prefix("elsewhere:")
        .connect()
        .await
        .unwrap();
    let mut rx_elsewhere = elsewhere.subscribe().await.unwrap();

    s.publish(Bytes::from_static(b"hi")).await.unwrap();
    other_instance
        .publish(Bytes::from(vec![0u8, 255, 1]))
        .await
        .unwrap();
    for rx in [&mut rx_a, &mut rx_b] {
        let second = Duration::from_secs(1);
        assert_eq!(
            next_event(rx, second).await,
            BusEvent::Message(Bytes::from_static(b"hi"))
        );
        assert_eq!(
            next_event(rx, second).await,
            BusEvent::Message(Bytes::from(vec![0u8, 255, 1]))
        );
    }
    assert!(
        tokio::time::timeout(Duration::from_millis(200), rx_elsewhere.recv())
            .await
            .is_err(),
        "another prefix is another bus"
    );

    // A dropped receiver ends its task and its connection.
    let mut conn = redis.inspect().await;
    let subscribers = |conn: &mut redis::aio::MultiplexedConnection| {
        let mut conn = conn.clone();
        async move {
            let (_, n): (String, i64) = redis::cmd("PUBSUB")
                .arg("NUMSUB")
                .arg("mcp:bus")
                .query_async(&mut conn)
                .await
                .unwrap();
            n
        }
    };
    assert_eq!(subscribers(&mut conn).await, 2);
    drop(rx_a);
    eventually(Duration::from_secs(3), "the subscription to end", || {
        let n = subscribers(&mut conn);
        async move {
            match n.await {
                1 => Ok(()),
                n => Err(n),
            }
        }
    })
    .await;
    s.publish(Bytes::from_static(b"still")).await.unwrap();
    assert_eq!(
        next_message(&mut rx_b, Duration::from_secs(1)).await,
        Bytes::from_static(b"still")
    );
}

#[tokio::test]
async fn the_bus_resubscribes_after_a_restart() {
    let mut redis = RedisServer::start();
    let s = redis.store().await;
    let mut rx = s.subscribe().await.unwrap();
    s.publish(Bytes::from_static(b"before")).await.unwrap();
    assert_eq!(
        next_event(&mut rx, Duration::from_secs(1)).await,
        BusEvent::Message(Bytes::from_static(b"before"))
    );

    redis.restart();
    let started = Instant::now();
    assert_eq!(
        next_event(&mut rx, Duration::from_secs(6)).await,
        BusEvent::Resubscribed
    );
    println!("resubscribed {:?} after the restart", started.elapsed());
    eventually(
        Duration::from_secs(5),
        "publishing after the restart",
        || s.publish(Bytes::from_static(b"after")),
    )
    .await;
    assert_eq!(
        next_event(&mut rx, Duration::from_secs(2)).await,
        BusEvent::Message(Bytes::from_static(b"after"))
    );
}

/// Every operation of the store, each on its own keys.
async fn every_operation(s: &RedisStore) -> Vec<(&'static str, bool, Duration)> {
    let mut results = Vec::new();
    macro_rules! op {
        ($name:literal, $e:expr) => {{
            let start = Instant::now();
            let ok = $e.await.is_ok();
            results.push(($name, ok, start.elapsed()));
        }};
    }
    op!(
        "put_session",
        s.put_session("x", Bytes::from_static(b"{}"), MINUTE)
    );
    op!("get_session", s.get_session("x", MINUTE));
    op!("touch_session", s.touch_session("x", MINUTE));
    op!(
        "append_events",
        s.append_events(vec![append("x", 1, vec![ev(1)], false)], 10, MINUTE)
    );
    op!("read_events", s.read_events("x", 1, 0));
    op!(
        "put_cached",
        s.put_cached("x", Bytes::from_static(b"{}"), MINUTE)
    );
    op!("get_cached", s.get_cached("x"));
    op!("publish", s.publish(Bytes::from_static(b"m")));
    op!("remove_session", s.remove_session("x"));
    op!("subscribe", s.subscribe());
    op!("own command", async {
        let mut conn = s.connection();
        redis::cmd("PING").query_async::<String>(&mut conn).await
    });
    results
}

fn assert_all_fail_fast(results: &[(&str, bool, Duration)]) {
    for (name, ok, took) in results {
        println!("  {name}: {} in {took:?}", if *ok { "ok" } else { "error" });
        assert!(!ok, "{name} succeeded with Redis unavailable");
        assert!(
            *took <= FAIL_WITHIN,
            "{name} took {took:?} to fail (more than {FAIL_WITHIN:?})"
        );
    }
}

#[tokio::test]
async fn a_stopped_redis_fails_fast_and_comes_back() {
    let redis = RedisServer::start();
    let s = redis.store().await;
    let mut rx = s.subscribe().await.unwrap();
    s.put_session("kept", Bytes::from_static(b"{}"), MINUTE)
        .await
        .unwrap();

    redis.pause();
    println!("Redis stopped (SIGSTOP):");
    let results = every_operation(&s).await;
    // And all at once.
    let start = Instant::now();
    let (got, published, subscribed) = tokio::join!(
        s.get_session("kept", MINUTE),
        s.publish(Bytes::from_static(b"lost")),
        s.subscribe()
    );
    let together = start.elapsed();
    let error = s.get_session("x", MINUTE).await.err();
    redis.resume();
    assert_all_fail_fast(&results);
    assert!(got.is_err() && published.is_err() && subscribed.is_err());
    assert!(together <= FAIL_WITHIN, "together: {together:?}");
    let error = error.expect("an error while stopped");
    println!(
        "  (an error reads: {error}; caused by: {:?})",
        std::error::Error::source(&error).map(ToString::to_string)
    );

    // After SIGCONT.
    let resumed = Instant::now();
    let record = eventually(Duration::from_secs(5), "get_session after SIGCONT", || {
        s.get_session("kept", MINUTE)
    })
    .await;
    println!("working again {:?} after SIGCONT", resumed.elapsed());
    assert_eq!(record, Some(Bytes::from_static(b"{}")));
    let results = every_operation(&s).await;
    for (name, ok, took) in &results {
        assert!(ok, "{name} failed after SIGCONT ({took:?})");
    }
    // The subscription may have been lost meanwhile (its pings went
    // unanswered) and be coming back: publish until heard.
    let start = Instant::now();
    loop {
        s.publish(Bytes::from_static(b"after")).await.unwrap();
        match tokio::time::timeout(Duration::from_millis(500), rx.recv()).await {
            // Also "m" and "lost" from above, published when Redis resumed.
            Ok(Some(BusEvent::Message(message))) if message == "after" => break,
            other => assert!(
                start.elapsed() < Duration::from_secs(10),
                "the bus after SIGCONT: {other:?}"
            ),
        }
    }
    println!("the bus works again {:?} later", start.elapsed());
}

#[tokio::test]
async fn a_killed_redis_is_reconnected_by_itself() {
    let mut redis = RedisServer::start();
    let s = redis.store().await;
    s.put_session("a", Bytes::from_static(b"{}"), MINUTE)
        .await
        .unwrap();

    redis.kill();
    println!("Redis killed:");
    let results = every_operation(&s).await;
    assert_all_fail_fast(&results);

    redis.restart();
    let restarted = Instant::now();
    eventually(
        Duration::from_secs(5),
        "put_session after the restart",
        || s.put_session("b", Bytes::from_static(b"{}"), MINUTE),
    )
    .await;
    println!("working again {:?} after the restart", restarted.elapsed());
    // The new server is empty (no persistence): "a" is gone, "b" is there.
    assert_eq!(s.get_session("a", MINUTE).await.unwrap(), None);
    assert!(s.get_session("b", MINUTE).await.unwrap().is_some());
    let results = every_operation(&s).await;
    for (name, ok, took) in &results {
        assert!(ok, "{name} failed after the restart ({took:?})");
    }
}

#[tokio::test]
async fn connecting_to_nothing_fails() {
    let port = free_port();
    let start = Instant::now();
    let result = RedisStore::builder(&format!("redis://127.0.0.1:{port}/0"))
        .timeout(Duration::from_millis(500))
        .connect()
        .await;
    assert!(result.is_err());
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert!(RedisStore::connect("not a url").await.is_err());

    // Debug shows where, never the password.
    let redis = RedisServer::start();
    let url = format!("redis://default:hunter2@127.0.0.1:{}/0", redis.port());
    // The server has no password; AUTH default <anything> is refused, so
    // only the builder is shown here.
    let shown = format!("{:?}", RedisStore::builder(&url));
    assert!(!shown.contains("hunter2"), "{shown}");
    let s = redis.store().await;
    let shown = format!("{s:?}");
    assert!(shown.contains(&redis.port().to_string()), "{shown}");
}
