//! What a server asks of the client from inside a tool, prompt or resource:
//! sampling, elicitation, roots. The same code in both eras:
//!
//! - legacy sessions: a JSON-RPC request to the client on the request's own
//!   stream (stdio; the POST's SSE stream on HTTP), answered by a response
//!   that dispatch routes back here ([`Pending`]);
//! - 2026-07-28: an input round (MRTR). An ask whose answer came with the
//!   retry (`inputResponses`, or the signed `requestState` of earlier
//!   rounds) returns it; otherwise it is recorded and never completes, and
//!   dispatch answers the request with `input_required` ([`Rounds`]).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use oxmcp_types::jsonrpc::Request as RpcRequest;
use oxmcp_types::modern::InputRequest;
use oxmcp_types::{ErrorObject, RequestId};
use oxmcp_wire::sync::lock;
use serde_json::Value;
use tokio::sync::{oneshot, Notify};

use crate::common::Outbound;

/// Why an ask got no answer.
#[derive(Debug)]
#[non_exhaustive]
pub enum AskError {
    /// The client did not declare the capability (`sampling`, `elicitation`, `roots`).
    Unsupported(&'static str),
    /// The client answered with an error.
    Refused(ErrorObject),
    /// The answer did not have the expected shape.
    Invalid(String),
    /// What was to be asked cannot be asked (e.g. a form the spec's
    /// elicitation schema cannot express).
    Unaskable(String),
    /// The request was cancelled, or the connection ended, before the answer.
    Cancelled,
    /// The context belongs to no client ([`Context::detached`](crate::Context::detached)).
    NoClient,
}

impl std::fmt::Display for AskError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AskError::Unsupported(what) => write!(
                f,
                "the client does not support {what} (it did not declare the capability)"
            ),
            AskError::Refused(e) => write!(f, "the client refused the request: {}", e.message),
            AskError::Invalid(why) => write!(f, "the client's answer is invalid: {why}"),
            AskError::Unaskable(why) => write!(f, "cannot ask the client: {why}"),
            AskError::Cancelled => f.write_str("the request ended before the client answered"),
            AskError::NoClient => f.write_str("no client to ask: this context is detached"),
        }
    }
}

/// A leaf: each message says everything (a refusal's error object included).
impl std::error::Error for AskError {}

/// The legacy session's requests to the client awaiting their responses.
#[derive(Default)]
pub(crate) struct Pending {
    next: AtomicU64,
    waiting: Mutex<HashMap<RequestId, oneshot::Sender<Result<Value, ErrorObject>>>>,
}

impl Pending {
    /// A fresh id for a request to the client (never one the client uses for
    /// its own: ours are strings with a prefix).
    fn register(&self) -> (RequestId, oneshot::Receiver<Result<Value, ErrorObject>>) {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let id = RequestId::String(format!("mcp-rs-{n}"));
        let (tx, rx) = oneshot::channel();
        lock(&self.waiting).insert(id.clone(), tx);
        (id, rx)
    }

    fn forget(&self, id: &RequestId) {
        lock(&self.waiting).remove(id);
    }

    /// Whether a request of ours with this id waits for the client's answer.
    #[cfg(feature = "http")]
    pub(crate) fn waits_for(&self, id: &RequestId) -> bool {
        lock(&self.waiting).contains_key(id)
    }

    /// Delivers the client's response to `id`; `false` if nothing waits for it.
    pub(crate) fn resolve(&self, id: &RequestId, answer: Result<Value, ErrorObject>) -> bool {
        match lock(&self.waiting).remove(id) {
            Some(tx) => tx.send(answer).is_ok(),
            None => false,
        }
    }
}

/// One 2026-07-28 request's input rounds: the answers it came with and the
/// inputs it still needs.
pub(crate) struct Rounds {
    /// The request the rounds belong to (what its `requestState` is bound to).
    pub(crate) binding: Binding,
    answers: BTreeMap<String, Value>,
    asked: Mutex<BTreeMap<String, InputRequest>>,
    auto_keys: AtomicUsize,
    needed: Notify,
    resumed: bool,
    /// Once the request runs as a task: answers arrive while it runs
    /// (`tasks/update`), each to the ask waiting under its key.
    live: Mutex<Option<HashMap<String, oneshot::Sender<Value>>>>,
}

impl Rounds {
    pub(crate) fn new(binding: Binding, answers: BTreeMap<String, Value>, resumed: bool) -> Rounds {
        Rounds {
            binding,
            answers,
            asked: Mutex::new(BTreeMap::new()),
            auto_keys: AtomicUsize::new(0),
            needed: Notify::new(),
            resumed,
            live: Mutex::new(None),
        }
    }

    /// From now on, inputs are answered while the request runs (it became
    /// a task) instead of by a retry.
    pub(crate) fn go_live(&self) {
        lock(&self.live).get_or_insert_with(HashMap::new);
    }

    /// Resolves when an input is asked for next.
    pub(crate) fn on_ask(&self) -> tokio::sync::futures::Notified<'_> {
        self.needed.notified()
    }

    /// The inputs asked for and not answered yet.
    pub(crate) fn outstanding(&self) -> BTreeMap<String, InputRequest> {
        lock(&self.asked).clone()
    }

    /// Delivers the answer to the input asked under `key`; `false` when
    /// nothing waits for it (never asked, or answered already).
    pub(crate) fn answer(&self, key: &str, value: Value) -> bool {
        let Some(tx) = lock(&self.live).as_mut().and_then(|w| w.remove(key)) else {
            return false;
        };
        lock(&self.asked).remove(key);
        tx.send(value).is_ok()
    }

    /// Whether inputs were asked for that the request did not bring.
    pub(crate) fn has_requests(&self) -> bool {
        !lock(&self.asked).is_empty()
    }

    /// Waits until an input is asked for.
    pub(crate) async fn needed(&self) {
        loop {
            let notified = self.needed.notified();
            if self.has_requests() {
                return;
            }
            notified.await;
        }
    }

    /// The inputs to ask for, and every answer so far (for the next state).
    pub(crate) fn take(&self) -> (BTreeMap<String, InputRequest>, BTreeMap<String, Value>) {
        (std::mem::take(&mut lock(&self.asked)), self.answers.clone())
    }

    pub(crate) fn resumed(&self) -> bool {
        self.resumed
    }
}

/// What a `requestState` is bound to: the method, its target (a tool's or
/// prompt's name, a resource's URI) and its arguments.
#[derive(Debug, Clone)]
pub(crate) struct Binding {
    pub(crate) method: &'static str,
    pub(crate) target: String,
    pub(crate) args: BoundArgs,
    /// Who the request's token speaks for (see `request_state::caller_of`).
    pub(crate) caller: String,
}

/// The arguments a `requestState` is bound to: their digest, or the raw
/// params they are read from when a state is first signed (most requests
/// never ask for input, so most never pay for the digest).
#[derive(Debug, Clone)]
pub(crate) enum BoundArgs {
    /// The digest, already computed.
    Digest(String),
    /// The request's raw params, whose `arguments` are digested on demand.
    Params(Option<Box<str>>),
}

impl BoundArgs {
    /// The digest of the arguments (see [`crate::ask::request_state::digest`]).
    pub(crate) fn digest(&self) -> std::borrow::Cow<'_, str> {
        match self {
            BoundArgs::Digest(d) => std::borrow::Cow::Borrowed(d),
            BoundArgs::Params(raw) => std::borrow::Cow::Owned(crate::ask::request_state::digest(
                &arguments_of(raw.as_deref()),
            )),
        }
    }
}

/// The `arguments` member of raw params (`null` when absent or unreadable;
/// such params never reach a tool, so they are never signed).
pub(crate) fn arguments_of(raw: Option<&str>) -> Value {
    #[derive(serde::Deserialize)]
    struct Arguments {
        #[serde(default)]
        arguments: Value,
    }
    raw.and_then(|raw| serde_json::from_str::<Arguments>(raw).ok())
        .map_or(Value::Null, |a| a.arguments)
}

/// How a context reaches its client for input.
#[derive(Clone)]
pub(crate) enum Asker {
    /// A legacy session: requests on the request's stream.
    Session {
        out: Arc<dyn Outbound>,
        pending: Arc<Pending>,
    },
    /// A 2026-07-28 request: input rounds.
    Rounds(Arc<Rounds>),
    /// Nobody to ask.
    Nobody,
}

impl Asker {
    /// Asks `method` with `params` under `key` (an automatic key, by call
    /// order, when `None`); `cancelled` ends the wait.
    pub(crate) async fn ask(
        &self,
        key: Option<&str>,
        method: &'static str,
        params: Value,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> Result<Value, AskError> {
        match self {
            Asker::Nobody => Err(AskError::NoClient),
            Asker::Session { out, pending } => {
                let (id, rx) = pending.register();
                out.send(crate::common::encode(&RpcRequest::new(
                    id.clone(),
                    method,
                    params,
                )));
                tokio::select! {
                    answer = rx => match answer {
                        Ok(Ok(value)) => Ok(value),
                        Ok(Err(e)) => Err(AskError::Refused(e)),
                        Err(_) => Err(AskError::Cancelled),
                    },
                    () = cancelled => {
                        pending.forget(&id);
                        Err(AskError::Cancelled)
                    }
                }
            }
            Asker::Rounds(rounds) => {
                let key = match key {
                    Some(k) => k.to_owned(),
                    None => format!("input-{}", rounds.auto_keys.fetch_add(1, Ordering::Relaxed)),
                };
                if let Some(answer) = rounds.answers.get(&key) {
                    return Ok(answer.clone());
                }
                let live = lock(&rounds.live).as_mut().map(|waiting| {
                    let (tx, rx) = oneshot::channel();
                    waiting.insert(key.clone(), tx);
                    rx
                });
                lock(&rounds.asked).insert(
                    key,
                    InputRequest {
                        method: method.to_owned(),
                        params: Some(params),
                    },
                );
                rounds.needed.notify_waiters();
                match live {
                    // A task: answered by `tasks/update`.
                    Some(rx) => tokio::select! {
                        answer = rx => answer.map_err(|_| AskError::Cancelled),
                        () = cancelled => Err(AskError::Cancelled),
                    },
                    // Answered by the retry: this run ends here.
                    None => std::future::pending().await,
                }
            }
        }
    }
}
