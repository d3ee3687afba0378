//! The options of a `#[tool(...)]`: on an impl block or a trait (the
//! toolbox's description, client and scopes), and on one tool (its name,
//! title, annotations, requirements and apps keys); which keys each place
//! takes, and where a key that belongs elsewhere goes instead.

use proc_macro2::{Span, TokenStream};
use syn::{Attribute, Expr, ExprLit, Ident, Lit, LitBool, LitStr, Meta, Visibility};

use super::suggest::unknown_key;
use super::values::{
    duration_value, flag_value, requires_client_value, requires_extensions_value,
    result_chars_value, scopes_value, string_value, task_value, ui_value, visibility_value,
};
use super::{attr_tokens, metas, path_text, Attr};
use crate::ctxt::Ctxt;
use crate::symbol::{
    ALLOW_UNKNOWN_ARGUMENTS, CACHE, CLIENT, DECLARED_TOOL_KEYS, DESCRIPTION, DESTRUCTIVE,
    IDEMPOTENT, IMPL_KEYS, KEEP_FULL_RESULT, MAX_RESULT_CHARS, NAME, OPEN_WORLD, READ_ONLY,
    REQUIRES_CLIENT, REQUIRES_EXTENSIONS, SCOPES, TASK, TIMEOUT, TITLE, TOOL_KEYS, TRAIT_KEYS, UI,
    VISIBILITY,
};

/// Where a tool's own `#[tool(...)]` sits, which decides the messages about it.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum Position {
    /// On a method of a `#[tool]` impl block.
    Method,
    /// On a free function.
    Function,
    /// On a method of a `#[tool]` trait: a tool of a server written elsewhere.
    Declared,
}

/// Where a block-level `#[tool(...)]` sits.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum Container {
    /// An impl block: a toolbox.
    Impl,
    /// A trait: the declaration of a foreign server's tools.
    Trait,
}

/// `#[tool(description = "...", client = ...)]` on an impl block or a trait.
pub(crate) struct ImplOptions {
    pub(crate) description: Option<LitStr>,
    /// The typed client of a toolbox: `client = false` turns it off,
    /// `client = "pub(crate)"` sets its visibility.
    pub(crate) client: ClientOption,
    /// `scopes("...")`: OAuth scopes every tool of the block needs.
    pub(crate) scopes: Option<Scopes>,
}

/// Whether (and how visibly) a toolbox gets a typed client.
pub(crate) enum ClientOption {
    /// `pub`: the attribute cannot see the type's own visibility.
    Default,
    /// `client = false`.
    Off,
    /// `client = "pub(crate)"`.
    Vis(Visibility),
}

/// A tool's own `#[tool(...)]`: rename, title and annotations.
#[derive(Default)]
pub(crate) struct ToolOptions {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) read_only: Option<bool>,
    pub(crate) destructive: Option<bool>,
    pub(crate) idempotent: Option<bool>,
    pub(crate) open_world: Option<bool>,
    /// `requires_client(sampling, ...)`: the client capabilities without
    /// which a call is refused (-32021) before the tool runs.
    pub(crate) requires_client: Option<RequiresClient>,
    /// `requires_extensions("io.modelcontextprotocol/ui")`: the extensions
    /// without which a call is refused (-32021) before the tool runs; each
    /// identifier is checked when the code compiles.
    pub(crate) requires_extensions: Option<Vec<LitStr>>,
    /// `task = optional` or `task = required`: whether a call may run as a
    /// task (the tasks extension).
    pub(crate) task: Option<Ident>,
    /// `timeout = "30s"`: how long one call may run, in milliseconds.
    pub(crate) timeout: Option<u64>,
    /// `max_result_chars = 300_000`: the cap on one result's characters.
    pub(crate) max_result_chars: Option<u64>,
    /// `keep_full_result = "10m"`: how long the whole of a cut result stays
    /// readable by its caller, in milliseconds.
    pub(crate) keep_full_result: Option<u64>,
    /// `cache = "60s"`: how long a result is reused, in milliseconds (a
    /// read-only tool only).
    pub(crate) cache: Option<(u64, Span)>,
    /// `scopes("notes:write")`: the OAuth scopes a caller's token needs
    /// (with those of the block, when it names some).
    pub(crate) scopes: Option<Scopes>,
    /// `ui = "ui://..."`: the page (a resource of the block) the host shows
    /// with the tool's results (MCP Apps).
    pub(crate) ui: Option<LitStr>,
    /// `visibility(model, app)`: who may call the tool (MCP Apps).
    pub(crate) visibility: Option<Vec<Ident>>,
    /// `allow_unknown_arguments`: arguments the tool does not declare are
    /// ignored rather than refused.
    pub(crate) allow_unknown_arguments: Option<bool>,
    /// `description = ...` was given where it does not belong (already reported).
    pub(crate) description_attempted: bool,
}

/// `scopes("a", "b")` on a tool, a prompt, a resource or a toolbox.
#[derive(Clone)]
pub(crate) struct Scopes {
    /// The key, for errors about it as a whole.
    pub(crate) key: syn::Path,
    /// The scopes, valid and each once, in source order.
    pub(crate) values: Vec<LitStr>,
}

/// `requires_client(sampling, roots)` in a tool's own `#[tool(...)]`.
pub(crate) struct RequiresClient {
    /// The key, for errors about it as a whole.
    pub(crate) key: syn::Path,
    /// The capabilities, valid and each once, in source order.
    pub(crate) names: Vec<Ident>,
}

/// `#[tool(...)]` on an impl block or a trait; `args` are the macro's arguments.
pub(crate) fn impl_options(cx: &Ctxt, args: TokenStream, container: Container) -> ImplOptions {
    let mut description = Attr::none(DESCRIPTION);
    let mut client = Attr::none(CLIENT);
    let mut scopes = Attr::none(SCOPES);
    let whole = match container {
        Container::Impl => "the toolbox",
        Container::Trait => "the whole declaration",
    };
    for meta in metas(cx, args) {
        let key = meta.path();
        if key == &DESCRIPTION {
            if let Some(lit) = string_value(cx, &meta, r#"#[tool(description = "...")]"#) {
                description.set(cx, key, lit);
            }
        } else if key == &CLIENT && container == Container::Impl {
            if let Some(value) = client_value(cx, &meta) {
                client.set(cx, key, value);
            }
        } else if key == &SCOPES && container == Container::Impl {
            set_scopes(cx, &mut scopes, &meta);
        } else if key == &SCOPES {
            cx.error_spanned_by(
                key,
                "`scopes` has no effect on a declared server's tools: the server that runs them decides which scopes a token needs, and this client signs in with the scopes the server asks for. Remove it",
            );
        } else if TOOL_KEYS.iter().any(|k| key == k) {
            let text = path_text(key);
            let example = if key == &NAME || key == &TITLE {
                format!("#[tool({text} = \"...\")]")
            } else if key == &REQUIRES_CLIENT {
                format!("#[tool({text}(sampling))]")
            } else if key == &SCOPES {
                format!("#[tool({text}(\"notes:write\"))]")
            } else {
                format!("#[tool({text})]")
            };
            cx.error_spanned_by(
                key,
                format!(
                    "`{text}` belongs to one tool, not to {whole}: put {example} on the method"
                ),
            );
        } else if container == Container::Impl {
            unknown_key(cx, key, "#[tool(...)] on an impl block", IMPL_KEYS);
        } else {
            unknown_key(cx, key, "#[tool(...)] on a trait", TRAIT_KEYS);
        }
    }
    ImplOptions {
        description: description.get(),
        client: client.get().unwrap_or(ClientOption::Default),
        scopes: scopes.get(),
    }
}

/// `client = false`, `client = true` or `client = "pub(crate)"`.
fn client_value(cx: &Ctxt, meta: &Meta) -> Option<ClientOption> {
    const EXAMPLE: &str =
        "`client = false` (no typed client) or `client = \"pub(crate)\"` (its visibility)";
    let Meta::NameValue(nv) = meta else {
        cx.error_spanned_by(meta, format!("expected {EXAMPLE}"));
        return None;
    };
    match &nv.value {
        Expr::Lit(ExprLit {
            lit: Lit::Bool(LitBool { value, .. }),
            ..
        }) => Some(if *value {
            ClientOption::Default
        } else {
            ClientOption::Off
        }),
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => {
            let vis = lit.parse::<Visibility>().ok();
            if vis.is_none() {
                cx.error_spanned_by(
                    lit,
                    format!("expected a visibility such as \"pub\" or \"pub(crate)\": {EXAMPLE}"),
                );
            }
            vis.map(ClientOption::Vis)
        }
        other => {
            cx.error_spanned_by(other, format!("expected {EXAMPLE}"));
            None
        }
    }
}

/// The limits of a call, as given: `timeout`, `keep_full_result`, `cache`
/// and `max_result_chars`.
struct Limits {
    timeout: Attr<u64>,
    keep_full_result: Attr<u64>,
    cache: Attr<(u64, Span)>,
    max_result_chars: Attr<u64>,
}

impl Limits {
    fn new() -> Limits {
        Limits {
            timeout: Attr::none(TIMEOUT),
            keep_full_result: Attr::none(KEEP_FULL_RESULT),
            cache: Attr::none(CACHE),
            max_result_chars: Attr::none(MAX_RESULT_CHARS),
        }
    }

    /// Takes `meta` if it is one of the limits; `false` when it is not.
    fn take(&mut self, cx: &Ctxt, meta: &Meta) -> bool {
        let key = meta.path();
        if key == &TIMEOUT {
            if let Some(ms) = duration_value(cx, meta, &TIMEOUT) {
                self.timeout.set(cx, key, ms);
            }
        } else if key == &KEEP_FULL_RESULT {
            if let Some(ms) = duration_value(cx, meta, &KEEP_FULL_RESULT) {
                self.keep_full_result.set(cx, key, ms);
            }
        } else if key == &CACHE {
            if let Some(ms) = duration_value(cx, meta, &CACHE) {
                self.cache
                    .set(cx, key, (ms, syn::spanned::Spanned::span(key)));
            }
        } else if key == &MAX_RESULT_CHARS {
            if let Some(chars) = result_chars_value(cx, meta) {
                self.max_result_chars.set(cx, key, chars);
            }
        } else {
            return false;
        }
        true
    }
}

/// A cached result is served instead of a call: only a read-only tool
/// may have one.
fn check_cache(cx: &Ctxt, cache: Option<&(u64, Span)>, read_only: Option<bool>) {
    if let Some((_, span)) = cache {
        if read_only != Some(true) {
            cx.error_spanned_by(
                quote::quote_spanned!(*span=> cache),
                "a cached result is served again instead of a call: only a tool without effects may be cached; mark it `read_only` (#[tool(read_only, cache = \"60s\")]) or remove `cache`",
            );
        }
    }
}

/// A tool's own `#[tool(...)]`, on a method (`Position::Method`) or a function.
pub(crate) fn tool_options(cx: &Ctxt, args: TokenStream, position: Position) -> ToolOptions {
    let mut name = Attr::none(NAME);
    let mut title = Attr::none(TITLE);
    let mut read_only = Attr::none(READ_ONLY);
    let mut destructive = Attr::none(DESTRUCTIVE);
    let mut idempotent = Attr::none(IDEMPOTENT);
    let mut open_world = Attr::none(OPEN_WORLD);
    let mut allow_unknown = Attr::none(ALLOW_UNKNOWN_ARGUMENTS);
    let mut requires_client = Attr::none(REQUIRES_CLIENT);
    let mut requires_extensions = Attr::none(REQUIRES_EXTENSIONS);
    let mut task = Attr::none(TASK);
    let mut limits = Limits::new();
    let mut scopes = Attr::none(SCOPES);
    let mut ui = Attr::none(UI);
    let mut visibility = Attr::none(VISIBILITY);
    let mut description_attempted = false;
    for meta in metas(cx, args) {
        let key = meta.path();
        if key == &NAME {
            if let Some(lit) = string_value(cx, &meta, r#"#[tool(name = "...")]"#) {
                name.set(cx, key, lit);
            }
        } else if position == Position::Declared
            && TOOL_KEYS.iter().any(|k| key == k)
            && !DECLARED_TOOL_KEYS.iter().any(|k| key == k)
        {
            cx.error_spanned_by(key, declared_key_error(key));
        } else if key == &SCOPES {
            set_scopes(cx, &mut scopes, &meta);
        } else if apps_key(cx, &meta, position, &mut ui, &mut visibility) {
        } else if key == &TASK {
            if let Some(mode) = task_value(cx, &meta) {
                task.set(cx, key, mode);
            }
        } else if limits.take(cx, &meta) {
        } else if key == &REQUIRES_EXTENSIONS {
            if let Some(ids) = requires_extensions_value(cx, &meta) {
                requires_extensions.set(cx, key, ids);
            }
        } else if key == &REQUIRES_CLIENT {
            if let Some(names) = requires_client_value(cx, &meta) {
                let value = RequiresClient {
                    key: key.clone(),
                    names,
                };
                requires_client.set(cx, key, value);
            }
        } else if key == &TITLE {
            if let Some(lit) = string_value(cx, &meta, r#"#[tool(title = "...")]"#) {
                title.set(cx, key, lit);
            }
        } else if let Some(flag) = [
            (READ_ONLY, &mut read_only),
            (DESTRUCTIVE, &mut destructive),
            (IDEMPOTENT, &mut idempotent),
            (OPEN_WORLD, &mut open_world),
            (ALLOW_UNKNOWN_ARGUMENTS, &mut allow_unknown),
        ]
        .into_iter()
        .find_map(|(sym, attr)| (key == &sym).then_some(attr))
        {
            if let Some(value) = flag_value(cx, &meta) {
                flag.set(cx, key, value);
            }
        } else if key == &DESCRIPTION {
            description_attempted = true;
            cx.error_spanned_by(key, misplaced_description(position));
        } else {
            let (place, keys) = match position {
                Position::Method => ("#[tool(...)] on a tool method", TOOL_KEYS),
                Position::Function => ("#[tool(...)] on a function", TOOL_KEYS),
                Position::Declared => ("#[tool(...)] on a declared tool", DECLARED_TOOL_KEYS),
            };
            unknown_key(cx, key, place, keys);
        }
    }
    let cache = limits.cache.get();
    let read_only = read_only.get();
    check_cache(cx, cache.as_ref(), read_only);
    ToolOptions {
        name: name.get(),
        title: title.get(),
        read_only,
        destructive: destructive.get(),
        idempotent: idempotent.get(),
        open_world: open_world.get(),
        requires_client: requires_client.get(),
        requires_extensions: requires_extensions.get(),
        task: task.get(),
        timeout: limits.timeout.get(),
        max_result_chars: limits.max_result_chars.get(),
        keep_full_result: limits.keep_full_result.get(),
        cache,
        scopes: scopes.get(),
        ui: ui.get(),
        visibility: visibility.get(),
        allow_unknown_arguments: allow_unknown.get(),
        description_attempted,
    }
}

/// How to describe a tool, for a `description = ...` in its own `#[tool(...)]`.
fn misplaced_description(position: Position) -> &'static str {
    match position {
        Position::Method => {
            "describe a tool with #[describe(\"...\")] above the method (`description = ...` is for the impl block's #[tool])"
        }
        Position::Function => "describe a tool function with #[describe(\"...\")] above it",
        Position::Declared => {
            "describe a declared tool with #[describe(\"...\")] above the method (`description = ...` is for the trait's #[tool])"
        }
    }
}

/// A method-level `#[tool(...)]` inside a `#[tool]` impl block or trait.
pub(crate) fn method_tool_options(cx: &Ctxt, attr: &Attribute, position: Position) -> ToolOptions {
    let tokens = attr_tokens(cx, attr, "#[tool(name = \"...\", read_only, ...)]");
    tool_options(cx, tokens, position)
}

/// Why a key of a tool's `#[tool(...)]` does not belong on a declared tool.
fn declared_key_error(key: &syn::Path) -> String {
    let text = path_text(key);
    let why = if key == &REQUIRES_CLIENT || key == &REQUIRES_EXTENSIONS || key == &TASK {
        "the server that runs the tool refuses a client without the capability; this client declares its own capabilities when it connects. Remove it"
    } else if key == &SCOPES {
        "the server that runs the tool decides which scopes a token needs, and this client signs in with the scopes the server asks for. Remove it"
    } else if key == &UI || key == &VISIBILITY {
        "the server that runs the tool says which page it shows and who may call it; remove it"
    } else if key == &ALLOW_UNKNOWN_ARGUMENTS {
        "the server that runs the tool decides which arguments it accepts; remove it"
    } else {
        "the server that runs the tool sets its title and annotations; remove it"
    };
    format!("`{text}` has no effect on a declared tool: {why} (a declared tool's #[tool(...)] takes only `name`)")
}

/// Parses `scopes(...)` into `attr` (reporting a repeated key).
fn set_scopes(cx: &Ctxt, attr: &mut Attr<Scopes>, meta: &Meta) {
    if let Some(values) = scopes_value(cx, meta) {
        let key = meta.path().clone();
        attr.set(
            cx,
            &key,
            Scopes {
                key: key.clone(),
                values,
            },
        );
    }
}

/// Reads `ui = "..."` or `visibility(...)` (MCP Apps) into its slot;
/// `false` for any other key.
fn apps_key(
    cx: &Ctxt,
    meta: &Meta,
    position: Position,
    ui: &mut Attr<LitStr>,
    visibility: &mut Attr<Vec<Ident>>,
) -> bool {
    let key = meta.path();
    if key == &UI && position == Position::Function {
        cx.error_spanned_by(
            key,
            "a tool function has no block to hold its page: put the tool and its page (a #[resource(uri = \"ui://...\")] method) in one #[tool] impl block",
        );
    } else if key == &UI {
        if let Some(uri) = ui_value(cx, meta) {
            ui.set(cx, key, uri);
        }
    } else if key == &VISIBILITY {
        if let Some(who) = visibility_value(cx, meta) {
            visibility.set(cx, key, who);
        }
    } else {
        return false;
    }
    true
}
