//! What a tool is at run time: its definition, its erased handler, and the
//! traits that turn Rust return values into `tools/call` results.

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use oxmcp_types::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use serde::Serialize;

use crate::context::{Context, LazyContext};
use crate::error::ToolError;
use crate::tool::Args;

pub use crate::common::BoxFuture;

/// A tool handler whose result may have to wait: arguments and context in,
/// a future of the result out.
pub(crate) type AsyncHandler =
    dyn Fn(Args<'static>, Context) -> BoxFuture<'static, CallToolResult> + Send + Sync;

/// A tool handler that computes its result at once (a plain `fn` tool). Its
/// context is made only if the tool takes one.
pub(crate) type SyncHandler = dyn Fn(Args<'_>, LazyContext<'_>) -> CallToolResult + Send + Sync;

/// The erased form of every tool handler.
#[derive(Clone)]
pub(crate) enum Handler {
    Async(Arc<AsyncHandler>),
    /// Called in place: no future to box and poll.
    Sync(Arc<SyncHandler>),
}

/// A set of tools: what `#[tool]` generates for an impl block (or a free function).
///
/// Register one with [`ServerBuilder::toolbox`](crate::ServerBuilder::toolbox).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a toolbox",
    note = "put `#[tool(description = \"...\")]` on an `impl {Self}` block whose `pub fn`s are the tools"
)]
pub trait ToolBox: Send + Sync + 'static {
    /// The toolbox's name (its type name).
    const NAME: &'static str;
    /// What the toolbox is for (the impl's `#[tool(description = ...)]`).
    const DESCRIPTION: &'static str;

    /// Builds the tools, bound to this value, in declaration order.
    fn into_tools(self) -> Vec<ToolEntry>;

    /// Builds everything the toolbox offers, bound to this value: its
    /// tools, prompts, resources and resource templates. The default is the
    /// tools alone; `#[tool]` blocks with `#[prompt]` or `#[resource]`
    /// methods generate the rest.
    fn into_items(self) -> Items
    where
        Self: Sized,
    {
        Items {
            tools: self.into_tools(),
            ..Items::default()
        }
    }
}

/// Everything one toolbox offers ([`ToolBox::into_items`]).
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Items {
    /// Its tools.
    pub tools: Vec<ToolEntry>,
    /// Its prompts.
    pub prompts: Vec<crate::prompt::PromptEntry>,
    /// Its static resources.
    pub resources: Vec<crate::resource::ResourceEntry>,
    /// Its resource templates.
    pub templates: Vec<crate::resource::TemplateEntry>,
}

impl Items {
    /// Marks every item as coming from `toolbox`.
    pub(crate) fn in_toolbox(mut self, toolbox: impl Into<Cow<'static, str>>) -> Self {
        let toolbox = toolbox.into();
        self.tools = self
            .tools
            .into_iter()
            .map(|t| t.with_toolbox(toolbox.clone()))
            .collect();
        self.prompts = self
            .prompts
            .into_iter()
            .map(|t| t.with_toolbox(toolbox.clone()))
            .collect();
        self.resources = self
            .resources
            .into_iter()
            .map(|t| t.with_toolbox(toolbox.clone()))
            .collect();
        self.templates = self
            .templates
            .into_iter()
            .map(|t| t.with_toolbox(toolbox.clone()))
            .collect();
        self
    }

    /// Appends `other`.
    pub(crate) fn extend(&mut self, other: Items) {
        self.tools.extend(other.tools);
        self.prompts.extend(other.prompts);
        self.resources.extend(other.resources);
        self.templates.extend(other.templates);
    }
}

/// The static facts about one tool, as the macros write them.
#[derive(Debug, Clone, Default)]
pub struct ToolSpec {
    /// The tool's name on the wire.
    pub name: &'static str,
    /// A display name.
    pub title: Option<&'static str>,
    /// What the tool does, for the model.
    pub description: &'static str,
    /// `readOnlyHint`.
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    pub destructive: Option<bool>,
    /// `idempotentHint`.
    pub idempotent: Option<bool>,
    /// `openWorldHint`.
    pub open_world: Option<bool>,
    /// Client capabilities the tool cannot work without (`"sampling"`,
    /// `"elicitation"`, `"roots"`): a call from a client that did not declare
    /// one of them is refused with -32021 before the tool runs.
    pub requires_client: &'static [&'static str],
    /// Extensions the client must have declared (`"io.modelcontextprotocol/tasks"`):
    /// a call from a client that did not is refused with -32021 naming them
    /// in `data.requiredCapabilities.extensions`, before the tool runs.
    pub requires_extensions: &'static [&'static str],
    /// Whether a call may run as a task (the tasks extension, SEP-2663):
    /// answered with a handle the client polls, when the client declared
    /// the extension and the call has to wait.
    pub task: crate::tool::TaskSupport,
    /// OAuth scopes a caller's token needs (HTTP with
    /// [`Authorization`](crate::auth)): a caller without them does not see
    /// the tool, and calling it gets the step-up challenge (403).
    pub scopes: &'static [&'static str],
    /// How long one call may run; then it is stopped and answered with an
    /// `isError` result. `None` falls back to the server's `call_timeout`.
    pub timeout: Option<std::time::Duration>,
    /// The cap on one result's characters; `None` falls back to the
    /// server's `max_result_chars`.
    pub max_result_chars: Option<usize>,
    /// How long a result is reused for the same caller and arguments
    /// (a read-only tool only); `None`: never.
    pub cache: Option<std::time::Duration>,
    /// How long the whole of a result cut to the cap stays readable by
    /// its caller, at the link the cut result carries; `None`: not kept.
    pub keep_full_result: Option<std::time::Duration>,
    /// MCP Apps: the `ui://` page the host shows with this tool's results
    /// (a resource of the server, served as
    /// [`apps::MIME_TYPE`](crate::apps::MIME_TYPE)).
    pub ui: Option<&'static str>,
    /// MCP Apps: who may call the tool (both when empty); a tool only the
    /// app calls is listed only to clients that declared Apps.
    pub visibility: &'static [crate::apps::Visibility],
}

/// One tool ready to serve: its wire definition, built once, and its handler.
#[derive(Clone)]
pub struct ToolEntry {
    pub(crate) def: Arc<Tool>,
    pub(crate) handler: Handler,
    /// The output schema's root was not an object, so `structuredContent` is
    /// wrapped as `{"result": value}` (legacy revisions require an object).
    pub(crate) wrap_structured: bool,
    pub(crate) toolbox: Cow<'static, str>,
    pub(crate) requires_client: &'static [&'static str],
    pub(crate) requires_extensions: &'static [&'static str],
    pub(crate) task: crate::tool::TaskSupport,
    pub(crate) scopes: crate::auth::Scopes,
    pub(crate) timeout: Option<std::time::Duration>,
    /// The cap on one result's characters (`None`:
    /// [`DEFAULT_MAX_RESULT_CHARS`](crate::tool::cap::DEFAULT_MAX_RESULT_CHARS)).
    pub(crate) max_result_chars: Option<usize>,
    /// How long a result is reused (`ToolEntry::with_cache`).
    pub(crate) cache: Option<std::time::Duration>,
    /// How long a cut result's whole is kept (`ToolEntry::keep_full_result`).
    pub(crate) keep_full: Option<std::time::Duration>,
}

impl fmt::Debug for ToolEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolEntry")
            .field("name", &self.def.name)
            .field("toolbox", &self.toolbox)
            .finish_non_exhaustive()
    }
}

impl ToolEntry {
    /// A tool from its parts and its erased handler.
    pub(crate) fn from_spec(
        spec: &ToolSpec,
        input_schema: JsonObject,
        output_schema: Option<schemars::Schema>,
        handler: Handler,
    ) -> ToolEntry {
        let mut annotations = ToolAnnotations::default();
        annotations.read_only_hint = spec.read_only;
        annotations.destructive_hint = spec.destructive;
        annotations.idempotent_hint = spec.idempotent;
        annotations.open_world_hint = spec.open_world;
        let (output_schema, wrap_structured) = match output_schema {
            Some(schema) => {
                let (schema, wrapped) = crate::tool::object_root(schema);
                (Some(schema), wrapped)
            }
            None => (None, false),
        };
        let mut tool = Tool::new(spec.name, input_schema);
        tool.title = spec.title.map(str::to_owned);
        tool.description = Some(spec.description.to_owned());
        tool.output_schema = output_schema;
        tool.annotations = (!annotations.is_empty()).then_some(annotations);
        let mut entry = ToolEntry::with_handler(tool, Cow::Borrowed(""), handler);
        entry.wrap_structured = wrap_structured;
        entry.requires_client = spec.requires_client;
        entry.requires_extensions = spec.requires_extensions;
        entry.task = spec.task;
        entry.scopes = crate::auth::Scopes::of(spec.scopes);
        entry.timeout = spec.timeout;
        entry.cache = spec.cache;
        entry.keep_full = spec.keep_full_result;
        if let Some(cap) = spec.max_result_chars {
            entry.set_max_result_chars(cap);
        }
        if spec.ui.is_some() || !spec.visibility.is_empty() {
            entry.set_ui(&crate::apps::ToolUi {
                resource_uri: spec.ui.map(str::to_owned),
                visibility: (!spec.visibility.is_empty()).then(|| spec.visibility.to_vec()),
            });
        }
        entry
    }

    pub(crate) fn from_parts<F>(def: Tool, toolbox: Cow<'static, str>, handler: F) -> ToolEntry
    where
        F: Fn(Args<'static>, Context) -> BoxFuture<'static, CallToolResult> + Send + Sync + 'static,
    {
        Self::with_handler(def, toolbox, Handler::Async(Arc::new(handler)))
    }

    fn with_handler(def: Tool, toolbox: Cow<'static, str>, handler: Handler) -> ToolEntry {
        ToolEntry {
            def: Arc::new(def),
            handler,
            wrap_structured: false,
            toolbox,
            requires_client: &[],
            requires_extensions: &[],
            task: crate::tool::TaskSupport::Never,
            scopes: crate::auth::Scopes::default(),
            timeout: None,
            max_result_chars: None,
            cache: None,
            keep_full: None,
        }
    }

    /// Needs these OAuth scopes (added to any it has): a caller whose token
    /// lacks one does not see the tool, and calling it gets the step-up
    /// challenge (HTTP 403 naming the scopes).
    #[must_use]
    pub fn with_scopes<S: AsRef<str>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = self.scopes.with(scopes);
        self
    }

    /// The OAuth scopes a caller's token needs for this tool.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.scopes.iter()
    }

    /// Refuses calls (-32021, before the tool runs) from clients that did
    /// not declare these extensions, as
    /// [`ToolSpec::requires_extensions`] does.
    #[must_use]
    pub fn requiring_extensions(mut self, ids: &'static [&'static str]) -> Self {
        self.requires_extensions = ids;
        self
    }

    /// Lets calls run as tasks ([`ToolSpec::task`]).
    #[must_use]
    pub fn with_task_support(mut self, support: crate::tool::TaskSupport) -> Self {
        self.task = support;
        self
    }

    /// MCP Apps: shows the `ui://` page `uri` with this tool's results
    /// ([`apps`](crate::apps)); the server must serve that page (a
    /// resource of MIME type [`apps::MIME_TYPE`](crate::apps::MIME_TYPE)),
    /// or adding the tool fails.
    #[must_use]
    pub fn with_ui(mut self, uri: impl Into<String>) -> Self {
        let mut ui = crate::apps::tool_ui(&self.def).unwrap_or_default();
        ui.resource_uri = Some(uri.into());
        self.set_ui(&ui);
        self
    }

    /// MCP Apps: who may call the tool ([`Visibility`](crate::apps::Visibility));
    /// a tool only the app calls is listed only to clients that declared Apps.
    #[must_use]
    pub fn with_visibility(mut self, visibility: &[crate::apps::Visibility]) -> Self {
        let mut ui = crate::apps::tool_ui(&self.def).unwrap_or_default();
        ui.visibility = Some(visibility.to_vec());
        self.set_ui(&ui);
        self
    }

    fn set_ui(&mut self, ui: &crate::apps::ToolUi) {
        crate::apps::set_meta(&mut Arc::make_mut(&mut self.def).meta, Some(ui));
    }

    /// Caps what one result may carry, in characters of text and of
    /// `structuredContent` (instead of
    /// [`DEFAULT_MAX_RESULT_CHARS`](crate::tool::cap::DEFAULT_MAX_RESULT_CHARS);
    /// at most [`MAX_RESULT_CHARS`](crate::tool::cap::MAX_RESULT_CHARS)). A result
    /// over it is cut where it stays valid, with a marker saying so. A cap
    /// above the default is announced to Claude hosts in the tool's
    /// `_meta["anthropic/maxResultSizeChars"]`.
    #[must_use]
    pub fn with_max_result_chars(mut self, cap: usize) -> Self {
        self.set_max_result_chars(cap);
        self
    }

    fn set_max_result_chars(&mut self, cap: usize) {
        self.max_result_chars = Some(cap);
        let key = crate::tool::cap::ANTHROPIC_MAX_RESULT_SIZE;
        let def = Arc::make_mut(&mut self.def);
        if cap > crate::tool::cap::DEFAULT_MAX_RESULT_CHARS {
            def.meta.get_or_insert_with(Default::default).insert(
                key.to_owned(),
                cap.min(crate::tool::cap::MAX_RESULT_CHARS).into(),
            );
        } else if let Some(meta) = def.meta.as_mut() {
            meta.remove(key);
        }
    }

    /// The server's cap, for a tool that sets none of its own.
    pub(crate) fn default_max_result_chars(&mut self, cap: usize) {
        if self.max_result_chars.is_none() && cap != crate::tool::cap::DEFAULT_MAX_RESULT_CHARS {
            self.set_max_result_chars(cap);
        }
    }

    /// Keeps the whole of a result cut to the cap for `ttl`: the cut
    /// result links to it (a `resource_link`), and the caller that made
    /// the call, and no one else, reads it with `resources/read`. Above
    /// zero and at most a day: anything else is refused when the tool is
    /// added. A caller nothing tells apart (the 2026-07-28 era over HTTP
    /// without authorization) gets no link.
    #[must_use]
    pub fn keep_full_result(mut self, ttl: std::time::Duration) -> Self {
        self.keep_full = Some(ttl);
        self
    }

    /// Reuses a result for `ttl` when the same caller calls with the same
    /// arguments (the server's [`ResultCache`](crate::policy::ResultCache)
    /// keeps it). Only for a read-only tool, and at most a day: anything
    /// else is refused when the tool is added.
    #[must_use]
    pub fn with_cache(mut self, ttl: std::time::Duration) -> Self {
        self.cache = Some(ttl);
        self
    }

    /// This tool's result cap: its own, else the server's (given it when it
    /// was added), else the default.
    pub(crate) fn max_result_chars(&self) -> usize {
        self.max_result_chars
            .unwrap_or(crate::tool::cap::DEFAULT_MAX_RESULT_CHARS)
    }

    /// The result shape this tool's results get in `finish`.
    fn shape(&self) -> Shape {
        Shape {
            wrap_structured: self.wrap_structured,
            cap: self.max_result_chars(),
        }
    }

    /// Limits how long one call may run (overrides the server's
    /// `call_timeout`). Above zero and at most a day: anything else is
    /// refused when the tool is added.
    pub fn with_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The wire definition.
    pub fn tool(&self) -> &Tool {
        &self.def
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.def.name
    }

    /// The toolbox this tool came from (empty for tools added on their own).
    pub fn toolbox(&self) -> &str {
        &self.toolbox
    }

    pub(crate) fn with_toolbox(mut self, toolbox: Cow<'static, str>) -> Self {
        self.toolbox = toolbox;
        self
    }

    /// Calls the tool in-process, outside any server: `arguments` decoded as
    /// a `tools/call` would decode them, a panic turned into an `isError`
    /// result, structured content wrapped as the tool's output schema says.
    /// Runs no middleware, visibility hook or timeout: those belong to a
    /// server. For agents running local tools (`oxmcp-agent`) and for tests;
    /// [`Context::detached`] is a context attached to no client.
    ///
    /// ```
    /// use oxmcp_server::{Context, ToolEntry};
    /// use serde_json::json;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let tool = ToolEntry::dynamic("twice", "Doubles n", json!({"type": "object"}), |args, _| async move {
    ///     args.get("n").and_then(|n| n.as_f64()).unwrap_or_default() * 2.0
    /// })
    /// .unwrap();
    /// let mut args = serde_json::Map::new();
    /// args.insert("n".into(), json!(21));
    /// let result = tool.invoke(args, Context::detached()).await;
    /// assert_eq!(result.content[0].as_text(), Some("42"));
    /// # }
    /// ```
    pub fn invoke(
        &self,
        arguments: JsonObject,
        ctx: Context,
    ) -> impl Future<Output = CallToolResult> + Send + 'static {
        self.call(Args::new(Some(arguments)), ctx)
    }

    /// Whether the handler returns its result at once: such a call never
    /// waits, so it never asks the client for input mid-call.
    pub(crate) fn is_sync(&self) -> bool {
        matches!(self.handler, Handler::Sync(_))
    }

    /// Runs the handler; a panic becomes an `isError` result. A sync
    /// handler has run when this returns.
    pub(crate) fn call(&self, args: Args<'static>, ctx: Context) -> CallFuture {
        let keeper = self.keep_full.and(ctx.keeper().cloned());
        let started = match &self.handler {
            Handler::Sync(handler) => {
                let make = || ctx.clone();
                let outcome = catch_panic(|| handler(args, LazyContext(&make)));
                return CallFuture::Done(Some(self.finish(outcome, keeper.as_ref())));
            }
            // Decoding the arguments happens here too, before any future.
            Handler::Async(handler) => catch_panic(|| handler(args, ctx)),
        };
        match started {
            Ok(future) => CallFuture::Running {
                inner: crate::panic::CatchUnwind::new(future),
                def: Arc::clone(&self.def),
                shape: self.shape(),
                keeper,
            },
            Err(panic) => CallFuture::Done(Some(self.finish(Err(panic), keeper.as_ref()))),
        }
    }

    /// Runs a handler that returns at once, making its context with `ctx`
    /// only if it takes one; a panic becomes an `isError` result. The
    /// arguments come back untouched when the handler may wait.
    #[allow(
        clippy::result_large_err,
        reason = "the arguments come back only from a handler that may wait; boxing them would allocate on every call"
    )]
    pub(crate) fn call_now<'a>(
        &self,
        args: Args<'a>,
        ctx: &dyn Fn() -> Context,
    ) -> Result<CallToolResult, Args<'a>> {
        match &self.handler {
            // A whole result is kept for whom the context names: the call
            // goes the way that makes one.
            Handler::Sync(_) if self.keep_full.is_some() => Err(args),
            Handler::Sync(handler) => {
                Ok(self.finish(catch_panic(|| handler(args, LazyContext(ctx))), None))
            }
            Handler::Async(_) => Err(args),
        }
    }

    /// The result as the client sees it: structured content wrapped where
    /// the output schema says so, cut to the cap (the whole kept by
    /// `keeper`), a panic as an `isError` result.
    fn finish(
        &self,
        outcome: Result<CallToolResult, String>,
        keeper: Option<&crate::kept::Keeper>,
    ) -> CallToolResult {
        finish(&self.def, self.shape(), outcome, keeper)
    }
}

fn catch_panic<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .map_err(|payload| crate::panic::panic_message(&*payload))
}

/// What `finish` does to a tool's results: wrap structured content, cap
/// the size.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    wrap_structured: bool,
    cap: usize,
}

fn finish(
    def: &Tool,
    shape: Shape,
    outcome: Result<CallToolResult, String>,
    keeper: Option<&crate::kept::Keeper>,
) -> CallToolResult {
    match outcome {
        Ok(mut result) => {
            if shape.wrap_structured {
                if let Some(v) = result.structured_content.take() {
                    result.structured_content = Some(oxmcp_types::structured::wrap_value(v));
                }
            }
            crate::tool::cap::cap_result(
                &mut result,
                shape.cap,
                def.output_schema.is_some(),
                keeper,
            );
            result
        }
        Err(panic) => {
            tracing::error!(tool = %def.name, panic = %panic, "tool panicked");
            CallToolResult::error(format!("tool `{}` failed: it panicked ({panic})", def.name))
        }
    }
}

/// A tool call in progress. `Unpin`, so dispatch can poll it in place first
/// and box it only if it has to wait.
pub(crate) enum CallFuture {
    /// Finished when it was called (`None` once taken).
    Done(Option<CallToolResult>),
    Running {
        inner: crate::panic::CatchUnwind<BoxFuture<'static, CallToolResult>>,
        def: Arc<Tool>,
        shape: Shape,
        keeper: Option<crate::kept::Keeper>,
    },
}

impl Future for CallFuture {
    type Output = CallToolResult;

    fn poll(
        self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<CallToolResult> {
        match self.get_mut() {
            CallFuture::Done(result) => std::task::Poll::Ready(
                result
                    .take()
                    .unwrap_or_else(|| CallToolResult::error("the call was already answered")),
            ),
            CallFuture::Running {
                inner,
                def,
                shape,
                keeper,
            } => Pin::new(inner)
                .poll(cx)
                .map(|outcome| finish(def, *shape, outcome, keeper.as_ref())),
        }
    }
}

/// Turns what a tool returns into a `tools/call` result.
///
/// Implemented for text (`String`, `&str`), numbers and `bool` (their text),
/// `()` (no content), [`Json<T>`] (structured content with an output schema),
/// content blocks, [`CallToolResult`], and `Result<T, E>` where `E: Into<ToolError>`
/// (an error becomes an `isError: true` result).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool",
    note = "return a `String`, a number, `Json<T>` (with `T: Serialize + JsonSchema`), `Content`, `Vec<Content>`, `CallToolResult`, or a `Result<_, ToolError>` of one of these"
)]
pub trait IntoToolResult {
    /// The result.
    fn into_tool_result(self) -> CallToolResult;

    /// The JSON Schema of the structured content, for tools that return it.
    fn output_schema() -> Option<schemars::Schema> {
        None
    }
}

macro_rules! display_as_text {
    ($($t:ty),*) => {$(
        impl IntoToolResult for $t {
            fn into_tool_result(self) -> CallToolResult {
                CallToolResult::text(self.to_string())
            }
        }
    )*};
}

display_as_text!(
    String,
    &str,
    Cow<'_, str>,
    char,
    bool,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize
);

macro_rules! float_as_text {
    ($($t:ty),*) => {$(
        impl IntoToolResult for $t {
            fn into_tool_result(self) -> CallToolResult {
                CallToolResult::text(float_text(self))
            }
        }
    )*};
}

float_as_text!(f32, f64);

/// A float's text: the shortest digits that read back as the same number,
/// as `serde_json` writes it in JSON (zmij, in a fraction of `Display`'s
/// time), but written as `Display` writes it: no `.0` on a whole number,
/// and no exponent (those few numbers are left to `Display`). Where two
/// shortest texts are equally close, the last digit may differ from
/// `Display`'s; both read back as the same number.
fn float_text<F: zmij::Float + fmt::Display>(x: F) -> String {
    let mut buffer = zmij::Buffer::new();
    let text = buffer.format(x);
    if text.contains(['e', 'N', 'i']) {
        // An exponent, NaN or inf.
        return x.to_string();
    }
    text.strip_suffix(".0").unwrap_or(text).to_owned()
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(Vec::new())
    }
}

impl IntoToolResult for ContentBlock {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(vec![self])
    }
}

impl IntoToolResult for Vec<ContentBlock> {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(self)
    }
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> CallToolResult {
        self
    }
}

impl<T: IntoToolResult, E: Into<ToolError>> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> CallToolResult {
        match self {
            Ok(v) => v.into_tool_result(),
            Err(e) => e.into().into_result(),
        }
    }

    fn output_schema() -> Option<schemars::Schema> {
        T::output_schema()
    }
}

/// A structured tool result: serialized into `structuredContent`, described by
/// an `outputSchema` generated from `T`, and copied as JSON text for clients
/// that read only `content`. (The type is `oxmcp_types::call::Json`, which the
/// typed clients decode.)
///
/// ```
/// use oxmcp_server::Json;
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Sum { total: f64 }
///
/// fn sum(values: Vec<f64>) -> Json<Sum> {
///     Json(Sum { total: values.iter().sum() })
/// }
/// # let _ = sum(vec![1.0]);
/// ```
pub use oxmcp_types::call::Json;

impl<T: Serialize + schemars::JsonSchema> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> CallToolResult {
        match serde_json::to_value(&self.0) {
            Ok(value) => {
                let text = value.to_string();
                CallToolResult {
                    content: vec![ContentBlock::text(text)],
                    structured_content: Some(value),
                    ..CallToolResult::default()
                }
            }
            Err(e) => {
                CallToolResult::error(format!("the tool's result could not be serialized: {e}"))
            }
        }
    }

    fn output_schema() -> Option<schemars::Schema> {
        Some(crate::tool::root_schema_for::<T>())
    }
}

/// The longest time limit a call may have: a call longer than a day belongs
/// in a task, and a larger figure is a slip of the unit.
const MAX_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(24 * 60 * 60);

/// A time limit above zero and at most a day, or the error naming `setting`.
pub(crate) fn check_timeout(setting: &str, limit: std::time::Duration) -> Result<(), crate::Error> {
    if limit.is_zero() {
        return Err(crate::Error::Config(format!(
            "{setting} is zero: every call would stop before it starts (give a duration above zero, or none)"
        )));
    }
    if limit > MAX_TIMEOUT {
        return Err(crate::Error::Config(format!(
            "{setting} is {} s, more than a day: a call that long belongs in a task",
            limit.as_secs()
        )));
    }
    Ok(())
}

/// Each tool's own settings, checked as it is added: [`check_timeout`]
/// for its time limit, [`check_result_cap`] for its result cap, and a
/// cache only on a read-only tool, for at most a day.
pub(crate) fn check_settings(tools: &[ToolEntry]) -> Result<(), crate::Error> {
    for tool in tools {
        if let Some(limit) = tool.timeout {
            check_timeout(&format!("the timeout of tool `{}`", tool.name()), limit)?;
        }
        if let Some(cap) = tool.max_result_chars {
            check_result_cap(&format!("the result cap of tool `{}`", tool.name()), cap)?;
        }
        if let Some(ttl) = tool.keep_full {
            if ttl.is_zero() || ttl > MAX_TIMEOUT {
                return Err(crate::Error::Config(format!(
                    "the kept full results of tool `{}` last {} ms: give above zero and at most a day",
                    tool.name(),
                    ttl.as_millis()
                )));
            }
        }
        if let Some(ttl) = tool.cache {
            let setting = format!("the cache of tool `{}`", tool.name());
            let read_only = tool
                .def
                .annotations
                .as_ref()
                .and_then(|a| a.read_only_hint)
                .unwrap_or(false);
            if !read_only {
                return Err(crate::Error::Config(format!(
                    "{setting}: a cached result is served again instead of a call, so only a tool without effects may be cached; mark the tool read-only (`#[tool(read_only)]`, `readOnlyHint`) or remove the cache"
                )));
            }
            if ttl.is_zero() || ttl > MAX_TIMEOUT {
                return Err(crate::Error::Config(format!(
                    "{setting} keeps results for {} ms: give above zero and at most a day (a result older than that is stale)",
                    ttl.as_millis()
                )));
            }
        }
    }
    Ok(())
}

/// A result cap is above zero and at most
/// [`MAX_RESULT_CHARS`](crate::tool::cap::MAX_RESULT_CHARS).
pub(crate) fn check_result_cap(setting: &str, cap: usize) -> Result<(), crate::Error> {
    if cap == 0 || cap > crate::tool::cap::MAX_RESULT_CHARS {
        return Err(crate::Error::Config(format!(
            "{setting} is {cap} characters: give 1 to {} (what Claude hosts accept)",
            crate::tool::cap::MAX_RESULT_CHARS
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::float_text;

    /// A stream of varied numbers (xorshift, so the test is the same each run).
    fn numbers() -> impl Iterator<Item = u64> {
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        std::iter::repeat_with(move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        })
    }

    #[test]
    fn floats_read_as_display_writes_them() {
        let mut samples: Vec<f64> = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            3.0,
            0.1,
            0.2 + 0.1,
            1.5,
            1e15,
            1e16,
            1e17,
            1e21,
            1e22,
            1e-5,
            1e-6,
            1e-7,
            123_456.789,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            f64::EPSILON,
            5e-324,
            9_007_199_254_740_993.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for bits in numbers().take(50_000) {
            // Every bit pattern; whole numbers; and decimals of every scale.
            samples.push(f64::from_bits(bits));
            #[allow(clippy::cast_precision_loss, reason = "any value will do")]
            let n = (bits >> 11) as f64;
            let scale = 10f64.powi(i32::try_from(bits % 40).unwrap() - 20);
            let cents = f64::from(u32::try_from(bits % 100_000).unwrap()) / 1000.0;
            samples.extend([n, -n, n * scale, n / 1e6, cents]);
        }
        for x in samples {
            let (ours, display) = (float_text(x), x.to_string());
            if x.is_nan() {
                assert_eq!(ours, "NaN");
                continue;
            }
            assert_eq!(
                ours.parse::<f64>().unwrap().to_bits(),
                x.to_bits(),
                "{x:e}: {ours}"
            );
            assert_eq!(ours.len(), display.len(), "{x:e}: {ours} {display}");
            let stem = |t: &str| t[..t.len() - 1].to_owned();
            assert_eq!(stem(&ours), stem(&display), "{x:e}: {ours} {display}");
            #[allow(clippy::cast_possible_truncation, reason = "f32 samples")]
            let y = x as f32;
            let ours = float_text(y);
            assert_eq!(
                ours.parse::<f32>().unwrap().to_bits(),
                y.to_bits(),
                "{y:e}: {ours}"
            );
            assert_eq!(ours.len(), y.to_string().len(), "{y:e}: {ours}");
        }
    }
}
