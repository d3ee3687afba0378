//! The value of each `#[tool(...)]` key, parsed and checked: a string, a
//! flag, a list (of scopes, client capabilities, extensions, callers), a
//! task mode, an app's page.

use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Ident, Lit, LitBool, LitStr, Meta, Token};

use super::path_text;
use super::suggest::similar;
use crate::ctxt::Ctxt;
use crate::symbol::{Symbol, CLIENT_CAPABILITIES, VISIBILITIES};

/// `key = "text"`.
pub(super) fn string_value(cx: &Ctxt, meta: &Meta, example: &str) -> Option<LitStr> {
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
pub(super) fn flag_value(cx: &Ctxt, meta: &Meta) -> Option<bool> {
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

/// `scopes("notes:read", "notes:write")`: OAuth scope tokens (RFC 6749
/// §3.3: printable ASCII without space, `"` or `\\`), each once.
pub(super) fn scopes_value(cx: &Ctxt, meta: &Meta) -> Option<Vec<LitStr>> {
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
pub(super) fn task_value(cx: &Ctxt, meta: &Meta) -> Option<Ident> {
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
/// generated code, against the one rule `oxmcp-types` keeps).
pub(super) fn requires_extensions_value(cx: &Ctxt, meta: &Meta) -> Option<Vec<LitStr>> {
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

/// `ui = "ui://..."`: the URI of the tool's page.
pub(super) fn ui_value(cx: &Ctxt, meta: &Meta) -> Option<LitStr> {
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
pub(super) fn visibility_value(cx: &Ctxt, meta: &Meta) -> Option<Vec<Ident>> {
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
pub(super) fn requires_client_value(cx: &Ctxt, meta: &Meta) -> Option<Vec<Ident>> {
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

/// The longest `#[tool(timeout = ...)]`: a call longer than a day belongs
/// in a task, and a larger figure is a slip of the unit.
const MAX_TIMEOUT_MS: u64 = 24 * 60 * 60 * 1000;

/// `timeout = "30s"` or `cache = "60s"` (`ms`, `s`, `m` or `h` after a
/// whole number): the milliseconds, more than zero and at most a day.
pub(super) fn duration_value(cx: &Ctxt, meta: &Meta, key: &Symbol) -> Option<u64> {
    let example = format!(r#"#[tool({key} = "30s")] (a whole number and ms, s, m or h)"#);
    let lit = string_value(cx, meta, &example)?;
    let text = lit.value();
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let scale: u64 = match unit.trim() {
        "ms" => 1,
        "s" => 1000,
        "m" | "min" => 60 * 1000,
        "h" => 60 * 60 * 1000,
        _ => {
            cx.error_spanned_by(&lit, format!("`{text}` is not a duration: {example}"));
            return None;
        }
    };
    let Ok(amount) = digits.parse::<u64>() else {
        cx.error_spanned_by(&lit, format!("`{text}` is not a duration: {example}"));
        return None;
    };
    let ms = amount.saturating_mul(scale);
    let timeout = key.0 == crate::symbol::TIMEOUT.0;
    if ms == 0 {
        let why = if timeout {
            "a timeout of zero would stop every call before it starts: give a duration above zero, or no timeout"
        } else {
            &format!("`{key}` for no time keeps nothing: give a duration above zero, or no `{key}`")
        };
        cx.error_spanned_by(&lit, why);
        return None;
    }
    if ms > MAX_TIMEOUT_MS {
        let why = if timeout {
            format!("a timeout of `{text}` is more than a day: a call that long belongs in a task (`#[tool(task = optional)]`)")
        } else {
            format!("`{key} = \"{text}\"` is more than a day: a result that old is stale; give at most `24h`")
        };
        cx.error_spanned_by(&lit, why);
        return None;
    }
    Some(ms)
}

/// The largest `#[tool(max_result_chars = ...)]`: what Claude hosts accept
/// in `_meta["anthropic/maxResultSizeChars"]` (oxmcp-server's `MAX_RESULT_CHARS`).
const MAX_RESULT_CHARS: u64 = 500_000;

/// `max_result_chars = 300_000`: a whole number of characters, 1 to
/// [`MAX_RESULT_CHARS`].
pub(super) fn result_chars_value(cx: &Ctxt, meta: &Meta) -> Option<u64> {
    const EXAMPLE: &str = "#[tool(max_result_chars = 300_000)] (characters, 1 to 500_000)";
    let Meta::NameValue(nv) = meta else {
        cx.error_spanned_by(meta, format!("expected a number: {EXAMPLE}"));
        return None;
    };
    let Expr::Lit(ExprLit {
        lit: Lit::Int(lit), ..
    }) = &nv.value
    else {
        cx.error_spanned_by(&nv.value, format!("expected a whole number: {EXAMPLE}"));
        return None;
    };
    match lit.base10_parse::<u64>() {
        Ok(0) => {
            cx.error_spanned_by(lit, "a result cap of zero leaves nothing of any result: give at least 1, or no `max_result_chars` (the server's cap, 100_000 by default)");
            None
        }
        Ok(n) if n <= MAX_RESULT_CHARS => Some(n),
        _ => {
            cx.error_spanned_by(lit, format!("a result cap above {MAX_RESULT_CHARS} characters is more than Claude hosts accept: {EXAMPLE}"));
            None
        }
    }
}
