//! Shared state on Redis for MCP servers built with `oxmcp-server`: legacy
//! sessions, `Last-Event-ID` replay and the bus between instances, so that
//! several instances serve one service behind any load balancer.
//!
//! [`RedisStore`] implements [`Store`]; give every instance one connected
//! to the same Redis (and the same key prefix):
//!
//! ```no_run
//! # async fn run() -> Result<(), redis::RedisError> {
//! use std::time::Duration;
//!
//! let store = oxmcp_redis::RedisStore::builder("redis://127.0.0.1:6379/0")
//!     .prefix("myapp:")
//!     .timeout(Duration::from_secs(1))
//!     .connect()
//!     .await?;
//! // HttpConfig::default().store(store) ...
//! # Ok(())
//! # }
//! ```
//!
//! Every key it writes expires; every method answers within the timeout
//! (an error when Redis is down, stopped or slow), and the connection comes
//! back by itself when Redis does. See the crate's README for the key
//! layout.

#![warn(missing_docs)]

mod bus;
mod scripts;

use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use oxmcp_server::policy::BoxFuture;
use oxmcp_server::state::{Append, BusEvent, Store, StoreError, StoreResult, StreamLog};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, IntoConnectionInfo, RedisError, RedisResult};
use tokio::sync::mpsc;

/// The `redis` crate this one is built on (for [`RedisStore::connection`]).
pub use redis;

/// The store's name in logs and errors.
const NAME: &str = "redis";

/// The key prefix unless [`RedisStoreBuilder::prefix`] says otherwise.
pub const DEFAULT_PREFIX: &str = "mcp:";

/// How long each operation may take unless [`RedisStoreBuilder::timeout`]
/// says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1);

/// How many times the connection manager retries connecting before the
/// commands waiting for it fail (the next command tries again).
const CONNECT_RETRIES: usize = 2;

/// How long sent data may go unacknowledged before the connection is
/// deemed dead (Linux's `TCP_USER_TIMEOUT`).
#[cfg(target_os = "linux")]
const UNACKED_LIMIT: Duration = Duration::from_secs(10);

/// The longest expiry written: a hundred years, in milliseconds.
const MAX_TTL_MS: u64 = 100 * 365 * 24 * 3600 * 1000;

/// A [`Store`] on Redis: sessions, stream logs and the bus of every
/// instance of a service that connects to the same Redis with the same
/// prefix. Cheap to clone (clones share the connection).
#[derive(Clone)]
pub struct RedisStore {
    inner: Arc<Inner>,
}

struct Inner {
    conn: ConnectionManager,
    client: Client,
    prefix: String,
    timeout: Duration,
    /// Redis answered the last command (for logging the changes only).
    up: AtomicBool,
}

impl fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let info = self.inner.client.get_connection_info();
        f.debug_struct("RedisStore")
            .field("addr", &info.addr().to_string())
            .field("db", &info.redis_settings().db())
            .field("prefix", &self.inner.prefix)
            .field("timeout", &self.inner.timeout)
            .finish_non_exhaustive()
    }
}

/// Configures a [`RedisStore`]: [`RedisStore::builder`].
pub struct RedisStoreBuilder {
    client: RedisResult<Client>,
    prefix: String,
    timeout: Duration,
}

impl fmt::Debug for RedisStoreBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("RedisStoreBuilder");
        match &self.client {
            Ok(client) => {
                let info = client.get_connection_info();
                d.field("addr", &info.addr().to_string())
                    .field("db", &info.redis_settings().db());
            }
            Err(_) => {
                d.field("addr", &"<invalid url>");
            }
        }
        d.field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl RedisStoreBuilder {
    /// Prefixes every key and the bus channel with `prefix` (default
    /// `"mcp:"`): services sharing one Redis each use their own.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// How long one operation may take, connecting included (default 1 s);
    /// past it the operation fails.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Connects (failing if Redis cannot be reached, within a few timeouts).
    pub async fn connect(self) -> Result<RedisStore, RedisError> {
        let client = self.client?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(self.timeout))
            .set_response_timeout(Some(self.timeout))
            .set_number_of_retries(CONNECT_RETRIES)
            .set_min_delay(Duration::from_millis(100))
            .set_max_delay(Duration::from_secs(1));
        let conn = ConnectionManager::new_with_config(client.clone(), config).await?;
        Ok(RedisStore {
            inner: Arc::new(Inner {
                conn,
                client,
                prefix: self.prefix,
                timeout: self.timeout,
                up: AtomicBool::new(true),
            }),
        })
    }
}

impl RedisStore {
    /// Connects to the Redis at `url` (`redis://[user:password@]host:port/db`,
    /// `rediss://` needs one of the `redis` crate's TLS features) with the
    /// default prefix `"mcp:"` and a timeout of 1 s per operation.
    pub async fn connect(url: &str) -> Result<RedisStore, RedisError> {
        RedisStore::builder(url).connect().await
    }

    /// A store for the Redis at `url`, to configure before
    /// [`connect`](RedisStoreBuilder::connect)ing.
    pub fn builder(url: &str) -> RedisStoreBuilder {
        RedisStoreBuilder {
            client: open(url),
            prefix: DEFAULT_PREFIX.to_owned(),
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// The store's connection (it reconnects by itself), for the
    /// application's own data. Its commands time out after the store's
    /// timeout too.
    pub fn connection(&self) -> ConnectionManager {
        self.inner.conn.clone()
    }

    /// The key prefix.
    pub fn prefix(&self) -> &str {
        &self.inner.prefix
    }

    /// The timeout of each operation.
    pub fn timeout(&self) -> Duration {
        self.inner.timeout
    }
}

/// A client for `url` whose TCP connections send small commands at once
/// and, on Linux, fail when what they sent goes unacknowledged for
/// [`UNACKED_LIMIT`] (a server that vanished from the network, which no
/// reset or close would reveal: the connection is then made anew).
fn open(url: &str) -> RedisResult<Client> {
    let info = url.into_connection_info()?;
    let tcp = info.tcp_settings().clone().set_nodelay(true);
    #[cfg(target_os = "linux")]
    let tcp = tcp.set_user_timeout(UNACKED_LIMIT);
    Client::open(info.set_tcp_settings(tcp))
}

/// Whether a failed command may be sent again: it is idempotent, and the
/// connection was found dropped (so the manager is reconnecting).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Retry {
    OnDrop,
    Never,
}

impl Inner {
    fn key(&self, kind: &str, id: &str) -> String {
        format!("{}{kind}:{id}", self.prefix)
    }

    fn stream_key(&self, kind: &str, session: &str, stream: u64) -> String {
        format!("{}{kind}:{session}:{stream}", self.prefix)
    }

    /// The prefix of the `kind` keys of `session`'s streams.
    fn streams_base(&self, kind: &str, session: &str) -> String {
        format!("{}{kind}:{session}:", self.prefix)
    }

    fn bus_channel(&self) -> String {
        format!("{}bus", self.prefix)
    }

    /// Runs `op` on the connection within the timeout, mapping errors and
    /// logging when Redis is lost and back.
    async fn run<T, F, Fut>(&self, retry: Retry, op: F) -> StoreResult<T>
    where
        F: Fn(ConnectionManager) -> Fut,
        Fut: Future<Output = RedisResult<T>>,
    {
        let attempt = async {
            let first = op(self.conn.clone()).await;
            match first {
                Err(e) if retry == Retry::OnDrop && dropped(&e) => op(self.conn.clone()).await,
                other => other,
            }
        };
        match tokio::time::timeout(self.timeout, attempt).await {
            Ok(Ok(value)) => {
                if !self.up.swap(true, Ordering::Relaxed) {
                    tracing::warn!("redis is back");
                }
                Ok(value)
            }
            Ok(Err(e)) => {
                if unavailable(&e) && self.up.swap(false, Ordering::Relaxed) {
                    tracing::warn!(error = %e, "redis is unavailable");
                }
                Err(StoreError::new(NAME, e))
            }
            Err(_) => {
                if self.up.swap(false, Ordering::Relaxed) {
                    tracing::warn!(timeout = ?self.timeout, "redis is unavailable: no answer in time");
                }
                Err(StoreError::timed_out(NAME))
            }
        }
    }
}

/// The connection was found dropped: the manager reconnects, and a command
/// sent again waits for the new connection.
fn dropped(e: &RedisError) -> bool {
    e.is_unrecoverable_error() || e.is_connection_dropped()
}

/// The error says Redis cannot be reached (not that it refused a command).
fn unavailable(e: &RedisError) -> bool {
    e.is_io_error() || e.is_timeout() || e.is_connection_dropped() || e.is_connection_refusal()
}

/// An expiry in whole milliseconds, at least 1 (Redis refuses 0).
fn millis(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis())
        .unwrap_or(u64::MAX)
        .clamp(1, MAX_TTL_MS)
}

/// A log item: the sequence number (8 bytes, big-endian), then the event.
fn encode_event(seq: u64, event: &[u8]) -> Vec<u8> {
    let mut item = Vec::with_capacity(8 + event.len());
    item.extend_from_slice(&seq.to_be_bytes());
    item.extend_from_slice(event);
    item
}

fn decode_event(item: Vec<u8>) -> Option<(u64, Bytes)> {
    let seq = u64::from_be_bytes(item.get(..8)?.try_into().ok()?);
    Some((seq, Bytes::from(item).slice(8..)))
}

impl RedisStore {
    /// `SET key value PX ttl` (sent again once if the connection dropped).
    fn set_expiring(
        &self,
        key: String,
        value: Bytes,
        ttl: Duration,
    ) -> BoxFuture<'static, StoreResult<()>> {
        let inner = self.inner.clone();
        let ms = millis(ttl);
        Box::pin(async move {
            inner
                .run(Retry::OnDrop, |mut conn| {
                    let (key, value) = (&key, &value);
                    async move {
                        redis::cmd("SET")
                            .arg(key)
                            .arg(value.as_ref())
                            .arg("PX")
                            .arg(ms)
                            .exec_async(&mut conn)
                            .await
                    }
                })
                .await
        })
    }

    /// `GET key` (sent again once if the connection dropped).
    fn get_bytes(&self, key: String) -> BoxFuture<'static, StoreResult<Option<Bytes>>> {
        let inner = self.inner.clone();
        Box::pin(async move {
            inner
                .run(Retry::OnDrop, |mut conn| {
                    let key = &key;
                    async move {
                        let value: Option<Vec<u8>> =
                            redis::cmd("GET").arg(key).query_async(&mut conn).await?;
                        Ok(value.map(Bytes::from))
                    }
                })
                .await
        })
    }
}

impl Store for RedisStore {
    fn name(&self) -> &'static str {
        NAME
    }

    fn put_session(
        &self,
        id: &str,
        record: Bytes,
        ttl: Duration,
    ) -> BoxFuture<'static, StoreResult<()>> {
        self.set_expiring(self.inner.key("s", id), record, ttl)
    }

    fn get_session(
        &self,
        id: &str,
        ttl: Duration,
    ) -> BoxFuture<'static, StoreResult<Option<Bytes>>> {
        let inner = self.inner.clone();
        let key = inner.key("s", id);
        let ms = millis(ttl);
        Box::pin(async move {
            let record: Option<Vec<u8>> = inner
                .run(Retry::OnDrop, |mut conn| {
                    let key = &key;
                    async move {
                        redis::cmd("GETEX")
                            .arg(key)
                            .arg("PX")
                            .arg(ms)
                            .query_async(&mut conn)
                            .await
                    }
                })
                .await?;
            Ok(record.map(Bytes::from))
        })
    }

    fn touch_session(&self, id: &str, ttl: Duration) -> BoxFuture<'static, StoreResult<bool>> {
        let inner = self.inner.clone();
        let keys = [inner.key("s", id), inner.key("k", id)];
        let bases = [inner.streams_base("e", id), inner.streams_base("x", id)];
        let ms = millis(ttl);
        Box::pin(async move {
            inner
                .run(Retry::OnDrop, |mut conn| {
                    let mut call = scripts::TOUCH.prepare_invoke();
                    call.key(&keys[0])
                        .key(&keys[1])
                        .arg(ms)
                        .arg(&bases[0])
                        .arg(&bases[1]);
                    async move { call.invoke_async::<bool>(&mut conn).await }
                })
                .await
        })
    }

    fn remove_session(&self, id: &str) -> BoxFuture<'static, StoreResult<bool>> {
        let inner = self.inner.clone();
        let keys = [inner.key("s", id), inner.key("k", id)];
        let bases = [inner.streams_base("e", id), inner.streams_base("x", id)];
        Box::pin(async move {
            inner
                .run(Retry::Never, |mut conn| {
                    let mut call = scripts::REMOVE.prepare_invoke();
                    call.key(&keys[0])
                        .key(&keys[1])
                        .arg(&bases[0])
                        .arg(&bases[1]);
                    async move { call.invoke_async::<bool>(&mut conn).await }
                })
                .await
        })
    }

    fn append_events(
        &self,
        appends: Vec<Append>,
        max_events: usize,
        ttl: Duration,
    ) -> BoxFuture<'static, StoreResult<()>> {
        let inner = self.inner.clone();
        let ms = millis(ttl);
        let max = u64::try_from(max_events)
            .unwrap_or(u64::MAX)
            .min(i64::MAX.unsigned_abs());
        let mut keys = Vec::with_capacity(appends.len() * 3);
        let mut args: Vec<Vec<u8>> = vec![max.to_string().into(), ms.to_string().into()];
        for append in &appends {
            keys.push(inner.stream_key("e", &append.session, append.stream));
            keys.push(inner.stream_key("x", &append.session, append.stream));
            keys.push(inner.key("k", &append.session));
            args.push(append.stream.to_string().into());
            args.push(if append.ended {
                b"1".to_vec()
            } else {
                b"0".to_vec()
            });
            args.push(append.events.len().to_string().into());
            args.extend(
                append
                    .events
                    .iter()
                    .map(|(seq, event)| encode_event(*seq, event)),
            );
        }
        Box::pin(async move {
            if keys.is_empty() {
                return Ok(());
            }
            inner
                .run(Retry::Never, |mut conn| {
                    let mut call = scripts::APPEND.prepare_invoke();
                    for key in &keys {
                        call.key(key);
                    }
                    for arg in &args {
                        call.arg(arg);
                    }
                    async move { call.invoke_async::<()>(&mut conn).await }
                })
                .await
        })
    }

    fn read_events(
        &self,
        session: &str,
        stream: u64,
        after: u64,
    ) -> BoxFuture<'static, StoreResult<Option<StreamLog>>> {
        let inner = self.inner.clone();
        let log_key = inner.stream_key("e", session, stream);
        let ended_key = inner.stream_key("x", session, stream);
        Box::pin(async move {
            let (items, ended): (Vec<Vec<u8>>, Option<Vec<u8>>) = inner
                .run(Retry::OnDrop, |mut conn| {
                    let (log_key, ended_key) = (&log_key, &ended_key);
                    async move {
                        redis::pipe()
                            .atomic()
                            .cmd("LRANGE")
                            .arg(log_key)
                            .arg(0)
                            .arg(-1)
                            .cmd("GET")
                            .arg(ended_key)
                            .query_async(&mut conn)
                            .await
                    }
                })
                .await?;
            if items.is_empty() && ended.is_none() {
                return Ok(None);
            }
            let mut events = Vec::with_capacity(items.len());
            for item in items {
                match decode_event(item) {
                    Some((seq, event)) if seq > after => events.push((seq, event)),
                    Some(_) => {}
                    None => tracing::warn!(key = %log_key, "redis: skipped a malformed log item"),
                }
            }
            Ok(Some(StreamLog {
                events,
                ended: ended.as_deref() == Some(b"1"),
            }))
        })
    }

    fn put_task(
        &self,
        id: &str,
        record: Bytes,
        ttl: Duration,
    ) -> BoxFuture<'static, StoreResult<()>> {
        self.set_expiring(
            self.inner.key("t", id),
            record,
            ttl.max(Duration::from_millis(1)),
        )
    }

    fn get_task(&self, id: &str) -> BoxFuture<'static, StoreResult<Option<Bytes>>> {
        self.get_bytes(self.inner.key("t", id))
    }

    fn put_cached(
        &self,
        key: &str,
        result: Bytes,
        ttl: Duration,
    ) -> BoxFuture<'static, StoreResult<()>> {
        self.set_expiring(
            self.inner.key("r", key),
            result,
            ttl.max(Duration::from_millis(1)),
        )
    }

    fn get_cached(&self, key: &str) -> BoxFuture<'static, StoreResult<Option<Bytes>>> {
        self.get_bytes(self.inner.key("r", key))
    }

    fn claim(&self, key: &str, ttl: Duration) -> BoxFuture<'static, StoreResult<bool>> {
        let inner = self.inner.clone();
        let key = inner.key("c", key);
        let ms = millis(ttl).max(1);
        Box::pin(async move {
            inner
                // Not sent again: a claim that timed out may have been made,
                // and a second try would then say "used".
                .run(Retry::Never, |mut conn| {
                    let key = &key;
                    async move {
                        let set: Option<String> = redis::cmd("SET")
                            .arg(key)
                            .arg(1)
                            .arg("NX")
                            .arg("PX")
                            .arg(ms)
                            .query_async(&mut conn)
                            .await?;
                        Ok(set.is_some())
                    }
                })
                .await
        })
    }

    fn publish(&self, message: Bytes) -> BoxFuture<'static, StoreResult<()>> {
        let inner = self.inner.clone();
        let channel = inner.bus_channel();
        Box::pin(async move {
            inner
                .run(Retry::Never, |mut conn| {
                    let (channel, message) = (&channel, &message);
                    async move {
                        redis::cmd("PUBLISH")
                            .arg(channel)
                            .arg(message.as_ref())
                            .exec_async(&mut conn)
                            .await
                    }
                })
                .await
        })
    }

    fn subscribe(&self) -> BoxFuture<'static, StoreResult<mpsc::Receiver<BusEvent>>> {
        let bus = bus::Bus {
            client: self.inner.client.clone(),
            channel: self.inner.bus_channel(),
            timeout: self.inner.timeout,
        };
        Box::pin(async move {
            match bus.open().await {
                Ok(first) => Ok(bus.spawn(first)),
                Err(e) => Err(StoreError::new(NAME, e)),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_round_trip() {
        let item = encode_event(0x0102_0304_0506_0708, b"data: x\n\n");
        assert_eq!(&item[..8], &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(
            decode_event(item),
            Some((0x0102_0304_0506_0708, Bytes::from_static(b"data: x\n\n")))
        );
        assert_eq!(decode_event(vec![1, 2, 3]), None);
        assert_eq!(decode_event(encode_event(7, b"")), Some((7, Bytes::new())));
    }

    #[test]
    fn expiries_are_whole_positive_milliseconds() {
        assert_eq!(millis(Duration::ZERO), 1);
        assert_eq!(millis(Duration::from_micros(1500)), 1);
        assert_eq!(millis(Duration::from_secs(2)), 2000);
        assert_eq!(millis(Duration::MAX), MAX_TTL_MS);
    }

    #[test]
    fn debug_never_shows_the_password() {
        let b = RedisStore::builder("redis://user:s3cret@example.invalid:6380/2");
        let shown = format!("{b:?}");
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(shown.contains("example.invalid:6380"), "{shown}");
        let b = RedisStore::builder("redis://:s3cret@example.invalid/2").prefix("app:");
        let shown = format!("{b:?}");
        assert!(!shown.contains("s3cret"), "{shown}");
        let shown = format!("{:?}", RedisStore::builder("not a url"));
        assert!(shown.contains("invalid"), "{shown}");
    }
}
