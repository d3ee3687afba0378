//! Tools: `tools/list` and `tools/call` in both eras, with the policy around
//! calls (visibility, middleware, admission, timeouts), and the tool list's
//! change feed for list-changed notices and `subscriptions/listen`.

use std::sync::Arc;

use mcp_types::jsonrpc::RawJson;
use mcp_types::jsonrpc::{code, Response};
use mcp_types::modern::{RawRequestMeta, RequestMeta, SubscriptionFilter};
use mcp_types::{
    method, CacheScope, ClientCapabilities, ContentBlock, ErrorObject, ListToolsParams,
    ListToolsResult, LoggingLevel, RequestId, ResultType,
};
use mcp_wire::sync::lock;
use serde_json::Value;

use super::admission::Admission;
use super::changes::{Feed, ListKind};
use super::era::{era_for, era_of, params, raw_modern, Era};
use super::rounds::{input_needed, rounds_of, Bound, Retry};
use super::session::Session;
use super::{encode, failed, Capability, Outcome, Reply, Request, RequestInfo, ServerCore};
use crate::common::BoxFuture;
use crate::common::Outbound;
use crate::context::{Context, ContextParts};
use crate::policy::{CallOutcome, Caller, Next, ToolCall, ToolInfo};
use crate::tool::{Args, TextArgs};

/// A tool its caller may not see.
struct Hidden;

/// `tools/list`, `tools/call`, and the tool list's changes.
pub(super) struct Tools;

impl Capability for Tools {
    fn request<'a>(core: &Arc<ServerCore>, req: Request<'a>) -> Result<Outcome, Request<'a>> {
        match req.method {
            method::TOOLS_CALL => {
                Ok(core.tools_call(req.session, req.id, req.params, req.out, req.info))
            }
            method::TOOLS_LIST => Ok(
                match core.tools_list(req.session, &req.id, req.params, req.info) {
                    Ok(bytes) => Outcome::Reply(bytes),
                    Err(e) => failed(req.id, e),
                },
            ),
            _ => Err(req),
        }
    }

    fn feed(core: &ServerCore) -> Option<Feed> {
        Some(Feed::new(ListKind::Tools, core.catalog.tools.subscribe()))
    }

    fn agree(_: &ServerCore, asked: &SubscriptionFilter, agreed: &mut SubscriptionFilter) {
        agreed.tools_list_changed = asked.tools_list_changed.filter(|&b| b);
    }
}

/// A call's result as an `Ok` outcome, keeping the future `Unpin` (see
/// `ServerCore::run_call`).
struct AlwaysOk<F>(F);

impl<F: std::future::Future<Output = mcp_types::CallToolResult> + Unpin> std::future::Future
    for AlwaysOk<F>
{
    type Output = CallOutcome;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<CallOutcome> {
        std::pin::Pin::new(&mut self.0).poll(cx).map(Ok)
    }
}

impl ServerCore {
    fn tools_list(
        &self,
        session: &Session,
        id: &RequestId,
        raw: Option<RawJson<'_>>,
        info: &RequestInfo,
    ) -> Reply {
        let (p, era) = era_of::<ListToolsParams>(session, raw, |p| {
            p.meta
                .as_ref()
                .filter(|m| RequestMeta::is_modern(Some(m)))
                .map(RequestMeta::from_meta)
        })?;
        let registry = self.registry();
        let per_caller = self.policy.visibility.is_some() || info.identity.is_some();
        // A client that did not declare Apps sees no tool only the app
        // calls, and no tool's `_meta.ui`.
        let hide_apps = self.hides_apps(&era);
        let page = if per_caller || hide_apps {
            let caller = per_caller.then(|| Self::caller(session, &era, info));
            registry.page_filtered(p.cursor.as_deref(), self.page_size, |t| {
                caller.as_ref().is_none_or(|c| self.tool_visible(c, t))
                    && !(hide_apps && crate::apps::tool_ui(t.tool()).is_some_and(|u| u.app_only()))
            })
        } else {
            registry.page(p.cursor.as_deref(), self.page_size)
        };
        let (mut tools, next_cursor) =
            page.map_err(|_| ErrorObject::invalid_params("invalid cursor"))?;
        if hide_apps {
            tools = tools.into_iter().map(crate::apps::without_ui).collect();
        }
        let mut result = ListToolsResult {
            tools,
            next_cursor,
            ..ListToolsResult::default()
        };
        if let Era::Modern(_) = era {
            result.result_type = Some(ResultType::Complete);
            result.ttl_ms = Some(self.list_ttl_ms);
            // A list that depends on the caller must not be shared.
            result.cache_scope = Some(if per_caller || self.offers_apps() {
                CacheScope::Private
            } else {
                CacheScope::Public
            });
            result.meta = Some(self.complete_meta());
        }
        Ok(encode(&Response::new(id.clone(), result)))
    }

    /// Whether `caller` may see (and so call) a tool: its token has the
    /// tool's scopes, and the visibility hook agrees.
    fn tool_visible(&self, caller: &Caller, entry: &crate::tool::ToolEntry) -> bool {
        entry.scopes.allow(caller.identity())
            && self.policy.visibility.as_ref().is_none_or(|hook| {
                hook(
                    caller,
                    &ToolInfo {
                        tool: entry.tool(),
                        toolbox: entry.toolbox(),
                    },
                )
            })
    }

    /// Who is calling, for hooks and middleware.
    pub(super) fn caller(session: &Session, era: &Era, info: &RequestInfo) -> Caller {
        Caller {
            transport: session.kind,
            session_id: session.id.clone(),
            client: match era {
                Era::Legacy(s) => Some((*s.client).clone()),
                Era::Modern(m) => m.client_info.clone(),
            },
            protocol_version: era.version(),
            headers: info.headers.clone(),
            identity: info.identity.clone(),
        }
    }

    /// Who calls, when the policy or an access token makes it matter
    /// (`Ok(None)` otherwise); `Err` when the tool is hidden from them.
    fn visible_to(
        &self,
        session: &Session,
        era: &Era,
        info: &RequestInfo,
        entry: &crate::tool::ToolEntry,
    ) -> Result<Option<Arc<Caller>>, Hidden> {
        let caller = (self.policy.wants_caller() || info.identity.is_some())
            .then(|| Arc::new(Self::caller(session, era, info)));
        match &caller {
            Some(c) if !self.tool_visible(c, entry) => Err(Hidden),
            _ => Ok(caller),
        }
    }

    fn tools_call(
        self: &Arc<Self>,
        session: &Arc<Session>,
        id: RequestId,
        raw: Option<RawJson<'_>>,
        out: &Arc<dyn Outbound>,
        info: &RequestInfo,
    ) -> Outcome {
        let read = CallToolParamsOpt::read(raw)
            .and_then(|p| Ok((era_for(session, &p, |p| raw_modern(p.meta.as_ref()))?, p)));
        let (mut era, p) = match read {
            Ok(read) => read,
            Err(e) => return failed(id, e),
        };
        let Some(name) = p.name else {
            return failed(id, ErrorObject::invalid_params("missing tool `name`"));
        };
        let registry = self.registry();
        let unknown = |id| {
            failed(
                id,
                ErrorObject::invalid_params(format!("unknown tool: {name}")),
            )
        };
        let Some(entry) = registry.get(&name) else {
            return unknown(id);
        };
        // A tool the caller may not see does not exist for it.
        let Ok(caller) = self.visible_to(session, &era, info, entry) else {
            return unknown(id);
        };
        let (log_level, client_capabilities, progress_token) =
            call_settings(&mut era, p.meta.as_ref());
        // A tool that only runs as a task needs the tasks extension.
        let task_only = [mcp_types::extension::TASKS];
        let extensions = if entry.task == crate::tool::TaskSupport::Required {
            &task_only[..]
        } else {
            entry.requires_extensions
        };
        if let Some(missing) =
            missing_capabilities(entry.requires_client, extensions, &client_capabilities)
        {
            return failed(
                id,
                missing_capability_error(&format!("tool `{name}`"), missing),
            );
        }
        let modern = matches!(era, Era::Modern(_));
        let as_task = Self::may_run_as_task(entry.task, &client_capabilities);
        let timeout = entry.timeout.or(self.policy.call_timeout);
        let plain = self.policy.middleware.is_empty() && timeout.is_none();
        let mut arguments = Args::from_text(p.arguments);
        // A tool that returns at once runs here, while a slot is free: it
        // holds none (it is done before anything else could take one), and
        // its context is made only if it takes one. It cannot wait for
        // input, so it needs no input rounds (2026-07-28).
        let new_context = |asker| {
            Context::new(ContextParts {
                request_id: id.clone(),
                progress_token: progress_token.clone(),
                log_level,
                out: Arc::clone(out),
                protocol_version: era.version(),
                client_capabilities: Arc::clone(&client_capabilities),
                server: Arc::clone(&self.handle) as _,
                asker,
                identity: info.identity.clone(),
            })
        };
        if plain && entry.is_sync() && self.policy.limits.has_room() {
            let make = || new_context(Self::session_asker(session, &era, out));
            match entry.call_now(arguments, &make) {
                Ok(result) => return Outcome::Reply(self.call_reply(id, result, modern)),
                Err(args) => arguments = args,
            }
        }
        let admission = match self.policy.limits.admit() {
            Ok(a) => a,
            Err(busy) => return failed(id, busy),
        };
        let retry = Retry {
            input_responses: p.input_responses.as_ref(),
            request_state: p.request_state.as_deref(),
        };
        let bound = (!entry.is_sync()).then_some((method::TOOLS_CALL, &*name, Bound::Params(raw)));
        let asker = match self.asker(session, &era, out, bound, &retry, info.identity.as_deref()) {
            Ok(a) => a,
            Err(e) => return failed(id, e),
        };
        let ctx = new_context(asker);
        match admission {
            // The common case, kept free of boxing: no middleware, no timeout, a slot at hand.
            Admission::Now(permit) if plain => {
                let call = AlwaysOk(entry.call(arguments.into_owned(), ctx.clone()));
                self.run_call(session, id, ctx, call, permit, modern, as_task)
            }
            admission => {
                let arguments = match arguments.into_object() {
                    Ok(arguments) => arguments,
                    Err(e) => return Outcome::Reply(self.call_reply(id, e.into_result(), modern)),
                };
                let call = ToolCall {
                    name: name.into_owned(),
                    arguments,
                    caller: caller.unwrap_or_else(|| Arc::new(Self::caller(session, &era, info))),
                    ctx: ctx.clone(),
                };
                let guarded = self.guarded_call(entry, call, admission, timeout);
                self.run_call(session, id, ctx, guarded, None, modern, as_task)
            }
        }
    }

    /// A call wrapped in the policy: middleware, a slot, a timeout.
    fn guarded_call(
        &self,
        entry: &crate::tool::ToolEntry,
        call: ToolCall,
        admission: Admission,
        timeout: Option<std::time::Duration>,
    ) -> BoxFuture<CallOutcome> {
        let name = call.name.clone();
        let entry = entry.clone();
        let middleware = self.policy.middleware.clone();
        Box::pin(async move {
            let _permit = match admission {
                Admission::Now(permit) => permit,
                Admission::Wait(running, waiting) => {
                    let permit = running.acquire_owned().await.ok();
                    drop(waiting);
                    permit
                }
            };
            // Nothing of the tool or its layers runs before it has a slot,
            // nor after its call was cancelled while it waited.
            if call.ctx.is_cancelled() {
                return Ok(mcp_types::CallToolResult::error("cancelled"));
            }
            let chain: BoxFuture<CallOutcome> = if middleware.is_empty() {
                let fut = entry.call(Args::new(Some(call.arguments)), call.ctx);
                Box::pin(async move { Ok(fut.await) })
            } else {
                Next::new(middleware.into(), entry).run(call)
            };
            match timeout {
                None => chain.await,
                Some(limit) => match tokio::time::timeout(limit, chain).await {
                    Ok(outcome) => outcome,
                    // The tool's future is dropped: that stops it.
                    Err(_) => Ok(mcp_types::CallToolResult::error(format!(
                        "tool `{name}` timed out after {} ms",
                        limit.as_millis()
                    ))),
                },
            }
        })
    }

    /// Polls a call once in place and answers at once if it is done (most
    /// tools never wait); otherwise registers it for cancellation and hands it
    /// to the transport to run, or (`as_task`) runs it as a task. A spawned
    /// future is polled again straight away, which replaces the no-op waker
    /// this poll may have left behind.
    #[allow(clippy::too_many_arguments)]
    fn run_call<F>(
        self: &Arc<Self>,
        session: &Arc<Session>,
        id: RequestId,
        ctx: Context,
        mut call: F,
        permit: Option<tokio::sync::OwnedSemaphorePermit>,
        modern: bool,
        as_task: bool,
    ) -> Outcome
    where
        F: std::future::Future<Output = CallOutcome> + Unpin + Send + 'static,
    {
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        // Outside tokio's cooperative budget, which a connection serving a
        // burst of lines in one go would otherwise exhaust: a tool that can
        // finish at once (an uncontended lock) then does, and its reply
        // keeps its place in the output.
        let mut unconstrained = tokio::task::unconstrained(&mut call);
        let first = std::future::Future::poll(std::pin::Pin::new(&mut unconstrained), &mut cx);
        if let std::task::Poll::Ready(outcome) = first {
            return self.call_outcome(id, outcome, modern);
        }
        // Waiting for input it asked for: the answer is an input round.
        let rounds = rounds_of(&ctx);
        if let Some(r) = rounds.as_ref().filter(|r| r.has_requests()) {
            return Outcome::Reply(self.input_required(id, r));
        }
        if as_task {
            return self.start_task(id, ctx, call, permit, rounds);
        }
        lock(&session.inflight).insert(id.clone(), ctx.clone());
        let core = Arc::clone(self);
        let session = Arc::clone(session);
        Outcome::Spawn(Box::pin(async move {
            let _permit = permit;
            let outcome = tokio::select! {
                r = call => Some(Ok(r)),
                () = ctx.cancelled() => None,
                () = input_needed(rounds.as_ref()) => Some(Err(())),
            };
            lock(&session.inflight).remove(&id);
            // A cancelled request gets no response, even if the tool returned
            // on seeing the cancellation (spec: cancellation utility).
            let outcome = outcome.filter(|_| !ctx.is_cancelled())?;
            let outcome = match (outcome, &rounds) {
                (Ok(outcome), _) => outcome,
                (Err(()), Some(r)) => return Some(core.input_required(id, r)),
                (Err(()), None) => return None,
            };
            match core.call_outcome(id, outcome, modern) {
                Outcome::Reply(bytes) | Outcome::Failed { bytes, .. } => Some(bytes),
                Outcome::Spawn(_) | Outcome::Nothing => None,
            }
        }))
    }

    fn call_outcome(&self, id: RequestId, outcome: CallOutcome, modern: bool) -> Outcome {
        match outcome {
            Ok(result) => Outcome::Reply(self.call_reply(id, result, modern)),
            Err(e) => failed(id, e),
        }
    }

    fn call_reply(
        &self,
        id: RequestId,
        mut result: mcp_types::CallToolResult,
        modern: bool,
    ) -> Vec<u8> {
        if !modern {
            return plain_text_reply(&id, &result, false, 0)
                .unwrap_or_else(|| encode(&Response::new(id, result)));
        }
        if result.meta.is_none() {
            let meta = &self.server_info_meta_json;
            if let Some(mut bytes) = plain_text_reply(&id, &result, true, meta.len() + 16) {
                splice_meta(&mut bytes, &self.server_info_meta_json);
                return bytes;
            }
        }
        result.result_type = Some(ResultType::Complete);
        if let Some(meta) = &mut result.meta {
            // The tool set its own `_meta`: add the server's identity to it.
            for (k, v) in &self.server_info_meta {
                meta.entry(k.clone()).or_insert_with(|| v.clone());
            }
            return encode(&Response::new(id, result));
        }
        // Splice the pre-serialized `_meta` into the result object instead
        // of building and serializing it for every call.
        let mut bytes = encode(&Response::new(id, result));
        splice_meta(&mut bytes, &self.server_info_meta_json);
        bytes
    }
}

/// A call's log level, the client's capabilities and the progress token, as
/// its era gives them (the modern ones are taken: the caller built from the
/// era afterwards needs only the client's name and the version).
fn call_settings(
    era: &mut Era,
    meta: Option<&RawRequestMeta<'_>>,
) -> (
    Option<LoggingLevel>,
    Arc<ClientCapabilities>,
    Option<mcp_types::notification::ProgressToken>,
) {
    match era {
        Era::Legacy(s) => (
            Some(s.log_level.unwrap_or(LoggingLevel::Info)),
            Arc::clone(&s.client_capabilities),
            meta.and_then(RawRequestMeta::progress_token),
        ),
        Era::Modern(m) => (
            m.log_level,
            Arc::new(std::mem::take(&mut m.client_capabilities)),
            m.progress_token.take(),
        ),
    }
}

/// Adds `"_meta": meta` as the last member of a response's result object.
fn splice_meta(bytes: &mut Vec<u8>, meta: &[u8]) {
    if bytes.ends_with(b"}}") {
        bytes.truncate(bytes.len() - 2);
        bytes.extend_from_slice(b",\"_meta\":");
        bytes.extend_from_slice(meta);
        bytes.extend_from_slice(b"}}");
    }
}

/// The response to a call whose result is one plain text block (the
/// commonest result), written directly: the same bytes serde writes for
/// [`Response`] of that [`mcp_types::CallToolResult`] (with `resultType:
/// "complete"` when `modern`), without its generic machinery. `None` for any
/// other result. `room` is what the caller will add.
fn plain_text_reply(
    id: &RequestId,
    result: &mcp_types::CallToolResult,
    modern: bool,
    room: usize,
) -> Option<Vec<u8>> {
    let [ContentBlock::Text(text)] = result.content.as_slice() else {
        return None;
    };
    if text.annotations.is_some()
        || text.meta.is_some()
        || result.structured_content.is_some()
        || result.result_type.is_some()
        || result.meta.is_some()
    {
        return None;
    }
    let mut out = Vec::with_capacity(96 + text.text.len() + room);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    serde_json::to_writer(&mut out, id).ok()?;
    out.extend_from_slice(br#","result":{"content":[{"type":"text","text":"#);
    serde_json::to_writer(&mut out, &text.text).ok()?;
    out.extend_from_slice(b"}]");
    match result.is_error {
        Some(true) => out.extend_from_slice(br#","isError":true"#),
        Some(false) => out.extend_from_slice(br#","isError":false"#),
        None => {}
    }
    if modern {
        out.extend_from_slice(br#","resultType":"complete""#);
    }
    out.extend_from_slice(b"}}");
    Some(out)
}

#[cfg(test)]
mod tests {
    use mcp_types::{CallToolResult, ContentBlock, RequestId};

    use super::{plain_text_reply, CallToolParamsOpt};
    use crate::dispatch::encode;
    use mcp_types::jsonrpc::RawJson;
    use mcp_types::jsonrpc::Response;
    use mcp_types::ResultType;

    /// The direct writer and serde agree byte for byte, and it declines
    /// every result it does not write.
    #[test]
    fn plain_text_replies_match_serde() {
        let ids = [RequestId::Number(7), RequestId::String("a\"b\u{e9}".into())];
        let texts = [
            "3",
            "",
            "quote \" backslash \\ newline \n tab \t nul \u{0} é 😀",
        ];
        for id in &ids {
            for text in texts {
                for is_error in [None, Some(false), Some(true)] {
                    for modern in [false, true] {
                        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
                        result.is_error = is_error;
                        let direct = plain_text_reply(id, &result, modern, 0).unwrap();
                        if modern {
                            result.result_type = Some(ResultType::Complete);
                        }
                        assert_eq!(
                            String::from_utf8(direct).unwrap(),
                            String::from_utf8(encode(&Response::new(id.clone(), result))).unwrap()
                        );
                    }
                }
            }
        }
        let id = RequestId::Number(1);
        let two = CallToolResult::success(vec![ContentBlock::text("a"), ContentBlock::text("b")]);
        assert!(plain_text_reply(&id, &two, false, 0).is_none());
        let mut structured = CallToolResult::success(vec![ContentBlock::text("a")]);
        structured.structured_content = Some(serde_json::json!({"x": 1}));
        assert!(plain_text_reply(&id, &structured, false, 0).is_none());
        let mut meta = CallToolResult::success(vec![ContentBlock::text("a")]);
        meta.meta = Some(mcp_types::Meta::default());
        assert!(plain_text_reply(&id, &meta, false, 0).is_none());
        assert!(plain_text_reply(&id, &CallToolResult::success(vec![]), false, 0).is_none());
    }

    /// The scanned params are what serde reads, over a corpus and every
    /// one-byte change of it.
    #[test]
    fn scanned_call_params_match_serde() {
        let corpus = [
            r#"{"name":"add","arguments":{"a":1,"b":[2,{"c":"d"}]}}"#,
            r#"{"arguments":null,"name":"x y","_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
            r#"{"name":"t","requestState":"s","inputResponses":{"k":{"action":"accept"}},"other":[1]}"#,
            r#"{"name":null,"requestState":null,"arguments":{}}"#,
        ];
        let mut taken = 0;
        for text in corpus {
            assert!(CallToolParamsOpt::scan(RawJson::from(&*raw(text))).is_some());
            for at in 0..=text.len() {
                for b in (0u8..=0x7f).chain([b' ']) {
                    let mut changed = text.as_bytes().to_vec();
                    if at == text.len() {
                        changed.push(b);
                    } else {
                        changed[at] = b;
                    }
                    let Ok(t) = String::from_utf8(changed) else {
                        continue;
                    };
                    let Ok(r) = serde_json::value::RawValue::from_string(t.clone()) else {
                        continue;
                    };
                    if let Some(fast) = CallToolParamsOpt::scan(RawJson::from(&*r)) {
                        taken += 1;
                        let slow: CallToolParamsOpt<'_> = serde_json::from_str(&t)
                            .unwrap_or_else(|e| panic!("{t}: scanned, but serde says {e}"));
                        assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{t}");
                    }
                }
            }
        }
        assert!(taken > 500, "{taken}");
        // Left to serde: a repeated member, an escaped name, arguments that
        // are not an object.
        for text in [
            r#"{"name":"a","name":"b"}"#,
            r#"{"name":"\u0061"}"#,
            r#"{"name":"a","arguments":[1]}"#,
            r#"{"name":7}"#,
        ] {
            assert!(
                CallToolParamsOpt::scan(RawJson::from(&*raw(text))).is_none(),
                "{text}"
            );
        }
    }

    fn raw(text: &str) -> Box<serde_json::value::RawValue> {
        serde_json::value::RawValue::from_string(text.to_owned()).unwrap()
    }
}

/// -32021 with `data.requiredCapabilities`, as 2026-07-28 defines it;
/// `what` needs them (``tool `add` ``, `` `tasks/get` ``).
pub(super) fn missing_capability_error(what: &str, missing: mcp_types::JsonObject) -> ErrorObject {
    let names: Vec<String> = missing
        .iter()
        .flat_map(|(name, value)| match (name.as_str(), value) {
            ("extensions", Value::Object(ids)) => ids.keys().cloned().collect(),
            _ => vec![name.clone()],
        })
        .collect();
    let message =
        format!("{what} needs the client capabilities {names:?}, which the client did not declare");
    let mut data = mcp_types::JsonObject::new();
    data.insert("requiredCapabilities".into(), Value::Object(missing));
    ErrorObject::new(code::MISSING_REQUIRED_CLIENT_CAPABILITY, message)
        .with_data(Value::Object(data))
}

/// The capabilities in `required` that `declared` lacks, as a
/// `ClientCapabilities`-shaped object (`{"sampling": {}}`), or `None`.
fn missing_capabilities(
    required: &[&str],
    extensions: &[&str],
    declared: &ClientCapabilities,
) -> Option<mcp_types::JsonObject> {
    if required.is_empty() && extensions.is_empty() {
        return None;
    }
    let empty = || Value::Object(mcp_types::JsonObject::new());
    let as_json = serde_json::to_value(declared).unwrap_or(Value::Null);
    let mut missing: mcp_types::JsonObject = required
        .iter()
        .filter(|name| as_json.get(**name).is_none())
        .map(|name| ((*name).to_owned(), empty()))
        .collect();
    let lacked: mcp_types::JsonObject = extensions
        .iter()
        .filter(|id| declared.extension(id).is_none())
        .map(|id| ((*id).to_owned(), empty()))
        .collect();
    if !lacked.is_empty() {
        missing.insert("extensions".to_owned(), Value::Object(lacked));
    }
    (!missing.is_empty()).then_some(missing)
}

/// `tools/call` params read leniently first, so a missing `name` is a clear
/// -32602; the arguments stay JSON text until the tool takes them.
#[derive(serde::Deserialize, Default, Debug)]
struct CallToolParamsOpt<'a> {
    #[serde(default, borrow)]
    name: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    arguments: Option<TextArgs<'a>>,
    #[serde(rename = "_meta", default, borrow)]
    meta: Option<RawRequestMeta<'a>>,
    /// 2026-07-28 input rounds: the answers, and the state of earlier rounds.
    #[serde(rename = "inputResponses", default)]
    input_responses: Option<Value>,
    #[serde(rename = "requestState", default, borrow)]
    request_state: Option<std::borrow::Cow<'a, str>>,
}

impl<'a> CallToolParamsOpt<'a> {
    /// The params, by the scanner when it reads them, else by serde.
    fn read(raw: Option<RawJson<'a>>) -> Result<Self, ErrorObject> {
        match raw.and_then(Self::scan) {
            Some(p) => Ok(p),
            None => params::<CallToolParamsOpt<'_>>(raw),
        }
    }

    /// The fast path: params whose members the scanner reads and that are
    /// plainly what serde would make of them. `None` leaves them to serde,
    /// which reads the same params and names every error.
    fn scan(raw: RawJson<'a>) -> Option<Self> {
        let mut p = CallToolParamsOpt::default();
        let mut seen = [false; 5];
        let mut plain = true;
        raw.members(|key, value| {
            let (slot, ok) = match key {
                "name" => (0, set_str(&mut p.name, value)),
                "arguments" => (1, set_arguments(&mut p.arguments, value)),
                "_meta" => (2, set_meta(&mut p.meta, value)),
                "inputResponses" => (3, set_parsed(&mut p.input_responses, value)),
                "requestState" => (4, set_str(&mut p.request_state, value)),
                _ => return,
            };
            // A repeated member is an error serde names.
            plain &= ok && !std::mem::replace(&mut seen[slot], true);
        })?;
        plain.then_some(p)
    }
}

/// A string member without escapes (or `null`); `false` for anything else.
fn set_str<'a>(slot: &mut Option<std::borrow::Cow<'a, str>>, value: RawJson<'a>) -> bool {
    if value.get() == "null" {
        return true;
    }
    match value.as_plain_str() {
        Some(text) => {
            *slot = Some(std::borrow::Cow::Borrowed(text));
            true
        }
        None => false,
    }
}

/// The `arguments` object (or `null`), its members read in place.
fn set_arguments<'a>(slot: &mut Option<TextArgs<'a>>, value: RawJson<'a>) -> bool {
    if value.get() == "null" {
        return true;
    }
    *slot = TextArgs::scan(value);
    slot.is_some()
}

/// `_meta` (or `null`), its protocol fields kept as text.
fn set_meta<'a>(slot: &mut Option<RawRequestMeta<'a>>, value: RawJson<'a>) -> bool {
    if value.get() == "null" {
        return true;
    }
    *slot = RawRequestMeta::scan(value);
    slot.is_some()
}

/// A member serde reads by itself; `false` when it cannot.
fn set_parsed<'a, T: serde::Deserialize<'a>>(slot: &mut Option<T>, value: RawJson<'a>) -> bool {
    match serde_json::from_str(value.get()) {
        Ok(v) => {
            *slot = v;
            true
        }
        Err(_) => false,
    }
}
