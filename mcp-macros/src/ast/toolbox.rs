//! Toolboxes (`#[tool] impl`) and tool functions (`#[tool] fn`): their
//! attributes, receivers, and the methods that become tools.

use proc_macro2::TokenStream;
use quote::format_ident;
use syn::ext::IdentExt;
use syn::{Attribute, ImplItem, ImplItemFn, ItemFn, ItemImpl, Signature, Type, Visibility};

use super::{
    cfgs, strip_helpers, upper_camel, Access, ArgKind, ItemKind, ParamInfo, Tool, ToolFn, ToolImpl,
};
use crate::attr::{self, Container, Helper, Position};
use crate::ctxt::Ctxt;

impl ToolImpl {
    pub(crate) fn from_syn(cx: &Ctxt, args: TokenStream, item: &mut ItemImpl) -> ToolImpl {
        let options = attr::impl_options(cx, args, Container::Impl);
        let trait_path = item.trait_.as_ref().map(|(_, path, _)| path.clone());
        let description_attempted = impl_attrs(cx, &mut item.attrs);
        let type_name = match &*item.self_ty {
            Type::Path(p) if p.qself.is_none() => {
                p.path.segments.last().map(|s| s.ident.unraw().to_string())
            }
            _ => None,
        };
        let mut model = ToolImpl {
            self_ty: (*item.self_ty).clone(),
            generics: item.generics.clone(),
            type_name,
            description: options.description,
            description_attempted,
            tools: Vec::new(),
            cfgs: cfgs(&item.attrs),
            has_candidates: false,
            is_trait_impl: trait_path.is_some(),
            trait_path,
            client: options.client,
        };
        let block_scopes = options.scopes;
        for (index, impl_item) in item.items.iter_mut().enumerate() {
            let ImplItem::Fn(method) = impl_item else {
                continue;
            };
            cx.section(index + 1);
            if let Some(mut tool) = model.method(cx, method) {
                tool.section = index + 1;
                // A completion function is asked for with the scopes of
                // what it completes, which get the block's too.
                let completes = matches!(tool.kind, ItemKind::Complete(_));
                if let (Some(block), false) = (&block_scopes, completes) {
                    tool.block_scopes.clone_from(&block.values);
                }
                model.tools.push(tool);
            }
        }
        cx.section(0);
        model
    }

    /// The tool (or prompt, resource, completion function) of one method
    /// of the block, if it is one.
    fn method(&mut self, cx: &Ctxt, method: &mut ImplItemFn) -> Option<Tool> {
        if self.is_trait_impl {
            // Reported as a whole; its methods need no more errors.
            method.attrs.retain(|a| !super::kind::is_kind_attr(a));
            strip_helpers(&mut method.attrs, &mut method.sig);
            return None;
        }
        let kind = super::kind::item_kind(cx, &mut method.attrs);
        // A completion function serves a prompt or template: it may be private.
        let completes = matches!(kind, ItemKind::Complete(_));
        if !completes && !matches!(method.vis, Visibility::Public(_)) {
            if let Some(first) = strip_helpers(&mut method.attrs, &mut method.sig) {
                self.has_candidates = true;
                cx.error_spanned_by(
                    first,
                    format!(
                        "`{}` is not `pub`, so it is not a tool: make it `pub fn` to expose it as one",
                        method.sig.ident
                    ),
                );
            }
            return None;
        }
        self.has_candidates = true;
        let Some(access) = receiver_access(cx, &method.sig, self) else {
            strip_helpers(&mut method.attrs, &mut method.sig);
            return None;
        };
        let mut tool = Tool::from_syn(
            cx,
            &mut method.attrs,
            &mut method.sig,
            access,
            Position::Method,
        );
        tool.kind = kind;
        bind_kind(cx, &mut tool);
        Some(tool)
    }
}

/// Matches a resource's arguments to its template's variables (they need no
/// description: the template names them), and makes every argument of a
/// completion function one the request provides.
fn bind_kind(cx: &Ctxt, tool: &mut Tool) {
    let fn_name = tool.ident.clone();
    match &tool.kind {
        ItemKind::Resource(r) => {
            let variables = r.variables.clone();
            let template = r.template.clone();
            for arg in &mut tool.args {
                let wire = arg.wire_name();
                if variables.contains(&wire) {
                    if matches!(arg.kind, ArgKind::Injected) {
                        arg.kind = ArgKind::Param(ParamInfo::default());
                    }
                } else if arg.literal_context {
                    arg.kind = ArgKind::Injected;
                } else {
                    let message = match &template {
                        Some(t) => format!(
                            "`{wire}` is not a variable of the template \"{}\", so nothing binds it: its variables are {}; rename the parameter, add `{{{wire}}}` to the template, or remove it",
                            t.value(),
                            list(&variables)
                        ),
                        None => format!("`{wire}` cannot be bound: a resource with a fixed `uri` takes no parameters (only `Context`); use `template = \"...{{{wire}}}...\"` for a family of resources"),
                    };
                    cx.error_spanned_by(&arg.ident, message);
                    // Reported: no further error about it.
                    arg.kind = ArgKind::Param(ParamInfo {
                        described: true,
                        ..ParamInfo::default()
                    });
                }
            }
            if let Some(t) = &template {
                for var in &variables {
                    if !tool.args.iter().any(|a| &a.wire_name() == var) {
                        cx.error_spanned_by(
                            t,
                            format!("template variable `{var}` has no parameter: add `{var}: String` (or any type that parses from a string) to `{fn_name}`"),
                        );
                    }
                }
            }
        }
        ItemKind::Complete(_) => {
            for arg in &mut tool.args {
                if let ArgKind::Param(info) = &arg.kind {
                    if info.described {
                        cx.error_spanned_by(
                            &arg.ident,
                            "a completion function's arguments are not described: it takes the value typed so far (`&str` or `String`), `&Completing` and `Context`",
                        );
                    }
                }
                arg.kind = ArgKind::Injected;
            }
        }
        ItemKind::Tool | ItemKind::Prompt(_) | ItemKind::Broken => {}
    }
}

fn list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Strips the helpers from an impl block's own attributes (they do not
/// belong there); returns whether a `#[describe]` stood for the description.
fn impl_attrs(cx: &Ctxt, attrs: &mut Vec<Attribute>) -> bool {
    let mut description_attempted = false;
    attrs.retain(|attr| match attr::helper(attr) {
        Some(Helper::Describe) => {
            description_attempted = true;
            cx.error_spanned_by(
                attr,
                "a toolbox is described by its #[tool]: write #[tool(description = \"...\")] on the impl block instead of #[describe]",
            );
            false
        }
        Some(Helper::Param) => {
            cx.error_spanned_by(
                attr,
                "#[param] describes a parameter: put it above a tool method or on its argument",
            );
            false
        }
        _ => true,
    });
    description_attempted
}

/// `&self` or `&mut self`; anything else is reported and gives `None`.
fn receiver_access(cx: &Ctxt, sig: &Signature, model: &ToolImpl) -> Option<Access> {
    let name = &sig.ident;
    let Some(receiver) = sig.receiver() else {
        let ty = model.type_name.as_deref().unwrap_or("...");
        cx.error_spanned_by(
            name,
            format!(
                "`{name}` has no `self` receiver, so it cannot be a tool: tools in a #[tool] impl take `&self` or `&mut self`. \
                 If it is not a tool, move it to a separate `impl {ty} {{ ... }}` block without #[tool], or make it private"
            ),
        );
        return None;
    };
    if let Type::Reference(reference) = &*receiver.ty {
        if is_self(&reference.elem) {
            return Some(if reference.mutability.is_some() {
                Access::Exclusive
            } else {
                Access::Shared
            });
        }
    }
    cx.error_spanned_by(
        receiver,
        format!("tool `{name}` must borrow its toolbox: take `&self` (runs concurrently with other calls) or `&mut self` (runs alone)"),
    );
    None
}

pub(super) fn is_self(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident("Self"))
}

impl ToolFn {
    pub(crate) fn from_syn(cx: &Ctxt, args: TokenStream, item: &mut ItemFn) -> ToolFn {
        let options = attr::tool_options(cx, args, Position::Function);
        let ident = item.sig.ident.unraw();
        let struct_ident = format_ident!(
            "{}Tool",
            upper_camel(&ident.to_string()),
            span = item.sig.ident.span()
        );
        let tool = if let Some(receiver) = item.sig.receiver() {
            cx.error_spanned_by(
                receiver,
                "this function is a method: put #[tool(description = \"...\")] on its impl block instead, and its `pub fn`s become tools (a method's own #[tool(...)] then takes `name`, `title` and annotations)",
            );
            strip_helpers(&mut item.attrs, &mut item.sig);
            None
        } else {
            let mut tool = Tool::from_syn(
                cx,
                &mut item.attrs,
                &mut item.sig,
                Access::Free,
                Position::Function,
            );
            tool.description_attempted |= options.description_attempted;
            tool.options = options;
            Some(tool)
        };
        ToolFn {
            vis: item.vis.clone(),
            struct_ident,
            tool,
        }
    }
}
