//! `tools/call` in three steps: [`resolve`](Tools::resolve) (the
//! params, the tool, whether this caller may see and call it),
//! [`prepare`](Tools::prepare) (its context, a slot, what it may ask
//! the client) and [`run`](Tools::run) (at once when it can, else
//! spawned or as a task), with the policy around a call (middleware,
//! timeout) in [`guarded_call`](Tools::guarded_call).

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use oxmcp_types::jsonrpc::code;
use oxmcp_types::modern::RawRequestMeta;
use oxmcp_types::notification::ProgressToken;
use oxmcp_types::{method, ClientCapabilities, ErrorObject, LoggingLevel, RequestId};
use oxmcp_wire::sync::lock;
use serde_json::Value;

use super::params::CallParams;
use super::reply::{answer_call, call_reply};
use super::Tools;
use crate::common::BoxFuture;
use crate::context::{Context, ContextParts};
use crate::dispatch::admission::Admission;
use crate::dispatch::era::{era_for, raw_modern, Era};
use crate::dispatch::rounds::{input_needed, rounds_of, Bound, Retry};
use crate::dispatch::session::Session;
use crate::dispatch::tasks::TaskOwner;
use crate::dispatch::tasks::Tasks;
use crate::dispatch::{failed, Outcome, Request, RequestInfo, ServerCore};
use crate::policy::{CallOutcome, Caller};
use crate::registry::Registry;
use crate::tool::service::call_through;
use crate::tool::ToolRequest;
use crate::tool::{Args, TaskSupport, ToolEntry};

/// What [`Tools::resolve`] found: the call's params and era, its tool,
/// and who calls when that matters.
struct Resolved<'r, 'p> {
    params: CallParams<'p>,
    name: Cow<'p, str>,
    era: Era,
    entry: &'r ToolEntry,
    caller: Option<Arc<Caller>>,
    settings: Settings,
}

/// What the call's context carries from its era.
struct Settings {
    log_level: Option<LoggingLevel>,
    client_capabilities: Arc<ClientCapabilities>,
    progress_token: Option<ProgressToken>,
}

/// A call [`Tools::prepare`] made ready to run.
struct Ready<'r, 'p> {
    session: &'p Arc<Session>,
    info: &'p RequestInfo,
    id: RequestId,
    name: Cow<'p, str>,
    era: Era,
    entry: &'r ToolEntry,
    caller: Option<Arc<Caller>>,
    ctx: Context,
    arguments: Args<'p>,
    admission: Admission,
    /// No middleware and no timeout: nothing to wrap the call in.
    plain: bool,
    timeout: Option<Duration>,
    modern: bool,
    as_task: bool,
}

impl Tools {
    pub(super) fn call(&self, core: &Arc<ServerCore>, req: Request<'_>) -> Outcome {
        let registry = self.registry();
        let call = match self.resolve(core, &req, &registry) {
            Ok(call) => call,
            Err(e) => return failed(req.id, e),
        };
        match self.prepare(core, req, call) {
            Ok(ready) => self.run(core, ready),
            Err(answered) => answered,
        }
    }

    /// Step one: reads the params, finds the tool, and checks that the
    /// caller may see it (a tool it may not see does not exist for it) and
    /// declared what it needs.
    fn resolve<'r, 'p>(
        &self,
        core: &ServerCore,
        req: &Request<'p>,
        registry: &'r Registry<ToolEntry>,
    ) -> Result<Resolved<'r, 'p>, ErrorObject> {
        let mut params = CallParams::read(req.params)?;
        let mut era = era_for(req.session, &params, |p| raw_modern(p.meta.as_ref()))?;
        let name = params
            .name
            .take()
            .ok_or_else(|| ErrorObject::invalid_params("missing tool `name`"))?;
        let unknown = || ErrorObject::invalid_params(format!("unknown tool: {name}"));
        let entry = registry.get(&name).ok_or_else(unknown)?;
        let caller = self
            .visible_to(core, req.session, &era, req.info, entry)
            .map_err(|_| unknown())?;
        let settings = call_settings(&mut era, params.meta.as_ref());
        // A tool that only runs as a task needs the tasks extension.
        let task_only = [oxmcp_types::extension::TASKS];
        let extensions = if entry.task == TaskSupport::Required {
            &task_only[..]
        } else {
            entry.requires_extensions
        };
        if let Some(missing) = missing_capabilities(
            entry.requires_client,
            extensions,
            &settings.client_capabilities,
        ) {
            return Err(missing_capability_error(&format!("tool `{name}`"), missing));
        }
        Ok(Resolved {
            params,
            name,
            era,
            entry,
            caller,
            settings,
        })
    }

    /// Step two: a tool that returns at once runs here, while a slot is
    /// free: it holds none (it is done before anything else could take one),
    /// and its context is made only if it takes one; it cannot wait for
    /// input, so it needs no input rounds (2026-07-28). Any other call gets
    /// its slot (or waits for one), what it may ask the client, and its
    /// context. `Err` is the answer already made.
    fn prepare<'r, 'p>(
        &self,
        core: &Arc<ServerCore>,
        req: Request<'p>,
        call: Resolved<'r, 'p>,
    ) -> Result<Ready<'r, 'p>, Outcome> {
        let Request {
            session,
            id,
            params: raw,
            out,
            info,
            ..
        } = req;
        let Resolved {
            params,
            name,
            era,
            entry,
            caller,
            settings,
        } = call;
        let modern = matches!(era, Era::Modern(_));
        let as_task = Tasks::may_run_as_task(entry.task, &settings.client_capabilities);
        let timeout = entry.timeout.or(self.call_timeout);
        let plain = self.service.is_none() && timeout.is_none();
        let mut arguments = Args::from_text(params.arguments);
        // A tool that keeps whole results keeps them for whom the call
        // speaks for (none when nothing tells callers apart).
        let keeper = entry.keep_full.and_then(|ttl| {
            let owner = match &caller {
                Some(caller) => caller.owner(None),
                None => ServerCore::caller(session, &era, info).owner(None),
            }?;
            Some(crate::kept::Keeper {
                results: Arc::clone(&core.kept),
                owner,
                ttl,
            })
        });
        let new_context = |asker| {
            Context::new(ContextParts {
                request_id: id.clone(),
                progress_token: settings.progress_token.clone(),
                log_level: settings.log_level,
                out: Arc::clone(out),
                protocol_version: era.version(),
                client_capabilities: Arc::clone(&settings.client_capabilities),
                server: Arc::clone(&core.handle) as _,
                asker,
                identity: info.identity.clone(),
                max_result_chars: entry.max_result_chars(),
                keeper: keeper.clone(),
                caller: caller.clone().map(|c| c as _),
            })
        };
        if plain && entry.is_sync() && self.limits.has_room() {
            let make = || new_context(ServerCore::session_asker(session, &era, out));
            match entry.call_now(arguments, &make) {
                Ok(result) => return Err(Outcome::Reply(call_reply(core, id, result, modern))),
                Err(args) => arguments = args,
            }
        }
        let admission = match self.limits.admit() {
            Ok(a) => a,
            Err(busy) => return Err(failed(id, busy)),
        };
        let retry = Retry {
            input_responses: params.input_responses.as_ref(),
            request_state: params.request_state.as_deref(),
        };
        let bound = (!entry.is_sync()).then_some((method::TOOLS_CALL, &*name, Bound::Params(raw)));
        let asker = match core.asker(session, &era, out, bound, &retry, info.identity.as_deref()) {
            Ok(a) => a,
            Err(e) => return Err(failed(id, e)),
        };
        let ctx = new_context(asker);
        Ok(Ready {
            session,
            info,
            id,
            name,
            era,
            entry,
            caller,
            ctx,
            arguments,
            admission,
            plain,
            timeout,
            modern,
            as_task,
        })
    }

    /// Step three: the call as it is when nothing wraps it and a slot is at
    /// hand (the common case, kept free of boxing), else in the policy's
    /// layers; either is then run by [`run_call`].
    fn run(&self, core: &Arc<ServerCore>, call: Ready<'_, '_>) -> Outcome {
        let Ready {
            session,
            info,
            id,
            ctx,
            modern,
            as_task,
            ..
        } = call;
        // A task belongs to whom the call speaks for.
        let as_task = as_task.then(|| TaskOwner::of(session, info));
        match call.admission {
            Admission::Now(permit) if call.plain => {
                let run = AlwaysOk(call.entry.call(call.arguments.into_owned(), ctx.clone()));
                run_call(core, session, id, ctx, run, permit, modern, as_task)
            }
            admission => {
                let arguments = match call.arguments.into_object() {
                    Ok(arguments) => arguments,
                    Err(e) => return Outcome::Reply(call_reply(core, id, e.into_result(), modern)),
                };
                let era = &call.era;
                let caller = call
                    .caller
                    .unwrap_or_else(|| Arc::new(ServerCore::caller(session, era, info)));
                let tool_call = ToolRequest::new(
                    call.entry.clone(),
                    call.name.into_owned(),
                    arguments,
                    caller,
                    ctx.clone(),
                );
                let guarded = self.guarded_call(tool_call, admission, call.timeout);
                run_call(core, session, id, ctx, guarded, None, modern, as_task)
            }
        }
    }

    /// A call wrapped in the policy: its layers, a slot, a timeout.
    fn guarded_call(
        &self,
        call: ToolRequest,
        admission: Admission,
        timeout: Option<Duration>,
    ) -> BoxFuture<'static, CallOutcome> {
        let name = call.name.clone();
        let service = self.service.clone();
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
                return Ok(oxmcp_types::CallToolResult::error("cancelled"));
            }
            let chain: BoxFuture<'static, CallOutcome> = if let Some(service) = &service {
                call_through(service, call)
            } else {
                let run = call.run_plain();
                Box::pin(async move { Ok(run.await) })
            };
            match timeout {
                None => chain.await,
                Some(limit) => match tokio::time::timeout(limit, chain).await {
                    Ok(outcome) => outcome,
                    // The tool's future is dropped: that stops it.
                    Err(_) => Ok(oxmcp_types::CallToolResult::error(format!(
                        "tool `{name}` timed out after {} ms",
                        limit.as_millis()
                    ))),
                },
            }
        })
    }
}

/// Polls a call once in place and answers at once if it is done (most
/// tools never wait); otherwise registers it for cancellation and hands it
/// to the transport to run, or (`as_task`) runs it as a task of that owner. A spawned
/// future is polled again straight away, which replaces the no-op waker
/// this poll may have left behind.
#[allow(clippy::too_many_arguments)]
fn run_call<F>(
    core: &Arc<ServerCore>,
    session: &Arc<Session>,
    id: RequestId,
    ctx: Context,
    mut call: F,
    permit: Option<tokio::sync::OwnedSemaphorePermit>,
    modern: bool,
    as_task: Option<TaskOwner>,
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
        return answer_call(core, id, outcome, modern);
    }
    // Boxed only now that it waits: one copy of the rest for every kind of call.
    run_pending(
        core,
        session,
        id,
        ctx,
        Box::pin(call),
        permit,
        modern,
        as_task,
    )
}

/// [`run_call`] for a call that did not finish at its first poll.
#[allow(clippy::too_many_arguments)]
fn run_pending(
    core: &Arc<ServerCore>,
    session: &Arc<Session>,
    id: RequestId,
    ctx: Context,
    call: BoxFuture<'static, CallOutcome>,
    permit: Option<tokio::sync::OwnedSemaphorePermit>,
    modern: bool,
    as_task: Option<TaskOwner>,
) -> Outcome {
    // Waiting for input it asked for: the answer is an input round.
    let rounds = rounds_of(&ctx);
    if let Some(r) = rounds.as_ref().filter(|r| r.has_requests()) {
        return Outcome::Reply(core.input_required(id, r));
    }
    if let Some(owner) = as_task {
        return core.tasks.start(core, id, ctx, call, permit, rounds, owner);
    }
    lock(&session.inflight).insert(id.clone(), ctx.clone());
    let core = Arc::clone(core);
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
        match answer_call(&core, id, outcome, modern) {
            Outcome::Reply(bytes) | Outcome::Failed { bytes, .. } => Some(bytes),
            Outcome::Spawn(_) | Outcome::Nothing => None,
        }
    }))
}

/// A call's result as an `Ok` outcome, keeping the future `Unpin` (see
/// `run_call`).
struct AlwaysOk<F>(F);

impl<F: std::future::Future<Output = oxmcp_types::CallToolResult> + Unpin> std::future::Future
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

/// A call's log level, the client's capabilities and the progress token, as
/// its era gives them (the modern ones are taken: the caller built from the
/// era afterwards needs only the client's name and the version).
fn call_settings(era: &mut Era, meta: Option<&RawRequestMeta<'_>>) -> Settings {
    match era {
        Era::Legacy(s) => Settings {
            log_level: Some(s.log_level.unwrap_or(LoggingLevel::Info)),
            client_capabilities: Arc::clone(&s.client_capabilities),
            progress_token: meta.and_then(RawRequestMeta::progress_token),
        },
        Era::Modern(m) => Settings {
            log_level: m.log_level,
            client_capabilities: Arc::new(std::mem::take(&mut m.client_capabilities)),
            progress_token: m.progress_token.take(),
        },
    }
}

/// -32021 with `data.requiredCapabilities`, as 2026-07-28 defines it;
/// `what` needs them (``tool `add` ``, `` `tasks/get` ``).
pub(in crate::dispatch) fn missing_capability_error(
    what: &str,
    missing: oxmcp_types::JsonObject,
) -> ErrorObject {
    let names: Vec<String> = missing
        .iter()
        .flat_map(|(name, value)| match (name.as_str(), value) {
            ("extensions", Value::Object(ids)) => ids.keys().cloned().collect(),
            _ => vec![name.clone()],
        })
        .collect();
    let message =
        format!("{what} needs the client capabilities {names:?}, which the client did not declare");
    let mut data = oxmcp_types::JsonObject::new();
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
) -> Option<oxmcp_types::JsonObject> {
    if required.is_empty() && extensions.is_empty() {
        return None;
    }
    let empty = || Value::Object(oxmcp_types::JsonObject::new());
    let as_json = serde_json::to_value(declared).unwrap_or(Value::Null);
    let mut missing = oxmcp_types::JsonObject::new();
    for name in required.iter().filter(|name| as_json.get(**name).is_none()) {
        missing.insert((*name).to_owned(), empty());
    }
    let mut lacked = oxmcp_types::JsonObject::new();
    for id in extensions
        .iter()
        .filter(|id| declared.extension(id).is_none())
    {
        lacked.insert((*id).to_owned(), empty());
    }
    if !lacked.is_empty() {
        missing.insert("extensions".to_owned(), Value::Object(lacked));
    }
    (!missing.is_empty()).then_some(missing)
}
