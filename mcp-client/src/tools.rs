//! The `tools/list` cache and output-schema validation.
//!
//! The last listing is kept even when it is no longer fresh: `list_tools`
//! refetches a stale list, but validating a result only needs the tool's
//! `outputSchema`, and a stale one is refreshed once before a mismatch is
//! reported. Each schema is compiled once (per tool and schema text) and
//! never fetches a network `$ref`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use oxmcp_types::{CallToolResult, Tool};
use serde_json::Value;

#[cfg(feature = "http")]
use oxmcp_wire::param_headers::{self as headers, Annotated};
use oxmcp_wire::sync::lock;

#[derive(Debug, Clone, Copy)]
enum Freshness {
    /// Until a list-changed notification (legacy era).
    UntilChanged,
    /// Until this instant (modern `ttlMs`); a past instant means stale.
    Until(Instant),
}

#[derive(Default)]
struct CacheState {
    tools: Option<Arc<Vec<Tool>>>,
    /// Position of each tool in `tools`, by name.
    index: HashMap<String, usize>,
    /// The `x-mcp-header` annotations of the tools that have some.
    #[cfg(feature = "http")]
    headers: HashMap<String, Arc<Vec<Annotated>>>,
    /// The invalidation generation the listing was fetched in.
    generation: u64,
    freshness: Option<Freshness>,
    #[cfg(feature = "validation")]
    validators: HashMap<String, Arc<Compiled>>,
}

/// A tool of a listing, without copying it.
pub(crate) struct ToolRef {
    list: Arc<Vec<Tool>>,
    index: usize,
}

impl std::ops::Deref for ToolRef {
    type Target = Tool;

    fn deref(&self) -> &Tool {
        &self.list[self.index]
    }
}

/// A compiled `outputSchema` (or why it does not compile).
#[cfg(feature = "validation")]
struct Compiled {
    schema: Value,
    validator: Result<oxmcp_wire::schema::Validator, String>,
}

/// The client's view of the server's tools.
#[derive(Default)]
pub(crate) struct ToolCache {
    state: Mutex<CacheState>,
    /// Held while fetching, so concurrent `list_tools` calls fetch once.
    pub(crate) refresh: tokio::sync::Mutex<()>,
    generation: AtomicU64,
}

impl std::fmt::Debug for ToolCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCache").finish_non_exhaustive()
    }
}

impl ToolCache {
    /// The current invalidation generation (read before fetching).
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Marks the listing stale (a list-changed notification).
    pub(crate) fn invalidate(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// The listing, if it is still fresh.
    pub(crate) fn fresh(&self) -> Option<Arc<Vec<Tool>>> {
        let st = lock(&self.state);
        let tools = st.tools.as_ref()?;
        if st.generation != self.generation() {
            return None;
        }
        match st.freshness? {
            Freshness::UntilChanged => Some(Arc::clone(tools)),
            Freshness::Until(t) if Instant::now() < t => Some(Arc::clone(tools)),
            Freshness::Until(_) => None,
        }
    }

    /// Stores a complete listing fetched in `generation`. `ttl` is `None`
    /// when the listing stays fresh until a list-changed notification.
    pub(crate) fn store(
        &self,
        tools: Vec<Tool>,
        ttl: Option<Duration>,
        generation: u64,
    ) -> Arc<Vec<Tool>> {
        let tools = Arc::new(tools);
        let index = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.clone(), i))
            .collect();
        #[cfg(feature = "http")]
        let headers = tools
            .iter()
            .filter_map(|t| match headers::annotations(t) {
                Ok(a) if !a.is_empty() => Some((t.name.clone(), Arc::new(a))),
                _ => None,
            })
            .collect();
        let mut st = lock(&self.state);
        st.tools = Some(Arc::clone(&tools));
        st.index = index;
        #[cfg(feature = "http")]
        {
            st.headers = headers;
        }
        st.generation = generation;
        st.freshness = Some(match ttl {
            None => Freshness::UntilChanged,
            Some(ttl) => Freshness::Until(Instant::now() + ttl),
        });
        // Drop validators of tools that are gone.
        #[cfg(feature = "validation")]
        st.validators
            .retain(|name, _| tools.iter().any(|t| &t.name == name));
        tools
    }

    /// The tool's definition from the last listing (fresh or not), and
    /// whether that listing is still fresh.
    pub(crate) fn tool(&self, name: &str) -> Option<(ToolRef, bool)> {
        let tool = {
            let st = lock(&self.state);
            ToolRef {
                list: Arc::clone(st.tools.as_ref()?),
                index: *st.index.get(name)?,
            }
        };
        Some((tool, self.fresh().is_some()))
    }

    /// The `Mcp-Param-*` headers for calling `name` with `arguments`, from
    /// the last listing's `x-mcp-header` annotations.
    #[cfg(feature = "http")]
    pub(crate) fn param_headers(
        &self,
        name: &str,
        arguments: Option<&oxmcp_types::JsonObject>,
    ) -> Vec<(String, String)> {
        let annotated = lock(&self.state).headers.get(name).cloned();
        match (annotated, arguments) {
            (Some(a), Some(args)) => headers::values(&a, args),
            _ => Vec::new(),
        }
    }

    /// Whether any listing was fetched yet.
    pub(crate) fn has_listing(&self) -> bool {
        lock(&self.state).tools.is_some()
    }

    /// Checks a result against the tool's `outputSchema`: `Err` describes
    /// every problem (up to a few). Error results are not checked.
    pub(crate) fn check(&self, tool: &Tool, result: &CallToolResult) -> Result<(), String> {
        let Some(schema) = &tool.output_schema else {
            return Ok(());
        };
        if result.is_error() {
            return Ok(());
        }
        let Some(value) = &result.structured_content else {
            return Err(
                "the tool declares an outputSchema but the result has no structuredContent".into(),
            );
        };
        self.validate(&tool.name, schema, value)
    }

    #[cfg(feature = "validation")]
    fn validate(&self, name: &str, schema: &Value, value: &Value) -> Result<(), String> {
        let compiled = self.compiled(name, schema);
        let validator = compiled
            .validator
            .as_ref()
            .map_err(|e| format!("its outputSchema cannot be used: {e}"))?;
        validator.problems(value).map_or(Ok(()), Err)
    }

    /// Built without the `validation` feature: only the presence of
    /// `structuredContent` is checked.
    #[cfg(not(feature = "validation"))]
    #[allow(clippy::unused_self, clippy::unnecessary_wraps)]
    fn validate(&self, _name: &str, _schema: &Value, _value: &Value) -> Result<(), String> {
        Ok(())
    }

    #[cfg(feature = "validation")]
    fn compiled(&self, name: &str, schema: &Value) -> Arc<Compiled> {
        if let Some(c) = lock(&self.state).validators.get(name) {
            if &c.schema == schema {
                return Arc::clone(c);
            }
        }
        let validator = oxmcp_wire::schema::Validator::new(schema);
        let compiled = Arc::new(Compiled {
            schema: schema.clone(),
            validator,
        });
        lock(&self.state)
            .validators
            .insert(name.to_owned(), Arc::clone(&compiled));
        compiled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(feature = "validation")]
    use serde_json::json;

    #[cfg(feature = "validation")]
    #[allow(clippy::needless_pass_by_value)]
    fn tool(schema: Value) -> Tool {
        serde_json::from_value(json!({
            "name": "t",
            "inputSchema": {"type": "object"},
            "outputSchema": schema,
        }))
        .unwrap()
    }

    #[cfg(feature = "validation")]
    fn result(v: Value) -> CallToolResult {
        CallToolResult {
            structured_content: Some(v),
            ..CallToolResult::default()
        }
    }

    #[test]
    #[cfg(feature = "validation")]
    fn validates_and_names_the_problem() {
        let cache = ToolCache::default();
        let t = tool(json!({
            "type": "object",
            "properties": {"total": {"type": "number"}},
            "required": ["total"],
        }));
        assert!(cache.check(&t, &result(json!({"total": 3}))).is_ok());
        let err = cache
            .check(&t, &result(json!({"total": "three"})))
            .unwrap_err();
        assert!(err.contains("/total"), "{err}");
        let err = cache.check(&t, &CallToolResult::text("x")).unwrap_err();
        assert!(err.contains("no structuredContent"), "{err}");
        // Error results are not checked.
        assert!(cache.check(&t, &CallToolResult::error("boom")).is_ok());
    }

    #[test]
    #[cfg(feature = "validation")]
    fn never_fetches_remote_refs() {
        let cache = ToolCache::default();
        let t = tool(json!({"$ref": "https://example.invalid/schema.json"}));
        let err = cache.check(&t, &result(json!({}))).unwrap_err();
        assert!(err.contains("cannot be used"), "{err}");
    }

    #[test]
    fn freshness_follows_ttl_and_invalidation() {
        let cache = ToolCache::default();
        let g = cache.generation();
        cache.store(Vec::new(), None, g);
        assert!(cache.fresh().is_some());
        cache.invalidate();
        assert!(cache.fresh().is_none());
        let g = cache.generation();
        cache.store(Vec::new(), Some(Duration::ZERO), g);
        assert!(cache.fresh().is_none());
        assert!(cache.has_listing());
        cache.store(Vec::new(), Some(Duration::from_secs(60)), g);
        assert!(cache.fresh().is_some());
    }
}
