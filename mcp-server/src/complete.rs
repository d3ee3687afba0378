//! Argument completion (`completion/complete`): the handlers that suggest
//! values for a prompt's arguments and a resource template's variables.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::Arc;

use oxmcp_types::completion::Completion;

use crate::common::BoxFuture;
use crate::context::Context;
use crate::error::RequestError;

/// What a completion handler is asked: the value typed so far and the
/// arguments already filled in.
#[derive(Debug, Clone, Default)]
pub struct Completing {
    /// The argument being completed.
    pub argument: String,
    /// Its value so far.
    pub value: String,
    /// The other arguments' values, as the client sent them.
    pub arguments: BTreeMap<String, String>,
}

/// The erased form of every completion handler.
pub type CompleteHandler = dyn Fn(Completing, Context) -> BoxFuture<'static, Result<Completion, RequestError>>
    + Send
    + Sync;

/// A completion handler from an async function of the request: for dynamic
/// prompts and templates ([`PromptEntry::with_completion`](crate::prompt::PromptEntry::with_completion)).
///
/// ```
/// use oxmcp_server::{complete::completion, complete::Completing};
///
/// let colors = completion(|c: Completing, _ctx| async move {
///     ["red", "green", "blue"].into_iter().filter(|v| v.starts_with(&c.value)).collect::<Vec<_>>()
/// });
/// # let _ = colors;
/// ```
pub fn completion<F, Fut, R>(f: F) -> Arc<CompleteHandler>
where
    F: Fn(Completing, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoCompletion,
{
    Arc::new(move |c, ctx| {
        let fut = f(c, ctx);
        Box::pin(async move { fut.await.into_completion() })
    })
}

/// The completion handlers of one prompt or template, by argument name.
#[derive(Clone, Default)]
pub(crate) struct Completions(Option<Arc<HashMap<String, Arc<CompleteHandler>>>>);

impl Completions {
    pub(crate) fn insert(&mut self, argument: &str, handler: Arc<CompleteHandler>) {
        let map = self.0.get_or_insert_with(Default::default);
        Arc::make_mut(map).insert(argument.to_owned(), handler);
    }

    pub(crate) fn get(&self, argument: &str) -> Option<&Arc<CompleteHandler>> {
        self.0.as_ref()?.get(argument)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.as_ref().is_none_or(|m| m.is_empty())
    }
}

/// Turns what a completion function returns into suggestions: `Vec<String>`,
/// `Vec<&str>` (the first 100 are sent, with `total` and `hasMore`), a
/// [`Completion`], or a `Result` of one of these.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a completion function",
    note = "return a `Vec<String>`, a `Vec<&str>`, a `Completion`, or a `Result<_, RequestError>` of one of these"
)]
pub trait IntoCompletion {
    /// The suggestions.
    fn into_completion(self) -> Result<Completion, RequestError>;
}

impl IntoCompletion for Vec<String> {
    fn into_completion(self) -> Result<Completion, RequestError> {
        Ok(Completion::from_values(self))
    }
}

impl IntoCompletion for Vec<&str> {
    fn into_completion(self) -> Result<Completion, RequestError> {
        Ok(Completion::from_values(
            self.into_iter().map(str::to_owned).collect(),
        ))
    }
}

impl IntoCompletion for Completion {
    fn into_completion(mut self) -> Result<Completion, RequestError> {
        if self.values.len() > oxmcp_types::completion::MAX_COMPLETION_VALUES {
            let all = self.values.len() as u64;
            self.values
                .truncate(oxmcp_types::completion::MAX_COMPLETION_VALUES);
            self.total = Some(self.total.unwrap_or(all).max(all));
            self.has_more = Some(true);
        }
        Ok(self)
    }
}

impl<T: IntoCompletion, E: Into<RequestError>> IntoCompletion for Result<T, E> {
    fn into_completion(self) -> Result<Completion, RequestError> {
        self.map_err(Into::into)?.into_completion()
    }
}

/// An argument of a completion function, taken from the request: `&str` or
/// `String` (the value typed so far), `&Completing` (with the other
/// arguments), `Context` or `&Context`.
#[diagnostic::on_unimplemented(
    message = "a completion function cannot take `{Self}`",
    label = "not something a completion request carries",
    note = "a completion function takes the value typed so far (`&str` or `String`), `&Completing` (the value and the other arguments), and `Context` or `&Context`"
)]
pub trait FromCompleting<'a>: Sized {
    /// The argument.
    fn from_completing(request: &'a Completing, ctx: &'a Context) -> Self;
}

impl<'a> FromCompleting<'a> for &'a str {
    fn from_completing(request: &'a Completing, _: &'a Context) -> Self {
        &request.value
    }
}

impl<'a> FromCompleting<'a> for String {
    fn from_completing(request: &'a Completing, _: &'a Context) -> Self {
        request.value.clone()
    }
}

impl<'a> FromCompleting<'a> for &'a Completing {
    fn from_completing(request: &'a Completing, _: &'a Context) -> Self {
        request
    }
}

impl<'a> FromCompleting<'a> for Context {
    fn from_completing(_: &'a Completing, ctx: &'a Context) -> Self {
        ctx.clone()
    }
}

impl<'a> FromCompleting<'a> for &'a Context {
    fn from_completing(_: &'a Completing, ctx: &'a Context) -> Self {
        ctx
    }
}
