//! Prompts: `prompts/list` and `prompts/get` in both eras, and the prompt
//! list's change feed.

use std::collections::BTreeMap;
use std::sync::Arc;

use oxmcp_types::modern::SubscriptionFilter;
use oxmcp_types::{method, ErrorObject, ListPromptsResult, Meta, ResultType, ServerCapabilities};

use super::changes::{Feed, ListKind};
use super::era::Era;
use super::rounds::Retry;
use super::user_code::{list_result, UserParams};
use super::{failed, Capability, Outcome, Request, ServerCore};
use crate::prompt::{PromptEntry, StringArgs};
use crate::registry::{Catalog, Live};

/// `prompts/list`, `prompts/get`, and the prompt list's changes: the
/// prompts (shared with the handle, which changes them), and whether the
/// server declared them.
pub(crate) struct Prompts {
    live: Arc<Live<PromptEntry>>,
    declared: bool,
}

impl Prompts {
    /// Declared when the server has prompts at build, or `offer_all`.
    pub(super) fn new(catalog: &Catalog, offer_all: bool) -> Prompts {
        Prompts {
            live: Arc::clone(&catalog.prompts),
            declared: offer_all || !catalog.prompts.snapshot().entries().is_empty(),
        }
    }

    /// The scopes of prompt `name`, if it exists.
    #[cfg(feature = "http")]
    pub(super) fn scopes_of(&self, name: &str) -> Option<crate::auth::Scopes> {
        Some(self.live.snapshot().get(name)?.scopes.clone())
    }
}

impl Capability for Prompts {
    fn methods(&self) -> &'static [&'static str] {
        &[method::PROMPTS_LIST, method::PROMPTS_GET]
    }

    fn declare(&self, declared: &mut ServerCapabilities) {
        declared.prompts = self.declared.then(super::list_changed);
    }

    fn request<'a>(
        &self,
        core: &Arc<ServerCore>,
        req: Request<'a>,
    ) -> Result<Outcome, Request<'a>> {
        match req.method {
            method::PROMPTS_LIST => Ok(core.list_reply::<_, ListPromptsResult>(&req, &self.live)),
            method::PROMPTS_GET => Ok(self.get(core, req)),
            _ => Err(req),
        }
    }

    fn feed(&self) -> Option<Feed> {
        self.declared
            .then(|| Feed::new(ListKind::Prompts, self.live.subscribe()))
    }

    fn agree(&self, _: &ServerCore, asked: &SubscriptionFilter, agreed: &mut SubscriptionFilter) {
        if self.declared {
            agreed.prompts_list_changed = asked.prompts_list_changed.filter(|&b| b);
        }
    }

    #[cfg(feature = "http")]
    fn scopes(
        &self,
        _: &ServerCore,
        method_name: &str,
        params: Option<oxmcp_types::jsonrpc::RawJson<'_>>,
    ) -> Option<Vec<crate::auth::Scopes>> {
        if method_name != method::PROMPTS_GET {
            return None;
        }
        let name = oxmcp_wire::route::Peek::read(params).name_for(method::TOOLS_CALL)?;
        Some(vec![self.scopes_of(&name)?])
    }
}

/// `prompts/get` params read leniently first, so a missing `name` is a clear -32602.
#[derive(serde::Deserialize, Default)]
struct GetPromptParamsOpt {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<BTreeMap<String, String>>,
    #[serde(rename = "_meta", default)]
    meta: Option<Meta>,
    #[serde(rename = "inputResponses", default)]
    input_responses: Option<serde_json::Value>,
    #[serde(rename = "requestState", default)]
    request_state: Option<String>,
}

impl UserParams for GetPromptParamsOpt {
    fn meta(&self) -> Option<&Meta> {
        self.meta.as_ref()
    }

    fn bound(&self) -> Option<(&'static str, String, serde_json::Value)> {
        let args = serde_json::to_value(&self.arguments).unwrap_or_default();
        Some((
            method::PROMPTS_GET,
            self.name.clone().unwrap_or_default(),
            args,
        ))
    }

    fn retry(&self) -> Retry<'_> {
        Retry {
            input_responses: self.input_responses.as_ref(),
            request_state: self.request_state.as_deref(),
        }
    }
}

list_result!(ListPromptsResult {
    prompts: oxmcp_types::Prompt
});

impl Prompts {
    fn get(&self, core: &Arc<ServerCore>, req: Request<'_>) -> Outcome {
        let (p, era, ctx) = match core.user_request::<GetPromptParamsOpt>(&req) {
            Ok(v) => v,
            Err(e) => return failed(req.id, e),
        };
        let Some(name) = p.name else {
            return failed(req.id, ErrorObject::invalid_params("missing prompt `name`"));
        };
        let caller = core.offer_caller(&req, &era);
        let found = self.live.snapshot().get(&name).cloned();
        // A prompt the caller may not see (or whose scopes its token lacks:
        // HTTP answers that with the step-up challenge before dispatch)
        // does not exist for it.
        let who = req.info.identity.as_deref();
        let found = found.filter(|e| e.scopes.allow(who) && core.offered_to(caller.as_ref(), e));
        let Some(entry) = found else {
            return failed(
                req.id,
                ErrorObject::invalid_params(format!("unknown prompt: {name}")),
            );
        };
        let args = StringArgs::new(p.arguments.unwrap_or_default());
        let meta = matches!(era, Era::Modern(_)).then(|| core.complete_meta());
        core.run_user(
            req.session,
            req.id,
            ctx.clone(),
            None,
            async move { entry.get(args, ctx).await },
            move |result: &mut oxmcp_types::GetPromptResult| {
                if let Some(meta) = meta {
                    result.result_type = Some(ResultType::Complete);
                    result.meta.get_or_insert_with(Meta::new).extend(meta);
                }
            },
        )
    }
}
