//! What the capabilities that run user code outside tools share (prompts,
//! resources, completion): a paginated list in both eras, the context of a
//! request, and running its future with cancellation.

use std::future::Future;
use std::sync::Arc;

use oxmcp_types::jsonrpc::Response;
use oxmcp_types::modern::RequestMeta;
use oxmcp_types::{
    CacheScope, ErrorObject, LoggingLevel, Meta, PaginatedParams, RequestId, ResultType,
};
use oxmcp_wire::sync::lock;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::era::{era_of, Era};
use super::rounds::{input_needed, rounds_of, Bound, Retry};
use super::session::Session;
use super::{encode, failed, Outcome, Request, ServerCore};
use crate::common::BoxFuture;
use crate::context::{Context, ContextParts};
use crate::error::RequestError;
use crate::policy::Caller;
use crate::registry::{Entry, Live, Offered};

/// One page of a list: its items, the next cursor, the request's era.
pub(super) type Page<D> = (Vec<D>, Option<String>, Era);

/// A `*/list` result, built from one page and the era's fields.
pub(super) trait ListResult: Serialize {
    /// What it lists.
    type Item;
    /// The result of this page.
    fn from_page(items: Vec<Self::Item>, next_cursor: Option<String>, modern: ModernFields)
        -> Self;
}

/// Implements [`ListResult`] for a `*/list` result whose items are in
/// `$field`: the page's items, the cursor, and the modern fields.
macro_rules! list_result {
    ($result:ident { $field:ident: $item:ty }) => {
        impl $crate::dispatch::user_code::ListResult for $result {
            type Item = $item;

            fn from_page(
                $field: Vec<$item>,
                next_cursor: Option<String>,
                m: $crate::dispatch::user_code::ModernFields,
            ) -> Self {
                $result {
                    $field,
                    next_cursor,
                    result_type: m.result_type,
                    ttl_ms: m.ttl_ms,
                    cache_scope: m.cache_scope,
                    meta: m.meta,
                }
            }
        }
    };
}
pub(super) use list_result;

/// The 2026-07-28 fields of a result, set when the request was modern.
pub(super) struct ModernFields {
    pub(super) result_type: Option<ResultType>,
    pub(super) ttl_ms: Option<u64>,
    pub(super) cache_scope: Option<CacheScope>,
    pub(super) meta: Option<Meta>,
}

impl ServerCore {
    /// The server's identity, as modern results carry it in `_meta`.
    pub(super) fn complete_meta(&self) -> Meta {
        self.server_info_meta.clone()
    }

    /// Who is calling, for hooks and layers.
    pub(super) fn caller(session: &Session, era: &Era, info: &super::RequestInfo) -> Caller {
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
            connection: session.serial,
        }
    }

    /// The modern fields of a list or read result (`shared`: whether every
    /// caller sees the same), or nothing in the legacy era.
    pub(super) fn modern_fields(&self, era: &Era, shared: bool) -> ModernFields {
        match era {
            Era::Legacy(_) => ModernFields {
                result_type: None,
                ttl_ms: None,
                cache_scope: None,
                meta: None,
            },
            Era::Modern(_) => ModernFields {
                result_type: Some(ResultType::Complete),
                ttl_ms: Some(self.list_ttl_ms),
                cache_scope: Some(if shared {
                    CacheScope::Public
                } else {
                    CacheScope::Private
                }),
                meta: Some(self.complete_meta()),
            },
        }
    }

    /// One page of `live`'s visible entries for a `*/list` request, and its era.
    pub(super) fn list_page<E: Entry + Offered>(
        &self,
        req: &Request<'_>,
        live: &Live<E>,
    ) -> Result<Page<E::Def>, ErrorObject> {
        let (p, era) =
            era_of::<PaginatedParams>(req.session, req.params, |p| modern_meta(p.meta.as_ref()))?;
        let caller = self.offer_caller(req, &era);
        let who = req.info.identity.as_deref();
        let hide_pages = self.hides_apps(&era);
        let (items, next) = live
            .snapshot()
            .page_filtered(p.cursor.as_deref(), self.page_size, |e| {
                e.scopes().allow(who)
                    && self.offered_to(caller.as_ref(), e)
                    && !(hide_pages && is_page(&e.offer().offer))
            })
            .map_err(|_| ErrorObject::invalid_params("invalid cursor"))?;
        Ok((items, next, era))
    }

    /// Answers a `*/list` request with one page of `live`'s entries the
    /// caller may see: those whose scopes its token has (with a verified
    /// token; the list is then private to the caller) and the offer hook
    /// allows.
    pub(super) fn list_reply<E, R>(&self, req: &Request<'_>, live: &Live<E>) -> Outcome
    where
        E: Entry + Offered,
        R: ListResult<Item = E::Def>,
    {
        match self.list_page(req, live) {
            Ok((items, next_cursor, era)) => {
                let shared = self.offers_shared() && req.info.identity.is_none();
                let modern = self.modern_fields(&era, shared);
                let result = R::from_page(items, next_cursor, modern);
                Outcome::Reply(encode(&Response::new(req.id.clone(), result)))
            }
            Err(e) => failed(req.id.clone(), e),
        }
    }

    /// Who is asking, when an offer visibility hook wants to know.
    pub(super) fn offer_caller(&self, req: &Request<'_>, era: &Era) -> Option<Caller> {
        self.offer_visibility
            .is_some()
            .then(|| Self::caller(req.session, era, req.info))
    }

    /// Whether `caller` may see `entry` (always, without a hook).
    pub(super) fn offered_to(&self, caller: Option<&Caller>, entry: &impl Offered) -> bool {
        match (&self.offer_visibility, caller) {
            (Some(hook), Some(caller)) => hook(caller, &entry.offer()),
            _ => true,
        }
    }

    /// Whether every caller sees the same lists (they may then be shared):
    /// no offer hook decides, and no list depends on whether the client
    /// declared Apps.
    pub(super) fn offers_shared(&self) -> bool {
        self.offer_visibility.is_none() && !self.offers_apps()
    }

    /// Whether the server offers MCP Apps (it has pages, or tools with
    /// Apps settings).
    pub(super) fn offers_apps(&self) -> bool {
        self.declared
            .extension(oxmcp_types::extension::UI)
            .is_some()
    }

    /// Whether what only Apps clients see is hidden from this request's
    /// client: the server offers Apps and the client did not declare them.
    pub(super) fn hides_apps(&self, era: &Era) -> bool {
        self.offers_apps() && !oxmcp_types::apps::client_supports(era.client_capabilities())
    }

    /// Parses a request's params and builds the context its user code runs
    /// with (logging, progress, cancellation, the client's capabilities).
    pub(super) fn user_request<P: UserParams>(
        &self,
        req: &Request<'_>,
    ) -> Result<(P, Era, Context), ErrorObject> {
        let (p, era) = era_of::<P>(req.session, req.params, |p| modern_meta(p.meta()))?;
        let bound = p.bound();
        let asker = self.asker(
            req.session,
            &era,
            req.out,
            bound
                .as_ref()
                .map(|(m, t, a)| (*m, t.as_str(), Bound::Value(a))),
            &p.retry(),
            req.info.identity.as_deref(),
        )?;
        let (log_level, client_capabilities, progress_token) = match &era {
            Era::Legacy(s) => (
                Some(s.log_level.unwrap_or(LoggingLevel::Info)),
                Arc::clone(&s.client_capabilities),
                None,
            ),
            Era::Modern(m) => (
                m.log_level,
                Arc::new(m.client_capabilities.clone()),
                m.progress_token.clone(),
            ),
        };
        let ctx = Context::new(ContextParts {
            request_id: req.id.clone(),
            progress_token,
            log_level,
            out: Arc::clone(req.out),
            protocol_version: era.version(),
            client_capabilities,
            server: Arc::clone(&self.handle) as _,
            asker,
            identity: req.info.identity.clone(),
            max_result_chars: crate::tool::DEFAULT_MAX_RESULT_CHARS,
            keeper: None,
            caller: None,
        });
        Ok((p, era, ctx))
    }

    /// Runs a request's user code: answered at once if it finishes without
    /// waiting, else handed to the transport (and cancellable meanwhile).
    /// `finish` completes the result (its modern fields).
    pub(super) fn run_user<T, F>(
        self: &Arc<Self>,
        session: &Arc<Session>,
        id: RequestId,
        ctx: Context,
        uri: Option<String>,
        fut: F,
        finish: impl FnOnce(&mut T) + Send + 'static,
    ) -> Outcome
    where
        T: Serialize + Send + 'static,
        F: Future<Output = Result<T, RequestError>> + Send + 'static,
    {
        let answer_id = id.clone();
        // The answer is made in the future: what follows is the same code
        // for every kind of result.
        let answered: BoxFuture<'static, Outcome> = Box::pin(async move {
            match fut.await {
                Ok(mut result) => {
                    finish(&mut result);
                    Outcome::Reply(encode(&Response::new(answer_id, result)))
                }
                Err(e) => failed(answer_id, e.into_object(uri.as_deref())),
            }
        });
        self.run_answered(session, id, ctx, answered)
    }

    /// [`run_user`](Self::run_user) once the future makes its answer.
    fn run_answered(
        self: &Arc<Self>,
        session: &Arc<Session>,
        id: RequestId,
        ctx: Context,
        mut fut: BoxFuture<'static, Outcome>,
    ) -> Outcome {
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        if let std::task::Poll::Ready(answer) = fut.as_mut().poll(&mut cx) {
            return answer;
        }
        // Waiting for input it asked for: the answer is an input round.
        let rounds = rounds_of(&ctx);
        if let Some(r) = rounds.as_ref().filter(|r| r.has_requests()) {
            return Outcome::Reply(self.input_required(id, r));
        }
        lock(&session.inflight).insert(id.clone(), ctx.clone());
        let session = Arc::clone(session);
        let core = Arc::clone(self);
        Outcome::Spawn(Box::pin(async move {
            let out = tokio::select! {
                out = fut => Some(Some(out)),
                () = ctx.cancelled() => None,
                () = input_needed(rounds.as_ref()) => Some(None),
            };
            lock(&session.inflight).remove(&id);
            let out = out.filter(|_| !ctx.is_cancelled())?;
            let Some(answer) = out else {
                return rounds.map(|r| core.input_required(id, &r));
            };
            match answer {
                Outcome::Reply(bytes) | Outcome::Failed { bytes, .. } => Some(bytes),
                Outcome::Spawn(_) | Outcome::Nothing => None,
            }
        }))
    }
}

/// The params of a request that runs user code (a prompt, a resource, a
/// completion): its `_meta`, and what its input rounds are bound to.
pub(super) trait UserParams: DeserializeOwned + Default {
    /// Its `_meta`.
    fn meta(&self) -> Option<&Meta>;
    /// The method, target and arguments its input rounds are bound to;
    /// `None` for a request that cannot have input rounds.
    fn bound(&self) -> Option<(&'static str, String, serde_json::Value)> {
        None
    }
    /// What the retry brought.
    fn retry(&self) -> Retry<'_> {
        Retry {
            input_responses: None,
            request_state: None,
        }
    }
}

/// The modern protocol fields of a params `_meta`, if it names a version.
fn modern_meta(meta: Option<&Meta>) -> Option<Result<RequestMeta, oxmcp_types::modern::MetaError>> {
    meta.filter(|m| RequestMeta::is_modern(Some(m)))
        .map(RequestMeta::from_meta)
}

/// Whether an offered item is an app's page (a resource, or a template of
/// resources, served as [`apps::MIME_TYPE`](crate::apps::MIME_TYPE)).
fn is_page(offer: &crate::policy::Offer<'_>) -> bool {
    match offer {
        crate::policy::Offer::Resource(r) => crate::apps::is_page(r),
        crate::policy::Offer::Template(t) => t.mime_type.as_deref() == Some(crate::apps::MIME_TYPE),
        _ => false,
    }
}
