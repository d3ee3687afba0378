//! A run's view of a tool set, and its export in each provider's format.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

use oxmcp_server::ToolEntry;
use serde_json::Value;

use crate::catalog::{Diagnostic, SetTool, Target, ToolSetError, Tools};
use crate::chat::ToolDef;
use crate::names::NameMap;

/// The tools one run offers: a set's tools, possibly extended
/// ([`with_tools`](Self::with_tools)), emptied ([`without_tools`](Self::without_tools))
/// or restricted ([`allowed_tools`](Self::allowed_tools)), none of which
/// changes the set. Exports them in the providers' formats, under
/// provider-safe names ([`crate::names`]).
///
/// ```
/// use oxmcp_agent::ToolSet;
/// use oxmcp_server::{tool, ToolEntry};
/// use serde_json::json;
///
/// pub struct Maths;
///
/// #[tool(description = "Maths")]
/// impl Maths {
///     #[describe("Add two numbers")]
///     pub fn add(&self, #[param("First")] a: f64, #[param("Second")] b: f64) -> f64 {
///         a + b
///     }
///     #[describe("Negate a number")]
///     pub fn neg(&self, #[param("The number")] x: f64) -> f64 {
///         -x
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), oxmcp_agent::ToolSetError> {
/// let set = ToolSet::builder().toolbox(Maths).build().await?;
/// let view = set.view().allowed_tools(["add"])?;
/// let openai = view.openai_chat_tools(true);
/// assert_eq!(openai[0]["function"]["name"], "add");
/// assert_eq!(openai[0]["function"]["strict"], true);
/// let anthropic = view.anthropic_tools();
/// assert_eq!(anthropic[0]["input_schema"]["required"], json!(["a", "b"]));
/// assert_eq!(set.names(), ["add", "neg"]); // the set is unchanged
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct ToolView {
    tools: BTreeMap<String, SetTool>,
    diagnostics: Vec<Diagnostic>,
    names: Arc<NameMap>,
}

impl fmt::Debug for ToolView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolView")
            .field("tools", &self.tools.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl ToolView {
    pub(crate) fn new(snapshot: &Tools) -> ToolView {
        ToolView::from_parts(snapshot.by_name.clone(), snapshot.diagnostics.clone())
    }

    fn from_parts(tools: BTreeMap<String, SetTool>, diagnostics: Vec<Diagnostic>) -> ToolView {
        let names = NameMap::new(tools.keys().map(String::as_str));
        ToolView {
            tools,
            diagnostics,
            names: Arc::new(names),
        }
    }

    /// Adds local tools for this view only; a tool of the same name as one
    /// of the set replaces it, and of several with one name the last wins.
    pub fn with_tools(self, tools: impl IntoIterator<Item = ToolEntry>) -> ToolView {
        let ToolView {
            tools: mut by_name,
            mut diagnostics,
            ..
        } = self;
        let source: Arc<str> = Arc::from("run tools");
        for entry in tools {
            let def = entry.tool().clone();
            let mut tool = SetTool::new(
                def,
                Arc::clone(&source),
                Target::Local(entry),
                &mut diagnostics,
            );
            // The run's own code, as a local toolbox is.
            tool.annotations_trusted = true;
            by_name.insert(tool.name().to_owned(), tool);
        }
        ToolView::from_parts(by_name, diagnostics)
    }

    /// No tools at all.
    pub fn without_tools(self) -> ToolView {
        ToolView::from_parts(BTreeMap::new(), Vec::new())
    }

    /// Only these tools (names in the set).
    ///
    /// # Errors
    ///
    /// [`ToolSetError::UnknownTool`] for a name the view does not have.
    pub fn allowed_tools<I, S>(self, names: I) -> Result<ToolView, ToolSetError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let wanted: BTreeSet<String> = names.into_iter().map(|n| n.as_ref().to_owned()).collect();
        if let Some(missing) = wanted.iter().find(|n| !self.tools.contains_key(*n)) {
            return Err(ToolSetError::UnknownTool {
                name: missing.clone(),
                known: self.names().join(", "),
            });
        }
        Ok(self.restrict(&wanted))
    }

    /// Only the tools named in `wanted` that the view has.
    pub(crate) fn restrict(self, wanted: &BTreeSet<String>) -> ToolView {
        let ToolView {
            mut tools,
            diagnostics,
            ..
        } = self;
        tools.retain(|name, _| wanted.contains(name));
        ToolView::from_parts(tools, diagnostics)
    }

    /// The tools' names (MCP names, as in the set), sorted.
    pub fn names(&self) -> Vec<String> {
        self.tools.keys().cloned().collect()
    }

    /// The label of the source a tool comes from (its toolbox's type name,
    /// its server's name, or the label given to [`Source::named`](crate::Source::named)).
    pub fn source_of(&self, name: &str) -> Option<&str> {
        self.tools.get(name).map(|t| &*t.source)
    }

    /// Whether the view offers no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// How many tools the view offers.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// The map between the tools' MCP names and the names the model sees.
    pub fn name_map(&self) -> &NameMap {
        &self.names
    }

    /// What the set noticed (see [`ToolSet::diagnostics`](crate::ToolSet::diagnostics)).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The tools as offered to a model: provider-safe names, descriptions,
    /// the input schema and, where it exists, its strict form.
    pub fn definitions(&self) -> Vec<ToolDef> {
        self.tools
            .values()
            .map(|tool| ToolDef {
                name: self.provider_name(tool.name()).to_owned(),
                description: description_of(tool),
                parameters: Value::clone(&tool.schema),
                strict_parameters: tool.strict.as_deref().cloned(),
            })
            .collect()
    }

    /// OpenAI Chat Completions `tools`; with `strict`, each tool whose schema
    /// could be made strict is sent in strict form (the others non-strict,
    /// listed in [`diagnostics`](Self::diagnostics)).
    pub fn openai_chat_tools(&self, strict: bool) -> Vec<Value> {
        crate::model::openai::chat_tools(&self.definitions(), strict)
    }

    /// OpenAI Responses API `tools`.
    pub fn openai_responses_tools(&self, strict: bool) -> Vec<Value> {
        crate::model::openai::responses_tools(&self.definitions(), strict)
    }

    /// Anthropic Messages `tools`.
    pub fn anthropic_tools(&self) -> Vec<Value> {
        crate::model::anthropic::tools(&self.definitions())
    }

    /// The name the model sees for a tool of the view.
    pub(crate) fn provider_name<'a>(&'a self, mcp_name: &'a str) -> &'a str {
        self.names.to_provider(mcp_name).unwrap_or(mcp_name)
    }

    /// The tool a model's call names (by its provider-safe name).
    pub(crate) fn resolve(&self, provider_name: &str) -> Option<&SetTool> {
        let mcp = self.names.to_mcp(provider_name)?;
        self.tools.get(mcp)
    }

    /// A tool by its MCP name.
    pub(crate) fn get(&self, mcp_name: &str) -> Option<&SetTool> {
        self.tools.get(mcp_name)
    }
}

fn description_of(tool: &SetTool) -> String {
    match (&tool.def.description, &tool.def.title) {
        (Some(d), _) if !d.trim().is_empty() => d.clone(),
        (_, Some(title)) => title.clone(),
        _ => String::new(),
    }
}
