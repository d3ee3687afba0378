//! What a tool set holds at one moment: its tools, ready to offer and to
//! call ([`SetTool`], with where each call goes), what it noticed on the way
//! ([`Diagnostic`]), and why building or refreshing one failed
//! ([`ToolSetError`]). Shared by the set ([`crate::ToolSet`]), the view a run
//! offers a model, and the calls.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use oxmcp_client::Client;
use oxmcp_server::ToolEntry;
use oxmcp_types::Tool;
use oxmcp_wire::schema::Validator;
use serde_json::Value;

/// Something a tool set noticed that does not stop it from working.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The tool (its name in the set), or the allow-list entry.
    pub tool: String,
    /// The source's label.
    pub source: String,
    /// What happened.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` ({}): {}", self.tool, self.source, self.message)
    }
}

/// A tool set that could not be built or refreshed.
///
/// `Display` says what failed at this level only; [`ToolSetError::Server`]
/// returns the client's error from `source()`. Print the chain with
/// [`oxmcp_client::types::error::Chain`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolSetError {
    /// Two sources offer one name.
    #[error("two tools are named `{name}`: one from {first}, one from {second}; give one of the sources a prefix (Source::prefix) or block the tool (Source::block)")]
    Collision {
        /// The name.
        name: String,
        /// The first source (label and kind).
        first: String,
        /// The second source.
        second: String,
    },
    /// A prefix made a name MCP does not allow.
    #[error("the prefix of {origin} makes `{name}`, which is not a valid tool name (1 to 128 characters of A-Z, a-z, 0-9, `_`, `-`, `.`)")]
    InvalidName {
        /// The prefixed name.
        name: String,
        /// The source.
        origin: String,
    },
    /// A server could not list its tools.
    #[error("the MCP server `{origin}` could not list its tools")]
    Server {
        /// The source.
        origin: String,
        /// Why.
        #[source]
        error: oxmcp_client::Error,
    },
    /// A source's [`on_start`](crate::Source::on_start) hook failed.
    #[error("{origin} could not start: {message}")]
    Start {
        /// The source (kind and label).
        origin: String,
        /// The hook's error.
        message: String,
    },
    /// The result caps do not fit the set
    /// ([`ToolSetBuilder::max_result_chars`](crate::ToolSetBuilder::max_result_chars)).
    #[error("result cap: {message}")]
    ResultCap {
        /// What is wrong, naming the setting.
        message: String,
    },
    /// The tool search's settings do not fit the set
    /// ([`ToolSetBuilder::tool_search`](crate::ToolSetBuilder::tool_search)).
    #[error("tool search: {message}")]
    Search {
        /// What is wrong, naming the setting.
        message: String,
    },
    /// A run named a tool the set does not have.
    #[error("no tool is named `{name}` (the tools are: {known})")]
    UnknownTool {
        /// The name asked for.
        name: String,
        /// The names there are, comma-separated.
        known: String,
    },
}

/// What a tool call runs.
#[derive(Clone)]
pub(crate) enum Target {
    Local(ToolEntry),
    /// Nothing here: the caller runs it ([`crate::pause::CallerTool`]).
    Caller,
    Remote {
        client: Client,
        name: String,
        /// Set on each call (see `SourceState::called`).
        called: Arc<AtomicBool>,
    },
}

/// One tool of a set, ready to offer and to call.
#[derive(Clone)]
pub(crate) struct SetTool {
    /// The definition, named as in the set.
    pub(crate) def: Arc<Tool>,
    pub(crate) source: Arc<str>,
    pub(crate) schema: Arc<Value>,
    pub(crate) strict: Option<Arc<Value>>,
    pub(crate) validator: Option<Arc<Validator>>,
    pub(crate) target: Target,
    /// The source's start and shutdown hooks, when it has any.
    pub(crate) lifecycle: Option<Arc<crate::lifecycle::Lifecycle>>,
    /// Whether its annotations are believed when deciding on an approval
    /// ([`Source::trust_annotations`](crate::Source::trust_annotations));
    /// false until its source says otherwise.
    pub(crate) annotations_trusted: bool,
}

impl SetTool {
    /// A tool from its definition (already named as in the set).
    pub(crate) fn new(
        def: Tool,
        source: Arc<str>,
        target: Target,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> SetTool {
        let schema = Value::Object(def.input_schema.clone());
        let strict = match crate::strict::to_strict(&schema) {
            Ok(strict) => Some(Arc::new(strict)),
            Err(why) => {
                diagnostics.push(Diagnostic {
                    tool: def.name.clone(),
                    source: source.to_string(),
                    message: format!("offered to OpenAI without strict mode: {why}"),
                });
                None
            }
        };
        let validator = match Validator::new(&schema) {
            Ok(v) => Some(Arc::new(v)),
            Err(e) => {
                diagnostics.push(Diagnostic {
                    tool: def.name.clone(),
                    source: source.to_string(),
                    message: format!("the input schema cannot be compiled, so arguments are passed unchecked: {e}"),
                });
                None
            }
        };
        SetTool {
            def: Arc::new(def),
            source,
            schema: Arc::new(schema),
            strict,
            validator,
            target,
            lifecycle: None,
            annotations_trusted: false,
        }
    }

    /// The tool's name in the set.
    pub(crate) fn name(&self) -> &str {
        &self.def.name
    }
}

/// A snapshot of a set's tools.
#[derive(Default)]
pub(crate) struct Tools {
    pub(crate) by_name: BTreeMap<String, SetTool>,
    pub(crate) diagnostics: Vec<Diagnostic>,
}
