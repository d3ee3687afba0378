//! A tool call as a tower [`Service`]: what
//! [`ServerBuilder::layer`](crate::ServerBuilder::layer) wraps.
//!
//! The innermost service runs the tool; each layer added to the builder
//! wraps what is inside it, the first added outermost, as
//! `tower::ServiceBuilder` stacks them. The stack is built once, when the
//! server is; a server without layers calls its tools directly, without it.
//!
//! A layer's error never drops the reply: a [`ErrorObject`] is answered as
//! that JSON-RPC error (a refusal), anything else as an `isError` result
//! naming the tool and what stopped it ([`outcome_of_error`]).

use std::fmt;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};

use oxmcp_types::{CallToolResult, ErrorObject, JsonObject};
use tower::util::BoxCloneSyncService;
use tower::{BoxError, Layer, Service, ServiceExt};

use crate::common::BoxFuture;
use crate::context::Context;
use crate::policy::{CallOutcome, Caller};
use crate::tool::{Args, CallFuture, ToolEntry};

/// One tool call on its way through the layers: a layer may read and
/// rewrite its name and arguments, look at who calls, and report through
/// its context.
#[derive(Debug)]
pub struct ToolRequest {
    /// The tool's name.
    pub name: String,
    /// The arguments.
    pub arguments: JsonObject,
    /// Who is calling.
    pub caller: Arc<Caller>,
    /// The call's context (progress, logging, cancellation).
    pub ctx: Context,
    /// The tool the call resolved to (renaming the call does not change it).
    entry: ToolEntry,
}

impl ToolRequest {
    pub(crate) fn new(
        entry: ToolEntry,
        name: String,
        arguments: JsonObject,
        caller: Arc<Caller>,
        ctx: Context,
    ) -> Self {
        ToolRequest {
            name,
            arguments,
            caller,
            ctx,
            entry,
        }
    }

    /// The tool the call resolved to.
    pub(crate) fn entry(&self) -> &ToolEntry {
        &self.entry
    }

    /// Runs the tool with the request's arguments (what the bottom of the
    /// stack does, and a call without layers).
    pub(crate) fn run_plain(self) -> CallFuture {
        self.entry.call(Args::new(Some(self.arguments)), self.ctx)
    }
}

/// The tool-call service every layer wraps, type-erased: a [`ToolRequest`]
/// in, the tool's result out, or the error a layer raised.
pub type ToolService = BoxCloneSyncService<ToolRequest, CallToolResult, BoxError>;

/// The service at the bottom of the stack: runs the tool.
#[derive(Debug, Clone, Copy)]
struct RunTool;

impl Service<ToolRequest> for RunTool {
    type Response = CallToolResult;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<CallToolResult, BoxError>>;

    fn poll_ready(&mut self, _: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: ToolRequest) -> Self::Future {
        let call = req.run_plain();
        Box::pin(async move { Ok(call.await) })
    }
}

/// One layer as the builder keeps it: a function from the service inside
/// to the service with the layer around it.
type Wrap = Arc<dyn Fn(ToolService) -> ToolService + Send + Sync>;

/// The layers added to a builder, outermost first.
#[derive(Clone, Default)]
pub(crate) struct ToolLayers {
    layers: Vec<Wrap>,
}

impl fmt::Debug for ToolLayers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolLayers")
            .field("layers", &self.layers.len())
            .finish()
    }
}

impl ToolLayers {
    /// Adds `layer` inside those added before.
    pub(crate) fn push<L>(&mut self, layer: L)
    where
        L: Layer<ToolService> + Send + Sync + 'static,
        L::Service: Service<ToolRequest, Response = CallToolResult> + Clone + Send + Sync + 'static,
        <L::Service as Service<ToolRequest>>::Error: Into<BoxError>,
        <L::Service as Service<ToolRequest>>::Future: Send + 'static,
    {
        self.layers.push(Arc::new(move |inner| {
            BoxCloneSyncService::new(layer.layer(inner).map_err(Into::into))
        }));
    }

    /// The whole stack around the tool, or `None` without layers.
    pub(crate) fn build(&self) -> Option<ToolService> {
        if self.layers.is_empty() {
            return None;
        }
        let innermost = ToolService::new(RunTool);
        Some(
            self.layers
                .iter()
                .rev()
                .fold(innermost, |inner, wrap| wrap(inner)),
        )
    }
}

/// Runs `req` through `service` (a clone of it, as tower's `oneshot` takes
/// one), turning a layer's error into the call's outcome.
pub(crate) fn call_through(
    service: &ToolService,
    req: ToolRequest,
) -> BoxFuture<'static, CallOutcome> {
    let name = req.name.clone();
    let call = service.clone().oneshot(req);
    Box::pin(async move { call.await.or_else(|e| outcome_of_error(&name, e)) })
}

/// What the client gets when a layer fails the call of tool `name`: the
/// JSON-RPC error a layer refused it with ([`ErrorObject`]), else an
/// `isError` result saying which limit stopped it (tower's timeout and
/// load-shed errors by name, any other error by its message).
pub(crate) fn outcome_of_error(name: &str, error: BoxError) -> CallOutcome {
    let error = match error.downcast::<ErrorObject>() {
        Ok(refusal) => return Err(*refusal),
        Err(other) => other,
    };
    let text = if error.is::<tower::timeout::error::Elapsed>() {
        format!("tool `{name}` timed out: it ran past the time limit of a timeout layer")
    } else if error.is::<tower::load_shed::error::Overloaded>() {
        format!(
            "tool `{name}` was not run: the server is at its limit of concurrent tool calls \
             (load shedding); retry later"
        )
    } else {
        format!("tool `{name}` was stopped by a layer: {error}")
    };
    Ok(CallToolResult::error(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_stays_a_json_rpc_error_and_other_errors_become_results() {
        let refused = outcome_of_error("add", Box::new(ErrorObject::invalid_params("no")));
        assert_eq!(
            refused.unwrap_err().code,
            ErrorObject::invalid_params("").code
        );
        let elapsed = outcome_of_error("add", Box::new(tower::timeout::error::Elapsed::new()));
        let elapsed = elapsed.unwrap();
        assert!(elapsed.is_error());
        assert!(format!("{elapsed:?}").contains("tool `add` timed out"));
        let shed = outcome_of_error("add", Box::new(tower::load_shed::error::Overloaded::new()));
        assert!(format!("{:?}", shed.unwrap()).contains("load shedding"));
        let other = outcome_of_error("add", "quota spent".into()).unwrap();
        assert!(format!("{other:?}").contains("stopped by a layer: quota spent"));
    }
}
