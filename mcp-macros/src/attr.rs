//! Parsing of the attributes: `#[tool(...)]` (on an impl, a method or a function),
//! `#[describe("...")]` and `#[param(...)]`.
//!
//! Parsers return values and push problems to the [`Ctxt`], so the user sees
//! every bad attribute at once (`serde_derive`: `internals/attr.rs`).

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, Ident, Lit, LitBool, LitStr, Meta, Token, Visibility};

use crate::ctxt::Ctxt;
use crate::param_rules::{is_rule_key, ParamRules};
use crate::symbol::{
    Symbol, ALLOW_UNKNOWN_ARGUMENTS, CLIENT, CLIENT_CAPABILITIES, DECLARED_TOOL_KEYS, DEFAULT,
    DESCRIBE, DESCRIPTION, DESTRUCTIVE, IDEMPOTENT, IMPL_KEYS, NAME, ONE_OF, OPEN_WORLD, PARAM,
    PARAM_KEYS, READ_ONLY, RENAME, REQUIRES_CLIENT, REQUIRES_EXTENSIONS, SCOPES, TASK, TITLE, TOOL,
    TOOL_KEYS, TRAIT_KEYS, UI, VISIBILITIES, VISIBILITY,
};

/// One attribute value, remembering the tokens that set it (serde `attr.rs` `Attr`).
pub(crate) struct Attr<T> {
    name: Symbol,
    value: Option<T>,
}

impl<T> Attr<T> {
    fn none(name: Symbol) -> Self {
        Attr { name, value: None }
    }

    /// Sets the value; a second setting is reported at its own tokens.
    fn set<A: ToTokens>(&mut self, cx: &Ctxt, obj: A, value: T) {
        if self.value.is_some() {
            cx.error_spanned_by(
                obj,
                format!("duplicate `{}`: remove one of the two", self.name),
            );
        } else {
            self.value = Some(value);
        }
    }

    fn get(self) -> Option<T> {
        self.value
    }
}

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

/// Parses the arguments of an attribute written as `key = value, flag, ...`.
fn metas(cx: &Ctxt, tokens: TokenStream) -> Vec<Meta> {
    match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(tokens) {
        Ok(list) => list.into_iter().collect(),
        Err(err) => {
            cx.syn_error(err);
            Vec::new()
        }
    }
}

/// The arguments of a helper attribute (`#[tool]` alone has none).
fn attr_tokens(cx: &Ctxt, attr: &Attribute, example: &str) -> TokenStream {
    match &attr.meta {
        Meta::Path(_) => TokenStream::new(),
        Meta::List(list) => list.tokens.clone(),
        Meta::NameValue(nv) => {
            cx.error_spanned_by(nv, format!("expected parentheses: {example}"));
            TokenStream::new()
        }
    }
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
            let fix = match position {
                Position::Method => {
                    "describe a tool with #[describe(\"...\")] above the method (`description = ...` is for the impl block's #[tool])"
                }
                Position::Function => "describe a tool function with #[describe(\"...\")] above it",
                Position::Declared => {
                    "describe a declared tool with #[describe(\"...\")] above the method (`description = ...` is for the trait's #[tool])"
                }
            };
            cx.error_spanned_by(key, fix);
        } else {
            let (place, keys) = match position {
                Position::Method => ("#[tool(...)] on a tool method", TOOL_KEYS),
                Position::Function => ("#[tool(...)] on a function", TOOL_KEYS),
                Position::Declared => ("#[tool(...)] on a declared tool", DECLARED_TOOL_KEYS),
            };
            unknown_key(cx, key, place, keys);
        }
    }
    ToolOptions {
        name: name.get(),
        title: title.get(),
        read_only: read_only.get(),
        destructive: destructive.get(),
        idempotent: idempotent.get(),
        open_world: open_world.get(),
        requires_client: requires_client.get(),
        requires_extensions: requires_extensions.get(),
        task: task.get(),
        scopes: scopes.get(),
        ui: ui.get(),
        visibility: visibility.get(),
        allow_unknown_arguments: allow_unknown.get(),
        description_attempted,
    }
}

/// `key(a, b, ...)`: the items, or `None` once `not_list` (the key is not
/// written as a list) or `bad_item` (an item does not parse) is reported.
fn list_value<T: syn::parse::Parse>(
    cx: &Ctxt,
    meta: &Meta,
    not_list: &str,
    bad_item: &str,
) -> Option<Punctuated<T, Token![,]>> {
    let Meta::List(list) = meta else {
        cx.error_spanned_by(meta, not_list);
        return None;
    };
    match Punctuated::<T, Token![,]>::parse_terminated.parse2(list.tokens.clone()) {
        Ok(items) => Some(items),
        Err(err) => {
            cx.syn_error(syn::Error::new(err.span(), bad_item));
            None
        }
    }
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

/// `scopes("notes:read", "notes:write")`: OAuth scope tokens (RFC 6749
/// §3.3: printable ASCII without space, `"` or `\\`), each once.
fn scopes_value(cx: &Ctxt, meta: &Meta) -> Option<Vec<LitStr>> {
    let example = r#"#[tool(scopes("notes:write"))], or several: #[tool(scopes("notes:read", "notes:write"))]"#;
    let values: Punctuated<LitStr, Token![,]> = list_value(
        cx,
        meta,
        &format!("expected the OAuth scopes a caller's token needs: {example}"),
        &format!("expected scopes as string literals: {example}"),
    )?;
    if values.is_empty() {
        cx.error_spanned_by(
            meta,
            "`scopes()` names no scope: list those a caller's token needs, or remove it",
        );
        return None;
    }
    let mut out: Vec<LitStr> = Vec::new();
    for lit in values {
        let text = lit.value();
        let valid = !text.is_empty()
            && text
                .bytes()
                .all(|b| b == 0x21 || (0x23..=0x5b).contains(&b) || (0x5d..=0x7e).contains(&b));
        if !valid {
            let why = if text.is_empty() {
                "it is empty".to_owned()
            } else if text.contains(' ') {
                "a scope has no spaces: write each scope as its own string".to_owned()
            } else {
                "a scope is printable ASCII without `\"` or `\\`".to_owned()
            };
            cx.error_spanned_by(&lit, format!("invalid OAuth scope {text:?}: {why}"));
        } else if out.iter().any(|o| o.value() == text) {
            cx.error_spanned_by(
                &lit,
                format!("duplicate scope {text:?} in `scopes`: remove one of the two"),
            );
        } else {
            out.push(lit);
        }
    }
    Some(out)
}

/// `task = optional` or `task = required`.
fn task_value(cx: &Ctxt, meta: &Meta) -> Option<Ident> {
    let expected = "expected `task = optional` (a call may run as a task when the client supports tasks) or `task = required` (only as a task)";
    let Meta::NameValue(nv) = meta else {
        cx.error_spanned_by(meta, expected);
        return None;
    };
    match &nv.value {
        Expr::Path(p) => match p.path.get_ident() {
            Some(mode) if mode == "optional" || mode == "required" => Some(mode.clone()),
            _ => {
                cx.error_spanned_by(&nv.value, expected);
                None
            }
        },
        other => {
            cx.error_spanned_by(other, expected);
            None
        }
    }
}

/// `requires_extensions("io.modelcontextprotocol/ui", ...)`: extension
/// identifiers as string literals, each once (their form is checked by the
/// generated code, against the one rule `mcp-types` keeps).
fn requires_extensions_value(cx: &Ctxt, meta: &Meta) -> Option<Vec<LitStr>> {
    let example = r#"#[tool(requires_extensions("io.modelcontextprotocol/ui"))]"#;
    let ids: Punctuated<LitStr, Token![,]> = list_value(
        cx,
        meta,
        &format!("expected the extensions the tool needs: {example}"),
        &format!("expected extension identifiers as string literals: {example}"),
    )?;
    if ids.is_empty() {
        cx.error_spanned_by(
            meta,
            "`requires_extensions()` names no extension: list those the tool needs, or remove it",
        );
        return None;
    }
    let mut out: Vec<LitStr> = Vec::new();
    for lit in ids {
        if out.iter().any(|o| o.value() == lit.value()) {
            cx.error_spanned_by(
                &lit,
                format!(
                    "duplicate extension {:?} in `requires_extensions`: remove one of the two",
                    lit.value()
                ),
            );
        } else {
            out.push(lit);
        }
    }
    Some(out)
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

/// `ui = "ui://..."`: the URI of the tool's page.
fn ui_value(cx: &Ctxt, meta: &Meta) -> Option<LitStr> {
    let example = r#"#[tool(ui = "ui://notes/board")]"#;
    let uri = string_value(cx, meta, example)?;
    let text = uri.value();
    match text.strip_prefix("ui://") {
        Some(rest) if !rest.is_empty() => Some(uri),
        _ => {
            cx.error_spanned_by(
                &uri,
                format!("an app's page is a `ui://` resource: expected {example}, naming a #[resource(uri = \"ui://...\")] of this block"),
            );
            None
        }
    }
}

/// `visibility(model, app)`: who may call the tool, each once.
fn visibility_value(cx: &Ctxt, meta: &Meta) -> Option<Vec<Ident>> {
    let example = "#[tool(visibility(app))] (only the app's page calls the tool) or #[tool(visibility(model))] (only the model)";
    let names: Punctuated<Ident, Token![,]> = list_value(
        cx,
        meta,
        &format!("expected who may call the tool: {example}"),
        &format!("expected `model` or `app`: {example}"),
    )?;
    if names.is_empty() {
        cx.error_spanned_by(meta, format!("`visibility()` names no one: {example}"));
        return None;
    }
    let mut out: Vec<Ident> = Vec::new();
    for name in names {
        if !VISIBILITIES.iter().any(|v| name == v) {
            cx.error_spanned_by(&name, format!("unknown caller `{name}`: {example}"));
        } else if out.contains(&name) {
            cx.error_spanned_by(
                &name,
                format!("duplicate `{name}` in `visibility`: remove one of the two"),
            );
        } else {
            out.push(name);
        }
    }
    Some(out)
}

/// `requires_client(sampling, elicitation, roots)`: client capability names,
/// each known and listed once.
fn requires_client_value(cx: &Ctxt, meta: &Meta) -> Option<Vec<Ident>> {
    let valid = CLIENT_CAPABILITIES
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let example = format!(
        "#[tool(requires_client(sampling))], or several: #[tool(requires_client(elicitation, roots))]; the capabilities are {valid}"
    );
    let names: Punctuated<Ident, Token![,]> = list_value(
        cx,
        meta,
        &format!("expected the client capabilities the tool needs: {example}"),
        &format!("expected client capability names: {example}"),
    )?;
    if names.is_empty() {
        cx.error_spanned_by(
            meta,
            format!("`requires_client()` names no capability: list those the tool needs ({valid}), or remove it"),
        );
        return None;
    }
    let mut out: Vec<Ident> = Vec::new();
    for name in names {
        let text = name.to_string();
        if !CLIENT_CAPABILITIES.contains(&text.as_str()) {
            let hint = match similar(&text, CLIENT_CAPABILITIES.iter().copied()) {
                Some(near) => format!(" (did you mean `{near}`?)"),
                None if matches!(text.as_str(), "experimental" | "extensions" | "tasks") => {
                    format!(" (`{text}` is not one feature a call can be refused for: read `ctx.client_capabilities()` in the tool instead)")
                }
                None => String::new(),
            };
            cx.error_spanned_by(
                &name,
                format!("unknown client capability `{text}`: a tool can require {valid}{hint}"),
            );
        } else if out.contains(&name) {
            cx.error_spanned_by(
                &name,
                format!("duplicate client capability `{text}` in `requires_client`: remove one of the two"),
            );
        } else {
            out.push(name);
        }
    }
    Some(out)
}

/// A method-level `#[tool(...)]` inside a `#[tool]` impl block or trait.
pub(crate) fn method_tool_options(cx: &Ctxt, attr: &Attribute, position: Position) -> ToolOptions {
    let tokens = attr_tokens(cx, attr, "#[tool(name = \"...\", read_only, ...)]");
    tool_options(cx, tokens, position)
}

/// `key = "text"`.
fn string_value(cx: &Ctxt, meta: &Meta, example: &str) -> Option<LitStr> {
    if let Meta::NameValue(nv) = meta {
        if let Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) = &nv.value
        {
            return Some(lit.clone());
        }
        cx.error_spanned_by(&nv.value, format!("expected a string literal: {example}"));
    } else {
        cx.error_spanned_by(meta, format!("expected a string: {example}"));
    }
    None
}

/// `flag` (true) or `flag = true/false`.
fn flag_value(cx: &Ctxt, meta: &Meta) -> Option<bool> {
    let key = path_text(meta.path());
    match meta {
        Meta::Path(_) => Some(true),
        Meta::NameValue(nv) => {
            if let Expr::Lit(ExprLit {
                lit: Lit::Bool(LitBool { value, .. }),
                ..
            }) = &nv.value
            {
                Some(*value)
            } else {
                cx.error_spanned_by(
                    &nv.value,
                    format!("expected `true` or `false`: #[tool({key})] or #[tool({key} = false)]"),
                );
                None
            }
        }
        Meta::List(list) => {
            cx.error_spanned_by(
                list,
                format!("expected #[tool({key})] or #[tool({key} = false)]"),
            );
            None
        }
    }
}

fn unknown_key(cx: &Ctxt, key: &syn::Path, place: &str, expected: &[Symbol]) {
    let text = path_text(key);
    let list = expected
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let hint = match similar(&text, expected.iter().map(|s| s.0)) {
        Some(near) if expected.len() > 1 => format!("; did you mean `{near}`?"),
        _ => String::new(),
    };
    let one_of = if expected.len() == 1 { "" } else { "one of " };
    cx.error_spanned_by(
        key,
        format!("unknown key `{text}` in {place}: expected {one_of}{list}{hint}"),
    );
}

pub(crate) fn path_text(path: &syn::Path) -> String {
    path.to_token_stream().to_string().replace(' ', "")
}

/// The candidate closest to `word`, if it is close enough to be a typo.
pub(crate) fn similar<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, c)| *d <= (c.len().max(word.len()) / 3).max(1) && *d < word.len())
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Edit distance counting a swap of two neighbours as one edit ("optimal
/// string alignment"), so `frist` is one edit from `first`.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::{edit_distance, similar};

    #[test]
    fn typos() {
        assert_eq!(edit_distance("frist", "first"), 1);
        assert_eq!(edit_distance("read_onyl", "read_only"), 1);
        assert_eq!(edit_distance("abc", "abc"), 0);
        assert_eq!(edit_distance("", "ab"), 2);
        assert_eq!(similar("defualt", ["default"]), Some("default"));
        assert_eq!(similar("c", ["a", "b"]), None);
        assert_eq!(similar("query", ["a", "b"]), None);
    }
}

/// `#[describe("...")]`: the text, or `None` after reporting a malformed attribute.
pub(crate) fn describe(cx: &Ctxt, attr: &Attribute) -> Option<LitStr> {
    const EXAMPLE: &str = "#[describe(\"What the tool does\")]";
    match &attr.meta {
        Meta::List(list) => {
            let parsed = syn::parse2::<LitStr>(list.tokens.clone());
            if parsed.is_err() {
                cx.error_spanned_by(
                    &list.tokens,
                    format!("expected one string literal: {EXAMPLE}"),
                );
            }
            parsed.ok()
        }
        Meta::Path(path) => {
            cx.error_spanned_by(path, format!("#[describe] needs the text: {EXAMPLE}"));
            None
        }
        Meta::NameValue(nv) => {
            cx.error_spanned_by(nv, format!("expected parentheses: {EXAMPLE}"));
            None
        }
    }
}

/// `#[param(...)]`, in either form: `#[param(name, "text", default = expr,
/// rename = "wireName")]` above a method, or `#[param("text", default = expr,
/// rename = "wireName")]` on an argument.
pub(crate) struct ParamAttr {
    /// The attribute itself, for errors about it as a whole.
    pub(crate) tokens: TokenStream,
    pub(crate) name: Option<Ident>,
    pub(crate) description: Option<LitStr>,
    pub(crate) default: Option<Expr>,
    /// `rename = "dryRun"`: the parameter's name on the wire (checked in `check`).
    pub(crate) rename: Option<LitStr>,
    /// `min = 1, max = 16, pattern = "...", one_of(...)`, ...
    pub(crate) rules: ParamRules,
}

pub(crate) fn param(cx: &Ctxt, attr: &Attribute) -> Option<ParamAttr> {
    let tokens_of_attr = attr.to_token_stream();
    let tokens = match &attr.meta {
        Meta::List(list) => list.tokens.clone(),
        Meta::Path(path) => {
            cx.error_spanned_by(
                path,
                "#[param] needs a description: #[param(\"...\")] on the argument, or #[param(name, \"...\")] above the method",
            );
            return None;
        }
        Meta::NameValue(nv) => {
            cx.error_spanned_by(nv, "expected parentheses: #[param(\"...\")]");
            return None;
        }
    };
    let parser = |input: ParseStream<'_>| -> syn::Result<ParamAttr> {
        let mut out = ParamAttr {
            tokens: tokens_of_attr.clone(),
            name: None,
            description: None,
            default: None,
            rename: None,
            rules: ParamRules::default(),
        };
        if input.peek(Ident) && !input.peek2(Token![=]) {
            out.name = Some(input.parse()?);
            if input.is_empty() {
                return Ok(out);
            }
            input.parse::<Token![,]>()?;
        }
        if input.peek(LitStr) {
            out.description = Some(input.parse()?);
            if input.is_empty() {
                return Ok(out);
            }
            input.parse::<Token![,]>()?;
        }
        param_keys(cx, input, &mut out)?;
        Ok(out)
    };
    match parser.parse2(tokens) {
        Ok(parsed) => Some(parsed),
        Err(err) => {
            cx.syn_error(syn::Error::new(
                err.span(),
                format!(
                    "{err}: write #[param(\"...\")] on the argument, or #[param(name, \"...\")] above the method (optionally followed by `, default = <expr>`, `, rename = \"wireName\"` and rules such as `, min = 1, max = 16`)"
                ),
            ));
            None
        }
    }
}

/// The keys after a `#[param]`'s description: `default`, `rename` and the
/// rules (`min = 1`, `one_of(..)`, ...), into `out`.
fn param_keys(cx: &Ctxt, input: ParseStream<'_>, out: &mut ParamAttr) -> syn::Result<()> {
    let mut default = Attr::none(DEFAULT);
    let mut rename = Attr::none(RENAME);
    while !input.is_empty() {
        let key: Ident = input.call(syn::ext::IdentExt::parse_any)?;
        if key == ONE_OF && input.peek(syn::token::Paren) {
            let list;
            syn::parenthesized!(list in input);
            let values = Punctuated::<Expr, Token![,]>::parse_terminated(&list)?;
            out.rules.set_one_of(cx, key, values);
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
            continue;
        }
        input.parse::<Token![=]>()?;
        let value: Expr = input.parse()?;
        if is_rule_key(&key) {
            out.rules.set(cx, key, value);
        } else if key == ONE_OF {
            cx.error_spanned_by(
                &key,
                "expected the values in parentheses: one_of(\"celsius\", \"fahrenheit\")",
            );
        } else if key == DEFAULT {
            default.set(cx, &key, value);
        } else if key == RENAME {
            if let Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            }) = value
            {
                rename.set(cx, &key, lit);
            } else {
                cx.error_spanned_by(
                    &value,
                    "expected the parameter's name on the wire as a string literal: #[param(\"...\", rename = \"dryRun\")]",
                );
            }
        } else {
            unknown_key(cx, &key.clone().into(), "#[param(...)]", PARAM_KEYS);
        }
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    out.default = default.get();
    out.rename = rename.get();
    out.rules.check(cx);
    if let Some(default) = &out.default {
        out.rules.check_default(cx, default);
    }
    Ok(())
}

/// Which helper an attribute is, if any.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum Helper {
    Tool,
    Describe,
    Param,
}

pub(crate) fn helper(attr: &Attribute) -> Option<Helper> {
    let path = attr.path();
    if path == &TOOL {
        Some(Helper::Tool)
    } else if path == &DESCRIBE {
        Some(Helper::Describe)
    } else if path == &PARAM {
        Some(Helper::Param)
    } else {
        None
    }
}
