//! Tool search: a server (or an agent's tool set) that has too many tools to
//! offer them all lists the few a user pins plus one search tool, which
//! ranks every tool the caller may see and answers with the best matches'
//! full definitions. A model then calls a tool it found by name: direct
//! calls reach every tool, listed or not.
//!
//! Ranking is Okapi BM25 (k1 = 1.2, b = 0.75) over each tool's words: its
//! name (counted twice: a name is short and says the most), title,
//! description, and the names and descriptions of its parameters (nested
//! objects included). Words are cut at anything not a letter or digit and
//! at camelCase humps, lower-cased; an English stop-word list keeps `the`
//! and `a` from counting.
//!
//! The [`ToolSearch`] settings serve both sides: the server's mode
//! ([`ServerBuilder::tool_search`](crate::ServerBuilder::tool_search)) and
//! `oxmcp_agent`'s `ToolSetBuilder::tool_search`.

use std::collections::HashMap;
use std::sync::Arc;

use oxmcp_types::{CallToolResult, ContentBlock, JsonObject, Tool};
use serde_json::{json, Value};

use crate::context::Context;
use crate::error::Error;
use crate::policy::{Caller, ToolInfo, VisibilityHook};

/// The search tool's name unless [`ToolSearch::name`] sets another.
pub const DEFAULT_NAME: &str = "search_tools";
/// How many matches a search returns when its call gives no `limit`.
pub const DEFAULT_LIMIT: usize = 5;
/// The most matches one search returns unless [`ToolSearch::limits`] sets
/// another: a larger `limit` is lowered to it (and the answer says so).
pub const DEFAULT_MAX_LIMIT: usize = 20;
/// The largest maximum [`ToolSearch::limits`] accepts: beyond it a search
/// would bring back the context bloat it exists to avoid.
pub const MAX_LIMIT_CEILING: usize = 100;
/// The longest query taken, in characters (a longer one is refused).
pub const MAX_QUERY_CHARS: usize = 1000;

/// Words that say nothing about what a tool does.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it", "of", "on",
    "or", "that", "the", "this", "to", "with",
];

/// The settings of a tool search: its tool's name, the tools listed beside
/// it, and how many matches a search returns.
///
/// ```
/// use oxmcp_server::tool::search::ToolSearch;
///
/// let search = ToolSearch::new().pin(["read_file"]).limits(3, 10);
/// assert_eq!(search.tool_name(), "search_tools");
/// assert!(search.is_listed("read_file") && search.is_listed("search_tools"));
/// assert!(!search.is_listed("delete_repo"));
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct ToolSearch {
    name: String,
    pinned: Vec<String>,
    default_limit: usize,
    max_limit: usize,
}

impl Default for ToolSearch {
    fn default() -> Self {
        ToolSearch::new()
    }
}

impl ToolSearch {
    /// A search tool named [`DEFAULT_NAME`], no tool pinned, [`DEFAULT_LIMIT`]
    /// matches by default and at most [`DEFAULT_MAX_LIMIT`].
    pub fn new() -> Self {
        ToolSearch {
            name: DEFAULT_NAME.to_owned(),
            pinned: Vec::new(),
            default_limit: DEFAULT_LIMIT,
            max_limit: DEFAULT_MAX_LIMIT,
        }
    }

    /// Lists these tools beside the search tool (the ones a model needs on
    /// almost every turn).
    pub fn pin<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.pinned.extend(names.into_iter().map(Into::into));
        self
    }

    /// Names the search tool (default [`DEFAULT_NAME`]).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// How many matches a search returns without a `limit` (`default`),
    /// and at most (`max`); checked by [`check`](Self::check).
    pub fn limits(mut self, default: usize, max: usize) -> Self {
        self.default_limit = default;
        self.max_limit = max;
        self
    }

    /// The search tool's name.
    pub fn tool_name(&self) -> &str {
        &self.name
    }

    /// The pinned tools' names.
    pub fn pinned(&self) -> &[String] {
        &self.pinned
    }

    /// Whether a tool of this name is listed: the search tool and the pinned ones.
    pub fn is_listed(&self, name: &str) -> bool {
        name == self.name || self.pinned.iter().any(|p| p == name)
    }

    /// Checks the settings against the tools there are (`names`): the
    /// search tool's name is valid and no tool has it, every pinned tool
    /// exists, and `1 <= default <= max <=` [`MAX_LIMIT_CEILING`].
    ///
    /// # Errors
    ///
    /// [`Error::Config`] naming the setting and the fix (the text of
    /// [`problem`](Self::problem)).
    pub fn check<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> Result<(), Error> {
        match self.problem(names) {
            Some(problem) => Err(Error::Config(format!("tool search: {problem}"))),
            None => Ok(()),
        }
    }

    /// What is wrong with the settings, given the tools there are (see
    /// [`check`](Self::check)), or `None`.
    pub fn problem<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> Option<String> {
        self.check_all(names).err()
    }

    fn check_all<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> Result<(), String> {
        let fail = |what: String| Err(what);
        if !oxmcp_types::tool::is_valid_tool_name(&self.name) {
            return fail(format!(
                "the search tool's name {:?} is not a valid tool name (1 to 128 characters of A-Z, a-z, 0-9, `_`, `-`, `.`)",
                self.name
            ));
        }
        if self.default_limit == 0 || self.default_limit > self.max_limit {
            return fail(format!(
                "the default limit {} must be at least 1 and at most the maximum {}",
                self.default_limit, self.max_limit
            ));
        }
        if self.max_limit > MAX_LIMIT_CEILING {
            return fail(format!(
                "the maximum limit {} is above {MAX_LIMIT_CEILING}",
                self.max_limit
            ));
        }
        let names: Vec<&str> = names.into_iter().collect();
        if names.contains(&self.name.as_str()) {
            return fail(format!(
                "a tool is already named `{}`: name the search tool otherwise (ToolSearch::name)",
                self.name
            ));
        }
        if let Some(missing) = self.pinned.iter().find(|p| !names.contains(&p.as_str())) {
            return fail(format!("the pinned tool `{missing}` does not exist"));
        }
        Ok(())
    }

    /// The search tool's definition: `query` (required) and `limit`, and
    /// an output schema for its `structuredContent` (`{"tools": [Tool]}`,
    /// each a full `tools/list` definition).
    pub fn definition(&self) -> Tool {
        let input = json!({
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "Words describing the capability needed (e.g. \"create a calendar event\"); matched against tool names, descriptions and parameters"
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "description": format!(
                        "How many tools to return (default {}, at most {}; a larger value is lowered to {})",
                        self.default_limit, self.max_limit, self.max_limit
                    )
                }
            },
            "required": ["query"]
        });
        let output = json!({
            "type": "object",
            "properties": {
                "tools": {
                    "type": "array",
                    "description": "The best matches first, each a full tool definition",
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string"},
                            "description": {"type": "string"},
                            "inputSchema": {"type": "object"}
                        },
                        "required": ["name", "inputSchema"]
                    }
                },
                "searched": {"type": "integer", "description": "How many tools were searched"}
            },
            "required": ["tools", "searched"]
        });
        let mut tool = Tool::new(&self.name, as_object(input));
        tool.description = Some(
            "Search the tools this server offers beyond those listed, by what they do. \
             Returns the best matches with their full definitions; call a match by its name."
                .to_owned(),
        );
        tool.output_schema = Some(output);
        let mut annotations = oxmcp_types::ToolAnnotations::default();
        annotations.read_only_hint = Some(true);
        annotations.destructive_hint = Some(false);
        annotations.idempotent_hint = Some(true);
        annotations.open_world_hint = Some(false);
        tool.annotations = Some(annotations);
        tool
    }

    /// Reads a search call's arguments: the query, and the limit (the
    /// default when absent, lowered to the maximum when above it).
    ///
    /// # Errors
    ///
    /// The message for the `isError` result: no or an empty `query`, a
    /// query over [`MAX_QUERY_CHARS`], a `limit` that is not a positive
    /// integer.
    pub fn read_arguments(&self, arguments: &JsonObject) -> Result<(String, usize), String> {
        let query = match arguments.get("query") {
            Some(Value::String(q)) if !q.trim().is_empty() => q.trim().to_owned(),
            Some(Value::String(_)) => {
                return Err("`query` is empty: say what the tool should do".to_owned())
            }
            Some(_) => return Err("`query` must be a string".to_owned()),
            None => return Err("`query` is missing: say what the tool should do".to_owned()),
        };
        if query.chars().count() > MAX_QUERY_CHARS {
            return Err(format!(
                "`query` is longer than {MAX_QUERY_CHARS} characters"
            ));
        }
        let limit = match arguments.get("limit") {
            None | Some(Value::Null) => self.default_limit,
            Some(n) => match n.as_u64() {
                Some(0) | None => {
                    return Err(format!(
                        "`limit` must be a whole number from 1 to {} (got {n})",
                        self.max_limit
                    ))
                }
                Some(n) => usize::try_from(n).unwrap_or(usize::MAX).min(self.max_limit),
            },
        };
        Ok((query, limit))
    }

    /// Runs one search call over `tools` (the search tool itself is never
    /// a match): the best matches' full definitions as `structuredContent`
    /// and as JSON text, or an `isError` result saying what is wrong with
    /// the arguments.
    pub fn answer<'a>(
        &self,
        tools: impl IntoIterator<Item = &'a Tool>,
        arguments: &JsonObject,
    ) -> CallToolResult {
        let (query, limit) = match self.read_arguments(arguments) {
            Ok(read) => read,
            Err(message) => return CallToolResult::error(message),
        };
        let tools: Vec<&Tool> = tools.into_iter().filter(|t| t.name != self.name).collect();
        let searched = tools.len();
        let found = rank(tools, &query, limit);
        let structured = json!({"tools": found, "searched": searched});
        let mut result = CallToolResult::success(vec![ContentBlock::text(structured.to_string())]);
        result.structured_content = Some(structured);
        result
    }
}

/// The server's search tool: each call ranks the tools of the server's live
/// list (as it is at the call: tools added, removed, enabled or disabled
/// since are seen) that the caller may see, by the same rules as
/// `tools/list` (the token's scopes, the visibility hook).
pub(crate) fn entry(
    search: Arc<ToolSearch>,
    visibility: Option<Arc<VisibilityHook>>,
) -> crate::tool::ToolEntry {
    let def = search.definition();
    let handler = move |arguments: JsonObject, ctx: Context| {
        let result = match ctx.server() {
            Some(handle) => {
                let registry = handle.catalog().tools.snapshot();
                let visible = registry
                    .entries()
                    .iter()
                    .filter(|e| may_see(&ctx, visibility.as_deref(), e))
                    .map(crate::tool::ToolEntry::tool);
                search.answer(visible, &arguments)
            }
            None => CallToolResult::error("the tool search works only in a serving server"),
        };
        std::future::ready(result)
    };
    match crate::tool::ToolEntry::from_tool(def, handler) {
        Ok(entry) => entry,
        // The name was checked by `ToolSearch::check` and the schema is ours.
        Err(e) => unreachable!("the search tool's definition is valid: {e}"),
    }
}

/// Whether the caller of `ctx` may see `entry`: its token has the tool's
/// scopes, and the visibility hook (if any) agrees.
fn may_see(ctx: &Context, hook: Option<&VisibilityHook>, entry: &crate::tool::ToolEntry) -> bool {
    entry.scopes.allow(ctx.identity())
        && hook.is_none_or(|hook| {
            let caller = ctx.caller_any().and_then(|c| c.downcast_ref::<Caller>());
            caller.is_some_and(|caller| {
                hook(
                    caller,
                    &ToolInfo {
                        tool: entry.tool(),
                        toolbox: entry.toolbox(),
                    },
                )
            })
        })
}

fn as_object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// The words of `text`: cut at anything not a letter or digit and at
/// camelCase humps, lower-cased, stop words left out.
pub fn tokenize(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            flush(&mut word, &mut words);
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower {
            flush(&mut word, &mut words);
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    flush(&mut word, &mut words);
    words
}

fn flush(word: &mut String, words: &mut Vec<String>) {
    if !word.is_empty() && !STOP_WORDS.contains(&word.as_str()) {
        words.push(std::mem::take(word));
    }
    word.clear();
}

/// The words a tool is found by: its name twice, title, description, and
/// its parameters' names and descriptions.
fn document(tool: &Tool) -> Vec<String> {
    let mut text = format!("{0} {0}", tool.name);
    for part in [&tool.title, &tool.description].into_iter().flatten() {
        text.push(' ');
        text.push_str(part);
    }
    schema_words(&Value::Object(tool.input_schema.clone()), &mut text, 0);
    tokenize(&text)
}

/// Appends the property names and descriptions of a schema, nested ones
/// included (to a few levels: deeper ones rarely name what a tool does).
fn schema_words(schema: &Value, text: &mut String, depth: usize) {
    if depth > 3 {
        return;
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (name, property) in properties {
        text.push(' ');
        text.push_str(name);
        if let Some(d) = property.get("description").and_then(Value::as_str) {
            text.push(' ');
            text.push_str(d);
        }
        schema_words(property, text, depth + 1);
        if let Some(items) = property.get("items") {
            schema_words(items, text, depth + 1);
        }
    }
}

/// The `limit` tools best matching `query` by BM25, best first; tools
/// sharing no word with the query are left out, ties keep the tools' order.
pub fn rank<'a>(
    tools: impl IntoIterator<Item = &'a Tool>,
    query: &str,
    limit: usize,
) -> Vec<&'a Tool> {
    const K1: f64 = 1.2;
    const B: f64 = 0.75;
    let tools: Vec<&Tool> = tools.into_iter().collect();
    let docs: Vec<Vec<String>> = tools.iter().map(|t| document(t)).collect();
    let mut terms = tokenize(query);
    terms.sort();
    terms.dedup();
    if terms.is_empty() || docs.is_empty() {
        return Vec::new();
    }
    #[allow(clippy::cast_precision_loss)] // counts of words, far below 2^52
    let n = docs.len() as f64;
    #[allow(clippy::cast_precision_loss)]
    let average = docs.iter().map(Vec::len).sum::<usize>() as f64 / n;
    let mut frequency: HashMap<&str, usize> = HashMap::new();
    for term in &terms {
        let with = docs.iter().filter(|d| d.contains(term)).count();
        frequency.insert(term, with);
    }
    let mut scored: Vec<(usize, f64)> = docs
        .iter()
        .enumerate()
        .map(|(i, doc)| {
            #[allow(clippy::cast_precision_loss)]
            let length = doc.len() as f64;
            let score = terms
                .iter()
                .map(|term| {
                    #[allow(clippy::cast_precision_loss)]
                    let tf = doc.iter().filter(|w| *w == term).count() as f64;
                    if tf == 0.0 {
                        return 0.0;
                    }
                    #[allow(clippy::cast_precision_loss)]
                    let df = frequency[term.as_str()] as f64;
                    let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                    idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * length / average.max(1.0)))
                })
                .sum::<f64>();
            (i, score)
        })
        .filter(|(_, score)| *score > 0.0)
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored
        .into_iter()
        .take(limit)
        .map(|(i, _)| tools[i])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, description: &str, params: Value) -> Tool {
        #![allow(clippy::needless_pass_by_value)] // the tests' json! literals read better passed by value
        let schema = json!({"type": "object", "properties": params});
        let mut t = Tool::new(name, as_object(schema));
        t.description = Some(description.to_owned());
        t
    }

    #[test]
    fn tokenize_cuts_snake_and_camel_case_and_drops_stop_words() {
        assert_eq!(
            tokenize("get_WeatherForecast of the cityName2"),
            ["get", "weather", "forecast", "city", "name2"]
        );
    }

    #[test]
    fn rank_prefers_the_tool_whose_words_match_and_reads_parameters() {
        let tools = [
            tool(
                "send_mail",
                "Send an email message",
                json!({"to": {"type": "string", "description": "Recipient address"}}),
            ),
            tool(
                "read_file",
                "Read a file from disk",
                json!({"path": {"type": "string", "description": "Where the file is"}}),
            ),
            tool(
                "forecast",
                "What the sky will do",
                json!({"city": {"type": "string", "description": "The town for the weather"}}),
            ),
        ];
        let found = rank(&tools, "weather in a town", 5);
        assert_eq!(found.len(), 1, "only the tool sharing words matches");
        assert_eq!(
            found[0].name, "forecast",
            "found through its parameter's description"
        );
        let found = rank(&tools, "read the file", 1);
        assert_eq!(found[0].name, "read_file");
        assert!(
            rank(&tools, "the of a", 5).is_empty(),
            "stop words alone match nothing"
        );
    }

    #[test]
    fn arguments_are_checked_and_the_limit_clamped() {
        let search = ToolSearch::new().limits(2, 4);
        let args = |v: Value| as_object(v);
        assert_eq!(
            search.read_arguments(&args(json!({"query": "x"}))),
            Ok(("x".to_owned(), 2))
        );
        assert_eq!(
            search.read_arguments(&args(json!({"query": "x", "limit": 1000}))),
            Ok(("x".to_owned(), 4))
        );
        assert!(search
            .read_arguments(&args(json!({"query": "x", "limit": 0})))
            .unwrap_err()
            .contains("`limit`"));
        assert!(search
            .read_arguments(&args(json!({"query": "x", "limit": -3})))
            .is_err());
        assert!(search
            .read_arguments(&args(json!({"query": "  "})))
            .unwrap_err()
            .contains("empty"));
        assert!(search
            .read_arguments(&args(json!({})))
            .unwrap_err()
            .contains("missing"));
        let long = "w ".repeat(MAX_QUERY_CHARS);
        assert!(search
            .read_arguments(&args(json!({"query": long})))
            .is_err());
    }

    #[test]
    fn check_refuses_a_clash_an_unknown_pin_and_bad_limits() {
        let names = ["add", "search_tools"];
        let e = ToolSearch::new().check(names).unwrap_err().to_string();
        assert!(
            e.contains("already named `search_tools`") && e.contains("ToolSearch::name"),
            "{e}"
        );
        assert!(ToolSearch::new().name("find").check(names).is_ok());
        let e = ToolSearch::new()
            .name("find")
            .pin(["nope"])
            .check(names)
            .unwrap_err()
            .to_string();
        assert!(e.contains("pinned tool `nope`"), "{e}");
        assert!(ToolSearch::new()
            .name("find")
            .limits(0, 3)
            .check(names)
            .is_err());
        assert!(ToolSearch::new()
            .name("find")
            .limits(5, 3)
            .check(names)
            .is_err());
        assert!(ToolSearch::new()
            .name("find")
            .limits(5, 1000)
            .check(names)
            .is_err());
        assert!(ToolSearch::new().name("bad name").check(names).is_err());
    }
}
