//! Tools: `tools/list` and `tools/call` in both eras, with the policy around
//! calls (visibility, middleware, admission, timeouts), and the tool list's
//! change feed for list-changed notices and `subscriptions/listen`.
//!
//! Here: the capability, the listing and who may see a tool. `call` runs a
//! call (resolve, prepare, run), `params` reads its params and `reply`
//! writes its response.

mod call;
mod params;
mod reply;

pub(super) use call::missing_capability_error;

use std::sync::Arc;

use oxmcp_types::jsonrpc::{RawJson, Response};
use oxmcp_types::modern::{RequestMeta, SubscriptionFilter};
use oxmcp_types::{
    method, CacheScope, ErrorObject, ListToolsParams, ListToolsResult, RequestId, ResultType,
    ServerCapabilities,
};

use super::changes::{Feed, ListKind};
use super::era::{era_of, Era};
use super::session::Session;
use super::{
    encode, failed, CallLimits, Capability, Outcome, Reply, Request, RequestInfo, ServerCore,
    ToolPolicy,
};
use crate::policy::{Caller, ToolInfo, VisibilityHook};
use crate::registry::{Catalog, Live, Registry};
use crate::tool::{ToolEntry, ToolService};

/// A tool its caller may not see.
struct Hidden;

/// `tools/list`, `tools/call`, and the tool list's changes: the tools
/// (shared with the handle, which changes them) and what runs around a call.
pub(crate) struct Tools {
    live: Arc<Live<ToolEntry>>,
    /// Who sees a tool, the layers around a call (built once), the
    /// timeout, the bounds on running and waiting calls.
    visibility: Option<Arc<VisibilityHook>>,
    service: Option<ToolService>,
    call_timeout: Option<std::time::Duration>,
    limits: CallLimits,
    /// The rate limits per caller (the HTTP transport applies the limit on
    /// requests).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    rate_limits: Option<Arc<crate::policy::rate::Limiters>>,
    /// Tool search: only the pinned tools and the search tool are listed.
    search: Option<Arc<crate::tool::search::ToolSearch>>,
}

/// The tool list as the result cache sees it: what retires its entries.
struct ToolList(Arc<Live<ToolEntry>>);

impl crate::policy::cache::ToolList for ToolList {
    fn generation(&self) -> u64 {
        self.0.generation()
    }

    fn digest(&self) -> [u8; 32] {
        use sha2::Digest as _;
        let mut h = sha2::Sha256::new();
        for entry in self.0.snapshot().entries() {
            h.update(serde_json::to_vec(entry.tool()).unwrap_or_default());
            h.update([0]);
        }
        h.finalize().into()
    }
}

impl Tools {
    /// The tools and what runs around a call: the builder's layers, then
    /// (innermost, so every call they answer has passed those) the rate
    /// limits and the result cache.
    pub(super) fn new(catalog: &Catalog, mut policy: ToolPolicy) -> Tools {
        if let Some(limits) = policy.limiters.as_ref().filter(|l| l.limits_calls()) {
            let limit = crate::policy::rate::CallLimit(Arc::clone(limits));
            policy
                .layers
                .push(crate::policy::MiddlewareLayer::new(limit));
        }
        if let Some(cache) = &policy.cache {
            let list = ToolList(Arc::clone(&catalog.tools));
            let cached = cache.middleware(Arc::new(list));
            policy
                .layers
                .push(crate::policy::MiddlewareLayer::new(cached));
        }
        Tools {
            live: Arc::clone(&catalog.tools),
            visibility: policy.visibility,
            service: policy.layers.build(),
            call_timeout: policy.call_timeout,
            limits: policy.limits,
            rate_limits: policy.limiters,
            search: policy.search,
        }
    }

    /// The rate limits per caller, if any.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn rate_limits(&self) -> Option<&crate::policy::rate::Limiters> {
        self.rate_limits.as_deref()
    }

    fn registry(&self) -> Arc<Registry<ToolEntry>> {
        self.live.snapshot()
    }

    /// Whether a hook or a layer looks at who calls.
    pub(super) fn wants_caller(&self) -> bool {
        self.visibility.is_some() || self.service.is_some()
    }
}

impl Capability for Tools {
    fn methods(&self) -> &'static [&'static str] {
        &[method::TOOLS_CALL, method::TOOLS_LIST]
    }

    fn declare(&self, declared: &mut ServerCapabilities) {
        let mut tools = oxmcp_types::lifecycle::ToolsCapability::default();
        tools.list_changed = Some(true);
        declared.tools = Some(tools);
    }

    fn request<'a>(
        &self,
        core: &Arc<ServerCore>,
        req: Request<'a>,
    ) -> Result<Outcome, Request<'a>> {
        match req.method {
            method::TOOLS_CALL => Ok(self.call(core, req)),
            method::TOOLS_LIST => Ok(
                match self.list(core, req.session, &req.id, req.params, req.info) {
                    Ok(bytes) => Outcome::Reply(bytes),
                    Err(e) => failed(req.id, e),
                },
            ),
            _ => Err(req),
        }
    }

    fn feed(&self) -> Option<Feed> {
        Some(Feed::new(ListKind::Tools, self.live.subscribe()))
    }

    fn agree(&self, _: &ServerCore, asked: &SubscriptionFilter, agreed: &mut SubscriptionFilter) {
        agreed.tools_list_changed = asked.tools_list_changed.filter(|&b| b);
    }

    #[cfg(feature = "http")]
    fn scopes(
        &self,
        _: &ServerCore,
        method_name: &str,
        params: Option<RawJson<'_>>,
    ) -> Option<Vec<crate::auth::Scopes>> {
        if method_name != method::TOOLS_CALL {
            return None;
        }
        let name = oxmcp_wire::route::Peek::read(params).name_for(method::TOOLS_CALL)?;
        Some(vec![self.registry().get(&name)?.scopes.clone()])
    }
}

impl Tools {
    fn list(
        &self,
        core: &ServerCore,
        session: &Session,
        id: &RequestId,
        raw: Option<RawJson<'_>>,
        info: &RequestInfo,
    ) -> Reply {
        let (p, era) = era_of::<ListToolsParams>(session, raw, |p| {
            p.meta
                .as_ref()
                .filter(|m| RequestMeta::is_modern(Some(m)))
                .map(RequestMeta::from_meta)
        })?;
        let registry = self.registry();
        let per_caller = self.visibility.is_some() || info.identity.is_some();
        // A client that did not declare Apps sees no tool only the app
        // calls, and no tool's `_meta.ui`.
        let hide_apps = core.hides_apps(&era);
        let page = if per_caller || hide_apps || self.search.is_some() {
            let caller = per_caller.then(|| ServerCore::caller(session, &era, info));
            registry.page_filtered(p.cursor.as_deref(), core.page_size, |t| {
                self.search.as_ref().is_none_or(|s| s.is_listed(t.name()))
                    && caller.as_ref().is_none_or(|c| self.tool_visible(c, t))
                    && !(hide_apps && crate::apps::tool_ui(t.tool()).is_some_and(|u| u.app_only()))
            })
        } else {
            registry.page(p.cursor.as_deref(), core.page_size)
        };
        let (mut tools, next_cursor) =
            page.map_err(|_| ErrorObject::invalid_params("invalid cursor"))?;
        if hide_apps {
            tools = tools.into_iter().map(crate::apps::without_ui).collect();
        }
        let mut result = ListToolsResult {
            tools,
            next_cursor,
            ..ListToolsResult::default()
        };
        if let Era::Modern(_) = era {
            result.result_type = Some(ResultType::Complete);
            result.ttl_ms = Some(core.list_ttl_ms);
            // A list that depends on the caller must not be shared.
            result.cache_scope = Some(if per_caller || core.offers_apps() {
                CacheScope::Private
            } else {
                CacheScope::Public
            });
            result.meta = Some(core.complete_meta());
        }
        Ok(encode(&Response::new(id.clone(), result)))
    }

    /// Whether `caller` may see (and so call) a tool: its token has the
    /// tool's scopes, and the visibility hook agrees.
    fn tool_visible(&self, caller: &Caller, entry: &ToolEntry) -> bool {
        entry.scopes.allow(caller.identity())
            && self.visibility.as_ref().is_none_or(|hook| {
                hook(
                    caller,
                    &ToolInfo {
                        tool: entry.tool(),
                        toolbox: entry.toolbox(),
                    },
                )
            })
    }

    /// Who calls, when the policy or an access token makes it matter
    /// (`Ok(None)` otherwise); `Err` when the tool is hidden from them.
    fn visible_to(
        &self,
        core: &ServerCore,
        session: &Session,
        era: &Era,
        info: &RequestInfo,
        entry: &ToolEntry,
    ) -> Result<Option<Arc<Caller>>, Hidden> {
        let caller = (core.wants_caller() || info.identity.is_some())
            .then(|| Arc::new(ServerCore::caller(session, era, info)));
        match &caller {
            Some(c) if !self.tool_visible(c, entry) => Err(Hidden),
            _ => Ok(caller),
        }
    }
}
