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

use mcp_types::jsonrpc::{RawJson, Response};
use mcp_types::modern::{RequestMeta, SubscriptionFilter};
use mcp_types::{
    method, CacheScope, ErrorObject, ListToolsParams, ListToolsResult, RequestId, ResultType,
};

use super::changes::{Feed, ListKind};
use super::era::{era_of, Era};
use super::session::Session;
use super::{encode, failed, Capability, Outcome, Reply, Request, RequestInfo, ServerCore};
use crate::policy::{Caller, ToolInfo};
use crate::tool::ToolEntry;

/// A tool its caller may not see.
struct Hidden;

/// `tools/list`, `tools/call`, and the tool list's changes.
pub(super) struct Tools;

impl Capability for Tools {
    fn request<'a>(core: &Arc<ServerCore>, req: Request<'a>) -> Result<Outcome, Request<'a>> {
        match req.method {
            method::TOOLS_CALL => Ok(core.tools_call(req)),
            method::TOOLS_LIST => Ok(
                match core.tools_list(req.session, &req.id, req.params, req.info) {
                    Ok(bytes) => Outcome::Reply(bytes),
                    Err(e) => failed(req.id, e),
                },
            ),
            _ => Err(req),
        }
    }

    fn feed(core: &ServerCore) -> Option<Feed> {
        Some(Feed::new(ListKind::Tools, core.catalog.tools.subscribe()))
    }

    fn agree(_: &ServerCore, asked: &SubscriptionFilter, agreed: &mut SubscriptionFilter) {
        agreed.tools_list_changed = asked.tools_list_changed.filter(|&b| b);
    }
}

impl ServerCore {
    fn tools_list(
        &self,
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
        let per_caller = self.policy.visibility.is_some() || info.identity.is_some();
        // A client that did not declare Apps sees no tool only the app
        // calls, and no tool's `_meta.ui`.
        let hide_apps = self.hides_apps(&era);
        let page = if per_caller || hide_apps {
            let caller = per_caller.then(|| Self::caller(session, &era, info));
            registry.page_filtered(p.cursor.as_deref(), self.page_size, |t| {
                caller.as_ref().is_none_or(|c| self.tool_visible(c, t))
                    && !(hide_apps && crate::apps::tool_ui(t.tool()).is_some_and(|u| u.app_only()))
            })
        } else {
            registry.page(p.cursor.as_deref(), self.page_size)
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
            result.ttl_ms = Some(self.list_ttl_ms);
            // A list that depends on the caller must not be shared.
            result.cache_scope = Some(if per_caller || self.offers_apps() {
                CacheScope::Private
            } else {
                CacheScope::Public
            });
            result.meta = Some(self.complete_meta());
        }
        Ok(encode(&Response::new(id.clone(), result)))
    }

    /// Whether `caller` may see (and so call) a tool: its token has the
    /// tool's scopes, and the visibility hook agrees.
    fn tool_visible(&self, caller: &Caller, entry: &ToolEntry) -> bool {
        entry.scopes.allow(caller.identity())
            && self.policy.visibility.as_ref().is_none_or(|hook| {
                hook(
                    caller,
                    &ToolInfo {
                        tool: entry.tool(),
                        toolbox: entry.toolbox(),
                    },
                )
            })
    }

    /// Who is calling, for hooks and middleware.
    pub(super) fn caller(session: &Session, era: &Era, info: &RequestInfo) -> Caller {
        Caller {
            transport: session.kind,
            session_id: session.id.clone(),
            client: match era {
                Era::Legacy(s) => Some((*s.client).clone()),
                Era::Modern(m) => m.client_info.clone(),
            },
            protocol_version: era.version(),
            headers: info.headers.clone(),
            identity: info.identity.clone(),
        }
    }

    /// Who calls, when the policy or an access token makes it matter
    /// (`Ok(None)` otherwise); `Err` when the tool is hidden from them.
    fn visible_to(
        &self,
        session: &Session,
        era: &Era,
        info: &RequestInfo,
        entry: &ToolEntry,
    ) -> Result<Option<Arc<Caller>>, Hidden> {
        let caller = (self.policy.wants_caller() || info.identity.is_some())
            .then(|| Arc::new(Self::caller(session, era, info)));
        match &caller {
            Some(c) if !self.tool_visible(c, entry) => Err(Hidden),
            _ => Ok(caller),
        }
    }
}
