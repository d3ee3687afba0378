//! Declared servers (`#[tool] trait`): the tools of a server written
//! elsewhere, for a typed client.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Attribute, ItemTrait, TraitItem, TraitItemFn, Type};

use super::toolbox::is_self;
use super::{cfgs, Access, DeclaredSig, ItemKind, Tool, ToolTrait};
use crate::attr::{self, Container, Helper, Position};
use crate::ctxt::Ctxt;
use crate::symbol::CFG;

impl ToolTrait {
    pub(crate) fn from_syn(cx: &Ctxt, args: TokenStream, item: &mut ItemTrait) -> ToolTrait {
        let options = attr::impl_options(cx, args, Container::Trait);
        let (description_attempted, carried) = trait_attrs(cx, &item.attrs);
        let mut model = ToolTrait {
            ident: item.ident.clone(),
            vis: item.vis.clone(),
            description: options.description,
            description_attempted,
            tools: Vec::new(),
            cfgs: cfgs(&item.attrs),
            carried,
            has_candidates: false,
            unsafety: item.unsafety,
            auto_token: item.auto_token,
            generics: item.generics.clone(),
            supertraits: (!item.supertraits.is_empty()).then(|| item.supertraits.to_token_stream()),
        };
        for (index, trait_item) in item.items.iter_mut().enumerate() {
            cx.section(index + 1);
            let TraitItem::Fn(method) = trait_item else {
                cx.error_spanned_by(
                    &*trait_item,
                    "a #[tool] trait declares tools only (`async fn name(&self, ...) -> Output;`): remove this item",
                );
                continue;
            };
            model.has_candidates = true;
            let mut tool = declared_tool(cx, method);
            tool.section = index + 1;
            model.tools.push(tool);
        }
        cx.section(0);
        model
    }
}

/// A trait's own attributes: whether a `#[describe]` stood for the
/// description, and those carried to the client.
fn trait_attrs(cx: &Ctxt, attrs: &[Attribute]) -> (bool, Vec<Attribute>) {
    let mut description_attempted = false;
    let mut carried = Vec::new();
    for attr in attrs {
        match attr::helper(attr) {
            Some(Helper::Describe) => {
                description_attempted = true;
                cx.error_spanned_by(
                    attr,
                    "a #[tool] trait is described by its #[tool]: write #[tool(description = \"...\")] on the trait instead of #[describe]",
                );
            }
            Some(Helper::Param) => cx.error_spanned_by(
                attr,
                "#[param] describes a parameter: put it above a method of the trait or on its argument",
            ),
            Some(Helper::Tool) => {
                cx.error_spanned_by(attr, "duplicate #[tool] on the trait: merge the two");
            }
            None if attr.path().is_ident(CFG.0) => {}
            None => carry(cx, attr, &mut carried, "client type"),
        }
    }
    (description_attempted, carried)
}

/// One method of a `#[tool]` trait: a declared tool.
fn declared_tool(cx: &Ctxt, method: &mut TraitItemFn) -> Tool {
    let receiver = match method.sig.receiver() {
        None => None,
        Some(receiver) => {
            let shared = matches!(
                &*receiver.ty,
                Type::Reference(r) if r.mutability.is_none() && is_self(&r.elem)
            );
            Some(if shared {
                Ok(())
            } else {
                Err(receiver.to_token_stream())
            })
        }
    };
    let declared = DeclaredSig {
        body: method.default.as_ref().map(|b| b.brace_token.span.join()),
        not_async: method
            .sig
            .asyncness
            .is_none()
            .then_some(method.sig.fn_token),
        receiver,
    };
    let kind = super::kind::item_kind(cx, &mut method.attrs);
    let mut tool = Tool::from_syn(
        cx,
        &mut method.attrs,
        &mut method.sig,
        Access::Shared,
        Position::Declared,
    );
    tool.declared = Some(declared);
    match kind {
        ItemKind::Tool | ItemKind::Prompt(_) | ItemKind::Broken => tool.kind = kind,
        ItemKind::Resource(_) | ItemKind::Complete(_) => {
            cx.error_spanned_by(
                &method.sig.ident,
                "a #[tool] trait declares a server's tools and prompts; read its resources with `Client::read_resource`",
            );
            tool.kind = ItemKind::Broken;
        }
    }
    for attr in &method.attrs {
        if !attr.path().is_ident(CFG.0) {
            carry(cx, attr, &mut tool.carried, "client method");
        }
    }
    tool
}

/// Keeps the attributes of a declaration that mean something on the
/// generated item (docs, lint levels, `#[deprecated]`); refuses the rest,
/// which would otherwise vanish with the trait.
fn carry(cx: &Ctxt, attr: &Attribute, carried: &mut Vec<Attribute>, onto: &str) {
    const CARRIED: &[&str] = &[
        "doc",
        "allow",
        "expect",
        "warn",
        "deny",
        "forbid",
        "deprecated",
        "cfg_attr",
    ];
    if CARRIED.iter().any(|name| attr.path().is_ident(name)) {
        carried.push(attr.clone());
    } else {
        let path = attr::path_text(attr.path());
        cx.error_spanned_by(
            attr,
            format!("#[{path}] cannot be kept: a #[tool] trait is not emitted, only its client is, and the {onto} takes doc comments, lint levels and #[deprecated] only; remove it"),
        );
    }
}
