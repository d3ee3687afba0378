//! [`Link`]: the live connection to one mounted server. It connects (again,
//! with back-off, after a failure), keeps the front server's offer of the
//! mount's items in step with the mounted server's lists, forwards calls,
//! reads and completions, and passes what the mounted server asks of its
//! client to the front server's client.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use oxmcp_client::{CallOptions, Client, ClientBuilder};
use oxmcp_server::types::{CallToolResult, ErrorObject, LoggingLevel};
use oxmcp_server::{Context, ServerHandle};
use oxmcp_types::call::CallError;
use serde_json::Value;
use tokio::time::Instant;

use crate::mount::{Customize, Filters, Source};
use crate::names::Names;
use oxmcp_wire::sync::lock;

/// The first wait before connecting again after a failure; it doubles with
/// each failure in a row, up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// The longest wait between two attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

tokio::task_local! {
    /// The front server's context of the call being forwarded, in its task:
    /// what a 2026-07-28 mounted server asks within the call's own answer
    /// (an input round) goes to that call's client.
    static CALLER: Context;
}

/// Whether the mounted server is reachable now.
enum State {
    Up(Arc<Client>),
    Down {
        /// Why the last attempt failed, or why the connection ended.
        error: String,
        /// The last attempt got an answer, not as a working MCP server's
        /// (an HTTP error status, a page that is not JSON-RPC, a process
        /// that exited): a configuration to refuse at start.
        answered: bool,
        /// When the next attempt may be made.
        retry_at: Instant,
        /// Failures in a row.
        failures: u32,
    },
}

/// The live connection to one mounted server.
pub(crate) struct Link {
    pub(crate) name: String,
    pub(crate) names: Names,
    pub(crate) filters: Filters,
    source: Source,
    #[cfg(feature = "http")]
    headers: Vec<(String, String)>,
    customize: Option<Customize>,
    pub(crate) handle: ServerHandle,
    /// Held while connecting, so that one attempt runs at a time.
    state: tokio::sync::Mutex<State>,
    /// The calls being forwarded now, oldest first, with their front
    /// contexts: a legacy-era mounted server's requests and log messages
    /// name no call, and go to the newest.
    calls: Mutex<Vec<(u64, Context)>>,
    next_call: AtomicU64,
    /// What the front server offers of this mount now, as the mounted
    /// server listed it (to skip a refresh that changes nothing).
    pub(crate) offered: Mutex<Option<crate::offer::Listing>>,
    /// The mounted server's URIs some front client subscribed to: the
    /// mounted server is asked to report their updates, again after each
    /// reconnection.
    followed: Mutex<std::collections::BTreeSet<String>>,
    /// The 2026-07-28 streams that report them, held open.
    streams: Mutex<Vec<oxmcp_client::Subscription>>,
}

/// A forwarded call, registered while it runs.
struct Tracked<'a> {
    link: &'a Link,
    id: u64,
}

impl Drop for Tracked<'_> {
    fn drop(&mut self) {
        lock(&self.link.calls).retain(|(id, _)| *id != self.id);
    }
}

impl Link {
    pub(crate) fn new(mount: crate::Mount, filters: Filters, handle: ServerHandle) -> Link {
        Link {
            names: Names::new(mount.prefix),
            name: mount.name,
            filters,
            source: mount.source,
            #[cfg(feature = "http")]
            headers: mount.headers,
            customize: mount.customize,
            handle,
            state: tokio::sync::Mutex::new(State::Down {
                error: "not connected yet".into(),
                answered: false,
                retry_at: Instant::now(),
                failures: 0,
            }),
            calls: Mutex::new(Vec::new()),
            next_call: AtomicU64::new(0),
            offered: Mutex::new(None),
            followed: Mutex::new(std::collections::BTreeSet::new()),
            streams: Mutex::new(Vec::new()),
        }
    }

    /// The connection, made now if the mounted server is down and its
    /// back-off has passed; otherwise why it is unavailable.
    pub(crate) async fn client(self: &Arc<Self>) -> Result<Arc<Client>, String> {
        let mut state = self.state.lock().await;
        match &*state {
            State::Up(client) if !client.is_closed() => return Ok(Arc::clone(client)),
            State::Up(_) => {
                // Found dead by this call: it says so, and a later one
                // connects again (the server's state may be gone: the
                // caller should know).
                *state = State::Down {
                    error: "the connection ended".into(),
                    answered: false,
                    retry_at: Instant::now() + FIRST_BACKOFF,
                    failures: 1,
                };
                return Err(format!(
                    "the connection ended (next attempt in {:.1} s)",
                    FIRST_BACKOFF.as_secs_f64()
                ));
            }
            State::Down {
                error, retry_at, ..
            } if *retry_at > Instant::now() => {
                let wait = retry_at.saturating_duration_since(Instant::now());
                return Err(format!(
                    "{error} (next attempt in {:.1} s)",
                    wait.as_secs_f64()
                ));
            }
            State::Down { .. } => {}
        }
        let failures = match &*state {
            State::Down { failures, .. } => *failures,
            State::Up(_) => 0,
        };
        match self.connect().await {
            Ok(client) => {
                let client = Arc::new(client);
                *state = State::Up(Arc::clone(&client));
                drop(state);
                if failures > 0 {
                    tracing::info!(mount = %self.name, "the mounted server is back");
                }
                Ok(client)
            }
            Err(e) => {
                let answered = !oxmcp_client::is_unreachable(&e);
                let error = oxmcp_types::error::Chain(&e).to_string();
                let failures = failures + 1;
                let backoff = FIRST_BACKOFF
                    .saturating_mul(1 << (failures - 1).min(16))
                    .min(MAX_BACKOFF);
                tracing::warn!(mount = %self.name, %error, retry_in = ?backoff, "the mounted server is unavailable");
                *state = State::Down {
                    error: error.clone(),
                    answered,
                    retry_at: Instant::now() + backoff,
                    failures,
                };
                Err(error)
            }
        }
    }

    /// The toolbox the mount's items join on the front server: `mount:NAME`
    /// (a `:` no Rust type name holds, so never a toolbox of the server's
    /// own); `ServerHandle::disable_toolbox("mount:calc")` hides them all.
    pub(crate) fn group(&self) -> String {
        format!("mount:{}", self.name)
    }

    /// Why the mounted server is not one to mount, when its last attempt got
    /// an answer that is not a working MCP server's.
    pub(crate) async fn refusal(&self) -> Option<String> {
        match &*self.state.lock().await {
            State::Down {
                error,
                answered: true,
                ..
            } => Some(error.clone()),
            _ => None,
        }
    }

    /// When the next connection attempt may be made, if the mount is down.
    pub(crate) async fn retry_at(&self) -> Option<Instant> {
        match &*self.state.lock().await {
            State::Down { retry_at, .. } => Some(*retry_at),
            State::Up(c) if c.is_closed() => Some(Instant::now()),
            State::Up(_) => None,
        }
    }

    /// Marks `client` gone (its connection ended): the next use after the
    /// first back-off connects again.
    pub(crate) async fn lost(&self, client: &Arc<Client>, why: String) {
        let mut state = self.state.lock().await;
        if matches!(&*state, State::Up(c) if Arc::ptr_eq(c, client)) {
            tracing::warn!(mount = %self.name, error = %why, "lost the mounted server");
            *state = State::Down {
                error: why,
                answered: false,
                retry_at: Instant::now() + FIRST_BACKOFF,
                failures: 1,
            };
        }
    }

    /// Closes the connection, if there is one.
    pub(crate) async fn close(&self) {
        let state = std::mem::replace(
            &mut *self.state.lock().await,
            State::Down {
                error: "the mount was closed".into(),
                answered: false,
                retry_at: Instant::now() + Duration::from_secs(u32::MAX.into()),
                failures: 0,
            },
        );
        if let State::Up(client) = state {
            client.close().await;
        }
    }

    /// Connects to the mounted server.
    async fn connect(self: &Arc<Self>) -> Result<Client, CallError> {
        // Every log message of the mounted server: the front server's client
        // of the call chose its own level, which `Context::log_as` applies.
        // Logging, sampling and roots (deprecated) are passed through for
        // the mounted servers that still use them.
        #[allow(deprecated)]
        let mut builder = Client::builder()
            .client_info("oxmcp-compose", env!("CARGO_PKG_VERSION"))
            .log_level(LoggingLevel::Debug);
        if let Some(customize) = &self.customize {
            builder = customize(builder);
        }
        let builder = self.asking(builder);
        let connected = match &self.source {
            Source::Stdio(command) => builder.connect_stdio(command.to_tokio()).await,
            #[cfg(feature = "http")]
            Source::Http(url) => self.with_headers(builder).connect_http(url).await,
            #[cfg(feature = "http")]
            #[allow(deprecated)] // a mount the user asked for with `Mount::sse`
            Source::Sse(url) => self.with_headers(builder).connect_sse(url).await,
            Source::Local(server) => {
                let (client_end, server_end) = tokio::io::duplex(256 * 1024);
                let (read, write) = tokio::io::split(server_end);
                let server = server.clone();
                let name = self.name.clone();
                tokio::spawn(async move {
                    if let Err(e) = server.serve_io(read, write).await {
                        tracing::warn!(mount = %name, error = %e, "the mounted server stopped");
                    }
                });
                let (read, write) = tokio::io::split(client_end);
                builder.connect_io(read, write).await
            }
        };
        connected
    }

    #[cfg(feature = "http")]
    fn with_headers(&self, mut builder: ClientBuilder) -> ClientBuilder {
        for (name, value) in &self.headers {
            builder = builder.http_header(name, value);
        }
        builder
    }

    /// Installs the handlers that pass what the mounted server asks of its
    /// client (sampling, elicitation, roots) to the front server's client.
    #[allow(deprecated)] // sampling and roots passed on for mounted servers that still ask
    fn asking(self: &Arc<Self>, builder: ClientBuilder) -> ClientBuilder {
        let link = Arc::downgrade(self);
        let ask = move |kind: Ask| {
            let link = link.clone();
            move |params: Value| {
                let caller = link.upgrade().and_then(|l| l.caller());
                async move {
                    let Some(ctx) = caller else {
                        return Err(ErrorObject::internal(
                            "no call of the front server's client is in progress to ask",
                        ));
                    };
                    kind.ask(&ctx, params).await
                }
            }
        };
        builder
            .sampling_handler(ask(Ask::Sampling))
            .elicitation_handler(ask(Ask::Elicitation))
            .roots_handler(ask(Ask::Roots))
    }

    /// The front context to pass a request or log message of the mounted
    /// server to: the call it came within when the client knows it (an
    /// input round), else the newest call in progress.
    fn caller(&self) -> Option<Context> {
        CALLER
            .try_with(Context::clone)
            .ok()
            .or_else(|| lock(&self.calls).last().map(|(_, c)| c.clone()))
    }

    /// Passes a log message of the mounted server to the front client of
    /// the newest call in progress, or to `tracing` when there is none.
    pub(crate) fn log(&self, params: Option<&Value>) {
        let params = params.cloned().unwrap_or(Value::Null);
        let level: LoggingLevel = params
            .get("level")
            .cloned()
            .and_then(|l| serde_json::from_value(l).ok())
            .unwrap_or(LoggingLevel::Info);
        let data = params.get("data").cloned().unwrap_or(Value::Null);
        let logger = params.get("logger").and_then(Value::as_str);
        let logger = match logger {
            Some(l) => format!("{}/{l}", self.name),
            None => self.name.clone(),
        };
        if let Some(ctx) = self.caller() {
            #[allow(deprecated)] // passed on for mounted servers that still log
            ctx.log_as(level, Some(&logger), data);
        } else {
            tracing::info!(mount = %self.name, %logger, ?level, %data, "log message of a mounted server");
        }
    }

    /// A front client subscribed to the mounted resource `uri`: asks the
    /// mounted server to report its updates (once; again after a reconnection).
    pub(crate) fn follow(self: &Arc<Self>, uri: &str) {
        if !lock(&self.followed).insert(uri.to_owned()) {
            return;
        }
        let link = Arc::clone(self);
        let uri = uri.to_owned();
        tokio::spawn(async move {
            if let Ok(client) = link.client().await {
                link.subscribe(&client, &uri).await;
            }
        });
    }

    /// Asks `client`'s server again for the updates of every URI followed
    /// (a new connection knows of none).
    pub(crate) async fn follow_again(&self, client: &Client) {
        lock(&self.streams).clear();
        let uris: Vec<String> = lock(&self.followed).iter().cloned().collect();
        for uri in uris {
            self.subscribe(client, &uri).await;
        }
    }

    /// Asks `client`'s server for the updates of `uri`: `resources/subscribe`
    /// (legacy), a `subscriptions/listen` stream naming it (2026-07-28).
    async fn subscribe(&self, client: &Client, uri: &str) {
        let outcome = if client.is_modern() {
            let filter = oxmcp_types::modern::SubscriptionFilter {
                resource_subscriptions: Some(vec![uri.to_owned()]),
                ..Default::default()
            };
            client
                .listen(filter)
                .await
                .map(|stream| lock(&self.streams).push(stream))
        } else if client
            .server_capabilities()
            .resources
            .as_ref()
            .is_some_and(|r| r.get("subscribe") == Some(&Value::Bool(true)))
        {
            client.subscribe_resource(uri).await
        } else {
            return;
        };
        if let Err(e) = outcome {
            tracing::warn!(mount = %self.name, %uri, error = %oxmcp_types::error::Chain(&e), "cannot follow a mounted resource");
        }
    }

    /// Calls the mounted tool `tool` for the front server's call `ctx`.
    pub(crate) async fn call_tool(
        self: Arc<Self>,
        tool: String,
        arguments: oxmcp_types::JsonObject,
        ctx: Context,
    ) -> CallToolResult {
        let client = match self.client().await {
            Ok(client) => client,
            Err(why) => return self.unavailable(&why),
        };
        let id = self.next_call.fetch_add(1, Ordering::Relaxed);
        lock(&self.calls).push((id, ctx.clone()));
        let _tracked = Tracked { link: &self, id };
        let mut options = CallOptions::new();
        if ctx.wants_progress() {
            let progress = ctx.clone();
            options = options.on_progress(move |p| match p.message {
                Some(message) => progress.progress_with_message(p.progress, p.total, message),
                None => progress.progress(p.progress, p.total),
            });
        }
        let call = CALLER.scope(
            ctx.clone(),
            client.call_tool_raw_with(&tool, arguments, options),
        );
        // The front client's cancellation drops the call, which cancels it
        // on the mounted server.
        let outcome = tokio::select! {
            outcome = call => outcome,
            () = ctx.cancelled() => return CallToolResult::error("cancelled"),
        };
        match outcome {
            Ok(result) => result,
            Err(e) => self.failed(&client, e).await,
        }
    }

    /// The result of a call that did not reach an answer.
    async fn failed(&self, client: &Arc<Client>, e: CallError) -> CallToolResult {
        let why = match &e {
            CallError::Transport(_) => {
                let why = format!("is unavailable: {}", oxmcp_types::error::Chain(&e));
                if client.is_closed() {
                    self.lost(client, why.clone()).await;
                }
                why
            }
            CallError::Timeout(after) => {
                format!("did not answer within {:.1} s", after.as_secs_f64())
            }
            CallError::Protocol(error) => {
                format!("refused the call: {} ({})", error.message, error.code)
            }
            other => format!("failed: {}", oxmcp_types::error::Chain(other)),
        };
        CallToolResult::error(format!("the mounted server `{}` {why}", self.name))
    }

    /// The result of a call made while the mounted server is unavailable.
    fn unavailable(&self, why: &str) -> CallToolResult {
        CallToolResult::error(format!(
            "the mounted server `{}` is unavailable: {why}",
            self.name
        ))
    }

    /// A request error for a prompt, read or completion that did not reach an answer.
    pub(crate) fn request_error(&self, e: CallError) -> oxmcp_server::RequestError {
        match e {
            CallError::Protocol(error) => oxmcp_server::RequestError::object(error),
            other => oxmcp_server::RequestError::internal(format!(
                "the mounted server `{}` is unavailable: {}",
                self.name,
                oxmcp_types::error::Chain(&other)
            )),
        }
    }
}

/// What a mounted server asks of its client.
#[derive(Debug, Clone, Copy)]
enum Ask {
    Sampling,
    Elicitation,
    Roots,
}

impl Ask {
    /// Asks the front server's client through `ctx`; its answer, or the
    /// error to give the mounted server.
    #[allow(deprecated)] // sampling and roots passed on for mounted servers that still ask
    async fn ask(self, ctx: &Context, params: Value) -> Result<Value, ErrorObject> {
        let invalid = |e: serde_json::Error| ErrorObject::invalid_params(e.to_string());
        let answer = match self {
            Ask::Sampling => {
                let params = serde_json::from_value(params).map_err(invalid)?;
                ctx.sample(params).await.map(serde_json::to_value)
            }
            Ask::Elicitation => {
                let params = serde_json::from_value(params).map_err(invalid)?;
                ctx.elicit_with(params).await.map(serde_json::to_value)
            }
            Ask::Roots => ctx
                .roots()
                .await
                .map(|roots| Ok(serde_json::json!({ "roots": roots }))),
        };
        match answer {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => Err(ErrorObject::internal(e.to_string())),
            Err(oxmcp_server::ask::AskError::Refused(e)) => Err(e),
            Err(e) => Err(ErrorObject::internal(e.to_string())),
        }
    }
}
