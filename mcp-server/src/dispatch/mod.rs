//! JSON-RPC dispatch for both protocol eras, the same for every transport.
//! No I/O: transports hand in parsed messages and get back bytes to send (or
//! a future producing them).
//!
//! A request is served in the modern era (2026-07-28, stateless) when its
//! `params._meta` names a protocol version; otherwise it belongs to the
//! connection's legacy session, which `initialize` opens ([`era`]).
//!
//! Each capability is a struct that owns its state, in a module of its own,
//! with one shape ([`Capability`]): the methods it answers and its answers,
//! its share of what the server declares at `initialize`, the list-changed
//! feed it offers, the `subscriptions/listen` filter it agrees to, the OAuth
//! scopes of what a request reaches. [`ServerCore`] holds them and what they
//! share; [`ServerCore::capabilities`] lists them, and the router built from
//! their methods sends each request to its capability.
//!
//! | module | holds |
//! |---|---|
//! | [`session`] | per-connection state: the legacy session, requests in flight |
//! | [`era`] | era recognition, `_meta` checks, params parsing |
//! | [`lifecycle`] | `initialize`, `ping`, `server/discover`, `logging/setLevel` |
//! | [`tools`] | `tools/list`, `tools/call` and the policy around calls |
//! | [`prompts`] | `prompts/list`, `prompts/get` |
//! | [`resources`] | `resources/list`, `resources/templates/list`, `resources/read`, subscriptions |
//! | [`completion`] | `completion/complete` |
//! | [`rounds`] | 2026-07-28 input rounds: `inputResponses`, signed `requestState`, `input_required` |
//! | [`user_code`] | what the capabilities share: lists, the caller, the context of a request, running user code |
//! | [`listen`] | `subscriptions/listen` |
//! | this module | the service: the capabilities, routing, list feeds, and the OAuth scopes of what a request reaches ([`ServerCore::missing_scopes`]) |
//! | [`changes`] | list-changed feeds and notices |
//! | [`admission`] | bounds on running and waiting calls |
//! | [`batch`] | JSON-RPC batches |

mod admission;
mod batch;
mod changes;
mod completion;
mod era;
mod layer;
mod lifecycle;
mod listen;
mod prompts;
mod resources;
mod rounds;
mod session;
#[cfg(feature = "skills")]
mod skills;
mod tasks;
#[cfg(feature = "otel")]
mod telemetry;
mod tools;
mod user_code;

use std::sync::Arc;

use oxmcp_types::jsonrpc::RawJson;
use oxmcp_types::jsonrpc::RawMessage;
use oxmcp_types::modern::{meta as meta_key, SubscriptionFilter};
use oxmcp_types::notification::CancelledParams;
use oxmcp_types::{
    method, ErrorObject, Implementation, JsonObject, Meta, RequestId, ServerCapabilities,
};
use oxmcp_wire::sync::lock;
use serde_json::Value;

pub(crate) use admission::CallLimits;
#[cfg(feature = "http")]
pub(crate) use admission::SERVER_BUSY;
pub(crate) use batch::{items as batch_items, start_batch};
#[cfg(feature = "http")]
pub(crate) use changes::Change;
pub(crate) use changes::{Changes, Watched};
#[cfg(feature = "http")]
pub(crate) use lifecycle::{opens_session, owed_elsewhere};
pub(crate) use session::Session;
#[cfg(feature = "http")]
pub(crate) use session::SessionRecord;
#[cfg(feature = "http")]
pub(crate) use tasks::{TaskOp, TaskShare};

use crate::common::BoxFuture;
use crate::common::Outbound;
pub(crate) use crate::common::{encode, error_reply};
use crate::handle::ServerHandle;
use crate::policy::VisibilityHook;
use crate::registry::Catalog;
use changes::Feed;
use completion::Completion;
use era::required_params;
use layer::{DispatchLayer, Notice};
use lifecycle::Lifecycle;
use listen::Listen;
use prompts::Prompts;
use resources::Resources;
use tools::Tools;

/// The MCP service: the server's identity and what every capability
/// shares (the catalog the handle changes, list settings, the signer of
/// input rounds), and the capabilities, each owning its own state, in the
/// order requests are offered to them ([`ServerCore::capabilities`]).
pub(crate) struct ServerCore {
    pub(crate) info: Implementation,
    /// What the server declares at `initialize`: each capability's share
    /// ([`Capability::declare`]) and the extensions.
    pub(crate) declared: ServerCapabilities,
    pub(crate) catalog: Arc<Catalog>,
    /// The handle tools reach through `Context::server` (built once).
    pub(crate) handle: Arc<ServerHandle>,
    pub(crate) page_size: usize,
    pub(crate) list_ttl_ms: u64,
    /// `{"io.modelcontextprotocol/serverInfo": …}`, put on every modern result.
    server_info_meta: Meta,
    /// The same, serialized once: spliced into modern call results.
    server_info_meta_json: Vec<u8>,
    /// Signs and checks the `requestState` of 2026-07-28 input rounds.
    pub(crate) signer: crate::ask::request_state::Signer,
    /// The store the instances of a service share, where a `requestState`
    /// is claimed so that each is accepted once across them (set by the
    /// HTTP transport given one; the first wins).
    #[cfg(feature = "http")]
    pub(crate) claims: std::sync::OnceLock<Arc<dyn crate::state::Store>>,
    /// Who sees which prompts, resources and templates.
    pub(crate) offer_visibility: Option<Arc<crate::policy::OfferVisibilityHook>>,
    /// The whole results kept after a cut, read at their `mcp-result:` links.
    pub(crate) kept: Arc<crate::kept::KeptResults>,
    pub(crate) lifecycle: Lifecycle,
    pub(crate) tools: Tools,
    pub(crate) prompts: Prompts,
    pub(crate) resources: Resources,
    pub(crate) completion: Completion,
    pub(crate) listen: Listen,
    pub(crate) tasks: tasks::Tasks,
    #[cfg(feature = "skills")]
    pub(crate) skills: skills::SkillMethods,
    /// What every message passes through on its way to the capabilities
    /// (tracing, with the `otel` feature), outermost first.
    layers: Vec<Box<dyn DispatchLayer>>,
    /// The router: each method, and the index in
    /// [`ServerCore::capabilities`] of the capability that answers it (as
    /// each says in [`Capability::methods`]), in that order. About twenty
    /// short names, most of other lengths than the one looked up: a scan
    /// costs less than hashing the name.
    routes: Vec<(&'static str, usize)>,
}

/// What runs around tool calls and who sees what, as the builder collects
/// it: [`ServerCore::new`] hands each part to the capability it concerns.
#[derive(Default)]
pub(crate) struct Policy {
    /// What concerns tool calls: visibility, layers, timeout, bounds.
    pub(crate) tools: ToolPolicy,
    /// Who sees which prompts, resources and templates.
    pub(crate) offer_visibility: Option<Arc<crate::policy::OfferVisibilityHook>>,
    /// The tasks one caller may hold (`None`: [`crate::policy::DEFAULT_MAX_TASKS_PER_CALLER`]).
    pub(crate) max_tasks_per_caller: Option<usize>,
}

/// What runs around tool calls: who sees a tool, the tower layers, the
/// timeout, the bounds on running and waiting calls.
#[derive(Default)]
pub(crate) struct ToolPolicy {
    pub(crate) visibility: Option<Arc<VisibilityHook>>,
    /// The tower layers around tool calls, as the builder got them.
    pub(crate) layers: crate::tool::service::ToolLayers,
    pub(crate) call_timeout: Option<std::time::Duration>,
    /// The cap on one result for tools without their own (`None`: the default).
    pub(crate) max_result_chars: Option<usize>,
    pub(crate) limits: CallLimits,
    /// The rate limits per caller, as the builder got them.
    pub(crate) rate_limit: Option<crate::policy::RateLimit>,
    /// The same, checked and built (by `try_build`).
    pub(crate) limiters: Option<Arc<crate::policy::rate::Limiters>>,
    /// Where tools marked `cache` keep their results.
    pub(crate) cache: Option<crate::policy::ResultCache>,
    /// Tool search: `tools/list` offers only the pinned tools and the search tool.
    pub(crate) search: Option<Arc<crate::tool::search::ToolSearch>>,
}

/// What a transport knows about one request beyond its body.
#[derive(Default)]
pub(crate) struct RequestInfo {
    /// The HTTP headers, when the server's hooks may look at them.
    pub(crate) headers: Option<Arc<http::HeaderMap>>,
    /// Whom the request's access token speaks for (HTTP with authorization).
    pub(crate) identity: Option<Arc<crate::auth::Identity>>,
    /// Whom the request's token speaks for, as a session's owner is kept
    /// (the hex digest of its principal, else of the token): what binds a
    /// task to its creator (HTTP with authorization).
    pub(crate) owner: Option<Arc<str>>,
}

/// What the transport should do with a message.
pub(crate) enum Outcome {
    /// Send these bytes now.
    Reply(Vec<u8>),
    /// Send this error response now (`code` lets HTTP pick the status).
    Failed {
        /// The serialized error response.
        bytes: Vec<u8>,
        /// Its JSON-RPC error code.
        #[cfg(feature = "http")]
        code: i32,
    },
    /// Run this; send what it yields (nothing when the call was cancelled).
    Spawn(BoxFuture<'static, Option<Vec<u8>>>),
    /// Nothing to send (a notification, a response).
    Nothing,
}

/// A reply ready to send, or the error to answer with.
type Reply = Result<Vec<u8>, ErrorObject>;

/// Why a request is refused before dispatch ([`ServerCore::admit`]).
#[cfg(feature = "http")]
pub(crate) enum Refusal {
    /// The HTTP answer, made whole: the step-up challenge.
    Answer(crate::auth::Answer),
    /// A JSON-RPC error (a `requestState` used before), with its code,
    /// which picks the HTTP status.
    Failed { bytes: Vec<u8>, code: i32 },
    /// The shared store could not be asked.
    Unavailable(crate::state::StoreError),
}

fn failed(id: RequestId, error: ErrorObject) -> Outcome {
    Outcome::Failed {
        #[cfg(feature = "http")]
        code: error.code,
        bytes: error_reply(Some(id), error),
    }
}

/// What a [`ServerCore`] is built from (the builder's configuration).
pub(crate) struct CoreParts {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    /// Whether prompts, resources and completion are declared even with none
    /// (`ServerBuilder::offer_prompts_and_resources`).
    pub(crate) offer_all: bool,
    /// The extensions declared at `initialize`, settled by the builder.
    pub(crate) extensions: JsonObject,
    pub(crate) catalog: Catalog,
    pub(crate) page_size: usize,
    pub(crate) list_ttl_ms: u64,
    pub(crate) policy: Policy,
    pub(crate) signer: crate::ask::request_state::Signer,
    #[cfg(feature = "skills")]
    pub(crate) skills: Option<Arc<crate::skills::Skills>>,
}

impl ServerCore {
    pub(crate) fn new(parts: CoreParts) -> ServerCore {
        let CoreParts {
            info,
            instructions,
            offer_all,
            extensions,
            mut catalog,
            page_size,
            list_ttl_ms,
            policy,
            signer,
            #[cfg(feature = "skills")]
            skills,
        } = parts;
        let mut server_info_meta = Meta::new();
        server_info_meta.insert(
            meta_key::SERVER_INFO.to_owned(),
            serde_json::to_value(&info).unwrap_or(Value::Null),
        );
        let completion = Completion::new(&catalog, offer_all);
        catalog.completions_offered = completion.declared;
        let catalog = Arc::new(catalog);
        let layers: Vec<Box<dyn DispatchLayer>> = vec![
            #[cfg(feature = "otel")]
            Box::new(telemetry::Tracing),
        ];
        let mut core = ServerCore {
            layers,
            handle: Arc::new(ServerHandle::new(&info.name, Arc::clone(&catalog))),
            info,
            lifecycle: Lifecycle::new(instructions),
            tools: Tools::new(&catalog, policy.tools),
            prompts: Prompts::new(&catalog, offer_all),
            resources: Resources::new(&catalog, offer_all),
            completion,
            listen: Listen,
            tasks: tasks::Tasks::new(
                policy.max_tasks_per_caller,
                extensions.contains_key(oxmcp_types::extension::TASKS),
            ),
            offer_visibility: policy.offer_visibility,
            kept: Arc::default(),
            #[cfg(feature = "skills")]
            skills: skills::SkillMethods::new(skills),
            declared: ServerCapabilities::default(),
            catalog,
            page_size,
            list_ttl_ms,
            server_info_meta_json: serde_json::to_vec(&server_info_meta)
                .unwrap_or_else(|_| b"{}".to_vec()),
            server_info_meta,
            signer,
            #[cfg(feature = "http")]
            claims: std::sync::OnceLock::new(),
            routes: Vec::new(),
        };
        core.declared = core.declare(extensions);
        core.routes = core.routes();
        core
    }

    /// The router's table, from what each capability says it answers.
    fn routes(&self) -> Vec<(&'static str, usize)> {
        let mut routes: Vec<(&'static str, usize)> = Vec::new();
        for (i, capability) in self.capabilities().enumerate() {
            for &method in capability.methods() {
                debug_assert!(
                    routes.iter().all(|(m, _)| *m != method),
                    "two capabilities answer {method}"
                );
                routes.push((method, i));
            }
        }
        routes
    }

    /// The capability that answers `method`, if one does.
    fn route(&self, method: &str) -> Option<&dyn Capability> {
        let &(_, i) = self.routes.iter().find(|(m, _)| *m == method)?;
        self.capabilities().nth(i)
    }

    /// What the server declares at `initialize`: `extensions`, and each
    /// capability's share.
    fn declare(&self, extensions: JsonObject) -> ServerCapabilities {
        let mut declared = ServerCapabilities::default();
        declared.extensions = (!extensions.is_empty()).then_some(extensions);
        for capability in self.capabilities() {
            capability.declare(&mut declared);
        }
        declared
    }

    /// The capabilities, in the order requests are offered to them. Adding
    /// one is a module implementing [`Capability`] (what it answers, declares,
    /// feeds and agrees to), a field, and a line here.
    fn capabilities(&self) -> impl Iterator<Item = &dyn Capability> {
        let all: [&dyn Capability; 7] = [
            &self.lifecycle,
            &self.tools,
            &self.prompts,
            &self.resources,
            &self.completion,
            &self.listen,
            &self.tasks,
        ];
        #[cfg(feature = "skills")]
        let all = all
            .into_iter()
            .chain(std::iter::once(&self.skills as &dyn Capability));
        all.into_iter()
    }

    /// The filter the server agrees to: what each capability agrees to of `asked`.
    fn agree(&self, asked: &SubscriptionFilter) -> SubscriptionFilter {
        let mut agreed = SubscriptionFilter::default();
        for capability in self.capabilities() {
            capability.agree(self, asked, &mut agreed);
        }
        agreed
    }

    /// The feeds of the lists that change on this instance.
    pub(crate) fn local_feeds(&self) -> Vec<Feed> {
        self.capabilities().filter_map(Capability::feed).collect()
    }

    /// The feeds of every list that can change: on this instance, and as
    /// other instances say (through the shared store's bus).
    fn feeds(&self) -> Vec<Feed> {
        let local = self.local_feeds();
        let elsewhere = local.iter().map(|f| {
            let kind = f.kind();
            Feed::new(kind, self.catalog.peer_lists[kind.index()].subscribe())
        });
        let elsewhere: Vec<Feed> = elsewhere.collect();
        local.into_iter().chain(elsewhere).collect()
    }

    /// What a legacy session follows: every list, and the resources it
    /// subscribed to.
    pub(crate) fn changes(&self, session: &Arc<Session>) -> Changes {
        Changes::new(
            self.feeds(),
            Some((
                self.catalog.updates(),
                Watched::Session(Arc::clone(session)),
            )),
        )
    }

    /// Whether hooks or layers look at who calls or at the request's
    /// headers (then the transport keeps a request's headers for them).
    pub(crate) fn wants_caller(&self) -> bool {
        self.tools.wants_caller()
            || self.offer_visibility.is_some()
            || self.layers.iter().any(|l| l.wants_headers())
    }

    /// Handles one incoming message on `session`. Notifications that belong to
    /// a request (progress, log messages, a listen stream's events) go to `out`.
    pub(crate) fn handle(
        self: &Arc<Self>,
        session: &Arc<Session>,
        msg: RawMessage<'_>,
        out: &Arc<dyn Outbound>,
        info: &RequestInfo,
    ) -> Outcome {
        match msg {
            RawMessage::Request { id, method, params } => {
                let req = Request {
                    session,
                    id,
                    method: &method,
                    params,
                    out,
                    info,
                };
                self.through(&self.layers, req)
            }
            RawMessage::Notification { method, params } => {
                let notice = Notice {
                    session,
                    method: &method,
                    params,
                    info,
                };
                self.notify_through(&self.layers, notice);
                Outcome::Nothing
            }
            RawMessage::Response { id, result } => {
                let value = serde_json::from_str(result.get()).unwrap_or(Value::Null);
                if !session.pending.resolve(&id, Ok(value)) {
                    // Unsolicited (or answered too late): logged and dropped, as JSON-RPC allows.
                    tracing::debug!(%id, "ignoring a response to a request we did not send");
                }
                Outcome::Nothing
            }
            RawMessage::Error { id, error } => {
                let answered = id
                    .as_ref()
                    .is_some_and(|id| session.pending.resolve(id, Err(error.clone())));
                if !answered {
                    tracing::warn!(id = ?id, code = error.code, message = %error.message, "client reported an error");
                }
                Outcome::Nothing
            }
        }
    }

    /// Passes `req` through `layers`, then to the capabilities.
    fn through(self: &Arc<Self>, layers: &[Box<dyn DispatchLayer>], req: Request<'_>) -> Outcome {
        match layers.split_first() {
            None => self.request(req),
            Some((layer, rest)) => layer.request(self, req, &|req| self.through(rest, req)),
        }
    }

    /// Passes a notification through `layers`, then handles it.
    fn notify_through(&self, layers: &[Box<dyn DispatchLayer>], notice: Notice<'_>) {
        match layers.split_first() {
            None => Self::notification(notice.session, notice.method, notice.params),
            Some((layer, rest)) => {
                layer.notification(self, notice, &|n| self.notify_through(rest, n));
            }
        }
    }

    fn notification(session: &Session, method: &str, params: Option<RawJson<'_>>) {
        match method {
            method::INITIALIZED => {}
            method::CANCELLED => match required_params::<CancelledParams>(params) {
                Ok(CancelledParams {
                    request_id: Some(id),
                    ..
                }) => {
                    let found = lock(&session.inflight)
                        .remove(&id)
                        .or_else(|| lock(&session.listens).remove(&id));
                    if let Some(ctx) = found {
                        tracing::debug!(%id, "request cancelled by the client");
                        ctx.cancel();
                    }
                }
                Ok(_) => {}
                Err(e) => tracing::debug!(error = %e, "malformed cancellation ignored"),
            },
            other => tracing::debug!(method = other, "ignoring notification"),
        }
    }
}

/// One request, as dispatch offers it to the capabilities.
pub(super) struct Request<'a> {
    session: &'a Arc<Session>,
    id: RequestId,
    method: &'a str,
    params: Option<RawJson<'a>>,
    out: &'a Arc<dyn Outbound>,
    info: &'a RequestInfo,
}

/// One capability's share of dispatch: the requests it answers, the list
/// it keeps clients informed of, the part of a `subscriptions/listen`
/// filter it agrees to, and the OAuth scopes what a request reaches needs.
/// Each is a struct owning its own state.
pub(super) trait Capability: Send + Sync {
    /// The methods this capability answers: the router sends it requests
    /// of these, and only these.
    fn methods(&self) -> &'static [&'static str];

    /// Answers `req`, a request of one of [`methods`](Self::methods); gives
    /// it back when it does not serve it after all (the server then answers
    /// -32601, as for a method nobody routes).
    fn request<'a>(&self, core: &Arc<ServerCore>, req: Request<'a>)
        -> Result<Outcome, Request<'a>>;

    /// Sets the fields of what the server declares at `initialize` that
    /// this capability serves.
    fn declare(&self, declared: &mut ServerCapabilities) {
        let _ = declared;
    }

    /// The feed of this capability's list changes, if it has such a list.
    fn feed(&self) -> Option<Feed> {
        None
    }

    /// Sets the fields of `agreed` this capability serves, from `asked`.
    fn agree(
        &self,
        core: &ServerCore,
        asked: &SubscriptionFilter,
        agreed: &mut SubscriptionFilter,
    ) {
        let _ = (core, asked, agreed);
    }

    /// The scopes of what a request of `method` reaches (the tool called,
    /// the prompt got, the resource read...), when the method is this
    /// capability's and what it names exists; `None` otherwise (what does
    /// not exist is dispatch's not-found answer, not a scope question).
    #[cfg(feature = "http")]
    fn scopes(
        &self,
        core: &ServerCore,
        method: &str,
        params: Option<RawJson<'_>>,
    ) -> Option<Vec<crate::auth::Scopes>> {
        let _ = (core, method, params);
        None
    }
}

impl ServerCore {
    /// Sends `req` to the capability that answers its method; a method
    /// none answers is -32601.
    fn request(self: &Arc<Self>, req: Request<'_>) -> Outcome {
        let req = match self.route(req.method) {
            Some(capability) => match capability.request(self, req) {
                Ok(outcome) => return outcome,
                Err(unanswered) => unanswered,
            },
            None => req,
        };
        failed(req.id, ErrorObject::method_not_found(req.method))
    }
}

/// A capability's declaration with `listChanged` (its list changes at run
/// time, through `ServerHandle`: clients hear of it).
fn list_changed() -> JsonObject {
    let mut c = JsonObject::new();
    c.insert("listChanged".into(), true.into());
    c
}

// ---------------------------------------------------------------- admission

impl ServerCore {
    /// What a request passes before it is dispatched, which may wait: the
    /// scope step-up, when a gate let it through with a token that lacks
    /// the scopes of what it reaches ([`ServerCore::missing_scopes`]); then
    /// the claim of its signed `requestState` in the store the instances
    /// share ([`ServerCore::claim_state`]). In this order, so that a
    /// request refused for its scopes has not used its state.
    #[cfg(feature = "http")]
    pub(crate) async fn admit(
        &self,
        msg: &RawMessage<'_>,
        verified: Option<&crate::auth::Verified>,
    ) -> Result<(), Refusal> {
        let RawMessage::Request { id, method, params } = msg else {
            return Ok(());
        };
        if let Some(verified) = verified {
            if let Some(needed) = self.missing_scopes(method, *params, &verified.identity) {
                let needed: Vec<&str> = needed.iter().map(String::as_str).collect();
                return Err(Refusal::Answer(verified.insufficient_scope(&needed)));
            }
        }
        self.claim_state(id, *params).await
    }

    /// The scopes a step-up challenge names when `who`'s token lacks some
    /// that the request needs: those of what it reaches, as the capability
    /// that answers it says ([`Capability::scopes`]), each named once.
    /// `None` when it lacks none, and when the request names nothing that
    /// exists: that is dispatch's not-found answer, not a scope question.
    #[cfg(feature = "http")]
    pub(crate) fn missing_scopes(
        &self,
        method_name: &str,
        params: Option<RawJson<'_>>,
        who: &crate::auth::Identity,
    ) -> Option<Vec<String>> {
        use crate::auth::Scopes;
        let targets = self.route(method_name)?.scopes(self, method_name, params)?;
        let mut needed: Vec<String> = Vec::new();
        // A target whose scopes the token lacks names all of them.
        let lacked = targets.iter().filter(|t| !t.allow(Some(who)));
        for scope in lacked.flat_map(Scopes::iter) {
            if !needed.iter().any(|n| n == scope) {
                needed.push(scope.to_owned());
            }
        }
        (!needed.is_empty()).then_some(needed)
    }
}
