//! Resources: `resources/list`, `resources/templates/list`, `resources/read`
//! in both eras, `resources/subscribe` and `resources/unsubscribe` in the
//! legacy era (the 2026-07-28 era subscribes through `subscriptions/listen`),
//! and the resource list's change feed.

use std::sync::Arc;

use oxmcp_types::jsonrpc::Response;
use oxmcp_types::lifecycle::EmptyResult;
use oxmcp_types::modern::SubscriptionFilter;
use oxmcp_types::{
    method, ErrorObject, ListResourceTemplatesResult, ListResourcesResult, Meta,
    ReadResourceResult, ServerCapabilities,
};
use oxmcp_wire::sync::lock;

use super::changes::{Feed, ListKind};
use super::era::Era;
use super::rounds::Retry;
use super::user_code::{list_result, UserParams};
use super::{encode, failed, Capability, Outcome, Request, ServerCore};
use crate::error::resource_not_found;
use crate::prompt::StringArgs;
use crate::registry::{Catalog, Live};
use crate::resource::{read, Reading, ResourceEntry, TemplateEntry};

/// The resource methods and the resource list's changes: the static
/// resources and the templates (shared with the handle, which changes
/// them), and whether the server declared them.
pub(crate) struct Resources {
    statics: Arc<Live<ResourceEntry>>,
    templates: Arc<Live<TemplateEntry>>,
    declared: bool,
}

impl Resources {
    /// Declared when the server has resources or templates at build, or `offer_all`.
    pub(super) fn new(catalog: &Catalog, offer_all: bool) -> Resources {
        // A tool that keeps whole results has them read as resources.
        let has_some = !catalog.resources.snapshot().entries().is_empty()
            || !catalog.templates.snapshot().entries().is_empty()
            || catalog
                .tools
                .snapshot()
                .entries()
                .iter()
                .any(|t| t.keep_full.is_some());
        Resources {
            statics: Arc::clone(&catalog.resources),
            templates: Arc::clone(&catalog.templates),
            declared: offer_all || has_some,
        }
    }

    /// Whether `uri` names a resource the server can read now.
    fn exists(&self, uri: &str) -> bool {
        self.statics.snapshot().get(uri).is_some()
            || self
                .templates
                .snapshot()
                .entries()
                .iter()
                .any(|t| t.bind(uri).is_some())
    }

    /// Tells the resource (or template) at `uri` that a client follows it
    /// now ([`ResourceEntry::on_subscribe`](crate::resource::ResourceEntry::on_subscribe)).
    pub(super) fn followed(&self, uri: &str) {
        let hook = match self.statics.snapshot().get(uri) {
            Some(resource) => resource.on_subscribe.clone(),
            None => self
                .templates
                .snapshot()
                .entries()
                .iter()
                .find(|t| t.bind(uri).is_some())
                .and_then(|t| t.on_subscribe.clone()),
        };
        if let Some(hook) = hook {
            hook(uri);
        }
    }

    /// The scopes of what reading `uri` reaches, if anything: the static
    /// resource of that URI, else the first template (in list order) that
    /// matches it, as `resources/read` looks.
    pub(super) fn scopes_of(&self, uri: &str) -> Option<crate::auth::Scopes> {
        if let Some(resource) = self.statics.snapshot().get(uri) {
            return Some(resource.scopes.clone());
        }
        let templates = self.templates.snapshot();
        let template = templates.entries().iter().find(|t| t.bind(uri).is_some())?;
        Some(template.scopes.clone())
    }

    /// The scopes of the template at `uri` (a template's URI, as
    /// `completion/complete` names it), if it exists.
    #[cfg(feature = "http")]
    pub(super) fn template_scopes(&self, uri: &str) -> Option<crate::auth::Scopes> {
        Some(self.templates.snapshot().get(uri)?.scopes.clone())
    }

    /// One change counter for the resources and the templates: either list
    /// changing is `notifications/resources/list_changed`.
    fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        let (tx, rx) = tokio::sync::watch::channel(0u64);
        let mut resources = self.statics.subscribe();
        let mut templates = self.templates.subscribe();
        crate::common::spawn(async move {
            loop {
                tokio::select! {
                    r = resources.changed() => if r.is_err() { break },
                    r = templates.changed() => if r.is_err() { break },
                    () = tx.closed() => break,
                }
                tx.send_modify(|n| *n += 1);
            }
        });
        rx
    }
}

impl Capability for Resources {
    fn methods(&self) -> &'static [&'static str] {
        &[
            method::RESOURCES_LIST,
            method::RESOURCES_TEMPLATES_LIST,
            method::RESOURCES_READ,
            method::RESOURCES_SUBSCRIBE,
            method::RESOURCES_UNSUBSCRIBE,
        ]
    }

    fn declare(&self, declared: &mut ServerCapabilities) {
        declared.resources = self.declared.then(|| {
            let mut c = super::list_changed();
            c.insert("subscribe".into(), true.into());
            c
        });
    }

    fn request<'a>(
        &self,
        core: &Arc<ServerCore>,
        req: Request<'a>,
    ) -> Result<Outcome, Request<'a>> {
        match req.method {
            method::RESOURCES_LIST => {
                Ok(core.list_reply::<_, ListResourcesResult>(&req, &self.statics))
            }
            method::RESOURCES_TEMPLATES_LIST => {
                Ok(core.list_reply::<_, ListResourceTemplatesResult>(&req, &self.templates))
            }
            method::RESOURCES_READ => Ok(self.read(core, req)),
            method::RESOURCES_SUBSCRIBE => Ok(self.subscribe(core, &req, true)),
            method::RESOURCES_UNSUBSCRIBE => Ok(self.subscribe(core, &req, false)),
            _ => Err(req),
        }
    }

    fn feed(&self) -> Option<Feed> {
        self.declared
            .then(|| Feed::new(ListKind::Resources, self.changes()))
    }

    fn agree(&self, _: &ServerCore, asked: &SubscriptionFilter, agreed: &mut SubscriptionFilter) {
        if !self.declared {
            return;
        }
        agreed.resources_list_changed = asked.resources_list_changed.filter(|&b| b);
        // Only resources that exist can be followed.
        agreed.resource_subscriptions = asked
            .resource_subscriptions
            .as_ref()
            .map(|uris| uris.iter().filter(|u| self.exists(u)).cloned().collect());
    }

    #[cfg(feature = "http")]
    fn scopes(
        &self,
        _: &ServerCore,
        method_name: &str,
        params: Option<oxmcp_types::jsonrpc::RawJson<'_>>,
    ) -> Option<Vec<crate::auth::Scopes>> {
        let peek = oxmcp_wire::route::Peek::read(params);
        let reaches = match method_name {
            method::RESOURCES_READ => true,
            // Legacy only: a 2026-07-28 one is -32601, not a scope question.
            method::RESOURCES_SUBSCRIBE => !peek.is_modern(),
            _ => false,
        };
        if !reaches {
            return None;
        }
        Some(vec![
            self.scopes_of(&peek.name_for(method::RESOURCES_READ)?)?
        ])
    }
}

/// `resources/*` params read leniently first, so a missing `uri` is a clear -32602.
#[derive(serde::Deserialize, Default)]
struct UriParamsOpt {
    #[serde(default)]
    uri: Option<String>,
    #[serde(rename = "_meta", default)]
    meta: Option<Meta>,
    #[serde(rename = "inputResponses", default)]
    input_responses: Option<serde_json::Value>,
    #[serde(rename = "requestState", default)]
    request_state: Option<String>,
}

impl UserParams for UriParamsOpt {
    fn meta(&self) -> Option<&Meta> {
        self.meta.as_ref()
    }

    fn bound(&self) -> Option<(&'static str, String, serde_json::Value)> {
        Some((
            method::RESOURCES_READ,
            self.uri.clone().unwrap_or_default(),
            serde_json::Value::Null,
        ))
    }

    fn retry(&self) -> Retry<'_> {
        Retry {
            input_responses: self.input_responses.as_ref(),
            request_state: self.request_state.as_deref(),
        }
    }
}

list_result!(ListResourcesResult {
    resources: oxmcp_types::Resource
});

list_result!(ListResourceTemplatesResult {
    resource_templates: oxmcp_types::ResourceTemplate
});

impl Resources {
    fn read(&self, core: &Arc<ServerCore>, req: Request<'_>) -> Outcome {
        let (p, era, ctx) = match core.user_request::<UriParamsOpt>(&req) {
            Ok(v) => v,
            Err(e) => return failed(req.id, e),
        };
        let Some(uri) = p.uri else {
            return failed(
                req.id,
                ErrorObject::invalid_params("missing resource `uri`"),
            );
        };
        if uri.starts_with(crate::kept::SCHEME) {
            return Self::read_kept(core, &req, &era, &uri);
        }
        // A static resource first, else the first template (in list order)
        // that matches; what the caller may not see (or whose scopes its
        // token lacks: HTTP answers that with the step-up challenge before
        // dispatch) does not exist for it.
        let caller = core.offer_caller(&req, &era);
        let who = req.info.identity.as_deref();
        let found = match self
            .statics
            .snapshot()
            .get(&uri)
            .filter(|r| r.scopes.allow(who) && core.offered_to(caller.as_ref(), *r))
        {
            Some(r) => Some((Arc::clone(&r.handler), StringArgs::default())),
            None => self
                .templates
                .snapshot()
                .entries()
                .iter()
                .filter(|t| t.scopes.allow(who) && core.offered_to(caller.as_ref(), *t))
                .find_map(|t| Some((Arc::clone(&t.handler), t.bind(&uri)?))),
        };
        let Some((handler, variables)) = found else {
            return failed(req.id, resource_not_found(&uri));
        };
        // What a token was needed for is no one else's: not for shared caches.
        let modern = core.modern_fields(&era, core.offers_shared() && who.is_none());
        let reading = Reading {
            uri: uri.clone(),
            variables,
        };
        core.run_user(
            req.session,
            req.id,
            ctx.clone(),
            Some(uri),
            async move { read(&*handler, reading, ctx).await },
            move |result: &mut ReadResourceResult| {
                if modern.result_type.is_some() {
                    result.result_type = modern.result_type;
                    result.ttl_ms = result.ttl_ms.or(modern.ttl_ms);
                    result.cache_scope = result.cache_scope.or(modern.cache_scope);
                    if let Some(meta) = modern.meta {
                        result.meta.get_or_insert_with(Meta::new).extend(meta);
                    }
                }
            },
        )
    }

    /// A whole result kept after a cut: to its caller only, to anyone else
    /// as if it did not exist.
    fn read_kept(core: &ServerCore, req: &Request<'_>, era: &Era, uri: &str) -> Outcome {
        let owner = ServerCore::caller(req.session, era, req.info).owner(None);
        let Some(contents) = core.kept.read(uri, owner.as_deref()) else {
            return failed(req.id.clone(), resource_not_found(uri));
        };
        let mut result = ReadResourceResult::new(contents);
        // Whose it is: never for a shared cache.
        let modern = core.modern_fields(era, false);
        result.result_type = modern.result_type;
        result.ttl_ms = modern.ttl_ms;
        result.cache_scope = modern.cache_scope;
        result.meta = modern.meta;
        Outcome::Reply(encode(&Response::new(req.id.clone(), result)))
    }

    /// `resources/subscribe` (`on`) and `resources/unsubscribe`: legacy only.
    fn subscribe(&self, core: &ServerCore, req: &Request<'_>, on: bool) -> Outcome {
        let id = req.id.clone();
        let (p, era) = match super::era::era_of::<UriParamsOpt>(req.session, req.params, |p| {
            p.meta
                .as_ref()
                .filter(|m| oxmcp_types::modern::RequestMeta::is_modern(Some(m)))
                .map(oxmcp_types::modern::RequestMeta::from_meta)
        }) {
            Ok(v) => v,
            Err(e) => return failed(id, e),
        };
        if let Era::Modern(_) = era {
            // 2026-07-28 subscribes with `subscriptions/listen` filters.
            return failed(id, ErrorObject::method_not_found(req.method));
        }
        if !self.declared {
            return failed(id, ErrorObject::method_not_found(req.method));
        }
        let Some(uri) = p.uri else {
            return failed(id, ErrorObject::invalid_params("missing resource `uri`"));
        };
        if on {
            let caller = core.offer_caller(req, &era);
            let who = req.info.identity.as_deref();
            let visible = self
                .statics
                .snapshot()
                .get(&uri)
                .is_some_and(|r| r.scopes.allow(who) && core.offered_to(caller.as_ref(), r))
                || self.templates.snapshot().entries().iter().any(|t| {
                    t.scopes.allow(who)
                        && core.offered_to(caller.as_ref(), t)
                        && t.bind(&uri).is_some()
                });
            if !visible {
                return failed(id, resource_not_found(&uri));
            }
            self.followed(&uri);
            lock(&req.session.subscriptions).insert(uri);
        } else {
            lock(&req.session.subscriptions).remove(&uri);
        }
        req.session.mark_changed();
        Outcome::Reply(encode(&Response::new(id, EmptyResult::default())))
    }
}
