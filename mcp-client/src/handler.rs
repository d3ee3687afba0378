//! Handlers for what a server asks of the client: sampling, elicitation and
//! roots (server→client requests in the legacy era, `input_required` rounds
//! in the modern one).

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use oxmcp_types::call::BoxFuture;
use oxmcp_types::{method, ClientCapabilities, ErrorObject, JsonObject};
use oxmcp_wire::deprecated::Feature;
use serde_json::Value;

/// Answers one kind of server request (`sampling/createMessage`,
/// `elicitation/create` or `roots/list`): the request's `params` in, the
/// result object out.
///
/// Implemented for every `Fn(Value) -> impl Future<Output = Result<Value, ErrorObject>>`,
/// so an async closure is a handler:
///
/// ```
/// use oxmcp_client::Client;
/// use serde_json::json;
///
/// let builder = Client::builder().elicitation_handler(|_params| async {
///     Ok(json!({ "action": "decline" }))
/// });
/// # let _ = builder;
/// ```
///
/// An `Err` is sent back as a JSON-RPC error (legacy era) or ends the call
/// with [`CallError::Protocol`](crate::Error::Protocol) (modern era, where the
/// answer must be a result).
pub trait RequestHandler: Send + Sync + 'static {
    /// Handles one request.
    fn handle(&self, params: Value) -> BoxFuture<'static, Result<Value, ErrorObject>>;
}

impl<F, Fut> RequestHandler for F
where
    F: Fn(Value) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, ErrorObject>> + Send + 'static,
{
    fn handle(&self, params: Value) -> BoxFuture<'static, Result<Value, ErrorObject>> {
        Box::pin(self(params))
    }
}

/// The handlers a client was built with.
#[derive(Clone, Default)]
pub(crate) struct Handlers {
    pub(crate) sampling: Option<Arc<dyn RequestHandler>>,
    pub(crate) elicitation: Option<Arc<dyn RequestHandler>>,
    pub(crate) roots: Option<Arc<dyn RequestHandler>>,
}

impl fmt::Debug for Handlers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handlers")
            .field("sampling", &self.sampling.is_some())
            .field("elicitation", &self.elicitation.is_some())
            .field("roots", &self.roots.is_some())
            .finish()
    }
}

impl Handlers {
    /// The handler for `method`, if one is installed.
    pub(crate) fn get(&self, method_name: &str) -> Option<&Arc<dyn RequestHandler>> {
        let (handler, deprecated) = match method_name {
            method::SAMPLING_CREATE_MESSAGE => (self.sampling.as_ref(), Some(Feature::Sampling)),
            method::ELICITATION_CREATE => (self.elicitation.as_ref(), None),
            method::ROOTS_LIST => (self.roots.as_ref(), Some(Feature::Roots)),
            _ => (None, None),
        };
        if let (Some(_), Some(feature)) = (handler, deprecated) {
            oxmcp_wire::deprecated::used(feature);
        }
        handler
    }

    /// The capabilities to declare: exactly what has a handler.
    pub(crate) fn capabilities(&self) -> ClientCapabilities {
        let on = |present: bool| present.then(JsonObject::new);
        let mut declared = ClientCapabilities::default();
        declared.roots = on(self.roots.is_some());
        declared.sampling = on(self.sampling.is_some());
        declared.elicitation = on(self.elicitation.is_some());
        declared
    }

    /// Runs the handler for `method`: -32601 when none is installed.
    pub(crate) async fn run(&self, method_name: &str, params: Value) -> Result<Value, ErrorObject> {
        match self.get(method_name) {
            Some(handler) => handler.handle(params).await,
            None => Err(ErrorObject::method_not_found(method_name)),
        }
    }
}
