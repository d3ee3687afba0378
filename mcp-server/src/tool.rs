//! What a tool is at run time: its definition, its erased handler, and the
//! traits that turn Rust return values into `tools/call` results.

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_types::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use serde::Serialize;

use crate::args::Args;
use crate::context::Context;
use crate::error::ToolError;

/// A boxed, `Send`, `'static` future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// The erased form of every tool handler: arguments and context in, a result out.
pub(crate) type Handler = dyn Fn(Args, Context) -> BoxFuture<CallToolResult> + Send + Sync;

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
    pub(crate) fn in_toolbox(mut self, toolbox: &'static str) -> Self {
        self.tools = self
            .tools
            .into_iter()
            .map(|t| t.with_toolbox(toolbox))
            .collect();
        self.prompts = self
            .prompts
            .into_iter()
            .map(|t| t.with_toolbox(toolbox))
            .collect();
        self.resources = self
            .resources
            .into_iter()
            .map(|t| t.with_toolbox(toolbox))
            .collect();
        self.templates = self
            .templates
            .into_iter()
            .map(|t| t.with_toolbox(toolbox))
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
    /// OAuth scopes a caller's token needs (HTTP with
    /// [`Authorization`](crate::auth)): a caller without them does not see
    /// the tool, and calling it gets the step-up challenge (403).
    pub scopes: &'static [&'static str],
    /// How long one call may run; then it is stopped and answered with an
    /// `isError` result. `None` falls back to the server's `call_timeout`.
    pub timeout: Option<std::time::Duration>,
}

/// One tool ready to serve: its wire definition, built once, and its handler.
#[derive(Clone)]
pub struct ToolEntry {
    pub(crate) def: Arc<Tool>,
    pub(crate) handler: Arc<Handler>,
    /// The output schema's root was not an object, so `structuredContent` is
    /// wrapped as `{"result": value}` (legacy revisions require an object).
    pub(crate) wrap_structured: bool,
    pub(crate) toolbox: Cow<'static, str>,
    pub(crate) requires_client: &'static [&'static str],
    pub(crate) scopes: Arc<[Box<str>]>,
    pub(crate) timeout: Option<std::time::Duration>,
}

impl fmt::Debug for ToolEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolEntry")
            .field("name", &self.def.name)
            .field("toolbox", &self.toolbox)
            .finish_non_exhaustive()
    }
}

impl crate::registry::Entry for ToolEntry {
    type Def = Tool;
    const KIND: &'static str = "tool";

    fn key(&self) -> &str {
        &self.def.name
    }

    fn group(&self) -> &str {
        &self.toolbox
    }

    fn def(&self) -> &Arc<Tool> {
        &self.def
    }
}

impl ToolEntry {
    /// Assembles a tool from its parts. Used by generated code.
    pub fn new<F>(
        spec: &ToolSpec,
        input_schema: JsonObject,
        output_schema: Option<schemars::Schema>,
        handler: F,
    ) -> ToolEntry
    where
        F: Fn(Args, Context) -> BoxFuture<CallToolResult> + Send + Sync + 'static,
    {
        let annotations = ToolAnnotations {
            title: None,
            read_only_hint: spec.read_only,
            destructive_hint: spec.destructive,
            idempotent_hint: spec.idempotent,
            open_world_hint: spec.open_world,
        };
        let (output_schema, wrap_structured) = match output_schema {
            Some(schema) => {
                let (schema, wrapped) = crate::schema::object_root(schema);
                (Some(schema), wrapped)
            }
            None => (None, false),
        };
        let mut entry = ToolEntry::from_parts(
            Tool {
                name: spec.name.to_owned(),
                title: spec.title.map(str::to_owned),
                description: Some(spec.description.to_owned()),
                input_schema,
                output_schema,
                annotations: (!annotations.is_empty()).then_some(annotations),
                icons: None,
                execution: None,
                meta: None,
            },
            Cow::Borrowed(""),
            handler,
        );
        entry.wrap_structured = wrap_structured;
        entry.requires_client = spec.requires_client;
        entry.scopes = spec.scopes.iter().map(|s| Box::from(*s)).collect();
        entry.timeout = spec.timeout;
        entry
    }

    pub(crate) fn from_parts<F>(def: Tool, toolbox: Cow<'static, str>, handler: F) -> ToolEntry
    where
        F: Fn(Args, Context) -> BoxFuture<CallToolResult> + Send + Sync + 'static,
    {
        ToolEntry {
            def: Arc::new(def),
            handler: Arc::new(handler),
            wrap_structured: false,
            toolbox,
            requires_client: &[],
            scopes: Arc::from([]),
            timeout: None,
        }
    }

    /// Needs these OAuth scopes (added to any it has): a caller whose token
    /// lacks one does not see the tool, and calling it gets the step-up
    /// challenge (HTTP 403 naming the scopes).
    #[must_use]
    pub fn with_scopes<S: AsRef<str>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        let mut all: Vec<Box<str>> = self.scopes.to_vec();
        for s in scopes {
            if !all.iter().any(|have| **have == *s.as_ref()) {
                all.push(Box::from(s.as_ref()));
            }
        }
        self.scopes = all.into();
        self
    }

    /// The OAuth scopes a caller's token needs for this tool.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.scopes.iter().map(|s| &**s)
    }

    /// Limits how long one call may run (overrides the server's `call_timeout`).
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

    pub(crate) fn with_toolbox(mut self, toolbox: &'static str) -> Self {
        self.toolbox = Cow::Borrowed(toolbox);
        self
    }

    /// Calls the tool in-process, outside any server: `arguments` decoded as
    /// a `tools/call` would decode them, a panic turned into an `isError`
    /// result, structured content wrapped as the tool's output schema says.
    /// Runs no middleware, visibility hook or timeout: those belong to a
    /// server. For agents running local tools (`mcp-agent`) and for tests;
    /// [`Context::detached`] is a context attached to no client.
    ///
    /// ```
    /// use mcp_server::{Context, ToolEntry};
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

    /// Runs the handler; a panic becomes an `isError` result.
    pub(crate) fn call(&self, args: Args, ctx: Context) -> CallFuture {
        CallFuture {
            inner: crate::panic::CatchUnwind::new((self.handler)(args, ctx)),
            def: Arc::clone(&self.def),
            wrap_structured: self.wrap_structured,
        }
    }
}

/// A tool call in progress. `Unpin`, so dispatch can poll it in place first
/// and box it only if it has to wait.
pub(crate) struct CallFuture {
    inner: crate::panic::CatchUnwind<BoxFuture<CallToolResult>>,
    def: Arc<Tool>,
    wrap_structured: bool,
}

impl Future for CallFuture {
    type Output = CallToolResult;

    fn poll(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<CallToolResult> {
        let polled = Pin::new(&mut self.inner).poll(cx);
        polled.map(|outcome| match outcome {
            Ok(mut result) => {
                if self.wrap_structured {
                    if let Some(v) = result.structured_content.take() {
                        result.structured_content = Some(mcp_types::structured::wrap_value(v));
                    }
                }
                result
            }
            Err(panic) => {
                tracing::error!(tool = %self.def.name, panic = %panic, "tool panicked");
                CallToolResult::error(format!(
                    "tool `{}` failed: it panicked ({panic})",
                    self.def.name
                ))
            }
        })
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
    usize,
    f32,
    f64
);

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
/// that read only `content`. (The type is `mcp_types::call::Json`, which the
/// typed clients decode.)
///
/// ```
/// use mcp_server::Json;
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Sum { total: f64 }
///
/// fn sum(values: Vec<f64>) -> Json<Sum> {
///     Json(Sum { total: values.iter().sum() })
/// }
/// # let _ = sum(vec![1.0]);
/// ```
pub use mcp_types::call::Json;

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
        Some(crate::schema::root_schema_for::<T>())
    }
}
