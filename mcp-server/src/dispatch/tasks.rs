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

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use mcp_types::extension::TASKS;
use mcp_types::jsonrpc::Response;
use mcp_types::{method, ClientCapabilities, ErrorObject, JsonObject, RequestId};
use mcp_wire::sync::lock;
use serde::Serialize;
use serde_json::Value;

use super::era::{era_for, raw_modern, Era};
use super::{encode, failed, Capability, Outcome, Request, ServerCore};
use crate::ask::Rounds;
use crate::context::Context;
use crate::policy::CallOutcome;
use mcp_types::modern::InputRequest;
use std::collections::BTreeMap;

/// How long a task stays readable after it was created.
pub(crate) const TASK_TTL: Duration = Duration::from_secs(60 * 60);
/// How long a cancelled task's tool may take to wind down before it is stopped.
const CANCEL_GRACE: Duration = Duration::from_secs(5);
/// How often clients are asked to poll.
pub(crate) const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// Whether a tool may run as a task (SEP-2663).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Never: the call is answered in the request (the default).
    #[default]
    Never,
    /// When the client declared the tasks extension: a call that has to
    /// wait is answered with a task handle.
    Optional,
    /// Always: a client without the tasks extension is refused with -32021.
    Required,
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
    created: SystemTime,
    updated: SystemTime,
    status: Status,
    /// Cancels the running call.
    ctx: Context,
    /// Its inputs (2026-07-28): asked while it runs, answered by `tasks/update`.
    rounds: Option<Arc<Rounds>>,
}

/// Every task of this server, by id.
#[derive(Default)]
pub(crate) struct TaskTable {
    tasks: std::sync::Mutex<HashMap<String, Task>>,
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

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl TaskTable {
    /// Records a new working task for the call `ctx` serves; its id
    /// (`None` without randomness for one).
    fn create(&self, ctx: Context, rounds: Option<Arc<Rounds>>) -> Option<String> {
        let id = super::random_hex_id().ok()?;
        let now = SystemTime::now();
        let mut tasks = lock(&self.tasks);
        tasks.retain(|_, t| !t.expired(now));
        tasks.insert(
            id.clone(),
            Task {
                created: now,
                updated: now,
                status: Status::Working,
                ctx,
                rounds,
            },
        );
        Some(id)
    }

    /// Settles task `id` (a task already settled, cancelled included, stays as it is).
    fn settle(&self, id: &str, status: Status) {
        if let Some(task) = lock(&self.tasks).get_mut(id) {
            if matches!(task.status, Status::Working) {
                task.status = status;
                task.updated = SystemTime::now();
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

    /// Runs a call that has to wait as a task: recorded (so `tasks/get`
    /// resolves) before its handle is answered, driven to its end in the
    /// background, whatever becomes of the request that started it.
    pub(super) fn start_task<F>(
        self: &Arc<Self>,
        id: RequestId,
        ctx: Context,
        call: F,
        permit: Option<tokio::sync::OwnedSemaphorePermit>,
        rounds: Option<Arc<crate::ask::Rounds>>,
    ) -> Outcome
    where
        F: std::future::Future<Output = CallOutcome> + Send + 'static,
    {
        if let Some(rounds) = &rounds {
            rounds.go_live();
        }
        let Some(task_id) = self.tasks.create(ctx.clone(), rounds) else {
            return failed(id, ErrorObject::internal("no randomness for a task id"));
        };
        let core = Arc::clone(self);
        let running = task_id.clone();
        tokio::spawn(async move {
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
        });
        let tasks = lock(&self.tasks.tasks);
        let Some(task) = tasks.get(&task_id) else {
            return failed(id, ErrorObject::internal("the task was not recorded"));
        };
        Outcome::Reply(encode(&Response::new(id, task.view(&task_id, "task"))))
    }

    fn task_request(&self, req: &Request<'_>) -> Result<Vec<u8>, ErrorObject> {
        #[derive(serde::Deserialize, Default)]
        struct TaskParams<'a> {
            #[serde(rename = "taskId", default)]
            task_id: Option<String>,
            #[serde(rename = "inputResponses", default)]
            input_responses: Option<Value>,
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
            let mut extensions = JsonObject::new();
            extensions.insert(TASKS.to_owned(), Value::Object(JsonObject::new()));
            let mut missing = JsonObject::new();
            missing.insert("extensions".to_owned(), Value::Object(extensions));
            return Err(super::tools::missing_capability_error(
                &format!("`{}`", req.method),
                missing,
            ));
        }
        let task_id = p
            .task_id
            .ok_or_else(|| ErrorObject::invalid_params("missing `taskId`"))?;
        let now = SystemTime::now();
        let mut tasks = lock(&self.tasks.tasks);
        let task = tasks
            .get_mut(&task_id)
            .filter(|t| !t.expired(now))
            .ok_or_else(|| ErrorObject::invalid_params(format!("unknown task: {task_id}")))?;
        let ack = || encode(&Response::new(req.id.clone(), Ack::default()));
        Ok(match req.method {
            method::TASKS_GET => encode(&Response::new(
                req.id.clone(),
                task.view(&task_id, "complete"),
            )),
            method::TASKS_CANCEL => {
                // Cooperative: the tool's context sees it; a settled task stays as it is.
                if matches!(task.status, Status::Working) {
                    task.ctx.cancel();
                }
                ack()
            }
            _ => {
                let responses = match p.input_responses {
                    Some(Value::Object(responses)) => responses,
                    None | Some(Value::Null) => JsonObject::new(),
                    Some(_) => {
                        return Err(ErrorObject::invalid_params(
                            "inputResponses must be an object of results by input request key",
                        ))
                    }
                };
                // Answers to keys not outstanding (never asked, answered
                // already) are ignored, as the extension says.
                if let Some(rounds) = &task.rounds {
                    for (key, value) in responses {
                        rounds.answer(&key, value);
                    }
                }
                task.updated = now;
                ack()
            }
        })
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

/// `tasks/get`, `tasks/update` and `tasks/cancel`.
pub(super) struct Tasks;

impl Capability for Tasks {
    fn request<'a>(core: &Arc<ServerCore>, req: Request<'a>) -> Result<Outcome, Request<'a>> {
        if !matches!(
            req.method,
            method::TASKS_GET | method::TASKS_UPDATE | method::TASKS_CANCEL
        ) || core.capabilities.extension(TASKS).is_none()
        {
            return Err(req);
        }
        Ok(match core.task_request(&req) {
            Ok(bytes) => Outcome::Reply(bytes),
            Err(e) => failed(req.id, e),
        })
    }
}
