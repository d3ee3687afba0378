//! The task table: every task this server runs, with its owner, state and
//! inputs; what makes creating one O(1) (tasks in creation order, a count
//! per owner); and a task's record in the shared store, as the instance
//! running it writes it and the others read it.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use oxmcp_types::modern::InputRequest;
use oxmcp_types::{ErrorObject, JsonObject};
use oxmcp_wire::sync::lock;
use serde::Serialize;
use serde_json::Value;

use super::{POLL_INTERVAL, TASK_TTL};
use crate::ask::Rounds;
use crate::context::Context;
use crate::dispatch::admission::SERVER_BUSY;
use crate::dispatch::session::Session;
use crate::dispatch::RequestInfo;

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
    pub(crate) fn of(session: &Session, info: &RequestInfo) -> TaskOwner {
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
pub(super) enum Status {
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
pub(super) const HEARTBEAT: Duration = Duration::from_secs(1);
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
            created_at: oxmcp_wire::time::rfc3339(self.created),
            last_updated_at: oxmcp_wire::time::rfc3339(self.updated),
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
    pub(super) fn create(
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
        let id = crate::common::random_hex_id()
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
    pub(super) fn record(&self, id: &str) -> Option<(Vec<u8>, bool)> {
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

    pub(super) fn changed(
        &self,
        id: &str,
    ) -> Option<(Arc<tokio::sync::Notify>, Option<Arc<Rounds>>)> {
        lock(&self.tasks)
            .by_id
            .get(id)
            .map(|t| (Arc::clone(&t.changed), t.rounds.clone()))
    }

    /// A receiver of tasks' states as they change.
    /// Task `id` as `tasks/get` shows it (`result_type` `complete`), or
    /// as the handle of a call that became a task (`task`).
    pub(super) fn view(&self, id: &str, result_type: &'static str) -> Option<Value> {
        let tasks = lock(&self.tasks);
        let task = tasks.live(id, SystemTime::now())?;
        serde_json::to_value(task.view(id, result_type)).ok()
    }

    /// Tells `subscriptions/listen` streams of this instance a task's state.
    pub(super) fn notify(&self, notice: TaskNotice) {
        let _ = self.notices.send(notice);
    }

    pub(crate) fn notices(&self) -> tokio::sync::broadcast::Receiver<TaskNotice> {
        self.notices.subscribe()
    }

    /// Whether task `id` runs here (and has not expired).
    pub(crate) fn knows(&self, id: &str) -> bool {
        lock(&self.tasks).live(id, SystemTime::now()).is_some()
    }

    /// Who created task `id`, if it runs here (and has not expired).
    pub(in crate::dispatch) fn owner_of(&self, id: &str) -> Option<TaskOwner> {
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
    pub(super) fn settle(&self, id: &str, status: Status) {
        if let Some(task) = lock(&self.tasks).by_id.get_mut(id) {
            if matches!(task.status, Status::Working) {
                task.status = status;
                task.updated = SystemTime::now();
                task.changed.notify_one();
            }
        }
    }
}

/// A task's record read from the store.
pub(in crate::dispatch) struct Stored {
    /// Who created it.
    pub(in crate::dispatch) owner: TaskOwner,
    /// Whether it still runs.
    pub(in crate::dispatch) running: bool,
    /// As `tasks/get` answers it.
    pub(in crate::dispatch) view: Value,
}

/// A task record read from the store: one whose instance stopped writing
/// while it ran is reported failed.
pub(in crate::dispatch) fn from_store(bytes: &[u8]) -> Option<Stored> {
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
