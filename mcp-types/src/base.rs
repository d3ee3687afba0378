//! Small wire pieces that several message families share: a result's
//! `resultType` and `cacheScope` (2026-07-28) and icons (2025-11-25+). They
//! live here, below the modules that use them, so that `lifecycle`, `tool`
//! and `modern` do not import one another; each is re-exported where a
//! reader looks for it (`modern::ResultType`, `tool::Icon`, the crate root).

use serde::{Deserialize, Serialize};

/// Whether a result is final or asks the client for input first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ResultType {
    /// The request is answered.
    Complete,
    /// The client must gather input and retry (MRTR).
    InputRequired,
}

/// Who may share a cached result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum CacheScope {
    /// Any client may reuse it.
    Public,
    /// Only the client that asked.
    Private,
}

/// An icon (2025-11-25+).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// A URI (`https:` or `data:`) of the image.
    pub src: String,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes, e.g. `["48x48"]` or `["any"]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// `"light"` or `"dark"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

/// Parameters of the paginated list requests (`tools/list`, `prompts/list`,
/// `resources/list`, `resources/templates/list`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PaginatedParams {
    /// The opaque cursor from a previous page's `nextCursor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Request metadata (modern protocol fields live here).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<crate::Meta>,
}
