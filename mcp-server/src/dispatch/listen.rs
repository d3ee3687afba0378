//! `subscriptions/listen` (2026-07-28): a long-lived request whose stream
//! carries the list-changed notices its filter asked for and the server
//! agreed to.

use std::sync::Arc;

use oxmcp_types::jsonrpc::Notification;
use oxmcp_types::jsonrpc::RawJson;
use oxmcp_types::modern::{
    meta as meta_key, RequestMeta, SubscriptionFilter, SubscriptionsAcknowledgedParams,
    SubscriptionsListenParams,
};
use oxmcp_types::{method, ErrorObject, Meta, ProtocolVersion, RequestId};
use oxmcp_wire::sync::lock;
use serde_json::Value;

use super::changes::{Changes, Watched};
use super::era::{check_modern, required_params};
use super::session::Session;
use super::tasks::{TaskOwner, Tasks};
use super::{encode, failed, Capability, Outcome, Request, ServerCore};
use crate::common::Outbound;
use crate::context::{Context, ContextParts};

/// `subscriptions/listen`: a stream of what the other capabilities feed
/// (it keeps no state of its own: the open streams are the connection's).
pub(crate) struct Listen;

impl Capability for Listen {
    fn methods(&self) -> &'static [&'static str] {
        &[method::SUBSCRIPTIONS_LISTEN]
    }

    fn request<'a>(
        &self,
        core: &Arc<ServerCore>,
        req: Request<'a>,
    ) -> Result<Outcome, Request<'a>> {
        if req.method != method::SUBSCRIPTIONS_LISTEN {
            return Err(req);
        }
        let identity = req.info.identity.as_deref();
        let caller = TaskOwner::of(req.session, req.info);
        Ok(Self::listen(
            core,
            req.session,
            req.id,
            req.params,
            req.out,
            identity,
            &caller,
        ))
    }

    /// The scopes of every resource whose updates the stream asks for.
    #[cfg(feature = "http")]
    fn scopes(
        &self,
        core: &ServerCore,
        method_name: &str,
        params: Option<RawJson<'_>>,
    ) -> Option<Vec<crate::auth::Scopes>> {
        if method_name != method::SUBSCRIPTIONS_LISTEN {
            return None;
        }
        let asked: SubscriptionsListenParams = serde_json::from_str(params?.get()).ok()?;
        let uris = asked.notifications.resource_subscriptions?;
        Some(
            uris.iter()
                .filter_map(|uri| core.resources.scopes_of(uri))
                .collect(),
        )
    }
}

impl Listen {
    /// What a listen stream follows: the lists and resources its filter agreed to.
    fn listen_changes(core: &ServerCore, agreed: &SubscriptionFilter) -> Changes {
        let uris = agreed.resource_subscriptions.clone().unwrap_or_default();
        Changes::new(
            core.feeds()
                .into_iter()
                .filter(|feed| feed.kind().is_in(agreed))
                .collect(),
            (!uris.is_empty()).then(|| (core.catalog.updates(), Watched::Uris(uris))),
        )
    }

    /// Leaves out of `agreed` the tasks that run here and are not
    /// `caller`'s: someone else's task does not exist for it.
    fn keep_own_tasks(tasks: &Tasks, agreed: &mut SubscriptionFilter, caller: &TaskOwner) {
        if let Some(ids) = agreed.task_ids.as_mut() {
            ids.retain(|id| {
                tasks
                    .table
                    .owner_of(id)
                    .is_none_or(|owner| owner == *caller)
            });
        }
    }

    /// The tasks a stream asked for that do not run here, and the shared
    /// store that knows those of the other instances (`None` without one).
    fn tasks_elsewhere(
        tasks: &Tasks,
        agreed: &SubscriptionFilter,
    ) -> Option<(Arc<dyn crate::state::Store>, Vec<String>)> {
        let share = tasks.share.get()?;
        let ids = agreed.task_ids.iter().flatten();
        let elsewhere: Vec<String> = ids.filter(|t| !tasks.table.knows(t)).cloned().collect();
        (!elsewhere.is_empty()).then(|| (Arc::clone(&share.store), elsewhere))
    }

    #[allow(clippy::too_many_arguments)]
    fn listen(
        core: &Arc<ServerCore>,
        session: &Arc<Session>,
        id: RequestId,
        raw: Option<RawJson<'_>>,
        out: &Arc<dyn Outbound>,
        identity: Option<&crate::auth::Identity>,
        caller: &TaskOwner,
    ) -> Outcome {
        let p = match listen_params(raw) {
            Ok(p) => p,
            Err(e) => return failed(id, e),
        };
        let ctx = listen_context(core, &id, out);
        if let Err(e) = register_listen(session, &id, &ctx) {
            return failed(id, e);
        }
        // Each capability agrees to its own lists, and to nothing it does not have.
        let mut agreed = core.agree(&p.notifications);
        // Nor to resources whose scopes the token lacks (HTTP answers a
        // request for them with the step-up challenge before dispatch).
        if let (Some(_), Some(uris)) = (identity, agreed.resource_subscriptions.as_mut()) {
            uris.retain(|uri| {
                core.resources
                    .scopes_of(uri)
                    .is_none_or(|scopes| scopes.allow(identity))
            });
        }
        for uri in agreed.resource_subscriptions.iter().flatten() {
            core.resources.followed(uri);
        }
        let mut sub_meta = Meta::new();
        sub_meta.insert(
            meta_key::SUBSCRIPTION_ID.to_owned(),
            serde_json::to_value(&id).unwrap_or(Value::Null),
        );
        Self::keep_own_tasks(&core.tasks, &mut agreed, caller);
        let elsewhere = Self::tasks_elsewhere(&core.tasks, &agreed);
        let caller = caller.clone();
        // Subscribed before anything is awaited, so no change is missed.
        let mut changes = Self::listen_changes(core, &agreed);
        let notices = core.tasks.table.notices();
        let out = Arc::clone(out);
        Outcome::Spawn(Box::pin(async move {
            if let Some((store, tasks)) = elsewhere {
                keep_stored_tasks(&*store, tasks, &caller, &mut agreed).await;
            }
            out.send(encode(&Notification::new(
                method::SUBSCRIPTIONS_ACKNOWLEDGED,
                SubscriptionsAcknowledgedParams {
                    notifications: agreed.clone(),
                    meta: Some(sub_meta.clone()),
                },
            )));
            changes = changes.with_tasks(notices, agreed.task_ids.clone().unwrap_or_default());
            // The stream stays open until the client cancels it (then nothing is
            // sent) or the connection ends; it carries only what was agreed.
            if changes.is_empty() {
                ctx.cancelled().await;
                return None;
            }
            loop {
                tokio::select! {
                    () = ctx.cancelled() => return None,
                    next = changes.next() => {
                        for change in next? {
                            out.send(change.notice(Some(&sub_meta)));
                        }
                    }
                }
            }
        }))
    }
}

/// Registers an open listen stream under its request id. Ids are unique
/// among open requests: a second stream under an open one's id would take
/// its place, and nothing could end the first.
fn register_listen(session: &Session, id: &RequestId, ctx: &Context) -> Result<(), ErrorObject> {
    let mut listens = lock(&session.listens);
    if listens.contains_key(id) {
        return Err(ErrorObject::invalid_request(format!(
            "request id {id} is already in use by an open subscriptions/listen request"
        )));
    }
    listens.insert(id.clone(), ctx.clone());
    Ok(())
}

/// Leaves out of `agreed` the `tasks` (run by no instance here) that the
/// shared store does not know as `caller`'s: the states of the others
/// arrive on the bus.
async fn keep_stored_tasks(
    store: &dyn crate::state::Store,
    tasks: Vec<String>,
    caller: &TaskOwner,
    agreed: &mut SubscriptionFilter,
) {
    for task in tasks {
        let found = crate::state::within(store, store.get_task(&task)).await;
        let stored = found.ok().flatten();
        let stored = stored.as_deref().and_then(super::tasks::from_store);
        if !stored.is_some_and(|s| s.owner == *caller) {
            if let Some(ids) = agreed.task_ids.as_mut() {
                ids.retain(|t| *t != task);
            }
        }
    }
}

/// A listen request's params, checked: the 2026-07-28 `_meta` it must carry,
/// and task notifications only for a client with the tasks extension.
fn listen_params(raw: Option<RawJson<'_>>) -> Result<SubscriptionsListenParams, ErrorObject> {
    let p: SubscriptionsListenParams = required_params(raw)?;
    let meta = p.meta.as_ref().ok_or_else(|| {
        ErrorObject::invalid_params(format!(
            "missing `_meta[\"{}\"]`",
            meta_key::PROTOCOL_VERSION
        ))
    })?;
    let declared = check_modern(RequestMeta::from_meta(meta))?.client_capabilities;
    // Task states go only to a client with the tasks extension.
    if p.notifications.task_ids.is_some()
        && declared.extension(oxmcp_types::extension::TASKS).is_none()
    {
        return Err(super::tasks::tasks_missing("task notifications"));
    }
    Ok(p)
}

/// The context of a listen stream: its cancellation is the client's
/// `notifications/cancelled` for the listen request.
fn listen_context(core: &ServerCore, id: &RequestId, out: &Arc<dyn Outbound>) -> Context {
    Context::new(ContextParts {
        request_id: id.clone(),
        progress_token: None,
        log_level: None,
        out: Arc::clone(out),
        protocol_version: ProtocolVersion::V2026_07_28,
        client_capabilities: Arc::default(),
        server: Arc::clone(&core.handle) as _,
        asker: crate::ask::Asker::Nobody,
        identity: None,
        max_result_chars: crate::tool::DEFAULT_MAX_RESULT_CHARS,
        keeper: None,
        caller: None,
    })
}
