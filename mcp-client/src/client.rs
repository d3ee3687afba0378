//! [`Client`]: one connected session and everything it can do.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use oxmcp_types::call::{BoxFuture, CallError, ToolCaller};
use oxmcp_types::jsonrpc::code;
use oxmcp_types::modern::SubscriptionFilter;
use oxmcp_types::notification::SetLevelParams;
use oxmcp_types::{
    method, CallToolResult, ErrorObject, Implementation, JsonObject, ListToolsResult, LoggingLevel,
    ProtocolVersion, ServerCapabilities, Tool,
};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::connection::SessionInfo;
use crate::connection::{lock, Closed};
use crate::connection::{Conn, Req};
use crate::error::transport;
use crate::notifications::{Notifications, Subscription};
use crate::options::{CallOptions, IntoArguments};
use oxmcp_wire::param_headers as headers;

/// Guards against a server whose cursors never end.
pub(crate) const MAX_PAGES: usize = 100_000;

pub(crate) struct Inner {
    pub(crate) conn: Conn,
    pub(crate) session: SessionInfo,
    /// Streamable HTTP in the 2026-07-28 era: `x-mcp-header` rules apply.
    pub(crate) http_modern: bool,
    /// Subscriptions the client keeps for itself (tool list changes).
    pub(crate) background: Mutex<Vec<Subscription>>,
}

/// One connected MCP session.
///
/// Built by [`Client::builder`]; cheap to clone (clones share the
/// connection), and every method takes `&self`, so many tasks can call
/// through one client at once. See the [crate docs](crate) for how to
/// connect over stdio, HTTP and in-process.
///
/// Dropping the last clone closes the connection in the background;
/// [`close`](Self::close) does it and waits.
#[derive(Clone)]
pub struct Client {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("protocol_version", &self.protocol_version())
            .field("server", &self.server_info().name)
            .finish_non_exhaustive()
    }
}

pub(crate) fn malformed(what: &str, e: &dyn std::fmt::Display) -> CallError {
    CallError::Protocol(ErrorObject::internal(format!(
        "the server sent a malformed {what} result: {e}"
    )))
}

impl Client {
    /// The protocol revision in use: the one `initialize` negotiated, or
    /// 2026-07-28 in the modern era.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.session.version
    }

    /// Whether the connection speaks the stateless 2026-07-28 era.
    pub fn is_modern(&self) -> bool {
        !self.inner.session.version.is_legacy()
    }

    /// The server's name and version. In the modern era this comes from
    /// `server/discover`'s `_meta`; a server that left it out has empty
    /// name and version.
    pub fn server_info(&self) -> &Implementation {
        &self.inner.session.server_info
    }

    /// What the server offers.
    pub fn server_capabilities(&self) -> &ServerCapabilities {
        &self.inner.session.capabilities
    }

    /// The server's instructions for the model, if any.
    pub fn instructions(&self) -> Option<&str> {
        self.inner.session.instructions.as_deref()
    }

    /// The last lines the server process wrote to stderr (stdio connections;
    /// empty otherwise). Every line is also logged with `tracing` at debug
    /// level, target `oxmcp_client::stderr`.
    pub fn stderr_tail(&self) -> Vec<String> {
        self.inner.conn.transport.stderr_tail()
    }

    /// Whether the connection is over (closed, or the server went away).
    pub fn is_closed(&self) -> bool {
        self.inner.conn.shared.closed().is_some()
    }

    fn conn(&self) -> &Conn {
        &self.inner.conn
    }

    fn timeout(&self) -> Duration {
        self.inner.conn.config.timeout
    }

    /// Every tool the server offers, following every page.
    ///
    /// The listing is cached: in the legacy era until the server sends
    /// `notifications/tools/list_changed`; in the modern era for the `ttlMs`
    /// the server gave (`0`: fetched again on every call), or until a
    /// subscription reports a change. [`invalidate_tools`](Self::invalidate_tools)
    /// drops it by hand.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, CallError> {
        Ok(self.tools().await?.as_ref().clone())
    }

    /// Forgets the cached tool listing; the next [`list_tools`](Self::list_tools) fetches it.
    pub fn invalidate_tools(&self) {
        self.inner.conn.shared.tools.invalidate();
    }

    async fn tools(&self) -> Result<Arc<Vec<Tool>>, CallError> {
        let cache = &self.inner.conn.shared.tools;
        if let Some(tools) = cache.fresh() {
            return Ok(tools);
        }
        let _one_fetch = cache.refresh.lock().await;
        if let Some(tools) = cache.fresh() {
            return Ok(tools);
        }
        self.fetch_tools().await
    }

    async fn fetch_tools(&self) -> Result<Arc<Vec<Tool>>, CallError> {
        let cache = &self.inner.conn.shared.tools;
        let generation = cache.generation();
        let modern = self.is_modern();
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = HashSet::new();
        let mut ttl_ms: Option<u64> = None;
        for _ in 0..MAX_PAGES {
            let mut params = JsonObject::new();
            if let Some(c) = &cursor {
                params.insert("cursor".to_owned(), Value::String(c.clone()));
            }
            let req = Req {
                timeout: Some(self.timeout()),
                ..Req::new(method::TOOLS_LIST, params, modern)
            };
            let value = self.conn().request(req).await?;
            let page: ListToolsResult =
                serde_json::from_value(value).map_err(|e| malformed(method::TOOLS_LIST, &e))?;
            tools.extend(page.tools);
            if modern {
                let page_ttl = page.ttl_ms.unwrap_or(0);
                ttl_ms = Some(ttl_ms.map_or(page_ttl, |t| t.min(page_ttl)));
            }
            match page.next_cursor {
                None => {
                    if self.inner.http_modern {
                        tools.retain(|t| match headers::check_tool(t) {
                            Ok(()) => true,
                            Err(why) => {
                                tracing::warn!(tool = %t.name, %why, "ignoring a tool with invalid x-mcp-header annotations");
                                false
                            }
                        });
                    }
                    let ttl = ttl_ms.map(Duration::from_millis);
                    return Ok(cache.store(tools, ttl, generation));
                }
                Some(next) => {
                    if !seen.insert(next.clone()) {
                        return Err(malformed(
                            method::TOOLS_LIST,
                            &format_args!("the cursor `{next}` came back twice"),
                        ));
                    }
                    cursor = Some(next);
                }
            }
        }
        Err(malformed(
            method::TOOLS_LIST,
            &format_args!("more than {MAX_PAGES} pages"),
        ))
    }

    /// Calls tool `name`. A result with `isError: true` is
    /// [`CallError::Tool`]; `structuredContent` is checked against the tool's
    /// `outputSchema` first ([`CallError::SchemaMismatch`] names the tool).
    ///
    /// `arguments` is a [`JsonObject`], a [`Value`] holding an object (or
    /// `null`), or `()`.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: impl IntoArguments,
    ) -> Result<CallToolResult, CallError> {
        self.call_tool_with(name, arguments, CallOptions::new())
            .await
    }

    /// Like [`call_tool`](Self::call_tool), with a timeout and a progress callback.
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: impl IntoArguments,
        options: CallOptions,
    ) -> Result<CallToolResult, CallError> {
        let result = self.call_tool_raw_with(name, arguments, options).await?;
        if result.is_error() {
            return Err(CallError::Tool(result));
        }
        Ok(result)
    }

    /// Calls tool `name` and returns its result whether or not it is
    /// `isError` (what [`ToolCaller::call_tool`] does). The output schema is
    /// still checked for successful results.
    pub async fn call_tool_raw(
        &self,
        name: &str,
        arguments: impl IntoArguments,
    ) -> Result<CallToolResult, CallError> {
        self.call_tool_raw_with(name, arguments, CallOptions::new())
            .await
    }

    /// [`call_tool_raw`](Self::call_tool_raw) with options.
    pub async fn call_tool_raw_with(
        &self,
        name: &str,
        arguments: impl IntoArguments,
        options: CallOptions,
    ) -> Result<CallToolResult, CallError> {
        let arguments = arguments
            .into_arguments()
            .map_err(|e| CallError::Protocol(ErrorObject::invalid_params(e)))?;
        let value = match self.send_call(name, arguments.as_ref(), &options).await {
            // The server's tool definition changed its `x-mcp-header`s: the
            // spec asks for a fresh listing and one retry.
            Err(CallError::Protocol(e))
                if e.code == code::HEADER_MISMATCH && self.inner.http_modern =>
            {
                self.invalidate_tools();
                self.tools().await?;
                self.send_call(name, arguments.as_ref(), &options).await?
            }
            other => other?,
        };
        let result: CallToolResult =
            serde_json::from_value(value).map_err(|e| CallError::Decode {
                tool: name.to_owned(),
                message: e.to_string(),
            })?;
        self.check_output(name, &result).await?;
        Ok(result)
    }

    async fn send_call(
        &self,
        name: &str,
        arguments: Option<&JsonObject>,
        options: &CallOptions,
    ) -> Result<Value, CallError> {
        let mut params = JsonObject::new();
        params.insert("name".to_owned(), Value::String(name.to_owned()));
        if let Some(args) = arguments {
            params.insert("arguments".to_owned(), Value::Object(args.clone()));
        }
        let req = Req {
            timeout: Some(options.timeout.unwrap_or(self.timeout())),
            max_time: options.max_time,
            progress: options.progress.clone(),
            #[cfg(feature = "http")]
            name: Some(name.to_owned()),
            #[cfg(feature = "http")]
            param_headers: if self.inner.http_modern {
                self.inner.conn.shared.tools.param_headers(name, arguments)
            } else {
                Vec::new()
            },
            ..Req::new(method::TOOLS_CALL, params, self.is_modern())
        };
        self.conn().request_with_input(req).await
    }

    /// Checks `structuredContent` against the tool's `outputSchema`, fetching
    /// the tool list when a structured result comes from a tool not known
    /// yet, and refreshing a stale list once before reporting a mismatch.
    async fn check_output(&self, name: &str, result: &CallToolResult) -> Result<(), CallError> {
        if result.is_error() {
            return Ok(());
        }
        let cache = &self.inner.conn.shared.tools;
        let mut refreshed = false;
        let (tool, fresh) = match cache.tool(name) {
            Some(found) => found,
            None if cache.has_listing() && cache.fresh().is_some() => return Ok(()),
            // Unknown tool, nothing structured: not worth a listing.
            None if result.structured_content.is_none() => return Ok(()),
            None => {
                refreshed = true;
                if let Err(e) = self.tools().await {
                    tracing::warn!(tool = name, error = %oxmcp_types::error::Chain(&e), "cannot list tools: the result's structured content is not checked");
                    return Ok(());
                }
                match cache.tool(name) {
                    Some(found) => found,
                    None => return Ok(()),
                }
            }
        };
        let Err(details) = cache.check(&tool, result) else {
            return Ok(());
        };
        if fresh || refreshed {
            return Err(CallError::SchemaMismatch {
                tool: name.to_owned(),
                details,
            });
        }
        // A stale listing: the schema may have changed since.
        cache.invalidate();
        self.tools().await?;
        match cache.tool(name) {
            Some((tool, _)) => {
                cache
                    .check(&tool, result)
                    .map_err(|details| CallError::SchemaMismatch {
                        tool: name.to_owned(),
                        details,
                    })
            }
            None => Ok(()),
        }
    }

    /// Checks that the server is alive: `ping` in the legacy era. The modern
    /// era has no `ping`; there this sends `server/discover`, which every
    /// modern server answers.
    pub async fn ping(&self) -> Result<(), CallError> {
        let method_name = if self.is_modern() {
            method::SERVER_DISCOVER
        } else {
            method::PING
        };
        let req = Req {
            timeout: Some(self.timeout()),
            ..Req::new(method_name, JsonObject::new(), self.is_modern())
        };
        self.conn().request(req).await.map(drop)
    }

    /// Sends any request (`resources/read`, `prompts/get`, …) and returns
    /// its result. `params` is an object or `null`; in the modern era the
    /// protocol `_meta` fields are added and `input_required` rounds are
    /// fulfilled by the handlers.
    pub async fn request(&self, method_name: &str, params: Value) -> Result<Value, CallError> {
        let params = match params {
            Value::Object(map) => map,
            Value::Null => JsonObject::new(),
            _ => {
                return Err(CallError::Protocol(ErrorObject::invalid_params(
                    "request params must be a JSON object",
                )))
            }
        };
        #[cfg(feature = "http")]
        let name = oxmcp_wire::route::NameParam::of(method_name)
            .and_then(|p| params.get(p.key()))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let req = Req {
            timeout: Some(self.timeout()),
            #[cfg(feature = "http")]
            name,
            ..Req::new(method_name, params, self.is_modern())
        };
        self.conn().request_with_input(req).await
    }

    /// Sets the least severe log level the server should send
    /// (`notifications/message`, read them from [`notifications`](Self::notifications)).
    /// Legacy era: `logging/setLevel`. Modern era: the level is sent with
    /// every request from now on.
    #[deprecated(
        since = "0.1.0",
        note = "logging is deprecated since MCP 2026-07-28 (SEP-2577): read the server's stderr (stdio) or its OpenTelemetry export instead"
    )]
    pub async fn set_log_level(&self, level: LoggingLevel) -> Result<(), CallError> {
        if self.is_modern() {
            *lock(&self.inner.conn.shared.log_level) = Some(level);
            return Ok(());
        }
        let params = serde_json::to_value(SetLevelParams { level, meta: None })
            .ok()
            .and_then(|v| v.as_object().cloned())
            .unwrap_or_default();
        let req = Req {
            timeout: Some(self.timeout()),
            ..Req::new(method::LOGGING_SET_LEVEL, params, false)
        };
        self.conn().request(req).await.map(drop)
    }

    /// A receiver of the server's notifications from now on (see [`Notifications`]).
    pub fn notifications(&self) -> Notifications {
        Notifications::new(self.inner.conn.shared.subscribe_notifications())
    }

    /// Opens a `subscriptions/listen` stream (2026-07-28) and waits for the
    /// server's acknowledgement. A tool list change reported on any
    /// subscription also invalidates the tool cache.
    ///
    /// # Errors
    ///
    /// [`CallError::Protocol`] with -32601 in the legacy era, where servers
    /// send notifications without being asked.
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<Subscription, CallError> {
        if !self.is_modern() {
            return Err(CallError::Protocol(ErrorObject::new(
                code::METHOD_NOT_FOUND,
                "subscriptions/listen exists only in protocol 2026-07-28; legacy servers send notifications unasked (see Client::notifications)",
            )));
        }
        let (mut sub, mut done) = self.start_listen(filter)?;
        let wait = self.timeout();
        let first = tokio::time::timeout(wait, async {
            tokio::select! {
                n = sub.rx.recv() => Ok(n),
                r = &mut done => Err(r),
            }
        })
        .await
        .map_err(|_| CallError::Timeout(wait))?;
        match first {
            Ok(Some(n)) if n.method == method::SUBSCRIPTIONS_ACKNOWLEDGED => {
                if let Some(agreed) = n
                    .params
                    .as_ref()
                    .and_then(|p| p.get("notifications"))
                    .and_then(|f| serde_json::from_value(f.clone()).ok())
                {
                    sub.agreed = agreed;
                }
                Ok(sub)
            }
            Ok(Some(n)) => {
                tracing::debug!(method = %n.method, "subscription without acknowledgement");
                sub.first = Some(n);
                Ok(sub)
            }
            Ok(None) | Err(Ok(Ok(_)) | Err(_)) => Err(transport(
                "the server ended the subscription before acknowledging it",
            )),
            Err(Ok(Err(e))) => Err(e),
        }
    }

    /// Starts a listen request; its outcome arrives on the returned receiver.
    #[allow(clippy::type_complexity)]
    pub(crate) fn start_listen(
        &self,
        filter: SubscriptionFilter,
    ) -> Result<(Subscription, oneshot::Receiver<Result<Value, CallError>>), CallError> {
        let conn = self.inner.conn.clone();
        let id = conn.shared.next_id();
        let (tx, rx) = mpsc::unbounded_channel();
        conn.shared.add_subscription(id.clone(), tx)?;
        let (done_tx, done_rx) = oneshot::channel();
        let mut params = JsonObject::new();
        params.insert(
            "notifications".to_owned(),
            serde_json::to_value(&filter).unwrap_or_default(),
        );
        let task_id = id.clone();
        let task = tokio::spawn(async move {
            let req = Req {
                id: Some(task_id.clone()),
                ..Req::new(method::SUBSCRIPTIONS_LISTEN, params, true)
            };
            let outcome = conn.request(req).await;
            conn.shared.remove_subscription(&task_id);
            let _ = done_tx.send(outcome);
        });
        Ok((
            Subscription {
                id,
                agreed: filter,
                rx,
                first: None,
                task: task.abort_handle(),
                shared: Arc::clone(&self.inner.conn.shared),
            },
            done_rx,
        ))
    }

    /// Closes the connection and waits for it to be closed: calls in flight
    /// fail with [`CallError::Cancelled`]; a child process gets its stdin
    /// closed, then SIGTERM, then SIGKILL if it lingers (each wait bounded by
    /// the builder's `shutdown_timeout`); an HTTP session is deleted.
    pub async fn close(&self) {
        let background = std::mem::take(&mut *lock(&self.inner.background));
        drop(background);
        self.inner.conn.shared.close(Closed::ByClient);
        self.inner.conn.transport.close().await;
    }
}

impl ToolCaller for Client {
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        arguments: JsonObject,
    ) -> BoxFuture<'a, Result<CallToolResult, CallError>> {
        Box::pin(self.call_tool_raw(name, arguments))
    }

    fn list_all_tools(&self) -> BoxFuture<'_, Result<Vec<Tool>, CallError>> {
        Box::pin(self.list_tools())
    }

    fn get_prompt<'a>(
        &'a self,
        name: &'a str,
        arguments: std::collections::BTreeMap<String, String>,
    ) -> BoxFuture<'a, Result<oxmcp_types::GetPromptResult, CallError>> {
        Box::pin(Client::get_prompt(self, name, arguments))
    }

    fn list_all_prompts(&self) -> BoxFuture<'_, Result<Vec<oxmcp_types::Prompt>, CallError>> {
        Box::pin(self.list_prompts())
    }
}
