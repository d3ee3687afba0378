//! Whole-item checks, once the model is built (`serde_derive`: `internals/check.rs`).

use std::collections::HashMap;

use proc_macro2::Span;
use quote::ToTokens;
use syn::{GenericParam, Type};

use crate::ast::{ArgKind, Tool, ToolFn, ToolImpl};
use crate::attr::Position;
use crate::ctxt::Ctxt;

/// The spec's rule for tool names: 1 to 128 characters of `[A-Za-z0-9_.-]`.
pub(crate) fn is_valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

pub(crate) fn check_impl(cx: &Ctxt, model: &ToolImpl) {
    if model.is_trait_impl {
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
    for tool in &model.tools {
        cx.section(tool.section);
        check_tool(cx, tool);
    }
    check_unique_names(cx, &model.tools);
    cx.section(0);
}

pub(crate) fn check_fn(cx: &Ctxt, model: &ToolFn) {
    if let Some(tool) = &model.tool {
        check_tool(cx, tool);
    }
}

fn check_tool(cx: &Ctxt, tool: &Tool) {
    let fn_name = &tool.ident;
    let (above, not_a_tool) = match tool.position {
        Position::Function => ("the function", String::new()),
        Position::Method => (
            "the method",
            format!(" (if `{fn_name}` is not a tool, make it private or move it to an impl block without #[tool])"),
        ),
    };
    match &tool.description {
        None if tool.description_attempted => {}
        None => cx.error_spanned_by(
            fn_name,
            format!("tool `{fn_name}` needs a description: add #[describe(\"...\")] above it{not_a_tool}"),
        ),
        Some(lit) if lit.value().trim().is_empty() => cx.error_spanned_by(
            lit,
            format!("empty description: say what the tool `{fn_name}` does, for the model"),
        ),
        Some(_) => {}
    }

    let name = tool.name();
    if !is_valid_tool_name(&name) {
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
    if let Some(title) = &tool.options.title {
        if title.value().trim().is_empty() {
            cx.error_spanned_by(
                title,
                "empty title: write a display name, or remove `title`",
            );
        }
    }

    for param in &tool.generics.params {
        if !matches!(param, GenericParam::Lifetime(_)) {
            cx.error_spanned_by(
                param,
                format!("tool `{fn_name}` cannot be generic: its schema needs concrete argument types; write a tool per type, each calling a generic helper"),
            );
        }
    }

    for arg in &tool.args {
        let ArgKind::Param(info) = &arg.kind else {
            continue;
        };
        let arg_name = &arg.ident;
        if !info.described && !info.typo_target {
            cx.error_spanned_by(
                arg_name,
                format!("parameter `{arg_name}` of tool `{fn_name}` needs a description: write #[param(\"...\")] before it, or #[param({arg_name}, \"...\")] above {above}"),
            );
        } else if let Some(lit) = &info.description {
            if lit.value().trim().is_empty() {
                cx.error_spanned_by(
                    lit,
                    format!("empty description: say what `{arg_name}` is, for the model"),
                );
            }
        }
        check_arg_type(cx, &arg.ty);
    }
    if let Type::ImplTrait(ty) = &tool.output {
        cx.error_spanned_by(
            ty,
            "a tool's return type must be concrete (e.g. `String`, `Json<T>`, `Result<_, ToolError>`), not `impl Trait`",
        );
    }
}

fn check_arg_type(cx: &Ctxt, ty: &Type) {
    match ty {
        Type::ImplTrait(_) => cx.error_spanned_by(
            ty,
            "a tool's argument needs a concrete type: it is decoded from JSON and described by a JSON Schema",
        ),
        Type::Reference(r) => {
            let owned = match &*r.elem {
                Type::Path(p) if p.path.is_ident("str") => "`String`",
                Type::Slice(_) => "`Vec<_>`",
                _ => "an owned type",
            };
            cx.error_spanned_by(
                ty,
                format!("a tool's argument is decoded from JSON into an owned value: use {owned} instead of a reference"),
            );
        }
        Type::Group(g) => check_arg_type(cx, &g.elem),
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
        let name = tool.name();
        if let Some(first) = seen.get(&(name.clone(), cfgs.clone())) {
            cx.section(tool.section);
            cx.error_at(
                tool.name_span(),
                format!(
                    "two tools are named `{name}` (`{}` and `{}`): tool names must be unique; rename one with #[tool(name = \"...\")]",
                    first.ident, tool.ident
                ),
            );
        } else {
            seen.insert((name, cfgs), tool);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_valid_tool_name;

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
}
