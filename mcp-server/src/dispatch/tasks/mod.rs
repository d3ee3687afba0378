//! The tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`): a
//! `tools/call` the server turns into a task when the tool may run as one
//! and the client declared the extension on the request; `tasks/get`,
//! `tasks/update` and `tasks/cancel`.
//!
//! A call becomes a task only once it has to wait: one that finishes at
//! once is answered with its result, and input rounds (2026-07-28) are
//! resolved before the task is created, as the extension advises. A task
//! is recorded before its handle is returned, so `tasks/get` on it always
//! resolves; it stays readable for its time to live after it was created.
//!
//! A task belongs to whoever created it ([`TaskOwner`]): every request on
//! it, here or through the shared store, from anyone else is answered as
//! for a task that does not exist. Without any identity (the stateless
//! revision without authorization) its id, 128 random bits, is the only
//! credential.

use std::sync::Arc;
use std::time::Duration;

use oxmcp_types::extension::TASKS;
use oxmcp_types::jsonrpc::Response;
use oxmcp_types::modern::SubscriptionFilter;
use oxmcp_types::{method, ClientCapabilities, ErrorObject, JsonObject, RequestId};
use serde::Serialize;
use serde_json::Value;

use super::era::{era_for, raw_modern, Era};
use super::{encode, failed, Capability, Outcome, Request, ServerCore};
use crate::context::Context;
use crate::policy::CallOutcome;
use crate::tool::TaskSupport;

/// How long a task stays readable after it was created.
pub(crate) const TASK_TTL: Duration = Duration::from_secs(60 * 60);
/// How long a cancelled task's tool may take to wind down before it is stopped.
const CANCEL_GRACE: Duration = Duration::from_secs(5);
/// How often clients are asked to poll.
pub(crate) const POLL_INTERVAL: Duration = Duration::from_millis(500);
/// The most `inputResponses` one `tasks/update` may carry, as JSON text.
/// Answers are elicitation forms, sampled messages and lists of roots:
/// kilobytes, a sampled image a few hundred. An update is held until the
/// task reads it, and with a shared store crosses the bus to every
/// instance: a mebibyte leaves room for any real answer and bounds what
/// one request can make every instance take.
const MAX_INPUT_RESPONSES: usize = 1024 * 1024;

mod table;
pub(super) use table::from_store;
use table::{Status, HEARTBEAT};
pub(crate) use table::{TaskNotice, TaskOp, TaskOwner, TaskShare, TaskTable};

/// `tasks/get`, `tasks/update` and `tasks/cancel`, and the calls that run
/// as tasks: the table of this instance's tasks, the store that shares
/// them with other instances (set when an HTTP service with a store is
/// built), and how many one caller may hold.
pub(crate) struct Tasks {
    pub(crate) table: TaskTable,
    pub(crate) share: std::sync::OnceLock<TaskShare>,
    max_per_caller: usize,
    declared: bool,
}

impl Tasks {
    /// `declared`: whether the server declares the tasks extension.
    pub(super) fn new(max_per_caller: Option<usize>, declared: bool) -> Tasks {
        Tasks {
            table: TaskTable::default(),
            share: std::sync::OnceLock::new(),
            max_per_caller: max_per_caller.unwrap_or(crate::policy::DEFAULT_MAX_TASKS_PER_CALLER),
            declared,
        }
    }

    /// Whether a call of `support` from a client with `declared`
    /// capabilities runs as a task when it has to wait.
    pub(super) fn may_run_as_task(support: TaskSupport, declared: &ClientCapabilities) -> bool {
        support != TaskSupport::Never && declared.extension(TASKS).is_some()
    }

    /// Runs a call that has to wait as a task of `owner`: recorded (so
    /// `tasks/get` resolves) before its handle is answered, driven to its
    /// end in the background, whatever becomes of the request that
    /// started it. A caller holding as many tasks as it may is refused
    /// (the call is dropped, which stops it).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn start(
        &self,
        core: &Arc<ServerCore>,
        id: RequestId,
        ctx: Context,
        call: crate::common::BoxFuture<'static, CallOutcome>,
        permit: Option<tokio::sync::OwnedSemaphorePermit>,
        rounds: Option<Arc<crate::ask::Rounds>>,
        owner: TaskOwner,
    ) -> Outcome {
        let cap = self.max_per_caller;
        let live = rounds.clone();
        let task_id = match self.table.create(owner, cap, ctx.clone(), rounds) {
            Ok(task_id) => task_id,
            Err(e) => return failed(id, e),
        };
        if let Some(rounds) = &live {
            rounds.go_live();
        }
        let settle = Arc::clone(core);
        let running = task_id.clone();
        // The task outlives its request: its own span, a child of the
        // request's (current here), keeps what the tool does in the trace.
        let span = tracing::info_span!(target: "oxmcp_server", "task", otel.name = "task", mcp.task.id = %task_id);
        crate::common::spawn(tracing::Instrument::instrument(
            async move {
                let _permit = permit;
                tokio::pin!(call);
                let status = tokio::select! {
                    outcome = &mut call => match outcome {
                        _ if ctx.is_cancelled() => Status::Cancelled,
                        Ok(result) => Status::Completed(serde_json::to_value(&result).unwrap_or(Value::Null)),
                        Err(error) => Status::Failed(error),
                    },
                    () = ctx.cancelled() => {
                        // Cooperative: the tool sees the cancellation and may
                        // wind down; it is stopped after a grace period.
                        let _ = tokio::time::timeout(CANCEL_GRACE, &mut call).await;
                        Status::Cancelled
                    }
                };
                settle.tasks.table.settle(&running, status);
            },
            span,
        ));
        let Some(handle) = self.table.view(&task_id, "task") else {
            return failed(id, ErrorObject::internal("the task was not recorded"));
        };
        let reply = encode(&Response::new(id.clone(), handle));
        let Some(share) = self.share.get() else {
            crate::common::spawn(watch_task(Arc::clone(core), None, task_id));
            return Outcome::Reply(reply);
        };
        // Shared: the handle is answered once the store has the task, so
        // that `tasks/get` on any instance resolves.
        let first = self.table.record(&task_id);
        let store = Arc::clone(&share.store);
        let core = Arc::clone(core);
        Outcome::Spawn(Box::pin(async move {
            let (bytes, _) = first?;
            let put = store.put_task(&task_id, bytes.into(), TASK_TTL);
            if let Err(e) = crate::state::within(&*store, put).await {
                core.tasks.table.apply(&task_id, TaskOp::Cancel);
                let error = ErrorObject::internal(format!(
                    "the task could not be recorded: {}",
                    oxmcp_types::error::Chain(&e)
                ));
                return Some(super::error_reply(Some(id), error));
            }
            crate::common::spawn(watch_task(core, Some(store), task_id));
            Some(reply)
        }))
    }

    fn task_request(&self, req: &Request<'_>) -> Result<TaskReply, ErrorObject> {
        #[derive(serde::Deserialize, Default)]
        struct TaskParams<'a> {
            #[serde(rename = "taskId", default)]
            task_id: Option<String>,
            #[serde(rename = "inputResponses", default, borrow)]
            input_responses: Option<&'a serde_json::value::RawValue>,
            #[serde(rename = "_meta", default, borrow)]
            meta: Option<oxmcp_types::modern::RawRequestMeta<'a>>,
        }
        let p: TaskParams<'_> = match req.params {
            Some(raw) => serde_json::from_str(raw.get())
                .map_err(|e| ErrorObject::invalid_params(format!("invalid params: {e}")))?,
            None => TaskParams::default(),
        };
        let mut era = era_for(req.session, &p, |p| raw_modern(p.meta.as_ref()))?;
        let declared = declared_capabilities(&mut era);
        if declared.extension(TASKS).is_none() {
            return Err(tasks_missing(&format!("`{}`", req.method)));
        }
        let task_id = p
            .task_id
            .ok_or_else(|| ErrorObject::invalid_params("missing `taskId`"))?;
        let op = match req.method {
            method::TASKS_GET => None,
            method::TASKS_CANCEL => Some(TaskOp::Cancel),
            _ => Some(TaskOp::Update {
                responses: input_responses(p.input_responses)?,
            }),
        };
        let caller = TaskOwner::of(req.session, req.info);
        let Some(owner) = self.table.owner_of(&task_id) else {
            // Another instance's, when they share a store.
            return match self.share.get() {
                Some(_) => Ok(TaskReply::Elsewhere {
                    task_id,
                    op,
                    caller,
                }),
                None => Err(unknown_task(&task_id)),
            };
        };
        // Someone else's task does not exist for this caller.
        if owner != caller {
            return Err(unknown_task(&task_id));
        }
        if op.is_none() {
            let view = self.table.view(&task_id, "complete");
            let view = view.ok_or_else(|| unknown_task(&task_id))?;
            return Ok(TaskReply::Now(encode(&Response::new(req.id.clone(), view))));
        }
        // Cooperative cancellation; answers to keys not outstanding (never
        // asked, answered already) are ignored, as the extension says.
        if let Some(op) = op {
            self.table.apply(&task_id, op);
        }
        Ok(TaskReply::Now(ack(req.id.clone())))
    }

    /// A `tasks/*` request for a task another instance runs: its record
    /// from the store (`tasks/get`), or the operation passed to it, read
    /// first: only `caller`'s task is answered (anyone else's is unknown),
    /// and only one still running is sent an operation, so that nothing
    /// crosses the bus for a task that is not the caller's to change.
    fn task_elsewhere(
        &self,
        core: &Arc<ServerCore>,
        id: RequestId,
        task_id: String,
        op: Option<TaskOp>,
        caller: TaskOwner,
    ) -> Outcome {
        let Some(share) = self.share.get() else {
            return failed(id, unknown_task(&task_id));
        };
        let store = Arc::clone(&share.store);
        let core = Arc::clone(core);
        Outcome::Spawn(Box::pin(async move {
            let read = crate::state::within(&*store, store.get_task(&task_id)).await;
            let stored = match read {
                Ok(Some(bytes)) => from_store(&bytes),
                Ok(None) => None,
                Err(e) => {
                    let error = ErrorObject::internal(format!(
                        "the task store is unavailable: {}",
                        oxmcp_types::error::Chain(&e)
                    ));
                    return Some(super::error_reply(Some(id), error));
                }
            };
            let Some(stored) = stored.filter(|s| s.owner == caller) else {
                return Some(super::error_reply(Some(id), unknown_task(&task_id)));
            };
            let Some(op) = op else {
                return Some(encode(&Response::new(id, stored.view)));
            };
            // An ended task ignores both, as it does here.
            if stored.running {
                if let Some(share) = core.tasks.share.get() {
                    (share.forward)(&task_id, op);
                }
            }
            Some(ack(id))
        }))
    }
}

/// What a `tasks/*` request is answered with.
enum TaskReply {
    /// This instance runs the task: the answer.
    Now(Vec<u8>),
    /// Another instance does (or nobody, any more): the store says, and
    /// whether it is `caller`'s.
    Elsewhere {
        task_id: String,
        op: Option<TaskOp>,
        caller: TaskOwner,
    },
}

/// The answers a `tasks/update` carries: an object, at most
/// [`MAX_INPUT_RESPONSES`] bytes of JSON.
fn input_responses(raw: Option<&serde_json::value::RawValue>) -> Result<JsonObject, ErrorObject> {
    let Some(raw) = raw else {
        return Ok(JsonObject::new());
    };
    let size = raw.get().len();
    if size > MAX_INPUT_RESPONSES {
        return Err(ErrorObject::invalid_params(format!(
            "inputResponses is {size} bytes: one tasks/update may carry at most {MAX_INPUT_RESPONSES} bytes"
        )));
    }
    match serde_json::from_str(raw.get()) {
        Ok(Value::Object(responses)) => Ok(responses),
        Ok(Value::Null) => Ok(JsonObject::new()),
        _ => Err(ErrorObject::invalid_params(
            "inputResponses must be an object of results by input request key",
        )),
    }
}

/// -32021 naming the tasks extension, which `what` needs.
pub(super) fn tasks_missing(what: &str) -> ErrorObject {
    let mut extensions = JsonObject::new();
    extensions.insert(TASKS.to_owned(), Value::Object(JsonObject::new()));
    let mut missing = JsonObject::new();
    missing.insert("extensions".to_owned(), Value::Object(extensions));
    super::tools::missing_capability_error(what, missing)
}

fn unknown_task(task_id: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("unknown task: {task_id}"))
}

fn ack(id: RequestId) -> Vec<u8> {
    encode(&Response::new(id, Ack::default()))
}

/// Follows task `id` until it has ended: each change of its state is told
/// to `subscriptions/listen` streams (`notifications/tasks`) and, with a
/// shared store, written there (and rewritten every [`HEARTBEAT`]).
async fn watch_task(
    core: Arc<ServerCore>,
    store: Option<Arc<dyn crate::state::Store>>,
    id: String,
) {
    let Some((changed, rounds)) = core.tasks.table.changed(&id) else {
        return;
    };
    let key: Arc<str> = Arc::from(id.as_str());
    let mut told: Option<Value> = None;
    loop {
        let asked = async {
            match &rounds {
                Some(r) => r.on_ask().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = changed.notified() => {}
            () = asked => {}
            () = tokio::time::sleep(HEARTBEAT) => {}
        }
        let Some((bytes, done)) = core.tasks.table.record(&id) else {
            return;
        };
        if let Ok(mut view) = serde_json::from_slice::<Value>(&bytes) {
            if let Some(map) = view.as_object_mut() {
                map.remove("heartbeatMs");
                map.remove("resultType");
                map.remove("owner");
            }
            let state = (
                view.get("status").cloned(),
                view.get("inputRequests").cloned(),
            );
            let before = told
                .as_ref()
                .map(|t| (t.get("status").cloned(), t.get("inputRequests").cloned()));
            if before.as_ref() != Some(&state) {
                core.tasks
                    .table
                    .notify((Arc::clone(&key), Arc::new(view.clone())));
                // Listeners on the other instances hear it on the bus.
                if let Some(share) = core.tasks.share.get() {
                    (share.forward)(
                        &id,
                        TaskOp::Changed {
                            state: view.clone(),
                        },
                    );
                }
                told = Some(view);
            }
        }
        let Some(store) = &store else {
            if done {
                return;
            }
            continue;
        };
        let put = store.put_task(&id, bytes.into(), TASK_TTL);
        if let Err(e) = crate::state::within(&**store, put).await {
            tracing::warn!(task = %id, error = %oxmcp_types::error::Chain(&e), "a task's state was not written to the shared store");
        } else if done {
            return;
        }
    }
}

/// The capabilities the client declared for this request.
fn declared_capabilities(era: &mut Era) -> Arc<ClientCapabilities> {
    match era {
        Era::Legacy(s) => Arc::clone(&s.client_capabilities),
        Era::Modern(m) => Arc::new(m.client_capabilities.clone()),
    }
}

/// The empty acknowledgement of `tasks/update` and `tasks/cancel`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Ack {
    result_type: &'static str,
}

impl Default for Ack {
    fn default() -> Self {
        Ack {
            result_type: "complete",
        }
    }
}

impl Capability for Tasks {
    fn methods(&self) -> &'static [&'static str] {
        &[
            method::TASKS_GET,
            method::TASKS_UPDATE,
            method::TASKS_CANCEL,
        ]
    }

    fn agree(&self, _: &ServerCore, asked: &SubscriptionFilter, agreed: &mut SubscriptionFilter) {
        if !self.declared {
            return;
        }
        // Tasks that run here, and with a shared store those of the other
        // instances (which `subscriptions/listen` looks up in the store).
        let shared = self.share.get().is_some();
        agreed.task_ids = asked.task_ids.as_ref().map(|ids| {
            ids.iter()
                .filter(|id| shared || self.table.knows(id))
                .cloned()
                .collect()
        });
    }

    fn request<'a>(
        &self,
        core: &Arc<ServerCore>,
        req: Request<'a>,
    ) -> Result<Outcome, Request<'a>> {
        if !matches!(
            req.method,
            method::TASKS_GET | method::TASKS_UPDATE | method::TASKS_CANCEL
        ) || !self.declared
        {
            return Err(req);
        }
        Ok(match self.task_request(&req) {
            Ok(TaskReply::Now(bytes)) => Outcome::Reply(bytes),
            Ok(TaskReply::Elsewhere {
                task_id,
                op,
                caller,
            }) => self.task_elsewhere(core, req.id, task_id, op, caller),
            Err(e) => failed(req.id, e),
        })
    }
}
