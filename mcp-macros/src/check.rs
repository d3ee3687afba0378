//! Whole-item checks, once the model is built (`serde_derive`: `internals/check.rs`).

use std::collections::HashMap;

use proc_macro2::Span;
use quote::ToTokens;
use syn::{GenericParam, Ident, LitStr, Type};

use crate::ast::{
    Arg, ArgKind, CompleteAttr, DeclaredSig, ItemKind, ResourceAttr, Tool, ToolFn, ToolImpl,
    ToolTrait,
};
use crate::attr::{ClientOption, Position};
use crate::ctxt::Ctxt;
use crate::param_rules::ParamRules;
use crate::symbol::{CLIENT_METHODS, DECLARED_CLIENT_METHODS};

/// The spec's rule for tool names: 1 to 128 characters of `[A-Za-z0-9_.-]`.
pub(crate) fn is_valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// The rule for a parameter's `rename`: 1 to 64 characters of
/// `[A-Za-z0-9_.-]`, the property names every model provider accepts in a
/// tool's input schema (`dryRun`, `old_text`, `max-results`).
pub(crate) fn is_valid_property_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

pub(crate) fn check_impl(cx: &Ctxt, model: &ToolImpl) {
    if let Some(path) = &model.trait_path {
        cx.error_spanned_by(
            path,
            "#[tool] goes on an inherent impl block (`impl MyTools { ... }`), not on a trait impl",
        );
        return;
    }
    match &model.description {
        None if model.description_attempted => {}
        None => cx.error_at(
            Span::call_site(),
            "the toolbox needs a description for the model: write #[tool(description = \"...\")] on the impl block",
        ),
        Some(lit) if lit.value().trim().is_empty() => cx.error_spanned_by(
            lit,
            "empty description: say what the toolbox is for, e.g. #[tool(description = \"Arithmetic on two numbers\")]",
        ),
        Some(_) => {}
    }
    if model.type_name.is_none() {
        cx.error_spanned_by(
            &model.self_ty,
            "#[tool] goes on an impl block of a named type (`impl MyTools { ... }`)",
        );
    }
    if !model.has_candidates {
        let ty = model.self_ty.to_token_stream();
        cx.error_spanned_by(
            &model.self_ty,
            format!("this #[tool] impl has no tools: every `pub fn` of it is a tool; write `pub fn` with a #[describe(\"...\")] above it, or remove #[tool] from `impl {ty}`"),
        );
    }
    let client = match (&model.client, &model.type_name) {
        (ClientOption::Off, _) | (_, None) => None,
        (_, Some(name)) => Some(format!("{name}Client")),
    };
    for tool in &model.tools {
        cx.section(tool.section);
        check_tool(cx, tool);
        let in_client = tool.is_tool() || matches!(tool.kind, ItemKind::Prompt(_));
        if let (Some(client), true) = (&client, in_client) {
            check_client_method_name(cx, tool, client, CLIENT_METHODS, true);
        }
        if let ItemKind::Complete(c) = &tool.kind {
            check_completion_target(cx, c, &model.tools);
        }
        if let (Some(uri), true) = (&tool.options.ui, tool.is_tool()) {
            check_page(cx, uri, &model.tools);
        }
    }
    check_unique_names(cx, &model.tools);
    cx.section(0);
}

/// A tool's `ui = "ui://..."` names a `#[resource(uri = ...)]` of the block.
fn check_page(cx: &Ctxt, uri: &syn::LitStr, items: &[Tool]) {
    let wanted = uri.value();
    let pages: Vec<String> = items
        .iter()
        .filter_map(|t| match &t.kind {
            ItemKind::Resource(ResourceAttr { uri: Some(u), .. })
                if u.value().starts_with("ui://") =>
            {
                Some(u.value())
            }
            _ => None,
        })
        .collect();
    if pages.contains(&wanted) {
        return;
    }
    let known = if pages.is_empty() {
        "this block has none".to_owned()
    } else {
        let list: Vec<String> = pages.iter().map(|p| format!("{p:?}")).collect();
        format!("this block's are {}", list.join(", "))
    };
    cx.error_spanned_by(
        uri,
        format!("{wanted:?} names no page of this block: declare it here with #[resource(uri = {wanted:?})] on a method returning the page's HTML ({known})"),
    );
}

/// A `#[complete(target, argument)]` names a prompt or template of the
/// block, and one of its arguments or variables.
fn check_completion_target(cx: &Ctxt, c: &CompleteAttr, items: &[Tool]) {
    let target = items.iter().find(|t| {
        t.ident == c.target
            && matches!(
                &t.kind,
                ItemKind::Prompt(_)
                    | ItemKind::Resource(ResourceAttr {
                        template: Some(_),
                        ..
                    })
            )
    });
    let Some(target) = target else {
        let known: Vec<String> = items
            .iter()
            .filter(|t| {
                matches!(
                    &t.kind,
                    ItemKind::Prompt(_)
                        | ItemKind::Resource(ResourceAttr {
                            template: Some(_),
                            ..
                        })
                )
            })
            .map(|t| format!("`{}`", t.ident))
            .collect();
        let known = if known.is_empty() {
            "this block has none".to_owned()
        } else {
            format!("this block's are {}", known.join(", "))
        };
        cx.error_spanned_by(
            &c.target,
            format!("`{}` is not a #[prompt] or #[resource(template = ...)] method of this block: #[complete] names the method whose argument it completes ({known})", c.target),
        );
        return;
    };
    let wanted = c.argument.to_string();
    let names: Vec<String> = match &target.kind {
        ItemKind::Resource(r) => r.variables.clone(),
        _ => target
            .args
            .iter()
            .filter(|a| matches!(a.kind, ArgKind::Param(_)))
            .map(Arg::rust_name)
            .collect(),
    };
    // A renamed prompt argument may be named in Rust or on the wire.
    let by_wire_name = !matches!(target.kind, ItemKind::Resource(_))
        && target
            .args
            .iter()
            .any(|a| matches!(a.kind, ArgKind::Param(_)) && a.wire_name() == wanted);
    if !names.contains(&wanted) && !by_wire_name {
        let (what, plural) = if matches!(target.kind, ItemKind::Resource(_)) {
            ("a variable of the template", "variables")
        } else {
            ("an argument of the prompt", "arguments")
        };
        let list = names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ");
        cx.error_spanned_by(
            &c.argument,
            format!(
                "`{wanted}` is not {what} `{}`: its {plural} are {list}",
                target.ident
            ),
        );
    }
}

pub(crate) fn check_trait(cx: &Ctxt, model: &ToolTrait) {
    check_trait_header(cx, model);
    match &model.description {
        None if model.description_attempted => {}
        None => cx.error_at(
            Span::call_site(),
            format!("the declaration needs a description: write #[tool(description = \"...\")] on `trait {}` (say what the server is for)", model.ident),
        ),
        Some(lit) if lit.value().trim().is_empty() => cx.error_spanned_by(
            lit,
            "empty description: say what the server is for, e.g. #[tool(description = \"The weather service\")]",
        ),
        Some(_) => {}
    }
    if !model.has_candidates {
        cx.error_spanned_by(
            &model.ident,
            format!("this #[tool] trait declares no tools: add `async fn name(&self, ...) -> Output;` with a #[describe(\"...\")] for each tool of the server, or remove #[tool] from `trait {}`", model.ident),
        );
    }
    let client = format!("{}Client", model.ident);
    let reserved: Vec<&str> = CLIENT_METHODS
        .iter()
        .chain(DECLARED_CLIENT_METHODS)
        .copied()
        .collect();
    for tool in &model.tools {
        cx.section(tool.section);
        check_tool(cx, tool);
        check_client_method_name(cx, tool, &client, &reserved, false);
        if tool.is_tool() {
            check_declared_output(cx, &tool.output);
        }
    }
    check_unique_names(cx, &model.tools);
    cx.section(0);
}

/// What a `#[tool]` trait cannot be: unsafe, auto, generic, a subtrait.
fn check_trait_header(cx: &Ctxt, model: &ToolTrait) {
    let ident = &model.ident;
    if let Some(unsafety) = &model.unsafety {
        cx.error_spanned_by(
            unsafety,
            "a #[tool] trait declares the tools of a server: it cannot be `unsafe`",
        );
    }
    if let Some(auto) = &model.auto_token {
        cx.error_spanned_by(auto, "a #[tool] trait cannot be an `auto` trait");
    }
    if !model.generics.params.is_empty() || model.generics.where_clause.is_some() {
        cx.error_spanned_by(
            &model.generics,
            format!("a #[tool] trait cannot be generic: `{ident}` declares the tools of one server, whose schemas are concrete"),
        );
    }
    if let Some(supertraits) = &model.supertraits {
        cx.error_spanned_by(
            supertraits,
            format!("a #[tool] trait cannot have supertraits: `{ident}` only declares tools, and is not emitted (its client `{ident}Client` is)"),
        );
    }
}

/// A declared tool's signature: no body, `async`, `&self`.
fn check_declared_sig(cx: &Ctxt, tool: &Tool, sig: &DeclaredSig) {
    let name = &tool.ident;
    if let Some(body) = sig.body {
        cx.error_at(
            body,
            format!("declared tool `{name}` cannot have a body: the server runs it, and the client's method calls the server; end the declaration with `;`"),
        );
    }
    if let Some(fn_token) = &sig.not_async {
        cx.error_spanned_by(
            fn_token,
            format!("declared tool `{name}` must be an `async fn`: write `async fn {name}(&self, ...)` (its client method awaits the server)"),
        );
    }
    match &sig.receiver {
        None => cx.error_spanned_by(
            name,
            format!("declared tool `{name}` needs a `&self` receiver: write `async fn {name}(&self, ...)`"),
        ),
        Some(Err(receiver)) => cx.error_spanned_by(
            receiver,
            format!("declared tool `{name}` takes `&self`: its client method borrows the client"),
        ),
        Some(Ok(())) => {}
    }
}

/// A declared return type the client cannot decode into whatever its
/// name: a reference or `impl Trait`. (The rest is the compiler's, through
/// `ToolOutput`.)
fn check_declared_output(cx: &Ctxt, ty: &Type) {
    match ty {
        Type::Group(g) => check_declared_output(cx, &g.elem),
        Type::Paren(p) => check_declared_output(cx, &p.elem),
        Type::Reference(r) => {
            let owned = match &*r.elem {
                Type::Path(p) if p.path.is_ident("str") => "`String`",
                _ => "an owned type",
            };
            cx.error_spanned_by(
                ty,
                format!("a declared tool returns an owned value (the client decodes it from the server's answer): use {owned} instead of a reference"),
            );
        }
        Type::ImplTrait(_) => cx.error_spanned_by(
            ty,
            "a declared tool's return type must be concrete: `String`, a number, `Json<T>`, `Vec<ContentBlock>` or `CallToolResult`",
        ),
        _ => {}
    }
}

/// A tool method named like one of the client's own methods (`new`, ...).
fn check_client_method_name(
    cx: &Ctxt,
    tool: &Tool,
    client: &str,
    reserved: &[&str],
    can_turn_off: bool,
) {
    let ident = tool.ident.to_string();
    let ident = ident.trim_start_matches("r#");
    if !reserved.contains(&ident) {
        return;
    }
    let off = if can_turn_off {
        ", or turn the client off with #[tool(description = \"...\", client = false)] on the impl block"
    } else {
        ""
    };
    cx.error_spanned_by(
        &tool.ident,
        format!("a tool method cannot be named `{ident}`: the generated `{client}` has its own `{client}::{ident}`; rename the method and keep the tool's name with #[tool(name = \"{name}\")]{off}", name = tool.name()),
    );
}

pub(crate) fn check_fn(cx: &Ctxt, model: &ToolFn) {
    if let Some(tool) = &model.tool {
        check_tool(cx, tool);
    }
}

fn check_tool(cx: &Ctxt, tool: &Tool) {
    let fn_name = &tool.ident;
    if let Some(sig) = &tool.declared {
        check_declared_sig(cx, tool, sig);
    }
    if let Some(unsafety) = &tool.unsafety {
        cx.error_spanned_by(
            unsafety,
            format!("tool `{fn_name}` cannot be an `unsafe fn`: a client calls it with any arguments it likes; make it safe (and keep the `unsafe` block inside)"),
        );
    }
    let (above, not_a_tool) = match tool.position {
        Position::Function => ("the function", String::new()),
        Position::Declared => ("the method", String::new()),
        Position::Method => (
            "the method",
            format!(" (if `{fn_name}` is not a tool, make it private or move it to an impl block without #[tool])"),
        ),
    };
    if matches!(tool.kind, ItemKind::Broken) {
        return;
    }
    let noun = tool.kind.noun();
    let not_a_tool = if tool.is_tool() {
        not_a_tool
    } else {
        String::new()
    };
    match &tool.description {
        _ if matches!(tool.kind, ItemKind::Complete(_)) => {}
        None if tool.description_attempted => {}
        None => cx.error_spanned_by(
            fn_name,
            format!("{noun} `{fn_name}` needs a description: add #[describe(\"...\")] above it{not_a_tool}"),
        ),
        Some(lit) if lit.value().trim().is_empty() => cx.error_spanned_by(
            lit,
            format!("empty description: say what the {noun} `{fn_name}` does, for the model"),
        ),
        Some(_) => {}
    }

    check_name_and_title(cx, tool);
    if let (Some(scopes), ItemKind::Complete(c)) = (&tool.options.scopes, &tool.kind) {
        let target = &c.target;
        cx.error_spanned_by(
            &scopes.key,
            format!("a completion function cannot declare `scopes`: a completion needs the scopes of the prompt or resource template it completes; remove it here, and put #[tool(scopes(\"...\"))] on `{target}` instead"),
        );
    }
    if !tool.is_tool() {
        let apps_keys = [
            tool.options.ui.as_ref().map(ToTokens::to_token_stream),
            tool.options
                .visibility
                .as_ref()
                .and_then(|v| v.first())
                .map(ToTokens::to_token_stream),
        ];
        for key in apps_keys.into_iter().flatten() {
            cx.error_spanned_by(
                key,
                format!("`ui` and `visibility` belong to a tool (the page the host shows with its results, who may call it); a {noun} cannot declare them: remove it"),
            );
        }
    }
    if let (Some(_), false) = (tool.options.allow_unknown_arguments, tool.is_tool()) {
        cx.error_at(
            tool.name_span(),
            format!("`allow_unknown_arguments` lets a tool ignore arguments it does not declare; a {noun} cannot declare it: remove it"),
        );
    }
    if let (Some(requires), false) = (&tool.options.requires_client, tool.is_tool()) {
        cx.error_spanned_by(
            &requires.key,
            format!("`requires_client` refuses a tool call from a client without the capability; a {noun} cannot declare it: remove it, and check `ctx.client_capabilities()` in the {noun} instead"),
        );
    }

    for param in &tool.generics.params {
        if !matches!(param, GenericParam::Lifetime(_)) {
            cx.error_spanned_by(
                param,
                format!("tool `{fn_name}` cannot be generic: its schema needs concrete argument types; write a tool per type, each calling a generic helper"),
            );
        }
    }

    check_params(cx, tool, above);
    if let Type::ImplTrait(ty) = &tool.output {
        cx.error_spanned_by(
            ty,
            "a tool's return type must be concrete (e.g. `String`, `Json<T>`, `Result<_, ToolError>`), not `impl Trait`",
        );
    }
}

/// The tool's name (valid for MCP) and its `title` (not empty).
fn check_name_and_title(cx: &Ctxt, tool: &Tool) {
    let name = tool.name();
    if !tool.is_tool() {
        if name.is_empty() {
            cx.error_at(
                tool.name_span(),
                "empty name: write a name, or remove `name`",
            );
        }
    } else if !is_valid_tool_name(&name) {
        let fix = if tool.options.name.is_some() {
            "fix the name"
        } else {
            "rename it with #[tool(name = \"...\")]"
        };
        let length = if name.len() > 128 {
            format!(" (this one has {})", name.len())
        } else {
            String::new()
        };
        cx.error_at(
            tool.name_span(),
            format!("`{name}` is not a valid tool name: a name is 1 to 128 characters{length} of `A-Z`, `a-z`, `0-9`, `_`, `-` and `.`; {fix}"),
        );
    }
    if let Some(title) = tool.title() {
        if title.value().trim().is_empty() {
            cx.error_spanned_by(
                title,
                "empty title: write a display name, or remove `title`",
            );
        }
    }
}

/// Each parameter of the tool: described, and of a type a tool can take;
/// `above` names where a `#[param(name, "...")]` goes.
fn check_params(cx: &Ctxt, tool: &Tool, above: &str) {
    let fn_name = &tool.ident;
    for arg in &tool.args {
        let ArgKind::Param(info) = &arg.kind else {
            continue;
        };
        let arg_name = &arg.ident;
        // A template's variables are named by the template: no description.
        let bound = matches!(tool.kind, ItemKind::Resource(_));
        if !info.described && !info.typo_target && !bound {
            let noun = tool.kind.noun();
            cx.error_spanned_by(
                arg_name,
                format!("parameter `{arg_name}` of {noun} `{fn_name}` needs a description: write #[param(\"...\")] before it, or #[param({arg_name}, \"...\")] above {above}"),
            );
        } else if let Some(lit) = &info.description {
            if lit.value().trim().is_empty() {
                cx.error_spanned_by(
                    lit,
                    format!("empty description: say what `{arg_name}` is, for the model"),
                );
            }
        }
        if let Some(rename) = &info.rename {
            check_rename(cx, arg_name, rename);
        }
        check_rules_place(cx, &info.rules, tool);
        check_arg_type(cx, &arg.ty, tool.position);
    }
    check_unique_wire_names(cx, tool);
}

/// A `rename = "..."`: a property name of the input schema.
fn check_rename(cx: &Ctxt, arg_name: &Ident, rename: &LitStr) {
    let name = rename.value();
    if name.is_empty() {
        cx.error_spanned_by(
            rename,
            format!("empty `rename`: write the name `{arg_name}` has on the wire, e.g. rename = \"dryRun\", or remove `rename` to keep `{arg_name}`"),
        );
    } else if !is_valid_property_name(&name) {
        let length = if name.len() > 64 {
            format!(" (this one has {})", name.len())
        } else {
            String::new()
        };
        cx.error_spanned_by(
            rename,
            format!("{name:?} is not a valid parameter name: a name on the wire is 1 to 64 characters{length} of `A-Z`, `a-z`, `0-9`, `_`, `-` and `.` (e.g. \"dryRun\"); fix the `rename`"),
        );
    }
}

/// The rules of a parameter (`min`, `pattern`, ...) are checked on a
/// tool's calls: a declared tool's server checks its own arguments, and a
/// prompt's are strings it checks itself.
fn check_rules_place(cx: &Ctxt, rules: &ParamRules, tool: &Tool) {
    let Some(key) = rules.first_key() else {
        return;
    };
    let noun = tool.kind.noun();
    if tool.position == Position::Declared {
        cx.error_spanned_by(
            key,
            format!("`{key}` has no effect on a declared tool: the server that runs it checks its arguments; remove it"),
        );
    } else if !tool.is_tool() {
        cx.error_spanned_by(
            key,
            format!("`{key}` is checked on a tool's arguments, not on a {noun}'s: check the value in the {noun} (return `RequestError::invalid_params(...)`), or remove it"),
        );
    }
}

/// Two parameters of one tool with one name on the wire (after renames),
/// reported at the second: at its `rename`, else at its name.
fn check_unique_wire_names(cx: &Ctxt, tool: &Tool) {
    let noun = tool.kind.noun();
    let fn_name = &tool.ident;
    let mut seen: Vec<(String, &Ident)> = Vec::new();
    for arg in &tool.args {
        if !matches!(arg.kind, ArgKind::Param(_)) {
            continue;
        }
        let wire = arg.wire_name();
        if arg.rename().is_some() && !is_valid_property_name(&wire) {
            continue; // Reported by `check_rename`.
        }
        let Some((_, first)) = seen.iter().find(|(w, _)| *w == wire) else {
            seen.push((wire, &arg.ident));
            continue;
        };
        let message = format!("parameters `{first}` and `{}` of {noun} `{fn_name}` both have the name `{wire}` on the wire: each needs its own; give one another name with `rename = \"...\"` in its #[param]", arg.ident);
        match arg.rename() {
            Some(rename) => cx.error_spanned_by(rename, message),
            None => cx.error_spanned_by(&arg.ident, message),
        }
    }
}

fn check_arg_type(cx: &Ctxt, ty: &Type, position: Position) {
    let (coded, from) = if position == Position::Declared {
        ("encoded", "as JSON")
    } else {
        ("decoded", "from JSON")
    };
    match ty {
        Type::ImplTrait(_) => cx.error_spanned_by(
            ty,
            format!("a tool's argument needs a concrete type: it is {coded} {from} and described by a JSON Schema"),
        ),
        Type::Reference(r) => {
            let owned = match &*r.elem {
                Type::Path(p) if p.path.is_ident("str") => "`String`",
                Type::Slice(_) => "`Vec<_>`",
                _ => "an owned type",
            };
            let message = if position == Position::Declared {
                format!("a declared tool's argument is an owned value, as in the server's signature: use {owned} instead of a reference")
            } else {
                format!("a tool's argument is decoded from JSON into an owned value: use {owned} instead of a reference")
            };
            cx.error_spanned_by(ty, message);
        }
        Type::Group(g) => check_arg_type(cx, &g.elem, position),
        _ => {}
    }
}

/// Two tools with one name, reported at the second. Tools under different
/// `#[cfg]`s may share a name (one of them is compiled out).
fn check_unique_names(cx: &Ctxt, tools: &[Tool]) {
    let mut seen: HashMap<(String, String), &Tool> = HashMap::new();
    for tool in tools {
        let cfgs: String = tool
            .cfgs
            .iter()
            .map(|a| a.to_token_stream().to_string())
            .collect();
        if matches!(tool.kind, ItemKind::Complete(_) | ItemKind::Broken) {
            continue;
        }
        let noun = tool.kind.noun();
        let name = match &tool.kind {
            ItemKind::Resource(r) => r.address().map(syn::LitStr::value).unwrap_or_default(),
            _ => tool.name(),
        };
        let key = format!("{noun} {name}");
        let fix = if tool.is_tool() {
            "#[tool(name = \"...\")]"
        } else {
            "`name = \"...\"`"
        };
        if let Some(first) = seen.get(&(key.clone(), cfgs.clone())) {
            cx.section(tool.section);
            cx.error_at(
                tool.name_span(),
                format!(
                    "two {noun}s are named `{name}` (`{}` and `{}`): {noun} names must be unique; rename one with {fix}",
                    first.ident, tool.ident
                ),
            );
        } else {
            seen.insert((key, cfgs), tool);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{is_valid_property_name, is_valid_tool_name};

    #[test]
    fn tool_names() {
        assert!(is_valid_tool_name("add"));
        assert!(is_valid_tool_name("a.b-c_D9"));
        assert!(is_valid_tool_name(&"x".repeat(128)));
        assert!(!is_valid_tool_name(&"x".repeat(129)));
        assert!(!is_valid_tool_name(""));
        assert!(!is_valid_tool_name("with space"));
        assert!(!is_valid_tool_name("añadir"));
    }

    #[test]
    fn property_names() {
        assert!(is_valid_property_name("dryRun"));
        assert!(is_valid_property_name("old_text"));
        assert!(is_valid_property_name("max-results.v2"));
        assert!(is_valid_property_name(&"x".repeat(64)));
        assert!(!is_valid_property_name(&"x".repeat(65)));
        assert!(!is_valid_property_name(""));
        assert!(!is_valid_property_name("dry run"));
        assert!(!is_valid_property_name("añadir"));
    }
}
