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

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use mcp_types::extension::TASKS;
use mcp_types::jsonrpc::Response;
use mcp_types::modern::SubscriptionFilter;
use mcp_types::{method, ClientCapabilities, ErrorObject, JsonObject, RequestId};
use mcp_wire::sync::lock;
use serde::Serialize;
use serde_json::Value;

use super::admission::SERVER_BUSY;
use super::era::{era_for, raw_modern, Era};
use super::session::Session;
use super::{encode, failed, Capability, Outcome, Request, RequestInfo, ServerCore};
use crate::ask::Rounds;
use crate::context::Context;
use crate::policy::CallOutcome;
use crate::tool::TaskSupport;
use mcp_types::modern::InputRequest;
use std::collections::BTreeMap;

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

/// Whom a task belongs to: only a request speaking for the same reaches
/// it. With authorization, whom the token speaks for (the digest a
/// session's owner is kept as: its principal, else the token); without,
/// the legacy session it was created in (a digest of its id); else nobody
/// (the stateless revision, or stdio, where the task's id is the only
/// credential). The same on every instance: the shared store keeps it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct TaskOwner(Option<Arc<str>>);

impl TaskOwner {
    /// Whom a request in `session` with `info` speaks for.
    pub(super) fn of(session: &Session, info: &RequestInfo) -> TaskOwner {
        if let Some(owner) = &info.owner {
            return TaskOwner(Some(Arc::clone(owner)));
        }
        TaskOwner(session.id.as_deref().map(|id| {
            use sha2::Digest as _;
            let mut h = sha2::Sha256::new();
            // Apart from the token owners' digests (domains `p` and `t`).
            h.update([b's', 0]);
            h.update(id.as_bytes());
            Arc::from(crate::common::hex(&h.finalize()))
        }))
    }

    /// The owner a stored record names (`owner`, absent for nobody).
    fn in_record(record: &Value) -> TaskOwner {
        TaskOwner(record.get("owner").and_then(Value::as_str).map(Arc::from))
    }
}

/// A task's state.
#[derive(Clone)]
enum Status {
    Working,
    Completed(Value),
    Failed(ErrorObject),
    Cancelled,
}

struct Task {
    /// Who created it: nobody else reaches it.
    owner: TaskOwner,
    created: SystemTime,
    updated: SystemTime,
    status: Status,
    /// Cancels the running call.
    ctx: Context,
    /// Its inputs (2026-07-28): asked while it runs, answered by `tasks/update`.
    rounds: Option<Arc<Rounds>>,
    /// Wakes the writer of its record to the shared store (if any).
    changed: Arc<tokio::sync::Notify>,
}

/// What a task asks of the instance that runs it, from another instance.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub(crate) enum TaskOp {
    /// `tasks/cancel`.
    Cancel,
    /// `tasks/update`, with its `inputResponses`.
    Update {
        /// The answers, by input request key.
        responses: JsonObject,
    },
    /// The task's state changed on the instance that runs it: every other
    /// instance tells its `subscriptions/listen` streams.
    Changed {
        /// The state, as `notifications/tasks` carries it.
        state: Value,
    },
}

/// Tasks shared by several instances: each task's record in the store
/// (written by the instance that runs it, with a heartbeat), and the way
/// to tell that instance of a cancellation or answers.
pub(crate) struct TaskShare {
    pub(crate) store: Arc<dyn crate::state::Store>,
    /// Sends an operation on a task to every instance (the bus).
    pub(crate) forward: Forward,
}

/// How [`TaskShare`] sends an operation on a task to the other instances.
pub(crate) type Forward = Box<dyn Fn(&str, TaskOp) + Send + Sync>;

/// How often the instance running a task rewrites its record (its heartbeat).
const HEARTBEAT: Duration = Duration::from_secs(1);
/// A running task whose record is older than this is reported failed: the
/// instance that ran it is gone.
const STALE: Duration = Duration::from_secs(10);

/// Every task of this server, by id.
pub(crate) struct TaskTable {
    tasks: std::sync::Mutex<Held>,
    /// Each task's state when it changes (for `notifications/tasks`).
    notices: tokio::sync::broadcast::Sender<TaskNotice>,
}

/// A task's state as `notifications/tasks` carries it.
pub(crate) type TaskNotice = (Arc<str>, Arc<Value>);

/// The tasks held, with what makes creating one O(1): the order they
/// expire in, and how many each owner holds.
#[derive(Default)]
struct Held {
    by_id: HashMap<String, Task>,
    /// Ids by creation time: every task lives [`TASK_TTL`], so the oldest
    /// expires first, and expired tasks are dropped from the front.
    order: VecDeque<(SystemTime, String)>,
    /// How many tasks each owner holds (owners holding none are absent).
    counts: HashMap<TaskOwner, usize>,
}

impl Held {
    /// Drops the tasks expired at `now`: as many steps as there are.
    fn expire(&mut self, now: SystemTime) {
        while let Some((created, _)) = self.order.front() {
            if now.duration_since(*created).unwrap_or_default() <= TASK_TTL {
                return;
            }
            let Some((_, id)) = self.order.pop_front() else {
                return;
            };
            if let Some(task) = self.by_id.remove(&id) {
                self.release(&task.owner);
            }
        }
    }

    fn release(&mut self, owner: &TaskOwner) {
        if let Some(count) = self.counts.get_mut(owner) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                self.counts.remove(owner);
            }
        }
    }

    fn held_by(&self, owner: &TaskOwner) -> usize {
        self.counts.get(owner).copied().unwrap_or(0)
    }

    /// Task `id` if it has not expired at `now`.
    fn live(&self, id: &str, now: SystemTime) -> Option<&Task> {
        self.by_id.get(id).filter(|t| !t.expired(now))
    }
}

impl Default for TaskTable {
    fn default() -> Self {
        TaskTable {
            tasks: std::sync::Mutex::default(),
            notices: tokio::sync::broadcast::Sender::new(256),
        }
    }
}

/// The wire form of a task (`CreateTaskResult` and `tasks/get`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TaskView<'a> {
    result_type: &'static str,
    task_id: &'a str,
    status: &'static str,
    created_at: String,
    last_updated_at: String,
    ttl_ms: u64,
    poll_interval_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a ErrorObject>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_requests: Option<BTreeMap<String, InputRequest>>,
}

impl Task {
    fn view<'a>(&'a self, id: &'a str, result_type: &'static str) -> TaskView<'a> {
        let waiting = match (&self.status, &self.rounds) {
            (Status::Working, Some(rounds)) => Some(rounds.outstanding()).filter(|r| !r.is_empty()),
            _ => None,
        };
        let (status, result, error) = match &self.status {
            Status::Working if waiting.is_some() => ("input_required", None, None),
            Status::Working => ("working", None, None),
            Status::Completed(r) => ("completed", Some(r), None),
            Status::Failed(e) => ("failed", None, Some(e)),
            Status::Cancelled => ("cancelled", None, None),
        };
        TaskView {
            result_type,
            task_id: id,
            status,
            created_at: mcp_wire::time::rfc3339(self.created),
            last_updated_at: mcp_wire::time::rfc3339(self.updated),
            ttl_ms: millis(TASK_TTL),
            poll_interval_ms: millis(POLL_INTERVAL),
            result,
            error,
            input_requests: waiting,
        }
    }

    fn expired(&self, now: SystemTime) -> bool {
        now.duration_since(self.created).unwrap_or_default() > TASK_TTL
    }
}

fn now_ms() -> u64 {
    millis(
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default(),
    )
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl TaskTable {
    /// Records a new working task of `owner` for the call `ctx` serves;
    /// its id. Refused when `owner` holds `cap` tasks already, or there is
    /// no randomness for an id.
    fn create(
        &self,
        owner: TaskOwner,
        cap: usize,
        ctx: Context,
        rounds: Option<Arc<Rounds>>,
    ) -> Result<String, ErrorObject> {
        self.create_at(SystemTime::now(), owner, cap, ctx, rounds)
    }

    fn create_at(
        &self,
        now: SystemTime,
        owner: TaskOwner,
        cap: usize,
        ctx: Context,
        rounds: Option<Arc<Rounds>>,
    ) -> Result<String, ErrorObject> {
        let id = super::random_hex_id()
            .map_err(|_| ErrorObject::internal("no randomness for a task id"))?;
        let mut held = lock(&self.tasks);
        held.expire(now);
        let count = held.held_by(&owner);
        if count >= cap {
            return Err(ErrorObject::new(
                SERVER_BUSY,
                format!(
                    "too many tasks: this caller holds {count} tasks, the most it may; \
                     each is held for {} minutes after it was created",
                    TASK_TTL.as_secs() / 60
                ),
            ));
        }
        *held.counts.entry(owner.clone()).or_default() += 1;
        held.order.push_back((now, id.clone()));
        held.by_id.insert(
            id.clone(),
            Task {
                owner,
                created: now,
                updated: now,
                status: Status::Working,
                ctx,
                rounds,
                changed: Arc::default(),
            },
        );
        Ok(id)
    }

    /// Task `id`'s record for the shared store: as `tasks/get` shows it,
    /// with the time it was written (the heartbeat); `None` once it is gone.
    fn record(&self, id: &str) -> Option<(Vec<u8>, bool)> {
        let tasks = lock(&self.tasks);
        let task = tasks.by_id.get(id)?;
        let mut record = serde_json::to_value(task.view(id, "complete")).ok()?;
        record["heartbeatMs"] = now_ms().into();
        if let Some(owner) = &task.owner.0 {
            record["owner"] = owner.as_ref().into();
        }
        let done = !matches!(task.status, Status::Working);
        Some((serde_json::to_vec(&record).ok()?, done))
    }

    fn changed(&self, id: &str) -> Option<(Arc<tokio::sync::Notify>, Option<Arc<Rounds>>)> {
        lock(&self.tasks)
            .by_id
            .get(id)
            .map(|t| (Arc::clone(&t.changed), t.rounds.clone()))
    }

    /// A receiver of tasks' states as they change.
    pub(crate) fn notices(&self) -> tokio::sync::broadcast::Receiver<TaskNotice> {
        self.notices.subscribe()
    }

    /// Whether task `id` runs here (and has not expired).
    pub(crate) fn knows(&self, id: &str) -> bool {
        lock(&self.tasks).live(id, SystemTime::now()).is_some()
    }

    /// Who created task `id`, if it runs here (and has not expired).
    pub(super) fn owner_of(&self, id: &str) -> Option<TaskOwner> {
        let tasks = lock(&self.tasks);
        tasks.live(id, SystemTime::now()).map(|t| t.owner.clone())
    }

    /// Applies what another instance was asked for task `id`, if it runs here.
    pub(crate) fn apply(&self, id: &str, op: TaskOp) {
        if let TaskOp::Changed { state } = op {
            // Not run here (the instance running it does not hear itself).
            let _ = self.notices.send((Arc::from(id), Arc::new(state)));
            return;
        }
        let mut tasks = lock(&self.tasks);
        let Some(task) = tasks.by_id.get_mut(id) else {
            return;
        };
        match op {
            TaskOp::Cancel => {
                if matches!(task.status, Status::Working) {
                    task.ctx.cancel();
                }
            }
            TaskOp::Update { responses } => {
                if let Some(rounds) = &task.rounds {
                    for (key, value) in responses {
                        rounds.answer(&key, value);
                    }
                }
                task.updated = SystemTime::now();
                task.changed.notify_one();
            }
            TaskOp::Changed { .. } => {}
        }
    }

    /// Settles task `id` (a task already settled, cancelled included, stays as it is).
    fn settle(&self, id: &str, status: Status) {
        if let Some(task) = lock(&self.tasks).by_id.get_mut(id) {
            if matches!(task.status, Status::Working) {
                task.status = status;
                task.updated = SystemTime::now();
                task.changed.notify_one();
            }
        }
    }
}

impl ServerCore {
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
    pub(super) fn start_task<F>(
        self: &Arc<Self>,
        id: RequestId,
        ctx: Context,
        call: F,
        permit: Option<tokio::sync::OwnedSemaphorePermit>,
        rounds: Option<Arc<crate::ask::Rounds>>,
        owner: TaskOwner,
    ) -> Outcome
    where
        F: std::future::Future<Output = CallOutcome> + Send + 'static,
    {
        let cap = self
            .policy
            .max_tasks_per_caller
            .unwrap_or(crate::policy::DEFAULT_MAX_TASKS_PER_CALLER);
        let live = rounds.clone();
        let task_id = match self.tasks.create(owner, cap, ctx.clone(), rounds) {
            Ok(task_id) => task_id,
            Err(e) => return failed(id, e),
        };
        if let Some(rounds) = &live {
            rounds.go_live();
        }
        let core = Arc::clone(self);
        let running = task_id.clone();
        // The task outlives its request: its own span, a child of the
        // request's (current here), keeps what the tool does in the trace.
        let span = tracing::info_span!(target: "mcp_server", "task", otel.name = "task", mcp.task.id = %task_id);
        tokio::spawn(tracing::Instrument::instrument(
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
                core.tasks.settle(&running, status);
            },
            span,
        ));
        let reply = {
            let tasks = lock(&self.tasks.tasks);
            let Some(task) = tasks.by_id.get(&task_id) else {
                return failed(id, ErrorObject::internal("the task was not recorded"));
            };
            encode(&Response::new(id.clone(), task.view(&task_id, "task")))
        };
        let Some(share) = self.task_share.get() else {
            tokio::spawn(watch_task(Arc::clone(self), None, task_id));
            return Outcome::Reply(reply);
        };
        // Shared: the handle is answered once the store has the task, so
        // that `tasks/get` on any instance resolves.
        let first = self.tasks.record(&task_id);
        let store = Arc::clone(&share.store);
        let core = Arc::clone(self);
        Outcome::Spawn(Box::pin(async move {
            let (bytes, _) = first?;
            let put = store.put_task(&task_id, bytes.into(), TASK_TTL);
            if let Err(e) = crate::state::within(&*store, put).await {
                core.tasks.apply(&task_id, TaskOp::Cancel);
                let error = ErrorObject::internal(format!(
                    "the task could not be recorded: {}",
                    mcp_types::error::Chain(&e)
                ));
                return Some(super::error_reply(Some(id), error));
            }
            tokio::spawn(watch_task(core, Some(store), task_id));
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
            meta: Option<mcp_types::modern::RawRequestMeta<'a>>,
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
        {
            let tasks = lock(&self.tasks.tasks);
            let Some(task) = tasks.live(&task_id, SystemTime::now()) else {
                drop(tasks);
                // Another instance's, when they share a store.
                return match self.task_share.get() {
                    Some(_) => Ok(TaskReply::Elsewhere {
                        task_id,
                        op,
                        caller,
                    }),
                    None => Err(unknown_task(&task_id)),
                };
            };
            // Someone else's task does not exist for this caller.
            if task.owner != caller {
                return Err(unknown_task(&task_id));
            }
            if op.is_none() {
                return Ok(TaskReply::Now(encode(&Response::new(
                    req.id.clone(),
                    task.view(&task_id, "complete"),
                ))));
            }
        }
        // Cooperative cancellation; answers to keys not outstanding (never
        // asked, answered already) are ignored, as the extension says.
        if let Some(op) = op {
            self.tasks.apply(&task_id, op);
        }
        Ok(TaskReply::Now(ack(req.id.clone())))
    }

    /// A `tasks/*` request for a task another instance runs: its record
    /// from the store (`tasks/get`), or the operation passed to it, read
    /// first: only `caller`'s task is answered (anyone else's is unknown),
    /// and only one still running is sent an operation, so that nothing
    /// crosses the bus for a task that is not the caller's to change.
    fn task_elsewhere(
        self: &Arc<Self>,
        id: RequestId,
        task_id: String,
        op: Option<TaskOp>,
        caller: TaskOwner,
    ) -> Outcome {
        let Some(share) = self.task_share.get() else {
            return failed(id, unknown_task(&task_id));
        };
        let store = Arc::clone(&share.store);
        let core = Arc::clone(self);
        Outcome::Spawn(Box::pin(async move {
            let read = crate::state::within(&*store, store.get_task(&task_id)).await;
            let stored = match read {
                Ok(Some(bytes)) => from_store(&bytes),
                Ok(None) => None,
                Err(e) => {
                    let error = ErrorObject::internal(format!(
                        "the task store is unavailable: {}",
                        mcp_types::error::Chain(&e)
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
                if let Some(share) = core.task_share.get() {
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
    let Some((changed, rounds)) = core.tasks.changed(&id) else {
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
        let Some((bytes, done)) = core.tasks.record(&id) else {
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
                let _ = core
                    .tasks
                    .notices
                    .send((Arc::clone(&key), Arc::new(view.clone())));
                // Listeners on the other instances hear it on the bus.
                if let Some(share) = core.task_share.get() {
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
            tracing::warn!(task = %id, error = %mcp_types::error::Chain(&e), "a task's state was not written to the shared store");
        } else if done {
            return;
        }
    }
}

/// A task's record read from the store.
pub(super) struct Stored {
    /// Who created it.
    pub(super) owner: TaskOwner,
    /// Whether it still runs.
    running: bool,
    /// As `tasks/get` answers it.
    view: Value,
}

/// A task record read from the store: one whose instance stopped writing
/// while it ran is reported failed.
pub(super) fn from_store(bytes: &[u8]) -> Option<Stored> {
    let mut record: Value = serde_json::from_slice(bytes).ok()?;
    let owner = TaskOwner::in_record(&record);
    let mut running = matches!(
        record.get("status").and_then(Value::as_str),
        Some("working" | "input_required")
    );
    let written = record
        .get("heartbeatMs")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    if running && now_ms().saturating_sub(written) > millis(STALE) {
        running = false;
        let map = record.as_object_mut()?;
        map.remove("inputRequests");
        map.insert("status".into(), "failed".into());
        map.insert(
            "error".into(),
            serde_json::to_value(ErrorObject::internal(
                "the instance running this task stopped: it will not finish",
            ))
            .ok()?,
        );
    }
    let map = record.as_object_mut()?;
    map.remove("heartbeatMs");
    map.remove("owner");
    Some(Stored {
        owner,
        running,
        view: record,
    })
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

/// `tasks/get`, `tasks/update` and `tasks/cancel`.
pub(super) struct Tasks;

impl Capability for Tasks {
    fn agree(core: &ServerCore, asked: &SubscriptionFilter, agreed: &mut SubscriptionFilter) {
        if core.capabilities.extension(TASKS).is_none() {
            return;
        }
        // Tasks that run here, and with a shared store those of the other
        // instances (which `subscriptions/listen` looks up in the store).
        let shared = core.task_share.get().is_some();
        agreed.task_ids = asked.task_ids.as_ref().map(|ids| {
            ids.iter()
                .filter(|id| shared || core.tasks.knows(id))
                .cloned()
                .collect()
        });
    }

    fn request<'a>(core: &Arc<ServerCore>, req: Request<'a>) -> Result<Outcome, Request<'a>> {
        if !matches!(
            req.method,
            method::TASKS_GET | method::TASKS_UPDATE | method::TASKS_CANCEL
        ) || core.capabilities.extension(TASKS).is_none()
        {
            return Err(req);
        }
        Ok(match core.task_request(&req) {
            Ok(TaskReply::Now(bytes)) => Outcome::Reply(bytes),
            Ok(TaskReply::Elsewhere {
                task_id,
                op,
                caller,
            }) => core.task_elsewhere(req.id, task_id, op, caller),
            Err(e) => failed(req.id, e),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(name: &str) -> TaskOwner {
        TaskOwner(Some(Arc::from(name)))
    }

    #[test]
    fn each_owner_holds_at_most_its_cap_and_expired_tasks_are_released() {
        let table = TaskTable::default();
        let start = SystemTime::now();
        let create = |at: SystemTime, who: &TaskOwner| {
            table.create_at(at, who.clone(), 2, Context::detached(), None)
        };
        let (alice, bob, nobody) = (owner("alice"), owner("bob"), TaskOwner::default());
        let first = create(start, &alice).unwrap();
        create(start, &alice).unwrap();
        let refused = create(start, &alice).unwrap_err();
        assert_eq!(refused.code, SERVER_BUSY);
        assert!(
            refused.message.contains("holds 2 tasks"),
            "{}",
            refused.message
        );
        // Others are not counted with her, nobody included.
        create(start, &bob).unwrap();
        create(start, &nobody).unwrap();
        assert_eq!(table.owner_of(&first), Some(alice.clone()));
        {
            let held = lock(&table.tasks);
            assert_eq!((held.held_by(&alice), held.held_by(&bob)), (2, 1));
            assert_eq!(held.by_id.len(), 4);
        }
        // Once the first ones expired, creating another drops them from
        // the front of the order and gives their owners room again.
        let later = start + TASK_TTL + Duration::from_secs(1);
        create(later, &alice).unwrap();
        create(later, &alice).unwrap();
        let held = lock(&table.tasks);
        assert_eq!((held.held_by(&alice), held.held_by(&bob)), (2, 0));
        assert_eq!(held.by_id.len(), 2);
        assert_eq!(held.order.len(), 2);
        assert!(!held.by_id.contains_key(&first));
        assert!(
            held.counts.keys().all(|o| *o == alice),
            "owners holding none are absent"
        );
    }

    #[test]
    fn a_running_task_whose_instance_stopped_writing_is_reported_failed() {
        let record = |status: &str, heartbeat: u64| {
            serde_json::to_vec(&serde_json::json!({
                "resultType": "complete", "taskId": "t", "status": status,
                "inputRequests": {"k": {"method": "elicitation/create"}},
                "heartbeatMs": heartbeat,
            }))
            .unwrap()
        };
        let fresh = from_store(&record("working", now_ms())).unwrap().view;
        assert_eq!(fresh["status"], "working");
        assert!(
            fresh.get("heartbeatMs").is_none(),
            "the heartbeat is the store's"
        );
        let gone = from_store(&record("input_required", now_ms() - 60_000))
            .unwrap()
            .view;
        assert_eq!(gone["status"], "failed");
        assert_eq!(gone["error"]["code"], -32603);
        assert!(gone.get("inputRequests").is_none());
        // An ended task stays as it ended, however old.
        let old = from_store(&record("completed", 1)).unwrap().view;
        assert_eq!(old["status"], "completed");
    }
}
