//! Following a task (the tasks extension, SEP-2663): a `tools/call` the
//! server answered with a task handle is polled with `tasks/get` (at the
//! interval the server asks for) until it ends; input it asks for is
//! answered with the installed handlers through `tasks/update`; a caller
//! that stops waiting cancels it (`tasks/cancel`). The caller gets the
//! final result, as if the call had been answered at once.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use oxmcp_types::call::CallError;
use oxmcp_types::jsonrpc::Request;
use oxmcp_types::modern::InputRequest;
use oxmcp_types::{method, ErrorObject, JsonObject};
use serde_json::Value;

use crate::connection::{Conn, Req};
use crate::connection::{Outgoing, Transport};

/// The poll interval when the server names none, and the bounds put on
/// the one it names.
const DEFAULT_POLL: Duration = Duration::from_millis(500);
const MIN_POLL: Duration = Duration::from_millis(20);
const MAX_POLL: Duration = Duration::from_secs(30);

/// Whether a result is a task handle (`resultType: "task"`).
pub(crate) fn is_task(result: &Value) -> bool {
    result.get("resultType").and_then(Value::as_str) == Some("task")
}

fn poll_interval(task: &Value) -> Duration {
    task.get("pollIntervalMs")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_POLL, Duration::from_millis)
        .clamp(MIN_POLL, MAX_POLL)
}

/// Cancels the task at the server when the caller stops waiting before it ended.
struct Cancel {
    transport: Arc<dyn Transport>,
    request: Option<Outgoing>,
}

impl Drop for Cancel {
    fn drop(&mut self) {
        let Some(request) = self.request.take() else {
            return;
        };
        let transport = Arc::clone(&self.transport);
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                if let Err(e) = transport.request(request).await {
                    tracing::debug!(error = %oxmcp_types::error::Chain(&e), "could not cancel a task");
                }
            });
        }
    }
}

impl Conn {
    /// Follows the task `created` (a `CreateTaskResult`) to its end: the
    /// final result, the JSON-RPC error it failed with, or
    /// [`CallError::Cancelled`].
    pub(crate) async fn follow_task(
        &self,
        created: Value,
        modern: bool,
    ) -> Result<Value, CallError> {
        let task_id = created
            .get("taskId")
            .and_then(Value::as_str)
            .ok_or_else(|| malformed("a task handle without `taskId`"))?
            .to_owned();
        let mut cancel = Cancel {
            transport: Arc::clone(&self.transport),
            request: Some(self.cancel_request(&task_id, modern)?),
        };
        let mut poll = poll_interval(&created);
        let mut answered: HashSet<String> = HashSet::new();
        loop {
            tokio::time::sleep(poll).await;
            let task = self
                .task_request(method::TASKS_GET, &task_id, modern, None)
                .await?;
            poll = poll_interval(&task);
            match task.get("status").and_then(Value::as_str) {
                Some("working") => {}
                Some("input_required") => {
                    let asked: std::collections::BTreeMap<String, InputRequest> = task
                        .get("inputRequests")
                        .cloned()
                        .map(serde_json::from_value)
                        .transpose()
                        .map_err(|e| malformed(&format!("malformed inputRequests: {e}")))?
                        .unwrap_or_default();
                    // Each request once, however many polls show it.
                    let fresh: std::collections::BTreeMap<String, InputRequest> = asked
                        .into_iter()
                        .filter(|(key, _)| !answered.contains(key))
                        .collect();
                    if fresh.is_empty() {
                        continue;
                    }
                    answered.extend(fresh.keys().cloned());
                    let responses = self.fulfil(fresh).await?;
                    self.task_request(method::TASKS_UPDATE, &task_id, modern, Some(responses))
                        .await?;
                }
                Some("completed") => {
                    cancel.request = None;
                    return task
                        .get("result")
                        .cloned()
                        .ok_or_else(|| malformed("a completed task without `result`"));
                }
                Some("failed") => {
                    cancel.request = None;
                    let error: ErrorObject = task
                        .get("error")
                        .cloned()
                        .and_then(|e| serde_json::from_value(e).ok())
                        .unwrap_or_else(|| ErrorObject::internal("the task failed"));
                    return Err(CallError::Protocol(error));
                }
                Some("cancelled") => {
                    cancel.request = None;
                    return Err(CallError::Cancelled);
                }
                other => return Err(malformed(&format!("a task with status {other:?}"))),
            }
        }
    }

    /// `tasks/get` or `tasks/update` on `task_id`.
    async fn task_request(
        &self,
        method_name: &str,
        task_id: &str,
        modern: bool,
        input_responses: Option<JsonObject>,
    ) -> Result<Value, CallError> {
        let mut params = JsonObject::new();
        params.insert("taskId".to_owned(), Value::from(task_id));
        if let Some(responses) = input_responses {
            params.insert("inputResponses".to_owned(), Value::Object(responses));
        }
        let req = Req {
            timeout: Some(self.config.timeout),
            #[cfg(feature = "http")]
            name: Some(task_id.to_owned()),
            ..Req::new(method_name, params, modern)
        };
        self.request(req).await
    }

    /// The `tasks/cancel` to send if the caller stops waiting.
    fn cancel_request(&self, task_id: &str, modern: bool) -> Result<Outgoing, CallError> {
        let mut params = JsonObject::new();
        params.insert("taskId".to_owned(), Value::from(task_id));
        if modern {
            params.insert("_meta".to_owned(), Value::Object(self.modern_meta()));
        }
        let id = self.shared.next_id();
        let body = serde_json::to_vec(&Request::new(
            id.clone(),
            method::TASKS_CANCEL,
            Value::Object(params),
        ))
        .map_err(|e| crate::error::transport(format!("cannot serialize tasks/cancel: {e}")))?;
        Ok(Outgoing {
            body,
            #[cfg(feature = "http")]
            head: crate::connection::Head {
                id,
                method: method::TASKS_CANCEL.to_owned(),
                name: Some(task_id.to_owned()),
                param_headers: Vec::new(),
            },
        })
    }
}

fn malformed(what: &str) -> CallError {
    CallError::Protocol(ErrorObject::invalid_params(format!(
        "the server answered with {what}"
    )))
}
