//! Whole results kept after a cut: a tool that offers the rest of a result
//! cut to its cap (`#[tool(keep_full_result = "10m")]`) has the whole
//! result kept for that long, readable with `resources/read` at the link
//! the cut result carries, by the caller that made the call and no one
//! else (to anyone else it does not exist). Bounded in bytes; the least
//! used go first. Of the crate it imports only `common` (a random id).

use std::sync::Arc;
use std::time::{Duration, Instant};

use oxmcp_types::{CallToolResult, ContentBlock, ResourceContents};

/// The scheme of a kept result's URI (`mcp-result:<32 hex digits>`).
pub(crate) const SCHEME: &str = "mcp-result:";

/// The memory kept results may take: 64 MiB.
const MAX_BYTES: u64 = 64 * 1024 * 1024;

/// The whole results kept on this server. The cache is made at the first
/// result kept: a server whose tools keep none pays nothing for it.
#[derive(Default)]
pub(crate) struct KeptResults {
    cache: std::sync::OnceLock<moka::sync::Cache<String, Arc<Kept>>>,
}

impl std::fmt::Debug for KeptResults {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeptResults")
            .field(
                "entries",
                &self.cache.get().map(moka::sync::Cache::entry_count),
            )
            .finish()
    }
}

/// One kept result: whose it is, what it holds, what it weighs, how long
/// it lives.
struct Kept {
    owner: String,
    contents: Vec<ResourceContents>,
    bytes: u32,
    ttl: Duration,
}

/// Each kept result expires after its tool's time.
struct PerEntry;

impl moka::Expiry<String, Arc<Kept>> for PerEntry {
    fn expire_after_create(&self, _: &String, kept: &Arc<Kept>, _: Instant) -> Option<Duration> {
        Some(kept.ttl)
    }
}

impl KeptResults {
    fn cache(&self) -> &moka::sync::Cache<String, Arc<Kept>> {
        self.cache.get_or_init(|| {
            moka::sync::Cache::builder()
                .max_capacity(MAX_BYTES)
                .weigher(|_, kept: &Arc<Kept>| kept.bytes)
                .expire_after(PerEntry)
                .build()
        })
    }

    /// Keeps `full` for `owner` for `ttl`: its URI, or `None` when no
    /// random id could be drawn.
    fn keep(&self, owner: &str, ttl: Duration, full: &CallToolResult) -> Option<String> {
        let uri = format!("{SCHEME}{}", crate::common::random_hex_id().ok()?);
        let (mut contents, mut size) = (Vec::new(), 0);
        for text in full.content.iter().filter_map(ContentBlock::as_text) {
            size += text.len();
            contents.push(ResourceContents::text(&uri, "text/plain", text));
        }
        if let Some(structured) = &full.structured_content {
            let json = serde_json::to_string(structured).unwrap_or_default();
            size += json.len();
            contents.push(ResourceContents::text(&uri, "application/json", json));
        }
        self.cache().insert(
            uri.clone(),
            Arc::new(Kept {
                owner: owner.to_owned(),
                contents,
                bytes: u32::try_from(size).unwrap_or(u32::MAX),
                ttl,
            }),
        );
        Some(uri)
    }

    /// The contents kept at `uri` for `owner`; `None` when there are none,
    /// they expired, or they are someone else's.
    pub(crate) fn read(&self, uri: &str, owner: Option<&str>) -> Option<Vec<ResourceContents>> {
        let kept = self.cache.get()?.get(uri)?;
        (Some(kept.owner.as_str()) == owner).then(|| kept.contents.clone())
    }
}

/// Where one call's whole result goes when it is cut: the server's kept
/// results, for the caller, for the tool's time.
#[derive(Clone)]
pub(crate) struct Keeper {
    pub(crate) results: Arc<KeptResults>,
    pub(crate) owner: String,
    pub(crate) ttl: Duration,
}

impl std::fmt::Debug for Keeper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keeper")
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl Keeper {
    /// Keeps `full`; the link to it, for the cut result.
    pub(crate) fn keep(&self, full: &CallToolResult) -> Option<ContentBlock> {
        let uri = self.results.keep(&self.owner, self.ttl, full)?;
        Some(ContentBlock::ResourceLink(oxmcp_types::ResourceLink {
            uri,
            name: "full-result".to_owned(),
            title: Some("The whole result, before it was cut".to_owned()),
            description: Some(format!(
                "Readable with resources/read by the same caller for {} s",
                self.ttl.as_secs()
            )),
            mime_type: Some("text/plain".to_owned()),
            size: None,
            icons: None,
            annotations: None,
            meta: None,
        }))
    }
}
