//! The attribute keywords, in one place (`serde_derive`: `internals/symbol.rs`).

use std::fmt;

use syn::{Ident, Path};

/// An attribute name or key.
#[derive(Copy, Clone)]
pub(crate) struct Symbol(pub(crate) &'static str);

pub(crate) const TOOL: Symbol = Symbol("tool");
pub(crate) const DESCRIBE: Symbol = Symbol("describe");
pub(crate) const PARAM: Symbol = Symbol("param");
pub(crate) const CFG: Symbol = Symbol("cfg");

pub(crate) const DESCRIPTION: Symbol = Symbol("description");
pub(crate) const NAME: Symbol = Symbol("name");
pub(crate) const TITLE: Symbol = Symbol("title");
pub(crate) const READ_ONLY: Symbol = Symbol("read_only");
pub(crate) const DESTRUCTIVE: Symbol = Symbol("destructive");
pub(crate) const IDEMPOTENT: Symbol = Symbol("idempotent");
pub(crate) const OPEN_WORLD: Symbol = Symbol("open_world");
pub(crate) const DEFAULT: Symbol = Symbol("default");
pub(crate) const RENAME: Symbol = Symbol("rename");
pub(crate) const MIN: Symbol = Symbol("min");
pub(crate) const MAX: Symbol = Symbol("max");
pub(crate) const EXCLUSIVE_MIN: Symbol = Symbol("exclusive_min");
pub(crate) const EXCLUSIVE_MAX: Symbol = Symbol("exclusive_max");
pub(crate) const MIN_LENGTH: Symbol = Symbol("min_length");
pub(crate) const MAX_LENGTH: Symbol = Symbol("max_length");
pub(crate) const PATTERN: Symbol = Symbol("pattern");
pub(crate) const ONE_OF: Symbol = Symbol("one_of");
pub(crate) const ALLOW_UNKNOWN_ARGUMENTS: Symbol = Symbol("allow_unknown_arguments");
pub(crate) const CLIENT: Symbol = Symbol("client");
pub(crate) const REQUIRES_CLIENT: Symbol = Symbol("requires_client");
pub(crate) const REQUIRES_EXTENSIONS: Symbol = Symbol("requires_extensions");
pub(crate) const TASK: Symbol = Symbol("task");
pub(crate) const TIMEOUT: Symbol = Symbol("timeout");
pub(crate) const MAX_RESULT_CHARS: Symbol = Symbol("max_result_chars");
pub(crate) const CACHE: Symbol = Symbol("cache");
pub(crate) const KEEP_FULL_RESULT: Symbol = Symbol("keep_full_result");
pub(crate) const SCOPES: Symbol = Symbol("scopes");
pub(crate) const UI: Symbol = Symbol("ui");
pub(crate) const VISIBILITY: Symbol = Symbol("visibility");

/// The keys of a tool's own `#[tool(...)]` (on a method or a function).
pub(crate) const TOOL_KEYS: &[Symbol] = &[
    NAME,
    TITLE,
    READ_ONLY,
    DESTRUCTIVE,
    IDEMPOTENT,
    OPEN_WORLD,
    REQUIRES_CLIENT,
    REQUIRES_EXTENSIONS,
    TASK,
    TIMEOUT,
    MAX_RESULT_CHARS,
    KEEP_FULL_RESULT,
    CACHE,
    SCOPES,
    UI,
    VISIBILITY,
    ALLOW_UNKNOWN_ARGUMENTS,
];
/// The keys of a declared tool's `#[tool(...)]` (a method of a `#[tool]` trait).
pub(crate) const DECLARED_TOOL_KEYS: &[Symbol] = &[NAME];
/// The keys of `#[tool(...)]` on an impl block.
pub(crate) const IMPL_KEYS: &[Symbol] = &[DESCRIPTION, CLIENT, SCOPES];
/// The keys of `#[tool(...)]` on a trait.
pub(crate) const TRAIT_KEYS: &[Symbol] = &[DESCRIPTION];
/// The keys of `#[param(...)]` after the description.
pub(crate) const PARAM_KEYS: &[Symbol] = &[
    DEFAULT,
    RENAME,
    ONE_OF,
    MIN,
    MAX,
    EXCLUSIVE_MIN,
    EXCLUSIVE_MAX,
    MIN_LENGTH,
    MAX_LENGTH,
    PATTERN,
];
/// The keys of `#[param(...)]` written `key = value` that declare a rule.
pub(crate) const RULE_KEYS: &[Symbol] = PARAM_KEYS.split_at(3).1;

/// The client capabilities a tool can require with `requires_client(...)`:
/// the members of `ClientCapabilities` (2025-11-25, 2026-07-28) that a
/// server uses (`experimental`, `tasks` and `extensions` are not one feature).
pub(crate) const CLIENT_CAPABILITIES: &[&str] = &["sampling", "elicitation", "roots"];

/// Who may call a tool with `visibility(...)` (MCP Apps).
pub(crate) const VISIBILITIES: &[&str] = &["model", "app"];

/// The type whose arguments are injected rather than decoded.
pub(crate) const CONTEXT: Symbol = Symbol("Context");

/// The methods every generated client has: a tool method may not take their names.
pub(crate) const CLIENT_METHODS: &[&str] = &["new", "caller"];
/// The methods a declared (trait) client has besides [`CLIENT_METHODS`].
pub(crate) const DECLARED_CLIENT_METHODS: &[&str] = &["connect"];

impl PartialEq<Symbol> for Ident {
    fn eq(&self, word: &Symbol) -> bool {
        self == word.0
    }
}

impl PartialEq<Symbol> for &Ident {
    fn eq(&self, word: &Symbol) -> bool {
        *self == word.0
    }
}

impl PartialEq<Symbol> for Path {
    /// A path names a helper when its last segment does: `describe` or `oxmcp_server::describe`.
    fn eq(&self, word: &Symbol) -> bool {
        self.segments.last().is_some_and(|s| s.ident == word.0)
    }
}

impl fmt::Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}
