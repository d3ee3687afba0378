//! JSON-RPC dispatch for both protocol eras, the same for every transport.
//! No I/O: transports hand in parsed messages and get back bytes to send (or
//! a future producing them).
//!
//! A request is served in the modern era (2026-07-28, stateless) when its
//! `params._meta` names a protocol version; otherwise it belongs to the
//! connection's legacy session, which `initialize` opens ([`era`]).
//!
//! Each capability is a module of one shape ([`Capability`]): the requests
//! it answers, the list-changed feed it offers, the `subscriptions/listen`
//! filter it agrees to. [`CAPABILITIES`] lists them; dispatch walks it.
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
//! | [`serve`] | what those three share: lists, the context of a request, running user code |
//! | [`listen`] | `subscriptions/listen` |
//! | this module | the table, and the OAuth scopes of what a request reaches ([`ServerCore::missing_scopes`]) |
//! | [`changes`] | list-changed feeds and notices |
//! | [`admission`] | bounds on running and waiting calls |
//! | [`batch`] | JSON-RPC batches |

mod admission;
mod batch;
mod changes;
mod completion;
mod era;
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

#[cfg(feature = "auth")]
use mcp_types::completion::CompletionRef;
use mcp_types::jsonrpc::RawJson;
use mcp_types::jsonrpc::RawMessage;
use mcp_types::modern::{meta as meta_key, SubscriptionFilter};
use mcp_types::notification::CancelledParams;
use mcp_types::{method, ErrorObject, Implementation, Meta, RequestId, ServerCapabilities};
use mcp_wire::sync::lock;
use serde_json::Value;

pub(crate) use admission::CallLimits;
pub(crate) use batch::items as batch_items;
#[cfg(feature = "http")]
pub(crate) use changes::{Change, Changes, Watched};
#[cfg(feature = "http")]
pub(crate) use lifecycle::{opens_session, owed_elsewhere};
pub(crate) use session::Session;
#[cfg(feature = "http")]
pub(crate) use session::SessionRecord;
#[cfg(feature = "http")]
pub(crate) use tasks::{TaskOp, TaskShare};
#[cfg(feature = "otel")]
pub(crate) use telemetry::header_context;

use crate::common::BoxFuture;
use crate::common::Outbound;
pub(crate) use crate::common::{encode, error_reply};
use crate::handle::ServerHandle;
use crate::policy::VisibilityHook;
use crate::registry::{Catalog, Registry};
use crate::tool::ToolEntry;
use changes::Feed;
use completion::Completion;
use era::required_params;
use lifecycle::Lifecycle;
use listen::Listen;
use prompts::Prompts;
use resources::Resources;
use tools::Tools;

/// The server's shared state: identity, capabilities, what it offers.
pub(crate) struct ServerCore {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) capabilities: ServerCapabilities,
    pub(crate) catalog: Arc<Catalog>,
    /// The handle tools reach through `Context::server` (built once).
    pub(crate) handle: Arc<ServerHandle>,
    pub(crate) page_size: usize,
    pub(crate) list_ttl_ms: u64,
    /// `{"io.modelcontextprotocol/serverInfo": …}`, put on every modern result.
    server_info_meta: Meta,
    /// The same, serialized once: spliced into modern call results.
    server_info_meta_json: Vec<u8>,
    pub(crate) policy: Policy,
    /// Signs and checks the `requestState` of 2026-07-28 input rounds.
    pub(crate) signer: crate::ask::request_state::Signer,
    /// The tasks this server runs (the tasks extension).
    pub(crate) tasks: tasks::TaskTable,
    /// Tasks shared with other instances (a shared store is configured).
    pub(crate) task_share: std::sync::OnceLock<tasks::TaskShare>,
    /// The skills served (the skills extension), if any.
    #[cfg(feature = "skills")]
    pub(crate) skills: Option<Arc<crate::skills::Skills>>,
}

/// What runs around tool calls: visibility, middleware, timeouts, bounds.
#[derive(Default)]
pub(crate) struct Policy {
    pub(crate) visibility: Option<Arc<VisibilityHook>>,
    /// Who sees which prompts, resources and templates.
    pub(crate) offer_visibility: Option<Arc<crate::policy::OfferVisibilityHook>>,
    /// The tower layers around tool calls, as the builder got them.
    pub(crate) layers: crate::tool::service::ToolLayers,
    /// Those layers around the tool, built once (`None` without layers).
    pub(crate) tool_service: Option<crate::tool::ToolService>,
    pub(crate) call_timeout: Option<std::time::Duration>,
    pub(crate) limits: CallLimits,
    /// The tasks one caller may hold (`None`: [`crate::policy::DEFAULT_MAX_TASKS_PER_CALLER`]).
    pub(crate) max_tasks_per_caller: Option<usize>,
}

impl Policy {
    pub(crate) fn wants_caller(&self) -> bool {
        self.visibility.is_some() || self.offer_visibility.is_some() || !self.layers.is_empty()
    }
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
    /// The trace context of the HTTP request's `traceparent` header, when
    /// spans are taken.
    #[cfg(feature = "otel")]
    pub(crate) trace_context: Option<mcp_otel::reexport::opentelemetry::Context>,
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
    Spawn(BoxFuture<Option<Vec<u8>>>),
    /// Nothing to send (a notification, a response).
    Nothing,
}

/// A reply ready to send, or the error to answer with.
type Reply = Result<Vec<u8>, ErrorObject>;

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
    pub(crate) capabilities: ServerCapabilities,
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
            capabilities,
            catalog,
            page_size,
            list_ttl_ms,
            mut policy,
            signer,
            #[cfg(feature = "skills")]
            skills,
        } = parts;
        policy.tool_service = policy.layers.build();
        let mut server_info_meta = Meta::new();
        server_info_meta.insert(
            meta_key::SERVER_INFO.to_owned(),
            serde_json::to_value(&info).unwrap_or(Value::Null),
        );
        let catalog = Arc::new(catalog);
        ServerCore {
            handle: Arc::new(ServerHandle::new(&info.name, Arc::clone(&catalog))),
            info,
            instructions,
            capabilities,
            catalog,
            page_size,
            list_ttl_ms,
            server_info_meta_json: serde_json::to_vec(&server_info_meta)
                .unwrap_or_else(|_| b"{}".to_vec()),
            server_info_meta,
            policy,
            signer,
            tasks: tasks::TaskTable::default(),
            task_share: std::sync::OnceLock::new(),
            #[cfg(feature = "skills")]
            skills,
        }
    }

    fn registry(&self) -> Arc<Registry<ToolEntry>> {
        self.catalog.tools.snapshot()
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
                #[cfg(feature = "otel")]
                return telemetry::traced(&self.catalog, req, |req| self.request(req));
                #[cfg(not(feature = "otel"))]
                self.request(req)
            }
            RawMessage::Notification { method, params } => {
                #[cfg(feature = "otel")]
                telemetry::traced_notification(
                    &self.catalog,
                    session,
                    &method,
                    params,
                    info,
                    || {
                        Self::notification(session, &method, params);
                    },
                );
                #[cfg(not(feature = "otel"))]
                Self::notification(session, &method, params);
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

/// One capability's share of dispatch (tools, prompts, resources,
/// completion): the requests it answers, the list it keeps clients
/// informed of, and the part of a `subscriptions/listen` filter it agrees to.
pub(super) trait Capability {
    /// Answers `req` if its method is one of this capability's; gives it back otherwise.
    fn request<'a>(core: &Arc<ServerCore>, req: Request<'a>) -> Result<Outcome, Request<'a>>;

    /// The feed of this capability's list changes, if it has such a list.
    fn feed(core: &ServerCore) -> Option<Feed> {
        let _ = core;
        None
    }

    /// Sets the fields of `agreed` this capability serves, from `asked`.
    fn agree(core: &ServerCore, asked: &SubscriptionFilter, agreed: &mut SubscriptionFilter) {
        let _ = (core, asked, agreed);
    }
}

/// A capability in the table dispatch walks.
pub(super) struct CapabilityRow {
    request: for<'a> fn(&Arc<ServerCore>, Request<'a>) -> Result<Outcome, Request<'a>>,
    feed: fn(&ServerCore) -> Option<Feed>,
    agree: fn(&ServerCore, &SubscriptionFilter, &mut SubscriptionFilter),
}

impl CapabilityRow {
    const fn of<C: Capability>() -> CapabilityRow {
        CapabilityRow {
            request: C::request,
            feed: C::feed,
            agree: C::agree,
        }
    }
}

/// Every capability, in the order requests are offered to them. Adding one
/// is a module implementing [`Capability`] and a line here.
pub(super) const CAPABILITIES: &[CapabilityRow] = &[
    CapabilityRow::of::<Lifecycle>(),
    CapabilityRow::of::<Tools>(),
    CapabilityRow::of::<Prompts>(),
    CapabilityRow::of::<Resources>(),
    CapabilityRow::of::<Completion>(),
    CapabilityRow::of::<Listen>(),
    CapabilityRow::of::<tasks::Tasks>(),
    #[cfg(feature = "skills")]
    CapabilityRow::of::<skills::SkillMethods>(),
];

impl ServerCore {
    /// Offers `req` to each capability; a method none answers is -32601.
    fn request(self: &Arc<Self>, mut req: Request<'_>) -> Outcome {
        for capability in CAPABILITIES {
            match (capability.request)(self, req) {
                Ok(outcome) => return outcome,
                Err(unanswered) => req = unanswered,
            }
        }
        failed(req.id, ErrorObject::method_not_found(req.method))
    }
}

// ---------------------------------------------------------------- scopes

impl ServerCore {
    /// The scopes a step-up challenge names when `who`'s token lacks some
    /// that the request needs: those of the tool called (`tools/call`), the
    /// prompt got (`prompts/get`), the resource read or subscribed to
    /// (`resources/read`, the legacy `resources/subscribe`: a static
    /// resource, else the template that matches the URI), the prompt or
    /// template whose argument is completed (`completion/complete`), and
    /// every resource whose updates `subscriptions/listen` asks for (each
    /// named once). `None` when it lacks none, and when the request names
    /// nothing that exists: that is dispatch's not-found answer, not a
    /// scope question.
    #[cfg(feature = "auth")]
    pub(crate) fn missing_scopes(
        &self,
        method_name: &str,
        params: Option<RawJson<'_>>,
        who: &crate::auth::Identity,
    ) -> Option<Vec<String>> {
        use crate::auth::Scopes;
        let peek = mcp_wire::route::Peek::read(params);
        // `params.name`, and `params.uri` (as `resources/read` names it).
        let name = || peek.name_for(method::TOOLS_CALL);
        let uri = || peek.name_for(method::RESOURCES_READ);
        let targets: Vec<Scopes> = match method_name {
            method::TOOLS_CALL => vec![self.registry().get(&name()?)?.scopes.clone()],
            method::PROMPTS_GET => vec![self.prompt_scopes(&name()?)?],
            method::RESOURCES_READ => vec![self.resource_scopes(&uri()?)?],
            // Legacy only: a 2026-07-28 one is -32601, not a scope question.
            method::RESOURCES_SUBSCRIBE if !peek.is_modern() => {
                vec![self.resource_scopes(&uri()?)?]
            }
            method::COMPLETION_COMPLETE if self.capabilities.completions.is_some() => {
                let asked: Targets = serde_json::from_str(params?.get()).unwrap_or_default();
                vec![match asked.reference? {
                    CompletionRef::Prompt { name, .. } => self.prompt_scopes(&name)?,
                    CompletionRef::Resource { uri } => {
                        self.catalog.templates.snapshot().get(&uri)?.scopes.clone()
                    }
                    _ => return None,
                }]
            }
            method::SUBSCRIPTIONS_LISTEN => {
                let asked: Targets = serde_json::from_str(params?.get()).unwrap_or_default();
                asked
                    .notifications?
                    .resource_subscriptions?
                    .iter()
                    .filter_map(|uri| self.resource_scopes(uri))
                    .collect()
            }
            _ => return None,
        };
        let mut needed: Vec<String> = Vec::new();
        let lacked = targets.iter().filter_map(|t| t.lacked_by(who));
        for scope in lacked.flat_map(Scopes::iter) {
            if !needed.iter().any(|n| n == scope) {
                needed.push(scope.to_owned());
            }
        }
        (!needed.is_empty()).then_some(needed)
    }

    /// The scopes of prompt `name`, if it exists.
    #[cfg(feature = "auth")]
    fn prompt_scopes(&self, name: &str) -> Option<crate::auth::Scopes> {
        Some(self.catalog.prompts.snapshot().get(name)?.scopes.clone())
    }

    /// The scopes of what reading `uri` reaches, if anything: the static
    /// resource of that URI, else the first template (in list order) that
    /// matches it, as `resources/read` looks.
    fn resource_scopes(&self, uri: &str) -> Option<crate::auth::Scopes> {
        if let Some(resource) = self.catalog.resources.snapshot().get(uri) {
            return Some(resource.scopes.clone());
        }
        let templates = self.catalog.templates.snapshot();
        let template = templates.entries().iter().find(|t| t.bind(uri).is_some())?;
        Some(template.scopes.clone())
    }
}

/// What a `completion/complete` or `subscriptions/listen` request names,
/// read leniently (dispatch answers malformed params).
#[cfg(feature = "auth")]
#[derive(serde::Deserialize, Default)]
struct Targets {
    #[serde(rename = "ref", default)]
    reference: Option<CompletionRef>,
    #[serde(default)]
    notifications: Option<SubscriptionFilter>,
}
