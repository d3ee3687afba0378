//! `completion/complete`: suggestions for a prompt's arguments and a
//! resource template's variables, from the completion functions declared
//! next to them.

use std::collections::BTreeMap;
use std::sync::Arc;

use oxmcp_types::completion::{
    Completion as Suggestions, CompletionArgument, CompletionContext, CompletionRef,
};
use oxmcp_types::{
    method, CompleteResult, ErrorObject, JsonObject, Meta, ResultType, ServerCapabilities,
};

use super::era::Era;
use super::user_code::UserParams;
use super::{failed, Capability, Outcome, Request, ServerCore};
use crate::complete::{CompleteHandler, Completing};
use crate::prompt::PromptEntry;
use crate::registry::{Catalog, Live};
use crate::resource::TemplateEntry;

/// `completion/complete`: the prompts and templates whose completion
/// functions it calls (shared with the handle, which changes them), and
/// whether the server declared completions.
pub(crate) struct Completion {
    prompts: Arc<Live<PromptEntry>>,
    templates: Arc<Live<TemplateEntry>>,
    /// Whether the server declares `completions` (fixed at build).
    pub(super) declared: bool,
}

impl Completion {
    /// Declared when a prompt or template has completion functions at
    /// build, or `offer_all`.
    pub(super) fn new(catalog: &Catalog, offer_all: bool) -> Completion {
        let completes = catalog
            .prompts
            .snapshot()
            .entries()
            .iter()
            .any(|p| !p.completions.is_empty())
            || catalog
                .templates
                .snapshot()
                .entries()
                .iter()
                .any(|t| !t.completions.is_empty());
        Completion {
            prompts: Arc::clone(&catalog.prompts),
            templates: Arc::clone(&catalog.templates),
            declared: offer_all || completes,
        }
    }
}

impl Capability for Completion {
    fn methods(&self) -> &'static [&'static str] {
        &[method::COMPLETION_COMPLETE]
    }

    fn declare(&self, declared: &mut ServerCapabilities) {
        declared.completions = self.declared.then(JsonObject::new);
    }

    fn request<'a>(
        &self,
        core: &Arc<ServerCore>,
        req: Request<'a>,
    ) -> Result<Outcome, Request<'a>> {
        if req.method != method::COMPLETION_COMPLETE {
            return Err(req);
        }
        Ok(self.complete(core, req))
    }

    /// The scopes of the prompt or template whose argument is completed.
    #[cfg(feature = "http")]
    fn scopes(
        &self,
        core: &ServerCore,
        method_name: &str,
        params: Option<oxmcp_types::jsonrpc::RawJson<'_>>,
    ) -> Option<Vec<crate::auth::Scopes>> {
        /// What the request names, read leniently (dispatch answers malformed params).
        #[derive(serde::Deserialize, Default)]
        struct Named {
            #[serde(rename = "ref", default)]
            reference: Option<CompletionRef>,
        }
        if method_name != method::COMPLETION_COMPLETE || !self.declared {
            return None;
        }
        let asked: Named = serde_json::from_str(params?.get()).unwrap_or_default();
        Some(vec![match asked.reference? {
            CompletionRef::Prompt { name, .. } => core.prompts.scopes_of(&name)?,
            CompletionRef::Resource { uri } => core.resources.template_scopes(&uri)?,
            _ => return None,
        }])
    }
}

/// `completion/complete` params read leniently first, for clear -32602s.
#[derive(serde::Deserialize, Default)]
struct CompleteParamsOpt {
    #[serde(rename = "ref", default)]
    reference: Option<CompletionRef>,
    #[serde(default)]
    argument: Option<CompletionArgument>,
    #[serde(default)]
    context: Option<CompletionContext>,
    #[serde(rename = "_meta", default)]
    meta: Option<Meta>,
}

/// Who asks for a completion: what the offer hook is shown, and the token's identity.
struct AskedBy<'a> {
    caller: Option<&'a crate::policy::Caller>,
    identity: Option<&'a crate::auth::Identity>,
}

impl UserParams for CompleteParamsOpt {
    fn meta(&self) -> Option<&Meta> {
        self.meta.as_ref()
    }
}

impl Completion {
    fn complete(&self, core: &Arc<ServerCore>, req: Request<'_>) -> Outcome {
        if !self.declared {
            return failed(req.id, ErrorObject::method_not_found(req.method));
        }
        let (p, era, ctx) = match core.user_request::<CompleteParamsOpt>(&req) {
            Ok(v) => v,
            Err(e) => return failed(req.id, e),
        };
        let (Some(reference), Some(argument)) = (p.reference, p.argument) else {
            return failed(
                req.id,
                ErrorObject::invalid_params("completion/complete needs `ref` and `argument`"),
            );
        };
        let caller = core.offer_caller(&req, &era);
        let asked_by = AskedBy {
            caller: caller.as_ref(),
            identity: req.info.identity.as_deref(),
        };
        let handler = match self.handler(core, &reference, &argument.name, &asked_by) {
            Ok(h) => h,
            Err(e) => return failed(req.id, e),
        };
        let request = Completing {
            argument: argument.name,
            value: argument.value,
            arguments: p
                .context
                .and_then(|c| c.arguments)
                .unwrap_or_else(BTreeMap::new),
        };
        let meta = matches!(era, Era::Modern(_)).then(|| core.complete_meta());
        core.run_user(
            req.session,
            req.id,
            ctx.clone(),
            None,
            async move {
                let completion = match handler {
                    Some(h) => crate::panic::CatchUnwind::new(h(request, ctx))
                        .await
                        .unwrap_or_else(|panic| {
                            Err(crate::RequestError::internal(format!(
                                "the completion function panicked ({panic})"
                            )))
                        })?,
                    // An argument nothing completes: no suggestions.
                    None => Suggestions::default(),
                };
                Ok(CompleteResult {
                    completion,
                    ..CompleteResult::default()
                })
            },
            move |result: &mut CompleteResult| {
                if let Some(meta) = meta {
                    result.result_type = Some(ResultType::Complete);
                    result.meta = Some(meta);
                }
            },
        )
    }

    /// The completion function of an argument, `None` when the argument
    /// exists but nothing completes it; an error when the prompt, template or
    /// argument does not exist, or `asked_by` may not see the prompt or
    /// template (or its token lacks their scopes: HTTP answers that with the
    /// step-up challenge before dispatch).
    fn handler(
        &self,
        core: &ServerCore,
        reference: &CompletionRef,
        argument: &str,
        asked_by: &AskedBy<'_>,
    ) -> Result<Option<Arc<CompleteHandler>>, ErrorObject> {
        match reference {
            CompletionRef::Prompt { name, .. } => {
                let prompts = self.prompts.snapshot();
                let prompt = prompts
                    .get(name)
                    .filter(|p| {
                        p.scopes.allow(asked_by.identity) && core.offered_to(asked_by.caller, *p)
                    })
                    .ok_or_else(|| {
                        ErrorObject::invalid_params(format!("unknown prompt: {name}"))
                    })?;
                let known = prompt
                    .def
                    .arguments
                    .iter()
                    .flatten()
                    .any(|a| a.name == argument);
                if !known {
                    return Err(ErrorObject::invalid_params(format!(
                        "prompt `{name}` has no argument `{argument}`"
                    )));
                }
                Ok(prompt.completions.get(argument).cloned())
            }
            CompletionRef::Resource { uri } => {
                let templates = self.templates.snapshot();
                let template = templates
                    .get(uri)
                    .filter(|t| {
                        t.scopes.allow(asked_by.identity) && core.offered_to(asked_by.caller, *t)
                    })
                    .ok_or_else(|| {
                        ErrorObject::invalid_params(format!("unknown resource template: {uri}"))
                    })?;
                if !template.template.variables().contains(&argument) {
                    return Err(ErrorObject::invalid_params(format!(
                        "resource template `{uri}` has no variable `{argument}`"
                    )));
                }
                Ok(template.completions.get(argument).cloned())
            }
            _ => Err(ErrorObject::invalid_params("unknown completion reference")),
        }
    }
}
