//! The result cache of read-only tools: a tool marked `cache = "60s"`
//! (`ToolEntry::with_cache`) answers the same caller's same arguments from
//! the cache for that long.
//!
//! - The key is a digest of the tool list (every visible tool's name and
//!   definition: a change to the list retires every entry), the tool's
//!   name, its arguments and the caller; a result is never served to
//!   another caller, and a caller nothing tells apart is not cached at all.
//! - In memory: moka, bounded in bytes (each entry weighs its JSON), each
//!   entry expiring after its tool's time. On a shared store as well
//!   ([`ResultCache::shared`]): the instances answer from one another's
//!   results; a store that fails or is slow only costs a call.
//! - Results with `isError` are not kept.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{CallOutcome, Caller, CallerKeyHook, Middleware, Next};
use crate::common::BoxFuture;
use crate::state::Store;
use crate::tool::ToolRequest;
use bytes::Bytes;
use oxmcp_types::CallToolResult;
use sha2::{Digest as _, Sha256};

/// The tool list the cache's entries belong to.
pub(crate) trait ToolList: Send + Sync {
    /// How many times the visible list changed.
    fn generation(&self) -> u64;
    /// A digest of the visible tools' definitions.
    fn digest(&self) -> [u8; 32];
}

/// The memory a [`ResultCache`] may use unless told otherwise: 64 MiB.
pub const DEFAULT_CACHE_BYTES: u64 = 64 * 1024 * 1024;

/// Where the results of tools marked `cache` are kept, set with
/// [`ServerBuilder::result_cache`](crate::ServerBuilder::result_cache) (a
/// server with such a tool and no cache set gets `ResultCache::new()`).
/// Clones share the cache and its counts.
///
/// ```
/// use oxmcp_server::policy::ResultCache;
/// use oxmcp_server::Server;
///
/// let cache = ResultCache::new().max_bytes(16 << 20);
/// let server = Server::builder("app", "1.0").result_cache(cache.clone()).build();
/// // ... later
/// let stats = cache.stats();
/// println!("{} hits, {} misses", stats.hits, stats.misses);
/// # let _ = server;
/// ```
#[derive(Clone)]
pub struct ResultCache {
    max_bytes: u64,
    store: Option<Arc<dyn Store>>,
    key: Option<Arc<CallerKeyHook>>,
    counts: Arc<Counts>,
}

impl fmt::Debug for ResultCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResultCache")
            .field("max_bytes", &self.max_bytes)
            .field("store", &self.store.as_ref().map(|s| s.name()))
            .field("key", &self.key.is_some())
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl Default for ResultCache {
    fn default() -> Self {
        ResultCache::new()
    }
}

#[derive(Debug, Default)]
struct Counts {
    hits: AtomicU64,
    misses: AtomicU64,
    uncached: AtomicU64,
}

/// What a [`ResultCache`] did so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CacheStats {
    /// Calls answered from the cache (memory or store).
    pub hits: u64,
    /// Calls of cached tools that ran (their result then kept).
    pub misses: u64,
    /// Calls of cached tools that ran without the cache: nothing told
    /// their caller apart.
    pub uncached: u64,
}

impl ResultCache {
    /// A cache in this process's memory, of at most [`DEFAULT_CACHE_BYTES`].
    pub fn new() -> Self {
        ResultCache {
            max_bytes: DEFAULT_CACHE_BYTES,
            store: None,
            key: None,
            counts: Arc::default(),
        }
    }

    /// Bounds the memory the entries take (their JSON's bytes); the least
    /// used go first.
    #[must_use]
    pub fn max_bytes(mut self, bytes: u64) -> Self {
        self.max_bytes = bytes;
        self
    }

    /// Keeps results on `store` as well, where every instance sharing it
    /// finds them (the same store as the HTTP transport's, usually).
    #[must_use]
    pub fn shared(mut self, store: impl Store) -> Self {
        self.store = Some(Arc::new(store));
        self
    }

    /// Tells callers apart where the token and the session do not (see
    /// [`RateLimit::key`](super::RateLimit::key)).
    #[must_use]
    pub fn key(mut self, hook: impl Fn(&Caller) -> Option<String> + Send + Sync + 'static) -> Self {
        self.key = Some(Arc::new(hook));
        self
    }

    /// The hits and misses so far.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.counts.hits.load(Ordering::Relaxed),
            misses: self.counts.misses.load(Ordering::Relaxed),
            uncached: self.counts.uncached.load(Ordering::Relaxed),
        }
    }

    /// Checked when the server is built.
    pub(crate) fn check(&self) -> Result<(), crate::Error> {
        if self.max_bytes == 0 {
            return Err(crate::Error::Config(
                "result_cache: max_bytes is zero: nothing could be kept; give a size, or no cache"
                    .to_owned(),
            ));
        }
        Ok(())
    }

    /// The layer that serves calls of `tools` from this cache.
    pub(crate) fn middleware(&self, tools: Arc<dyn ToolList>) -> Cached {
        let memory = moka::sync::Cache::builder()
            .max_capacity(self.max_bytes)
            .weigher(|_, entry: &Entry| entry.weight)
            .expire_after(PerEntry)
            .build();
        Cached(Arc::new(Shared {
            config: self.clone(),
            memory,
            tools,
            tag: Mutex::new(None),
        }))
    }
}

/// A kept result, what it weighs (its JSON's bytes) and how long it lives.
#[derive(Clone)]
struct Entry {
    result: Arc<CallToolResult>,
    weight: u32,
    ttl: Duration,
}

impl Entry {
    fn new(result: CallToolResult, bytes: &[u8], ttl: Duration) -> Entry {
        Entry {
            result: Arc::new(result),
            weight: u32::try_from(bytes.len()).unwrap_or(u32::MAX),
            ttl,
        }
    }
}

/// Each entry expires after its own tool's time.
struct PerEntry;

impl moka::Expiry<[u8; 32], Entry> for PerEntry {
    fn expire_after_create(&self, _: &[u8; 32], entry: &Entry, _: Instant) -> Option<Duration> {
        Some(entry.ttl)
    }
}

/// What the layer's services share.
struct Shared {
    config: ResultCache,
    memory: moka::sync::Cache<[u8; 32], Entry>,
    tools: Arc<dyn ToolList>,
    /// The tool list's generation and digest, as last computed.
    tag: Mutex<Option<(u64, [u8; 32])>>,
}

impl Shared {
    /// The digest of the tool list as it is now; on a change, the memory
    /// entries of the old list are dropped.
    fn tag(&self) -> [u8; 32] {
        let generation = self.tools.generation();
        let mut tag = oxmcp_wire::sync::lock(&self.tag);
        if let Some((g, digest)) = *tag {
            if g == generation {
                return digest;
            }
        }
        let digest = self.tools.digest();
        if tag.is_some() {
            self.memory.invalidate_all();
        }
        *tag = Some((generation, digest));
        digest
    }

    /// The key of a call, or `None` when its caller cannot be told apart.
    fn key(&self, call: &ToolRequest) -> Option<[u8; 32]> {
        let owner = call.caller.owner(self.config.key.as_deref())?;
        let mut h = Sha256::new();
        // Apart from every other digest of the crate.
        h.update(b"mcp-result-cache\0");
        h.update(self.tag());
        for part in [call.name.as_bytes(), owner.as_bytes()] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part);
        }
        h.update(serde_json::to_vec(&call.arguments).unwrap_or_default());
        Some(h.finalize().into())
    }
}

/// The cache as a middleware, innermost: the calls it answers have
/// passed every other layer.
pub(crate) struct Cached(Arc<Shared>);

impl Middleware for Cached {
    fn call(&self, call: ToolRequest, next: Next) -> BoxFuture<'static, CallOutcome> {
        let Some(ttl) = call.entry().cache else {
            return next.run(call);
        };
        let counts = &self.0.config.counts;
        let Some(key) = self.0.key(&call) else {
            counts.uncached.fetch_add(1, Ordering::Relaxed);
            return next.run(call);
        };
        if let Some(entry) = self.0.memory.get(&key) {
            counts.hits.fetch_add(1, Ordering::Relaxed);
            let result = (*entry.result).clone();
            return Box::pin(async move { Ok(result) });
        }
        let shared = Arc::clone(&self.0);
        Box::pin(async move {
            let store_key = crate::common::hex(&key);
            if let Some(store) = &shared.config.store {
                let found = crate::state::within(&**store, store.get_cached(&store_key)).await;
                let kept = found.ok().flatten();
                if let Some(result) = kept.as_deref().and_then(decode) {
                    shared.config.counts.hits.fetch_add(1, Ordering::Relaxed);
                    let entry =
                        Entry::new(result.clone(), kept.as_deref().unwrap_or_default(), ttl);
                    shared.memory.insert(key, entry);
                    return Ok(result);
                }
            }
            shared.config.counts.misses.fetch_add(1, Ordering::Relaxed);
            let outcome = next.run(call).await;
            if let Ok(result) = &outcome {
                if !result.is_error() {
                    keep(&shared, key, store_key, result, ttl);
                }
            }
            outcome
        })
    }
}

/// Keeps `result` in memory, and on the store in the background (a store
/// that fails costs only a later call, and a slow one delays no reply).
fn keep(shared: &Shared, key: [u8; 32], store_key: String, result: &CallToolResult, ttl: Duration) {
    let Ok(json) = serde_json::to_vec(result) else {
        return;
    };
    shared
        .memory
        .insert(key, Entry::new(result.clone(), &json, ttl));
    if let Some(store) = &shared.config.store {
        let store = Arc::clone(store);
        crate::common::spawn(async move {
            let put = store.put_cached(&store_key, Bytes::from(json), ttl);
            if let Err(e) = crate::state::within(&*store, put).await {
                tracing::warn!(error = %e, "a tool result could not be kept on the shared store");
            }
        });
    }
}

fn decode(bytes: &[u8]) -> Option<CallToolResult> {
    serde_json::from_slice(bytes).ok()
}
