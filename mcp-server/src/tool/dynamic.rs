//! Tools made at run time from a name, a description, a JSON Schema and an
//! async handler: the counterpart of `#[tool]` for tools whose shape is known
//! only when the program runs (plugins, proxies, generated APIs).

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;

use oxmcp_types::tool::is_valid_tool_name;
use oxmcp_types::{JsonObject, Tool};
use serde_json::Value;

use crate::context::Context;
use crate::error::Error;
use crate::tool::Args;
use crate::tool::{IntoToolResult, ToolEntry};

impl ToolEntry {
    /// A tool defined at run time.
    ///
    /// `input_schema` must be a JSON object whose root is `"type": "object"`.
    /// With the `validation` feature it must also be valid
    /// JSON Schema (2020-12 by default), and each call's arguments are
    /// validated against it before `handler` runs; a violation is an
    /// `isError` result naming every failing path, without echoing the
    /// offending values (they may be secrets). Without the feature the
    /// handler checks its arguments itself.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidTool`] for an empty or invalid name (the spec's
    /// `[A-Za-z0-9_.-]{1,128}`), an empty description, or a schema whose root
    /// is not an object or (with `validation`) that is not valid JSON Schema.
    ///
    /// ```
    /// use oxmcp_server::{ToolEntry, ToolError};
    /// use serde_json::json;
    ///
    /// let tool = ToolEntry::dynamic(
    ///     "shout",
    ///     "Upper-case a text",
    ///     json!({
    ///         "type": "object",
    ///         "properties": {"text": {"type": "string", "description": "What to shout"}},
    ///         "required": ["text"]
    ///     }),
    ///     |args, _ctx| async move {
    ///         let text = args.get("text").and_then(|t| t.as_str()).unwrap_or_default();
    ///         Ok::<_, ToolError>(text.to_uppercase())
    ///     },
    /// )
    /// .unwrap();
    /// assert_eq!(tool.name(), "shout");
    /// assert!(ToolEntry::dynamic("bad name", "x", json!({"type": "object"}), |_, _| async { "" }).is_err());
    /// ```
    pub fn dynamic<F, Fut, R>(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        handler: F,
    ) -> Result<ToolEntry, Error>
    where
        F: Fn(JsonObject, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        let name = name.into();
        let description = description.into();
        check_name(&name)?;
        if description.trim().is_empty() {
            return Err(Error::InvalidTool(format!(
                "tool `{name}` needs a description: the model reads it to decide when to call the tool"
            )));
        }
        let Value::Object(schema) = input_schema else {
            return Err(Error::InvalidTool(format!(
                "the input schema of `{name}` must be a JSON object with \"type\": \"object\""
            )));
        };
        check_object_root(&name, &schema)?;
        #[cfg(feature = "validation")]
        let validator = {
            let schema = Value::Object(schema.clone());
            oxmcp_wire::schema::Validator::checked(&schema).map_err(|e| {
                Error::InvalidTool(format!("the input schema of `{name}` is unusable: {e}"))
            })?
        };
        let mut def = Tool::new(name, schema);
        def.description = Some(description);
        Ok(erase(
            def,
            handler,
            #[cfg(feature = "validation")]
            Some(validator),
        ))
    }

    /// A tool whose whole definition comes from elsewhere (a mounted or
    /// proxied server, a generated API): `def` is offered as it is (title,
    /// annotations, output schema, icons, `_meta`), and `handler` gets each
    /// call's arguments. Unlike [`dynamic`](Self::dynamic), a missing
    /// description is not refused: the definition's author answers for it.
    /// The handler checks the arguments (for a forwarded tool, the server
    /// that defined it does).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidTool`] for an invalid name (the spec's
    /// `[A-Za-z0-9_.-]{1,128}`) or an input schema without
    /// `"type": "object"` at its root.
    ///
    /// ```
    /// use oxmcp_server::ToolEntry;
    /// use oxmcp_server::types::{CallToolResult, Tool};
    /// use serde_json::json;
    ///
    /// let def: Tool = serde_json::from_value(json!({
    ///     "name": "remote_add",
    ///     "description": "Add two numbers",
    ///     "inputSchema": {"type": "object"},
    ///     "annotations": {"readOnlyHint": true}
    /// }))
    /// .unwrap();
    /// let tool = ToolEntry::from_tool(def, |_args, _ctx| async { CallToolResult::text("3") }).unwrap();
    /// assert_eq!(tool.tool().annotations.as_ref().unwrap().read_only_hint, Some(true));
    /// ```
    pub fn from_tool<F, Fut, R>(def: Tool, handler: F) -> Result<ToolEntry, Error>
    where
        F: Fn(JsonObject, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        check_name(&def.name)?;
        check_object_root(&def.name, &def.input_schema)?;
        Ok(erase(
            def,
            handler,
            #[cfg(feature = "validation")]
            None,
        ))
    }

    /// Puts the tool in a named group, so that
    /// [`ServerHandle::disable_toolbox`](crate::ServerHandle::disable_toolbox)
    /// and friends act on it with the others of that name (a plugin's tools).
    pub fn in_toolbox(mut self, toolbox: impl Into<String>) -> Self {
        self.toolbox = Cow::Owned(toolbox.into());
        self
    }
}

/// A name the spec allows (`[A-Za-z0-9_.-]{1,128}`), or the error saying so.
fn check_name(name: &str) -> Result<(), Error> {
    if is_valid_tool_name(name) {
        return Ok(());
    }
    Err(Error::InvalidTool(format!(
        "the name {name:?} is not a valid tool name: use 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.`"
    )))
}

/// An input schema with `"type": "object"` at its root, or the error saying so.
fn check_object_root(name: &str, schema: &JsonObject) -> Result<(), Error> {
    if schema.get("type").and_then(Value::as_str) == Some("object") {
        return Ok(());
    }
    Err(Error::InvalidTool(format!(
        "the input schema of `{name}` must have \"type\": \"object\" at its root"
    )))
}

/// The tool `def`, served by `handler` with each call's arguments as an
/// object; with `validator`, arguments it refuses never reach `handler`
/// (an `isError` result naming every failing path, without the values).
fn erase<F, Fut, R>(
    def: Tool,
    handler: F,
    #[cfg(feature = "validation")] validator: Option<oxmcp_wire::schema::Validator>,
) -> ToolEntry
where
    F: Fn(JsonObject, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoToolResult,
{
    let handler = Arc::new(handler);
    ToolEntry::from_parts(
        def,
        Cow::Borrowed(""),
        move |args: Args<'static>, ctx: Context| {
            let args = match args.into_object() {
                Ok(args) => args,
                Err(e) => return Box::pin(async move { e.into_result() }),
            };
            #[cfg(feature = "validation")]
            let args = match &validator {
                Some(validator) => {
                    let value = Value::Object(args);
                    if let Some(problems) = validator.problems(&value) {
                        let text = format!("invalid arguments: {problems}");
                        return Box::pin(async move { oxmcp_types::CallToolResult::error(text) });
                    }
                    let Value::Object(args) = value else {
                        unreachable!("built as an object above")
                    };
                    args
                }
                None => args,
            };
            let fut = handler(args, ctx);
            Box::pin(async move { fut.await.into_tool_result() })
        },
    )
}
