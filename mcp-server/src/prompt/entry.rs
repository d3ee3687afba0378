//! What a prompt is at run time: its definition, its erased handler, its
//! argument completions, and the trait that turns Rust return values into
//! `prompts/get` results.

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use oxmcp_types::{ContentBlock, GetPromptResult, Prompt, PromptArgument, PromptMessage};

use crate::auth::Scopes;
use crate::common::BoxFuture;
use crate::complete::{CompleteHandler, Completions};
use crate::context::Context;
use crate::error::{Error, RequestError};
use crate::prompt::StringArgs;

/// The erased form of every prompt handler.
pub(crate) type PromptHandler = dyn Fn(StringArgs, Context) -> BoxFuture<'static, Result<GetPromptResult, RequestError>>
    + Send
    + Sync;

/// The static facts about one prompt, as the macros write them.
#[derive(Debug, Clone, Default)]
pub struct PromptSpec {
    /// The prompt's name on the wire.
    pub name: &'static str,
    /// A display name.
    pub title: Option<&'static str>,
    /// What the prompt is for.
    pub description: &'static str,
    /// OAuth scopes a caller's token needs (HTTP with
    /// [`Authorization`](crate::auth)): a caller without them does not see
    /// the prompt, and getting it (or completing its arguments) is answered
    /// with the step-up challenge (403).
    pub scopes: &'static [&'static str],
}

/// One prompt ready to serve.
#[derive(Clone)]
pub struct PromptEntry {
    pub(crate) def: Arc<Prompt>,
    pub(crate) handler: Arc<PromptHandler>,
    pub(crate) completions: Completions,
    pub(crate) toolbox: Cow<'static, str>,
    pub(crate) scopes: Scopes,
}

impl fmt::Debug for PromptEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptEntry")
            .field("name", &self.def.name)
            .field("toolbox", &self.toolbox)
            .finish_non_exhaustive()
    }
}

impl PromptEntry {
    /// Assembles a prompt from its parts. Used by generated code.
    pub fn new<F>(spec: &PromptSpec, arguments: Vec<PromptArgument>, handler: F) -> PromptEntry
    where
        F: Fn(StringArgs, Context) -> BoxFuture<'static, Result<GetPromptResult, RequestError>>
            + Send
            + Sync
            + 'static,
    {
        PromptEntry {
            def: Arc::new(Prompt {
                name: spec.name.to_owned(),
                title: spec.title.map(str::to_owned),
                description: Some(spec.description.to_owned()),
                arguments: (!arguments.is_empty()).then_some(arguments),
                icons: None,
                meta: None,
            }),
            handler: Arc::new(handler),
            completions: Completions::default(),
            toolbox: Cow::Borrowed(""),
            scopes: Scopes::of(spec.scopes),
        }
    }

    /// A prompt built at run time: a name, a description, its arguments
    /// (their values reach `handler` as strings) and an async handler
    /// returning anything [`IntoPromptResult`].
    ///
    /// ```
    /// use oxmcp_server::{prompt::PromptEntry, prompt::StringArgs};
    /// use oxmcp_server::types::PromptArgument;
    ///
    /// let greet = PromptEntry::dynamic(
    ///     "greet",
    ///     "Greet someone",
    ///     vec![PromptArgument { name: "who".into(), title: None, description: Some("Their name".into()), required: Some(true) }],
    ///     |args: StringArgs, _ctx| async move { format!("Say hello to {}", args.get("who").unwrap_or("you")) },
    /// )
    /// .unwrap();
    /// assert_eq!(greet.name(), "greet");
    /// ```
    ///
    /// # Errors
    ///
    /// An empty name or description, or two arguments with one name.
    pub fn dynamic<F, Fut, R>(
        name: impl Into<String>,
        description: impl Into<String>,
        arguments: Vec<PromptArgument>,
        handler: F,
    ) -> Result<PromptEntry, Error>
    where
        F: Fn(StringArgs, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoPromptResult,
    {
        let name = name.into();
        let description = description.into();
        if description.trim().is_empty() {
            return Err(Error::Config(format!(
                "prompt `{name}` needs a name and a description"
            )));
        }
        let def = Prompt {
            name,
            title: None,
            description: Some(description),
            arguments: (!arguments.is_empty()).then_some(arguments),
            icons: None,
            meta: None,
        };
        Self::from_prompt(def, handler)
    }

    /// A prompt whose whole definition comes from elsewhere (a mounted or
    /// proxied server): `def` is offered as it is (title, arguments, icons,
    /// `_meta`). A `prompts/get` that lacks a required argument is refused
    /// (-32602) before `handler` runs. Unlike [`dynamic`](Self::dynamic), a
    /// missing description is not refused: the definition's author answers
    /// for it.
    ///
    /// # Errors
    ///
    /// An empty name, or two arguments with one name.
    pub fn from_prompt<F, Fut, R>(def: Prompt, handler: F) -> Result<PromptEntry, Error>
    where
        F: Fn(StringArgs, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoPromptResult,
    {
        let name = &def.name;
        if name.is_empty() {
            return Err(Error::Config(format!(
                "prompt `{name}` needs a name and a description"
            )));
        }
        let arguments = def.arguments.as_deref().unwrap_or_default();
        let mut seen = std::collections::HashSet::new();
        if let Some(dup) = arguments.iter().find(|a| !seen.insert(a.name.as_str())) {
            return Err(Error::Config(format!(
                "prompt `{name}` has two arguments named `{}`",
                dup.name
            )));
        }
        let required: Vec<String> = arguments
            .iter()
            .filter(|a| a.required == Some(true))
            .map(|a| a.name.clone())
            .collect();
        let handler = Arc::new(handler);
        Ok(PromptEntry {
            def: Arc::new(def),
            handler: Arc::new(move |args: StringArgs, ctx| {
                let missing: Vec<&String> =
                    required.iter().filter(|n| args.get(n).is_none()).collect();
                if !missing.is_empty() {
                    let e = RequestError::invalid_params(format!(
                        "missing required argument(s): {}",
                        missing
                            .iter()
                            .map(|n| format!("`{n}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                    return Box::pin(async move { Err(e) }) as BoxFuture<'static, _>;
                }
                let fut = handler(args, ctx);
                Box::pin(async move { fut.await.into_prompt_result() })
            }),
            completions: Completions::default(),
            toolbox: Cow::Borrowed(""),
            scopes: Scopes::default(),
        })
    }

    /// Completes the argument `argument` with `handler` (used by generated
    /// code for `#[complete]`, and by dynamic prompts).
    #[must_use]
    pub fn with_completion(mut self, argument: &str, handler: Arc<CompleteHandler>) -> Self {
        self.completions.insert(argument, handler);
        self
    }

    /// Needs these OAuth scopes (added to any it has): a caller whose token
    /// lacks one does not see the prompt, and getting it or completing its
    /// arguments gets the step-up challenge (HTTP 403 naming the scopes).
    #[must_use]
    pub fn with_scopes<S: AsRef<str>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = self.scopes.with(scopes);
        self
    }

    /// The OAuth scopes a caller's token needs for this prompt.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.scopes.iter()
    }

    /// The wire definition.
    pub fn prompt(&self) -> &Prompt {
        &self.def
    }

    /// The prompt's name.
    pub fn name(&self) -> &str {
        &self.def.name
    }

    /// The toolbox this prompt came from (empty for prompts added on their own).
    pub fn toolbox(&self) -> &str {
        &self.toolbox
    }

    pub(crate) fn with_toolbox(mut self, toolbox: Cow<'static, str>) -> Self {
        self.toolbox = toolbox;
        self
    }

    /// Renders the prompt; a panic becomes an internal error.
    pub(crate) async fn get(
        &self,
        args: StringArgs,
        ctx: Context,
    ) -> Result<GetPromptResult, RequestError> {
        let name = self.def.name.clone();
        crate::panic::CatchUnwind::new((self.handler)(args, ctx))
            .await
            .unwrap_or_else(|panic| {
                tracing::error!(prompt = %name, panic = %panic, "prompt panicked");
                Err(RequestError::internal(format!(
                    "prompt `{name}` failed: it panicked ({panic})"
                )))
            })
    }
}

/// Turns what a prompt returns into a `prompts/get` result.
///
/// Implemented for text (`String`, `&str`: one user message), a
/// [`PromptMessage`], `Vec<PromptMessage>`, a content block (one user
/// message), [`GetPromptResult`], and `Result<T, E>` where
/// `E: Into<RequestError>` (an error becomes a JSON-RPC error).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a prompt",
    note = "return a `String` (one user message), a `PromptMessage`, a `Vec<PromptMessage>`, a `GetPromptResult`, or a `Result<_, RequestError>` of one of these"
)]
pub trait IntoPromptResult {
    /// The result.
    fn into_prompt_result(self) -> Result<GetPromptResult, RequestError>;
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<GetPromptResult, RequestError> {
        Ok(GetPromptResult::new(vec![PromptMessage::user(self)]))
    }
}

impl IntoPromptResult for &str {
    fn into_prompt_result(self) -> Result<GetPromptResult, RequestError> {
        Ok(GetPromptResult::new(vec![PromptMessage::user(self)]))
    }
}

impl IntoPromptResult for ContentBlock {
    fn into_prompt_result(self) -> Result<GetPromptResult, RequestError> {
        Ok(GetPromptResult::new(vec![PromptMessage::user(self)]))
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> Result<GetPromptResult, RequestError> {
        Ok(GetPromptResult::new(vec![self]))
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<GetPromptResult, RequestError> {
        Ok(GetPromptResult::new(self))
    }
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<GetPromptResult, RequestError> {
        Ok(self)
    }
}

impl<T: IntoPromptResult, E: Into<RequestError>> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<GetPromptResult, RequestError> {
        self.map_err(Into::into)?.into_prompt_result()
    }
}
